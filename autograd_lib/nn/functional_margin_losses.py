"""The margin and embedding losses of ``nn.functional`` (re-exported by ``functional.py``).

``multi_margin_loss`` and ``multilabel_margin_loss`` are ops of their own
(``ops/margin_losses.py``, a node each, as in PyTorch); the others are built from
existing ops in PyTorch's order, so their graphs end in the same nodes
(``hinge_embedding_loss(reduction="none")`` in AddBackward0, ``triplet_margin_loss``
in ClampMinBackward0, ...):

* ``hinge_embedding_loss``: ``x`` where the target is 1, ``max(0, margin - x)`` where it is -1;
* ``cosine_embedding_loss``: ``1 - cos(x1, x2)`` for target 1, ``max(0, cos - margin)`` for -1;
* ``triplet_margin_loss`` (and ``_with_distance_loss``): ``max(0, margin + d(a, p) - d(a, n))``;
* ``multilabel_soft_margin_loss``: the binary cross-entropy of each class, averaged over classes.

The options ``size_average`` and ``reduce`` are PyTorch's deprecated spelling of ``reduction``.
"""

from .. import ops as _ops
from ..creation import zeros_like as _zeros_like
from ..ops import margin_losses as _M
from .functional_layers import pairwise_distance as _pairwise_distance
from .functional_losses import _reduce

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "multilabel_soft_margin_loss"]


def _reduction(size_average, reduce, reduction):
    """``reduction``, or what the deprecated pair says (either defaults to True)."""
    if size_average is None and reduce is None:
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """The multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j])**p / C`` per sample
    (each term times ``weight[y]``); ``p`` is 1 or 2 (MultiMarginLossBackward0)."""
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _M.multi_margin_loss(input, target, p, float(margin), weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss: ``target`` lists each sample's classes (ended by -1); every
    listed class should beat every other by 1 (MultilabelMarginLossBackward0)."""
    return _M.multilabel_margin_loss(input, target, _reduction(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``x`` where ``target`` is 1 (a distance to shrink), ``max(0, margin - x)`` where it is -1
    (a distance to grow past ``margin``); other target values count neither part."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _zeros_like(input)
    margin_clamp = _ops.rsub(input, margin).clamp_min_(0)
    output_margin = _ops.where(target != 1, margin_clamp, zeros)
    output_self = _ops.where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


_EPSILON = 1e-12        # added to the squared norms (PyTorch's constant)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` for pairs with target 1, ``max(0, cos(x1, x2) - margin)`` for target -1;
    a 1-D target goes with ``(N, D)`` inputs, a 0-D one with ``(D,)`` inputs."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = target.ndim
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = _ops.add_scalar((input1 * input1).sum(dim), _EPSILON)
    mag_square2 = _ops.add_scalar((input2 * input2).sum(dim), _EPSILON)
    cos = prod_sum / (mag_square1 * mag_square2).sqrt_()
    zeros = _zeros_like(cos)
    pos = _ops.rsub(cos, 1)
    neg = _ops.sub_scalar(cos, margin).clamp_min_(0)
    output = _ops.where(target == 1, pos, zeros) + _ops.where(target == -1, neg, zeros)
    return _reduce(output, reduction)


def _check_triplet(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not a == p == n:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number "
                           f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _ops.minimum(dist_neg, distance(positive, negative))
    return _reduce(_ops.clamp_min(_ops.add_scalar(dist_pos, margin) - dist_neg, 0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``p``-norm distance
    (``pairwise_distance``); ``swap``: ``d(a, n)`` is the smaller of it and ``d(p, n)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet(anchor, positive, negative)
    return _triplet(anchor, positive, negative, lambda x1, x2: _pairwise_distance(x1, x2, p, eps),
                    margin, swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """``triplet_margin_loss`` with any ``distance_function`` (default ``pairwise_distance``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet(anchor, positive, negative)
    return _triplet(anchor, positive, negative, distance_function or _pairwise_distance, margin, swap,
                    reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Each class's binary cross-entropy of ``sigmoid(input)`` against ``target`` in {0, 1}
    (times ``weight``), averaged over the classes (the last dim), then reduced."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * _ops.logsigmoid(input) + _ops.rsub(target, 1) * _ops.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    classes = input.ndim - 1
    loss = loss.sum(dim=classes) / input.shape[classes]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)
