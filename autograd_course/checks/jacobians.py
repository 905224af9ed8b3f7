"""Visible checks of assignment 05's exercise 10, ``analytic_jacobian``: gradcheck's
analytic side.

``autograd_course.checks.ops`` (the notebook's ``check``) imports them; each function is
the visible part of one test cell, run on the function you wrote, and its docstring says
what it tries.  The constants are the rules the checks name (the hidden tests name them too).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version, outcome

__all__ = ["analytic_jacobian", "analytic_jacobian_in_gradcheck", "jacobians_of", "jacobian_rule",
           "jacobian_cases", "random_jacobian_case", "expect_jacobians", "gradcheck_outcomes",
           "JAC_LISTS", "JAC_LAYOUT", "JAC_ZEROS", "JAC_UNTOUCHED", "JAC_EACH", "JAC_GRADCHECK"]

JAC_LISTS = ("a list per output of fn, in order, each with one matrix per input that requires grad "
             "(a constant or a number gets none)")
JAC_LAYOUT = ("each matrix is a float64 NumPy array of shape (input numel, output numel): entry [j, i] is "
              "the derivative of output element i by input element j")
JAC_ZEROS = "an output that does not require grad, or an input an output does not use, gives a matrix of zeros"
JAC_UNTOUCHED = "computing a Jacobian changes no .grad: the inputs' .grad stay as they were"
JAC_EACH = ("each output element has a backward pass of its own, with a gradient that is 1 at that element "
            "and 0 elsewhere, through a graph that must survive until the last one")
JAC_GRADCHECK = "gradcheck compares your analytic Jacobians with the numerical ones, element by element"


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


def jacobian_rule(seen, expected):
    """The rule a wrong result breaks, judged from where it differs first."""
    if not isinstance(seen, list) or len(seen) != len(expected) or any(
            not isinstance(s, list) or len(s) != len(e) for s, e in zip(seen, expected)):
        return JAC_LISTS
    for s_row, e_row in zip(seen, expected):
        for s, e in zip(s_row, e_row):
            if not isinstance(s, tuple) or s[:3] != e[:3]:
                return JAC_LAYOUT
            if s != e:
                return JAC_EACH + "; " + JAC_ZEROS
    return JAC_LAYOUT


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


def expect_jacobians(fn, cases):
    """fn (your analytic_jacobian) on each case {label: (function, inputs, expected)}, and
    the inputs' .grad after it."""
    for label, (function, inputs, expected) in cases.items():
        grads = [x.grad for x in inputs if isinstance(x, ag.Tensor)]
        seen = jacobians_of(call(fn, function, inputs, what=f"analytic_jacobian({label})",
                                 rule=JAC_LISTS + "; " + JAC_EACH + "; " + JAC_ZEROS))
        grading.expect_equal(seen, expected, what=f"analytic_jacobian({label}) as (type, shape, dtype, values)",
                             rule=jacobian_rule(seen, expected))
        after = [x.grad for x in inputs if isinstance(x, ag.Tensor)]
        grading.expect_true(all(a is b for a, b in zip(after, grads)),
                            what=f"the inputs' .grad unchanged by analytic_jacobian({label})", rule=JAC_UNTOUCHED,
                            seen=repr([None if g is None else g.tolist() for g in after]))


def analytic_jacobian(fn):
    """Your ``analytic_jacobian`` called directly on six functions: ``a * a``, a matrix-vector
    product (two inputs, non-square Jacobians), two outputs, a constant input, an unused input
    and a number, an output that does not require grad. The lists, the shapes, dtypes and values
    of the matrices, and the inputs' ``.grad`` afterwards."""
    reference = exercises.reference("05.analytic_jacobian")
    with library_version("05"):         # the rules the functions use: the library's own
        cases = {label: (function, inputs, jacobians_of(reference(function, inputs)))
                 for label, (function, inputs) in jacobian_cases().items()}
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
        grading.expect_equal(s, e, what=label, rule=JAC_GRADCHECK + "; " + JAC_LAYOUT)


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
