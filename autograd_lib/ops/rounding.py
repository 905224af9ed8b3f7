"""Rounding: ``round``, ``floor``, ``ceil``, ``trunc`` (and their in-place forms).

Piecewise constant, so their gradient is zero everywhere (PyTorch's
RoundBackward0, FloorBackward0, ...); integer inputs come back unchanged.
``round`` rounds half to even, as PyTorch and NumPy do.
"""

import numpy as np

from ..recording import record
from .inplace import _inplace
from .operands import to_tensor
from ..op_table import methods, op

__all__ = ["round", "floor", "ceil", "trunc"]


@op("round", public=True, inplace="round_")
def round(input, *, decimals=0):
    input = to_tensor(input)
    if decimals:
        return record("round.decimals", np.round(input._data, decimals), (input,))
    return record("round", np.round(input._data), (input,))


def _rounding(op, np_fn):
    def fn(input):
        input = to_tensor(input)
        return record(op, np_fn(input._data).astype(input._data.dtype, copy=False), (input,))
    fn.__name__ = op
    return fn


floor, ceil, trunc = _rounding("floor", np.floor), _rounding("ceil", np.ceil), _rounding("trunc", np.trunc)
op("floor", public="floor", inplace="floor_")(floor)
op("ceil", public="ceil", inplace="ceil_")(ceil)
op("trunc", public="trunc", inplace="trunc_")(trunc)
methods(round_=lambda self, *, decimals=0: _inplace(self, lambda s: round(s, decimals=decimals)))
methods(floor_=lambda self: _inplace(self, floor))
methods(ceil_=lambda self: _inplace(self, ceil))
methods(trunc_=lambda self: _inplace(self, trunc))
