"""The functions of ``nn.functional`` behind the embedding, distance and normalization
layers, and ``pad`` (re-exported by ``functional.py``): ``one_hot``, ``embedding``,
``normalize``, ``cosine_similarity``, ``pairwise_distance``, ``layer_norm``, ``kl_div``, ``pad``.

Each is built from the library's ops as PyTorch builds it, so the recorded graph is the
same (``normalize`` divides by a clamped ``vector_norm``; ``pad``'s circular mode copies
slices of the input into the result).
"""

import warnings

import numpy as _np

from .. import ops as _ops
from ..creation import empty as _empty
from ..creation import tensor as _tensor
from ..grad_mode import no_grad as _no_grad
from ..ops.norms import vector_norm as _vector_norm
from ..ops.pointwise import exp as _exp
from ..ops.operands import to_tensor as _to_tensor
from ..ops import nn_ops as _N
from ..ops import padding as _padding
from .functional_losses import _reduce
from ..op_table import op

__all__ = ["one_hot", "embedding", "normalize", "cosine_similarity", "pairwise_distance",
           "layer_norm", "kl_div", "pad"]


def one_hot(tensor, num_classes=-1):
    """Class indices as one-hot rows (int64): ``one_hot(tensor([0, 2]))`` is ``[[1,0,0],[0,0,1]]``."""
    return _N.one_hot(tensor, num_classes)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of ``weight`` at the indices ``input`` (EmbeddingBackward0).  Row
    ``padding_idx`` gets no gradient."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse:
        raise NotImplementedError("embedding(..., sparse=True) is not implemented in autograd_lib: "
                                  "sparse gradients do not exist here")
    return _N.embedding(weight, input, padding_idx, scale_grad_by_freq)


def _embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rescale, in place and without recording, each row of ``weight`` that ``indices`` looks
    up and whose ``norm_type``-norm is above ``max_norm``, to a norm of ``max_norm`` (as
    PyTorch's ``embedding_renorm_``, one in-place write: ``weight._version`` goes up by one)."""
    rows = _np.unique(_np.asarray(indices._data).reshape(-1))
    data = weight._data[rows]
    norms = _np.linalg.norm(data, ord=norm_type, axis=1)
    scale = _np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(data.dtype)
    with _no_grad():
        weight[_tensor(rows)] = _tensor(data * scale[:, None])


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``: unit vectors."""
    norm = _vector_norm(input, p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / norm


@op(public=True)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (||x1|| ||x2||)`` along ``dim``, each norm at least ``eps`` (as PyTorch:
    the norms are clamped without recording it, on a clone)."""
    if x1.shape != x2.shape:
        shape = _np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)

    def unit(x):
        norm = _vector_norm(x, 2, dim, keepdim=True).clone()
        with _no_grad():
            norm.clamp_min_(eps)
        return x / norm
    return (unit(x1) * unit(x2)).sum(dim)


@op(public=True)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dim (NormBackward1)."""
    return _N.norm_with_dims(_ops.add_scalar(x1 - x2, eps), p, -1, keepdim)   # AddBackward1


@op(public=True)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Each sample normalized over its last dims (``normalized_shape``) to mean 0 and
    variance 1, then ``* weight + bias`` (NativeLayerNormBackward0)."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _N.native_layer_norm(input, normalized_shape, weight, bias, eps)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The KL divergence ``target * (log(target) - input)``, ``input`` being log-probabilities
    (``log_target``: so is ``target``).  ``"batchmean"`` divides the sum by the batch size."""
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with the "
                      "KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    if log_target:
        loss = _exp(target) * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)


def pad(input, pad, mode="constant", value=None):
    """``input`` with ``pad = (left, right, top, bottom, ...)`` added around its last dims:
    ``value`` (ConstantPadNdBackward0), or the border mirrored (``"reflect"``), repeated
    (``"replicate"``) or wrapped around (``"circular"``)."""
    if mode == "constant":
        return _N.constant_pad_nd(input, list(pad), 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode in ("reflect", "replicate"):
        return _padding.non_constant_pad(input, pad, mode)
    if mode == "circular":
        return _pad_circular(_to_tensor(input), tuple(int(p) for p in pad))
    raise NotImplementedError(f"Unrecognised padding mode {mode}")


def _pad_circular(input, pad):
    """``F.pad(mode="circular")`` built as PyTorch builds it: the input (cropped where a pad
    is negative) copied into the middle of a new tensor, then, dim by dim, each border copied
    from the opposite side of that tensor (so corners are written twice).  Each copy is a
    write through a view: the graph is a chain of CopySlices, as PyTorch's."""
    dims = _padding.padded_dims(input, pad)
    in_shape = tuple(input.shape)
    out_shape = list(in_shape)
    sides = [(input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(dims)]   # (dim, left, right)
    for dim, left, right in sides:
        if left > in_shape[dim] or right > in_shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[dim] = in_shape[dim] + left + right
        if out_shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")

    def along(t, dim, start, stop):                 # t.slice(dim, start, stop): SliceBackward0
        return t.narrow(dim, start, stop - start)

    out = _empty(*out_shape, dtype=input.dtype)
    middle, source = out, input
    for dim, left, right in sides:
        middle = along(middle, dim, max(left, 0), out_shape[dim] - max(right, 0))
        source = along(source, dim, max(-left, 0), in_shape[dim] - max(-right, 0))
    middle.copy_(source)
    for dim, left, right in sides:
        end = out_shape[dim]
        if left > 0:
            along(out, dim, 0, left).copy_(along(out, dim, end - left - max(right, 0), end - max(right, 0)))
        if right > 0:
            along(out, dim, end - right, end).copy_(along(out, dim, max(left, 0), max(left, 0) + right))
    return out


def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (the library's xlogy when it has one)."""
    xlogy = getattr(_ops, "xlogy", None)
    if xlogy is not None:
        return xlogy(x, y)
    return _ops.where(x == 0, 0.0, x * _ops.log(y))

