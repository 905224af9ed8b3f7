"""The gradient rules of the structure, product and repeat ops (``ops/structure.py``,
``ops/products.py``): the table's conventions (one formula per input,
written with tensor ops so that double backward works).

Ops that only move elements move ``grad`` back: a flip flips it again, a roll
rolls it back, ``rot90`` turns it back, a triangle keeps the same triangle, a
diagonal is written back into zeros (and ``diag_embed``'s gradient is read off the
diagonal).  The products' rules are those of ``mm``/``bmm`` with the scales
``alpha`` and ``beta``; ``prod``'s is the product of the other factors.

Ops that write into a copy (``scatter``, ``put``, ``masked_scatter``, the ``*_scatter`` of
views) give ``self`` the gradient with the written places zeroed by the same op, and the
written values the gradient read back from where they went; ``renorm`` and ``cdist`` close
the table, with the distances (``ops/distances.py``).
"""

from .. import ops as F
from ..creation import zeros, zeros_like
from ..ops import distances
from ..ops import norms
from ..ops import products
from ..ops import statistics
from ..ops import backward_helpers as H
from ..ops import indexed_writes as SM
from ..ops import structure as structure_ops
from ..ops import view_scatter as VS
from .table import rule


def _not_differentiable(op):
    raise NotImplementedError(f"the derivative for '{op}' is not implemented.")


def _raise(error):
    raise error


def _dist_backward(grad, self, other, result, p):
    difference = self - other
    return norms.vector_norm_backward(grad, difference, result, p, tuple(range(difference.ndim)), False)


def _scaled(grad, factor):
    """``factor * grad``, recorded as PyTorch does it (mul.Scalar), or ``grad`` for 1."""
    return grad if factor == 1 else F.mul_scalar(grad, factor)

# ------------------------------------------------------ moving elements
rule("flip", "FlipBackward0", self=("dims", lambda grad, dims: grad.flip(dims)))
rule("roll", "RollBackward0", self=("shifts dims", lambda grad, shifts, dims: grad.roll(
    tuple(-s for s in shifts), dims or None)))
rule("rot90", "Rot90Backward0", self=("k dims", lambda grad, k, dims: grad.rot90(-k, dims)))
rule("tril", "TrilBackward0", self=("diagonal", lambda grad, diagonal: grad.tril(diagonal)))
rule("triu", "TriuBackward0", self=("diagonal", lambda grad, diagonal: grad.triu(diagonal)))
for _op, _node in (("diagonal", "DiagonalBackward0"), ("diagonal_copy", "DiagonalBackward0_copy")):
    rule(_op, _node, self=("self_shape offset dim1 dim2", lambda grad, self_shape, offset, dim1, dim2:
                           structure_ops.diagonal_backward(grad, self_shape, offset, dim1, dim2)))
rule("diagonal_backward", "DiagonalBackwardBackward0",
     grad_output=("offset dim1 dim2", lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2)))
rule("diag_embed", "DiagEmbedBackward0",
     self=("offset dim1 dim2", lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2)))
rule("trace", "TraceBackward0", self=("self_shape", lambda grad, self_shape: structure_ops.diagonal_backward(
    grad.expand(min(self_shape)), self_shape, 0, 0, 1)))

# ------------------------------------------------------------- products
rule("prod", "ProdBackward0", self=("self", lambda grad, self: products.prod_backward(grad, self, None, False)))
rule("prod.dim_int", "ProdBackward1",
     self=("self dim keepdim", lambda grad, self, dim, keepdim: products.prod_backward(grad, self, dim, keepdim)))
rule("cumprod", "CumprodBackward0", self=("self dim", lambda grad, self, dim: products.cumprod_backward(
    grad, self, dim)))
rule("addmv", "AddmvBackward0",
     self=("beta", lambda grad, beta: _scaled(grad, beta)),
     mat=("vec alpha", lambda grad, vec, alpha: _scaled(products.outer(grad, vec), alpha)),
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
for op in ("scatter", "scatter_"):                 # scatter(reduce=...): not differentiated
    rule(f"{op}.reduce", "NotImplemented", self=lambda grad, op=op: H.derivative_not_implemented(op),
         src=lambda grad, op=op: H.derivative_not_implemented(op))
    rule(f"{op}.value_reduce", "NotImplemented", self=lambda grad, op=op: H.derivative_not_implemented(op))

# -------------------------------------- writing by index (ops/indexed_writes.py)
# index_put (IndexPutBackward0) shares t[key] = v's rule, in indexing.py.
rule("put", "PutBackward0", saves=("index",),
     self=("index accumulate", lambda grad, index, accumulate: grad if accumulate else SM.put(
         grad, index, zeros(tuple(index.shape), dtype=grad.dtype))),
     source=("index source_shape", lambda grad, index, source_shape: grad.take(index).view(source_shape)))
rule("masked_scatter", "MaskedScatterBackward0", saves=("mask",),
     self=("mask", lambda grad, mask: grad.masked_fill(mask, 0)),
     source=("mask source_shape", lambda grad, mask, source_shape: SM.masked_scatter_backward(
         grad, mask, source_shape)))
rule("masked_scatter_backward", "MaskedScatterBackwardBackward0", saves=("mask",),
     grad_output=("mask", lambda grad, mask: SM.masked_scatter(zeros_like(mask, dtype=grad.dtype), mask, grad)))
rule("scatter_reduce.two", "ScatterReduceBackward0", saves=("index",),
     self=("self src result dim index reduce include_self", SM.scatter_reduce_backward),
     src=("self src result dim index reduce include_self", lambda grad, *values: SM.scatter_reduce_backward(
         grad, *values, of="src")))
rule("delayed_error", "Error", self=("message", lambda grad, message: _raise(RuntimeError(message))))

# ------------------------------- writing over a view (ops/view_scatter.py)
rule("diagonal_scatter", "DiagonalScatterBackward0",
     self=("offset dim1 dim2 src_shape", lambda grad, offset, dim1, dim2, src_shape: VS.diagonal_scatter(
         grad, zeros(src_shape, dtype=grad.dtype), offset, dim1, dim2)),
     src=("offset dim1 dim2", lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2)))
rule("select_scatter", "SelectScatterBackward0",
     self=("dim index src_shape", lambda grad, dim, index, src_shape: VS.select_scatter(
         grad, zeros(src_shape, dtype=grad.dtype), dim, index)),
     src=("dim index", lambda grad, dim, index: grad.select(dim, index)))
rule("slice_scatter", "SliceScatterBackward0",
     self=("dim start end step src_shape", lambda grad, dim, start, end, step, src_shape: VS.slice_scatter(
         grad, zeros(src_shape, dtype=grad.dtype), dim, start, end, step)),
     src=("dim start end step", lambda grad, dim, start, end, step: VS.slice_of(grad, dim, start, end, step)))

# ---------------------------------- more reductions (ops/statistics.py)
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
     self=("self result dim", lambda grad, self, result, dim: statistics.logcumsumexp_backward(grad, self, result, dim)))
rule("_unique2", "Unique2Backward0", self=lambda grad: _not_differentiable("_unique2"))
rule("unique_dim", "UniqueDimBackward0", self=lambda grad: _not_differentiable("unique_dim"))
rule("renorm", "RenormBackward0", self=("self p dim maxnorm", norms.renorm_backward))
rule("_cdist_forward", "CdistBackward0",
     x1=("x1 x2 p result", lambda grad, x1, x2, p, result: distances.cdist_backward(
         grad.contiguous(), x1, x2, p, result)),
     x2=("x1 x2 p result", lambda grad, x1, x2, p, result: distances.cdist_backward(
         grad.mT.contiguous(), x2, x1, p, result.mT.contiguous())))
rule("_cdist_backward", "CdistBackwardBackward0", **{
    name: lambda grad: _not_differentiable("_cdist_backward") for name in ("grad", "x1", "x2", "cdist")})
rule("_euclidean_dist", "EuclideanDistBackward0",
     x1=("x1 x2 result", lambda grad, x1, x2, result: distances.euclidean_dist_backward(grad, x1, x2, result, 0)),
     x2=("x1 x2 result", lambda grad, x1, x2, result: distances.euclidean_dist_backward(grad, x1, x2, result, 1)))
rule("dist", "DistBackward0",
     self=("self other result p", _dist_backward),
     other=("self other result p", lambda grad, self, other, result, p: -_dist_backward(
         grad, self, other, result, p)))
