"""The Tensor: a NumPy array plus the bookkeeping autograd needs.

A tensor holds

* ``_data``: the NumPy array with its values (its *storage*; views and
  ``detach()`` share it);
* ``requires_grad`` / ``grad_fn`` / ``is_leaf``: its place in the graph.  A
  tensor made by an operation on tensors that require grad is a *non-leaf*
  whose ``grad_fn`` is the backward node of that operation; every other
  tensor is a *leaf*;
* ``grad``: where backward accumulates the gradient (leaves, or non-leaves
  that called ``retain_grad()``);
* ``_version``: a counter shared with every tensor that shares the storage,
  bumped by each in-place change, so backward can detect stale saved values;
* for a *view* (``x[1:]``, ``x.t()``): ``_base``, the tensor whose storage it
  shares, and how it was made from it (``views.py``).  Its ``grad_fn`` follows
  the base: after an in-place write into the storage it is regenerated from the
  base's history when next asked for.

This module is the data structure only.  The methods that need more of the
library are installed on :class:`Tensor` by the module that defines them:
``Tensor(data)`` by ``creation.py``, ``register_hook`` by ``graph.py``,
``_gradient_edge`` by ``recording.py``, ``data_ptr``/``untyped_storage`` by
``views.py``, every operation (``x.exp()``, ``x + y``,
``x[i]``, ``x.add_(y)``) by its module in ``ops/``, and ``backward`` by
``autograd/functional.py``.
"""

import copy
import warnings
import weakref

import numpy as np

from . import dtypes as _dt
from . import grad_mode as _grad_mode
from ._tensor_str import tensor_repr
from .devices import CPU
from .grad_mode import _state as _grad_state

__all__ = ["Tensor", "Size"]


class Size(tuple):
    """The shape of a tensor: a tuple that prints like ``autograd_lib.Size([2, 3])``."""

    def __repr__(self):
        return f"autograd_lib.Size({list(self)})"

    def __getitem__(self, key):                 # a slice of a Size is a Size, as in PyTorch
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        return Size(tuple.__add__(tuple(other), self))

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class _VersionCounter:
    """One counter per storage; every in-place write increments it."""
    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class _InferenceVersionCounter(_VersionCounter):
    """The counter of a storage made inside ``inference_mode``: every tensor on it (the
    tensor, its views, ``detach()``) is an inference tensor, as in PyTorch."""
    __slots__ = ()


_new_object = object.__new__


def _new_counter():
    return _InferenceVersionCounter() if _grad_mode.inference_used and _grad_state.inference else _VersionCounter()


NON_LEAF_REQUIRES_GRAD_OFF = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. "
    "See github.com/pytorch/pytorch/pull/30531 for more information.")


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    # Defaults shared by every tensor; an instance stores only what differs
    # (most tensors never get a grad, hooks or a base), which keeps creating
    # a tensor cheap: it happens for every operation.
    _requires_grad = False
    _grad_fn = None                 # read it as grad_fn: a view's is regenerated when stale
    _output_nr = 0
    _grad = None
    _retains_grad = False
    _base = None                    # a view: the tensor that owns the storage (views.py)
    _view_fn = None                 # a view: its replay function, base array -> view array
    _view_version = 0               # a view: the version its grad_fn was set at
    _layout = None                  # a base reshaped in place (squeeze_): (to its layout now, back)
    _creation_meta = None           # a view made under no_grad or by unbind: no writes (views.py)
    _accumulator = None
    _hooks = None
    _post_accumulate_hooks = None   # a leaf's register_post_accumulate_grad_hook hooks
    _wrapped_number = None          # the Python number an op's operand was made from (x * 3)
    _promoted_from = None           # ops/operands.py: the tensor this is a type-promoted copy of

    __array_ufunc__ = None          # NumPy defers to our reflected operators: np.float64(2) * t

    @classmethod
    def _make(cls, array, version_counter=None):
        """Wrap a NumPy array without copying (internal fast path)."""
        t = object.__new__(cls)
        t._data = array
        # The fields every op reads of its inputs, held by the instance: CPython 3.11 reads
        # an instance's own attribute about twice as fast as a default it leaves
        # to the class (the defaults above stay for tensors made any other way).
        t._requires_grad = False
        t._grad_fn = t._base = t._promoted_from = t._wrapped_number = None
        if version_counter is None:
            if _grad_mode.inference_used and _grad_state.inference:
                version_counter = _InferenceVersionCounter()
            else:                       # _VersionCounter(), without the frame of its __init__
                version_counter = _new_object(_VersionCounter)
                version_counter.value = 0
        t._version_counter = version_counter
        return t

    def is_inference(self):
        """True for a tensor whose storage was made inside ``inference_mode()`` (and for its
        views and ``detach()``): autograd may not save it, nor write it in place, later."""
        return type(self._version_counter) is _InferenceVersionCounter

    # ------------------------------------------------------------------ data
    @property
    def data(self):
        """The values as a new tensor that shares storage but not history or version
        counter: changes made through it are invisible to autograd (see ``detach``).  It is
        an inference tensor when this one is, wherever it is read, as in PyTorch."""
        return Tensor._make(self._data, type(self._version_counter)())

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self.requires_grad and not value.dtype.is_floating_point:
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or "
                               "complex dtype")
        self._data = value._data

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def dtype(self):
        return _dt.BY_NUM[self._data.dtype.num]

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    def element_size(self):
        return self._data.itemsize

    def is_contiguous(self):
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim=None):
        """How many elements of the storage one step along each dim skips (``dim``: one of
        them).  NumPy counts strides in bytes; PyTorch, and so this, in elements."""
        steps = tuple(s // self._data.itemsize for s in self._data.strides)
        if self._data.size == 0 and not any(steps):
            # NumPy gives a new empty array strides of 0; PyTorch, row-major ones.
            steps, step = [], 1
            for n in reversed(self._data.shape):
                steps.insert(0, step)
                step *= max(n, 1)
            steps = tuple(steps)
        return steps if dim is None else steps[_wrap_dim(dim, self.ndim)]

    def storage_offset(self):
        """Where this tensor's first element is in its storage, in elements: 0 unless it
        is a view (or a detached view) that starts further in."""
        owner = storage_owner(self._data)
        start = self._data.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
        return start // self._data.itemsize

    def is_floating_point(self):
        return self.dtype.is_floating_point

    @property
    def device(self):
        """Where the values are: always ``device(type='cpu')`` (NumPy computes on the CPU)."""
        return CPU

    is_cuda = False
    is_cpu = True
    is_meta = False

    def get_device(self):
        """-1: the CPU's index in PyTorch's numbering."""
        return -1

    @property
    def _version(self):
        if type(self._version_counter) is _InferenceVersionCounter:
            # PyTorch gives inference tensors no counter to read (internally one still counts).
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for single-output ops and leaves)."""
        return self._output_nr

    @property
    def grad_fn(self):
        """The backward node of the op that made this tensor; None for a leaf.  A view's
        is regenerated from its base when the storage was written in place since it
        was set (``views.view_grad_fn``, as PyTorch)."""
        if self._base is not None:
            return self._view_grad_fn()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node
        if self._base is not None:
            self._view_version = self._version_counter.value

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def _is_view(self):
        return self._base is not None

    # ---------------------------------------------------------- requires_grad
    @property
    def requires_grad(self):
        """A leaf's own flag; a non-leaf always; a view also when its base does (even one
        made under no_grad, which has no grad_fn: PyTorch's rule)."""
        return self._requires_grad or self._grad_fn is not None or (
            self._base is not None and self._base.requires_grad)

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):     # as PyTorch's setter: 1, None, np.True_ are refused
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD_OFF)
        if value and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self.is_inference():
            _check_inference_requires_grad()
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place and return ``self``.  Only a leaf has a flag
        of its own: a non-leaf requires grad because it has a grad_fn, so turning it
        off there is refused (``detach()`` is the way out of the graph).

        (Exercise 01.requires_grad_.)"""
        if not isinstance(requires_grad, (bool, np.bool_)):
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                            f"not {type(requires_grad).__name__}")
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(NON_LEAF_REQUIRES_GRAD_OFF)
            return self
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.is_inference():
            _check_inference_requires_grad()
        self._requires_grad = bool(requires_grad)
        return self

    # ------------------------------------------------------------------- grad
    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dt.C_TYPE_NAMES[value.dtype.name]}' "
                    f"to a tensor with grad_dtype '{_dt.LEGACY_NAMES[self.dtype.name][:-6]}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype).")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                                   f"tensor of size '{list(self.shape)}'. Please ensure that the "
                                   "gradient and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Ask backward to also store this non-leaf's gradient in ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return                          # leaves keep their grad anyway
        self._retains_grad = True
        node = self.grad_fn
        if node._retains_grad is None:
            node._retains_grad = {}
        node._retains_grad[self._output_nr] = weakref.ref(self)

    # ---------------------------------------------------------------- detach
    def detach(self):
        """A new leaf sharing storage *and* version counter: in-place changes through
        it are seen by autograd's checks (unlike ``.data``)."""
        return Tensor._make(self._data, self._version_counter)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        node = self.grad_fn
        if node is not None and node._pre_hooks and self._output_nr in node._pre_hooks:
            self._hooks = node._pre_hooks[self._output_nr]     # its hooks stay its own, shared with the old node
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    # ------------------------------------------------------------ conversion
    def numpy(self):
        """The NumPy array behind this tensor (shared, not copied).  Refused for a tensor
        that requires grad while recording (outside ``no_grad``), as in PyTorch."""
        if self.requires_grad and _grad_mode.is_grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self):
        if self.requires_grad:
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first.",
                          UserWarning, stacklevel=2)
        return float(self._one_element())

    def __int__(self):
        return int(self._one_element())

    def _one_element(self):
        """The single element, for ``float()`` and ``int()``: torch refuses any other size
        with a ValueError there (``item()``'s is a RuntimeError)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if self._data.size == 0
                               else "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        # As PyTorch: a 0-dim tensor formats as its number (f"{loss}" -> "0.25").
        if self.ndim == 0 and type(self) is Tensor:
            return self._data.item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self):
        return tensor_repr(self._data, dtype_name=self.dtype.name,
                           requires_grad=self.requires_grad,
                           grad_fn_name=self.grad_fn.name() if self.grad_fn is not None else None)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data.copy(), self._requires_grad and self.grad_fn is None))

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.")
        new = type(self).__new__(type(self))
        _init(new, self._data.copy())
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        for key, value in self.__dict__.items():       # a user's own attributes (p.note = ...)
            if key not in _TENSOR_FIELDS:
                new.__dict__[key] = copy.deepcopy(value, memo)
        return new


# What a tensor stores about itself (its other attributes are the user's).
_TENSOR_FIELDS = {"_data", "_version_counter", "_requires_grad", "_grad_fn", "_output_nr", "_grad",
                  "_retains_grad", "_base", "_view_fn", "_view_version", "_layout", "_creation_meta",
                  "_accumulator", "_hooks", "_post_accumulate_hooks", "_promoted_from",
                  "_wrapped_number"}


def _check_inference_requires_grad():
    if not _grad_state.inference:
        raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode "
                           "is not allowed.")


def _init(t, array, version_counter=None):
    t._data = array
    t._version_counter = version_counter if version_counter is not None else _new_counter()


def _rebuild(array, requires_grad):
    t = Tensor._make(array)
    t._requires_grad = requires_grad
    return t


def storage_owner(array):
    """The NumPy array that owns ``array``'s memory (the tensor's *storage*): the end of
    its ``.base`` chain (through the wrapper ``as_strided`` puts between a view and it)."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            return array
        array = base


def _wrap_dim(dim, ndim):
    """Turn a possibly negative dim into a positive one, with PyTorch's error."""
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], "
                         f"but got {dim})")
    return dim % size
