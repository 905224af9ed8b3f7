"""Visible checks of assignment 05, exercise 1: ``sum_to``, a broadcast gradient summed back to an
input's shape.

``autograd_course.checks.ops`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random inputs drawn from the generators the cell passes.  The constants
are the rules the checks name (``grading.rules("05.sum_to")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading

from .op_comparisons import _dtype, _expect_close, _graph_kept, _random_shape, _run, _try

__all__ = ["sum_to", "sum_to_in_the_engine", "sum_to_random", "sum_to_in_the_engine_random", "SUM_TO_LEAD",
           "SUM_TO_ONES", "SUM_TO_SAME", "SUM_TO_GRAPH", "SUM_TO_BOTH"]

SUM_TO = grading.rules("05.sum_to")
SUM_TO_LEAD = SUM_TO("lead")
SUM_TO_ONES = SUM_TO("ones")
SUM_TO_SAME = SUM_TO("same")
SUM_TO_GRAPH = SUM_TO("graph")
SUM_TO_BOTH = SUM_TO("lead", "ones")


def _sum_to_rule(shape, out):
    """The rule a gradient of shape ``out`` summed to ``shape`` is about."""
    shape, out = tuple(shape), tuple(out)
    lead = len(out) > len(shape)
    ones = any(s == 1 and o != 1 for s, o in zip(shape, out[len(out) - len(shape):]))
    return SUM_TO_BOTH if lead and ones else SUM_TO_LEAD if lead else SUM_TO_ONES if ones else SUM_TO_SAME


def sum_to(fn):
    """Your ``sum_to`` on a ``(2, 3)`` gradient summed to ``(3,)``, ``(1, 3)``, ``(2, 1)``,
    ``()`` and ``(2, 3)``, and on a ``(2, 3, 4)`` gradient summed to ``Size([3, 1])`` and
    ``(1, 1, 4)``: the dims on the left summed away (lead), size-1 dims summed and kept
    (ones), a gradient that already has the shape unchanged (same)."""
    g = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    g3 = ag.arange(24.0).reshape(2, 3, 4)
    a3 = np.arange(24.0).reshape(2, 3, 4)
    cases = [(g, (3,), [5.0, 7.0, 9.0]), (g, (1, 3), [[5.0, 7.0, 9.0]]), (g, (2, 1), [[6.0], [15.0]]),
             (g, (), 21.0), (g, (2, 3), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
             (g3, ag.Size([3, 1]), a3.sum(axis=(0, 2)).reshape(3, 1)),
             (g3, (1, 1, 4), a3.sum(axis=(0, 1), keepdims=True))]
    with grading.checking("05.sum_to", fn):
        for grad, shape, expected in cases:
            what = f"sum_to(grad of shape {tuple(grad.shape)}, {shape!r})"
            _try(fn, (grad, shape), expected, what, _sum_to_rule(shape, grad.shape))


def sum_to_in_the_engine(fn):
    """Your ``sum_to`` inside the engine: backward through ``x * y`` with ``x`` of shape
    ``(3,)``, ``(2, 1)`` and ``()`` against a ``(2, 3)`` ``y``, and through ``expand``; then
    a gradient taken with ``create_graph=True`` differentiated again (graph)."""
    def with_graph():
        p = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        q = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        (grad_p,) = ag.autograd.grad((p * q).sum(), p, create_graph=True)
        return p, q, grad_p

    with grading.checking("05.sum_to", fn):
        y = ag.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = ag.tensor([[1.0], [2.0]], requires_grad=True)
        s = ag.tensor(2.0, requires_grad=True)
        e = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        _run(lambda: (x * y).sum().backward(), "(x * y).sum().backward(), x (3,), y (2, 3)", SUM_TO_LEAD)
        _run(lambda: (c * y).sum().backward(), "(c * y).sum().backward(), c (2, 1)", SUM_TO_ONES)
        _run(lambda: (s * y).sum().backward(), "(s * y).sum().backward(), s ()", SUM_TO_LEAD)
        _run(lambda: (e.expand(2, 3) * y).sum().backward(), "(e.expand(2, 3) * y).sum().backward()", SUM_TO_LEAD)
        kept, q_grad = _run(lambda: _graph_kept(with_graph), "autograd.grad((p * q).sum(), p, create_graph=True), "
                                                             "then its sum's backward", SUM_TO_GRAPH)
    _expect_close(x.grad, [50.0, 70.0, 90.0], "x.grad for (x * y).sum(), x of shape (3,)", SUM_TO_LEAD)
    _expect_close(c.grad, [[60.0], [150.0]], "c.grad for (c * y).sum(), c of shape (2, 1)", SUM_TO_ONES)
    _expect_close(s.grad, 210.0, "s.grad for (s * y).sum(), s of shape ()", SUM_TO_LEAD)
    _expect_close(e.grad, [50.0, 70.0, 90.0], "e.grad for (e.expand(2, 3) * y).sum()", SUM_TO_LEAD)
    grading.expect_true(kept, what="the gradient of p, taken with create_graph=True, requires grad",
                        seen=repr(kept), rule=SUM_TO_GRAPH)
    _expect_close(q_grad, np.ones((2, 3)), "q.grad after grad_p.sum().backward(), grad_p = q.sum(0)", SUM_TO_GRAPH)


_SUM_TO_KINDS = ("lead", "ones", "scalar", "same", "both")


def _sum_to_case(rng, kind):
    """A random grad (multiples of 1/4: any order of summation is exact) and a shape of this kind."""
    lead = 0 if kind in ("ones", "same") else int(rng.integers(1, 3))      # dims that only grad has
    kept = 0 if kind == "scalar" else int(rng.integers(1, 3 if lead else 4))
    ones = rng.integers(0, 2, size=kept).astype(bool) & (kind in ("ones", "both"))
    if kind in ("ones", "both"):
        ones[rng.integers(kept)] = True                                     # at least one size-1 dim
    sizes = [int(rng.integers(2 if one else 1, 5)) for one in ones]
    out = _random_shape(rng, 1, 5, lead) + tuple(sizes)
    shape = tuple(1 if one else n for one, n in zip(ones, sizes))
    grad = ag.tensor(rng.integers(-20, 21, size=out) / 4, dtype=_dtype(rng))
    return grad, ag.Size(shape) if rng.integers(2) else shape


def sum_to_random(fn, rngs):
    """Your ``sum_to`` on random gradients and shapes of every kind (dims on the left, size-1
    dims, a 0-dim shape, the same shape, both), float32 and float64."""
    cases = [_sum_to_case(rng, _SUM_TO_KINDS[i % len(_SUM_TO_KINDS)]) for i, rng in enumerate(rngs)]
    expected = [exercises.reference("05.sum_to")(grad, shape) for grad, shape in cases]
    with grading.checking("05.sum_to", fn):
        for i, ((grad, shape), want) in enumerate(zip(cases, expected)):
            what = f"sum_to(random grad #{i}: {grad.dtype} of shape {tuple(grad.shape)}, {shape!r})"
            _try(fn, (grad, shape), want, what, _sum_to_rule(shape, grad.shape), grad.dtype)


def _broadcast_pair(rng):
    """A gradient shape and an input shape that broadcasts to it."""
    out = _random_shape(rng, 1, 4, int(rng.integers(0, 4)))
    keep = int(rng.integers(0, len(out) + 1))          # the input's number of dims
    shape = tuple(1 if rng.integers(3) == 0 else n for n in out[len(out) - keep:])
    return out, shape


def _sum_to_engine_case(fn, n, rng):
    out, shape = _broadcast_pair(rng)
    xv, yv, gv = (rng.standard_normal(s) for s in (shape, out, out))
    expand = bool(rng.integers(2))
    label = (f"x.expand({out}) * y" if expand else "x * y") + f", x of shape {shape}, y {out}"
    rule = _sum_to_rule(shape, out)
    expected = exercises.reference("05.sum_to")(ag.tensor(yv * gv), shape)
    with grading.checking("05.sum_to", fn):
        x = ag.tensor(xv, requires_grad=True)
        y = ag.tensor(yv, requires_grad=True)
        (x_grad,) = _run(lambda: ag.autograd.grad((x.expand(out) if expand else x) * y, x,
                                                  grad_outputs=ag.tensor(gv), create_graph=True),
                         f"autograd.grad({label}, x, g, create_graph=True)", rule)
        kept = getattr(x_grad, "requires_grad", False)
        if kept:
            _run(lambda: x_grad.sum().backward(), f"the gradient's sum, backward ({label})", SUM_TO_GRAPH)
    _expect_close(x_grad, expected, f"the gradient of x for {label} (random case #{n})", rule)
    grading.expect_true(kept, what=f"the gradient of x for {label}, taken with create_graph=True, requires grad",
                        seen=repr(kept), rule=SUM_TO_GRAPH)
    _expect_close(y.grad, gv, f"y.grad after differentiating that gradient's sum ({label})", SUM_TO_GRAPH)


def sum_to_in_the_engine_random(fn, rngs):
    """The gradient of ``x`` in ``x * y`` and ``x.expand(...) * y`` for random shapes that
    broadcast, taken with ``create_graph=True``, then differentiated again."""
    for n, rng in enumerate(rngs):
        _sum_to_engine_case(fn, n, rng)
