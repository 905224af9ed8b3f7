"""``autograd.Variable``: the name tensors had before PyTorch 0.4, kept for old scripts.

``Variable(t, requires_grad=False)`` is a new leaf sharing ``t``'s storage; every tensor
is a ``Variable`` (``isinstance``).  ``Variable._execution_engine.queue_callback(fn)``
runs ``fn()`` when the running backward pass ends, as PyTorch's engine does.
"""

from .. import engine as _engine
from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class _ExecutionEngine:
    """The engine as ``Variable._execution_engine`` shows it."""

    @staticmethod
    def queue_callback(callback):
        _engine.queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: ``data.detach()``, requiring grad as asked."""
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False, volatile=False):
        return data.detach().requires_grad_(requires_grad)
