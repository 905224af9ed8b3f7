"""Visible checks of assignment 03, exercise 6 (its slot ``initial_gradients``): the gradients a pass starts
from.

``autograd_course.checks.backward`` (the notebook's ``check``) shows them; ``initial_gradients`` is
the visible part of its test cell, run on the function you wrote, and its docstring says what it
tries.  ``random_starts`` is what the hidden part runs, against the library's function.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, raise_if_not_written

__all__ = ["STARTS", "initial_gradients", "random_starts"]

STARTS = grading.rules("03.run_backward")


def initial_gradients(fn):
    """Your ``initial_gradients`` for one-element outputs (0-d and shape (1,)), a given gradient,
    an output that does not require grad, and PyTorch's errors (several elements without a
    gradient, a wrong shape naming the position, a gradient that is not a tensor); then
    ``backward()`` with and without a gradient."""
    a = ag.tensor([2.0, 3.0], requires_grad=True)
    s = (a * a).sum()                          # shape ()
    one = a[:1] * 3.0                          # shape (1,)
    Q = a * a                                  # shape (2,)
    with grading.checking("03.initial_gradients", fn):
        r_scalar = call(fn, [s], [None], what="initial_gradients([s], [None]) for a 0-d s", rule=STARTS("starts"))
        r_one = call(fn, [one], [None], what="initial_gradients([t], [None]) for t of shape (1,)",
                     rule=STARTS("starts"))
        r_given = call(fn, [Q], [ag.tensor([1.0, -1.0], dtype=ag.float64)],
                       what="initial_gradients([Q], [v]), v float64 of Q's shape", rule=STARTS("starts"))
        r_plain = call(fn, [ag.ones(3)], [None], what="initial_gradients([ones(3)], [None]) (no grad required)",
                       rule=STARTS("refused"))
    grading.expect_true(isinstance(r_scalar, list) and len(r_scalar) == 1, what="the result for one output",
                        seen=repr(r_scalar), rule=STARTS("starts"))
    grading.expect_close(r_scalar[0], 1.0, what="the implicit gradient of a 0-d output", rule=STARTS("starts"))
    grading.expect_close(r_one[0], [1.0], what="the implicit gradient of an output of shape (1,)",
                         rule=STARTS("starts"))
    grading.expect_close(r_given[0], [1.0, -1.0], what="the gradient given for Q", rule=STARTS("starts"))
    grading.expect_equal(r_given[0].dtype, ag.float64, what="the dtype of the gradient given (float64) for a "
                         "float32 Q", rule=STARTS("starts"))
    grading.expect_close(r_plain[0], [1.0, 1.0, 1.0], what="the gradient for an output of 3 elements that does "
                         "not require grad", rule=STARTS("refused"))

    with grading.checking("03.initial_gradients", fn):
        grading.expect_raises(lambda: fn([Q], [None]), RuntimeError,
                              "grad can be implicitly created only for scalar outputs",
                              what="initial_gradients([Q], [None]) for Q of shape (2,)", rule=STARTS("refused"))
        grading.expect_raises(lambda: fn([Q], [ag.ones(3)]), RuntimeError,
                              f"Mismatch in shape: grad_output[0] has a shape of {ag.Size([3])} and "
                              f"output[0] has a shape of {ag.Size([2])}.",
                              what="initial_gradients([Q], [ones(3)]) for Q of shape (2,)", rule=STARTS("refused"))
        grading.expect_raises(lambda: fn([Q], [[1.0, 1.0]]), TypeError,
                              "gradients can be either Tensors or None, but got list",
                              what="initial_gradients([Q], [[1.0, 1.0]])", rule=STARTS("refused"))
        grading.expect_raises(lambda: fn([Q], [np.ones(2)]), TypeError,
                              "gradients can be either Tensors or None, but got ndarray",
                              what="initial_gradients([Q], [np.ones(2)])", rule=STARTS("refused"))
        grading.expect_raises(lambda: fn([s, Q], [None, ag.ones(3)]), RuntimeError,
                              f"Mismatch in shape: grad_output[1] has a shape of {ag.Size([3])} and "
                              f"output[1] has a shape of {ag.Size([2])}.",
                              what="initial_gradients([s, Q], [None, ones(3)])", rule=STARTS("refused"))

    with grading.checking("03.initial_gradients", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() for L of shape (1,)", rule=STARTS("starts"))
        b = ag.tensor([6.0, 4.0], requires_grad=True)
        P = b * b
        call(lambda: P.backward(gradient=ag.tensor([1.0, 0.5])), what="P.backward(gradient=[1, 0.5]), P = b * b",
             rule=STARTS("starts"))
    grading.expect_close(x.grad, [3.0], what="x.grad after L.backward() for L of shape (1,)", rule=STARTS("starts"))
    grading.expect_close(b.grad, [12.0, 4.0], what="b.grad after P.backward(gradient=[1, 0.5])", rule=STARTS("starts"))


def _outcome(fn, outputs, grads):
    try:
        return "value", [(g.tolist(), str(g.dtype)) for g in fn(outputs, grads)]
    except (RuntimeError, TypeError) as error:
        return type(error).__name__, str(error)


def random_starts(fn, seed):
    """The hidden tests of initial_gradients: random outputs (one element or several, needing
    grad or not) with every kind of gradient, against the library's function."""
    reference = exercises.reference("03.initial_gradients")
    for case in grading.random_cases(seed=seed, count=12):
        outputs, grads = [], []
        for _ in range(int(case.integers(1, 4))):
            shape = tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(0, 3))))
            if case.integers(0, 4) == 0:
                shape = (1,) * int(case.integers(0, 4))
            leaf = ag.tensor(np.asarray(case.standard_normal(shape)), requires_grad=bool(case.integers(0, 4)))
            outputs.append(leaf * 2.0)
            kind = int(case.integers(0, 7))
            if kind in (0, 6):
                grads.append(None)
            elif kind == 1:
                dtype = [ag.float32, ag.float64, ag.int64][int(case.integers(0, 3))]
                grads.append(ag.tensor(np.asarray(case.standard_normal(shape))).to(dtype))
            elif kind == 2:
                grads.append(ag.tensor(np.asarray(case.standard_normal(shape + (2,)))))
            elif kind == 3:
                grads.append([1.0, 2.0][: int(case.integers(1, 3))])
            elif kind == 4:
                grads.append(float(case.standard_normal()))
            else:
                grads.append(np.asarray(case.standard_normal(shape)))
        expected = _outcome(reference, outputs, grads)
        with grading.checking("03.initial_gradients", fn):
            try:
                seen = _outcome(fn, outputs, grads)
            except Exception as error:               # noqa: BLE001 - shown to the student as it is
                raise_if_not_written(error)
                seen = type(error).__name__, str(error)
        shapes = [(tuple(out.shape), out.requires_grad) for out in outputs]
        kinds = ["None" if g is None else type(g).__name__ + (str(tuple(g.shape)) if isinstance(g, ag.Tensor) else "")
                 for g in grads]
        grading.expect_equal(seen, expected, what=f"initial_gradients for outputs (shape, requires_grad) {shapes} "
                             f"and gradients {kinds}",
                             rule=STARTS("starts") if expected[0] == "value" else STARTS("refused")
                             if expected[0] == "TypeError" else STARTS("refused") if "Mismatch" in str(expected[1])
                             else STARTS("refused"))
