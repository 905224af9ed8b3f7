"""Convolution and pooling in ``nn.functional`` (re-exported by ``functional.py``): ``conv1d``,
``conv2d``, ``conv_transpose1d``, ``conv_transpose2d``, ``max_pool1d``, ``max_pool2d``,
``avg_pool1d``, ``avg_pool2d``, ``adaptive_avg_pool1d``, ``adaptive_avg_pool2d``.

Each takes a batched input, ``(N, C, L)`` or ``(N, C, H, W)``, or the same without the batch
dim, and builds the graph PyTorch builds:

* a convolution runs on a batched input: an unbatched one gets a batch dim of 1 first and
  loses it after (UnsqueezeBackward0, ConvolutionBackward0, SqueezeBackward1);
  ``padding="same"`` that cannot be split evenly (an even kernel) pads the input's right
  side first (ConstantPadNdBackward0), with PyTorch's warning, given once per process;
* the 2-d poolings take 3-d or 4-d inputs as they are (MaxPool2DWithIndicesBackward0,
  AvgPool2DBackward0, AdaptiveAvgPool2DBackward0; ``adaptive_avg_pool2d`` to 1x1 is a
  ``mean``: MeanBackward1);
* the 1-d poolings are the 2-d ones on ``input.unsqueeze(-2)``, then ``squeeze(-2)``.

The arguments are checked as PyTorch checks them, with its messages: ``max_pool1d`` without
indices has checks of its own, and the 1-d poolings check their arguments' lengths as
PyTorch's argument parser does.
"""

import warnings

from .. import dtypes as _dt
from ..ops import convolution as _convolution
from ..ops import pooling as _pooling
from ..ops.nn_layers import constant_pad_nd as _constant_pad_nd
from ..op_table import op

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d"]


def _ints(value, n):
    """An int argument of PyTorch's parser as ``n`` ints; a sequence as its ints."""
    return (int(value),) * n if isinstance(value, int) else tuple(int(v) for v in value)


# ------------------------------------------------------------- convolution

def _batched(input, dims, name):
    """``(input, was it batched)``, the unbatched one given a batch dim (PyTorch's ``batchify``)."""
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got "
                           f"input of size: {list(input.shape)}")
    return (input, True) if input.ndim == dims + 2 else (input.unsqueeze(0), False)


_SAME_WARNED = []      # PyTorch warns about an uneven "same" padding once per process


def _same(input, weight, bias, stride, dilation, groups):
    """``padding="same"``: the output as long as the input (stride 1 only)."""
    k = weight.ndim
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = k - 2
    if input.ndim != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{list(weight.shape)}, but "
                           f"got {input.ndim}-dimensional input of size {list(input.shape)} instead")
    for name, values in (("stride", stride), ("dilation", dilation)):
        if len(values) not in (1, dims):
            raise RuntimeError(f"{name} cannot broadcast to {dims} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = dilation * dims if len(dilation) == 1 else dilation
    spans = [d * (n - 1) for d, n in zip(dilation, weight.shape[2:])]
    left = [s // 2 for s in spans]
    if any(s - a != a for s, a in zip(spans, left)):          # an odd span: one more on the right
        if not _SAME_WARNED:
            _SAME_WARNED.append(True)
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                          "zero-padded copy of the input be created", UserWarning, stacklevel=4)
        pad = [0] * (2 * dims)
        for i, (s, a) in enumerate(zip(spans, left)):
            pad[2 * (dims - 1 - i) + 1] = s - 2 * a
        input = _constant_pad_nd(input, pad, 0)
    return _convolution.convolution(input, weight, bias, stride, left, dilation, False, (0,) * dims, groups)


def _conv(dims, name, input, weight, bias, stride, padding, dilation, groups):
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_dt.C_TYPE_NAMES[input.dtype.name]}) and bias type "
                           f"({_dt.C_TYPE_NAMES[bias.dtype.name]}) should be the same")
    batched, was_batched = _batched(input, dims, name)
    stride, dilation = _ints(stride, dims), _ints(dilation, dims)
    if isinstance(padding, str):
        if padding == "same":
            output = _same(batched, weight, bias, stride, dilation, groups)
        elif padding == "valid":
            output = _convolution.convolution(batched, weight, bias, stride, (0,), dilation, False, (0,), groups)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        output = _convolution.convolution(batched, weight, bias, stride, _ints(padding, dims), dilation, False, (0,),
                                groups)
    return output if was_batched else output.squeeze(0)


@op(public=True)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Slide ``weight`` ``(out_channels, in_channels / groups, kernel)`` along ``input``
    ``(N, in_channels, L)`` or ``(in_channels, L)``; ``padding`` an int, a 1-tuple,
    ``"valid"`` (none) or ``"same"`` (stride 1: the output as long as the input)."""
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


@op(public=True)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Slide ``weight`` ``(out_channels, in_channels / groups, kH, kW)`` over ``input``
    ``(N, in_channels, H, W)`` or ``(in_channels, H, W)``: each output channel is the sum
    over its group's input channels of their cross-correlation with its kernel, plus its
    bias.  ``stride``, ``padding`` (zeros) and ``dilation`` are ints or pairs; ``padding``
    may also be ``"valid"`` or ``"same"``.  Output size per dim:
    ``(size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1``."""
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(dims, name, input, weight, bias, stride, padding, output_padding, groups, dilation):
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    batched, was_batched = _batched(input, dims, name)
    output = _convolution.convolution(batched, weight, bias, _ints(stride, dims), _ints(padding, dims), _ints(dilation, dims),
                            True, _ints(output_padding, dims), groups)
    return output if was_batched else output.squeeze(0)


@op(public=True)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed convolution (the adjoint of ``conv1d``) of ``input`` ``(N, in_channels, L)``
    or ``(in_channels, L)`` by ``weight`` ``(in_channels, out_channels / groups, kernel)``."""
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


@op(public=True)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed convolution of ``input`` ``(N, in_channels, H, W)`` or ``(in_channels, H, W)`` by
    ``weight`` ``(in_channels, out_channels / groups, kH, kW)``: each input position spreads ``input *
    weight`` over an output window, windows ``stride`` apart (the input's gradient of ``conv2d``).
    Output size per dim: ``(size - 1) * stride - 2 * padding + dilation * (kernel - 1) +
    output_padding + 1``; ``output_padding`` (smaller than the stride or the dilation) picks among
    the sizes a ``conv2d`` with this stride maps to the same input size."""
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


# ----------------------------------------------------------------- pooling

def _one_int(function, name, value, may_be_empty=False):
    """A 1-d pooling's argument as one int, as PyTorch's parser wants it; None or ``()`` for
    an omitted stride."""
    if value is None or isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1 and not (may_be_empty and not value):
        raise RuntimeError(f"{function}() argument '{name}' should contain one int (got {len(value)})")
    return int(value[0]) if value else None


def _check_1d_input(input, function):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {function})")


def _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool1d``'s own checks (when it returns no indices), PyTorch's ``check_max_pool1d``."""
    if input.ndim not in (2, 3) or 0 in input.shape[-2 if input.ndim == 3 else -1:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    sizes = {}
    for name, value, needs in (("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
                               ("stride", stride, "None, an int, list of ints, or tuple of ints"),
                               ("padding", padding, "an int, list of ints, or tuple of ints"),
                               ("dilation", dilation, "an int, list of ints or tuple of ints")):
        value = () if value is None else _ints(value, 1)
        if len(value) != 1 and not (name == "stride" and not value):
            raise RuntimeError(f"max_pool1d() {name} must be {needs} of size 1 but got size {len(value)}")
        sizes[name] = value[0] if value else None
    kernel, padding, dilation = sizes["kernel_size"], sizes["padding"], sizes["dilation"]
    stride = kernel if sizes["stride"] is None else sizes["stride"]
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if stride <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding="
                           f"{padding} and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    out = _pooling.pooled_size(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for "
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}'")


@op(public=True)
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest element of each window of ``kernel_size`` along the last dim (``stride``
    defaults to ``kernel_size``); with ``return_indices``, also where it was.  Recorded as
    ``max_pool2d`` on ``input.unsqueeze(-2)``, as PyTorch."""
    if not return_indices:
        _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode)
    f = "max_pool1d"
    kernel, padding = _one_int(f, "kernel_size", kernel_size), _one_int(f, "padding", padding)
    stride, dilation = _one_int(f, "stride", stride, may_be_empty=True), _one_int(f, "dilation", dilation)
    _check_1d_input(input, f)
    stride = kernel if stride is None else stride
    output, indices = _pooling.max_pool2d_with_indices(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding),
                                                 (1, dilation), ceil_mode)
    if return_indices:
        return output.squeeze(-2), indices.squeeze(-2)
    return output.squeeze(-2)


@op(public=True)
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest element of each ``kernel_size`` window of the last two dims (``stride``
    defaults to ``kernel_size``; ``padding`` adds -inf, at most half the window; ``dilation``
    spreads the window; ``ceil_mode`` keeps a last, partial window); with ``return_indices``,
    also its index in the input's plane (``h * W + w``)."""
    output, indices = _pooling.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (output, indices) if return_indices else output


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``max_pool1d(..., return_indices=True)`` (PyTorch ignores ``return_indices`` here too)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``max_pool2d(..., return_indices=True)`` (PyTorch ignores ``return_indices`` here too)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


@op(public=True)
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window along the last dim: ``avg_pool2d`` on ``input.unsqueeze(-2)``."""
    f = "avg_pool1d"
    kernel, padding = _one_int(f, "kernel_size", kernel_size), _one_int(f, "padding", padding)
    stride = _one_int(f, "stride", stride, may_be_empty=True)
    _check_1d_input(input, f)
    stride = kernel if stride is None else stride
    output = _pooling.avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                           count_include_pad)
    return output.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window of the last two dims: its sum over its size, the zeros of the
    padding counted unless ``count_include_pad=False``, or over ``divisor_override``."""
    return _pooling.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _with_defaults(output_size, shape):
    """``output_size`` with each None read from ``shape`` (its last dims)."""
    if isinstance(output_size, int):
        return (output_size, output_size)
    output_size = tuple(output_size)
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return tuple(n if o is None else int(o) for o, n in zip(output_size, shape[len(shape) - len(output_size):]))


def adaptive_avg_pool2d(input, output_size):
    """The last two dims averaged down to ``output_size`` (an int, or a pair whose None entries
    keep the input's size) by windows that tile them as evenly as possible."""
    size = _with_defaults(output_size, tuple(input.shape))
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    return _pooling.adaptive_avg_pool2d(input, size)


@op(public=True)
def adaptive_avg_pool1d(input, output_size):
    """The last dim averaged down to ``output_size``: ``adaptive_avg_pool2d`` on ``input.unsqueeze(-2)``."""
    f = "adaptive_avg_pool1d"
    size = _one_int(f, "output_size", output_size)
    _check_1d_input(input, f)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)

