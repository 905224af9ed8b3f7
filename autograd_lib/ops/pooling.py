"""Pooling over the last two dims: ``max_pool2d_with_indices``, ``avg_pool2d`` and
``_adaptive_avg_pool2d``, PyTorch's ops behind ``F.max_pool2d``, ``F.avg_pool2d``,
``F.adaptive_avg_pool2d`` (and their 1-d forms, which ``nn.functional`` builds from these
by adding a dim of size 1).  Rules in ``derivatives/convolution.py``.

* **max**: each window's largest element and its index in the input's plane (``h * W + w``),
  ties to the first, NaN winning (the last NaN), as PyTorch; windows read the input padded
  with -inf (MaxPool2DWithIndicesBackward0).  The gradient goes to the winners
  (``max_pool2d_with_indices_backward``: MaxPool2DWithIndicesBackwardBackward0), and that
  gradient's own gradient reads the winners again (a ``gather``).
* **average**: each window's sum over the divisor PyTorch uses: the window's size clipped to
  the padded input (``count_include_pad``), or to the input itself, or ``divisor_override``
  (AvgPool2DBackward0).  The gradient spreads each output's gradient over its window
  (``avg_pool2d_backward``), whose own gradient is ``avg_pool2d`` again.
* **adaptive average**: output cell ``i`` of ``o`` averages input rows ``floor(i * n / o)``
  to ``ceil((i + 1) * n / o)``: a matrix ``A`` of shape ``(o, n)`` per dim, the output is
  ``A_h @ x @ A_w.T`` and the gradient ``A_h.T @ g @ A_w`` (AdaptiveAvgPool2DBackward0).

Each op checks its arguments as PyTorch does, with PyTorch's messages, in PyTorch's order.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .windows import add_windows, crop_spatial, pad_spatial, pooled_size, windows

__all__ = ["max_pool2d_with_indices", "max_pool2d_with_indices_backward", "max_pool_double_backward",
           "avg_pool2d", "avg_pool2d_backward", "adaptive_avg_pool2d", "adaptive_avg_pool2d_backward"]


def pool_pair(name, what, value, omitted=False):
    """``kernel_size``, ``stride``, ``padding`` or ``dilation`` of a 2-d pooling as a pair
    (an int for both dims, or one or two ints); ``omitted``: a stride left out (None or
    empty) is the kernel size, returned as ``()``."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 2
    value = () if value is None else tuple(int(v) for v in value)
    if omitted and not value:
        return ()
    if len(value) not in (1, 2):
        tail = {"kernel_size": "must either be a single int, or a tuple of two ints",
                "stride": "must either be omitted, a single int, or a tuple of two ints",
                "padding": "must either be a single int, or a tuple of two ints",
                "dilation": "must be either a single int, or a tuple of two ints"}[what]
        raise RuntimeError(f"{name}: {what} {tail}")
    return value * 2 if len(value) == 1 else value


def _output_shape(size, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's ``pooling_output_shape``, with its checks, for one dim."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if padding < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {padding}")
    if padding > (dilation * (kernel - 1) + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    return pooled_size(size, kernel, stride, padding, dilation, ceil_mode)


def _plane_shape(input, kernel, stride, padding, dilation, ceil_mode):
    """The output's (height, width), after all of PyTorch's checks of a 2-d pooling."""
    n_planes, height, width = input.shape[-3:]
    out = [_output_shape(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
           zip((height, width), kernel, stride, padding, dilation)]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    if pw > kw // 2 or ph > kh // 2:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, "
                           f"padH = {ph}, kW = {kw}, kH = {kh}")
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({n_planes}x{height}x{width}). Calculated output size: "
                           f"({n_planes}x{out[0]}x{out[1]}). Output size is too small")
    return tuple(out)


def _not_for(name, input, *dtypes):
    if input.dtype in dtypes:
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}'")


def _padded_windows(x, kernel, stride, padding, dilation, out, value):
    """The ``out`` windows of ``x`` padded with ``value``, and the padded shape; the right side
    gets what a last window reaching past the padding (``ceil_mode``) needs."""
    right = [max(p, (o - 1) * s + d * (k - 1) + 1 - n - p)
             for n, k, s, p, d, o in zip(x.shape[-2:], kernel, stride, padding, dilation, out)]
    padded = pad_spatial(x, padding, right, value)
    return windows(padded, kernel, stride, dilation, out), padded.shape


def _starts(out, stride, padding):
    """Where each window starts in the unpadded input, per dim (negative: in the padding)."""
    return [np.arange(o) * s - p for o, s, p in zip(out, stride, padding)]


# ------------------------------------------------------------------- max

def max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    """``(values, indices)`` of the largest element of each window (MaxPool2DWithIndicesBackward0)."""
    name = "max_pool2d"
    kernel = pool_pair(name, "kernel_size", kernel_size)
    given_stride = pool_pair(name, "stride", stride, omitted=True)
    padding, dilation = pool_pair(name, "padding", padding), pool_pair(name, "dilation", dilation)
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    strides = given_stride or kernel
    out = _plane_shape(input, kernel, strides, padding, dilation, ceil_mode)
    _not_for(name, input, _dt.bool)
    x = input._data
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win, _ = _padded_windows(x, kernel, strides, padding, dilation, out, lowest)
    flat = win.reshape(*win.shape[:-2], kernel[0] * kernel[1])
    place = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, place[..., None], axis=-1)[..., 0]
    if x.dtype.kind == "f":
        nan = np.isnan(flat)
        if nan.any():                        # PyTorch's scan keeps the last NaN it meets
            place = np.where(nan.any(axis=-1), flat.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1), place)
    (sh, sw), (dh, dw), width = strides, dilation, x.shape[-1]
    rows_start, cols_start = _starts(out, strides, padding)
    rows = rows_start[:, None] + (place // kernel[1]) * dh
    cols = cols_start[None, :] + (place % kernel[1]) * dw
    indices = rows * width + cols
    untouched = values == lowest             # no element beat the start: the window's first one
    if untouched.any():
        first_row = np.where(rows_start < 0, rows_start % dh, rows_start)
        first_col = np.where(cols_start < 0, cols_start % dw, cols_start)
        indices = np.where(untouched, first_row[:, None] * width + first_col[None, :], indices)
    indices = Tensor._make(np.ascontiguousarray(indices, dtype=np.int64))
    output = record("max_pool2d_with_indices", np.ascontiguousarray(values), (input,),
                    {"kernel_size": kernel, "stride": given_stride, "padding": padding, "dilation": dilation,
                     "ceil_mode": ceil_mode, "result1": indices})
    return output, indices


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                     indices):
    """The input's gradient: each output's gradient added to the element it picked."""
    g = grad_output._data
    shape = self.shape
    plane = shape[-2] * shape[-1]
    planes = int(np.prod(shape[:-2], dtype=np.int64))
    offsets = (np.arange(planes) * plane).reshape(*shape[:-2], 1, 1)
    summed = np.bincount((indices._data + offsets).ravel(), weights=g.ravel(), minlength=planes * plane)
    return record("max_pool2d_with_indices_backward", summed.astype(g.dtype).reshape(shape),
                  (grad_output, self), {"indices": indices})


def max_pool_double_backward(grad, indices):
    """What ``max_pool2d_with_indices_backward`` reads from a gradient of the input's shape:
    its values at the picked elements (a gather over each flattened plane, as PyTorch)."""
    lead = tuple(indices.shape[:-2])
    picked = grad.reshape(*lead, -1).gather(-1, indices.reshape(*lead, -1))
    return picked.reshape(*indices.shape)


# --------------------------------------------------------------- average

def _divisors(size, kernel, stride, padding, out, count_include_pad):
    """For one dim, the number of elements each window counts."""
    starts = np.arange(out) * stride - padding
    ends = np.minimum(starts + kernel, size + padding)
    if count_include_pad:
        return ends - starts
    return np.minimum(ends, size) - np.maximum(starts, 0)


def _average_settings(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    name = "avg_pool2d"
    kernel = pool_pair(name, "kernel_size", kernel_size)
    given_stride = pool_pair(name, "stride", stride, omitted=True)
    padding = pool_pair(name, "padding", padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _wrap_dim(-3, input.ndim)                       # PyTorch reads the planes' count first
    strides = given_stride or kernel
    out = _plane_shape(input, kernel, strides, padding, (1, 1), ceil_mode)
    if divisor_override is not None:
        divisor = np.full(out, divisor_override)
    else:
        divisor = np.outer(*[_divisors(n, k, s, p, o, count_include_pad) for n, k, s, p, o in
                             zip(input.shape[-2:], kernel, strides, padding, out)])
    params = {"kernel_size": kernel, "stride": given_stride, "padding": padding, "ceil_mode": ceil_mode,
              "count_include_pad": count_include_pad, "divisor_override": divisor_override}
    return kernel, strides, padding, out, divisor, params


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Each window's mean (its sum over PyTorch's divisor) (AvgPool2DBackward0)."""
    kernel, strides, padding_, out, divisor, params = _average_settings(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    _not_for("avg_pool2d", input, _dt.bool)
    x = input._data
    win, _ = _padded_windows(x, kernel, strides, padding_, (1, 1), out, 0)
    sums = win.sum(axis=(-2, -1))
    if x.dtype.kind == "f":
        array = (sums / divisor).astype(x.dtype)
    else:                                           # integers: the quotient rounded toward zero
        array = (np.sign(sums) * (np.abs(sums) // divisor)).astype(x.dtype)
    return record("avg_pool2d", np.ascontiguousarray(array), (input,), params)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    """The input's gradient: each output's gradient over its divisor, added to its window."""
    kernel, strides, padding_, out, divisor, params = _average_settings(
        self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    g = grad_output._data
    shares = (g / divisor).astype(g.dtype)
    right = [max(p, (o - 1) * s + k - n - p) for n, k, s, p, o in
             zip(self.shape[-2:], kernel, strides, padding_, out)]
    padded = (*self.shape[:-2], *[n + p + r for n, p, r in zip(self.shape[-2:], padding_, right)])
    spread = add_windows(np.broadcast_to(shares[..., None, None], shares.shape + kernel), padded, kernel,
                         strides, (1, 1))
    return record("avg_pool2d_backward", np.ascontiguousarray(crop_spatial(spread, padding_, self.shape[-2:])),
                  (grad_output, self), params)


# ------------------------------------------------------- adaptive average

def _averaging(size, out, dtype):
    """The ``(out, size)`` matrix whose row ``i`` averages input cells ``floor(i * size / out)``
    to ``ceil((i + 1) * size / out)``."""
    i = np.arange(out)
    starts, ends = (i * size) // out, -((-(i + 1) * size) // out)
    cells = np.arange(size)
    inside = (cells >= starts[:, None]) & (cells < ends[:, None])
    return (inside / (ends - starts)[:, None]).astype(dtype)


def adaptive_avg_pool2d(input, output_size):
    """``_adaptive_avg_pool2d``: the last two dims averaged down to ``output_size``
    (AdaptiveAvgPool2DBackward0)."""
    output_size = tuple(int(n) for n in output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if min(output_size) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{output_size[0]}, {output_size[1]}}}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    for d in range(input.ndim - 3, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with dimension {d} being "
                               "empty")
    _not_for("adaptive_avg_pool2d", input, _dt.bool, _dt.int32, _dt.int64)
    x = input._data
    rows, cols = (_averaging(n, o, x.dtype) for n, o in zip(x.shape[-2:], output_size))
    return record("_adaptive_avg_pool2d", np.ascontiguousarray(rows @ x @ cols.T), (input,))


def adaptive_avg_pool2d_backward(grad_output, self):
    """The input's gradient: each output cell's gradient shared evenly over its cells."""
    g = grad_output._data
    rows, cols = (_averaging(n, o, g.dtype) for n, o in zip(self.shape[-2:], g.shape[-2:]))
    return record("_adaptive_avg_pool2d_backward", np.ascontiguousarray(rows.T @ g @ cols), (grad_output, self),
                  {"output_size": g.shape[-2:]})
