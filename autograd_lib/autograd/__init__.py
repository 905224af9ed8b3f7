"""``autograd_lib.autograd``: the user-facing entry points of the engine.

* :func:`backward` accumulates gradients into ``.grad`` (``t.backward()`` calls it);
* :func:`grad` returns gradients without touching ``.grad`` (the functional form);
* :class:`Function` defines a new differentiable operation with your own backward;
* :func:`gradcheck` compares analytic gradients with finite differences.
"""

from . import functional, graph
from .functional import backward, grad
from . import function
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck, numerical_grad, numerical_jacobian
from ..grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                         is_inference_mode_enabled)

__all__ = ["backward", "grad", "Function", "FunctionCtx", "gradcheck", "gradgradcheck", "GradcheckError", "numerical_grad", "numerical_jacobian",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]
