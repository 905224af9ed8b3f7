"""Pointwise functions: ``exp``, ``log``, ``tanh``, ``sigmoid``, ``relu``, ``clamp``,
``where``, ...

Each computes elementwise with NumPy and records itself.  Their gradients are
elementwise too (see ``derivatives/pointwise.py``).  Some of those gradients are ops of
their own in PyTorch, written here as well: ``tanh_backward``,
``sigmoid_backward`` and ``threshold_backward`` (relu's), each recorded when
backward runs with ``create_graph=True``, so that it can be differentiated again.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor
from .operands import cast_operand, floating, gradient_op, promote, quietly, to_tensor
from ..op_table import op

# sigmoid_backward is an exercise slot (05.sigmoid_backward): the library reaches it
# as pointwise.sigmoid_backward, so it is not re-exported by autograd_lib.ops.
__all__ = ["exp", "log", "sqrt", "tanh", "sin", "cos", "sigmoid", "relu", "abs", "sign", "sgn",
           "masked_fill", "clamp", "maximum", "minimum", "where", "tanh_backward",
           "threshold_backward"]


def _unary(op, np_fn, input, to_float=True):
    input = to_tensor(input)
    if to_float:
        input = floating(input)
    return record(op, quietly(np_fn, input._data), (input,))


@op("exp", public=True, inplace="exp_")
def exp(input):
    return _unary("exp", np.exp, input)


@op("log", public=True, inplace="log_")
def log(input):
    return _unary("log", np.log, input)


@op("sqrt", public=True, inplace="sqrt_")
def sqrt(input):
    return _unary("sqrt", np.sqrt, input)


@op("tanh", public=True, inplace="tanh_")
def tanh(input):
    return _unary("tanh", np.tanh, input)


@op("sin", public=True, inplace="sin_")
def sin(input):
    return _unary("sin", np.sin, input)


@op("cos", public=True, inplace="cos_")
def cos(input):
    return _unary("cos", np.cos, input)


def _np_sigmoid(x):
    # Stable for large |x|: exp of a non-positive number never overflows.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


@op("sigmoid", public=True, inplace="sigmoid_")
def sigmoid(input):
    return _unary("sigmoid", _np_sigmoid, input)


@op("relu", public=True, inplace="relu_")
def relu(input):
    input = to_tensor(input)
    return record("relu", np.maximum(input._data, 0).astype(input._data.dtype, copy=False),
                  (input,))


@op("abs", "__abs__", public=("abs", "absolute"), inplace="abs_")
def abs(input):
    return _unary("abs", np.abs, input, to_float=False)


@op("sign", public=True, inplace="sign_")
def sign(input):
    """-1, 0 or 1; its gradient is zero everywhere."""
    input = to_tensor(input)
    return record("sign", np.sign(input._data), (input,))


@op("sgn", public=True, inplace="sgn_")
def sgn(input):
    """``sign`` under the name PyTorch's gradient formulas use (``abs``'s backward)."""
    input = to_tensor(input)
    return record("sgn", np.sign(input._data), (input,))


@op("masked_fill", public=True, inplace="masked_fill_")
def masked_fill(input, mask, value):
    """``input`` with ``value`` where ``mask`` is True (a number, or a 0-dim tensor)."""
    input, mask = to_tensor(input), to_tensor(mask)
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_dt.C_TYPE_NAMES[mask.dtype.name]}")
    if isinstance(value, Tensor):
        if value.ndim != 0:         # torch broadcasts no value tensor, even one of one element
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        v = cast_operand(value, input.dtype)
        array = quietly(np.where, mask._data, v._data, input._data)
        return record("masked_fill.Tensor", array, (input, v), {"mask": mask})
    array = quietly(np.where, mask._data, np.asarray(value, dtype=input._data.dtype), input._data)
    return record("masked_fill.Scalar", array, (input,), {"mask": mask})


@op("clamp", "clip", public=("clamp", "clip"), inplace="clamp_")
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("autograd_lib.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(to_tensor(input), min, max)
    input = to_tensor(input)
    # As torch: number bounds take part in type promotion (an int tensor clamped to 3.5 is float).
    input = cast_operand(input, _dt.result_type(input, *(b for b in (min, max) if b is not None)))
    array = input._data
    if min is not None:
        array = np.maximum(array, np.asarray(min, dtype=array.dtype))
    if max is not None:
        array = np.minimum(array, np.asarray(max, dtype=array.dtype))
    return record("clamp", np.array(array, copy=True), (input,), {"min": min, "max": max})


def _clamp_tensor(input, min, max):
    """``clamp`` with tensor bounds: one ClampBackward0 node with three inputs."""
    if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
        raise TypeError("clamp() received an invalid combination of arguments: min and max must "
                        "be both Tensors (or None) or both numbers")
    dtype = _dt.result_type(*(t for t in (input, min, max) if t is not None))
    x, lo, hi = (None if t is None else cast_operand(t, dtype) for t in (input, min, max))
    array = x._data
    if lo is not None:
        array = quietly(np.maximum, array, lo._data)
    if hi is not None:
        array = quietly(np.minimum, array, hi._data)
    return record("clamp.Tensor", np.array(array, copy=True), (x, lo, hi))


@op("maximum", public=True)
def maximum(input, other):
    a, b, _ = promote(input, other)
    return record("maximum", quietly(np.maximum, a._data, b._data), (a, b))


@op("minimum", public=True)
def minimum(input, other):
    a, b, _ = promote(input, other)
    return record("minimum", quietly(np.minimum, a._data, b._data), (a, b))


@op(public=True)
def where(condition, input, other):
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed)."""
    condition = to_tensor(condition)
    if condition.dtype is not _dt.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_dt.LEGACY_NAMES[condition.dtype.name][:-6]}")
    a, b, _ = promote(input, other)
    array = quietly(np.where, condition._data, a._data, b._data)
    return record("where.self", array, (a, b), {"condition": condition})


# ----------------------------------------- gradients that are ops of their own

def tanh_backward(grad_output, output):
    """``grad_output * (1 - output**2)``: the gradient of tanh given its output."""
    return gradient_op("tanh_backward", lambda g, y: g * (1 - y * y), grad_output, output)


def sigmoid_backward(grad_output, output):
    """``grad_output * output * (1 - output)``: the gradient of sigmoid given its output.

    (Exercise 05.sigmoid_backward.)"""
    return gradient_op("sigmoid_backward", lambda g, y: g * ((1 - y) * y), grad_output, output)


def threshold_backward(grad_output, self, threshold):
    """``grad_output`` where ``self > threshold``, else 0 (relu's backward, given its output)."""
    return gradient_op("threshold_backward", lambda g, x: _threshold_mask(g, x > threshold),
                       grad_output, self, {"threshold": threshold})


def _threshold_mask(g, keep):
    """``g`` where ``keep``, else exactly 0 (even where g is inf or nan, as PyTorch):
    a multiply is ten times faster than np.where, and right whenever g is finite."""
    out = g * keep
    if not np.isfinite(g).all():
        out = np.where(keep, g, 0).astype(g.dtype, copy=False)
    return out
