"""``RAdam``: Adam with a rectified adaptive learning rate (Liu et al., 2020).

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's
``_single_tensor_radam``, same operations in the same order)::

    g = g + weight_decay * p                  # L2 penalty, if weight_decay; with
                                              # decoupled_weight_decay: p *= 1 - lr * weight_decay
    exp_avg = lerp(exp_avg, g, 1 - beta1);  exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    m = exp_avg / (1 - beta1**t)                                    # bias-corrected
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * t * beta2**t / (1 - beta2**t)
    if rho_t > 5:     # the variance of the adaptive rate is tractable: rectify it
        rect = sqrt((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4) (rho_inf - 2) rho_t))
        p = p - m * lr * (sqrt(1 - beta2**t) / (sqrt(exp_avg_sq) + eps)) * rect
    else:             # the first few steps: plain momentum SGD
        p = p - m * lr

``maximize=True`` uses ``-g``.  ``foreach`` and ``capturable`` are accepted and change
nothing (see ``optimizer._check_implementation``).
"""

from ..creation import zeros_like
from .optimizer import GroupwiseOptimizer, _check_betas, _check_implementation

__all__ = ["RAdam"]


class RAdam(GroupwiseOptimizer):
    """RAdam: momentum SGD at first, then Adam with its adaptive rate rectified."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_betas(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)
        _check_implementation(foreach, None, differentiable)

    def _update_group(self, group):
        """Update, in place, the parameters of ``group`` that have a ``.grad``."""
        lr, eps, (beta1, beta2) = group["lr"], group["eps"], group["betas"]
        weight_decay = group["weight_decay"]
        decoupled = group["decoupled_weight_decay"]
        fresh = lambda p: {"exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}   # noqa: E731
        for p, grad, state in self._with_grads(group, fresh, decay=not decoupled):
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step = state["step"].item()
            if decoupled and weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)   # addcmul_
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
