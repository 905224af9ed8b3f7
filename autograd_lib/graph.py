"""The backward graph: nodes, edges and saved tensors.

Every differentiable operation on a tensor that requires grad creates one
*node* (the result's ``grad_fn``).  A node knows

* ``next_functions``: one ``(node or None, output_nr)`` edge per input, in
  input order; ``None`` where that input does not require grad;
* its *saved tensors*: the values its gradient formula needs later, stored
  together with the version each had when it was saved;
* how to turn the gradient of its output into gradients of its inputs
  (``apply``), using the formula registered for it in ``derivatives/``.

A leaf that requires grad is represented in the graph by an
:class:`AccumulateGrad` node whose ``variable`` is the leaf: running it adds
the incoming gradient to ``variable.grad``.

The module is longer than most (about 650 lines): nodes, saved tensors and the checks that
tie them together (the version, a saved input detached in place) are one concept, and the
course's exercise slots name them here (``graph:Node``, ``graph:SavedTensor``).
"""

import itertools
import weakref

import numpy as np

from .creation import zeros_like
from . import saved_hooks
from .dtypes import LEGACY_NAMES
from .grad_mode import is_grad_enabled
from .tensor import Tensor
from .op_table import methods

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "SavedValue", "FREED_MESSAGE", "UNPACK_HOOK_TYPE", "type_name",
           "expose_saved"]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

_sequence = itertools.count()          # creation order; the engine runs newer nodes first
# Called with every new node, for debugging modes that live above the graph
# (autograd.anomaly_mode adds the recording of the forward traceback here).
NEW_NODE_HOOKS = []


class _NothingKept(dict):
    """The empty ``_saved`` / ``_params`` that every node keeping nothing shares.  A name
    added to it would appear in all those nodes at once, so it refuses every change: code
    that adds a name gives the node its own dict first (``node._saved = {...}``)."""

    def _refuse(*args, **kwargs):       # no named self: d.update(self=1) passes one
        raise TypeError("this node keeps nothing, and its _saved / _params is an empty dict that "
                        "every such node shares: give the node its own dict (node._saved = {...}) "
                        "instead of adding a name to it")

    __setitem__ = __delitem__ = __ior__ = setdefault = update = pop = popitem = clear = _refuse


_NOTHING_KEPT = _NothingKept()


class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks, key):
        self._hooks_ref = weakref.ref(hooks) if hooks is not None else None
        self._key = key

    def remove(self):
        hooks = self._hooks_ref() if self._hooks_ref is not None else None
        if hooks is not None:
            hooks.pop(self._key, None)

    def __enter__(self):                # with x.register_hook(f): ...  (removed on leaving)
        return self

    def __exit__(self, *exc_info):
        self.remove()


_hook_ids = itertools.count()


class HookDict(dict):
    """A dict of hooks that a RemovableHandle can refer to weakly."""
    __slots__ = ("__weakref__",)


def add_hook(hooks, fn):
    key = next(_hook_ids)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


def register_hook(tensor, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; returning a
    tensor replaces the gradient.  Returns a handle with ``.remove()``.

    A leaf keeps its hooks itself (its AccumulateGrad node may be made again); a
    non-leaf's hooks are pre-hooks of its ``grad_fn``, for its output number.
    Installed as the method ``Tensor.register_hook``."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hook = _checked_hook(hook)
    if tensor.grad_fn is None:
        if tensor._hooks is None:
            tensor._hooks = HookDict()
        return add_hook(tensor._hooks, hook)
    node = tensor.grad_fn
    if node._pre_hooks is None:
        node._pre_hooks = {}
    hooks = node._pre_hooks.setdefault(tensor._output_nr, HookDict())
    return add_hook(hooks, hook)


methods(register_hook=register_hook)


def _checked_hook(hook):
    """``hook`` with PyTorch's check of what it returns: None, or a tensor of the
    gradient's dtype and shape (anything else would corrupt the gradients downstream)."""
    def checked(grad):
        result = hook(grad)
        if result is not None:
            check_hook_result(hook, grad, result)
        return result
    return checked


def check_hook_result(hook, grad, result):
    """PyTorch's errors for a tensor hook that returned something other than a gradient
    like ``grad``: a tensor where ``grad`` is None (an output that received no gradient),
    not a tensor, another dtype, another shape."""
    if grad is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", None)
    name = name if isinstance(name, str) else "<unknown>"
    if result.dtype is not grad.dtype:
        was, got = (LEGACY_NAMES.get(t.dtype.name, t.dtype.name) for t in (grad, result))
        raise RuntimeError(f"hook '{name}' has changed the type of value (was autograd_lib.{was} "
                           f"got autograd_lib.{got})")
    if result.shape != grad.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def register_post_accumulate_grad_hook(tensor, hook):
    """``hook(tensor)`` runs each time backward has added into this leaf's ``.grad``
    (an optimizer step in backward, as PyTorch's tutorials do it).  Returns a handle
    with ``.remove()``.  Installed as ``Tensor.register_post_accumulate_grad_hook``."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not tensor.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if tensor._post_accumulate_hooks is None:
        tensor._post_accumulate_hooks = HookDict()
    return add_hook(tensor._post_accumulate_hooks, hook)


methods(register_post_accumulate_grad_hook=register_post_accumulate_grad_hook)


UNPACK_HOOK_TYPE = "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type}"


def type_name(value):
    """The name PyTorch gives the type of a value: ``float``, ``list``, ``numpy.ndarray``."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


class SavedTensor:
    """A tensor a node keeps for its backward formula, checked when unpacked.

    The saved *version* is the value of the tensor's version counter at save
    time.  If an in-place operation bumps the counter afterwards, the values
    the formula would read are no longer the ones of the forward pass, so
    :meth:`unpack` refuses (through :meth:`check_version`), exactly like PyTorch.

    A node's own output is saved without its ``grad_fn`` and without any
    reference to the node (either would be a reference cycle, keeping dead
    graphs alive until the garbage collector runs); unpacking reattaches it.
    """

    __slots__ = ("tensor", "version", "is_output", "output_nr", "packed", "unpack_hook", "had_history")

    def __init__(self, tensor, is_output=False, output=None):
        if tensor.is_inference():
            refuse_inference_tensor()
        self.tensor = tensor
        self.version = tensor._version_counter.value
        self.is_output = is_output
        self.output_nr = tensor._output_nr          # which output of its node, when is_output
        self.had_history = not is_output and tensor._grad_fn is not None   # for refuse_detached
        self.unpack_hook = None
        # autograd.graph.saved_tensors_hooks; a Python number operand (the 2 in x * 2) is
        # kept as it is, as PyTorch keeps it outside the hooks.  A saved output (``tensor``
        # its history-free alias) is packed as ``output``, the result itself with its
        # ``grad_fn``, as PyTorch hands its pack hook the output the caller gets.
        if saved_hooks.used and saved_hooks.active.hooks and tensor._wrapped_number is None:
            if is_output and saved_hooks.active.deferred is not None:
                # An in-place op's out-of-place result: packed once the op has written it
                # into its target (``deferred_output_packing.pack_rest``), as PyTorch packs the
                # target itself.
                saved_hooks.active.deferred.append((self, output))
                return
            pack, unpack = saved_hooks.active.hooks[-1]
            self.packed = pack(tensor if output is None else output)
            self.unpack_hook = with_history(unpack, tensor)
            self.tensor = None

    def unpack(self, node):
        """The saved tensor, for ``node``'s backward formula.

        Packed by ``saved_tensors_hooks`` (or ``register_hooks``): what the unpack hook
        makes of the packed value, which must be a tensor; it is not version-checked, as
        the library no longer holds the tensor.  Otherwise the tensor itself, after
        :meth:`check_version`.  A node's own output comes back attached to the node, at
        its output number: it was saved without its ``grad_fn`` (a reference cycle), and
        ``create_graph=True`` needs the second derivative to flow back through the node.

        (Exercise 06.unpack.)"""
        if self.unpack_hook is not None:
            t = self.unpack_hook(self.packed)
            if not isinstance(t, Tensor):
                raise TypeError(UNPACK_HOOK_TYPE.format(type=type_name(t)))
        else:
            self.check_version(node)
            t = self.tensor
        if self.is_output:
            attached = type(t)._make(t._data, t._version_counter)
            attached.grad_fn, attached._output_nr = node, self.output_nr
            return attached
        return t

    def _pack(self, output):
        """Hand ``output`` (this saved output's tensor with its history) to the innermost
        saved-tensor pack hook now; the node keeps what it returns."""
        pack, unpack = saved_hooks.active.hooks[-1]
        self.packed, self.unpack_hook = pack(output), with_history(unpack, self.tensor)
        self.tensor = None

    def register_hooks(self, pack_hook, unpack_hook):
        """``grad_fn._raw_saved_self.register_hooks(pack, unpack)``: pack this saved tensor
        now, unpack it when backward needs it (as ``saved_tensors_hooks``, for one tensor)."""
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        if self.tensor is None:
            raise RuntimeError(FREED_MESSAGE)
        self.packed, self.unpack_hook = pack_hook(self.tensor), with_history(unpack_hook, self.tensor)
        self.tensor = None

    def check_version(self, node):
        """Refuse when an in-place operation changed the tensor since it was saved."""
        t = self.tensor
        if t._version != self.version:
            # Name the op that produced the tensor *now*: for a saved input modified
            # in place that is the in-place op, as in PyTorch's message.
            producer = node if self.is_output else t.grad_fn
            raise modified_by_inplace_error(t, producer, self.version)


class deferred_output_packing:
    """While an in-place op computes its out-of-place result: saved outputs are not handed
    to the saved-tensor pack hook yet (PyTorch packs once, the written target with its new
    history).  After it, :meth:`pack_rest` packs those the op did not replace."""

    def __enter__(self):
        self.previous, saved_hooks.active.deferred = saved_hooks.active.deferred, []
        return self

    def __exit__(self, *exc):
        self.waiting, saved_hooks.active.deferred = saved_hooks.active.deferred, self.previous
        return False

    def pack_rest(self, replaced=None):
        """Pack each deferred saved output but ``replaced``, with the hooks of its time."""
        for saved, output in self.waiting:
            if saved is not replaced and saved.tensor is not None:
                saved._pack(saved.tensor if output is None else output)


def with_history(unpack_hook, saved):
    """The unpack hook a tensor saved through hooks keeps: ``unpack_hook``, whose tensor comes
    back as PyTorch hands it back, a new tensor on that data with the history ``saved`` had
    (its ``grad_fn``, or as a leaf its ``requires_grad`` and gradient accumulator), even when
    the hooks return the saved tensor itself (``saved_tensors_hooks(lambda x: x, lambda x:
    x)``: ``_saved_self is x`` is False).  A node's own output, saved without its history,
    gets its node back in :meth:`SavedTensor.unpack`.  Anything but a tensor is passed on, for
    ``unpack`` to refuse.  A tensor with a ``grad_fn`` is given it back by
    :meth:`SavedTensor.unpack` too, as an output of that node (exercise 06.unpack: its slot
    holds the student's method while it is graded)."""
    grad_fn, output_nr, requires_grad, accumulator = (saved._grad_fn, saved._output_nr, saved._requires_grad,
                                                      saved._accumulator)

    def unpack(packed):
        t = unpack_hook(packed)
        if not isinstance(t, Tensor):
            return t
        if grad_fn is not None:
            return SavedTensor.unpack(_output_of(t, output_nr), grad_fn)
        out = t.detach()
        if requires_grad:
            out._requires_grad, out._accumulator = True, accumulator
        return out
    return unpack


def _output_of(tensor, output_nr):
    """``tensor`` as an unhooked saved output number ``output_nr``, saved now (so its version
    check passes), for :meth:`SavedTensor.unpack` to attach to a node."""
    saved = SavedTensor.__new__(SavedTensor)
    saved.tensor, saved.version = tensor, tensor._version_counter.value
    saved.is_output, saved.output_nr, saved.had_history = True, output_nr, False
    saved.packed = saved.unpack_hook = None
    return saved


DETACHED_SAVED_MESSAGE = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                          ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def refuse_detached(node, names):
    """Before ``node``'s backward unpacks the saved values ``names``: refuse a saved input
    that had a history when saved and has lost it since (``detach_()``), with PyTorch's
    message.  PyTorch's built-in nodes refuse it when unpacking, before the version check,
    as they find the tensor's node through the tensor itself; a saved output, a saved leaf,
    a tensor packed by saved-tensor hooks (which keep its node), ``_saved_self`` and a
    custom Function's ``saved_tensors`` are not refused.  A freed value is left for
    :meth:`Node.saved_values` to refuse."""
    for name in names:
        saved = node._saved.get(name)
        if (isinstance(saved, SavedTensor) and saved.had_history and saved.tensor is not None
                and saved.tensor._grad_fn is None):
            raise RuntimeError(DETACHED_SAVED_MESSAGE)


class _SavedNothing:
    """``grad_fn._raw_saved_self`` of a tensor the node did not keep (``x * 3`` keeps no
    ``self``): PyTorch's saved tensor without a value, which refuses hooks."""

    def register_hooks(self, pack_hook, unpack_hook):
        raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")


_NOT_KEPT = _SavedNothing()


class SavedValue:
    """A value that is not a tensor of the graph but that a node keeps like its saved
    tensors, so that it is freed with them: the indices of ``x[[0, 2]]``, which PyTorch
    saves as tensors.  A second backward through the node then fails with PyTorch's
    message instead of silently running again.  Nothing writes into it in place, so
    unpacking checks nothing."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def unpack(self, node):
        return self.value


def refuse_inference_tensor():
    """A tensor made in inference_mode cannot be saved for backward (PyTorch's error)."""
    raise RuntimeError(
        "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
        "inference mode in computation tracked by autograd. To work around this, you can make a "
        "clone to get a normal tensor and use it in autograd, or use `autograd_lib.no_grad()` "
        "instead of `autograd_lib.inference_mode()`.")


def modified_by_inplace_error(tensor, producer, saved_version):
    """PyTorch's error for a saved tensor whose version moved on since it was saved."""
    where = (f", which is output {tensor._output_nr} of {forward_name(producer)},"
             if producer is not None else "")
    kind = LEGACY_NAMES[tensor.dtype.name]
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [autograd_lib.{kind} [{', '.join(map(str, tensor.shape))}]]{where} "
        f"is at version {tensor._version}; expected version {saved_version} instead. Hint: an "
        "in-place operation (a method ending in _, +=, or t[...] = ...) changed a tensor "
        "that backward needs; use an out-of-place operation or modify a clone() instead.")


def increment_version(tensor):
    """Record that ``tensor``'s storage was written in place (PyTorch's
    ``torch.autograd.graph.increment_version``).  The counter is shared by every
    tensor on the same storage (views, ``detach()``), so all of them see the change."""
    tensor._version_counter.value += 1


def forward_name(node):
    """The name of the forward op a node belongs to, as PyTorch's messages give it: the node's
    name without ``Backward0`` (``Exp`` for ``ExpBackward0``), or without ``Backward`` when
    another number follows (``T1`` for ``TBackward1``, the node of ``t_``)."""
    name = node.name()
    if name.endswith("Backward0"):
        return name[: -len("Backward0")]
    head, found, tail = name.rpartition("Backward")
    return head + tail if found and (tail == "" or tail.isdigit()) else name


def _names_an_unsaved_tensor(node_cls, key):
    """Whether a formula of ``node_cls`` names tensor ``key`` (an input, the result, a value
    kept with the saved tensors): a node that did not keep it shows it as None, as PyTorch."""
    formulas = getattr(node_cls, "formulas", None) or {}
    if not any(key in needs for _, needs in formulas.values()):
        return False
    return key == "result" or key in node_cls.input_names or key in getattr(node_cls, "saves", ())


class _SavedAttribute:
    """``grad_fn._saved_<name>`` and ``grad_fn._raw_saved_<name>``, as PyTorch's nodes show
    what they keep: one of these per name on :class:`Node` (:func:`expose_saved`).

    They are descriptors rather than a ``__getattr__``: a class with ``__getattr__`` makes
    CPython look up every attribute of its instances the slow way, and the engine reads a
    node's attributes some twenty times per node."""

    __slots__ = ("key", "raw", "attr")

    def __init__(self, key, raw):
        self.key, self.raw = key, raw
        self.attr = ("_raw_saved_" if raw else "_saved_") + key

    def __get__(self, node, owner=None):
        if node is None:
            return self
        key = self.key
        if self.raw:
            saved = node._saved.get(key)
            if saved is not None:
                return saved
            if _names_an_unsaved_tensor(type(node), key):
                return _NOT_KEPT           # (x * 3)._raw_saved_self: a saved tensor with no value
        else:
            if key in node._saved or key in node._params:
                # What the node's formula would get (Node.saved_values: exercise 06.saved_values,
                # so the student's method answers here too while it is graded).
                (value,) = node.saved_values((key,))
                if isinstance(value, Tensor) and value._wrapped_number is not None:
                    # PyTorch saves a number operand as a tensor of the number's own type:
                    # x * 3 shows tensor(3), an int64, whatever x's dtype.
                    return Tensor._make(np.asarray(value._wrapped_number))
                return value
            if _names_an_unsaved_tensor(type(node), key):
                return None             # (x * c)._saved_self when c needs no gradient: not kept
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{self.attr}'")


def expose_saved(names):
    """Make ``grad_fn._saved_<name>`` and ``grad_fn._raw_saved_<name>`` readable on every
    node for each of ``names`` (what formulas name, what ``record`` keeps)."""
    for key in names:
        for raw in (False, True):
            attr = ("_raw_saved_" if raw else "_saved_") + key
            if attr not in Node.__dict__:
                setattr(Node, attr, _SavedAttribute(key, raw))


class Node:
    """Base class of every backward node (``grad_fn``)."""

    # Filled in by derivatives/, for the node of each forward op:
    #   input_names: names of the inputs, in order ("self", "other", ...)
    #   formulas:    {input name: (function, names of the values it needs)}
    input_names = ()
    formulas = {}
    variadic = False                  # the op takes a list of tensors (cat, stack): for_inputs(n)
    saves = ()                        # parameters kept as SavedValues, freed after backward (indices)
    _all_grads = False                # formulas take every output's gradient (``grads``)
    _output_meta = None               # [(shape, dtype)] per output, for zero-filling

    # What every node has, in slots: CPython reads a slot fast, while a default left on the
    # class is looked up through the class on every read (the engine reads these for every
    # node).  Other attributes (a custom node's, metadata) go in the instance's __dict__.
    __slots__ = (
        "_sequence_nr",               # creation order; the engine runs newer nodes first
        "next_functions",             # one (node or None, output_nr) edge per input
        "_input_meta",                # (shape, NumPy dtype) of each input, to reduce/cast gradients
        "num_outputs",
        # name -> SavedTensor, and name -> plain value (shapes, dims, ...: never freed).  Most
        # nodes keep few of either: a node gets its own dict only when it keeps something
        # (recording.record); until then it shares the empty _NOTHING_KEPT, which is only
        # read: code that adds a name to a node's dict gives the node its own dict first.
        "_saved", "_params",
        "_freed",                     # its saved tensors were released (after backward)
        "_pre_hooks",                 # output_nr -> HookDict of tensor hooks (t.register_hook)
        "_node_prehooks",             # HookDict of grad_fn.register_prehook hooks
        "_hooks",                     # post hooks: fn(grad_inputs, grad_outputs)
        "_retains_grad",              # output_nr -> weakref to the tensor that retains its grad
        "__dict__", "__weakref__")

    def __init__(self):
        self._sequence_nr = next(_sequence)
        self.next_functions = self._input_meta = ()
        self.num_outputs = 1
        self._saved = self._params = _NOTHING_KEPT
        self._freed = False
        self._pre_hooks = self._node_prehooks = self._hooks = self._retains_grad = None
        for hook in NEW_NODE_HOOKS:     # empty unless anomaly mode was ever turned on
            hook(self)

    # --- what PyTorch shows ------------------------------------------------
    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self):
        if not hasattr(self, "_metadata"):
            self._metadata = {}
        return self._metadata

    def __dir__(self):
        # As PyTorch's nodes list them: _saved_<name> for what the node keeps (saved tensors
        # and plain values), _raw_saved_<name> for a saved tensor not yet freed.
        names = {name for name in super().__dir__()
                 if name in self.__dict__ or not isinstance(Node.__dict__.get(name), _SavedAttribute)}
        for key, saved in self._saved.items():
            names.add(f"_saved_{key}")
            if saved is not None:
                names.add(f"_raw_saved_{key}")
        names.update(f"_saved_{key}" for key in self._params)
        return sorted(names)

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node computed its gradients."""
        if self._hooks is None:
            self._hooks = HookDict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; it may return replacement gradients."""
        if self._node_prehooks is None:
            self._node_prehooks = HookDict()
        return add_hook(self._node_prehooks, fn)

    # --- used by the engine -------------------------------------------------
    def saved_values(self, names):
        """The values a formula asked for, with saved tensors version-checked."""
        if self._freed and any(n in self._saved for n in names):
            raise RuntimeError(FREED_MESSAGE)
        out = []
        for n in names:
            if n in self._saved:
                out.append(self._saved[n].unpack(self))
            else:
                out.append(self._params[n])
        return out

    def release_saved(self):
        """Drop saved tensors so their memory can be reclaimed (after backward)."""
        if self._saved:
            self._saved = dict.fromkeys(self._saved)     # every name, its value None
            self._freed = True

    @property
    def saved_tensors(self):
        """The saved tensors, by name: what this node keeps alive until backward."""
        names = tuple(self._saved)
        return dict(zip(names, self.saved_values(names)))

    def apply(self, grad_outputs):
        """Gradients for each input (None where not needed) from the output gradients; None
        for every input when every output gradient is None (the saved values are unpacked,
        no formula runs).  A
        value two formulas need is asked for once, as PyTorch unpacks each saved tensor once
        per node (an unpack hook sees each call; a checkpoint's hook allows one)."""
        cls = type(self)
        grad = grad_outputs if cls._all_grads else grad_outputs[0]
        if grad is None or (cls._all_grads and all(g is None for g in grad)):
            # No gradient arrived: as PyTorch's nodes, unpack what was saved (a freed graph,
            # an in-place change, an unpack hook still show), but no formula runs.
            if self._saved:
                refuse_detached(self, tuple(self._saved))
                self.saved_values(tuple(self._saved))
            return [None] * len(self.next_functions)
        formulas = cls.formulas
        known = _BY_INPUT.get(cls)
        if known is None or known[0] is not formulas:     # (a plugged exercise rule replaces them)
            known = _BY_INPUT[cls] = _formulas_by_input(cls, formulas)
        if known[1]:
            return self._apply_sharing(grad)
        grads = []
        for (name, formula), (next_node, _) in zip(known[2], self.next_functions):
            if next_node is None:
                grads.append(None)
                continue
            fn, needs = formula if formula is not None else formulas[name]   # (none: KeyError)
            refuse_detached(self, needs)
            grads.append(fn(grad, *self.saved_values(needs)))
        return grads

    def _apply_sharing(self, grad):
        """``apply`` for a node whose formulas share values: all of them asked for at once."""
        wanted = [self.formulas[name] if next_node is not None else None
                  for name, (next_node, _) in zip(self.input_names, self.next_functions)]
        names = tuple(dict.fromkeys(n for f in wanted if f is not None for n in f[1]))
        refuse_detached(self, names)
        values = dict(zip(names, self.saved_values(names)))
        return [None if f is None else f[0](grad, *[values[n] for n in f[1]]) for f in wanted]

    def __call__(self, *grad_outputs):
        """Calling a node applies its backward formula, as in PyTorch."""
        return tuple(self.apply(list(grad_outputs)))


# node class -> (its formulas, whether two of them need one value, its formulas in input
# order): read once per class, as the engine runs every node through ``apply``.
_BY_INPUT = {}


def _formulas_by_input(cls, formulas):
    return formulas, _formulas_share_a_value(formulas), tuple((name, formulas.get(name)) for name in cls.input_names)


def _formulas_share_a_value(formulas):
    seen = set()
    for _, needs in formulas.values():
        if seen.intersection(needs):
            return True
        seen.update(needs)
    return False


class AccumulateGrad(Node):
    """The graph's node for a leaf that requires grad: adds gradients into ``.grad``."""

    def __init__(self, variable):
        super().__init__()
        self._sequence_nr = float("inf")     # as PyTorch: run as soon as it is ready
        self.variable = variable

    def name(self):
        return "AccumulateGrad"

    @property
    def _pre_hooks(self):
        # A leaf's hooks live on the tensor, so they outlive this (cached) node.
        hooks = self.variable._hooks
        return {0: hooks} if hooks else None

    @_pre_hooks.setter
    def _pre_hooks(self, value):
        if value is not None:           # Node.__init__ writes the default, None: nothing to keep
            raise AttributeError("a leaf's hooks live on the tensor (register_hook), not on its AccumulateGrad")

    def apply(self, grad_outputs):
        # No gradient arrived, or the leaf no longer requires grad (``detach_()`` or
        # ``requires_grad_(False)`` since the graph was recorded): ``.grad`` is left as it
        # is, but the post-accumulate hooks still run, as PyTorch's do.
        if grad_outputs[0] is not None:
            if self.variable.grad_fn is not None:
                # The leaf stopped being one since the graph was recorded (requires_grad_(False),
                # then an in-place op with a tensor that requires grad): PyTorch refuses.
                raise RuntimeError("leaf variable has been moved into the graph interior")
            if self.variable.requires_grad:
                accumulate_grad(self.variable, grad_outputs[0])
        if self.variable._post_accumulate_hooks:
            for hook in list(self.variable._post_accumulate_hooks.values()):
                hook(self.variable)
        return []


def accumulate_grad(variable, new_grad):
    """Add ``new_grad`` into ``variable.grad`` following PyTorch's rules.

    * The first gradient is stored as a copy: ``.grad`` must never alias an
      array that the rest of the graph (or the user) still owns.
    * Later gradients are added.  In grad mode (``create_graph=True``) the sum
      is out-of-place, so the new ``.grad`` carries a graph for higher-order
      derivatives; otherwise it is added in place, keeping the same tensor.
    """
    old = variable._grad
    if old is None:
        if is_grad_enabled() and new_grad.requires_grad:
            # PyTorch's empty_like(g).copy_(g): recorded, so the gradient stays differentiable
            variable._grad = zeros_like(new_grad).copy_(new_grad)
        else:
            variable._grad = new_grad.detach().clone()
    elif is_grad_enabled():
        variable._grad = old + new_grad
    else:
        np.add(old._data, new_grad._data, out=old._data, casting="unsafe")
        increment_version(old)
