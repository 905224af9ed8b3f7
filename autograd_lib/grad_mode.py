"""Grad mode: the switch that decides whether operations are recorded.

As in PyTorch the switch is *thread-local*: turning gradients off in one
thread (say, an evaluation thread) never changes what another thread records.
``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work both as context
managers and as function decorators; all three share one ``__enter__``, one
``__exit__`` and one way of decorating (:func:`decorate`).
"""

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _GradState(threading.local):
    enabled = True                  # every thread starts with recording on
    inference = False               # inference_mode: new tensors are inference tensors


_state = _GradState()


def is_grad_enabled():
    """True when operations on tensors that require grad are being recorded."""
    return _state.enabled


def _set_grad_enabled(mode):
    """Flip this thread's switch (PyTorch's ``torch._C._set_grad_enabled``)."""
    _state.enabled = bool(mode)


def decorate(make_context, fn):
    """``fn`` wrapped so that every call runs inside a fresh ``make_context()``.

    A fresh context per call (PyTorch's ``clone()``) matters: a context object
    remembers the mode it replaced, so one object shared by nested or recursive
    calls would restore the wrong mode.  A generator function gets each of its
    steps run in the mode, as in PyTorch."""
    if inspect.isgeneratorfunction(fn):
        return _decorate_generator(make_context, fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with make_context():
            return fn(*args, **kwargs)
    return wrapper


def _decorate_generator(make_context, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        generator = fn(*args, **kwargs)
        with make_context():
            response = next(generator)           # StopIteration here ends this generator too
        while True:
            try:
                request = yield response
            except GeneratorExit:
                with make_context():
                    generator.close()
                raise
            except BaseException as error:      # thrown in by the caller: pass it on
                step = functools.partial(generator.throw, error)
            else:
                step = functools.partial(generator.send, request)
            try:
                with make_context():
                    response = step()
            except StopIteration as stop:
                return stop.value
    return wrapper


class _GradModeContext:
    """Shared machinery: remember the previous mode on enter, restore it on exit."""

    mode = None                                  # set by subclasses

    def __enter__(self):
        self._previous = is_grad_enabled()
        _set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self._previous)
        return False                             # never swallow the block's exception

    def clone(self):
        """A new context of the same kind, for one call of a decorated function."""
        return type(self)()

    def __call__(self, fn):
        """Use as a decorator: the function body runs in this grad mode."""
        return decorate(self.clone, fn)


class _NoParamDecoratorContextManager(_GradModeContext):
    """Allows both ``@no_grad()`` and ``@no_grad`` (PyTorch's base of the same name)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Stop recording: results are leaves with ``requires_grad=False``.

    >>> with no_grad():
    ...     y = x * 2            # y.requires_grad is False, y.grad_fn is None
    """
    mode = False


class enable_grad(_NoParamDecoratorContextManager):
    """Record again, even inside a ``no_grad`` block."""
    mode = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode to ``mode``. Like PyTorch, it takes effect immediately
    when constructed (so ``set_grad_enabled(False)`` works as a plain call),
    and the previous mode comes back when used as a context manager exits."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.mode = mode
        self._previous = is_grad_enabled()
        _set_grad_enabled(mode)

    def __enter__(self):
        _set_grad_enabled(self.mode)             # again: the mode may have changed since construction

    def __repr__(self):
        return f"autograd_lib.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return type(self)(self.mode)

    def __call__(self, fn):
        _set_grad_enabled(self._previous)        # decorating must not change the mode now
        return super().__call__(fn)


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return _state.inference


class inference_mode(_GradModeContext):
    """``no_grad``, and more: every tensor made inside is an *inference tensor*
    (``t.is_inference()``), which autograd refuses to use later: outside the block it
    cannot be saved for a backward pass, written in place, or made to require grad.
    (PyTorch uses that promise to skip the bookkeeping; autograd_lib only keeps it.)
    ``inference_mode(False)`` turns grad mode on and inference mode off.  A context
    manager and a decorator, with or without parentheses.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)                       # @inference_mode without parentheses

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._previous = (_state.enabled, _state.inference)
        _state.enabled, _state.inference = not self.mode, self.mode

    def __exit__(self, exc_type, exc_value, traceback):
        _state.enabled, _state.inference = self._previous
        return False

    def clone(self):
        return type(self)(self.mode)
