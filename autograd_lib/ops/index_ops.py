"""``index_select``, ``index_add`` (``index_add_``) and ``gather``: one index tensor along one dim.

``x.index_select(dim, index)`` picks the slices ``index`` along ``dim``; its
gradient adds the incoming slices back where they came from (an index used
twice gets both).  ``x.index_add(dim, index, source, alpha=1)`` adds
``alpha * source``'s slices into ``x`` at ``index``; its gradient is ``grad``
for ``x`` and ``alpha * grad.index_select(dim, index)`` for ``source``.
``x.gather(dim, index)`` picks, for every position of ``index``, the element of ``x``
whose coordinate along ``dim`` is the index there; its gradient adds each incoming
value back at that element (scatter-add into zeros).
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .inplace import _inplace
from .indexing import embed_in_zeros
from .operands import cast_operand, to_tensor
from ..op_table import op

__all__ = ["index_select", "index_add", "index_select_backward", "gather", "gather_backward"]


def _index(name, index):
    index = to_tensor(index)
    if index.dtype not in (_dt.int64, _dt.int32):
        if name == "index_select":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{_dt.LEGACY_NAMES[index.dtype.name][:-6]}")
    return index


@op("index_select", public=True)
def index_select(input, dim, index):
    input, index = to_tensor(input), _index("index_select", index)
    d = _wrap_dim(dim, input.ndim)
    array = np.ascontiguousarray(np.take(input._data, index._data.reshape(-1), axis=d))
    return record("index_select", array, (input,), {"self_shape": input.shape, "dim": d,
                                                    "index": index})


def index_select_backward(grad, self_shape, dim, index):
    """Zeros of the input's shape with ``grad``'s slices added at ``index`` (recorded as
    ``index_add``, so a second derivative is ``index_select`` again)."""
    zeros = Tensor._make(np.zeros(self_shape, dtype=grad._data.dtype))
    return index_add(zeros, dim, index, grad)


@op("index_add", public=True, inplace="index_add_")
def index_add(input, dim, index, source, *, alpha=1):
    input, index = to_tensor(input), _index("index_add_", index)
    d = _wrap_dim(dim, input.ndim)
    source = cast_operand(to_tensor(source), input.dtype)
    array = np.array(input._data, copy=True)
    moved = np.moveaxis(array, d, 0)                       # a view: writes go into array
    np.add.at(moved, index._data.reshape(-1), np.moveaxis(source._data, d, 0) * alpha)
    return record("index_add", array, (input, source), {"dim": d, "index": index, "alpha": alpha})


@op("index_add_")
def index_add_(self, dim, index, source, *, alpha=1):
    return _inplace(self, lambda s, src: index_add(s, dim, index, src, alpha=alpha), source)


@op("gather", public=True)
def gather(input, dim, index, *, sparse_grad=False):
    input, index = to_tensor(input), to_tensor(index)
    if index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    d = _wrap_dim(dim, max(input.ndim, 1))
    size = input.shape[d] if input.ndim else 1
    bad = index._data[(index._data < 0) | (index._data >= size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")
    for k in range(index.ndim):
        if k != d and index.shape[k] > input.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to be "
                               f"smaller than self {list(input.shape)} apart from dimension {d}")
    if input.ndim:
        array = np.ascontiguousarray(input._data[_gather_key(index, d)])
    else:                                   # a 0-d input: every index is 0
        array = np.full(index.shape, input._data[()], dtype=input._data.dtype)
    return record("gather", array, (input,), {"self_shape": input.shape, "dim": d, "index": index})


def _gather_key(index, dim):
    grid = list(np.indices(index.shape, sparse=True)) if index.ndim else []
    if grid:
        grid[dim] = index._data
    return tuple(grid)


def gather_backward(grad, self_shape, dim, index):
    """Zeros of the input's shape with ``grad`` added where each value was gathered from."""
    if not len(self_shape):
        return grad.sum()
    return embed_in_zeros(grad, self_shape, _gather_key(index, dim), accumulate=True)


