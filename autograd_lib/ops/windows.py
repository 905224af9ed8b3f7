"""Sliding windows: what convolution and pooling read, and how a gradient goes back.

A convolution or a pooling layer looks at its input through *windows*: along each
spatial dim (the last ``len(kernel)`` dims), window ``o`` starts at ``o * stride`` in the
padded input and reads ``kernel`` elements ``dilation`` apart.  :func:`windows` is that
reading as a NumPy view, with no copy: shape ``(..., *out, *kernel)``, the window
positions first, then the places inside a window (the classic *im2col*, before the
copy a matrix product makes of it).

The backward pass runs the reading in reverse: :func:`add_windows` adds values of shape
``(..., *out, *kernel)`` into zeros, each at the place its window read, so a place read by
several windows gets the sum.  It is the adjoint of :func:`windows`, one strided slice per
place of the kernel (9 adds for a 3x3 kernel, whatever the input's size).

The sizes follow PyTorch's formula: ``out = (size + 2 * padding - dilation * (kernel - 1)
- 1) // stride + 1``, rounded up instead of down in ``ceil_mode`` (pooling), where a last
window that would start in the right padding is dropped (:func:`pooled_size`).
"""

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["windows", "add_windows", "pad_spatial", "crop_spatial", "pooled_size", "spatial_key"]


def pad_spatial(x, before, after, value=0):
    """``x`` with ``before[i]`` and ``after[i]`` elements of ``value`` around spatial dim ``i``
    (the last ``len(before)`` dims); ``x`` itself when there is nothing to add."""
    if not any(before) and not any(after):
        return x
    widths = [(0, 0)] * (x.ndim - len(before)) + list(zip(before, after))
    return np.pad(x, widths, constant_values=value)


def spatial_key(starts, stops, steps=None):
    """The NumPy key of ``[..., start:stop:step]`` along each spatial dim."""
    steps = steps or (None,) * len(starts)
    return (Ellipsis,) + tuple(slice(a, b, s) for a, b, s in zip(starts, stops, steps))


def crop_spatial(x, before, sizes):
    """``x[..., before[i]:before[i] + sizes[i]]`` along each spatial dim: the padding removed."""
    return x[spatial_key(before, [b + n for b, n in zip(before, sizes)])]


def windows(padded, kernel, stride, dilation, out):
    """The ``out`` windows of ``padded`` along its last ``len(kernel)`` dims, as a view of
    shape ``(..., *out, *kernel)``: ``view[..., o, k] = padded[..., o * stride + k * dilation]``."""
    extents = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    nd = len(kernel)
    view = sliding_window_view(padded, extents, axis=tuple(range(padded.ndim - nd, padded.ndim)))
    key = (Ellipsis,) + tuple(slice(0, (o - 1) * s + 1 if o else 0, s) for o, s in zip(out, stride)) \
        + tuple(slice(None, None, d) for d in dilation)
    return view[key]


def add_windows(values, padded_shape, kernel, stride, dilation, out=None):
    """Zeros of ``padded_shape`` (or ``out``, added into) with each of ``values[..., o, k]``
    (shape ``(..., *out, *kernel)``) added at the place window ``o`` read at ``k``: the
    adjoint of :func:`windows`."""
    nd = len(kernel)
    positions = values.shape[values.ndim - 2 * nd: values.ndim - nd]
    total = np.zeros(padded_shape, dtype=values.dtype) if out is None else out
    for place in itertools.product(*(range(k) for k in kernel)):
        starts = [k * d for k, d in zip(place, dilation)]
        stops = [a + (o - 1) * s + 1 for a, o, s in zip(starts, positions, stride)]
        total[spatial_key(starts, stops, stride)] += values[(Ellipsis,) + place]
    return total


def pooled_size(size, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's number of windows along one dim (may be below 1: the callers refuse it)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1                                   # a last window may not start in the padding
    return out
