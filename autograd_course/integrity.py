"""The integrity snapshot: what a notebook's tests rely on, as it was before
any student code ran.

:func:`seal` takes it once; the course's grader calls it in a fresh kernel
before any notebook cell runs, and importing :mod:`autograd_course.grading`
calls it too.  It records every function, class and method, and the code of
each, of:

* ``autograd_lib`` and all its modules, with the references of the exercise
  slots (``autograd_lib.exercises.reference``);
* the course modules a test cell runs (``COURSE_MODULES``): the grading
  assertions, :func:`~autograd_course.checking.checking`, the notebook
  helpers, this module itself, and the visible checks (every module of
  ``autograd_course.checks``, imported here so that they are in the snapshot
  before any notebook cell runs);
* NumPy (``numpy``, ``numpy.testing``, ``numpy.linalg``, ``numpy.random``,
  ``numpy.lib``) and the builtins the tests use to compare and describe.

:func:`~autograd_course.checking.checking` verifies the snapshot when a test
starts and when it ends, and raises :class:`TamperingError` when something
the tests rely on was replaced (a monkeypatched ``numpy.allclose``,
``grading.expect_equal`` or ``notebook.outcome``, a reference function with
other code, a method added to a class, ...), or when the test's own names
``exercises``, ``grading``, ``np``, ``ag`` are not those modules.  Only the
exercise slots may change, through ``exercises.plug``.
"""

import builtins
import importlib
import sys
import types

from autograd_lib import exercises

__all__ = ["TamperingError", "seal", "COURSE_MODULES"]


class TamperingError(AssertionError):
    """Something the tests rely on (autograd_lib, the course's grading modules, NumPy,
    builtins) was changed since the snapshot: the tests cannot be trusted, so they fail."""


# The course's modules that run inside a student's kernel; the package itself too, since
# ``from autograd_course import grading`` reads its attribute.
COURSE_MODULES = ("autograd_course", "autograd_course.integrity", "autograd_course.checking",
                  "autograd_course.grading", "autograd_course.notebook", "autograd_course.rules",
                  "autograd_course.feedback")
CHECKS = "autograd_course.checks"       # the package of the visible checks, all its modules watched
_OURS = ("autograd_lib", "autograd_course")
# Builtins the tests use to compare and to describe what they saw.
_BUILTINS = ("isinstance", "issubclass", "type", "len", "abs", "all", "any", "bool", "float", "int",
             "str", "repr", "tuple", "list", "dict", "set", "frozenset", "sorted", "zip", "range",
             "enumerate", "min", "max", "sum", "iter", "next", "getattr", "hasattr", "callable", "id",
             "hash", "round", "map", "filter", "reversed", "format", "object", "super", "print",
             "Exception", "BaseException", "AssertionError", "RuntimeError", "ValueError", "TypeError")
# Modules watched besides our own, when they are loaded at the snapshot.
_WATCHED = ("numpy", "numpy.testing", "numpy.linalg", "numpy.random", "numpy.lib")
# The names test cells use for the modules (course/AUTHORING.md's setup cell).
_NAMES = (("exercises", "autograd_lib.exercises"), ("grading", "autograd_course.grading"), ("np", "numpy"),
          ("numpy", "numpy"), ("ag", "autograd_lib"), ("autograd_lib", "autograd_lib"))


def _fields(slot):
    return tuple(vars(slot).values())


def _course_module(name):
    return name in COURSE_MODULES or name == CHECKS or name.startswith(CHECKS + ".")


def _ours(name):
    return name.split(".", 1)[0] in _OURS


def _code_value(value):
    """Values whose replacement could change what a test computes."""
    return callable(value) or isinstance(value, (types.ModuleType, property, classmethod, staticmethod))


def _functions_in(value):
    """The plain functions behind a namespace value (a method, property, the function a
    decorator such as ``contextlib.contextmanager`` wraps, ...)."""
    if isinstance(value, types.FunctionType):
        wrapped = getattr(value, "__wrapped__", None)
        return [value] + (_functions_in(wrapped) if isinstance(wrapped, types.FunctionType) else [])
    if isinstance(value, (staticmethod, classmethod)):
        return _functions_in(value.__func__)
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType)]
    return []


def _original(exercise_id):
    """What ``exercises.reference(exercise_id)`` returns now, read without running any code."""
    originals = vars(exercises).get("_ORIGINALS")
    return dict.get(originals, exercise_id) if isinstance(originals, dict) else None


def _items(reference):
    return tuple(reference.items()) if isinstance(reference, dict) else reference


class _Snapshot:
    """What the tests rely on, as it was before any student code ran."""

    def __init__(self):
        slots = exercises.SLOTS
        # The slots and their references, first: they are excluded from the rest.
        self.slots = {eid: _fields(slot) for eid, slot in slots.items()}
        self.references = {eid: exercises.reference(eid) for eid in slots}
        self.reference_items = {eid: _items(ref) for eid, ref in self.references.items()}
        self.modules = {name: sys.modules[module] for name, module in _NAMES}
        slot_keys = set()
        for slot in slots.values():
            owner = slot._owner()
            slot_keys.add((id(owner), slot.attribute))
            if slot.kind == "rule":
                slot_keys.add((id(owner.NODES[slot.attribute]), "formulas"))
        self.entries, self.codes, self.classes = [], {}, []
        # The checks last: a helper they import is named after the module that defines it.
        names = sorted((n for n in sys.modules if n in _WATCHED or _course_module(n)
                        or n == "autograd_lib" or n.startswith("autograd_lib.")),
                       key=lambda n: (n.startswith(CHECKS), n))
        for name in names:
            self._namespace(name, vars(sys.modules[name]), sys.modules[name], slot_keys)
        self._namespace("builtins", vars(builtins), builtins, slot_keys, only=_BUILTINS)
        for eid, ref in self.references.items():
            for fn in slots[eid].functions(ref):
                self._code(f"the reference of {eid}", fn)
        # {id of a code object: (the code, checking._fingerprint of it)}: a test cell enters
        # checking() dozens of times, and fingerprinting the references each time (dis)
        # was a third of a block's cost.
        self.fingerprints = {}

    def _namespace(self, label, namespace, owner, slot_keys, only=None):
        ours = _ours(label)
        for key, value in list(namespace.items()):
            if (only is not None and key not in only) or (id(owner), key) in slot_keys:
                continue
            if key.startswith("__") and not isinstance(owner, type):
                continue
            if ours and isinstance(value, dict):       # e.g. derivatives.NODES
                for item in list(value.values()):
                    if isinstance(item, type) and _ours(item.__module__) \
                            and not any(c[1] is item for c in self.classes):
                        self._class(item, slot_keys)
            if not _code_value(value):
                continue
            self.entries.append((f"{label}.{key}", namespace, key, value))
            if ours:
                for fn in _functions_in(value):
                    self._code(f"{label}.{key}", fn)
                if isinstance(value, type) and _ours(value.__module__) \
                        and not any(c[1] is value for c in self.classes):
                    self._class(value, slot_keys)

    def _class(self, cls, slot_keys):
        label = f"{cls.__module__}.{cls.__qualname__}"
        self.classes.append((label, cls, frozenset(vars(cls))))
        self._namespace(label, vars(cls), cls, slot_keys)
        if isinstance(vars(cls).get("formulas"), dict) and (id(cls), "formulas") not in slot_keys:
            self.entries.append((f"{label}.formulas", vars(cls), "formulas", cls.formulas))
            for input_name, (fn, _) in cls.formulas.items():
                self._code(f"{label}.formulas[{input_name!r}]", fn)

    def _code(self, label, fn):
        if id(fn) not in self.codes:
            self.codes[id(fn)] = (label, fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__)

    def code_of(self, fn):
        """The code ``fn`` had at the snapshot."""
        return self.codes[id(fn)][2] if id(fn) in self.codes else fn.__code__

    def problems(self, limit=5):
        """What differs from the snapshot (at most ``limit`` descriptions)."""
        found = []
        missing = object()
        for label, namespace, key, value in self.entries:
            if namespace.get(key, missing) is not value:
                found.append(f"{label} was replaced")
        for label, fn, code, defaults, kwdefaults in self.codes.values():
            if fn.__code__ is not code:
                found.append(f"the code of {label} was changed")
            elif fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
                found.append(f"the default arguments of {label} were changed")
        for label, cls, keys in self.classes:
            namespace = vars(cls)
            if namespace.keys() == keys:
                continue
            added = sorted(k for k, v in namespace.items() if k not in keys and _code_value(v))
            if added:
                found.append(f"{label} gained {', '.join(added)}")
        slots = exercises.SLOTS
        for eid, slot in slots.items():
            if self.slots.get(eid) != _fields(slot):
                found.append(f"exercises.SLOTS[{eid!r}] was changed")
        if set(slots) != set(self.slots):
            found.append("exercises.SLOTS gained or lost exercises")
        for eid, items in self.reference_items.items():
            ref = self.references[eid]
            if _items(ref) != items or _original(eid) is not ref:
                found.append(f"the reference of {eid} was changed")
        return found[:limit]

    def verify(self, names=None):
        """TamperingError when something differs from the snapshot, or when ``names``
        (a test's globals) binds ``exercises``, ``grading``, ``np`` or ``ag`` to
        something else than those modules, or ``check`` to anything but a module of
        the visible checks."""
        found = self.problems()
        for name, module in self.modules.items():
            if names and name in names and names[name] is not module:
                found.append(f"the name {name!r} of the notebook is not the module {module.__name__} any more")
        if names and "check" in names:
            bound = names["check"]
            if not (isinstance(bound, types.ModuleType) and sys.modules.get(getattr(bound, "__name__", "")) is bound
                    and bound.__name__.startswith(CHECKS + ".")):
                found.append("the name 'check' of the notebook is not a module of the visible checks "
                             "(autograd_course.checks) any more")
        if found:
            raise TamperingError(
                "the tests run only on autograd_lib, the course's grading helpers and NumPy as they were "
                "imported, and your code changed them: " + "; ".join(found) + ". Change the library "
                "only through exercises.plug(...); restart the kernel and run all cells again")


_SNAPSHOT = []


def seal():
    """Take the snapshot (once; later calls return it).  The course's grader calls it
    in a fresh kernel before any notebook cell runs."""
    if not _SNAPSHOT:
        for name in COURSE_MODULES:
            importlib.import_module(name)        # importing grading seals: it may be done now
        if not _SNAPSHOT:
            for name in importlib.import_module(CHECKS).module_names():
                importlib.import_module(name)    # they import grading: it may be done now too
        if not _SNAPSHOT:
            _SNAPSHOT.append(_Snapshot())
    return _SNAPSHOT[0]
