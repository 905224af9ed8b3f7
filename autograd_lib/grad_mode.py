"""Grad mode: the switch that decides whether operations are recorded.

As in PyTorch the switch is *thread-local*: turning gradients off in one
thread (say, an evaluation thread) never changes what another thread records.
``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work both as context
managers and as function decorators; all three share one ``__exit__`` and one way
of decorating (:func:`decorate`, which hands a generator function to
:func:`decorate_generator`); ``set_grad_enabled`` has a constructor and an ``__enter__`` of its own.
"""

import functools
import inspect
import threading
import warnings

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _GradState(threading.local):
    enabled = True                  # every thread starts with recording on
    inference = False               # inference_mode: new tensors are inference tensors

    def __init__(self):             # run once in every thread that reads the state
        self.inference_blocks = []  # the modes of this thread's open inference_mode blocks, innermost last


_state = _GradState()
# Whether any thread ever entered inference_mode: until then no tensor is an inference
# tensor, and the ops that make one tensor each skip reading the thread-local state (a
# tenth of the cost of making a tensor).  Set once, never cleared.
inference_used = False


def is_grad_enabled():
    """True when operations on tensors that require grad are being recorded."""
    return _state.enabled


def _set_grad_enabled(mode):
    """Flip this thread's switch (PyTorch's ``torch._C._set_grad_enabled``)."""
    _state.enabled = bool(mode)


def decorate(make_context, fn):
    """``fn`` decorated as PyTorch's grad-mode decorators do (its ``context_decorator``):
    every call runs inside a fresh ``make_context()``; a generator function goes to
    :func:`decorate_generator` (a context around each step); a class is refused with
    PyTorch's FutureWarning and decorated as a function that makes its objects.

    A fresh context per call (PyTorch's ``clone()``) matters: a context object
    remembers the mode it replaced, so one object shared by nested or recursive
    calls would restore the wrong mode.

    (Exercise 07.grad_mode_decorators, slot 07.grad_mode_decorator.)"""
    if inspect.isclass(fn):
        warnings.warn(CLASS_WARNING, FutureWarning, stacklevel=3)
        cls = fn
        fn = lambda *args, **kwargs: cls(*args, **kwargs)       # noqa: E731  (PyTorch's: named <lambda>)
    if inspect.isgeneratorfunction(fn):
        return decorate_generator(make_context, fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with make_context():
            return fn(*args, **kwargs)
    return wrapper


CLASS_WARNING = ("Decorating classes is deprecated and will be disabled in future versions. You should only "
                 "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                 "directly decorate the `__init__` method and nothing else.")


def decorate_generator(make_context, fn):
    """A generator function ``fn`` wrapped so that each *step* of its generators runs
    inside a fresh ``make_context()``: the first ``next``, every ``send``, an exception
    thrown in and ``close``.  Between two steps the caller's code runs in the caller's
    own mode.  (Calling a generator function runs none of its body, so wrapping the
    call, as :func:`decorate` does, would run every step outside the mode.)  What the
    generator returns, the wrapper returns; an exception it does not handle goes on to
    the caller.  As PyTorch's ``context_decorator`` does for generators.

    (Exercise 07.grad_mode_decorators, slot 07.grad_mode_generator.)"""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        generator = fn(*args, **kwargs)
        try:
            with make_context():
                response = generator.send(None)          # the first step
            while True:
                try:
                    request = yield response
                except GeneratorExit:                    # the caller closes us: close it, in the mode
                    with make_context():
                        generator.close()
                    raise
                except BaseException as error:          # thrown in by the caller: pass it on
                    with make_context():
                        response = generator.throw(error)
                else:
                    with make_context():
                        response = generator.send(request)
        except StopIteration as stop:                    # it returned: so do we, with its value
            return stop.value
    return wrapper


class _GradModeContext:
    """The base class of ``no_grad``, ``enable_grad`` and ``set_grad_enabled``: a block of
    any of them behaves as PyTorch's (exercise 07.grad_mode_context: ``__enter__`` and
    ``__exit__``), and an object of any of them decorates (``__call__``)."""

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
        """Use as a decorator: the function body (each step of a generator) runs in this
        grad mode, in a fresh context per call (per step)."""
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
    """Set grad mode to ``mode``, as PyTorch's: a plain call, a block and a decorator."""

    def __init__(self, mode):
        """Switch grad mode to ``mode`` now, remembering the mode it replaces (what
        ``__exit__`` restores, and ``__call__`` puts back at once: decorating switches
        nothing).  ``mode`` must be a bool, as in PyTorch: anything else (``1``,
        ``None``, a NumPy bool) is a TypeError, and nothing changes.

        (Exercise 07.set_grad_enabled.)"""
        if not isinstance(mode, bool):
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {_type_name(mode)}")
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
        self.__exit__(None, None, None)          # as PyTorch's __call__: decorating leaves the program's mode alone
        return super().__call__(fn)


def _type_name(value):
    """A type as PyTorch's argument parser names it (CPython's ``tp_name``): a class
    written in Python by its name, a compiled one by its dotted name (``numpy.bool``)
    unless it is a builtin (``int``, ``NoneType``)."""
    cls = type(value)
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


_HEAP_TYPE = 1 << 9                 # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


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
        global inference_used
        inference_used = True
        self._grad = no_grad() if self.mode else enable_grad()     # grad mode: a block of its own
        self._grad.__enter__()
        _state.inference_blocks.append(self.mode)
        _state.inference = self.mode

    def __exit__(self, exc_type, exc_value, traceback):
        blocks = _state.inference_blocks
        if blocks:
            blocks.pop()
        _state.inference = blocks[-1] if blocks else False      # the innermost block still open decides
        self._grad.__exit__(exc_type, exc_value, traceback)

    def clone(self):
        return type(self)(self.mode)
