"""Softmax and losses: ``softmax``, ``log_softmax``, ``nll_loss``, ``mse_loss``.

Computed stably (the max is subtracted before ``exp``).  As in PyTorch, the
gradients of these ops are ops of their own (``_softmax_backward_data``,
``_log_softmax_backward_data``, ``nll_loss_backward``, ``mse_loss_backward``),
written here next to their forward op and recorded when backward runs with
``create_graph=True``.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import _wrap_dim
from .operands import gradient_op, promote, quietly, to_tensor
from ..op_table import op

# log_softmax_backward_data is an exercise slot (05.log_softmax_backward): the library
# reaches it as losses.log_softmax_backward_data, so it is not re-exported by autograd_lib.ops.
__all__ = ["softmax", "log_softmax", "nll_loss", "mse_loss", "softmax_backward_data",
           "nll_loss_backward", "mse_loss_backward"]


def _check_softmax_dtype(name, input, dim):
    if not input.dtype.is_floating_point:
        kernel = f"{name}_lastdim_kernel_impl" if dim == max(input.ndim - 1, 0) else \
            f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-6]}'")


@op("softmax", public=True)
def softmax(input, dim, dtype=None):
    input = to_tensor(input) if dtype is None else to_tensor(input).to(dtype)
    d = _wrap_dim(dim, input.ndim)
    _check_softmax_dtype("softmax", input, d)
    shifted = input._data - np.max(input._data, axis=d, keepdims=True)
    e = quietly(np.exp, shifted)
    array = np.asarray(e / e.sum(axis=d, keepdims=True), order="C")     # contiguous, as PyTorch's
    return record("_softmax", array, (input,), {"dim": d})


@op("log_softmax", public=True)
def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)``, computed stably: the max is subtracted before exp."""
    input = to_tensor(input) if dtype is None else to_tensor(input).to(dtype)
    d = _wrap_dim(dim, input.ndim)
    _check_softmax_dtype("log_softmax", input, d)
    shifted = input._data - np.max(input._data, axis=d, keepdims=True)
    array = shifted - quietly(np.log, quietly(np.exp, shifted).sum(axis=d, keepdims=True))
    return record("_log_softmax", np.asarray(array, order="C"), (input,), {"dim": d})


def softmax_backward_data(grad_output, output, dim):
    """``(grad_output - sum(grad_output * output)) * output`` along ``dim``."""
    return gradient_op("_softmax_backward_data",
                       lambda g, y: (g - (g * y).sum(axis=dim, keepdims=True)) * y,
                        grad_output, output, {"dim": dim})


def log_softmax_backward_data(grad_output, output, dim):
    """``grad_output - exp(output) * sum(grad_output)`` along ``dim``.

    (Exercise 05.log_softmax_backward.)"""
    return gradient_op("_log_softmax_backward_data",
                       lambda g, y: g - np.exp(y) * g.sum(axis=dim, keepdims=True),
                        grad_output, output, {"dim": dim})


_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _type(dtype):
    return _dt.LEGACY_NAMES[dtype.name][:-len("Tensor")]


def check_nll_weight(input, weight, spatial):
    """PyTorch's checks of nll_loss's ``weight`` and ``input`` dtype, in its order; ``spatial``:
    the (N, C, d1, ...) form, whose kernel (nll_loss2d) words them differently."""
    classes = input.shape[0 if input.ndim == 1 else 1]
    if weight is not None and weight.numel() != classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes" if spatial else
                           f"weight tensor should be defined either for all {classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    if not input.dtype.is_floating_point:
        kernel = "nll_loss2d_forward_out_frame" if spatial else "nll_loss_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type(input.dtype)}\'')
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_type(input.dtype)} but found {_type(weight.dtype)}")


def check_nll_target(input, target):
    """The target's dtype, and its batch size against the input's (PyTorch's checks)."""
    if target.dtype is not _dt.int64:           # (autograd_lib has no uint8, "Byte")
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type(target.dtype)}")
    if input.ndim != 1 and target.ndim >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of ``target`` classes under log-probabilities ``input`` (N, C)."""
    _check_reduction(reduction)
    input, target = to_tensor(input), to_tensor(target)
    weight = None if weight is None else to_tensor(weight)
    check_nll_target(input, target)
    if input.ndim not in (1, 2):
        raise ValueError(f"Expected 1 or 2 dimensions (got {input.ndim})")
    if input.ndim == 1 and target.numel() != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.numel()}")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    check_nll_weight(input, weight, spatial=False)
    logp = input._data if input.ndim == 2 else input._data[None]
    tgt = target._data.reshape(-1)
    valid = tgt != ignore_index
    classes = logp.shape[1]
    if np.any((tgt[valid] < 0) | (tgt[valid] >= classes)):
        bad = tgt[valid][(tgt[valid] < 0) | (tgt[valid] >= classes)][0]
        raise IndexError(f"Target {bad} is out of bounds.")
    w = np.ones(classes, dtype=logp.dtype) if weight is None else weight._data.astype(logp.dtype)
    safe = np.where(valid, tgt, 0)
    per_sample_w = np.where(valid, w[safe], 0).astype(logp.dtype)
    losses = -logp[np.arange(len(tgt)), safe] * per_sample_w
    total_weight = per_sample_w.sum()
    if reduction == "none":
        array = losses if input.ndim == 2 else losses[0]
    elif reduction == "sum":
        array = losses.sum()
    else:
        array = quietly(np.divide, losses.sum(), total_weight)
    params = {"self_shape": input.shape, "target": target, "weight": w, "reduction": reduction,
              "ignore_index": ignore_index, "total_weight": total_weight}
    return record("nll_loss", np.asarray(array, dtype=logp.dtype), (input,), params)


def nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight):
    """The gradient of nll_loss: ``-weight[target]`` at each target position, scaled
    by ``grad`` (one recorded op, as PyTorch's: NllLossBackwardBackward0)."""
    self_shape = self.shape
    tgt = target._data.reshape(-1)
    valid = tgt != ignore_index
    safe = np.where(valid, tgt, 0)
    rows = np.arange(len(tgt))
    scale = np.where(valid, -weight[safe], 0).astype(weight.dtype)
    if reduction == "mean":
        scale = quietly(np.divide, scale, total_weight).astype(weight.dtype)
    coeff = np.zeros((len(tgt), self_shape[-1]), dtype=weight.dtype)
    coeff[rows, safe] = scale
    coeff = coeff.reshape(self_shape)
    g = grad._data[:, None] if reduction == "none" and len(self_shape) == 2 else grad._data
    return record("nll_loss_backward", (coeff * g).astype(grad._data.dtype, copy=False),
                  (grad, self),
                   {"target": target, "weight": weight, "reduction": reduction,
                    "ignore_index": ignore_index})


def mse_loss(input, target, reduction="mean"):
    _check_reduction(reduction)
    a, b, _ = promote(input, target)
    diff = (a._data - b._data) ** 2
    array = diff if reduction == "none" else (diff.sum() if reduction == "sum" else diff.mean())
    return record("mse_loss", np.asarray(array, dtype=diff.dtype), (a, b), {"reduction": reduction})


def mse_loss_backward(grad, self, target, reduction):
    """``2 * (self - target) * grad`` (divided by the count for "mean"), as one
    recorded op like PyTorch's (MseLossBackwardBackward0)."""
    count = math.prod(np.broadcast_shapes(self.shape, target.shape))
    scale = 2.0 / count if reduction == "mean" else 2.0
    array = quietly(lambda g, s, t: scale * (s - t) * g, grad._data, self._data, target._data)
    return record("mse_loss_backward", array.astype(self._data.dtype, copy=False),
                  (grad, self, target),
                   {"reduction": reduction, "count": count})
