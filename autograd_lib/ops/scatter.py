"""Picking and placing by index: ``masked_select``, ``take``, ``take_along_dim``,
``index_fill``, ``index_copy``, ``scatter``, ``scatter_add`` (with their in-place forms);
``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``; and ``diff``.

Reading elements by index has a gradient that writes ``grad`` back at those
indices into zeros (added up where an index repeats); writing elements by index
(``scatter``, ``index_copy``, ``index_fill``) cuts the gradient of the overwritten
places, and the written values get ``grad`` read back from where they went.
``scatter(..., reduce="add"/"multiply")`` combines the values with those there instead,
and, as in PyTorch, has no derivative (a NotImplemented node).  The other ways of writing
by index (``index_put``, ``put``, ``masked_scatter``, ``scatter_reduce``) are in
``indexed_writes.py``.

A *scatter key* is the NumPy key of ``x.scatter(dim, index, ...)``: for every
position of ``index``, its own coordinates, but along ``dim`` the index stored there.
"""

import warnings

import numpy as np

from .. import dtypes as _dt
from ..broadcasting import broadcast_shape
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .arithmetic import sub
from .comparison import logical_xor
from .index_ops import gather
from .indexing import narrow
from .inplace import _inplace
from .structure import contiguous_array as _contiguous
from .operands import to_tensor
from .shape import cat, expand, reshape
from ..op_table import op

__all__ = ["masked_select", "take", "take_along_dim", "index_fill", "index_fill_", "index_copy",
           "index_copy_", "scatter", "scatter_", "scatter_add", "scatter_add_", "tensor_split", "hsplit",
           "vsplit", "dsplit", "diff", "scatter_key", "dim_index_key", "check_flat_index"]


def _int_index(name, index, input, dim):
    """An int64 index of slices along ``dim``, checked as PyTorch checks it."""
    index = to_tensor(index)
    if index.dtype is not _dt.int64:
        if name == "index_fill_":
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{_dt.LEGACY_NAMES[index.dtype.name][:-6]}")
    size = input.shape[dim] if input.ndim else 1
    bad = index._data[(index._data < -size) | (index._data >= size)]
    if bad.size:
        prefix = "" if name == "index_fill_" else f"{name}(): "
        raise IndexError(f"{prefix}index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}")
    return index


def scatter_key(index, dim):
    """The NumPy key of the positions ``scatter``/``gather`` along ``dim`` reach."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index._data
    return tuple(grid)


def dim_index_key(ndim, dim, index):
    """The key of the slices ``index`` along ``dim`` (``index_fill``, ``index_copy``)."""
    return (slice(None),) * dim + (index._data.reshape(-1),)


# ------------------------------------------------------------------ reading

@op("masked_select", public=True)
def masked_select(input, mask):
    """The elements where ``mask`` (broadcast with ``input``) is True, as a 1-D tensor."""
    input, mask = to_tensor(input), to_tensor(mask)
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    shape = broadcast_shape(input.shape, mask.shape)
    full = np.broadcast_to(mask._data, shape)
    array = _contiguous(np.broadcast_to(input._data, shape)[full])
    return record("masked_select", array, (input,), {"shape": shape, "mask": full})


def check_flat_index(index, n):
    """PyTorch's error for an index of a flattened tensor of ``n`` elements out of range."""
    bad = index._data[(index._data < -n) | (index._data >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} elements.")


@op("take", public=True)
def take(input, index):
    """The elements at ``index`` of the flattened tensor, in ``index``'s shape."""
    input, index = to_tensor(input), to_tensor(index)
    if index.dtype is not _dt.int64:
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{_dt.LEGACY_NAMES[index.dtype.name][:-6]}")
    n = input.numel()
    check_flat_index(index, n)
    if input.ndim == 0:                      # every index is 0
        return record("take", np.full(index.shape, input._data[()]), (input,),
                      {"self_shape": input.shape, "key": None})
    key = np.unravel_index(index._data % max(n, 1), input.shape)
    return record("take", _contiguous(input._data[key]), (input,),
                  {"self_shape": input.shape, "key": key})


@op("take_along_dim", public=True)
def take_along_dim(input, indices, dim=None):
    """``gather`` along ``dim`` with ``input`` and ``indices`` broadcast to each other
    (apart from ``dim``); without ``dim``, on the flattened tensor."""
    input, indices = to_tensor(input), to_tensor(indices)
    if indices.dtype is not _dt.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be int64 but got "
                           f"{_dt.LEGACY_NAMES[indices.dtype.name][:-6]} instead")
    if dim is None:
        return gather(reshape(input, (-1,)), 0, reshape(indices, (-1,)))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
                           "dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    shape_in[d] = shape_ix[d] = 1
    common = list(broadcast_shape(tuple(shape_in), tuple(shape_ix)))
    common_in, common_ix = list(common), list(common)
    common_in[d], common_ix[d] = input.shape[d], indices.shape[d]
    return gather(expand(input, tuple(common_in)), d, expand(indices, tuple(common_ix)))


# ------------------------------------------------------------------ writing

@op("index_fill", public=True, inplace="index_fill_")
def index_fill(input, dim, index, value):
    """``value`` written into the slices ``index`` along ``dim`` (IndexFillBackward0; with a
    0-dim tensor value, IndexFillBackward1, and ``value`` gets their gradients' sum)."""
    input = to_tensor(input)
    d = _wrap_dim(dim, input.ndim) if input.ndim else _wrap_dim(dim, 1)
    index = _int_index("index_fill_", index, input, d)
    key = dim_index_key(input.ndim, d, index) if input.ndim else ()
    array = np.array(input._data, copy=True)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
        array[key] = value._data
        return record("index_fill.int_Tensor", array, (input, value), {"dim": d, "index": index})
    array[key] = value
    return record("index_fill.int_Scalar", array, (input,), {"dim": d, "index": index})


@op("index_copy", public=True, inplace="index_copy_")
def index_copy(input, dim, index, source):
    """``source``'s slices written into ``input`` at ``index`` along ``dim`` (IndexCopyBackward0)."""
    input, source = to_tensor(input), to_tensor(source)
    if source.dtype is not input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got "
                           f"(self) {_dt.LEGACY_NAMES[input.dtype.name][:-6]} and (source) "
                           f"{_dt.LEGACY_NAMES[source.dtype.name][:-6]}")
    d = _wrap_dim(dim, input.ndim)
    index = _int_index("index_copy_", index, input, d)
    array = np.array(input._data, copy=True)
    np.moveaxis(array, d, 0)[index._data.reshape(-1)] = np.moveaxis(source._data, d, 0)
    return record("index_copy", array, (input, source), {"dim": d, "index": index})


def _check_scatter(input, dim, index, src, bad_reduce=None):
    """``index`` as an int tensor and ``dim`` wrapped, after PyTorch's checks, in its order: the
    index's dtype, ``src``'s dtype, the reduction (``bad_reduce``: the caller's message when it
    is not one it knows), the index's dims and sizes, then its values."""
    index = to_tensor(index)
    if index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if bad_reduce is not None:
        raise RuntimeError(bad_reduce)
    d = _wrap_dim(dim, max(input.ndim, 1))
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    for k in range(index.ndim):
        too_big = k != d and index.shape[k] > input.shape[k]
        if too_big or (src is not None and src.ndim == index.ndim and index.shape[k] > src.shape[k]):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {d}" + (
                                   f" and to be no larger size than src {list(src.shape)}"
                                   if src is not None else ""))
    size = input.shape[d] if input.ndim else 1
    bad = index._data[(index._data < 0) | (index._data >= size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")
    return index, d


def _scattered(input, index, d, src, add):
    """A copy of ``input`` with ``src``'s values written (or added) at the scatter key."""
    array = np.array(input._data, copy=True)
    key = scatter_key(index, d) if input.ndim else ()
    if src is None:
        return array, key
    values = src._data[tuple(slice(0, s) for s in index.shape)]
    if add:
        np.add.at(array, key, values)
    else:
        array[key] = values
    return array, key


@op("scatter", public=True, inplace="scatter_")
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``src``'s values (or the number ``value``) written at the scatter key (ScatterBackward0,
    ScatterBackward1); with ``reduce="add"`` or ``"multiply"``, combined with what is there
    instead, which PyTorch does not differentiate (NotImplemented)."""
    return _scatter("scatter", to_tensor(input), dim, index, src, value, reduce)


# scatter(reduce=...): how the values combine with those already there.
_REDUCE_UFUNCS = {"add": np.add, "multiply": np.multiply}


def _scatter(name, input, dim, index, src, value, reduce):
    """``scatter`` (``name``) or ``scatter_`` (the op its in-place form records, for the
    message of a derivative that is not implemented)."""
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    if reduce is not None and src is not None:
        warnings.warn("The reduce argument of autograd_lib.scatter with Tensor src is deprecated and will "
                      "be removed in a future PyTorch release. Use autograd_lib.scatter_reduce instead for "
                      "more reduction options.", UserWarning, stacklevel=3)
    index, d = _check_scatter(input, dim, index, src, None if reduce in (None, *_REDUCE_UFUNCS) else
                              "reduce argument must be either add or multiply.")
    if reduce is not None:
        array, key = _scattered(input, index, d, None, False)
        values = value if src is None else src._data[tuple(slice(0, s) for s in index.shape)]
        _REDUCE_UFUNCS[reduce].at(array, key, values)
        if src is None:
            return record(f"{name}.value_reduce", array, (input,))
        return record(f"{name}.reduce", array, (input, src))
    array, key = _scattered(input, index, d, src, False)
    if src is not None:
        return record("scatter.src", array, (input, src), {"key": key, "accumulate": False})
    array[key] = value
    return record("scatter.value", array, (input,), {"key": key})


@op("scatter_add", public=True, inplace="scatter_add_")
def scatter_add(input, dim, index, src):
    """``src``'s values added at the scatter key (ScatterAddBackward0)."""
    input, src = to_tensor(input), to_tensor(src)
    index, d = _check_scatter(input, dim, index, src)
    array, _ = _scattered(input, index, d, src, True)
    return record("scatter_add", array, (input, src), {"dim": d, "index": index})


@op("index_fill_")
def index_fill_(self, dim, index, value):
    if isinstance(value, Tensor):
        return _inplace(self, lambda s, v: index_fill(s, dim, index, v), value)
    return _inplace(self, lambda s: index_fill(s, dim, index, value))


@op("index_copy_")
def index_copy_(self, dim, index, source):
    return _inplace(self, lambda s, src: index_copy(s, dim, index, src), source)


@op("scatter_")
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    if isinstance(src, Tensor):
        return _inplace(self, lambda s, x: _scatter("scatter_", s, dim, index, x, None, reduce), src)
    return _inplace(self, lambda s: _scatter("scatter_", s, dim, index, src, value, reduce))


@op("scatter_add_")
def scatter_add_(self, dim, index, src):
    return _inplace(self, lambda s, x: scatter_add(s, dim, index, x), src)


# ----------------------------------------------------------------- splitting

@op("tensor_split", public=True)
def tensor_split(input, indices_or_sections, dim=0):
    """Views along ``dim``: ``n`` nearly equal pieces (the first ones one longer), or the
    pieces between the indices given; each a slice of its own (SliceBackward0)."""
    input = to_tensor(input)
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                           "with 0 dims")
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    split = indices_or_sections
    if isinstance(split, Tensor):
        split = int(split.item()) if split.ndim == 0 else [int(i) for i in split._data]
    if isinstance(split, (int, np.integer)):
        if split <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {split}")
        size, extra = divmod(n, int(split))
        bounds = [0]
        for i in range(int(split)):
            bounds.append(bounds[-1] + size + (1 if i < extra else 0))
    else:
        bounds = [0] + [int(i) for i in split] + [n]
    pieces = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        start, stop = min(max(start, 0), n), min(max(stop, 0), n)
        pieces.append(narrow(input, d, start, max(stop - start, 0)))
    return tuple(pieces)


def _split_along(name, input, sections, dim, need):
    input = to_tensor(input)
    if input.ndim < need:
        raise RuntimeError(f"autograd_lib.{name} requires a tensor with at least {need} dimension, but got a "
                           f"tensor with {input.ndim} dimensions!")
    if isinstance(sections, (int, np.integer)):
        if sections == 0 or input.shape[dim] % sections:
            raise RuntimeError(f"autograd_lib.{name} attempted to split along dimension {dim}, but the size of "
                               f"the dimension {input.shape[dim]} is not divisible by the split_size "
                               f"{sections}!")
    return tensor_split(input, sections, dim)


@op("hsplit", public=True)
def hsplit(input, indices_or_sections):
    return _split_along("hsplit", input, indices_or_sections, 1 if to_tensor(input).ndim > 1 else 0, 1)


@op("vsplit", public=True)
def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@op("dsplit", public=True)
def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


@op("diff", public=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """Differences of neighbours along ``dim``, ``n`` times (``prepend``/``append`` joined
    first): slices and a subtraction, as PyTorch records it."""
    input = to_tensor(input)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input.ndim)
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = cat([to_tensor(t) for t in parts], d)
    minus = logical_xor if input.dtype is _dt.bool else sub
    for _ in range(n):
        size = input.shape[d]
        if size == 0:
            break
        input = minus(narrow(input, d, 1, size - 1), narrow(input, d, 0, size - 1))
    return input


