"""``AdamW``: Adam with *decoupled* weight decay (Loshchilov & Hutter, 2019).

Adam's ``weight_decay`` adds ``weight_decay * p`` to the gradient, which the
adaptive denominator then rescales; AdamW instead shrinks the parameter
directly, ``p *= 1 - lr * weight_decay``, before the Adam step.  As in
PyTorch it is ``Adam(..., decoupled_weight_decay=True)``, with a default
``weight_decay`` of 0.01.
"""

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam whose weight decay shrinks the parameters instead of adding to the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
