"""Visible checks of assignment 05: tensor ops and broadcasting.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  The constants are the rules the checks name
(the hidden tests name them too), and :func:`reference_rule` is how the hidden
tests compute an expected gradient.

Why one module of this length: it is the visible half of the notebook's 18 test cells,
one function per cell, kept together so that a student reads one file per notebook.
Exercise 10's checks (``analytic_jacobian``) are in ``jacobians.py``, imported here.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, error_of, library_version

from .jacobians import analytic_jacobian, analytic_jacobian_in_gradcheck  # noqa: F401  (exercise 10)

__all__ = ["reference_rule",
           "sum_to", "sum_to_in_the_engine", "validate_outputs", "validate_outputs_in_the_engine",
           "validate_case", "validate_rule", "random_broadcast_grads",
           "VALIDATE_LIST", "VALIDATE_SHAPE", "VALIDATE_DTYPE", "VALIDATE_REFUSE", "VALIDATE_KEEP",
           "sum_backward", "sum_backward_in_the_engine",
           "exp_backward", "exp_backward_second_derivative",
           "sigmoid_backward", "sigmoid_backward_second_derivative",
           "index_backward", "index_backward_in_the_engine",
           "log_softmax_backward", "log_softmax_backward_in_the_engine",
           "var_backward", "var_backward_in_the_engine", "amax_backward", "amax_backward_in_the_engine",
           "numerical_vjp", "analytic_jacobian", "analytic_jacobian_in_gradcheck",
           "SUM_TO_LEAD", "SUM_TO_ONES", "SUM_TO_SAME", "SUM_TO_ZERO", "SUM_TO_BOTH", "SUM_TO_ENGINE",
           "SUM_BACKWARD_KEEP", "SUM_BACKWARD_UNSQUEEZE", "SUM_BACKWARD_ORDER", "SUM_BACKWARD_ENGINE",
           "EXP_RULE", "SIGMOID_RULE",
           "INDEX_ZERO", "INDEX_ADD", "INDEX_TUPLE", "INDEX_DTYPE",
           "LOG_SOFTMAX_ONE", "LOG_SOFTMAX_ROWS",
           "VAR_SQUARE", "VAR_CORRECTION", "VAR_MEAN", "VAR_UNSQUEEZE", "VAR_ORDER", "VAR_ENGINE",
           "AMAX_PICK", "AMAX_SHARE", "AMAX_GROUP", "AMAX_KEEPDIM", "AMAX_AMIN", "AMAX_ENGINE"]


def reference_rule(exercise_id, grad, *values):
    """The library's own gradient rule of a one-input node, applied to grad and the saved values."""
    (formula, _), = exercises.reference(exercise_id).values()
    return formula(grad, *values)


# ------------------------------------------------------------ 05.sum_to

SUM_TO_LEAD = "sum over the leading dims that broadcasting added"
SUM_TO_ONES = "sum (keepdim) over the dims where shape has size 1 but grad does not"
SUM_TO_SAME = "when grad already has the shape, return grad unchanged (careful: sum(()) sums over everything)"
SUM_TO_ZERO = "a 0-dim input was broadcast to every element: its gradient is the sum of all of grad"
SUM_TO_BOTH = "sum the leading dims away and the size-1 dims with keepdim, then reshape to shape"
SUM_TO_ENGINE = "the engine sums every broadcast gradient with sum_to"


def sum_to(fn):
    """Your ``sum_to`` on a ``(2, 3)`` gradient summed to ``(3,)``, ``(1, 3)``, ``(2, 1)``,
    ``()`` and ``(2, 3)``, and on a ``(2, 3, 4)`` gradient summed to ``Size([3, 1])`` and
    ``(1, 1, 4)``.  Rules: sum the leading dims away, sum the size-1 dims with keepdim,
    a 0-dim input gets the sum of everything, and a grad that already has the shape is
    returned unchanged."""
    g = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    cases = [
        ((3,), [5.0, 7.0, 9.0], SUM_TO_LEAD),
        ((1, 3), [[5.0, 7.0, 9.0]], SUM_TO_ONES),
        ((2, 1), [[6.0], [15.0]], SUM_TO_ONES),
        ((), 21.0, SUM_TO_ZERO),
        ((2, 3), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], SUM_TO_SAME),
    ]
    with grading.checking("05.sum_to", fn):
        for shape, expected, rule in cases:
            seen = call(fn, g, shape, what=f"sum_to(grad of shape (2, 3), {shape})", rule=rule)
            grading.expect_close(seen, expected, what=f"sum_to(grad of shape (2, 3), {shape})", rule=rule)
        g3 = ag.arange(24.0).reshape(2, 3, 4)
        seen = call(fn, g3, ag.Size([3, 1]), what="sum_to(grad of shape (2, 3, 4), Size([3, 1]))", rule=SUM_TO_BOTH)
        grading.expect_close(seen, np.arange(24.0).reshape(2, 3, 4).sum(axis=(0, 2)).reshape(3, 1),
                             what="sum_to(grad of shape (2, 3, 4), Size([3, 1]))", rule=SUM_TO_BOTH)
        seen = call(fn, g3, (1, 1, 4), what="sum_to(grad of shape (2, 3, 4), (1, 1, 4))", rule=SUM_TO_ONES)
        grading.expect_close(seen, np.arange(24.0).reshape(2, 3, 4).sum(axis=(0, 1), keepdims=True),
                             what="sum_to(grad of shape (2, 3, 4), (1, 1, 4))", rule=SUM_TO_ONES)


def sum_to_in_the_engine(fn):
    """Your ``sum_to`` inside the engine: backward through ``x * y`` with ``x`` of shape
    ``(3,)``, ``(2, 1)`` and ``()`` against a ``(2, 3)`` ``y``, and through ``expand``.  The
    gradients must be the sums of the broadcast copies, and a gradient computed with
    ``create_graph=True`` must itself be differentiable (build it from tensor ops)."""
    with grading.checking("05.sum_to", fn):
        y = ag.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = ag.tensor([[1.0], [2.0]], requires_grad=True)
        s = ag.tensor(2.0, requires_grad=True)
        e = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        call(lambda: (x * y).sum().backward(), what="(x * y).sum().backward(), x (3,), y (2, 3)", rule=SUM_TO_ENGINE)
        call(lambda: (c * y).sum().backward(), what="(c * y).sum().backward(), c (2, 1)", rule=SUM_TO_ENGINE)
        call(lambda: (s * y).sum().backward(), what="(s * y).sum().backward(), s ()", rule=SUM_TO_ENGINE)
        call(lambda: (e.expand(2, 3) * y).sum().backward(), what="(e.expand(2, 3) * y).sum().backward()",
             rule="expand's backward is sum_to")
        # The gradient of p is q.sum(0), a function of q: with create_graph=True it can be differentiated.
        p = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        q = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        (grad_p,) = call(lambda: ag.autograd.grad((p * q).sum(), p, create_graph=True),
                         what="autograd.grad((p * q).sum(), p, create_graph=True)", rule=SUM_TO_ENGINE)
        differentiable = grad_p.requires_grad
        if differentiable:
            grad_p.sum().backward()
    grading.expect_close(x.grad, [50.0, 70.0, 90.0], what="x.grad for (x * y).sum(), x of shape (3,)",
                         rule="sum over the leading dims that broadcasting added")
    grading.expect_close(c.grad, [[60.0], [150.0]], what="c.grad for (c * y).sum(), c of shape (2, 1)",
                         rule="sum (keepdim) over the dims where shape has size 1 but grad does not")
    grading.expect_close(s.grad, 210.0, what="s.grad for (s * y).sum(), s of shape ()",
                         rule="a 0-dim input was broadcast to every element: its gradient is the sum of all of grad")
    grading.expect_close(e.grad, [50.0, 70.0, 90.0], what="e.grad for (e.expand(2, 3) * y).sum()",
                         rule="expand's backward is sum_to: the gradients of all copies add up")
    grading.expect_true(differentiable, what="the gradient of p (computed with create_graph=True) requires grad",
                        seen=repr(differentiable),
                        rule="sum_to must be built from tensor ops (sum, reshape) so that the gradient stays "
                             "differentiable")
    grading.expect_close(q.grad, np.ones((2, 3)), what="q.grad after grad_p.sum().backward(), grad_p = q.sum(0)",
                         rule="sum_to must be built from tensor ops (sum, reshape) so that the gradient stays "
                              "differentiable")


# ------------------------------------------------------------ 05.validate_outputs

VALIDATE_LIST = "validate_outputs returns a list with one gradient per input, in input order"
VALIDATE_SHAPE = "a gradient whose shape broadcasts to its input's shape is summed to that shape (sum_to)"
VALIDATE_DTYPE = "a gradient of another dtype is cast to its input's dtype"
VALIDATE_REFUSE = ("a gradient whose shape does not broadcast to its input's shape is refused: RuntimeError "
                   "naming the node, the index and both shapes")
VALIDATE_KEEP = ("None, a gradient that already fits, and the gradient of an input without an edge "
                 "pass unchanged")


def validate_case(fn, node, grads):
    """What ``fn(node, grads)`` gives, comparable: per gradient None or (shape, dtype, values),
    or the error as a text."""
    try:
        out = fn(node, list(grads))
    except Exception as error:                       # report a crash as what was seen
        return f"{type(error).__name__}: {error}"
    if not isinstance(out, (list, tuple)):
        return f"a {type(out).__name__}, not a list"
    return [None if g is None else (tuple(g.shape), str(g.dtype), np.round(g._data.astype(float), 10).tolist())
            for g in out]


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
    for s, e in zip(seen, expected):
        if s is None or e is None or s == e:
            continue
        return VALIDATE_SHAPE if s[0] != e[0] else VALIDATE_DTYPE if s[1] != e[1] else VALIDATE_KEEP
    return VALIDATE_KEEP


def random_broadcast_grads(seed):
    """Backward through random broadcasting ops on leaves of random shapes and dtypes (the
    same ones for the same seed): each leaf's gradient as (shape, dtype, values), or the error."""
    rng = np.random.default_rng(seed)
    out = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(1, 4))))
    leaves = []
    for _ in range(3):
        keep = int(rng.integers(0, len(out) + 1))
        shape = tuple(1 if rng.integers(3) == 0 else n for n in out[len(out) - keep:])
        dtype = ag.float32 if rng.integers(2) else ag.float64
        leaves.append(ag.tensor(rng.uniform(0.5, 2.0, size=shape), dtype=dtype, requires_grad=True))
    a, b, c = leaves
    y = [lambda: a * b + c, lambda: (a + b) / (c + 1), lambda: a * b * c,
         lambda: (a - c).expand(out) * b][int(rng.integers(4))]
    try:
        (y() * ag.tensor(rng.standard_normal(out))).sum().backward()
    except Exception as error:                       # report a crash as what was seen
        return f"{type(error).__name__}: {error}"
    return [None if t.grad is None else (tuple(t.grad.shape), str(t.grad.dtype),
                                         np.round(t.grad._data.astype(float), 6).tolist()) for t in leaves]


def _node_of(build):
    with library_version("05"):
        return build().grad_fn


def validate_outputs(fn):
    """Your ``validate_outputs`` called directly on the nodes of ``x * y`` (``x`` of shape
    ``(3,)``, ``y`` of shape ``(2, 3)``), ``x * c`` (``c`` constant) and ``s * y`` (``s``
    0-dim), with gradients that fit, that broadcast, of another dtype, None, and of a shape
    that does not broadcast."""
    reference = exercises.reference("05.validate_outputs")
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = ag.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]], requires_grad=True)
    s = ag.tensor(2.0, requires_grad=True)
    g = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    both, constant, scalar = (_node_of(lambda: x * y), _node_of(lambda: x * y.detach()), _node_of(lambda: s * y))
    cases = [("the node of x * y", both, [g, g]), ("the node of x * y", both, [g.double(), g.double()]),
             ("the node of x * y", both, [None, g]), ("the node of x * y", both, [g.sum(0), g]),
             ("the node of x * c, c constant", constant, [g, ag.ones(5)]),
             ("the node of s * y, s 0-dim", scalar, [g, g]), ("the node of x * y", both, [g.unsqueeze(0), g]),
             ("the node of x * y", both, [ag.ones(2), g]), ("the node of x * y", both, [g, ag.ones(3, 3)])]
    with library_version("05"):                     # the library's sum_to too, whatever you plugged
        expected = [validate_case(reference, node, grads) for _, node, grads in cases]
    with grading.checking("05.validate_outputs", fn):
        seen = [validate_case(fn, node, grads) for _, node, grads in cases]
    for (label, node, grads), s_, e in zip(cases, seen, expected):
        shapes = [None if t is None else f"{tuple(t.shape)} {t.dtype}" for t in grads]
        grading.expect_equal(s_, e, what=f"validate_outputs({label}, gradients {shapes}) as "
                                         "(shape, dtype, values) per gradient",
                             rule=validate_rule(s_, e, node, grads))


def validate_outputs_in_the_engine(fn):
    """Backward with your ``validate_outputs`` after every node: broadcasts (``x * y``, a
    ``(2, 1)`` column, a 0-dim scale), a custom ``Function`` whose backward returns a
    ``(1, 3)`` float64 gradient for a float32 ``(3,)`` input, one whose backward returns a
    gradient of the wrong shape, and a gradient differentiated again."""

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

    with grading.checking("05.validate_outputs", fn):
        y = ag.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = ag.tensor([[1.0], [2.0]], requires_grad=True)
        s = ag.tensor(2.0, requires_grad=True)
        call(lambda: (x * y * c * s).sum().backward(), what="(x * y * c * s).sum().backward()", rule=VALIDATE_SHAPE)
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        call(lambda: Widen.apply(w).sum().backward(), what="Widen.apply(w).sum().backward()", rule=VALIDATE_SHAPE)
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        refused = error_of(lambda: Short.apply(v).sum().backward())
        p = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        q = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        (grad_p,) = call(lambda: ag.autograd.grad((p * q).sum(), p, create_graph=True),
                         what="autograd.grad((p * q).sum(), p, create_graph=True)", rule=VALIDATE_SHAPE)
        call(lambda: grad_p.sum().backward(), what="grad_p.sum().backward() for grad_p = q.sum(0)",
             rule="the summed gradient keeps its graph: sum_to builds it from tensor ops")
    grading.expect_close(x.grad, [180.0, 240.0, 300.0], what="x.grad for (x * y * c * s).sum(), x (3,)",
                         rule=VALIDATE_SHAPE)
    grading.expect_close(c.grad, [[280.0], [640.0]], what="c.grad for (x * y * c * s).sum(), c (2, 1)",
                         rule=VALIDATE_SHAPE)
    grading.expect_close(s.grad, 780.0, what="s.grad for (x * y * c * s).sum(), s ()", rule=VALIDATE_SHAPE)
    grading.expect_equal((tuple(w.grad.shape), str(w.grad.dtype)), ((3,), "autograd_lib.float32"),
                         what="(shape, dtype) of w.grad for Widen.apply(w).sum().backward(), w float32 (3,)",
                         rule=VALIDATE_DTYPE)
    grading.expect_close(w.grad, [3.0, 3.0, 3.0], what="w.grad for Widen.apply(w).sum().backward()",
                         rule=VALIDATE_SHAPE)
    grading.expect_equal(refused, "RuntimeError: Function ShortBackward returned an invalid gradient at index 0 - "
                                  "got [2] but expected shape compatible with [3]",
                         what="the error of Short.apply(v).sum().backward(), whose backward returns 2 of 3 "
                              "elements", rule=VALIDATE_REFUSE)
    grading.expect_close(q.grad, np.ones((2, 3)), what="q.grad after grad_p.sum().backward(), grad_p = q.sum(0)",
                         rule="the summed gradient keeps its graph: sum_to builds it from tensor ops")


# ------------------------------------------------------------ 05.sum_backward

SUM_BACKWARD_KEEP = ("with keepdim=True the summed dims are still there (size 1): each element gets the gradient "
                     "of its sum, unchanged, so expand grad to self_shape")
SUM_BACKWARD_UNSQUEEZE = ("with keepdim=False, put each summed dim back as a size-1 dim (grad.unsqueeze(d)) before "
                          "expanding: expand lines shapes up from the right")
SUM_BACKWARD_ORDER = "unsqueeze the summed dims in ascending order, so that each lands at its original position"
SUM_BACKWARD_ENGINE = "SumBackward1 runs your rule: the gradient of x.sum(dim) is copied along dim"


def sum_backward(fn):
    """Your ``sum_backward`` on hand-made gradients: sums over one dim and over two dims of
    a ``(2, 3, 4)`` input, with and without ``keepdim``, and a square ``(3, 3)`` input where
    a missing ``unsqueeze`` gives no error, only wrong values.  Rules: without keepdim,
    unsqueeze the summed dims back in ascending order, then expand to ``self_shape``."""
    cases = [
        ("grad=[[10], [20]], self_shape=(2, 3), dim=(1,), keepdim=True",
         ag.tensor([[10.0], [20.0]]), ag.Size([2, 3]), (1,), True, [[10.0] * 3, [20.0] * 3], SUM_BACKWARD_KEEP),
        ("grad=[10, 20], self_shape=(2, 3), dim=(1,), keepdim=False",
         ag.tensor([10.0, 20.0]), ag.Size([2, 3]), (1,), False, [[10.0] * 3, [20.0] * 3], SUM_BACKWARD_UNSQUEEZE),
        ("grad=[1, 2, 3], self_shape=(2, 3), dim=(0,), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3]), (0,), False, [[1.0, 2.0, 3.0]] * 2, SUM_BACKWARD_UNSQUEEZE),
        ("grad=[10, 20, 30], self_shape=(3, 3), dim=(1,), keepdim=False",
         ag.tensor([10.0, 20.0, 30.0]), ag.Size([3, 3]), (1,), False, [[10.0] * 3, [20.0] * 3, [30.0] * 3],
         SUM_BACKWARD_UNSQUEEZE),
        ("grad=[1, 2, 3], self_shape=(2, 3, 4), dim=(0, 2), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3, 4]), (0, 2), False,
         np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)), SUM_BACKWARD_ORDER),
        ("grad=[[1, 2, 3, 4]], self_shape=(2, 3, 4), dim=(0, 1), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0, 4.0]), ag.Size([2, 3, 4]), (0, 1), False,
         np.broadcast_to(np.array([1.0, 2.0, 3.0, 4.0]), (2, 3, 4)), SUM_BACKWARD_ORDER),
        ("grad of shape (1, 3, 1), self_shape=(2, 3, 4), dim=(0, 2), keepdim=True",
         ag.tensor([[[1.0], [2.0], [3.0]]]), ag.Size([2, 3, 4]), (0, 2), True,
         np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)), SUM_BACKWARD_KEEP),
    ]
    with grading.checking("05.sum_backward", fn):
        for label, grad, self_shape, dim, keepdim, expected, rule in cases:
            seen = call(fn, grad, self_shape, dim, keepdim, what=f"sum_backward({label})", rule=rule)
            grading.expect_close(seen, expected, what=f"sum_backward({label})", rule=rule)


def sum_backward_in_the_engine(fn):
    """Your rule inside the engine: backward through ``x.sum(1)``, through
    ``y.sum((2, 0), keepdim=True)``, and through a batch normalized by its row sums
    (``v / v.sum(-1, keepdim=True)``).  The gradients must be copied along the summed dims,
    with the dims put back where they were."""
    with grading.checking("05.sum_backward", fn):
        x = ag.arange(6.0).reshape(2, 3).requires_grad_()
        call(lambda: x.sum(1).backward(ag.tensor([10.0, 20.0])), what="x.sum(1).backward([10, 20])",
             rule=SUM_BACKWARD_ENGINE)
        y = ag.arange(24.0).reshape(2, 3, 4).requires_grad_()
        call(lambda: y.sum((2, 0), keepdim=True).backward(ag.tensor([[[1.0], [2.0], [3.0]]])),
             what="y.sum((2, 0), keepdim=True).backward(...)", rule=SUM_BACKWARD_ENGINE)
        v = ag.tensor([[1.0, 2.0, 1.0], [3.0, 3.0, 2.0]], requires_grad=True)
        call(lambda: (v / v.sum(-1, keepdim=True))[:, 0].sum().backward(),
             what="(v / v.sum(-1, keepdim=True))[:, 0].sum().backward()", rule=SUM_BACKWARD_ENGINE)
    grading.expect_close(x.grad, [[10.0] * 3, [20.0] * 3], what="x.grad for x.sum(1).backward([10, 20])",
                         rule="with keepdim=False, put each summed dim back as a size-1 dim (grad.unsqueeze(d)) "
                              "before expanding")
    grading.expect_close(y.grad, np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)),
                         what="y.grad for y.sum((2, 0), keepdim=True).backward(...)",
                         rule="with keepdim=True the summed dims are still there (size 1): expand grad to self_shape")
    vv = np.array([[1.0, 2.0, 1.0], [3.0, 3.0, 2.0]])
    row_sums = vv.sum(1, keepdims=True)
    grading.expect_close(v.grad, np.eye(3)[0] / row_sums - vv[:, :1] / row_sums ** 2,
                         what="v.grad for the first column of v / v.sum(-1, keepdim=True)",
                         rule="with keepdim=True the summed dims are still there (size 1): expand grad to self_shape")


# ------------------------------------------------------------ 05.exp_backward

EXP_RULE = "d exp(x)/dx = exp(x), which is the saved result: the gradient is grad * result"


def exp_backward(fn):
    """Your ``exp_backward`` on a hand-made gradient and result, then inside the engine:
    ``x.exp()`` must save its output (``_saved_result``, not ``_saved_self``), and
    backward through ``x.exp()`` and ``(z * 2).exp()`` must give ``grad * result``, the
    incoming gradient times exp's derivative."""
    with grading.checking("05.exp_backward", fn):
        seen = call(fn, ag.tensor([1.0, 2.0, 3.0]), ag.tensor([1.0, 2.0, 4.0]),
                    what="exp_backward(grad=[1, 2, 3], result=[1, 2, 4])", rule=EXP_RULE)
        grading.expect_close(seen, [1.0, 4.0, 12.0], what="exp_backward(grad=[1, 2, 3], result=[1, 2, 4])",
                             rule=EXP_RULE)
        x = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
        y = x.exp()
        saved = [name for name in ("_saved_self", "_saved_result") if hasattr(y.grad_fn, name)]
        grading.expect_equal(saved, ["_saved_result"], what="the values ExpBackward0 saves for y = x.exp()",
                             rule="exp saves its output, not its input: name the rule's parameter result")
        call(lambda: y.sum().backward(), what="x.exp().sum().backward()", rule=EXP_RULE)
        grading.expect_close(x.grad, np.exp([0.0, 1.0, 2.0]), what="x.grad for x.exp().sum()", rule=EXP_RULE)
        z = ag.tensor([0.0, 0.5], requires_grad=True)
        call(lambda: (z * 2).exp().backward(ag.tensor([1.0, 3.0])), what="(z * 2).exp().backward([1, 3])",
             rule=EXP_RULE)
        grading.expect_close(z.grad, [2.0, 6.0 * np.exp(1.0)], what="z.grad for (z * 2).exp().backward([1, 3])",
                             rule="chain rule: the rule multiplies the incoming grad by exp's derivative, result")


def exp_backward_second_derivative(fn):
    """Your rule, differentiated again: the gradient of ``x.exp().sum()`` computed with
    ``create_graph=True`` must be ``exp(x)`` and require grad, and its own gradient, the
    second derivative, must be ``exp(x)`` too.  Build the gradient with tensor ops."""
    twice_rule = "build the gradient with tensor ops (grad * result), so that it can be differentiated again"
    with grading.checking("05.exp_backward", fn):
        x = ag.tensor([0.0, 1.0], dtype=ag.float64, requires_grad=True)
        (g,) = call(lambda: ag.autograd.grad(x.exp().sum(), x, create_graph=True),
                    what="autograd.grad(x.exp().sum(), x, create_graph=True)", rule=twice_rule)
        twice = g.requires_grad
        if twice:
            (h,) = call(lambda: ag.autograd.grad(g.sum(), x), what="the gradient of that gradient", rule=twice_rule)
    grading.expect_close(g, np.exp([0.0, 1.0]), what="the gradient of x.exp().sum() with create_graph=True",
                         rule="d exp(x)/dx = exp(x), which is the saved result: the gradient is grad * result")
    grading.expect_true(twice, what="that gradient requires grad (it has a graph)", seen=repr(twice), rule=twice_rule)
    grading.expect_close(h, np.exp([0.0, 1.0]), what="the second derivative of exp at [0, 1]", rule=twice_rule)


# ------------------------------------------------------------ 05.sigmoid_backward

SIGMOID_RULE = ("sigmoid'(x) = s * (1 - s) with s = sigmoid(x) the saved output: "
                "grad_output * output * (1 - output)")


def sigmoid_backward(fn):
    """Your ``sigmoid_backward`` on a hand-made gradient and output, then inside the
    engine: backward through ``sigmoid(x)`` must give ``grad_output * s * (1 - s)``, and
    ``gradcheck(sigmoid)`` in float64 must pass."""
    with grading.checking("05.sigmoid_backward", fn):
        seen = call(fn, ag.tensor([1.0, 1.0, 2.0]), ag.tensor([0.5, 0.8, 0.1]),
                    what="sigmoid_backward(grad_output=[1, 1, 2], output=[0.5, 0.8, 0.1])", rule=SIGMOID_RULE)
        grading.expect_close(seen, [0.25, 0.16, 0.18],
                             what="sigmoid_backward(grad_output=[1, 1, 2], output=[0.5, 0.8, 0.1])",
                             rule=SIGMOID_RULE)
        x = ag.tensor([0.0, 2.0, -3.0], requires_grad=True)
        call(lambda: ag.sigmoid(x).backward(ag.tensor([1.0, 2.0, 3.0])), what="sigmoid(x).backward([1, 2, 3])",
             rule=SIGMOID_RULE)
        s = 1 / (1 + np.exp(-np.array([0.0, 2.0, -3.0])))
        grading.expect_close(x.grad, s * (1 - s) * [1.0, 2.0, 3.0], what="x.grad for sigmoid(x).backward([1, 2, 3])",
                             rule=SIGMOID_RULE, rtol=1e-4)
        x64 = ag.tensor([-1.0, 0.5, 3.0], dtype=ag.float64, requires_grad=True)
        ok = call(lambda: ag.autograd.gradcheck(ag.sigmoid, (x64,), raise_exception=False),
                  what="gradcheck(sigmoid, x) in float64", rule=SIGMOID_RULE)
        grading.expect_true(ok, what="gradcheck(sigmoid, x) in float64", seen=repr(ok), rule=SIGMOID_RULE)


def sigmoid_backward_second_derivative(fn):
    """The second derivative of sigmoid, through your rule: the gradient of
    ``sigmoid(x).sum()`` computed with ``create_graph=True`` must require grad, and its
    own gradient must be ``s (1 - s) (1 - 2 s)``.  Build the rule from tensor ops."""
    twice_rule = "build sigmoid_backward from tensor ops, so that the gradient can be differentiated again"
    with grading.checking("05.sigmoid_backward", fn):
        x = ag.tensor([-1.0, 0.0, 2.0], dtype=ag.float64, requires_grad=True)
        (g,) = call(lambda: ag.autograd.grad(ag.sigmoid(x).sum(), x, create_graph=True),
                    what="autograd.grad(sigmoid(x).sum(), x, create_graph=True)", rule=twice_rule)
        twice = g.requires_grad
        if twice:
            (h,) = call(lambda: ag.autograd.grad(g.sum(), x), what="the gradient of that gradient", rule=twice_rule)
    s = 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0])))
    grading.expect_true(twice, what="the gradient of sigmoid(x).sum() with create_graph=True requires grad",
                        seen=repr(twice), rule=twice_rule)
    grading.expect_close(h, s * (1 - s) * (1 - 2 * s), what="the second derivative of sigmoid at [-1, 0, 2]",
                         rule=twice_rule)


# ------------------------------------------------------------ 05.index_backward

INDEX_ZERO = ("x[indices] reads some elements of x: they get their gradient back, every other element gets 0 "
              "(a zero tensor of self_shape)")
INDEX_ADD = ("repeated indices accumulate: every pick sends its gradient back and the picks of the same element "
             "add up (np.add.at, not assignment)")
INDEX_TUPLE = ("indices has one entry per indexed dim (slices and masks included): use the whole tuple, "
               "as x[indices] did")
INDEX_DTYPE = "the gradient has grad's dtype: ag.zeros(self_shape, dtype=grad.dtype)"


def index_backward(fn):
    """Your ``index_backward`` on hand-made indices: distinct and repeated integer
    indices, a slice with an array, a boolean mask, and pairs of arrays.  Rules: zeros of
    ``self_shape`` with ``grad`` added at the indices (repeats add up), the whole index
    tuple used, the result in ``grad``'s dtype, and ``grad`` itself left unchanged."""
    mask = np.array([[True, False, True], [False, False, True]])
    cases = [
        ("grad=[1, 10], self_shape=(4,), indices=([3, 1],)", ag.tensor([1.0, 10.0]), ag.Size([4]),
         (np.array([3, 1]),), [0.0, 10.0, 0.0, 1.0], INDEX_ZERO),
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
    with grading.checking("05.index_backward", fn):
        for label, grad, self_shape, indices, expected, rule in cases:
            seen = call(fn, grad, self_shape, indices, what=f"index_backward({label})", rule=rule)
            grading.expect_close(seen, expected, what=f"index_backward({label})", rule=rule)
        grad = ag.tensor([1.0, 2.0], dtype=ag.float64)
        seen = call(fn, grad, ag.Size([3]), (np.array([2, 0]),), what="index_backward of a float64 grad",
                    rule=INDEX_DTYPE)
        grading.expect_equal(str(getattr(seen, "dtype", type(seen).__name__)), "autograd_lib.float64",
                             what="the dtype of index_backward's result for a float64 grad", rule=INDEX_DTYPE)
        grading.expect_close(grad, [1.0, 2.0], what="grad after index_backward(grad, ...)",
                             rule="the rule returns a new tensor and leaves grad unchanged")


def index_backward_in_the_engine(fn):
    """Your rule inside the engine: backward through ``v[[0, 2, 0]]``, through an
    embedding lookup ``table[tokens]`` with a repeated token, and through a mask
    ``x[x > 2]``.  Repeated picks of an element must add up, and a mask selects exactly
    its elements."""
    with grading.checking("05.index_backward", fn):
        v = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        call(lambda: v[[0, 2, 0]].backward(ag.tensor([1.0, 10.0, 100.0])), what="v[[0, 2, 0]].backward([1, 10, 100])",
             rule="IndexBackward0 runs your rule")
        table = ag.arange(8.0).reshape(4, 2).requires_grad_()
        call(lambda: table[ag.tensor([1, 3, 1, 1])].sum().backward(), what="table[tokens].sum().backward()",
             rule="IndexBackward0 runs your rule")
        x = ag.arange(6.0).reshape(2, 3).requires_grad_()
        call(lambda: (x[x > 2] * ag.tensor([1.0, 2.0, 3.0])).sum().backward(),
             what="(x[x > 2] * [1, 2, 3]).sum().backward()", rule="IndexBackward0 runs your rule")
    grading.expect_close(v.grad, [101.0, 0.0, 10.0, 0.0], what="v.grad for v[[0, 2, 0]].backward([1, 10, 100])",
                         rule="repeated indices accumulate: the picks of the same element add up (np.add.at, "
                              "not assignment)")
    grading.expect_close(table.grad, [[0.0, 0.0], [3.0, 3.0], [0.0, 0.0], [1.0, 1.0]],
                         what="table.grad for table[[1, 3, 1, 1]].sum()",
                         rule="repeated indices accumulate: the picks of the same element add up (np.add.at, "
                              "not assignment)")
    grading.expect_close(x.grad, [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]], what="x.grad for (x[x > 2] * [1, 2, 3]).sum()",
                         rule="indices has one entry per indexed dim (slices and masks included): use the whole "
                              "tuple")


# ------------------------------------------------------------ 05.log_softmax_backward

LOG_SOFTMAX_ONE = ("d log_softmax(x)_i / dx_j = [i == j] - softmax_j: the gradient is "
                   "grad_output - output.exp() * grad_output.sum(dim, keepdim=True)")
LOG_SOFTMAX_ROWS = "sum grad_output along dim only, with keepdim=True: each row of a batch is a softmax of its own"


def log_softmax_backward(fn):
    """Your ``log_softmax_backward`` on the log-probabilities of a vector (dim 0) and of
    batches (dim 1, and dim 0 of a ``(2, 3)`` batch), with hand-made gradients.  Rules: the
    gradient is ``grad_output - softmax * (sum of grad_output)``, the sum taken along
    ``dim`` only, so each row of a batch is a softmax of its own."""
    out1 = ag.log_softmax(ag.tensor([2.0, 1.0, 0.1], dtype=ag.float64), 0)
    out2 = ag.log_softmax(ag.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], dtype=ag.float64), 1)
    out3 = ag.log_softmax(ag.tensor([[1.0, 0.0, -1.0], [0.2, 0.3, 0.1], [3.0, -2.0, 0.0]], dtype=ag.float64), 1)
    out4 = ag.log_softmax(ag.tensor([[1.0, 0.0, -1.0], [0.2, 0.3, 0.1]], dtype=ag.float64), 0)
    p1, p2, p3, p4 = (np.exp(o.numpy()) for o in (out1, out2, out3, out4))
    g1a = np.array([1.0, 0.0, 0.0])
    g1b = np.array([2.0, -1.0, 0.5])
    g2 = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]])
    g3 = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0], [0.5, 0.5, 0.5]])
    g4 = np.array([[1.0, 0.0, 2.0], [3.0, -1.0, 0.0]])
    cases = [
        ("grad_output=[1, 0, 0], dim=0", g1a, out1, 0, g1a - p1 * g1a.sum(), LOG_SOFTMAX_ONE),
        ("grad_output=[2, -1, 0.5], dim=0", g1b, out1, 0, g1b - p1 * g1b.sum(), LOG_SOFTMAX_ONE),
        ("a (2, 3) batch, dim=1", g2, out2, 1, g2 - p2 * g2.sum(1, keepdims=True), LOG_SOFTMAX_ROWS),
        ("a (3, 3) batch, dim=1", g3, out3, 1, g3 - p3 * g3.sum(1, keepdims=True), LOG_SOFTMAX_ROWS),
        ("a (2, 3) batch, dim=0", g4, out4, 0, g4 - p4 * g4.sum(0, keepdims=True), LOG_SOFTMAX_ROWS),
    ]
    with grading.checking("05.log_softmax_backward", fn):
        for label, grad_output, output, dim, expected, rule in cases:
            seen = call(fn, ag.tensor(grad_output), output, dim, what=f"log_softmax_backward({label})", rule=rule)
            grading.expect_close(seen, expected, what=f"log_softmax_backward({label})", rule=rule)


def log_softmax_backward_in_the_engine(fn):
    """Your rule inside the engine: the gradient of ``cross_entropy`` must be softmax minus
    one-hot over the batch size, backward through ``log_softmax`` of huge logits
    (``[1000, 0, -1000]``) must stay finite, and ``gradcheck`` of ``log_softmax(t, 1)`` on a
    float64 batch must pass."""
    ce = "the gradient of cross-entropy is (softmax - one-hot) / batch size: log_softmax's rule is at work"
    with grading.checking("05.log_softmax_backward", fn):
        x = ag.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
        call(lambda: ag.nn.functional.cross_entropy(x, ag.tensor([0, 1])).backward(),
             what="cross_entropy(x, [0, 1]).backward()", rule=ce)
        huge = ag.tensor([1000.0, 0.0, -1000.0], requires_grad=True)
        call(lambda: ag.log_softmax(huge, 0)[1].backward(), what="log_softmax([1000, 0, -1000], 0)[1].backward()",
             rule="use the saved output: exp(output) <= 1 cannot overflow")
        z = ag.tensor([[0.3, -1.2, 2.0, 0.0], [1.5, 0.5, -0.5, 0.1]], dtype=ag.float64, requires_grad=True)
        ok = call(lambda: ag.autograd.gradcheck(lambda t: ag.log_softmax(t, 1), (z,), raise_exception=False),
                  what="gradcheck(log_softmax(t, 1))", rule=ce)
    xv = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])
    p = np.exp(xv) / np.exp(xv).sum(1, keepdims=True)
    grading.expect_close(x.grad, (p - np.eye(3)[[0, 1]]) / 2, what="x.grad for cross_entropy(x, [0, 1])", rule=ce,
                         rtol=1e-4)
    grading.expect_close(huge.grad, [-1.0, 1.0, 0.0], what="huge.grad for log_softmax([1000, 0, -1000], 0)[1]",
                         rule="use the saved output: exp(output) <= 1 cannot overflow")
    grading.expect_true(ok, what="gradcheck(log_softmax(t, 1)) on a (2, 4) float64 batch", seen=repr(ok),
                        rule="sum grad_output along dim only, with keepdim=True: each row of a batch is a softmax "
                             "of its own")


# ------------------------------------------------------------ 05.var_backward

VAR_SQUARE = ("each element's square (x - mean)**2 brings down a factor 2 when differentiated; "
              "the mean's own term adds nothing, since the deviations of a group sum to 0")
VAR_CORRECTION = ("var divides by N - correction (N: the number of elements in each group), "
                  "and so does its gradient")
VAR_MEAN = ("each element is compared with the mean of its own group (over dim, kept as size-1 dims), "
            "not with the mean of the whole tensor")
VAR_UNSQUEEZE = ("with keepdim=False, put the reduced dims back as size-1 dims before broadcasting grad "
                 "against self: broadcasting lines shapes up from the right")
VAR_ORDER = "put the reduced dims back in ascending order, so that each lands at its original position"
VAR_ENGINE = "VarBackward0 and StdBackward0 run your var_backward: x.var(...) and x.std(...) use it"


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
    a vector with correction 0, 1 and 2, rows of a ``(2, 3)`` and of a square ``(3, 3)`` input
    with and without ``keepdim``, and two dims of a ``(2, 3, 4)`` input.  The expected gradients
    come from finite differences of NumPy's ``var`` (``ddof=correction``), not from a formula.
    Rules: the factor of a square, the division by ``N - correction``, each group centred on its
    own mean, and the reduced dims put back (in ascending order) without ``keepdim``."""
    vector = [1.0, 2.0, 4.0, 5.0]
    rows = [[1.0, 2.0, 6.0], [4.0, 4.0, 7.0]]
    square = [[1.0, 2.0, 6.0], [4.0, 4.0, 7.0], [0.0, 3.0, 3.0]]
    cube = np.arange(24.0).reshape(2, 3, 4) ** 2 / 10
    cases = [   # label, self, dim, correction, keepdim, grad, rule
        ("self=[1, 2, 4, 5], dim=(0,), correction=0", vector, (0,), 0, False, 1.0, VAR_SQUARE),
        ("self=[1, 2, 4, 5], dim=(0,), correction=1", vector, (0,), 1, False, 3.0, VAR_CORRECTION),
        ("self=[1, 2, 4, 5], dim=(0,), correction=2", vector, (0,), 2, False, 1.0, VAR_CORRECTION),
        ("self=[[1, 2, 6], [4, 4, 7]], dim=(1,), correction=1, keepdim=True", rows, (1,), 1, True,
         [[1.0], [2.0]], VAR_MEAN),
        ("self=[[1, 2, 6], [4, 4, 7], [0, 3, 3]], dim=(1,), correction=1, keepdim=False", square, (1,), 1, False,
         [1.0, 2.0, 3.0], VAR_UNSQUEEZE),
        ("self=[[1, 2, 6], [4, 4, 7]], dim=(1,), correction=0, keepdim=False", rows, (1,), 0, False,
         [1.0, -2.0], VAR_UNSQUEEZE),
        ("self of shape (2, 3, 4), dim=(0, 2), correction=1, keepdim=False", cube, (0, 2), 1, False,
         [1.0, 2.0, 3.0], VAR_ORDER),
        ("self of shape (2, 3, 4), dim=(0, 2), correction=0, keepdim=True", cube, (0, 2), 0, True,
         [[[1.0], [-1.0], [2.0]]], VAR_MEAN),
    ]
    expected = [numerical_vjp(_var_of(dim, correction, keepdim), x, grad)
                for _, x, dim, correction, keepdim, grad, _ in cases]
    with grading.checking("05.var_backward", fn):
        for (label, x, dim, correction, keepdim, grad, rule), want in zip(cases, expected):
            what = f"var_backward(grad={np.asarray(grad).tolist()}, {label})"
            seen = call(fn, ag.tensor(grad, dtype=ag.float64), ag.tensor(x, dtype=ag.float64), dim, correction,
                        keepdim, what=what, rule=rule)
            grading.expect_close(seen, want, what=what, rule=rule, rtol=1e-6, atol=1e-6)


def var_backward_in_the_engine(fn):
    """Your rule inside the engine: backward through ``x.var(1)``, through
    ``y.var((2, 0), correction=0, keepdim=True)`` and through ``x.std(1)`` (whose node calls your
    ``var_backward``), compared with finite differences; then ``gradcheck`` of ``var`` over two
    dims with ``correction=2``, and of a gradient computed with ``create_graph=True`` (the rule
    must be built from tensor ops)."""
    xv = np.array([[1.0, 2.0, 6.0], [4.0, 4.0, 7.0]])
    yv = np.arange(24.0).reshape(2, 3, 4) % 7 - 3
    zv = np.random.default_rng(5).standard_normal((2, 3, 4))
    with grading.checking("05.var_backward", fn):
        x = ag.tensor(xv, requires_grad=True)
        call(lambda: x.var(1).backward(ag.tensor([1.0, 2.0])), what="x.var(1).backward([1, 2])", rule=VAR_ENGINE)
        y = ag.tensor(yv, requires_grad=True)
        gy = [[[1.0], [2.0], [-1.0]]]
        call(lambda: y.var((2, 0), correction=0, keepdim=True).backward(ag.tensor(gy)),
             what="y.var((2, 0), correction=0, keepdim=True).backward(...)", rule=VAR_ENGINE)
        s = ag.tensor(xv, requires_grad=True)
        call(lambda: s.std(1).backward(ag.tensor([1.0, 2.0])), what="x.std(1).backward([1, 2])", rule=VAR_ENGINE)
        z = ag.tensor(zv, requires_grad=True)
        ok = call(lambda: ag.autograd.gradcheck(lambda t: t.var((0, 2), correction=2), (z,), raise_exception=False),
                  what="gradcheck(t.var((0, 2), correction=2)) on a (2, 3, 4) float64 input", rule=VAR_ENGINE)
        w = ag.tensor(zv[0], requires_grad=True)
        twice = call(lambda: ag.autograd.gradgradcheck(lambda t: t.var(1), (w,), raise_exception=False),
                     what="gradgradcheck(t.var(1)) on a (3, 4) float64 input",
                     rule="build var_backward from tensor ops, so that its gradient can be differentiated again")
    grading.expect_close(x.grad, numerical_vjp(_var_of((1,), 1, False), xv, [1.0, 2.0]),
                         what="x.grad for x.var(1).backward([1, 2])", rule=VAR_UNSQUEEZE, atol=1e-6)
    grading.expect_close(y.grad, numerical_vjp(_var_of((2, 0), 0, True), yv, gy),
                         what="y.grad for y.var((2, 0), correction=0, keepdim=True)", rule=VAR_MEAN, atol=1e-6)
    grading.expect_close(s.grad, numerical_vjp(_var_of((1,), 1, False, std=True), xv, [1.0, 2.0]),
                         what="x.grad for x.std(1).backward([1, 2]) (StdBackward0 calls your var_backward)",
                         rule=VAR_ENGINE, atol=1e-6)
    grading.expect_true(ok, what="gradcheck(t.var((0, 2), correction=2))", seen=repr(ok), rule=VAR_CORRECTION)
    grading.expect_true(twice, what="gradgradcheck(t.var(1))", seen=repr(twice),
                        rule="build var_backward from tensor ops, so that its gradient can be differentiated again")


# ------------------------------------------------------------ 05.amax_backward

AMAX_PICK = ("only the element that holds its group's extreme moves the result: it gets the gradient, "
             "every other element gets 0")
AMAX_SHARE = ("tied extremes share the gradient equally: with k ties in a group, each gets 1/k of it "
              "(max(dim) picks one index instead; amax has none to pick)")
AMAX_GROUP = ("count the ties of each group separately (over dims only): a tie in another group does not "
              "share this group's gradient")
AMAX_KEEPDIM = ("with keepdim=False, grad and result have lost the reduced dims: put them back as size-1 "
                "dims before comparing and broadcasting against self")
AMAX_AMIN = "amin uses the same function: result is then the minimum, and the elements equal to it share"
AMAX_ENGINE = "AmaxBackward0 and AminBackward0 run your amax_backward"


def amax_backward(fn):
    """Your ``amax_backward(grad, self, result, dims, keepdim)`` on hand-made inputs: a single
    maximum, a maximum held three times, rows of a ``(2, 3)`` and of a square ``(3, 3)`` input with
    and without ``keepdim``, two dims of a ``(2, 3, 2)`` input, and a minimum (``amin``).
    Rules: only the extremes get gradient, tied extremes share it equally, ties are counted per
    group, and without ``keepdim`` the reduced dims are put back."""
    rows = [[3.0, 1.0, 3.0], [2.0, 5.0, 4.0]]
    square = [[3.0, 1.0, 3.0], [2.0, 5.0, 4.0], [0.0, 0.0, 0.0]]
    cube = [[[1.0, 4.0], [2.0, 2.0], [0.0, 1.0]], [[4.0, 0.0], [2.0, 1.0], [1.0, 1.0]]]
    cases = [   # label, grad, self, result, dims, keepdim, expected, rule
        ("grad=2, self=[1, 5, 3], result=5, dims=(0,)", 2.0, [1.0, 5.0, 3.0], 5.0, (0,), False,
         [0.0, 2.0, 0.0], AMAX_PICK),
        ("grad=6, self=[3, 1, 3, 3], result=3, dims=(0,)", 6.0, [3.0, 1.0, 3.0, 3.0], 3.0, (0,), False,
         [2.0, 0.0, 2.0, 2.0], AMAX_SHARE),
        ("grad=[[10], [20]], self=[[3, 1, 3], [2, 5, 4]], result=[[3], [5]], dims=(1,), keepdim=True",
         [[10.0], [20.0]], rows, [[3.0], [5.0]], (1,), True, [[5.0, 0.0, 5.0], [0.0, 20.0, 0.0]], AMAX_GROUP),
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
            seen = call(fn, ag.tensor(grad), ag.tensor(x), ag.tensor(result), dims, keepdim,
                        what=f"amax_backward({label})", rule=rule)
            grading.expect_close(seen, expected, what=f"amax_backward({label})", rule=rule)


def amax_backward_in_the_engine(fn):
    """Your function inside the engine: backward through ``x.amax(1)`` with a tie, ``y.amax()``
    over everything with four ties, ``y.amax(0, keepdim=True)`` and ``y.amin(1)``, then
    ``gradcheck`` of ``amax`` and ``amin`` at distinct values (at a tie the function has no
    derivative, so gradcheck cannot judge it)."""
    zv = np.random.default_rng(6).standard_normal((2, 3, 4))
    with grading.checking("05.amax_backward", fn):
        x = ag.tensor([[1.0, 3.0, 3.0], [2.0, 5.0, 4.0]], requires_grad=True)
        call(lambda: x.amax(1).backward(ag.tensor([10.0, 20.0])), what="x.amax(1).backward([10, 20])",
             rule=AMAX_ENGINE)
        y = ag.tensor([[3.0, 1.0, 3.0], [3.0, 0.0, 3.0]], requires_grad=True)
        call(lambda: y.amax().backward(), what="y.amax().backward()", rule=AMAX_ENGINE)
        y_all = y.grad
        y.grad = None
        call(lambda: y.amax(0, keepdim=True).backward(ag.tensor([[1.0, 2.0, 3.0]])),
             what="y.amax(0, keepdim=True).backward([[1, 2, 3]])", rule=AMAX_ENGINE)
        y_keep = y.grad
        y.grad = None
        call(lambda: y.amin(1).backward(ag.tensor([1.0, 2.0])), what="y.amin(1).backward([1, 2])", rule=AMAX_ENGINE)
        z = ag.tensor(zv, requires_grad=True)
        ok = call(lambda: ag.autograd.gradcheck(lambda t: t.amax((0, 2)), (z,), raise_exception=False)
                  and ag.autograd.gradcheck(lambda t: t.amin(1, keepdim=True), (z,), raise_exception=False),
                  what="gradcheck of t.amax((0, 2)) and t.amin(1, keepdim=True) at distinct values", rule=AMAX_ENGINE)
    grading.expect_close(x.grad, [[0.0, 5.0, 5.0], [0.0, 20.0, 0.0]], what="x.grad for x.amax(1).backward([10, 20])",
                         rule=AMAX_SHARE)
    grading.expect_close(y_all, [[0.25, 0.0, 0.25], [0.25, 0.0, 0.25]], what="y.grad for y.amax().backward()",
                         rule=AMAX_SHARE)
    grading.expect_close(y_keep, [[0.5, 2.0, 1.5], [0.5, 0.0, 1.5]],
                         what="y.grad for y.amax(0, keepdim=True).backward([[1, 2, 3]])", rule=AMAX_GROUP)
    grading.expect_close(y.grad, [[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]], what="y.grad for y.amin(1).backward([1, 2])",
                         rule=AMAX_AMIN)
    grading.expect_true(ok, what="gradcheck of amax and amin at distinct values", seen=repr(ok), rule=AMAX_PICK)
