"""The rules of copies and casts (``ops/copies.py``): ``clone``, ``to``, ``alias``.
"""

from .table import rule


# Copies and casts: the engine casts the gradient back to the input's dtype.
rule("clone", "CloneBackward0", self=lambda grad: grad)
rule("_to_copy", "ToCopyBackward0", self=lambda grad: grad)
rule("alias", "AliasBackward0", self=lambda grad: grad)

