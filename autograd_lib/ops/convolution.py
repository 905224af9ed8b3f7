"""Convolution: the op behind ``F.conv1d``, ``F.conv2d`` and ``nn.Conv2d``, and its gradients.

``convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
groups)`` is PyTorch's ``at::convolution``, for any number of spatial dims.  Its input is
batched, ``(N, C, *size)``; its weight is ``(O, C / groups, *kernel)``.  Output channel
``o`` (of group ``g``, reading input channels ``g * C / groups`` onwards) at window
position ``p`` is the sum over the window's input channels and places of
``input * weight[o]``, plus ``bias[o]``.  NumPy computes it as one matrix product per group:
the windows of ``ops/windows.py`` (a view) copied once into *columns*, one row per batch element
and window position (the classic im2col), times the weight's rows.  The padded input is laid
out channels-last in memory, so that the copy reads runs of ``kernel width * channels``
contiguous numbers: that copy, not the product, is most of the time.

With ``transposed=True`` (``F.conv_transpose2d``, ``nn.ConvTranspose2d``) the weight is
``(C, O / groups, *kernel)`` and the op is the adjoint of a convolution by that weight: each
input position spreads ``input * weight`` over a window of the output, windows ``stride``
apart (the input's gradient of the convolution, :func:`_input_grad`), the output
``(size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1`` long.
Its gradients are the convolution's, with the roles of input and output swapped.

It records ConvolutionBackward0.  Its gradients are one op, ``convolution_backward`` (three
outputs: the gradients of the input, the weight and the bias, each computed only when asked
for), recorded as ConvolutionBackwardBackward0, whose inputs are ``grad_output``, ``input``
and ``weight`` as in PyTorch.  All three are bilinear, so their own gradients are again
``convolution`` and ``convolution_backward`` (``derivatives/convolution.py``): gradients of every
order, as in PyTorch.  The graph of a second-order gradient is PyTorch's; the graph PyTorch
records beyond that (transposes around its kernels) is not reproduced, only the values.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..recording import record, record_outputs
from ..tensor import Tensor
from .windows import add_windows, crop_spatial, spatial_key, windows

__all__ = ["convolution", "convolution_backward", "conv_output_size", "transposed_output_size"]


def conv_output_size(size, kernel, stride, padding, dilation):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _expand(values, name, dims):
    """A stride, padding or dilation as one value per spatial dim (PyTorch's expansion)."""
    values = [int(v) for v in values]
    if len(values) == 1:
        return tuple(values * dims)
    if len(values) != dims:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} values to "
                           f"match the convolution dimensions, but got {name}={values}")
    return tuple(values)


def _check_shapes(input, weight, bias, stride, padding, dilation, groups, transposed=False, output_padding=()):
    """PyTorch's checks of a convolution's shapes and settings, in its order."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    w = list(weight.shape)
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{w}, but got {input.ndim}-dimensional input of size {list(input.shape)} instead")
    if w[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
                           f"but got weight of size {w} instead")
    if w[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size [{w}] instead")
    if transposed:
        _check_transposed(input, w, bias, stride, padding, dilation, groups, output_padding)
        return
    if input.shape[1] != w[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {w}, expected input{list(input.shape)} to "
                           f"have {w[1] * groups} channels, but got {input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != w[0]):
        raise RuntimeError(f"Given weight of size {w}, expected bias to be 1-dimensional with {w[0]} "
                           f"elements, but got bias of size {list(bias.shape)} instead")
    padded = [n + 2 * p for n, p in zip(input.shape[2:], padding)]
    spans = [d * (k - 1) + 1 for k, d in zip(w[2:], dilation)]
    if any(n < k for n, k in zip(padded, spans)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater "
                           "than actual input size")


def transposed_output_size(size, kernel, stride, padding, dilation, output_padding):
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def _check_transposed(input, w, bias, stride, padding, dilation, groups, output_padding):
    """The checks of a transposed convolution (PyTorch's, whose 1-d form is its 2-d one with a
    height of 1, as its messages show)."""
    if input.shape[1] != w[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {w}, expected input{list(input.shape)} to have "
                           f"{w[0]} channels, but got {input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != w[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {w}, expected bias to be 1-dimensional with "
                           f"{w[1] * groups} elements, but got bias of size {list(bias.shape)} instead")
    flat = len(stride) == 1                          # seen as 2-d: a height of 1 first
    names = ("height", "width", "depth")[:2 if flat else len(stride)]
    pad = lambda values, first: ((first,) + tuple(values)) if flat else tuple(values)   # noqa: E731
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        described = " ".join(f"{label}_{name}: {v}" for label, values in
                             (("output_padding", pad(output_padding, 0)), ("stride", pad(stride, 1)),
                              ("dilation", pad(dilation, 1))) for name, v in zip(names, values))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {described}")
    sizes = [transposed_output_size(n, k, s, p, d, op) for n, k, s, p, d, op in
             zip(input.shape[2:], w[2:], stride, padding, dilation, output_padding)]
    if any(n < 1 for n in sizes):
        given = " x ".join(map(str, pad(input.shape[2:], 1)))
        raise RuntimeError(f"Given input size per channel: ({given}). Calculated output size per channel: "
                           f"({' x '.join(map(str, pad(sizes, 1)))}). Output size is too small")


def _check_types(input, weight):
    if input.dtype is not weight.dtype:
        if input.dtype is _dt.float32:
            raise RuntimeError(f"Input type (autograd_lib.{_dt.LEGACY_NAMES[input.dtype.name]}) and weight "
                               f"type (autograd_lib.{_dt.LEGACY_NAMES[weight.dtype.name]}) should be the "
                               "same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_dt.LEGACY_NAMES[input.dtype.name][:-6]} but found "
                           f"{_dt.LEGACY_NAMES[weight.dtype.name][:-6]}")
    if input.dtype is _dt.bool:
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")


def _groups(n, groups):
    """The slices of ``n`` channels that each of the ``groups`` groups owns."""
    size = n // groups
    return [slice(g * size, (g + 1) * size) for g in range(groups)]


def _channels_last(shape, dtype):
    """Zeros laid out ``(N, *size, C)`` in memory, seen as ``(N, C, *size)``: the windows of
    such an array, channels innermost, copy into columns fast (runs of ``kernel * C``)."""
    return np.moveaxis(np.zeros((shape[0], *shape[2:], shape[1]), dtype=dtype), -1, 1)


def _columns(x, kernel, stride, padding, dilation, positions=None):
    """The windows of ``x`` (padded with zeros) as one row per batch element and position,
    its places and channels along the row: ``(N * positions, prod(kernel), C)``, and the
    number of positions along each dim (all that fit, or the first ``positions``)."""
    nd = len(kernel)
    padded = _channels_last((*x.shape[:2], *[n + 2 * p for n, p in zip(x.shape[2:], padding)]), x.dtype)
    padded[spatial_key(padding, [p + n for p, n in zip(padding, x.shape[2:])])] = x
    out = list(positions) if positions is not None else [conv_output_size(n, k, s, p, d) for n, k, s, p, d in
                                                           zip(x.shape[2:], kernel, stride, padding, dilation)]
    win = windows(padded, kernel, stride, dilation, out)                 # (N, C, *out, *kernel)
    rows = win.transpose(0, *range(2, 2 + 2 * nd), 1)                    # (N, *out, *kernel, C)
    return rows.reshape(x.shape[0] * math.prod(out), math.prod(kernel), x.shape[1]), out


def _rows(w):
    """The weight ``(O, C, *kernel)`` as ``(O, prod(kernel) * C)``, matching :func:`_columns`."""
    return np.moveaxis(w, 1, -1).reshape(w.shape[0], w[0].size)


def _as_rows(g):
    """``g`` ``(N, O, *positions)`` as ``(N * positions, O)``."""
    return np.moveaxis(g, 1, -1).reshape(g.shape[0] * math.prod(g.shape[2:]), g.shape[1])


def _group_columns(cols, c):
    """The columns of the input channels ``c`` (one group) as a matrix."""
    return cols[:, :, c].reshape(cols.shape[0], cols.shape[1] * (c.stop - c.start))


def _forward(x, w, stride, padding, dilation, groups, positions=None):
    """The convolution of arrays ``x`` and ``w`` (no bias): ``(N, O, *out)``, one matrix
    product per group of the windows' columns and the weight's rows (the first
    ``positions`` windows when given)."""
    cols, out = _columns(x, w.shape[2:], stride, padding, dilation, positions)
    rows = _rows(w)
    result = np.empty((cols.shape[0], w.shape[0]), dtype=np.result_type(x, w))
    for c, o in zip(_groups(x.shape[1], groups), _groups(w.shape[0], groups)):
        result[:, o] = _group_columns(cols, c) @ rows[o].T
    return np.ascontiguousarray(np.moveaxis(result.reshape(x.shape[0], *out, w.shape[0]), -1, 1))


def _input_grad(g, w, input_shape, stride, padding, dilation, groups):
    """The input's gradient: each position's ``g * weight`` added back where its window read."""
    kernel, positions = w.shape[2:], g.shape[2:]
    padded = _channels_last((*input_shape[:2], *[n + 2 * p for n, p in zip(input_shape[2:], padding)]), g.dtype)
    g_rows, rows = _as_rows(g), _rows(w)
    for c, o in zip(_groups(input_shape[1], groups), _groups(w.shape[0], groups)):
        spread = (g_rows[:, o] @ rows[o]).reshape(g.shape[0], *positions, *kernel, c.stop - c.start)
        add_windows(np.moveaxis(spread, -1, 1), None, kernel, stride, dilation, out=padded[:, c])
    return np.ascontiguousarray(crop_spatial(padded, padding, input_shape[2:]))


def _weight_grad(g, x, weight_shape, stride, padding, dilation, groups):
    """The weight's gradient: ``g`` times the windows, summed over the batch and the positions
    (as many as ``g`` has)."""
    cols, _ = _columns(x, weight_shape[2:], stride, padding, dilation, g.shape[2:])
    g_rows = _as_rows(g)
    grad = np.empty((weight_shape[0], cols.shape[1], weight_shape[1]), dtype=g.dtype)
    for c, o in zip(_groups(x.shape[1], groups), _groups(weight_shape[0], groups)):
        grad[o] = (g_rows[:, o].T @ _group_columns(cols, c)).reshape(grad[o].shape)
    return np.ascontiguousarray(np.moveaxis(grad, -1, 1).reshape(weight_shape))


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``at::convolution`` on a batched input ``(N, C, *size)`` (ConvolutionBackward0)."""
    dims = weight.ndim - 2
    if dims <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride, padding = _expand(stride, "stride", dims), _expand(padding, "padding", dims)
    dilation = _expand(dilation, "dilation", dims)
    output_padding = _expand(output_padding, "output_padding", dims)
    transposed = bool(transposed)
    _check_shapes(input, weight, bias, stride, padding, dilation, groups, transposed, output_padding)
    _check_types(input, weight)
    if transposed:
        size = [transposed_output_size(n, k, s, p, d, op) for n, k, s, p, d, op in
                zip(input.shape[2:], weight.shape[2:], stride, padding, dilation, output_padding)]
        array = _input_grad(input._data, weight._data, (input.shape[0], weight.shape[1] * groups, *size),
                            stride, padding, dilation, groups)
    else:
        array = _forward(input._data, weight._data, stride, padding, dilation, groups)
    if bias is not None:
        array += bias._data.astype(array.dtype, copy=False).reshape(-1, *[1] * dims)
    return record("convolution", array, (input, weight, bias),
                  {"stride": stride, "padding": padding, "dilation": dilation, "transposed": transposed,
                   "output_padding": output_padding, "groups": groups,
                   "bias_sym_sizes_opt": None if bias is None else tuple(bias.shape)})


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """The gradients of ``convolution`` for its input, weight and bias, those of ``output_mask``
    (None for the others): the outputs 0, 1, 2 of one ConvolutionBackwardBackward0 node."""
    g, x, w = grad_output._data, input._data, weight._data
    arrays = [None, None, None]
    if transposed:                  # the adjoint's gradients: a convolution's, input and output swapped
        if output_mask[0]:
            arrays[0] = _forward(g, w, stride, padding, dilation, groups, x.shape[2:])
        if output_mask[1]:
            arrays[1] = _weight_grad(x, g, w.shape, stride, padding, dilation, groups)
    else:
        if output_mask[0]:
            arrays[0] = _input_grad(g, w, x.shape, stride, padding, dilation, groups)
        if output_mask[1]:
            arrays[1] = _weight_grad(g, x, w.shape, stride, padding, dilation, groups)
    if output_mask[2]:
        arrays[2] = np.ascontiguousarray(g.sum(axis=(0, *range(2, g.ndim))))
    params = {"stride": stride, "padding": padding, "dilation": dilation, "transposed": transposed,
              "output_padding": output_padding, "groups": groups}
    outputs = [None if a is None else Tensor._make(np.asarray(a)) for a in arrays]    # None: not asked for
    return record_outputs("convolution_backward", outputs, (grad_output, input, weight), params)
