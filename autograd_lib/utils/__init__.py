"""``autograd_lib.utils``: ``utils.data`` (datasets and the DataLoader), as in PyTorch."""

from . import data

__all__ = ["data"]
