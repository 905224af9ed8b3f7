"""The ops behind a few layers of ``nn``: ``embedding``, ``native_layer_norm``,
``native_batch_norm``, ``native_group_norm``, ``constant_pad_nd`` (``F.pad``), ``one_hot``,
``soft_margin_loss``, the ``norm`` that ``pairwise_distance`` records (NormBackward1),
``trilinear`` (``F.bilinear``) and ``pack_padded_sequence_data`` (``nn.utils.rnn``).  Rules
in ``derivatives/nn_ops.py``.
"""

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import no_grad
from ..recording import record
from ..tensor import Tensor
from .norms import vector_norm
from .arithmetic import div_scalar
from .operands import to_tensor, wrap_dims
from .pointwise import sigmoid

__all__ = ["one_hot", "embedding", "embedding_dense_backward", "native_layer_norm",
           "constant_pad_nd", "norm_with_dims", "soft_margin_loss", "soft_margin_loss_backward",
           "native_batch_norm", "native_group_norm", "trilinear", "pack_padded_sequence_data"]


def one_hot(tensor, num_classes=-1):
    """Each class index as a row of zeros with a 1 at the index (int64)."""
    if tensor.dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    x = tensor._data
    if num_classes == -1:
        if x.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size and x.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if x.size and x.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((x[..., None] == np.arange(num_classes)).astype(np.int64))


# --------------------------------------------------------------- embedding

def _check_indices(indices):
    if indices.dtype.is_floating_point or indices.dtype.name not in ("int64", "int32"):
        legacy = _dt.LEGACY_NAMES[indices.dtype.name]
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got autograd_lib.{legacy} instead (while checking "
                           "arguments for embedding)")


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    """Rows ``weight[indices]``: shape ``indices.shape + (embedding_dim,)`` (EmbeddingBackward0)."""
    _check_indices(indices)
    idx = indices._data
    if idx.size and (idx.max() >= weight.shape[0] or idx.min() < 0):
        raise IndexError("index out of range in self")
    return record("embedding", weight._data[idx], (weight,),
                  {"indices": idx, "num_weights": weight.shape[0], "padding_idx": padding_idx,
                   "scale_grad_by_freq": scale_grad_by_freq})


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's gradient: each row of ``grad_output`` added into its index's row;
    none into ``padding_idx``; divided by the index's count with ``scale_grad_by_freq``."""
    g = grad_output._data.reshape(-1, grad_output.shape[-1])
    flat = indices.reshape(-1)
    keep = flat != padding_idx
    counts = np.bincount(flat, minlength=num_weights)
    scale = 1 / counts[flat] if scale_grad_by_freq else 1
    out = np.zeros((num_weights, g.shape[1]), dtype=g.dtype)
    np.add.at(out, flat[keep], (g * np.reshape(scale, (-1, 1)) if scale_grad_by_freq else g)[keep])
    return record("embedding_dense_backward", out, (grad_output,),
                  {"indices": indices, "padding_idx": padding_idx})


# -------------------------------------------------------------- layer_norm

def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last
    ``len(normalized_shape)`` dims (NativeLayerNormBackward0)."""
    input = to_tensor(input)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"LayerNormKernelImpl" not implemented for '
                                  f"'{_dt.LEGACY_NAMES[input.dtype.name][:-len('Tensor')]}'")
    shape = tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or len(shape) > input.ndim:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    x = input._data
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    return record("native_layer_norm", out.astype(x.dtype), (input, weight, bias),
                  {"normalized_shape": shape, "eps": eps, "dims": axes})


# ------------------------------------------------------------------- pad

def constant_pad_nd(input, pad, value=0):
    """``input`` with ``pad = (left, right, top, bottom, ...)`` elements of ``value`` added
    around its last dims (negative: removed) (ConstantPadNdBackward0)."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    x = input._data
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    grown = np.pad(x, [(max(a, 0), max(b, 0)) for a, b in widths], constant_values=value)
    key = tuple(slice(-a if a < 0 else 0, n - (-b if b < 0 else 0)) for (a, b), n in
                zip(widths, grown.shape))
    array = np.ascontiguousarray(grown[key])
    if any(n < 0 for n in array.shape) or (array.size == 0 and x.size and any(
            n <= 0 for n in array.shape)):
        raise RuntimeError(f"The input size {x.shape[-1]}, plus negative padding "
                           f"{pad[0]} and {pad[1]} resulted in a negative output size, which is "
                           "invalid. Check dimension 1 of your input.")
    return record("constant_pad_nd", array, (input,), {"pad": tuple(pad), "self_shape": input.shape})


# ------------------------------------------------------------------ norm

def norm_with_dims(input, p, dim, keepdim=False):
    """``at::norm(input, p, dim, keepdim)``: the vector ``p``-norm along ``dim``, recorded as
    PyTorch's ``norm.ScalarOpt_dim`` (NormBackward1; ``x.norm()`` itself records
    LinalgVectorNormBackward0)."""
    dims = wrap_dims(dim, input.ndim)
    with no_grad():
        value = vector_norm(input, p, dims, keepdim)
    return record("norm.ScalarOpt_dim", value._data, (input,),
                  {"ord": p, "dim": dims, "keepdim": keepdim})


# ------------------------------------------------------ soft_margin_loss

def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))``, ``target`` in {-1, 1} (SoftMarginLossBackward0)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x, y = input._data, np.asarray(target._data, dtype=input._data.dtype)
    loss = np.logaddexp(0, -y * x).astype(x.dtype)
    if reduction != "none":
        loss = loss.mean() if reduction == "mean" else loss.sum()
    # as in PyTorch, only the input is differentiated (no edge for the target)
    return record("soft_margin_loss", np.asarray(loss, dtype=x.dtype), (input,),
                  {"target": target.detach(), "reduction": reduction, "count": x.size})


def soft_margin_loss_backward(grad, input, target, reduction, count):
    """``grad * -target * sigmoid(-target * input)`` (divided by the count for "mean")."""
    grad_in = grad * (-target * sigmoid(-target * input))
    return div_scalar(grad_in, count) if reduction == "mean" else grad_in


# ------------------------------------------------------------- batch_norm

def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Normalize each channel (dim 1) over the batch and the other dims: with the batch's
    own statistics in training (and ``running_mean``/``running_var`` updated in place,
    the variance unbiased), with the running ones otherwise (NativeBatchNormBackward0)."""
    x = input._data
    dims = (0, *range(2, x.ndim))
    channel = (1, -1, *[1] * (x.ndim - 2))
    if training:
        mean = x.mean(axis=dims)
        var = x.var(axis=dims)
        if running_mean is not None:
            n = x.size // x.shape[1]
            running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
            running_var._data[...] = (1 - momentum) * running_var._data + momentum * var * n / max(n - 1, 1)
    else:
        mean, var = running_mean._data, running_var._data
    out = (x - mean.reshape(channel)) / np.sqrt(var.reshape(channel) + eps)
    if weight is not None:
        out = out * weight._data.reshape(channel)
    if bias is not None:
        out = out + bias._data.reshape(channel)
    params = {"training": training, "eps": eps, "dims": dims, "channel": channel,
              "running_mean": None if training else running_mean.detach().clone(),
              "running_var": None if training else running_var.detach().clone()}
    return record("native_batch_norm", out.astype(x.dtype), (input, weight, bias), params)


# ------------------------------------------------------------- group_norm

def native_group_norm(input, weight, bias, num_groups, eps):
    """The channels (dim 1) split into ``num_groups`` groups, each sample's group normalized
    to mean 0 and variance 1, then ``* weight + bias`` per channel (NativeGroupNormBackward0)."""
    x = input._data
    n, c = x.shape[0], x.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but "
                           f"got input of shape {list(x.shape)} and num_groups={num_groups}")
    groups = x.reshape(n, num_groups, -1)
    mean = groups.mean(axis=2, keepdims=True)
    rstd = 1 / np.sqrt(groups.var(axis=2, keepdims=True) + eps)
    out = ((groups - mean) * rstd).reshape(x.shape)
    channel = (1, c, *[1] * (x.ndim - 2))
    if weight is not None:
        out = out * weight._data.reshape(channel)
    if bias is not None:
        out = out + bias._data.reshape(channel)
    return record("native_group_norm", out.astype(x.dtype), (input, weight, bias),
                  {"num_groups": num_groups, "eps": eps, "channel": channel,
                   "dims": (0, *range(2, x.ndim))})


# ------------------------------------------------------------- bilinear

def trilinear(input1, weight, input2):
    """``out[n, o] = sum_ij input1[n, i] weight[o, i, j] input2[n, j]``: the product of
    ``F.bilinear``, for inputs ``(N, in1)``, ``(N, in2)`` and a weight ``(out, in1, in2)``.
    PyTorch records it as its general ``_trilinear`` (TrilinearBackward0)."""
    out = np.einsum("ni,oij,nj->no", input1._data, weight._data, input2._data)
    return record("_trilinear", out.astype(input1._data.dtype, copy=False), (input1, weight, input2))


# ------------------------------------------------------- packed sequences

def pack_padded_sequence_data(input, lengths, batch_first):
    """The rows of the padded ``input`` (``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``)
    that belong to a sequence, time step by time step: step ``t`` gives the first
    ``batch_sizes[t]`` sequences (``lengths`` is sorted, longest first).  Returns
    ``(data, batch_sizes)`` (PackPaddedSequenceBackward0; ``batch_sizes`` is int64)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    batch = input.shape[0 if batch_first else 1]
    if lengths.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size} "
                           f"(batch_size={batch})")
    if lengths.size and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in "
                           "'lengths' that is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                           "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                           "pack_sequence to sidestep this requirement if you do not need ONNX "
                           "exportability.")
    steps = input.shape[1 if batch_first else 0]
    if lengths.size and lengths[0] > steps:
        raise RuntimeError(f"autograd_lib: a sequence length ({lengths[0]}) exceeds the padded "
                           f"length of the input ({steps}); PyTorch reads past the input there")
    batch_sizes = (lengths[None, :] > np.arange(int(lengths[0]) if lengths.size else 0)[:, None]).sum(1)
    times = np.concatenate([np.full(n, t) for t, n in enumerate(batch_sizes)] or [np.zeros(0, int)])
    rows = np.concatenate([np.arange(n) for n in batch_sizes] or [np.zeros(0, int)])
    key = (rows, times) if batch_first else (times, rows)
    data = record("_pack_padded_sequence", input._data[key], (input,),
                  {"self_shape": input.shape, "key": key})
    return data, Tensor._make(batch_sizes.astype(np.int64))
