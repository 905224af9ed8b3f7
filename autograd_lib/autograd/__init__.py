"""``autograd_lib.autograd``: the user-facing entry points of the engine.

* :func:`backward` accumulates gradients into ``.grad`` (``t.backward()`` calls it);
* :func:`grad` returns gradients without touching ``.grad`` (the functional form);
* :class:`Function` defines a new differentiable operation with your own backward;
* :func:`gradcheck` compares analytic gradients with finite differences;
* :class:`detect_anomaly` / :func:`set_detect_anomaly`: anomaly mode (anomaly_mode.py).
"""

from . import anomaly_mode, functional, graph
from .. import grad_mode             # as torch.autograd.grad_mode
from .functional import backward, grad
from . import function
from .function import Function, FunctionCtx, once_differentiable
from .variable import Variable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck, numerical_grad, numerical_jacobian
from .anomaly_mode import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,
                           is_anomaly_check_nan_enabled, set_multithreading_enabled,
                           is_multithreading_enabled)
from ..grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                         is_inference_mode_enabled)

__all__ = ["backward", "grad", "Function", "FunctionCtx", "gradcheck", "gradgradcheck", "GradcheckError", "numerical_grad", "numerical_jacobian",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "detect_anomaly", "set_detect_anomaly",
           "set_multithreading_enabled", "is_multithreading_enabled", "Variable"]
