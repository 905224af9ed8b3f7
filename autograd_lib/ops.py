"""Operations: compute with NumPy, then record a backward node.

Each differentiable op follows one pattern::

    def exp(input):
        input = _tensor(input)
        return record("exp", np.exp(...), (input,))

``_record`` wraps the NumPy result in a Tensor and, when grad mode is on and
some input requires grad, attaches the backward node registered under that
name in ``derivatives.py``, saving exactly what its formulas need.  In-place
variants (``add_``, ``t[i] = v``, ...) are built generically from the
out-of-place ops by :func:`_inplace`.

Every op is a function here (``autograd_lib.exp(x)``) and, where PyTorch has
one, a method (``x.exp()``), installed on :class:`Tensor` at the bottom.
"""

import builtins as _builtins
import contextlib
import math
import warnings
import weakref

import numpy as np

from . import dtypes as _dt
from .grad_mode import _state as _grad_state
from .grad_mode import is_grad_enabled, no_grad
from . import graph as _graph
from .broadcasting import broadcast_error, broadcast_shape, is_expandable_to
from .graph import Node, SavedTensor
from .recording import record
from .tensor import Tensor, _wrap_dim
from .creation import zeros, zeros_like     # used by gradient formulas (derivatives.py)


def _tensor(x, dtype=None):
    """Tensors pass through; numbers and arrays become (constant) tensors."""
    if isinstance(x, Tensor):
        return x
    from .creation import tensor
    return tensor(x, dtype=dtype)


def _promote(a, b):
    """Operands of a binary op as two tensors of the common dtype (PyTorch's rules)."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            if a._data.dtype is b._data.dtype:                    # fast path: same dtype
                return a, b, a.dtype
        elif type(b) is float and a._data.dtype.kind == "f":     # fast path: x * 2.5
            return a, Tensor._make(np.asarray(b, dtype=a._data.dtype)), a.dtype
    dtype = _dt.result_type(a, b)
    return _cast_operand(a, dtype), _cast_operand(b, dtype), dtype


def _cast_operand(x, dtype):
    if isinstance(x, Tensor):
        if x.dtype is dtype:
            return x
        # PyTorch promotes inside the kernel, without a ToCopy node: the op computes
        # with the cast values, but records and saves the original tensor ``x`` (see
        # _record); the engine casts the gradient back to x's dtype.
        cast = Tensor._make(x._data.astype(dtype.numpy))
        cast._promoted_from = x
        return cast
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        return Tensor._make(np.asarray(x, dtype=dtype.numpy))
    return _tensor(x).to(dtype)


try:        # NumPy >= 2: switch its floating-point error mode through its context variable
    from numpy._core.umath import _extobj_contextvar, _make_extobj
    _IGNORE_ERRORS = _make_extobj(all="ignore")

    def _np(fn, *args, **kwargs):
        """Run a NumPy function without letting its floating-point warnings reach the
        user: like PyTorch, inf and nan are results, not warnings.  (This is what
        ``np.errstate(all="ignore")`` does, at a tenth of its cost.)"""
        token = _extobj_contextvar.set(_IGNORE_ERRORS)
        try:
            return fn(*args, **kwargs)
        except ValueError as e:
            raise broadcast_error(e, args) from None
        finally:
            _extobj_contextvar.reset(token)
except ImportError:                                              # pragma: no cover
    def _np(fn, *args, **kwargs):
        with np.errstate(all="ignore"):
            try:
                return fn(*args, **kwargs)
            except ValueError as e:
                raise broadcast_error(e, args) from None


def _float_dtype(t):
    """Integer inputs of exp, log, ... compute in the default float dtype, as in PyTorch."""
    return t.dtype if t.dtype.is_floating_point else _dt.get_default_dtype()


def _floating(t):
    dtype = _float_dtype(t)
    return t if t.dtype is dtype else t.to(dtype)


# ======================================================================
# Arithmetic
# ======================================================================

def _check_alpha(a, b, alpha):
    if alpha != 1 and isinstance(alpha, float) and not _dt.result_type(a, b).is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def add(input, other, *, alpha=1):
    _check_alpha(input, other, alpha)
    a, b, _ = _promote(input, other)
    bd = b._data if alpha == 1 else b._data * alpha
    return record("add.Tensor", _np(np.add, a._data, bd), (a, b),
                   {"alpha": alpha})


def sub(input, other, *, alpha=1):
    if _dt.result_type(input, other) is _dt.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    _check_alpha(input, other, alpha)
    a, b, _ = _promote(input, other)
    bd = b._data if alpha == 1 else b._data * alpha
    return record("sub.Tensor", _np(np.subtract, a._data, bd), (a, b),
                   {"alpha": alpha})


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` for a number ``other`` (what ``2 - x`` calls)."""
    a, b, _ = _promote(input, other)
    ad = a._data if alpha == 1 else a._data * alpha
    return record("rsub.Scalar", _np(np.subtract, b._data, ad), (a,), {"alpha": alpha})


def mul(input, other):
    a, b, _ = _promote(input, other)
    return record("mul.Tensor", _np(np.multiply, a._data, b._data), (a, b))


def div(input, other):
    dtype = _dt.result_type(input, other)
    if not dtype.is_floating_point:                       # true division, as Python's /
        dtype = _dt.get_default_dtype()
    a, b = _cast_operand(input, dtype), _cast_operand(other, dtype)
    return record("div.Tensor", _np(np.true_divide, a._data, b._data), (a, b))


def neg(input):
    input = _tensor(input)
    if input.dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return record("neg", np.negative(input._data), (input,))


def reciprocal(input):
    input = _floating(_tensor(input))
    return record("reciprocal", _np(np.reciprocal, input._data), (input,))


def pow(input, exponent):
    """``input ** exponent``; either side may be a number (not both)."""
    if not isinstance(input, Tensor):                 # number ** tensor
        exponent = _tensor(exponent)
        dtype = _dt.result_type(input, exponent)
        e = _cast_operand(exponent, dtype)
        base = input
        array = _np(np.power, np.asarray(base, dtype=dtype.numpy), e._data)
        return record("pow.Scalar", array, (e,), {"base": base})
    if isinstance(exponent, Tensor):                  # tensor ** tensor
        a, e, dtype = _promote(input, exponent)
        _check_int_pow(dtype, e._data)
        return record("pow.Tensor_Tensor", _np(np.power, a._data, e._data),
                       (a, e))
    dtype = _dt.result_type(input, exponent)          # tensor ** number
    a = _cast_operand(input, dtype)
    _check_int_pow(dtype, np.asarray(exponent))
    array = _np(np.power, a._data, np.asarray(exponent, dtype=dtype.numpy))
    return record("pow.Tensor_Scalar", array, (a,), {"exponent": exponent})


def _check_int_pow(dtype, exponent):
    if not dtype.is_floating_point and dtype is not _dt.bool and np.any(exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def log_of_number(x):
    """log of a Python number, nan for negatives and -inf for 0 (no exception)."""
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan


# ======================================================================
# Elementwise functions
# ======================================================================

def _unary(op, np_fn, input, promote=True):
    input = _tensor(input)
    if promote:
        input = _floating(input)
    return record(op, _np(np_fn, input._data), (input,))


def exp(input):
    return _unary("exp", np.exp, input)


def log(input):
    return _unary("log", np.log, input)


def sqrt(input):
    return _unary("sqrt", np.sqrt, input)


def tanh(input):
    return _unary("tanh", np.tanh, input)


def sin(input):
    return _unary("sin", np.sin, input)


def cos(input):
    return _unary("cos", np.cos, input)


def _np_sigmoid(x):
    # Stable for large |x|: exp of a non-positive number never overflows.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def sigmoid(input):
    return _unary("sigmoid", _np_sigmoid, input)


def relu(input):
    input = _tensor(input)
    return record("relu", np.maximum(input._data, 0).astype(input._data.dtype, copy=False),
                   (input,))


def abs(input):
    return _unary("abs", np.abs, input, promote=False)


def sign(input):
    """-1, 0 or 1; its gradient is zero everywhere."""
    input = _tensor(input)
    return record("sign", np.sign(input._data), (input,))


def sgn(input):
    """``sign`` under the name PyTorch's gradient formulas use (``abs``'s backward)."""
    input = _tensor(input)
    return record("sgn", np.sign(input._data), (input,))


def masked_fill(input, mask, value):
    """``input`` with ``value`` where ``mask`` is True (a number, or a 0-dim tensor)."""
    input, mask = _tensor(input), _tensor(mask)
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_dt.C_TYPE_NAMES[mask.dtype.name]}")
    if isinstance(value, Tensor):
        v = _cast_operand(value, input.dtype)
        array = _np(np.where, mask._data, v._data, input._data)
        return record("masked_fill.Tensor", array, (input, v), {"mask": mask})
    array = _np(np.where, mask._data, np.asarray(value, dtype=input._data.dtype), input._data)
    return record("masked_fill.Scalar", array, (input,), {"mask": mask})


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("autograd_lib.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(_tensor(input), min, max)
    input = _tensor(input)
    array = input._data
    if min is not None:
        array = np.maximum(array, np.asarray(min, dtype=array.dtype))
    if max is not None:
        array = np.minimum(array, np.asarray(max, dtype=array.dtype))
    return record("clamp", np.array(array, copy=True), (input,),
                   {"min": min, "max": max})


def _clamp_tensor(input, min, max):
    """``clamp`` with tensor bounds: one ClampBackward0 node with three inputs."""
    if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
        raise TypeError("clamp() received an invalid combination of arguments: min and max must "
                        "be both Tensors (or None) or both numbers")
    dtype = _dt.result_type(*(t for t in (input, min, max) if t is not None))
    x, lo, hi = (None if t is None else _cast_operand(t, dtype) for t in (input, min, max))
    array = x._data
    if lo is not None:
        array = _np(np.maximum, array, lo._data)
    if hi is not None:
        array = _np(np.minimum, array, hi._data)
    return record("clamp.Tensor", np.array(array, copy=True),
                   (x, lo, hi))


def clamp_bounds_mask(self, min, max):
    """Where ``clamp(self, min, max)`` (tensor bounds) let ``self`` through."""
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        mask = self <= max if mask is None else mask & (self <= max)
    return mask


def clamp_mask(self, min, max):
    """Where clamp let the value through (its gradient is 1 there, 0 elsewhere)."""
    mask = np.ones(self.shape, dtype=bool)
    if min is not None:
        mask &= self._data >= min
    if max is not None:
        mask &= self._data <= max
    return Tensor._make(mask)


def maximum(input, other):
    a, b, _ = _promote(input, other)
    return record("maximum", _np(np.maximum, a._data, b._data), (a, b))


def minimum(input, other):
    a, b, _ = _promote(input, other)
    return record("minimum", _np(np.minimum, a._data, b._data), (a, b))


def where(condition, input, other):
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed)."""
    condition = _tensor(condition)
    if condition.dtype is not _dt.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_dt.LEGACY_NAMES[condition.dtype.name][:-6]}")
    a, b, _ = _promote(input, other)
    array = _np(np.where, condition._data, a._data, b._data)
    return record("where.self", array, (a, b), {"condition": condition})


def _compare(np_fn):
    def compare(input, other):
        a, b, _ = _promote(input, other)
        return Tensor._make(np.asarray(_np(np_fn, a._data, b._data)))
    return compare


eq, ne = _compare(np.equal), _compare(np.not_equal)
lt, le = _compare(np.less), _compare(np.less_equal)
gt, ge = _compare(np.greater), _compare(np.greater_equal)
logical_and, logical_or = _compare(np.logical_and), _compare(np.logical_or)
logical_xor = _compare(np.logical_xor)


def _bitwise(np_fn, name):
    def op(input, other):
        a, b, dtype = _promote(input, other)
        if dtype.is_floating_point:
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{_dt.LEGACY_NAMES[dtype.name][:-6]}'")
        return Tensor._make(np.asarray(np_fn(a._data, b._data)))
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def logical_not(input):
    return Tensor._make(np.logical_not(_tensor(input)._data))


def isnan(input):
    return Tensor._make(np.isnan(_tensor(input)._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(_tensor(input)._data, _tensor(other)._data, rtol, atol, equal_nan))


def equal(input, other):
    """True when both tensors have the same shape and values."""
    a, b = _tensor(input), _tensor(other)
    return a.shape == b.shape and bool(np.array_equal(a._data, b._data))


# ======================================================================
# Casting and copies
# ======================================================================

def to(input, dtype=None, copy=False):
    """The tensor as ``dtype`` (``x.to(autograd_lib.float64)``); itself if already that type."""
    if isinstance(dtype, str) and dtype == "cpu":
        return input
    dtype = _dt.as_dtype(dtype)
    if dtype is None or (dtype is input.dtype and not copy):
        return input
    return record("_to_copy", input._data.astype(dtype.numpy), (input,))


def clone(input):
    """A copy with its own storage; gradients flow through it unchanged."""
    return record("clone", np.array(input._data, copy=True), (input,))


def contiguous(input):
    """The tensor itself if its memory is in row-major order, else a row-major copy
    (recorded as a clone, like PyTorch; ``clone`` alone keeps the memory layout)."""
    if input._data.flags.c_contiguous:
        return input
    return record("clone", np.ascontiguousarray(input._data), (input,))


# ======================================================================
# Reductions
# ======================================================================

def _dims(dim, ndim):
    """Normalize ``dim`` (None, int or sequence) to a sorted tuple of positive dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    dims = tuple(sorted({_wrap_dim(int(d), ndim) for d in dim}))
    if len(dims) != len(tuple(dim)):
        seen = set()
        for d in dim:
            if _wrap_dim(int(d), ndim) in seen:
                raise RuntimeError(f"dim {_wrap_dim(int(d), ndim)} appears multiple times in the "
                                   "list of dims")
            seen.add(_wrap_dim(int(d), ndim))
    return dims


def _reduce_dims(dim, ndim):
    """The dims sum/mean reduce for ``dim`` (an empty list means all, as in PyTorch)."""
    if not ndim:
        return ()
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return tuple(range(ndim))
    return _dims(dim, ndim)


def _sum_dtype(t):
    return t.dtype if t.dtype.is_floating_point else _dt.int64


def sum(input, dim=None, keepdim=False, *, dtype=None):
    input = _tensor(input)
    out_dtype = _dt.as_dtype(dtype) or _sum_dtype(input)
    if dim is None:
        array = np.sum(input._data, dtype=out_dtype.numpy)
        return record("sum", array, (input,), {"self_shape": input.shape})
    dims = _reduce_dims(dim, input.ndim)
    # (a reduction's result is always contiguous in PyTorch; NumPy may keep the input's order)
    array = np.asarray(np.sum(input._data, axis=dims, keepdims=keepdim, dtype=out_dtype.numpy),
                       order="C")
    return record("sum.dim_IntList", array, (input,),
                   {"self_shape": input.shape, "dim": dims, "keepdim": keepdim})


def mean(input, dim=None, keepdim=False, *, dtype=None):
    input = _tensor(input)
    out_dtype = _dt.as_dtype(dtype) or input.dtype
    if not out_dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_dt.LEGACY_NAMES[out_dtype.name][:-6]}")
    if dim is None:
        array = _mean_array(input._data, None, False, out_dtype)
        return record("mean", array, (input,), {"self_shape": input.shape})
    dims = _reduce_dims(dim, input.ndim)
    return record("mean.dim", _mean_array(input._data, dims, keepdim, out_dtype), (input,),
                   {"self_shape": input.shape, "dim": dims, "keepdim": keepdim})


def _mean_array(array, dims, keepdim, out_dtype):
    with warnings.catch_warnings() if array.size == 0 else contextlib.nullcontext():
        if array.size == 0:
            warnings.simplefilter("ignore", RuntimeWarning)   # NaN, silently, as in PyTorch
        result = _np(np.mean, array, axis=dims, keepdims=keepdim, dtype=out_dtype.numpy)
    return np.asarray(result, dtype=out_dtype.numpy, order="C")


class _ReturnType(tuple):
    """Named (values, indices) pairs, printed like ``torch.return_types.max``."""
    _name = ""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"autograd_lib.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class return_types:
    max = type("max", (_ReturnType,), {"_name": "max"})
    min = type("min", (_ReturnType,), {"_name": "min"})


def _extreme(input, dim, keepdim, kind):
    np_fn, arg_fn = (np.max, np.argmax) if kind == "max" else (np.min, np.argmin)
    if input.numel() == 0:
        raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    if dim is None:
        return record(kind, np_fn(input._data), (input,))
    d = _wrap_dim(dim, input.ndim)
    data = input._data if input.ndim else input._data.reshape(1)
    indices = np.asarray(arg_fn(data, axis=d if input.ndim else 0, keepdims=keepdim), dtype=np.int64)
    values = np.take_along_axis(data, indices if keepdim else np.expand_dims(indices, d), axis=d)
    if not keepdim and input.ndim:
        values = np.squeeze(values, axis=d)
    if not input.ndim:
        values, indices = values.reshape(()), indices.reshape(())
    values, indices = np.asarray(values, order="C"), np.asarray(indices, order="C")
    indices_t = Tensor._make(indices)
    values_t = record(f"{kind}.dim", values, (input,),
                       {"self_shape": input.shape, "dim": d, "keepdim": keepdim, "indices": indices_t})
    return getattr(return_types, kind)(values_t, indices_t)


def max(input, dim=None, keepdim=False):
    """``max(x)``: the largest value; ``max(x, dim)``: (values, indices); ``max(x, y)``: maximum."""
    input = _tensor(input)
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    return _extreme(input, dim, keepdim, "max")


def min(input, dim=None, keepdim=False):
    input = _tensor(input)
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    return _extreme(input, dim, keepdim, "min")


def _amax_amin(input, dim, keepdim, op, np_fn):
    input = _tensor(input)
    dims = _dims(dim if dim not in ((), []) else None, input.ndim) if input.ndim else ()
    array = np.asarray(np_fn(input._data, axis=dims, keepdims=keepdim), order="C")
    return record(op, array, (input,), {"dim": dims, "keepdim": keepdim})


def amax(input, dim=(), keepdim=False):
    return _amax_amin(input, dim, keepdim, "amax", np.max)


def amin(input, dim=(), keepdim=False):
    return _amax_amin(input, dim, keepdim, "amin", np.min)


def argmax(input, dim=None, keepdim=False):
    input = _tensor(input)
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(input._data), dtype=np.int64))
    return Tensor._make(np.asarray(np.argmax(input._data, axis=_wrap_dim(dim, input.ndim),
                                             keepdims=keepdim), dtype=np.int64))


def argmin(input, dim=None, keepdim=False):
    input = _tensor(input)
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(input._data), dtype=np.int64))
    return Tensor._make(np.asarray(np.argmin(input._data, axis=_wrap_dim(dim, input.ndim),
                                             keepdims=keepdim), dtype=np.int64))


# Helpers that gradient formulas use (built from differentiable ops).

def restore_reduced_dims(grad, dims, keepdim):
    """Put back the dims a reduction removed, as size-1 dims, so ``grad`` broadcasts."""
    if keepdim:
        return grad
    for d in dims:                      # dims are sorted ascending
        grad = grad.unsqueeze(d)
    return grad


def evenly_distribute(grad, self, result):
    """max()/min() backward: share ``grad`` equally among the positions holding the
    result (PyTorch's evenly_distribute_backward; a nan result: among the nans)."""
    mask = isnan(self) if np.isnan(result._data) else self == result
    count = Tensor._make(np.asarray(mask._data.sum()))
    return masked_fill(zeros(self.shape, dtype=grad.dtype), mask, grad / count)


def share_among_ties(grad, self, result, dims, keepdim):
    """amax/amin backward: each tied extreme gets an equal share of its gradient."""
    result = _reshape_reduced(result, dims, keepdim)
    mask = self == result
    count = Tensor._make(mask._data.sum(axis=dims, keepdims=True).astype(grad._data.dtype))
    return _reshape_reduced(grad, dims, keepdim) / count * mask


def _reshape_reduced(t, dims, keepdim):
    """Like restore_reduced_dims, with one reshape (as PyTorch's amax/amin backward)."""
    if keepdim:
        return t
    shape = list(t.shape)
    for d in dims:
        shape.insert(d, 1)
    return t.reshape(shape)


def scatter_into_zeros(grad, self_shape, dim, keepdim, indices):
    """max(dim)/min(dim) backward: the gradient goes to the chosen index only."""
    if not keepdim and len(self_shape):
        grad = grad.unsqueeze(dim)
        indices = Tensor._make(np.expand_dims(indices._data, dim))
    if not len(self_shape):
        return grad
    grid = list(np.indices(indices.shape, sparse=True))
    grid[dim] = indices._data
    return embed_in_zeros(grad, self_shape, tuple(grid), accumulate=False, op="scatter.src")


# ======================================================================
# Shapes and views
# ======================================================================

def _shape_arg(shape):
    """Accept ``f(2, 3)`` and ``f((2, 3))`` alike."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _view_array(array, shape):
    """The NumPy view with ``shape``, or None when the strides don't allow one."""
    try:
        return array.reshape(shape, copy=False)
    except ValueError:
        return None


def view(input, *shape):
    shape = _infer_shape(_shape_arg(shape), input.numel())
    array = _view_array(input._data, shape)
    if array is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return record("view", array, (input,), {"self_shape": input.shape},
                   view_of=input)


def reshape(input, *shape):
    """A view when the memory layout allows it, otherwise a copy (like PyTorch)."""
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if input._data.flags.c_contiguous:
        return view(input, shape)
    array = _view_array(input._data, shape)
    if array is not None:           # a view of a non-contiguous tensor: PyTorch's _reshape_alias
        return record("_reshape_alias", array, (input,),
                       {"self_shape": input.shape}, view_of=input)
    return _unsafe_view(contiguous(input), shape)


def _unsafe_view(input, shape):
    return record("_unsafe_view", input._data.reshape(shape), (input,),
                   {"self_shape": input.shape})


def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, input.ndim), _wrap_dim(end_dim, input.ndim)
    if s == e:
        return input
    shape = input.shape[:s] + (math.prod(input.shape[s:e + 1]),) + input.shape[e + 1:]
    return reshape(input, shape)


def transpose(input, dim0, dim1):
    n = input.ndim
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    array = np.swapaxes(input._data, d0, d1) if n else input._data.view()
    return record("transpose.int", array, (input,), {"dim0": d0, "dim1": d1},
                   view_of=input)


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return record("t", input._data.T, (input,), view_of=input)


def permute(input, *dims):
    dims = tuple(_wrap_dim(d, input.ndim) for d in _shape_arg(dims))
    if sorted(dims) != list(range(input.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. input.dim() "
                           f"= {input.ndim} is not equal to len(dims) = {len(dims)}"
                           if len(dims) != input.ndim else "permute(): duplicate dims are not allowed.")
    return record("permute", np.transpose(input._data, dims), (input,),
                   {"dims": dims}, view_of=input)


def inverse_permutation(dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return tuple(inverse)


def squeeze(input, dim=None):
    shape = input.shape
    if dim is None:
        op, dims = "squeeze", tuple(i for i, s in enumerate(shape) if s == 1)
    elif isinstance(dim, (tuple, list)):
        op, dims = "squeeze.dims", tuple(d for d in _dims(dim, input.ndim) if shape[d] == 1) if input.ndim else ()
    else:
        d = _wrap_dim(dim, input.ndim)
        op, dims = "squeeze.dim", ((d,) if input.ndim and shape[d] == 1 else ())
    array = np.squeeze(input._data, axis=dims) if dims else input._data.view()
    return record(op, array, (input,), {"self_shape": shape, "dims": dims},
                   view_of=input)


def unsqueeze_dims(grad, dims):
    """Squeeze's backward: put the squeezed dims back, lowest first (as PyTorch)."""
    for d in sorted(dims):
        grad = grad.unsqueeze(d)
    return grad


def unsqueeze(input, dim):
    d = _wrap_dim(dim, input.ndim + 1)
    return record("unsqueeze", np.expand_dims(input._data, d), (input,),
                   {"dim": d}, view_of=input)


def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(f"expand(autograd_lib.{_dt.LEGACY_NAMES[input.dtype.name]}{{{list(input.shape)}}}, size={list(sizes)}): the "
                           "number of sizes provided must be greater or equal to the number of "
                           "dimensions in the tensor")
    lead = len(sizes) - input.ndim
    target = []
    for i, s in enumerate(sizes):
        own = input.shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({own}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}."
                               f"  Tensor sizes: {list(input.shape)}")
        target.append(s)
    array = np.broadcast_to(input._data, tuple(target))
    return record("expand", array, (input,), {"self_shape": input.shape},
                   view_of=input)


def expand_as(input, other):
    return expand(input, other.shape)


def broadcast_to(input, shape):
    return expand(input, shape)


def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of views: one node with one output per
    slice (iterating over a tensor calls this, as in PyTorch)."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n == 0:
        return ()
    outputs = [record("unbind.int", input._data[dim_key(d, 0)], (input,),
                       {"self_shape": input.shape, "dim": d}, view_of=input)]
    node = outputs[0].grad_fn
    for i in range(1, n):
        out = Tensor._make(input._data[dim_key(d, i)], input._version_counter)
        out._base = outputs[0]._base
        if node is not None:
            out.grad_fn, out._output_nr = node, i
        outputs.append(out)
    if node is not None:
        node.num_outputs = n
        for out in outputs:
            out._multi_output_view = "Unbind"
    return tuple(outputs)


def unbind_backward(grads, self_shape, dim):
    """Stack the slices' gradients back, zeros for a slice that got none."""
    if not isinstance(grads, (list, tuple)):
        grads = [grads]
    like = next(g for g in grads if g is not None)
    shape = tuple(s for i, s in enumerate(self_shape) if i != dim)
    return stack([zeros(shape, dtype=like.dtype) if g is None else g for g in grads], dim)


def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    tensors = [_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("autograd_lib.cat(): expected a non-empty list of Tensors")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    tensors = [_cast_operand(t, dtype) for t in tensors]
    d = _wrap_dim(dim, tensors[0].ndim)
    first = tensors[0].shape
    for i, t in enumerate(tensors[1:], 1):
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and "
                               f"{t.ndim}")
        for k, (a, b) in enumerate(zip(first, t.shape)):
            if k != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                                   f"size {a} but got size {b} for tensor number {i} in the list.")
    out = np.concatenate([t._data for t in tensors], axis=d)
    offsets = [0]
    for t in tensors:
        offsets.append(offsets[-1] + t.shape[d])
    keys = [slice(offsets[i], offsets[i + 1]) for i in range(len(tensors))]
    return record("cat", out, tensors, {"dim": d, "keys": keys})


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dim."""
    tensors = [_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {i}")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    tensors = [_cast_operand(t, dtype) for t in tensors]
    d = _wrap_dim(dim, tensors[0].ndim + 1)
    out = np.stack([t._data for t in tensors], axis=d)
    return record("stack", out, tensors, {"dim": d, "keys": list(range(len(tensors)))})


# ======================================================================
# Indexing
# ======================================================================

def dim_key(dim, index):
    """An indexing key that applies ``index`` along ``dim`` only."""
    return (slice(None),) * dim + (index,)


def _is_advanced(k):
    return isinstance(k, (list, np.ndarray, Tensor)) or (isinstance(k, (bool, np.bool_)))


def _key_value(k):
    if isinstance(k, Tensor):
        return k._data
    if isinstance(k, list):
        return np.asarray([x._data if isinstance(x, Tensor) else x for x in k])
    return k


def getitem(input, key):
    """``x[key]``: basic indexing makes views one dim at a time (Select, Slice,
    Unsqueeze, as PyTorch records them); integer/boolean arrays then gather a
    copy in one IndexBackward0 node."""
    if not isinstance(key, tuple):
        if key is Ellipsis:
            return record("alias", input._data.view(), (input,), view_of=input)
        if isinstance(key, slice):                      # a lone slice is always recorded
            return _slice(input, 0, key)
        key = (key,)
    key = tuple(_index_entry(k) for k in key)
    n_specified = builtins_sum(_dims_consumed(k) for k in key)
    if n_specified > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    out, dim, advanced = input, 0, []
    for k in key:
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
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = record("select.int", out._data[dim_key(dim, int(k))], (out,),
                          {"self_shape": out.shape, "dim": dim, "index": int(k)}, view_of=out)
        elif isinstance(k, slice):
            if k != slice(None):
                out = _slice(out, dim, k)
            advanced.append(slice(None))
            dim += 1
        elif _is_advanced(k):
            value = _key_value(k)
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
        return record("index.Tensor", out._data[index], (out,),
                       {"self_shape": out.shape, "indices": index})
    return out


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
        value = _key_value(k)
        return value.ndim if value.dtype == bool else 1
    return 1


builtins_sum = _builtins.sum


def _slice(input, dim, k):
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if k.step is not None and k.step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = k.indices(input.shape[dim])
    stop = _builtins.max(stop, start)
    return record("slice.Tensor", input._data[dim_key(dim, slice(start, stop, step))],
                   (input,),
                   {"self_shape": input.shape, "dim": dim, "start": start, "end": stop, "step": step},
                   view_of=input)


def embed_in_zeros(grad, shape, key, accumulate=False, op=None):
    """A zero tensor of ``shape`` with ``grad`` written (or, with repeated
    indices, added) at ``key``: the backward of reading ``x[key]``.

    ``op`` is the op PyTorch computes this with, which names the node it records:
    ``slice_backward`` (the default), ``select_backward``, or, writing ``grad`` into
    fresh zeros, ``_index_put_impl_`` (the default when accumulating) and ``scatter.src``."""
    array = np.zeros(shape, dtype=grad._data.dtype)
    if accumulate:
        np.add.at(array, key, grad._data)
    else:
        array[key] = grad._data
    op = op or ("_index_put_impl_" if accumulate else "slice_backward")
    if op in ("_index_put_impl_", "scatter.src"):    # zeros.index_put_(key, grad): no input self
        return record(op, array, (None, grad), {"key": key, "accumulate": accumulate})
    return record(op, array, (grad,), {"key": key})


def index_fill_zero(grad, key):
    """``grad`` with the positions ``key`` set to zero (they were overwritten)."""
    mask = np.ones(grad.shape, dtype=grad._data.dtype)
    mask[key] = 0
    return grad * Tensor._make(mask)


def _setitem_key(t, key):
    """A NumPy key for ``t[key] = v`` (tensors inside the key become arrays)."""
    if isinstance(key, tuple):
        return tuple(_key_value(k) for k in key)
    return _key_value(key)


def setitem(input, key, value):
    """``t[key] = value``: an in-place write, recorded as PyTorch records it:

    * a basic key (ints, slices, None) writes through a view: CopySlices;
    * a key that selects the whole tensor (``t[:] = v``, ``t[...] = v``) is a
      plain ``copy_``: CopyBackwards;
    * an advanced key (integer lists, masks) calls ``index_put_``: IndexPutBackward0.

    A tensor ``value`` first loses its leading size-1 dims (a view) and, for a
    view, is expanded to the written shape, as in PyTorch's ``copy_to``.
    """
    np_key = _setitem_key(input, key)
    entries = np_key if isinstance(np_key, tuple) else (np_key,)
    advanced = any(isinstance(k, (list, np.ndarray)) and (np.ndim(k) > 0 or k.dtype == bool)
                   or isinstance(k, (bool, np.bool_)) for k in entries)
    whole = not advanced and _selects_whole(input, entries)
    if not advanced and not whole and is_grad_enabled() and input.requires_grad and \
            input.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if not isinstance(value, Tensor):
        value = Tensor._make(np.asarray(value, dtype=input.dtype.numpy))
    if advanced:
        op = "index_put_"
    elif whole:
        op = "fill_.Tensor" if value.ndim == 0 else "copy_"
    else:
        op = "copy_slices"      # PyTorch: copy_ into the view t[key], which CopySlices wraps

    def write(self, src):
        target = self._data[np_key].shape
        if src.ndim and src.shape != target:
            shape = tuple(src.shape)
            while shape and shape[0] == 1:               # leading 1s are dropped (a view)
                shape = shape[1:]
            if not advanced or shape != src.shape:
                src = view(src, shape)
            if not advanced and src.shape != target:
                src = expand(src, target)
        src = _cast_operand(src, self.dtype)
        array = np.array(self._data, copy=True)
        array[np_key] = src._data
        return record(op, array, (self, src), {"key": np_key, "accumulate": False})
    _inplace(input, write, value)


def _selects_whole(t, entries):
    """True when a basic key is only full slices and ``...`` (no view is made)."""
    dim = 0
    for k in entries:
        if k is Ellipsis:
            dim = t.ndim - builtins_sum(e is not Ellipsis and e is not None for e in entries) + dim
            continue
        if not isinstance(k, slice) or dim >= t.ndim or \
                k.indices(t.shape[dim]) != (0, t.shape[dim], 1):
            return False
        dim += 1
    return True


# ======================================================================
# Matrix products
# ======================================================================

def _check_mm(a, b, name):
    if a.ndim != 2 or b.ndim != 2:
        bad = a if a.ndim != 2 else b
        raise RuntimeError(f"{'self' if bad is a else 'mat2'} must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")


def _matmul_operands(a, b):
    a, b = _tensor(a), _tensor(b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_dt.C_TYPE_NAMES[a.dtype.name]} != {_dt.C_TYPE_NAMES[b.dtype.name]}")
    return a, b


def mm(input, mat2):
    a, b = _matmul_operands(input, mat2)
    _check_mm(a, b, "mm")
    return record("mm", a._data @ b._data, (a, b),
                   {"self_col_major": _col_major(a), "mat2_col_major": _col_major(b)})


def _col_major(m):
    """True for a matrix stored column by column (a transposed contiguous matrix):
    PyTorch's mm backward then computes that input's gradient transposed."""
    rows = m._data.shape[0]
    strides = [st // m._data.itemsize for st in m._data.strides]
    return strides[0] == 1 and strides[1] == rows


def mm_mat1_backward(grad, mat2, mat1_col_major, alpha=1):
    """The gradient of ``mat1 @ mat2`` for ``mat1`` (PyTorch's mm_mat1_backward)."""
    out = mat2.mm(grad.t()).t() if mat1_col_major else grad.mm(mat2.t())
    return out if alpha == 1 else mul_scalar(out, alpha)


def mm_mat2_backward(grad, mat1, mat2_col_major, alpha=1):
    """The gradient of ``mat1 @ mat2`` for ``mat2`` (PyTorch's mm_mat2_backward)."""
    out = grad.t().mm(mat1).t() if mat2_col_major else mat1.t().mm(grad)
    return out if alpha == 1 else mul_scalar(out, alpha)


def mv(input, vec):
    a, v = _matmul_operands(input, vec)
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {v.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({v.shape[0]})")
    return record("mv", a._data @ v._data, (a, v))


def dot(input, tensor):
    a, b = _matmul_operands(input, tensor)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the "
                           "same number of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    return record("dot", np.dot(a._data, b._data), (a, b))


def bmm(input, mat2):
    a, b = _matmul_operands(input, mat2)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return record("bmm", np.matmul(a._data, b._data), (a, b))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``: what ``nn.Linear`` records for 2-D inputs."""
    input, m1 = _tensor(input), _tensor(mat1)
    m1, m2 = _matmul_operands(m1, mat2)
    _check_mm(m1, m2, "addmm")
    product = m1._data @ m2._data
    array = (product if alpha == 1 else alpha * product) + (input._data if beta == 1 else beta * input._data)
    return record("addmm", array.astype(m1._data.dtype, copy=False),
                   (input, m1, m2),
                   {"alpha": alpha, "beta": beta, "mat1_col_major": _col_major(m1),
                    "mat2_col_major": _col_major(m2)})


def _mT(x):
    return transpose(x, -2, -1)


def _should_fold(t1, t2):
    """PyTorch's rule for folding a batched product into one mm/mv (avoiding bmm)."""
    t1_larger = t1.ndim >= t2.ndim
    big = t1._data if t1_larger else _mT_shape(t2)
    dim_big, dim_small = (t1.ndim, t2.ndim) if t1_larger else (t2.ndim, t1.ndim)
    if not (dim_big >= 3 and dim_small <= 2):
        return False
    small_requires_grad = t2.requires_grad if t1_larger else t1.requires_grad
    if small_requires_grad:             # (PyTorch does not look at grad mode here)
        return True
    if t1.ndim == 2:
        return False
    if big.size == 0:
        return True
    shape, strides = big.shape, [s // big.itemsize for s in big.strides]
    return _builtins.all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(dim_big - 2))


def _mT_shape(t):
    return np.swapaxes(t._data, -1, -2)


def matmul(input, other):
    """The ``@`` operator, decomposed exactly as PyTorch's ``at::matmul`` does
    (dot, mv, mm, folding into mm, or broadcasting into bmm), so the same
    nodes appear in the graph."""
    t1, t2 = _matmul_operands(input, other)
    d1, d2 = t1.ndim, t2.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(t1, t2)
    if d1 == 2 and d2 == 1:
        return mv(t1, t2)
    if d1 == 1 and d2 == 2:
        product = mm(unsqueeze(t1, 0), t2)
        # PyTorch squeezes the fresh product in place (squeeze_), so the result is not a view.
        return record("squeeze_.dim", product._data[0], (product,),
                       {"self_shape": product.shape, "dims": (0,)})
    if d1 == 2 and d2 == 2:
        return mm(t1, t2)
    if _should_fold(t1, t2):
        transpose_result = d2 > d1
        a = _mT(t2) if transpose_result else t1
        b = (t(t1) if d1 == 2 else t1) if transpose_result else t2
        out_shape = a.shape[:-1]
        folded = reshape(a, (math.prod(out_shape), a.shape[-1]))
        if b.ndim == 2:
            _check_mm(folded, b, "matmul")
            output = _unsafe_view(mm(folded, b), out_shape + (b.shape[1],))
            return contiguous(_mT(output)) if transpose_result else output
        return _unsafe_view(mv(folded, b), out_shape)
    # Broadcast the batch dims and multiply with bmm.
    n = t1.shape[-2] if d1 > 1 else 1
    m1 = t1.shape[-1]
    m2 = t2.shape[-2] if d2 > 1 else t2.shape[0]
    p = t2.shape[-1] if d2 > 1 else 1
    batch1, batch2 = t1.shape[:_builtins.max(d1 - 2, 0)], t2.shape[:_builtins.max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        # A batch of one that requires grad is squeezed (then folded), as in PyTorch,
        # so that its gradient is not summed over an expanded copy.
        if batch1[0] == 1 and t1.requires_grad:
            return matmul(squeeze(t1, 0), t2)
        if batch2[0] == 1 and t2.requires_grad:
            return matmul(t1, squeeze(t2, 0))
    batch = broadcast_shape(batch1, batch2)
    count = math.prod(batch)
    if m1 != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{count}, {m1}] but got: [{count}, {m2}].")
    a = reshape(expand(t1, batch + (n, m1)), (count, n, m1))
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    if d2 == 1:                        # a vector on the right: one column per batch
        b = unsqueeze(reshape(expand(t2, batch + (m2,)), (count, m2)), 2)
        return _unsafe_view(squeeze(bmm(a, b), -1), out_shape)
    b = reshape(expand(t2, batch + (m2, p)), (count, m2, p))
    return _unsafe_view(bmm(a, b), out_shape)


# ======================================================================
# Softmax and losses
# ======================================================================

def _check_softmax_dtype(name, input, dim):
    if not input.dtype.is_floating_point:
        kernel = f"{name}_lastdim_kernel_impl" if dim == _builtins.max(input.ndim - 1, 0) else \
            f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-6]}'")


def softmax(input, dim, dtype=None):
    input = _tensor(input) if dtype is None else _tensor(input).to(dtype)
    d = _wrap_dim(dim, input.ndim)
    _check_softmax_dtype("softmax", input, d)
    shifted = input._data - np.max(input._data, axis=d, keepdims=True)
    e = _np(np.exp, shifted)
    array = np.asarray(e / e.sum(axis=d, keepdims=True), order="C")     # contiguous, as PyTorch's
    return record("_softmax", array, (input,), {"dim": d})


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)``, computed stably: the max is subtracted before exp."""
    input = _tensor(input) if dtype is None else _tensor(input).to(dtype)
    d = _wrap_dim(dim, input.ndim)
    _check_softmax_dtype("log_softmax", input, d)
    shifted = input._data - np.max(input._data, axis=d, keepdims=True)
    array = shifted - _np(np.log, _np(np.exp, shifted).sum(axis=d, keepdims=True))
    return record("_log_softmax", np.asarray(array, order="C"), (input,), {"dim": d})


_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of ``target`` classes under log-probabilities ``input`` (N, C)."""
    _check_reduction(reduction)
    input, target = _tensor(input), _tensor(target)
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_dt.LEGACY_NAMES[target.dtype.name][:-6]}")
    if input.ndim not in (1, 2):
        raise ValueError(f"Expected 1 or 2 dimensions (got {input.ndim})")
    logp = input._data if input.ndim == 2 else input._data[None]
    tgt = target._data.reshape(-1)
    if logp.shape[0] != tgt.shape[0]:
        raise ValueError(f"Expected input batch_size ({logp.shape[0]}) to match target batch_size "
                         f"({tgt.shape[0]}).")
    valid = tgt != ignore_index
    classes = logp.shape[1]
    if np.any((tgt[valid] < 0) | (tgt[valid] >= classes)):
        bad = tgt[valid][(tgt[valid] < 0) | (tgt[valid] >= classes)][0]
        raise IndexError(f"Target {bad} is out of bounds.")
    w = np.ones(classes, dtype=logp.dtype) if weight is None else _tensor(weight)._data.astype(logp.dtype)
    safe = np.where(valid, tgt, 0)
    per_sample_w = np.where(valid, w[safe], 0).astype(logp.dtype)
    losses = -logp[np.arange(len(tgt)), safe] * per_sample_w
    total_weight = per_sample_w.sum()
    if reduction == "none":
        array = losses if input.ndim == 2 else losses[0]
    elif reduction == "sum":
        array = losses.sum()
    else:
        array = _np(np.divide, losses.sum(), total_weight)
    params = {"self_shape": input.shape, "target": target, "weight": w, "reduction": reduction,
              "ignore_index": ignore_index, "total_weight": total_weight}
    return record("nll_loss", np.asarray(array, dtype=logp.dtype), (input,), params)


def nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight):
    """The gradient of nll_loss: ``-weight[target]`` at each target position, scaled
    by ``grad`` (one recorded op, as PyTorch's: NllLossBackwardBackward0)."""
    self_shape = self.shape
    tgt = target._data.reshape(-1)
    valid = tgt != ignore_index
    safe = np.where(valid, tgt, 0)
    rows = np.arange(len(tgt))
    scale = np.where(valid, -weight[safe], 0).astype(weight.dtype)
    if reduction == "mean":
        scale = _np(np.divide, scale, total_weight).astype(weight.dtype)
    coeff = np.zeros((len(tgt), self_shape[-1]), dtype=weight.dtype)
    coeff[rows, safe] = scale
    coeff = coeff.reshape(self_shape)
    g = grad._data[:, None] if reduction == "none" and len(self_shape) == 2 else grad._data
    return record("nll_loss_backward", (coeff * g).astype(grad._data.dtype, copy=False),
                   (grad, self),
                   {"target": target, "weight": weight, "reduction": reduction,
                    "ignore_index": ignore_index})


def mse_loss(input, target, reduction="mean"):
    _check_reduction(reduction)
    a, b, _ = _promote(input, target)
    diff = (a._data - b._data) ** 2
    array = diff if reduction == "none" else (diff.sum() if reduction == "sum" else diff.mean())
    return record("mse_loss", np.asarray(array, dtype=diff.dtype),
                   (a, b), {"reduction": reduction})


def mse_loss_backward(grad, self, target, reduction):
    """``2 * (self - target) * grad`` (divided by the count for "mean"), as one
    recorded op like PyTorch's (MseLossBackwardBackward0)."""
    count = math.prod(np.broadcast_shapes(self.shape, target.shape))
    scale = 2.0 / count if reduction == "mean" else 2.0
    array = _np(lambda g, s, t: scale * (s - t) * g, grad._data, self._data, target._data)
    return record("mse_loss_backward", array.astype(self._data.dtype, copy=False),
                   (grad, self, target),
                   {"reduction": reduction, "count": count})


def mse_double_backward(grad, reduction, count):
    """The gradient of mse_loss_backward for ``self``: ``2 * grad`` (over count for "mean")."""
    out = mul_scalar(grad, 2)
    return div_scalar(out, count) if reduction == "mean" else out


# ======================================================================
# Ops that gradient formulas record (for create_graph=True)
# ======================================================================
#
# PyTorch writes some gradients as ops of their own (tanh_backward, ...) and
# multiplies by numbers with ``mul.Scalar``; with ``create_graph=True`` these
# appear in the graph of the gradient (TanhBackwardBackward0, MulBackward1, ...).
# Formulas in derivatives.py call these so that our graphs are the same.

def mul_scalar(input, other):
    """``input * other`` for a number ``other`` (PyTorch's ``mul.Scalar``: MulBackward1)."""
    array = _np(np.multiply, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("mul.Scalar", array, (input,), {"other": other})


def div_scalar(input, other):
    """``input / other`` for a number ``other`` (``div.Scalar``: DivBackward1)."""
    array = _np(np.true_divide, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("div.Scalar", array, (input,), {"other": other})


def sub_scalar(input, other):
    """``input - other`` for a number ``other`` (``sub.Scalar``: SubBackward1)."""
    array = _np(np.subtract, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("sub.Scalar", array, (input,))


def add_scalar(input, other):
    """``input + other`` for a number ``other`` (``add.Scalar``: AddBackward1)."""
    array = _np(np.add, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("add.Scalar", array, (input,))


def _backward_op(op, fn, grad_output, output, params=None):
    array = _np(fn, grad_output._data, output._data).astype(grad_output._data.dtype, copy=False)
    return record(op, array, (grad_output, output), params)


def tanh_backward(grad_output, output):
    """``grad_output * (1 - output**2)``: the gradient of tanh given its output."""
    return _backward_op("tanh_backward", lambda g, y: g * (1 - y * y), grad_output, output)


def sigmoid_backward(grad_output, output):
    """``grad_output * output * (1 - output)``: the gradient of sigmoid given its output."""
    return _backward_op("sigmoid_backward", lambda g, y: g * ((1 - y) * y),
                        grad_output, output)


def threshold_backward(grad_output, self, threshold):
    """``grad_output`` where ``self > threshold``, else 0 (relu's backward, given its output)."""
    return _backward_op("threshold_backward", lambda g, x: _threshold_mask(g, x > threshold),
                        grad_output, self, {"threshold": threshold})


def _threshold_mask(g, keep):
    """``g`` where ``keep``, else exactly 0 (even where g is inf or nan, as PyTorch):
    a multiply is ten times faster than np.where, and right whenever g is finite."""
    out = g * keep
    if not np.isfinite(g).all():
        out = np.where(keep, g, 0).astype(g.dtype, copy=False)
    return out


def softmax_backward_data(grad_output, output, dim):
    """``(grad_output - sum(grad_output * output)) * output`` along ``dim``."""
    return _backward_op("_softmax_backward_data",
                        lambda g, y: (g - (g * y).sum(axis=dim, keepdims=True)) * y,
                        grad_output, output, {"dim": dim})


def log_softmax_backward_data(grad_output, output, dim):
    """``grad_output - exp(output) * sum(grad_output)`` along ``dim``."""
    return _backward_op("_log_softmax_backward_data",
                        lambda g, y: g - np.exp(y) * g.sum(axis=dim, keepdims=True),
                        grad_output, output, {"dim": dim})


# ======================================================================
# In-place operations
# ======================================================================

def check_inplace(t):
    """The leaf rule: while recording, refuse to write in place into a leaf that
    requires grad, or into a view of one.  Its old values may be needed by the
    graph (as the start of every path back to it), and the write itself would have
    to be recorded on a tensor that has no history to attach it to."""
    if not is_grad_enabled():
        return
    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _check_view_grad_mode(t):
    """A view made under no_grad of a tensor that requires grad cannot be written
    in place while recording (PyTorch forbids it as ambiguous)."""
    base = t._base
    if is_grad_enabled() and base is not None and base.requires_grad and t.grad_fn is None:
        raise RuntimeError("A view was created in no_grad mode and is being modified inplace with "
                           "grad mode enabled. Given that this use case is ambiguous and "
                           "error-prone, it is forbidden. You can clarify your code by moving both "
                           "the view and the inplace either both inside the no_grad block (if you "
                           "don't want the inplace to be tracked) or both outside (if you want the "
                           "inplace to be tracked).")


def _check_multi_output_view(t):
    """The outputs of a function returning several views (unbind) share one node:
    PyTorch refuses to rewrite the history of one of them in place."""
    if is_grad_enabled() and t._multi_output_view is not None and t.grad_fn is not None:
        raise RuntimeError(f"Output {t._output_nr} of {t._multi_output_view} is a view and is being "
                           "modified inplace. This view is the output of a function that returns "
                           "multiple views. Such functions do not allow the output views to be "
                           "modified inplace. You should replace the inplace operation by an "
                           "out-of-place one.")


def _check_write(t):
    # PyTorch's order: how the view was made first, then the leaf rule.
    _check_multi_output_view(t)
    _check_view_grad_mode(t)
    check_inplace(t)


def _inplace(self, out_of_place, *args):
    """Run ``out_of_place(self, *args)``, write the result into ``self``'s storage,
    bump the version counter and, when recording, make the new node ``self``'s history.

    The node's inputs point at ``self``'s *old* history: an in-place op is the
    out-of-place op plus a rewrite of which node produced ``self``.
    """
    _check_write(self)
    recording = is_grad_enabled() and (self.requires_grad or _builtins.any(
        isinstance(a, Tensor) and a.requires_grad for a in args))
    if not recording:
        with no_grad():
            result = out_of_place(self, *args)
        _write(self, result)
        return self
    if self._base is not None:
        return _inplace_on_view(self, out_of_place, *args)
    before = Tensor._make(np.array(self._data, copy=True))     # the old values, for formulas
    before.grad_fn, before._output_nr = self.grad_fn, self._output_nr
    before._requires_grad, before._accumulator = self._requires_grad, self._accumulator
    result = out_of_place(before, *args)
    _write(self, result)
    node = result.grad_fn
    if node is not None:
        if "result" in node._saved:                 # the saved output is now self
            node._saved["result"] = SavedTensor(Tensor._make(self._data, self._version_counter), is_output=True)
        _move_retain_grad(self, node)
        self.grad_fn, self._output_nr = node, result._output_nr
    return self


def _inplace_on_view(view, out_of_place, *args):
    """An in-place op on a view changes its base, so (as PyTorch) the base's history
    is rewritten: its new node is a CopySlices that wraps the op's node, and the
    view becomes a view of the new base (AsStridedBackward0)."""
    base = view._base
    key = _positions_in_base(view, base)
    before = Tensor._make(np.array(view._data, copy=True))     # the view's old values
    before.grad_fn, before._output_nr = view.grad_fn, view._output_nr
    result = out_of_place(before, *args)
    _write(view, result)
    fn = result.grad_fn
    if fn is None:
        return view
    if "result" in fn._saved:
        fn._saved["result"] = SavedTensor(Tensor._make(view._data, view._version_counter), is_output=True)
    node = CopySlices(fn, key, base._gradient_edge(), (base._data.shape, base._data.dtype))
    _move_retain_grad(base, node)
    base.grad_fn, base._output_nr = node, 0
    alias = record("as_strided", view._data, (base,),
                    {"self_shape": base.shape, "key": key})
    view.grad_fn, view._output_nr = alias.grad_fn, 0
    return view


def _positions_in_base(view, base):
    """Where each element of ``view`` is in ``base`` (they share memory), as an
    indexing key for ``base``: found from the elements' byte offsets."""
    def offsets(a):
        off = np.zeros(a.shape, dtype=np.int64)
        for d, (n, stride) in enumerate(zip(a.shape, a.strides)):
            shape = [1] * a.ndim
            shape[d] = n
            off = off + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
        return off
    b, v = base._data, view._data
    start = v.__array_interface__["data"][0] - b.__array_interface__["data"][0]
    base_offsets = offsets(b).reshape(-1)
    order = np.argsort(base_offsets, kind="stable")
    flat = order[np.searchsorted(base_offsets[order], offsets(v) + start)]
    return np.unravel_index(flat, b.shape)


class CopySlices(Node):
    """The node of an in-place op applied to a view, recorded on the view's base
    (PyTorch's CopySlices).  Its first input is the base's old history, the others
    are the op's other inputs.  Backward: the op's node ``fn`` turns the gradient of
    the viewed region into gradients for the region's old values and for its other
    inputs; the rest of the base's gradient passes through unchanged."""

    def __init__(self, fn, key, base_edge, base_meta):
        super().__init__()
        self.fn, self.key = fn, key
        self.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        self._input_meta = [base_meta] + list(fn._input_meta[1:])

    def apply(self, grad_outputs):
        from .engine import _validate
        grad = grad_outputs[0]
        fn_grads = _validate(self.fn, self.fn.apply([grad[self.key]]))
        base_grad = index_fill_zero(grad, self.key)
        if self.next_functions[0][0] is not None and fn_grads[0] is not None:
            base_grad = base_grad + embed_in_zeros(fn_grads[0], grad.shape, self.key)
        return [base_grad] + list(fn_grads[1:])

    def release_saved(self):
        self.fn.release_saved()


def _write(self, result):
    if _dt._category(result.dtype) > _dt._category(self.dtype):   # float into int, int into bool
        raise RuntimeError(f"result type {_dt.LEGACY_NAMES[result.dtype.name][:-6]} can't be cast "
                           f"to the desired output type {_dt.LEGACY_NAMES[self.dtype.name][:-6]}")
    try:
        np.copyto(self._data, np.broadcast_to(result._data, self.shape), casting="unsafe")
    except ValueError as e:
        if "read-only" in str(e):
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.") from None
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}") from None
    if result.shape != self.shape and not is_expandable_to(result.shape, self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    _graph.increment_version(self)


def _move_retain_grad(self, node):
    if self._retains_grad and self.grad_fn is not None and self.grad_fn._retains_grad:
        self.grad_fn._retains_grad.pop(self._output_nr, None)
        if node._retains_grad is None:
            node._retains_grad = {}
        node._retains_grad[0] = weakref.ref(self)


def _arithmetic_(self, other, ufunc, out_of_place, alpha=1):
    """``self <op>= other``.  When nothing is recorded (an optimizer step under
    no_grad, say) NumPy writes straight into the storage, with no temporary copy;
    otherwise this is the generic :func:`_inplace`."""
    recording = _grad_state.enabled and (self.requires_grad or (
        isinstance(other, Tensor) and other.requires_grad))
    if recording:
        return _inplace(self, out_of_place, other)
    _check_write(self)
    result_dtype = _dt.result_type(self, other)
    if ufunc is np.true_divide and not result_dtype.is_floating_point:
        result_dtype = _dt.get_default_dtype()
    if _dt._category(result_dtype) > _dt._category(self.dtype):
        raise RuntimeError(f"result type {_dt.LEGACY_NAMES[result_dtype.name][:-6]} can't be cast "
                           f"to the desired output type {_dt.LEGACY_NAMES[self.dtype.name][:-6]}")
    value = other._data if isinstance(other, Tensor) else other
    if alpha != 1:
        value = value * alpha
    shape = broadcast_shape(self._data.shape, np.shape(value))
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    if not self._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    _np(ufunc, self._data, value, out=self._data, casting="unsafe")
    _graph.increment_version(self)
    return self


def add_(self, other, *, alpha=1):
    return _arithmetic_(self, other, np.add, lambda s, o: add(s, o, alpha=alpha), alpha)


def sub_(self, other, *, alpha=1):
    return _arithmetic_(self, other, np.subtract, lambda s, o: sub(s, o, alpha=alpha), alpha)


def mul_(self, other):
    return _arithmetic_(self, other, np.multiply, mul)


def div_(self, other):
    return _arithmetic_(self, other, np.true_divide, div)


def clamp_(self, min=None, max=None):
    return _inplace(self, lambda s: clamp(s, min, max))


def zero_(self):
    return _inplace(self, lambda s: record("zero_", np.zeros_like(s._data), (s,)))


def fill_(self, value):
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.item()
    return _inplace(self, lambda s: record("fill_.Scalar", np.full_like(s._data, value), (s,)))


def copy_(self, src):
    src = _tensor(src)

    def copy(s, src):
        array = np.array(np.broadcast_to(src._data, s.shape), dtype=s._data.dtype, copy=True)
        return record("copy_", array, (s, src))
    return _inplace(self, copy, src)


# ======================================================================
# Tensor methods and operators
# ======================================================================

def _reflected(fn):
    """``other OP self`` for a non-commutative op (``2 ** x``, ``a @ x``)."""
    return lambda self, other: fn(other, self)


def _commuted(fn):
    """``other OP self`` for a commutative op: PyTorch computes ``self OP other``, so the
    tensor stays the first input (``next_functions`` order of ``2 * x`` is x's first)."""
    return lambda self, other: fn(self, other)


def _install_methods():
    methods = {
        "add": add, "sub": sub, "mul": mul, "div": div, "neg": neg, "pow": pow,
        "reciprocal": reciprocal, "exp": exp, "log": log, "sqrt": sqrt, "tanh": tanh,
        "sigmoid": sigmoid, "relu": relu, "abs": abs, "sin": sin, "cos": cos, "sign": sign,
        "clamp": clamp, "clip": clamp, "maximum": maximum, "minimum": minimum,
        "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge,
        "logical_not": logical_not, "logical_and": logical_and, "logical_or": logical_or,
        "isnan": isnan, "equal": equal, "allclose": allclose,
        "sum": sum, "mean": mean, "max": max, "min": min, "amax": amax, "amin": amin,
        "argmax": argmax, "argmin": argmin,
        "view": view, "reshape": reshape, "flatten": flatten, "transpose": transpose, "t": t,
        "permute": permute, "squeeze": squeeze, "unsqueeze": unsqueeze, "expand": expand,
        "expand_as": expand_as, "broadcast_to": broadcast_to, "contiguous": contiguous,
        "clone": clone, "to": to, "unbind": unbind, "sgn": sgn, "masked_fill": masked_fill, "matmul": matmul, "mm": mm, "mv": mv, "dot": dot, "bmm": bmm,
        "softmax": softmax, "log_softmax": log_softmax,
        "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "clamp_": clamp_,
        "zero_": zero_, "fill_": fill_, "copy_": copy_,
        "__add__": add, "__radd__": _commuted(add), "__sub__": sub, "__rsub__": rsub,
        "__mul__": mul, "__rmul__": _commuted(mul), "__truediv__": div,
        "__rtruediv__": lambda self, other: mul(reciprocal(self), other),
        "__pow__": pow, "__rpow__": _reflected(pow), "__matmul__": matmul,
        "__rmatmul__": _reflected(matmul), "__neg__": neg, "__abs__": abs,
        "__eq__": eq, "__ne__": ne, "__lt__": lt, "__le__": le, "__gt__": gt, "__ge__": ge,
        "__and__": bitwise_and, "__or__": bitwise_or, "__xor__": bitwise_xor,
        "__rand__": _commuted(bitwise_and), "__ror__": _commuted(bitwise_or),
        "__invert__": lambda self: logical_not(self) if self.dtype is _dt.bool
        else Tensor._make(np.invert(self._data)),
        "__iadd__": add_, "__isub__": sub_, "__imul__": mul_, "__itruediv__": div_,
        "__getitem__": getitem, "__setitem__": setitem,
        "float": lambda self: to(self, _dt.float32), "double": lambda self: to(self, _dt.float64),
        "long": lambda self: to(self, _dt.int64), "int": lambda self: to(self, _dt.int32),
        "bool": lambda self: to(self, _dt.bool), "type_as": lambda self, other: to(self, other.dtype),
    }
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(_T)
    Tensor.mT = property(_mT_property)


def _T(self):
    """``x.T``: the dims reversed (a permute, as in PyTorch, which warns unless 2-D)."""
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=3)
    elif self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*autograd_lib.arange(x.ndim - 1, -1, -1))` to reverse the "
                      "dimensions of a tensor.", UserWarning, stacklevel=3)
    return permute(self, tuple(range(self.ndim))[::-1])


def _mT_property(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return _mT(self)


_install_methods()

