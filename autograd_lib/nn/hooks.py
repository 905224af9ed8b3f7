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
"""

import warnings

from ..graph import HookDict, add_hook
from ..tensor import Tensor
from .backward_hooks import BackwardHook

__all__ = ["ModuleHooks"]


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
        pre, post = self.__dict__.get("_forward_pre_hooks"), self.__dict__.get("_forward_hooks")
        backward = BackwardHook.of(self)          # None unless backward hooks are registered
        for hook, with_kwargs in list(pre.values()) if pre else ():
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
        for hook, with_kwargs in list(post.values()) if post else ():
            result = hook(self, args, kwargs, output) if with_kwargs else hook(self, args, output)
            if result is not None:
                output = result
        if backward is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or "
                              f"a tuple of Tensors but received {type(output)}", stacklevel=2)
            output = backward.setup_output_hook(output)
        return output


