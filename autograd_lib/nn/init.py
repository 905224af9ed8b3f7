"""``nn.init``: fill parameters with their starting values, in place.

Where training starts matters: weights drawn too large make activations and
gradients explode layer after layer, too small and they vanish.  The schemes
here scale the random values by the number of inputs (*fan-in*) and outputs
(*fan-out*) of a layer so that the signal keeps its size.

Every function writes into the tensor under ``no_grad`` (an initialisation is
not part of the computation to differentiate) and returns it.  Random values
come from the library's seeded generator: ``autograd_lib.manual_seed(0)``
makes them reproducible (they are not PyTorch's numbers: the generators differ).
"""

import math
import warnings

import numpy as np

from ..creation import eye, rand, randn, tensor as _tensor
from ..grad_mode import no_grad
from ..ops.special import erfinv

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_",
           "orthogonal_", "sparse_"]


def calculate_gain(nonlinearity, param=None):
    """The factor by which ``nonlinearity`` shrinks the spread of its inputs is
    compensated: 1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for relu,
    ``sqrt(2 / (1 + slope ** 2))`` for leaky_relu (slope ``param``, default 0.01)."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                        "conv_transpose2d", "conv_transpose3d", "sigmoid"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """For a weight ``(out_features, in_features, *kernel)``: (in * kernel, out * kernel)."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with values drawn uniformly from ``[a, b)``."""
    with no_grad():
        values = rand(tensor.shape, dtype=tensor.dtype, generator=generator) * (b - a) + a
        return tensor.copy_(values)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with values drawn from the normal distribution N(mean, std**2)."""
    with no_grad():
        values = randn(tensor.shape, dtype=tensor.dtype, generator=generator) * std + mean
        return tensor.copy_(values)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal): a linear
    layer that starts by passing its inputs through unchanged."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """Fill a convolution's weight ``(out_channels, in_channels, *kernel)`` (1-d, 2-d or 3-d) with
    Dirac deltas: zeros, and a 1 at the kernel's centre linking output channel ``d`` of each of
    the ``groups`` to input channel ``d``, for as many channels as both have.  The layer starts by
    passing its inputs through (as many as it can).  As PyTorch, one write for the zeros, then
    one per 1."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(n // 2 for n in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot & Bengio (2010): U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``,
    keeping the variance of both activations and gradients."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std                  # a uniform on [-a, a] has std a / sqrt(3)
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot & Bengio (2010), normal form: N(0, std**2) with
    ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """``gain / sqrt(fan)``: the standard deviation of He et al.'s schemes."""
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of {['fan_in', 'fan_out']}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He et al. (2015): U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``.

    ``mode="fan_in"`` keeps the size of the activations in the forward pass,
    ``"fan_out"`` that of the gradients in the backward pass.  ``nn.Linear``
    uses ``a=sqrt(5)``, which makes ``bound = 1 / sqrt(in_features)``.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He et al. (2015), normal form: N(0, std**2) with ``std = gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def _normal_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with values from N(mean, std**2) truncated to ``[a, b]``: uniform draws between the
    bounds' probabilities, mapped through the inverse normal CDF."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution "
                      "of values may be incorrect.", stacklevel=2)
    with no_grad():
        low, high = _normal_cdf((a - mean) / std), _normal_cdf((b - mean) / std)
        values = rand(tensor.shape, dtype=tensor.dtype, generator=generator) * (2 * high - 2 * low) + (2 * low - 1)
        values = erfinv(values) * (std * math.sqrt(2.0)) + mean
        return tensor.copy_(values.clamp(min=a, max=b))


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix, the tensor read as ``(shape[0], rest)``: the Q of a
    normal matrix's QR decomposition, its columns' signs fixed by R's diagonal, times ``gain``."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows, cols = tensor.shape[0], tensor.numel() // tensor.shape[0]
    with no_grad():
        flat = randn((rows, cols), dtype=tensor.dtype, generator=generator).numpy()
        q, r = np.linalg.qr(flat.T if rows < cols else flat)
        q = q * np.sign(np.diag(r))
        q = q.T if rows < cols else q
        return tensor.copy_(_tensor(q * gain, dtype=tensor.dtype).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D tensor from N(0, std**2), with ``ceil(sparsity * rows)`` entries of each column zeroed
    (rows drawn at random)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        normal_(tensor, 0, std, generator=generator)
        for column in range(cols):
            picked = rand((rows,), generator=generator).numpy().argsort()[:zeros]
            for row in picked:
                tensor[int(row), column] = 0
        return tensor
