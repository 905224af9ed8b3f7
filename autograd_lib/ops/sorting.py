"""Sorting: ``sort`` (values and indices, SortBackward0), ``argsort`` (indices only) and
``topk`` (the k largest or smallest, TopkBackward0); and what sorted values are for:
``searchsorted`` and ``bucketize`` (where values fall among sorted ones) and ``bincount``
(how often each integer occurs).  These three give integers (or counted weights), never
differentiated.

The gradient of the sorted values goes back to the places they came from: the
indices scatter it into zeros (as ``max(dim)``'s backward does for one index).
Ties keep their original order (a stable sort), which PyTorch also gives on
the CPU for small inputs but does not promise unless ``stable=True``.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .operands import to_tensor
from .reductions import _ReturnType, return_types
from ..op_table import op

__all__ = ["sort", "argsort", "topk", "searchsorted", "bucketize", "bincount"]

return_types.sort = type("sort", (_ReturnType,), {"_name": "sort"})
return_types.topk = type("topk", (_ReturnType,), {"_name": "topk"})


def _order(data, dim, descending):
    if descending:          # ties keep their order: a stable sort of the negated values
        return np.argsort(~data if data.dtype.kind == "b" else -data, axis=dim, kind="stable")
    return np.argsort(data, axis=dim, kind="stable")


@op("sort", public=True)
def sort(input, dim=-1, descending=False, stable=False):
    """``(values, indices)``: the elements along ``dim`` in order, and where each was."""
    input = to_tensor(input)
    if input.ndim == 0:
        indices = Tensor._make(np.zeros((), dtype=np.int64))
        return return_types.sort(record("sort", input._data.copy(), (input,), {
            "self_shape": input.shape, "dim": 0, "indices": indices}), indices)
    d = _wrap_dim(dim, input.ndim)
    order = np.ascontiguousarray(_order(input._data, d, descending).astype(np.int64))
    values = np.ascontiguousarray(np.take_along_axis(input._data, order, axis=d))
    indices = Tensor._make(order)
    values_t = record("sort", values, (input,), {"self_shape": input.shape, "dim": d,
                                                 "indices": indices})
    return return_types.sort(values_t, indices)


@op("argsort", public=True)
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable)[1]


@op("topk", public=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """``(values, indices)``: the ``k`` largest (or smallest) elements along ``dim``, in
    order, and where each was; the gradient goes back to those places."""
    input = to_tensor(input)
    d = _wrap_dim(dim, input.ndim) if input.ndim else 0
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.ndim == 0:
        indices = Tensor._make(np.zeros((), dtype=np.int64))
        values = input._data.copy() if k else np.zeros((0,), dtype=input._data.dtype)
        return return_types.topk(record("topk", values, (input,), {
            "self_shape": input.shape, "dim": 0, "indices": indices}), indices)
    order = np.take(_order(input._data, d, largest), np.arange(k), axis=d)
    order = np.ascontiguousarray(order.astype(np.int64))
    values = np.ascontiguousarray(np.take_along_axis(input._data, order, axis=d))
    indices = Tensor._make(order)
    return return_types.topk(record("topk", values, (input,), {"self_shape": input.shape, "dim": d,
                                                               "indices": indices}), indices)


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
