"""The rest of PyTorch's activations in ``nn.functional`` (re-exported by ``functional.py``):
``relu6``, ``hardtanh``, ``selu``, ``celu``, ``mish``, ``softsign``, ``hardsigmoid``,
``hardswish``, ``logsigmoid``, ``softmin``, ``tanhshrink``, ``hardshrink``, ``softshrink``,
``threshold``, ``glu``.

Those with a node of their own are ops of ``ops/nn_ops.py``; the others are built
from existing ops exactly as PyTorch builds them, so the graph is the same
(``softsign`` is ``x / (|x| + 1)``: DivBackward0; ``softmin`` is ``softmax(-x)``).
"""

import warnings

from ..ops import losses as _losses
from ..ops.inplace import _inplace
from ..ops import nn_ops as _N
from ..ops.pointwise import tanh as _tanh

__all__ = ["relu6", "hardtanh", "hardtanh_", "selu", "celu", "mish", "softsign", "hardsigmoid",
           "hardswish", "logsigmoid", "softmin", "tanhshrink", "hardshrink", "softshrink", "threshold",
           "threshold_", "glu"]


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clipped to ``[min_val, max_val]`` (HardtanhBackward0)."""
    return (_N.hardtanh_ if inplace else _N.hardtanh)(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _N.hardtanh_(input, min_val, max_val)


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``: recorded as hardtanh (HardtanhBackward0), as in PyTorch."""
    return hardtanh(input, 0.0, 6.0, inplace)


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with fixed constants (EluBackward0)."""
    return _N.selu_(input) if inplace else _N.selu(input)


def celu(input, alpha=1.0, inplace=False):
    """``x`` where positive, else ``alpha * (exp(x / alpha) - 1)`` (CeluBackward0)."""
    return _N.celu_(input, alpha) if inplace else _N.celu(input, alpha)


def _in_place(fn, input):
    """``fn(input)`` written back into ``input`` (PyTorch's in-place form)."""
    return _inplace(input, fn)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))`` (MishBackward0)."""
    return _in_place(_N.mish, input) if inplace else _N.mish(input)


def softsign(input):
    """``x / (1 + |x|)``, into (-1, 1)."""
    return input / (input.abs() + 1)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6`` (HardsigmoidBackward0)."""
    return _in_place(_N.hardsigmoid, input) if inplace else _N.hardsigmoid(input)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6`` (HardswishBackward0)."""
    return _in_place(_N.hardswish, input) if inplace else _N.hardswish(input)


def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably (LogSigmoidBackward0)."""
    return _N.logsigmoid(input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x, dim)``: probabilities favouring the smallest values."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call to "
                      "include dim=X as an argument.", stacklevel=_stacklevel)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _losses.softmax(-input, dim, dtype=dtype)


def tanhshrink(input):
    """``x - tanh(x)`` (SubBackward0)."""
    return input - _tanh(input)


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0 (HardshrinkBackward0)."""
    return _N.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0 (SoftshrinkBackward0)."""
    return _N.softshrink(input, lambd)


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value`` (ThresholdBackward0)."""
    return (_N.threshold_ if inplace else _N.threshold)(input, threshold, value)


def threshold_(input, threshold, value):
    return _N.threshold_(input, threshold, value)


def glu(input, dim=-1):
    """``a * sigmoid(b)``, ``a`` and ``b`` the halves of ``input`` along ``dim`` (GluBackward0)."""
    return _N.glu(input, dim)
