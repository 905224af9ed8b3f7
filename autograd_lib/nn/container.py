"""Containers: modules that hold other modules.

* ``nn.Sequential(a, b, c)``: a pipeline, ``forward(x)`` is ``c(b(a(x)))``;
* ``nn.ModuleList([...])``: a list whose modules are *registered*, so their
  parameters are found by ``parameters()`` (a plain Python list hides them);
* ``nn.ModuleDict({...})``: the same for a dict, its keys the modules' names.

Both name their modules ``"0"``, ``"1"``, ... so parameter names read
``"0.weight"``, ``"1.bias"``, as in PyTorch.
"""

import operator
from collections import OrderedDict
from collections.abc import Iterable

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _absolute_index(idx, size):
    """``idx`` (maybe negative) as a position in ``range(size)``, with PyTorch's error."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: modules named "0", "1", ... kept in order."""

    def _key(self, idx):
        return list(self._modules)[_absolute_index(idx, len(self))]

    def __setitem__(self, idx, module):
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx):
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)
        # Renumber, so that the names stay "0", "1", ...
        self._modules = dict(zip((str(i) for i in range(len(self._modules))),
                                 self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Add ``module`` at the end; returns the container."""
        self.add_module(str(len(self)), module)
        return self

    def _insert(self, index, module):
        """Shift the modules from ``index`` on one place right and put ``module`` there."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def pop(self, key):
        """Remove the module at ``key`` (renumbering the rest) and return it."""
        module = self[key]
        del self[key]
        return module


class Sequential(_ModuleSequence):
    """Modules applied one after the other: ``Sequential(a, b)(x) == b(a(x))``.

    Built from modules (named ``"0"``, ``"1"``, ...) or from an ``OrderedDict``
    of named modules.  Supports ``len``, iteration, indexing (a slice gives a
    new Sequential), ``append``/``extend``/``insert``/``pop``, ``+`` and ``*``.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(idx)]

    def insert(self, index, module):
        """Put ``module`` at position ``index`` (``-len <= index <= len``); returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        self._insert(index + n if index < 0 else index, module)
        return self

    def extend(self, sequential):
        """Append every module of ``sequential`` (any iterable of modules)."""
        for layer in sequential:
            self.append(layer)
        return self

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")

    def __add__(self, other):
        """A new Sequential: the modules of ``self``, then those of ``other``."""
        self._check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        self._check_sequential(other)
        return self.extend(other)

    def __mul__(self, other):
        """A new Sequential repeating the (same, shared) modules ``other`` times."""
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential(*(list(self) * other))

    __rmul__ = __mul__

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_ModuleSequence):
    """A list of registered modules: index it, iterate over it, ``append`` to it.

    It has no ``forward``: you decide in your own ``forward`` how to use them.
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def insert(self, index, module):
        """Put ``module`` before position ``index`` (a non-negative index)."""
        self._insert(index, module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        """A new ModuleList: the modules of ``self``, then those of ``other``."""
        return ModuleList(list(self) + list(other))

    def extend(self, modules):
        """Append every module of an iterable."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def __repr__(self):
        """Like Module's, but runs of identical modules print once: ``(0-2): 3 x ReLU()``."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return f"{type(self).__name__}()"
        blocks = []                                   # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        lines = []
        for first, last, text in blocks:
            line = (f"({first}): {text}" if first == last
                    else f"({first}-{last}): {last - first + 1} x {text}")
            lines.append(_addindent(line, 2))
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of registered modules, in insertion order: ``d["encoder"]``, ``d.items()``.

    Like ModuleList, it has no ``forward``; its keys become the modules' names, so
    parameter names read ``"encoder.weight"``.
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        """Remove ``key`` and return its module."""
        module = self[key]
        del self[key]
        return module

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        """Add (or replace) modules from a mapping or an iterable of (key, module) pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, "
                            "but got " + type(modules).__name__)
        pairs = modules.items() if hasattr(modules, "items") else modules
        for i, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{i} should be Iterable; is "
                                + type(pair).__name__)
            pair = tuple(pair)
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{i} has length {len(pair)}; "
                                 "2 is required")
            self[pair[0]] = pair[1]
