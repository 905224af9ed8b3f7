"""``NAdam``: Adam with Nesterov momentum (Dozat, 2016).

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's
``_single_tensor_nadam``, same operations in the same order)::

    g = g + weight_decay * p                  # L2 penalty, if weight_decay; with
                                              # decoupled_weight_decay: p *= 1 - lr * weight_decay
    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))       # the momentum schedule
    mu_product = mu_product * mu_t            # prod of mu_1..mu_t (a float32 0-dim tensor)
    exp_avg = lerp(exp_avg, g, 1 - beta1);  exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    denom = sqrt(exp_avg_sq / (1 - beta2**t)) + eps
    p = p + (-lr * (1 - mu_t) / (1 - mu_product)) * g / denom               # addcdiv_
    p = p + (-lr * mu_{t+1} / (1 - mu_product * mu_{t+1})) * exp_avg / denom

The step looks ahead: it mixes the current gradient with the momentum ``exp_avg``
as it will be weighted at the next step.  ``maximize=True`` uses ``-g``.  ``foreach``
and ``capturable`` are accepted and change nothing (see
``optimizer._check_implementation``).
"""

from ..creation import tensor, zeros_like
from .optimizer import GroupwiseOptimizer, _check_betas, _check_implementation

__all__ = ["NAdam"]


class NAdam(GroupwiseOptimizer):
    """NAdam: Adam whose momentum step is Nesterov's look-ahead."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_betas(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "differentiable": differentiable}
        super().__init__(params, defaults)
        _check_implementation(foreach, None, differentiable)

    def _update_group(self, group):
        """Update, in place, the parameters of ``group`` that have a ``.grad``."""
        lr, eps, (beta1, beta2) = group["lr"], group["eps"], group["betas"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        decoupled = group["decoupled_weight_decay"]
        for p, grad, state in self._with_grads(group, _fresh, decay=not decoupled):
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step = state["step"].item()
            bias_correction2 = 1 - beta2 ** step
            if decoupled and weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            state["mu_product"] *= mu                     # in float32, as PyTorch
            mu_product = state["mu_product"].item()
            mu_product_next = mu_product * mu_next
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)   # addcmul_
            denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
            # PyTorch: two addcdiv_, of grad then of exp_avg, each over denom.
            p.add_(-lr * (1.0 - mu) / (1.0 - mu_product) * grad / denom)
            p.add_((-lr * mu_next) / (1.0 - mu_product_next) * exp_avg / denom)


def _fresh(p):
    """A parameter's first state (after ``step``): the momentum product, the two moments."""
    return {"mu_product": tensor(1.0), "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}
