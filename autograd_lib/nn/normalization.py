"""Normalization layers: ``nn.LayerNorm`` and ``nn.RMSNorm`` (each sample over its last
dims), ``nn.BatchNorm1d``/``2d``/``3d`` (each channel over the batch), ``nn.GroupNorm``."""

import numbers

from ..creation import empty, ones, tensor, zeros
from ..dtypes import int64
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["LayerNorm"]


def _affine(module, shape, affine, bias, dtype):
    """``weight`` and ``bias`` of ``shape`` (None when not ``affine``, ``bias`` None when
    not ``bias``), set to 1 and 0 by the module's ``reset_parameters``."""
    module.register_parameter("weight", Parameter(empty(shape, dtype=dtype)) if affine else None)
    module.register_parameter("bias", Parameter(empty(shape, dtype=dtype)) if affine and bias else None)


def _reset_affine(module):
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last dims
    ``normalized_shape``; ``weight`` starts at 1, ``bias`` at 0 (``elementwise_affine``)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine(self, self.normalized_shape, elementwise_affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the last dims ``normalized_shape``;
    ``weight`` starts at 1 (``elementwise_affine``); ``eps=None``: the dtype's epsilon."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


__all__ += ["RMSNorm"]


class _BatchNorm(Module):
    """Each channel (dim 1) normalized over the batch and the other dims: with the batch's
    statistics in ``train()`` mode (keeping running averages, updated with ``momentum``,
    or a cumulative average for ``momentum=None``; the running variance is the unbiased
    one), with the running ones in ``eval()`` mode; then ``* weight + bias`` (``affine``).
    The subclasses differ only in the input dims they accept."""

    _input_dims = ()              # the accepted numbers of dims
    _version = 2                  # version 2 added num_batches_tracked (older state_dicts lack it)
    _absent_from_old_versions = ("num_batches_tracked",)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine(self, num_features, affine, True, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked._data[...] = 0

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input):
        if input.dim() not in self._input_dims:
            expected = " or ".join(f"{n}D" for n in self._input_dims)
            raise ValueError(f"expected {expected} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:                       # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        return F.batch_norm(input,
                            self.running_mean if not self.training or self.track_running_stats else None,
                            self.running_var if not self.training or self.track_running_stats else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)``: each feature over the batch
    (and the length)."""

    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of images ``(N, C, H, W)``: each channel over the batch and
    the pixels."""

    _input_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of volumes ``(N, C, D, H, W)``: each channel over the batch and
    the voxels."""

    _input_dims = (5,)


__all__ += ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class GroupNorm(Module):
    """The ``num_channels`` channels in ``num_groups`` groups, each sample's group
    normalized, then ``* weight + bias`` per channel (``affine``)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine(self, num_channels, affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


__all__ += ["GroupNorm"]
