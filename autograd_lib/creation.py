"""Making tensors: ``tensor``, ``zeros``, ``randn``, ... with PyTorch's signatures.

Tensors made here are leaves.  Python floats become float32 (the default
dtype) and Python ints int64, as in PyTorch; NumPy arrays keep their dtype.
Random numbers come from one seeded generator (``manual_seed``); the values
differ from PyTorch's, whose generator is not NumPy's.
"""

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "randn", "rand", "randint", "randn_like",
           "rand_like", "arange", "linspace", "eye", "manual_seed", "seed"]

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Seed the generator behind ``randn``, ``rand`` and ``randint`` (reproducible notebooks)."""
    global _generator
    _generator = np.random.default_rng(int(seed))
    return _generator


def seed():
    """Reseed from the operating system's entropy; returns nothing useful to rely on."""
    manual_seed(np.random.SeedSequence().entropy % (2 ** 63))


def _infer_dtype(data):
    """PyTorch's dtype for Python data: any float -> default float, any int -> int64, bool -> bool."""
    kinds = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            kinds.add(item.dtype.name)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(item, (int, np.integer)):
            kinds.add("int")
        elif isinstance(item, (float, np.floating)):
            kinds.add("float")
        else:
            raise TypeError(f"Could not infer dtype of {type(item).__name__}")
    if kinds & {"float", "float32", "float64", "float16"}:
        if "float64" in kinds:
            return _dt.float64
        return _dt.get_default_dtype()
    if kinds - {"bool"}:
        return _dt.int64
    return _dt.bool if kinds else _dt.get_default_dtype()


def _to_array(data, dtype=None):
    """A fresh NumPy array holding ``data`` as ``dtype`` (inferred when None)."""
    if isinstance(data, Tensor):
        array = data._data
    elif isinstance(data, np.ndarray):
        array = data
    else:
        if dtype is None:
            dtype = _infer_dtype(data)
        array = _nested_to_numpy(data)
    target = dtype.numpy if dtype is not None else _dt.from_numpy_dtype(array.dtype).numpy
    return np.array(array, dtype=target, copy=True)


def _nested_to_numpy(data):
    if isinstance(data, (list, tuple)):
        if any(isinstance(x, Tensor) for x in data):
            data = [x._data if isinstance(x, Tensor) else x for x in data]
        array = np.array(data)
        if array.dtype == object:
            raise ValueError("expected sequence of equal-length lists (the nested lists have "
                             "different lengths)")
        return array
    return np.asarray(data)


def tensor(data, dtype=None, requires_grad=False, device=None):
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists, arrays)."""
    dtype = _dt.as_dtype(dtype)
    if isinstance(data, Tensor) and dtype is None:
        dtype = data.dtype
    t = Tensor._make(_to_array(data, dtype))
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def as_tensor(data, dtype=None):
    """Like ``tensor`` but shares a NumPy array's memory when the dtype already matches."""
    if isinstance(data, Tensor) and (dtype is None or _dt.as_dtype(dtype) is data.dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _dt.as_dtype(dtype).numpy == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array):
    """A tensor sharing memory with ``array``: writes to either are seen by both."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dt.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    return size


def _factory(array, requires_grad):
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _dtype_or_default(dtype):
    return _dt.as_dtype(dtype) or _dt.get_default_dtype()


def zeros(*size, dtype=None, requires_grad=False, device=None):
    """``zeros(2, 3)`` or ``zeros((2, 3))``."""
    return _factory(np.zeros(_size(size), dtype=_dtype_or_default(dtype).numpy), requires_grad)


def ones(*size, dtype=None, requires_grad=False, device=None):
    return _factory(np.ones(_size(size), dtype=_dtype_or_default(dtype).numpy), requires_grad)


def empty(*size, dtype=None, requires_grad=False, device=None):
    """Like ``zeros`` (NumPy's uninitialized memory would make notebooks irreproducible)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    return _factory(np.full(_size((size,)), fill_value, dtype=_dt.as_dtype(dtype).numpy), requires_grad)


def _like(t, dtype):
    return _dt.as_dtype(dtype) or t.dtype


def zeros_like(input, dtype=None, requires_grad=False):
    return _factory(np.zeros(input.shape, dtype=_like(input, dtype).numpy), requires_grad)


def ones_like(input, dtype=None, requires_grad=False):
    return _factory(np.ones(input.shape, dtype=_like(input, dtype).numpy), requires_grad)


def empty_like(input, dtype=None, requires_grad=False):
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def full_like(input, fill_value, dtype=None, requires_grad=False):
    return _factory(np.full(input.shape, fill_value, dtype=_like(input, dtype).numpy), requires_grad)


def randn(*size, dtype=None, requires_grad=False, generator=None, device=None):
    """Standard normal samples (float32 by default)."""
    rng = generator or _generator
    array = rng.standard_normal(_size(size)).astype(_dtype_or_default(dtype).numpy)
    return _factory(array, requires_grad)


def rand(*size, dtype=None, requires_grad=False, generator=None, device=None):
    """Uniform samples in [0, 1)."""
    rng = generator or _generator
    array = rng.random(_size(size)).astype(_dtype_or_default(dtype).numpy)
    return _factory(array, requires_grad)


def randn_like(input, dtype=None, requires_grad=False):
    return randn(input.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def rand_like(input, dtype=None, requires_grad=False):
    return rand(input.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def randint(low, high=None, size=None, dtype=None, generator=None):
    """Random integers in [low, high): ``randint(10, (3,))`` or ``randint(0, 10, (3,))``."""
    if size is None:
        if isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing required argument 'size'")
    if high is None:
        low, high = 0, low
    rng = generator or _generator
    dtype = _dt.as_dtype(dtype) or _dt.int64
    return Tensor._make(rng.integers(low, high, size=_size((size,))).astype(dtype.numpy))


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    """``arange(5)``, ``arange(1, 4)``, ``arange(0, 1, 0.25)``; ints give int64, floats float32."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dtype = _infer_dtype([start, end, step])
    dtype = _dt.as_dtype(dtype)
    count = max(int(np.ceil((end - start) / step)), 0)
    array = (start + step * np.arange(count, dtype=np.float64)).astype(dtype.numpy) \
        if dtype.is_floating_point else np.arange(start, end, step).astype(dtype.numpy)
    return _factory(array, requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False, device=None):
    array = np.linspace(start, end, int(steps)).astype(_dtype_or_default(dtype).numpy)
    return _factory(array, requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    return _factory(np.eye(n, m, dtype=_dtype_or_default(dtype).numpy), requires_grad)
