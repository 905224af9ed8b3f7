"""The rules of the elementwise functions (``ops/pointwise.py``): ``exp`` (exercise 05),
``log``, ``sqrt``, ``tanh``, ``sigmoid``, ``relu`` and the backward ops of the last three, ``abs``,
``sign``, ``sin``, ``cos``, ``clamp``, ``maximum``/``minimum``, ``where``, ``masked_fill``.
"""

from .. import ops as F
from ..creation import zeros_like
from ..ops import backward_helpers as H
from ..ops import pointwise
from .table import NODES, rule  # noqa: F401  (NODES: an edition's sealed rule(...) finds its node here)


# ------------------------------------------------------------ unary functions
rule("exp", "ExpBackward0", self=("result", lambda grad, result: grad * result))
rule("log", "LogBackward0", self=("self", lambda grad, self: grad / self))
rule("sqrt", "SqrtBackward0", self=("result", lambda grad, result: grad / F.mul_scalar(result, 2)))
# tanh, sigmoid and relu have backward ops of their own (as in PyTorch), with rules.
# sigmoid_backward is an exercise slot: reached through its module when the rule runs.
rule("tanh", "TanhBackward0", self=("result", lambda grad, result: F.tanh_backward(grad, result)))
rule("tanh_backward", "TanhBackwardBackward0",
     grad_output=("output", lambda grad, output: F.tanh_backward(grad, output)),
     output=("grad_output output", lambda grad, grad_output, output: grad * (
         F.mul_scalar(output, -2) * grad_output)))
rule("sigmoid", "SigmoidBackward0",
     self=("result", lambda grad, result: pointwise.sigmoid_backward(grad, result)))
rule("sigmoid_backward", "SigmoidBackwardBackward0",
     grad_output=("output", lambda grad, output: pointwise.sigmoid_backward(grad, output)),
     output=("grad_output output", lambda grad, grad_output, output: grad * grad_output * F.add_scalar(
         F.mul_scalar(output, -2), 1)))
rule("relu", "ReluBackward0",
     self=("result", lambda grad, result: F.threshold_backward(grad, result, 0)))
rule("threshold_backward", "ThresholdBackwardBackward0",
     grad_output=("self threshold", lambda grad, self, threshold: F.threshold_backward(
         grad, self, threshold)),
     self=lambda grad: zeros_like(grad))

rule("abs", "AbsBackward0", self=("self", lambda grad, self: grad * F.sgn(self)))
rule("sign", "SignBackward0", self=lambda grad: zeros_like(grad))
rule("sgn", "SgnBackward0", self=lambda grad: zeros_like(grad))
rule("masked_fill.Scalar", "MaskedFillBackward0",
     self=("mask", lambda grad, mask: F.masked_fill(grad, mask, 0)))
rule("masked_fill.Tensor", "MaskedFillBackward1",
     self=("mask", lambda grad, mask: F.masked_fill(grad, mask, 0)),
     value=("mask", lambda grad, mask: grad[mask].sum()))
rule("sin", "SinBackward0", self=("self", lambda grad, self: grad * F.cos(self)))
rule("cos", "CosBackward0", self=("self", lambda grad, self: grad * -F.sin(self)))
rule("clamp", "ClampBackward1",                         # clamp(self, number, number)
     self=("self min max", lambda grad, self, min, max: F.where(
         H.clamp_mask(self, min, max), grad, 0.0)))
rule("clamp.Tensor", "ClampBackward0",                  # clamp(self, tensor, tensor): a bound
     self=("self min max", lambda grad, self, min, max: F.where(   # that wins gets the gradient
         H.clamp_bounds_mask(self, min, max), grad, 0.0)),         # (max wins ties)
     min=("self min max", lambda grad, self, min, max: F.where(
         (self < min) & (min < max) if max is not None else self < min, grad, 0.0)),
     max=("self min max", lambda grad, self, min, max: F.where(
         (self > max) | (max < min) if min is not None else self > max, grad, 0.0)))
rule("maximum", "MaximumBackward0",                     # ties share the gradient
     self=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self < other, 0)),
     other=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self > other, 0)))
rule("minimum", "MinimumBackward0",
     self=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self > other, 0)),
     other=("self other", lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self < other, 0)))
rule("where.self", "WhereBackward0",
     self=("condition", lambda grad, condition: F.where(condition, grad, 0.0)),
     other=("condition", lambda grad, condition: F.where(condition, 0.0, grad)))

