"""The op table: every name an op gives the library, declared once, beside its forward.

An op says, where its forward is written, which names it answers to: its Tensor methods
(dunder aliases included) and its public name in ``autograd_lib`` (``torch.add``)::

    @op("add", "__add__", public=True, inplace="add_")
    def add(input, other, *, alpha=1):
        ...

    methods(__radd__=commuted(add))      # a method that is not a forward of its own

:func:`op` and :func:`methods` install the methods on :class:`Tensor` as they are declared,
:func:`op` and :func:`exports` file the public names in :data:`PUBLIC`, which
``autograd_lib/__init__.py`` exports: nobody keeps a list of op names by hand.  ``inplace``
names the op's in-place method (declared where it is written, often ``ops/inplace*.py``).

A name has one owner.  A second declaration of a Tensor method or a public name raises
:class:`SecondOwner`, naming both places, unless it says ``override="why"``: then it replaces
the first on purpose, and :data:`OVERRIDES` keeps the reason.  So the last import can no
longer win in silence (``derivatives/table.py``'s ``rule`` refuses a second rule the same way).
"""

import sys

from .tensor import Tensor

__all__ = ["op", "methods", "exports", "SecondOwner", "OWNERS", "PUBLIC", "INPLACE", "OVERRIDES"]

OWNERS = {}     # "Tensor.add" / "autograd_lib.add" -> "file:line" of its declaration
PUBLIC = {}     # public name -> the object autograd_lib exports under it, in declaration order
INPLACE = {}    # op's public name or first method -> the name of its in-place method
OVERRIDES = []  # (name, "file:line" replaced, "file:line" replacing, why)
OWNERS.update((f"Tensor.{name}", "autograd_lib/tensor.py") for name in vars(Tensor))   # its class body


class SecondOwner(ValueError):
    """A second declaration of a name that has an owner: one would silently replace the other."""


def op(*method_names, public=False, inplace=None, override=None):
    """Declare the decorated forward as an op: Tensor methods ``method_names``; the public
    name ``public`` (``True``: the function's own name; a string, or a tuple of them: those);
    ``inplace``: the name of its in-place method.  ``override="why"``: it replaces on purpose
    the names it declares that already have an owner."""
    here = _declared_at(sys._getframe(1))

    def declare(fn):
        names = (fn.__name__,) if public is True else (public,) if isinstance(public, str) else public or ()
        _install(here, override, {name: fn for name in method_names}, {name: fn for name in names})
        if inplace is not None:
            INPLACE[(names or method_names)[0]] = inplace
        return fn
    return declare


def methods(*, override=None, **named):
    """Declare Tensor methods that are not a forward of their own (a reflected operator, a
    lambda, a property): ``methods(__radd__=commuted(add), T=property(_T))``."""
    _install(_declared_at(sys._getframe(1)), override, named, {})


def exports(*, override=None, **named):
    """Declare public names whose object is not a forward declared with :func:`op` (an alias
    made by a function): ``exports(arctan2_=atan2_)``."""
    _install(_declared_at(sys._getframe(1)), override, {}, named)


def _install(here, override, tensor_methods, public_names):
    """Check every name first, then put the methods on Tensor and the names in PUBLIC: a
    refused declaration installs nothing."""
    keys = [f"Tensor.{name}" for name in tensor_methods] + [f"autograd_lib.{name}" for name in public_names]
    for key in keys:
        first = OWNERS.get(key)
        if first is not None and not override:
            raise SecondOwner(f"{key} is declared at {here}, and already at {first}: a name has one "
                              f"owner; remove one, or say override=\"why\" at the second")
    for key in keys:
        if key in OWNERS:
            OVERRIDES.append((key, OWNERS[key], here, override))
        OWNERS[key] = here
    for name, value in tensor_methods.items():
        setattr(Tensor, name, value)
    PUBLIC.update(public_names)


def _declared_at(frame):
    """``autograd_lib/...py:line`` of the declaring line."""
    parts = frame.f_code.co_filename.replace("\\", "/").split("/")
    path = "/".join(parts[len(parts) - 1 - parts[::-1].index("autograd_lib"):]) if "autograd_lib" in parts \
        else frame.f_code.co_filename
    return f"{path}:{frame.f_lineno}"
