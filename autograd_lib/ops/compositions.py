"""Functions PyTorch builds out of other ops, and a few small ones of their own:
``concat``/``concatenate``, ``hstack``, ``vstack``, ``dstack``, ``column_stack``, ``ravel``,
``broadcast_tensors``, ``broadcast_shapes``, ``meshgrid``, ``msort``, ``is_nonzero``,
``logical_xor``, ``fmax``/``fmin``, ``vdot``, ``var_mean``/``std_mean``,
``tril_indices``/``triu_indices``, ``logspace``.

Where PyTorch composes existing ops (``hstack`` is a ``cat``, ``meshgrid`` is a ``view``
and an ``expand`` per tensor), so do we: the recorded graph is then the same, node for
node.  Only ``fmax``/``fmin``, ``vdot`` and ``var_mean``/``std_mean`` have backward nodes
of their own (``derivatives/compositions.py``).
"""

import math
import warnings

import numpy as np

from .. import creation
from .. import dtypes as _dt
from ..recording import record, record_outputs
from ..tensor import Size, Tensor
from .comparison import logical_xor
from .contractions import einsum, tensordot, trapezoid
from .copies import contiguous
from .gamma import digamma, digamma_, lgamma, lgamma_, polygamma, polygamma_
from .inplace import _inplace
from .norms import _spread
from .operands import promote, quietly, to_tensor
from .shape import cat, expand, unsqueeze, view
from .sorting import sort
from ..op_table import op

__all__ = ["concat", "concatenate", "hstack", "vstack", "dstack", "column_stack", "ravel",
           "broadcast_tensors", "broadcast_shapes", "meshgrid", "msort", "is_nonzero",
           "logical_xor", "fmax", "fmin", "vdot", "var_mean", "std_mean", "tril_indices",
           "triu_indices", "logical_xor_", "tensordot", "einsum", "trapezoid", "logspace",
           "lgamma", "lgamma_", "digamma", "digamma_", "polygamma", "polygamma_"]

concat = concatenate = cat          # PyTorch's other names for cat


def _scalar_name(dtype):
    """PyTorch's scalar type name in messages: ``Float``, ``Double``, ``Long``."""
    return _dt.LEGACY_NAMES[dtype.name][:-len("Tensor")]


# ------------------------------------------------------------- stacking

def _non_empty(name, tensors):
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def _at_least(t, ndim):
    """``atleast_1d/2d/3d``: a 0-d tensor is viewed with the new shape, a 1-d one gets
    size-1 dims in front (and, for 3-d, behind), as PyTorch does it."""
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return view(t, (1,) * ndim)
    if ndim == 2 or t.ndim == 2:
        return unsqueeze(t, 0) if t.ndim == 1 else unsqueeze(t, -1)
    return unsqueeze(unsqueeze(t, 0), -1)           # 1-d to 3-d


@op(public=True)
def hstack(tensors):
    """Join along columns: ``cat`` along dim 1 (dim 0 for vectors)."""
    tensors = [_at_least(t, 1) for t in _non_empty("hstack", tensors)]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@op(public=True)
def vstack(tensors):
    """Join along rows: each tensor made at least 2-d, then ``cat`` along dim 0."""
    return cat([_at_least(t, 2) for t in _non_empty("vstack", tensors)], 0)


@op(public=True)
def dstack(tensors):
    """Join along depth: each tensor made at least 3-d, then ``cat`` along dim 2."""
    return cat([_at_least(t, 3) for t in _non_empty("dstack", tensors)], 2)


@op(public=True)
def column_stack(tensors):
    """Vectors (and numbers) become columns, then ``cat`` along dim 1."""
    tensors = _non_empty("column_stack", tensors)
    return cat([view(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors], 1)


@op("ravel", public=True)
def ravel(input):
    """The elements as a vector: ``contiguous().view(-1)`` (a copy only when needed)."""
    return view(contiguous(input), (-1,))


# ------------------------------------------------------------ broadcasting

@op(public=True)
def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to (a number is a 1-d shape)."""
    result = []
    for index, shape in enumerate(shapes):
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
        result = [1] * (len(shape) - len(result)) + result
        for i in range(-1, -len(shape) - 1, -1):        # from the last dim, as PyTorch
            if result[i] == 1:
                result[i] = shape[i]
            elif shape[i] != 1 and shape[i] != result[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                                   f"Mismatching argument at index {index} had {shape}; but expected "
                                   f"shape should be broadcastable to {result}")
    return Size(result)


@op(public=True)
def broadcast_tensors(*tensors):
    """Each tensor expanded to the common shape (returned as it is when it has it)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = [to_tensor(t) for t in tensors]
    shape = tuple(tensors[0].shape) if tensors else ()
    for t in tensors[1:]:
        try:
            shape = np.broadcast_shapes(shape, tuple(t.shape))
        except ValueError:
            quietly(np.broadcast_arrays, np.empty(shape), t._data)      # raises PyTorch's error
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def _cpp_print(t):
    """A tensor the way PyTorch's C++ messages print it (roughly: rows of numbers, then the type)."""
    rows = t._data.reshape(-1, t.shape[-1]) if t.ndim else t._data.reshape(1, 1)
    text = "\n".join(" ".join(f"{v: .4f}" if t.dtype.is_floating_point else f"{v: d}" for v in row)
                     for row in rows)
    return (f"{text}\n[ autograd_lib.{_dt.LEGACY_NAMES[t.dtype.name]}"
            f"{{{','.join(str(s) for s in t.shape)}}} ]")


@op(public=True)
def meshgrid(*tensors, indexing=None):
    """Grids of coordinates: tensor ``i`` viewed along dim ``i`` and expanded to every
    tensor's length (``indexing="xy"``: the first two dims swapped, as in NumPy)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("autograd_lib.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'autograd_lib.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    tensors = [to_tensor(t) for t in tensors]
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"autograd_lib.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {_cpp_print(t)}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0                   # tensor 0 runs along dim 1
    shape = [0] * len(tensors)
    for i, d in enumerate(order):
        shape[d] = tensors[i].numel()
    grids = []
    for i, t in enumerate(tensors):
        lined = [1] * len(tensors)
        lined[order[i]] = -1
        grids.append(expand(view(t, tuple(lined)), tuple(shape)))
    return tuple(grids)


# ------------------------------------------------------------ small ones

@op("msort", public=True)
def msort(input):
    """Sorted along dim 0: ``sort(input, 0).values``."""
    return sort(to_tensor(input), 0)[0]


@op("is_nonzero", public=True)
def is_nonzero(input):
    """Whether a one-element tensor is non-zero (``bool(x)``), with PyTorch's errors."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()) != 0)


@op("logical_xor_", public=True)
def logical_xor_(self, other):
    """In place: ``self`` becomes ``logical_xor(self, other)`` in its own dtype."""
    return _inplace(self, lambda s, o: logical_xor(s, o).to(s.dtype), other)


op("logical_xor", inplace="logical_xor_")(logical_xor)


def _fmax_fmin(name, np_fn):
    def op(input, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        a, b, _ = promote(to_tensor(input), other)
        return record(name, quietly(np_fn, a._data, b._data), (a, b))
    op.__name__ = name
    op.__doc__ = (f"The element-wise {name[1:]}imum, a NaN losing to a number "
                  f"(``np.{np_fn.__name__}``).")
    return op


fmax, fmin = _fmax_fmin("fmax", np.fmax), _fmax_fmin("fmin", np.fmin)
op("fmax", public="fmax")(fmax)
op("fmin", public="fmin")(fmin)


@op("vdot", public=True)
def vdot(input, other):
    """The dot product of two vectors (the first conjugated: the same for real numbers)."""
    input, other = to_tensor(input), to_tensor(other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_scalar_name(input.dtype)} and {_scalar_name(other.dtype)}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{other.shape[0]}] to have the same number of elements, but got "
                           f"{input.shape[0]} and {other.shape[0]} elements respectively")
    array = np.asarray(np.dot(input._data, other._data), dtype=input._data.dtype)
    return record("vdot", array, (input, other))


# ------------------------------------------------------- two results, one node

def _two_outputs(op, first, second, input, params):
    """Record ``first`` and ``second`` as the two outputs of one node of ``op``."""
    return record_outputs(op, (Tensor._make(np.asarray(first)), Tensor._make(np.asarray(second))),
                          (input,), params)


def _spread_mean(name, input, dim, unbiased, keepdim, correction):
    input = to_tensor(input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    input, params, array = _spread(name, input, dim, unbiased, keepdim, correction)
    dims = tuple(range(input.ndim)) if params["dim"] is None else params["dim"]
    mean = np.mean(input._data, axis=dims if input.ndim else None, keepdims=keepdim)
    mean = np.asarray(mean, dtype=input._data.dtype, order="C")
    params = dict(params, dims=dims, count=math.prod(input.shape[d] for d in dims))
    return input, params, np.asarray(array, dtype=input._data.dtype), mean


@op(public=True)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim``, in one pass (one node, VarMeanBackward0)."""
    input, params, var, mean = _spread_mean("var_mean", input, dim, unbiased, keepdim, correction)
    return _two_outputs("var_mean.correction", np.asarray(var, order="C"), mean, input, params)


@op(public=True)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``, in one pass (one node, StdMeanBackward0)."""
    input, params, var, mean = _spread_mean("std_mean", input, dim, unbiased, keepdim, correction)
    std = np.asarray(np.sqrt(var), order="C")
    return _two_outputs("std_mean.correction", std, mean, input, params)


# ------------------------------------------------------------ index pairs

def _triangle_indices(name, lower, row, col, offset, dtype):
    dtype = _dt.int64 if dtype is None else dtype
    if dtype.is_floating_point or dtype is _dt.bool:
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_scalar_name(dtype)}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    rows, cols = (np.tril_indices if lower else np.triu_indices)(row, int(offset), col)
    array = np.stack([rows, cols]).astype(dtype.numpy).reshape(2, -1)
    return Tensor._make(np.ascontiguousarray(array))


@op(public=True)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a ``row x col`` matrix, as a 2 x N tensor."""
    return _triangle_indices("tril_indices", True, row, col, offset, dtype)


@op(public=True)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle of a ``row x col`` matrix, as a 2 x N tensor."""
    return _triangle_indices("triu_indices", False, row, col, offset, dtype)


@op(public=True)
def logspace(start, end, steps, base=10.0, dtype=None, requires_grad=False, device=None, **kwargs):
    """``steps`` points from ``base ** start`` to ``base ** end``, evenly spaced in the exponent."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    array = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
    if not dtype.is_floating_point:
        array = np.trunc(array)
    return creation.tensor(array.astype(dtype.numpy), dtype=dtype, requires_grad=requires_grad)
