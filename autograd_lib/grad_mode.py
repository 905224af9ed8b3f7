"""Grad mode: the switch that decides whether operations are recorded.

As in PyTorch the switch is *thread-local*: turning gradients off in one
thread (say, an evaluation thread) never changes what another thread records.
``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work both as context
managers and as function decorators.
"""

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]

class _GradState(threading.local):
    enabled = True                  # every thread starts with recording on


_state = _GradState()


def is_grad_enabled():
    """True when operations on tensors that require grad are being recorded."""
    return _state.enabled


def _set_enabled(mode):
    _state.enabled = bool(mode)


class _GradModeContext:
    """Shared machinery: remember the previous mode on enter, restore it on exit."""

    mode = None                                  # set by subclasses

    def __enter__(self):
        self._previous = is_grad_enabled()
        _set_enabled(self.mode)
        return None

    def __exit__(self, *exc):
        _set_enabled(self._previous)
        return False

    def __call__(self, fn):
        """Use as a decorator: the function body runs in this grad mode."""
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Stop recording: results are leaves with ``requires_grad=False``.

    >>> with no_grad():
    ...     y = x * 2            # y.requires_grad is False, y.grad_fn is None
    """
    mode = False

    def __init__(self, fn=None):
        # Allows both ``@no_grad()`` and ``@no_grad``.
        self._fn = fn if callable(fn) else None
        if self._fn is not None:
            functools.update_wrapper(self, self._fn)

    def __call__(self, *args, **kwargs):
        if self._fn is not None:
            with no_grad():
                return self._fn(*args, **kwargs)
        return super().__call__(*args)


class enable_grad(no_grad):
    """Record again, even inside a ``no_grad`` block."""
    mode = True

    def __call__(self, *args, **kwargs):
        if self._fn is not None:
            with enable_grad():
                return self._fn(*args, **kwargs)
        return _GradModeContext.__call__(self, *args)


class set_grad_enabled(_GradModeContext):
    """Set grad mode to ``mode``. Like PyTorch, it takes effect immediately
    when constructed (so ``set_grad_enabled(False)`` works as a plain call),
    and the previous mode comes back when used as a context manager exits."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled() expects a bool, got {type(mode).__name__}")
        self.mode = mode
        self._previous = is_grad_enabled()
        _set_enabled(mode)

    def __enter__(self):
        return None

    def __call__(self, fn):
        _set_enabled(self._previous)            # decorating must not change the mode now
        return super().__call__(fn)
