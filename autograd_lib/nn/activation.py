"""Activation layers: elementwise nonlinearities and (log-)softmax, as modules.

Each one only calls the function of the same name in ``nn.functional``; the
module form lets you list it in an ``nn.Sequential``.
"""

from . import functional as F
from .module import Module

__all__ = ["ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax"]


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
