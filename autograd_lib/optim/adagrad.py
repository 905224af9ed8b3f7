"""``Adagrad``: divide each coordinate's step by the root of its summed squared gradients.

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's
``_single_tensor_adagrad``, same operations in the same order)::

    g = g + weight_decay * p                          # L2 penalty, if weight_decay
    clr = lr / (1 + (t - 1) * lr_decay)               # the decayed learning rate
    sum = sum + g * g                                 # addcmul_, value=1
    p = p + (-clr * g) / (sqrt(sum) + eps)            # addcdiv_

Coordinates with large past gradients take ever smaller steps (Duchi et al., 2011).
Unlike the other optimizers, Adagrad fills its state when it is *built*: every parameter
gets ``"step"`` (a float32 0-dim tensor, 0) and ``"sum"`` (``initial_accumulator_value``
everywhere); a parameter added later gets them at its first step, from the optimizer's
``defaults``.  ``maximize=True`` uses ``-g``.  ``foreach`` and ``fused`` are accepted and
change nothing (see ``optimizer._check_implementation``).
"""

from ..creation import full_like, tensor
from .optimizer import GroupwiseOptimizer, _check_implementation

__all__ = ["Adagrad"]


class Adagrad(GroupwiseOptimizer):
    """Adagrad: per-coordinate steps shrinking with the sum of the squared gradients."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_implementation(foreach, fused, differentiable)
        for group in self.param_groups:        # as PyTorch: the argument, not the group's value
            for p in group["params"]:
                self.state[p].update(step=tensor(0.0), **self._fresh(p))

    def _update_group(self, group):
        """Update, in place, the parameters of ``group`` that have a ``.grad``."""
        lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
        for p, grad, state in self._with_grads(group, self._fresh):
            step = state["step"].item()
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            state_sum.add_(grad * grad)                     # addcmul_(grad, grad, value=1)
            std = state_sum.sqrt().add_(eps)
            p.add_(-clr * grad / std)                       # addcdiv_(grad, std, value=-clr)

    def _fresh(self, p):
        """A parameter's first state (after ``step``): ``sum`` at ``initial_accumulator_value``,
        the optimizer's (a group added later does not change it, as in PyTorch)."""
        return {"sum": full_like(p, self.defaults["initial_accumulator_value"])}
