"""``F.pad``'s ``reflect`` and ``replicate`` modes: the border is read from the tensor
itself, mirrored (``[2, 1 | 0, 1, 2 | 1]``) or repeated (``[0, 0 | 0, 1, 2 | 2]``).

Each padded dim has an *index map*: for every output position, the input position it
copies.  The forward pass reads through the maps; the backward pass adds each output
gradient into the input position it was read from (positions read twice get both), which
is again linear, so its own gradient is the forward padding of the incoming gradient.
PyTorch records ReflectionPad{1,2,3}DBackward0 and ReplicationPad{1,2,3}DBackward0, by the
number of padded dims, and the same names with ``BackwardBackward0`` for the second order.
Rules in ``derivatives/nn_ops.py``.
"""

import numpy as np

from ..recording import record
from .operands import to_tensor

__all__ = ["non_constant_pad", "non_constant_pad_backward", "padded_dims", "PAD_NODES"]

# The forward ops to declare: (mode, padded dims, PyTorch's node name without "Backward0").
PAD_NODES = [(mode, dims, f"{kind}Pad{dims}D") for mode, kind in (("reflect", "Reflection"),
                                                                 ("replicate", "Replication"))
             for dims in (1, 2, 3)]
_AXES = "WHD"                                                          # last dim first


def padded_dims(x, pad):
    """How many dims ``pad`` pads (PyTorch's checks of every non-constant mode)."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or x.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {x.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    return dims


def _check(x, pad, mode):
    dims = padded_dims(x, pad)
    if any(n == 0 for n in x.shape[-dims:]):
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: {list(x.shape)}")
    for i in range(dims):
        n, (left, right) = x.shape[x.ndim - 1 - i], pad[2 * i: 2 * i + 2]
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension "
                               f"{x.ndim - 1 - i} of input {list(x.shape)}")
        if n + left + right <= 0:
            raise RuntimeError(f"input ({_AXES[i]}: {n}) is too small. Calculated output "
                               f"{_AXES[i]}: {n + left + right}")
    return dims


def _index_maps(shape, pad, mode):
    """For each padded dim, first to last: the input position each output position copies."""
    dims = len(pad) // 2
    maps = []
    for i in reversed(range(dims)):                  # pad lists the last dim first
        n, left, right = shape[len(shape) - 1 - i], pad[2 * i], pad[2 * i + 1]
        source = np.arange(-left, n + right)
        if mode == "reflect":
            source = np.abs(source)
            source = np.where(source > n - 1, 2 * (n - 1) - source, source)
        else:
            source = np.clip(source, 0, n - 1)
        maps.append(source)
    return maps


def non_constant_pad(input, pad, mode):
    """``F.pad(input, pad, mode)`` for mode ``"reflect"`` or ``"replicate"``."""
    input = to_tensor(input)
    pad = tuple(int(p) for p in pad)
    dims = _check(input, pad, mode)
    key = (Ellipsis,) + np.ix_(*_index_maps(input.shape, pad, mode))
    return record(f"{mode}_pad{dims}d", np.ascontiguousarray(input._data[key]), (input,),
                  {"pad": pad, "mode": mode})


def non_constant_pad_backward(grad_output, self, pad, mode):
    """The input's gradient: each output gradient added where it was read from."""
    key = (Ellipsis,) + np.ix_(*_index_maps(self.shape, pad, mode))
    out = np.zeros(self.shape, dtype=grad_output._data.dtype)
    np.add.at(out, key, grad_output._data)
    return record(f"{mode}_pad{len(pad) // 2}d_backward", out, (grad_output, self),
                  {"pad": pad, "mode": mode})

