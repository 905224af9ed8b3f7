"""What the checks of assignment 05's exercises share: comparisons that name a rule (within a tolerance
that suits the dtype), random shapes and dtypes, and ``reference_rule``, the library's own gradient
rule of a one-input node.  ``autograd_course.checks.broadcast_sums``, ``output_validation``,
``sum_index_rules``, ``derived_rules``, ``variance_rules`` and ``amax_rules`` import them.
"""

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call

__all__ = ["reference_rule", "_tolerance", "_expect_close", "_expect_equal", "_expect_true", "_call", "_try", "_run",
           "_random_shape", "_dtype", "_graph_kept"]


def reference_rule(exercise_id, grad, *values):
    """The library's own gradient rule of a one-input node, applied to grad and the saved values."""
    (formula, _), = exercises.reference(exercise_id).values()
    return formula(grad, *values)


def _tolerance(dtype):
    """The tolerance of a comparison in ``dtype``: float32 sums are rounded differently."""
    return {} if dtype == ag.float64 else {"rtol": 1e-4, "atol": 1e-5}


def _expect_close(seen, expected, what, rule, dtype=ag.float64):
    grading.expect_close(seen, expected, what=what, rule=rule, **_tolerance(dtype))


def _expect_equal(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def _expect_true(condition, what, rule):
    grading.expect_true(condition, what=what, seen=repr(condition), rule=rule)


def _call(fn, args, what, rule):
    """``fn(*args)``; an error fails, naming ``rule``."""
    return call(fn, *args, what=what, rule=rule)


def _try(fn, args, expected, what, rule, dtype=ag.float64, tolerance=None):
    """``fn(*args)`` (an error fails, naming ``rule``), compared with ``expected``."""
    seen = _call(fn, args, what, rule)
    if tolerance is None:
        _expect_close(seen, expected, what, rule, dtype)
    else:
        grading.expect_close(seen, expected, what=what, rule=rule, **tolerance)


def _run(thunk, what, rule):
    """``thunk()``; an error fails, naming ``rule``."""
    return call(thunk, what=what, rule=rule)


def _random_shape(rng, low, high, ndim):
    return tuple(int(n) for n in rng.integers(low, high, size=ndim))


def _dtype(rng):
    return ag.float64 if rng.integers(2) else ag.float32


def _graph_kept(fn_grad):
    """``fn_grad()`` gives a gradient taken with create_graph=True of ``(p * q).sum()`` by ``p``;
    whether it requires grad, and ``q.grad`` after differentiating its sum (None if it cannot)."""
    p, q, grad_p = fn_grad()
    if not getattr(grad_p, "requires_grad", False):
        return False, None
    grad_p.sum().backward()
    return True, q.grad
