"""Copies and casts: ``clone``, ``contiguous``, ``to`` (and ``float()``, ``long()``, ...).

Gradients flow through them unchanged; the engine casts a gradient back to
its input's dtype.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor

__all__ = ["to", "clone", "contiguous"]


def to(input, dtype=None, copy=False):
    """The tensor as ``dtype`` (``x.to(autograd_lib.float64)``); itself if already that type."""
    if isinstance(dtype, str) and dtype == "cpu":
        return input
    dtype = _dt.as_dtype(dtype)
    if dtype is None or (dtype is input.dtype and not copy):
        return input
    return record("_to_copy", input._data.astype(dtype.numpy), (input,))


Tensor.to = to
Tensor.float = lambda self: to(self, _dt.float32)
Tensor.double = lambda self: to(self, _dt.float64)
Tensor.long = lambda self: to(self, _dt.int64)
Tensor.int = lambda self: to(self, _dt.int32)
Tensor.bool = lambda self: to(self, _dt.bool)
Tensor.type_as = lambda self, other: to(self, other.dtype)


def clone(input):
    """A copy with its own storage; gradients flow through it unchanged."""
    return record("clone", np.array(input._data, copy=True), (input,))


def contiguous(input):
    """The tensor itself if its memory is in row-major order, else a row-major copy
    (recorded as a clone, like PyTorch; ``clone`` alone keeps the memory layout)."""
    if input._data.flags.c_contiguous:
        return input
    return record("clone", np.ascontiguousarray(input._data), (input,))


Tensor.clone, Tensor.contiguous = clone, contiguous
