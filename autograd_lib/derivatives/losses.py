"""The rules of ``ops/losses.py``: ``softmax``, ``log_softmax`` (whose gradient op is
exercise 05's), ``nll_loss``, ``mse_loss`` and the backward ops of their gradients.
"""

from .. import ops as F
from ..creation import zeros_like
from ..ops import backward_helpers as H
from ..ops import losses
from .table import rule


# ------------------------------------------------------ softmax and losses
# log_softmax_backward_data is an exercise slot: reached through its module when the rule runs.
rule("_softmax", "SoftmaxBackward0",
     self=("result dim", lambda grad, result, dim: F.softmax_backward_data(grad, result, dim)))
rule("_softmax_backward_data", "SoftmaxBackwardDataBackward0",
     grad_output=("output dim", lambda grad, output, dim: F.softmax_backward_data(grad, output, dim)),
     output=("grad_output output dim", lambda grad, grad_output, output, dim: (
         grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
         - grad_output * (output * grad).sum(dim, keepdim=True))))
rule("_log_softmax", "LogSoftmaxBackward0",
     self=("result dim", lambda grad, result, dim: losses.log_softmax_backward_data(grad, result, dim)))
rule("_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0",
     grad_output=("output dim", lambda grad, output, dim: (
         grad - (grad * output.exp()).sum(dim, keepdim=True))),
     output=("grad_output output dim", lambda grad, grad_output, output, dim: (
         -grad_output.sum(dim, keepdim=True) * output.exp() * grad)))
rule("nll_loss", "NllLossBackward0",
     self=("self target weight reduction ignore_index total_weight",
           lambda grad, self, target, weight, reduction, ignore_index, total_weight:
           F.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight)))
rule("nll_loss_backward", "NllLossBackwardBackward0",   # (its output does not depend on self)
     grad_output=("target weight reduction ignore_index",
                  lambda grad, target, weight, reduction, ignore_index:
                  F.nll_loss(grad, target, weight, ignore_index, reduction)),
     self=lambda grad: zeros_like(grad))
rule("mse_loss", "MseLossBackward0",
     self=("self target reduction", lambda grad, self, target, reduction: F.mse_loss_backward(
         grad, self, target, reduction)),
     target=("self target reduction", lambda grad, self, target, reduction: F.mse_loss_backward(
         grad, target, self, reduction)))
rule("mse_loss_backward", "MseLossBackwardBackward0",
     grad_output=("self target reduction", lambda grad, self, target, reduction: (
         F.mse_loss_backward(grad, self, target, reduction) if reduction == "none"
         else F.mse_loss_backward(grad, self, target, reduction).sum())),
     self=("grad_output reduction count", lambda grad, grad_output, reduction, count:
           H.mse_double_backward(grad * grad_output, reduction, count)),
     target=("grad_output reduction count", lambda grad, grad_output, reduction, count:
             -H.mse_double_backward(grad * grad_output, reduction, count)))

