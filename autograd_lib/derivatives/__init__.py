"""Every gradient rule, in one table (the role of PyTorch's ``derivatives.yaml``).

A rule is keyed by the *forward op* it differentiates, with PyTorch's name for
it (``"mul.Tensor"``, ``"pow.Tensor_Scalar"``, ``"sum.dim_IntList"``: one key
per overload, as in ``derivatives.yaml``).  It names the backward node that the
op records (``MulBackward0``) and gives one small formula per input, in input
order.  An op only says which op it is (``record("mul.Tensor", ...)``); this
table decides the node and what it saves, so ops never name nodes and never
import this package: :func:`rule` (``table.py``) fills ``recording.RULES``, which ``record``
reads when an op runs.

A formula states the values it needs, then computes the gradient of its input
from ``grad`` (the gradient of the op's output) and those values::

    rule("mul.Tensor", "MulBackward0",
         self=("other", lambda grad, other: grad * other),
         other=("self", lambda grad, self: grad * self))

A formula that needs nothing besides ``grad`` is written as the function alone.
The names a formula needs are

* an input's name (``self``, ``other``, ...) or ``result`` (the op's output):
  a *saved tensor*, kept until backward and checked against in-place changes;
* anything else (``dim``, ``self_shape``, ...): a plain value the op passes.

The op saves only what the formulas of its grad-requiring inputs need, as
PyTorch does: ``x * 2`` keeps ``other`` (the 2) because ``x``'s gradient needs
it, but not ``x``.

Formulas are written with tensor operations, so when backward runs with
``create_graph=True`` they are recorded too and can be differentiated again.
A formula may return a gradient of the output's (broadcast) shape; the engine
sums it back to the input's shape (``broadcasting.sum_to``).  The longer
formulas call helpers in ``ops/backward_helpers.py`` (PyTorch's FunctionsManual).
The engine knows nothing about any particular op: everything op-specific is here.

One module per family of ops, named as its module of ``ops/`` (``arithmetic.py`` holds
the rules of ``ops/arithmetic.py``'s ops), each declaring its rules at its top level
with :func:`rule`.  They are imported below in a fixed order: where several ops record
a node of the same name, ``NODES`` keeps the first declared (the exercises' slots name
nodes), so the core families come first.
"""

from .table import BY_INPUT_COUNT, DECLARED_AT, NODES, RULES, DuplicateRule, rule
from . import arithmetic, pointwise, activations, copies, inplace, reductions, norms, sorting  # noqa: F401,E501
from . import index_ops, rounding, shape, indexing, linalg, losses, elementwise_losses       # noqa: F401
from . import nn_ops, special, structure, compositions, matrix_functions, convolution        # noqa: F401
from . import margin_losses                                                                  # noqa: F401

__all__ = ["rule", "NODES", "RULES", "BY_INPUT_COUNT", "DECLARED_AT", "DuplicateRule"]
