"""The two margin losses PyTorch computes as nodes of their own: ``multi_margin_loss``
(MultiMarginLossBackward0) and ``multilabel_margin_loss`` (MultilabelMarginLossBackward0).

Each forward is NumPy over the samples of an ``(N, C)`` input (a ``(C,)`` or 0-D input
is one sample) and records one node whose only edge is the input's: the targets are
class indices, and a ``weight`` never requires grad (PyTorch refuses it).  Their
gradients are ops too (``multi_margin_loss_backward``, ...), which PyTorch does not
differentiate: with ``create_graph=True`` they record a NotImplemented node, whose
backward raises.  The other margin losses of ``nn.functional`` are compositions of
existing ops (``nn/functional_losses.py``).
"""

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import is_grad_enabled
from ..recording import record
from .losses import _check_reduction

__all__ = ["multi_margin_loss", "multi_margin_loss_backward", "multilabel_margin_loss",
           "multilabel_margin_loss_backward"]


def _type(dtype):
    return _dt.LEGACY_NAMES[dtype.name][:-len("Tensor")]


def _samples(input):
    """``(nframe, dim)``: a 0-D or 1-D input is one sample; a 2-D one (empty batch allowed)
    has a row per sample.  Anything else is refused with PyTorch's words."""
    shape = tuple(input.shape)
    if not ((input.ndim <= 1 and input.numel() > 0) or (input.ndim == 2 and shape[1] != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(shape)}")
    if input.ndim <= 1:
        return 1, max(input.numel(), 1)
    return shape


def _check_dtypes(kernel, input, target, weight=None):
    if not input.dtype.is_floating_point or input.dtype is _dt.float16:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type(input.dtype)}\'')
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {_type(target.dtype)}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_type(input.dtype)} but found {_type(weight.dtype)}")


def _reduce(per_sample, reduction, none_shape):
    if reduction == "none":
        return per_sample.reshape(none_shape)
    total = per_sample.sum()
    return total / len(per_sample) if reduction == "mean" and len(per_sample) else total


def _scale(grad, reduction, nframe):
    """The incoming gradient per sample, as a column (``"mean"`` divides by the count)."""
    g = np.asarray(grad._data)
    if reduction == "none":
        return g.reshape(nframe, 1)
    return g / nframe if reduction == "mean" else g


# ------------------------------------------------------------ multi_margin_loss

def _multi_margin_parts(x, target, p, margin, weight):
    """The rows, the target of each, the margins ``margin - x[y] + x[j]`` and where they count."""
    nframe, dim = _samples(x)
    rows, t = x._data.reshape(nframe, dim), target._data.reshape(nframe)
    if ((t < 0) | (t >= dim)).any():
        raise RuntimeError("target out of range")
    picked = np.arange(nframe)
    z = margin - rows[picked, t][:, None] + rows
    active = z > 0
    active[picked, t] = False
    scale = np.ones((nframe, 1), rows.dtype) if weight is None else weight._data[t][:, None]
    return rows, t, z, active, scale, nframe, dim


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    """``sum_{j != y} max(0, weight[y] * (margin - x[y] + x[j]))**p / C`` per sample, ``p`` 1 or 2."""
    _check_reduction(reduction)
    nframe, dim = _samples(input)
    if not (target.ndim <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number "
                           f"of input samples (batch size). Expected target size [{nframe}], but got "
                           f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    _check_dtypes("multi_margin_loss_cpu_kernel", input, target, weight)
    if weight is not None and weight.requires_grad and is_grad_enabled():
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    rows, t, z, active, scale, nframe, dim = _multi_margin_parts(input, target, p, margin, weight)
    terms = np.where(active, z if p == 1 else z * z, 0) * scale
    loss = _reduce(terms.sum(axis=1) / dim, reduction, tuple(target.shape))
    return record("multi_margin_loss", np.asarray(loss, dtype=rows.dtype), (input,),
                  {"target": target.detach(), "p": p, "margin": margin,
                   "weight": None if weight is None else weight.detach(), "reduction": reduction})


def multi_margin_loss_backward(grad, self, target, p, margin, weight, reduction):
    """Each counted margin's slope (1, or ``2 z`` for p=2) times ``weight[y] / C`` on
    ``x[j]``, their negated sum on ``x[y]`` (an op PyTorch does not differentiate)."""
    rows, t, z, active, scale, nframe, dim = _multi_margin_parts(self, target, p, margin, weight)
    slopes = np.where(active, 1 if p == 1 else 2 * z, 0) * scale / dim
    slopes[np.arange(nframe), t] = -slopes.sum(axis=1)
    array = (slopes * _scale(grad, reduction, nframe)).astype(rows.dtype).reshape(self.shape)
    return record("multi_margin_loss_backward", array, (grad, self))


# ------------------------------------------------------- multilabel_margin_loss

def _multilabel_parts(x, target):
    """Per sample, the target classes (those before the first -1), and the margins
    ``1 - x[k] + x[j]`` of each target ``k`` over each non-target ``j`` that count."""
    nframe, dim = _samples(x)
    rows, t = x._data.reshape(nframe, dim), target._data.reshape(nframe, dim)
    if ((t < -1) | (t >= dim)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(t >= 0, axis=1).astype(bool)          # the entries before the first -1
    classes = np.where(listed, t, 0)
    picked = np.arange(nframe)[:, None]
    is_target = np.zeros((nframe, dim), bool)
    is_target[np.broadcast_to(picked, t.shape)[listed], classes[listed]] = True
    z = 1 - rows[picked, classes][:, :, None] + rows[:, None, :]
    active = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return rows, classes, z, active, nframe, dim


def multilabel_margin_loss(input, target, reduction="mean"):
    """``sum_k sum_j max(0, 1 - (x[k] - x[j])) / C`` over the sample's target classes ``k``
    (``target`` lists them, ended by the first -1) and its other classes ``j``."""
    _check_reduction(reduction)
    _samples(input)
    if not ((input.ndim <= 1 and target.ndim <= 1 and target.numel() == input.numel())
            or (input.ndim == 2 and tuple(target.shape) == tuple(input.shape))):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    _check_dtypes("multilabel_margin_loss_forward_out_frame", input, target)
    rows, classes, z, active, nframe, dim = _multilabel_parts(input, target)
    per_sample = np.where(active, z, 0).sum(axis=(1, 2)) / dim
    loss = _reduce(per_sample, reduction, () if input.ndim <= 1 else (nframe,))
    return record("multilabel_margin_loss", np.asarray(loss, dtype=rows.dtype), (input,),
                  {"target": target.detach(), "reduction": reduction})


def multilabel_margin_loss_backward(grad, self, target, reduction):
    """``1/C`` on each non-target ``x[j]`` per counted margin, minus as much on the target
    ``x[k]`` (an op PyTorch does not differentiate)."""
    rows, classes, z, active, nframe, dim = _multilabel_parts(self, target)
    counted = active / dim
    slopes = counted.sum(axis=1)
    np.add.at(slopes, (np.arange(nframe)[:, None], classes), -counted.sum(axis=2))
    array = (slopes * _scale(grad, reduction, nframe)).astype(rows.dtype).reshape(self.shape)
    return record("multilabel_margin_loss_backward", array, (grad, self))
