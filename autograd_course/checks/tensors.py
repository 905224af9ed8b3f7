"""Visible checks of assignment 01: tensors and ``requires_grad``.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import outcome

__all__ = ["result_requires_grad", "result_requires_grad_in_the_engine"]


def result_requires_grad(fn):
    """Your ``result_requires_grad`` on hand-made inputs: a leaf that requires grad
    (``a``), a constant (``b``), a non-leaf (``c = a * 3``), ``None`` entries, no input
    at all, and grad mode off.  Each answer must be the bool the rule gives."""
    # Inputs built with the library's own rule, so that they are right whatever your function does.
    with exercises.plugged("01.result_requires_grad", exercises.reference("01.result_requires_grad")):
        a = ag.tensor(1.0, requires_grad=True)     # a leaf that requires grad
        b = ag.tensor(2.0)                         # a constant
        c = a * 3.0                                # a non-leaf: it requires grad through its grad_fn
    with grading.checking("01.result_requires_grad", fn):
        grading.expect_equal(outcome(fn, a, b), True, what="result_requires_grad(a, b) with a.requires_grad=True",
                             rule="a result requires grad when ANY input requires grad")
        grading.expect_equal(outcome(fn, b, a), True, what="result_requires_grad(b, a) with a.requires_grad=True",
                             rule="a result requires grad when ANY input requires grad, wherever it is")
        seen = outcome(fn, b, b)
        grading.expect_equal(type(seen).__name__, "bool", what="the type of result_requires_grad(b, b)",
                             rule="result_requires_grad returns True or False (a bool)")
        grading.expect_equal(seen, False, what="result_requires_grad(b, b) with b.requires_grad=False",
                             rule="when no input requires grad, the result does not require grad")
        grading.expect_equal(outcome(fn), False, what="result_requires_grad() with no inputs",
                             rule="when no input requires grad, the result does not require grad")
        grading.expect_equal(outcome(fn, c, b), True, what="result_requires_grad(c, b) with c = a * 3 (a non-leaf)",
                             rule="a non-leaf input requires grad too (it has a grad_fn)")
        grading.expect_equal(outcome(fn, None, a), True, what="result_requires_grad(None, a)",
                             rule="None entries are inputs that were left out: skip them and look at the others")
        grading.expect_equal(outcome(fn, b, None), False, what="result_requires_grad(b, None)",
                             rule="None entries are inputs that were left out: skip them and look at the others")
        with ag.no_grad():
            grading.expect_equal(outcome(fn, a, b), False, what="result_requires_grad(a, b) inside no_grad()",
                                 rule="in no_grad mode, no result requires grad")
            grading.expect_equal(outcome(fn, c), False, what="result_requires_grad(c) inside no_grad()",
                                 rule="in no_grad mode, no result requires grad")


def result_requires_grad_in_the_engine(fn):
    """Your rule inside the engine, through ordinary operations: ``x * y`` with ``x``
    requiring grad is recorded (``MulBackward0``); ``y * y`` on constants is not;
    ``exp(z + y)`` of a non-leaf ``z`` requires grad; ``x * y`` inside ``no_grad()``
    is not recorded."""
    with grading.checking("01.result_requires_grad", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = ag.tensor([3.0, 4.0])
        z = x * y
        grading.expect_equal(z.requires_grad, True, what="(x * y).requires_grad with x.requires_grad=True",
                             rule="a result requires grad when ANY input requires grad")
        grading.expect_equal(None if z.grad_fn is None else z.grad_fn.name(), "MulBackward0", what="(x * y).grad_fn",
                             rule="a result that requires grad is recorded: it gets a grad_fn")
        w = y * y
        grading.expect_equal(w.grad_fn is None and not w.requires_grad, True,
                             what="y * y is an unrecorded constant (grad_fn None, requires_grad False)",
                             rule="when no input requires grad, the result does not require grad")
        u = (z + y).exp()
        grading.expect_equal(u.requires_grad, True, what="exp(z + y).requires_grad where z = x * y",
                             rule="a non-leaf input requires grad too (it has a grad_fn)")
        with ag.no_grad():
            v = x * y
        grading.expect_equal(v.grad_fn is None and not v.requires_grad, True,
                             what="x * y computed inside no_grad() is unrecorded (grad_fn None, requires_grad False)",
                             rule="in no_grad mode, no result requires grad")
