"""Losses computed element by element, then reduced: ``binary_cross_entropy``,
``binary_cross_entropy_with_logits``, ``smooth_l1_loss``, ``huber_loss``, ``l1_loss``.

Each forward is NumPy and records one node, as PyTorch
(BinaryCrossEntropyBackward0, BinaryCrossEntropyWithLogitsBackward0,
SmoothL1LossBackward0, HuberLossBackward0); ``l1_loss`` is ``(input - target).abs()``
then the reduction, as in PyTorch (MeanBackward0 on top).  The gradients, below,
are tensor expressions (PyTorch's formulas), so they can be differentiated again.

``reduction``: ``"mean"`` (default) divides the sum of the element losses by
their number, ``"sum"`` adds them, ``"none"`` keeps one loss per element.
"""

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from .arithmetic import div_scalar, mul_scalar
from .losses import _check_reduction
from .operands import promote, quietly, to_tensor
from .pointwise import clamp, sigmoid, where

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
           "huber_loss", "l1_loss"]


def _reduce(losses, reduction):
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else quietly(np.mean, losses)


def _finish(op, losses, inputs, params, reduction):
    array = np.asarray(_reduce(losses, reduction), dtype=losses.dtype, order="C")
    return record(op, array, inputs, {**params, "reduction": reduction})


def _warn_size(input, target, stacklevel=3):
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=stacklevel)


def _scaled(grad, value, weight, reduction, count):
    """``grad * value`` times the weight, divided by ``count`` for ``"mean"``."""
    out = grad * value
    if weight is not None:
        out = out * weight
    return div_scalar(out, count) if reduction == "mean" else out


# ---------------------------------------------------- binary cross-entropy

def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """``-weight * (target * log(input) + (1 - target) * log(1 - input))`` for
    probabilities ``input`` in [0, 1]; each log is clamped at -100 (as PyTorch)."""
    _check_reduction(reduction)
    input, target = to_tensor(input), to_tensor(target)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_dt.LEGACY_NAMES[target.dtype.name][:-6]} but expected "
                           f"{_dt.LEGACY_NAMES[input.dtype.name][:-6]}")
    x, y = input._data, target._data
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_x = np.maximum(quietly(np.log, x), -100)
    log_1mx = np.maximum(quietly(np.log, 1 - x), -100)
    losses = -(y * log_x + (1 - y) * log_1mx)
    if weight is not None:
        weight = to_tensor(weight)
        losses = losses * weight._data
    return _finish("binary_cross_entropy", losses.astype(x.dtype, copy=False), (input, target),
                   {"weight": weight}, reduction)


def binary_cross_entropy_backward(grad, self, target, weight, reduction):
    """``grad * (self - target) / max(self * (1 - self), 1e-12)``."""
    denominator = clamp((1 - self) * self, min=1e-12)
    return _scaled(grad, (self - target) / denominator, weight, reduction, self.numel())


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """``grad * (log(1 - self) - log(self))``, minus the logit of ``self``."""
    return _scaled(grad, (1 - self).log() - self.log(), weight, reduction, self.numel())


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)``, computed from the logits stably:
    ``(1 - target) * input + (1 + (pos_weight - 1) * target) * log(1 + exp(-input))``,
    times ``weight``.  ``pos_weight`` weighs the positive targets (one per class)."""
    _check_reduction(reduction)
    input, target = to_tensor(input), to_tensor(target)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    if _dt._category(input.dtype) > _dt._category(target.dtype):
        raise RuntimeError(f"result type {_dt.LEGACY_NAMES[input.dtype.name][:-6]} can't be cast to "
                           f"the desired output type {_dt.LEGACY_NAMES[target.dtype.name][:-6]}")
    x, y = input._data, target._data.astype(input._data.dtype)
    softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))      # log(1 + exp(-x))
    log_weight = 1.0 if pos_weight is None else (to_tensor(pos_weight)._data - 1) * y + 1
    losses = (1 - y) * x + log_weight * softplus_neg
    if weight is not None:
        losses = losses * to_tensor(weight)._data
    params = {"weight": None if weight is None else to_tensor(weight),
              "pos_weight": None if pos_weight is None else to_tensor(pos_weight)}
    return _finish("binary_cross_entropy_with_logits", losses.astype(x.dtype, copy=False),
                   (input, target), params, reduction)


def binary_cross_entropy_with_logits_backward(grad, self, target, weight, pos_weight, reduction):
    """``grad * ((pos_weight * target + 1 - target) * sigmoid(self) - pos_weight * target)``
    (``sigmoid(self) - target`` without ``pos_weight``)."""
    if pos_weight is None:
        value = sigmoid(self) - target
    else:
        t = pos_weight * target
        value = (t + 1 - target) * sigmoid(self) - t
    return _scaled(grad, value, weight, reduction, self.numel())


def binary_cross_entropy_with_logits_target_backward(grad, self, target, weight, pos_weight,
                                                     reduction):
    """``-grad * self`` (with ``pos_weight``: ``log_sigmoid(-self) - pos_weight * log_sigmoid(self)``)."""
    if pos_weight is None:
        value = -self
    else:
        value = sigmoid(-self).log() - pos_weight * sigmoid(self).log()
    return _scaled(grad, value, weight, reduction, self.numel())


# ------------------------------------------------------- smooth L1, Huber

def _difference(input, target):
    input, target = to_tensor(input), to_tensor(target)
    a, b, _ = promote(input, target)
    return a, b, quietly(np.subtract, a._data, b._data)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """``0.5 * z**2 / beta`` where ``|z| < beta``, else ``|z| - 0.5 * beta``, for
    ``z = input - target``; ``beta=0`` is ``l1_loss``."""
    _check_reduction(reduction)
    _warn_size(to_tensor(input), to_tensor(target))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return _l1(input, target, reduction)
    a, b, z = _difference(input, target)
    absz = np.abs(z)
    losses = np.where(absz < beta, 0.5 * z * z / beta, absz - 0.5 * beta).astype(z.dtype)
    return _finish("smooth_l1_loss", losses, (a, b), {"beta": beta}, reduction)


def smooth_l1_loss_backward(grad, self, target, beta, reduction):
    z = self - target
    value = where(z.abs() < beta, div_scalar(z, beta), z.sign())
    return _scaled(grad, value, None, reduction, math.prod(z.shape))


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 * z**2`` where ``|z| < delta``, else ``delta * (|z| - 0.5 * delta)``."""
    _check_reduction(reduction)
    _warn_size(to_tensor(input), to_tensor(target))
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    a, b, z = _difference(input, target)
    absz = np.abs(z)
    losses = np.where(absz < delta, 0.5 * z * z, delta * (absz - 0.5 * delta)).astype(z.dtype)
    return _finish("huber_loss", losses, (a, b), {"delta": delta}, reduction)


def huber_loss_backward(grad, self, target, delta, reduction):
    z = self - target
    value = where(z.abs() < delta, z, mul_scalar(z.sign(), delta))
    return _scaled(grad, value, None, reduction, math.prod(z.shape))


def _l1(input, target, reduction):
    losses = (to_tensor(input) - to_tensor(target)).abs()
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def l1_loss(input, target, reduction="mean"):
    """``|input - target|``, reduced (a composite, as in PyTorch: AbsBackward0 then
    MeanBackward0 or SumBackward0)."""
    _check_reduction(reduction)
    _warn_size(to_tensor(input), to_tensor(target))
    return _l1(input, target, reduction)
