"""The gradient rules of ``ops/compositions.py``: the table's conventions
(one formula per input, written with tensor ops so double backward works).

Most of the family composes other ops and needs no rule.  ``fmax``/``fmin`` send the
gradient to the input that won (``self`` on ties, the number when the other is NaN);
``vdot`` is ``dot``'s rule; ``var_mean``/``std_mean`` are one node with two outputs, whose
formula adds the variance's (or standard deviation's) gradient and the mean's.
"""

from .. import ops as F
from ..ops import norms
from ..tensor import Tensor
from ..ops import backward_helpers as H
from ..ops.backward_helpers import restore_reduced_dims
from .table import rule


def _fmax_self_wins(self, other, larger):
    """Where ``self`` is the result of fmax (``larger``) or fmin: it wins ties, and a NaN other."""
    wins = (self >= other) if larger else (self <= other)
    return F.logical_or(wins, F.isnan(other))


def _mean_part(grad_mean, self, dims, keepdim, count):
    grad_mean = restore_reduced_dims(grad_mean, dims, keepdim).expand(self.shape)
    return F.div_scalar(grad_mean, count)


def _two_output_backward(spread_backward):
    def backward(grads, self, result, dim, correction, keepdim, dims, count):
        grad_spread, grad_mean = (list(grads) + [None, None])[:2]
        total = None
        if grad_spread is not None:
            total = spread_backward(grad_spread, self, result, dim, correction, keepdim)
        if grad_mean is not None:
            part = _mean_part(grad_mean, self, dims, keepdim, count)
            total = part if total is None else total + part
        return total
    return backward


def _aminmax_backward(grads, self, result, dims, keepdim, high):
    """Each extreme's gradient shared among the elements that tie for it."""
    total = None
    for grad, extreme in zip(grads, (result, Tensor._make(high))):
        if grad is not None:
            part = H.share_among_ties(grad, self, extreme, dims, keepdim)
            total = part if total is None else total + part
    return total


def _powers_of_two(other):
    """``2 ** other`` as PyTorch's ldexp backward computes it: in ``other``'s dtype, so an
    integer exponent below 0 gives 0."""
    powers = F.exp2(other)
    return powers if other.dtype.is_floating_point else F.masked_fill(powers, other < 0, 0)

for op, node, larger in (("fmax", "FmaxBackward0", True), ("fmin", "FminBackward0", False)):
    rule(op, node,
         self=("self other", lambda grad, self, other, larger=larger: F.masked_fill(
             grad, F.logical_not(_fmax_self_wins(self, other, larger)), 0)),
         other=("self other", lambda grad, self, other, larger=larger: F.masked_fill(
             grad, _fmax_self_wins(self, other, larger), 0)))
rule("vdot", "VdotBackward0",
     self=("other", lambda grad, other: grad * other),
     other=("self", lambda grad, self: grad * self))
needs = "self result dim correction keepdim dims count"
rule("var_mean.correction", "VarMeanBackward0", all_grads=True, self=(needs, _two_output_backward(
    lambda g, self, result, dim, correction, keepdim: norms.var_node_backward(
        g, self, dim, correction, keepdim))))
rule("std_mean.correction", "StdMeanBackward0", all_grads=True, self=(needs, _two_output_backward(
    norms.std_backward)))
rule("aminmax", "AminmaxBackward0", all_grads=True,
     self=("self result dims keepdim high", _aminmax_backward))
rule("ldexp", "LdexpBackward0",
     self=("other", lambda grad, other: grad * _powers_of_two(other)),
     other=("self other", lambda grad, self, other: F.mul_scalar(grad * self * F.exp2(other), 0.6931471805599453)))
rule("heaviside", "NotImplemented", variadic=True,  # PyTorch does not differentiate it
     tensors=lambda grad, i: H.derivative_not_implemented("heaviside"))
rule("lgamma", "LgammaBackward0", self=("self", lambda grad, self: grad * F.digamma(self)))
rule("digamma", "DigammaBackward0", self=("self", lambda grad, self: grad * F.polygamma(1, self)))
rule("polygamma", "PolygammaBackward0",
     self=("self n", lambda grad, self, n: grad * F.polygamma(n + 1, self)))
