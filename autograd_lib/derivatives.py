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
sums it back to the input's shape (``broadcasting.sum_to``).  The engine knows nothing
about any particular op: everything op-specific is here.
"""

import math

from . import broadcasting
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
    # A node with several outputs (unbind) names its first parameter ``grads``:
    # it gets the list of output gradients instead of one ``grad``.
    all_grads = any(fn.__code__.co_varnames[0] == "grads" for fn in formulas.values())
    cls = type(node_name, (Node,), {"input_names": tuple(formulas), "formulas": compiled,
                                     "_all_grads": all_grads, "__slots__": ()})
    cls.__module__ = "autograd_lib.derivatives"
    cls.__doc__ = f"Backward node of the op whose PyTorch node is {node_name}."
    NODES[node_name] = cls
    return cls


# --------------------------------------------------------------- arithmetic
# Formulas multiply by numbers with F.mul_scalar (not ``*``): PyTorch's formulas
# do it with mul.Scalar, which shows up in a create_graph=True gradient's graph
# as MulBackward1 (``x * 2`` written in Python records MulBackward0).
rule("AddBackward0",
     self=lambda grad: grad,
     other=lambda grad, alpha: grad if alpha == 1 else F.mul_scalar(grad, alpha))
rule("AddBackward1", self=lambda grad: grad)                 # tensor + number, in formulas
rule("SubBackward1", self=lambda grad: grad)                 # tensor - number, in formulas
rule("SubBackward0",
     self=lambda grad: grad,
     other=lambda grad, alpha: -grad if alpha == 1 else F.mul_scalar(-grad, alpha))
rule("RsubBackward1",                       # scalar - self
     self=lambda grad, alpha: -grad if alpha == 1 else F.mul_scalar(-grad, alpha))
rule("MulBackward0",
     self=lambda grad, other: grad * other,
     other=lambda grad, self: grad * self)
rule("MulBackward1", self=lambda grad, other: F.mul_scalar(grad, other))   # tensor * number
rule("DivBackward0",
     self=lambda grad, other: grad / other,
     other=lambda grad, self, other: -grad * ((self / other) / other))
rule("DivBackward1", self=lambda grad, other: F.div_scalar(grad, other))   # tensor / number
rule("NegBackward0",
     self=lambda grad: -grad)
rule("ReciprocalBackward0",
     self=lambda grad, result: -grad * (result * result))
rule("PowBackward0",                        # tensor ** number
     self=lambda grad, self, exponent: (F.zeros_like(self) if exponent == 0
                                        else grad * F.mul_scalar(self ** (exponent - 1), exponent)))
rule("PowBackward1",                        # tensor ** tensor
     self=lambda grad, self, exponent: F.where(exponent == 0, 0.0,
                                               grad * (exponent * self ** F.sub_scalar(exponent, 1))),
     exponent=lambda grad, self, exponent, result: grad * F.where(
         (self == 0) & (exponent >= 0), 0.0, result * F.log(self)))
rule("PowBackward2",                        # number ** tensor
     exponent=lambda grad, base, exponent, result: grad * (
         F.where(exponent >= 0, 0.0, F.mul_scalar(result, F.log_of_number(base))) if base == 0
         else F.mul_scalar(result, F.log_of_number(base))))

# ------------------------------------------------------------ unary functions
rule("ExpBackward0", self=lambda grad, result: grad * result)
rule("LogBackward0", self=lambda grad, self: grad / self)
rule("SqrtBackward0", self=lambda grad, result: grad / F.mul_scalar(result, 2))
# tanh, sigmoid and relu have backward ops of their own (as in PyTorch), with rules:
rule("TanhBackward0", self=lambda grad, result: F.tanh_backward(grad, result))
rule("TanhBackwardBackward0",
     grad_output=lambda grad, output: F.tanh_backward(grad, output),
     output=lambda grad, grad_output, output: grad * (F.mul_scalar(output, -2) * grad_output))
rule("SigmoidBackward0", self=lambda grad, result: F.sigmoid_backward(grad, result))
rule("SigmoidBackwardBackward0",
     grad_output=lambda grad, output: F.sigmoid_backward(grad, output),
     output=lambda grad, grad_output, output: grad * grad_output * F.add_scalar(
         F.mul_scalar(output, -2), 1))
rule("ReluBackward0", self=lambda grad, result: F.threshold_backward(grad, result, 0))
rule("ThresholdBackwardBackward0",
     grad_output=lambda grad, self, threshold: F.threshold_backward(grad, self, threshold),
     self=lambda grad: F.zeros_like(grad))
rule("AbsBackward0", self=lambda grad, self: grad * F.sgn(self))
rule("SignBackward0", self=lambda grad: F.zeros_like(grad))
rule("SgnBackward0", self=lambda grad: F.zeros_like(grad))
rule("MaskedFillBackward0", self=lambda grad, mask: F.masked_fill(grad, mask, 0))
rule("MaskedFillBackward1",
     self=lambda grad, mask: F.masked_fill(grad, mask, 0),
     value=lambda grad, mask: grad[mask].sum())
rule("SinBackward0", self=lambda grad, self: grad * F.cos(self))
rule("CosBackward0", self=lambda grad, self: grad * -F.sin(self))
rule("ClampBackward1",                      # clamp(self, number, number)
     self=lambda grad, self, min, max: F.where(F.clamp_mask(self, min, max), grad, 0.0))
rule("ClampBackward0",                      # clamp(self, tensor, tensor): a bound that
     self=lambda grad, self, min, max: F.where(F.clamp_bounds_mask(self, min, max), grad, 0.0),
     min=lambda grad, self, min, max: F.where(     # wins gets the gradient (max wins ties)
         (self < min) & (min < max) if max is not None else self < min, grad, 0.0),
     max=lambda grad, self, min, max: F.where(
         (self > max) | (max < min) if min is not None else self > max, grad, 0.0))
rule("MaximumBackward0",                    # ties share the gradient
     self=lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self < other, 0),
     other=lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self > other, 0))
rule("MinimumBackward0",
     self=lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self > other, 0),
     other=lambda grad, self, other: F.masked_fill(
         F.where(self == other, F.div_scalar(grad, 2), grad), self < other, 0))
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
rule("FillBackward3",                       # t.fill_(0-dim tensor), t[...] = value
     self=lambda grad: F.zeros_like(grad),
     value=lambda grad: grad.sum())
rule("CopySlices",                          # t[key] = src, written through a view
     self=lambda grad, key: F.index_fill_zero(grad, key),
     src=lambda grad, key: grad[key])

# -------------------------------------------------------------- reductions
rule("SumBackward0", self=lambda grad, self_shape: grad.expand(self_shape))
rule("SumBackward1",
     self=lambda grad, self_shape, dim, keepdim: F.restore_reduced_dims(grad, dim, keepdim).expand(self_shape))
rule("MeanBackward0",
     self=lambda grad, self_shape: F.div_scalar(grad.expand(self_shape), math.prod(self_shape)))
rule("MeanBackward1",
     self=lambda grad, self_shape, dim, keepdim: F.div_scalar(
         F.restore_reduced_dims(grad, dim, keepdim).expand(self_shape),
         math.prod(self_shape[d] for d in dim)))
for _name in ("MaxBackward1", "MinBackward1"):          # full reduction: ties share equally
    rule(_name, self=lambda grad, self, result: F.evenly_distribute(grad, self, result))
for _name in ("MaxBackward0", "MinBackward0"):          # along a dim: the chosen index gets it
    rule(_name, self=lambda grad, self_shape, dim, keepdim, indices:
         F.scatter_into_zeros(grad, self_shape, dim, keepdim, indices))
for _name in ("AmaxBackward0", "AminBackward0"):        # along dims: ties share equally
    rule(_name, self=lambda grad, self, result, dim, keepdim:
         F.share_among_ties(grad, self, result, dim, keepdim))

# ---------------------------------------------------------- shape and views
for _name in ("ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0"):
    rule(_name, self=lambda grad, self_shape: grad.reshape(self_shape))
for _name in ("SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward4"):
    rule(_name, self=lambda grad, dims: F.unsqueeze_dims(grad, dims))
rule("UnsqueezeBackward0", self=lambda grad, dim: grad.squeeze(dim))
rule("AsStridedBackward0",                 # a view modified in place: see ops._inplace_on_view
     self=lambda grad, self_shape, key: F.embed_in_zeros(grad, self_shape, key))
rule("ExpandBackward0", self=lambda grad, self_shape: broadcasting.sum_to(grad, self_shape))
rule("UnbindBackward0", self=lambda grads, self_shape, dim: F.unbind_backward(grads, self_shape, dim))
rule("TransposeBackward0", self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
rule("TBackward0", self=lambda grad: grad.t())
rule("PermuteBackward0", self=lambda grad, dims: grad.permute(F.inverse_permutation(dims)))
rule("SelectBackward0", self=lambda grad, self_shape, dim, index:
     F.embed_in_zeros(grad, self_shape, F.dim_key(dim, index), node="SelectBackwardBackward0"))
rule("SliceBackward0", self=lambda grad, self_shape, dim, start, end, step:
     F.embed_in_zeros(grad, self_shape, F.dim_key(dim, slice(start, end, step))))
rule("IndexBackward0", self=lambda grad, self_shape, indices:
     F.embed_in_zeros(grad, self_shape, indices, accumulate=True))
# The backward of select/slice/index/max(dim) writes the gradient into zeros; its
# own gradient (for double backward) reads the same place back.
for _name in ("SelectBackwardBackward0", "SliceBackwardBackward0"):
    rule(_name, self=lambda grad, key: grad[key])
# t[key] = values with an advanced key (and zeros.index_put_(key, grad) above):
# the overwritten places of self get no gradient, values get what was written.
for _name in ("IndexPutBackward0", "IndexPutImplBackward0", "ScatterBackward0"):
    rule(_name,
         self=lambda grad, key, accumulate: grad if accumulate else F.index_fill_zero(grad, key),
         values=lambda grad, key: grad[key])

# ------------------------------------------------------------ linear algebra
rule("MmBackward0",
     self=lambda grad, mat2, self_col_major: F.mm_mat1_backward(grad, mat2, self_col_major),
     mat2=lambda grad, self, mat2_col_major: F.mm_mat2_backward(grad, self, mat2_col_major))
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
     self=lambda grad, beta: grad if beta == 1 else F.mul_scalar(grad, beta),
     mat1=lambda grad, mat2, alpha, mat1_col_major: F.mm_mat1_backward(grad, mat2, mat1_col_major,
                                                                       alpha),
     mat2=lambda grad, mat1, alpha, mat2_col_major: F.mm_mat2_backward(grad, mat1, mat2_col_major,
                                                                       alpha))

# ------------------------------------------------------ softmax and losses
rule("SoftmaxBackward0", self=lambda grad, result, dim: F.softmax_backward_data(grad, result, dim))
rule("SoftmaxBackwardDataBackward0",
     grad_output=lambda grad, output, dim: F.softmax_backward_data(grad, output, dim),
     output=lambda grad, grad_output, output, dim: (
         grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
         - grad_output * (output * grad).sum(dim, keepdim=True)))
rule("LogSoftmaxBackward0",
     self=lambda grad, result, dim: F.log_softmax_backward_data(grad, result, dim))
rule("LogSoftmaxBackwardDataBackward0",
     grad_output=lambda grad, output, dim: grad - (grad * output.exp()).sum(dim, keepdim=True),
     output=lambda grad, grad_output, output, dim: (
         -grad_output.sum(dim, keepdim=True) * output.exp() * grad))
rule("NllLossBackward0",
     self=lambda grad, self, target, weight, reduction, ignore_index, total_weight:
     F.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight))
rule("NllLossBackwardBackward0",            # (its output does not depend on self's values)
     grad_output=lambda grad, target, weight, reduction, ignore_index:
     F.nll_loss(grad, target, weight, ignore_index, reduction),
     self=lambda grad: F.zeros_like(grad))
rule("MseLossBackward0",
     self=lambda grad, self, target, reduction: F.mse_loss_backward(grad, self, target, reduction),
     target=lambda grad, self, target, reduction: F.mse_loss_backward(grad, target, self, reduction))
rule("MseLossBackwardBackward0",
     grad_output=lambda grad, self, target, reduction: (
         F.mse_loss_backward(grad, self, target, reduction) if reduction == "none"
         else F.mse_loss_backward(grad, self, target, reduction).sum()),
     self=lambda grad, grad_output, reduction, count: F.mse_double_backward(grad * grad_output,
                                                                           reduction, count),
     target=lambda grad, grad_output, reduction, count: -F.mse_double_backward(grad * grad_output,
                                                                             reduction, count))
