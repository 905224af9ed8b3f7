"""Operations: compute with NumPy, then record a backward node.

Each differentiable op follows one pattern::

    def exp(input):
        input = _tensor(input)
        return _record("ExpBackward0", np.exp(...), [("self", input)])

``_record`` wraps the NumPy result in a Tensor and, when grad mode is on and
some input requires grad, attaches the backward node registered under that
name in ``derivatives.py``, saving exactly what its formulas need.  In-place
variants (``add_``, ``t[i] = v``, ...) are built generically from the
out-of-place ops by :func:`_inplace`.

Every op is a function here (``autograd_lib.exp(x)``) and, where PyTorch has
one, a method (``x.exp()``), installed on :class:`Tensor` at the bottom.
"""

import builtins as _builtins
import math
import weakref

import numpy as np

from . import dtypes as _dt
from .grad_mode import is_grad_enabled, no_grad
from .graph import SavedTensor
from .tensor import Tensor, _wrap_dim

bool_dtype = _dt.bool

# ======================================================================
# Recording
# ======================================================================

def _record(node_name, array, inputs, params=None, view_of=None):
    """Wrap ``array`` as the op's result and attach backward node ``node_name``.

    ``inputs`` lists ``(name, tensor)`` pairs in the op's input order (the
    order of ``next_functions``); ``params`` holds the plain values formulas may
    ask for.  ``view_of``: the result shares storage with this tensor.
    """
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    out = Tensor._make(array, view_of._version_counter if view_of is not None else None)
    if view_of is not None:
        out._base = view_of._base if view_of._base is not None else view_of
    if not is_grad_enabled():
        return out
    for _, t in inputs:
        if t is not None and t.requires_grad:
            break
    else:
        return out                                    # nothing to differentiate

    node_cls = NODES[node_name]
    node = node_cls()
    edges, meta, needs = [], [], set()
    formulas = node_cls.formulas
    for name, t in inputs:
        if t is not None and t.requires_grad:
            edges.append(t._gradient_edge())
            needs.update(formulas[name][1])
        else:
            edges.append((None, 0))
        meta.append((t.shape, t.dtype) if t is not None else None)
    node.next_functions = tuple(edges)
    node._input_meta = tuple(meta)
    for name in needs:
        if name == "result":
            node._saved[name] = SavedTensor(Tensor._make(out._data, out._version_counter),
                                            producer=node, is_output=True)
            continue
        for input_name, t in inputs:
            if input_name == name:
                node._saved[name] = SavedTensor(t)
                break
        else:
            node._params[name] = params[name]
    out.grad_fn = node
    return out


def _tensor(x, dtype=None):
    """Tensors pass through; numbers and arrays become (constant) tensors."""
    if isinstance(x, Tensor):
        return x
    from .creation import tensor
    return tensor(x, dtype=dtype)


def _promote(a, b):
    """Operands of a binary op as two tensors of the common dtype (PyTorch's rules)."""
    dtype = _dt.result_type(a, b)
    return _cast_operand(a, dtype), _cast_operand(b, dtype), dtype


def _cast_operand(x, dtype):
    if isinstance(x, Tensor):
        if x.dtype is dtype:
            return x
        return Tensor._make(x._data.astype(dtype.numpy)) if not x.requires_grad else x.to(dtype)
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        return Tensor._make(np.asarray(x, dtype=dtype.numpy))
    return _tensor(x).to(dtype)


def _np(fn, *args, **kwargs):
    """Run a NumPy function without letting its floating-point warnings reach the user:
    like PyTorch, inf and nan are results, not warnings."""
    with np.errstate(all="ignore"):
        return fn(*args, **kwargs)


def _float_dtype(t):
    """Integer inputs of exp, log, ... compute in the default float dtype, as in PyTorch."""
    return t.dtype if t.dtype.is_floating_point else _dt.get_default_dtype()


def _floating(t):
    dtype = _float_dtype(t)
    return t if t.dtype is dtype else t.to(dtype)


# ======================================================================
# Arithmetic
# ======================================================================

def add(input, other, *, alpha=1):
    a, b, _ = _promote(input, other)
    bd = b._data if alpha == 1 else b._data * alpha
    return _record("AddBackward0", _np(np.add, a._data, bd), [("self", a), ("other", b)],
                   {"alpha": alpha})


def sub(input, other, *, alpha=1):
    if _dt.result_type(input, other) is _dt.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    a, b, _ = _promote(input, other)
    bd = b._data if alpha == 1 else b._data * alpha
    return _record("SubBackward0", _np(np.subtract, a._data, bd), [("self", a), ("other", b)],
                   {"alpha": alpha})


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` for a number ``other`` (what ``2 - x`` calls)."""
    a, b, _ = _promote(input, other)
    ad = a._data if alpha == 1 else a._data * alpha
    return _record("RsubBackward1", _np(np.subtract, b._data, ad), [("self", a)], {"alpha": alpha})


def mul(input, other):
    a, b, _ = _promote(input, other)
    return _record("MulBackward0", _np(np.multiply, a._data, b._data), [("self", a), ("other", b)])


def div(input, other):
    dtype = _dt.result_type(input, other)
    if not dtype.is_floating_point:                       # true division, as Python's /
        dtype = _dt.get_default_dtype()
    a, b = _cast_operand(input, dtype), _cast_operand(other, dtype)
    return _record("DivBackward0", _np(np.true_divide, a._data, b._data), [("self", a), ("other", b)])


def neg(input):
    input = _tensor(input)
    if input.dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return _record("NegBackward0", np.negative(input._data), [("self", input)])


def reciprocal(input):
    input = _floating(_tensor(input))
    return _record("ReciprocalBackward0", _np(np.reciprocal, input._data), [("self", input)])


def pow(input, exponent):
    """``input ** exponent``; either side may be a number (not both)."""
    if not isinstance(input, Tensor):                 # number ** tensor
        exponent = _tensor(exponent)
        dtype = _dt.result_type(input, exponent)
        e = _cast_operand(exponent, dtype)
        base = input
        array = _np(np.power, np.asarray(base, dtype=dtype.numpy), e._data)
        return _record("PowBackward2", array, [("exponent", e)], {"base": base})
    if isinstance(exponent, Tensor):                  # tensor ** tensor
        a, e, dtype = _promote(input, exponent)
        _check_int_pow(dtype, e._data)
        return _record("PowBackward1", _np(np.power, a._data, e._data),
                       [("self", a), ("exponent", e)])
    dtype = _dt.result_type(input, exponent)          # tensor ** number
    a = _cast_operand(input, dtype)
    _check_int_pow(dtype, np.asarray(exponent))
    array = _np(np.power, a._data, np.asarray(exponent, dtype=dtype.numpy))
    return _record("PowBackward0", array, [("self", a)], {"exponent": exponent})


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

def _unary(node_name, np_fn, input, promote=True):
    input = _tensor(input)
    if promote:
        input = _floating(input)
    return _record(node_name, _np(np_fn, input._data), [("self", input)])


def exp(input):
    return _unary("ExpBackward0", np.exp, input)


def log(input):
    return _unary("LogBackward0", np.log, input)


def sqrt(input):
    return _unary("SqrtBackward0", np.sqrt, input)


def tanh(input):
    return _unary("TanhBackward0", np.tanh, input)


def sin(input):
    return _unary("SinBackward0", np.sin, input)


def cos(input):
    return _unary("CosBackward0", np.cos, input)


def _np_sigmoid(x):
    # Stable for large |x|: exp of a non-positive number never overflows.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def sigmoid(input):
    return _unary("SigmoidBackward0", _np_sigmoid, input)


def relu(input):
    input = _tensor(input)
    return _record("ReluBackward0", np.maximum(input._data, 0).astype(input._data.dtype, copy=False),
                   [("self", input)])


def abs(input):
    return _unary("AbsBackward0", np.abs, input, promote=False)


def sign(input):
    """-1, 0 or 1 (no gradient flows through it)."""
    input = _tensor(input)
    return Tensor._make(np.sign(input._data))


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    input = _tensor(input)
    array = input._data
    if min is not None:
        array = np.maximum(array, np.asarray(min, dtype=array.dtype))
    if max is not None:
        array = np.minimum(array, np.asarray(max, dtype=array.dtype))
    return _record("ClampBackward1", np.array(array, copy=True), [("self", input)],
                   {"min": min, "max": max})


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
    return _record("MaximumBackward0", np.maximum(a._data, b._data), [("self", a), ("other", b)])


def minimum(input, other):
    a, b, _ = _promote(input, other)
    return _record("MinimumBackward0", np.minimum(a._data, b._data), [("self", a), ("other", b)])


def where(condition, input, other):
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed)."""
    condition = _tensor(condition)
    if condition.dtype is not _dt.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype.name.capitalize()}")
    a, b, _ = _promote(input, other)
    array = np.where(condition._data, a._data, b._data)
    return _record("WhereBackward0", array, [("self", a), ("other", b)], {"condition": condition})


def _compare(np_fn):
    def compare(input, other):
        a, b, _ = _promote(input, other)
        return Tensor._make(np.asarray(np_fn(a._data, b._data)))
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
            raise TypeError(f"{name} is only supported for integer and boolean tensors")
        return Tensor._make(np.asarray(np_fn(a._data, b._data)))
    return op


bitwise_and = _bitwise(np.bitwise_and, "&")
bitwise_or = _bitwise(np.bitwise_or, "|")
bitwise_xor = _bitwise(np.bitwise_xor, "^")


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
    return _record("ToCopyBackward0", input._data.astype(dtype.numpy), [("self", input)])


def clone(input):
    """A copy with its own storage; gradients flow through it unchanged."""
    return _record("CloneBackward0", np.array(input._data, copy=True), [("self", input)])


def contiguous(input):
    return input if input._data.flags.c_contiguous else clone(input)


def copy_of(t):
    """A fresh copy recorded like PyTorch's ``empty_like(t).copy_(t)``."""
    from .creation import zeros_like
    return zeros_like(t).copy_(t)


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
        raise RuntimeError("dim appears multiple times in the list of dims")
    return dims


def _sum_dtype(t):
    return t.dtype if t.dtype.is_floating_point else _dt.int64


def sum(input, dim=None, keepdim=False, *, dtype=None):
    input = _tensor(input)
    out_dtype = _dt.as_dtype(dtype) or _sum_dtype(input)
    if dim is None:
        array = np.sum(input._data, dtype=out_dtype.numpy)
        return _record("SumBackward0", array, [("self", input)], {"self_shape": input.shape})
    dims = _dims(dim, input.ndim) if input.ndim else ()
    array = np.sum(input._data, axis=dims, keepdims=keepdim, dtype=out_dtype.numpy)
    return _record("SumBackward1", array, [("self", input)],
                   {"self_shape": input.shape, "dim": dims, "keepdim": keepdim})


def mean(input, dim=None, keepdim=False, *, dtype=None):
    input = _tensor(input)
    out_dtype = _dt.as_dtype(dtype) or input.dtype
    if not out_dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_dt.LEGACY_NAMES[out_dtype.name][:-6]}")
    if dim is None:
        array = _np(np.mean, input._data, dtype=out_dtype.numpy)
        return _record("MeanBackward0", np.asarray(array, dtype=out_dtype.numpy), [("self", input)],
                       {"self_shape": input.shape})
    dims = _dims(dim, input.ndim) if input.ndim else ()
    array = _np(np.mean, input._data, axis=dims, keepdims=keepdim, dtype=out_dtype.numpy)
    return _record("MeanBackward1", np.asarray(array, dtype=out_dtype.numpy), [("self", input)],
                   {"self_shape": input.shape, "dim": dims, "keepdim": keepdim})


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
        node = "MaxBackward1" if kind == "max" else "MinBackward1"
        return _record(node, np_fn(input._data), [("self", input)])
    d = _wrap_dim(dim, input.ndim)
    data = input._data if input.ndim else input._data.reshape(1)
    indices = np.asarray(arg_fn(data, axis=d if input.ndim else 0, keepdims=keepdim), dtype=np.int64)
    values = np.take_along_axis(data, indices if keepdim else np.expand_dims(indices, d), axis=d)
    if not keepdim and input.ndim:
        values = np.squeeze(values, axis=d)
    if not input.ndim:
        values, indices = values.reshape(()), indices.reshape(())
    indices_t = Tensor._make(indices)
    node = "MaxBackward0" if kind == "max" else "MinBackward0"
    values_t = _record(node, values, [("self", input)],
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


def _amax_amin(input, dim, keepdim, node, np_fn):
    input = _tensor(input)
    dims = _dims(dim if dim not in ((), []) else None, input.ndim) if input.ndim else ()
    array = np_fn(input._data, axis=dims, keepdims=keepdim)
    return _record(node, array, [("self", input)], {"dim": dims, "keepdim": keepdim})


def amax(input, dim=(), keepdim=False):
    return _amax_amin(input, dim, keepdim, "AmaxBackward0", np.max)


def amin(input, dim=(), keepdim=False):
    return _amax_amin(input, dim, keepdim, "AminBackward0", np.min)


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


def evenly_distribute(grad, mask):
    """Share ``grad`` equally among the positions where ``mask`` is True."""
    count = int(mask._data.sum())
    return mask * (grad / count)


def share_among_ties(grad, self, result, dims, keepdim):
    """amax/amin backward: each tied extreme gets an equal share of its gradient."""
    result = restore_reduced_dims(result, dims, keepdim)
    mask = self == result
    count = Tensor._make(mask._data.sum(axis=dims, keepdims=True).astype(grad._data.dtype))
    return restore_reduced_dims(grad, dims, keepdim) / count * mask


def scatter_into_zeros(grad, self_shape, dim, keepdim, indices):
    """max(dim)/min(dim) backward: the gradient goes to the chosen index only."""
    if not keepdim and len(self_shape):
        grad = grad.unsqueeze(dim)
        indices = Tensor._make(np.expand_dims(indices._data, dim))
    if not len(self_shape):
        return grad
    grid = list(np.indices(indices.shape, sparse=True))
    grid[dim] = indices._data
    return embed_in_zeros(grad, self_shape, tuple(grid), accumulate=False, node="IndexPutBackward0")


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: undo broadcasting (leading dims, and dims of size 1)."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and grad.shape[i + lead] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead or grad.shape != shape:
        grad = grad.reshape(shape)
    return grad


def is_expandable_to(shape, desired):
    """True when a tensor of ``shape`` broadcasts to ``desired``."""
    if len(shape) > len(desired):
        return False
    for s, d in zip(reversed(shape), reversed(desired)):
        if s != 1 and s != d:
            return False
    return True


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
    return _record("ViewBackward0", array, [("self", input)], {"self_shape": input.shape},
                   view_of=input)


def reshape(input, *shape):
    """A view when the memory layout allows it, otherwise a copy (like PyTorch)."""
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if _view_array(input._data, shape) is not None:
        return view(input, shape)
    return _unsafe_view(clone(input), shape)


def _unsafe_view(input, shape):
    return _record("UnsafeViewBackward0", input._data.reshape(shape), [("self", input)],
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
    return _record("TransposeBackward0", array, [("self", input)], {"dim0": d0, "dim1": d1},
                   view_of=input)


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return _record("TBackward0", input._data.T, [("self", input)], view_of=input)


def permute(input, *dims):
    dims = tuple(_wrap_dim(d, input.ndim) for d in _shape_arg(dims))
    if sorted(dims) != list(range(input.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. input.dim() "
                           f"= {input.ndim} is not equal to len(dims) = {len(dims)}"
                           if len(dims) != input.ndim else "permute(): duplicate dims are not allowed.")
    return _record("PermuteBackward0", np.transpose(input._data, dims), [("self", input)],
                   {"dims": dims}, view_of=input)


def inverse_permutation(dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return tuple(inverse)


def squeeze(input, dim=None):
    shape = input.shape
    if dim is None:
        node, dims = "SqueezeBackward0", tuple(i for i, s in enumerate(shape) if s == 1)
    elif isinstance(dim, (tuple, list)):
        node, dims = "SqueezeBackward2", tuple(d for d in _dims(dim, input.ndim) if shape[d] == 1) if input.ndim else ()
    else:
        d = _wrap_dim(dim, input.ndim)
        node, dims = "SqueezeBackward1", ((d,) if input.ndim and shape[d] == 1 else ())
    array = np.squeeze(input._data, axis=dims) if dims else input._data.view()
    return _record(node, array, [("self", input)], {"self_shape": shape}, view_of=input)


def unsqueeze(input, dim):
    d = _wrap_dim(dim, input.ndim + 1)
    return _record("UnsqueezeBackward0", np.expand_dims(input._data, d), [("self", input)],
                   {"dim": d}, view_of=input)


def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(input.shape)}}}, size={list(sizes)}): the "
                           "number of sizes provided must be greater or equal to the number of "
                           "dimensions in the tensor")
    lead = len(sizes) - input.ndim
    target = []
    for i, s in enumerate(sizes):
        own = input.shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   "non-existing dimension")
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({own}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}."
                               f"  Tensor sizes: {list(input.shape)}")
        target.append(s)
    array = np.broadcast_to(input._data, tuple(target))
    return _record("ExpandBackward0", array, [("self", input)], {"self_shape": input.shape},
                   view_of=input)


def expand_as(input, other):
    return expand(input, other.shape)


def broadcast_to(input, shape):
    return expand(input, shape)


def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    tensors = [_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    tensors = [_cast_operand(t, dtype) for t in tensors]
    d = _wrap_dim(dim, tensors[0].ndim)
    out = np.concatenate([t._data for t in tensors], axis=d)
    return _record_join("CatBackward0", out, tensors, d, [t.shape[d] for t in tensors])


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dim."""
    tensors = [_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return cat([unsqueeze(t, dim) for t in tensors], dim)


def _record_join(node_name, array, tensors, dim, sizes):
    # Registered on the fly: one input per joined tensor, each taking its slice back.
    name = f"{node_name}_{len(tensors)}"
    if name not in NODES:
        formulas = {}
        for i in range(len(tensors)):
            formulas[f"tensors{i}"] = (lambda i: lambda grad, dim, offsets: grad[
                dim_key(dim, slice(offsets[i], offsets[i + 1]))])(i)
        cls = rule(node_name, **formulas)
        NODES[node_name] = cls
        NODES[name] = cls
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + s)
    return _record(name, array, [(f"tensors{i}", t) for i, t in enumerate(tensors)],
                   {"dim": dim, "offsets": offsets})


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
            return _record("AliasBackward0", input._data.view(), [("self", input)], view_of=input)
        if isinstance(key, slice):                      # a lone slice is always recorded
            return _slice(input, 0, key)
        key = (key,)
    key = tuple(np.asarray(k) if isinstance(k, (bool, np.bool_)) else k for k in key)
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
            out = _record("SelectBackward0", out._data[dim_key(dim, int(k))], [("self", out)],
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
        return _record("IndexBackward0", out._data[index], [("self", out)],
                       {"self_shape": out.shape, "indices": index})
    return out


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
    return _record("SliceBackward0", input._data[dim_key(dim, slice(start, stop, step))],
                   [("self", input)],
                   {"self_shape": input.shape, "dim": dim, "start": start, "end": stop, "step": step},
                   view_of=input)


_EMBED_NODE = {"SelectBackward0": "SelectBackwardBackward0"}


def embed_in_zeros(grad, shape, key, accumulate=False, node=None):
    """A zero tensor of ``shape`` with ``grad`` written (or, with repeated
    indices, added) at ``key``: the backward of reading ``x[key]``."""
    array = np.zeros(shape, dtype=grad._data.dtype)
    if accumulate:
        np.add.at(array, key, grad._data)
    else:
        array[key] = grad._data
    name = node or ("IndexPutBackward0" if accumulate else "SliceBackwardBackward0")
    return _record(name, array, [("self", grad)], {"key": key})


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
    """``t[key] = value``: an in-place write, recorded as PyTorch's CopySlices."""
    np_key = _setitem_key(input, key)

    def write(self, value):
        src = _cast_operand(value, self.dtype) if isinstance(value, Tensor) else \
            Tensor._make(np.asarray(value, dtype=self.dtype.numpy))
        array = np.array(self._data, copy=True)
        array[np_key] = src._data
        return _record("CopySlices", array, [("self", self), ("src", src)], {"key": np_key})
    _inplace(input, write, value)


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
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != "
                           f"{b.dtype.name}")
    return a, b


def mm(input, mat2):
    a, b = _matmul_operands(input, mat2)
    _check_mm(a, b, "mm")
    return _record("MmBackward0", a._data @ b._data, [("self", a), ("mat2", b)])


def mv(input, vec):
    a, v = _matmul_operands(input, vec)
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {v.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({v.shape[0]})")
    return _record("MvBackward0", a._data @ v._data, [("self", a), ("vec", v)])


def dot(input, tensor):
    a, b = _matmul_operands(input, tensor)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the "
                           "same number of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    return _record("DotBackward0", np.dot(a._data, b._data), [("self", a), ("tensor", b)])


def bmm(input, mat2):
    a, b = _matmul_operands(input, mat2)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return _record("BmmBackward0", np.matmul(a._data, b._data), [("self", a), ("mat2", b)])


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``: what ``nn.Linear`` records for 2-D inputs."""
    input, m1 = _tensor(input), _tensor(mat1)
    m1, m2 = _matmul_operands(m1, mat2)
    _check_mm(m1, m2, "addmm")
    product = m1._data @ m2._data
    array = (product if alpha == 1 else alpha * product) + (input._data if beta == 1 else beta * input._data)
    return _record("AddmmBackward0", array.astype(m1._data.dtype, copy=False),
                   [("self", input), ("mat1", m1), ("mat2", m2)], {"alpha": alpha, "beta": beta})


def _mT(x):
    return transpose(x, -2, -1)


def _should_fold(t1, t2):
    """PyTorch's rule for folding a batched product into one mm/mv (avoiding bmm)."""
    t1_larger = t1.ndim >= t2.ndim
    big = t1 if t1_larger else _mT_shape(t2)
    dim_big, dim_small = (t1.ndim, t2.ndim) if t1_larger else (t2.ndim, t1.ndim)
    if not (dim_big >= 3 and dim_small <= 2):
        return False
    small_requires_grad = t2.requires_grad if t1_larger else t1.requires_grad
    if small_requires_grad and is_grad_enabled():
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
        return _record("SqueezeBackward4", product._data[0], [("self", product)],
                       {"self_shape": product.shape}, view_of=product)
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
    if m1 != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{math.prod(t1.shape[:-2])}, {m1}] but got: [{math.prod(t2.shape[:-2])}, {m2}].")
    batch1, batch2 = t1.shape[:_builtins.max(d1 - 2, 0)], t2.shape[:_builtins.max(d2 - 2, 0)]
    try:
        batch = np.broadcast_shapes(batch1, batch2)
    except ValueError:
        raise RuntimeError(f"The size of tensor a must match the size of tensor b at non-singleton "
                           f"dimension (batch shapes {list(batch1)} and {list(batch2)})") from None
    count = math.prod(batch)
    a = reshape(expand(t1 if d1 > 1 else unsqueeze(t1, 0), batch + (n, m1)), (count, n, m1))
    b = reshape(expand(t2 if d2 > 1 else unsqueeze(t2, 1), batch + (m2, p)), (count, m2, p))
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    return _unsafe_view(bmm(a, b), out_shape)


# ======================================================================
# Softmax and losses
# ======================================================================

def softmax(input, dim, dtype=None):
    input = _floating(_tensor(input)) if dtype is None else _tensor(input).to(dtype)
    d = _wrap_dim(dim, input.ndim)
    shifted = input._data - np.max(input._data, axis=d, keepdims=True)
    e = _np(np.exp, shifted)
    return _record("SoftmaxBackward0", e / e.sum(axis=d, keepdims=True), [("self", input)], {"dim": d})


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)``, computed stably: the max is subtracted before exp."""
    input = _floating(_tensor(input)) if dtype is None else _tensor(input).to(dtype)
    d = _wrap_dim(dim, input.ndim)
    shifted = input._data - np.max(input._data, axis=d, keepdims=True)
    array = shifted - _np(np.log, _np(np.exp, shifted).sum(axis=d, keepdims=True))
    return _record("LogSoftmaxBackward0", array, [("self", input)], {"dim": d})


_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of ``target`` classes under log-probabilities ``input`` (N, C)."""
    _check_reduction(reduction)
    input, target = _tensor(input), _tensor(target)
    if target.dtype.is_floating_point or target.dtype is _dt.bool:
        raise RuntimeError(f"expected scalar type Long but found {_dt.LEGACY_NAMES[target.dtype.name][:-6]}")
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
    return _record("NllLossBackward0", np.asarray(array, dtype=logp.dtype), [("self", input)], params)


def nll_loss_backward(grad, self_shape, target, weight, reduction, ignore_index, total_weight):
    """The gradient of nll_loss: ``-weight[target]`` at each target position, scaled."""
    tgt = target._data.reshape(-1)
    valid = tgt != ignore_index
    safe = np.where(valid, tgt, 0)
    rows = np.arange(len(tgt))
    scale = np.where(valid, -weight[safe], 0).astype(weight.dtype)
    if reduction == "mean":
        scale = _np(np.divide, scale, total_weight).astype(weight.dtype)
    coeff = np.zeros((len(tgt), self_shape[-1]), dtype=weight.dtype)
    coeff[rows, safe] = scale
    coeff = Tensor._make(coeff.reshape(self_shape))
    if reduction == "none" and len(self_shape) == 2:
        return coeff * grad.unsqueeze(1)
    return coeff * grad


def mse_loss(input, target, reduction="mean"):
    _check_reduction(reduction)
    a, b, _ = _promote(input, target)
    diff = (a._data - b._data) ** 2
    array = diff if reduction == "none" else (diff.sum() if reduction == "sum" else diff.mean())
    return _record("MseLossBackward0", np.asarray(array, dtype=diff.dtype),
                   [("self", a), ("target", b)], {"reduction": reduction})


def mse_loss_backward(grad, self, target, reduction):
    count = math.prod(np.broadcast_shapes(self.shape, target.shape))
    scale = 2.0 / count if reduction == "mean" else 2.0
    return (self - target) * (grad * scale)


# ======================================================================
# In-place operations
# ======================================================================

def _check_inplace(t):
    """PyTorch's rules for writing into a tensor while recording."""
    if not is_grad_enabled():
        return
    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _inplace(self, out_of_place, *args):
    """Run ``out_of_place(self, *args)``, write the result into ``self``'s storage,
    bump the version counter and, when recording, make the new node ``self``'s history.

    The node's inputs point at ``self``'s *old* history: an in-place op is the
    out-of-place op plus a rewrite of which node produced ``self``.
    """
    _check_inplace(self)
    recording = is_grad_enabled() and (self.requires_grad or _builtins.any(
        isinstance(a, Tensor) and a.requires_grad for a in args))
    if not recording:
        with no_grad():
            result = out_of_place(self, *args)
        _write(self, result)
        return self
    if self._base is not None:
        raise NotImplementedError(
            "autograd_lib does not record in-place operations on views of tensors that require grad "
            "(PyTorch rewrites the base's history with CopySlices); apply the operation to the base "
            "tensor, or use the out-of-place version")
    before = Tensor._make(np.array(self._data, copy=True))     # the old values, for formulas
    before.grad_fn, before._output_nr = self.grad_fn, self._output_nr
    before._requires_grad, before._accumulator = self._requires_grad, self._accumulator
    result = out_of_place(before, *args)
    _write(self, result)
    node = result.grad_fn
    if node is not None:
        if "result" in node._saved:                 # the saved output is now self
            node._saved["result"] = SavedTensor(Tensor._make(self._data, self._version_counter),
                                                producer=node, is_output=True)
        _move_retain_grad(self, node)
        self.grad_fn, self._output_nr = node, result._output_nr
    return self


def _write(self, result):
    if result.dtype is not self.dtype and _dt.promote_types(result.dtype, self.dtype) is not self.dtype:
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
    self._version_counter.value += 1


def _move_retain_grad(self, node):
    if self._retains_grad and self.grad_fn is not None and self.grad_fn._retains_grad:
        self.grad_fn._retains_grad.pop(self._output_nr, None)
        if node._retains_grad is None:
            node._retains_grad = {}
        node._retains_grad[0] = weakref.ref(self)


def add_(self, other, *, alpha=1):
    return _inplace(self, lambda s, o: add(s, o, alpha=alpha), other)


def sub_(self, other, *, alpha=1):
    return _inplace(self, lambda s, o: sub(s, o, alpha=alpha), other)


def mul_(self, other):
    return _inplace(self, mul, other)


def div_(self, other):
    return _inplace(self, div, other)


def clamp_(self, min=None, max=None):
    return _inplace(self, lambda s: clamp(s, min, max))


def zero_(self):
    return _inplace(self, lambda s: _record("ZeroBackward0", np.zeros_like(s._data), [("self", s)]))


def fill_(self, value):
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.item()
    return _inplace(self, lambda s: _record("FillBackward2", np.full_like(s._data, value), [("self", s)]))


def copy_(self, src):
    src = _tensor(src)

    def copy(s, src):
        array = np.array(np.broadcast_to(src._data, s.shape), dtype=s._data.dtype, copy=True)
        return _record("CopyBackwards", array, [("self", s), ("src", src)])
    return _inplace(self, copy, src)


# ======================================================================
# Tensor methods and operators
# ======================================================================

def _reflected(fn):
    return lambda self, other: fn(other, self)


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
        "clone": clone, "to": to, "matmul": matmul, "mm": mm, "mv": mv, "dot": dot, "bmm": bmm,
        "softmax": softmax, "log_softmax": log_softmax,
        "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "clamp_": clamp_,
        "zero_": zero_, "fill_": fill_, "copy_": copy_,
        "__add__": add, "__radd__": _reflected(add), "__sub__": sub, "__rsub__": rsub,
        "__mul__": mul, "__rmul__": _reflected(mul), "__truediv__": div,
        "__rtruediv__": lambda self, other: mul(reciprocal(self), other),
        "__pow__": pow, "__rpow__": _reflected(pow), "__matmul__": matmul,
        "__rmatmul__": _reflected(matmul), "__neg__": neg, "__abs__": abs,
        "__eq__": eq, "__ne__": ne, "__lt__": lt, "__le__": le, "__gt__": gt, "__ge__": ge,
        "__and__": bitwise_and, "__or__": bitwise_or, "__xor__": bitwise_xor,
        "__rand__": _reflected(bitwise_and), "__ror__": _reflected(bitwise_or),
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
    Tensor.T = property(lambda self: self if self.ndim < 2 else permute(self, tuple(range(self.ndim))[::-1]))
    Tensor.mT = property(_mT)


_install_methods()

from .derivatives import NODES, rule  # noqa: E402  (rules refer back to this module)
