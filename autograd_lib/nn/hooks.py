"""Forward hooks of ``nn.Module``: code that runs around a module's ``forward``.

* ``module.register_forward_pre_hook(hook)``: ``hook(module, args)`` runs before
  ``forward``; it may return new positional arguments (a tuple, or one value);
* ``module.register_forward_hook(hook)``: ``hook(module, args, output)`` runs after it;
  it may return a new output.

With ``with_kwargs=True`` the hooks also get the keyword arguments
(``hook(module, args, kwargs)`` returns ``(args, kwargs)``; ``hook(module, args,
kwargs, output)``).  ``prepend=True`` puts a hook before the others.  Each call returns
a handle whose ``remove()`` unregisters it.  A common use: reading what a layer computes
(its activations) without changing the model's code.

The full backward hooks (``register_full_backward_hook``, ``register_full_backward_pre_hook``)
are registered here and wired around ``forward`` by ``backward_hooks.py``.

Global hooks, for every module at once (``torch.nn.modules.module.register_module_forward_hook``
and its three kin, reached at that path through ``nn/modules/``), run before each module's
own hooks of the same kind, as PyTorch's do.
"""

import warnings

from ..graph import HookDict, add_hook
from ..tensor import Tensor
from .backward_hooks import BackwardHook

__all__ = ["ModuleHooks", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]

# The global hooks, by the attribute that holds a module's own hooks of the same kind.
GLOBAL_HOOKS = {kind: HookDict() for kind in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                                              "_backward_hooks")}


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` before the ``forward`` of every module (before its own
    pre-hooks); it may return new positional arguments.  Returns a removable handle."""
    return add_hook(GLOBAL_HOOKS["_forward_pre_hooks"], (hook, False))


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` after the ``forward`` of every module (before its own
    hooks); it may return a new output.  Returns a removable handle."""
    return add_hook(GLOBAL_HOOKS["_forward_hooks"], (hook, with_kwargs))


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` for every module, before its own backward pre-hooks."""
    return add_hook(GLOBAL_HOOKS["_backward_pre_hooks"], (hook, False))


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` for every module, before its own backward hooks."""
    return add_hook(GLOBAL_HOOKS["_backward_hooks"], (hook, False))


def _with_globals(module, kind):
    """The global hooks of ``kind`` then the module's own, as ``(hook, with_kwargs)`` pairs."""
    own, shared = module.__dict__.get(kind), GLOBAL_HOOKS[kind]
    if not shared:
        return list(own.values()) if own else ()
    return [*shared.values(), *own.values()] if own else list(shared.values())


class ModuleHooks:
    """Mixed into ``Module``: its forward pre-hooks and hooks, and the call that runs them."""

    def _hooks(self, kind):
        hooks = self.__dict__.get(kind)
        if hooks is None:
            hooks = HookDict()
            object.__setattr__(self, kind, hooks)
        return hooks

    def _add(self, kind, hook, prepend, with_kwargs):
        hooks = self._hooks(kind)
        handle = add_hook(hooks, (hook, with_kwargs))
        if prepend:
            hooks[handle._key] = hooks.pop(handle._key)
            for key in [k for k in hooks if k != handle._key]:
                hooks[key] = hooks.pop(key)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` before every ``forward``; returns a removable handle."""
        return self._add("_forward_pre_hooks", hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` after every ``forward``; returns a removable handle."""
        return self._add("_forward_hooks", hook, prepend, with_kwargs)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the gradients w.r.t. the outputs are known; it may
        return a new ``grad_output``.  Returns a removable handle."""
        return self._add("_backward_pre_hooks", hook, prepend, False)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` when the gradients w.r.t. the positional
        inputs are known; it may return a new ``grad_input``.  Returns a removable handle."""
        return self._add("_backward_hooks", hook, prepend, False)

    def __call__(self, *args, **kwargs):
        """``module(x)``: the forward pre-hooks, ``module.forward(x)``, the forward hooks (and
        the wiring of the backward hooks registered now, around ``forward``)."""
        pre, post = _with_globals(self, "_forward_pre_hooks"), _with_globals(self, "_forward_hooks")
        backward = BackwardHook.of(self, _with_globals(self, "_backward_hooks"),
                                   _with_globals(self, "_backward_pre_hooks"))   # None without hooks
        for hook, with_kwargs in pre:
            if with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if backward is not None:
            args = backward.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for hook, with_kwargs in post:
            result = hook(self, args, kwargs, output) if with_kwargs else hook(self, args, output)
            if result is not None:
                output = result
        if backward is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or "
                              f"a tuple of Tensors but received {type(output)}", stacklevel=2)
            output = backward.setup_output_hook(output)
        return output


