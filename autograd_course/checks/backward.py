"""Visible checks of assignment 03: backward, the chain rule one node at a time.

Each check is the visible part of one test cell, run on the function(s) you wrote; its
docstring says what it tries.  A failure names the rule of the exercise's **Rules** list it
grades (``NUMERICAL("central")`` is rule ``central`` of exercise 1).  The hidden tests in the
cells run the ``random_...`` functions: the same rules on randomized inputs, against the
library's own functions.

This module holds exercises 1-3 (finite differences, the gradient rules, the counts); the
engine's pieces, exercises 4-6, have a module each, and this one shows their checks by name:

* ``autograd_course.checks.engine_loop``: exercise 4, ``execute``;
* ``autograd_course.checks.node_runs``: exercise 5, ``run_node``;
* ``autograd_course.checks.starting_gradients``: exercise 6, its slot ``initial_gradients``;
* ``autograd_course.checks.driver``: exercise 6, ``run_backward``.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call

from .driver import DRIVER, random_drivers, run_backward
from .engine_loop import EXECUTE, StandIn, Trace, execute, labelled_order, random_graph, random_loops, run_stand_ins
from .node_runs import NODE, TaskStandIn, broadcast_hooks, nothing_arrives, random_nodes, run_node
from .starting_gradients import STARTS, initial_gradients, random_starts

__all__ = ["NUMERICAL", "VJPS", "COUNTS", "EXECUTE", "NODE", "STARTS", "DRIVER", "numerical_grad", "add_rule",
           "mul_rule", "pow_rule", "mean_rule", "mm_rule", "vjps", "vjp_cases", "compositions", "as_gradients",
           "reference_vjp", "count_dependencies", "random_counts", "ChainNode", "execute", "random_loops",
           "run_node", "random_nodes", "broadcast_hooks", "nothing_arrives", "initial_gradients", "random_starts", "run_backward", "random_drivers",
           "StandIn", "TaskStandIn", "Trace", "run_stand_ins", "labelled_order", "random_graph"]

NUMERICAL = grading.rules("03.numerical_grad")
VJPS = grading.rules("03.vjps")
COUNTS = grading.rules("03.count_dependencies")


# ------------------------------------------------------------------ exercise 1: numerical_grad

def numerical_grad(fn):
    """Your ``numerical_grad`` on ``sum(x**3)`` (type, shape, dtype, values within eps**2, x left
    exactly as it was), on a float32 ``x``, on an ``x`` that requires grad (``f`` must run with
    grad mode off), with the default eps, and inside ``gradcheck``."""
    cube = lambda t: (t ** 3).sum()                     # noqa: E731
    x = ag.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=ag.float64)
    before = x.numpy().copy()
    with grading.checking("03.numerical_grad", fn):
        r = call(fn, cube, x, 1e-3, what="numerical_grad(f, x, 1e-3)", rule=NUMERICAL("central"))
    grading.expect_true(isinstance(r, ag.Tensor), what="the type of the result", seen=type(r).__name__,
                        rule=NUMERICAL("float64"))
    grading.expect_equal(tuple(r.shape), (2, 2), what="the shape of numerical_grad(f, x), x of shape (2, 2)",
                         rule=NUMERICAL("float64"))
    grading.expect_equal(r.dtype, ag.float64, what="the dtype of the result", rule=NUMERICAL("float64"))
    grading.expect_true(bool(np.any(r.numpy() != 0)), what="whether f saw x change (some entry is not 0)",
                        seen="all zeros", rule=NUMERICAL("central"))
    # For a cubic the central difference is 3x**2 + eps**2 exactly; a one-sided one is off by ~3x * eps.
    grading.expect_close(r, 3 * before ** 2, rtol=0, atol=1e-5, what="numerical_grad(sum(x**3), x, eps=1e-3)",
                         rule=NUMERICAL("central"))
    grading.expect_true(bool(np.array_equal(x.numpy(), before)), what="x == its value before numerical_grad",
                        seen=f"x = {x.numpy().tolist()} (before: {before.tolist()})", rule=NUMERICAL("restored"))

    modes = []

    def spy(t):
        modes.append(ag.is_grad_enabled())
        return (t * t).sum()

    x32 = ag.tensor([1.0, 2.0])
    xg = ag.tensor([0.3, -1.2, 2.0], dtype=ag.float64, requires_grad=True)
    with grading.checking("03.numerical_grad", fn):
        r32 = call(fn, lambda t: (t * t).sum(), x32, 1e-2, what="numerical_grad(f, x) for a float32 x",
                   rule=NUMERICAL("central"))
        call(fn, spy, xg, what="numerical_grad(f, x) for an x that requires grad", rule=NUMERICAL("central"))
        r_default = call(fn, lambda t: (t.tanh() * t).sum(), xg.detach(),
                         what="numerical_grad(f, x) with the default eps", rule=NUMERICAL("central"))
        ok = call(ag.autograd.gradcheck, lambda t: (t * t).tanh(), (xg,),
                  what="ag.autograd.gradcheck(lambda t: (t * t).tanh(), (x,))", rule=NUMERICAL("central"))
    grading.expect_equal(r32.dtype, ag.float64, what="the dtype of numerical_grad(f, x) for a float32 x",
                         rule=NUMERICAL("float64"))
    grading.expect_close(r32, [2.0, 4.0], rtol=1e-3, what="numerical_grad(sum(x*x), x) for a float32 x",
                         rule=NUMERICAL("central"))
    grading.expect_true(len(modes) > 0 and not any(modes), what="grad mode while f runs (False each time)",
                        seen=str(modes), rule=NUMERICAL("no-graph"))
    t = np.array([0.3, -1.2, 2.0])
    grading.expect_close(r_default, np.tanh(t) + t * (1 - np.tanh(t) ** 2), atol=1e-7,
                         what="numerical_grad(sum(x * tanh(x)), x) with the default eps", rule=NUMERICAL("central"))
    grading.expect_equal(ok, True, what="gradcheck's verdict with your numerical_grad", rule=NUMERICAL("central"))


# ------------------------------------------------------------------ exercise 2: the rules

def as_gradients(result, count):
    """A rule's result as a tuple of ``count`` tensors (a bare tensor counts as one), after
    checking that it is one."""
    grads = result if isinstance(result, tuple) else (result,)
    grading.expect_equal(len(grads), count, what="the number of gradients returned", rule=VJPS("tuple"))
    grading.expect_true(all(isinstance(g, ag.Tensor) for g in grads), what="whether every gradient is a tensor",
                        seen=repr(tuple(type(g).__name__ for g in grads)), rule=VJPS("tuple"))
    return grads


def reference_vjp(exercise_id, grad, **values):
    """The library's own rule for an exercise: one gradient per input."""
    return tuple(fn(grad, *(values[name] for name in needs))
                 for fn, needs in exercises.reference(exercise_id).values())


def add_rule(fn):
    """Your ``add_backward`` on a gradient of three elements, then ``backward()`` through
    ``L = (2*x + 5) + x``, where two paths meet at ``x``."""
    g = ag.tensor([1.0, -2.0, 3.0])
    with grading.checking("03.add_backward", fn):
        result = call(fn, g, what="add_backward(grad) for grad = [1., -2., 3.]", rule=VJPS("add"))
    grad_self, grad_other = as_gradients(result, 2)
    grading.expect_close(grad_self, [1.0, -2.0, 3.0], what="the gradient of self", rule=VJPS("add"))
    grading.expect_close(grad_other, [1.0, -2.0, 3.0], what="the gradient of other", rule=VJPS("add"))
    with grading.checking("03.add_backward", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() for L = (2*x + 5) + x", rule=VJPS("add"))
    grading.expect_close(x.grad, [3.0], what="x.grad for L = (2*x + 5) + x (two paths: 1 + 2)", rule=VJPS("add"))


def mul_rule(fn):
    """Your ``mul_backward`` on three-element tensors, then ``backward()`` through ``x * x``
    (both gradients reach ``x``) and through ``(s * v).sum()`` with a 0-d ``s``."""
    g = ag.tensor([1.0, 2.0, -1.0])
    a_value = ag.tensor([2.0, -1.0, 0.5])
    b_value = ag.tensor([4.0, 5.0, -6.0])
    with grading.checking("03.mul_backward", fn):
        result = call(fn, g, a_value, b_value, what="mul_backward(grad, self, other)", rule=VJPS("mul"))
    grad_self, grad_other = as_gradients(result, 2)
    grading.expect_close(grad_self, [4.0, 10.0, 6.0], what="the gradient of self for grad [1, 2, -1], "
                         "self [2, -1, 0.5], other [4, 5, -6]", rule=VJPS("mul"))
    grading.expect_close(grad_other, [2.0, -2.0, -0.5], what="the gradient of other for grad [1, 2, -1], "
                         "self [2, -1, 0.5], other [4, 5, -6]", rule=VJPS("mul"))
    with grading.checking("03.mul_backward", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        call(lambda: (x * x).backward(gradient=ag.tensor([1.0, 1.0, 1.0])), what="(x * x).backward(gradient=ones)",
             rule=VJPS("mul"))
        s = ag.tensor(2.0, requires_grad=True)
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        call(lambda: (s * v).backward(gradient=ag.tensor([1.0, -1.0, 0.5])), what="(s * v).backward(g) with a 0-d s",
             rule=VJPS("any-grad"))
    grading.expect_close(x.grad, [2.0, 4.0, 6.0], what="x.grad for x * x (x is self and other)", rule=VJPS("mul"))
    grading.expect_close(s.grad, 0.5, what="s.grad for (s * v).backward(g), g = [1, -1, 0.5]", rule=VJPS("any-grad"))
    grading.expect_close(v.grad, [2.0, -2.0, 1.0], what="v.grad for (s * v).backward(g), g = [1, -1, 0.5]",
                         rule=VJPS("any-grad"))


def pow_rule(fn):
    """Your ``pow_backward`` for the exponents 3, 0 (at ``x = 0`` too), 0.5 and -1, with an
    incoming gradient of ones and of other values; then ``backward()`` through
    ``Q = 3*a**3 - b**2``."""
    x_value = ag.tensor([0.5, 1.0, 2.0, 3.0])
    with grading.checking("03.pow_backward", fn):
        r_cube = call(fn, ag.ones(4), x_value, 3, what="pow_backward(ones, self, 3)", rule=VJPS("pow"))
        r_chain = call(fn, ag.tensor([1.0, -2.0, 0.5, 2.0]), x_value, 3, what="pow_backward(grad, self, 3)",
                       rule=VJPS("any-grad"))
        r_zero = call(fn, ag.ones(3), ag.tensor([0.0, 1.0, -2.0]), 0, what="pow_backward(ones, self, 0)",
                      rule=VJPS("pow-zero"))
        r_root = call(fn, ag.ones(3), ag.tensor([0.25, 1.0, 4.0]), 0.5, what="pow_backward(ones, self, 0.5)",
                      rule=VJPS("pow"))
        r_inverse = call(fn, ag.ones(2), ag.tensor([-2.0, 0.5]), -1, what="pow_backward(ones, self, -1)",
                         rule=VJPS("pow"))
    (g_cube,) = as_gradients(r_cube, 1)
    grading.expect_close(g_cube, [0.75, 3.0, 12.0, 27.0], what="pow_backward(ones, [0.5, 1, 2, 3], 3)",
                         rule=VJPS("pow"))
    (g_chain,) = as_gradients(r_chain, 1)
    grading.expect_close(g_chain, [0.75, -6.0, 6.0, 54.0], what="pow_backward([1, -2, 0.5, 2], [0.5, 1, 2, 3], 3)",
                         rule=VJPS("any-grad"))
    (g_zero,) = as_gradients(r_zero, 1)
    grading.expect_close(g_zero, [0.0, 0.0, 0.0], what="pow_backward(ones, [0, 1, -2], 0)", rule=VJPS("pow-zero"))
    (g_root,) = as_gradients(r_root, 1)
    grading.expect_close(g_root, [1.0, 0.5, 0.25], what="pow_backward(ones, [0.25, 1, 4], 0.5)", rule=VJPS("pow"))
    (g_inverse,) = as_gradients(r_inverse, 1)
    grading.expect_close(g_inverse, [-0.25, -4.0], what="pow_backward(ones, [-2, 0.5], -1)", rule=VJPS("pow"))
    with grading.checking("03.pow_backward", fn):
        a = ag.tensor([2.0, 3.0], requires_grad=True)
        b = ag.tensor([6.0, 4.0], requires_grad=True)
        Q = 3 * a ** 3 - b ** 2
        call(lambda: Q.backward(gradient=ag.tensor([1.0, 1.0])), what="Q.backward(gradient=ones), Q = 3*a**3 - b**2",
             rule=VJPS("pow"))
    grading.expect_close(a.grad, [36.0, 81.0], what="a.grad for Q = 3*a**3 - b**2", rule=VJPS("pow"))
    grading.expect_close(b.grad, [-12.0, -8.0], what="b.grad for Q = 3*a**3 - b**2", rule=VJPS("pow"))


def mean_rule(fn):
    """Your ``mean_backward`` for a (2, 3) input (the shape and the values of the gradient) and
    a 0-d one, then ``backward()`` through ``m.mean()`` and ``(x * x).mean()``."""
    with grading.checking("03.mean_backward", fn):
        result = call(fn, ag.tensor(3.0), (2, 3), what="mean_backward(tensor(3.), (2, 3))", rule=VJPS("mean"))
        scalar = call(fn, ag.tensor(-2.0), (), what="mean_backward(tensor(-2.), ())", rule=VJPS("mean"))
    (g,) = as_gradients(result, 1)
    grading.expect_equal(tuple(g.shape), (2, 3), what="the shape of mean_backward(tensor(3.), (2, 3))",
                         rule=VJPS("mean"))
    grading.expect_close(g, [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], what="mean_backward(tensor(3.), (2, 3))",
                         rule=VJPS("mean"))
    (g0,) = as_gradients(scalar, 1)
    grading.expect_close(g0, -2.0, what="mean_backward(tensor(-2.), ()) (the mean of one element)",
                         rule=VJPS("mean"))
    with grading.checking("03.mean_backward", fn):
        m = ag.tensor([[1., 2., 3., 4.], [5., 6., 7., 8.], [9., 10., 11., 12.]], requires_grad=True)
        call(m.mean().backward, what="m.mean().backward() for m of shape (3, 4)", rule=VJPS("mean"))
        x = ag.tensor([1.0, -2.0, 3.0, 0.5, 2.0], requires_grad=True)
        call(lambda: (x * x).mean().backward(gradient=ag.tensor(2.0)), what="(x * x).mean().backward(tensor(2.))",
             rule=VJPS("any-grad"))
    grading.expect_close(m.grad, np.full((3, 4), 1 / 12), what="m.grad for m.mean(), m of shape (3, 4)",
                         rule=VJPS("mean"))
    grading.expect_close(x.grad, [0.8, -1.6, 2.4, 0.4, 1.6], what="x.grad for (x * x).mean() with 5 elements, "
                         "backward(tensor(2.))", rule=VJPS("any-grad"))


def mm_rule(fn):
    """Your ``mm_backward`` for a (3, 4) @ (4, 2) product (the shapes and values of both
    gradients, worked out by hand), then ``backward()`` through ``a @ b`` and through
    ``(x @ w).mean()`` for a row ``x``."""
    A = np.array([[1., 0., 2., -1.], [0., 1., 1., 2.], [3., -2., 0., 1.]])      # 3 x 4
    B = np.array([[1., 2.], [0., -1.], [2., 0.], [1., 1.]])                       # 4 x 2
    G = np.array([[1., 0.], [2., -1.], [0.5, 1.]])                                # 3 x 2
    GRAD_A = [[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, 4.0, 1.0], [2.5, -1.0, 1.0, 1.5]]  # worked out by hand
    GRAD_B = [[2.5, 3.0], [1.0, -3.0], [4.0, -1.0], [3.5, -1.0]]
    with grading.checking("03.mm_backward", fn):
        result = call(fn, ag.tensor(G), ag.tensor(A), ag.tensor(B),
                      what="mm_backward(grad, self, mat2), self 3x4, mat2 4x2, grad 3x2", rule=VJPS("mm"))
    grad_self, grad_mat2 = as_gradients(result, 2)
    grading.expect_equal(tuple(grad_self.shape), (3, 4), what="the shape of the gradient of self", rule=VJPS("mm"))
    grading.expect_equal(tuple(grad_mat2.shape), (4, 2), what="the shape of the gradient of mat2", rule=VJPS("mm"))
    grading.expect_close(grad_self, GRAD_A, what="the gradient of self", rule=VJPS("mm"))
    grading.expect_close(grad_mat2, GRAD_B, what="the gradient of mat2", rule=VJPS("mm"))
    with grading.checking("03.mm_backward", fn):
        a = ag.tensor(A, requires_grad=True)
        b = ag.tensor(B, requires_grad=True)
        call(lambda: (a @ b).backward(gradient=ag.tensor(G)), what="(a @ b).backward(gradient=G)", rule=VJPS("mm"))
        w = ag.tensor(B, requires_grad=True)
        x = ag.tensor(np.array([[1.0, -1.0, 2.0, 0.5]]))
        call((x @ w).mean().backward, what="(x @ w).mean().backward()", rule=VJPS("mm"))
    grading.expect_close(a.grad, GRAD_A, what="a.grad for (a @ b).backward(gradient=G)", rule=VJPS("mm"))
    grading.expect_close(b.grad, GRAD_B, what="b.grad for (a @ b).backward(gradient=G)", rule=VJPS("mm"))
    grading.expect_close(w.grad, [[0.5, 0.5], [-0.5, -0.5], [1.0, 1.0], [0.25, 0.25]],
                         what="w.grad for (x @ w).mean(), x of shape (1, 4), w of (4, 2)", rule=VJPS("mm"))


RULE_IDS = ("03.add_backward", "03.mul_backward", "03.pow_backward", "03.mean_backward", "03.mm_backward")


def _composition(a, b, m):
    """A function of three tensors that uses each of the five ops."""
    return ((a @ m) * (b @ m) + (a ** 2) @ m).mean() + (a * b + b ** -1).mean()


def vjps(add_backward, mul_backward, pow_backward, mean_backward, mm_backward):
    """Your five rules plugged in together: ``backward()`` through a function that uses all
    five ops, compared with the library's gradients, and ``gradcheck`` on it."""
    plugs = dict(zip(RULE_IDS, (add_backward, mul_backward, pow_backward, mean_backward, mm_backward)))
    values = [np.array([[1.0, -0.5], [2.0, 0.25]]), np.array([[0.5, 1.5], [-1.0, 2.0]]),
              np.array([[1.0, 0.0, -1.0], [0.5, 2.0, 1.0]])]
    def story(_):
        inputs = [ag.tensor(v, requires_grad=True) for v in values]
        call(_composition(*inputs).backward, what="backward() through mean((a @ m) * (b @ m) + (a ** 2) @ m) "
             "+ mean(a * b + b ** -1)", rule=VJPS("together"))
        ok = call(lambda: ag.autograd.gradcheck(_composition, [ag.tensor(v, requires_grad=True) for v in values],
                                                raise_exception=False),
                  what="gradcheck of that function", rule=VJPS("together"))
        return _grads(inputs), ok

    (expected, _), (seen, ok) = grading.side_by_side(plugs, None, story)
    for name, got, want in zip("abm", seen, expected):
        grading.expect_close(got, want, what=f"{name}.grad through the five ops together", rule=VJPS("together"))
    grading.expect_equal(ok, True, what="gradcheck's verdict on the five ops together", rule=VJPS("together"))


def _grads(tensors):
    """Copies of the tensors' ``.grad`` (None where there is none)."""
    return [None if t.grad is None else t.grad.numpy().copy() for t in tensors]


def _shape(case, low=0, high=3):
    return tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(low, high))))


def _compare_rule(exercise_id, fn, g, args, values, forward, inputs, shown, rule):
    """The rule called alone and inside ``backward()``, against the library's rule."""
    op = exercise_id.split(".")[1]
    expected = reference_vjp(exercise_id, g, **values)
    with grading.checking(exercise_id, fn):
        result = call(fn, g, *args, what=f"{op} for {shown}", rule=rule)
        call(lambda: forward().backward(gradient=g), what=f"backward() through it, {shown}", rule=rule)
    seen = as_gradients(result, len(expected))
    for k, (got, want) in enumerate(zip(seen, expected)):
        grading.expect_close(got, want, what=f"gradient {k} of {op} for {shown}", rule=rule)
    for k, (t, want) in enumerate(zip(inputs, expected)):
        grading.expect_close(t.grad, want, what=f"input {k}'s .grad after backward() through it, {shown}",
                             rule=VJPS("any-grad"))


def vjp_cases(exercise_id, fn, seed):
    """The hidden tests of one rule: random shapes, values and incoming gradients, the rule
    called alone and inside ``backward()``, against the library's rule."""
    op = exercise_id.split(".")[1].split("_")[0]
    for k, case in enumerate(grading.random_cases(seed=seed, count=10)):
        shape = _shape(case)
        g = ag.tensor(np.asarray(case.standard_normal(shape)))
        if op in ("add", "mul"):
            a, b = (ag.tensor(np.asarray(case.standard_normal(shape)), requires_grad=True) for _ in range(2))
            if op == "add":
                _compare_rule(exercise_id, fn, g, (), {"alpha": 1}, lambda: a + b, (a, b), f"shape {shape}",
                              rule=VJPS("add"))
            else:
                _compare_rule(exercise_id, fn, g, (a.detach(), b.detach()), {"self": a.detach(), "other": b.detach()},
                              lambda: a * b, (a, b), f"shape {shape}", rule=VJPS("mul"))
        elif op == "pow":
            exponent = [0, 1, 2, 3, -1, 0.5, 2.5, -1.5, 0, 2][k]
            base = np.asarray(case.uniform(0.2, 2.0, size=shape))
            if float(exponent).is_integer():
                base = base * np.where(case.integers(0, 2, size=shape) == 1, 1.0, -1.0)
            if exponent in (0, 1, 2, 3):                   # x = 0 too, where n * x ** (n - 1) can be nan
                base = np.where(case.integers(0, 3, size=shape) == 0, 0.0, base)
                base.reshape(-1)[0] = 0.0
            x = ag.tensor(base, requires_grad=True)
            _compare_rule(exercise_id, fn, g, (x.detach(), exponent), {"self": x.detach(), "exponent": exponent},
                          lambda: x ** exponent, (x,), f"exponent {exponent}, shape {shape}",
                          rule=VJPS("pow-zero") if exponent == 0 else VJPS("pow"))
        elif op == "mean":
            shape = _shape(case, 0, 4)
            g = ag.tensor(float(case.standard_normal()), dtype=ag.float64)
            x = ag.tensor(np.asarray(case.standard_normal(shape)), requires_grad=True)
            _compare_rule(exercise_id, fn, g, (shape,), {"self_shape": shape}, lambda: x.mean(), (x,),
                          f"self_shape {shape}", rule=VJPS("mean"))
        else:
            n, inner, m = (int(d) for d in case.integers(1, 6, size=3))
            a = ag.tensor(np.asarray(case.standard_normal((n, inner))), requires_grad=True)
            b = ag.tensor(np.asarray(case.standard_normal((inner, m))), requires_grad=True)
            g = ag.tensor(np.asarray(case.standard_normal((n, m))))
            _compare_rule(exercise_id, fn, g, (a.detach(), b.detach()),
                          {"self": a.detach(), "mat2": b.detach(), "self_col_major": False, "mat2_col_major": False},
                          lambda: a @ b, (a, b), f"({n}x{inner}) @ ({inner}x{m})", rule=VJPS("mm"))


def compositions(plugs, seed):
    """The hidden tests of the five rules together: random compositions of the five ops
    through ``backward()``, against the library's gradients."""
    for case in grading.random_cases(seed=seed, count=6):
        n, k = (int(d) for d in case.integers(1, 4, size=2))
        values = [np.asarray(case.uniform(0.5, 1.5, size=(n, k))) * np.where(case.integers(0, 2, size=(n, k)), 1, -1)
                  for _ in range(2)] + [np.asarray(case.standard_normal((k, n)))]
        exponent = [2, 3, -1, 0.5, 0][int(case.integers(0, 5))]
        steps = [int(s) for s in case.integers(0, 5, size=4)]

        def build(a, b, m):
            t = a
            for s in steps:
                t = [t + b, t * b, (t * t + 1) ** exponent, (t @ m) @ (m.T @ m) @ m.T / 4, t * t.mean()][s]
            return (t * a).mean()

        def story(_, build=build, steps=steps):
            inputs = [ag.tensor(v, requires_grad=True) for v in values]
            call(build(*inputs).backward, what=f"backward() through a random composition (steps {steps})",
                 rule=VJPS("together"))
            return _grads(inputs)

        expected, seen = grading.side_by_side(plugs, None, story)
        for name, got, want in zip("abm", seen, expected):
            if want is None:
                grading.expect_equal(got, None, what=f"{name}.grad when the composition (steps {steps}) does "
                                     "not use it", rule=VJPS("together"))
                continue
            grading.expect_close(got, want, rtol=1e-6, atol=1e-9,
                                 what=f"{name}.grad for a random composition of the five ops (steps {steps}, "
                                      f"exponent {exponent})", rule=VJPS("together"))


# ------------------------------------------------------------------ exercise 3: count_dependencies

class ChainNode:
    """A stand-in for a backward node: count_dependencies reads only next_functions."""
    __slots__ = ("next_functions",)


def count_dependencies(fn):
    """Your ``count_dependencies`` on the worked example ``L = (2*x + 5) + x`` (two edges into x's
    ``AccumulateGrad``), on a chain of 20 000 stand-in nodes, on ``y = y + y`` repeated 12 times
    (every node has two edges into it), and inside the engine."""
    x = ag.tensor([2.0], requires_grad=True)
    y = 2 * x + 5
    L = y + x
    add_y, acc_x = y.grad_fn, L.grad_fn.next_functions[1][0]
    mul = add_y.next_functions[0][0]
    with grading.checking("03.count_dependencies", fn):
        deps = call(fn, [L.grad_fn], what="count_dependencies([L.grad_fn])", rule=COUNTS("edges", "only-pointed"))
    grading.expect_true(isinstance(deps, dict), what="the type of the result", seen=type(deps).__name__,
                        rule=COUNTS("edges"))
    grading.expect_equal(None in deps, False, what="`None in deps`", rule=COUNTS("only-pointed"))
    grading.expect_equal(deps.get(acc_x), 2, what="the count of x's AccumulateGrad in L = (2*x + 5) + x",
                         rule=COUNTS("edges"))
    grading.expect_equal(deps.get(add_y), 1, what="the count of y.grad_fn", rule=COUNTS("edges"))
    grading.expect_equal(deps.get(mul), 1, what="the count of the MulBackward0 of 2 * x", rule=COUNTS("edges"))
    grading.expect_equal(L.grad_fn in deps, False, what="`L.grad_fn in deps` (the root)", rule=COUNTS("only-pointed"))

    chain = [ChainNode() for _ in range(20_000)]
    for node, below in zip(chain, chain[1:]):
        node.next_functions = ((below, 0), (None, 0))
    chain[-1].next_functions = ()
    with grading.checking("03.count_dependencies", fn):
        deps = call(fn, [chain[0]], what="count_dependencies on a chain of 20 000 nodes", rule=COUNTS("deep"))
    grading.expect_equal(len(deps), 19_999, what="the number of nodes counted in a 20 000-node chain",
                         rule=COUNTS("only-pointed"))
    grading.expect_equal(set(deps.values()), {1}, what="the set of counts in a chain", rule=COUNTS("edges"))
    del chain, deps

    z = ag.tensor(1.0, requires_grad=True)
    ladder = z
    for _ in range(12):
        ladder = ladder + ladder               # two edges into the previous node, each time
    with grading.checking("03.count_dependencies", fn):
        deps = call(fn, [ladder.grad_fn], what="count_dependencies for y = y + y, 12 times", rule=COUNTS("edges"))
    grading.expect_equal(sorted(deps.values()), [2] * 12,
                         what="the counts for y = y + y repeated 12 times (12 nodes below the root)",
                         rule=COUNTS("edges"))

    with grading.checking("03.count_dependencies", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() with your count_dependencies in the engine", rule=COUNTS("edges"))
    grading.expect_close(x.grad, [3.0], what="x.grad for L = (2*x + 5) + x, with your counts in the engine",
                         rule=COUNTS("edges"))


def random_counts(fn, seed):
    """The hidden tests of count_dependencies: random graphs of real nodes (several roots,
    one maybe below another), and random stand-in graphs thousands of nodes deep."""
    count_reference = exercises.reference("03.count_dependencies")
    for case in grading.random_cases(seed=seed, count=8):
        values = [ag.tensor(np.asarray(case.standard_normal(3)), requires_grad=bool(i == 0 or case.integers(0, 2)))
                  for i in range(3)]
        for _ in range(int(case.integers(4, 16))):
            first, second = (values[int(i)] for i in case.integers(0, len(values), size=2))
            values.append(first * second if case.integers(0, 2) else first + second)
        roots = [t.grad_fn for t in values[-int(case.integers(1, 3)):] if t.grad_fn is not None]
        if not roots:
            continue
        expected = count_reference(roots)
        with grading.checking("03.count_dependencies", fn):
            deps = call(fn, roots, what=f"count_dependencies on a random graph ({len(roots)} roots)",
                        rule=COUNTS("edges"))
        wrong = [f"{type(node).__name__}: {deps.get(node)} (expected {count})" for node, count in expected.items()
                 if deps.get(node) != count]
        grading.expect_equal(wrong, [], what="the nodes of a random graph with a wrong count", rule=COUNTS("edges"))
        grading.expect_equal(len(deps), len(expected), what="the number of nodes counted in a random graph",
                             rule=COUNTS("only-pointed"))

    for case in grading.random_cases(seed=seed + 1, count=2):     # deep random graphs, with shortcuts and gaps
        size = int(case.integers(4_000, 6_000))
        nodes = [ChainNode() for _ in range(size)]
        for i, node in enumerate(nodes[:-1]):
            edges = [(nodes[i + 1], 0)]
            if case.integers(0, 4) == 0:
                edges.append((nodes[int(case.integers(i + 1, size))], 0))
            if case.integers(0, 3) == 0:
                edges.insert(int(case.integers(0, 2)), (None, 0))
            node.next_functions = tuple(edges)
        nodes[-1].next_functions = ()
        expected = count_reference([nodes[0]])
        with grading.checking("03.count_dependencies", fn):
            deps = call(fn, [nodes[0]], what=f"count_dependencies on a random graph {size} nodes deep",
                        rule=COUNTS("deep"))
        wrong = sum(deps.get(node) != count for node, count in expected.items())
        grading.expect_equal((len(deps), wrong), (len(expected), 0),
                             what=f"(nodes counted, nodes with a wrong count) in a random graph {size} nodes deep",
                             rule=COUNTS("edges"))
        del nodes, deps, expected
