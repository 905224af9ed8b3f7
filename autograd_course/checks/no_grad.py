"""Visible checks of assignment 07: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and detaching.

The checks of ``set_grad_enabled``'s constructor (part of exercise 1) are in ``set_grad.py``, those
of decorated generators (part of exercise 2) in ``grad_mode_generators.py``, those of exercise 3
(``detach_and_data``) in ``detach_and_data.py``; all are imported here.
Each exercise fills several slots (``__enter__``, ``__exit__`` and ``set_grad_enabled.__init__``;
``decorate`` and ``decorate_generator``; ``data`` and ``detach_``), and its checks take all of your
functions.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs: random *programs* (nestings of grad-mode
blocks, decorated calls and errors, built by ``random_program``), contexts
entered again and again, and random tensors.  When one of them fails, its
feedback prints the program or the case.  The helpers below, and the rules they name (the
rules each task text states, ``grading.rules("07.<exercise>")``), are shared by the checks and the
hidden tests.

"""

import threading
import warnings

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import outcome, shown

__all__ = [
    "grad_mode_context", "grad_mode_context_in_the_library",
    "set_grad_enabled", "set_grad_enabled_in_the_library",
    "grad_mode_decorator", "grad_mode_decorator_in_the_library",
    "grad_mode_generator", "grad_mode_generator_in_the_library",
    "detach_and_data", "detach_and_data_in_use",
    "context_slots", "detach_slots", "expect_fact", "check_data_facts", "check_detach_facts",
    "grad_mode_on", "Boom", "CONTEXTS", "DECORATORS", "make_context", "decorated",
    "random_program", "program_text", "run_program", "random_programs", "check_programs",
    "reused_contexts", "check_reused", "recorder_class", "one_use", "use_text", "expect_use", "random_uses",
    "run_uses", "check_uses",
    "REMEMBER", "SWITCH", "RETURNS_NONE", "RESTORE", "NO_SWALLOW", "RESTORE_RAISED", "PER_THREAD", "NESTING",
    "PROGRAMS", "MAKES_NONE", "RETURNS", "INSIDE", "ARGUMENTS", "EVENTS", "WRAPS", "PROPAGATES", "DECORATED",
    "CLASSES", "decorator_slots", "wrapped_names",
    "NEW_TENSOR", "NO_HISTORY", "SHARES", "OWN_COUNTER", "UNCHANGED",
    "VIEW", "CUTS", "RETURNS_SELF", "KEEPS", "VIEWS_REFUSE", "LEAF_OFF", "VIEW_UNCHANGED", "OUTPUT_NR",
    "INFERENCE", "HOOKS", "hook_story",
]


from .grad_mode_programs import (Boom, CONTEXTS, DECORATORS, check_programs, check_reused,  # noqa: F401
                                 decorated, decorator_slots, grad_mode_on, make_context, program_text,
                                 random_program, random_programs, recorder_class, reused_contexts, run_program)
from .set_grad import set_grad_enabled, set_grad_enabled_in_the_library  # noqa: F401  (exercise 1)
from .grad_mode_generators import grad_mode_generator, grad_mode_generator_in_the_library  # noqa: F401  (exercise 2)
from .detach_and_data import (CUTS, HOOKS, INFERENCE, KEEPS, LEAF_OFF, NEW_TENSOR, NO_HISTORY,  # noqa: F401  (ex. 3)
                              OUTPUT_NR, OWN_COUNTER, RETURNS_SELF, SHARES, UNCHANGED, VIEW, VIEW_UNCHANGED,
                              VIEWS_REFUSE, check_data_facts, check_detach_facts, detach_and_data,
                              detach_and_data_in_use, detach_slots, expect_fact, hook_story)




# ---------------------------------------------------------- 07.grad_mode_context

CONTEXT = grading.rules("07.grad_mode_context")
SWITCH = CONTEXT("switch")
REMEMBER = CONTEXT("previous")
RESTORE = CONTEXT("restore")
RESTORE_RAISED = CONTEXT("raised")
NO_SWALLOW = CONTEXT("raised")
RETURNS_NONE = CONTEXT("as-none")
PER_THREAD = CONTEXT("thread")
NESTING = CONTEXT("previous", "restore")
PROGRAMS = CONTEXT("restore", "raised")


def context_slots(enter, exit_, init):
    """The three slots that exercise 1 fills, for ``grading.checking``: your ``__enter__``,
    ``__exit__`` and ``set_grad_enabled``'s constructor."""
    return {"07.grad_mode_enter": enter, "07.grad_mode_exit": exit_, "07.set_grad_enabled": init}


def _mode(on):
    return "on" if on else "off"


def one_use(ctx, start, flip, error, form):
    """Enter ``ctx`` from grad mode ``start`` (``form``: ``"with"`` a block, or ``"call"``:
    ``ctx.__enter__()`` and ``ctx.__exit__(...)`` called by hand), flip the mode inside if
    ``flip``, raise ``error`` (a class and a message) if given.  Returns (the value entering
    gave, the mode inside, what leaving returned ("no error" or the error's text for a block),
    the mode after)."""
    ag.grad_mode._set_grad_enabled(start)
    if form == "call":
        value = outcome(ctx.__enter__)
        inside = ag.is_grad_enabled()
        if flip:
            ag.grad_mode._set_grad_enabled(not inside)
        args = (None, None, None) if error is None else (error[0], error[0](error[1]), None)
        left = outcome(ctx.__exit__, *args)
        left = "False or None" if left is None or left is False else repr(shown(left))
        return shown(value), inside, left, ag.is_grad_enabled()
    seen = []

    def block():
        with ctx as value:
            seen.extend([shown(value), ag.is_grad_enabled()])
            if flip:
                ag.grad_mode._set_grad_enabled(not ag.is_grad_enabled())
            if error is not None:
                raise error[0](error[1])
        return "no error"

    left = outcome(block)
    seen += ["(no value)", "(not entered)"][len(seen):]
    return seen[0], seen[1], left, ag.is_grad_enabled()


def use_text(kind, start, flip, error, form, again=""):
    """One use of one_use as text, for the feedback."""
    body = "; ".join(["flip the mode"] * flip + ([f"raise {error[0].__name__}({error[1]!r})"] if error else []))
    if form == "call":
        args = "None, None, None" if error is None else f"{error[0].__name__}, error, None"
        return (f"ctx = {kind}{again}; from grad mode {_mode(start)}: v = ctx.__enter__(); "
                f"{body + '; ' if body else ''}r = ctx.__exit__({args})")
    return f"ctx = {kind}{again}; from grad mode {_mode(start)}: `with ctx as v: {body or 'pass'}`"


def expect_use(seen, expected, what):
    """One use of a context (one_use) as expected, rule by rule."""
    grading.expect_equal(seen[0], expected[0], what=f"v (what entering gave), {what}", rule=RETURNS_NONE)
    grading.expect_equal(seen[1], expected[1], what=f"is_grad_enabled() inside, {what}", rule=SWITCH)
    grading.expect_equal(seen[2], expected[2], what=f"what leaving returned or raised, {what}", rule=NO_SWALLOW)
    grading.expect_equal(seen[3], expected[3], what=f"is_grad_enabled() after, {what}",
                         rule=RESTORE if "raise" not in what else RESTORE_RAISED)


def grad_mode_context(enter, exit_, init):
    """Your three functions behind ``no_grad()``, ``enable_grad()`` and ``set_grad_enabled(mode)``:
    each entered from grad mode on and off, as a ``with`` block and by calling ``__enter__`` and
    ``__exit__`` by hand, with and without an error (switch, restore, raised, as-none); an object
    made, then entered after the mode changed (switch, restore); one object entered again from the
    other mode, and two objects of one class nested (previous)."""
    grad_mode_on()
    slots = context_slots(enter, exit_, init)
    uses = []
    with grading.checking(slots):
        for kind in ("no_grad()", "enable_grad()", "set_grad_enabled(False)", "set_grad_enabled(True)"):
            for start in (True, False):
                for form, error in (("with", None), ("call", None), ("with", (ValueError, "inside the block")),
                                    ("call", (KeyError, "inside"))):
                    ag.grad_mode._set_grad_enabled(start)
                    ctx = outcome(make_context, kind)
                    seen = ctx if isinstance(ctx, str) else one_use(ctx, start, False, error, form)
                    uses.append((kind, start, form, error, seen))
        grad_mode_on()
    for kind, start, form, error, seen in uses:
        mode = {"no_grad()": False, "enable_grad()": True}.get(kind, kind == "set_grad_enabled(True)")
        what = use_text(kind, start, False, error, form).replace("ctx = ", "ctx made with grad mode "
                                                                 f"{_mode(start)}: ", 1)
        grading.expect_true(not isinstance(seen, str), what=f"making {kind}", seen=seen, rule=SWITCH)
        expected = (None, mode, "no error" if form == "with" else "False or None", start)
        if error is not None:
            expected = expected[:2] + ((f"{error[0].__name__}: {error[1]!r}" if error[0] is KeyError
                                        else f"{error[0].__name__}: {error[1]}") if form == "with"
                                       else "False or None", start)
        expect_use(seen, expected, what)

    with grading.checking(slots):
        late = []
        for kind, mode in (("set_grad_enabled(True)", True), ("set_grad_enabled(False)", False)):
            made_in = not mode
            ag.grad_mode._set_grad_enabled(made_in)
            ctx = make_context(kind)
            ag.grad_mode._set_grad_enabled(made_in)       # the mode changed since it was made
            late.append((kind, made_in, one_use(ctx, made_in, False, None, "with")))
        grad_mode_on()
    for kind, made_in, seen in late:
        grading.expect_equal(seen[1:], (not made_in, "no error", made_in),
                             what=f"(mode inside, outcome, mode after) of `with ctx:`, ctx = {kind} made with grad "
                                  f"mode {_mode(made_in)}, then the mode set back to {_mode(made_in)}",
                             rule=SWITCH if seen[1] != (not made_in) else RESTORE)

    with grading.checking(slots):
        again = []
        for kind in ("no_grad()", "enable_grad()"):
            ctx = make_context(kind)
            modes = []
            for start in (True, False, True):
                modes.append(one_use(ctx, start, False, None, "with")[3])
            outer, inner = make_context(kind), make_context(kind)

            def nested():
                with outer:
                    ag.grad_mode._set_grad_enabled(not ag.is_grad_enabled())
                    with inner:
                        pass
                    after_inner = ag.is_grad_enabled()
                return after_inner, ag.is_grad_enabled()

            ag.grad_mode._set_grad_enabled(True)
            again.append((kind, modes, outcome(nested)))
        grad_mode_on()
    for kind, modes, nested in again:
        grading.expect_equal(modes, [True, False, True],
                             what=f"the modes after three `with ctx:` blocks of one ctx = {kind}, entered from grad "
                                  "mode on, off, on", rule=REMEMBER)
        grading.expect_equal(nested, (kind == "no_grad()", True),
                             what=f"(mode after the inner block, mode after the outer block) for `with a: flip the "
                                  f"mode; with b: pass`, a and b two {kind} objects, from grad mode on",
                             rule=REMEMBER)


ERRORS = (ValueError, KeyError, RuntimeError, TypeError, ZeroDivisionError, IndexError, Boom)


def random_uses(rng):
    """A few context objects of random kinds (CONTEXTS), each made from a random mode, then random
    uses of them (one_use): any object (so some are entered again), from a random mode, as a block or
    by hand, flipping the mode inside or not, half of the time raising a random error."""
    kinds = [(CONTEXTS[int(rng.integers(len(CONTEXTS)))], bool(rng.integers(2))) for _ in range(int(rng.integers(1, 4)))]
    uses = []
    for _ in range(int(rng.integers(3, 7))):
        error = (int(rng.integers(len(ERRORS))), f"error {int(rng.integers(100))}") if rng.integers(2) else None
        uses.append((int(rng.integers(len(kinds))), bool(rng.integers(2)), bool(rng.integers(2)), error,
                     ["call", "with"][int(rng.integers(2))]))
    return kinds, uses


def run_uses(plan):
    """The objects of a plan made, then used: per use, what one_use saw."""
    kinds, uses = plan
    contexts = []
    for kind, made_in in kinds:
        ag.grad_mode._set_grad_enabled(made_in)
        contexts.append(outcome(make_context, kind))
    seen = []
    for i, start, flip, error, form in uses:
        ctx = contexts[i]
        seen.append(ctx if isinstance(ctx, str) else
                    one_use(ctx, start, flip, None if error is None else (ERRORS[error[0]], error[1]), form))
    grad_mode_on()
    return seen


def check_uses(slots, seed, count):
    """Random plans (random_uses) with the library's code, then with your functions, use by use."""
    plans = [random_uses(rng) for rng in grading.random_cases(seed=seed, count=count)]
    expected, seen_all = grading.side_by_side(slots, None, lambda _: [run_uses(plan) for plan in plans])
    grad_mode_on()
    for n, ((kinds, uses), seen, wanted) in enumerate(zip(plans, seen_all, expected)):
        for step, ((i, start, flip, error, form), s, e) in enumerate(zip(uses, seen, wanted)):
            kind, made_in = kinds[i]
            again = f" (object #{i}, made with grad mode {_mode(made_in)}" + (
                ", entered before)" if any(j == i for j, *_ in uses[:step]) else ")")
            what = f"random case #{n}, use {step + 1}: " + use_text(
                kind, start, flip, None if error is None else (ERRORS[error[0]], error[1]), form, again)
            if isinstance(s, str) or isinstance(e, str):
                grading.expect_equal(s, e, what=f"making {kind}", rule=SWITCH)
                continue
            expect_use(s, e, what)


def grad_mode_context_in_the_library(enter, exit_, init):
    """Your ``__enter__`` and ``__exit__`` behind ``with`` blocks: ``no_grad() > enable_grad() >
    no_grad()`` nested, PyTorch's nesting example, a failed ``enable_grad()`` block and a
    ``set_grad_enabled(True)`` block inside ``no_grad()``, a worker thread, ``ag.nn.Linear(3, 2)``
    (whose init uses ``no_grad``), then ``backward()`` and ``autograd.grad(...,
    create_graph=True)`` inside ``no_grad()``, whose own ``set_grad_enabled`` blocks run your
    ``__exit__``.  Grad mode must come back each time."""
    grad_mode_on()
    with grading.checking(context_slots(enter, exit_, init)):
        def same_class_nesting():
            ag.set_grad_enabled(False)           # a plain call: grad mode off
            outer, middle, inner = ag.no_grad(), ag.enable_grad(), ag.no_grad()
            modes = []
            with outer:
                with middle:
                    with inner:
                        modes.append(ag.is_grad_enabled())
                    modes.append(ag.is_grad_enabled())
                modes.append(ag.is_grad_enabled())
            modes.append(ag.is_grad_enabled())
            return modes

        seen = outcome(same_class_nesting)
        grad_mode_on()
    grading.expect_equal(seen, [False, True, False, False],
                         what="the modes when leaving no_grad() > enable_grad() > no_grad(), entered with grad mode off",
                         rule=NESTING)

    with grading.checking(context_slots(enter, exit_, init)):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)

        def nested():
            modes = []
            with ag.no_grad():
                with ag.enable_grad():
                    a = x * 2
                    modes.append(ag.is_grad_enabled())
                b = x * 2
                with ag.no_grad():
                    modes.append(ag.is_grad_enabled())
                modes.append(ag.is_grad_enabled())
            c = x * 2
            return modes, (a.requires_grad, b.requires_grad, c.requires_grad), ag.is_grad_enabled()

        seen = outcome(nested)
        grad_mode_on()
    grading.expect_equal(seen, ([True, False, False], (True, False, True), True),
                         what="(modes inside, (a, b, c).requires_grad, mode after) for PyTorch's nesting example",
                         rule=NESTING)

    with grading.checking(context_slots(enter, exit_, init)):
        def failed_and_set():
            modes = []
            with ag.no_grad():
                try:
                    with ag.enable_grad():
                        raise ValueError("inside enable_grad")
                except ValueError:
                    modes.append(ag.is_grad_enabled())
                with ag.set_grad_enabled(True):
                    modes.append(ag.is_grad_enabled())
                modes.append(ag.is_grad_enabled())
            modes.append(ag.is_grad_enabled())
            return modes

        seen = outcome(failed_and_set)
        grad_mode_on()
    grading.expect_equal(seen, [False, True, False, True],
                         what="the modes after a failed enable_grad() block and a set_grad_enabled(True) block, "
                              "both inside no_grad(); then after it",
                         rule=RESTORE_RAISED)

    with grading.checking(context_slots(enter, exit_, init)):
        seen = {}

        def worker():
            seen["worker at start"] = ag.is_grad_enabled()
            with ag.no_grad():
                seen["worker in no_grad"] = ag.is_grad_enabled()
            seen["worker after"] = ag.is_grad_enabled()

        def main():
            with ag.no_grad():
                thread = threading.Thread(target=worker)
                thread.start()
                thread.join()
                seen["main in no_grad"] = ag.is_grad_enabled()
            seen["main after"] = ag.is_grad_enabled()

        outcome(main)
        layer = outcome(ag.nn.Linear, 3, 2)      # initializing the weights runs `with no_grad():`
        grad_mode_on()
    grading.expect_equal(seen, {"worker at start": True, "worker in no_grad": False, "worker after": True,
                                "main in no_grad": False, "main after": True},
                         what="grad modes seen in a worker thread and in the main thread", rule=PER_THREAD)
    grading.expect_true(isinstance(layer, ag.nn.Linear), what="ag.nn.Linear(3, 2) (its init uses no_grad)",
                        seen=repr(layer), rule=NESTING)
    grading.expect_equal((layer.weight.requires_grad, layer.weight.is_leaf), (True, True),
                         what="(weight.requires_grad, weight.is_leaf) of a new Linear layer", rule=RESTORE)

    with grading.checking(context_slots(enter, exit_, init)):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)

        def backward_inside_no_grad():
            loss = (x * x).sum()
            cubes = (x ** 3).sum()
            with ag.no_grad():
                loss.backward()
                inside = ag.is_grad_enabled()
                (g,) = ag.autograd.grad(cubes, x, create_graph=True)
                inside_after_grad = ag.is_grad_enabled()
            return inside, inside_after_grad, g.requires_grad, ag.is_grad_enabled()

        seen = outcome(backward_inside_no_grad)
        grad_mode_on()
        loss = (x * 2).sum()
        loss.backward()
        after_plain_backward = ag.is_grad_enabled()
        grad_mode_on()
    grading.expect_true(isinstance(seen, tuple), what="backward() and autograd.grad(..., create_graph=True) "
                                                      "inside no_grad()", seen=repr(seen), rule=RESTORE)
    grading.expect_equal(seen, (False, False, True, True),
                         what="(mode after backward() inside no_grad(), mode after autograd.grad(create_graph=True) "
                              "inside no_grad(), g.requires_grad, mode after the block)",
                         rule=RESTORE)
    grading.expect_equal(after_plain_backward, True, what="is_grad_enabled() after a plain loss.backward()",
                         rule=RESTORE)


# ------------------------------------------------------ 07.grad_mode_decorators: functions

DECORATOR = grading.rules("07.grad_mode_decorators")
MAKES_NONE = DECORATOR("fresh")
RETURNS = DECORATOR("returns")
INSIDE = DECORATOR("inside")
ARGUMENTS = DECORATOR("arguments")
EVENTS = DECORATOR("fresh", "inside")
WRAPS = DECORATOR("wraps")
PROPAGATES = DECORATOR("propagates")
DECORATED = DECORATOR("fresh", "returns", "wraps")
CLASSES = DECORATOR("classes")
CLASS_WARNING = "Decorating classes is deprecated and will be disabled in future versions."


def wrapped_names(wrapped, fn):
    """What ``help()`` and ``inspect`` see of ``wrapped``: (__name__, __qualname__, __doc__,
    __module__, whether __wrapped__ is ``fn``)."""
    return (getattr(wrapped, "__name__", None), getattr(wrapped, "__qualname__", None),
            getattr(wrapped, "__doc__", None), getattr(wrapped, "__module__", None),
            getattr(wrapped, "__wrapped__", None) is fn)


def grad_mode_decorator(decorate, decorate_generator):
    """Your ``decorate`` with a context that records its events (``recorder_class``):
    ``decorate(Recorder, add)`` must make no context itself (fresh); ``wrapped(4)`` and
    ``wrapped(2, b=3)`` must each run in a fresh context and return ``add``'s result (returns,
    inside, arguments); the wrapper shows ``add``'s names and docstring (wraps), and an error of
    the function goes through (propagates).  Then a decorated class (classes)."""
    grad_mode_on()
    events = []
    Recorder = recorder_class(events)
    slots = decorator_slots(decorate, decorate_generator)

    def add(a, b=0):
        """a + b."""
        events.append(("call", a, b))
        return a + b

    with grading.checking(slots):
        wrapped = outcome(decorate, Recorder, add)
        made_by_decorate = list(events)
        first = outcome(wrapped, 4) if callable(wrapped) else wrapped
        second = outcome(wrapped, 2, b=3) if callable(wrapped) else wrapped
    grading.expect_true(callable(wrapped), what="decorate(Recorder, add)", seen=repr(wrapped), rule=RETURNS)
    grading.expect_equal(made_by_decorate, [], what="the contexts made by decorate(Recorder, add) itself",
                         rule=MAKES_NONE)
    grading.expect_equal(first, 4, what="wrapped(4) for wrapped = decorate(Recorder, add)",
                         rule=INSIDE if isinstance(first, str) else RETURNS)
    grading.expect_equal(second, 5, what="wrapped(2, b=3)", rule=ARGUMENTS)
    grading.expect_equal(events, [("made", 0), ("enter", 0), ("call", 4, 0), ("exit", 0),
                                  ("made", 1), ("enter", 1), ("call", 2, 3), ("exit", 1)],
                         what="the events of wrapped(4), then wrapped(2, b=3)", rule=EVENTS)
    grading.expect_equal(wrapped_names(wrapped, add), ("add", add.__qualname__, "a + b.", add.__module__, True),
                         what="(__name__, __qualname__, __doc__, __module__, __wrapped__ is add) of wrapped",
                         rule=WRAPS)

    with grading.checking(slots):
        events.clear()

        def fail(message):
            events.append(("call", message, 0))
            raise ValueError(message)

        failing = decorate(Recorder, fail)
        seen = outcome(failing, "inside fn")
    grading.expect_equal(seen, "ValueError: inside fn", what="the error of a wrapped function that raises",
                         rule=PROPAGATES)
    grading.expect_equal(events, [("made", 0), ("enter", 0), ("call", "inside fn", 0), ("exit", 0)],
                         what="the events of a wrapped function that raises", rule=EVENTS)
    _check_decorated_class(slots)


def _check_decorated_class(slots):
    """``ag.no_grad()(Probe)`` and ``ag.set_grad_enabled(False)(Probe)``: PyTorch's FutureWarning
    at decorating, then objects of the class made in the mode by calls with arguments."""
    grad_mode_on()

    class Probe:
        """Remembers its arguments and the grad mode it was made in."""

        def __init__(self, *args, **kwargs):
            self.made = (args, kwargs, ag.is_grad_enabled())

    def story():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made = [outcome(lambda: ag.no_grad()(Probe)), outcome(lambda: ag.set_grad_enabled(False)(Probe))]
        warned = [(w.category.__name__, str(w.message)) for w in caught]
        probes = [outcome(m, 1, tag=2) if callable(m) else m for m in made]
        return warned, [(type(p).__name__, p.made) if isinstance(p, Probe) else shown(p) for p in probes], \
            ag.is_grad_enabled()

    with grading.checking(slots):
        warned, probes, after = story()
        grad_mode_on()
    grading.expect_equal(len(warned), 2, what="the warnings of decorating a class with ag.no_grad() and with "
                                              "ag.set_grad_enabled(False)", rule=CLASSES)
    for category, message in warned:
        grading.expect_true(category == "FutureWarning" and CLASS_WARNING in message,
                            what="the warning of decorating a class", seen=f"{category}: {message}", rule=CLASSES)
    grading.expect_equal(probes, [("Probe", ((1,), {"tag": 2}, False))] * 2,
                         what="(type, (args, kwargs, mode inside __init__)) of Made(1, tag=2), for Made = "
                              "ag.no_grad()(Probe) and ag.set_grad_enabled(False)(Probe)", rule=CLASSES)
    grading.expect_equal(after, True, what="is_grad_enabled() after decorating and calling", rule=MAKES_NONE)


def grad_mode_decorator_in_the_library(decorate, decorate_generator):
    """Your ``decorate`` behind ``@ag.no_grad`` on a recursive function (a fresh context
    for each call), and behind ``@ag.no_grad()``, ``@ag.enable_grad()`` and
    ``@ag.set_grad_enabled(False)``: the values and ``requires_grad`` of the results, the mode
    after decorating, and the name and docstring of a decorated function."""
    grad_mode_on()
    slots = decorator_slots(decorate, decorate_generator)
    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)

        @ag.no_grad
        def count_down(n):
            """Recurse n times."""
            if n > 0:
                count_down(n - 1)
            return ag.is_grad_enabled()

        inside = outcome(count_down, 3)
        after = ag.is_grad_enabled()
        grad_mode_on()
    grading.expect_equal((inside, after), (False, True),
                         what="(mode inside, mode after) for count_down(3), decorated with @ag.no_grad, recursive",
                         rule=MAKES_NONE)

    with grading.checking(slots):
        @ag.no_grad()
        def predict(t, *, scale=2.0):
            """Scale t."""
            return t * scale

        @ag.enable_grad()
        def recorded(t):
            return t * 2

        @ag.set_grad_enabled(False)
        def triple(t):
            return t * 3

        mode_after_decorating = ag.is_grad_enabled()
        p = outcome(predict, x, scale=3.0)
        t = outcome(triple, x)
        with ag.no_grad():
            r = outcome(recorded, x)
        grad_mode_on()
    for call, result, expected in (("predict(x, scale=3.0), @ag.no_grad()", p, ([3.0, 6.0, 9.0], False)),
                                   ("triple(x), @ag.set_grad_enabled(False)", t, ([3.0, 6.0, 9.0], False)),
                                   ("recorded(x) inside no_grad(), @ag.enable_grad()", r, ([2.0, 4.0, 6.0], True))):
        grading.expect_true(isinstance(result, ag.Tensor), what=call, seen=repr(result),
                            rule=RETURNS)
        grading.expect_equal((grading.to_list(result), result.requires_grad), expected,
                             what=f"(values, requires_grad) of {call}",
                             rule=INSIDE)
    grading.expect_equal(mode_after_decorating, True,
                         what="is_grad_enabled() after decorating with @ag.set_grad_enabled(False)",
                         rule=MAKES_NONE)
    grading.expect_equal((predict.__name__, predict.__doc__), ("predict", "Scale t."),
                         what="(predict.__name__, predict.__doc__) of a decorated predict",
                         rule=WRAPS)
