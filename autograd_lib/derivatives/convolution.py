"""The gradient rules of ``ops/convolution.py`` and ``ops/pooling.py``: convolution and
pooling.

Every gradient here is an op of its own, as in PyTorch, so that a gradient computed with
``create_graph=True`` records PyTorch's node (ConvolutionBackwardBackward0,
MaxPool2DWithIndicesBackwardBackward0, AvgPool2DBackwardBackward0,
AdaptiveAvgPool2DBackwardBackward0) and can be differentiated again:

* a convolution's three gradients are bilinear (in ``grad_output`` and the weight, in
  ``grad_output`` and the input, in ``grad_output`` alone for the bias), so the gradients of
  ``convolution_backward`` are a ``convolution`` (for ``grad_output``) and
  ``convolution_backward`` again (for the input and the weight);
* a pooling's gradient is linear in ``grad_output`` and does not depend on the input's values
  (the max's winners are fixed), so its own gradient is the pooling again for ``grad_output``
  (read at the winners for the max) and zeros for the input.
"""

from ..creation import zeros_like
from ..ops import convolution
from ..ops import pooling
from .table import rule


_CONV = "stride padding dilation transposed output_padding groups"


def _conv_backward(which):
    """The formula of ConvolutionBackward0 for input ``which`` (0 input, 1 weight, 2 bias)."""
    mask = tuple(i == which for i in range(3))

    def formula(grad, input, weight, bias_sym_sizes_opt, *settings):
        return convolution.convolution_backward(grad, input, weight, bias_sym_sizes_opt, *settings, mask)[which]
    return formula


def _grad_output_double_backward(grads, grad_output, input, weight, *settings):
    """How ``grad_output`` moves the three gradients: ``conv(ggI, weight) + conv(input, ggW)``,
    plus ``ggb`` for every position (the forward pass, linear in each of its inputs)."""
    gg_input, gg_weight, gg_bias = grads
    stride, padding, dilation, transposed, output_padding, groups = settings
    terms = [convolution.convolution(x, w, None, stride, padding, dilation, transposed, output_padding, groups)
             for x, w in ((gg_input, weight), (input, gg_weight)) if x is not None and w is not None]
    total = terms[0] + terms[1] if len(terms) == 2 else (terms[0] if terms else None)
    if gg_bias is not None:
        shape = (1, gg_bias.shape[0]) + (1,) * (grad_output.ndim - 2)
        term = gg_bias.reshape(*shape).expand(*grad_output.shape)
        total = term if total is None else total + term
    return total


def _input_double_backward(grads, grad_output, input, weight, *settings):
    """How the input moves the weight's gradient ``sum(grad_output * windows(input))``."""
    gg_weight = grads[1]
    if gg_weight is None:
        return None
    return convolution.convolution_backward(grad_output, input, gg_weight, None, *settings, (True, False, False))[0]


def _weight_double_backward(grads, grad_output, input, weight, *settings):
    """How the weight moves the input's gradient (``grad_output`` spread through ``weight``)."""
    gg_input = grads[0]
    if gg_input is None:
        return None
    return convolution.convolution_backward(grad_output, gg_input, weight, None, *settings, (False, True, False))[1]


_MAX = "kernel_size stride padding dilation ceil_mode"
_AVG = "kernel_size stride padding ceil_mode count_include_pad divisor_override"

# ------------------------------------------------------------- convolution
needs = f"input weight bias_sym_sizes_opt {_CONV}"
rule("convolution", "ConvolutionBackward0",
     input=(needs, _conv_backward(0)), weight=(needs, _conv_backward(1)), bias=(needs, _conv_backward(2)))
needs = f"grad_output input weight {_CONV}"
rule("convolution_backward", "ConvolutionBackwardBackward0", all_grads=True,
     grad_output=(needs, _grad_output_double_backward),
     input=(needs, _input_double_backward),
     weight=(needs, _weight_double_backward))
# ----------------------------------------------------------------- max pool
rule("max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", saves=("result1",),
     self=(f"self {_MAX} result1", lambda grad, self, *settings: pooling.max_pool2d_with_indices_backward(
         grad, self, *settings)))
rule("max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0", saves=("indices",),
     grad_output=("indices", lambda grad, indices: pooling.max_pool_double_backward(grad, indices)),
     self=("self", lambda grad, self: zeros_like(self)))
# ----------------------------------------------------------------- avg pool
rule("avg_pool2d", "AvgPool2DBackward0",
     self=(f"self {_AVG}", lambda grad, self, *settings: pooling.avg_pool2d_backward(grad, self, *settings)))
rule("avg_pool2d_backward", "AvgPool2DBackwardBackward0",
     grad_output=(_AVG, lambda grad, *settings: pooling.avg_pool2d(grad, *settings)),
     self=("self", lambda grad, self: zeros_like(self)))
# -------------------------------------------------------- adaptive avg pool
rule("_adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0",
     self=("self", lambda grad, self: pooling.adaptive_avg_pool2d_backward(grad, self)))
rule("_adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0",
     grad_output=("output_size", lambda grad, output_size: pooling.adaptive_avg_pool2d(grad, output_size)),
     self=("self", lambda grad, self: zeros_like(self)))
