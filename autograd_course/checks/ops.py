"""Visible checks of assignment 05: tensor ops and broadcasting.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  The constants are the rules the checks name
(the hidden tests name them too), and :func:`reference_rule` is how the hidden
tests compute an expected gradient.

Why one module of this length: it is the visible half of the notebook's 12 test cells,
one function per cell, kept together so that a student reads one file per notebook.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call

__all__ = ["reference_rule",
           "sum_to", "sum_to_in_the_engine",
           "sum_backward", "sum_backward_in_the_engine",
           "exp_backward", "exp_backward_second_derivative",
           "sigmoid_backward", "sigmoid_backward_second_derivative",
           "index_backward", "index_backward_in_the_engine",
           "log_softmax_backward", "log_softmax_backward_in_the_engine",
           "SUM_TO_LEAD", "SUM_TO_ONES", "SUM_TO_SAME", "SUM_TO_ZERO", "SUM_TO_BOTH", "SUM_TO_ENGINE",
           "SUM_BACKWARD_KEEP", "SUM_BACKWARD_UNSQUEEZE", "SUM_BACKWARD_ORDER", "SUM_BACKWARD_ENGINE",
           "EXP_RULE", "SIGMOID_RULE",
           "INDEX_ZERO", "INDEX_ADD", "INDEX_TUPLE", "INDEX_DTYPE",
           "LOG_SOFTMAX_ONE", "LOG_SOFTMAX_ROWS"]


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
