"""``backends.cudnn``: cuDNN's switches, as a PyTorch built without CUDA has them.

``is_available()`` is False and ``version()`` None; ``enabled``, ``benchmark``,
``deterministic`` and ``allow_tf32`` can be read and set (``torch.backends.cudnn.benchmark =
True`` is a common line), changing nothing; ``flags(...)`` sets them for a block.
"""

import contextlib

__all__ = ["is_available", "version", "is_acceptable", "flags", "enabled", "benchmark", "deterministic",
           "allow_tf32", "benchmark_limit"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = None


def is_available():
    """False: there is no cuDNN here."""
    return False


def version():
    """None: no cuDNN library is loaded."""
    return None


def is_acceptable(tensor):
    """False: cuDNN would not run on ``tensor`` (it never does here)."""
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """Set the switches for a block, as PyTorch's ``cudnn.flags``; they come back after it."""
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    module = globals()
    previous = {n: module[n] for n in names}
    module.update(enabled=enabled, benchmark=benchmark, deterministic=deterministic, allow_tf32=allow_tf32)
    try:
        yield
    finally:
        module.update(previous)
