"""Visible checks of assignment 05, exercise 2: ``validate_outputs``, the gradients a node returns
checked and fitted to its inputs.

``autograd_course.checks.ops`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random inputs drawn from the generators the cell passes.  The constants
are the rules the checks name (``grading.rules("05.validate_outputs")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import error_of, library_version, outcome

from .op_comparisons import _dtype, _expect_close, _expect_equal, _graph_kept, _random_shape, _run

__all__ = ["validate_outputs", "validate_outputs_in_the_engine", "validate_outputs_random",
           "validate_outputs_in_the_engine_random", "validate_case", "validate_rule", "random_broadcast_grads",
           "VALIDATE_LIST", "VALIDATE_SHAPE", "VALIDATE_DTYPE", "VALIDATE_REFUSE", "VALIDATE_KEEP", "VALIDATE_FIT",
           "Widen", "Short"]

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
