"""``save`` and ``load``: tensors, state dicts and checkpoints in a file of our own.

    autograd_lib.save(model.state_dict(), "model.pt")
    model.load_state_dict(autograd_lib.load("model.pt"))

The file is a header line (``MAGIC``) followed by a pickle.  Tensors are not
pickled as objects: each *storage* (the NumPy array a tensor and its views
share) is written once as raw bytes, and each tensor as a reference to it with
its dtype, shape, strides and offset, its ``requires_grad`` and whether it is a
``Parameter``; dtypes, devices and sizes are written by name.  So, as with
PyTorch:

* tensors that shared memory when saved share it when loaded (a view and its
  base, the same tensor saved twice: one object);
* a non-leaf is loaded as a leaf that requires grad (its history is not saved);
* ``weights_only=True`` (the default, as PyTorch 2.6+) loads only tensors,
  containers, numbers, strings and a few safe classes (``OrderedDict``, ``Counter``):
  anything else raises ``pickle.UnpicklingError`` instead of running code from
  the file; ``weights_only=False`` loads any pickled object (trusted files only).

PyTorch's own files (a zip archive) cannot be read, nor can ours by PyTorch: the
error says so.  ``map_location`` may name only the CPU.
"""

import collections
import os
import pickle

import numpy as np

from . import devices as _devices
from . import dtypes as _dt
from .nn.parameter import Parameter
from .tensor import Size, Tensor

__all__ = ["save", "load", "MAGIC"]

MAGIC = b"autograd_lib.save format 1\n"
_ZIP = b"PK\x03\x04"
_SAFE_GLOBALS = {("collections", "OrderedDict"): collections.OrderedDict,
                 ("collections", "Counter"): collections.Counter,
                 ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
                 ("builtins", "slice"): slice, ("builtins", "range"): range,
                 ("builtins", "complex"): complex}


def _root(array):
    """The array that owns ``array``'s memory, and ``array``'s byte offset in it."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return root, offset


class _Pickler(pickle.Pickler):
    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self._storages = {}             # id(root array) -> storage key
        self._roots = []                # keeps the roots alive while saving

    def persistent_id(self, obj):
        if isinstance(obj, Tensor):
            root, offset = _root(obj._data)
            if not root.flags.c_contiguous:     # a strided owner (rare): this tensor on its own
                root, offset = np.ascontiguousarray(obj._data), 0
                strides = root.strides
            else:
                strides = obj._data.strides
            key, storage = self._storages.get(id(root)), None
            if key is None:
                key = self._storages[id(root)] = len(self._storages)
                self._roots.append(root)
                storage = (root.dtype.str, root.size, root.tobytes())
            kind = "Parameter" if isinstance(obj, Parameter) else "Tensor"
            return ("tensor", kind, key, storage, obj.dtype.name, tuple(obj.shape), strides,
                    offset, bool(obj.requires_grad), id(obj))
        if isinstance(obj, _dt.dtype):
            return ("dtype", obj.name)
        if isinstance(obj, _devices.device):
            return ("device", str(obj))
        if isinstance(obj, Size):
            return ("size", tuple(obj))
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, weights_only):
        super().__init__(file)
        self._weights_only = weights_only
        self._storages = {}
        self._tensors = {}

    def persistent_load(self, pid):
        kind = pid[0]
        if kind == "dtype":
            return _dt.as_dtype(pid[1])
        if kind == "device":
            return _devices.device(pid[1])
        if kind == "size":
            return Size(pid[1])
        _, cls, key, storage, dtype, shape, strides, offset, requires_grad, ident = pid
        if ident in self._tensors:
            return self._tensors[ident]
        if storage is not None:
            root_dtype, size, raw = storage
            self._storages[key] = np.frombuffer(bytearray(raw), dtype=np.dtype(root_dtype), count=size)
        array = np.ndarray(shape, dtype=_dt.as_dtype(dtype).numpy, buffer=self._storages[key],
                           offset=offset, strides=strides)
        t = Tensor._make(array)
        if cls == "Parameter":
            t = Parameter(t, requires_grad)
        elif requires_grad:
            t.requires_grad_(True)
        self._tensors[ident] = t
        return t

    def find_class(self, module, name):
        if not self._weights_only:
            return super().find_class(module, name)
        if (module, name) in _SAFE_GLOBALS:
            return _SAFE_GLOBALS[module, name]
        raise pickle.UnpicklingError(
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, do those steps only if you trust the source of the checkpoint. \n\t(1) "
            "Re-running `autograd_lib.load` with `weights_only` set to `False` will likely "
            "succeed, but it can result in arbitrary code execution. Do it only if you got the "
            "file from a trusted source.\n\t(2) Alternatively, load only tensors, containers, "
            f"numbers and strings.\n\tWeightsUnpickler error: Unsupported global: GLOBAL "
            f"{module}.{name} was not an allowed global by default.")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write ``obj`` (tensors, a state dict, any picklable structure) to ``f``: a path
    or a binary file object."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            return save(obj, file, pickle_protocol=pickle_protocol)
    f.write(MAGIC)
    _Pickler(f, max(int(pickle_protocol), 4)).dump(obj)         # 4: bytes without _codecs


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what :func:`save` wrote to ``f`` (a path or a binary file object)."""
    _check_map_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return load(file, weights_only=weights_only)
    head = f.read(len(MAGIC))
    if head != MAGIC:
        name = getattr(f, "name", "the file")
        if head.startswith(_ZIP):
            raise RuntimeError(f"{name} was written by PyTorch's torch.save (a zip archive): "
                               "autograd_lib.load reads only files written by autograd_lib.save. "
                               "Convert it where PyTorch is installed (torch.load, then "
                               "autograd_lib.save of the tensors as NumPy-built tensors).")
        raise RuntimeError(f"{name} is not a file written by autograd_lib.save (it does not "
                           f"start with {MAGIC!r})")
    return _Unpickler(f, weights_only is None or weights_only).load()


def _check_map_location(map_location):
    if map_location is None or callable(map_location) and not isinstance(
            map_location, (str, _devices.device)):
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if _devices.device(target).type != "cpu":
            raise RuntimeError(
                f"Attempting to deserialize object on a {_devices.device(target).type.upper()} "
                "device but autograd_lib.cuda.is_available() is False. If you are running on a "
                "CPU-only machine, please use autograd_lib.load with "
                "map_location=autograd_lib.device('cpu') to map your storages to the CPU.")
