"""``nn.functional``: the computations behind the layers, as plain functions.

The layers in ``nn`` hold parameters and settings; what they compute is here.
``nn.Linear(4, 8)(x)`` is ``F.linear(x, weight, bias)`` and
``nn.CrossEntropyLoss()(logits, y)`` is ``F.cross_entropy(logits, y)``.
Most functions are the library's own operations (``ops/``), re-exported;
the others are built from them and record the same backward nodes as PyTorch.
"""

import warnings

from ..dtypes import LEGACY_NAMES
from ..ops import addmm, nll_loss, relu_, sigmoid, tanh
from ..ops import relu as _relu
from ..ops.elementwise_losses import (binary_cross_entropy, binary_cross_entropy_with_logits,
                                      huber_loss, l1_loss, smooth_l1_loss)
from ..ops import log_softmax as _log_softmax
from ..ops import mse_loss as _mse_loss
from ..ops import softmax as _softmax

__all__ = ["linear", "relu", "relu_", "tanh", "sigmoid", "softmax", "log_softmax", "mse_loss",
           "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "smooth_l1_loss", "huber_loss", "l1_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: the affine map of ``nn.Linear``.

    ``input`` is ``(*, in_features)``, ``weight`` ``(out_features, in_features)``,
    ``bias`` ``(out_features)``.  The graph is PyTorch's (``at::linear``):

    * 2-D input with a bias: one fused ``addmm(bias, input, weight.t())``
      (``AddmmBackward0``; its inputs: the bias, the input, ``TBackward0``);
    * other contiguous inputs with a bias (1-D, 3-D, ...): the input reshaped
      to a matrix, the same ``addmm``, and a ``view`` of the result back to
      ``(*, out_features)`` (``ViewBackward0`` on top);
    * otherwise: ``matmul(input, weight.t())``, then ``+ bias`` (``AddBackward0``).
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if bias is not None:
        if input.ndim == 2:
            return addmm(bias, input, weight.t())
        if input.is_contiguous() and (input.ndim == 3 or bias.ndim == 1):
            rows = 1
            for size in input.shape[:-1]:        # not reshape(-1, n): a size may be 0
                rows *= size
            output = addmm(bias, input.reshape(rows, input.shape[-1]), weight.t())
            return output.view(*input.shape[:-1], output.shape[1])
    output = input.matmul(weight.t())
    return output if bias is None else output + bias


def relu(input, inplace=False):
    """``max(x, 0)``; ``inplace=True`` writes it into ``input`` (``relu_``)."""
    return relu_(input) if inplace else _relu(input)


def _implicit_dim(name, ndim):
    """PyTorch's legacy choice of dim when ``softmax``/``log_softmax`` get none."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, *, dtype=None):
    """``exp(x) / exp(x).sum(dim)``: turns scores into probabilities along ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None):
    """``log(softmax(x, dim))``, computed stably (never takes the log of a 0)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    return _log_softmax(input, dim, dtype=dtype)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error ``((input - target) ** 2).mean()``.

    Warns, like PyTorch, when the shapes differ: ``(N, 1)`` predictions
    against ``(N,)`` targets broadcast to ``(N, N)``, a classic silent bug.
    """
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=2)
    return _mse_loss(input, target, reduction=reduction)


def _check_label_smoothing(label_smoothing):
    if label_smoothing != 0.0:
        raise NotImplementedError(
            f"label_smoothing={label_smoothing} is not implemented in autograd_lib: only "
            "label_smoothing=0.0 is supported")


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between ``input`` logits ``(N, C)`` (or ``(C,)``) and ``target``.

    * ``target`` holds class indices ``(N,)``: ``nll_loss(log_softmax(input, 1), target)``
      (the graph: ``NllLossBackward0`` then ``LogSoftmaxBackward0``);
    * ``target`` holds class probabilities, same shape as ``input``:
      ``-(log_softmax(input, 1) * target).sum()`` divided by ``N`` for ``"mean"``.

    ``weight`` rescales each class; ``ignore_index`` (class indices only) marks
    targets that contribute nothing.
    """
    _check_label_smoothing(label_smoothing)
    class_dim = 0 if input.ndim == 1 else 1
    log_probs = _log_softmax(input, class_dim)
    if target.shape != input.shape:
        return nll_loss(log_probs, target, weight=weight, ignore_index=ignore_index,
                        reduction=reduction)
    # Class probabilities.
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not target.is_floating_point():
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {LEGACY_NAMES[target.dtype.name][:-len('Tensor')]}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    terms = log_probs * target
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = input.shape[class_dim]
        terms = terms * weight.view(shape)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    return -terms.sum() / (input.numel() // input.shape[class_dim])
