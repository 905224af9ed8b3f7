"""``autograd_lib.backends``: the questions scripts ask about PyTorch's backends, answered as a
PyTorch without a GPU answers them.

Scripts pick a device with ``torch.backends.mps.is_available()`` and tune GPU kernels with
``torch.backends.cudnn.benchmark = True`` or ``torch.backends.cuda.matmul.allow_tf32 = True``.
Here there is no GPU (NumPy computes on the CPU): ``mps`` and ``cuda`` report False and
``cudnn`` is not available, while its switches can be set, changing nothing, as in PyTorch
without CUDA.  The other backends PyTorch lists (``mkldnn``, ``openmp``, ``quantized``, ...) are
about PyTorch's own kernels: asking for one raises an ``AttributeError`` that says so.
"""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]

# PyTorch's other backends: its own CPU kernels and libraries, which autograd_lib does not have.
_NOT_HERE = ("cpu", "cusparselt", "kleidiai", "mha", "miopen", "mkl", "mkldnn", "nnpack", "openmp",
             "opt_einsum", "python_native", "quantized", "xeon", "xnnpack", "mps_is_available")


def __getattr__(name):
    if name in _NOT_HERE:
        raise AttributeError(f"autograd_lib.backends has no {name!r}: PyTorch's {name} backend belongs to "
                             "its own kernels, which autograd_lib (NumPy on the CPU) does not have")
    raise AttributeError(f"module 'autograd_lib.backends' has no attribute '{name}'")
