"""``nn.ParameterList`` and ``nn.ParameterDict``: a list or dict whose tensors are
*registered* parameters of the module (found by ``parameters()``, saved by
``state_dict()`` as ``"0"``, ``"1"``, ... or by their keys), as a plain list hides them.
A plain tensor put in one becomes a ``Parameter``, as in PyTorch.
"""

from .. import dtypes as _dt
from ..tensor import Tensor
from .container import _absolute_index
from .module import Module
from .parameter import Parameter

__all__ = ["ParameterList", "ParameterDict"]


def _as_parameter(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(value, type_name):
    """One line of the repr: ``Parameter containing: [torch.float32 of size 2x3]``."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    size = "x".join(str(n) for n in value.shape)
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{type_name(value)} of size {size}]"


class ParameterList(Module):
    """A list of parameters, named ``"0"``, ``"1"``, ..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_absolute_index(idx, len(self))))

    def __setitem__(self, idx, param):
        setattr(self, str(_absolute_index(idx, len(self))), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        """Add ``value`` at the end; returns the list."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({i}): {_describe(p, lambda t: repr(t.dtype))}" for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters, its keys their names."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def update(self, parameters):
        """Add (or replace) parameters from a mapping or an iterable of (key, value) pairs."""
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        def legacy(t):
            return "autograd_lib." + _dt.LEGACY_NAMES[t.dtype.name]
        return "\n".join(f"  ({k}): {_describe(p, legacy)}" for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
