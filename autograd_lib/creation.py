"""Making tensors: ``tensor``, ``zeros``, ``randn``, ... with PyTorch's signatures,
and the constructor ``Tensor(data)``.

Tensors made here are leaves.  Python floats become float32 (the default
dtype) and Python ints int64, as in PyTorch; NumPy arrays keep their dtype.
Random numbers come from one seeded generator (``manual_seed``); the values
differ from PyTorch's, whose generator is not NumPy's.

Every factory is here, with PyTorch's checks of its arguments and ``linspace``'s bits, so
the module runs to about 500 lines.
"""

import warnings

import numpy as np

from . import devices as _devices
from . import dtypes as _dt
from .fused import fma
from .tensor import Tensor, _init
from .op_table import methods

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "randn", "rand", "randint", "randn_like",
           "rand_like", "randperm", "arange", "linspace", "eye", "manual_seed", "seed",
           "initial_seed", "Generator"]

class Generator:
    """A source of random numbers: ``Generator().manual_seed(0)``, passed as ``generator=``
    to ``randn``, ``rand``, ``randint``, ``randperm`` (and ``DataLoader``) to make them
    reproducible on their own.  A NumPy generator underneath: the numbers are not PyTorch's."""

    def __init__(self, device="cpu"):
        _devices.check(device)
        self.device = _devices.CPU
        self.manual_seed(67280421310721)            # PyTorch's default seed

    def manual_seed(self, seed):
        """Restart the stream from ``seed``; returns the generator itself (chainable)."""
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Restart from a seed taken from the operating system; returns that seed."""
        self.manual_seed(np.random.SeedSequence().entropy % (2 ** 63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return self._rng.bit_generator.state

    def set_state(self, state):
        self._rng.bit_generator.state = state
        return self

    def __getattr__(self, name):
        # standard_normal, random, integers, permutation ...: NumPy's generator's methods
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._rng, name)


_generator = Generator().manual_seed(0)


def manual_seed(seed):
    """Seed the generator behind ``randn``, ``rand`` and ``randint`` (reproducible notebooks);
    returns it, as PyTorch does."""
    return _generator.manual_seed(seed)


def initial_seed():
    return _generator.initial_seed()


def seed():
    """Reseed from the operating system's entropy; returns the new seed."""
    return _generator.seed()


def infer_dtype(data):
    """The dtype ``tensor(data)`` gives Python data when no dtype is passed, as PyTorch does.

    A bool is ``bool``, an int ``int64``, a float the default dtype; a NumPy scalar or a
    tensor inside the data keeps its own dtype; an empty list, wherever it is, counts as
    the default dtype.  The dtype of nested data is the promotion (``promote_types``) of
    all of them: ``[True, 2]`` is int64, ``[np.float64(1.5), 2.0]`` float64.  Anything
    else raises PyTorch's ``RuntimeError: Could not infer dtype of <type>``.
    (Exercise 01.infer_dtype.)"""
    result = None
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)) and item:
            stack.extend(item)
            continue
        if isinstance(item, (list, tuple)):
            found = _dt.get_default_dtype()
        elif isinstance(item, Tensor):
            found = item.dtype
        elif isinstance(item, (np.bool_, np.number)):
            found = _dt.from_numpy_dtype(item.dtype)
        elif isinstance(item, bool):
            found = _dt.bool
        elif isinstance(item, int):
            found = _dt.int64
        elif isinstance(item, float):
            found = _dt.get_default_dtype()
        else:
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        result = found if result is None else _dt.promote_types(result, found)
    return result


def nested_shape(data):
    """The shape of nested lists and tuples of numbers, refusing ragged data as PyTorch does.

    The sizes come from the first element at each depth.  Every list must then have its
    depth's size: the first one (in reading order) that does not raises ``ValueError:
    expected sequence of length N at dim D (got M)``.  A number where a list is expected
    raises ``TypeError: not a sequence``; a list where a number is expected ``TypeError:
    'list' object cannot be interpreted as an integer``.  A shape with a 0 has nothing to
    copy, and PyTorch checks nothing more (``[[], [1]]`` has shape ``(2, 0)``).  Anything
    that is not a list or tuple (a number, a tensor) is one item: ``nested_shape(2.5)`` is ``()``.
    (Exercise 01.nested_shape.)"""
    sizes, first = [], data
    while isinstance(first, (list, tuple)):
        sizes.append(len(first))
        first = first[0] if len(first) else None
    if 0 in sizes:
        return tuple(sizes)
    stack = [(data, 0)]
    while stack:
        item, dim = stack.pop()
        sequence = isinstance(item, (list, tuple))
        if dim == len(sizes):
            if sequence:
                raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an integer")
        elif not sequence:
            raise TypeError("not a sequence")
        elif len(item) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(item)})")
        else:
            stack.extend((x, dim + 1) for x in reversed(item))
    return tuple(sizes)


def _number_dtype(numbers):
    """The dtype of factory arguments (full, arange): NumPy scalars count as Python
    numbers here, as in PyTorch."""
    if any(isinstance(x, Tensor) for x in numbers):
        return infer_dtype(list(numbers))
    if any(isinstance(x, (float, np.floating)) for x in numbers):
        return _dt.get_default_dtype()
    if all(isinstance(x, (bool, np.bool_)) for x in numbers):
        return _dt.bool
    return _dt.int64


def _to_array(data, dtype=None):
    """A fresh NumPy array holding ``data`` as ``dtype`` (inferred when None).  Python data
    is first read as PyTorch reads it (:func:`_plain`), then goes through ``infer_dtype``
    and ``nested_shape`` (module globals: the course's slots), then NumPy copies it."""
    if isinstance(data, Tensor):
        array = data._data
    elif isinstance(data, np.ndarray):
        array = data
    else:
        data = _plain(data)
        if dtype is None:
            dtype = infer_dtype(data)
        array = _nested_to_numpy(data, nested_shape(data), dtype)
    target = dtype.numpy if dtype is not None else _dt.from_numpy_dtype(array.dtype).numpy
    return np.array(array, dtype=target, copy=True)


_ARRAYS_WARNED = []         # PyTorch warns once per process about a list of arrays


def _plain(data, first=None):
    """Python data as PyTorch reads it, in lists and NumPy scalars: a tensor inside a list
    is one number (PyTorch refuses one of several elements), an array or a ``range`` is
    a sequence, and a string is refused.  ``first``: on the chain of first elements,
    where PyTorch takes the sizes from (a string there has 'too many dimensions'); None
    for the data itself."""
    if isinstance(data, (list, tuple, range)):
        items = [_plain(x, first is not False and i == 0) for i, x in enumerate(data)]
        if not _ARRAYS_WARNED and any(isinstance(x, np.ndarray) for x in data):
            _ARRAYS_WARNED.append(True)
            warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                          "consider converting the list to a single numpy.ndarray with numpy.array() "
                          "before converting to a tensor.", UserWarning, stacklevel=4)
        return items
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(())[()]
    if isinstance(data, np.ndarray):
        if data.ndim == 0:
            raise TypeError("len() of unsized object")
        return [_plain(x, first is not False and i == 0) if isinstance(x, np.ndarray) else x
                for i, x in enumerate(data)]
    if isinstance(data, (str, bytes)):
        if first and isinstance(data, str):
            raise ValueError(f"too many dimensions '{type(data).__name__}'")
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return data


def _nested_to_numpy(data, shape, dtype):
    """Nested data whose ``shape`` was checked, as a NumPy array."""
    if 0 in shape:
        return np.zeros(shape, dtype=dtype.numpy)
    array = np.array(data)
    if array.dtype.kind in "uO" and dtype is _dt.int64:      # past int64: PyTorch's C++ refuses it
        raise ValueError("Overflow when unpacking long long")
    return array


def _construct(self, data=None, *, dtype=None, requires_grad=False):
    """``Tensor(data)`` copies ``data`` (default dtype float32, like ``torch.Tensor``)."""
    array = _to_array([] if data is None else data, _dt.as_dtype(dtype) or _dt.get_default_dtype())
    _init(self, array)
    if requires_grad:
        self.requires_grad_(True)


methods(__init__=_construct)


def tensor(data, dtype=None, requires_grad=False, device=None):
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists, arrays)."""
    _devices.check(device)
    dtype = _dt.as_dtype(dtype)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      ".requires_grad_(True), rather than autograd_lib.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        if dtype is None:
            dtype = data.dtype
    t = Tensor._make(_to_array(data, dtype))
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares a NumPy array's memory when the dtype already matches."""
    _devices.check(device)
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
        if not t.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def _dtype_or_default(dtype):
    return _dt.as_dtype(dtype) or _dt.get_default_dtype()


def zeros(*size, dtype=None, requires_grad=False, device=None):
    """``zeros(2, 3)`` or ``zeros((2, 3))``."""
    _devices.check(device)
    if any(int(s) < 0 for s in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list))
                                else size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _factory(np.zeros(_size(size), dtype=_dtype_or_default(dtype).numpy), requires_grad)


def ones(*size, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return _factory(np.ones(_size(size), dtype=_dtype_or_default(dtype).numpy), requires_grad)


def empty(*size, dtype=None, requires_grad=False, device=None):
    """Like ``zeros`` (NumPy's uninitialized memory would make notebooks irreproducible)."""
    _devices.check(device)
    _size(size)                     # (the general message, not zeros' own)
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    if dtype is None:
        dtype = _number_dtype([fill_value])
    return _factory(np.full(_size((size,)), fill_value, dtype=_dt.as_dtype(dtype).numpy), requires_grad)


def _like(t, dtype):
    return _dt.as_dtype(dtype) or t.dtype


def zeros_like(input, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return _factory(np.zeros(input.shape, dtype=_like(input, dtype).numpy), requires_grad)


def ones_like(input, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return _factory(np.ones(input.shape, dtype=_like(input, dtype).numpy), requires_grad)


def empty_like(input, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def full_like(input, fill_value, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return _factory(np.full(input.shape, fill_value, dtype=_like(input, dtype).numpy), requires_grad)


def randn(*size, dtype=None, requires_grad=False, generator=None, device=None):
    """Standard normal samples (float32 by default)."""
    _devices.check(device)
    rng = generator or _generator
    array = rng.standard_normal(_size(size)).astype(_dtype_or_default(dtype).numpy)
    return _factory(array, requires_grad)


def rand(*size, dtype=None, requires_grad=False, generator=None, device=None):
    """Uniform samples in [0, 1)."""
    _devices.check(device)
    rng = generator or _generator
    array = rng.random(_size(size)).astype(_dtype_or_default(dtype).numpy)
    return _factory(array, requires_grad)


def randn_like(input, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return randn(input.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def rand_like(input, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return rand(input.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def randint(low, high=None, size=None, dtype=None, generator=None, device=None, requires_grad=False):
    """Random integers in [low, high): ``randint(10, (3,))`` or ``randint(0, 10, (3,))``."""
    _devices.check(device)
    if size is None:
        if isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing required argument 'size'")
    if high is None:
        low, high = 0, low
    rng = generator or _generator
    dtype = _dt.as_dtype(dtype) or _dt.int64
    return _factory(rng.integers(low, high, size=_size((size,))).astype(dtype.numpy), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """The numbers 0 .. n-1 in a random order (int64)."""
    _devices.check(device)
    rng = generator or _generator
    dtype = _dt.as_dtype(dtype) or _dt.int64
    return _factory(rng.permutation(int(n)).astype(dtype.numpy), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    """``arange(5)``, ``arange(1, 4)``, ``arange(0, 1, 0.25)``; ints give int64, floats float32."""
    _devices.check(device)
    if end is None:
        start, end = 0, start
    start, end, step = (x.item() if isinstance(x, Tensor) else x for x in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dtype = _number_dtype([start, end, step])
    dtype = _dt.as_dtype(dtype)
    count = max(int(np.ceil((end - start) / step)), 0)
    array = (start + step * np.arange(count, dtype=np.float64)).astype(dtype.numpy) \
        if dtype.is_floating_point else np.arange(start, end, step).astype(dtype.numpy)
    return _factory(array, requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False, device=None):
    """``steps`` values from ``start`` to ``end``, evenly spaced, with PyTorch's bits: the
    first half is ``start + step * i`` and the second ``end - step * (steps - 1 - i)``, each
    computed as PyTorch's kernel computes it (a fused multiply-add: ``fused.fma``) with
    ``step = (end - start) / (steps - 1)`` in the result's dtype (float64 for integers)."""
    _devices.check(device)
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value.ndim:
            raise RuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got "
                               f"{name} with {value.ndim} dimension(s).")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    if isinstance(steps, Tensor) and steps.ndim == 0 and not steps.is_floating_point():
        steps = steps.item()
    if isinstance(steps, float) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _dtype_or_default(dtype)
    work = np.dtype(dtype.numpy).type if dtype.numpy in (np.float32, np.float64) else np.float64
    if not dtype.is_floating_point:                     # integer ends: truncated first, as PyTorch
        start, end = int(start), int(end)
    first, last = work(start), work(end)
    if steps <= 1:
        values = np.full(steps, first, dtype=work)
    elif dtype.numpy == np.float16:
        values = _half_linspace(start, end, steps)
    else:
        with np.errstate(all="ignore"):
            step = (last - first) / work(steps - 1)
        half = steps // 2
        values = np.concatenate([fma(np.full(half, step), np.arange(half).astype(work), first),
                                 fma(np.full(steps - half, -step), np.arange(steps - half)[::-1].astype(work), last)])
    if not dtype.is_floating_point:
        values = np.trunc(values)                   # C++'s conversion of a double to an integer
    return _factory(values.astype(dtype.numpy), requires_grad)


def _half_linspace(start, end, steps):
    """linspace in float16 as PyTorch's kernel computes it: each operation of half numbers in
    float32, its result rounded to half (no fused multiply-add)."""
    h, f = np.float16, np.float32
    first, last = h(f(start)), h(f(end))              # a Python float reaches half through float
    step = h(f(h(f(last) - f(first))) / f(h(steps - 1)))
    half = steps // 2
    times = lambda counts: (f(step) * counts.astype(h).astype(f)).astype(h).astype(f)   # noqa: E731
    return np.concatenate([(f(first) + times(np.arange(half))).astype(h),
                           (f(last) - times(np.arange(steps - half)[::-1])).astype(h)])


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    _devices.check(device)
    return _factory(np.eye(n, m, dtype=_dtype_or_default(dtype).numpy), requires_grad)


# ------------------------------------------------ t.new_zeros(...): like t's dtype

def _new(make):
    def method(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        _devices.check(device)
        return make(size, dtype=_dt.as_dtype(dtype) or self.dtype, requires_grad=requires_grad,
                    **kwargs)
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    _devices.check(device)
    dtype = _dt.as_dtype(dtype) or self.dtype
    return _factory(np.full(_size((size,)), fill_value, dtype=dtype.numpy), requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    _devices.check(device)
    dtype = _dt.as_dtype(dtype) or self.dtype
    return _factory(_to_array(data, dtype), requires_grad)


methods(new_zeros=_new(lambda size, **kw: zeros(*size, **kw)))
methods(new_ones=_new(lambda size, **kw: ones(*size, **kw)))
methods(new_empty=_new(lambda size, **kw: empty(*size, **kw)))
methods(new_full=_new_full, new_tensor=_new_tensor)
