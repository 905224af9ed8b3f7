"""``Adadelta``: steps whose size comes from the past steps themselves (Zeiler, 2012).

For each parameter ``p`` with gradient ``g`` (PyTorch's ``_single_tensor_adadelta``,
same operations in the same order)::

    g = g + weight_decay * p                                # L2 penalty, if weight_decay
    square_avg = rho * square_avg + (1 - rho) * g * g       # running mean of g**2
    delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
    acc_delta = rho * acc_delta + (1 - rho) * delta * delta # running mean of the steps**2
    p = p - lr * delta

The ratio of the two running root-mean-squares has the units of ``p``, so the
default ``lr`` is 1.0.  ``maximize=True`` uses ``-g``.  ``foreach`` and ``capturable``
are accepted and change nothing (see ``optimizer._check_implementation``).
"""

from ..creation import zeros_like
from .optimizer import GroupwiseOptimizer, _check_implementation

__all__ = ["Adadelta"]


class Adadelta(GroupwiseOptimizer):
    """Adadelta: a running RMS of past steps over a running RMS of gradients."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)
        _check_implementation(foreach, None, differentiable)

    def _update_group(self, group):
        """Update, in place, the parameters of ``group`` that have a ``.grad``."""
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        for p, grad, state in self._with_grads(group, lambda p: {"square_avg": zeros_like(p),
                                                                  "acc_delta": zeros_like(p)}):
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).add_((1 - rho) * grad * grad)        # addcmul_
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_()
            delta.div_(std).mul_(grad)
            acc_delta.mul_(rho).add_((1 - rho) * delta * delta)       # addcmul_
            p.add_(delta, alpha=-lr)
