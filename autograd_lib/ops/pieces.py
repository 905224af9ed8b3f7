"""Pieces of a tensor: ``split`` and ``chunk`` (several views, one node) and ``repeat``
(a tiled copy).

``x.split(3)`` cuts ``x`` along a dim into views of 3 elements (the last one shorter),
``x.split([2, 5])`` into views of the sizes given, ``x.chunk(n)`` into ``n`` pieces
(as many as fit, of the size ``split`` would use).  As for ``unbind``, the pieces are
the outputs of one node (SplitBackward0, SplitWithSizesBackward0), whose backward
puts their gradients back side by side, and none of them can be written in place
while recording.  ``unsafe_split``/``unsafe_chunk`` cut the same pieces, which share the
input's storage without autograd knowing (UnsafeSplitBackward0): the recurrent cells cut
their gates with them, as PyTorch's do.  ``x.repeat(2, 3)`` tiles ``x``; its gradient adds
up the tiles.
"""

import numpy as np

from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .operands import to_tensor
from .shape import cat, dim_key, views_of_one_node
from ..op_table import op

__all__ = ["split", "chunk", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "repeat", "split_backward",
           "repeat_backward"]


@op("split", public=True)
def split(input, split_size_or_sections, dim=0):
    return _split(input, split_size_or_sections, dim, as_views=True)


@op("unsafe_split", public=True)
def unsafe_split(input, split_size, dim=0):
    """``split`` whose pieces autograd does not track as views (UnsafeSplitBackward0)."""
    if not isinstance(split_size, (int, np.integer)):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _split(input, split_size, dim, as_views=False)


@op("unsafe_split_with_sizes", public=True)
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split`` into the sizes given, pieces not tracked as views (UnsafeSplitWithSizesBackward0)."""
    return _split(input, list(split_sizes), dim, as_views=False)


def _split(input, split_size_or_sections, dim, as_views):
    input = to_tensor(input)
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
        op, params = "split.Tensor", {"split_size": size}
    else:
        sizes = [int(k) for k in split_size_or_sections]
        if sum(sizes) != n or any(k < 0 for k in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={sizes}")
        op, params = "split_with_sizes", {"split_sizes": sizes}
    starts = np.cumsum([0] + sizes[:-1])
    keys = [dim_key(d, slice(int(start), int(start) + k)) for start, k in zip(starts, sizes)]
    return views_of_one_node(op if as_views else "unsafe_" + op, input, keys,
                             dict(params, self_shape=input.shape, dim=d, sizes=sizes), as_views)


@op("chunk", public=True)
def chunk(input, chunks, dim=0):
    return _chunk(input, chunks, dim, split)


@op("unsafe_chunk", public=True)
def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` by ``unsafe_split``: what an LSTM cell cuts its four gates with."""
    return _chunk(input, chunks, dim, unsafe_split)


def _chunk(input, chunks, dim, splitter):
    input = to_tensor(input)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    return splitter(input, max(-(-n // chunks), 1) if n else 0, dim)


def split_backward(grads, self_shape, dim, sizes):
    """The pieces' gradients side by side again, zeros for a piece that got none."""
    like = next(g for g in grads if g is not None)
    parts = []
    for g, k in zip(grads, sizes):
        if g is None:
            shape = list(self_shape)
            shape[dim] = k
            g = Tensor._make(np.zeros(shape, dtype=like._data.dtype))
        parts.append(g)
    return cat(parts, dim)


@op("repeat")
def repeat(input, *sizes):
    input = to_tensor(input)
    repeats = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    repeats = tuple(int(r) for r in repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    return record("repeat", np.tile(input._data, repeats), (input,),
                  {"self_shape": input.shape, "repeats": repeats})


def repeat_backward(grad, self_shape, repeats):
    """Add up the tiles: each input element appears once in every tile."""
    shape = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    paired = []
    for r, s in zip(repeats, shape):
        paired += [r, s]
    summed = grad.reshape(paired).sum(dim=tuple(range(0, len(paired), 2)))
    return summed.reshape(self_shape)


