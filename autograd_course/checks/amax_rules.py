"""Visible checks of assignment 05, exercise 7: ``amax_backward``, the gradient rule of ``amax`` and
``amin``, ties shared.

``autograd_course.checks.ops`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random inputs drawn from the generators the cell passes.  The constants
are the rules the checks name (``grading.rules("05.amax_backward")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading

from .op_comparisons import _dtype, _expect_close, _random_shape, _run, _try

__all__ = ["amax_backward", "amax_backward_in_the_engine", "amax_backward_random", "amax_backward_in_the_engine_random",
           "AMAX_PICK", "AMAX_SHARE", "AMAX_GROUPS", "AMAX_KEEPDIM", "AMAX_AMIN"]

AMAX = grading.rules("05.amax_backward")
AMAX_PICK = AMAX("pick")
AMAX_SHARE = AMAX("share")
AMAX_GROUPS = AMAX("groups")
AMAX_KEEPDIM = AMAX("keepdim")
AMAX_AMIN = AMAX("amin")


def amax_backward(fn):
    """Your ``amax_backward(grad, self, result, dims, keepdim)`` on hand-made inputs: a single
    maximum (pick), a maximum held three times (share), rows of a ``(2, 3)`` and of a square
    ``(3, 3)`` input with and without ``keepdim`` (groups, keepdim), two dims of a ``(2, 3, 2)``
    input, and a minimum (amin)."""
    rows = [[3.0, 1.0, 3.0], [2.0, 5.0, 4.0]]
    square = [[3.0, 1.0, 3.0], [2.0, 5.0, 4.0], [0.0, 0.0, 0.0]]
    cube = [[[1.0, 4.0], [2.0, 2.0], [0.0, 1.0]], [[4.0, 0.0], [2.0, 1.0], [1.0, 1.0]]]
    cases = [   # label, grad, self, result, dims, keepdim, expected, rule
        ("grad=2, self=[1, 5, 3], result=5, dims=(0,)", 2.0, [1.0, 5.0, 3.0], 5.0, (0,), False,
         [0.0, 2.0, 0.0], AMAX_PICK),
        ("grad=6, self=[3, 1, 3, 3], result=3, dims=(0,)", 6.0, [3.0, 1.0, 3.0, 3.0], 3.0, (0,), False,
         [2.0, 0.0, 2.0, 2.0], AMAX_SHARE),
        ("grad=[[10], [20]], self=[[3, 1, 3], [2, 5, 4]], result=[[3], [5]], dims=(1,), keepdim=True",
         [[10.0], [20.0]], rows, [[3.0], [5.0]], (1,), True, [[5.0, 0.0, 5.0], [0.0, 20.0, 0.0]], AMAX_GROUPS),
        ("grad=[10, 20, 30], self=[[3, 1, 3], [2, 5, 4], [0, 0, 0]], result=[3, 5, 0], dims=(1,), keepdim=False",
         [10.0, 20.0, 30.0], square, [3.0, 5.0, 0.0], (1,), False,
         [[5.0, 0.0, 5.0], [0.0, 20.0, 0.0], [10.0, 10.0, 10.0]], AMAX_KEEPDIM),
        ("grad=[10, 20], self=[[3, 1, 3], [2, 5, 4]], result=[3, 5], dims=(1,), keepdim=False",
         [10.0, 20.0], rows, [3.0, 5.0], (1,), False, [[5.0, 0.0, 5.0], [0.0, 20.0, 0.0]], AMAX_KEEPDIM),
        ("grad=[6, 3, 9], self of shape (2, 3, 2), result=[4, 2, 1], dims=(0, 2), keepdim=False",
         [6.0, 3.0, 9.0], cube, [4.0, 2.0, 1.0], (0, 2), False,
         [[[0.0, 3.0], [1.0, 1.0], [0.0, 3.0]], [[3.0, 0.0], [1.0, 0.0], [3.0, 3.0]]], AMAX_KEEPDIM),
        ("grad=4, self=[3, 1, 1], result=1 (the minimum: amin), dims=(0,)", 4.0, [3.0, 1.0, 1.0], 1.0, (0,), False,
         [0.0, 2.0, 2.0], AMAX_AMIN),
    ]
    with grading.checking("05.amax_backward", fn):
        for label, grad, x, result, dims, keepdim, expected, rule in cases:
            _try(fn, (ag.tensor(grad), ag.tensor(x), ag.tensor(result), dims, keepdim), expected,
                 f"amax_backward({label})", rule)


def amax_backward_in_the_engine(fn):
    """Your function inside the engine: backward through ``x.amax(1)`` with a tie, ``y.amax()``
    over everything with four ties, ``y.amax(0, keepdim=True)`` and ``y.amin(1)``, then
    ``gradcheck`` of ``amax`` and ``amin`` at distinct values (at a tie the function has no
    derivative, so gradcheck cannot judge it)."""
    zv = np.random.default_rng(6).standard_normal((2, 3, 4))
    with grading.checking("05.amax_backward", fn):
        x = ag.tensor([[1.0, 3.0, 3.0], [2.0, 5.0, 4.0]], requires_grad=True)
        _run(lambda: x.amax(1).backward(ag.tensor([10.0, 20.0])), "x.amax(1).backward([10, 20])", AMAX_KEEPDIM)
        y = ag.tensor([[3.0, 1.0, 3.0], [3.0, 0.0, 3.0]], requires_grad=True)
        _run(lambda: y.amax().backward(), "y.amax().backward()", AMAX_SHARE)
        y_all = y.grad
        y.grad = None
        _run(lambda: y.amax(0, keepdim=True).backward(ag.tensor([[1.0, 2.0, 3.0]])),
             "y.amax(0, keepdim=True).backward([[1, 2, 3]])", AMAX_GROUPS)
        y_keep = y.grad
        y.grad = None
        _run(lambda: y.amin(1).backward(ag.tensor([1.0, 2.0])), "y.amin(1).backward([1, 2])", AMAX_AMIN)
        z = ag.tensor(zv, requires_grad=True)
        ok = _run(lambda: ag.autograd.gradcheck(lambda t: t.amax((0, 2)), (z,), raise_exception=False)
                  and ag.autograd.gradcheck(lambda t: t.amin(1, keepdim=True), (z,), raise_exception=False),
                  "gradcheck of t.amax((0, 2)) and t.amin(1, keepdim=True) at distinct values", AMAX_PICK)
    _expect_close(x.grad, [[0.0, 5.0, 5.0], [0.0, 20.0, 0.0]], "x.grad for x.amax(1).backward([10, 20])", AMAX_SHARE)
    _expect_close(y_all, [[0.25, 0.0, 0.25], [0.25, 0.0, 0.25]], "y.grad for y.amax().backward()", AMAX_SHARE)
    _expect_close(y_keep, [[0.5, 2.0, 1.5], [0.5, 0.0, 1.5]], "y.grad for y.amax(0, keepdim=True).backward([[1, 2, 3]])",
                  AMAX_GROUPS)
    _expect_close(y.grad, [[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]], "y.grad for y.amin(1).backward([1, 2])", AMAX_AMIN)
    grading.expect_true(ok, what="gradcheck of amax and amin at distinct values", seen=repr(ok), rule=AMAX_PICK)


_AMAX_KINDS = ("share", "groups", "keepdim", "amin")


def _amax_case(rng, kind):
    """Random (grad, self, result, dims, keepdim) of this kind; small integers, so most groups
    hold their extreme more than once."""
    ndim = int(rng.integers(1, 3) if kind == "share" else rng.integers(2, 4))
    dims = tuple(d for d in range(ndim) if rng.integers(2)) or (int(rng.integers(ndim)),)
    if kind == "groups" and len(dims) == ndim:
        dims = dims[1:]                                         # several groups
    shape = _random_shape(rng, 2, 5, ndim)
    keepdim = kind == "groups" or (kind != "keepdim" and bool(rng.integers(2)))
    dtype = _dtype(rng)
    x = ag.tensor(rng.integers(-1, 2, size=shape), dtype=dtype)
    result = x.amin(dims, keepdim=keepdim) if kind == "amin" else x.amax(dims, keepdim=keepdim)
    grad = ag.tensor(rng.integers(-8, 9, size=tuple(result.shape)) / 4, dtype=dtype)
    return grad, x, result, dims, keepdim


def _amax_rule(kind):
    return {"share": AMAX_SHARE, "groups": AMAX_GROUPS, "keepdim": AMAX_KEEPDIM}.get(kind, AMAX_AMIN)


def amax_backward_random(fn, rngs):
    """Your ``amax_backward`` on random small integers of every kind (ties in one group, in
    several groups, without keepdim, minima), in float32 or float64."""
    cases = [(kind, _amax_case(rng, kind)) for kind, rng in
             zip([_AMAX_KINDS[i % len(_AMAX_KINDS)] for i in range(len(rngs))], rngs)]
    expected = [exercises.reference("05.amax_backward")(*args) for _, args in cases]
    with grading.checking("05.amax_backward", fn):
        for i, ((kind, args), want) in enumerate(zip(cases, expected)):
            grad, x, result, dims, keepdim = args
            what = (f"amax_backward(random case #{i}: self={x.tolist()} ({x.dtype}), result={result.tolist()}, "
                    f"dims={dims}, keepdim={keepdim})")
            _try(fn, args, want, what, _amax_rule(kind), grad.dtype)


def _amax_engine_case(fn, i, rng):
    ndim = int(rng.integers(1, 4))
    shape = _random_shape(rng, 1, 5, ndim)
    dims = tuple(d for d in range(ndim) if rng.integers(2)) or (int(rng.integers(ndim)),)
    keepdim, op = bool(rng.integers(2)), ("amax", "amin")[int(rng.integers(2))]
    dtype = _dtype(rng)
    xv = np.round(rng.standard_normal(shape))                # rounded: ties on purpose
    x0 = ag.tensor(xv, dtype=dtype)
    result = getattr(x0, op)(dims, keepdim=keepdim)
    gv = ag.tensor(rng.standard_normal(tuple(result.shape)), dtype=dtype)
    expected = exercises.reference("05.amax_backward")(gv, x0, result, dims, keepdim)
    label = f"x.{op}({dims}, keepdim={keepdim}) for x = {xv.tolist()} ({dtype})"
    rule = _amax_rule("amin" if op == "amin" else "share" if keepdim else "keepdim")
    with grading.checking("05.amax_backward", fn):
        x = ag.tensor(xv, dtype=dtype, requires_grad=True)
        _run(lambda: getattr(x, op)(dims, keepdim=keepdim).backward(gv), f"{label}.backward(g)", rule)
    _expect_close(x.grad, expected, f"x.grad for {label} (random case #{i})", rule, dtype)


def amax_backward_in_the_engine_random(fn, rngs):
    """Backward through ``x.amax(dims)`` and ``x.amin(dims)`` for random shapes, dims, flags and
    dtypes, with ties (rounded values)."""
    for i, rng in enumerate(rngs):
        _amax_engine_case(fn, i, rng)
