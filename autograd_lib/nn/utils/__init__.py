"""``nn.utils``: clipping gradients, and parameters as one flat vector (``nn.utils.rnn``,
padding and packing sequences, is ``rnn.py`` beside this file).

    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)   # before optimizer.step()
    optimizer.step()

``clip_grad_norm_`` measures all the gradients as one long vector (the norm of
the per-parameter norms) and, if that norm exceeds ``max_norm``, scales every
gradient by ``max_norm / (norm + 1e-6)``, so a rare huge gradient cannot throw
training off.  It returns the norm measured *before* clipping, a tensor that is
worth logging.  ``clip_grad_value_`` clamps each gradient element instead.
All of them run without recording (PyTorch's ``@torch.no_grad``).

``clip_grad_norm_`` takes its arguments as PyTorch does (a tensor, a list, a generator)
and hands the list of parameters to ``_clip_grad_norm``, which measures and scales:
exercise 09.clip_grad_norm.
"""

import math
import types
import warnings

from ...creation import tensor
from ...grad_mode import no_grad
from ...ops.norms import vector_norm
from ...ops.shape import cat, stack
from ...tensor import Tensor
from . import rnn                 # noqa: F401  (nn.utils.rnn, as in PyTorch)

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "parameters_to_vector", "vector_to_parameters"]


def _tensors(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _grads(parameters):
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all ``tensors`` taken together (0-dim tensor; 0 for none).

    Args:
        tensors: a tensor or an iterable of tensors (usually the gradients).
        norm_type: the order of the norm (``2.0``, ``1``, ``"inf"``, ...).
        error_if_nonfinite: raise if the norm is nan or inf.
    Returns:
        the norm, as a tensor.
    """
    return _total_norm(_tensors(tensors), norm_type, error_if_nonfinite)


def _total_norm(tensors, norm_type, error_if_nonfinite):
    """The work of :func:`get_total_norm` on a list of tensors (its callers run it under no_grad)."""
    if not tensors:
        return tensor(0.0)
    norm_type = float(norm_type)
    norms = [vector_norm(t, norm_type) for t in tensors]
    total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the parameters' gradients by ``min(1, max_norm / (total_norm + 1e-6))``, in place."""
    _scale_grads(_grads(parameters), max_norm, total_norm)


def _scale_grads(grads, max_norm, total_norm):
    """The work of :func:`clip_grads_with_norm_` on a list of gradients (its callers run it under no_grad)."""
    if not grads:
        return
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients of ``parameters`` so that their total norm is at most ``max_norm``.

    Args:
        parameters: a tensor or an iterable of tensors whose ``.grad`` is clipped (those
            without a gradient are skipped).
        max_norm: the largest total norm allowed.
        norm_type: the order of the norm (``2.0``; ``"inf"`` for the largest element).
        error_if_nonfinite: raise instead of scaling by a nan or infinite norm.
    Returns:
        the total norm of the gradients before clipping (a 0-dim tensor).
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    return _clip_grad_norm(parameters, max_norm, norm_type, error_if_nonfinite)


def _clip_grad_norm(parameters, max_norm, norm_type, error_if_nonfinite):
    """The work of :func:`clip_grad_norm_` on a list of parameters: the total norm of their
    gradients (the norm of the per-gradient norms; a RuntimeError when it is not finite and
    ``error_if_nonfinite``), every gradient scaled in place by
    ``min(1, max_norm / (total + 1e-6))`` without recording, and the total returned.
    (Exercise 09.clip_grad_norm.)"""
    with no_grad():
        grads = _grads(parameters)
        total = _total_norm(grads, norm_type, error_if_nonfinite)
        _scale_grads(grads, max_norm, total)
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element of ``parameters`` into ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    """All the parameters flattened and joined into one vector (recorded: CatBackward0)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy the slices of ``vec`` into the parameters' data, in order (the inverse of
    :func:`parameters_to_vector`; not recorded)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected autograd_lib.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
