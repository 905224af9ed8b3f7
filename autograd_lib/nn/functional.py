"""``nn.functional``: the computations behind the layers, as plain functions.

The layers in ``nn`` hold parameters and settings; what they compute is here.
``nn.Linear(4, 8)(x)`` is ``F.linear(x, weight, bias)`` and
``nn.CrossEntropyLoss()(logits, y)`` is ``F.cross_entropy(logits, y)``.
Most functions are the library's own operations (``ops/``), re-exported;
the others are built from them and record the same backward nodes as PyTorch.
"""

import warnings

from ..dtypes import C_TYPE_NAMES, LEGACY_NAMES
from ..ops import addmm, relu_, sigmoid, tanh
from ..ops import nll_loss as _nll_loss
from ..ops.losses import check_nll_target, check_nll_weight
from ..ops import relu as _relu
from ..creation import rand_like as _rand_like
from ..ops import activations as _activations
from ..ops.arithmetic import mul_scalar
from ..ops.fold import col2im as _col2im
from ..ops.fold import im2col as _im2col
from ..ops.nn_layers import trilinear as _trilinear
from ..ops.elementwise_losses import (binary_cross_entropy, binary_cross_entropy_with_logits,
                                      huber_loss, l1_loss, smooth_l1_loss)
from ..ops import log_softmax as _log_softmax
from ..ops import mse_loss as _mse_loss
from ..ops import softmax as _softmax
from . import functional_activations as _more_activations
from .functional_activations import *   # noqa: F401,F403  (relu6, hardtanh, selu, ..., glu)
from . import functional_layers as _layers
from .functional_layers import *        # noqa: F401,F403  (one_hot, embedding, normalize, ..., pad)
from . import functional_losses as _losses_more
from .functional_losses import *  # noqa: F401,F403  (rms_norm, margin_ranking_loss, ...)
from . import functional_margin_losses as _margin_losses
from .functional_margin_losses import *  # noqa: F401,F403  (multi_margin_loss, triplet_margin_loss, ...)
from . import functional_conv as _conv
from .functional_conv import *    # noqa: F401,F403  (conv2d, max_pool2d, avg_pool2d, ...)
from ..op_table import op

__all__ = ["linear", "relu", "relu_", "tanh", "sigmoid", "softmax", "log_softmax", "mse_loss",
           "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "smooth_l1_loss", "huber_loss", "l1_loss", "leaky_relu", "elu", "gelu", "silu", "softplus",
           "dropout", "bilinear", "unfold", "fold", *_more_activations.__all__, *_layers.__all__, *_losses_more.__all__, *_conv.__all__,
           *_margin_losses.__all__]

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


@op(public=True)
def bilinear(input1, input2, weight, bias=None):
    """``out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``.

    ``input1`` is ``(*, in1)``, ``input2`` ``(*, in2)`` with the same leading dims,
    ``weight`` ``(out, in1, in2)``.  The graph is PyTorch's: both inputs reshaped to
    matrices (ViewBackward0), the product (TrilinearBackward0), its view back to
    ``(*, out)``, then ``+ bias`` (AddBackward0).
    """
    operands = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        operands.append(("bias", bias))
    if any(t.dtype is not input1.dtype for _, t in operands):
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {C_TYPE_NAMES[t.dtype.name]}" for name, t in operands))
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    for name, t, dim in (("input1", input1, 1), ("input2", input2, 2)):
        if t.shape[-1] != weight.size(dim):
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got "
                               f"{t.shape[-1]} but expected {weight.size(dim)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(0)} "
                           f"but expected {weight.size(0)}")
    product = _trilinear(input1.reshape(-1, input1.shape[-1]), weight,
                         input2.reshape(-1, input2.shape[-1]))
    output = product.view(*input1.shape[:-1], weight.shape[0])
    return output if bias is None else output + bias


def _pair(value):
    """An int as ``(value, value)``; a sequence as a tuple (PyTorch's ``_pair``)."""
    return (value, value) if isinstance(value, int) else tuple(value)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every ``kernel_size`` block of the image ``input`` ``(N, C, H, W)`` (or ``(C, H, W)``)
    that a sliding window sees, as a column: ``(N, C * kh * kw, L)`` (Im2ColBackward0)."""
    return _im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The columns ``(N, C * kh * kw, L)`` added back into an image ``(N, C, *output_size)``,
    overlapping blocks summed: the adjoint of :func:`unfold` (Col2ImBackward0)."""
    return _col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                   _pair(stride))


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


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of the ``target`` classes under log-probabilities ``input``.

    ``input`` is ``(N, C)`` or ``(C,)``, or ``(N, C, d1, ..., dk)`` with a target
    ``(N, d1, ..., dk)`` (one class per pixel, say): those are flattened to
    ``(N * d1 * ... * dk, C)`` rows, and ``"none"`` gives back the target's shape.
    """
    if input.ndim <= 2:
        return _nll_loss(input, target, weight=weight, ignore_index=ignore_index,
                         reduction=reduction)
    check_nll_target(input, target)
    expected = [input.shape[0], *input.shape[2:]]
    if input.ndim == 4 and target.ndim != 3:        # PyTorch's nll_loss2d words these two
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                           f"dimension: {target.ndim}")
    if input.ndim == 4 and list(target.shape) != expected:
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    if list(target.shape) != expected:
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
    check_nll_weight(input, weight, spatial=True)
    rows = input.permute(0, *range(2, input.ndim), 1).reshape(-1, input.shape[1])
    loss = _nll_loss(rows, target.reshape(-1), weight=weight, ignore_index=ignore_index,
                     reduction=reduction)
    return loss.view(target.shape) if reduction == "none" else loss


def _check_label_smoothing(label_smoothing):
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def _class_view(weight, input, class_dim):
    """``weight`` (one per class) shaped to broadcast against ``input`` along ``class_dim``."""
    shape = [1] * input.ndim
    shape[class_dim] = input.shape[class_dim]
    return weight.view(shape)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between ``input`` logits ``(N, C)`` (or ``(C,)``, or ``(N, C, d1, ...)``)
    and ``target``.

    * ``target`` holds class indices ``(N,)``: ``nll_loss(log_softmax(input, 1), target)``
      (the graph: ``NllLossBackward0`` then ``LogSoftmaxBackward0``);
    * ``target`` holds class probabilities, same shape as ``input``:
      ``-(log_softmax(input, 1) * target).sum()`` divided by ``N`` for ``"mean"``.

    ``weight`` rescales each class; ``ignore_index`` (class indices only) marks
    targets that contribute nothing.  ``label_smoothing`` ``e`` mixes the target
    with the uniform distribution: ``(1 - e) * target + e / C``.
    """
    _check_label_smoothing(label_smoothing)
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    log_probs = _log_softmax(input, class_dim)
    if target.shape != input.shape:
        loss = nll_loss(log_probs, target, weight=weight, ignore_index=ignore_index,
                        reduction=reduction)
        if label_smoothing == 0.0:
            return loss
        # The uniform part: -sum over classes of the log-probabilities, 0 where ignored,
        # averaged (for "mean") over the same (weighted) count as the nll part.
        terms = log_probs if weight is None else log_probs * _class_view(weight, input, class_dim)
        ignored = target == ignore_index
        smooth = (-terms.sum(class_dim)).masked_fill(ignored, 0.0)
        if reduction == "sum":
            smooth = smooth.sum()
        elif reduction == "mean":
            count = (~ignored).sum() if weight is None else weight[target[~ignored]].sum()
            smooth = smooth.sum() / count
        # multiplied by plain numbers as PyTorch's formula does (mul.Scalar: MulBackward1)
        return mul_scalar(loss, 1 - label_smoothing) + mul_scalar(smooth, label_smoothing / classes)
    # Class probabilities.
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not target.is_floating_point():
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {LEGACY_NAMES[target.dtype.name][:-len('Tensor')]}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {classes} classes "
                           f"or no classes but got weight tensor of shape: {list(weight.shape)}")
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = log_probs * target
    if weight is not None:
        terms = terms * _class_view(weight, input, class_dim)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    return -terms.sum() / (input.numel() // classes)


# ------------------------------------------------- more activations (ops/activations.py)

def _not_in_place(name, inplace):
    if inplace:
        raise NotImplementedError(f"{name}(..., inplace=True) is not implemented in autograd_lib: "
                                  f"use inplace=False (the same values, a new tensor)")


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input`` (LeakyReluBackward0)."""
    _not_in_place("leaky_relu", inplace)
    return _activations.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)`` (EluBackward0)."""
    _not_in_place("elu", inplace)
    return _activations.elu(input, alpha)


def gelu(input, approximate="none"):
    """``input * Phi(input)``; ``approximate="tanh"``: its tanh form (GeluBackward0)."""
    return _activations.gelu(input, approximate)


def silu(input, inplace=False):
    """``input * sigmoid(input)`` (SiluBackward0)."""
    _not_in_place("silu", inplace)
    return _activations.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, ``input`` where ``beta * input > threshold``."""
    return _activations.softplus(input, beta, threshold)


def _check_dropout(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, each element zeroed with probability ``p``, the others scaled by
    ``1 / (1 - p)`` (so the expected value is unchanged); otherwise, or for ``p=0``,
    ``input`` itself.  The graph is PyTorch's on a CPU: ``input * noise``
    (MulBackward0, the noise a constant).  Its random numbers are autograd_lib's,
    seeded by ``manual_seed``, not PyTorch's."""
    _check_dropout(p)
    if not training or p == 0 or input.numel() == 0:
        return input
    noise = (_rand_like(input) >= p).to(input.dtype)
    if p < 1:
        noise = noise / (1 - p)
    return input.mul_(noise) if inplace else input * noise
