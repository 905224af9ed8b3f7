"""``nn.Module``: the base class of every layer, loss and model.

A module owns three ordered dictionaries:

* ``_parameters``: its own :class:`Parameter` s, the tensors an optimizer trains;
* ``_buffers``: other tensors that are part of its state but are not trained
  (a loss's class weights, running statistics, ...);
* ``_modules``: its submodules, the layers it is built from.

Nobody fills them by hand: **assigning an attribute does it**.  In ::

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()                 # creates the three dicts
            self.hidden = nn.Linear(4, 8)      # -> self._modules["hidden"]
            self.scale = nn.Parameter(...)     # -> self._parameters["scale"]

each assignment goes through :meth:`Module.__setattr__`, which looks at the
type of the value and files it.  Everything else -- ``parameters()``,
``named_parameters()``, ``zero_grad()``, ``train()``/``eval()``,
``state_dict()``, the printed tree -- is a walk over these dictionaries,
recursing into the submodules.  Calling a module (``model(x)``) runs its
``forward``.

Why one file of this length: ``Module`` is one class, and its filing, walks, state
dict and dotted-path lookups read as one story; its hooks are in ``hooks.py``.
"""

from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..dtypes import LEGACY_NAMES
from ..grad_mode import no_grad
from ..ops.copies import to_arguments
from ..tensor import Tensor
from .hooks import ModuleHooks
from .parameter import Parameter

__all__ = ["Module"]


def _typename(obj):
    """How PyTorch's error messages name a value: ``autograd_lib.FloatTensor``, ``int``, ..."""
    if isinstance(obj, Tensor):
        return f"autograd_lib.{LEGACY_NAMES[obj.dtype.name]}"
    cls = type(obj)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _addindent(text, spaces):
    """Indent every line of ``text`` but the first (for nested reprs)."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line for line in rest])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys that did not match."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def clear_grads(params, set_to_none=True):
    """What ``zero_grad`` does, for modules and optimizers alike: ``.grad = None``,
    or keep each ``.grad`` tensor (cut from any graph) and fill it with zeros."""
    for param in params:
        if param.grad is None:
            continue
        if set_to_none:
            param.grad = None
        else:
            if param.grad.grad_fn is not None:
                param.grad.detach_()
            else:
                param.grad.requires_grad_(False)
            param.grad.zero_()


class Module(ModuleHooks):
    """Base class for all neural network modules: subclass it and define ``forward``.
    Calling it runs ``forward`` between its forward hooks (``hooks.py``)."""

    # The version of the module's state_dict layout, kept in a state_dict's ``_metadata``;
    # ``_absent_from_old_versions``: the keys a state_dict of an earlier version lacks, which
    # loading it does not report missing (the module keeps its own value), as PyTorch's do.
    _version = 1
    _absent_from_old_versions = ()

    def __init__(self):
        # object.__setattr__ because our own __setattr__ needs these to exist.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})

    def forward(self, *args, **kwargs):
        """The computation of the module: every subclass defines it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    # ------------------------------------------------------------ registering
    def _check_new_name(self, name, kind, registry):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\""
                           + (f", got: {name}" if kind == "module" else ""))
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        """Add ``param`` (a Parameter, or None for "no such parameter") as ``self.<name>``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(autograd_lib.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is module state but not trained.  Persistent buffers are
        saved in ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(autograd_lib Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a submodule as ``self.<name>`` (what ``self.<name> = module`` does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_new_name(name, "module", self._modules)
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def _get_name(self):
        return type(self).__name__

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``"encoder.fc"``; ``""`` is ``self``)."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def _get_member(self, target, kind):
        """``get_parameter``/``get_buffer``: the submodule's attribute, checked for its kind."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        value = getattr(module, name)
        if kind == "parameter" and not isinstance(value, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        if kind == "buffer" and name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return value

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` (``"encoder.fc.weight"``)."""
        return self._get_member(target, "parameter")

    def get_buffer(self, target):
        """The buffer at dotted path ``target``."""
        return self._get_member(target, "buffer")

    def __setattr__(self, name, value):
        """File Parameters, Modules and buffer tensors in their dictionaries."""
        def remove_from(*containers):
            for container in containers:
                if name in container:
                    if isinstance(container, dict):
                        del container[name]
                    else:
                        container.discard(name)

        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(autograd_lib.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers,
                        self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(autograd_lib.nn.Module or None expected)")
            modules[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(autograd_lib.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters, buffers and
        # submodules live in the dictionaries, not in __dict__.
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    # ---------------------------------------------------------------- walking
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yield ``(name, module)`` for this module and every submodule, depth first.

        Names are dotted paths (``"0"``, ``"encoder.fc"``); this module's is ``prefix``.
        A module reachable twice is yielded once (unless ``remove_duplicate=False``).
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                                remove_duplicate)

    def modules(self):
        """Every module of the tree, this one first."""
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        """Yield ``(name, module)`` for the direct submodules."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members, prefix, recurse, remove_duplicate):
        """Walk the tree and yield the members ``get_members(module)`` lists, with
        dotted names.  With ``remove_duplicate`` a tensor shared by several
        modules is yielded once, under its first name."""
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or value in memo:      # tensors hash by identity
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted name, parameter)``, e.g. ``("0.weight", ...)``."""
        return self._named_members(lambda module: module._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse=True):
        """Every parameter of the tree, each once: what you give an optimizer."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda module: module._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        """Call ``fn(module)`` on every submodule (children first), then on ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ----------------------------------------------------------- mode & grads
    def train(self, mode=True):
        """Set training mode here and in every submodule (layers such as dropout
        behave differently in training and evaluation)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Switch gradient recording on or off for every parameter (freezing layers)."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of every parameter before the next backward.

        ``set_to_none=True`` sets ``p.grad = None`` (the next backward stores a
        fresh tensor); ``False`` keeps each ``.grad`` tensor and fills it with zeros.
        """
        clear_grads(self.parameters(), set_to_none)

    # ------------------------------------------------------- dtype and device
    def _apply(self, fn):
        """Replace every parameter's and buffer's values with ``fn(tensor)`` (and each
        ``.grad``'s): a parameter keeps its identity (an optimizer still holds it)."""
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                param.data = fn(param)
                if param._grad is not None:
                    param._grad.data = fn(param._grad)
            for name, buffer in self._buffers.items():
                if buffer is not None:
                    self._buffers[name] = fn(buffer)
        return self

    def to(self, *args, **kwargs):
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``: move and/or
        cast the floating-point parameters and buffers, in place; returns the module.
        The only device is the CPU, so a move is a no-op (and "cuda" raises)."""
        _, dtype, _, _ = to_arguments(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype!r}")
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def cpu(self):
        """The module itself: its tensors are on the CPU already."""
        return self

    def cuda(self, device=None):
        """Raises, as PyTorch built without CUDA does."""
        to_arguments("cuda" if device is None else device)

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    # -------------------------------------------------------------- state dict
    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """The parameters and persistent buffers of the tree, by dotted name.

        The values are ``detach()``-ed tensors sharing storage with the model
        (``keep_vars=True``: the tensors themselves): copy them to keep a
        snapshot that later training does not change.
        """
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copy the values of ``state_dict`` into the parameters and buffers, in place.

        With ``strict=True`` the keys must match ``self.state_dict()``'s exactly.
        Shapes must always match.  Returns the missing and unexpected keys.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict and key not in self._kept_when_absent(state_dict)]
        unexpected = [key for key in state_dict if key not in own]
        errors = []
        with no_grad():
            for key, target in own.items():
                if key not in state_dict:
                    continue
                value = state_dict[key]
                if not isinstance(value, Tensor):
                    errors.append(f'While copying the parameter named "{key}", expected '
                                  "autograd_lib.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                elif value.shape != target.shape:
                    errors.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model is "
                                  f"{target.shape}.")
                else:
                    target.copy_(value)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{key}"' for key in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{key}"' for key in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _kept_when_absent(self, state_dict):
        """The keys a state_dict of an earlier layout version (or one without ``_metadata``,
        which PyTorch reads as the oldest) lacks by design, over the module tree."""
        metadata = getattr(state_dict, "_metadata", None) or {}
        kept = set()
        for name, module in self.named_modules():
            version = metadata.get(name, {}).get("version")
            if module._absent_from_old_versions and (version is None or version < module._version):
                kept.update(f"{name}.{key}" if name else key for key in module._absent_from_old_versions
                            if module._buffers.get(key) is not None)
        return kept

    # ------------------------------------------------------------------ repr
    def extra_repr(self):
        """The text between the parentheses of this module's repr (override it)."""
        return ""

    def __repr__(self):
        """``Name(extra)`` or, with submodules, one indented ``(name): repr`` line each."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_addindent(repr(module), 2)}"
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{type(self).__name__}({body})"
