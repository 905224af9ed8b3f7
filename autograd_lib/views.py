"""Views: tensors that share their base's storage, and how their history follows it.

A view (``x[1:]``, ``x[0]``, ``x.t()``, ``x.view(2, 2)``, ``x.unsqueeze(0)``, ...) is
made by an op that records ``record(..., view_of=input, replay=...)``
(:func:`make_view`).  Besides its values it knows

* ``_base``: the tensor that owns the storage.  A view of a view has the first
  view's base: a base is never a view itself;
* ``_view_fn``, its **replay function**: how it was made, as a function from the
  base's NumPy array to the view's (the view ops from the base, applied in order).  A base
  whose own shape changed in place (``squeeze_``, ``t_``: ``ops/inplace_views.py``) keeps in
  ``_layout`` how to go from the layout its views were made from to its layout now and back,
  so that every replay function starts from the same layout;
* ``_view_version``: the value of the shared version counter when its ``grad_fn``
  was set;
* ``_creation_meta``: how it was made, when that forbids writing into it while
  recording (under ``no_grad``; as one output of ``unbind``; by a custom
  ``Function``), else None.

A write into a view writes into its base, and a write into the base changes the
view: they are one storage, with one version counter.  Autograd must follow.
When an in-place op writes through a view, the base's history is rewritten with a
``CopySlices`` node (``ops/inplace.py``).  From then on every view of that base,
the written one included, has a stale ``grad_fn``: its node leads to the base's
*old* history.  As PyTorch, the view notices the next time its ``grad_fn`` is asked
for (the ``Tensor.grad_fn`` property calls :func:`view_grad_fn`): the version
counter has moved since ``_view_version``, so the view's ``grad_fn`` is
regenerated from the base's current history, as an :class:`AsStridedBackward0`
node.  Its backward puts the gradient of the view back where the view's elements
are in the base, which is where the replay function says they are
(:func:`positions_in_base`).  The same happens after a write into the base
itself, or through another view of it, or through ``detach()``.

A view also requires grad when its base does, even without a ``grad_fn`` of its
own (one made under ``no_grad``), exactly as in PyTorch (``Tensor.requires_grad``).

**Storage.** A tensor's values are a NumPy array (``_data``).  A view's array is a NumPy view
whose ``.base`` chain ends at the array that owns the memory: that owner plays
the role of PyTorch's *storage*.  Two tensors alias when their arrays have the
same owner; where a tensor starts in it is its ``storage_offset()``.

PyTorch's tests check aliasing with these (installed on :class:`Tensor` here)::

    x.data_ptr()                  # address of x's first element (0 when x is empty)
    x.untyped_storage()           # the shared memory: .data_ptr(), .nbytes(), .size()
    x.nbytes, x.itemsize          # bytes of x's elements, bytes of one element
    x.nelement()                  # numel()
    x.is_set_to(y)                # same storage, offset, shape and strides

so ``x[1].data_ptr() == x.data_ptr() + x.stride(0) * x.itemsize`` holds, and a
``clone()`` has a storage of its own.
"""

import numpy as np

from .devices import CPU
from .grad_mode import is_grad_enabled
from .graph import Node, expose_saved, forward_name
from .tensor import Tensor, storage_owner
from .op_table import methods

__all__ = ["make_view", "same_layout", "positions_in_base", "repeats_an_element", "view_grad_fn", "regenerate_grad_fn",
           "move_retained_grad", "check_view_write", "view_write_error", "UntypedStorage", "storage_owner",
           "AsStridedBackward0", "NO_GRAD_MODE", "MULTI_OUTPUT_NODE", "IN_CUSTOM_FUNCTION"]

# How a view was made, when that forbids writing into it while recording
# (PyTorch's CreationMeta; the default, None, allows it).
NO_GRAD_MODE = "no_grad"                # made under no_grad: the write would be ambiguous
MULTI_OUTPUT_NODE = "multi_output"      # one of several views made by one node (unbind)
IN_CUSTOM_FUNCTION = "custom_function"  # made by a custom Function, whose backward it would bypass


class AsStridedBackward0(Node):
    """The ``grad_fn`` a view gets when it is regenerated from its base: its only input is
    the base, and its rule (``derivatives/``) puts the view's gradient back at the
    view's positions in the base (``key``), adding where the view repeats an element
    (an expanded view)."""


def same_layout(array):
    """The replay of a view with its input's layout (``x[...]``, an input returned by a
    custom Function)."""
    return array


def make_view(array, input, replay):
    """The tensor for ``array``, a NumPy view of ``input``'s array, made from ``input``
    by ``replay`` (a function of ``input``'s array that returns ``array``'s layout).

    It shares ``input``'s storage and version counter; its base is ``input``'s base
    (or ``input``), its replay function starts from that base.  Made under ``no_grad``,
    it may not be written while recording; a view of such a view inherits that."""
    out = Tensor._make(array, input._version_counter)
    base = input._base
    if base is None:
        if input._layout is not None:           # replays start from the base's first layout
            to_now = input._layout[0]
            replay = (lambda made: lambda a: made(to_now(a)))(replay)
        out._base, out._view_fn = input, replay
    else:
        parent = input._view_fn
        out._base, out._view_fn = base, (lambda a: replay(parent(a)))
    out._creation_meta = input._creation_meta if is_grad_enabled() else NO_GRAD_MODE
    out._view_version = input._version_counter.value
    return out


def positions_in_base(view):
    """Where each element of ``view`` is in its base, as a NumPy key for the base: its
    replay function applied to the grid of the base's positions."""
    base = view._base
    if base._data.ndim == 0:            # every element is the base's one: index it with new axes
        return (Ellipsis,) + (None,) * view._data.ndim
    grid = np.arange(base._data.size, dtype=np.int64).reshape(base._data.shape)
    if base._layout is not None:        # the grid in the layout the replay functions start from
        grid = base._layout[1](grid)
    return np.unravel_index(np.asarray(view._view_fn(grid)), base._data.shape)


def _may_repeat(array):
    """False when ``array``'s strides cannot reach one element twice: sorted by stride, each
    dim steps past the whole of the dims below it (the usual layouts, at no cost)."""
    reach = 0
    for stride, size in sorted((abs(st), n) for st, n in zip(array.strides, array.shape) if n > 1):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def repeats_an_element(key, shape):
    """Whether positions ``key`` (as :func:`positions_in_base` gives them) name some element of
    an array of ``shape`` more than once (an expanded view, overlapping windows).

    ``shape`` has at least one dim: the key of a 0-d base names no positions (every element
    of a view of it is the base's one element, so the view repeats it when it has more than
    one element), and asking about one is a ValueError that says so."""
    if not shape:
        raise ValueError("repeats_an_element: a 0-d base has one element, and its key names no "
                         "positions; a view of it repeats that element when it has more than one")
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*key)), shape)
    return np.unique(flat).size != np.size(flat)


def view_grad_fn(view):
    """``view.grad_fn`` (installed as ``Tensor._view_grad_fn``): its node, regenerated
    from its base's current history when the storage was written since it was set.

    As PyTorch: a view with no history of a base that does not require grad has none;
    one made under ``no_grad``, by ``unbind`` or by a custom Function may not be
    regenerated (its base was written in place, which PyTorch refuses).  An in-place op
    on a view asks for it right after rewriting the base's history (``ops/inplace.py``),
    as PyTorch's ``rebase_history`` does.

    (Exercise 08.view_grad_fn.)"""
    if view._grad_fn is None and not view._base.requires_grad:
        return None
    if view._view_version != view._version_counter.value:
        if view._creation_meta is not None:
            raise view_write_error(view, indirect=True)
        regenerate_grad_fn(view)
    return view._grad_fn


def regenerate_grad_fn(view, key=None):
    """Give ``view`` a new ``grad_fn`` from its base's current history: an
    AsStridedBackward0 that puts the view's gradient back at its positions in the base
    (``key``, found with the replay function when not given)."""
    base = view._base
    node = AsStridedBackward0()
    node.next_functions = (base._gradient_edge(),)
    node._input_meta = ((base._data.shape, base._data.dtype),)
    # Whether the view shows some cell of the base more than once (an expanded view, or
    # positions that repeat): then its gradient is added up where it lands.  A view without
    # elements shows none, as PyTorch's overlap test of a strided layout says first (NOTE
    # [ Detecting Memory Overlap Within A Strided Tensor ]: "any dimension has size 0").
    key = positions_in_base(view) if key is None else key
    overlapping = view._data.size > 0 and _may_repeat(view._data) and (
        any(s == 0 and n > 1 for n, s in zip(view._data.shape, view._data.strides))
        or base._data.ndim > 0 and repeats_an_element(key, base._data.shape))
    node._params = {"self_shape": base.shape, "accumulate": overlapping, "key": key}
    expose_saved(node._params)
    move_retained_grad(view, view._grad_fn, node)
    view._grad_fn, view._output_nr = node, 0
    view._view_version = view._version_counter.value


methods(_view_grad_fn=view_grad_fn)


def move_retained_grad(view, old, new):
    """A view that retains its grad keeps doing so through its new node (hooks stay
    with the old one, as PyTorch's update_tensor_hooks_on_new_gradfn)."""
    if view._retains_grad and old is not None and old._retains_grad:
        ref = old._retains_grad.pop(view._output_nr, None)
        if ref is not None:
            new._retains_grad = {0: ref}


def check_view_write(view):
    """Before an in-place op writes through ``view`` while recording: refuse a view made
    under ``no_grad``, by ``unbind`` or by a custom Function, with PyTorch's errors.

    Then the leaf rule as PyTorch's check applies it to a view, which reads the view's
    own ``grad_fn`` (not the one it would regenerate): a view that requires grad only
    through its base, made before the base had a history or required grad, is refused
    as a view of a leaf or, once the base has a history, as a leaf.  A view that requires
    grad (its history taken before its base was ``detach_()``ed) of a base that is now a
    leaf not requiring grad is refused as a view of a leaf too: PyTorch asks whether the
    view requires grad and its base is a leaf, not whether the base requires grad.  (Every
    other view is checked by ``ops.inplace.check_inplace``.)"""
    if view._creation_meta is not None:
        raise view_write_error(view, indirect=False)
    if view._grad_fn is None and view.requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE if view._base._grad_fn is None else LEAF_MESSAGE)
    base = view._base
    if base._grad_fn is None and not base.requires_grad and view.requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE)


LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def view_write_error(view, indirect):
    """PyTorch's error for writing through (or, ``indirect``, next to) a view whose
    history cannot be rewritten."""
    meta, node = view._creation_meta, view._grad_fn
    written = "its base or another view of its base has been" if indirect else "is being"
    if meta == NO_GRAD_MODE or node is None:
        made = (f"Output {view._output_nr} of {forward_name(node)} is a view of a view which was "
                "created in" if node is not None else "A view was created in")
        message = f"{made} no_grad mode and {written} modified inplace with grad mode enabled."
    else:
        message = f"Output {view._output_nr} of {forward_name(node)} is a view and {written} modified inplace."
    if meta == MULTI_OUTPUT_NODE:
        message += (" This view is the output of a function that returns multiple views. Such "
                    "functions do not allow the output views to be modified inplace. You should "
                    "replace the inplace operation by an out-of-place one.")
    elif meta == IN_CUSTOM_FUNCTION:
        message += (" This view was created inside a custom Function (or because an input was "
                    "returned as-is) and the autograd logic to handle view+inplace would override "
                    "the custom backward associated with the custom Function, leading to incorrect "
                    "gradients. This behavior is forbidden. You can fix this by cloning the output "
                    "of the custom Function.")
    else:
        message += (" Given that this use case is ambiguous and error-prone, it is forbidden. You "
                    "can clarify your code by moving both the view and the inplace either both "
                    "inside the no_grad block (if you don't want the inplace to be tracked) or "
                    "both outside (if you want the inplace to be tracked).")
    return RuntimeError(message)


# ------------------------------------------------------------------ storage
def _address(array):
    """Where ``array``'s first element is in memory (NumPy's array interface)."""
    return array.__array_interface__["data"][0]


class UntypedStorage:
    """The bytes behind a tensor, shared by all its views (``x.untyped_storage()``).
    Like PyTorch's, it counts in bytes: ``size()`` is ``nbytes()``."""

    def __init__(self, owner):
        self._owner = owner             # the NumPy array that owns the memory

    def data_ptr(self):
        """The address of the first byte (0 for an empty storage, as PyTorch)."""
        return _address(self._owner) if self._owner.nbytes else 0

    def nbytes(self):
        return int(self._owner.nbytes)

    def size(self):
        return self.nbytes()

    __len__ = size

    def element_size(self):
        return 1                        # untyped: one byte per element

    @property
    def device(self):
        return CPU

    def __repr__(self):
        return f"[autograd_lib.UntypedStorage(device=cpu) of size {self.nbytes()}]"


def data_ptr(self):
    """The address of this tensor's first element: its storage's ``data_ptr()`` plus
    ``storage_offset() * itemsize``.  0 for a tensor without elements, as PyTorch."""
    return _address(self._data) if self._data.size else 0


def untyped_storage(self):
    """The storage this tensor shares with its views, ``detach()`` and ``.data``."""
    return UntypedStorage(storage_owner(self._data))


def is_set_to(self, other):
    """True when both tensors are the same window on the same storage: same memory,
    offset, shape and strides (a ``view`` with the same shape, ``x[:]``, ``detach()``)."""
    return (storage_owner(self._data) is storage_owner(other._data)
            and self.storage_offset() == other.storage_offset()
            and self.shape == other.shape and self.stride() == other.stride())


methods(data_ptr=data_ptr, untyped_storage=untyped_storage, is_set_to=is_set_to)
methods(nelement=Tensor.numel)
methods(nbytes=property(lambda self: int(self._data.nbytes), doc="numel() * itemsize: the bytes "
                                "of this tensor's elements (not of its whole storage)."))
methods(itemsize=property(lambda self: self._data.itemsize, doc="Bytes per element (element_size())."))
