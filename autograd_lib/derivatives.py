"""Every gradient rule, in one place (the role of PyTorch's ``derivatives.yaml``).

A rule names a backward node (PyTorch's name for it) and gives one small
formula per differentiable input, in input order.  A formula is a function of
``grad`` (the gradient of the op's output) and of the values it needs, named
by its parameters:

* an input's name (``self``, ``other``, ...) or ``result`` (the op's output):
  a *saved tensor*, kept until backward and checked against in-place changes;
* anything else (``dim``, ``self_shape``, ...): a plain value the op passes.

The op saves only what the formulas of its grad-requiring inputs ask for, as
PyTorch does: ``x * 2`` keeps ``other`` (the 2) because ``x``'s gradient
needs it, but not ``x``.

Formulas are written with tensor operations, so when backward runs with
``create_graph=True`` they are recorded too and can be differentiated again.
A formula may return a gradient of the output's (broadcast) shape; the engine
sums it back to the input's shape (``ops.sum_to``).  The engine knows nothing
about any particular op: everything op-specific is here.
"""

import math

from . import ops as F
from .graph import Node

NODES = {}          # backward node name -> Node subclass


def rule(node_name, **formulas):
    """Register backward node ``node_name`` with one formula per input."""
    compiled = {}
    for input_name, fn in formulas.items():
        code = fn.__code__
        needs = code.co_varnames[1:code.co_argcount]      # parameters after `grad`
        compiled[input_name] = (fn, tuple(needs))
    cls = type(node_name, (Node,), {"input_names": tuple(formulas), "formulas": compiled,
                                     "__slots__": ()})
    cls.__module__ = "autograd_lib.derivatives"
    cls.__doc__ = f"Backward node of the op whose PyTorch node is {node_name}."
    NODES[node_name] = cls
    return cls


def _zeros(grad, self_shape):
    return F.zeros(self_shape, dtype=grad.dtype)


# --------------------------------------------------------------- arithmetic
rule("AddBackward0",
     self=lambda grad: grad,
     other=lambda grad, alpha: grad if alpha == 1 else grad * alpha)
rule("SubBackward0",
     self=lambda grad: grad,
     other=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha)
rule("RsubBackward1",                       # scalar - self
     self=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha)
rule("MulBackward0",
     self=lambda grad, other: grad * other,
     other=lambda grad, self: grad * self)
rule("DivBackward0",
     self=lambda grad, other: grad / other,
     other=lambda grad, self, other: -grad * self / (other * other))
rule("NegBackward0",
     self=lambda grad: -grad)
rule("ReciprocalBackward0",
     self=lambda grad, result: -grad * result * result)
rule("PowBackward0",                        # tensor ** number
     self=lambda grad, self, exponent: (F.zeros_like(self) if exponent == 0
                                        else grad * (exponent * self ** (exponent - 1))))
rule("PowBackward1",                        # tensor ** tensor
     self=lambda grad, self, exponent: F.where(exponent == 0, 0.0,
                                               grad * (exponent * self ** (exponent - 1))),
     exponent=lambda grad, self, exponent, result: grad * F.where(
         (self == 0) & (exponent >= 0), 0.0, result * F.log(self)))
rule("PowBackward2",                        # number ** tensor
     exponent=lambda grad, base, exponent, result: grad * F.where(
         (exponent >= 0) if base == 0 else F.zeros_like(exponent, dtype=F.bool_dtype),
         0.0, result * F.log_of_number(base)))

# ------------------------------------------------------------ unary functions
rule("ExpBackward0", self=lambda grad, result: grad * result)
rule("LogBackward0", self=lambda grad, self: grad / self)
rule("SqrtBackward0", self=lambda grad, result: grad / (2 * result))
rule("TanhBackward0", self=lambda grad, result: grad * (1 - result * result))
rule("SigmoidBackward0", self=lambda grad, result: grad * (result * (1 - result)))
rule("ReluBackward0", self=lambda grad, result: grad * (result > 0))
rule("AbsBackward0", self=lambda grad, self: grad * F.sign(self))
rule("SinBackward0", self=lambda grad, self: grad * F.cos(self))
rule("CosBackward0", self=lambda grad, self: grad * -F.sin(self))
rule("ClampBackward1",
     self=lambda grad, self, min, max: grad * F.clamp_mask(self, min, max))
rule("MaximumBackward0",
     self=lambda grad, self, other: F.where(self == other, grad / 2, grad) * (self >= other),
     other=lambda grad, self, other: F.where(self == other, grad / 2, grad) * (self <= other))
rule("MinimumBackward0",
     self=lambda grad, self, other: F.where(self == other, grad / 2, grad) * (self <= other),
     other=lambda grad, self, other: F.where(self == other, grad / 2, grad) * (self >= other))
rule("WhereBackward0",
     self=lambda grad, condition: F.where(condition, grad, 0.0),
     other=lambda grad, condition: F.where(condition, 0.0, grad))

# Copies and casts: the engine casts the gradient back to the input's dtype.
for _name in ("CloneBackward0", "ToCopyBackward0", "AliasBackward0"):
    rule(_name, self=lambda grad: grad)
rule("CopyBackwards",                       # dst.copy_(src): dst's old values are gone
     self=lambda grad: F.zeros_like(grad),
     src=lambda grad: grad)
rule("ZeroBackward0", self=lambda grad: F.zeros_like(grad))
rule("FillBackward2", self=lambda grad: F.zeros_like(grad))
rule("CopySlices",                          # t[key] = src
     self=lambda grad, key: F.index_fill_zero(grad, key),
     src=lambda grad, key: grad[key])

# -------------------------------------------------------------- reductions
rule("SumBackward0", self=lambda grad, self_shape: grad.expand(self_shape))
rule("SumBackward1",
     self=lambda grad, self_shape, dim, keepdim: F.restore_reduced_dims(grad, dim, keepdim).expand(self_shape))
rule("MeanBackward0",
     self=lambda grad, self_shape: grad.expand(self_shape) / max(math.prod(self_shape), 1))
rule("MeanBackward1",
     self=lambda grad, self_shape, dim, keepdim: (
         F.restore_reduced_dims(grad, dim, keepdim).expand(self_shape)
         / max(math.prod(self_shape[d] for d in dim), 1)))
for _name in ("MaxBackward1", "MinBackward1"):          # full reduction: ties share equally
    rule(_name, self=lambda grad, self, result: F.evenly_distribute(grad, self == result))
for _name in ("MaxBackward0", "MinBackward0"):          # along a dim: the chosen index gets it
    rule(_name, self=lambda grad, self_shape, dim, keepdim, indices:
         F.scatter_into_zeros(grad, self_shape, dim, keepdim, indices))
for _name in ("AmaxBackward0", "AminBackward0"):        # along dims: ties share equally
    rule(_name, self=lambda grad, self, result, dim, keepdim:
         F.share_among_ties(grad, self, result, dim, keepdim))

# ---------------------------------------------------------- shape and views
for _name in ("ViewBackward0", "UnsafeViewBackward0", "SqueezeBackward0",
              "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward4"):
    rule(_name, self=lambda grad, self_shape: grad.reshape(self_shape))
rule("UnsqueezeBackward0", self=lambda grad, dim: grad.squeeze(dim))
rule("ExpandBackward0", self=lambda grad, self_shape: F.sum_to(grad, self_shape))
rule("TransposeBackward0", self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
rule("TBackward0", self=lambda grad: grad.t())
rule("PermuteBackward0", self=lambda grad, dims: grad.permute(F.inverse_permutation(dims)))
rule("SelectBackward0", self=lambda grad, self_shape, dim, index:
     F.embed_in_zeros(grad, self_shape, F.dim_key(dim, index)))
rule("SliceBackward0", self=lambda grad, self_shape, dim, start, end, step:
     F.embed_in_zeros(grad, self_shape, F.dim_key(dim, slice(start, end, step))))
rule("IndexBackward0", self=lambda grad, self_shape, indices:
     F.embed_in_zeros(grad, self_shape, indices, accumulate=True))
# The backward of select/slice/index writes the gradient into zeros; its own
# gradient (for double backward) reads the same place back.
for _name in ("SelectBackwardBackward0", "SliceBackwardBackward0", "IndexPutBackward0"):
    rule(_name, self=lambda grad, key: grad[key])

# ------------------------------------------------------------ linear algebra
rule("MmBackward0",
     self=lambda grad, mat2: grad.mm(mat2.t()),
     mat2=lambda grad, self: self.t().mm(grad))
rule("MvBackward0",
     self=lambda grad, vec: grad.unsqueeze(1) * vec,
     vec=lambda grad, self: self.t().mv(grad))
rule("DotBackward0",
     self=lambda grad, tensor: grad * tensor,
     tensor=lambda grad, self: grad * self)
rule("BmmBackward0",
     self=lambda grad, mat2: grad.bmm(mat2.transpose(1, 2)),
     mat2=lambda grad, self: self.transpose(1, 2).bmm(grad))
rule("AddmmBackward0",
     self=lambda grad, beta: grad if beta == 1 else grad * beta,
     mat1=lambda grad, mat2, alpha: grad.mm(mat2.t()) if alpha == 1 else grad.mm(mat2.t()) * alpha,
     mat2=lambda grad, mat1, alpha: mat1.t().mm(grad) if alpha == 1 else mat1.t().mm(grad) * alpha)

# ------------------------------------------------------ softmax and losses
rule("SoftmaxBackward0",
     self=lambda grad, result, dim: (grad - (grad * result).sum(dim, keepdim=True)) * result)
rule("LogSoftmaxBackward0",
     self=lambda grad, result, dim: grad - F.exp(result) * grad.sum(dim, keepdim=True))
rule("NllLossBackward0",
     self=lambda grad, self_shape, target, weight, reduction, ignore_index, total_weight:
     F.nll_loss_backward(grad, self_shape, target, weight, reduction, ignore_index, total_weight))
rule("MseLossBackward0",
     self=lambda grad, self, target, reduction: F.mse_loss_backward(grad, self, target, reduction),
     target=lambda grad, self, target, reduction: -F.mse_loss_backward(grad, self, target, reduction))
