"""``cdist``: the ``p``-norm distance between every row of ``x1`` and every row of ``x2``.

``cdist(x1, x2, p)`` of ``x1`` (``... x P x M``) and ``x2`` (``... x R x M``), their batch
dims broadcast, is ``... x P x R``.  PyTorch computes it in one of two ways, and records
each as its own graph:

* directly, one CdistBackward0 node; its gradient is the op ``_cdist_backward``
  (CdistBackwardBackward0), which PyTorch does not differentiate again;
* for ``p=2``, when ``compute_mode`` asks for it (or, by default, when ``P`` or ``R`` is over
  25), with a matrix product: ``|a - b|^2 = |a|^2 - 2 a.b + |b|^2``, the op
  ``_euclidean_dist`` (EuclideanDistBackward0), whose gradient is written with ops, between
  the views that bring the inputs to one batch dim (expand, contiguous, view) and back.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..broadcasting import broadcast_shape
from ..recording import record
from ..tensor import Tensor
from .copies import contiguous
from .linalg import matmul
from .norms import vector_norm
from .operands import promote, quietly, to_tensor
from .pointwise import masked_fill
from .shape import expand, transpose_matrices, view
from ..op_table import op

__all__ = ["cdist", "cdist_backward", "euclidean_dist_backward"]

_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": True,
          "donot_use_mm_for_euclid_dist": False}


def _check(x1, x2, p):
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_dt.LEGACY_NAMES[x.dtype.name][:-6]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = broadcast_shape(x1.shape[:-2], x2.shape[:-2])
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {_dt.LEGACY_NAMES[x1.dtype.name][:-6]} but found "
                           f"{_dt.LEGACY_NAMES[x2.dtype.name][:-6]}")
    return batch


@op(public=True)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The distances ``||x1[..., i, :] - x2[..., j, :]||_p`` as a ``... x P x R`` tensor."""
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    batch = _check(x1, x2, p)
    use_mm = _MODES[compute_mode]
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    if p == 2 and (use_mm or (use_mm is None and (rows1 > 25 or rows2 > 25))):
        return _euclidean(x1, x2, batch)
    differences = _differences(x1, x2)
    return record("_cdist_forward", _norms(differences, p).astype(x1._data.dtype), (x1, x2), {"p": p})


def _differences(x1, x2):
    """``x1[..., i, :] - x2[..., j, :]`` for every ``i, j``: ``... x P x R x M``."""
    return x1._data[..., :, None, :] - x2._data[..., None, :, :]


def _norms(differences, p):
    a = np.abs(differences)
    if p == 0:
        return np.count_nonzero(a, axis=-1).astype(a.dtype)
    if p == math.inf:
        return a.max(axis=-1, initial=0)
    if p == 1:
        return a.sum(axis=-1)
    if p == 2:
        return np.sqrt((a * a).sum(axis=-1))
    return quietly(lambda: (a ** p).sum(axis=-1) ** (1.0 / p))


def cdist_backward(grad, x1, x2, p, dist):
    """The gradient of ``cdist`` for ``x1`` (for ``x2``: swap them, transpose ``grad`` and
    ``dist``), as the op PyTorch computes it with, ``_cdist_backward``: each difference's
    share of its distance's gradient, summed over the other tensor's rows."""
    d = _differences(x1, x2)
    g, r = grad._data[..., None], dist._data[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            share = np.zeros_like(d)
        elif p == 1:
            share = g * np.sign(d)
        elif p == 2:
            share = np.where(r == 0, 0, g * d / r)
        elif p == math.inf:
            share = g * np.sign(d) * (np.abs(d) == r)
        elif p < 1:
            share = np.where((r == 0) | (d == 0), 0, np.sign(d) * np.abs(d) ** (p - 1) * g / r ** (p - 1))
        elif p < 2:
            share = np.where(r == 0, 0, np.sign(d) * np.abs(d) ** (p - 1) * g / r ** (p - 1))
        else:
            share = np.where(r == 0, 0, d * np.abs(d) ** (p - 2) * g / r ** (p - 1))
    array = share.sum(axis=-2).astype(grad._data.dtype)
    return record("_cdist_backward", array, (grad, x1, x2, dist), {"p": p})


# ------------------------------------------------------------ through a matrix product

def _euclidean(x1, x2, batch):
    """``cdist`` for ``p=2`` with a matrix product, recorded as PyTorch records it."""
    rows1, rows2, columns = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if x1.ndim == 2 and x2.ndim == 2:
        return view(_euclidean_dist(x1, x2), (rows1, rows2))
    n = math.prod(batch)
    x1 = view(contiguous(expand(x1, batch + (rows1, columns))), (n, rows1, columns))
    x2 = view(contiguous(expand(x2, batch + (rows2, columns))), (n, rows2, columns))
    return view(_euclidean_dist(x1, x2), batch + (rows1, rows2))


def _euclidean_dist(x1, x2):
    """PyTorch's ``_euclidean_dist``: ``sqrt(max(|a|^2 - 2 a.b + |b|^2, 0))``, one product of
    ``[-2a, |a|^2, 1]`` with ``[b, 1, |b|^2]``."""
    a, b = x1._data, x2._data
    a_norm, b_norm = (a * a).sum(-1, keepdims=True), (b * b).sum(-1, keepdims=True)
    left = np.concatenate([-2 * a, a_norm, np.ones_like(a_norm)], axis=-1)
    right = np.concatenate([b, np.ones_like(b_norm), b_norm], axis=-1)
    squares = np.maximum(left @ np.swapaxes(right, -1, -2), 0)
    return record("_euclidean_dist", np.sqrt(squares).astype(a.dtype), (x1, x2))


def euclidean_dist_backward(grad, x1, x2, result, which):
    """The gradient of ``_euclidean_dist`` for ``x1`` (``which=0``) or ``x2`` (``which=1``)."""
    ratio = masked_fill(grad / result, result == 0, 0)
    if which == 0:
        return x1 * ratio.sum(-1, keepdim=True) - matmul(ratio, x2)
    return x2 * ratio.sum(-2).unsqueeze(-1) - matmul(transpose_matrices(ratio), x1)


@op("dist", public=True)
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (DistBackward0)."""
    input, other = to_tensor(input), to_tensor(other)
    input, other, dtype = promote(input, other)
    if not dtype.is_floating_point:
        raise RuntimeError("norm(): input dtype should be either floating point or complex. Got "
                           f"{_dt.LEGACY_NAMES[dtype.name][:-6]} instead.")
    diff = Tensor._make(quietly(np.subtract, input._data, other._data))
    array = vector_norm(diff, p)._data
    return record("dist", array, (input, other), {"p": p})


__all__ += ["dist"]
