"""The rules of ``ops/margin_losses.py``: ``multi_margin_loss`` and ``multilabel_margin_loss``
differentiate their input only; their gradient ops have no derivative in PyTorch
(NotImplemented, which raises when reached).
"""

from ..ops import backward_helpers as H
from ..ops import margin_losses as M
from .table import rule

rule("multi_margin_loss", "MultiMarginLossBackward0",
     self=("self target p margin weight reduction", M.multi_margin_loss_backward))
rule("multilabel_margin_loss", "MultilabelMarginLossBackward0",
     self=("self target reduction", M.multilabel_margin_loss_backward))
for _op in ("multi_margin_loss_backward", "multilabel_margin_loss_backward"):
    rule(_op, "NotImplemented", grad_output=lambda grad, op=_op: H.derivative_not_implemented(op),
         self=lambda grad, op=_op: H.derivative_not_implemented(op))
