"""The activations of ``nn.functional`` that record a node of their own.

``hardtanh`` (and ``relu6``), ``selu``, ``celu``, ``mish``, ``hardsigmoid``,
``hardswish``, ``logsigmoid``, ``hardshrink``, ``softshrink``, ``threshold`` and
``glu`` compute with NumPy and record one node each, named as PyTorch names it
(``HardtanhBackward0``, ``EluBackward0`` for selu, ...; the rules are in
``derivatives/nn_ops.py``).  As for ``relu``, most gradients are ops of their own
(``hardtanh_backward``, ...) so that a ``create_graph=True`` gradient has
PyTorch's graph (``HardtanhBackwardBackward0``) and can be differentiated again.

``selu`` and ``celu`` are both PyTorch's general elu,
``scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1))``:
selu with fixed constants, celu with ``input_scale = 1 / alpha``.

The in-place forms (``hardtanh_``, ``selu_``, ...) record ops whose rules read
the *result* (the input is overwritten), as PyTorch's in-place rules do.

The ops behind layers (``embedding``, ``native_layer_norm``, ``native_batch_norm``,
``native_group_norm``, ``constant_pad_nd``, ``one_hot``, ...) are in ``nn_layers.py``,
re-exported here.
"""

import numpy as np

from ..dtypes import LEGACY_NAMES
from ..recording import record
from ..tensor import Tensor
from .inplace import _inplace
from .operands import gradient_op, quietly, to_tensor
from .nn_layers import *  # noqa: F401,F403  (embedding, native_layer_norm, constant_pad_nd, ...)
from . import nn_layers as _layers
from ..op_table import op

__all__ = ["hardtanh", "hardtanh_", "relu6", "selu", "selu_", "celu", "celu_", "mish", "hardsigmoid",
           "hardswish", "logsigmoid", "hardshrink", "softshrink", "threshold", "threshold_", "glu",
           "hardtanh_backward", "elu_backward", "hardsigmoid_backward", "hardswish_backward",
           "log_sigmoid_backward", "shrink_backward", "glu_backward", *_layers.__all__]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _floating_input(input, name):
    input = to_tensor(input)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}'")
    return input


def _pointwise(op, fn, input, params=None):
    """Record ``op``, computed elementwise as ``fn(x)`` in ``input``'s dtype."""
    x = input._data
    array = quietly(fn, x)
    return record(op, np.asarray(array, dtype=x.dtype), (input,), params)


# ---------------------------------------------------------------- hardtanh

def _check_hardtanh(min_val, max_val):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")


def hardtanh(input, min_val=-1.0, max_val=1.0, *, op="hardtanh"):
    """``input`` clipped to ``[min_val, max_val]`` (HardtanhBackward0)."""
    _check_hardtanh(min_val, max_val)
    input = to_tensor(input)                 # integers stay integers, as in PyTorch
    return _pointwise(op, lambda x: np.clip(x, min_val, max_val), input,
                      {"min_val": min_val, "max_val": max_val})


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    _check_hardtanh(min_val, max_val)
    return _inplace(input, lambda s: hardtanh(s, min_val, max_val, op="hardtanh_"))


def relu6(input):
    """``min(max(x, 0), 6)``: hardtanh between 0 and 6, as PyTorch records it."""
    return hardtanh(input, 0.0, 6.0)


def hardtanh_backward(grad_output, self, min_val, max_val):
    """``grad_output`` strictly inside ``(min_val, max_val)``, else 0."""
    return gradient_op("hardtanh_backward", lambda g, x: np.where((x > min_val) & (x < max_val), g, 0),
                       grad_output, self, {"min_val": min_val, "max_val": max_val})


# ------------------------------------------------- selu, celu (general elu)

def _elu(x, alpha, scale, input_scale):
    return np.where(x > 0, scale * x, scale * alpha * np.expm1(np.minimum(x, 0) * input_scale))


def _general_elu(op, input, alpha, scale, input_scale, name):
    input = _floating_input(input, name)
    return _pointwise(op, lambda x: _elu(x, alpha, scale, input_scale), input,
                      {"alpha": alpha, "scale": scale, "input_scale": input_scale})


@op(public=True)
def selu(input, *, op="selu"):
    """``scale * elu(x, alpha)`` with SELU's fixed constants (EluBackward0, as PyTorch)."""
    return _general_elu(op, input, SELU_ALPHA, SELU_SCALE, 1.0, "elu_cpu")


def selu_(input):
    return _inplace(input, lambda s: selu(s, op="selu_"))


def _check_celu(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


@op(public=True)
def celu(input, alpha=1.0, *, op="celu"):
    """``x`` where positive, else ``alpha * (exp(x / alpha) - 1)`` (CeluBackward0)."""
    _check_celu(alpha)
    return _general_elu(op, input, alpha, 1.0, 1.0 / alpha, "elu_cpu")


def celu_(input, alpha=1.0):
    _check_celu(alpha)
    return _inplace(input, lambda s: celu(s, alpha, op="celu_"))


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """The general elu's gradient, from the input or (``is_result``) from the output."""
    def fn(g, x):
        if is_result:
            negative = input_scale * (x + scale * alpha)
        else:
            negative = scale * alpha * input_scale * np.exp(np.minimum(x, 0) * input_scale)
        return np.where(x > 0, g * scale, g * negative)
    return gradient_op("elu_backward.general", fn, grad_output, self_or_result,
                       {"alpha": alpha, "scale": scale, "input_scale": input_scale,
                        "is_result": is_result})


# ------------------------------------------------------------------- mish

def mish(input):
    """``x * tanh(softplus(x))`` (MishBackward0)."""
    input = _floating_input(input, "mish_cpu")
    return _pointwise("mish", lambda x: x * np.tanh(np.logaddexp(0, x)), input)


# ------------------------------------------------- hardsigmoid, hardswish

def hardsigmoid(input):
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between (HardsigmoidBackward0)."""
    input = _floating_input(input, "hardsigmoid_cpu")
    return _pointwise("hardsigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, input)


def hardsigmoid_backward(grad_output, self):
    """``grad_output / 6`` strictly between -3 and 3, else 0 (1/6 rounded to float32, as
    PyTorch).  PyTorch does not differentiate it: only ``self`` gets an edge, to a node
    that raises (NotImplemented)."""
    g, x = grad_output._data, self._data
    sixth = float(np.float32(1 / 6))
    array = np.where((x > -3) & (x < 3), g * sixth, 0).astype(g.dtype, copy=False)
    return record("hardsigmoid_backward", array, (self,))


def hardswish(input):
    """``x * relu6(x + 3) / 6`` (HardswishBackward0)."""
    input = _floating_input(input, "hardswish_cpu")
    return _pointwise("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, input)


def hardswish_backward(grad_output, self):
    return gradient_op("hardswish_backward",
                       lambda g, x: np.where(x <= -3, 0, np.where(x < 3, g * (x / 3 + 0.5), g)),
                       grad_output, self)


# -------------------------------------------------------------- logsigmoid

def logsigmoid(input):
    """``log(sigmoid(x)) = -softplus(-x)``, computed stably (LogSigmoidBackward0)."""
    input = _floating_input(input, "log_sigmoid_cpu")
    return _pointwise("log_sigmoid_forward", lambda x: -np.logaddexp(0, -x), input)


def log_sigmoid_backward(grad_output, self):
    """``grad_output * sigmoid(-x)``."""
    return gradient_op("log_sigmoid_backward", lambda g, x: g / (1 + np.exp(x)), grad_output, self)


# ------------------------------------------------------------- shrinkages

def _check_lambd(lambd, input):
    if lambd < 0:
        largest = float(np.finfo(input._data.dtype).max)
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}, "
                           f"but found {lambd:g}")


@op("hardshrink", public=True)
def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0 (HardshrinkBackward0)."""
    input = _floating_input(input, "hardshrink_cpu")
    return _pointwise("hardshrink", lambda x: np.where(np.abs(x) > lambd, x, 0), input, {"lambd": lambd})


def softshrink(input, lambd=0.5):
    """``x`` moved ``lambd`` towards 0, and 0 within ``[-lambd, lambd]`` (SoftshrinkBackward0)."""
    input = _floating_input(input, "softshrink_cpu")
    _check_lambd(lambd, input)
    def fn(x):
        return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0))
    return _pointwise("softshrink", fn, input, {"lambd": lambd})


def shrink_backward(op, grad_output, self, lambd):
    """``grad_output`` where ``|x| > lambd``, else 0 (both shrinks' gradient)."""
    return gradient_op(op, lambda g, x: np.where(np.abs(x) > lambd, g, 0), grad_output, self,
                       {"lambd": lambd})


# --------------------------------------------------------------- threshold

@op(public=True)
def threshold(input, threshold, value, *, op="threshold"):
    """``x`` where ``x > threshold``, else ``value`` (ThresholdBackward0)."""
    input = to_tensor(input)
    return _pointwise(op, lambda x: np.where(x > threshold, x, value), input,
                      {"threshold": threshold, "value": value})


def threshold_(input, threshold_value, value):
    return _inplace(input, lambda s: threshold(s, threshold_value, value, op="threshold_"))


# -------------------------------------------------------------------- glu

def _glu_dim(input, dim):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = dim % input.ndim
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size "
                           f"{input.shape[dim]}")
    return dim


def _halves(x, dim):
    return np.split(x, 2, axis=dim)


def glu(input, dim=-1):
    """``a * sigmoid(b)``, ``a`` and ``b`` the two halves of ``input`` along ``dim`` (GluBackward0)."""
    input = _floating_input(input, "glu_cpu")
    dim = _glu_dim(input, dim)

    def fn(x):
        a, b = _halves(x, dim)
        return a / (1 + np.exp(-b))
    return _pointwise("glu", fn, input, {"dim": dim})


def glu_backward(grad_output, self, dim):
    """The gradient of both halves, side by side: ``g s`` and ``g a s (1 - s)``."""
    def fn(g, x):
        a, b = _halves(x, dim)
        s = 1 / (1 + np.exp(-b))
        return np.concatenate([g * s, g * a * s * (1 - s)], axis=dim)
    return gradient_op("glu_backward", fn, grad_output, self, {"dim": dim})


