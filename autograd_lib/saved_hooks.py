"""The stack of saved-tensor hooks: ``autograd.graph.saved_tensors_hooks(pack, unpack)``.

While such a block is active, every tensor a node saves for its backward
(``graph.SavedTensor``) is handed to ``pack`` at once, and the node keeps only
what ``pack`` returns; when backward needs the tensor, ``unpack`` turns that
back into a tensor.  That is how PyTorch lets you move saved activations to
another device, compress them or recompute them.  As in PyTorch the innermost
block wins, the stack is per thread, and a tensor saved with hooks is not
version-checked (the library no longer holds it).
"""

import threading

__all__ = ["saved_tensors_hooks", "disable_saved_tensors_hooks", "current", "active"]


class _Stack(threading.local):
    def __init__(self):
        self.hooks = []             # (pack, unpack) pairs, innermost last
        self.disabled = None        # the message of disable_saved_tensors_hooks, when active
        self.deferred = None        # while an in-place op runs: the saved outputs not yet packed


active = _Stack()
# Whether any thread ever entered a saved_tensors_hooks block: until then every saved
# tensor skips reading the thread-local stack.  Set once, never cleared.
used = False


def current():
    """The innermost ``(pack_hook, unpack_hook)``, or None."""
    return active.hooks[-1] if active.hooks else None


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> anything`` when a tensor is saved for
    backward, ``unpack_hook(that) -> tensor`` when backward needs it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        global used
        if active.disabled is not None:
            raise RuntimeError(active.disabled)
        used = True
        active.hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        active.hooks.pop()
        return False


class disable_saved_tensors_hooks:
    """Context manager: entering ``saved_tensors_hooks`` inside raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._previous = active.disabled
        active.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        active.disabled = self._previous
        return False
