"""The rest of PyTorch's activation layers (re-exported by ``activation.py``): ``ReLU6``,
``Hardtanh``, ``SELU``, ``CELU``, ``Mish``, ``Softsign``, ``Hardsigmoid``, ``Hardswish``,
``LogSigmoid``, ``Softmin``, ``Tanhshrink``, ``Hardshrink``, ``Softshrink``, ``Threshold``, ``GLU``.
Each calls the function of the same name in ``nn.functional``; its repr is PyTorch's.
"""

from . import functional as F
from .module import Module

__all__ = ["ReLU6", "Hardtanh", "SELU", "CELU", "Mish", "Softsign", "Hardsigmoid", "Hardswish",
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
