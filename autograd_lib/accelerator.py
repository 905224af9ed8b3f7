"""``autograd_lib.accelerator``: PyTorch's device-neutral questions about a GPU-like
accelerator (``torch.accelerator.is_available()``): there is none here.

PyTorch's newer tutorials pick their device with
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``:
that gives ``"cpu"``.
"""

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available():
    """False: autograd_lib computes with NumPy on the CPU."""
    return False


def current_accelerator(check_available=False):
    """None: no accelerator."""
    return None


def device_count():
    return 0
