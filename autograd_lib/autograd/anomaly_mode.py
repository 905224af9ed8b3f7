"""Anomaly detection and the multithreading switch (PyTorch's ``torch.autograd``).

``detect_anomaly()`` / ``set_detect_anomaly(True)`` turn on checks meant for debugging:
with ``check_nan`` (the default) a backward node that returns a gradient containing NaN
stops the pass with ``RuntimeError("Function 'DivBackward0' returned nan values in its
0th output.")`` (:func:`check_nan_gradients`, which the engine calls after each node).
``set_multithreading_enabled`` is accepted: autograd_lib's engine uses one thread anyway.
"""

import functools
import threading
import warnings

import numpy as np

from .. import engine

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "check_nan_gradients", "set_multithreading_enabled",
           "is_multithreading_enabled"]


class _State(threading.local):
    anomaly = False                 # per thread, as grad mode
    check_nan = True
    multithreading = True


_state = _State()


def is_anomaly_enabled():
    """True inside ``detect_anomaly()`` (or after ``set_detect_anomaly(True)``)."""
    return _state.anomaly


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode looks for NaN in the gradients backward computes."""
    return _state.check_nan


def _set(mode, check_nan):
    previous = (_state.anomaly, _state.check_nan)
    _state.anomaly, _state.check_nan = bool(mode), bool(check_nan)
    if mode and check_nan_gradients not in engine.NODE_CHECKS:
        engine.NODE_CHECKS.append(check_nan_gradients)     # it checks this thread's mode itself
    return previous


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled``: switch anomaly detection for this thread."""
    _set(enabled, check_nan)


class detect_anomaly:
    """Context manager (and decorator): anomaly detection inside, with a warning that it is
    slow; the previous setting comes back on exit."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._previous = _set(True, self.check_nan)

    def __exit__(self, *exc_info):
        _set(*self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode, check_nan=True):
        self._previous = _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _set(*self._previous)
        return False


def check_nan_gradients(node, grad_inputs):
    """In anomaly mode with ``check_nan``: refuse a node's gradients that contain NaN."""
    if not (_state.anomaly and _state.check_nan):
        return
    for i, g in enumerate(grad_inputs):
        if g is not None and np.isnan(g._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def is_multithreading_enabled():
    """Whether backward may run on several threads (PyTorch's switch; one thread here)."""
    return _state.multithreading


class set_multithreading_enabled:
    """Accepted for PyTorch's sake (a call, a context manager, a decorator): the engine
    here always runs on the calling thread."""

    def __init__(self, mode):
        self.mode = mode
        self._previous = _state.multithreading
        _state.multithreading = bool(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _state.multithreading = self._previous
        return False

    def __call__(self, fn):
        _state.multithreading = self._previous         # decorating does not switch now

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_multithreading_enabled(self.mode):
                return fn(*args, **kwargs)
        return wrapper
