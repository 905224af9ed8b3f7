"""Writing a tensor into a view-shaped region of a copy: ``diagonal_scatter``,
``select_scatter`` and ``slice_scatter``.

``x.diagonal_scatter(src, offset, dim1, dim2)`` is ``x`` with ``src`` written over
``x.diagonal(offset, dim1, dim2)``, without touching ``x`` (a new tensor); the same for
``select(dim, index)`` and a slice ``start:end:step`` of ``dim``.  ``src`` must have exactly
the region's shape (its dtype is cast to ``x``'s).  The region is found by the view op
itself, applied to the copy, so its arguments are checked as the view op checks them.

Gradients: ``self`` gets ``grad`` with the region written over with zeros (by the same op),
``src`` gets the region of ``grad`` (the view op: DiagonalBackward0, SelectBackward0,
SliceBackward0 at the next order).
"""

import numpy as np

from ..tensor import Tensor, _wrap_dim
from ..recording import record
from .indexing import _slice
from .operands import as_method
from .shape import select
from .structure import diagonal
from ..op_table import methods, op

__all__ = ["diagonal_scatter", "select_scatter", "slice_scatter", "slice_of"]


def _written(op, input, src, region, params):
    """A copy of ``input`` with ``src`` written over ``region(copy)`` (a view of the copy);
    ``params()``: what the gradients need, asked once the view op has checked its arguments."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{op}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    array = np.array(input._data, copy=True)
    target = region(Tensor._make(array))._data
    if target.shape != src.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(target.shape)}")
    np.copyto(target, src._data, casting="unsafe")
    return record(op, array, (input, src), {**params(), "src_shape": src.shape})


@op(public=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` on its diagonal (DiagonalScatterBackward0)."""
    return _written("diagonal_scatter", input, src, lambda t: diagonal(t, offset, dim1, dim2), lambda: {
        "offset": int(offset), "dim1": _wrap_dim(dim1, input.ndim), "dim2": _wrap_dim(dim2, input.ndim)})


@op(public=True)
def select_scatter(input, src, dim, index):
    """``input`` with ``src`` at index ``index`` of ``dim`` (SelectScatterBackward0)."""
    def params():
        d = _wrap_dim(dim, input.ndim)
        return {"dim": d, "index": int(index) % input.shape[d]}
    return _written("select_scatter", input, src, lambda t: select(t, dim, index), params)


def slice_of(input, dim, start=None, end=None, step=1):
    """``input``'s slice ``start:end:step`` of ``dim``: a view (SliceBackward0), with the
    checks of ``slice_scatter`` (and PyTorch's ``Tensor.slice``)."""
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    step = 1 if step is None else step
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _slice(input, d, slice(start, end, step))


@op(public=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` over its slice ``start:end:step`` of ``dim`` (SliceScatterBackward0)."""
    def params():
        d = _wrap_dim(dim, input.ndim)
        first, stop, every = slice(start, end, step).indices(input.shape[d])
        return {"dim": d, "start": first, "end": max(stop, first), "step": every}
    return _written("slice_scatter", input, src, lambda t: slice_of(t, dim, start, end, step), params)


methods(diagonal_scatter=as_method(diagonal_scatter), select_scatter=as_method(select_scatter),
        slice_scatter=as_method(slice_scatter))
