"""Non-reentrant checkpointing: recomputation through saved-tensor hooks.

``checkpoint(function, *args, use_reentrant=False)`` (PyTorch's recommended variant) runs
``function`` normally, recording its graph, but under a pair of saved-tensor hooks
(``saved_hooks.py``) that keep nothing: every tensor a node saves is replaced by an empty
:class:`Holder`.  The graph is the function's own (its nodes, not one Function node), so
``autograd.grad``, ``backward(inputs=...)``, keyword arguments and nested checkpoints work.

When a backward pass first needs one of those tensors (the unpack hook), the function runs
again on its saved inputs, under a second pair of hooks that file what each node saves,
in order, into the holders of the first run (:meth:`Frame.recompute`); the recomputation
stops as soon as the last holder is filled (*early stop*).  Each holder hands out its
tensor once per backward pass, then drops it: memory is held only between recomputation and
use.  A second pass (``retain_graph=True``) recomputes again.  The tensors saved the second
time must match the first: as many, with the same shape, dtype and device, or
:class:`CheckpointError` says what differs.

A backward pass is told apart by the engine's running pass (``engine.current_pass()``); an
unpack outside backward (``grad_fn._saved_self``) recomputes for itself.  What a pass leaves
in the frame is dropped by a callback at its end (``engine.queue_callback``).
"""

import weakref

from .. import engine as _engine
from ..autograd.graph import saved_tensors_hooks
from ..grad_mode import enable_grad, no_grad
from ..graph import SavedTensor
from ..tensor import Tensor

__all__ = ["CheckpointError", "Frame", "Holder", "checkpoint_hooks", "DEBUG_TIP"]


class CheckpointError(RuntimeError):
    """What non-reentrant checkpoint raises when the recomputation does not match the forward
    pass, or a saved tensor is asked for twice in one backward pass."""


DEBUG_TIP = ("\nTip: PyTorch's `debug=True` adds a trace of the operators that ran in the forward pass "
             "and in the recomputation; autograd_lib's checkpoint does not log operators, so its message "
             "is this one either way.")


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once the last holder is filled (early stop)."""


class _Handle:
    """What a holder's recomputed tensor is filed under, for one backward pass."""


class Holder:
    """What a node keeps instead of a saved tensor: for each backward pass, the handle of
    the recomputed tensor, or None once it was handed out."""

    def __init__(self):
        self.handles = {}


class _Outside:
    """A backward 'pass' of its own, for a saved tensor unpacked outside backward."""


def metadata(x):
    """What the determinism check compares (``determinism_check="default"``)."""
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


class Frame:
    """One checkpointed call: how to recompute it, its holders, and each pass's recomputation."""

    def __init__(self, recompute_fn, early_stop, metadata_fn):
        self.recompute_fn, self.early_stop, self.metadata_fn = recompute_fn, early_stop, metadata_fn
        self.inputs = []
        self.holders = []                   # weak references, in the order of the forward's saves
        self.metadatas = []
        self.recomputed = {}                # pass -> {handle: tensor} (weak keys)
        self.counters = {}                  # pass -> how many tensors the recomputation saved
        self.done = set()                   # the passes that recomputed already
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, args):
        """Keep the arguments: tensors as saved tensors (version-checked; a nested checkpoint's
        are its parent's saved tensors), anything else as it is."""
        self.inputs = [SavedTensor(a) if isinstance(a, Tensor) else a for a in args]

    def get_inputs(self):
        return [a.unpack(None) if isinstance(a, SavedTensor) else a for a in self.inputs]

    def pack(self, x):
        """The forward's pack hook: an empty holder, and what the check will compare."""
        holder = Holder()
        self.holders.append(weakref.ref(holder))
        if self.metadata_fn is not None:
            with no_grad():
                self.metadatas.append(self.metadata_fn(x))
        return holder

    def unpack(self, holder):
        """The forward's unpack hook: the holder's tensor, recomputed first if this pass has
        not yet recomputed; once per pass."""
        key = _engine.current_pass()
        if key is None:
            key = _Outside()
        elif key not in self.counters:
            _engine.queue_callback(lambda: self.forget(key))
        if key not in self.done:
            self.recompute(key)
        handle = holder.handles.get(key)
        if handle is None:
            raise CheckpointError(
                "autograd_lib.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                "If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please "
                "open an issue with details on your use case.")
        holder.handles[key] = None
        tensor = self.recomputed[key].pop(handle)
        if isinstance(key, _Outside):               # nothing else will ask for this recomputation
            self.forget(key)
        return tensor

    def recompute(self, key):
        """Run the function again, filing what its nodes save into the holders (for pass ``key``)."""
        self.counters.setdefault(key, 0)
        self.recomputed[key] = weakref.WeakKeyDictionary()
        try:
            with saved_tensors_hooks(lambda x: self.pack_again(key, x), lambda x: x), enable_grad():
                self.recompute_fn(*self.get_inputs())
        except _StopRecomputation:
            pass
        self.done.add(key)
        self.check(key)

    def pack_again(self, key, x):
        """The recomputation's pack hook: the tensor (detached) into the next holder."""
        x = x.detach() if x.requires_grad else x
        index = self.counters[key]
        self.counters[key] += 1
        if index >= len(self.holders):
            if not self.forward_completed:          # a backward inside the checkpointed function
                self.ignore_saved_mismatch = True
                return x
            raise CheckpointError("autograd_lib.utils.checkpoint: trying to save more tensors during recomputation than "
                                  "during the original forward pass." + DEBUG_TIP)
        holder = self.holders[index]()
        if holder is not None:                      # (None: freed by a backward inside the function)
            handle = holder.handles[key] = _Handle()
            self.recomputed[key][handle] = x
        if self.early_stop and self.counters[key] == len(self.holders):
            raise _StopRecomputation
        return x

    def check(self, key):
        """The recomputation saved what the forward pass saved: as many tensors, and (with the
        default determinism check) each with the same shape, dtype and device."""
        if self.ignore_saved_mismatch:
            return
        if self.counters[key] != len(self.holders):
            raise CheckpointError(
                "autograd_lib.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\nNumber of tensors "
                f"saved during recomputation: {self.counters[key]}." + DEBUG_TIP)
        if self.metadata_fn is None:
            return
        different = ""
        for index, ref in enumerate(self.holders):
            holder = ref()
            if holder is None:
                continue
            seen = self.metadata_fn(self.recomputed[key][holder.handles[key]])
            if seen != self.metadatas[index]:
                different += (f"tensor at position {index}:\nsaved metadata: {self.metadatas[index]}\n"
                              f"recomputed metadata: {seen}\n")
        if different:
            raise CheckpointError("autograd_lib.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass.\n{different}." + DEBUG_TIP)

    def forget(self, key):
        """At the end of a backward pass: drop what it left (the frame must not keep it alive)."""
        self.recomputed.pop(key, None)
        self.counters.pop(key, None)
        self.done.discard(key)
        for ref in self.holders:
            holder = ref()
            if holder is not None:
                holder.handles.pop(key, None)


def checkpoint_hooks(frame):
    """The saved-tensor hooks of a checkpointed forward pass."""
    return saved_tensors_hooks(frame.pack, frame.unpack)
