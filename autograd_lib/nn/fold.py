"""``nn.Unfold`` and ``nn.Fold``: an image cut into the blocks a sliding window sees, laid
out as columns, and the columns added back into an image (``F.unfold``, ``F.fold``)."""

from . import functional as F
from .module import Module

__all__ = ["Unfold", "Fold"]


def _options_repr(module):
    return (f"kernel_size={module.kernel_size}, dilation={module.dilation}, padding={module.padding}, "
            f"stride={module.stride}")


class Unfold(Module):
    """``(N, C, H, W)`` to ``(N, C * kh * kw, L)``: every ``kernel_size`` block as a column."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return _options_repr(self)


class Fold(Module):
    """``(N, C * kh * kw, L)`` to ``(N, C, *output_size)``: the columns added back into blocks."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, " + _options_repr(self)
