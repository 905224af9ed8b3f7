"""The rules of ``+ - * /``, ``neg``, ``reciprocal``, ``pow`` and ``//`` (``ops/arithmetic.py``).

``add``, ``mul`` and ``pow`` are exercises of assignment 03: students write their formulas
(``exercises.py`` names the nodes).
"""

from .. import ops as F
from ..creation import zeros_like
from ..ops import backward_helpers as H
from .table import NODES, rule  # noqa: F401  (NODES: an edition's sealed rule(...) finds its node here)


# --------------------------------------------------------------- arithmetic
# Formulas multiply by numbers with F.mul_scalar (not ``*``): PyTorch's formulas
# do it with mul.Scalar, which shows up in a create_graph=True gradient's graph
# as MulBackward1 (``x * 2`` written in Python records MulBackward0).
rule("add.Tensor", "AddBackward0",
     self=lambda grad: grad,
     other=("alpha", lambda grad, alpha: grad if alpha == 1 else F.mul_scalar(grad, alpha)))
rule("add.Scalar", "AddBackward1", self=lambda grad: grad)          # tensor + number, in formulas
rule("sub.Scalar", "SubBackward1", self=lambda grad: grad)          # tensor - number, in formulas
rule("sub.Tensor", "SubBackward0",
     self=lambda grad: grad,
     other=("alpha", lambda grad, alpha: -grad if alpha == 1 else F.mul_scalar(-grad, alpha)))
rule("rsub.Scalar", "RsubBackward1",                                # number - self
     self=("alpha", lambda grad, alpha: -grad if alpha == 1 else F.mul_scalar(-grad, alpha)))
rule("mul.Tensor", "MulBackward0",
     self=("other", lambda grad, other: grad * other),
     other=("self", lambda grad, self: grad * self))
rule("mul.Scalar", "MulBackward1",                                  # tensor * number
     self=("other", lambda grad, other: F.mul_scalar(grad, other)))
rule("div.Tensor", "DivBackward0",
     self=("other", lambda grad, other: grad / other),
     other=("self other", lambda grad, self, other: -grad * ((self / other) / other)))
rule("div.Scalar", "DivBackward1",                                  # tensor / number
     self=("other", lambda grad, other: F.div_scalar(grad, other)))
rule("neg", "NegBackward0", self=lambda grad: -grad)
rule("reciprocal", "ReciprocalBackward0",
     self=("result", lambda grad, result: -grad * (result * result)))
rule("pow.Tensor_Scalar", "PowBackward0",                           # tensor ** number
     self=("self exponent", lambda grad, self, exponent: (
         zeros_like(self) if exponent == 0 else grad * F.mul_scalar(self ** (exponent - 1), exponent))))
rule("pow.Tensor_Tensor", "PowBackward1",                           # tensor ** tensor
     self=("self exponent", lambda grad, self, exponent: F.where(
         exponent == 0, 0.0, grad * (exponent * self ** F.sub_scalar(exponent, 1)))),
     exponent=("self exponent result", lambda grad, self, exponent, result: grad * F.where(
         (self == 0) & (exponent >= 0), 0.0, result * F.log(self))))
rule("pow.Scalar", "PowBackward2",                                  # number ** tensor
     exponent=("base exponent result", lambda grad, base, exponent, result: grad * (
         F.where(exponent >= 0, 0.0, F.mul_scalar(result, H.log_of_number(base))) if base == 0
         else F.mul_scalar(result, H.log_of_number(base)))))

rule("floor_divide", "NotImplemented", variadic=True,  # x // y: no derivative in PyTorch, and
     tensors=lambda grad, i: H.derivative_not_implemented("floor_divide"))   # an edge per input needing one

