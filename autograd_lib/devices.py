"""Devices: ``device``, the default device, and the honest answer that there is only the CPU.

autograd_lib computes with NumPy, so every tensor lives in the computer's main
memory: its device is ``device(type='cpu')``.  PyTorch code that *asks* where
to run (``"cuda" if torch.cuda.is_available() else "cpu"``) gets ``False`` and
goes on with the CPU; code that *insists* on a GPU (``x.to("cuda")``,
``zeros(3, device="cuda")``) fails the way a PyTorch built without CUDA fails:
``AssertionError: Torch not compiled with CUDA enabled``.

:func:`check` is what every factory and ``Tensor.to`` call on a ``device``
argument: it parses it as PyTorch does (``"cpu"``, ``"cpu:0"``, a ``device``)
and raises for anything but the CPU.
"""

import re

__all__ = ["device", "set_default_device", "get_default_device", "check"]

# PyTorch's list, in its order (its message names them all).
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


class device:
    """Where a tensor's memory is: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:1')``.

    Any of PyTorch's device types can be *named* (a script may build
    ``device('cuda')`` before it checks availability); only the CPU can hold a tensor.
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({_typename(type)})")
        elif ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            match = re.fullmatch(r"([a-z_]+):(\d+)", type)
            if match is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, index = match.group(1), int(match.group(2))
        if type not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                               f"device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        object.__setattr__(self, "_type", type)
        object.__setattr__(self, "_index", index)

    type = property(lambda self: self._type)
    index = property(lambda self: self._index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'autograd_lib.device' objects is not writable")

    def __eq__(self, other):
        # As PyTorch: a device equals only a device (device('cpu') != 'cpu').
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self):
        return hash((self._type, self._index))

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self):
        return (device, (self._type, self._index))


CPU = device("cpu")
_default = None                 # set_default_device's device (None: the CPU)


def _typename(x):
    return type(x).__name__


def _not_available(dev):
    """The error PyTorch raises when a tensor is put on a device this build lacks."""
    if dev.type == "cuda":
        return AssertionError("Torch not compiled with CUDA enabled (autograd_lib computes with "
                              "NumPy, on the CPU only)")
    if dev.type == "xpu":
        return AssertionError("Torch not compiled with XPU enabled (autograd_lib computes with "
                              "NumPy, on the CPU only)")
    return RuntimeError(f"autograd_lib computes with NumPy, on the CPU only: it has no '{dev.type}' "
                        "device")


def check(dev=None):
    """The device a tensor made with ``device=dev`` lives on: the CPU, or an error.

    ``None`` means the default device (:func:`set_default_device`)."""
    if dev is None:
        dev = _default
        if dev is None:
            return CPU
    elif not isinstance(dev, device):
        if isinstance(dev, str) or (isinstance(dev, int) and not isinstance(dev, bool)):
            dev = device(dev)
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({_typename(dev)})")
    if dev.type != "cpu":
        raise _not_available(dev)
    return CPU


def set_default_device(dev):
    """Make ``dev`` the device of tensors made without a ``device`` argument.

    As in PyTorch the name is checked now but the device only when a tensor is
    made, so ``set_default_device('cuda')`` is accepted and the next
    ``zeros(3)`` raises ``Torch not compiled with CUDA enabled``.  ``None``
    goes back to the CPU."""
    global _default
    _default = None if dev is None else device(dev)


def get_default_device():
    """The device of tensors made without a ``device`` argument (always the CPU here)."""
    if _default is not None and _default.type != "cpu":
        if _default.type in ("cuda", "xpu"):
            raise _not_available(_default)
        raise RuntimeError(f"PyTorch is not linked with support for {_default.type} devices")
    return CPU
