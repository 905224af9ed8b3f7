"""Copies and casts: ``clone``, ``contiguous``, ``to`` (and ``float()``, ``long()``, ...).

Gradients flow through them unchanged; the engine casts a gradient back to
its input's dtype.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from .. import devices as _devices
from ..tensor import Tensor
from ..op_table import exports, methods, op

__all__ = ["to", "to_arguments", "clone", "contiguous"]


def to_arguments(*args, dtype=None, device=None, non_blocking=False, copy=False,
                 memory_format=None):
    """``(device, dtype, non_blocking, copy)`` from the arguments of ``to``, in PyTorch's
    three forms: ``to(float64)``, ``to("cpu", float64)``, ``to(other_tensor)`` (other's
    dtype and device), each maybe followed by ``non_blocking`` and ``copy``.  The device
    is checked (``devices.check``: only the CPU); the dtype is None when not given."""
    args = list(args)
    if args:
        first = args[0]
        if isinstance(first, Tensor):
            dtype, device = first.dtype, first.device
            args.pop(0)
        elif isinstance(first, (str, _devices.device)) or (
                isinstance(first, int) and not isinstance(first, bool)):
            device = args.pop(0)
            if args and not isinstance(args[0], bool):
                dtype = args.pop(0)
        else:                                   # a dtype (ours, or NumPy's inside the library)
            dtype = args.pop(0)
    if args:
        non_blocking = args.pop(0)
    if args:
        copy = args.pop(0)
    if args:
        raise TypeError(f"to() received an invalid combination of arguments - got "
                        f"{len(args)} unexpected positional argument(s)")
    if device is not None:
        device = _devices.check(device)
    return device, _dt.as_dtype(dtype), non_blocking, copy


@op("to")
def to(input, *args, **kwargs):
    """The tensor as ``dtype`` on ``device``; the tensor itself when it already is (unless
    ``copy=True``); see :func:`to_arguments` for the forms.  Only the CPU is a device."""
    _, dtype, _, copy = to_arguments(*args, **kwargs)
    dtype = dtype or input.dtype
    if dtype is input.dtype and not copy:
        return input
    return record("_to_copy", input._data.astype(dtype.numpy), (input,))


@op("cpu")
def cpu(input, memory_format=None):
    """The tensor itself: it is on the CPU already."""
    return input


@op("cuda")
def cuda(input, device=None, non_blocking=False, memory_format=None):
    """Raises, as a PyTorch built without CUDA does."""
    _devices.check("cuda" if device is None else device)


@op("pin_memory")
def pin_memory(input, device=None):
    """Raises, as PyTorch without an accelerator does: pinned memory is for copies to a GPU."""
    raise RuntimeError("Cannot access accelerator device when none is available. (autograd_lib has no "
                       "accelerator: pinned memory, for fast copies to one, does not apply.)")


@op("is_pinned")
def is_pinned(input, device=None):
    return False


@op("type")
def type_(input, dtype=None, non_blocking=False):
    """``x.type()``: the legacy type name (``'autograd_lib.FloatTensor'``); ``x.type(float64)``,
    ``x.type('autograd_lib.DoubleTensor')`` or ``x.type(DoubleTensor)``: a cast, as ``to``."""
    if dtype is None:
        return f"autograd_lib.{_dt.LEGACY_NAMES[input.dtype.name]}"
    if isinstance(dtype, str):
        by_legacy = {f"{prefix}.{legacy}": _dt.as_dtype(name) for name, legacy in
                     _dt.LEGACY_NAMES.items() for prefix in ("torch", "autograd_lib")}
        if dtype not in by_legacy:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = by_legacy[dtype]
    elif isinstance(getattr(dtype, "dtype", None), _dt.dtype) and isinstance(dtype, type):
        dtype = dtype.dtype                         # a legacy class: x.type(LongTensor)
    return to(input, dtype)


methods(float=lambda self: to(self, _dt.float32))
methods(double=lambda self: to(self, _dt.float64))
methods(long=lambda self: to(self, _dt.int64))
methods(int=lambda self: to(self, _dt.int32))
methods(bool=lambda self: to(self, _dt.bool))
methods(half=lambda self: to(self, _dt.float16))
methods(type_as=lambda self, other: to(self, other.dtype))


@op("clone", public=True)
def clone(input):
    """A copy with its own storage; gradients flow through it unchanged.  The copy keeps
    the memory layout (a transposed tensor's clone is transposed too), except that of an
    expanded tensor, whose repeated elements each get their own place in row-major order."""
    a = input._data
    expanded = any(stride == 0 and size > 1 for stride, size in zip(a.strides, a.shape))
    return record("clone", np.array(a, copy=True, order="C" if expanded else "K"), (input,))


@op("contiguous")
def contiguous(input):
    """The tensor itself if its memory is in row-major order, else a row-major copy
    (recorded as a clone, like PyTorch; ``clone`` alone keeps the memory layout)."""
    if input._data.flags.c_contiguous:
        return input
    return record("clone", np.ascontiguousarray(input._data), (input,))




# Which casts type promotion may do (``torch.can_cast``): the rule lives with the dtypes.
exports(can_cast=_dt.can_cast)
