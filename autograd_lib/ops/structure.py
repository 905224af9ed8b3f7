"""Rearranging a tensor's elements: ``flip`` (``fliplr``, ``flipud``), ``roll``, ``rot90``,
``tril``/``triu`` (and ``tril_``/``triu_``), ``diagonal`` (a view), ``diag``,
``diag_embed`` and ``trace``.

Each moves (or keeps, or zeros) elements without changing their values, so each
gradient moves ``grad`` back the same way: a flip flips it back, a roll rolls it
back by the opposite shift, ``tril`` keeps the same triangle, and ``diagonal``
writes it into zeros along the same diagonal (``diag_embed``, and the other way
round).  Only ``diagonal`` is a view in PyTorch; the others copy.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .inplace import _inplace
from .operands import to_tensor
from ..op_table import op

__all__ = ["contiguous_array", "flip", "fliplr", "flipud", "roll", "rot90", "tril", "triu", "tril_", "triu_",
           "diagonal", "diag", "diag_embed", "trace", "diagonal_backward"]


def contiguous_array(array, dtype=None):
    """``array`` in row-major order (a 0-d array stays 0-d, unlike ``np.ascontiguousarray``)."""
    return np.asarray(array, dtype=dtype, order="C")


_contiguous = contiguous_array


def _int_list(dims):
    """``f(0, 1)``, ``f((0, 1))`` and ``f(0)`` alike, as a tuple of ints."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return tuple(int(d) for d in dims)


# ------------------------------------------------------------------ flips

@op(public=True)
def flip(input, dims=None):
    """The elements in reverse order along each of ``dims`` (a copy: FlipBackward0)."""
    input = to_tensor(input)
    if dims is None:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not "
                        f"{type(dims).__name__}")
    dims = _int_list(dims)
    wrapped = tuple(_wrap_dim(d, input.ndim) for d in dims) if input.ndim else tuple(
        _wrap_dim(d, 0) for d in dims)
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    array = _contiguous(np.flip(input._data, wrapped) if input.ndim else input._data.copy())
    return record("flip", array, (input,), {"dims": wrapped})


@op("fliplr", public=True)
def fliplr(input):
    """Left and right swapped: ``flip(input, 1)``."""
    input = to_tensor(input)
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@op("flipud", public=True)
def flipud(input):
    """Up and down swapped: ``flip(input, 0)``."""
    input = to_tensor(input)
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


@op("roll", public=True)
def roll(input, shifts, dims=None):
    """Each element moved ``shifts`` places along ``dims``, the ones falling off the end coming
    back at the start (without ``dims``: along the flattened tensor, the shape kept)."""
    input = to_tensor(input)
    shifts = (int(shifts),) if isinstance(shifts, (int, np.integer)) else tuple(int(s) for s in shifts)
    dims = () if dims is None else (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(
        int(d) for d in dims)
    if not dims and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    if dims and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    array = np.roll(input._data, shifts if dims else shifts[0], axis=dims or None)
    return record("roll", _contiguous(array), (input,), {"shifts": shifts, "dims": dims})


@op("rot90", public=True)
def rot90(input, k=1, dims=(0, 1)):
    """Rotated by ``k`` quarter turns, from the first of ``dims`` towards the second."""
    input = to_tensor(input)
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _wrap_dim(dims[0], input.ndim), _wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    array = _contiguous(np.rot90(input._data, k, axes=(d0, d1)))
    return record("rot90", array, (input,), {"k": int(k), "dims": (d0, d1)})


@op("flip")
def _flip_method(self, *dims):
    """``x.flip(0, 1)`` and ``x.flip((0, 1))`` alike."""
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    return flip(self, _int_list(dims))


# -------------------------------------------------------------- triangles

def _triangle(name, input, diagonal):
    input = to_tensor(input)
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    np_fn = np.tril if name == "tril" else np.triu
    array = np_fn(input._data, int(diagonal)) if input._data.size else input._data.copy()
    return record(name, _contiguous(array), (input,), {"diagonal": int(diagonal)})


@op("tril", public=True, inplace="tril_")
def tril(input, diagonal=0):
    """The lower triangle (on and below diagonal ``diagonal``) of the last two dims; zeros above."""
    return _triangle("tril", input, diagonal)


@op("triu", public=True, inplace="triu_")
def triu(input, diagonal=0):
    """The upper triangle (on and above diagonal ``diagonal``) of the last two dims; zeros below."""
    return _triangle("triu", input, diagonal)


@op("tril_")
def tril_(self, diagonal=0):
    return _inplace(self, lambda s: tril(s, diagonal))


@op("triu_")
def triu_(self, diagonal=0):
    return _inplace(self, lambda s: triu(s, diagonal))


# -------------------------------------------------------------- diagonals

def _diagonal_key(shape, offset, dim1, dim2):
    """The NumPy key (index arrays) of the diagonal: its elements, in the order of the
    result (the other dims first, the diagonal last)."""
    rows, cols = shape[dim1], shape[dim2]
    n = max(0, min(rows - max(0, -offset), cols - max(0, offset)))
    other = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    out_shape = tuple(shape[d] for d in other) + (n,)
    grid = np.indices(out_shape, sparse=True)
    key = [None] * len(shape)
    for i, d in enumerate(other):
        key[d] = grid[i]
    key[dim1] = grid[-1] + max(0, -offset)
    key[dim2] = grid[-1] + max(0, offset)
    return tuple(key), out_shape


def _diagonal_view(a, offset, dim1, dim2):
    """The diagonal as a writable NumPy view of ``a`` (``np.diagonal``'s is read-only)."""
    moved = np.moveaxis(a, (dim1, dim2), (-2, -1))
    rows, cols = moved.shape[-2:]
    n = max(0, min(rows - max(0, -offset), cols - max(0, offset)))
    start = moved[..., min(max(0, -offset), rows):, min(max(0, offset), cols):]
    strides = moved.strides[:-2] + (moved.strides[-2] + moved.strides[-1],)
    return np.lib.stride_tricks.as_strided(start, moved.shape[:-2] + (n,), strides)


@op("diagonal", public=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of dims ``dim1`` and ``dim2`` (``offset`` above it, or below when
    negative), as a new last dim: a view, as in PyTorch (DiagonalBackward0)."""
    input = to_tensor(input)
    d1, d2 = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int(offset)
    return record("diagonal", _diagonal_view(input._data, offset, d1, d2), (input,),
                  {"self_shape": input.shape, "offset": offset, "dim1": d1, "dim2": d2},
                  view_of=input, replay=lambda a: _diagonal_view(a, offset, d1, d2))


def diagonal_backward(grad, self_shape, offset, dim1, dim2):
    """Zeros of the input's shape with ``grad`` written along the diagonal (recorded as
    PyTorch's ``diagonal_backward``: its own gradient reads the diagonal back)."""
    array = np.zeros(self_shape, dtype=grad._data.dtype)
    key, _ = _diagonal_key(tuple(self_shape), offset, dim1, dim2)
    array[key] = grad._data
    return record("diagonal_backward", array, (grad,), {"offset": offset, "dim1": dim1, "dim2": dim2})


@op("diag_embed", public=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each last-dim vector of ``input`` laid along the diagonal of a new pair of dims
    ``dim1``, ``dim2`` (zeros elsewhere): the reverse of ``diagonal``."""
    input = to_tensor(input)
    ndim = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int(offset)
    n = (input.shape[-1] if input.ndim else 1) + abs(offset)
    batch = list(input.shape[:-1])
    shape = [0] * ndim
    rest = iter(batch)
    for d in range(ndim):
        shape[d] = n if d in (d1, d2) else next(rest)
    array = np.zeros(shape, dtype=input._data.dtype)
    key, _ = _diagonal_key(tuple(shape), offset, d1, d2)
    array[key] = input._data
    return record("diag_embed", array, (input,), {"offset": offset, "dim1": d1, "dim2": d2})


@op("diag", public=True)
def diag(input, diagonal=0):
    """A vector becomes the square matrix with it on diagonal ``diagonal``; a matrix gives
    its diagonal ``diagonal`` (a copy, unlike ``Tensor.diagonal``)."""
    input = to_tensor(input)
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{input.ndim}D")
    offset = int(diagonal)
    array = _contiguous(_diagonal_view(input._data, offset, 0, 1))
    return record("diagonal_copy", array, (input,),
                  {"self_shape": input.shape, "offset": offset, "dim1": 0, "dim2": 1})


@op("trace", public=True)
def trace(input):
    """The sum of the main diagonal of a matrix (TraceBackward0)."""
    input = to_tensor(input)
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " f"{input.ndim}")
    dtype = input.dtype if input.dtype.is_floating_point else _dt.int64
    array = np.asarray(np.trace(input._data), dtype=dtype.numpy)
    return record("trace", array, (input,), {"self_shape": input.shape})


