"""Sorting: ``sort`` (values and indices, SortBackward0), ``argsort`` (indices only) and
``topk`` (the k largest or smallest, TopkBackward0).

The gradient of the sorted values goes back to the places they came from: the
indices scatter it into zeros (as ``max(dim)``'s backward does for one index).
Ties keep their original order (a stable sort), which PyTorch also gives on
the CPU for small inputs but does not promise unless ``stable=True``.
"""

import numpy as np

from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .operands import to_tensor
from .reductions import _ReturnType, return_types
from ..op_table import op

__all__ = ["sort", "argsort", "topk"]

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


