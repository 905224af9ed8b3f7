"""``Adam``: adaptive moment estimation (Kingma & Ba, 2015).

Adam gives every coordinate of a parameter its own step size.  It keeps, per
parameter, two running averages that start at zero: ``exp_avg`` of the gradient
(the *first moment* ``m``) and ``exp_avg_sq`` of its elementwise square (the
*second moment* ``v``).  With ``g`` the gradient at step ``t = 1, 2, ...``::

    m_t = beta1 m_{t-1} + (1 - beta1) g_t           v_t = beta2 v_{t-1} + (1 - beta2) g_t^2

    p_t = p_{t-1} - lr * (m_t / (1 - beta1^t)) / (sqrt(v_t / (1 - beta2^t)) + eps)

The divisions by ``1 - beta^t`` (the *bias corrections*) undo the averages'
start at zero: on the first step ``m_1 / (1 - beta1) = g_1``, so every
coordinate moves by about ``lr``, whatever the gradient's scale.  The options:

* ``amsgrad=True`` (AMSGrad) divides by the largest second moment seen so
  far, ``vmax_t = max(vmax_{t-1}, v_t)`` elementwise (kept as
  ``max_exp_avg_sq``), bias-corrected like ``v_t``: the denominator never
  forgets a large gradient;
* ``weight_decay`` adds ``weight_decay * p`` to the gradient (an L2 penalty),
  which the moments then average; with ``decoupled_weight_decay=True``
  (AdamW) the parameter shrinks instead, ``p *= 1 - lr * weight_decay``, before
  the step, and the moments see only the gradient;
* ``maximize=True`` climbs: it uses ``-g`` (before any weight decay);
* ``foreach``, ``capturable``, ``fused`` are accepted, and change nothing (see
  ``optimizer._check_implementation``).

The update of one parameter is ``adam_update``, exercise 09.adam_update; its
numbers are PyTorch's (``_single_tensor_adam``, the same operations in the same
order).
"""

from ..creation import tensor, zeros_like
from ..grad_mode import no_grad
from .optimizer import Optimizer, _check_betas, _check_implementation

__all__ = ["Adam"]

_OPTIONS = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "decoupled_weight_decay")


class Adam(Optimizer):
    """Adam: per-coordinate step sizes from running moments of the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_betas(lr, eps, betas, weight_decay)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        _check_implementation(foreach, fused, differentiable)

    @no_grad()
    def step(self, closure=None):
        """Update, in place, every parameter whose ``.grad`` is not None."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            options = {key: group[key] for key in _OPTIONS}
            for p in group["params"]:
                if p.grad is not None:
                    adam_update(p, self.state[p], **options)
        return loss


def adam_update(param, state, *, lr, betas, eps, weight_decay, amsgrad, maximize,
                decoupled_weight_decay):
    """One Adam step for one parameter, in place (runs under no_grad, inside ``step``).

    Args:
        param: a parameter whose ``.grad`` is not None.  It is updated in place (it stays
            the same tensor); ``param.grad`` is left as it is.
        state: the parameter's state dict, empty before its first step, as
            ``optimizer.state[param]`` shows it.  The first step fills it with ``"step"``
            (a float32 scalar tensor, the number of steps taken), ``"exp_avg"`` and
            ``"exp_avg_sq"`` (the two moments, shaped and typed like ``param``) and, with
            ``amsgrad``, ``"max_exp_avg_sq"``; later steps update these tensors in place.
        lr, betas, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay: the
            options of ``Adam`` (``betas`` is the pair ``(beta1, beta2)``).

    Returns:
        None.
    """
    if len(state) == 0:                              # first step of this parameter
        state["step"] = tensor(0.0)
        state["exp_avg"] = zeros_like(param)
        state["exp_avg_sq"] = zeros_like(param)
        if amsgrad:
            state["max_exp_avg_sq"] = zeros_like(param)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    beta1, beta2 = betas

    grad = param.grad if not maximize else -param.grad
    state["step"] += 1
    if weight_decay != 0:
        if decoupled_weight_decay:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)

    # PyTorch: exp_avg.lerp_(grad, 1 - beta1) and
    # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2).
    exp_avg.add_(grad - exp_avg, alpha=1 - beta1)
    exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)

    step = state["step"].item()
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5

    if amsgrad:
        max_exp_avg_sq = state["max_exp_avg_sq"]
        max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
        second_moment = max_exp_avg_sq
    else:
        second_moment = exp_avg_sq
    denom = (second_moment.sqrt() / bias_correction2_sqrt).add_(eps)
    # PyTorch: param.addcdiv_(exp_avg, denom, value=-step_size).
    param.add_(-step_size * exp_avg / denom)
