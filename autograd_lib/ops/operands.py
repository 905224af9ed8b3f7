"""Operands: what every op does with its arguments before computing.

* :func:`to_tensor`: a number or an array becomes a constant tensor;
* :func:`promote`, :func:`cast_operand`: the operands of a binary op get their
  common dtype by PyTorch's promotion rules (``dtypes.result_type``);
* :func:`floating`: integer inputs of ``exp``, ``log``, ... compute in the
  default float dtype;
* :func:`quietly`: run a NumPy function the way PyTorch computes, where ``inf``
  and ``nan`` are results, not warnings, and shapes that don't broadcast raise
  PyTorch's error;
* :func:`wrap_dims`: a ``dim`` argument (None, an int or several) as a sorted tuple;
* :func:`gradient_op`: an op that computes a gradient (PyTorch's ``tanh_backward``,
  ``_softmax_backward_data``, ...) from ``grad_output`` and a forward value;
* :func:`reflected`, :func:`commuted`: the operators Python calls with the
  tensor on the right (``2 * x``, ``2 ** x``); :func:`as_method`: a function as a Tensor
  method, its argument errors counted as PyTorch counts a method's.
"""

import re

import numpy as np

from .. import creation
from .. import dtypes as _dt
from ..broadcasting import broadcast_error
from ..recording import record
from ..tensor import Tensor, _wrap_dim

__all__ = ["to_tensor", "promote", "cast_operand", "floating", "float_dtype", "quietly",
           "gradient_op", "wrap_dims", "reflected", "commuted", "as_method"]


def to_tensor(x, dtype=None):
    """Tensors pass through; numbers and arrays become (constant) tensors."""
    if isinstance(x, Tensor):
        return x
    return creation.tensor(x, dtype=dtype)


def promote(a, b):
    """Operands of a binary op as two tensors of the common dtype (PyTorch's rules)."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            if a._data.dtype is b._data.dtype:                    # fast path: same dtype
                return a, b, a.dtype
        elif type(b) is float and a._data.dtype.kind == "f":     # fast path: x * 2.5
            wrapped = Tensor._make(np.asarray(b, dtype=a._data.dtype))
            wrapped._wrapped_number = b
            return a, wrapped, a.dtype
    dtype = _dt.result_type(a, b)
    return cast_operand(a, dtype), cast_operand(b, dtype), dtype


def cast_operand(x, dtype):
    """``x`` (a tensor or a number) as a tensor of ``dtype``."""
    if isinstance(x, Tensor):
        if x.dtype is dtype:
            return x
        # PyTorch promotes inside the kernel, without a ToCopy node: the op computes
        # with the cast values, but records and saves the original tensor ``x`` (see
        # recording.record); the engine casts the gradient back to x's dtype.
        cast = Tensor._make(x._data.astype(dtype.numpy))
        cast._promoted_from = x
        return cast
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        wrapped = Tensor._make(np.asarray(x, dtype=dtype.numpy))
        wrapped._wrapped_number = x         # a saved one shows its own type (grad_fn._saved_other)
        return wrapped
    return to_tensor(x).to(dtype)


try:        # NumPy >= 2: switch its floating-point error mode through its context variable
    from numpy._core.umath import _extobj_contextvar, _make_extobj
    _IGNORE_ERRORS = _make_extobj(all="ignore")

    def quietly(fn, *args, **kwargs):
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
    def quietly(fn, *args, **kwargs):
        with np.errstate(all="ignore"):
            try:
                return fn(*args, **kwargs)
            except ValueError as e:
                raise broadcast_error(e, args) from None


def float_dtype(t):
    """Integer inputs of exp, log, ... compute in the default float dtype, as in PyTorch."""
    return t.dtype if t.dtype.is_floating_point else _dt.get_default_dtype()


def floating(t):
    """``t`` in its float dtype (see :func:`float_dtype`)."""
    if t._data.dtype.kind == "f":          # already floating (the common case): no dtype lookup
        return t
    dtype = float_dtype(t)
    return t if t.dtype is dtype else t.to(dtype)


def gradient_op(op, fn, grad_output, output, params=None):
    """Record op ``op``, computed as ``fn(grad_output, output)`` on the arrays, in
    ``grad_output``'s dtype: the form of PyTorch's ``tanh_backward`` and its kin."""
    array = quietly(fn, grad_output._data, output._data).astype(grad_output._data.dtype, copy=False)
    return record(op, array, (grad_output, output), params)


def wrap_dims(dim, ndim):
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


def reflected(fn):
    """``other OP self`` for a non-commutative op (``2 ** x``, ``a @ x``)."""
    return lambda self, other: fn(other, self)


def as_method(fn):
    """``fn`` as a Tensor method: PyTorch counts a method's arguments without ``self``, so a
    TypeError about an argument names it one place earlier than the function's does."""
    def method(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as error:
            raise TypeError(re.sub(r"(\(position |in argument )(\d+)", lambda m: f"{m[1]}{int(m[2]) - 1}",
                                   str(error))) from None
    method.__name__, method.__doc__ = fn.__name__, fn.__doc__
    return method


def commuted(fn):
    """``other OP self`` for a commutative op: PyTorch computes ``self OP other``, so the
    tensor stays the first input (``next_functions`` order of ``2 * x`` is x's first)."""
    return lambda self, other: fn(self, other)
