"""``SGD``: stochastic gradient descent, with momentum, Nesterov and weight decay.

Each step updates every parameter in place, under ``no_grad``, with the operations of
PyTorch's ``_single_tensor_sgd`` in the same order, so the numbers are PyTorch's: the
L2 penalty (``weight_decay``), then the momentum buffer (a copy of the first gradient,
then a decaying average with ``dampening``), with Nesterov's look-ahead if asked, then
the step of size ``lr``.  How, exactly, is exercise 09.sgd_update (``sgd_update``).

``maximize=True`` uses ``-g``, climbing the objective instead.  ``foreach`` and ``fused``
are accepted, and change nothing (see ``optimizer._check_implementation``).
"""

from ..grad_mode import no_grad
from .optimizer import Optimizer, _check_implementation

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent; ``momentum`` averages the recent gradients (a heavy ball)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_implementation(foreach, fused, differentiable)

    @no_grad()
    def step(self, closure=None):
        """Update, in place, every parameter whose ``.grad`` is not None."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            options = {key: group[key] for key in ("lr", "momentum", "dampening", "weight_decay",
                                                   "nesterov", "maximize")}
            for p in group["params"]:
                if p.grad is not None:
                    # Only momentum keeps state: without it, self.state stays empty (as in PyTorch).
                    sgd_update(p, self.state[p] if group["momentum"] != 0 else {}, **options)
        return loss


def sgd_update(param, state, *, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """One SGD step for one parameter, in place (runs under no_grad, inside ``step``).

    ``state`` is the parameter's state dict: it keeps the ``"momentum_buffer"``
    from one step to the next."""
    grad = param.grad if not maximize else -param.grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = grad.detach().clone()
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - dampening)
        grad = grad.add(buf, alpha=momentum) if nesterov else buf
    param.add_(grad, alpha=-lr)
