"""Visible checks of assignment 05's exercise 3, ``analytic_jacobian``: gradcheck's
analytic side.

``autograd_course.checks.ops`` (the notebook's ``check``) imports them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote,
and its docstring says what it tries; the ``..._random`` ones are what the hidden parts run on
random cases.  The constants are the rules the checks name (``grading.rules``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version, outcome

__all__ = ["analytic_jacobian", "analytic_jacobian_in_gradcheck", "analytic_jacobian_random",
           "analytic_jacobian_in_gradcheck_random", "jacobians_of", "jacobian_rule", "jacobian_cases",
           "random_jacobian_case", "expect_jacobians", "gradcheck_outcomes",
           "JAC_LISTS", "JAC_LAYOUT", "JAC_ENTRIES", "JAC_ZEROS", "JAC_GRAD_MODE", "JAC_UNTOUCHED"]

JAC = grading.rules("05.analytic_jacobian")
JAC_LISTS = JAC("lists")
JAC_LAYOUT = JAC("layout")
JAC_ENTRIES = JAC("entries")
JAC_ZEROS = JAC("zeros")
JAC_GRAD_MODE = JAC("grad-mode")
JAC_UNTOUCHED = JAC("untouched")
JAC_VALUES = JAC("entries", "zeros")
JAC_CHECKED = JAC("entries", "layout")
JAC_CALL = JAC("lists", "entries", "zeros")


def jacobians_of(result):
    """What analytic_jacobian returned, comparable with ==: per output, per input,
    (type, shape, dtype, values rounded)."""
    if not isinstance(result, (list, tuple)):
        return f"an object of type {type(result).__name__}"
    summary = []
    for row in result:
        if not isinstance(row, (list, tuple)):
            summary.append(f"an object of type {type(row).__name__}")
            continue
        summary.append([("ndarray", m.shape, str(m.dtype), np.round(m.astype(np.float64), 7).tolist())
                        if isinstance(m, np.ndarray) else f"an object of type {type(m).__name__}" for m in row])
    return summary


def jacobian_rule(seen, expected, quiet=False):
    """The rule a wrong result breaks, judged from where it differs first (``quiet``: the
    call ran inside ``no_grad()``)."""
    if not isinstance(seen, list) or len(seen) != len(expected) or any(
            not isinstance(s, list) or len(s) != len(e) for s, e in zip(seen, expected)):
        return JAC_LISTS
    for s_row, e_row in zip(seen, expected):
        for s, e in zip(s_row, e_row):
            if not isinstance(s, tuple) or s[:3] != e[:3]:
                return JAC_LAYOUT
            if s != e:
                return JAC_GRAD_MODE if quiet else JAC_VALUES
    return JAC_LAYOUT


def _expect_equal(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def jacobian_cases():
    """{label: (fn, inputs)}: six functions of one or two inputs and outputs."""
    def r(*shape, requires_grad=True):
        return ag.tensor(np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape),
                         requires_grad=requires_grad)
    return {
        "fn = lambda a: a * a, a of shape (3,)": (lambda a: a * a, (r(3),)),
        "fn = lambda a, b: a @ b, a (2, 3), b (3,)": (lambda a, b: a @ b, (r(2, 3), r(3))),
        "fn = lambda a: (a.sum(), a.exp()), a (2, 2)": (lambda a: (a.sum(), a.exp()), (r(2, 2),)),
        "fn = lambda a, c: a * c, c a constant (3,)": (lambda a, c: a * c, (r(3), r(3, requires_grad=False))),
        "fn = lambda a, b, k: a * k, b unused, k = 2.5": (lambda a, b, k: a * k, (r(2), r(4), 2.5)),
        "fn = lambda a: (a * 2, ag.ones(2)), the second output a constant": (lambda a: (a * 2, ag.ones(2)), (r(2),)),
    }


def _jacobians_quietly(fn, function, inputs, quiet):
    """fn(function, inputs), inside ``no_grad()`` when ``quiet``."""
    if not quiet:
        return fn(function, inputs)
    with ag.no_grad():
        return fn(function, inputs)


def expect_jacobians(fn, cases):
    """fn (your analytic_jacobian) on each case {label: (function, inputs, expected, quiet)}
    (``quiet``: called inside ``no_grad()``), and the inputs' .grad after it."""
    for label, (function, inputs, expected, quiet) in cases.items():
        where = " inside no_grad()" if quiet else ""
        grads = [x.grad for x in inputs if isinstance(x, ag.Tensor)]
        result = call(_jacobians_quietly, fn, function, inputs, quiet, what=f"analytic_jacobian({label}){where}",
                      rule=JAC_GRAD_MODE if quiet else JAC_CALL)
        seen = jacobians_of(result)
        _expect_equal(seen, expected, f"analytic_jacobian({label}){where} as (type, shape, dtype, values)",
                      jacobian_rule(seen, expected, quiet))
        after = [x.grad for x in inputs if isinstance(x, ag.Tensor)]
        grading.expect_true(all(a is b for a, b in zip(after, grads)),
                            what=f"the inputs' .grad unchanged by analytic_jacobian({label})", rule=JAC_UNTOUCHED,
                            seen=repr([None if g is None else g.tolist() for g in after]))


def analytic_jacobian(fn):
    """Your ``analytic_jacobian`` called directly on six functions: ``a * a``, a matrix-vector
    product (two inputs, non-square Jacobians), two outputs, a constant input, an unused input
    and a number, an output that does not require grad; then ``a * a`` and the product again
    inside ``no_grad()`` (grad-mode).  The lists, the shapes, dtypes and values of the
    matrices, and the inputs' ``.grad`` afterwards (untouched)."""
    reference = exercises.reference("05.analytic_jacobian")
    functions = list(jacobian_cases().items())
    functions += [(label, case) for label, case in list(jacobian_cases().items())[:2]]
    with library_version("05"):         # the rules the functions use: the library's own
        cases = {f"{label}{' #2' if i >= 6 else ''}": (function, inputs, jacobians_of(reference(function, inputs)),
                                                         i >= 6)
                 for i, (label, (function, inputs)) in enumerate(functions)}
    with grading.checking("05.analytic_jacobian", fn):
        expect_jacobians(fn, cases)


class _Cube(ag.autograd.Function):
    """x ** 3 with the right backward."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x


class _WrongCube(_Cube):
    """x ** 3 with a backward that forgets the factor 3."""
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x * x


GRADCHECKS = {
    "gradcheck(x ** 3 by a custom Function with the right backward)": lambda x, y: _Cube.apply(x),
    "gradcheck(x ** 3 by a custom Function whose backward forgets the 3)": lambda x, y: _WrongCube.apply(x),
    "gradcheck(lambda x, y: (x @ y).tanh())": lambda x, y: (x.reshape(2, 3) @ y.reshape(3, 2)).tanh(),
    "gradcheck(lambda x, y: (x.sum(), x * y))": lambda x, y: (x.sum(), x * y),
}


def gradcheck_outcomes(seed=0):
    """gradcheck(raise_exception=False) of the four GRADCHECKS functions at random float64
    inputs x and y of shape (6,), and gradgradcheck of sigmoid."""
    rng = np.random.default_rng(seed)
    x = ag.tensor(rng.uniform(0.5, 1.5, 6), requires_grad=True)
    y = ag.tensor(rng.standard_normal(6), requires_grad=True)
    results = [outcome(ag.autograd.gradcheck, f, (x, y), raise_exception=False) for f in GRADCHECKS.values()]
    results.append(outcome(ag.autograd.gradgradcheck, ag.sigmoid, (x,), raise_exception=False))
    return results


def analytic_jacobian_in_gradcheck(fn):
    """Your ``analytic_jacobian`` inside ``gradcheck``: a custom Function with the right
    backward passes, one whose backward forgets a factor fails, a product of matrices and a
    function of two outputs pass, and ``gradgradcheck`` of ``sigmoid`` passes."""
    with library_version("05"):
        expected = gradcheck_outcomes()
    with grading.checking("05.analytic_jacobian", fn):
        seen = gradcheck_outcomes()
    for label, s, e in zip(list(GRADCHECKS) + ["gradgradcheck(ag.sigmoid)"], seen, expected):
        grading.expect_equal(s, e, what=label, rule=JAC_CHECKED)


RANDOM_FNS = [("a * b", lambda a, b: a * b), ("a.exp() + b", lambda a, b: a.exp() + b),
              ("(a, a * b)", lambda a, b: (a, a * b)), ("a.sum() * b", lambda a, b: a.sum() * b),
              ("(a * 3).tanh()", lambda a, b: (a * 3).tanh()), ("a.sigmoid().sum()", lambda a, b: a.sigmoid().sum()),
              ("(a.t() if a.ndim == 2 else a) * 2", lambda a, b: (a.t() if a.ndim == 2 else a) * 2)]


def random_jacobian_case(rng):
    """(label, fn, inputs): a random function of two inputs of one random shape, each input
    requiring grad or not (at least one does), float32 or float64."""
    shape = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    needs = [bool(rng.integers(2)), bool(rng.integers(2))]
    needs[int(rng.integers(2))] = True
    a, b = (ag.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=n) for n in needs)
    name, function = RANDOM_FNS[int(rng.integers(len(RANDOM_FNS)))]
    return f"fn = lambda a, b: {name}, a and b {shape} {dtype}, requires_grad {needs}", function, (a, b)


def analytic_jacobian_random(fn, rngs):
    """Your ``analytic_jacobian`` on random functions of two inputs of random shapes and
    dtypes, some not requiring grad; every third case inside ``no_grad()``."""
    reference = exercises.reference("05.analytic_jacobian")
    cases = {}
    with library_version("05"):
        for n, rng in enumerate(rngs):
            label, function, inputs = random_jacobian_case(rng)
            cases[f"{label} (random case #{n})"] = (function, inputs, jacobians_of(reference(function, inputs)),
                                                    n % 3 == 2)
    with grading.checking("05.analytic_jacobian", fn):
        expect_jacobians(fn, cases)


def analytic_jacobian_in_gradcheck_random(fn, rngs):
    """``gradcheck`` of the four functions above, and ``gradgradcheck`` of ``sigmoid``, at
    random inputs."""
    seeds = [int(rng.integers(2**32)) for rng in rngs]
    with library_version("05"):
        expected = [gradcheck_outcomes(seed) for seed in seeds]
    with grading.checking("05.analytic_jacobian", fn):
        seen = [gradcheck_outcomes(seed) for seed in seeds]
    for seed, s, e in zip(seeds, seen, expected):
        grading.expect_equal(s, e, what=f"gradcheck of four functions and gradgradcheck of sigmoid at random "
                                        f"inputs (seed {seed})", rule=JAC_CHECKED)
