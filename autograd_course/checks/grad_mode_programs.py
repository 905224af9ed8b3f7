"""Random grad-mode programs for the checks of assignment 07 (``autograd_course.checks.no_grad``).

A *program* is a random nesting of grad-mode blocks (``no_grad()``, ``enable_grad()``,
``set_grad_enabled(...)``), decorated calls and raised errors; running one records the grad
mode each statement saw.  The hidden tests run random programs with your grad-mode code and
with the library's, and compare what each statement saw; a failure prints the program.
``no_grad`` re-exports every name here.
"""

import contextlib

import numpy as np

import autograd_lib as ag
from autograd_course import grading

__all__ = ["grad_mode_on", "Boom", "CONTEXTS", "DECORATORS", "make_context", "decorated", "random_program",
           "program_text", "run_program", "random_programs", "check_programs", "reused_contexts", "check_reused",
           "recorder_class", "both_ways", "decorator_slots", "errors_noted"]


@contextlib.contextmanager
def errors_noted(trace):
    """Run a block; an error it raises is noted at the end of ``trace`` as ``"Kind: message"``
    (a ``DelegationError`` goes on: it is the grader's verdict, not the code's behaviour)."""
    try:
        yield
    except grading.DelegationError:
        raise
    except Exception as error:
        trace.append(f"{type(error).__name__}: {error}")


def grad_mode_on():
    """Switch grad mode back on, whatever an earlier cell left (every test starts from here)."""
    ag.grad_mode._set_grad_enabled(True)


class Boom(Exception):
    """The error that random programs raise inside a block."""


# The grad modes as random programs use them: contexts by name, decorators by how they are written.
CONTEXTS = ("no_grad()", "enable_grad()", "set_grad_enabled(False)", "set_grad_enabled(True)")
DECORATORS = ("@no_grad()", "@no_grad", "@enable_grad()", "@enable_grad",
              "@set_grad_enabled(False)", "@set_grad_enabled(True)")


def make_context(name):
    """A grad-mode context from its name in CONTEXTS."""
    makers = {"no_grad()": ag.no_grad, "enable_grad()": ag.enable_grad,
              "set_grad_enabled(False)": lambda: ag.set_grad_enabled(False),
              "set_grad_enabled(True)": lambda: ag.set_grad_enabled(True)}
    return makers[name]()


def decorated(name, fn):
    """fn decorated by a decorator from DECORATORS ("@no_grad" is used without parentheses)."""
    if name == "@no_grad":
        return ag.no_grad(fn)
    if name == "@enable_grad":
        return ag.enable_grad(fn)
    return make_context(name[1:])(fn)


def random_program(rng, depth=0, in_try=False):
    """A random list of statements: probes of the mode, plain set_grad_enabled calls, with-blocks,
    decorated calls, decorated recursion, and errors raised inside try blocks."""
    statements = []
    for _ in range(int(rng.integers(1, 4))):
        kinds = ["probe", "set"] + (["with", "call", "recurse", "try"] if depth < 3 else [])
        kinds += ["raise"] if in_try else []
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind == "probe":
            statements.append(("probe",))
        elif kind == "set":
            statements.append(("set", bool(rng.integers(2))))
        elif kind == "raise":
            statements.append(("raise",))
            break
        elif kind == "with":
            statements.append(("with", CONTEXTS[int(rng.integers(len(CONTEXTS)))],
                               random_program(rng, depth + 1, in_try)))
        elif kind == "call":
            statements.append(("call", DECORATORS[int(rng.integers(len(DECORATORS)))],
                               random_program(rng, depth + 1, in_try), int(rng.integers(100))))
        elif kind == "recurse":
            statements.append(("recurse", DECORATORS[int(rng.integers(len(DECORATORS)))],
                               int(rng.integers(1, 4))))
        else:
            statements.append(("try", random_program(rng, depth + 1, True)))
    return statements


def program_text(statements, indent=""):
    """A program as Python-like text (for the feedback of a failing test)."""
    lines = []
    for s in statements:
        if s[0] == "probe":
            lines.append("probe()")
        elif s[0] == "set":
            lines.append(f"ag.set_grad_enabled({s[1]})")
        elif s[0] == "raise":
            lines.append("raise Boom()")
        elif s[0] == "with":
            lines += [f"with ag.{s[1]}:"] + ["    " + line for line in program_text(s[2])]
        elif s[0] == "call":
            lines += [f"@ag.{s[1][1:]}", "def function(*, tag):"]
            lines += ["    " + line for line in program_text(s[2]) + ["return tag"]]
            lines.append(f"record(function.__name__, function(tag={s[3]}))")
        elif s[0] == "recurse":
            lines += [f"@ag.{s[1][1:]}", "def countdown(n):", "    probe()",
                      "    if n > 0:", "        countdown(n - 1)", "    probe()", f"countdown({s[2]})"]
        else:
            lines += ["try:"] + ["    " + line for line in program_text(s[1])]
            lines += ["    record('no error')", "except Boom:", "    record('caught')", "probe()"]
    return [indent + line for line in lines]


def run_program(program):
    """Run a program from grad mode on. The trace: what each probe() saw,
    (is_grad_enabled(), (w * 2).requires_grad), what was recorded, and any other error."""
    grad_mode_on()
    w = ag.ones(2, requires_grad=True)
    trace = []

    def probe():
        trace.append((ag.is_grad_enabled(), (w * 2).requires_grad))

    def function(statements, *, tag):
        execute(statements)
        return tag

    def countdown_with(name):
        def countdown(n):
            probe()
            if n > 0:
                decorated_countdown(n - 1)
            probe()
        decorated_countdown = decorated(name, countdown)
        return decorated_countdown

    def execute(statements):
        for s in statements:
            if s[0] == "probe":
                probe()
            elif s[0] == "set":
                ag.set_grad_enabled(s[1])
            elif s[0] == "raise":
                raise Boom()
            elif s[0] == "with":
                with make_context(s[1]):
                    execute(s[2])
            elif s[0] == "call":
                f = decorated(s[1], function)
                trace.append((f.__name__, f(s[2], tag=s[3])))
            elif s[0] == "recurse":
                countdown_with(s[1])(s[2])
            else:
                try:
                    execute(s[1])
                    trace.append("no error")
                except Boom:
                    trace.append("caught")
                probe()

    try:
        execute(program)
    except grading.DelegationError:
        raise
    except Exception as error:
        trace.append(f"{type(error).__name__}: {error}")
    probe()
    grad_mode_on()
    return trace


def random_programs(seed, count):
    """`count` random programs (random_program), each starting with a probe; the same ones for the same seed."""
    return [[("probe",)] + random_program(rng) for rng in grading.random_cases(seed=seed, count=count)]


def both_ways(exercise_id, fn, run, cases):
    """``(expected, seen)``: ``run(case)`` for every case, told side by side
    (``grading.side_by_side``: the library's code, then ``fn`` graded in the slot of
    ``exercise_id``, or the slots of a dict); grad mode is switched back on after."""
    expected, seen = grading.side_by_side(exercise_id, fn, lambda _: [run(case) for case in cases])
    grad_mode_on()
    return expected, seen


def decorator_slots(decorate, decorate_generator):
    """The two slots that exercise 2 (grad_mode_decorators) fills, for ``grading.checking``."""
    return {"07.grad_mode_decorator": decorate, "07.grad_mode_generator": decorate_generator}


def check_programs(programs, seen, expected, rule):
    """Compare the traces of the programs run with your function and with the library's."""
    for i, (program, s, e) in enumerate(zip(programs, seen, expected)):
        text = "\n    ".join(program_text(program))
        grading.expect_equal(s, e, rule=rule,
                             what=f"the trace of random program #{i} (what each probe() saw, "
                                  f"(is_grad_enabled(), (w * 2).requires_grad), what was recorded, "
                                  f"and errors), starting with grad mode on:\n    {text}\n")


def reused_contexts(rng):
    """Two no_grad()/enable_grad() objects, each entered several times, nested in each other, from
    a random mode, with mode flips and errors inside. (kinds, start mode, steps, the modes seen)."""
    kinds = [("no_grad()", "enable_grad()")[int(i)] for i in rng.integers(2, size=2)]
    pool = [make_context(kind) for kind in kinds]
    start = bool(rng.integers(2))
    steps = [(int(rng.integers(2)), bool(rng.integers(2)), bool(rng.integers(2))) for _ in range(4)]
    ag.grad_mode._set_grad_enabled(start)
    modes = []
    try:
        for outer, flip, fail in steps:
            try:
                with pool[outer]:
                    modes.append(ag.is_grad_enabled())
                    if flip:
                        ag.set_grad_enabled(not ag.is_grad_enabled())
                    with pool[1 - outer]:
                        modes.append(ag.is_grad_enabled())
                        if fail:
                            raise Boom()
                    modes.append(ag.is_grad_enabled())
            except Boom:
                modes.append("caught")
            modes.append(ag.is_grad_enabled())
    except grading.DelegationError:
        raise
    except Exception as error:
        modes.append(f"{type(error).__name__}: {error}")
    grad_mode_on()
    return kinds, start, steps, modes


def check_reused(seed, count, slots, rule):
    """reused_contexts with the library's code, then with ``slots`` (your functions) graded."""
    seeds = [int(rng.integers(2 ** 32)) for rng in grading.random_cases(seed=seed, count=count)]
    expected, seen = grading.side_by_side(slots, None,
                                          lambda _: [reused_contexts(np.random.default_rng(s)) for s in seeds])
    for (kinds, start, steps, e), (_, _, _, s) in zip(expected, seen):
        grading.expect_equal(s, e, rule=rule,
                             what=f"the modes seen with two context objects {kinds} each entered 4 times "
                                  f"(steps (outer index, flip the mode inside, raise inside): {steps}), "
                                  f"starting with grad mode {'on' if start else 'off'}")


def recorder_class(events):
    """A context-manager class whose objects record, in the list ``events``, when they are
    made, entered and left: ``("made", n)``, ``("enter", n)``, ``("exit", n)``, where ``n``
    numbers the objects made since ``events`` was last cleared.  It passes for
    ``make_context`` in the tests of ``decorate`` and ``decorate_generator``."""

    class Recorder:
        """A context manager that records when it is made, entered and left."""

        def __init__(self):
            self.number = sum(1 for event in events if event[0] == "made")
            events.append(("made", self.number))

        def __enter__(self):
            events.append(("enter", self.number))

        def __exit__(self, exc_type, exc_value, traceback):
            events.append(("exit", self.number))
            return False

    return Recorder
