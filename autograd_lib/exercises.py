"""Where the course's exercises plug into the library.

Each assignment asks students to write a piece of autograd_lib: a rule, a
node's wiring, a step of the engine.  Every such piece is a *slot*: a
module-level function, a class attribute, or a gradient formula that the
library always reaches through its slot.  So a student's function,
plugged into the slot, runs inside the real engine exactly where the
reference ran::

    from autograd_lib import exercises

    def gradient_edge(tensor):          # the student's version
        ...

    exercises.plug("02.gradient_edge", gradient_edge)   # the engine now uses it

Grading uses two more tools:

* :func:`checking` plugs one exercise and puts the *reference* back into
  every other slot, so a mistake in one exercise never costs points in
  another; and it turns the reference implementation of the exercise under
  test into a **tripwire**, so a student function that merely calls the
  library's own version fails with :class:`DelegationError`.
* :func:`reference` returns the reference implementation (for comparisons
  made outside the tripwire).

The tripwire swaps the reference function's *code*, not just a name, so it
catches every alias of the function (``from autograd_lib.ops.inplace import ...``,
a reference saved in a variable before plugging, a bound method, ...).

**Integrity.** The first use of this module (or :func:`seal`, which the
course's grader calls in a fresh kernel before any notebook cell runs) takes a
snapshot of the library, its grading helpers, NumPy and a few builtins: every
function, class and method, and the code of each.  The references are the
ones of the snapshot.  :func:`checking` compares the live objects with the
snapshot when a test starts and when it ends, and raises
:class:`TamperingError` when something the tests rely on was replaced (a
monkeypatched ``numpy.allclose`` or ``grading.expect_equal``, a reference
function with other code, a method added to a class, ...).  Only the exercise
slots may change, through :func:`plug`.
"""

import builtins
import contextlib
import dataclasses
import importlib
import inspect
import sys
import types

__all__ = ["Slot", "SLOTS", "plug", "unplug", "unplug_all", "plugged", "reference", "checking",
           "DelegationError", "TamperingError", "exercises_of", "seal", "CHECKS"]


class DelegationError(AssertionError):
    """A student function called the library's own implementation of the exercise."""


class TamperingError(AssertionError):
    """Something the tests rely on (autograd_lib, its grading helpers, NumPy, builtins)
    was changed since the snapshot: the tests cannot be trusted, so they fail."""


@dataclasses.dataclass
class Slot:
    """One exercise: where it lives in the library and which assignment teaches it.

    ``kind`` says how the student's function is installed:

    * ``"function"``: a module-level function (``owner`` is the module);
    * ``"method"``: a method of a class (``owner`` is ``"module:Class"``);
    * ``"property"``: a property, whose getter the student writes (a setter stays);
    * ``"rule"``: the gradient formulas of backward node ``attribute``; the student
      writes one vector-Jacobian product ``vjp(grad, *values)`` returning a gradient per
      input, and ``values`` names what it is given after ``grad`` (what the node saves).
    """
    exercise_id: str          # "02.gradient_edge": assignment number, then the name
    owner: str                # "module" or "module:Class"
    attribute: str            # attribute name on the owner (the node name for rules)
    summary: str              # one line: what the student writes
    kind: str = "function"
    guards: tuple = ()        # "module:function" helpers that hold the whole answer: armed too
    values: tuple = ()        # rules: the values the student's VJP is given after grad, in order

    @property
    def assignment(self):
        return self.exercise_id.split(".", 1)[0]

    def _owner(self):
        module_name, _, class_name = self.owner.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, class_name) if class_name else module

    def get(self):
        owner = self._owner()
        if self.kind == "rule":
            return owner.NODES[self.attribute].formulas
        if self.kind == "property":
            return owner.__dict__[self.attribute].fget
        return owner.__dict__[self.attribute] if isinstance(owner, type) else getattr(owner, self.attribute)

    def set(self, fn):
        owner = self._owner()
        if self.kind == "rule":
            node_cls = owner.NODES[self.attribute]
            node_cls.formulas = (fn if isinstance(fn, dict) else
                                 _formulas_from_vjp(fn, node_cls.input_names, self.values))
            node_cls._save_plans = {}        # what to save depends on what the formulas need
        elif self.kind == "property":
            setter = owner.__dict__[self.attribute].fset      # a settable property stays settable
            setattr(owner, self.attribute, property(fn, setter))
        else:
            setattr(owner, self.attribute, fn)

    def functions(self, value):
        """The plain functions behind a slot value (to arm tripwires)."""
        if self.kind == "rule":
            return [fn for fn, _ in value.values()]
        return [value]

    def guarded(self):
        """Library helpers that would answer the exercise in one call."""
        found = []
        for path in self.guards:
            module_name, _, name = path.partition(":")
            found.append(getattr(importlib.import_module(module_name), name))
        return found


def _formulas_from_vjp(vjp, input_names, values):
    """Turn ``vjp(grad, *values) -> (grad_input0, grad_input1, ...)`` into per-input formulas.

    ``values`` are the slot's stated names: every formula needs them all, so the node
    saves them, and the VJP is given them in that order, whatever its own parameters
    are called (a VJP with fewer parameters is given the first ones)."""
    given = values[:_positional_parameters(vjp) - 1]

    def pick(i):
        def formula(grad, *found):
            grads = vjp(grad, *found[:len(given)])
            if not isinstance(grads, tuple):
                grads = (grads,)
            if len(grads) != len(input_names):
                raise ValueError(f"{vjp.__name__} must return {len(input_names)} gradient(s), one per "
                                 f"input {input_names}, but returned {len(grads)}")
            return grads[i]
        return formula
    return {name: (pick(i), tuple(values)) for i, name in enumerate(input_names)}


def _positional_parameters(fn):
    """How many positional arguments ``fn`` takes (any number with ``*args``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return sys.maxsize
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return sys.maxsize
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


SLOTS = {}


def _register(exercise_id, owner, attribute, summary, kind="function", guards=(), values=()):
    SLOTS[exercise_id] = Slot(exercise_id, owner, attribute, summary, kind, guards, values)


_T = "autograd_lib.tensor:Tensor"
_register("01.result_requires_grad", "autograd_lib.recording", "result_requires_grad",
          "an op's result requires grad when grad mode is on and any input requires grad")
_register("01.is_leaf", _T, "is_leaf", "a tensor is a leaf when no operation recorded it", "property")
_register("01.requires_grad_", _T, "requires_grad_",
          "set requires_grad on a leaf; refuse non-floating dtypes and non-leaves")
_register("01.detach", _T, "detach", "a new leaf sharing storage and version counter")
_register("02.gradient_edge", _T, "_gradient_edge",
          "where a tensor's gradient enters the graph: (grad_fn, output_nr) or AccumulateGrad")
_register("02.collect_next_functions", "autograd_lib.recording", "collect_next_functions",
          "a new node's next_functions: one edge per input, (None, 0) where no grad is needed")
for _name, _node, _values in (("add", "AddBackward0", ()), ("mul", "MulBackward0", ("self", "other")),
                              ("pow", "PowBackward0", ("self", "exponent")),
                              ("mean", "MeanBackward0", ("self_shape",))):
    _register(f"03.{_name}_backward", "autograd_lib.derivatives", _node,
              f"the vector-Jacobian product of {_name}", "rule", values=_values)
_register("03.mm_backward", "autograd_lib.derivatives", "MmBackward0",
          "the vector-Jacobian product of mm", "rule", values=("self", "mat2"),
          guards=("autograd_lib.ops.backward_helpers:mm_mat1_backward",
                  "autograd_lib.ops.backward_helpers:mm_mat2_backward"))
_register("03.count_dependencies", "autograd_lib.engine", "count_dependencies",
          "how many edges point into each node reachable from the roots (iteratively)")
_register("03.initial_gradients", "autograd_lib.autograd.functional", "initial_gradients",
          "the gradients backward starts from: 1 for a scalar, the given ones checked")
_register("04.accumulate_grad", "autograd_lib.graph", "accumulate_grad",
          "add a gradient into a leaf's .grad: a copy the first time, then summed")
_register("04.retain_grad", _T, "retain_grad", "mark a non-leaf so backward stores its gradient")
_register("04.store_retained_grad", "autograd_lib.engine", "store_retained_grad",
          "store a retained non-leaf gradient: a copy first, then summed out of place")
_register("05.sum_to", "autograd_lib.broadcasting", "sum_to",
          "sum a broadcast gradient back to an input's shape")
_register("05.sum_backward", "autograd_lib.derivatives", "SumBackward1",
          "the gradient of sum over dims, with and without keepdim", "rule",
          values=("self_shape", "dim", "keepdim"), guards=("autograd_lib.ops.backward_helpers:restore_reduced_dims",))
_register("05.exp_backward", "autograd_lib.derivatives", "ExpBackward0",
          "the gradient of exp, from its saved result", "rule", values=("result",))
_register("05.sigmoid_backward", "autograd_lib.ops.pointwise", "sigmoid_backward",
          "the gradient of sigmoid given its output")
_register("05.index_backward", "autograd_lib.derivatives", "IndexBackward0",
          "the gradient of x[indices]: repeated indices accumulate", "rule",
          values=("self_shape", "indices"), guards=("autograd_lib.ops.indexing:embed_in_zeros",))
_register("05.log_softmax_backward", "autograd_lib.ops.losses", "log_softmax_backward_data",
          "the gradient of log_softmax given its output")
_register("06.release_saved", "autograd_lib.graph:Node", "release_saved",
          "free a node's saved tensors after backward")
_register("06.saved_values", "autograd_lib.graph:Node", "saved_values",
          "unpack the values a formula needs; refuse once they were freed")
_register("06.hvp", "autograd_lib.autograd.functional", "hvp",
          "a Hessian-vector product by differentiating a gradient again")
_GM = "autograd_lib.grad_mode:_GradModeContext"
_register("07.grad_mode_enter", _GM, "__enter__",
          "entering no_grad/enable_grad: remember the current grad mode, switch to this one", "method")
_register("07.grad_mode_exit", _GM, "__exit__",
          "leaving the block: restore the remembered mode, even after an exception, which propagates",
          "method")
_register("07.grad_mode_decorator", "autograd_lib.grad_mode", "decorate",
          "a decorated function runs each call inside a fresh grad-mode context")
_register("07.data", _T, "data",
          "tensor.data: shares storage, but no history and its own version counter", "property")
_register("07.detach_", _T, "detach_",
          "detach in place: the tensor becomes a leaf without requires_grad; views refuse")
_register("08.increment_version", "autograd_lib.graph", "increment_version",
          "count an in-place write on the version counter shared by every alias of the storage")
_register("08.check_version", "autograd_lib.graph:SavedTensor", "check_version",
          "unpacking a saved tensor: refuse, with PyTorch's message, once its version moved on",
          "method")
_register("08.check_inplace", "autograd_lib.ops.inplace", "check_inplace",
          "the leaf rule: no in-place write, while recording, into a leaf that requires grad "
          "or a view of one")
_register("09.named_members", "autograd_lib.nn.module:Module", "_named_members",
          "walk the module tree: every parameter (or buffer) once, under its dotted name", "method")
_register("09.clear_grads", "autograd_lib.nn.module", "clear_grads",
          "zero_grad: set each .grad to None, or cut it from any graph and fill it with zeros")
_register("09.sgd_update", "autograd_lib.optim.sgd", "sgd_update",
          "one SGD step for one parameter: weight decay, momentum (Nesterov), in place")
_register("09.accumulate_gradients", "autograd_lib.optim", "accumulate_gradients",
          "a large batch's gradient from micro-batches, each loss weighted by its share")
_register("03.numerical_grad", "autograd_lib.autograd.gradcheck", "numerical_grad",
          "central finite differences of a scalar function")


def reference(exercise_id):
    """The library's own implementation of an exercise (as it was at the snapshot)."""
    _slot(exercise_id)
    return seal().references[exercise_id]


def _slot(exercise_id):
    try:
        return SLOTS[exercise_id]
    except KeyError:
        raise KeyError(f"no exercise {exercise_id!r}; known: {', '.join(sorted(SLOTS))}") from None


def plug(exercise_id, fn):
    """Make the library use ``fn`` for this exercise from now on.

    Returns None, so a notebook cell ending with ``exercises.plug(...)`` shows nothing."""
    slot = _slot(exercise_id)
    if not callable(fn) and not (isinstance(fn, dict) and slot.kind == "rule"):
        raise TypeError(f"plug({exercise_id!r}, fn) needs a function, got {type(fn).__name__}")
    seal()                                    # remember the references before replacing one
    slot.set(fn)


def unplug(exercise_id):
    """Put the reference implementation back."""
    SLOTS[exercise_id].set(reference(exercise_id))


def unplug_all():
    for exercise_id in SLOTS:
        unplug(exercise_id)


@contextlib.contextmanager
def plugged(exercise_id, fn):
    """Use ``fn`` for this exercise inside the ``with`` block only."""
    previous = SLOTS[exercise_id].get()
    plug(exercise_id, fn)
    try:
        yield fn
    finally:
        SLOTS[exercise_id].set(previous)


def _tripwire_code(exercise_id, reference_fn):
    message = (f"your solution to exercise {exercise_id} calls autograd_lib's own implementation "
               f"({reference_fn.__qualname__}); write it yourself")
    # The code runs with the *reference function's* globals, so it may only use builtins.
    source = ("def tripwire(*args, **kwargs):\n"
              "    raise __import__('autograd_lib.exercises', fromlist=['DelegationError'])"
              f".DelegationError({message!r})")
    namespace = {}
    exec(source, namespace)
    return namespace["tripwire"].__code__


@contextlib.contextmanager
def checking(exercise_id, fn):
    """Grade ``fn`` for one exercise: it alone is plugged (every other slot holds the
    reference) and the reference of *this* exercise is a tripwire meanwhile.

    Raises :class:`TamperingError`, when the block starts or ends, if the library,
    the grading helpers, NumPy or the builtins differ from the snapshot, or if the
    test's own names ``exercises``, ``grading``, ``np``, ``ag`` are not those modules;
    and :class:`DelegationError` if ``fn`` refers to a copy of the reference's code.
    A block that ends normally, with everything intact, is counted in ``CHECKS``
    (the course's grader checks that a passing test cell ran at least one)."""
    slot = _slot(exercise_id)
    snapshot = seal()
    caller = _caller_globals()
    saved = {eid: s.get() for eid, s in SLOTS.items()}
    for eid, ref in snapshot.references.items():
        if eid != exercise_id:
            SLOTS[eid].set(ref)
    ref = snapshot.references[exercise_id]
    try:
        snapshot.verify(caller)
        armed = [f for f in slot.functions(ref) + slot.guarded()
                 if isinstance(f, types.FunctionType) and f.__code__.co_freevars == ()]
        _refuse_copies(exercise_id, fn, armed, [snapshot.code_of(f) for f in armed])
    except BaseException:
        _restore(saved)
        raise
    slot.set(fn)
    originals = [f.__code__ for f in armed]
    for f in armed:
        f.__code__ = _tripwire_code(exercise_id, f)
    completed = False
    try:
        yield fn
        completed = True
    finally:
        for f, code in zip(armed, originals):
            f.__code__ = code
        _restore(saved)
        snapshot.verify(caller)
        if completed:
            CHECKS[0] += 1


CHECKS = [0]      # checking() blocks that completed with everything intact


def _caller_globals():
    """The globals of the code that entered ``with checking(...)`` (a test cell)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in (__name__, "contextlib"):
        frame = frame.f_back
    return frame.f_globals if frame is not None else {}


def _restore(saved):
    for eid, value in saved.items():
        SLOTS[eid].set(value)


def _refuse_copies(exercise_id, fn, references, codes):
    """DelegationError when ``fn`` reaches, through its globals, closure or defaults,
    the reference or a function running the reference's own code object (a copy
    made with ``types.FunctionType(reference.__code__, ...)`` before the test
    would escape the tripwire)."""
    seen, todo = set(), [(fn, 0)]
    while todo:
        obj, depth = todo.pop()
        if id(obj) in seen or depth > 3 or len(seen) > 300:
            continue
        seen.add(id(obj))
        if isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            todo.append((obj.__func__, depth))
        elif isinstance(obj, dict):
            todo.extend((v, depth) for v in list(obj.values())[:50])
        elif isinstance(obj, (tuple, list)):
            todo.extend((v, depth) for v in obj[:50])
        elif isinstance(obj, types.FunctionType):
            if any(obj is ref for ref in references) or any(obj.__code__ is code for code in codes):
                how = "calls" if any(obj is ref for ref in references) else "runs a copy of"
                raise DelegationError(
                    f"your solution to exercise {exercise_id} {how} autograd_lib's own "
                    f"implementation ({obj.__qualname__}); write it yourself")
            names = set(obj.__code__.co_names)
            for const in obj.__code__.co_consts:
                if isinstance(const, types.CodeType):
                    names.update(const.co_names)
            env = obj.__globals__
            todo.extend((env[n], depth + 1) for n in names if n in env)
            todo.extend((c.cell_contents, depth + 1) for c in obj.__closure__ or ()
                        if _cell_filled(c))
            todo.extend((v, depth + 1) for v in (obj.__defaults__ or ()))
            todo.extend((v, depth + 1) for v in (obj.__kwdefaults__ or {}).values())


def _cell_filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


# --------------------------------------------------------------- integrity

# Builtins the tests use to compare and to describe what they saw.
_BUILTINS = ("isinstance", "issubclass", "type", "len", "abs", "all", "any", "bool", "float", "int",
             "str", "repr", "tuple", "list", "dict", "set", "frozenset", "sorted", "zip", "range",
             "enumerate", "min", "max", "sum", "iter", "next", "getattr", "hasattr", "callable", "id",
             "hash", "round", "map", "filter", "reversed", "format", "object", "super", "print",
             "Exception", "BaseException", "AssertionError", "RuntimeError", "ValueError", "TypeError")
# Modules watched besides autograd_lib's own, when they are loaded at the snapshot.
_WATCHED = ("numpy", "numpy.testing", "numpy.linalg", "numpy.random", "numpy.lib")


def _fields(slot):
    return tuple(vars(slot).values())


def _code_value(value):
    """Values whose replacement could change what a test computes."""
    return callable(value) or isinstance(value, (types.ModuleType, property, classmethod, staticmethod))


def _functions_in(value):
    """The plain functions behind a namespace value (a method, property, ...)."""
    if isinstance(value, types.FunctionType):
        return [value]
    if isinstance(value, (staticmethod, classmethod)):
        return _functions_in(value.__func__)
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType)]
    return []


class _Snapshot:
    """What the tests rely on, as it was before any student code ran."""

    def __init__(self):
        # The slots and their references, first: they are excluded from the rest.
        self.slots = {eid: _fields(slot) for eid, slot in SLOTS.items()}
        self.references = {eid: slot.get() for eid, slot in SLOTS.items()}
        self.reference_items = {eid: tuple(ref.items()) if isinstance(ref, dict) else ref
                                for eid, ref in self.references.items()}
        importlib.import_module("autograd_lib.grading")
        # The names test cells use for the modules (AUTHORING.md's setup cell).
        self.modules = {name: sys.modules[module] for name, module in (
            ("exercises", __name__), ("grading", "autograd_lib.grading"), ("np", "numpy"),
            ("numpy", "numpy"), ("ag", "autograd_lib"), ("autograd_lib", "autograd_lib"))}
        slot_keys = set()
        for slot in SLOTS.values():
            owner = slot._owner()
            slot_keys.add((id(owner), slot.attribute))
            if slot.kind == "rule":
                slot_keys.add((id(owner.NODES[slot.attribute]), "formulas"))
        self.entries, self.codes, self.classes = [], {}, []
        names = sorted(n for n in sys.modules
                       if n in _WATCHED or n == "autograd_lib" or n.startswith("autograd_lib."))
        for name in names:
            self._namespace(name, vars(sys.modules[name]), sys.modules[name], slot_keys)
        self._namespace("builtins", vars(builtins), builtins, slot_keys, only=_BUILTINS)
        for eid, ref in self.references.items():
            for fn in SLOTS[eid].functions(ref):
                self._code(f"the reference of {eid}", fn)

    def _namespace(self, label, namespace, owner, slot_keys, only=None):
        library = label.startswith("autograd_lib")
        for key, value in list(namespace.items()):
            if (only is not None and key not in only) or (id(owner), key) in slot_keys:
                continue
            if key.startswith("__") and not isinstance(owner, type):
                continue
            if library and isinstance(value, dict):       # e.g. derivatives.NODES
                for item in list(value.values()):
                    if isinstance(item, type) and item.__module__.startswith("autograd_lib") \
                            and not any(c[1] is item for c in self.classes):
                        self._class(item, slot_keys)
            if not _code_value(value):
                continue
            self.entries.append((f"{label}.{key}", namespace, key, value))
            if library:
                for fn in _functions_in(value):
                    self._code(f"{label}.{key}", fn)
                if isinstance(value, type) and value.__module__.startswith("autograd_lib") \
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
        for eid, slot in SLOTS.items():
            if self.slots.get(eid) != _fields(slot):
                found.append(f"exercises.SLOTS[{eid!r}] was changed")
        if set(SLOTS) != set(self.slots):
            found.append("exercises.SLOTS gained or lost exercises")
        for eid, items in self.reference_items.items():
            ref = self.references[eid]
            if (tuple(ref.items()) if isinstance(ref, dict) else ref) != items:
                found.append(f"the reference of {eid} was changed")
        return found[:limit]

    def verify(self, names=None):
        """TamperingError when something differs from the snapshot, or when ``names``
        (a test's globals) binds ``exercises``, ``grading``, ``np`` or ``ag`` to
        something else than those modules."""
        found = self.problems()
        for name, module in self.modules.items():
            if names and name in names and names[name] is not module:
                found.append(f"the name {name!r} of the notebook is not the module {module.__name__} any more")
        if found:
            raise TamperingError(
                "the tests run only on autograd_lib, its grading helpers and NumPy as they were "
                "imported, and your code changed them: " + "; ".join(found) + ". Change the library "
                "only through exercises.plug(...); restart the kernel and run all cells again")


_SNAPSHOT = []


def seal():
    """Take the snapshot (once; later calls return it).  The course's grader calls it
    in a fresh kernel before any notebook cell runs."""
    if not _SNAPSHOT:
        _SNAPSHOT.append(_Snapshot())
    return _SNAPSHOT[0]


def exercises_of(assignment):
    """The exercise ids of one assignment ("01", "02", ...)."""
    return sorted(eid for eid, slot in SLOTS.items() if slot.assignment == assignment)
