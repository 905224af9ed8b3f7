"""Statistics of a tensor's values: the order statistics ``median``, ``nanmedian``,
``kthvalue``, ``mode`` (values and indices); the NaN-skipping ``nansum``, ``nanmean``; the
running ``cummax``/``cummin`` and ``logcumsumexp``; counting ``nonzero``, ``argwhere``,
``count_nonzero``, ``unique``.

A reduction that *selects* one element along a dim (median, kthvalue, mode) returns
its index too, and its gradient goes to that index only (as ``max(dim)``'s); over
all elements (``median()``), ties share the gradient equally (as ``max()``'s).
Ties pick the index a stable sort gives, which is what PyTorch's CPU kernels give
for small inputs.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .arithmetic import div
from .pointwise import where
from .structure import contiguous_array as _contiguous
from .operands import quietly, to_tensor, wrap_dims
from .reductions import _ReturnType, return_types
from ..op_table import op

__all__ = ["median", "nanmedian", "kthvalue", "mode", "nansum", "nanmean", "cummax", "cummin",
           "logcumsumexp", "logcumsumexp_backward", "nonzero", "argwhere", "count_nonzero", "unique"]

for _name in ("median", "nanmedian", "kthvalue", "mode", "cummax", "cummin"):
    setattr(return_types, _name, type(_name, (_ReturnType,), {"_name": _name}))


# ------------------------------------------------------- selecting one value

def _select(name, input, dim, keepdim, pick):
    """(values, indices) along ``dim``: ``pick(sorted_values, order)`` gives, for each row
    (the last axis), the position in the stable sorted order to take."""
    d = _wrap_dim(dim, input.ndim) if input.ndim else _wrap_dim(dim, 1)
    data = np.moveaxis(input._data, d, -1) if input.ndim else input._data.reshape(1)
    if data.shape[-1] == 0:
        raise IndexError(f"{name.split('.')[0]}(): Expected reduction dim {d} to have non-zero size.")
    order = np.argsort(data, axis=-1, kind="stable")
    ordered = np.take_along_axis(data, order, -1)
    at = pick(ordered, order)[..., None]                       # position in sorted order
    values = np.take_along_axis(ordered, at, -1)[..., 0]
    indices = np.take_along_axis(order, at, -1)[..., 0].astype(np.int64)
    if input.ndim:
        if keepdim:
            values, indices = np.expand_dims(values, d), np.expand_dims(indices, d)
    else:
        values, indices = values.reshape(()), indices.reshape(())
    indices_t = Tensor._make(_contiguous(indices))
    values_t = record(name, _contiguous(values), (input,),
                      {"self_shape": input.shape, "dim": d, "keepdim": keepdim, "indices": indices_t})
    return getattr(return_types, name.split(".")[0])(values_t, indices_t)


def _lower_median(ordered, order, ignore_nan):
    """The position of the lower median in each sorted row (NaNs sort last: with
    ``ignore_nan`` they are left out, otherwise a row with one has NaN as median)."""
    n = ordered.shape[-1]
    nans = np.isnan(ordered).sum(-1) if ordered.dtype.kind == "f" else np.zeros(ordered.shape[:-1], int)
    if ignore_nan:
        return np.maximum((n - nans - 1) // 2, 0)
    return np.where(nans > 0, n - nans, (n - 1) // 2)   # the first NaN, or the lower median


@op("median", public=True)
def median(input, dim=None, keepdim=False):
    """The lower median of all elements (MedianBackward0), or ``(values, indices)`` along
    ``dim`` (MedianBackward1).  A NaN makes the median NaN."""
    input = to_tensor(input)
    if dim is None:
        return _global_median("median", input, ignore_nan=False)
    return _select("median.dim", input, dim, keepdim, lambda s, o: _lower_median(s, o, False))


@op("nanmedian", public=True)
def nanmedian(input, dim=None, keepdim=False):
    """``median`` with the NaNs left out (NaN only where all are NaN)."""
    input = to_tensor(input)
    if dim is None:
        return _global_median("nanmedian", input, ignore_nan=True)
    return _select("nanmedian.dim", input, dim, keepdim, lambda s, o: _lower_median(s, o, True))


def _global_median(op, input, ignore_nan):
    if input.numel() == 0:
        return record(op, np.asarray(np.nan, dtype=input._data.dtype), (input,))
    flat = np.sort(input._data.reshape(-1), kind="stable")
    at = int(_lower_median(flat, None, ignore_nan))
    return record(op, np.asarray(flat[at]), (input,))


@op("kthvalue", public=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element along ``dim`` (from 1), and its index (KthvalueBackward0)."""
    input = to_tensor(input)
    d = _wrap_dim(dim, input.ndim) if input.ndim else 0
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _select("kthvalue", input, dim, keepdim, lambda s, o: np.full(s.shape[:-1], k - 1))


@op("mode", public=True)
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest among equally frequent ones) and
    the index of its last occurrence (ModeBackward0)."""
    input = to_tensor(input)

    def pick(ordered, order):
        n = ordered.shape[-1]
        rows = ordered.reshape(-1, n)
        at = np.empty(len(rows), dtype=np.int64)
        for r, row in enumerate(rows):               # runs of equal values in the sorted row
            _, first, counts = np.unique(row, return_index=True, return_counts=True)
            best = np.argmax(counts)                 # the first (smallest) of the most frequent
            at[r] = first[best] + counts[best] - 1   # its last run position: its last occurrence
        return at.reshape(ordered.shape[:-1])
    return _select("mode", input, dim, keepdim, pick)


# -------------------------------------------------------------- ignoring NaN

@op("nansum", public=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """``sum`` with NaNs counted as zero (NansumBackward0)."""
    input = to_tensor(input)
    target = _dt.as_dtype(dtype) or (input.dtype if input.dtype.is_floating_point else _dt.int64)
    dims = None if dim is None or dim in ((), []) else wrap_dims(dim, input.ndim) if input.ndim else ()
    array = np.nansum(input._data, axis=dims, keepdims=keepdim if dims is not None else False,
                      dtype=target.numpy)
    return record("nansum", np.asarray(array, dtype=target.numpy, order="C"), (input,),
                  {"dim": dims, "keepdim": keepdim})


@op("nanmean", public=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the non-NaN elements: ``nansum`` divided by their count."""
    input = to_tensor(input)
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but "
                           f"got {_dt.LEGACY_NAMES[input.dtype.name][:-6]}")
    counted = Tensor._make(np.logical_not(np.isnan(input._data)))
    return div(nansum(input, dim, keepdim, dtype=dtype), counted.sum(dim, keepdim) if dim is not None
               else counted.sum())


# -------------------------------------------------------------- running ones

def _running_extreme(name, input, dim, better):
    input = to_tensor(input)
    d = _wrap_dim(dim, input.ndim) if input.ndim else _wrap_dim(dim, 1)
    data = np.moveaxis(input._data, d, -1) if input.ndim else input._data.reshape(1)
    values, indices = np.empty_like(data), np.empty(data.shape, dtype=np.int64)
    best, at = data[..., 0], np.zeros(data.shape[:-1], dtype=np.int64)
    for j in range(data.shape[-1]):
        x = data[..., j]
        take = better(x, best) | (x == best)          # ties: the latest index
        if data.dtype.kind == "f":                     # a NaN wins, and stays
            take = (take | np.isnan(x)) & (~np.isnan(best) | np.isnan(x))
        best, at = np.where(take, x, best), np.where(take, j, at)
        values[..., j], indices[..., j] = best, at
    if input.ndim:
        values, indices = np.moveaxis(values, -1, d), np.moveaxis(indices, -1, d)
    else:
        values, indices = values.reshape(()), indices.reshape(())
    indices_t = Tensor._make(_contiguous(indices))
    values_t = record(name, _contiguous(values), (input,), {"dim": d, "indices": indices_t})
    return getattr(return_types, name)(values_t, indices_t)


@op("cummax", public=True)
def cummax(input, dim):
    """Running maximum along ``dim`` and where it was (the latest of equal ones)."""
    return _running_extreme("cummax", input, dim, np.greater)


@op("cummin", public=True)
def cummin(input, dim):
    """Running minimum along ``dim`` and where it was (the latest of equal ones)."""
    return _running_extreme("cummin", input, dim, np.less)


@op("logcumsumexp", public=True)
def logcumsumexp(input, dim):
    """Running ``log(sum(exp(x)))`` along ``dim``, without overflow."""
    input = to_tensor(input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-6]}'")
    d = _wrap_dim(dim, input.ndim) if input.ndim else _wrap_dim(dim, 1)
    array = quietly(np.logaddexp.accumulate, input._data, axis=d) if input.ndim else input._data.copy()
    return record("logcumsumexp", np.asarray(array, dtype=input._data.dtype), (input,), {"dim": d})


def logcumsumexp_backward(grad, self, result, dim):
    """Element ``k`` is in every running sum ``j >= k``, with weight ``exp(x[k] - out[j])``:
    that matrix (a new dim for ``k``; -inf, so weight 0, where ``j < k``) times ``grad``."""
    if self.ndim == 0:
        return grad
    x, out, g = (t.movedim(dim, -1) for t in (self, result, grad))
    n = x.shape[-1]
    later = Tensor._make(np.triu(np.ones((n, n), dtype=bool)))            # [k, j]: j >= k
    exponent = where(later, x.unsqueeze(-1) - out.unsqueeze(-2), -math.inf)
    return (exponent.exp() * g.unsqueeze(-2)).sum(-1).movedim(-1, dim)


# ----------------------------------------------------------------- finding

@op("nonzero", public=True)
def nonzero(input, *, as_tuple=False):
    """The coordinates of the non-zero elements: an ``(n, ndim)`` int64 tensor, or
    (``as_tuple``) one 1-D tensor per dim."""
    input = to_tensor(input)
    data = input._data if input.ndim else input._data.reshape(1)
    where = np.nonzero(data)
    if as_tuple:
        return tuple(Tensor._make(_contiguous(w, dtype=np.int64)) for w in where)
    coords = np.stack(where, axis=1) if input.ndim else np.zeros((len(where[0]), 0), dtype=np.int64)
    return Tensor._make(_contiguous(coords, dtype=np.int64))


@op("argwhere", public=True)
def argwhere(input):
    return nonzero(input)


@op("count_nonzero", public=True)
def count_nonzero(input, dim=None):
    input = to_tensor(input)
    dims = None if dim is None else (tuple(_wrap_dim(d, input.ndim) for d in dim)
                                     if isinstance(dim, (tuple, list)) else _wrap_dim(dim, input.ndim))
    return Tensor._make(np.asarray(np.count_nonzero(input._data, axis=dims), dtype=np.int64))


@op("unique", public=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), and optionally where each element went (``inverse``)
    and how often each value occurs (``counts``); with ``dim``, the distinct slices.
    Not differentiable (its backward raises, as PyTorch's)."""
    input = to_tensor(input)
    if dim is None:
        values, inverse, counts = np.unique(input._data.reshape(-1), return_inverse=True,
                                            return_counts=True)
        inverse = inverse.reshape(input.shape)
        op = "_unique2"
    else:
        d = _wrap_dim(dim, input.ndim)
        values, inverse, counts = np.unique(input._data, return_inverse=True, return_counts=True, axis=d)
        inverse = inverse.reshape(-1)
        op = "unique_dim"
    out = record(op, _contiguous(values), (input,))
    extra = []
    if return_inverse:
        extra.append(Tensor._make(np.asarray(inverse, dtype=np.int64)))
    if return_counts:
        extra.append(Tensor._make(np.asarray(counts, dtype=np.int64)))
    return (out, *extra) if extra else out


