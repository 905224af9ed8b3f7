"""``nn.Linear`` (the affine layer ``y = x W^T + b``), ``nn.Bilinear`` (``y = x1^T A x2 + b``)
and ``nn.Identity``."""

import math

from ..creation import empty
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear"]


def _weight_and_bias(module, weight_shape, bias, dtype):
    """Register ``weight`` of ``weight_shape`` and ``bias`` (one per output, None without
    ``bias``), then fill them with the module's ``reset_parameters``."""
    module.weight = Parameter(empty(weight_shape, dtype=dtype))
    if bias:
        module.bias = Parameter(empty(weight_shape[0], dtype=dtype))
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


class Identity(Module):
    """Returns its input unchanged (a placeholder; arguments are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, applied to the last dim of ``x``.

    * ``weight``: ``(out_features, in_features)``, one row per output;
    * ``bias``: ``(out_features)``, or None with ``bias=False``.

    Both start uniform in ``[-1/sqrt(in_features), 1/sqrt(in_features)]``, as in
    PyTorch (see :meth:`reset_parameters`).  ``dtype`` is the parameters' dtype;
    ``device`` is accepted for PyTorch compatibility (everything is on the CPU).
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _weight_and_bias(self, (out_features, in_features), bias, dtype)

    def reset_parameters(self):
        """PyTorch's default: ``kaiming_uniform_(weight, a=sqrt(5))``, i.e.
        U(-1/sqrt(in), 1/sqrt(in)), and the bias from the same interval."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y[..., o] = x1 @ weight[o] @ x2 + bias[o]``: one bilinear form per output.

    * ``weight``: ``(out_features, in1_features, in2_features)``;
    * ``bias``: ``(out_features)``, or None with ``bias=False``.

    Both start uniform in ``[-1/sqrt(in1_features), 1/sqrt(in1_features)]``, as in PyTorch.
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        _weight_and_bias(self, (out_features, in1_features, in2_features), bias, dtype)

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
