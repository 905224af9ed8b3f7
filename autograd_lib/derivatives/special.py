"""The gradient rules of the special pointwise functions (``ops/special.py``,
``ops/binary_math.py``): in the table's form (read
``derivatives/__init__.py``).

The formulas are the textbook derivatives written with tensor ops, so that
create_graph=True records them and they can be differentiated again.
"""

import math

from .. import ops as F
from ..creation import zeros_like
from ..ops import backward_helpers as H
from .table import rule

_LN2, _LN10 = math.log(2), math.log(10)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _sinc_backward(grad, self):
    """d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2); 0 at x = 0."""
    px = F.mul_scalar(self, math.pi)
    slope = (px * F.cos(px) - F.sin(px)) / F.mul_scalar(self * self, math.pi)
    return F.where(self == 0, 0.0, grad * slope)


def _logit_backward(grad, self, eps):
    """grad / (p (1 - p)); outside [0, 1] nan, or with eps 0 outside [eps, 1 - eps]."""
    slope = grad / (self * F.sub(1, self))
    if eps is None:
        return F.where((self >= 0) & (self <= 1), slope, math.nan)
    return F.where((self >= eps) & (self <= 1 - eps), slope, 0.0)


def _copysign_self(grad, self, result):
    return grad * F.masked_fill(result / self, self == 0, 0)


def _not_in_place(name):
    raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not implemented.")


def _atan2_denominator(self, other):
    """``1 / (self² + other²)``, 0 where both are 0."""
    squares = self * self + other * other
    return F.masked_fill(F.reciprocal(squares), squares == 0, 0)


def _xlogy_self(grad, self, other):
    """d/dx x log(y) = log(y), 0 where x = 0 and y <= 0."""
    return F.masked_fill(F.xlogy(grad, other), (self == 0) & (other <= 0), 0)

# --------------------------------------------------------- trigonometry
rule("tan", "TanBackward0", self=("result", lambda grad, result: grad * F.add_scalar(result ** 2, 1)))
rule("sinh", "SinhBackward0", self=("self", lambda grad, self: grad * F.cosh(self)))
rule("cosh", "CoshBackward0", self=("self", lambda grad, self: grad * F.sinh(self)))
rule("asin", "AsinBackward0", self=("self", lambda grad, self: grad * F.rsqrt(F.add_scalar(-self * self, 1))))
rule("acos", "AcosBackward0", self=("self", lambda grad, self: grad * -F.rsqrt(F.add_scalar(-self * self, 1))))
rule("atan", "AtanBackward0", self=("self", lambda grad, self: grad / F.add_scalar(self * self, 1)))
rule("asinh", "AsinhBackward0", self=("self", lambda grad, self: grad * F.rsqrt(F.add_scalar(self ** 2, 1))))
rule("acosh", "AcoshBackward0", self=("self", lambda grad, self: grad * F.rsqrt(F.sub_scalar(self * self, 1))))
rule("atanh", "AtanhBackward0", self=("self", lambda grad, self: F.mul_scalar(grad, 1) / F.sub(1, self ** 2)))
for name in ("asinh", "acosh", "atanh"):             # x.asinh_(): PyTorch refuses
    rule(name + "_", name.capitalize() + "Backward1",
         self=(lambda name: lambda grad: _not_in_place(name))(name))
# ------------------------------------------------------ logs and exponentials
rule("log1p", "Log1PBackward0", self=("self", lambda grad, self: grad / F.add_scalar(self, 1)))
rule("expm1", "Expm1Backward0", self=("result", lambda grad, result: grad * F.add_scalar(result, 1)))
rule("log2", "Log2Backward0", self=("self", lambda grad, self: grad / F.mul_scalar(self, _LN2)))
rule("log10", "Log10Backward0", self=("self", lambda grad, self: grad / F.mul_scalar(self, _LN10)))
rule("exp2", "Exp2Backward0", self=("result", lambda grad, result: F.mul_scalar(grad * result, _LN2)))
rule("rsqrt", "RsqrtBackward0",
     self=("result", lambda grad, result: F.mul_scalar(grad, -0.5) * result ** 3))
# ------------------------------------------------------------ error function
rule("erf", "ErfBackward0",
     self=("self", lambda grad, self: F.mul_scalar(F.exp(-(self ** 2)), _TWO_OVER_SQRT_PI) * grad))
rule("erfc", "ErfcBackward0",
     self=("self", lambda grad, self: F.mul_scalar(F.exp(-(self ** 2)), -_TWO_OVER_SQRT_PI) * grad))
rule("erfinv", "ErfinvBackward0",           # 1 / erf'(erfinv(x))
     self=("self", lambda grad, self: F.mul_scalar(
         F.exp(F.erfinv(self) ** 2), math.sqrt(math.pi) / 2) * grad))
rule("sinc", "SincBackward0", self=("self", _sinc_backward))
rule("logit", "LogitBackward0", self=("self eps", _logit_backward))
rule("frac", "FracBackward0", self=lambda grad: grad)
rule("deg2rad", "Deg2RadBackward0", self=lambda grad: F.mul_scalar(grad, math.pi / 180))
rule("rad2deg", "Rad2DegBackward0", self=lambda grad: F.mul_scalar(grad, 180 / math.pi))
rule("nan_to_num", "NanToNumBackward0", self=("self", lambda grad, self: grad * F.isfinite(self)))
# ------------------------------------------------------------ two inputs
rule("atan2", "Atan2Backward0",
     self=("self other", lambda grad, self, other: grad * other * _atan2_denominator(self, other)),
     other=("self other", lambda grad, self, other: grad * -self * _atan2_denominator(self, other)))
rule("hypot", "HypotBackward0",
     self=("self result", lambda grad, self, result: grad * self / result),
     other=("other result", lambda grad, other, result: grad * other / result))
rule("logaddexp", "LogaddexpBackward0",
     self=("self other", lambda grad, self, other: grad / F.add_scalar(F.exp(other - self), 1)),
     other=("self other", lambda grad, self, other: grad / F.add_scalar(F.exp(self - other), 1)))
rule("logaddexp2", "Logaddexp2Backward0",
     self=("self other", lambda grad, self, other: grad / F.add_scalar(F.pow(2, other - self), 1)),
     other=("self other", lambda grad, self, other: grad / F.add_scalar(F.pow(2, self - other), 1)))
rule("xlogy.Tensor", "XlogyBackward0",
     self=("self other", _xlogy_self),
     other=("self other", lambda grad, self, other: grad * self / other))
rule("xlogy.Scalar_Self", "XlogyBackward1",
     other=("self other", lambda grad, self, other: F.mul_scalar(grad, self) / other))
rule("xlogy.Scalar_Other", "XlogyBackward2",
     self=("self other", lambda grad, self, other: (   # other: a number
         _xlogy_self(grad, self, other) if other <= 0 else F.xlogy(grad, other))))
rule("copysign.Tensor", "CopysignBackward0",
     self=("self result", _copysign_self), other=lambda grad: zeros_like(grad))
rule("copysign.Scalar", "CopysignBackward1", self=("self result", _copysign_self))
rule("fmod.Scalar", "FmodBackward0", self=lambda grad: grad)
rule("fmod.Tensor", "FmodBackward1", self=lambda grad: grad,
     other=("self other", lambda grad, self, other: -grad * F.divide(self, other, rounding_mode="trunc")))
rule("remainder.Scalar", "RemainderBackward0", self=lambda grad: grad)
rule("remainder.Scalar_Tensor", "NotImplemented",   # number % tensor: PyTorch refuses
     other=lambda grad: H.derivative_not_implemented("remainder"))
rule("remainder.Tensor", "RemainderBackward1", self=lambda grad: grad,
     other=("self other", lambda grad, self, other: -grad * F.divide(self, other, rounding_mode="floor")))
rule("lerp.Scalar", "LerpBackward0",
     self=("weight", lambda grad, weight: F.mul_scalar(grad, 1 - weight)),
     end=("weight", lambda grad, weight: F.mul_scalar(grad, weight)))
rule("lerp.Tensor", "LerpBackward1",
     self=("weight", lambda grad, weight: grad * F.sub(1, weight)),
     end=("weight", lambda grad, weight: grad * weight),
     weight=("self end", lambda grad, self, end: grad * (end - self)))
rule("addcmul", "AddcmulBackward0",
     self=lambda grad: grad,
     tensor1=("tensor2 value", lambda grad, tensor2, value: grad * F.mul_scalar(tensor2, value)),
     tensor2=("tensor1 value", lambda grad, tensor1, value: grad * F.mul_scalar(tensor1, value)))
rule("addcdiv", "AddcdivBackward0",
     self=lambda grad: grad,
     tensor1=("tensor2 value", lambda grad, tensor2, value: grad * F.div(value, tensor2)),
     tensor2=("tensor1 tensor2 value", lambda grad, tensor1, tensor2, value: -grad * (
         F.mul_scalar(tensor1, value) / (tensor2 * tensor2))))
rule("div.Tensor_mode", "DivBackward2",             # a rounded quotient: flat
     self=lambda grad: zeros_like(grad), other=lambda grad: zeros_like(grad))
rule("clamp_min", "ClampMinBackward0",
     self=("self bound", lambda grad, self, bound: F.where(self >= bound, grad, 0.0)))
rule("clamp_max", "ClampMaxBackward0",
     self=("self bound", lambda grad, self, bound: F.where(self <= bound, grad, 0.0)))
rule("clamp_min.Tensor", "ClampMinBackward1",
     self=("self min", lambda grad, self, min: F.where(self >= min, grad, 0.0)),
     min=("self min", lambda grad, self, min: F.where(self < min, grad, 0.0)))
rule("clamp_max.Tensor", "ClampMaxBackward1",
     self=("self max", lambda grad, self, max: F.where(self <= max, grad, 0.0)),
     max=("self max", lambda grad, self, max: F.where(self > max, grad, 0.0)))
