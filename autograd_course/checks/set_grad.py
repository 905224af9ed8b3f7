"""Visible checks of assignment 07, exercise 1, as far as ``set_grad_enabled`` goes: its constructor
(your ``set_grad_enabled_init``) with your ``__exit__``.

``autograd_course.checks.no_grad`` re-exports everything here: a test cell calls
``check.set_grad_enabled(grad_mode_enter, grad_mode_exit, set_grad_enabled_init)``.  The helpers below (random uses of
``set_grad_enabled``, made and entered at random moments, by classes of random names)
are shared with the hidden tests, which compare what your constructor does with what
the library's does.
"""

import threading

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import outcome, shown

from .grad_mode_programs import both_ways, errors_noted, grad_mode_on

__all__ = ["set_grad_enabled", "set_grad_enabled_in_the_library",
           "SWITCHES", "REMEMBERS", "KEEPS_MODE", "BOOL_ONLY", "REFUSES_FIRST", "RESTORES", "DECORATES",
           "MESSAGE", "NOT_BOOLS", "switch_class", "not_bool", "refusal", "construct",
           "random_switch_plan", "switch_plan_text", "run_switch_plan", "check_switch_plans", "slots_of", "THREADS"]

SWITCH_RULES = grading.rules("07.grad_mode_context")
SWITCHES = SWITCH_RULES("at-once")
REMEMBERS = SWITCH_RULES("restore")
KEEPS_MODE = SWITCH_RULES("switch")
BOOL_ONLY = SWITCH_RULES("bool-only")
REFUSES_FIRST = SWITCH_RULES("refuses-first")
RESTORES = SWITCH_RULES("restore")
DECORATES = SWITCH_RULES("decorates")
THREADS = SWITCH_RULES("thread")

MESSAGE = "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "

# Values that are not a bool, by how the tests name them, and how to make each one.
NOT_BOOLS = {
    "1": lambda rng: 1, "0": lambda rng: 0, "an int": lambda rng: int(rng.integers(-5, 6)),
    "None": lambda rng: None, "a float": lambda rng: float(rng.integers(0, 2)),
    "a string": lambda rng: ["yes", "no", "True", "False", ""][int(rng.integers(5))],
    "a NumPy bool": lambda rng: np.bool_(rng.integers(2)),
    "a NumPy int": lambda rng: np.int64(rng.integers(2)),
    "a tensor": lambda rng: ag.tensor(bool(rng.integers(2))),
    "a list": lambda rng: [bool(rng.integers(2))],
}


def switch_class(name):
    """A subclass of ``ag.set_grad_enabled`` named ``name``: it must behave the same (your
    constructor runs for it too)."""
    return type(name, (ag.set_grad_enabled,), {})


def not_bool(kind, rng):
    """A value of the kind ``kind`` (a key of NOT_BOOLS)."""
    return NOT_BOOLS[kind](rng)


def refusal(error, value):
    """An error text as the tests compare it: a NumPy value's type may be named with or
    without its module (``numpy.bool`` in PyTorch), so only the start of the message counts."""
    if isinstance(error, str) and isinstance(value, np.generic) and MESSAGE in error:
        return error[:error.index(MESSAGE) + len(MESSAGE)] + "<the type's name>"
    return error


def construct(cls, *args, **kwargs):
    """``cls(*args, **kwargs)``: (the object's repr or the error, grad mode after)."""
    made = outcome(cls, *args, **kwargs)
    return (made if isinstance(made, str) else outcome(repr, made)), ag.is_grad_enabled()


def slots_of(fns):
    """The slots of exercise 1 for ``grading.checking``, from your three functions."""
    enter, exit_, init = fns
    return {"07.grad_mode_enter": enter, "07.grad_mode_exit": exit_, "07.set_grad_enabled": init}


def set_grad_enabled(*fns):
    """Your constructor (with your ``__exit__``) behind ``ag.set_grad_enabled(...)`` as a plain call:
    from grad mode on and off, with ``True``, ``False`` and ``mode=False``.  It must switch at once
    (at-once) and show its mode in ``repr``; then, the mode set back, ``with obj:`` must switch to
    the object's mode inside (switch) and bring back the mode from before the object was made
    (restore).  Then non-bools (``1``, ``0``, ``None``, ``"yes"``, ``1.0``, a tensor, a NumPy
    bool): a TypeError with PyTorch's message (bool-only), and grad mode, on or off, left as it
    was (refuses-first)."""
    grad_mode_on()
    slots = slots_of(fns)

    def made_then_entered(start, args, kwargs):
        made = outcome(ag.set_grad_enabled, *args, **kwargs)
        after = ag.is_grad_enabled()
        if isinstance(made, str):
            return made, after, None
        shown_as = outcome(repr, made)
        ag.grad_mode._set_grad_enabled(start)
        modes = []

        def block():
            with made:
                modes.append(ag.is_grad_enabled())
            modes.append(ag.is_grad_enabled())

        error = outcome(block)
        return shown_as, after, error if isinstance(error, str) else tuple(modes)

    with grading.checking(slots):
        seen = []
        for start, args, kwargs in ((True, (False,), {}), (False, (True,), {}), (True, (), {"mode": False}),
                                    (False, (False,), {}), (True, (True,), {})):
            ag.grad_mode._set_grad_enabled(start)
            seen.append((start, args, kwargs, made_then_entered(start, args, kwargs)))
        grad_mode_on()
    for start, args, kwargs, (shown_as, after, block) in seen:
        given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
        call = f"obj = ag.set_grad_enabled({given}) from grad mode {'on' if start else 'off'}"
        mode = args[0] if args else kwargs["mode"]
        grading.expect_true(block is not None, what=call, seen=shown_as, rule=SWITCHES)
        grading.expect_equal(after, mode, what=f"is_grad_enabled() after {call}", rule=SWITCHES)
        grading.expect_equal(shown_as, f"autograd_lib.autograd.grad_mode.set_grad_enabled(mode={mode})",
                             what=f"repr(obj) after {call}", rule=KEEPS_MODE)
        then = f"{call}, then the mode set back to {'on' if start else 'off'}"
        grading.expect_true(isinstance(block, tuple), what=f"`with obj: pass` after {then}", seen=block,
                            rule=RESTORES)
        grading.expect_equal(block[0], mode, what=f"is_grad_enabled() inside `with obj:` after {then}",
                             rule=KEEPS_MODE)
        grading.expect_equal(block[1], start, what=f"is_grad_enabled() after `with obj:` after {then}",
                             rule=REMEMBERS)

    values = [("1", 1, "int"), ("0", 0, "int"), ("None", None, "NoneType"), ('"yes"', "yes", "str"),
              ("1.0", 1.0, "float"), ("ag.tensor(True)", ag.tensor(True), "Tensor"),
              ("np.bool_(True)", np.bool_(True), None)]
    for start in (True, False):
        with grading.checking(slots):
            seen = []
            for text, value, name in values:
                ag.grad_mode._set_grad_enabled(start)
                seen.append((text, value, name, outcome(ag.set_grad_enabled, value), ag.is_grad_enabled()))
            grad_mode_on()
        for text, value, name, error, after in seen:
            call = f"ag.set_grad_enabled({text}) from grad mode {'on' if start else 'off'}"
            sentence = MESSAGE + (name or "")
            grading.expect_true(isinstance(error, str) and error.startswith(f"TypeError: {sentence}")
                                and (name is None or error == f"TypeError: {sentence}"),
                                what=f"{call}: TypeError: {sentence}" + ("" if name else "<the type's name>"),
                                seen=error if isinstance(error, str) else "no error", rule=BOOL_ONLY)
            grading.expect_equal(after, start, what=f"is_grad_enabled() after the refused {call}",
                                 rule=REFUSES_FIRST)


def set_grad_enabled_in_the_library(*fns):
    """Your constructor behind the three uses of ``set_grad_enabled``: PyTorch's examples
    (a plain call, a ``with`` block, a train/eval loop); a block that raises (RESTORES); an
    object made while recording is on and entered later, when it is off (after the block:
    the mode from when it was made, as in PyTorch); ``@ag.set_grad_enabled(False)`` and
    ``@ag.set_grad_enabled(True)`` as decorators, from either mode (DECORATES); backward
    with ``create_graph=True`` inside ``no_grad`` (backward runs its formulas in
    ``with set_grad_enabled(create_graph):``); a worker thread that switches its own mode."""
    grad_mode_on()
    slots = slots_of(fns)
    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)

        def pytorch_examples():
            seen = [type(ag.set_grad_enabled(False)).__name__, ag.is_grad_enabled()]
            ag.set_grad_enabled(True)
            with ag.set_grad_enabled(False):
                seen.append(ag.is_grad_enabled())
            seen.append(ag.is_grad_enabled())
            for phase in ("train", "eval"):
                with ag.set_grad_enabled(phase == "train"):
                    seen.append((phase, (x * 2).requires_grad))
            return seen

        examples = outcome(pytorch_examples)
        grad_mode_on()

        def raising_block():
            with ag.set_grad_enabled(False):
                raise ValueError("inside the block")

        raised = outcome(raising_block), ag.is_grad_enabled()
        grad_mode_on()

        def made_then_entered():
            switch = ag.set_grad_enabled(True)          # made while recording is on
            ag.grad_mode._set_grad_enabled(False)
            with switch:
                inside = ag.is_grad_enabled()
            return inside, ag.is_grad_enabled()

        later = outcome(made_then_entered)
        grad_mode_on()
    grading.expect_equal(examples, ["set_grad_enabled", False, False, True, ("train", True), ("eval", False)],
                         what="[type of ag.set_grad_enabled(False), the mode after it; then after "
                              "set_grad_enabled(True): the mode inside and after `with set_grad_enabled(False):`; "
                              "(phase, (x * 2).requires_grad) in `with set_grad_enabled(phase == 'train'):`]",
                         rule=SWITCHES)
    grading.expect_equal(raised, ("ValueError: inside the block", True),
                         what="(the error, is_grad_enabled() after) of `with ag.set_grad_enabled(False): raise "
                              "ValueError('inside the block')` from grad mode on", rule=RESTORES)
    grading.expect_equal(later, (True, True),
                         what="(mode inside, mode after) of `with switch:`, switch = ag.set_grad_enabled(True) "
                              "made with grad mode on, entered after switching it off",
                         rule=RESTORES)

    for start in (True, False):
        with grading.checking(slots):
            ag.grad_mode._set_grad_enabled(start)
            x = ag.tensor([1.0, 2.0], requires_grad=True)

            def decorated_calls(mode):
                def times_three(t):
                    """Three times t."""
                    return t * 3, ag.is_grad_enabled()
                decorated = outcome(ag.set_grad_enabled(mode), times_three)
                after_decorating = ag.is_grad_enabled()
                if isinstance(decorated, str):
                    return decorated, after_decorating
                result = outcome(decorated, x)
                if isinstance(result, str):
                    return result, after_decorating
                return (after_decorating, result[1], result[0].requires_grad, ag.is_grad_enabled(),
                        decorated.__name__)

            seen = [(mode, decorated_calls(mode)) for mode in (False, True)]
            grad_mode_on()
        for mode, s in seen:
            grading.expect_equal(s, (start, mode, mode, start, "times_three"),
                                 what=f"(mode after decorating, mode inside, requires_grad of the result, mode "
                                      f"after the call, __name__) for times_three decorated with "
                                      f"@ag.set_grad_enabled({mode}), from grad mode {'on' if start else 'off'}",
                                 rule=DECORATES if isinstance(s, tuple) and s[0] == start else REMEMBERS)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)

        def backward_inside_no_grad():
            cubes = (x ** 3).sum()
            with ag.no_grad():
                (g,) = ag.autograd.grad(cubes, x, create_graph=True)
                inside = ag.is_grad_enabled()
            (h,) = ag.autograd.grad(g.sum(), x)
            return inside, g.requires_grad, grading.to_list(h), ag.is_grad_enabled()

        grads = outcome(backward_inside_no_grad)
        grad_mode_on()
        seen = {}

        def worker():
            ag.set_grad_enabled(False)
            seen["worker"] = ag.is_grad_enabled()

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        seen["main"] = ag.is_grad_enabled()
        grad_mode_on()
    grading.expect_equal(grads, (False, True, [6.0, 12.0, 18.0], True),
                         what="(mode inside no_grad after autograd.grad(create_graph=True), g.requires_grad, "
                              "the second derivative 6x, mode after), x = [1, 2, 3], g = 3x**2",
                         rule=REMEMBERS)
    grading.expect_equal(seen, {"worker": False, "main": True},
                         what="grad mode in a worker thread after ag.set_grad_enabled(False) there, and in the "
                              "main thread",
                         rule=THREADS)


# ------------------------------------------------------------------ hidden tests: random uses

def random_switch_plan(rng):
    """Random uses of set_grad_enabled by a class of a random name (a subclass behaves the same):
    plain calls, objects made now and entered later (maybe after the mode flipped, maybe twice),
    blocks that raise, decorated calls, and non-bool values."""
    cls_name = f"Switch{int(rng.integers(1000))}"
    steps = []
    for _ in range(int(rng.integers(4, 9))):
        kind = ["call", "make", "enter", "flip", "decorate", "refuse"][int(rng.integers(6))]
        if kind in ("call", "make", "decorate"):
            steps.append((kind, bool(rng.integers(2))))
        elif kind == "enter":
            steps.append((kind, int(rng.integers(3)), bool(rng.integers(2))))   # which object, raise inside
        elif kind == "flip":
            steps.append((kind,))
        else:
            kinds = sorted(NOT_BOOLS)
            steps.append((kind, kinds[int(rng.integers(len(kinds)))], int(rng.integers(2 ** 31))))
    return cls_name, bool(rng.integers(2)), steps


def switch_plan_text(plan):
    cls_name, start, steps = plan
    lines = [f"class {cls_name}(ag.set_grad_enabled): pass", f"grad mode {'on' if start else 'off'}"]
    for step in steps:
        if step[0] == "call":
            lines.append(f"{cls_name}({step[1]})")
        elif step[0] == "make":
            lines.append(f"objects.append({cls_name}({step[1]}))")
        elif step[0] == "enter":
            lines.append(f"with objects[{step[1]} % len(objects)]: {'raise Boom()' if step[2] else 'probe()'}")
        elif step[0] == "flip":
            lines.append("flip the mode")
        elif step[0] == "decorate":
            lines.append(f"f = {cls_name}({step[1]})(probing function); f()")
        else:
            lines.append(f"{cls_name}(<{step[1]}>)")
    return "\n    ".join(lines)


def run_switch_plan(plan):
    """Run a plan from its start mode: what each step saw (states, modes, errors)."""
    cls_name, start, steps = plan
    cls = switch_class(cls_name)
    ag.grad_mode._set_grad_enabled(start)
    objects, trace = [], []

    def probe():
        return ag.is_grad_enabled()

    for step in steps:
        with errors_noted(trace):
            if step[0] == "call":
                trace.append(("call",) + construct(cls, step[1]))
            elif step[0] == "make":
                made = outcome(cls, step[1])
                if not isinstance(made, str):
                    objects.append(made)
                trace.append(("make", made if isinstance(made, str) else outcome(repr, made),
                              ag.is_grad_enabled()))
            elif step[0] == "enter":
                if not objects:
                    continue
                inside = []
                try:
                    with objects[step[1] % len(objects)]:
                        inside.append(probe())
                        if step[2]:
                            raise RuntimeError("Boom")
                except RuntimeError as error:
                    inside.append(str(error))
                trace.append(("enter", inside, ag.is_grad_enabled()))
            elif step[0] == "flip":
                ag.grad_mode._set_grad_enabled(not ag.is_grad_enabled())
                trace.append(("flip", ag.is_grad_enabled()))
            elif step[0] == "decorate":
                decorated = outcome(lambda: cls(step[1])(probe))
                after = ag.is_grad_enabled()
                called = decorated if isinstance(decorated, str) else outcome(decorated)
                trace.append(("decorate", after, called, ag.is_grad_enabled()))
            else:
                value = not_bool(step[1], np.random.default_rng(step[2]))
                error = outcome(cls, value)
                trace.append(("refuse", refusal(error, value) if isinstance(error, str) else "no error",
                              ag.is_grad_enabled()))
    grad_mode_on()
    return trace


def _rule_of(seen, expected):
    """The rule a step of a switch plan breaks, from what differs."""
    kind = expected[0] if isinstance(expected, tuple) else None
    if kind in ("call", "make"):
        if isinstance(seen, tuple) and len(seen) == 3 and seen[2] != expected[2]:
            return SWITCHES
        refused = any(isinstance(x, tuple) and len(x) == 3 and str(x[1]).startswith("TypeError")
                      for x in (seen, expected))
        return BOOL_ONLY if refused else KEEPS_MODE
    if kind == "enter" and isinstance(seen, tuple) and len(seen) == 3 and seen[1][:1] != expected[1][:1]:
        return KEEPS_MODE
    if kind == "refuse":
        return BOOL_ONLY if not isinstance(seen, tuple) or seen[1] != expected[1] else REFUSES_FIRST
    return {"enter": RESTORES, "decorate": DECORATES}.get(kind, SWITCHES)


def _expect_step(seen, expected, what, broken):
    """One step of a plan as expected, or ``broken`` (the rule _rule_of found) is named."""
    grading.expect_equal(seen, expected, what=what, rule=broken)


def check_switch_plans(fns, seed, count):
    """Random plans (random_switch_plan) run with the library's code, then with your three functions ``fns``,
    compared step by step; a failure prints the plan."""
    plans = [random_switch_plan(rng) for rng in grading.random_cases(seed=seed, count=count)]
    expected, seen = both_ways(slots_of(fns), None, run_switch_plan, plans)
    for n, (plan, s, e) in enumerate(zip(plans, seen, expected)):
        for step, (a, b) in enumerate(zip(s, e)):
            _expect_step(a, b, f"step {step + 1} of random case #{n} (what it saw: the object's "
                               f"repr, modes, errors):\n    {switch_plan_text(plan)}\n", _rule_of(a, b))
        grading.expect_equal(len(s), len(e), what=f"the number of steps of random case #{n}", rule=SWITCHES)
