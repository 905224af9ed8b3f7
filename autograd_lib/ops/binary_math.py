"""Pointwise functions of two or three inputs: ``atan2``, ``hypot``, ``logaddexp``,
``xlogy``, ``copysign``, ``fmod``, ``remainder``, ``float_power``, ``lerp``,
``addcmul``, ``addcdiv``, ``clamp_min``/``clamp_max``, ``heaviside``, ``ldexp``, their in-place
forms, and
the aliases PyTorch keeps for NumPy users (``subtract``, ``multiply``, ``greater``, ...).

As in ``arithmetic.py``, the operands get their common dtype
(``operands.promote``) and broadcast; a number operand picks PyTorch's ``Scalar``
overload, which has a node of its own (``fmod(x, 2)`` records FmodBackward0,
``fmod(x, y)`` FmodBackward1).  The gradient rules are in ``derivatives/special.py``.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor
from . import comparison as _cmp
from .arithmetic import div, mul, pow, sub
from .inplace import _inplace, clamp_, div_, mul_, sub_
from .operands import cast_operand, promote, quietly, reflected, to_tensor
from .pointwise import abs
from ..op_table import exports, methods, op

__all__ = ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "fmod",
           "remainder", "float_power", "lerp", "addcmul", "addcdiv", "clamp_min", "clamp_max",
           "subtract", "multiply", "divide", "true_divide", "absolute", "clip_", "greater",
           "greater_equal", "less", "less_equal", "not_equal", "xlogy_", "clamp_min_", "clamp_max_", "heaviside", "heaviside_", "ldexp", "ldexp_"]


def _float_pair(input, other):
    """Both operands in their common dtype, made floating (int inputs give float32)."""
    a, b, dtype = promote(input, other)
    if not dtype.is_floating_point:
        dtype = _dt.get_default_dtype()
        a, b = cast_operand(input, dtype), cast_operand(other, dtype)
    return a, b


def _binary_float(op, np_fn, ints=True):
    """A two-input float function; ``ints``: integer inputs allowed (computed as floats).
    Both must be tensors (``_position``: where ``other`` is in the call, for the error)."""
    def fn(input, other, _position=2):
        if not isinstance(other, Tensor):
            raise TypeError(f"{op}(): argument 'other' (position {_position}) must be Tensor, "
                            f"not {type(other).__name__}")
        if not ints and not _dt.result_type(input, other).is_floating_point:
            dtype = _dt.result_type(input, other)
            raise NotImplementedError(f'"{op}_cpu" not implemented for '
                                      f"'{_dt.LEGACY_NAMES[dtype.name][:-6]}'")
        a, b = _float_pair(input, other)
        return record(op, quietly(np_fn, a._data, b._data), (a, b))
    fn.__name__ = op
    return fn


atan2 = arctan2 = _binary_float("atan2", np.arctan2)
exports(arctan2=arctan2, atan2=atan2)
hypot = _binary_float("hypot", np.hypot, ints=False)
exports(hypot=hypot)
logaddexp = _binary_float("logaddexp", np.logaddexp, ints=False)
exports(logaddexp=logaddexp)
logaddexp2 = _binary_float("logaddexp2", np.logaddexp2, ints=False)
exports(logaddexp2=logaddexp2)


def _np_xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless y is nan)."""
    return np.where((x == 0) & ~np.isnan(y), np.zeros((), x.dtype), x * np.log(y))


@op("xlogy", public=True, inplace="xlogy_")
def xlogy(input, other):
    a, b = _float_pair(input, other)
    if not isinstance(input, Tensor):                     # number * log(tensor)
        return record("xlogy.Scalar_Self", quietly(_np_xlogy, a._data, b._data), (b,), {"self": input})
    if not isinstance(other, Tensor):                     # tensor * log(number)
        return record("xlogy.Scalar_Other", quietly(_np_xlogy, a._data, b._data), (a,), {"other": other})
    return record("xlogy.Tensor", quietly(_np_xlogy, a._data, b._data), (a, b))


@op("copysign", public=True, inplace="copysign_")
def copysign(input, other):
    a, b = _float_pair(input, other)
    if not isinstance(other, Tensor):
        return record("copysign.Scalar", quietly(np.copysign, a._data, b._data), (a,), {"other": other})
    return record("copysign.Tensor", quietly(np.copysign, a._data, b._data), (a, b))


def _modulo(name, np_fn):
    """fmod (sign of the dividend) or remainder (sign of the divisor)."""
    def fn(input, other):
        if name == "fmod" and not isinstance(input, Tensor):
            raise TypeError(f"fmod() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, Tensor), but expected one of:\n"
                            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                            " * (Tensor input, Number other, *, Tensor out = None)\n")
        a, b, dtype = promote(input, other)
        if not dtype.is_floating_point and np.any(b._data == 0):
            raise RuntimeError("ZeroDivisionError")
        array = quietly(np_fn, a._data, b._data)
        if not isinstance(input, Tensor):                  # number % tensor: no derivative
            return record(f"{name}.Scalar_Tensor", array, (b,))
        if not isinstance(other, Tensor):
            return record(f"{name}.Scalar", array, (a,), {"other": other})
        return record(f"{name}.Tensor", array, (a, b))
    fn.__name__ = name
    return fn


def _np_remainder(a, b):
    """Python's ``%`` (the sign of the divisor), as PyTorch computes it for floats: fmod,
    then ``+ b`` where the signs differ (so -5 % 2.5 is -0., as in PyTorch)."""
    if a.dtype.kind != "f":
        return np.remainder(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & ((m < 0) != (b < 0)), m + b, m).astype(m.dtype, copy=False)


fmod, remainder = _modulo("fmod", np.fmod), _modulo("remainder", _np_remainder)


@op("float_power", public=True, inplace="float_power_")
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (the inputs are cast: ToCopyBackward0)."""
    def as_double(x):
        return x.to(_dt.float64) if isinstance(x, Tensor) else float(x)
    return pow(as_double(input), as_double(exponent))


@op("lerp", public=True, inplace="lerp_")
def lerp(input, end, weight):
    """``input + weight * (end - input)`` (a number or a tensor weight)."""
    for name, t in (("end", end), ("weight", weight)):
        if (isinstance(t, Tensor) and isinstance(input, Tensor) and t.dtype is not input.dtype
                and (name == "end" or t.ndim)):
            raise RuntimeError(f"expected dtype {_dt.LEGACY_NAMES[input.dtype.name][:-6].lower()} "
                               f"for `{name}` but got dtype "
                               f"{_dt.LEGACY_NAMES[t.dtype.name][:-6].lower()}")
    a, b, dtype = promote(input, end)

    def np_lerp(s, e, w):         # PyTorch's two-sided form: exact at both ends
        return np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w)).astype(s.dtype)
    if isinstance(weight, Tensor):
        w = cast_operand(weight, dtype)
        return record("lerp.Tensor", quietly(np_lerp, a._data, b._data, w._data), (a, b, w))
    w = np.asarray(weight, dtype=a._data.dtype)
    return record("lerp.Scalar", quietly(np_lerp, a._data, b._data, w), (a, b), {"weight": weight})


def _three(input, tensor1, tensor2):
    dtype = _dt.result_type(input, tensor1, tensor2)
    return dtype, tuple(cast_operand(to_tensor(t), dtype) for t in (input, tensor1, tensor2))


@op("addcmul", public=True, inplace="addcmul_")
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    _, (s, t1, t2) = _three(input, tensor1, tensor2)
    array = quietly(lambda x, p, q: x + np.asarray(value, x.dtype) * p * q, s._data, t1._data, t2._data)
    return record("addcmul", array, (s, t1, t2), {"value": value})


@op("addcdiv", public=True, inplace="addcdiv_")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    dtype, (s, t1, t2) = _three(input, tensor1, tensor2)
    if not (to_tensor(tensor1).dtype.is_floating_point or to_tensor(tensor2).dtype.is_floating_point):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  "
                           "release addcdiv will perform a true division of tensor1 and tensor2. "
                           "The historic addcdiv behavior can be implemented as (input + value * "
                           "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and "
                           "as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * "
                           "tensor1 / tensor2), for all dtypes.")
    array = quietly(lambda x, p, q: x + np.asarray(value, x.dtype) * (p / q), s._data, t1._data, t2._data)
    return record("addcdiv", array.astype(s._data.dtype, copy=False), (s, t1, t2), {"value": value})


def _clamp_one(name, np_fn):
    """clamp_min / clamp_max: a number bound (ClampXBackward0) or a tensor one (...1)."""
    def fn(input, bound):
        a, b, _ = promote(input, bound)
        array = quietly(np_fn, a._data, b._data)
        if isinstance(bound, Tensor):
            return record(f"{name}.Tensor", array, (a, b))
        return record(name, array, (a,), {"bound": bound})
    fn.__name__ = name
    return fn


clamp_min, clamp_max = _clamp_one("clamp_min", np.maximum), _clamp_one("clamp_max", np.minimum)


def _method(fn):
    return lambda self, other: fn(self, other, _position=1)


methods(atan2=_method(atan2), arctan2=_method(atan2))
methods(hypot=_method(hypot), logaddexp=_method(logaddexp), logaddexp2=_method(logaddexp2))
op("fmod", public="fmod", inplace="fmod_")(fmod)
op("remainder", public="remainder", inplace="remainder_")(remainder)
op("__mod__")(remainder)
methods(__rmod__=reflected(remainder))
op("clamp_min", public="clamp_min", inplace="clamp_min_")(clamp_min)
op("clamp_max", public="clamp_max", inplace="clamp_max_")(clamp_max)


# ------------------------------------------------------------ in-place forms

def _in_place2(out_of_place):
    def method(self, *args, **kwargs):
        return _inplace(self, lambda s, *a: out_of_place(s, *a, **kwargs), *args)
    method.__name__ = out_of_place.__name__ + "_"
    method.__doc__ = f"``{out_of_place.__name__}`` written into the tensor itself."
    return method


@op("float_power_")
def float_power_(self, exponent):
    if self.dtype is not _dt.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_dt.LEGACY_NAMES[self.dtype.name][:-6]} but the operation's result "
                           f"requires dtype Double")
    return _inplace(self, float_power, exponent)


xlogy_, clamp_min_, clamp_max_ = _in_place2(xlogy), _in_place2(clamp_min), _in_place2(clamp_max)
methods(atan2_=_in_place2(atan2), arctan2_=_in_place2(atan2))
op("xlogy_", public="xlogy_")(xlogy_)
methods(hypot_=_in_place2(hypot), copysign_=_in_place2(copysign))
methods(fmod_=_in_place2(fmod), remainder_=_in_place2(remainder), __imod__=_in_place2(remainder))
methods(lerp_=_in_place2(lerp))
methods(addcmul_=_in_place2(addcmul), addcdiv_=_in_place2(addcdiv))
op("clamp_min_", public="clamp_min_")(clamp_min_)
op("clamp_max_", public="clamp_max_")(clamp_max_)


# ------------------------------------------------------------------ aliases
# NumPy-style names PyTorch keeps: the same ops, the same nodes.

subtract, multiply, absolute, clip_ = sub, mul, abs, clamp_
greater, greater_equal, less, less_equal, not_equal = _cmp.gt, _cmp.ge, _cmp.lt, _cmp.le, _cmp.ne
divide = true_divide = div              # rounding_mode= included
op("subtract", inplace="subtract_")(subtract)
op("multiply", inplace="multiply_")(multiply)
op("divide", inplace="divide_")(divide)
op("true_divide", inplace="true_divide_")(div)
op("subtract_")(sub_)
op("multiply_")(mul_)
op("divide_", "true_divide_")(div_)
op("absolute", inplace="absolute_")(absolute)
methods(absolute_=lambda self: _inplace(self, abs))
op("clip_")(clip_)
op("greater")(greater)
op("greater_equal")(greater_equal)
op("less")(less)
op("less_equal")(less_equal)
op("not_equal")(not_equal)


@op("heaviside", public=True, inplace="heaviside_")
def heaviside(input, values):
    """0 where ``input < 0``, 1 where ``> 0``, and ``values`` where it is 0."""
    input, values = to_tensor(input), to_tensor(values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    array = np.where(input._data == 0, values._data, (input._data > 0).astype(input._data.dtype))
    needing = tuple(t for t in (input, values) if t.requires_grad)     # PyTorch's node has only these
    return record("heaviside", np.asarray(array, dtype=input._data.dtype, order="C"), needing or (input,))


@op("heaviside_", public=True)
def heaviside_(self, values):
    return _inplace(self, heaviside, values)


@op("ldexp", public=True, inplace="ldexp_")
def ldexp(input, other):
    """``input * 2 ** other`` (always floating point)."""
    input, other = to_tensor(input), to_tensor(other)
    dtype = _dt.result_type(input, other)
    dtype = dtype if dtype.is_floating_point else _dt.get_default_dtype()
    a = cast_operand(input, dtype)
    array = quietly(lambda x, e: x * np.power(2.0, e), a._data, other._data).astype(dtype.numpy)
    return record("ldexp", np.asarray(array, order="C"), (a, other))


@op("ldexp_", public=True)
def ldexp_(self, other):
    return _inplace(self, ldexp, other)
