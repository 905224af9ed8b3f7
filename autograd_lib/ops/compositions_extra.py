"""More small functions beside ``compositions.py``: ``heaviside``, ``ldexp``, ``aminmax``,
``logspace``, ``bincount``, ``bucketize`` and ``searchsorted``.

The last four count or look up positions: their results are integers (or plain float
values), never differentiated.  ``aminmax`` is one node with two outputs (AminmaxBackward0),
``ldexp`` has its own node, ``heaviside`` records PyTorch's NotImplemented node: its
backward refuses.
"""

import numpy as np

from .. import creation
from .. import dtypes as _dt
from ..recording import record, record_outputs
from ..tensor import Tensor, _wrap_dim
from .inplace import _inplace
from .operands import cast_operand, quietly, to_tensor
from ..op_table import op

__all__ = ["heaviside", "heaviside_", "ldexp", "ldexp_", "aminmax", "logspace", "bincount",
           "bucketize", "searchsorted"]


@op("heaviside", public=True, inplace="heaviside_")
def heaviside(input, values):
    """0 where ``input < 0``, 1 where ``> 0``, and ``values`` where it is 0."""
    input, values = to_tensor(input), to_tensor(values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    array = np.where(input._data == 0, values._data, (input._data > 0).astype(input._data.dtype))
    needing = tuple(t for t in (input, values) if t.requires_grad)     # PyTorch's node has only these
    return record("heaviside", np.asarray(array, dtype=input._data.dtype, order="C"), needing or (input,))


@op("heaviside_", public=True)
def heaviside_(self, values):
    return _inplace(self, heaviside, values)


@op("ldexp", public=True, inplace="ldexp_")
def ldexp(input, other):
    """``input * 2 ** other`` (always floating point)."""
    input, other = to_tensor(input), to_tensor(other)
    dtype = _dt.result_type(input, other)
    dtype = dtype if dtype.is_floating_point else _dt.get_default_dtype()
    a = cast_operand(input, dtype)
    array = quietly(lambda x, e: x * np.power(2.0, e), a._data, other._data).astype(dtype.numpy)
    return record("ldexp", np.asarray(array, order="C"), (a, other))


@op("ldexp_", public=True)
def ldexp_(self, other):
    return _inplace(self, ldexp, other)


class _MinMax(tuple):
    """``(min, max)``, printed like ``torch.return_types.aminmax``."""

    def __new__(cls, low, high):
        return super().__new__(cls, (low, high))

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"autograd_lib.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


@op("aminmax", public=True)
def aminmax(input, *, dim=None, keepdim=False):
    """``(amin, amax)`` over ``dim`` (all elements by default), from one node."""
    input = to_tensor(input)
    dims = tuple(range(input.ndim)) if dim is None else (_wrap_dim(dim, input.ndim),) if input.ndim else ()
    if dim is not None and input.ndim and input.shape[dims[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    if input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                           "has no identity.")
    axis = dims if input.ndim else None
    keep = keepdim and dim is not None
    low = np.asarray(np.min(input._data, axis=axis, keepdims=keep), order="C")
    high = np.asarray(np.max(input._data, axis=axis, keepdims=keep), order="C")
    return _MinMax(*record_outputs("aminmax", (Tensor._make(low), Tensor._make(high)), (input,),
                                   {"dims": dims, "keepdim": keep, "high": high}))


@op(public=True)
def logspace(start, end, steps, base=10.0, dtype=None, requires_grad=False, device=None, **kwargs):
    """``steps`` points from ``base ** start`` to ``base ** end``, evenly spaced in the exponent."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    array = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
    if not dtype.is_floating_point:
        array = np.trunc(array)
    return creation.tensor(array.astype(dtype.numpy), dtype=dtype, requires_grad=requires_grad)


@op("bincount", public=True)
def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in a 1-d tensor of non-negative integers
    (summing ``weights`` instead of counting, when given)."""
    input = to_tensor(input)
    if input.dtype.is_floating_point:
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}'")
    if input.ndim != 1 or (input.numel() and input._data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._make(np.bincount(input._data, minlength=int(minlength)).astype(np.int64))
    weights = to_tensor(weights)
    out = np.float32 if weights.dtype is _dt.float32 else np.float64
    counts = np.bincount(input._data, weights=weights._data.astype(np.float64), minlength=int(minlength))
    return Tensor._make(counts.astype(out))


@op(public=True)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each value of ``input`` would be inserted in ``sorted_sequence`` (along its last
    dim) to keep it sorted: before equal values, or after them with ``right=True``."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("autograd_lib.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    seq = to_tensor(sorted_sequence)
    scalar = not isinstance(input, Tensor)
    values = to_tensor(input)
    if sorter is not None:
        seq = Tensor._make(np.take_along_axis(seq._data, to_tensor(sorter)._data, axis=-1))
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != values.shape[:-1]):
        raise RuntimeError("autograd_lib.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {list(seq.shape)} and input value "
                           f"tensor {list(values.shape)}")
    side = "right" if right else "left"
    if seq.ndim <= 1:
        found = np.searchsorted(seq._data.reshape(-1), values._data, side=side)
    else:
        rows_s = seq._data.reshape(-1, seq.shape[-1])
        rows_v = values._data.reshape(-1, values.shape[-1])
        found = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(rows_s, rows_v)])
        found = found.reshape(values.shape)
    return Tensor._make(np.asarray(found, dtype=np.int32 if out_int32 else np.int64, order="C"))


@op(public=True)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of ``input`` among the 1-d sorted ``boundaries``
    (``right``: a value equal to a boundary goes to the bucket on its right)."""
    boundaries = to_tensor(boundaries)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input if isinstance(input, Tensor) else to_tensor(input),
                        out_int32=out_int32, right=right)


