"""In-place writes whose operands read the memory being written, element by element.

PyTorch refuses a write whose operand shares *part* of the target's memory when it can tell
(``x[2:5].copy_(x[0:3])``: ``check_overlap``), but it does not look into layouts with gaps
or repeats (``x[::2]``).  Such a write then runs element by element, each element reading
the memory as the earlier elements left it: ``x = arange(6.); x[::2].copy_(x[:3])`` gives
``[0, 1, 1, 3, 1, 5]`` (``x[4]`` reads ``x[2]`` after it became 1), where NumPy, which
buffers an overlapping operand, would give ``[0, 1, 1, 3, 2, 5]``.

The elements go in the order PyTorch's TensorIterator visits them: the target's dims sorted
by stride, the largest outermost (memory order, not the logical order of a transposed target).
"""

import itertools

import numpy as np

__all__ = ["reads_its_target", "write_in_order"]


def _same_layout(a, b):
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides)


def reads_its_target(target, operands):
    """Whether an operand (a NumPy array) shares memory with ``target`` (an array) without
    being the same elements in the same layout, so the order of the writes shows."""
    for operand in operands:
        if not isinstance(operand, np.ndarray) or operand is target or not np.may_share_memory(target, operand):
            continue
        if _same_layout(target, operand):
            continue
        try:
            if np.shares_memory(target, operand, max_work=100_000):
                return True
        except np.exceptions.TooHardError:
            return True
    return False


def write_in_order(target, compute, operands):
    """Write ``compute(element of target, *elements of operands)`` into each element of
    ``target`` (an array, in place), one element at a time in PyTorch's order, each read
    made after the writes before it.  ``operands``: arrays (broadcast to the target's shape)
    or Python scalars, passed as they are."""
    shape = target.shape
    dims = sorted(range(target.ndim), key=lambda d: -target.strides[d])
    views = [np.broadcast_to(o, shape) if isinstance(o, np.ndarray) else o for o in operands]
    for steps in itertools.product(*(range(shape[d]) for d in dims)):
        index = [0] * target.ndim
        for d, i in zip(dims, steps):
            index[d] = i
        index = tuple(index)
        elements = [np.array(v[index]) if isinstance(v, np.ndarray) else v for v in views]
        target[index] = compute(np.array(target[index]), *elements)
