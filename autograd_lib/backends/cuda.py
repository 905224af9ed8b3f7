"""``backends.cuda``: CUDA's switches, as a PyTorch built without CUDA has them.

``is_built()`` is False; ``matmul.allow_tf32`` and its kin can be read and set (they would
change how a GPU multiplies; here nothing).  Attention kernels (``sdp_kernel``,
``flash_sdp_enabled``, ...) are not part of autograd_lib.
"""

__all__ = ["is_built", "matmul"]


def is_built():
    """False: autograd_lib is not built with CUDA."""
    return False


class cuBLASModule:
    """``backends.cuda.matmul``: the precision switches of a GPU's matrix products."""

    _SWITCHES = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True, "fp32_precision": "none"}

    def __init__(self):
        object.__setattr__(self, "_values", dict(self._SWITCHES))

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._SWITCHES:
            raise AttributeError(f"Unknown attribute {name}")
        return self._values[name]

    def __setattr__(self, name, value):
        if name not in self._SWITCHES:
            raise AttributeError(f"Unknown attribute {name}")
        self._values[name] = value


matmul = cuBLASModule()


def __getattr__(name):
    raise AttributeError(f"module 'autograd_lib.backends.cuda' has no attribute '{name}' (autograd_lib has no "
                         "CUDA backend: is_built() is False; attention kernels are not part of it)")
