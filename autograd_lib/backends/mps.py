"""``backends.mps``: Apple's GPU, which autograd_lib does not use (``is_available()`` is False)."""

__all__ = ["is_available", "is_built"]


def is_available():
    """False: autograd_lib computes with NumPy on the CPU."""
    return False


def is_built():
    """False: no MPS support is built in."""
    return False


def __getattr__(name):
    raise AttributeError(f"module 'autograd_lib.backends.mps' has no attribute '{name}' (autograd_lib has no "
                         "MPS backend: only is_available() and is_built(), both False)")
