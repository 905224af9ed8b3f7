"""Anomaly detection and the multithreading switch (PyTorch's ``torch.autograd``).

``detect_anomaly()`` / ``set_detect_anomaly(True)`` turn on checks meant for debugging:

* every node made meanwhile keeps the Python stack of the forward call that made it
  (``node.metadata["traceback_"]``, :func:`record_forward_trace`);
* when a backward pass run in anomaly mode fails inside a node, PyTorch's warning names the
  node and prints that stack ("Error detected in SqrtBackward0. Traceback of forward call
  that caused the error: ..."), then the error goes on (:func:`run_backward`);
* with ``check_nan`` (the default) a backward node that returns a gradient containing NaN
  stops the pass with ``RuntimeError("Function 'DivBackward0' returned nan values in its
  0th output.")`` (:func:`check_nan_gradients`, which the engine calls after each node).

``set_multithreading_enabled`` is accepted: autograd_lib's engine uses one thread anyway.
"""

import functools
import os
import threading
import traceback
import warnings

import numpy as np

from .. import engine
from .. import graph as _graph

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "check_nan_gradients", "set_multithreading_enabled",
           "is_multithreading_enabled", "record_forward_trace", "run_backward"]


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
        engine.NODE_CHECKS.append(check_nan_gradients)     # each checks this thread's mode itself
        _graph.NEW_NODE_HOOKS.append(record_forward_trace)
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


_LIBRARY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_forward_trace(node):
    """In anomaly mode: keep, in ``node.metadata["traceback_"]``, the stack of the forward
    call that made ``node``, as PyTorch keeps it (the frames of the library itself left out,
    as PyTorch's C++ frames are)."""
    if not _state.anomaly:
        return
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_LIBRARY)]
    node.metadata["traceback_"] = traceback.format_list(frames)


def _failed_node(error):
    """The node whose backward raised ``error``: the outermost running node of the engine
    in the error's traceback (the engine's ``_run_node`` frame holds it), or None."""
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code is engine._run_node.__code__:
            return frame.f_locals.get("node")
        tb = tb.tb_next
    return None


def run_backward(*args, **kwargs):
    """``engine.run_backward``; in anomaly mode, a node that fails gets PyTorch's warning
    with the traceback of the forward call that made it, and the error goes on."""
    try:
        return engine.run_backward(*args, **kwargs)
    except Exception as error:
        node = _failed_node(error) if _state.anomaly else None
        if node is not None:
            trace = node.metadata.get("traceback_") if hasattr(node, "_metadata") else None
            if trace:
                text = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
                        f"error:\n{''.join(trace)}")
            else:
                text = (f"Error detected in {node.name()}. No forward pass information available. "
                        "Enable detect anomaly during forward pass for more information.")
            warnings.warn(text, UserWarning, stacklevel=3)
        raise


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
