"""Arithmetic: ``+ - * /``, negation, reciprocal and powers.

Each op computes with NumPy on operands of their common dtype
(``operands.promote``) and records itself under PyTorch's name for the
overload that ran: ``x * y`` is ``mul.Tensor`` (MulBackward0), while the
``mul.Scalar`` of a tensor by a plain number (MulBackward1) is what gradient
formulas use (:func:`mul_scalar`), as in PyTorch.  Each op's Tensor methods and
operators are installed right below it.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor
from .operands import cast_operand, commuted, floating, promote, quietly, reflected, to_tensor
from ..op_table import methods, op

__all__ = ["add", "sub", "rsub", "mul", "div", "floor_divide", "neg", "reciprocal", "pow",
           "mul_scalar", "div_scalar", "sub_scalar", "add_scalar"]


def _check_alpha(a, b, alpha):
    if alpha != 1 and isinstance(alpha, float) and not _dt.result_type(a, b).is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


@op("add", "__add__", public=True, inplace="add_")
def add(input, other, *, alpha=1):
    if alpha != 1:
        _check_alpha(input, other, alpha)
    a, b, _ = promote(input, other)
    bd = b._data if alpha == 1 else b._data * alpha
    return record("add.Tensor", quietly(np.add, a._data, bd), (a, b), {"alpha": alpha})


methods(__radd__=commuted(add))


@op("sub", "__sub__", public=("sub", "subtract"), inplace="sub_")
def sub(input, other, *, alpha=1):
    if _dt.result_type(input, other) is _dt.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    _check_alpha(input, other, alpha)
    a, b, _ = promote(input, other)
    bd = b._data if alpha == 1 else b._data * alpha
    return record("sub.Tensor", quietly(np.subtract, a._data, bd), (a, b), {"alpha": alpha})


@op("__rsub__", public=True)
def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` for a number ``other`` (what ``2 - x`` calls)."""
    a, b, _ = promote(input, other)
    ad = a._data if alpha == 1 else a._data * alpha
    return record("rsub.Scalar", quietly(np.subtract, b._data, ad), (a,), {"alpha": alpha})


@op("mul", "__mul__", public=("mul", "multiply"), inplace="mul_")
def mul(input, other):
    a, b, _ = promote(input, other)
    return record("mul.Tensor", quietly(np.multiply, a._data, b._data), (a, b))


methods(__rmul__=commuted(mul))


@op("div", "__truediv__", public=("div", "divide", "true_divide"), inplace="div_")
def div(input, other, *, rounding_mode=None):
    """``input / other``; with ``rounding_mode`` "trunc" or "floor" the quotient is
    rounded (and integer inputs stay integers): a node of its own, DivBackward2/3."""
    if rounding_mode is not None:
        return _rounded_div(input, other, rounding_mode)
    dtype = _dt.result_type(input, other)
    if not dtype.is_floating_point:                       # true division, as Python's /
        dtype = _dt.get_default_dtype()
    a, b = cast_operand(input, dtype), cast_operand(other, dtype)
    return record("div.Tensor", quietly(np.true_divide, a._data, b._data), (a, b))


def _rounded_div(input, other, rounding_mode):
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")
    a, b, dtype = promote(input, other)
    if not dtype.is_floating_point and np.any(b._data == 0):
        raise RuntimeError("ZeroDivisionError")
    array = quietly(_np_rounded_quotient, a._data, b._data, rounding_mode)
    # A number divisor is wrapped in a tensor (promote), as PyTorch's Python binding does:
    # DivBackward2 either way (div.Scalar_mode, DivBackward3, is only reached from C++).
    return record("div.Tensor_mode", array, (a, b), {"rounding_mode": rounding_mode})


def _np_rounded_quotient(a, b, mode):
    if mode == "floor":
        return np.floor_divide(a, b)
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    q = np.floor_divide(a, b)                       # integers: floor, then toward zero
    return q + ((q < 0) & (q * b != a))


@op("floor_divide", "__floordiv__", public=True)
def floor_divide(input, other):
    """``x // y``: the quotient rounded down.  PyTorch has no derivative for it: a result
    that requires grad gets a node, NotImplemented, whose backward refuses."""
    a, b, dtype = promote(input, other)
    if not dtype.is_floating_point and np.any(b._data == 0):
        raise RuntimeError("ZeroDivisionError")
    needing = tuple(t for t in (a, b) if t.requires_grad)     # PyTorch's node has only these
    return record("floor_divide", quietly(np.floor_divide, a._data, b._data), needing or (a,))


methods(__rfloordiv__=reflected(floor_divide))


@op("neg", "__neg__", public=True, inplace="neg_")
def neg(input):
    input = to_tensor(input)
    if input.dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return record("neg", np.negative(input._data), (input,))


@op("reciprocal", public=True, inplace="reciprocal_")
def reciprocal(input):
    input = floating(to_tensor(input))
    return record("reciprocal", quietly(np.reciprocal, input._data), (input,))


methods(__rtruediv__=lambda self, other: mul(reciprocal(self), other))  # 2 / x


@op("pow", "__pow__", public=True, inplace="pow_")
def pow(input, exponent):
    """``input ** exponent``; either side may be a number (not both)."""
    if not isinstance(input, Tensor):                 # number ** tensor
        exponent = to_tensor(exponent)
        dtype = _dt.result_type(input, exponent)
        e = cast_operand(exponent, dtype)
        base = input
        array = quietly(np.power, np.asarray(base, dtype=dtype.numpy), e._data)
        return record("pow.Scalar", array, (e,), {"base": base})
    if isinstance(exponent, Tensor):                  # tensor ** tensor
        a, e, dtype = promote(input, exponent)
        _check_int_pow(dtype, e._data)
        return record("pow.Tensor_Tensor", quietly(np.power, a._data, e._data), (a, e))
    dtype = _dt.result_type(input, exponent)          # tensor ** number
    a = cast_operand(input, dtype)
    _check_int_pow(dtype, np.asarray(exponent))
    array = quietly(np.power, a._data, np.asarray(exponent, dtype=dtype.numpy))
    return record("pow.Tensor_Scalar", array, (a,), {"exponent": exponent})


methods(__rpow__=reflected(pow))


def _check_int_pow(dtype, exponent):
    if not dtype.is_floating_point and dtype is not _dt.bool and np.any(exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


# ------------------------------------------ with a plain number, in formulas
# PyTorch's gradient formulas multiply by numbers with ``mul.Scalar`` (and so on);
# with ``create_graph=True`` these appear in the graph of the gradient
# (MulBackward1, ...).  derivatives/ calls these so that our graphs are the same.

def mul_scalar(input, other):
    """``input * other`` for a number ``other`` (PyTorch's ``mul.Scalar``: MulBackward1)."""
    array = quietly(np.multiply, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("mul.Scalar", array, (input,), {"other": other})


def div_scalar(input, other):
    """``input / other`` for a number ``other`` (``div.Scalar``: DivBackward1)."""
    array = quietly(np.true_divide, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("div.Scalar", array, (input,), {"other": other})


def sub_scalar(input, other):
    """``input - other`` for a number ``other`` (``sub.Scalar``: SubBackward1)."""
    array = quietly(np.subtract, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("sub.Scalar", array, (input,))


def add_scalar(input, other):
    """``input + other`` for a number ``other`` (``add.Scalar``: AddBackward1)."""
    array = quietly(np.add, input._data, np.asarray(other, dtype=input._data.dtype))
    return record("add.Scalar", array, (input,))
