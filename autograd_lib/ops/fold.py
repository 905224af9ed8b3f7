"""Sliding blocks: ``im2col`` (``F.unfold``) and ``col2im`` (``F.fold``).

``im2col`` cuts an image ``(N, C, H, W)`` into every ``kh x kw`` block a sliding window
sees (with ``stride``, ``dilation`` and zero ``padding``) and lays each block out as a
column: ``(N, C * kh * kw, L)``, ``L`` the number of window positions.  ``col2im`` is its
adjoint: it puts the columns back where they came from, *adding* where blocks overlap.
Each is the other's gradient (Im2ColBackward0, Col2ImBackward0), so double backward works.
An unbatched ``(C, H, W)`` image (``(C * kh * kw, L)`` columns) is handled as a batch of one.
Rules in ``derivatives/nn_ops.py``.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from .windows import add_windows, crop_spatial, pad_spatial, pooled_size, windows

__all__ = ["im2col", "col2im"]


def _check_pairs(kernel_size, dilation, padding, stride):
    for name, pair in (("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding),
                       ("stride", stride)):
        if len(pair) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(pair)}")
    checks = (("kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}",
               kernel_size, 1),
              ("stride should be greater than zero, but got stride_height: {} stride_width: {}", stride, 1),
              ("dilation should be greater than zero, but got dilation_height: {} dilation_width: {}",
               dilation, 1),
              ("padding should be non-negative, but got pad_height: {} pad_width: {}", padding, 0))
    for message, pair, smallest in checks:
        if min(pair) < smallest:
            raise RuntimeError(message.format(*pair))


def _blocks(size, kernel, dilation, padding, stride):
    """The number of window positions along each spatial dim."""
    return tuple(pooled_size(*dims, ceil_mode=False)
                 for dims in zip(size, kernel, stride, padding, dilation))


def _check_floating(input, op):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{op}_out_cpu" not implemented for '
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}'")


def im2col(input, kernel_size, dilation, padding, stride):
    """The blocks of ``input`` ``(N, C, H, W)`` (or ``(C, H, W)``) as columns (Im2ColBackward0)."""
    kernel_size, dilation, padding, stride = map(tuple, (kernel_size, dilation, padding, stride))
    _check_pairs(kernel_size, dilation, padding, stride)
    if input.ndim == 2:
        raise IndexError("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    _check_floating(input, "im2col")
    size = input.shape[-2:]
    blocks = _blocks(size, kernel_size, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")
    x = input._data if input.ndim == 4 else input._data[None]
    blocks_view = windows(pad_spatial(x, padding, padding), kernel_size, stride, dilation, blocks)
    columns = blocks_view.transpose(0, 1, 4, 5, 2, 3).reshape(
        x.shape[0], x.shape[1] * kernel_size[0] * kernel_size[1], blocks[0] * blocks[1])
    return record("im2col", columns if input.ndim == 4 else columns[0], (input,),
                  {"kernel_size": kernel_size, "dilation": dilation, "padding": padding,
                   "stride": stride, "self_size": tuple(size)})


def col2im(input, output_size, kernel_size, dilation, padding, stride):
    """The columns ``input`` ``(N, C * kh * kw, L)`` (or unbatched) added back into an image
    ``(N, C, *output_size)``: the adjoint of :func:`im2col` (Col2ImBackward0)."""
    output_size, kernel_size, dilation, padding, stride = map(
        tuple, (output_size, kernel_size, dilation, padding, stride))
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
    _check_pairs(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size "
                           f"and non-zero dimensions for input, but got: {list(input.shape)}")
    _check_floating(input, "col2im")
    area = kernel_size[0] * kernel_size[1]
    if input.shape[-2] % area:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={input.shape[-2]} and "
                           f"kernel_size={kernel_size}.")
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    if input.shape[-1] != blocks[0] * blocks[1] or min(blocks) < 1:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={input.shape[-1]}.")
    c = input._data if input.ndim == 3 else input._data[None]
    columns = c.reshape(c.shape[0], c.shape[1] // area, *kernel_size, *blocks)
    padded_shape = (*columns.shape[:2], *(n + 2 * p for n, p in zip(output_size, padding)))
    padded = add_windows(columns.transpose(0, 1, 4, 5, 2, 3), padded_shape, kernel_size, stride, dilation)
    image = crop_spatial(padded, padding, output_size)
    image = np.ascontiguousarray(image if input.ndim == 3 else image[0])
    return record("col2im", image, (input,),
                  {"kernel_size": kernel_size, "dilation": dilation, "padding": padding,
                   "stride": stride})
