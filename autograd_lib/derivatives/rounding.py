"""The rules of ``ops/rounding.py``: ``round``, ``floor``, ``ceil``, ``trunc`` (zero gradients).
"""

from ..creation import zeros_like
from .table import rule


# Rounding is piecewise constant (ops/rounding.py).
for _op, _node in (("round", "RoundBackward0"), ("round.decimals", "RoundBackward1"),
                   ("floor", "FloorBackward0"), ("ceil", "CeilBackward0"), ("trunc", "TruncBackward0")):
    rule(_op, _node, self=lambda grad: zeros_like(grad))

