"""Visible checks of assignment 05: tensor ops and broadcasting.

Each function without ``_random`` in its name is the visible part of one test cell, run on
the functions you wrote; its docstring says what it tries.  The ``..._random`` functions are
what the hidden parts of the same cells run: the same rules on random inputs drawn from the
generators the cell passes (the seeds are hidden).  Every check names one of the rules its
exercise's task text states (``grading.rules("05.<exercise>")``).  Exercises 4 and 5 fill
several slots; their checks take all your functions and grade them together.

Why one module of this length: it is the visible half of the notebook's test cells and their
random cases, one section per exercise, kept together so that a student reads one file per
notebook.  Exercise 3's checks (``analytic_jacobian``) are in ``jacobians.py``, imported here.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, error_of, library_version, outcome

from .jacobians import (analytic_jacobian, analytic_jacobian_in_gradcheck,  # noqa: F401  (exercise 3)
                        analytic_jacobian_random, analytic_jacobian_in_gradcheck_random)

__all__ = ["reference_rule",
           "sum_to", "sum_to_in_the_engine", "sum_to_random", "sum_to_in_the_engine_random",
           "validate_outputs", "validate_outputs_in_the_engine", "validate_outputs_random",
           "validate_outputs_in_the_engine_random", "validate_case", "validate_rule", "random_broadcast_grads",
           "analytic_jacobian", "analytic_jacobian_in_gradcheck", "analytic_jacobian_random",
           "analytic_jacobian_in_gradcheck_random",
           "sum_and_index_slots", "sum_and_index", "sum_and_index_in_the_engine", "sum_and_index_random",
           "sum_and_index_in_the_engine_random",
           "derive_slots", "derive_rules", "derive_rules_in_the_engine", "derive_rules_second_derivative",
           "derive_rules_random", "derive_rules_in_the_engine_random", "derive_rules_second_derivative_random",
           "var_backward", "var_backward_in_the_engine", "var_backward_random", "var_backward_in_the_engine_random",
           "numerical_vjp",
           "amax_backward", "amax_backward_in_the_engine", "amax_backward_random",
           "amax_backward_in_the_engine_random",
           "SUM_TO_LEAD", "SUM_TO_ONES", "SUM_TO_SAME", "SUM_TO_GRAPH", "SUM_TO_BOTH",
           "VALIDATE_LIST", "VALIDATE_SHAPE", "VALIDATE_DTYPE", "VALIDATE_REFUSE", "VALIDATE_KEEP", "VALIDATE_FIT",
           "SUM_COPY", "SUM_DIMS", "INDEX_ZEROS", "INDEX_ADD", "INDEX_TUPLE",
           "DERIVE_EXP", "DERIVE_SIGMOID", "DERIVE_LOG_SOFTMAX", "DERIVE_GRAPH",
           "VAR_DERIVATIVE", "VAR_CORRECTION", "VAR_GROUPS", "VAR_KEEPDIM", "VAR_GRAPH",
           "AMAX_PICK", "AMAX_SHARE", "AMAX_GROUPS", "AMAX_KEEPDIM", "AMAX_AMIN"]


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


# ------------------------------------------------------------ 05.sum_to

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


def _graph_kept(fn_grad):
    """``fn_grad()`` gives a gradient taken with create_graph=True of ``(p * q).sum()`` by ``p``;
    whether it requires grad, and ``q.grad`` after differentiating its sum (None if it cannot)."""
    p, q, grad_p = fn_grad()
    if not getattr(grad_p, "requires_grad", False):
        return False, None
    grad_p.sum().backward()
    return True, q.grad


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


# ------------------------------------------------------------ 05.validate_outputs

VALIDATE = grading.rules("05.validate_outputs")
VALIDATE_LIST = VALIDATE("list")
VALIDATE_SHAPE = VALIDATE("shape")
VALIDATE_DTYPE = VALIDATE("dtype")
VALIDATE_REFUSE = VALIDATE("refuse")
VALIDATE_KEEP = VALIDATE("keep")
VALIDATE_FIT = VALIDATE("shape", "dtype")


def _shown_gradient(g):
    """A gradient as validate_case compares it: None, (shape, dtype, values), or its type."""
    if g is None:
        return None
    if not isinstance(g, ag.Tensor):
        return f"a {type(g).__name__}, not a tensor"
    return tuple(g.shape), str(g.dtype), np.round(g._data.astype(float), 10).tolist()


def validate_case(fn, node, grads):
    """What ``fn(node, grads)`` gives, comparable: per gradient None or (shape, dtype, values),
    or the error as a text."""
    out = outcome(fn, node, list(grads))
    if isinstance(out, str):
        return out
    if not isinstance(out, (list, tuple)):
        return f"a {type(out).__name__}, not a list"
    return [_shown_gradient(g) for g in out]


def validate_rule(seen, expected, node, grads):
    """The rule that ``seen`` (as ``validate_case`` gives it for ``node`` and ``grads``) breaks,
    ``expected`` being right."""
    if isinstance(expected, str):
        return VALIDATE_REFUSE
    if isinstance(seen, str):                        # an error where none was due
        nothing_to_fit = any(g is None or edge[0] is None for g, edge in zip(grads, node.next_functions))
        return VALIDATE_KEEP if nothing_to_fit else VALIDATE_SHAPE
    if not isinstance(seen, list) or len(seen) != len(expected):
        return VALIDATE_LIST
    for s, e, g, edge in zip(seen, expected, grads, node.next_functions):
        if s == e:
            continue
        if g is None or edge[0] is None or not isinstance(s, tuple) or not isinstance(e, tuple):
            return VALIDATE_KEEP
        return VALIDATE_SHAPE if s[0] != e[0] else VALIDATE_DTYPE if s[1] != e[1] else VALIDATE_KEEP
    return VALIDATE_KEEP


def _validate_cases(fn, cases):
    """``fn`` (your validate_outputs) on (label, node, grads) cases, compared with the library's."""
    reference = exercises.reference("05.validate_outputs")
    with library_version("05"):                     # the library's sum_to too, whatever you plugged
        expected = [validate_case(reference, node, grads) for _, node, grads in cases]
    with grading.checking("05.validate_outputs", fn):
        seen = [validate_case(fn, node, grads) for _, node, grads in cases]
    for (label, node, grads), s, e in zip(cases, seen, expected):
        shapes = [None if t is None else f"{tuple(t.shape)} {t.dtype}" for t in grads]
        _expect_equal(s, e, f"validate_outputs({label}, gradients {shapes}) as (shape, dtype, values) "
                            "per gradient", validate_rule(s, e, node, grads))


def _node_of(build):
    with library_version("05"):
        return build().grad_fn


def validate_outputs(fn):
    """Your ``validate_outputs`` called directly on the nodes of ``x * y`` (``x`` of shape
    ``(3,)``, ``y`` of shape ``(2, 3)``), ``x * c`` (``c`` constant) and ``s * y`` (``s``
    0-dim), with gradients that fit, that broadcast, of another dtype, None, and of a shape
    that does not broadcast."""
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = ag.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]], requires_grad=True)
    s = ag.tensor(2.0, requires_grad=True)
    g = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    both, constant, scalar = (_node_of(lambda: x * y), _node_of(lambda: x * y.detach()), _node_of(lambda: s * y))
    _validate_cases(fn, [
        ("the node of x * y", both, [g, g]), ("the node of x * y", both, [g.double(), g.double()]),
        ("the node of x * y", both, [None, g]), ("the node of x * y", both, [g.sum(0), g]),
        ("the node of x * c, c constant", constant, [g, ag.ones(5)]),
        ("the node of s * y, s 0-dim", scalar, [g, g]), ("the node of x * y", both, [g.unsqueeze(0), g]),
        ("the node of x * y", both, [ag.ones(2), g]), ("the node of x * y", both, [g, ag.ones(3, 3)])])


class Widen(ag.autograd.Function):
    """y = 3x; backward returns the gradient with a leading size-1 dim, in float64."""
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, grad):
        return (grad * 3).double().unsqueeze(0)


class Short(ag.autograd.Function):
    """y = x + 1; backward drops the last element of the gradient."""
    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def backward(ctx, grad):
        return grad[:-1]


def validate_outputs_in_the_engine(fn):
    """Backward with your ``validate_outputs`` after every node: broadcasts (``x * y``, a
    ``(2, 1)`` column, a 0-dim scale), a custom ``Function`` whose backward returns a
    ``(1, 3)`` float64 gradient for a float32 ``(3,)`` input, one whose backward returns a
    gradient of the wrong shape, and a gradient taken with ``create_graph=True``
    differentiated again."""
    def with_graph():
        p = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        q = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        (grad_p,) = ag.autograd.grad((p * q).sum(), p, create_graph=True)
        return p, q, grad_p

    with grading.checking("05.validate_outputs", fn):
        y = ag.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = ag.tensor([[1.0], [2.0]], requires_grad=True)
        s = ag.tensor(2.0, requires_grad=True)
        _run(lambda: (x * y * c * s).sum().backward(), "(x * y * c * s).sum().backward()", VALIDATE_SHAPE)
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        _run(lambda: Widen.apply(w).sum().backward(), "Widen.apply(w).sum().backward()", VALIDATE_FIT)
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        refused = error_of(lambda: Short.apply(v).sum().backward())
        kept, q_grad = _run(lambda: _graph_kept(with_graph), "autograd.grad((p * q).sum(), p, create_graph=True), "
                                                             "then its sum's backward", VALIDATE_SHAPE)
    _expect_close(x.grad, [180.0, 240.0, 300.0], "x.grad for (x * y * c * s).sum(), x (3,)", VALIDATE_SHAPE)
    _expect_close(c.grad, [[280.0], [640.0]], "c.grad for (x * y * c * s).sum(), c (2, 1)", VALIDATE_SHAPE)
    _expect_close(s.grad, 780.0, "s.grad for (x * y * c * s).sum(), s ()", VALIDATE_SHAPE)
    grading.expect_equal(None if w.grad is None else (tuple(w.grad.shape), str(w.grad.dtype)),
                         ((3,), "autograd_lib.float32"),
                         what="(shape, dtype) of w.grad for Widen.apply(w).sum().backward(), w float32 (3,)",
                         rule=VALIDATE_FIT)
    _expect_close(w.grad, [3.0, 3.0, 3.0], "w.grad for Widen.apply(w).sum().backward()", VALIDATE_SHAPE)
    grading.expect_equal(refused, "RuntimeError: Function ShortBackward returned an invalid gradient at index 0 - "
                                  "got [2] but expected shape compatible with [3]",
                         what="the error of Short.apply(v).sum().backward(), whose backward returns 2 of 3 "
                              "elements", rule=VALIDATE_REFUSE)
    grading.expect_true(kept, what="the gradient of p, taken with create_graph=True, requires grad",
                        seen=repr(kept), rule=VALIDATE_SHAPE)
    _expect_close(q_grad, np.ones((2, 3)), "q.grad after grad_p.sum().backward(), grad_p = q.sum(0)", VALIDATE_SHAPE)


def _validate_random_case(rng):
    out = _random_shape(rng, 1, 4, int(rng.integers(1, 4)))
    shapes = [tuple(1 if rng.integers(3) == 0 else n for n in out[len(out) - int(rng.integers(0, len(out) + 1)):])
              for _ in "ab"]
    dtypes = [_dtype(rng) for _ in "ab"]
    needs = [bool(rng.integers(4)) for _ in "ab"]
    if not any(needs):
        needs[0] = True
    a, b = (ag.tensor(rng.standard_normal(s), dtype=d, requires_grad=n) for s, d, n in zip(shapes, dtypes, needs))
    node = _node_of(lambda: a * b)
    full = tuple(np.broadcast_shapes(*shapes))
    kinds = [int(rng.integers(6)) for _ in "ab"]     # None, float64, float32, a fitting one, too many dims
    grads = [None if k == 0 else ag.tensor(rng.standard_normal(full), dtype=ag.float64 if k == 1 else ag.float32)
             if k < 4 else ag.tensor(rng.standard_normal(s), dtype=d) if k == 4
             else ag.tensor(rng.standard_normal(full + (2,))) for k, s, d in zip(kinds, shapes, dtypes)]
    label = (f"a * b, a {shapes[0]} {dtypes[0]}{'' if needs[0] else ' constant'}, "
             f"b {shapes[1]} {dtypes[1]}{'' if needs[1] else ' constant'}")
    return label, node, grads


def validate_outputs_random(fn, rngs):
    """Your ``validate_outputs`` on the nodes of ``a * b`` for random shapes, dtypes and
    flags, with random gradients of every kind (None, broadcast, another dtype, fitting, not
    broadcasting)."""
    _validate_cases(fn, [_validate_random_case(rng) for rng in rngs])


def random_broadcast_grads(seed):
    """Backward through random broadcasting ops on leaves of random shapes and dtypes (the
    same ones for the same seed): each leaf's gradient as (shape, dtype, values), or the error."""
    rng = np.random.default_rng(seed)
    out = _random_shape(rng, 1, 4, int(rng.integers(1, 4)))
    leaves = []
    for _ in range(3):
        keep = int(rng.integers(0, len(out) + 1))
        shape = tuple(1 if rng.integers(3) == 0 else n for n in out[len(out) - keep:])
        leaves.append(ag.tensor(rng.uniform(0.5, 2.0, size=shape), dtype=_dtype(rng), requires_grad=True))
    a, b, c = leaves
    y = [lambda: a * b + c, lambda: (a + b) / (c + 1), lambda: a * b * c,
         lambda: (a - c).expand(out) * b][int(rng.integers(4))]
    error = error_of(lambda: (y() * ag.tensor(rng.standard_normal(out))).sum().backward())
    if error:
        return error
    return [None if t.grad is None else (tuple(t.grad.shape), str(t.grad.dtype),
                                         np.round(t.grad._data.astype(float), 6).tolist()) for t in leaves]


def validate_outputs_in_the_engine_random(fn, rngs):
    """Backward through random broadcasting graphs (``a * b + c``, ``(a + b) / (c + 1)``, ...)
    of leaves of random shapes and dtypes: each leaf's gradient, its shape and dtype."""
    seeds = [int(rng.integers(2**32)) for rng in rngs]
    with grading.checking("05.validate_outputs", fn):
        seen = [random_broadcast_grads(seed) for seed in seeds]
    with library_version("05"):
        expected = [random_broadcast_grads(seed) for seed in seeds]
    for i, (s, e) in enumerate(zip(seen, expected)):
        grading.expect_equal(s, e, what=f"the leaves' gradients (shape, dtype, values) after backward through "
                                        f"random broadcasting graph #{i}", rule=VALIDATE_FIT)


# ------------------------------------------------------------ 05.sum_and_index

SUM_AND_INDEX = grading.rules("05.sum_and_index")
SUM_COPY = SUM_AND_INDEX("sum-copy")
SUM_DIMS = SUM_AND_INDEX("sum-dims")
INDEX_ZEROS = SUM_AND_INDEX("index-zeros")
INDEX_ADD = SUM_AND_INDEX("index-add")
INDEX_TUPLE = SUM_AND_INDEX("index-tuple")


def sum_and_index_slots(sum_backward, index_backward):
    """The two slots that exercise 4 fills, for ``grading.checking``."""
    return {"05.sum_backward": sum_backward, "05.index_backward": index_backward}


def _mask_label(indices):
    return "(" + ", ".join("slice(None)" if isinstance(i, slice) else f"a boolean mask of shape {i.shape}"
                           if i.dtype == bool else str(i.tolist()) for i in indices) + ",)"


def _index_same_dtype(seen, grad, label):
    _expect_equal(str(getattr(seen, "dtype", type(seen).__name__)), str(grad.dtype),
                  f"the dtype of index_backward's result for {label} ({grad.dtype})", INDEX_ZEROS)


def sum_and_index(sum_backward, index_backward):
    """Your two rules called directly.  ``sum_backward``: sums over one dim and over two dims
    of a ``(2, 3, 4)`` input, with and without ``keepdim``, and a square ``(3, 3)`` input
    (sum-copy, sum-dims).  ``index_backward``: distinct and repeated integer indices, a slice
    with an array, a boolean mask, pairs of arrays, a float64 gradient, and ``grad`` left
    unchanged (index-zeros, index-add, index-tuple)."""
    bcast = np.broadcast_to
    sum_cases = [
        ("grad=[[10], [20]], self_shape=(2, 3), dim=(1,), keepdim=True",
         ag.tensor([[10.0], [20.0]]), ag.Size([2, 3]), (1,), True, [[10.0] * 3, [20.0] * 3], SUM_COPY),
        ("grad=[10, 20], self_shape=(2, 3), dim=(1,), keepdim=False",
         ag.tensor([10.0, 20.0]), ag.Size([2, 3]), (1,), False, [[10.0] * 3, [20.0] * 3], SUM_DIMS),
        ("grad=[1, 2, 3], self_shape=(2, 3), dim=(0,), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3]), (0,), False, [[1.0, 2.0, 3.0]] * 2, SUM_COPY),
        ("grad=[10, 20, 30], self_shape=(3, 3), dim=(1,), keepdim=False",
         ag.tensor([10.0, 20.0, 30.0]), ag.Size([3, 3]), (1,), False, [[10.0] * 3, [20.0] * 3, [30.0] * 3],
         SUM_DIMS),
        ("grad=[1, 2, 3], self_shape=(2, 3, 4), dim=(0, 2), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3, 4]), (0, 2), False,
         bcast(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)), SUM_DIMS),
        ("grad=[1, 2, 3, 4], self_shape=(2, 3, 4), dim=(0, 1), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0, 4.0]), ag.Size([2, 3, 4]), (0, 1), False,
         bcast(np.array([1.0, 2.0, 3.0, 4.0]), (2, 3, 4)), SUM_DIMS),
        ("grad of shape (1, 3, 1), self_shape=(2, 3, 4), dim=(0, 2), keepdim=True",
         ag.tensor([[[1.0], [2.0], [3.0]]]), ag.Size([2, 3, 4]), (0, 2), True,
         bcast(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)), SUM_COPY),
    ]
    mask = np.array([[True, False, True], [False, False, True]])
    index_cases = [
        ("grad=[1, 10], self_shape=(4,), indices=([3, 1],)", ag.tensor([1.0, 10.0]), ag.Size([4]),
         (np.array([3, 1]),), [0.0, 10.0, 0.0, 1.0], INDEX_ZEROS),
        ("grad=[1, 10, 100], self_shape=(4,), indices=([0, 2, 0],)", ag.tensor([1.0, 10.0, 100.0]), ag.Size([4]),
         (np.array([0, 2, 0]),), [101.0, 0.0, 10.0, 0.0], INDEX_ADD),
        ("grad=[[1, 2, 3], [4, 5, 6]], self_shape=(2, 4), indices=(slice(None), [0, 3, 0])",
         ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), ag.Size([2, 4]), (slice(None), np.array([0, 3, 0])),
         [[4.0, 0.0, 0.0, 2.0], [10.0, 0.0, 0.0, 5.0]], INDEX_TUPLE),
        ("grad=[1, 2, 3], self_shape=(2, 3), indices=(a boolean mask,)", ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3]),
         (mask,), [[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], INDEX_TUPLE),
        ("grad=[5, 7], self_shape=(2, 3), indices=([1, 1], [2, 2])", ag.tensor([5.0, 7.0]), ag.Size([2, 3]),
         (np.array([1, 1]), np.array([2, 2])), [[0.0, 0.0, 0.0], [0.0, 0.0, 12.0]], INDEX_ADD),
    ]
    with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
        for label, grad, self_shape, dim, keepdim, expected, rule in sum_cases:
            _try(sum_backward, (grad, self_shape, dim, keepdim), expected, f"sum_backward({label})", rule)
        for label, grad, self_shape, indices, expected, rule in index_cases:
            _try(index_backward, (grad, self_shape, indices), expected, f"index_backward({label})", rule)
        grad = ag.tensor([1.0, 2.0], dtype=ag.float64)
        seen = call(index_backward, grad, ag.Size([3]), (np.array([2, 0]),),
                    what="index_backward(a float64 grad, (3,), ([2, 0],))", rule=INDEX_ZEROS)
    _index_same_dtype(seen, grad, "a float64 grad")
    _expect_close(grad, [1.0, 2.0], "grad after index_backward(grad, ...)", INDEX_ZEROS)


def sum_and_index_in_the_engine(sum_backward, index_backward):
    """Your rules inside the engine: backward through ``x.sum(1)``, ``y.sum((2, 0),
    keepdim=True)`` and a batch normalized by its row sums; through ``v[[0, 2, 0]]``, an
    embedding lookup ``table[tokens]`` with a repeated token, and a mask ``x[x > 2]``."""
    with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
        x = ag.arange(6.0).reshape(2, 3).requires_grad_()
        _run(lambda: x.sum(1).backward(ag.tensor([10.0, 20.0])), "x.sum(1).backward([10, 20])", SUM_COPY)
        y = ag.arange(24.0).reshape(2, 3, 4).requires_grad_()
        _run(lambda: y.sum((2, 0), keepdim=True).backward(ag.tensor([[[1.0], [2.0], [3.0]]])),
             "y.sum((2, 0), keepdim=True).backward(...)", SUM_COPY)
        n = ag.tensor([[1.0, 2.0, 1.0], [3.0, 3.0, 2.0]], requires_grad=True)
        first = ag.tensor([1.0, 0.0, 0.0])          # the first column (a select's backward is not yours)
        _run(lambda: (n / n.sum(-1, keepdim=True) * first).sum().backward(),
             "(n / n.sum(-1, keepdim=True) * [1, 0, 0]).sum().backward()", SUM_COPY)
        v = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        _run(lambda: v[[0, 2, 0]].backward(ag.tensor([1.0, 10.0, 100.0])), "v[[0, 2, 0]].backward([1, 10, 100])",
             INDEX_ADD)
        table = ag.arange(8.0).reshape(4, 2).requires_grad_()
        _run(lambda: table[ag.tensor([1, 3, 1, 1])].sum().backward(), "table[[1, 3, 1, 1]].sum().backward()",
             INDEX_ADD)
        m = ag.arange(6.0).reshape(2, 3).requires_grad_()
        _run(lambda: (m[m > 2] * ag.tensor([1.0, 2.0, 3.0])).sum().backward(),
             "(m[m > 2] * [1, 2, 3]).sum().backward()", INDEX_TUPLE)
    _expect_close(x.grad, [[10.0] * 3, [20.0] * 3], "x.grad for x.sum(1).backward([10, 20])", SUM_DIMS)
    _expect_close(y.grad, np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)),
                  "y.grad for y.sum((2, 0), keepdim=True).backward(...)", SUM_COPY)
    nv = np.array([[1.0, 2.0, 1.0], [3.0, 3.0, 2.0]])
    row_sums = nv.sum(1, keepdims=True)
    _expect_close(n.grad, np.eye(3)[0] / row_sums - nv[:, :1] / row_sums ** 2,
                  "n.grad for the first column of n / n.sum(-1, keepdim=True)", SUM_COPY)
    _expect_close(v.grad, [101.0, 0.0, 10.0, 0.0], "v.grad for v[[0, 2, 0]].backward([1, 10, 100])", INDEX_ADD)
    _expect_close(table.grad, [[0.0, 0.0], [3.0, 3.0], [0.0, 0.0], [1.0, 1.0]],
                  "table.grad for table[[1, 3, 1, 1]].sum()", INDEX_ADD)
    _expect_close(m.grad, [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]], "m.grad for (m[m > 2] * [1, 2, 3]).sum()", INDEX_TUPLE)


_SUM_KINDS = ("one-dim", "dims", "keepdim")
_INDEX_KINDS = ("distinct", "repeated", "pairs", "slice", "mask")


def _sum_case(rng, kind):
    """Random arguments of sum_backward (multiples of 1/4), the summed dims of size 2 to 4."""
    ndim = int(rng.integers(3, 5) if kind == "dims" else rng.integers(2, 4) if kind == "one-dim"
               else rng.integers(1, 4))
    if kind == "one-dim":
        dim = (int(rng.integers(ndim)),)
    else:
        dim = tuple(d for d in range(ndim) if rng.integers(2))
        least = 2 if kind == "dims" else 1
        if len(dim) < least:
            dim = tuple(sorted(int(d) for d in rng.choice(ndim, size=least, replace=False)))
    self_shape = tuple(int(rng.integers(2, 5) if d in dim else rng.integers(1, 5)) for d in range(ndim))
    keepdim = kind == "keepdim"
    grad_shape = np.zeros(self_shape).sum(axis=dim, keepdims=keepdim).shape
    grad = ag.tensor(rng.integers(-20, 21, size=grad_shape) / 4, dtype=_dtype(rng))
    return grad, ag.Size(self_shape), dim, keepdim


def _index_case(rng, kind):
    """Random (grad, self_shape, indices) of this kind of index."""
    shape = _random_shape(rng, 2, 5, int(rng.integers(2 if kind in ("pairs", "slice") else 1, 4)))
    if kind == "distinct":
        indices = (rng.permutation(shape[0])[:int(rng.integers(1, shape[0] + 1))],)
    elif kind == "repeated":
        picks = rng.integers(shape[0], size=int(rng.integers(2, 6)))
        indices = (np.concatenate([picks, picks[:1]]),)
    elif kind == "pairs":
        count = int(rng.integers(1, 4))
        rows, cols = rng.integers(shape[0], size=count), rng.integers(shape[1], size=count)
        indices = (np.concatenate([rows, rows]), np.concatenate([cols, cols]))         # every pair twice
    elif kind == "slice":
        indices = (slice(None), rng.integers(shape[1], size=int(rng.integers(2, 5))))
    else:
        mask = rng.integers(0, 2, size=shape).astype(bool)
        mask.flat[rng.integers(mask.size)] = True
        indices = (mask,)
    grad = ag.tensor(rng.integers(-20, 21, size=np.zeros(shape)[indices].shape) / 4, dtype=_dtype(rng))
    return grad, ag.Size(shape), indices


def _index_rule(indices):
    """The rule a case of these indices is about."""
    if any(isinstance(i, slice) or i.dtype == bool for i in indices) or len(indices) > 1:
        return INDEX_TUPLE
    flat = indices[0].tolist()
    return INDEX_ADD if len(set(flat)) < len(flat) else INDEX_ZEROS


def sum_and_index_random(sum_backward, index_backward, rngs):
    """Both rules called directly on random arguments: sums over one dim, several dims, with
    keepdim; indices distinct, repeated, pairs, a slice with an array, a mask; float32 and
    float64."""
    cases = []
    for i, rng in enumerate(rngs):
        s = _sum_case(rng, _SUM_KINDS[i % len(_SUM_KINDS)])
        x = _index_case(rng, _INDEX_KINDS[i % len(_INDEX_KINDS)])
        cases.append((s, reference_rule("05.sum_backward", *s), x, reference_rule("05.index_backward", *x)))
    with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
        for i, (s, s_expected, x, x_expected) in enumerate(cases):
            grad, self_shape, dim, keepdim = s
            what = (f"sum_backward(random grad #{i}: {grad.dtype} of shape {tuple(grad.shape)}, "
                    f"self_shape={tuple(self_shape)}, dim={dim}, keepdim={keepdim})")
            _try(sum_backward, s, s_expected, what, SUM_COPY if keepdim else SUM_DIMS, grad.dtype)
            grad, self_shape, indices = x
            label = f"random grad #{i}: {grad.dtype} of shape {tuple(grad.shape)}"
            what = f"index_backward({label}, self_shape={tuple(self_shape)}, indices={_mask_label(indices)})"
            before = grad.numpy().copy()
            seen = _call(index_backward, x, what, _index_rule(indices))
            _expect_close(seen, x_expected, what, _index_rule(indices), grad.dtype)
            _index_same_dtype(seen, grad, label)
            _expect_close(grad, before, f"{label} after index_backward(grad, ...)", INDEX_ZEROS)


def _random_key(rng, shape):
    """A key for x[...] of this shape: integer arrays with repeats, a mask, or a slice and an array."""
    kind = int(rng.integers(3))
    if kind == 0 or (kind == 2 and len(shape) == 1):
        return (rng.integers(0, shape[0], size=int(rng.integers(1, 6))),)
    if kind == 1:
        mask = rng.integers(0, 2, size=shape).astype(bool)
        mask.flat[rng.integers(mask.size)] = True
        return (mask,)
    return (slice(None), rng.integers(0, shape[1], size=int(rng.integers(1, 6))))


def _sum_engine_args(rng, i):
    """Random x, dims, keepdim for x.sum(dims, keepdim); every fourth case keeps a dim before a
    summed one, without keepdim."""
    if i % 4 == 3:
        shape = _random_shape(rng, 2, 5, int(rng.integers(2, 4)))
        return shape, tuple(d for d in range(1, len(shape)) if rng.integers(2)) or (1,), False
    shape = _random_shape(rng, 1, 4, int(rng.integers(1, 4)))
    dims = tuple(d for d in range(len(shape)) if rng.integers(2)) or tuple(range(len(shape)))
    return shape, dims, bool(rng.integers(2))


def sum_and_index_in_the_engine_random(sum_backward, index_backward, rngs):
    """Backward through ``x.sum(dims, keepdim)`` and ``x[key]`` for random shapes, dims, flags,
    keys (integer arrays with repeats, masks, a slice and an array) and dtypes."""
    for i, rng in enumerate(rngs):
        shape, dims, keepdim = _sum_engine_args(rng, i)
        dtype = _dtype(rng)
        xv = rng.standard_normal(shape)
        gv = ag.tensor(rng.standard_normal(xv.sum(axis=dims, keepdims=keepdim).shape), dtype=dtype)
        s_expected = reference_rule("05.sum_backward", gv, ag.Size(shape), dims, keepdim)
        key_shape = _random_shape(rng, 1, 4, int(rng.integers(1, 4)))
        key = _random_key(rng, key_shape)
        kv = rng.standard_normal(key_shape)
        kg = ag.tensor(rng.standard_normal(kv[key].shape), dtype=dtype)
        k_expected = reference_rule("05.index_backward", kg, ag.Size(key_shape), key)
        with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
            x = ag.tensor(xv, dtype=dtype, requires_grad=True)
            s_label = f"x.sum({dims}, keepdim={keepdim}), x of shape {shape} ({dtype})"
            _run(lambda: x.sum(dims, keepdim=keepdim).backward(gv), f"{s_label}.backward(g)",
                 SUM_COPY if keepdim else SUM_DIMS)
            k = ag.tensor(kv, dtype=dtype, requires_grad=True)
            k_label = f"k[{_mask_label(key)}], k of shape {key_shape} ({dtype})"
            _run(lambda: k[key].backward(kg), f"{k_label}.backward(g)", _index_rule(key))
        _expect_close(x.grad, s_expected, f"x.grad for {s_label} (random case #{i})",
                      SUM_COPY if keepdim else SUM_DIMS, dtype)
        _expect_close(k.grad, k_expected, f"k.grad for {k_label} (random case #{i})", _index_rule(key), dtype)


# ------------------------------------------------------------ 05.derive_rules

DERIVE = grading.rules("05.derive_rules")
DERIVE_EXP = DERIVE("exp")
DERIVE_SIGMOID = DERIVE("sigmoid")
DERIVE_LOG_SOFTMAX = DERIVE("log-softmax")
DERIVE_GRAPH = DERIVE("graph")


def derive_slots(exp_backward, sigmoid_backward, log_softmax_backward):
    """The three slots that exercise 5 fills, for ``grading.checking``."""
    return {"05.exp_backward": exp_backward, "05.sigmoid_backward": sigmoid_backward,
            "05.log_softmax_backward": log_softmax_backward}


def _saved_by_exp():
    """Which of _saved_self and _saved_result the node of x.exp() has."""
    y = ag.tensor([0.0, 1.0], requires_grad=True).exp()
    return [name for name in ("_saved_self", "_saved_result") if hasattr(y.grad_fn, name)]


def _softmax(values, dim):
    e = np.exp(values - values.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def derive_rules(exp_backward, sigmoid_backward, log_softmax_backward):
    """Your three rules called directly: ``exp_backward(grad=[1, 2, 3], result=[1, 2, 4])``,
    what ``x.exp()``'s node saves (exp); ``sigmoid_backward`` at outputs 0.5, 0.8 and 0.1
    (sigmoid); ``log_softmax_backward`` on the log-probabilities of a vector and of batches
    along dim 1 and dim 0 (log-softmax).  The expected values are worked out in NumPy."""
    out1 = np.log(_softmax(np.array([2.0, 1.0, 0.1]), 0))
    out2 = np.log(_softmax(np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]]), 1))
    out3 = np.log(_softmax(np.array([[1.0, 0.0, -1.0], [0.2, 0.3, 0.1], [3.0, -2.0, 0.0]]), 1))
    out4 = np.log(_softmax(np.array([[1.0, 0.0, -1.0], [0.2, 0.3, 0.1]]), 0))
    g1, g2 = np.array([1.0, 0.0, 0.0]), np.array([2.0, -1.0, 0.5])
    g3 = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]])
    g4 = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0], [0.5, 0.5, 0.5]])
    g5 = np.array([[1.0, 0.0, 2.0], [3.0, -1.0, 0.0]])
    log_softmax_cases = [("grad_output=[1, 0, 0], a vector, dim=0", g1, out1, 0),
                         ("grad_output=[2, -1, 0.5], a vector, dim=0", g2, out1, 0),
                         ("a (2, 3) batch, dim=1", g3, out2, 1), ("a (3, 3) batch, dim=1", g4, out3, 1),
                         ("a (2, 3) batch, dim=0", g5, out4, 0)]
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        _try(exp_backward, (ag.tensor([1.0, 2.0, 3.0]), ag.tensor([1.0, 2.0, 4.0])), [1.0, 4.0, 12.0],
             "exp_backward(grad=[1, 2, 3], result=[1, 2, 4])", DERIVE_EXP)
        saved = _saved_by_exp()
        _try(sigmoid_backward, (ag.tensor([1.0, 1.0, 2.0]), ag.tensor([0.5, 0.8, 0.1])), [0.25, 0.16, 0.18],
             "sigmoid_backward(grad_output=[1, 1, 2], output=[0.5, 0.8, 0.1])", DERIVE_SIGMOID)
        for label, grad_output, output, dim in log_softmax_cases:
            p = np.exp(output)
            expected = grad_output - p * grad_output.sum(axis=dim, keepdims=True)
            _try(log_softmax_backward, (ag.tensor(grad_output), ag.tensor(output), dim), expected,
                 f"log_softmax_backward({label})", DERIVE_LOG_SOFTMAX)
    _expect_equal(saved, ["_saved_result"], "the values the node of x.exp() saves", DERIVE_EXP)


def derive_rules_in_the_engine(exp_backward, sigmoid_backward, log_softmax_backward):
    """Your rules inside the engine: backward through ``x.exp()`` and ``(z * 2).exp()``,
    ``sigmoid(x)``, cross-entropy (softmax minus one-hot, over the batch size) and
    ``log_softmax`` of huge logits ``[1000, 0, -1000]`` (finite); then ``gradcheck`` of
    ``sigmoid`` and of ``log_softmax(t, 1)`` in float64."""
    xs = np.array([0.0, 2.0, -3.0])
    logits = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        e = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
        _run(lambda: e.exp().sum().backward(), "x.exp().sum().backward()", DERIVE_EXP)
        z = ag.tensor([0.0, 0.5], requires_grad=True)
        _run(lambda: (z * 2).exp().backward(ag.tensor([1.0, 3.0])), "(z * 2).exp().backward([1, 3])", DERIVE_EXP)
        s = ag.tensor(xs, requires_grad=True)
        _run(lambda: ag.sigmoid(s).backward(ag.tensor([1.0, 2.0, 3.0])), "sigmoid(x).backward([1, 2, 3])",
             DERIVE_SIGMOID)
        c = ag.tensor(logits, requires_grad=True)
        _run(lambda: ag.nn.functional.cross_entropy(c, ag.tensor([0, 1])).backward(),
             "cross_entropy(x, [0, 1]).backward()", DERIVE_LOG_SOFTMAX)
        huge = ag.tensor([1000.0, 0.0, -1000.0], requires_grad=True)
        _run(lambda: ag.log_softmax(huge, 0)[1].backward(), "log_softmax([1000, 0, -1000], 0)[1].backward()",
             DERIVE_LOG_SOFTMAX)
        x64 = ag.tensor([-1.0, 0.5, 3.0], dtype=ag.float64, requires_grad=True)
        sigmoid_ok = _run(lambda: ag.autograd.gradcheck(ag.sigmoid, (x64,), raise_exception=False),
                          "gradcheck(sigmoid, x) in float64", DERIVE_SIGMOID)
        t = ag.tensor([[0.3, -1.2, 2.0, 0.0], [1.5, 0.5, -0.5, 0.1]], dtype=ag.float64, requires_grad=True)
        log_softmax_ok = _run(lambda: ag.autograd.gradcheck(lambda u: ag.log_softmax(u, 1), (t,),
                                                            raise_exception=False),
                              "gradcheck(log_softmax(t, 1)) on a (2, 4) float64 batch", DERIVE_LOG_SOFTMAX)
    _expect_close(e.grad, np.exp([0.0, 1.0, 2.0]), "x.grad for x.exp().sum()", DERIVE_EXP, ag.float32)
    _expect_close(z.grad, [2.0, 6.0 * np.exp(1.0)], "z.grad for (z * 2).exp().backward([1, 3])", DERIVE_EXP,
                  ag.float32)
    sv = 1 / (1 + np.exp(-xs))
    _expect_close(s.grad, sv * (1 - sv) * [1.0, 2.0, 3.0], "x.grad for sigmoid(x).backward([1, 2, 3])",
                  DERIVE_SIGMOID, ag.float32)
    grading.expect_true(sigmoid_ok, what="gradcheck(sigmoid, x) in float64", seen=repr(sigmoid_ok),
                        rule=DERIVE_SIGMOID)
    _expect_close(c.grad, (_softmax(logits, 1) - np.eye(3)[[0, 1]]) / 2, "x.grad for cross_entropy(x, [0, 1])",
                  DERIVE_LOG_SOFTMAX, ag.float32)
    _expect_close(huge.grad, [-1.0, 1.0, 0.0], "huge.grad for log_softmax([1000, 0, -1000], 0)[1]",
                  DERIVE_LOG_SOFTMAX)
    grading.expect_true(log_softmax_ok, what="gradcheck(log_softmax(t, 1)) on a (2, 4) float64 batch",
                        seen=repr(log_softmax_ok), rule=DERIVE_LOG_SOFTMAX)


def _twice(op, xv, gv, wv):
    """The gradient of op(x) for the upstream gradient g, taken with create_graph=True, whether
    it requires grad, and the gradient of (gradient * w).sum() by x: values, or None."""
    x = ag.tensor(xv, requires_grad=True)
    (g,) = ag.autograd.grad(op(x), x, grad_outputs=ag.tensor(gv), create_graph=True)
    values = g.detach().numpy().copy()
    if not g.requires_grad:
        return values, False, None
    (h,) = ag.autograd.grad((g * ag.tensor(wv)).sum(), x)
    return values, True, h.detach().numpy().copy()


_OPS = {"exp": (lambda t: t.exp(), "x.exp()", DERIVE_EXP),
        "sigmoid": (ag.sigmoid, "sigmoid(x)", DERIVE_SIGMOID),
        "log_softmax": (None, "log_softmax(x, {dim})", DERIVE_LOG_SOFTMAX)}


def _second_derivatives(slots, cases):
    """For each (name, dim, x, g, w): _twice with the library's rules, then with ``slots``."""
    def op_of(name, dim):
        return (lambda t: ag.log_softmax(t, dim)) if name == "log_softmax" else _OPS[name][0]

    with library_version("05"):
        expected = [_twice(op_of(name, dim), xv, gv, wv) for name, dim, xv, gv, wv in cases]
    seen = []
    with grading.checking(slots):
        for name, dim, xv, gv, wv in cases:
            label = _OPS[name][1].format(dim=dim)
            seen.append(_run(lambda: _twice(op_of(name, dim), xv, gv, wv),
                             f"autograd.grad({label}, x, g, create_graph=True), then its gradient", DERIVE_GRAPH))
    for (name, dim, xv, gv, wv), (g, twice, h), (g_expected, _, h_expected) in zip(cases, seen, expected):
        label = f"{_OPS[name][1].format(dim=dim)} at x = {np.round(xv, 3).tolist()}"
        _expect_close(g, g_expected, f"the gradient of {label}", _OPS[name][2])
        grading.expect_true(twice, what=f"the gradient of {label}, taken with create_graph=True, requires grad",
                            seen=repr(twice), rule=DERIVE_GRAPH)
        _expect_close(h, h_expected, f"the second derivative of {label}", DERIVE_GRAPH)


def derive_rules_second_derivative(exp_backward, sigmoid_backward, log_softmax_backward):
    """Your rules, differentiated again: the gradient of ``x.exp()``, ``sigmoid(x)`` and
    ``log_softmax(x, 1)`` taken with ``create_graph=True`` must require grad, and its own
    gradient must be the library's second derivative (graph)."""
    cases = [("exp", None, np.array([0.0, 1.0]), np.array([1.0, 2.0]), np.array([1.0, -1.0])),
             ("sigmoid", None, np.array([-1.0, 0.0, 2.0]), np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])),
             ("log_softmax", 1, np.array([[0.5, -1.0, 2.0], [0.0, 1.0, 0.0]]), np.array([[1.0, 0.0, 0.0],
              [0.0, 2.0, -1.0]]), np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 1.0]]))]
    _second_derivatives(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward), cases)


def _derive_case(rng, name):
    """(name, dim, x, g, w) at a random point of a random shape (log_softmax: 1 to 3 dims)."""
    if name == "log_softmax":
        shape = _random_shape(rng, 2, 5, int(rng.integers(1, 4)))
        dim = int(rng.integers(len(shape)))
    else:
        shape, dim = _random_shape(rng, 1, 4, int(rng.integers(0, 3))), None
    return (name, dim, rng.uniform(-3, 3, size=shape), rng.uniform(-2, 2, size=shape),
            rng.uniform(-2, 2, size=shape))


def derive_rules_random(exp_backward, sigmoid_backward, log_softmax_backward, rngs):
    """The three rules called directly at random points: random shapes, dims, dtypes and
    upstream gradients; and what ``x.exp()``'s node saves."""
    cases = []
    for rng in rngs:
        dtype = _dtype(rng)
        for name in ("exp", "sigmoid", "log_softmax"):
            _, dim, xv, gv, _ = _derive_case(rng, name)
            x, g = ag.tensor(xv, dtype=dtype), ag.tensor(gv, dtype=dtype)
            output = x.exp() if name == "exp" else ag.sigmoid(x) if name == "sigmoid" else ag.log_softmax(x, dim)
            args = (g, output) if dim is None else (g, output, dim)
            reference = (lambda grad, result: reference_rule("05.exp_backward", grad, result)) if name == "exp" \
                else exercises.reference(f"05.{name}_backward")
            cases.append((name, args, reference(*args)))
    functions = {"exp": exp_backward, "sigmoid": sigmoid_backward, "log_softmax": log_softmax_backward}
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        for i, (name, args, expected) in enumerate(cases):
            dim = "" if len(args) == 2 else f", dim={args[2]}"
            what = (f"{name}_backward(random case #{i}: {args[0].dtype}, shape {tuple(args[0].shape)}{dim}, "
                    f"output={np.round(args[1].numpy(), 3).tolist()})")
            _try(functions[name], args, expected, what, _OPS[name][2], args[0].dtype)
        saved = _saved_by_exp()
    _expect_equal(saved, ["_saved_result"], "the values the node of x.exp() saves", DERIVE_EXP)


def _engine_gradient(name, dim, xv, gv, factor, dtype):
    """x.grad after op(x * factor).backward(g), x of dtype; and gradcheck of op at x (float64,
    at most 4 elements)."""
    op = (lambda t: ag.log_softmax(t, dim)) if name == "log_softmax" else _OPS[name][0]
    x = ag.tensor(xv, dtype=dtype, requires_grad=True)
    op(x * factor).backward(ag.tensor(gv, dtype=dtype))
    point = ag.tensor(xv.reshape(-1)[:4] if name != "log_softmax" else xv, dtype=ag.float64, requires_grad=True)
    checked = ag.autograd.gradcheck(op, (point,), raise_exception=False)
    return x.grad, checked


def derive_rules_in_the_engine_random(exp_backward, sigmoid_backward, log_softmax_backward, rngs):
    """Backward through ``op(x * factor)`` for the three ops at random points, shapes, dims,
    dtypes and chain factors, compared with the library's rules; and ``gradcheck`` of each op."""
    cases = []
    for rng in rngs:
        for name in ("exp", "sigmoid", "log_softmax"):
            _, dim, xv, gv, _ = _derive_case(rng, name)
            cases.append((name, dim, xv, gv, float(rng.choice([-1, 1]) * rng.uniform(0.5, 2)), _dtype(rng)))
    with library_version("05"):
        expected = [_engine_gradient(*case)[0] for case in cases]
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        seen = []
        for name, dim, xv, gv, factor, dtype in cases:
            label = f"{_OPS[name][1].format(dim=dim)} for x * {factor:.4f}, x of shape {xv.shape} ({dtype})"
            seen.append(_run(lambda: _engine_gradient(name, dim, xv, gv, factor, dtype), f"{label}.backward(g)",
                             _OPS[name][2]))
    for i, ((name, dim, xv, gv, factor, dtype), (grad, checked), want) in enumerate(zip(cases, seen, expected)):
        label = f"{_OPS[name][1].format(dim=dim)} for x * {factor:.4f}, x of shape {xv.shape} ({dtype})"
        _expect_close(grad, want, f"x.grad for {label} (random case #{i})", _OPS[name][2], dtype)
        _expect_true(checked, f"gradcheck of {_OPS[name][1].format(dim=dim)} at a random point (case #{i})",
                     _OPS[name][2])


def derive_rules_second_derivative_random(exp_backward, sigmoid_backward, log_softmax_backward, rngs):
    """Second derivatives of the three ops at random points, shapes and dims."""
    cases = [_derive_case(rng, name) for rng in rngs for name in ("exp", "sigmoid", "log_softmax")]
    _second_derivatives(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward), cases)


# ------------------------------------------------------------ 05.var_backward

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


# ------------------------------------------------------------ 05.amax_backward

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
