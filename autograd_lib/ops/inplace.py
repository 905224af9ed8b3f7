"""In-place operations: ``add_``, ``mul_``, ``copy_``, ``+=``, ``t[key] = value``, ...

An in-place op is its out-of-place op plus a rewrite of history (:func:`_inplace`):

1. **Check the target** (:func:`_check_write`): PyTorch's rules for views, then
   the leaf rule (:func:`check_inplace`, exercise 08); and the operands: none may share
   part of the target's memory (:func:`check_overlap`, :func:`overlap_status`, exercise 08).
2. **Compute out of place** on a copy of the old values, which records the
   op's node with its inputs pointing at the target's *old* history.
3. **Write** the result into the target's storage and count the write on its
   version counter (:func:`_write`, ``graph.increment_version``), so that
   backward refuses saved tensors that changed.
4. **Rewrite history**: the new node becomes the target's ``grad_fn``.

A view shares its base's storage, so writing into a view changes the base as
well.  The base's history is then rewritten with a :class:`CopySlices` node,
and every view of the base (the written one too) regenerates its ``grad_fn``
from that new history when next asked for (``views.py``: AsStridedBackward0).
"""

import weakref

import numpy as np

from .. import dtypes as _dt
from .. import graph as _graph
from ..broadcasting import broadcast_shape, is_expandable_to
from .. import engine as _engine
from ..grad_mode import _state as _grad_state
from ..grad_mode import is_grad_enabled, no_grad
from ..graph import Node, SavedTensor
from ..recording import record
from ..tensor import Tensor
from ..views import check_view_write, positions_in_base
from .aliased_writes import reads_its_target, write_in_order
from .arithmetic import add, div, mul, sub
from .backward_helpers import index_fill_zero
from .indexing import embed_in_zeros, getitem, key_value
from .operands import cast_operand, quietly, to_tensor
from .pointwise import clamp
from .shape import expand, view
from ..op_table import op

# check_inplace and overlap_status are exercise slots (08.check_inplace, 08.overlap_status):
# the library reaches them as inplace.check_inplace and inplace.overlap_status, so they are
# not re-exported by autograd_lib.ops.
__all__ = ["add_", "sub_", "mul_", "div_", "clamp_", "zero_", "fill_", "copy_", "setitem",
           "CopySlices"]


# ------------------------------------------------------------ the checks

def check_inplace(t):
    """The leaf rule: while recording, refuse to write in place into a leaf that
    requires grad, or into a view of one.  Its old values may be needed by the
    graph (as the start of every path back to it), and the write itself would have
    to be recorded on a tensor that has no history to attach it to.

    (Exercise 08.check_inplace.)"""
    if not is_grad_enabled():
        return
    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _check_write(t, recording):
    """PyTorch's checks before ``t`` is written in place; ``recording``: grad mode is on
    and ``t`` or another input of the op requires grad.  How a view was made (under
    no_grad, by unbind: ``views.check_view_write``), then the leaf rule.  (An inference
    tensor is refused only once written: :func:`count_write`.)"""
    if recording and t._base is not None:
        check_view_write(t)
    check_inplace(t)


INFERENCE_WRITE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
    "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
    "for more details.")


def count_write(t):
    """Count a write into ``t``'s storage (``graph.increment_version``), once it is done.  As
    PyTorch, whose version bump is where an inference tensor is refused outside
    inference_mode, such a tensor is written first and refused after: the new values stay."""
    _graph.increment_version(t)
    if not _grad_state.inference and t.is_inference():
        raise RuntimeError(INFERENCE_WRITE_MESSAGE)


def _dense_bytes(a):
    """The bytes a NumPy array covers when its elements tile them without gaps or overlap
    (PyTorch's "non-overlapping and dense": a permutation of a contiguous layout), else None."""
    expected = a.itemsize
    for stride, size in sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return None
        expected *= size
    begin = a.__array_interface__["data"][0]
    return begin, begin + a.size * a.itemsize


# How the memory of two tensors overlaps (PyTorch's MemOverlapStatus).
FULL, PARTIAL, NO, TOO_HARD = "full", "partial", "no", "too hard"


def overlap_status(a, b):
    """How the memory of ``a`` and ``b`` overlaps, as PyTorch's ``get_overlap_status``:

    * ``"full"``: ``a`` itself, or the same bytes in the same layout (``x.detach()``, an
      equal slice);
    * ``"too hard"``: a layout that is not non-overlapping and dense (gaps, as ``x[::2]``,
      or repeats, as ``expand``), which PyTorch does not look into;
    * ``"partial"``: shared bytes that are not the same elements at the same places
      (``x[2:5]`` and ``x[0:3]``, a square ``m`` and ``m.t()``);
    * ``"no"``: no shared byte (or no element).

    (Exercise 08.overlap_status.)"""
    if a is b:
        return FULL
    if not a._data.size or not b._data.size:
        return NO
    mine, theirs = _dense_bytes(a._data), _dense_bytes(b._data)
    if mine is None or theirs is None:
        return TOO_HARD
    if mine == theirs:
        return FULL if a._data.strides == b._data.strides else PARTIAL
    if mine[0] < theirs[1] and theirs[0] < mine[1]:
        return PARTIAL
    return NO


def check_overlap(t, others):
    """PyTorch's refusal to write ``t`` in place from an operand that shares part of its
    memory (``x[2:5].copy_(x[0:3])``): the result would depend on the order of the writes.
    Only a ``"partial"`` :func:`overlap_status` is refused: the same memory read as it is
    written (``x.add_(x)``) is fine, and so, as in PyTorch, is a layout it does not look
    into (``x[::2]``)."""
    for other in others:
        if isinstance(other, Tensor) and overlap_status(t, other) == PARTIAL:
            raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                               "written-to tensor refer to a single memory location. Please clone() "
                               "the tensor before performing the operation.")


# ---------------------------------------------------- writing, recording

def _inplace(self, out_of_place, *args):
    """Run ``out_of_place(self, *args)``, write the result into ``self``'s storage,
    bump the version counter and, when recording, make the new node ``self``'s history.

    The node's inputs point at ``self``'s *old* history: an in-place op is the
    out-of-place op plus a rewrite of which node produced ``self``.
    """
    recording = is_grad_enabled() and (self.requires_grad or any(
        isinstance(a, Tensor) and a.requires_grad for a in args))
    _check_write(self, recording)
    check_overlap(self, args)
    if not recording:
        with no_grad():
            result = out_of_place(self, *args)
        _write(self, _in_write_order(self, out_of_place, args, result))
        return self
    if self._base is not None:
        return _inplace_on_view(self, out_of_place, *args)
    before = Tensor._make(np.array(self._data, copy=True))     # the old values, for formulas
    before.grad_fn, before._output_nr = self.grad_fn, self._output_nr
    before._requires_grad, before._accumulator = self._requires_grad, self._accumulator
    with _graph.deferred_output_packing() as deferred:
        result = out_of_place(before, *args)
    _write(self, _in_write_order(self, out_of_place, args, result))
    node = result.grad_fn
    replaced = None
    if node is not None:
        move_retain_grad(self, node)
        self.grad_fn, self._output_nr = node, result._output_nr
        if "result" in node._saved:                 # the saved output is now self
            replaced = node._saved["result"]
            node._saved["result"] = SavedTensor(Tensor._make(self._data, self._version_counter), is_output=True,
                                                output=self)
    deferred.pack_rest(replaced)
    return self


def _in_write_order(self, out_of_place, args, result):
    """``result``, unless an operand reads memory that ``self`` writes in a layout PyTorch does
    not check (``x[::2].copy_(x[:3])``): then PyTorch's values, written element by element
    (aliased_writes), into ``self`` and into ``result``, whose node stays as recorded."""
    operands = [a._data if isinstance(a, Tensor) else a for a in args]
    if (result.shape != self.shape or _dt._category(result.dtype) > _dt._category(self.dtype)
            or not self._data.flags.writeable
            or not reads_its_target(self._data, [o for o in operands if isinstance(o, np.ndarray)])):
        return result                   # nothing aliased, or _write refuses it

    def element(value, *others):
        tensors = [Tensor._make(o) if isinstance(o, np.ndarray) else o for o in others]
        return out_of_place(Tensor._make(value), *tensors)._data
    with no_grad():
        write_in_order(self._data, element, operands)
    np.copyto(result._data, self._data, casting="unsafe")
    return result


def _write(self, result):
    if _dt._category(result.dtype) > _dt._category(self.dtype):   # float into int, int into bool
        raise RuntimeError(f"result type {_dt.LEGACY_NAMES[result.dtype.name][:-6]} can't be cast "
                           f"to the desired output type {_dt.LEGACY_NAMES[self.dtype.name][:-6]}")
    try:
        np.copyto(self._data, np.broadcast_to(result._data, self.shape), casting="unsafe")
    except ValueError as e:
        if "read-only" in str(e):
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.") from None
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}") from None
    if result.shape != self.shape and not is_expandable_to(result.shape, self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    count_write(self)


def move_retain_grad(self, node):
    """``self`` retains its grad and its history is about to become ``node``: retain it there."""
    if self._retains_grad and self.grad_fn is not None and self.grad_fn._retains_grad:
        self.grad_fn._retains_grad.pop(self._output_nr, None)
        node._retains_grad = {**(node._retains_grad or {}), 0: weakref.ref(self)}


# --------------------------------------------------- writing through views

def _inplace_on_view(view, out_of_place, *args):
    """An in-place op on a view changes its base, so (as PyTorch) the base's history
    is rewritten: its new node is a CopySlices that wraps the op's node.  The view gets
    its grad_fn from the base's new history at once (AsStridedBackward0), every other
    view of the base when next asked for (``views.view_grad_fn``)."""
    base = view._base
    key = positions_in_base(view)
    before = Tensor._make(np.array(view._data, copy=True))     # the view's old values
    before.grad_fn, before._output_nr = view.grad_fn, view._output_nr
    with _graph.deferred_output_packing() as deferred:
        result = out_of_place(before, *args)
    _write(view, _in_write_order(view, out_of_place, args, result))
    fn = result.grad_fn
    if fn is None:
        deferred.pack_rest()
        return view
    node = CopySlices.wrapping(fn, key, base._gradient_edge(), (base._data.shape, base._data.dtype))
    move_retain_grad(base, node)
    base.grad_fn, base._output_nr = node, 0
    view._view_grad_fn()        # the view's grad_fn follows at once (views.view_grad_fn), as in PyTorch
    replaced = None
    if "result" in fn._saved:
        replaced = fn._saved["result"]
        fn._saved["result"] = SavedViewResult(Tensor._make(view._data, view._version_counter), view)
    deferred.pack_rest(replaced)
    return view


class SavedViewResult(SavedTensor):
    """The result an in-place op on a view saves for its node ``fn``: the written view, saved
    as ``fn``'s output (its version checks name ``fn``, as PyTorch's do).  Unpacked, it comes
    back with the history the view had when it was saved (its AsStridedBackward0 over the
    base's CopySlices), as PyTorch's SavedVariable of an in-place op on a view does, so a
    second derivative flows back through the base's history rather than into ``fn`` again.
    That history is held weakly (a strong hold would be a cycle: ``fn``, the view's node,
    CopySlices, ``fn``); once it is gone, the result is ``fn``'s output, as in PyTorch."""

    __slots__ = ("view_node",)

    def __init__(self, alias, view):
        super().__init__(alias, is_output=True, output=view)
        self.view_node = weakref.ref(view._grad_fn)     # the view's AsStridedBackward0, just made

    def unpack(self, node):
        tensor = SavedTensor.unpack(self, node)
        view_node = self.view_node()
        if view_node is not None and tensor.grad_fn is node:
            tensor.grad_fn, tensor._output_nr = view_node, 0
        return tensor


class CopySlices(Node):
    """PyTorch's CopySlices: what an in-place op on a view records on the view's base
    (``fn``: the op's node on the view alone; ``key``: where the view is in the base).
    ``t[0].mul_(2)`` and ``t[0] = v`` (a ``copy_`` into the view ``t[0]``) both record one.
    Its backward is exercise 08.copy_slices_backward."""

    @classmethod
    def wrapping(cls, fn, key, base_edge, base_meta):
        """The node of op node ``fn`` applied in place to the region ``key`` of a base
        whose edge and ``(shape, dtype)`` are ``base_edge`` and ``base_meta``."""
        node = cls()
        node.fn, node.key = fn, key
        node.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        node._input_meta = (base_meta,) + tuple(fn._input_meta[1:])
        return node

    def apply(self, grad_outputs):
        """The base's gradient: the written cells' part through ``fn`` (what it gives for the
        view's old values goes back into those cells), the rest unchanged; then ``fn``'s
        gradients for its other inputs.  (Exercise 08.copy_slices_backward.)"""
        grad = grad_outputs[0]
        if grad is None:                # no gradient arrived: None for every input, as PyTorch
            return [None] * len(self.next_functions)
        fn_grads = _engine.validate_outputs(self.fn, self.fn.apply([grad[self.key]]))
        base_grad = index_fill_zero(grad, self.key)
        if self.next_functions[0][0] is not None and fn_grads[0] is not None:
            base_grad = base_grad + embed_in_zeros(fn_grads[0], grad.shape, self.key)
        return [base_grad] + list(fn_grads[1:])

    def release_saved(self):
        # As PyTorch's CopySlices: released, it lets go of ``fn`` rather than freeing what
        # ``fn`` saved, which a graph built by a create_graph pass may still need (``fn`` is a
        # node of that graph too); a later backward through this node is refused.
        if not isinstance(self.fn, _ReleasedFn):
            self.fn = _ReleasedFn(self.fn)


class _ReleasedFn:
    """What a released CopySlices holds in place of its op's node: the node's edges and
    metadata, nothing it saved; running it gives PyTorch's error for a second backward."""

    __slots__ = ("next_functions", "_input_meta", "num_outputs", "name")

    def __init__(self, fn):
        self.next_functions, self._input_meta = fn.next_functions, fn._input_meta
        self.num_outputs, self.name = fn.num_outputs, fn.name()

    def apply(self, *args, **kwargs):
        raise RuntimeError(_graph.FREED_MESSAGE)

    __call__ = apply


# ------------------------------------------------------------ the in-place ops

def _arithmetic_(self, other, ufunc, out_of_place, alpha=1):
    """``self <op>= other``.  When nothing is recorded (an optimizer step under
    no_grad, say) NumPy writes straight into the storage, with no temporary copy;
    otherwise this is the generic :func:`_inplace`."""
    recording = _grad_state.enabled and (self.requires_grad or (
        isinstance(other, Tensor) and other.requires_grad))
    if recording:
        return _inplace(self, out_of_place, other)
    _check_write(self, False)
    check_overlap(self, (other,))
    result_dtype = _dt.result_type(self, other)
    if ufunc is np.true_divide and not result_dtype.is_floating_point:
        result_dtype = _dt.get_default_dtype()
    if _dt._category(result_dtype) > _dt._category(self.dtype):
        raise RuntimeError(f"result type {_dt.LEGACY_NAMES[result_dtype.name][:-6]} can't be cast "
                           f"to the desired output type {_dt.LEGACY_NAMES[self.dtype.name][:-6]}")
    value = other._data if isinstance(other, Tensor) else other
    if alpha != 1:
        value = value * alpha
    shape = broadcast_shape(self._data.shape, np.shape(value))
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    if not self._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if isinstance(other, Tensor) and reads_its_target(self._data, [other._data]):     # x[::2] += x[:3]
        write_in_order(self._data, lambda s, o: quietly(ufunc, s, o * alpha if alpha != 1 else o), [other._data])
    else:
        quietly(ufunc, self._data, value, out=self._data, casting="unsafe")
    count_write(self)
    return self


@op("add_", "__iadd__")
def add_(self, other, *, alpha=1):
    return _arithmetic_(self, other, np.add, lambda s, o: add(s, o, alpha=alpha), alpha)


@op("sub_", "__isub__")
def sub_(self, other, *, alpha=1):
    return _arithmetic_(self, other, np.subtract, lambda s, o: sub(s, o, alpha=alpha), alpha)


@op("mul_", "__imul__")
def mul_(self, other):
    return _arithmetic_(self, other, np.multiply, mul)


@op("div_", "__itruediv__")
def div_(self, other, *, rounding_mode=None):
    if rounding_mode is not None:                   # x.div_(y, rounding_mode="floor"): DivBackward2
        return _inplace(self, lambda a, b: div(a, b, rounding_mode=rounding_mode), other)
    return _arithmetic_(self, other, np.true_divide, div)


@op("clamp_", public=("clamp_", "clip_"))
def clamp_(self, min=None, max=None):
    check_overlap(self, (min, max))
    return _inplace(self, lambda s: clamp(s, min, max))


@op("zero_", public=True)
def zero_(self):
    return _inplace(self, lambda s: record("zero_", np.zeros_like(s._data), (s,)))


@op("fill_", public=True)
def fill_(self, value):
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.item()
    return _inplace(self, lambda s: record("fill_.Scalar", np.full_like(s._data, value), (s,)))


@op("copy_")
def copy_(self, src):
    src = to_tensor(src)

    def copy(s, src):
        if broadcast_shape(s.shape, src.shape) != tuple(s.shape):    # PyTorch's errors, in its order
            raise RuntimeError(f"output with shape {list(s.shape)} doesn't match the broadcast "
                               f"shape {list(broadcast_shape(s.shape, src.shape))}")
        array = np.array(np.broadcast_to(src._data, s.shape), dtype=s._data.dtype, copy=True)
        return record("copy_", array, (s, src))
    return _inplace(self, copy, src)


# ------------------------------------------------------------ t[key] = value

def _setitem_key(t, key):
    """A NumPy key for ``t[key] = v`` (tensors inside the key become arrays)."""
    if isinstance(key, tuple):
        return tuple(key_value(k) for k in key)
    return key_value(key)


@op("__setitem__")
def setitem(input, key, value):
    """``t[key] = value``: an in-place write, recorded as PyTorch records it:

    * a basic key (ints, slices, None) writes through the view ``t[key]``: a copy
      into it, which CopySlices records on the base (``_inplace_on_view``);
    * a key that selects the whole tensor (``t[:] = v``, ``t[...] = v``) is a
      plain ``copy_`` into ``t``: CopyBackwards;
    * an advanced key (integer lists, masks) calls ``index_put_``: IndexPutBackward0.

    A tensor ``value`` first loses its leading size-1 dims (a view) and, unless the
    key is advanced, is expanded to the written shape, as in PyTorch's ``copy_to``.
    """
    np_key = _setitem_key(input, key)
    entries = np_key if isinstance(np_key, tuple) else (np_key,)
    advanced = any(isinstance(k, (list, np.ndarray)) and (np.ndim(k) > 0 or k.dtype == bool)
                   or isinstance(k, (bool, np.bool_)) for k in entries)
    whole = not advanced and _selects_whole(input, entries)
    if not isinstance(value, Tensor):
        value = Tensor._make(np.asarray(value, dtype=input.dtype.numpy))
    target = input if advanced or whole else getitem(input, key)
    if advanced:
        op = "index_put_"
    else:
        op = "fill_.Tensor" if value.ndim == 0 else "copy_"

    def write(self, src):
        written = self._data[np_key].shape if advanced else self._data.shape
        if src.ndim and src.shape != written:
            shape = tuple(src.shape)
            while shape and shape[0] == 1:               # leading 1s are dropped (a view)
                shape = shape[1:]
            if not advanced or shape != src.shape:
                src = view(src, shape)
            if advanced and not is_expandable_to(src.shape, written):
                raise RuntimeError(f"shape mismatch: value tensor of shape {list(src.shape)} cannot be "
                                   f"broadcast to indexing result of shape {list(written)}")
            if not advanced and src.shape != written:
                src = expand(src, written)
        src = cast_operand(src, self.dtype)
        array = np.array(self._data, copy=True)
        if advanced:
            array[np_key] = src._data
        else:
            array[...] = src._data
        return record(op, array, (self, src), {"key": np_key, "accumulate": False})
    try:
        _inplace(target, write, value)
    except IndexError as error:             # NumPy says "axis", PyTorch "dimension"
        if str(error).startswith("too many indices for array"):
            raise IndexError(f"too many indices for tensor of dimension {input.ndim}") from None
        raise IndexError(str(error).replace(" for axis ", " for dimension ")) from None


def _selects_whole(t, entries):
    """True when a basic key is only full slices and ``...`` (no view is made)."""
    dim = 0
    for k in entries:
        if k is Ellipsis:
            dim = t.ndim - sum(e is not Ellipsis and e is not None for e in entries) + dim
            continue
        if not isinstance(k, slice) or dim >= t.ndim or \
                k.indices(t.shape[dim]) != (0, t.shape[dim], 1):
            return False
        dim += 1
    return True
