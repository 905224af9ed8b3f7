"""More activation functions: ``leaky_relu``, ``elu``, ``gelu``, ``silu``, ``softplus``.

Each computes elementwise with NumPy and records one node, named as PyTorch names
it (``LeakyReluBackward0``, ``GeluBackward0``, ...; the rules are in
``derivatives/activations.py``).  As for ``relu``'s ``threshold_backward``, the gradients of
``leaky_relu``, ``elu``, ``gelu`` and ``softplus`` are ops of their own here, as
in PyTorch, so that with ``create_graph=True`` the gradient's graph is PyTorch's
(``GeluBackwardBackward0``, ...) and can be differentiated again.  ``silu``'s
gradient is written with plain ops, as PyTorch writes it.

``F.gelu`` needs the error function, which NumPy lacks: ``math.erf`` is applied
element by element (exact, and slower than the rest; fine for a course's sizes).
"""

import math

import numpy as np

from ..recording import record
from .arithmetic import add_scalar, mul_scalar
from .operands import floating, gradient_op, quietly, to_tensor
from . import pointwise
from .pointwise import exp, sigmoid, tanh, where

__all__ = ["leaky_relu", "elu", "gelu", "silu", "softplus"]

_erf = np.frompyfunc(math.erf, 1, 1)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_TANH_COEF = 0.044715


def _float_input(input):
    return floating(to_tensor(input))


def _same_dtype(array, like):
    return np.asarray(array, dtype=like.dtype)


# -------------------------------------------------------------- leaky_relu

def leaky_relu(input, negative_slope=0.01):
    """``input`` where positive, else ``negative_slope * input``."""
    input = _float_input(input)
    x = input._data
    array = quietly(np.where, x > 0, x, x * _same_dtype(negative_slope, x))
    return record("leaky_relu", _same_dtype(array, x), (input,), {"negative_slope": negative_slope})


def leaky_relu_backward(grad_output, self, negative_slope):
    """``grad_output`` where ``self > 0``, else ``negative_slope * grad_output``."""
    return gradient_op("leaky_relu_backward", lambda g, x: np.where(x > 0, g, g * negative_slope),
                       grad_output, self, {"negative_slope": negative_slope})


# -------------------------------------------------------------------- elu

def elu(input, alpha=1.0):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``."""
    input = _float_input(input)
    x = input._data
    array = quietly(np.where, x > 0, x, alpha * np.expm1(np.minimum(x, 0)))
    return record("elu", _same_dtype(array, x), (input,), {"alpha": alpha})


def elu_backward(grad_output, self, alpha):
    """``grad_output`` where ``self > 0``, else ``grad_output * alpha * exp(self)``."""
    return gradient_op("elu_backward", lambda g, x: np.where(x > 0, g, g * alpha * np.exp(np.minimum(x, 0))),
                       grad_output, self, {"alpha": alpha})


def elu_curvature(self, alpha):
    """d2 elu / dx2 at ``self`` with tensor ops: ``alpha * exp(x)`` where ``x < 0``, else 0."""
    return where(self < 0, mul_scalar(exp(self), alpha), 0.0)


# ------------------------------------------------------------------- gelu

def _check_approximate(approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu_tanh_parts(x):
    """For the tanh approximation: ``t = tanh(u)``, ``u'`` and ``u''``, with
    ``u = sqrt(2/pi) * (x + 0.044715 x**3)``."""
    t = np.tanh(_SQRT_2_OVER_PI * (x + _TANH_COEF * x ** 3))
    du = _SQRT_2_OVER_PI * (1 + 3 * _TANH_COEF * x ** 2)
    d2u = _SQRT_2_OVER_PI * 6 * _TANH_COEF * x
    return t, du, d2u


def _gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + _gelu_tanh_parts(x)[0])
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)).astype(x.dtype))


def _gelu_grad(x, approximate):
    """d gelu / dx: ``Phi(x) + x phi(x)`` (exact), or the tanh form's derivative."""
    if approximate == "tanh":
        t, du, _ = _gelu_tanh_parts(x)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du
    cdf = 0.5 * (1 + _erf(x / math.sqrt(2)).astype(x.dtype))
    return cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def gelu(input, approximate="none"):
    """``x * Phi(x)``, Phi the standard normal's CDF (``approximate="tanh"``: its tanh form)."""
    _check_approximate(approximate)
    input = _float_input(input)
    array = quietly(_gelu, input._data, approximate)
    return record("gelu", _same_dtype(array, input._data), (input,), {"approximate": approximate})


def gelu_backward(grad_output, self, approximate):
    return gradient_op("gelu_backward", lambda g, x: g * _gelu_grad(x, approximate),
                       grad_output, self, {"approximate": approximate})


def gelu_curvature(self, approximate):
    """d2 gelu / dx2 at ``self``, written with tensor ops so that it can be differentiated
    again: ``phi(x) (2 - x**2)`` (exact), or the tanh form's
    ``(1 - t**2) (u' - x t u'**2 + x u''/2)``."""
    x = self
    if approximate == "tanh":
        du = add_scalar(mul_scalar(x * x, 3 * _TANH_COEF * _SQRT_2_OVER_PI), _SQRT_2_OVER_PI)
        t = tanh(mul_scalar(x + mul_scalar(x * x * x, _TANH_COEF), _SQRT_2_OVER_PI))
        d2u = mul_scalar(x, 6 * _TANH_COEF * _SQRT_2_OVER_PI)
        return (1 - t * t) * (du - x * t * du * du + mul_scalar(x * d2u, 0.5))
    return mul_scalar(exp(mul_scalar(x * x, -0.5)), 1 / math.sqrt(2 * math.pi)) * (2 - x * x)


# -------------------------------------------------------------------- silu

def silu(input):
    """``input * sigmoid(input)``."""
    input = _float_input(input)
    x = input._data
    array = quietly(lambda: x / (1 + np.exp(-x)))
    return record("silu", _same_dtype(array, x), (input,))


# ---------------------------------------------------------------- softplus

def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``; ``input`` itself where ``beta * input > threshold``."""
    input = _float_input(input)
    x = input._data
    bx = x * beta
    array = quietly(lambda: np.where(bx > threshold, x, np.logaddexp(0, bx) / beta))
    return record("softplus", _same_dtype(array, x), (input,), {"beta": beta, "threshold": threshold})


def _softplus_slope(x, beta, threshold):
    bx = x * beta
    return np.where(bx > threshold, 1.0, 1 / (1 + np.exp(-np.minimum(bx, threshold))))


def softplus_backward(grad_output, self, beta, threshold):
    return gradient_op("softplus_backward", lambda g, x: g * _softplus_slope(x, beta, threshold),
                       grad_output, self, {"beta": beta, "threshold": threshold})


def softplus_double_backward(grad, self, beta, threshold):
    """``grad`` times d2 softplus / dx2 at ``self``, with tensor ops in PyTorch's order:
    ``sigmoid_backward(grad, sigmoid(beta x)) * (beta x < threshold) * beta``."""
    bx = mul_scalar(self, beta)
    return mul_scalar(pointwise.sigmoid_backward(grad, sigmoid(bx)) * (bx < threshold), beta)
