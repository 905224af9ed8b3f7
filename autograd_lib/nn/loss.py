"""Loss functions as modules: ``loss_fn = nn.CrossEntropyLoss(); loss = loss_fn(logits, y)``.

``reduction`` says how the per-sample losses are combined: ``"mean"``
(default), ``"sum"``, or ``"none"`` (one loss per sample).  PyTorch's loss
classes also take the deprecated ``size_average`` and ``reduce`` arguments
*first*; they do not exist here, so the options are keyword-only (a call that
relies on PyTorch's positions fails loudly instead of meaning something else).
"""

from . import functional as F
from .module import Module

__all__ = ["MSELoss", "NLLLoss", "CrossEntropyLoss"]


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with optional per-class weights, kept as a buffer (state, not trained)."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error: ``((input - target) ** 2).mean()`` (regression)."""

    def __init__(self, *, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of the target classes, for inputs that are
    already log-probabilities ``(N, C)`` (e.g. the output of ``nn.LogSoftmax(dim=1)``)."""

    def __init__(self, weight=None, *, ignore_index=-100, reduction="mean"):
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of raw scores (logits) ``(N, C)`` against class indices ``(N,)``
    or class probabilities ``(N, C)``: ``LogSoftmax`` and ``NLLLoss`` in one.

    ``label_smoothing`` other than 0.0 is not implemented (NotImplementedError).
    """

    def __init__(self, weight=None, *, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, reduction)
        F._check_label_smoothing(label_smoothing)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)
