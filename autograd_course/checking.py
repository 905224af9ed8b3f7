"""Grading one exercise: what a test cell's ``with grading.checking(id, fn):`` does.

:func:`checking` plugs the student's function into its slot of
``autograd_lib.exercises`` and puts the *reference* back into every other
slot, so a mistake in one exercise never costs points in another.  It also
turns the reference implementation of the exercise under test into a
**tripwire**, so a student function that merely calls the library's own
version fails with :class:`DelegationError`.

The tripwire swaps the reference function's *code*, not just a name, so it
catches every alias of the function (``from autograd_lib.ops.inplace import ...``,
a reference saved in a variable before plugging, a bound method, ...); a
function that runs a *copy* of the reference's code object is refused before
the block starts.  When the block starts and when it ends, the integrity
snapshot (:mod:`autograd_course.integrity`) must still hold.
"""

import contextlib
import dis
import sys
import types

from autograd_lib import exercises

from . import integrity
from .feedback import not_written

__all__ = ["checking", "DelegationError", "CHECKS"]


class DelegationError(AssertionError):
    """A student function called the library's own implementation of the exercise."""


CHECKS = [0]      # checking() blocks that completed with everything intact
GRADING = "autograd_course.grading"      # its side_by_side enters checking() for the test cell


def _tripwire_code(exercise_id, reference_fn):
    message = (f"your solution to exercise {exercise_id} calls autograd_lib's own implementation "
               f"({reference_fn.__qualname__}); write it yourself")
    # The code runs with the *reference function's* globals, so it may only use builtins.
    source = ("def tripwire(*args, **kwargs):\n"
              f"    raise __import__({__name__!r}, fromlist=['DelegationError'])"
              f".DelegationError({message!r})")
    namespace = {}
    exec(source, namespace)
    return namespace["tripwire"].__code__


@contextlib.contextmanager
def checking(exercise_id, fn=None):
    """Grade ``fn`` for one exercise: it alone is plugged (every other slot holds the
    reference) and the reference of *this* exercise is a tripwire meanwhile.

    An exercise that fills several slots is graded with all of them at once:
    ``checking({"08.increment_version": f, "08.check_version": g})`` plugs each, arms
    each reference, and yields the dict.

    Raises :class:`~autograd_course.integrity.TamperingError`, when the block starts
    or ends, if the library, the course's grading modules, NumPy or the builtins differ
    from the snapshot, or if the test's own names ``exercises``, ``grading``, ``np``,
    ``ag`` are not those modules; and :class:`DelegationError` if ``fn`` refers to a
    copy of the reference's code.  A block that ends normally, with everything intact,
    is counted in ``CHECKS`` (the course's grader checks that a passing test cell ran
    at least one)."""
    plugs = dict(exercise_id) if isinstance(exercise_id, dict) else {exercise_id: fn}
    for eid in plugs:
        exercises.reference(eid)              # a clear KeyError for an unknown exercise
    slots = exercises.SLOTS
    snapshot = integrity.seal()
    caller = _caller_globals()
    saved = {eid: s.get() for eid, s in slots.items()}
    for eid, ref in snapshot.references.items():
        if eid not in plugs:
            slots[eid].set(ref)
    try:
        snapshot.verify(caller)
        armed = {}
        for eid in plugs:
            slot = slots[eid]
            armed[eid] = [f for f in slot.functions(snapshot.references[eid]) + slot.guarded()
                          if isinstance(f, types.FunctionType) and f.__code__.co_freevars == ()]
        every = [f for functions in armed.values() for f in functions]
        for eid, student_fn in plugs.items():
            _refuse_copies(eid, student_fn, every, [snapshot.code_of(f) for f in every],
                           snapshot.fingerprints)
    except BaseException:
        _restore(saved)
        raise
    for eid, student_fn in plugs.items():
        slots[eid].set(student_fn)
    originals = [(f, f.__code__) for eid, functions in armed.items() for f in functions]
    for eid, functions in armed.items():
        for f in functions:
            f.__code__ = _tripwire_code(eid, f)
    completed = False
    try:
        yield plugs if isinstance(exercise_id, dict) else fn
        completed = True
    except NotImplementedError as error:      # an answer not written yet, reached through the library
        failure = not_written(error)
        if failure is None:
            raise
        raise failure from None
    finally:
        for f, code in originals:
            f.__code__ = code
        _restore(saved)
        snapshot.verify(caller)
        if completed:
            CHECKS[0] += 1


def _caller_globals():
    """The globals of the test cell that entered ``with checking(...)``, directly or through a
    visible check of ``autograd_course.checks``: a notebook that rebinds ``grading`` to a fake
    is caught by the visible check too, though the check itself uses the real module."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_globals.get("__name__") in (__name__, "contextlib", GRADING)
                                 or str(frame.f_globals.get("__name__")).startswith(integrity.CHECKS + ".")):
        frame = frame.f_back
    return frame.f_globals if frame is not None else {}


def _restore(saved):
    for eid, value in saved.items():
        exercises.SLOTS[eid].set(value)


def _refuse_copies(exercise_id, fn, references, codes, fingerprints=None):
    """DelegationError when ``fn`` reaches, through its globals, closure or defaults,
    the reference or a function running the reference's own code object (a copy
    made with ``types.FunctionType(reference.__code__, ...)`` before the test
    would escape the tripwire), or the reference's code compiled again
    (:func:`is_recompiled_copy`).  ``fingerprints`` ({id of a code object: (the code,
    its fingerprint)}, the snapshot's) keeps the fingerprints from one block to the
    next: a test cell enters ``checking`` dozens of times with the same functions."""
    fingerprints = {} if fingerprints is None else fingerprints

    def fingerprint(code):
        known = fingerprints.get(id(code))
        if known is None or known[0] is not code:
            known = fingerprints[id(code)] = (code, _fingerprint(code))
        return known[1]

    # What a recompiled copy would look like: the fingerprints of the long references.
    copies = [found for found in map(fingerprint, codes) if len(found[2]) >= MIN_COPY_INSTRUCTIONS]
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
            # (not one of ``codes`` itself, which the test above refused)
            if copies and fingerprint(obj.__code__) in copies:
                raise DelegationError(
                    f"your solution to exercise {exercise_id} is autograd_lib's own implementation "
                    f"recompiled ({obj.__qualname__} has the same bytecode, up to names of local "
                    "variables): a copied, disassembled or decompiled reference earns no points; "
                    "write it yourself")
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


# A reference shorter than this (in instructions) is what anyone would write: an honest
# answer may well compile to the same bytecode, so it is not compared.  Measured on the 106
# functions that students of the trials wrote from the release notebooks alone: 6 compiled to
# their reference's code, of 5, 10, 17, 17, 61 and 72 instructions (04 nodes_to_run: the
# obvious parents-map-and-stack walk); three of the course's own solutions do too (33, 41, 61).
# Above 100 no honest answer has; course/README.md's threat model says what protects the rest.
MIN_COPY_INSTRUCTIONS = 100


def _fingerprint(code):
    """What a function's code does, without where it came from: its instructions with
    their resolved arguments (constants, global and attribute names, nested code by its
    own fingerprint), local variables by number, no line numbers, no docstring."""
    items = []
    for ins in dis.get_instructions(code):
        if ins.opname in ("RESUME", "NOP", "CACHE", "EXTENDED_ARG", "PUSH_NULL"):
            continue
        if isinstance(ins.argval, types.CodeType):
            arg = _fingerprint(ins.argval)
        elif any(k in ins.opname for k in ("FAST", "DEREF", "CLOSURE", "MAKE_CELL")):
            arg = ins.arg                            # a local's number, not its name
        elif ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            arg = None                               # jumps: the targets follow from the rest
        else:
            arg = ins.argval if isinstance(ins.argval, (str, int, float, bool, tuple, type(None))) \
                else repr(ins.argval)
        # A method call on a name the module imported compiles to PUSH_NULL + LOAD_ATTR,
        # the same call in a notebook to LOAD_METHOD (CPython 3.11's compiler): the same.
        items.append(("LOAD_ATTR" if ins.opname == "LOAD_METHOD" else ins.opname, arg))
    return code.co_argcount, code.co_kwonlyargcount, tuple(items)


def is_recompiled_copy(code, reference_code):
    """Whether ``code`` is ``reference_code`` compiled again (from a copy of its source, a
    decompiled or hand-disassembled version of sealed bytecode, with other names for its
    local variables or another docstring): the same instructions on the same constants and
    names.  A reference of fewer than ``MIN_COPY_INSTRUCTIONS`` instructions never is."""
    if code is reference_code:
        return False                                 # that one is the tripwire's business
    reference = _fingerprint(reference_code)
    return len(reference[2]) >= MIN_COPY_INSTRUCTIONS and _fingerprint(code) == reference


def _cell_filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
