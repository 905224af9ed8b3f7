"""``Adam``: adaptive moment estimation (Kingma & Ba, 2015).

Adam keeps, per parameter, running averages of the gradient (``exp_avg``, the
*first moment*) and of its square (``exp_avg_sq``, the *second moment*), and
moves each coordinate by roughly ``lr`` in the direction of the average
gradient, whatever the gradient's scale.  For step ``t`` (PyTorch's
``_single_tensor_adam``, same operations in the same order)::

    g = g + weight_decay * p                  # L2 penalty, if weight_decay
    exp_avg    = exp_avg + (1 - beta1) * (g - exp_avg)       # lerp towards g
    exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    step_size  = lr / (1 - beta1 ** t)                       # bias corrections:
    denom      = sqrt(exp_avg_sq) / sqrt(1 - beta2 ** t) + eps    # the averages
    p = p - step_size * exp_avg / denom                      # start at zero

``amsgrad=True`` divides by the largest ``exp_avg_sq`` seen so far instead;
``decoupled_weight_decay=True`` shrinks ``p`` by ``1 - lr * weight_decay``
instead of adding to the gradient (that is AdamW).  ``maximize=True`` uses ``-g``.
"""

from ..creation import tensor, zeros_like
from ..grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam: per-coordinate step sizes from running moments of the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, maximize=False, decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """Update, in place, every parameter whose ``.grad`` is not None."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:                    # first step of this parameter
                    state["step"] = tensor(0.0)
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = zeros_like(p)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

                grad = p.grad if not group["maximize"] else -p.grad
                state["step"] += 1
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)

                # PyTorch: exp_avg.lerp_(grad, 1 - beta1) and
                # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2).
                exp_avg.add_(grad - exp_avg, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)

                step = state["step"].item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2 ** 0.5

                if group["amsgrad"]:
                    max_exp_avg_sq = state["max_exp_avg_sq"]
                    max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
                    second_moment = max_exp_avg_sq
                else:
                    second_moment = exp_avg_sq
                denom = (second_moment.sqrt() / bias_correction2_sqrt).add_(eps)
                # PyTorch: p.addcdiv_(exp_avg, denom, value=-step_size).
                p.add_(-step_size * exp_avg / denom)
        return loss
