"""The legacy typed tensor classes: ``FloatTensor``, ``DoubleTensor``, ``LongTensor``, ...

Old PyTorch code (and some current tutorials) makes tensors with ``torch.LongTensor([1, 2])``
or ``torch.FloatTensor(3, 4)`` and asks ``isinstance(x, torch.FloatTensor)``.  In PyTorch
these are not subclasses of ``Tensor``: they are classes of the metaclass ``tensortype``,
whose call builds an ordinary tensor of their dtype and whose ``isinstance`` asks the dtype.
So here:

* ``FloatTensor()`` is empty; ``FloatTensor(2, 3)`` or ``FloatTensor(Size([2, 3]))`` has that
  size (PyTorch leaves the memory uninitialized; here it holds zeros); ``FloatTensor(data)``
  copies a list, a tuple or an array, converted to the dtype; ``FloatTensor(t)`` of a tensor
  of the same dtype is an alias of it (``AliasBackward0``), of another dtype refused;
* ``isinstance(t, FloatTensor)`` is True for any float32 tensor;
* ``x.type(LongTensor)`` casts (``ops/copies.py``).

The types of dtypes the library does not have (``ByteTensor``: uint8, ``CharTensor``: int8,
``ShortTensor``: int16, ``BFloat16Tensor``) exist, so that ``isinstance`` answers False, but
calling them raises PyTorch's ``TypeError`` for a type that is not available, saying why.
"""

import numpy as np

from . import dtypes as _dt
from .creation import tensor as _tensor
from .creation import zeros as _zeros
from .devices import device as _device
from .ops.indexing import _alias
from .tensor import Size, Tensor

__all__ = ["tensortype", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
           "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]

_SIGNATURES = ("""
 * (*, autograd_lib.device device = None)
 * (autograd_lib.Storage storage)
 * (Tensor other)
 * (tuple of ints size, *, autograd_lib.device device = None)
 * (object data, *, autograd_lib.device device = None)
""")


def _type_name(value):
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, _dt.dtype):
        return "autograd_lib.dtype"
    return type(value).__name__


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class tensortype(type):
    """The metaclass of the legacy typed classes (PyTorch's ``torch.tensortype``)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and cls.dtype is not None and obj.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'autograd_lib.{cls.__name__}'>"

    def __call__(cls, *args, device=None, **kwargs):
        if kwargs:
            got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
            raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected "
                            f"one of:{_SIGNATURES}")
        if device is not None and _device(device).type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{_device(device).type} was passed")
        if cls.dtype is None:
            raise TypeError(f"type autograd_lib.{cls.__name__} not available: autograd_lib has no "
                            f"{cls.missing} dtype (its dtypes are bool, int32, int64, float16, float32 and float64)")
        return _new(cls.dtype, args)


def _new(dtype, args):
    """What calling a typed class with ``args`` makes (PyTorch's legacy ``new()``)."""
    if not args:
        return _zeros(0, dtype=dtype)
    if len(args) == 1 and not _is_int(args[0]):
        data = args[0]
        if isinstance(data, Size):
            return _sized(dtype, tuple(data))
        if isinstance(data, Tensor):
            if data.dtype is not dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(data.dtype)})")
            return _alias(data)
        if isinstance(data, str):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if not isinstance(data, (list, tuple, np.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return _tensor(data, dtype=dtype)
    for position, size in enumerate(args, start=1):
        if not _is_int(size):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {position} with error "
                            f"\"type must be tuple of ints,but got {type(size).__name__}\"")
    return _sized(dtype, tuple(int(s) for s in args))


def _sized(dtype, shape):
    negative = [s for s in shape if s < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {list(shape)}")
    return _zeros(shape, dtype=dtype)


def _options(dtype):
    """PyTorch's description of a tensor's options, in its refusal of another dtype."""
    return (f"TensorOptions(dtype={_dt.C_TYPE_NAMES[dtype.name]}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


def _typed(name, dtype, missing=None):
    return tensortype(name, (), {"dtype": dtype, "missing": missing, "is_cuda": False, "is_sparse": False,
                                 "__module__": "autograd_lib", "__doc__": f"Tensors of dtype {dtype or missing}."})


FloatTensor = _typed("FloatTensor", _dt.float32)
DoubleTensor = _typed("DoubleTensor", _dt.float64)
HalfTensor = _typed("HalfTensor", _dt.float16)
IntTensor = _typed("IntTensor", _dt.int32)
LongTensor = _typed("LongTensor", _dt.int64)
BoolTensor = _typed("BoolTensor", _dt.bool)
BFloat16Tensor = _typed("BFloat16Tensor", None, "bfloat16")
ByteTensor = _typed("ByteTensor", None, "uint8")
CharTensor = _typed("CharTensor", None, "int8")
ShortTensor = _typed("ShortTensor", None, "int16")
