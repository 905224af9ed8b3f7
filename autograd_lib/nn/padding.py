"""The padding layers: ``ReflectionPad{1,2,3}d``, ``ReplicationPad{1,2,3}d``,
``CircularPad{1,2,3}d``, ``ZeroPad{1,2,3}d`` and ``ConstantPad{1,2,3}d``, each ``F.pad`` of its
mode as a module.
An int pads every side by that much; a tuple lists (left, right, top, bottom, front, back)."""

from . import functional as F
from .module import Module

__all__ = [f"{kind}Pad{n}d" for kind in ("Reflection", "Replication", "Circular", "Zero", "Constant")
           for n in (1, 2, 3)]


class _PadNd(Module):
    mode, dims = "constant", 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input):
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return str(self.padding)


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding, value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _layer(kind, dims):
    base = _ConstantPadNd if kind == "Constant" else _PadNd
    mode = {"Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}.get(kind, "constant")
    doc = (f"``F.pad(input, padding, {mode!r})`` over the last {dims} dim(s)"
           + (" (value 0)." if kind == "Zero" else "."))
    return type(f"{kind}Pad{dims}d", (base,), {"mode": mode, "dims": dims, "__doc__": doc,
                                                "__module__": __name__})


for _name in __all__:
    globals()[_name] = _layer(_name[:-len("PadNd")], int(_name[-2]))
del _name
