"""Visible checks of assignment 07, exercise 2 (grad_mode_decorators): decorated generators.

``autograd_course.checks.no_grad`` re-exports everything here: a test cell calls
``check.grad_mode_generator(decorate, decorate_generator)``.  The helpers below build random
*scripts*: a generator function that yields, returns, raises or catches errors at each
step, and a caller that steps it with ``next``, ``send``, ``throw`` and ``close``.  The
hidden tests run them with your ``decorate`` and ``decorate_generator`` and with the library's, and
compare what each step gave and when contexts were made, entered and left.
"""

import inspect

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import outcome, shown, raise_if_not_written

from .grad_mode_programs import both_ways, decorated, decorator_slots, errors_noted, grad_mode_on, recorder_class

__all__ = ["grad_mode_generator", "grad_mode_generator_in_the_library",
           "G_STEPS", "G_BETWEEN", "G_FRESH", "G_LAZY", "G_SEND", "G_RETURN", "G_THROW", "G_CLOSE",
           "G_WRAPS", "G_ARGS", "G_RAISES", "ERRORS", "step", "scripted", "random_script", "script_text",
           "run_script", "check_scripts", "random_mode_script", "mode_script_text", "run_mode_script",
           "check_mode_scripts"]

GENERATOR = grading.rules("07.grad_mode_decorators")
G_STEPS = GENERATOR("steps")
G_BETWEEN = GENERATOR("between")
G_FRESH = GENERATOR("fresh")
G_LAZY = GENERATOR("lazy")
G_SEND = GENERATOR("send")
G_RETURN = GENERATOR("returns")
G_THROW = GENERATOR("throw")
G_CLOSE = GENERATOR("close")
G_WRAPS = GENERATOR("wraps")
G_ARGS = GENERATOR("arguments")
G_RAISES = GENERATOR("propagates")

ERRORS = (ValueError, KeyError, RuntimeError, ZeroDivisionError, IndexError)


def _expect_rule(seen, expected, what, broken):
    """seen == expected, or ``broken``, the rule its difference shows broken, is named."""
    grading.expect_equal(seen, expected, what=what, rule=broken)


def step(gen, how, value=None):
    """One step of the generator ``gen``: ``how`` is ``"next"``, ``"send"`` (``value``),
    ``"throw"`` (the exception ``value``) or ``"close"``.  Returns ``("yielded", v)``,
    ``("returned", v)`` (StopIteration's value), ``("closed", None)`` or the error's text."""
    try:
        if how == "next":
            return "yielded", shown(next(gen))
        if how == "send":
            return "yielded", shown(gen.send(value))
        if how == "throw":
            return "yielded", shown(gen.throw(value))
        gen.close()
        return "closed", None
    except StopIteration as stop:
        return "returned", shown(stop.value)
    except grading.DelegationError:
        raise
    except Exception as error:
        raise_if_not_written(error)
        return f"{type(error).__name__}: {error}"


def scripted(events, actions, catches, name, doc=None):
    """A generator function named ``name`` that records in ``events`` what happens to it. At
    each step it does the next action: ``("yield", v)``, ``("return", v)`` or ``("raise", i)``
    (``ERRORS[i]``); an error thrown in at a yield is caught (and recorded) when its index is in
    ``catches``; its ``finally`` is recorded too."""
    def gen(*args, **kwargs):
        events.append(("start", args, sorted(kwargs.items())))
        try:
            for kind, value in actions:
                if kind == "return":
                    return value
                if kind == "raise":
                    raise ERRORS[value](f"error {value}")
                try:
                    got = yield value
                    events.append(("got", got))
                except tuple(ERRORS[i] for i in catches) as error:
                    events.append(("caught", type(error).__name__))
            return "done"
        finally:
            events.append(("finally",))
    gen.__name__ = gen.__qualname__ = name
    gen.__doc__ = doc
    return gen


def grad_mode_generator(decorate, decorate_generator):
    """Your ``decorate`` and ``decorate_generator`` with a context that records its events (the
    ``Recorder``: ``("made", n)``, ``("enter", n)``, ``("exit", n)``) and a generator
    ``counter(start, step_by=1)`` that records what it receives.  Decorating and calling the
    wrapper must run nothing (G_LAZY); then ``next``, ``send(5)``, ``next`` and
    ``send("stop")``: each step in a fresh context, made, entered and left around the
    generator's own work (G_STEPS), the sent values in (G_SEND) and the return value out
    (G_RETURN); the name and docstring (G_WRAPS).  Then a generator that returns before its
    first yield (G_RETURN), errors thrown in, caught or not (G_THROW), ``close()`` in the
    middle (G_CLOSE) and an error of the generator (G_RAISES), each decorated by
    ``decorate_generator`` alone."""
    grad_mode_on()
    fn = decorator_slots(decorate, decorate_generator)
    events = []
    Recorder = recorder_class(events)

    def counter(start, step_by=1):
        """Counts from start."""
        events.append(("start", start, step_by))
        total = start
        try:
            while True:
                got = yield total
                events.append(("got", got))
                if got == "stop":
                    return ("stopped", total)
                total += step_by if got is None else got
        finally:
            events.append(("finally",))

    steps = [("next", None), ("send", 5), ("next", None), ("send", "stop")]

    def story(_):
        """[events of decorating, events of calling, then (what the step gave, its events) per step],
        decorated by the decorate plugged now"""
        events.clear()
        wrapped = outcome(ag.grad_mode.decorate, Recorder, counter)
        seen = [list(events)]
        if isinstance(wrapped, str) or not callable(wrapped):
            return seen + [shown(wrapped)], None
        start = len(events)
        gen = outcome(wrapped, 10, step_by=2)
        seen.append(list(events[start:]))
        if isinstance(gen, str):
            return seen + [gen], wrapped
        for how, value in steps:
            start = len(events)
            seen.append((step(gen, how, value), list(events[start:])))
        return seen, wrapped

    [(expected, _)], [(seen, wrapped)] = both_ways(fn, None, story, [None])
    grading.expect_equal(seen[:1], expected[:1], what="the events of decorate(Recorder, counter)",
                         rule=G_LAZY)
    grading.expect_equal(seen[1:2], expected[1:2], what="the events of gen = wrapped(10, step_by=2)", rule=G_LAZY)
    grading.expect_true(not (len(seen) > 2 and isinstance(seen[2], str)), what="gen = wrapped(10, step_by=2)",
                        seen=seen[2] if len(seen) > 2 else None, rule=G_ARGS)
    for (how, value), s, e in zip(steps, seen[2:], expected[2:]):
        call = "next(gen)" if how == "next" else f"gen.send({value!r})"
        result = s[0] if isinstance(s, tuple) else s
        rule = G_RETURN if e[0][0] == "returned" else (G_SEND if how == "send" else G_STEPS)
        _expect_rule(result, e[0], f"what {call} gave", rule)
        got = [event for event in s[1] if event[0] == "got"] if isinstance(s, tuple) else []
        rule = G_SEND if got and got != [event for event in e[1] if event[0] == "got"] else G_STEPS
        _expect_rule(s[1] if isinstance(s, tuple) else s, e[1],
                     f"the events of {call} (made, enter, the generator's own, exit)", rule)
    grading.expect_equal(len(seen), len(expected), what="the steps that ran", rule=G_STEPS)
    grading.expect_true(inspect.isgeneratorfunction(wrapped), what="inspect.isgeneratorfunction(wrapped)",
                        seen="a plain function" if callable(wrapped) else shown(wrapped), rule=G_LAZY)
    grading.expect_equal(_names(wrapped, counter), ("counter", counter.__qualname__, "Counts from start.",
                                                    counter.__module__, True),
                         what="(__name__, __qualname__, __doc__, __module__, __wrapped__ is counter) of wrapped",
                         rule=G_WRAPS)

    cases = [
        ("returns 7 before its first yield", [("return", 7)], (), [("next", None)], G_RETURN),
        ("catches a ValueError thrown in and yields again", [("yield", 1), ("yield", 2)], (0,),
         [("next", None), ("throw", ValueError("thrown in")), ("next", None)], G_THROW),
        ("does not catch a KeyError thrown in", [("yield", 1), ("yield", 2)], (0,),
         [("next", None), ("throw", KeyError("thrown in")), ("next", None)], G_THROW),
        ("is closed after its first yield", [("yield", 1), ("yield", 2)], (),
         [("next", None), ("close", None), ("next", None)], G_CLOSE),
        ("raises a ZeroDivisionError at its second step", [("yield", 1), ("raise", 3)], (),
         [("next", None), ("next", None)], G_RAISES),
    ]
    for n, (text, actions, catches, steps_of_case, rule) in enumerate(cases):
        script = (f"case_{n}", None, actions, catches, (), {}, steps_of_case)
        [expected], [seen] = both_ways(fn, None, lambda case: run_script(case, Recorder, events), [script])
        _expect_rule(seen, expected, f"[events of decorating, of calling, then (what the step gave, its events) per "
                                     f"step, (__name__, __doc__)] for a generator that {text}; steps: "
                                     f"{[how for how, _ in steps_of_case]}", rule)


def run_script(script, Recorder, events, via="decorate_generator"):
    """Decorate a scripted generator with ``ag.grad_mode.decorate_generator(Recorder, gen)``, or
    ``decorate`` when ``via`` says so (the library's, or yours inside ``grading.checking``), call
    it, step it as the script says.  Returns the events of decorating and calling, then (what each
    step gave, its events) per step, then the wrapper's names (``_names``)."""
    name, doc, actions, catches, args, kwargs, steps = script
    events.clear()
    gen_fn = scripted(events, actions, catches, name, doc)
    wrapped = outcome(getattr(ag.grad_mode, via), Recorder, gen_fn)
    seen = [list(events)]
    if isinstance(wrapped, str) or not callable(wrapped):
        return seen + [shown(wrapped)]
    start = len(events)
    gen = outcome(wrapped, *args, **kwargs)
    seen.append(list(events[start:]))
    if isinstance(gen, str):
        return seen + [("calling the wrapper failed", gen), None]
    for how, value in steps:
        start = len(events)
        result = step(gen, how, value) if inspect.isgenerator(gen) or hasattr(gen, "send") else \
            f"not a generator: {type(gen).__name__}"
        seen.append((result, list(events[start:])))
    seen.append(_names(wrapped, gen_fn))
    return seen


def _names(wrapped, fn):
    """(__name__, __qualname__, __doc__, __module__, __wrapped__ is fn) of a wrapper."""
    return (getattr(wrapped, "__name__", None), getattr(wrapped, "__qualname__", None),
            getattr(wrapped, "__doc__", None), getattr(wrapped, "__module__", None),
            getattr(wrapped, "__wrapped__", None) is fn)


def random_script(rng):
    """A scripted generator of a random name and docstring (random actions and caught errors),
    random arguments, and random steps (next, send, throw, close)."""
    name = f"{['batches', 'stream', 'walk', 'chunks', 'samples'][int(rng.integers(5))]}_{int(rng.integers(1000))}"
    doc = f"Yields {int(rng.integers(100))} things." if rng.integers(4) else None
    actions = [("yield", int(rng.integers(100))) for _ in range(int(rng.integers(1, 7)))]
    end = int(rng.integers(4))
    if end == 0:
        actions.append(("return", int(rng.integers(100))))
    elif end == 1:
        actions.append(("raise", int(rng.integers(len(ERRORS)))))
    catches = tuple(int(i) for i in np.flatnonzero(rng.integers(2, size=len(ERRORS))))
    args = tuple(int(a) for a in rng.integers(-9, 10, size=int(rng.integers(0, 3))))
    kwargs = {key: int(rng.integers(-9, 10)) for key in ("size", "seed") if rng.integers(3) == 0}
    steps = [("next", None)]                  # a generator starts with next (send(None))
    for _ in range(int(rng.integers(1, 7))):
        how = ["next", "send", "send", "throw", "throw"][int(rng.integers(5))]
        if how == "send":
            steps.append((how, int(rng.integers(100))))
        elif how == "throw":
            i = int(rng.integers(len(ERRORS)))
            steps.append((how, ERRORS[i](f"thrown {int(rng.integers(100))}")))
        else:
            steps.append((how, None))
    if rng.integers(3) == 0:                  # closed early, then stepped once more
        steps.insert(int(rng.integers(1, len(steps) + 1)), ("close", None))
    return name, doc, actions, catches, args, kwargs, steps


def script_text(script):
    name, doc, actions, catches, args, kwargs, steps = script
    shown_steps = [how if value is None else f"{how}({value!r})" for how, value in steps]
    return (f"generator {name}{args + tuple(f'{k}={v}' for k, v in kwargs.items())}: actions {actions}, "
            f"catches {[ERRORS[i].__name__ for i in catches]}; steps {shown_steps}")


def check_scripts(fns, seed, count):
    """Random scripts (random_script) run with the library's decorate and decorate_generator,
    then with ``fns`` (yours: ``(decorate, decorate_generator)``), a Recorder as the context, every
    other script decorated through ``decorate``; a failure prints the script."""
    events = []
    Recorder = recorder_class(events)
    scripts = [random_script(rng) for rng in grading.random_cases(seed=seed, count=count)]
    vias = ["decorate_generator", "decorate"] * count
    expected, seen = both_ways(decorator_slots(*fns), None,
                               lambda case: run_script(case[0], Recorder, events, via=case[1]),
                               list(zip(scripts, vias)))
    events.clear()
    for n, (script, s, e) in enumerate(zip(scripts, seen, expected)):
        what = f"random case #{n}, {vias[n]}(Recorder, gen) for the {script_text(script)}"
        grading.expect_equal(s[:2], e[:2], what=f"the events of decorating, then of calling the wrapper, {what}",
                             rule=G_LAZY)
        for i, (a, b) in enumerate(zip(s[2:-1], e[2:-1])):
            how = script[6][i][0]
            rule = {"send": G_SEND, "throw": G_THROW, "close": G_CLOSE}.get(how, G_STEPS)
            if isinstance(a, tuple) and a[0] == "calling the wrapper failed":
                rule = G_ARGS
            if isinstance(b, tuple) and b[0][0] == "returned":
                rule = G_RETURN
            elif isinstance(b, tuple) and isinstance(b[0], str) and how != "throw":
                rule = G_RAISES
            _expect_rule(a, b, f"(what step {i + 1}, {how}, gave; its events), {what}", rule)
        grading.expect_equal(s[-1], e[-1], what=f"(__name__, __qualname__, __doc__, __module__, __wrapped__ is gen) "
                                                f"of the wrapper, {what}", rule=G_WRAPS)
        grading.expect_equal(len(s), len(e), what=f"the steps that ran, {what}", rule=G_STEPS)


def grad_mode_generator_in_the_library(decorate, decorate_generator):
    """Your ``decorate`` and ``decorate_generator`` behind the library's decorators: ``@ag.no_grad()`` on a
    generator of batches while the caller records between steps (G_STEPS, G_BETWEEN);
    ``@ag.enable_grad()`` stepped inside ``no_grad``; ``@ag.set_grad_enabled(False)`` while the
    caller switches its own mode between steps (G_FRESH); a recursive generator with ``yield
    from`` and its return value (G_RETURN); ``close()`` in the middle, whose ``finally`` runs
    in the mode (G_CLOSE); a model evaluated batch by batch."""
    grad_mode_on()
    fn = decorator_slots(decorate, decorate_generator)
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with grading.checking(fn):
        @ag.no_grad()
        def batches(n):
            """Batches of x."""
            for i in range(n):
                yield x * (i + 1), ag.is_grad_enabled()

        def consume():
            seen = []
            for batch, inside in batches(3):
                seen.append((inside, batch.requires_grad, ag.is_grad_enabled(), (x * 2).requires_grad))
            return seen, ag.is_grad_enabled()

        consumed = outcome(consume)
        grad_mode_on()
    grading.expect_true(not isinstance(consumed, str), what="for batch, inside in batches(3) (@ag.no_grad())",
                        seen=consumed, rule=G_STEPS)
    for i, s in enumerate(consumed[0]):
        grading.expect_equal(s[:2], (False, False), what=f"(mode inside, batch.requires_grad) at step {i + 1} "
                                                         "of a @ag.no_grad() generator", rule=G_STEPS)
        grading.expect_equal(s[2:], (True, True), what=f"(the caller's mode, (x * 2).requires_grad) between "
                                                       f"steps, after step {i + 1}", rule=G_BETWEEN)
    grading.expect_equal(len(consumed[0]), 3, what="the batches of batches(3)", rule=G_STEPS)
    grading.expect_equal(consumed[1], True, what="is_grad_enabled() after the loop", rule=G_BETWEEN)

    with grading.checking(fn):
        @ag.enable_grad()
        def recorded(n):
            for i in range(n):
                yield (x * i).requires_grad

        def inside_no_grad():
            seen = []
            with ag.no_grad():
                for flag in recorded(2):
                    seen.append((flag, ag.is_grad_enabled()))
            return seen

        enabled = outcome(inside_no_grad)

        @ag.set_grad_enabled(False)
        def probes():
            while True:
                yield ag.is_grad_enabled()

        def caller_switches():
            gen = probes()
            seen = []
            for mode in (True, False, True, False):
                ag.grad_mode._set_grad_enabled(mode)
                seen.append((next(gen), ag.is_grad_enabled()))
            gen.close()
            return seen, ag.is_grad_enabled()

        switched = outcome(caller_switches)
        grad_mode_on()
    grading.expect_equal(enabled, [(True, False), (True, False)],
                         what="((x * i).requires_grad inside, the caller's mode) for a @ag.enable_grad() generator "
                              "stepped inside no_grad()", rule=G_STEPS)
    grading.expect_equal(switched, ([(False, True), (False, False), (False, True), (False, False)], False),
                         what="((mode inside, the caller's mode after the step) per step, mode after close()) for "
                              "a @ag.set_grad_enabled(False) generator, the caller switching its mode to True, "
                              "False, True, False before the steps", rule=G_FRESH)

    with grading.checking(fn):
        @ag.no_grad
        def walk(depth):
            """Yields the modes of a tree walk, returns the number of nodes."""
            yield depth, ag.is_grad_enabled()
            count = 1
            for _ in range(2 if depth else 0):
                count += yield from walk(depth - 1)
            return count

        def whole_walk():
            gen = walk(2)
            seen = []
            while True:
                try:
                    seen.append(next(gen) + (ag.is_grad_enabled(),))
                except StopIteration as stop:
                    return seen, stop.value

        walked = outcome(whole_walk)
        finals = []

        @ag.no_grad()
        def guarded():
            try:
                yield 1
                yield 2
            finally:
                finals.append(ag.is_grad_enabled())

        def close_early():
            gen = guarded()
            first = next(gen)
            gen.close()
            return first, list(finals), ag.is_grad_enabled()

        closed = outcome(close_early)
        grad_mode_on()
    grading.expect_equal(walked, ([(2, False, True), (1, False, True), (0, False, True), (0, False, True),
                                   (1, False, True), (0, False, True), (0, False, True)], 7),
                         what="([(depth, mode inside, the caller's mode) per step], the value returned) of a "
                              "recursive @ag.no_grad generator walk(2) using yield from",
                         rule=G_RETURN if isinstance(walked, tuple) and walked[1] != 7 else G_STEPS)
    grading.expect_equal(closed, (1, [False], True),
                         what="(first value, [mode in the finally block], mode after) when a @ag.no_grad() "
                              "generator is closed after its first yield", rule=G_CLOSE)

    with grading.checking(fn):
        ag.manual_seed(0)
        model = ag.nn.Linear(2, 1)

        @ag.no_grad()
        def predictions(inputs):
            for batch in inputs:
                yield model(batch)

        def evaluate_then_train():
            seen = []
            for out in predictions([ag.ones(3, 2), ag.zeros(3, 2)]):
                seen.append(out.requires_grad)
            loss = model(ag.ones(1, 2)).sum()
            loss.backward()
            return seen, loss.requires_grad, model.bias.grad is not None

        evaluated = outcome(evaluate_then_train)
        grad_mode_on()
    grading.expect_equal(evaluated, ([False, False], True, True),
                         what="([requires_grad of each prediction of a @ag.no_grad() generator], then "
                              "loss.requires_grad of a training step, bias.grad is not None)", rule=G_BETWEEN)


# --------------------------------------------------------- hidden tests: grad modes, random steps

MODE_DECORATORS = ("@no_grad()", "@no_grad", "@enable_grad()", "@enable_grad",
                   "@set_grad_enabled(False)", "@set_grad_enabled(True)")


def random_mode_script(rng):
    """A generator of a random name decorated by a random grad mode, stepped by a caller that
    switches its own mode at random between steps, sends values, throws errors and closes it."""
    name = f"{['loader', 'probe', 'rollout', 'evaluate'][int(rng.integers(4))]}_{int(rng.integers(1000))}"
    decorator = MODE_DECORATORS[int(rng.integers(len(MODE_DECORATORS)))]
    length = int(rng.integers(1, 5))
    returns = int(rng.integers(100))
    steps = [(bool(rng.integers(2)), "next", 0)]
    for _ in range(int(rng.integers(1, 7))):
        steps.append((bool(rng.integers(2)), ["next", "next", "send", "throw"][int(rng.integers(4))],
                      int(rng.integers(100))))
    if rng.integers(3) == 0:
        steps.insert(int(rng.integers(1, len(steps) + 1)), (bool(rng.integers(2)), "close", 0))
    return name, decorator, length, returns, steps


def mode_script_text(script):
    name, decorator, length, returns, steps = script
    return (f"{decorator} def {name}(): yields {length} times (its mode, (w * 2).requires_grad, what it was sent), "
            f"catches ValueError, records its mode in finally, returns {returns}; the caller, per step "
            f"(its mode, the step): {[(m, h) for m, h, _ in steps]}")


def run_mode_script(script):
    """What each step of a decorated generator saw, inside and (the caller) after."""
    name, decorator, length, returns, steps = script
    grad_mode_on()
    w = ag.ones(2, requires_grad=True)
    finals = []

    def gen():
        try:
            got = None
            for _ in range(length):
                try:
                    got = yield ag.is_grad_enabled(), (w * 2).requires_grad, got
                except ValueError:
                    got = "caught"
            return returns
        finally:
            finals.append(ag.is_grad_enabled())

    gen.__name__ = gen.__qualname__ = name
    trace = []
    with errors_noted(trace):
        g = decorated(decorator, gen)()
        trace.append(("made", ag.is_grad_enabled()))
        for mode, how, value in steps:
            ag.grad_mode._set_grad_enabled(mode)
            before = len(finals)
            error = ValueError(f"thrown {value}") if value % 2 else KeyError(f"thrown {value}")
            result = step(g, how, value if how == "send" else error)
            trace.append((result, finals[before:], ag.is_grad_enabled()))
    grad_mode_on()
    return trace


def check_mode_scripts(fns, seed, count):
    """Random grad-mode scripts run with the library's decorators, then with ``fns`` (yours:
    ``(decorate, decorate_generator)``)."""
    scripts = [random_mode_script(rng) for rng in grading.random_cases(seed=seed, count=count)]
    expected, seen = both_ways(decorator_slots(*fns), None, run_mode_script, scripts)
    for n, (script, s, e) in enumerate(zip(scripts, seen, expected)):
        what = f"random case #{n}: {mode_script_text(script)}"
        for i, (a, b) in enumerate(zip(s, e)):
            if i == 0:
                grading.expect_equal(a, b, what=f"the caller's mode after making the generator, {what}", rule=G_LAZY)
                continue
            how = script[4][i - 1][1]
            if not (isinstance(a, tuple) and isinstance(b, tuple)):
                rule = G_STEPS
            elif a[0] != b[0]:
                rule = {"send": G_SEND, "throw": G_THROW, "close": G_CLOSE}.get(how, G_STEPS)
                if isinstance(b[0], tuple) and b[0][0] == "returned":
                    rule = G_RETURN
            elif a[1] != b[1]:
                rule = G_CLOSE
            else:
                rule = G_FRESH if script[1].startswith("@set_grad") else G_BETWEEN
            _expect_rule(a, b, f"(what step {i} gave, the modes its finally saw, the caller's mode after it), {what}",
                         rule)
        grading.expect_equal(len(s), len(e), what=f"the steps that ran, {what}", rule=G_STEPS)
