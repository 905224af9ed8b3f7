"""``autograd_lib.utils``: ``utils.data`` (datasets and the DataLoader) and ``utils.checkpoint``
(activation checkpointing), as in PyTorch."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
