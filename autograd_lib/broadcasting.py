"""Broadcasting, forward and backward (PyTorch's ``ExpandUtils``).

Forward, two shapes broadcast when, aligned at the right, each pair of sizes
is equal or one of them is 1.  NumPy does that work; this module only gives
PyTorch's error when it fails.

Backward, an input that was broadcast was used several times, so its
gradient is the *sum* over the copies: :func:`sum_to` brings a gradient of
the broadcast shape back down to the input's shape.  The engine does it for
every gradient a node returns (``engine.validate_outputs``), and the rule of
``expand`` does it explicitly.

This module imports nothing from the library: ``sum_to`` works through Tensor
methods (``sum``, ``reshape``), so with ``create_graph=True`` it is recorded
like any other computation.
"""

import numpy as np

__all__ = ["broadcast_shape", "broadcast_error", "is_expandable_to", "sum_to"]


def broadcast_shape(a, b):
    """The shape ``a`` and ``b`` broadcast to, with PyTorch's error."""
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError as e:
        raise broadcast_error(e, (np.empty(a), np.empty(b))) from None


def broadcast_error(error, arrays):
    """PyTorch's error for operands whose shapes don't broadcast (else ``error`` itself)."""
    shapes = [np.shape(a) for a in arrays if isinstance(a, np.ndarray)]
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            ndim = max(len(a), len(b))
            for dim in range(ndim - 1, -1, -1):
                offset = ndim - 1 - dim
                size_a = a[len(a) - 1 - offset] if offset < len(a) else 1
                size_b = b[len(b) - 1 - offset] if offset < len(b) else 1
                if size_a != size_b and size_a != 1 and size_b != 1:
                    return RuntimeError(f"The size of tensor a ({size_a}) must match the size of "
                                        f"tensor b ({size_b}) at non-singleton dimension {dim}")
    return error


def is_expandable_to(shape, desired):
    """True when a tensor of ``shape`` broadcasts to ``desired``."""
    if len(shape) > len(desired):
        return False
    for s, d in zip(reversed(shape), reversed(desired)):
        if s != 1 and s != d:
            return False
    return True


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: undo broadcasting (leading dims, and dims of size 1).

    (Exercise 05.sum_to.)"""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    if not shape:
        return grad.sum()
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and grad.shape[i + lead] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead or grad.shape != shape:
        grad = grad.reshape(shape)
    return grad
