"""Writing many elements by index at once: ``index_put``, ``put``, ``masked_scatter`` and
``scatter_reduce`` (each with its in-place form), and the backward ops they need.

* ``x.index_put(indices, values, accumulate=False)`` writes ``values`` (broadcast) at
  ``x[indices]``, one tensor per leading dim (integers, or a mask for several dims); with
  ``accumulate=True`` it adds them instead, repeated places getting every value.  It is what
  ``t[mask] = v`` runs.
* ``x.put(index, source, accumulate=False)`` does the same on the flattened ``x``.
* ``x.masked_scatter(mask, source)`` fills the places where ``mask`` holds, in row-major
  order, with ``source``'s first elements.
* ``x.scatter_reduce(dim, index, src, reduce, include_self=True)`` combines each of ``src``'s
  values with the element at its scatter key (``scatter.py``) by ``"sum"``, ``"prod"``,
  ``"mean"``, ``"amax"`` or ``"amin"``; ``include_self=False`` leaves ``x``'s own values out
  of the places that receive some.

Gradients: a place that was overwritten gives ``self`` no gradient (the gradient is written
over with zeros, by the same op), a written value gets the gradient of where it went; the
reductions' gradients are in :func:`scatter_reduce_backward`.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..broadcasting import broadcast_shape, is_expandable_to
from ..creation import ones_like, zeros_like
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .index_ops import gather
from .inplace import _inplace
from .operands import as_method, quietly
from .pointwise import masked_fill, where
from .scatter import _check_scatter, check_flat_index, scatter, scatter_add, scatter_key
from .shape import expand
from ..op_table import methods, op

__all__ = ["index_put", "index_put_", "index_put_at", "put", "put_", "masked_scatter", "masked_scatter_",
           "masked_scatter_backward", "scatter_reduce", "scatter_reduce_", "scatter_reduce_backward",
           "delayed_error"]


def _type(t):
    return _dt.LEGACY_NAMES[t.dtype.name][:-6]                 # "Float", "Long"


def _check_values(name, position, values):
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument '{position[0]}' (position {position[1]}) must be Tensor, "
                        f"not {type(values).__name__}")


# --------------------------------------------------------------- index_put

def _index_key(input, indices):
    """The NumPy key of ``input[indices]`` and the shape it reads, after PyTorch's checks."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' (position 2) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(index).__name__}")
    used = sum(index.ndim if index.dtype is _dt.bool else 1 for index in indices)
    if used > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {used})")
    key, picked, dim = [], [], 0
    for index in indices:
        if index.dtype is _dt.bool:
            for k, size in enumerate(index.shape):
                if size != input.shape[dim + k]:
                    raise IndexError(f"The shape of the mask {list(index.shape)} at index {k} does not match "
                                     f"the shape of the indexed tensor {list(input.shape)} at index {dim + k}")
            key.append(index._data)
            picked.extend(np.nonzero(index._data) if index.ndim else [index._data])
            dim += index.ndim
        elif index.dtype in (_dt.int64, _dt.int32):
            key.append(index._data.astype(np.int64))
            picked.append(key[-1])
            dim += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    try:
        shape = np.broadcast_shapes(*[np.shape(p) for p in picked])
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(np.shape(p))) for p in picked)) from None
    return tuple(key), tuple(shape) + input.shape[dim:]


def _check_in_range(input, key):
    """PyTorch's error for an integer index past the end of its dim (after the other checks)."""
    dim = 0
    for index in key:
        if index.dtype != bool:
            size = input.shape[dim]
            bad = index[(index < -size) | (index >= size)]
            if bad.size:
                raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}")
        dim += index.ndim if index.dtype == bool else 1


@op(public=True)
def index_put(input, indices, values, accumulate=False):
    """``values`` (broadcast) written at ``input[indices]``, or added there with ``accumulate``
    (IndexPutBackward0)."""
    _check_values("index_put", ("values", 3), values)
    key, shape = _index_key(input, indices)
    if not is_expandable_to(values.shape, shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast "
                           f"to indexing result of shape {list(shape)}")
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_type(input)} "
                           f"for the destination and {_type(values)} for the source.")
    _check_in_range(input, key)
    return index_put_at(input, key, values, accumulate)


def index_put_at(input, key, values, accumulate=False):
    """``index_put`` with a NumPy key, checked already (``t[key] = v``, and the gradient of the
    written-over places: zeros written at ``key``)."""
    array = np.array(input._data, copy=True)
    if accumulate:
        np.add.at(array, key, np.broadcast_to(values._data, array[key].shape))
    else:
        array[key] = values._data
    return record("index_put_", array, (input, values), {"key": key, "accumulate": accumulate})


@op(public=True)
def index_put_(self, indices, values, accumulate=False):
    _check_values("index_put_", ("values", 3), values)
    return _inplace(self, lambda s, v: index_put(s, indices, v, accumulate), values)


# --------------------------------------------------------------------- put

@op(public=True)
def put(input, index, source, accumulate=False):
    """``source``'s elements written (or added) at ``index`` of the flattened ``input``
    (PutBackward0)."""
    _check_values("put", ("source", 3), source)
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_type(index)}")
    if source.dtype is not input.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_type(input)} and source.dtype = {_type(source)}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    check_flat_index(index, n)
    array = np.array(input._data, copy=True, order="C")               # row-major: flat is a view
    flat, positions = array.reshape(-1), index._data.reshape(-1) % max(n, 1)
    if accumulate:
        np.add.at(flat, positions, source._data.reshape(-1))
    else:
        flat[positions] = source._data.reshape(-1)
    return record("put", array, (input, source), {"index": index, "accumulate": accumulate,
                                                  "source_shape": source.shape})


def put_(self, index, source, accumulate=False):
    _check_values("put_", ("source", 3), source)
    return _inplace(self, lambda s, x: put(s, index, x, accumulate), source)


# ---------------------------------------------------------- masked_scatter

@op(public=True)
def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the places where ``mask`` holds filled, in
    row-major order, by ``source``'s first elements (MaskedScatterBackward0)."""
    _check_values("masked_scatter", ("source", 3), source)
    shape = broadcast_shape(mask.shape, input.shape)
    if source.dtype is not input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_type(input)} and {_type(source)}")
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_type(mask)}")
    full = np.broadcast_to(mask._data, shape)
    count = int(full.sum())
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    array = np.array(np.broadcast_to(input._data, shape), copy=True)
    array[full] = source._data.reshape(-1)[:count]
    return record("masked_scatter", array, (input, source),
                  {"mask": Tensor._make(np.ascontiguousarray(full)), "source_shape": source.shape})


def masked_scatter_(self, mask, source):
    """In place: ``mask`` must broadcast to ``self``'s shape (not the other way)."""
    _check_values("masked_scatter_", ("source", 3), source)
    if mask.ndim > self.ndim:
        raise RuntimeError(f"expand(CPUBoolType{{{list(mask.shape)}}}, size={list(self.shape)}): the number of "
                           f"sizes provided ({self.ndim}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({mask.ndim})")
    mask = expand(mask, self.shape)
    return _inplace(self, lambda s, x: masked_scatter(s, mask, x), source)


def masked_scatter_backward(grad, mask, sizes):
    """The gradient of ``masked_scatter``'s source: the gradient where ``mask`` holds, in
    order, then zeros, in the source's shape (an op of its own, as in PyTorch)."""
    array = np.zeros(math.prod(sizes), dtype=grad._data.dtype)
    picked = grad._data[mask._data]
    array[:picked.size] = picked
    return record("masked_scatter_backward", array.reshape(sizes), (grad,), {"mask": mask})


# ---------------------------------------------------------- scatter_reduce

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce, dtype):
    """What a place starts from when its own value is left out (``include_self=False``)."""
    if reduce in ("amax", "amin"):
        if dtype.kind == "f":
            return -np.inf if reduce == "amax" else np.inf
        info = np.iinfo(dtype) if dtype.kind in "iu" else None
        return (info.min if reduce == "amax" else info.max) if info else reduce == "amin"
    return 1 if reduce == "prod" else 0


@op(public=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Each of ``src``'s values combined by ``reduce`` with the element at its scatter key
    (ScatterReduceBackward0)."""
    _check_values("scatter_reduce", ("src", 4), src)
    d = _wrap_dim(dim, max(input.ndim, 1))
    index, d = _check_scatter(input, d, index, src, None if reduce in REDUCTIONS else (
        f"reduce argument must be either {', '.join(REDUCTIONS[:-1])} or {REDUCTIONS[-1]}, got {reduce}"))
    array = np.array(input._data, copy=True)
    key = scatter_key(index, d) if input.ndim else ()
    values = src._data[tuple(slice(0, s) for s in index.shape)]
    if not include_self:
        array[key] = _identity(reduce, array.dtype)
    quietly(_UFUNCS[reduce].at, array, key, values)            # nan is a result, not a warning
    if reduce == "mean":
        count = np.full(array.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, key, 1)
        count[count == 0] = 1
        array = (array / count if array.dtype.kind == "f" else array // count).astype(array.dtype)
    return record("scatter_reduce.two", array, (input, src), {"dim": d, "index": index, "reduce": reduce,
                                                              "include_self": include_self})


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    _check_values("scatter_reduce_", ("src", 4), src)
    return _inplace(self, lambda s, x: scatter_reduce(s, dim, index, x, reduce, include_self=include_self), src)


def scatter_reduce_backward(grad, self, src, result, dim, index, reduce, include_self, of="self"):
    """The gradient of ``scatter_reduce`` for ``self`` or (``of="src"``) for ``src`` (PyTorch's
    ``scatter_reduce_backward``), written with ops so that it differentiates again:

    * ``sum``: ``grad``, and ``grad`` read back at the scatter key;
    * ``mean``: the same divided by how many values each place averaged;
    * ``prod``: the product of the other factors of each place, found by dividing the result
      by the factor, or (a zero factor) by reducing again with that factor set to 1;
    * ``amax``/``amin``: the values equal to the result share its gradient equally.

    With ``include_self=False`` the places that received values give ``self`` no gradient."""
    if of == "src":
        return _SRC_BACKWARD[reduce](grad, self, src, result, dim, index, include_self)
    grad_self = _SELF_BACKWARD[reduce](grad, self, src, result, dim, index, include_self)
    return grad_self if include_self else scatter(grad_self, dim, index, 0)


def _counts(grad, src, dim, index, include_self):
    """How many values each place averaged (1 where none: it kept its own)."""
    count = scatter_add(ones_like(grad) if include_self else zeros_like(grad), dim, index, ones_like(src))
    return masked_fill(count, count == 0, 1)


def _mean_self(grad, self, src, result, dim, index, include_self):
    return grad / _counts(grad, src, dim, index, include_self)


def _mean_src(grad, self, src, result, dim, index, include_self):
    return gather(grad, dim, index) / gather(_counts(grad, src, dim, index, include_self), dim, index)


def _shares(grad, self, src, result, dim, index):
    """amax/amin: which of ``self`` and ``src`` hold their place's result, and each one's share
    of the place's gradient."""
    self_is_result = (self == result).to(grad.dtype)
    src_is_result = (src == gather(result, dim, index)).to(grad.dtype)
    return self_is_result, src_is_result, grad / scatter_add(self_is_result, dim, index, src_is_result)


def _extreme_self(grad, self, src, result, dim, index, include_self):
    self_is_result, _, share = _shares(grad, self, src, result, dim, index)
    return self_is_result * share


def _extreme_src(grad, self, src, result, dim, index, include_self):
    _, src_is_result, share = _shares(grad, self, src, result, dim, index)
    return src_is_result * gather(share, dim, index)


def _prod_self(grad, self, src, result, dim, index, include_self):
    """A factor of ``self`` gets the product of the others: ``result / self``, or, where ``self``
    is 0, the product of the place's values of ``src`` (reduced again with 1 for it)."""
    ones_for_zeros = masked_fill(self, self == 0, 1)
    return (grad * scatter_reduce(ones_for_zeros, dim, index, src, "prod", include_self=include_self)
            ) / ones_for_zeros


def _prod_src(grad, self, src, result, dim, index, include_self):
    """The same for a factor of ``src``; a place with two zeros or more gives every factor 0, a
    gradient PyTorch does not differentiate again (``delayed_error``)."""
    src_zero = src == 0
    zeros_there = gather(scatter_add(zeros_like(self), dim, index, src_zero.to(self.dtype)), dim, index)
    only_zero = src_zero & (zeros_there == 1)
    without_it = scatter_reduce(self, dim, index, masked_fill(src, only_zero, 1), "prod",
                                include_self=include_self)
    grad_src = where(only_zero, gather(grad * without_it, dim, index),
                     gather(grad * result, dim, index) / masked_fill(src, src_zero, 1))
    if (zeros_there._data > 1).any():
        grad_src = delayed_error(grad_src, "scatter_reduce(): Double backward is unsupported for src when >1 "
                                           "zeros in src are scattered to the same position in self")
    return grad_src


_SELF_BACKWARD = {"sum": lambda grad, *values: grad, "mean": _mean_self, "prod": _prod_self,
                  "amax": _extreme_self, "amin": _extreme_self}
_SRC_BACKWARD = {"sum": lambda grad, self, src, result, dim, index, include_self: gather(grad, dim, index),
                 "mean": _mean_src, "prod": _prod_src, "amax": _extreme_src, "amin": _extreme_src}


def delayed_error(input, message):
    """``input`` itself, through a node whose backward raises ``message`` (PyTorch's
    DelayedError: a gradient that is right but cannot be differentiated again)."""
    return record("delayed_error", input._data, (input,), {"message": message})


methods(index_put=as_method(index_put), index_put_=as_method(index_put_), put=as_method(put),
        put_=as_method(put_), masked_scatter=as_method(masked_scatter),
        masked_scatter_=as_method(masked_scatter_), scatter_reduce=as_method(scatter_reduce),
        scatter_reduce_=as_method(scatter_reduce_))
