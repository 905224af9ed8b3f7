"""Visible checks of assignment 05, exercise 6: ``var_backward``, the gradient rule of ``var`` (and
``std``), checked against ``numerical_vjp``.

``autograd_course.checks.ops`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random inputs drawn from the generators the cell passes.  The constants
are the rules the checks name (``grading.rules("05.var_backward")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .op_comparisons import _dtype, _expect_close, _random_shape, _run, _try

__all__ = ["var_backward", "var_backward_in_the_engine", "var_backward_random", "var_backward_in_the_engine_random",
           "numerical_vjp", "VAR_DERIVATIVE", "VAR_CORRECTION", "VAR_GROUPS", "VAR_KEEPDIM", "VAR_GRAPH"]

VAR = grading.rules("05.var_backward")
VAR_DERIVATIVE = VAR("derivative")
VAR_CORRECTION = VAR("correction")
VAR_GROUPS = VAR("groups")
VAR_KEEPDIM = VAR("keepdim")
VAR_GRAPH = VAR("graph")


def _var_of(dim, correction, keepdim, std=False):
    """NumPy's var (or std) over ``dim`` with ``ddof=correction``: the function checked."""
    def f(a):
        return (np.std if std else np.var)(a, axis=dim, ddof=correction, keepdims=keepdim)
    return f


def numerical_vjp(f, x, grad, eps=1e-6):
    """``sum(grad * f(x))`` differentiated by central differences, element by element, in float64:
    a second opinion on a gradient that does not come from any formula."""
    x = np.array(x, dtype=np.float64)
    grad = np.asarray(grad, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = np.sum(grad * (f(up) - f(down))) / (2 * eps)
    return np.round(out, 8)       # exact up to rounding: shown without the noise


def var_backward(fn):
    """Your ``var_backward(grad, self, dim, correction, keepdim)`` on hand-made inputs in float64:
    a vector with correction 0, 1 and 2 (derivative, correction), rows of a ``(2, 3)`` and of a
    square ``(3, 3)`` input with and without ``keepdim`` (groups, keepdim), and two dims of a
    ``(2, 3, 4)`` input.  The expected gradients come from finite differences of NumPy's
    ``var`` (``ddof=correction``), not from a formula."""
    vector = [1.0, 2.0, 4.0, 5.0]
    rows = [[1.0, 2.0, 6.0], [4.0, 4.0, 7.0]]
    square = [[1.0, 2.0, 6.0], [4.0, 4.0, 7.0], [0.0, 3.0, 3.0]]
    cube = np.arange(24.0).reshape(2, 3, 4) ** 2 / 10
    cases = [   # label, self, dim, correction, keepdim, grad, rule
        ("self=[1, 2, 4, 5], dim=(0,), correction=0", vector, (0,), 0, False, 1.0, VAR_DERIVATIVE),
        ("self=[1, 2, 4, 5], dim=(0,), correction=1", vector, (0,), 1, False, 3.0, VAR_CORRECTION),
        ("self=[1, 2, 4, 5], dim=(0,), correction=2", vector, (0,), 2, False, 1.0, VAR_CORRECTION),
        ("self=[[1, 2, 6], [4, 4, 7]], dim=(1,), correction=1, keepdim=True", rows, (1,), 1, True,
         [[1.0], [2.0]], VAR_GROUPS),
        ("self=[[1, 2, 6], [4, 4, 7], [0, 3, 3]], dim=(1,), correction=1, keepdim=False", square, (1,), 1, False,
         [1.0, 2.0, 3.0], VAR_KEEPDIM),
        ("self=[[1, 2, 6], [4, 4, 7]], dim=(1,), correction=0, keepdim=False", rows, (1,), 0, False,
         [1.0, -2.0], VAR_KEEPDIM),
        ("self of shape (2, 3, 4), dim=(0, 2), correction=1, keepdim=False", cube, (0, 2), 1, False,
         [1.0, 2.0, 3.0], VAR_KEEPDIM),
        ("self of shape (2, 3, 4), dim=(0, 2), correction=0, keepdim=True", cube, (0, 2), 0, True,
         [[[1.0], [-1.0], [2.0]]], VAR_GROUPS),
    ]
    expected = [numerical_vjp(_var_of(dim, correction, keepdim), x, grad)
                for _, x, dim, correction, keepdim, grad, _ in cases]
    with grading.checking("05.var_backward", fn):
        for (label, x, dim, correction, keepdim, grad, rule), want in zip(cases, expected):
            args = (ag.tensor(grad, dtype=ag.float64), ag.tensor(x, dtype=ag.float64), dim, correction, keepdim)
            _try(fn, args, want, f"var_backward(grad={np.asarray(grad).tolist()}, {label})", rule,
                 tolerance={"rtol": 1e-6, "atol": 1e-6})


def var_backward_in_the_engine(fn):
    """Your rule inside the engine: backward through ``x.var(1)``, through
    ``y.var((2, 0), correction=0, keepdim=True)`` and through ``x.std(1)`` (whose node calls your
    ``var_backward``), compared with finite differences; then ``gradcheck`` of ``var`` over two
    dims with ``correction=2``, and ``gradgradcheck`` of ``var(1)`` (graph)."""
    xv = np.array([[1.0, 2.0, 6.0], [4.0, 4.0, 7.0]])
    yv = np.arange(24.0).reshape(2, 3, 4) % 7 - 3
    zv = np.random.default_rng(5).standard_normal((2, 3, 4))
    with grading.checking("05.var_backward", fn):
        x = ag.tensor(xv, requires_grad=True)
        _run(lambda: x.var(1).backward(ag.tensor([1.0, 2.0])), "x.var(1).backward([1, 2])", VAR_KEEPDIM)
        y = ag.tensor(yv, requires_grad=True)
        gy = [[[1.0], [2.0], [-1.0]]]
        _run(lambda: y.var((2, 0), correction=0, keepdim=True).backward(ag.tensor(gy)),
             "y.var((2, 0), correction=0, keepdim=True).backward(...)", VAR_GROUPS)
        s = ag.tensor(xv, requires_grad=True)
        _run(lambda: s.std(1).backward(ag.tensor([1.0, 2.0])), "x.std(1).backward([1, 2])", VAR_DERIVATIVE)
        z = ag.tensor(zv, requires_grad=True)
        ok = _run(lambda: ag.autograd.gradcheck(lambda t: t.var((0, 2), correction=2), (z,), raise_exception=False),
                  "gradcheck(t.var((0, 2), correction=2)) on a (2, 3, 4) float64 input", VAR_CORRECTION)
        w = ag.tensor(zv[0], requires_grad=True)
        twice = outcome(ag.autograd.gradgradcheck, lambda t: t.var(1), (w,), raise_exception=False)
    _expect_close(x.grad, numerical_vjp(_var_of((1,), 1, False), xv, [1.0, 2.0]),
                  "x.grad for x.var(1).backward([1, 2])", VAR_KEEPDIM)
    _expect_close(y.grad, numerical_vjp(_var_of((2, 0), 0, True), yv, gy),
                  "y.grad for y.var((2, 0), correction=0, keepdim=True)", VAR_GROUPS)
    _expect_close(s.grad, numerical_vjp(_var_of((1,), 1, False, std=True), xv, [1.0, 2.0]),
                  "x.grad for x.std(1).backward([1, 2]) (StdBackward0 calls your var_backward)", VAR_DERIVATIVE)
    grading.expect_true(ok, what="gradcheck(t.var((0, 2), correction=2))", seen=repr(ok), rule=VAR_CORRECTION)
    grading.expect_true(twice, what="gradgradcheck(t.var(1)) on a (3, 4) float64 input", seen=repr(twice),
                        rule=VAR_GRAPH)


_VAR_KINDS = ("correction", "groups", "keepdim", "dims")


def _var_case(rng, kind):
    """Random (grad, self, dim, correction, keepdim) of this kind, with N > correction."""
    ndim = 1 if kind == "correction" else int(rng.integers(3, 5) if kind == "dims" else rng.integers(2, 4))
    if kind == "dims":
        dim = tuple(sorted(int(d) for d in rng.choice(ndim, size=2, replace=False)))
    else:
        dim = tuple(d for d in range(ndim) if rng.integers(2)) or (int(rng.integers(ndim)),)
    shape = tuple(int(rng.integers(2, 5) if d in dim else rng.integers(1, 5)) for d in range(ndim))
    count = int(np.prod([shape[d] for d in dim]))
    correction = int(rng.integers(0, min(3, count)))
    keepdim = kind == "groups"
    dtype = _dtype(rng)
    x = ag.tensor(rng.integers(-12, 13, size=shape) / 4, dtype=dtype)
    grad = ag.tensor(rng.integers(-8, 9, size=np.zeros(shape).sum(axis=dim, keepdims=keepdim).shape) / 4,
                     dtype=dtype)
    return grad, x, dim, correction, keepdim


def _var_rule(kind):
    return {"correction": VAR_CORRECTION, "groups": VAR_GROUPS}.get(kind, VAR_KEEPDIM)


def var_backward_random(fn, rngs):
    """Your ``var_backward`` on random inputs of every kind (a vector with a random correction,
    groups with keepdim, without it, two dims), in float32 or float64."""
    cases = [(kind, _var_case(rng, kind)) for kind, rng in
             zip([_VAR_KINDS[i % len(_VAR_KINDS)] for i in range(len(rngs))], rngs)]
    expected = [exercises.reference("05.var_backward")(*args) for _, args in cases]
    with grading.checking("05.var_backward", fn):
        for i, ((kind, args), want) in enumerate(zip(cases, expected)):
            grad, x, dim, correction, keepdim = args
            what = (f"var_backward(random grad #{i}: {grad.dtype} of shape {tuple(grad.shape)}, self of shape "
                    f"{tuple(x.shape)}, dim={dim}, correction={correction}, keepdim={keepdim})")
            _try(fn, args, want, what, _var_rule(kind), grad.dtype)


def _var_engine_case(fn, i, rng):
    ndim = int(rng.integers(1, 4))
    shape = _random_shape(rng, 2, 5, ndim)
    dims = tuple(d for d in range(ndim) if rng.integers(2)) or (int(rng.integers(ndim)),)
    count = int(np.prod([shape[d] for d in dims]))
    correction, keepdim = int(rng.integers(0, min(3, count))), bool(rng.integers(2))
    dtype = _dtype(rng)
    xv = rng.standard_normal(shape)
    gv = rng.standard_normal(xv.sum(axis=dims, keepdims=keepdim).shape)
    label = f"x of shape {shape} ({dtype}), dim={dims}, correction={correction}, keepdim={keepdim}"

    def backward(op):
        t = ag.tensor(xv, dtype=dtype, requires_grad=True)
        getattr(t, op)(dims, correction=correction, keepdim=keepdim).backward(ag.tensor(gv, dtype=dtype))
        return t.grad

    with library_version("05"):
        expected = [backward("var"), backward("std")]
    with grading.checking("05.var_backward", fn):
        seen = [_run(lambda: backward(op), f"x.{op}(...).backward(g), {label}", VAR_DERIVATIVE)
                for op in ("var", "std")]
    for op, s, e in zip(("var", "std"), seen, expected):
        _expect_close(s, e, f"x.grad for x.{op}(...), {label} (random case #{i})",
                      VAR_DERIVATIVE if keepdim else VAR_KEEPDIM, dtype)


def var_backward_in_the_engine_random(fn, rngs):
    """Backward through ``x.var(...)`` and ``x.std(...)`` for random shapes, dims, corrections,
    flags and dtypes, compared with the library's rule."""
    for i, rng in enumerate(rngs):
        _var_engine_case(fn, i, rng)
