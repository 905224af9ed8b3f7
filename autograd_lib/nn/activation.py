"""Activation layers: elementwise nonlinearities and (log-)softmax, as modules.

Each one only calls the function of the same name in ``nn.functional``; the
module form lets you list it in an ``nn.Sequential``.  ``Dropout`` is here too:
an elementwise layer whose behaviour depends on ``train()``/``eval()``.
"""

from . import functional as F
from .module import Module

__all__ = ["ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "GELU", "SiLU",
           "Softplus", "Dropout"]


class ReLU(Module):
    """``max(x, 0)``; ``inplace=True`` overwrites the input."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(x)``, into (-1, 1)."""

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``, into (0, 1)."""

    def forward(self, input):
        return F.sigmoid(input)


class Softmax(Module):
    """Probabilities along ``dim``: non-negative, summing to 1."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-probabilities along ``dim`` (pair it with ``NLLLoss``)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


# ------------------------------------------------- more activations (ops/activations.py)

class LeakyReLU(Module):
    """``x`` where positive, else ``negative_slope * x``: a small slope instead of relu's 0."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``: smooth, bounded below by ``-alpha``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """``x * Phi(x)`` (Phi: the standard normal CDF); ``approximate="tanh"`` for its tanh form."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)`` (also called swish)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, a smooth relu (``x`` itself past ``threshold``)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Dropout(Module):
    """In training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; in ``eval()`` mode, the input itself."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        F._check_dropout(p)
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"



class Dropout1d(Dropout):
    """Zero whole channels of ``(N, C, L)`` inputs with probability ``p`` (in training)."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of ``(N, C, H, W)`` inputs with probability ``p`` (in training)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


__all__ += ["Dropout1d", "Dropout2d"]


# ------------------------------------------------- the rest of PyTorch's activation layers
# ReLU6, Hardtanh, SELU, CELU, Mish, Softsign, Hardsigmoid, Hardswish, LogSigmoid, Softmin,
# Tanhshrink, Hardshrink, Softshrink, Threshold, GLU: each calls F's function of its name.

__all__ += ["ReLU6", "Hardtanh", "SELU", "CELU", "Mish", "Softsign", "Hardsigmoid", "Hardswish",
            "LogSigmoid", "Softmin", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "GLU"]


class _Inplace(Module):
    """An activation without settings but ``inplace``."""
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class _Plain(Module):
    """An activation without settings."""
    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class ReLU6(_Inplace):
    """``min(max(x, 0), 6)``."""
    _fn = staticmethod(F.relu6)


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with fixed constants: self-normalizing."""
    _fn = staticmethod(F.selu)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``."""
    _fn = staticmethod(F.mish)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``: a piecewise-linear sigmoid."""
    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self):
        return ""


class Hardswish(Hardsigmoid):
    """``x * relu6(x + 3) / 6``."""
    _fn = staticmethod(F.hardswish)


class Softsign(_Plain):
    """``x / (1 + |x|)``."""
    _fn = staticmethod(F.softsign)


class LogSigmoid(_Plain):
    """``log(sigmoid(x))``."""
    _fn = staticmethod(F.logsigmoid)


class Tanhshrink(_Plain):
    """``x - tanh(x)``."""
    _fn = staticmethod(F.tanhshrink)


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if max_val <= min_val:
            raise AssertionError

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class CELU(Module):
    """``x`` where positive, else ``alpha * (exp(x / alpha) - 1)``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softmin(Module):
    """Probabilities along ``dim`` favouring the smallest values: ``softmax(-x)``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x`` moved ``lambd`` towards 0, 0 within ``[-lambd, lambd]``."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """``a * sigmoid(b)``, ``a``, ``b`` the halves of the input along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
