"""How a gradient rule is declared: :func:`rule` (the package's docstring says what a rule is).

:func:`rule` makes the backward node class of a forward op and files it in
``recording.RULES`` (which ``record`` reads when an op runs) and ``NODES`` (by node name,
which the exercises' rule slots use).  It refuses a second rule for an op that has one
(:class:`DuplicateRule`, naming both places): every op has exactly one rule.
"""

import sys

from ..graph import Node, expose_saved
from ..recording import RULES

__all__ = ["rule", "NODES", "RULES", "BY_INPUT_COUNT", "DECLARED_AT", "DuplicateRule"]

NODES = {}          # backward node name -> its first class (the exercises' rule slots name nodes)
BY_INPUT_COUNT = {}  # (variadic rule's node class, number of tensors) -> its class for them
DECLARED_AT = {}    # forward op -> "file:line" of the rule(...) that declared it


class DuplicateRule(ValueError):
    """A second gradient rule for a forward op that has one: the table keeps one rule per
    op, so a second would silently replace the first."""


def rule(op, node, /, *, all_grads=False, variadic=False, saves=(), **formulas):
    """Declare the backward of forward op ``op``: node ``node`` (PyTorch's name for
    it, or an existing Node class) with one formula per input, in input order.

    Each formula is ``(needs, fn)``, ``needs`` being the space-separated names of
    the values ``fn(grad, *values)`` is given after ``grad``, or just ``fn`` when it
    needs none.  ``all_grads``: the op has several outputs (unbind) and ``fn`` is given
    the list of their gradients instead of one ``grad``.  ``variadic``: the op takes a
    list of tensors (cat, stack); the single formula serves each of them and is given
    the tensor's position in the list after its values.  ``saves``: the plain values
    that PyTorch saves as tensors (the indices of ``x[[0, 2]]``): the node keeps them
    with its saved tensors, so they are freed after backward like them.
    """
    caller = sys._getframe(1)
    here = f"{_library_path(caller.f_code.co_filename)}:{caller.f_lineno}"
    if op in RULES:
        raise DuplicateRule(f"a second gradient rule for {op!r} ({node if isinstance(node, str) else node.__name__}) "
                            f"at {here}: {op!r} already has {RULES[op].__name__}, declared at "
                            f"{DECLARED_AT.get(op, 'an unknown place')}; an op has exactly one rule")
    compiled = {}
    for input_name, spec in formulas.items():
        needs, fn = ("", spec) if callable(spec) else spec
        compiled[input_name] = (fn, tuple(needs.split()))
    expose_saved(list(formulas) + [name for _, needs in compiled.values() for name in needs])
    attributes = {"input_names": tuple(formulas), "formulas": compiled, "_all_grads": all_grads,
                  "saves": tuple(saves)}
    if isinstance(node, str):
        cls = type(node, (Node,), {**attributes, "__slots__": ()})
        cls.__module__ = "autograd_lib.derivatives"
        cls.__doc__ = f"The backward node of {op} (PyTorch's {node})."
    else:
        cls = node
        for key, value in attributes.items():
            setattr(cls, key, value)
    if variadic:
        _one_input_per_tensor(cls)
    RULES[op] = cls
    DECLARED_AT[op] = here
    NODES.setdefault(cls.__name__, cls)   # ops sharing a node name: the first declared keeps it
    return cls


def _library_path(filename):
    """``autograd_lib/...py`` for a file of the library (the full name of any other)."""
    parts = filename.replace("\\", "/").split("/")
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("autograd_lib"):]) if "autograd_lib" in parts \
        else filename


def _one_input_per_tensor(cls):
    """Give a variadic rule's node class ``for_inputs(n)``: a subclass with inputs
    ``tensors0 .. tensors{n-1}``, one per tensor of the list (made once per ``n``)."""
    (name, (fn, needs)), = cls.formulas.items()

    def for_inputs(n):
        sub = BY_INPUT_COUNT.get((cls, n))     # by class: several ops share a node name
        if sub is None:
            formulas = {f"{name}{i}": ((lambda i: lambda grad, *values: fn(grad, *values, i))(i),
                                       needs) for i in range(n)}
            sub = BY_INPUT_COUNT[cls, n] = type(cls.__name__, (cls,), {
                "input_names": tuple(formulas), "formulas": formulas, "variadic": False,
                "__slots__": ()})
            sub.__module__ = cls.__module__
        return sub
    cls.variadic = True
    cls.for_inputs = staticmethod(for_inputs)
