"""The gradient rules of the structure, product and repeat ops (``ops/structure.py``,
``ops/products.py``): this module continues ``derivatives.py``'s table for that family,
with the same :func:`~autograd_lib.derivatives.rule` and the same conventions (one
formula per input, written with tensor ops so that double backward works).

Ops that only move elements move ``grad`` back: a flip flips it again, a roll
rolls it back, ``rot90`` turns it back, a triangle keeps the same triangle, a
diagonal is written back into zeros (and ``diag_embed``'s gradient is read off the
diagonal).  The products' rules are those of ``mm``/``bmm`` with the scales
``alpha`` and ``beta``; ``prod``'s is the product of the other factors.
"""

from . import ops as F
from .creation import zeros_like
from .ops import norms
from .ops import products as P
from .ops import reductions_more as R
from .ops import backward_helpers as H
from .ops import structure as S


def _not_differentiable(op):
    raise NotImplementedError(f"the derivative for '{op}' is not implemented.")


def _dist_backward(grad, self, other, result, p):
    difference = self - other
    return norms.vector_norm_backward(grad, difference, result, p, tuple(range(difference.ndim)), False)


def _scaled(grad, factor):
    """``factor * grad``, recorded as PyTorch does it (mul.Scalar), or ``grad`` for 1."""
    return grad if factor == 1 else F.mul_scalar(grad, factor)


def declare(rule):
    """Add this family's rules to the table with ``rule`` (derivatives.py calls it at its end)."""
    # ------------------------------------------------------ moving elements
    rule("flip", "FlipBackward0", self=("dims", lambda grad, dims: grad.flip(dims)))
    rule("roll", "RollBackward0", self=("shifts dims", lambda grad, shifts, dims: grad.roll(
        tuple(-s for s in shifts), dims or None)))
    rule("rot90", "Rot90Backward0", self=("k dims", lambda grad, k, dims: grad.rot90(-k, dims)))
    rule("tril", "TrilBackward0", self=("diagonal", lambda grad, diagonal: grad.tril(diagonal)))
    rule("triu", "TriuBackward0", self=("diagonal", lambda grad, diagonal: grad.triu(diagonal)))
    for _op, _node in (("diagonal", "DiagonalBackward0"), ("diagonal_copy", "DiagonalBackward0_copy")):
        rule(_op, _node, self=("self_shape offset dim1 dim2", lambda grad, self_shape, offset, dim1, dim2:
                               S.diagonal_backward(grad, self_shape, offset, dim1, dim2)))
    rule("diagonal_backward", "DiagonalBackwardBackward0",
         grad_output=("offset dim1 dim2", lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2)))
    rule("diag_embed", "DiagEmbedBackward0",
         self=("offset dim1 dim2", lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2)))
    rule("trace", "TraceBackward0", self=("self_shape", lambda grad, self_shape: S.diagonal_backward(
        grad.expand(min(self_shape)), self_shape, 0, 0, 1)))

    # ------------------------------------------------------------- products
    rule("prod", "ProdBackward0", self=("self", lambda grad, self: P.prod_backward(grad, self, None, False)))
    rule("prod.dim_int", "ProdBackward1",
         self=("self dim keepdim", lambda grad, self, dim, keepdim: P.prod_backward(grad, self, dim, keepdim)))
    rule("cumprod", "CumprodBackward0", self=("self dim", lambda grad, self, dim: P.cumprod_backward(
        grad, self, dim)))
    rule("addmv", "AddmvBackward0",
         self=("beta", lambda grad, beta: _scaled(grad, beta)),
         mat=("vec alpha", lambda grad, vec, alpha: _scaled(P.outer(grad, vec), alpha)),
         vec=("mat alpha", lambda grad, mat, alpha: _scaled(mat.t().mv(grad), alpha)))
    rule("addr", "AddrBackward0",
         self=("beta", lambda grad, beta: _scaled(grad, beta)),
         vec1=("vec2 alpha", lambda grad, vec2, alpha: _scaled(grad.mv(vec2), alpha)),
         vec2=("vec1 alpha", lambda grad, vec1, alpha: _scaled(grad.t().mv(vec1), alpha)))
    rule("baddbmm", "BaddbmmBackward0",
         self=("beta", lambda grad, beta: _scaled(grad, beta)),
         batch1=("batch2 alpha", lambda grad, batch2, alpha: _scaled(grad.bmm(batch2.transpose(1, 2)), alpha)),
         batch2=("batch1 alpha", lambda grad, batch1, alpha: _scaled(batch1.transpose(1, 2).bmm(grad), alpha)))
    rule("addbmm", "AddbmmBackward0",
         self=("beta", lambda grad, beta: _scaled(grad, beta)),
         batch1=("batch2 alpha batches", lambda grad, batch2, alpha, batches: _scaled(
             grad.unsqueeze(0).expand((batches,) + tuple(grad.shape)).bmm(batch2.transpose(1, 2)), alpha)),
         batch2=("batch1 alpha batches", lambda grad, batch1, alpha, batches: _scaled(
             batch1.transpose(1, 2).bmm(grad.unsqueeze(0).expand((batches,) + tuple(grad.shape))), alpha)))

    # ------------------------------------------- picking and placing (ops/scatter.py)
    rule("masked_select", "MaskedSelectBackward0",
         self=("shape mask", lambda grad, shape, mask: F.embed_in_zeros(grad, shape, mask)))
    rule("take", "TakeBackward0", self=("self_shape key", lambda grad, self_shape, key: grad.sum() if key is None else
                                          F.embed_in_zeros(grad, self_shape, key, accumulate=True)))
    rule("index_fill.int_Scalar", "IndexFillBackward0",
         self=("dim index", lambda grad, dim, index: grad.index_fill(dim, index, 0)))
    rule("index_fill.int_Tensor", "IndexFillBackward1",
         self=("dim index", lambda grad, dim, index: grad.index_fill(dim, index, 0)),
         value=("dim index", lambda grad, dim, index: grad.index_select(dim, index).sum()))
    rule("index_copy", "IndexCopyBackward0",
         self=("dim index", lambda grad, dim, index: grad.index_fill(dim, index, 0)),
         source=("dim index", lambda grad, dim, index: grad.index_select(dim, index)))
    rule("scatter.value", "ScatterBackward1", self=("key", lambda grad, key: H.index_fill_zero(grad, key)))
    rule("scatter_add", "ScatterAddBackward0",
         self=lambda grad: grad,
         src=("dim index", lambda grad, dim, index: grad.gather(dim, index)))

    # ---------------------------------- more reductions (ops/reductions_more.py)
    for op, node in (("median", "MedianBackward0"), ("nanmedian", "NanmedianBackward0")):
        rule(op, node, self=("self result", lambda grad, self, result: H.evenly_distribute(grad, self, result)))
    for op, node in (("median.dim", "MedianBackward1"), ("nanmedian.dim", "NanmedianBackward1"),
                     ("kthvalue", "KthvalueBackward0"), ("mode", "ModeBackward0")):
        rule(op, node, saves=("indices",), self=("self_shape dim keepdim indices",
             lambda grad, self_shape, dim, keepdim, indices: H.scatter_into_zeros(
                 grad, self_shape, dim, keepdim, indices)))
    rule("nansum", "NansumBackward0", self=("self dim keepdim", lambda grad, self, dim, keepdim: (
        grad if dim is None else H.restore_reduced_dims(grad, dim, keepdim)) * F.logical_not(F.isnan(self))))
    for op, node in (("cummax", "CummaxBackward0"), ("cummin", "CumminBackward0")):
        rule(op, node, saves=("indices",), self=("self dim indices", lambda grad, self, dim, indices: (
            grad if self.ndim == 0 else zeros_like(self).scatter_add(dim, indices, grad))))
    rule("logcumsumexp", "LogcumsumexpBackward0",
         self=("self result dim", lambda grad, self, result, dim: R.logcumsumexp_backward(grad, self, result, dim)))
    rule("_unique2", "Unique2Backward0", self=lambda grad: _not_differentiable("_unique2"))
    rule("unique_dim", "UniqueDimBackward0", self=lambda grad: _not_differentiable("unique_dim"))
    rule("linalg_cross", "LinalgCrossBackward0",
         self=("other dim", lambda grad, other, dim: R.cross(other, grad, dim)),
         other=("self dim", lambda grad, self, dim: R.cross(grad, self, dim)))
    rule("dist", "DistBackward0",
         self=("self other result p", _dist_backward),
         other=("self other result p", lambda grad, self, other, result, p: -_dist_backward(
             grad, self, other, result, p)))
