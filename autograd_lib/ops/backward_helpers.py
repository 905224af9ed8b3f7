"""The longer helpers that gradient formulas call (PyTorch's ``FunctionsManual``).

``derivatives/`` keeps each formula to one line; when a gradient takes more
than that, the formula calls a helper here.  They are written with tensor
operations (or with ops of ``ops/`` that record themselves), so with
``create_graph=True`` the gradient they compute is recorded and can be
differentiated again.  Grouped by the op family whose backward they serve.
"""

import math

import numpy as np

from ..creation import zeros
from ..tensor import Tensor
from .arithmetic import div_scalar, mul_scalar
from .comparison import isnan
from .indexing import embed_in_zeros
from .pointwise import masked_fill
from .shape import stack

__all__ = ["log_of_number", "clamp_mask", "clamp_bounds_mask", "restore_reduced_dims",
           "evenly_distribute", "share_among_ties", "scatter_into_zeros", "inverse_permutation",
           "derivative_not_implemented", "unsqueeze_dims", "unbind_backward", "index_fill_zero",
           "mm_mat1_backward",
           "mm_mat2_backward", "mse_double_backward"]


# ------------------------------------------------------ arithmetic, pointwise

def derivative_not_implemented(op):
    """The backward of an op PyTorch does not differentiate (``floor_divide``)."""
    raise RuntimeError(f"derivative for aten::{op} is not implemented")


def log_of_number(x):
    """log of a Python number, nan for negatives and -inf for 0 (no exception)."""
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan


def clamp_mask(self, min, max):
    """Where clamp let the value through (its gradient is 1 there, 0 elsewhere)."""
    mask = np.ones(self.shape, dtype=bool)
    if min is not None:
        mask &= self._data >= min
    if max is not None:
        mask &= self._data <= max
    return Tensor._make(mask)


def clamp_bounds_mask(self, min, max):
    """Where ``clamp(self, min, max)`` (tensor bounds) let ``self`` through."""
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        mask = self <= max if mask is None else mask & (self <= max)
    return mask


# -------------------------------------------------------------- reductions

def restore_reduced_dims(grad, dims, keepdim):
    """Put back the dims a reduction removed, as size-1 dims, so ``grad`` broadcasts."""
    if keepdim:
        return grad
    for d in dims:                      # dims are sorted ascending
        grad = grad.unsqueeze(d)
    return grad


def evenly_distribute(grad, self, result):
    """max()/min() backward: share ``grad`` equally among the positions holding the
    result (PyTorch's evenly_distribute_backward; a nan result: among the nans)."""
    mask = isnan(self) if np.isnan(result._data) else self == result
    count = Tensor._make(np.asarray(mask._data.sum()))
    return masked_fill(zeros(self.shape, dtype=grad.dtype), mask, grad / count)


def share_among_ties(grad, self, result, dims, keepdim):
    """amax/amin backward: each tied extreme gets an equal share of its gradient.

    (Exercise 05.amax_backward.)"""
    result = _reshape_reduced(result, dims, keepdim)
    mask = self == result
    count = Tensor._make(mask._data.sum(axis=dims, keepdims=True).astype(grad._data.dtype))
    return _reshape_reduced(grad, dims, keepdim) / count * mask


def _reshape_reduced(t, dims, keepdim):
    """Like restore_reduced_dims, with one reshape (as PyTorch's amax/amin backward)."""
    if keepdim:
        return t
    shape = list(t.shape)
    for d in dims:
        shape.insert(d, 1)
    return t.reshape(shape)


def scatter_into_zeros(grad, self_shape, dim, keepdim, indices):
    """max(dim)/min(dim) backward: the gradient goes to the chosen index only."""
    if not keepdim and len(self_shape):
        grad = grad.unsqueeze(dim)
        indices = Tensor._make(np.expand_dims(indices._data, dim))
    if not len(self_shape):
        return grad
    grid = list(np.indices(indices.shape, sparse=True))
    grid[dim] = indices._data
    return embed_in_zeros(grad, self_shape, tuple(grid), accumulate=False, op="scatter.src")


# ---------------------------------------------------------- shape, indexing

def inverse_permutation(dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return tuple(inverse)


def unsqueeze_dims(grad, dims):
    """Squeeze's backward: put the squeezed dims back, lowest first (as PyTorch)."""
    for d in sorted(dims):
        grad = grad.unsqueeze(d)
    return grad


def unbind_backward(grads, self_shape, dim):
    """Stack the slices' gradients back, zeros for a slice that got none."""
    if not isinstance(grads, (list, tuple)):
        grads = [grads]
    like = next(g for g in grads if g is not None)
    shape = tuple(s for i, s in enumerate(self_shape) if i != dim)
    return stack([zeros(shape, dtype=like.dtype) if g is None else g for g in grads], dim)


def index_fill_zero(grad, key):
    """``grad`` with the positions ``key`` set to zero (they were overwritten)."""
    mask = np.ones(grad.shape, dtype=grad._data.dtype)
    mask[key] = 0
    return grad * Tensor._make(mask)


# ------------------------------------------------------- matrices, losses

def mm_mat1_backward(grad, mat2, mat1_col_major, alpha=1):
    """The gradient of ``mat1 @ mat2`` for ``mat1`` (PyTorch's mm_mat1_backward)."""
    out = mat2.mm(grad.t()).t() if mat1_col_major else grad.mm(mat2.t())
    return out if alpha == 1 else mul_scalar(out, alpha)


def mm_mat2_backward(grad, mat1, mat2_col_major, alpha=1):
    """The gradient of ``mat1 @ mat2`` for ``mat2`` (PyTorch's mm_mat2_backward)."""
    out = grad.t().mm(mat1).t() if mat2_col_major else mat1.t().mm(grad)
    return out if alpha == 1 else mul_scalar(out, alpha)


def mse_double_backward(grad, reduction, count):
    """The gradient of mse_loss_backward for ``self``: ``2 * grad`` (over count for "mean")."""
    out = mul_scalar(grad, 2)
    return div_scalar(out, count) if reduction == "mean" else out
