"""``RMSprop``: divide each coordinate's step by a running root-mean-square of its gradient.

For each parameter ``p`` with gradient ``g`` (PyTorch's ``_single_tensor_rmsprop``,
same operations in the same order)::

    g = g + weight_decay * p                          # L2 penalty, if weight_decay
    square_avg = alpha * square_avg + (1 - alpha) * g * g
    avg = sqrt(square_avg) + eps                      # centered: sqrt(square_avg - grad_avg**2)
    buf = momentum * buf + g / avg;  p -= lr * buf    # with momentum
    p -= lr * g / avg                                 # without

``centered=True`` keeps a running mean of the gradient too (``grad_avg``) and
divides by the running standard deviation instead.  ``maximize=True`` uses ``-g``.
``capturable`` and ``foreach`` are accepted, and change nothing.
"""

from ..creation import zeros_like
from .optimizer import GroupwiseOptimizer, _check_implementation

__all__ = ["RMSprop"]


class RMSprop(GroupwiseOptimizer):
    """RMSprop (Hinton's lecture 6e): per-coordinate steps scaled by recent gradient sizes."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        for name, value in (("learning rate", lr), ("epsilon value", eps),
                            ("momentum value", momentum), ("weight_decay value", weight_decay),
                            ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)
        _check_implementation(foreach, None, differentiable)

    def _update_group(self, group):
        """Update, in place, the parameters of ``group`` that have a ``.grad``."""
        alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
        for p, grad, state in self._with_grads(group, lambda p: _fresh(p, momentum, group["centered"])):
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).add_((1 - alpha) * grad * grad)   # addcmul_
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg.add_(grad - grad_avg, alpha=1 - alpha)       # lerp_
                avg = (square_avg - grad_avg * grad_avg).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(grad / avg)                   # addcdiv_
                p.add_(buf, alpha=-group["lr"])
            else:
                p.add_(grad / avg, alpha=-group["lr"])                    # addcdiv_


def _fresh(p, momentum, centered):
    """A parameter's first state (after ``step``): the buffers its options use."""
    state = {"square_avg": zeros_like(p)}
    if momentum > 0:
        state["momentum_buffer"] = zeros_like(p)
    if centered:
        state["grad_avg"] = zeros_like(p)
    return state
