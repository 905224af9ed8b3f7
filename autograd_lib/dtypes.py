"""Data types and PyTorch's type-promotion rules.

A :class:`dtype` is a thin, named wrapper around a NumPy dtype, so that
``x.dtype`` prints ``autograd_lib.float32`` the way PyTorch prints
``torch.float32``.

Type promotion follows PyTorch, which differs from NumPy in one teaching-
relevant way: a 0-dim tensor or a Python number only changes the result's
*category* (bool < integer < floating point), never its width.  So
``float32_tensor * 2.5`` stays float32 and ``int64_tensor * 2.5`` becomes the
default float dtype (float32), while ``float32_tensor + float64_scalar_tensor``
stays float32.
"""

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int32", "int64", "bool",
    "get_default_dtype", "set_default_dtype", "promote_types", "can_cast",
]

_builtin_bool = bool


class dtype:
    """A tensor element type: ``autograd_lib.float32``, ``autograd_lib.int64``, ..."""

    __slots__ = ("name", "numpy", "is_floating_point", "itemsize", "_rank")

    def __init__(self, name, numpy_type, rank):
        self.name = name
        self.numpy = np.dtype(numpy_type)
        self.is_floating_point = self.numpy.kind == "f"
        self.itemsize = self.numpy.itemsize
        self._rank = rank          # position in the promotion lattice

    def __repr__(self):
        return f"autograd_lib.{self.name}"

    def __reduce__(self):          # dtypes are singletons, also through pickle/deepcopy
        return (_dtype_from_name, (self.name,))


bool = dtype("bool", np.bool_, 0)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 2)
float16 = dtype("float16", np.float16, 3)
float32 = dtype("float32", np.float32, 4)
float64 = dtype("float64", np.float64, 5)

_ALL = (bool, int32, int64, float16, float32, float64)
_BY_NUMPY = {d.numpy: d for d in _ALL}


class _ByTypeNumber(dict):
    """dtype by NumPy's type number (a fast lookup); aliases such as 'q' vs 'l'
    for int64 are resolved on first use."""

    def __missing__(self, num):
        found = np.dtype(num_to_char(num))
        for d in _ALL:
            if found == d.numpy:
                self[num] = d
                return d
        raise TypeError(f"unsupported NumPy type number {num}")


def num_to_char(num):
    for char in np.typecodes["All"]:
        if np.dtype(char).num == num:
            return char
    raise TypeError(f"unknown NumPy type number {num}")


BY_NUM = _ByTypeNumber({d.numpy.num: d for d in _ALL})
_BY_NAME = {d.name: d for d in _ALL}
# Legacy type names PyTorch uses in some error messages ("torch.FloatTensor").
LEGACY_NAMES = {"bool": "BoolTensor", "int32": "IntTensor", "int64": "LongTensor",
                "float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor"}
# The C++ type names some other messages use ("expected ... float != double").
C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                "int64": "long int", "int32": "int", "bool": "bool"}

_default_float = float32


def _dtype_from_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """The library dtype for a NumPy dtype; other NumPy types are converted sensibly."""
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    if np_dtype.kind == "f":
        return float64
    if np_dtype.kind in "iu":
        return int64
    raise TypeError(f"can't convert NumPy array of type {np_dtype} to an autograd_lib tensor; "
                    "supported types are bool, int32, int64, float16, float32 and float64")


def as_dtype(value):
    """Accept an autograd_lib dtype, a NumPy dtype/type or a name like ``'float32'``."""
    if value is None or isinstance(value, dtype):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is float:
        return float64
    if value is int:
        return int64
    if value is _builtin_bool:
        return bool
    try:
        return from_numpy_dtype(value)
    except TypeError:
        raise TypeError(f"dtype must be an autograd_lib dtype such as autograd_lib.float32, got {value!r}") from None


def get_default_dtype():
    """The dtype Python floats become (float32 unless changed), as ``torch.get_default_dtype``."""
    return _default_float


def set_default_dtype(d):
    """Set the dtype Python floats become; only float32 and float64 are allowed, as in PyTorch."""
    global _default_float
    d = as_dtype(d)
    if d not in (float32, float64):
        raise TypeError(f"only floating-point types float32 and float64 are supported as the default type, got {d}")
    _default_float = d


def promote_types(a, b):
    """The smallest dtype both ``a`` and ``b`` convert to without losing their category."""
    if a is b:
        return a
    return a if a._rank >= b._rank else b


def can_cast(from_, to):
    """True when casting ``from_`` to ``to`` keeps the category or raises it (bool < integer
    < floating point), as ``torch.can_cast``: the casts type promotion may do in place."""
    for position, (name, d) in enumerate((("from_", from_), ("to", to)), start=1):
        if not isinstance(d, dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {position}) must be "
                            f"autograd_lib.dtype, not {type(d).__name__}")
    return _category(from_) <= _category(to)


def _category(d):
    return 2 if d.is_floating_point else (0 if d is bool else 1)


def _combine(higher, lower):
    """PyTorch's ``combine_categories``: ``lower`` may only raise the category of ``higher``."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """The dtype of an elementwise op over tensors and Python numbers, as ``torch.result_type``.

    Dimensioned tensors decide the dtype; 0-dim tensors and then Python numbers
    only count when they belong to a higher category (bool < int < float).
    Every binary op of the library asks it (as ``dtypes.result_type``).
    (Exercise 01.result_type.)
    """
    dim_result = zero_result = wrapped_result = None
    for op in operands:
        if isinstance(op, (_builtin_bool, np.bool_)):
            d, slot = bool, 2
        elif isinstance(op, (int, np.integer)):
            d, slot = int64, 2
        elif isinstance(op, (float, np.floating)):
            d, slot = _default_float, 2
        else:                           # a Tensor
            d = op.dtype
            slot = 1 if op.ndim == 0 else 0
        if slot == 0:
            dim_result = d if dim_result is None else promote_types(dim_result, d)
        elif slot == 1:
            zero_result = d if zero_result is None else promote_types(zero_result, d)
        else:
            wrapped_result = d if wrapped_result is None else promote_types(wrapped_result, d)
    return _combine(dim_result, _combine(zero_result, wrapped_result))
