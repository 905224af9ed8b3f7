"""The convolution layers ``nn.Conv1d`` and ``nn.Conv2d``: a learned ``weight``
``(out_channels, in_channels / groups, *kernel_size)`` and ``bias`` ``(out_channels)``,
applied by ``F.conv1d`` / ``F.conv2d``; and the transposed ones, ``nn.ConvTranspose1d`` and
``nn.ConvTranspose2d`` (weight ``(in_channels, out_channels / groups, *kernel_size)``, applied
by ``F.conv_transpose1d`` / ``F.conv_transpose2d``), whose ``forward`` may be given the
``output_size`` it should reach among those the stride allows.

``padding_mode`` says what the padding holds: zeros (``"zeros"``, done by the convolution
itself) or the input's own border (``"reflect"``, ``"replicate"``, ``"circular"``: the input
goes through ``F.pad`` first, then a convolution without padding), as in PyTorch.  A
transposed convolution has zeros only.
"""

import math

from ..creation import empty
from ..tensor import Size
from . import functional as F
from . import init
from .init import _calculate_fan_in_and_fan_out
from .module import Module
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]


def _ntuple(value, n):
    """An int as ``n`` copies of it; anything else as a tuple (PyTorch's ``_pair``, ``_single``)."""
    return tuple(value) if not isinstance(value, int) else (value,) * n


class _ConvNd(Module):
    dims = 2                               # spatial dims (the subclasses set it)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        kernel_size, stride, dilation = (_ntuple(v, self.dims) for v in (kernel_size, stride, dilation))
        padding = padding if isinstance(padding, str) else _ntuple(padding, self.dims)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        padding_strings = {"same", "valid"}          # (in PyTorch's order: its messages print these sets)
        if isinstance(padding, str):
            if padding not in padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in padding_modes:
            raise ValueError(f"padding_mode must be one of {padding_modes}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed, self.output_padding = False, (0,) * self.dims
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = self._border(padding, kernel_size, dilation)
        self.weight = Parameter(empty(self._weight_shape(in_channels, out_channels, groups, kernel_size), dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    @staticmethod
    def _weight_shape(in_channels, out_channels, groups, kernel_size):
        return (out_channels, in_channels // groups, *kernel_size)

    def _border(self, padding, kernel_size, dilation):
        """What ``F.pad`` adds for a non-zeros ``padding_mode``: (left, right) per dim, last dim first."""
        if padding == "valid":
            return [0, 0] * self.dims
        if padding == "same":
            pad = []
            for d, k in zip(reversed(dilation), reversed(kernel_size)):
                total = d * (k - 1)
                pad += [total // 2, total - total // 2]
            return pad
        return tuple(p for p in reversed(padding) for _ in range(2))

    def reset_parameters(self):
        """PyTorch's default: ``kaiming_uniform_(weight, a=sqrt(5))``, i.e. U(-1/sqrt(fan_in),
        1/sqrt(fan_in)) with ``fan_in = in_channels / groups * prod(kernel_size)``, and the bias
        from the same interval."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = _calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, input, weight, bias):
        conv = F.conv1d if self.dims == 1 else F.conv2d
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, (0,) * self.dims, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """A 1-d convolution over ``(N, in_channels, L)`` or ``(in_channels, L)``: ``F.conv1d`` with
    this layer's ``weight`` ``(out_channels, in_channels / groups, kernel_size)`` and ``bias``."""
    dims = 1


class Conv2d(_ConvNd):
    """A 2-d convolution over ``(N, in_channels, H, W)`` or ``(in_channels, H, W)``: ``F.conv2d``
    with this layer's ``weight`` ``(out_channels, in_channels / groups, kH, kW)`` and ``bias``.
    ``Conv2d(1, 8, 3)`` has a 3x3 kernel, stride 1 and no padding."""
    dims = 2


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)
        self.transposed, self.output_padding = True, _ntuple(output_padding, self.dims)

    @staticmethod
    def _weight_shape(in_channels, out_channels, groups, kernel_size):
        return (in_channels, out_channels // groups, *kernel_size)

    def _output_padding(self, input, output_size):
        """The ``output_padding`` that gives ``output_size`` (the layer's own when it is None)."""
        if output_size is None:
            return self.output_padding
        leading = 2 if input.ndim == self.dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == leading + self.dims:
            output_size = output_size[leading:]
        if len(output_size) != self.dims:
            raise ValueError(f"ConvTranspose{self.dims}D: for {input.ndim}D input, output_size must have {self.dims} "
                             f"or {leading + self.dims} elements (got {len(output_size)})")
        smallest = [(input.shape[leading + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(self.dims)]
        largest = [n + s - 1 for n, s in zip(smallest, self.stride)]
        if any(not lo <= n <= hi for n, lo, hi in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {Size(input.shape[2:])})")
        return tuple(n - lo for n, lo in zip(output_size, smallest))

    def forward(self, input, output_size=None):
        conv = F.conv_transpose1d if self.dims == 1 else F.conv_transpose2d
        return conv(input, self.weight, self.bias, self.stride, self.padding,
                    self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The transposed 1-d convolution (the adjoint of ``Conv1d``: it maps ``Conv1d``'s output size back
    to its input size) over ``(N, in_channels, L)`` or ``(in_channels, L)``, with this layer's ``weight``
    ``(in_channels, out_channels / groups, kernel_size)`` and ``bias``."""
    dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """The transposed 2-d convolution (the adjoint of ``Conv2d``, often called a deconvolution: it
    upsamples, ``(H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1`` rows)
    over ``(N, in_channels, H, W)`` or ``(in_channels, H, W)``, with this layer's ``weight``
    ``(in_channels, out_channels / groups, kH, kW)`` and ``bias``."""
    dims = 2
