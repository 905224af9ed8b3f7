"""Yet more of ``nn.functional`` (re-exported by ``functional.py``): ``rms_norm``, the
channel dropouts, and losses built from existing ops as PyTorch builds them
(``margin_ranking_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``), plus
``soft_margin_loss`` (SoftMarginLossBackward0, a node of its own)."""

import math
import warnings

import numpy as np

from .. import ops as _ops
from ..creation import rand as _rand
from ..creation import full_like as _full_like
from ..grad_mode import no_grad as _no_grad
from ..op_table import op

__all__ = ["rms_norm", "margin_ranking_loss", "soft_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "dropout1d", "dropout2d"]

_REDUCTIONS = ("none", "mean", "sum")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


@op(public=True)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the last dims ``normalized_shape``
    (``eps`` defaults to the dtype's machine epsilon)."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    if tuple(input.shape[input.ndim - len(normalized_shape):]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
                           f"{list(input.shape)}")
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    out = input * _ops.rsqrt(_ops.add_scalar(input.pow(2).mean(dims, keepdim=True), eps))
    return out if weight is None else out * weight


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` 1 wants input1 ranked higher."""
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but "
                           f"got sizes: input1: {input1.shape}, input2: {input2.shape}, target: "
                           f"{target.shape} ".replace("autograd_lib.Size", "torch.Size"))
    loss = _ops.add_scalar(-target * (input1 - input2), margin).clamp_min(0)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, ``target`` in {-1, 1} (SoftMarginLossBackward0)."""
    return _ops.soft_margin_loss(input, target, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target`` counts under Poisson rates ``exp(input)``
    (``log_input``) or ``input``; ``full`` adds Stirling's term."""
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = _ops.exp(input) - target * input
    else:
        loss = input - target * _ops.log(_ops.add_scalar(input, eps))
    if full:
        stirling = target * _ops.log(target) - target + _ops.log(target * (2 * math.pi)) * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 * (log(var) + (input - target)**2 / var)`` (+ ``0.5 log(2 pi)`` with ``full``),
    ``var`` clamped to at least ``eps`` (without recording it, as PyTorch)."""
    if isinstance(var, (int, float)):
        var = _full_like(input, var)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    if (var < 0).any():
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = (_ops.log(var) + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _channel_dropout(name, input, p, training, inplace, batched_ndim):
    """Zero whole channels: one draw per (sample, channel) of a batched input, per channel
    otherwise."""
    _check_p(p)
    if not training or p == 0:
        return input
    batched = input.ndim == batched_ndim
    shape = tuple(input.shape[:2]) if batched else tuple(input.shape[:1])
    keep = (_rand(shape) >= p).to(input.dtype)
    if p < 1:
        keep = keep / (1 - p)
    keep = keep.view(*shape, *[1] * (input.ndim - len(shape)))
    return input.mul_(keep) if inplace else input * keep


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels zeroed (``(N, C, L)`` or ``(C, L)``), the others scaled by ``1/(1-p)``."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                           "spatial dimension, a channel dimension, and an optional batch dimension "
                           "(i.e. 2D or 3D inputs).")
    return _channel_dropout("dropout1d", input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Whole channels zeroed (``(N, C, H, W)`` or ``(C, H, W)``), the others scaled.  A 3-D
    input is read as ``(N, C, L)`` (with PyTorch's warning)."""
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior and "
                      "silence this warning, please use dropout instead. Note that dropout2d exists to "
                      "provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
                      "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
                      "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                      "is the channel dim. This behavior will change in a future release to interpret "
                      "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
                      "the 1D channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.", stacklevel=2)
        return _channel_dropout("dropout2d", input, p, training, inplace, 3)
    return _channel_dropout("dropout2d", input, p, training, inplace, 4)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Each channel (dim 1) normalized over the batch (and the other dims), then
    ``* weight + bias``: with the batch's statistics in training (updating the running
    ones in place), with ``running_mean``/``running_var`` otherwise (NativeBatchNormBackward0)."""
    if training:
        n = input.numel() // input.shape[1] if input.ndim > 1 else input.numel()
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape!r}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    channels = input.shape[1] if input.ndim > 1 else 0          # as PyTorch counts them
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    return _ops.native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                  momentum, eps)


__all__ += ["batch_norm"]


@op(public=True)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """The channels in ``num_groups`` groups, each sample's group normalized, then
    ``* weight + bias`` per channel (NativeGroupNormBackward0)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    return _ops.native_group_norm(input, weight, bias, num_groups, eps)


__all__ += ["group_norm"]
