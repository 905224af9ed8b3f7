"""The gradient rules of ``ops/nn_ops.py`` and ``ops/nn_layers.py``: the activations of
``nn.functional`` (hardtanh, selu, celu, mish, hardsigmoid, hardswish, logsigmoid, hardshrink,
softshrink, threshold, glu), ``embedding``, the norms, padding, ``im2col`` and ``col2im``.

Several forward ops share one PyTorch node name (``selu`` records EluBackward0, as
``elu`` does; the in-place ``hardtanh_`` records HardtanhBackward0); the name keeps
naming the class declared first (``rule`` never replaces it).
"""

from .. import ops as F
from ..creation import zeros_like
from ..ops import backward_helpers as H
from ..ops import fold as FO
from ..ops import nn_layers as L
from ..ops import nn_ops as N
from ..ops import norms
from ..ops import padding
from ..creation import tensor as _tensor
from .table import rule


def _log1p(t):
    """``log(1 + t)``: the library's ``log1p`` when it has one (Log1PBackward0, as PyTorch)."""
    log1p = getattr(F, "log1p", None)
    return log1p(t) if log1p is not None else F.log(F.add_scalar(t, 1))


_ELU = "alpha scale input_scale"


def _elu_formula(is_result):
    """The general elu's gradient, given its input or (in place) its result."""
    saved = "result" if is_result else "self"
    return (f"{saved} {_ELU}", lambda grad, x, alpha, scale, input_scale: N.elu_backward(
        grad, alpha, scale, input_scale, is_result, x))


def _elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, x):
    """d/dx of ``elu_backward``: on the negative side ``input_scale`` times the gradient
    again (from the input), or ``input_scale`` alone (from the result)."""
    if is_result:
        return F.where(x < 0, F.mul_scalar(grad * grad_output, input_scale), 0.0)
    return N.elu_backward(F.mul_scalar(grad * grad_output, input_scale), alpha, scale, input_scale,
                          False, x) * (x < 0)


def _mish_backward(grad, x):
    """``grad * (tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)**2))``, ``sp = softplus(x)``, with
    plain ops as PyTorch writes it, so that it can be differentiated again."""
    tanh_sp = F.tanh(_log1p(F.exp(x)))
    return grad * (tanh_sp + x * F.sigmoid(x) * (1 - tanh_sp * tanh_sp))


def _glu_double_backward(grad, grad_output, self, dim):
    """d/dself of ``glu_backward`` (``g s`` and ``g a s (1 - s)``), contracted with ``grad``."""
    a, b = self.chunk(2, dim)
    grad_a, grad_b = grad.chunk(2, dim)
    s = F.sigmoid(b)
    ds = s * (1 - s)
    return F.cat([grad_b * grad_output * ds,
                  grad_a * grad_output * ds + grad_b * grad_output * a * ds * (1 - s * 2)], dim)


def _embedding_double_backward(grad, indices, padding_idx):
    """The rows of ``grad`` at ``indices`` (0 at ``padding_idx``): what ``embedding`` reads."""
    flat = _tensor(indices.reshape(-1))
    rows = F.index_select(grad, 0, flat)
    rows = F.masked_fill(rows, (flat == padding_idx).unsqueeze(1), 0)
    return rows.view(*indices.shape, grad.shape[-1])


def _layer_norm_parts(input, dims, eps):
    """``xhat = (x - mean) * rstd`` and ``rstd``, with tensor ops (differentiable again)."""
    centered = input - input.mean(dims, keepdim=True)
    rstd = F.add_scalar((centered * centered).mean(dims, keepdim=True), eps) ** -0.5
    return centered * rstd, rstd


def _layer_norm_input_grad(grad, input, weight, dims, eps):
    xhat, rstd = _layer_norm_parts(input, dims, eps)
    gy = grad if weight is None else grad * weight
    return rstd * (gy - gy.mean(dims, keepdim=True) - xhat * (gy * xhat).mean(dims, keepdim=True))


def _leading_sum(t, dims):
    """``t`` summed over the dims before the normalized ones."""
    return t.sum(tuple(range(dims[0]))) if dims[0] else t


def _batch_norm_input_grad(grad, input, weight, training, eps, dims, channel, running_var):
    """As layer norm's, over the batch dims; in eval mode the statistics are constants."""
    w = None if weight is None else weight.view(channel)
    gy = grad if w is None else grad * w
    if not training:
        return gy * F.rsqrt(F.add_scalar(running_var, eps)).view(channel)
    return _layer_norm_input_grad(grad, input, w, dims, eps)


def _batch_norm_weight_grad(grad, input, training, eps, dims, channel, running_mean, running_var):
    if training:
        xhat = _layer_norm_parts(input, dims, eps)[0]
    else:
        xhat = (input - running_mean.view(channel)) * F.rsqrt(F.add_scalar(running_var, eps)).view(channel)
    return (grad * xhat).sum(dims)


def _group_norm_grads(grad, input, weight, num_groups, eps, channel, dims):
    """``(input grad, xhat)``: each sample's groups are layer-normed rows."""
    rows = input.reshape(input.shape[0], num_groups, -1)
    gy = grad if weight is None else grad * weight.view(channel)
    grad_in = _layer_norm_input_grad(gy.reshape(rows.shape), rows, None, (2,), eps).reshape(input.shape)
    return grad_in, _layer_norm_parts(rows, (2,), eps)[0].reshape(input.shape)


def _forms(grad, weight):
    """``sum_o grad[n, o] weight[o, i, j]``: each sample's matrix ``(N, in1, in2)``, what
    the bilinear product's input gradients contract with the other input."""
    out, in1, in2 = weight.shape
    return grad.mm(weight.reshape(out, in1 * in2)).reshape(grad.shape[0], in1, in2)

# --------------------------------------------------------- hardtanh, relu6
_HARDTANH = "min_val max_val"
rule("hardtanh", "HardtanhBackward0",
     self=("self " + _HARDTANH, lambda grad, self, lo, hi: N.hardtanh_backward(grad, self, lo, hi)))
rule("hardtanh_", "HardtanhBackward0",                   # in place: from the result
     self=("result " + _HARDTANH, lambda grad, result, lo, hi: N.hardtanh_backward(grad, result, lo, hi)))
rule("hardtanh_backward", "HardtanhBackwardBackward0",
     grad_output=("self " + _HARDTANH, lambda grad, self, lo, hi: N.hardtanh_backward(grad, self, lo, hi)),
     self=lambda grad: zeros_like(grad))
# ------------------------------------------------- selu, celu (general elu)
for op, node, is_result in (("selu", "EluBackward0", False), ("selu_", "EluBackward1", True),
                            ("celu", "CeluBackward0", False), ("celu_", "CeluBackward1", True)):
    rule(op, node, self=_elu_formula(is_result))
rule("elu_backward.general", "EluBackwardBackward0",
     grad_output=(f"self_or_result {_ELU} is_result", lambda grad, x, alpha, scale, input_scale, is_result:
                  N.elu_backward(grad, alpha, scale, input_scale, is_result, x)),
     self_or_result=(f"grad_output self_or_result {_ELU} is_result",
                     lambda grad, grad_output, x, alpha, scale, input_scale, is_result:
                     _elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, x)))
# --------------------------------------------------------------------- mish
rule("mish", "MishBackward0", self=("self", _mish_backward))
# ------------------------------------------------- hardsigmoid, hardswish
rule("hardsigmoid", "HardsigmoidBackward0", self=("self", lambda grad, self: N.hardsigmoid_backward(grad, self)))
rule("hardsigmoid_backward", "NotImplemented",          # PyTorch has no second derivative
     self=lambda grad: H.derivative_not_implemented("hardsigmoid_backward"))
rule("hardswish", "HardswishBackward0", self=("self", lambda grad, self: N.hardswish_backward(grad, self)))
rule("hardswish_backward", "HardswishBackwardBackward0",
     grad_output=("self", lambda grad, self: N.hardswish_backward(grad, self)),
     self=("grad_output self", lambda grad, grad_output, self: F.where(
         (self > -3) & (self < 3), F.div_scalar(grad * grad_output, 3), 0.0)))
# -------------------------------------------------------------- logsigmoid
rule("log_sigmoid_forward", "LogSigmoidBackward0",
     self=("self", lambda grad, self: N.log_sigmoid_backward(grad, self)))
rule("log_sigmoid_backward", "LogSigmoidBackwardBackward0",
     grad_output=("self", lambda grad, self: N.log_sigmoid_backward(grad, self)),
     self=("grad_output self", lambda grad, grad_output, self: (lambda s: (
         grad * grad_output) * F.sub_scalar(s, 1) * s)(F.sigmoid(self))))
# --------------------------------------------------------------- shrinkages
for op, node in (("hardshrink", "HardshrinkBackward0"), ("softshrink", "SoftshrinkBackward0")):
    rule(op, node, self=("self lambd", (lambda op: lambda grad, self, lambd: N.shrink_backward(
        op, grad, self, lambd))(op + "_backward")))
    rule(op + "_backward", node.replace("Backward0", "BackwardBackward0"),
         grad_output=("self lambd", (lambda op: lambda grad, self, lambd: N.shrink_backward(
             op, grad, self, lambd))(op + "_backward")),
         self=lambda grad: zeros_like(grad))
# ---------------------------------------------------------------- threshold
rule("threshold", "ThresholdBackward0",
     self=("self threshold", lambda grad, self, threshold: F.threshold_backward(grad, self, threshold)))
rule("threshold_", "ThresholdBackward1",
     self=("result threshold", lambda grad, result, threshold: F.threshold_backward(grad, result, threshold)))
# --------------------------------------------------------------------- glu
rule("glu", "GluBackward0", self=("self dim", lambda grad, self, dim: N.glu_backward(grad, self, dim)))
rule("glu_backward", "GluBackwardBackward0",
     grad_output=("self dim", lambda grad, self, dim: N.glu_backward(grad, self, dim)),
     self=("grad_output self dim", _glu_double_backward))
# ---------------------------------------------------------------- embedding
rule("embedding", "EmbeddingBackward0",
     weight=("indices num_weights padding_idx scale_grad_by_freq",
             lambda grad, indices, n, padding_idx, by_freq: L.embedding_dense_backward(
                 grad, indices, n, padding_idx, by_freq)))
rule("embedding_dense_backward", "EmbeddingDenseBackwardBackward0",
     grad_output=("indices padding_idx", _embedding_double_backward))
# --------------------------------------------------------------- layer_norm
rule("native_layer_norm", "NativeLayerNormBackward0",
     input=("input weight dims eps", _layer_norm_input_grad),
     weight=("input dims eps", lambda grad, input, dims, eps: _leading_sum(
         grad * _layer_norm_parts(input, dims, eps)[0], dims)),
     bias=("dims", lambda grad, dims: _leading_sum(grad, dims)))
# ----------------------------------------------------------- pad, norm
rule("constant_pad_nd", "ConstantPadNdBackward0",
     self=("pad", lambda grad, pad: L.constant_pad_nd(grad, [-p for p in pad])))
for mode, dims, node in padding.PAD_NODES:                  # reflect / replicate, 1 to 3 padded dims
    rule(f"{mode}_pad{dims}d", node + "Backward0",
         self=("self pad mode", padding.non_constant_pad_backward))
    rule(f"{mode}_pad{dims}d_backward", node + "BackwardBackward0",
         grad_output=("pad mode", lambda grad, pad, mode: padding.non_constant_pad(grad, pad, mode)),
         self=lambda grad: zeros_like(grad))
rule("norm.ScalarOpt_dim", "NormBackward1",
     self=("self result ord dim keepdim", norms.vector_norm_backward))
rule("soft_margin_loss", "SoftMarginLossBackward0",
     self=("self target reduction count", L.soft_margin_loss_backward))
_BN = "training eps dims channel"
rule("native_batch_norm", "NativeBatchNormBackward0",
     input=(f"input weight {_BN} running_var", _batch_norm_input_grad),
     weight=(f"input {_BN} running_mean running_var", _batch_norm_weight_grad),
     bias=("dims", lambda grad, dims: grad.sum(dims)))
rule("_trilinear", "TrilinearBackward0",         # F.bilinear's product (ops/nn_layers.py)
     i1=("i2 i3", lambda grad, i2, i3: (_forms(grad, i2) * i3.unsqueeze(1)).sum(2)),
     i2=("i1 i3", lambda grad, i1, i3: grad.t().mm(
         (i1.unsqueeze(2) * i3.unsqueeze(1)).reshape(i1.shape[0], i1.shape[1] * i3.shape[1])).reshape(
         grad.shape[1], i1.shape[1], i3.shape[1])),
     i3=("i1 i2", lambda grad, i1, i2: (_forms(grad, i2) * i1.unsqueeze(2)).sum(1)))
_BLOCKS = "kernel_size dilation padding stride"       # ops/fold.py: each the other's adjoint
rule("im2col", "Im2ColBackward0",
     self=(f"self_size {_BLOCKS}", lambda grad, size, *options: FO.col2im(grad, size, *options)))
rule("col2im", "Col2ImBackward0", self=(_BLOCKS, lambda grad, *options: FO.im2col(grad, *options)))
rule("_pack_padded_sequence", "PackPaddedSequenceBackward0",
     input=("self_shape key", lambda grad, self_shape, key: F.embed_in_zeros(grad, self_shape, key)))
_GN = "num_groups eps channel dims"
rule("native_group_norm", "NativeGroupNormBackward0",
     input=(f"input weight {_GN}", lambda grad, input, weight, *options: _group_norm_grads(
         grad, input, weight, *options)[0]),
     weight=(f"input {_GN}", lambda grad, input, *options: (
         grad * _group_norm_grads(grad, input, None, *options)[1]).sum(options[-1])),
     bias=("dims", lambda grad, dims: grad.sum(dims)))
