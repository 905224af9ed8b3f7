"""``Adamax``: Adam with the infinity norm in place of the second moment (Kingma & Ba, 2015).

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's
``_single_tensor_adamax``, same operations in the same order)::

    g = g + weight_decay * p                              # L2 penalty, if weight_decay
    exp_avg = lerp(exp_avg, g, 1 - beta1)                 # the first moment, as in Adam
    exp_inf = maximum(beta2 * exp_inf, |g| + eps)         # a decaying max of |g|
    p = p + (-(lr / (1 - beta1**t)) * exp_avg) / exp_inf  # addcdiv_

``exp_inf`` needs no bias correction (a maximum does not start low the way an
average does), and ``eps`` sits inside the maximum, so it is never zero.
``maximize=True`` uses ``-g``.  ``foreach`` and ``capturable`` are accepted and change
nothing (see ``optimizer._check_implementation``).
"""

from ..creation import zeros_like
from .optimizer import GroupwiseOptimizer, _check_betas, _check_implementation

__all__ = ["Adamax"]


class Adamax(GroupwiseOptimizer):
    """Adamax: Adam whose denominator is a decaying maximum of ``|g|``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_betas(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)
        _check_implementation(foreach, None, differentiable)

    def _update_group(self, group):
        """Update, in place, the parameters of ``group`` that have a ``.grad``."""
        lr, eps, (beta1, beta2) = group["lr"], group["eps"], group["betas"]
        for p, grad, state in self._with_grads(group, lambda p: {"exp_avg": zeros_like(p),
                                                                  "exp_inf": zeros_like(p)}):
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_inf.mul_(beta2)
            exp_inf.copy_(exp_inf.maximum(grad.abs().add_(eps)))   # maximum(..., out=exp_inf)
            clr = lr / (1 - beta1 ** state["step"].item())
            p.add_(-clr * exp_avg / exp_inf)                     # addcdiv_(value=-clr)
