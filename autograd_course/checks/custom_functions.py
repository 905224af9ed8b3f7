"""Visible checks of assignment 06's exercise 6, ``function_gradients``: what the node of a
custom ``autograd.Function`` passes on from what its ``backward`` returned.

``autograd_course.checks.lifetime`` (the notebook's ``check``) imports them; each function is
the visible part of one test cell, run on the function you wrote, and its docstring says
what it tries.  The constants are the rules the checks name (the hidden tests name them too).
"""

import re

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

__all__ = ["function_gradients", "function_gradients_in_the_engine", "gradients_outcome",
           "expect_gradients_outcome", "random_gradients_case", "engine_outcome", "expect_engine_outcome",
           "random_function_case", "expect_outcomes", "expect_engine_outcomes",
           "FG_TUPLE", "FG_COUNT", "FG_NOT_TENSOR", "FG_TYPE", "FG_ORDER", "FG_PASSED"]

GRADIENTS = grading.rules("06.function_gradients")
FG_TUPLE = GRADIENTS("tuple")
FG_COUNT = GRADIENTS("count")
FG_NOT_TENSOR = GRADIENTS("not-a-tensor")
FG_TYPE = GRADIENTS("type")
FG_ORDER = GRADIENTS("order")
FG_PASSED = GRADIENTS("passed-on")

NAME = "ScaleBackward"


def _refusal(message):
    """Which refusal an error message is, with its numbers: ('count', 2, 3), ('position', 2),
    ('type', 'float'), or ('other', message)."""
    if m := re.search(r"position (\d+)", message):
        return ("position", int(m.group(1)))
    if m := re.search(r"expected (\d+), got (\d+)", message):
        return ("count", int(m.group(1)), int(m.group(2)))
    if m := re.search(r"Variable or None \(got ([\w.]+)\)", message):
        return ("type", m.group(1))
    return ("other", message)


def gradients_outcome(fn, grads, arg_is_tensor):
    """fn(NAME, grads, arg_is_tensor), comparable with ==: for a list, each element named by
    what it is (None, "gradient i" of what backward returned, or a new object); for an
    error, its class and which refusal it is (its numbers, not its wording)."""
    result = outcome(fn, NAME, grads, arg_is_tensor)
    if isinstance(result, str):
        kind, _, message = result.partition(": ")
        return (kind,) + _refusal(message)
    if not isinstance(result, list):
        return f"an object of type {type(result).__name__} (expected a list)"
    given = grads if isinstance(grads, tuple) else (grads,)
    named = []
    for g in result:
        index = next((i for i, h in enumerate(given) if h is g), None)
        named.append(None if g is None else f"gradient {index + 1}" if index is not None
                     else f"a new {type(g).__name__}")
    return named


def expect_gradients_outcome(grads, seen, expected, what):
    """Fail when two outcomes differ, naming the rule broken, judged from what was expected
    and what was seen: a refusal of the other kind also breaks the order of the checks."""
    if seen == expected:
        return

    def kind(o):
        return o[1] if isinstance(o, tuple) else "list"
    want, got = kind(expected), kind(seen)
    if not isinstance(grads, tuple) and "count" in (want, got):
        grading.expect_equal(seen, expected, what=what, rule=FG_TUPLE)
    refusals = ("count", "position", "type")
    if want in refusals and got in refusals and got != want:
        grading.expect_equal(seen, expected, what=what,
                             rule=GRADIENTS("count", "order") if want == "count" else
                             GRADIENTS("not-a-tensor", "order") if want == "position" else GRADIENTS("type", "order"))
    if "count" in (want, got):
        grading.expect_equal(seen, expected, what=what, rule=FG_COUNT)
    if "position" in (want, got):
        grading.expect_equal(seen, expected, what=what, rule=FG_NOT_TENSOR)
    if "type" in (want, got):
        grading.expect_equal(seen, expected, what=what, rule=FG_TYPE)
    grading.expect_equal(seen, expected, what=what, rule=GRADIENTS("not-a-tensor", "passed-on"))


def _t(*values):
    return ag.tensor(values)


def _cases():
    """[(label, grads, arg_is_tensor)]: what a backward returned, for forward's arguments."""
    g, h = _t(1., 2.), _t(3.)
    return [
        ("(g,) for forward(ctx, x)", (g,), (True,)),
        ("g, not a tuple, for forward(ctx, x)", g, (True,)),
        ("(g, None) for forward(ctx, x, factor), factor a number", (g, None), (True, False)),
        ("(None, h) for forward(ctx, x, y)", (None, h), (True, True)),
        ("(g, h, None, None) for forward(ctx, x, y)", (g, h, None, None), (True, True)),
        ("(g,) for forward(ctx, x, y)", (g,), (True, True)),
        ("(g, h, g) for forward(ctx, x, y)", (g, h, g), (True, True)),
        ("(g, None, h) for forward(ctx, x, y), an extra h", (g, None, h), (True, True)),
        ("[g, h], a list, for forward(ctx, x, y)", [g, h], (True, True)),
        ("(g, 2.0) for forward(ctx, x, factor), factor a number", (g, 2.0), (True, False)),
        ("(None, g, None) for forward(ctx, flag, x, y), flag not a tensor", (None, g, None), (False, True, True)),
        ("(g, h) for forward(ctx, flag, x)", (g, h), (False, True)),
        ("(g, 1.5) for forward(ctx, x, y)", (g, 1.5), (True, True)),
        ("(g.numpy(),) for forward(ctx, x)", (np.ones(2),), (True,)),
        ("(0.0, g) for forward(ctx, x, factor)", (0.0, g), (True, False)),
        ("(g, 'grad', 3) for forward(ctx, x, name, count)", (g, "grad", 3), (True, False, False)),
        ("(g, nn.Parameter(h)) for forward(ctx, x, w)", (g, ag.nn.Parameter(h)), (True, True)),
    ]


def expect_outcomes(fn, cases):
    """fn on each (label, grads, arg_is_tensor), compared with the library's."""
    with grading.checking("06.function_gradients", fn):
        seen = [gradients_outcome(fn, grads, kinds) for _, grads, kinds in cases]
    reference = exercises.reference("06.function_gradients")
    expected = [gradients_outcome(reference, grads, kinds) for _, grads, kinds in cases]
    for (label, grads, _), s, e in zip(cases, seen, expected):
        expect_gradients_outcome(grads, s, e, what=f"function_gradients({NAME!r}, {label})")


def function_gradients(fn):
    """fn on what seventeen backwards returned: right ones (a tuple, a single tensor, None for a
    number, extra Nones, a Parameter), and wrong ones: too few or too many, a list, a gradient
    for a number or a flag, a number, an array or a string as a gradient, two faults at once.
    Compared: the list passed on (the very objects returned), or the refusal and its numbers."""
    expect_outcomes(fn, _cases())


def random_gradients_case(seed):
    """(label, grads, arg_is_tensor): a random forward signature and a random backward result,
    right or with one or two faults."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 5))
    kinds = [bool(rng.random() < 0.7) for _ in range(count)]
    kinds[int(rng.integers(count))] = True
    grads = [(_t(*rng.integers(-5, 5, size=2).astype(float)) if rng.random() < 0.8 else None) if k else None
             for k in kinds]
    faults = []
    for _ in range(int(rng.choice([0, 1, 1, 2]))):
        fault = str(rng.choice(["fewer", "extra None", "extra", "for non-tensor", "bad type", "list"]))
        if fault == "fewer" and grads:
            grads.pop()
        elif fault == "extra None":
            grads += [None] * int(rng.integers(1, 3))
        elif fault == "extra":
            grads.append(_t(1.))
        elif fault == "for non-tensor" and not all(kinds[:len(grads)]):
            i = int(rng.choice([i for i, k in enumerate(kinds[:len(grads)]) if not k]))
            grads[i] = [_t(2.), 1.0, "x"][int(rng.integers(3))]
        elif fault == "bad type" and grads:
            i = int(rng.integers(len(grads)))
            grads[i] = [0.5, 3, [1.0], np.float64(2.0), np.zeros(2)][int(rng.integers(5))]
        else:
            continue
        faults.append(fault)
    shape = str(rng.choice(["tuple", "tuple", "list", "bare"])) if len(grads) == 1 or rng.random() < 0.15 \
        else "tuple"
    returned = grads[0] if shape == "bare" and grads else list(grads) if shape == "list" else tuple(grads)
    signature = ", ".join("x" + str(i) if k else "n" + str(i) for i, k in enumerate(kinds))
    shown = ", ".join("None" if g is None else "a tensor" if isinstance(g, ag.Tensor) else
                      f"a {type(g).__name__}" for g in grads)
    what = (f"only its first gradient ({shown.split(', ')[0]}), not a tuple" if shape == "bare" and grads
            else f"a {shape} of ({shown})")
    label = (f"{what} for forward(ctx, {signature}) (n: not a tensor), faults: {', '.join(faults) or 'none'}")
    return label, returned, tuple(kinds)


# ------------------------------------------------------------------- in the engine

def _function(backward_result):
    """A custom Function of any number of arguments: forward multiplies the tensor ones;
    backward returns backward_result(grad, args)."""
    class Scale(ag.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.args = args
            out = None
            for a in args:
                if isinstance(a, ag.Tensor):
                    out = a * 2 if out is None else out * a
            return out

        @staticmethod
        def backward(ctx, grad):
            return backward_result(grad, ctx.args)
    return Scale


def engine_outcome(make_args, backward_result):
    """Run Scale.apply(*args).sum().backward(): the leaves' .grad (rounded lists, None), or
    the refusal (class and which one)."""
    args = make_args()
    Scale = _function(backward_result)

    def run():
        Scale.apply(*args).sum().backward()
        return [None if not isinstance(a, ag.Tensor) or a.grad is None else
                np.round(a.grad.numpy(), 6).tolist() for a in args]
    result = outcome(run)
    if isinstance(result, str):
        kind, _, message = result.partition(": ")
        return (kind,) + _refusal(message)
    return result


def _engine_cases():
    x = lambda: ag.tensor([1., 2.], requires_grad=True)        # noqa: E731
    c = lambda: ag.tensor([3., 4.])                             # noqa: E731
    return [
        ("Scale.apply(x, 2.5), backward returns (grad * 2, None)", lambda: (x(), 2.5),
         lambda g, a: (g * 2, None)),
        ("Scale.apply(x), backward returns grad * 2, not a tuple", lambda: (x(),), lambda g, a: g * 2),
        ("Scale.apply(x, c), c a constant, backward returns (grad * 2 * c, grad * 2 * x)",
         lambda: (x(), c()), lambda g, a: (g * 2 * a[1], g * 2 * a[0])),
        ("Scale.apply(2.5, x), backward returns (None, grad * 2)", lambda: (2.5, x()),
         lambda g, a: (None, g * 2)),
        ("Scale.apply(x, y), backward returns (grad, grad, None)", lambda: (x(), x()),
         lambda g, a: (g, g, None)),
        ("Scale.apply(x, 2.5), backward returns grad * 2 only", lambda: (x(), 2.5), lambda g, a: g * 2),
        ("Scale.apply(x, 2.5), backward returns (grad * 2, 1.0)", lambda: (x(), 2.5),
         lambda g, a: (g * 2, 1.0)),
        ("Scale.apply(x), backward returns (grad.numpy(),)", lambda: (x(),), lambda g, a: (g.numpy(),)),
        ("Scale.apply(x, y), backward returns [grad, grad], a list", lambda: (x(), x()), lambda g, a: [g, g]),
    ]


def expect_engine_outcomes(fn, cases):
    """backward through each (label, make_args, backward_result) with fn in the engine,
    compared with the library's."""
    with grading.checking("06.function_gradients", fn):
        seen = [engine_outcome(make, back) for _, make, back in cases]
    with library_version("06"):
        expected = [engine_outcome(make, back) for _, make, back in cases]
    for (label, make, back), s, e in zip(cases, seen, expected):
        expect_engine_outcome(make, back, s, e, what=f"the leaves' .grad after {label}, then .sum().backward()")


def expect_engine_outcome(make_args, backward_result, seen, expected, what):
    """Fail when the engine's outcomes differ: with the rule of what backward returned when
    either side refused, else with the rule of what is passed on."""
    if isinstance(seen, tuple) or isinstance(expected, tuple):
        expect_gradients_outcome(backward_result(ag.ones(2), make_args()), seen, expected, what)
    grading.expect_equal(seen, expected, what=what, rule=FG_PASSED)


def function_gradients_in_the_engine(fn):
    """backward through nine custom Functions with your function in the engine: the
    leaves' .grad, or the refusal when backward returned something wrong."""
    expect_engine_outcomes(fn, _engine_cases())


def random_function_case(seed):
    """(label, make_args, backward_result): a custom Function of random arguments whose
    backward returns a random result (right, or with a fault)."""
    rng = np.random.default_rng(seed)
    count = int(rng.choice([1, 2, 2, 3, 3]))
    kinds = [str(rng.choice(["x", "x", "c", "n", "n"])) for _ in range(count)]
    kinds[int(rng.integers(count))] = "x"
    values = [rng.integers(-3, 4, size=2).astype(float).tolist() for _ in kinds]
    faults = ["fewer", "extra None", "extra", "for non-tensor", "bad type", "list"]
    fault = "none" if rng.random() < 0.45 else str(rng.choice(faults))
    if fault == "for non-tensor" and "n" not in kinds:
        fault = "none"
    bare = count == 1 and fault == "none" and bool(rng.random() < 0.5)

    def make_args():
        return tuple(ag.tensor(v, requires_grad=True) if k == "x" else ag.tensor(v) if k == "c" else v[0]
                     for k, v in zip(kinds, values))

    def backward_result(grad, args):
        grads = [grad * (i + 2) if k != "n" else None for i, k in enumerate(kinds)]
        if fault == "fewer":
            grads.pop()
        elif fault == "extra None":
            grads.append(None)
        elif fault == "extra":
            grads.append(grad)
        elif fault == "for non-tensor":
            grads[kinds.index("n")] = grad
        elif fault == "bad type":
            grads[0] = 1.0
        if fault == "list":
            return list(grads)
        return grads[0] if bare else tuple(grads)
    label = (f"Scale.apply({', '.join(kinds)}) (x: requires grad, c: a constant, n: a number), "
             f"backward returns {'a list' if fault == 'list' else 'one gradient per argument'}"
             f"{'' if fault in ('none', 'list') else ', fault: ' + fault}")
    return label, make_args, backward_result
