"""The rules of ``ops/elementwise_losses.py``: ``binary_cross_entropy`` (with logits),
``smooth_l1_loss``, ``huber_loss``.
"""

from ..ops import elementwise_losses as EL
from .table import rule


# Element-by-element losses (ops/elementwise_losses.py): weights are plain values, not inputs.
rule("binary_cross_entropy", "BinaryCrossEntropyBackward0",
     self=("self target weight reduction", EL.binary_cross_entropy_backward),
     target=("self target weight reduction", EL.binary_cross_entropy_target_backward))
rule("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
     self=("self target weight pos_weight reduction", EL.binary_cross_entropy_with_logits_backward),
     target=("self target weight pos_weight reduction",
             EL.binary_cross_entropy_with_logits_target_backward))
rule("smooth_l1_loss", "SmoothL1LossBackward0",
     self=("self target beta reduction", EL.smooth_l1_loss_backward),
     target=("self target beta reduction", lambda grad, self, target, beta, reduction:
             -EL.smooth_l1_loss_backward(grad, self, target, beta, reduction)))
rule("huber_loss", "HuberLossBackward0",
     self=("self target delta reduction", EL.huber_loss_backward),
     target=("self target delta reduction", lambda grad, self, target, delta, reduction:
             -EL.huber_loss_backward(grad, self, target, delta, reduction)))

