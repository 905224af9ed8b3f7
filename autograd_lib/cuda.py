"""``autograd_lib.cuda``: the questions scripts ask about a GPU, answered honestly.

autograd_lib computes with NumPy on the CPU, so there is no CUDA device:
``is_available()`` is False and ``device_count()`` 0, which is all that the
usual ``device = "cuda" if torch.cuda.is_available() else "cpu"`` needs.  The
calls that only make sense with a GPU raise what a PyTorch built without CUDA
raises (``AssertionError: Torch not compiled with CUDA enabled``); the seeding
calls do nothing, as there.
"""

from .devices import _not_available, device as _device

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "empty_cache", "memory_allocated", "current_device",
           "get_device_name", "get_device_properties", "synchronize"]


def is_available():
    """False: autograd_lib has no GPU backend."""
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Nothing to seed (as in PyTorch without a GPU, silently ignored)."""


def manual_seed_all(seed):
    """Nothing to seed."""


def seed():
    """Nothing to seed."""


def seed_all():
    """Nothing to seed."""


def empty_cache():
    """No GPU memory to release."""


def memory_allocated(device=None):
    return 0


def _no_cuda(*args, **kwargs):
    raise _not_available(_device("cuda"))


current_device = get_device_name = get_device_properties = synchronize = _no_cuda
