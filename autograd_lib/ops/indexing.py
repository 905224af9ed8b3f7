"""Indexing: ``x[key]``, and writing a gradient back where ``x[key]`` read it.

Basic indexing (ints, slices, ``None``, ``...``) makes views one dim at a time,
recorded as PyTorch records them (SelectBackward0, SliceBackward0,
UnsqueezeBackward0); integer and boolean arrays then gather a copy in one
IndexBackward0 node.  Their backward, :func:`embed_in_zeros`, is an op too:
writing ``t[key] = value`` is in ``ops/inplace.py``.
"""

import operator

import numpy as np

from ..recording import record
from ..tensor import Tensor, _wrap_dim
from ..views import same_layout
from .shape import dim_key, select_key, unsqueeze
from ..op_table import op

__all__ = ["getitem", "narrow", "embed_in_zeros"]


def _is_advanced(k):
    return isinstance(k, (list, np.ndarray, Tensor)) or (isinstance(k, (bool, np.bool_)))


def key_value(k):
    if isinstance(k, Tensor):
        return k._data
    if isinstance(k, list):
        return np.asarray([x._data if isinstance(x, Tensor) else x for x in k])
    return k


ZERO_DIM_INDEX = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                  "to convert a 0-dim tensor to a number")


@op("__getitem__")
def getitem(input, key):
    """``x[key]``: basic indexing makes views one dim at a time (Select, Slice,
    Unsqueeze, as PyTorch records them); integer/boolean arrays then gather a
    copy in one IndexBackward0 node.  Inside a tuple, a slice of a whole dim is
    skipped, and a key that changes nothing (``x[...]``, ``x[:, :]``) gives an
    alias of ``x``: AliasBackward0, as in PyTorch."""
    if not isinstance(key, tuple):
        if key is Ellipsis:
            return _alias(input)
        if isinstance(key, slice):                      # a lone slice is always recorded
            return _slice(input, 0, key)
        if input.ndim == 0 and isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            raise IndexError(ZERO_DIM_INDEX)
        key = (key,)
    key = tuple(_index_entry(k) for k in key)
    n_specified = sum(_dims_consumed(k) for k in key)
    if n_specified > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    out, dim, advanced = input, 0, []
    for position, k in enumerate(key):
        # (PyTorch's messages number an index by its position in the key, whatever dims it spans)
        if k is Ellipsis:
            skip = input.ndim - n_specified
            advanced.extend([slice(None)] * skip)
            dim += skip
        elif k is None:
            out = unsqueeze(out, dim)
            advanced.append(slice(None))
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            size = out.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {position} with size {size}")
            key = select_key(dim, int(k))
            out = record("select.int", out._data[key], (out,),
                         {"self_shape": out.shape, "dim": dim, "index": int(k)}, view_of=out,
                         replay=operator.itemgetter(key))
        elif isinstance(k, slice):
            if not _whole_dim(k, out.shape[dim]):
                out = _slice(out, dim, k)
            advanced.append(slice(None))
            dim += 1
        elif _is_advanced(k):
            value = key_value(k)
            if value.dtype == bool:
                advanced.append(value)
                dim += value.ndim
            else:
                if value.dtype.kind not in "iu":
                    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
                advanced.append(value.astype(np.int64))
                dim += 1
        else:
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"Variables are valid indices (got {type(k).__name__})")
    if any(isinstance(a, np.ndarray) for a in advanced):
        index = tuple(advanced)
        try:
            picked = out._data[index]
        except IndexError as error:         # NumPy says "axis", PyTorch "dimension"
            raise IndexError(str(error).replace(" for axis ", " for dimension ")) from None
        return record("index.Tensor", picked, (out,), {"self_shape": out.shape, "indices": index})
    return _alias(input) if out is input else out


def _whole_dim(k, n):
    """True when slice ``k`` takes a whole dim of size ``n`` as PyTorch tells: from 0 (or
    None), by 1 (or None), to None or at least ``n`` (``-n:`` is sliced all the same)."""
    return (k.start is None or k.start == 0) and (k.step is None or k.step == 1) and (
        k.stop is None or k.stop >= n)


def _alias(input):
    """``x[...]``: a view of all of ``x``, with x's layout."""
    return record("alias", input._data.view(), (input,), view_of=input, replay=same_layout)


def _index_entry(k):
    """A 0-dim integer tensor indexes like an int (a view); a bool like a 0-dim mask."""
    if isinstance(k, (bool, np.bool_)):
        return np.asarray(k)
    if isinstance(k, Tensor) and k.ndim == 0 and k._data.dtype.kind in "iu":
        return int(k._data)
    return k


def _dims_consumed(k):
    """How many dims of the input an index entry uses up."""
    if k is None or k is Ellipsis:
        return 0
    if _is_advanced(k):
        value = key_value(k)
        return value.ndim if value.dtype == bool else 1
    return 1


def _slice(input, dim, k):
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if k.step is not None and k.step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = k.indices(input.shape[dim])
    stop = max(stop, start)
    key = dim_key(dim, slice(start, stop, step))
    return record("slice.Tensor", input._data[key], (input,),
                  {"self_shape": input.shape, "dim": dim, "start": start, "end": stop, "step": step},
                  view_of=input, replay=operator.itemgetter(key))


@op("narrow", public=True)
def narrow(input, dim, start, length):
    """``x.narrow(dim, start, length)``: the view of ``length`` elements of ``dim`` from
    ``start`` (negative counts from the end), recorded as the slice it is."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, input.ndim)
    n = input.shape[dim]
    start = int(start.item() if isinstance(start, Tensor) else start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    start = start + n if start < 0 else start
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice(input, dim, slice(start, start + length))


def embed_in_zeros(grad, shape, key, accumulate=False, op=None):
    """A zero tensor of ``shape`` with ``grad`` written (or, with repeated
    indices, added) at ``key``: the backward of reading ``x[key]``.

    ``op`` is the op PyTorch computes this with, which names the node it records:
    ``slice_backward`` (the default), ``select_backward``, or, writing ``grad`` into
    fresh zeros, ``_index_put_impl_`` (the default when accumulating) and ``scatter.src``."""
    array = np.zeros(shape, dtype=grad._data.dtype)
    if accumulate and array.ndim == 0:      # an expanded view of a 0-d base: every element is it
        array[...] = grad._data.sum()
    elif accumulate:
        np.add.at(array, key, grad._data)
    else:
        array[key] = grad._data
    op = op or ("_index_put_impl_" if accumulate else "slice_backward")
    if op in ("_index_put_impl_", "scatter.src"):    # zeros.index_put_(key, grad): no input self
        return record(op, array, (None, grad), {"key": key, "accumulate": accumulate})
    return record(op, array, (grad,), {"key": key})
