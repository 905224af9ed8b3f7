"""Visible checks of assignment 03: backward, the chain rule one node at a time.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs, against the library's own rules.

Why one module of this length: it is the visible half of the notebook's 9 test cells,
one function per cell, kept together so that a student reads one file per notebook.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call

__all__ = ["as_gradients", "reference_vjp", "ChainNode", "StandIn", "Trace", "run_stand_ins", "node_order",
           "execute", "NEWEST", "TIES", "ONCE", "SUM", "NONE_EDGE", "SKIP", "LOOP", "add_backward",
           "mul_backward", "pow_backward", "mean_backward", "mm_backward", "count_dependencies",
           "initial_gradients", "numerical_grad", "ANY_SHAPE", "SHAPES", "ANY_GRAPH", "IMPLICIT", "CENTRAL"]


def as_gradients(result, count):
    """A rule's result as a tuple of ``count`` gradients (a bare tensor counts as one)."""
    grads = result if isinstance(result, tuple) else (result,)
    grading.expect_equal(len(grads), count, what="the number of gradients returned",
                         rule=f"a VJP rule returns a tuple with one gradient per input of the op "
                              f"({count} here), in input order")
    return grads


def reference_vjp(exercise_id, grad, **values):
    """The library's own rule for an exercise: one gradient per input."""
    return tuple(fn(grad, *(values[name] for name in needs))
                 for fn, needs in exercises.reference(exercise_id).values())


ANY_SHAPE = "the gradient of mean has the input's shape; N is the product of all of self_shape"

SHAPES = ("each gradient has its input's shape: self's (n, k) and mat2's (k, m), made from grad (n, m) "
          "and the other factor")

ANY_GRAPH = ("count_dependencies must work on any graph; the (None, 0) entries of next_functions "
             "are not nodes: skip them")

IMPLICIT = ("an output with one element (numel() == 1, whatever its shape) gets the implicit "
            "gradient ones_like(output)")

CENTRAL = ("central differences: (f(x + eps e_j) - f(x - eps e_j)) / (2 eps); for a cubic that is within "
           "eps**2 = 1e-6 of 3x**2, while a one-sided difference is off by about 3x * eps")


class ChainNode:
    """A stand-in for a backward node: count_dependencies only reads next_functions."""
    __slots__ = ("next_functions",)


def add_backward(fn):
    """Your ``add_backward`` on a gradient of three elements (both inputs get it unchanged), then
    ``backward()`` through ``L = (2*x + 5) + x``, where two paths meet at ``x``."""
    g = ag.tensor([1.0, -2.0, 3.0])
    with grading.checking("03.add_backward", fn):
        result = call(fn, g, what="add_backward(grad)",
                      rule="a VJP rule works on any gradient tensor")
    grad_self, grad_other = as_gradients(result, 2)
    grading.expect_close(grad_self, [1.0, -2.0, 3.0], what="the gradient of self",
                         rule="d(self + other)/d(self) is the identity: add passes grad on unchanged")
    grading.expect_close(grad_other, [1.0, -2.0, 3.0], what="the gradient of other",
                         rule="d(self + other)/d(other) is the identity: add passes grad on unchanged, "
                              "to both inputs")

    with grading.checking("03.add_backward", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() for L = (2*x + 5) + x", rule="a VJP rule works on any gradient tensor")
    grading.expect_close(x.grad, [3.0], what="x.grad for L = (2*x + 5) + x",
                         rule="the gradients of the two paths from L to x add up: 1 + 2 = 3")


def mul_backward(fn):
    """Your ``mul_backward`` on three-element tensors, then ``backward()`` through ``x * x``
    (both gradients reach ``x``) and through ``(s * v).sum()`` with a 0-d ``s``."""
    g = ag.tensor([1.0, 2.0, -1.0])
    a_value = ag.tensor([2.0, -1.0, 0.5])
    b_value = ag.tensor([4.0, 5.0, -6.0])
    with grading.checking("03.mul_backward", fn):
        result = call(fn, g, a_value, b_value, what="mul_backward(grad, self, other)",
                      rule="a VJP rule works on any tensors")
    grad_self, grad_other = as_gradients(result, 2)
    grading.expect_close(grad_self, [4.0, 10.0, 6.0], what="the gradient of self",
                         rule="chain rule: the gradient of self is grad * other "
                              "(the upstream grad times d(self * other)/d(self) = other)")
    grading.expect_close(grad_other, [2.0, -2.0, -0.5], what="the gradient of other",
                         rule="chain rule: the gradient of other is grad * self "
                              "(the upstream grad times d(self * other)/d(other) = self)")

    with grading.checking("03.mul_backward", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        call(lambda: (x * x).backward(gradient=ag.tensor([1.0, 1.0, 1.0])), what="(x * x).backward(gradient=ones)",
             rule="a VJP rule works on any tensors")
        s = ag.tensor(2.0, requires_grad=True)
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        call((s * v).sum().backward, what="(s * v).sum().backward() with a 0-d s",
             rule="the rule returns gradients of the output's shape; the engine sums them to the input's shape")
    grading.expect_close(x.grad, [2.0, 4.0, 6.0], what="x.grad for x * x",
                         rule="x * x uses x as self and as other: both gradients reach x and add up to 2x")
    grading.expect_close(s.grad, 6.0, what="s.grad for (s * v).sum() with a 0-d s",
                         rule="the gradient of self is grad * other (the engine sums it to s's shape)")
    grading.expect_close(v.grad, [2.0, 2.0, 2.0], what="v.grad for (s * v).sum()",
                         rule="the gradient of other is grad * self")


def pow_backward(fn):
    """Your ``pow_backward`` for the exponents 3, 0 (at ``x = 0`` too), 0.5 and -1, with an upstream
    gradient of ones and of other values; then ``backward()`` through ``Q = 3*a**3 - b**2``."""
    x_value = ag.tensor([0.5, 1.0, 2.0, 3.0])
    with grading.checking("03.pow_backward", fn):
        r_cube = call(fn, ag.ones(4), x_value, 3, what="pow_backward(ones, self, 3)",
                      rule="a VJP rule works on any tensors")
        r_chain = call(fn, ag.tensor([1.0, -2.0, 0.5, 2.0]), x_value, 3,
                       what="pow_backward(grad, self, 3)", rule="a VJP rule works on any tensors")
        r_zero = call(fn, ag.ones(3), ag.tensor([0.0, 1.0, -2.0]), 0,
                      what="pow_backward(ones, self, 0)", rule="a VJP rule works on any tensors")
        r_root = call(fn, ag.ones(3), ag.tensor([0.25, 1.0, 4.0]), 0.5,
                      what="pow_backward(ones, self, 0.5)", rule="a VJP rule works on any tensors")
        r_inverse = call(fn, ag.ones(2), ag.tensor([-2.0, 0.5]), -1,
                         what="pow_backward(ones, self, -1)", rule="a VJP rule works on any tensors")
    (g_cube,) = as_gradients(r_cube, 1)
    grading.expect_close(g_cube, [0.75, 3.0, 12.0, 27.0], what="pow_backward(ones, self, 3)",
                         rule="power rule: d(x ** n)/dx = n * x ** (n - 1)")
    (g_chain,) = as_gradients(r_chain, 1)
    grading.expect_close(g_chain, [0.75, -6.0, 6.0, 54.0], what="pow_backward(grad, self, 3)",
                         rule="chain rule: multiply the local derivative n * x ** (n - 1) by the upstream grad")
    (g_zero,) = as_gradients(r_zero, 1)
    grading.expect_close(g_zero, [0.0, 0.0, 0.0], what="pow_backward(ones, self, 0) with self = [0, 1, -2]",
                         rule="x ** 0 is the constant 1: its gradient is 0 everywhere, even at x = 0 "
                              "(where n * x ** (n - 1) gives 0 * inf = nan)")
    (g_root,) = as_gradients(r_root, 1)
    grading.expect_close(g_root, [1.0, 0.5, 0.25], what="pow_backward(ones, self, 0.5)",
                         rule="power rule: d(x ** n)/dx = n * x ** (n - 1), for any number n")
    (g_inverse,) = as_gradients(r_inverse, 1)
    grading.expect_close(g_inverse, [-0.25, -4.0], what="pow_backward(ones, self, -1)",
                         rule="power rule: d(x ** n)/dx = n * x ** (n - 1), for any number n")

    with grading.checking("03.pow_backward", fn):
        a = ag.tensor([2.0, 3.0], requires_grad=True)
        b = ag.tensor([6.0, 4.0], requires_grad=True)
        Q = 3 * a ** 3 - b ** 2
        call(lambda: Q.backward(gradient=ag.tensor([1.0, 1.0])), what="Q.backward(gradient=ones) for Q = 3*a**3 - b**2",
             rule="a VJP rule works on any tensors")
    grading.expect_close(a.grad, [36.0, 81.0], what="a.grad for Q = 3*a**3 - b**2",
                         rule="dQ/da = 9 a**2")
    grading.expect_close(b.grad, [-12.0, -8.0], what="b.grad for Q = 3*a**3 - b**2",
                         rule="dQ/db = -2 b")


def mean_backward(fn):
    """Your ``mean_backward`` for a (2, 3) input (the shape and the values of the gradient), then
    ``backward()`` through ``m.mean()`` and ``(x * x).mean()``."""
    with grading.checking("03.mean_backward", fn):
        result = call(fn, ag.tensor(3.0), (2, 3), what="mean_backward(tensor(3.), (2, 3))", rule=ANY_SHAPE)
    (g,) = as_gradients(result, 1)
    grading.expect_equal(tuple(g.shape), (2, 3), what="the shape of mean_backward(tensor(3.), (2, 3))",
                         rule="the gradient of mean has the input's shape: expand grad to self_shape")
    grading.expect_close(g, [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], what="mean_backward(tensor(3.), (2, 3))",
                         rule="each of the N = 2 * 3 = 6 elements gets grad / N")

    with grading.checking("03.mean_backward", fn):
        m = ag.tensor([[1., 2., 3., 4.], [5., 6., 7., 8.], [9., 10., 11., 12.]], requires_grad=True)
        call(m.mean().backward, what="m.mean().backward() for m of shape (3, 4)", rule=ANY_SHAPE)
        x = ag.tensor([1.0, -2.0, 3.0, 0.5, 2.0], requires_grad=True)
        call((x * x).mean().backward, what="(x * x).mean().backward() for x of shape (5,)", rule=ANY_SHAPE)
    grading.expect_close(m.grad, np.full((3, 4), 1 / 12), what="m.grad for m.mean() with m of shape (3, 4)",
                         rule="each of the N = 12 elements gets grad / N = 1/12")
    grading.expect_close(x.grad, [0.4, -0.8, 1.2, 0.2, 0.8], what="x.grad for (x * x).mean() with 5 elements",
                         rule="mean passes grad / N to each element; then x * x multiplies by 2x")


def mm_backward(fn):
    """Your ``mm_backward`` for a (3, 4) @ (4, 2) product: the shape and the values of both
    gradients; then ``backward()`` through ``a @ b`` and through ``(x @ w).mean()`` for a row ``x``."""
    A = np.array([[1., 0., 2., -1.], [0., 1., 1., 2.], [3., -2., 0., 1.]])      # 3 x 4
    B = np.array([[1., 2.], [0., -1.], [2., 0.], [1., 1.]])                       # 4 x 2
    G = np.array([[1., 0.], [2., -1.], [0.5, 1.]])                                # 3 x 2
    # The gradients, worked out by hand for these three matrices (not the formula: you derive it).
    GRAD_A = [[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, 4.0, 1.0], [2.5, -1.0, 1.0, 1.5]]
    GRAD_B = [[2.5, 3.0], [1.0, -3.0], [4.0, -1.0], [3.5, -1.0]]
    with grading.checking("03.mm_backward", fn):
        result = call(fn, ag.tensor(G), ag.tensor(A), ag.tensor(B),
                      what="mm_backward(grad, self, mat2) with self 3x4, mat2 4x2, grad 3x2", rule=SHAPES)
    grad_self, grad_mat2 = as_gradients(result, 2)
    grading.expect_equal(tuple(grad_self.shape), (3, 4), what="the shape of the gradient of self", rule=SHAPES)
    grading.expect_equal(tuple(grad_mat2.shape), (4, 2), what="the shape of the gradient of mat2", rule=SHAPES)
    grading.expect_close(grad_self, GRAD_A, what="the gradient of self",
                         rule="the gradient of self is a product of the upstream grad (not ones) and mat2")
    grading.expect_close(grad_mat2, GRAD_B, what="the gradient of mat2",
                         rule="the gradient of mat2 is a product of self and the upstream grad (not ones)")

    with grading.checking("03.mm_backward", fn):
        a = ag.tensor(A, requires_grad=True)
        b = ag.tensor(B, requires_grad=True)
        call(lambda: (a @ b).backward(gradient=ag.tensor(G)), what="(a @ b).backward(gradient=G)", rule=SHAPES)
        w = ag.tensor(B, requires_grad=True)
        x = ag.tensor(np.array([[1.0, -1.0, 2.0, 0.5]]))
        call((x @ w).mean().backward, what="(x @ w).mean().backward()", rule=SHAPES)
    grading.expect_close(a.grad, GRAD_A, what="a.grad for (a @ b).backward(gradient=G)",
                         rule="the gradient of self is a product of the upstream grad (not ones) and mat2")
    grading.expect_close(b.grad, GRAD_B, what="b.grad for (a @ b).backward(gradient=G)",
                         rule="the gradient of mat2 is a product of self and the upstream grad (not ones)")
    grading.expect_close(w.grad, [[0.5, 0.5], [-0.5, -0.5], [1.0, 1.0], [0.25, 0.25]],
                         what="w.grad for (x @ w).mean() with x of shape (1, 4), w of shape (4, 2)",
                         rule="the gradient of mat2 is a product of self and the upstream grad, "
                              "1/2 everywhere from the mean")


def count_dependencies(fn):
    """Your ``count_dependencies`` on the worked example ``L = (2*x + 5) + x`` (two edges into x's
    ``AccumulateGrad``), on a chain of 20 000 stand-in nodes (it must not recurse), on
    ``y = y + y`` repeated 12 times (count every edge, expand every node once), and inside
    the engine."""
    x = ag.tensor([2.0], requires_grad=True)
    y = 2 * x + 5
    L = y + x
    add_y, acc_x = y.grad_fn, L.grad_fn.next_functions[1][0]
    mul = add_y.next_functions[0][0]
    with grading.checking("03.count_dependencies", fn):
        deps = call(fn, [L.grad_fn], what="count_dependencies([L.grad_fn])", rule=ANY_GRAPH)
    grading.expect_true(isinstance(deps, dict), what="the type of the result", seen=type(deps).__name__,
                        rule="return a dict {node: number of edges pointing into it}")
    grading.expect_equal(None in deps, False, what="`None in deps`",
                         rule="skip the (None, 0) entries of next_functions: they are not nodes")
    grading.expect_equal(deps.get(acc_x), 2, what="the count of x's AccumulateGrad in L = (2*x + 5) + x",
                         rule="count edges, not nodes: x is used twice, so two edges point into its AccumulateGrad")
    grading.expect_equal(deps.get(add_y), 1, what="the count of y.grad_fn", rule="one edge (from L.grad_fn) points into y.grad_fn")
    grading.expect_equal(deps.get(mul), 1, what="the count of the MulBackward0 of 2 * x",
                         rule="one edge (from y.grad_fn) points into the MulBackward0")
    grading.expect_equal(L.grad_fn in deps, False, what="`L.grad_fn in deps` (the root)",
                         rule="only nodes that some edge points into are counted: nothing points into the root")

    chain = [ChainNode() for _ in range(20_000)]
    for node, below in zip(chain, chain[1:]):
        node.next_functions = ((below, 0), (None, 0))
    chain[-1].next_functions = ()
    with grading.checking("03.count_dependencies", fn):
        deps = call(fn, [chain[0]], what="count_dependencies on a chain of 20 000 nodes",
                    rule="count_dependencies must be iterative: walk with an explicit stack (a list), not "
                         "recursion; Python stops after a few thousand nested calls")
    grading.expect_equal(len(deps), 19_999, what="the number of nodes counted in a 20 000-node chain",
                         rule="every node but the root has exactly one edge pointing into it")
    grading.expect_equal(set(deps.values()), {1}, what="the set of counts in a chain",
                         rule="every node but the root has exactly one edge pointing into it")
    del chain, deps

    z = ag.tensor(1.0, requires_grad=True)
    ladder = z
    for _ in range(12):
        ladder = ladder + ladder               # two edges into the previous node, each time
    with grading.checking("03.count_dependencies", fn):
        deps = call(fn, [ladder.grad_fn], what="count_dependencies for y = y + y, 12 times",
                    rule=ANY_GRAPH)
    grading.expect_equal(sorted(deps.values()), [2] * 12,
                         what="the counts for y = y + y repeated 12 times (12 nodes below the root)",
                         rule="expand each node once (push it on the stack only the first time you meet it), "
                              "but count every edge: each node here has exactly 2 edges pointing into it")

    with grading.checking("03.count_dependencies", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() with your count_dependencies in the engine", rule=ANY_GRAPH)
    grading.expect_close(x.grad, [3.0], what="x.grad for L = (2*x + 5) + x, with your counts in the engine",
                         rule="with the right counts, x's AccumulateGrad runs once, after both gradients arrived")


def initial_gradients(fn):
    """Your ``initial_gradients`` for one-element outputs (0-d and shape (1,): the implicit ones),
    a given gradient of the right shape, and the errors PyTorch raises: more than one element
    without a gradient, a wrong shape (naming the position), a gradient that is not a tensor;
    then ``backward()`` with and without a gradient."""
    a = ag.tensor([2.0, 3.0], requires_grad=True)
    s = (a * a).sum()                          # shape ()
    one = a[:1] * 3.0                          # shape (1,)
    Q = a * a                                  # shape (2,)
    with grading.checking("03.initial_gradients", fn):
        r_scalar = call(fn, [s], [None], what="initial_gradients([s], [None]) for a 0-d s", rule=IMPLICIT)
        r_one = call(fn, [one], [None], what="initial_gradients([t], [None]) for t of shape (1,)",
                     rule=IMPLICIT)
        r_given = call(fn, [Q], [ag.tensor([1.0, -1.0])],
                       what="initial_gradients([Q], [v]) with v of Q's shape",
                       rule="a given gradient of the output's shape is used as it is")
    grading.expect_true(isinstance(r_scalar, (list, tuple)) and len(r_scalar) == 1, what="the result for one output",
                        seen=repr(r_scalar), rule="return a list with one gradient per output")
    grading.expect_close(r_scalar[0], 1.0, what="the implicit gradient of a 0-d output", rule=IMPLICIT)
    grading.expect_close(r_one[0], [1.0], what="the implicit gradient of an output of shape (1,)", rule=IMPLICIT)
    grading.expect_close(r_given[0], [1.0, -1.0], what="the gradient given for Q",
                         rule="a given gradient of the output's shape is used as it is")

    with grading.checking("03.initial_gradients", fn):
        grading.expect_raises(lambda: fn([Q], [None]), RuntimeError,
                              "grad can be implicitly created only for scalar outputs",
                              what="initial_gradients([Q], [None]) for Q of shape (2,)",
                              rule="only a single-element output has an implicit gradient: "
                                   "for more elements, raise the RuntimeError")
        grading.expect_raises(lambda: fn([Q], [ag.ones(3)]), RuntimeError,
                              f"Mismatch in shape: grad_output[0] has a shape of {ag.Size([3])} and "
                              f"output[0] has a shape of {ag.Size([2])}.",
                              what="initial_gradients([Q], [ones(3)]) for Q of shape (2,)",
                              rule="a given gradient must have the output's shape, else a RuntimeError")
        grading.expect_raises(lambda: fn([Q], [[1.0, 1.0]]), TypeError,
                              "gradients can be either Tensors or None, but got list",
                              what="initial_gradients([Q], [[1.0, 1.0]])",
                              rule="a gradient must be a Tensor or None: anything else is a TypeError "
                                   "naming its type (type(g).__name__)")
        grading.expect_raises(lambda: fn([Q], [np.ones(2)]), TypeError,
                              "gradients can be either Tensors or None, but got ndarray",
                              what="initial_gradients([Q], [np.ones(2)])",
                              rule="a gradient must be a Tensor or None: anything else is a TypeError "
                                   "naming its type (type(g).__name__)")
        grading.expect_raises(lambda: fn([s, Q], [None, ag.ones(3)]), RuntimeError,
                              f"Mismatch in shape: grad_output[1] has a shape of {ag.Size([3])} and "
                              f"output[1] has a shape of {ag.Size([2])}.",
                              what="initial_gradients([s, Q], [None, ones(3)])",
                              rule="the message names the position i of the pair: grad_output[i] and output[i]")

    with grading.checking("03.initial_gradients", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() for L of shape (1,)", rule=IMPLICIT)
        a = ag.tensor([2.0, 3.0], requires_grad=True)
        b = ag.tensor([6.0, 4.0], requires_grad=True)
        Q = 3 * a ** 3 - b ** 2
        call(lambda: Q.backward(gradient=ag.tensor([1.0, 1.0])), what="Q.backward(gradient=ones)",
             rule="a given gradient of the output's shape is used as it is")
    grading.expect_close(x.grad, [3.0], what="x.grad after L.backward() for L of shape (1,)", rule=IMPLICIT)
    grading.expect_close(a.grad, [36.0, 81.0], what="a.grad after Q.backward(gradient=ones)",
                         rule="a given gradient of the output's shape is used as it is")
    grading.expect_close(b.grad, [-12.0, -8.0], what="b.grad after Q.backward(gradient=ones)",
                         rule="a given gradient of the output's shape is used as it is")


def numerical_grad(fn):
    """Your ``numerical_grad`` on ``sum(x**3)`` (type, shape, dtype, values within eps**2, x left
    exactly as it was), on a float32 ``x``, on an ``x`` that requires grad (``f`` must run under
    ``no_grad``), with the default eps, and inside ``gradcheck``."""
    cube = lambda t: (t ** 3).sum()
    x = ag.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=ag.float64)
    before = x.numpy().copy()
    with grading.checking("03.numerical_grad", fn):
        r = call(fn, cube, x, 1e-3, what="numerical_grad(f, x, 1e-3)",
                 rule="numerical_grad(f, x, eps) works for any x: perturb one element at a time")
    grading.expect_true(isinstance(r, ag.Tensor), what="the type of the result", seen=type(r).__name__,
                        rule="return a Tensor: ag.tensor(result)")
    grading.expect_equal(tuple(r.shape), (2, 2), what="the shape of numerical_grad(f, x) for x of shape (2, 2)",
                         rule="one entry per element of x: the result has x's shape")
    grading.expect_equal(r.dtype, ag.float64, what="the dtype of the result",
                         rule="the numerical gradient is float64, whatever x's dtype")
    grading.expect_true(bool(np.any(r.numpy() != 0)), what="whether the result has a nonzero entry",
                        seen="all zeros",
                        rule="f must see the perturbed x: write into x's own storage through the view "
                             "x._data.reshape(-1) (flatten() and copies change nothing)")
    grading.expect_close(r, 3 * before ** 2, rtol=0, atol=1e-5, what="numerical_grad(sum(x**3), x, eps=1e-3)",
                         rule=CENTRAL)
    grading.expect_true(bool(np.array_equal(x.numpy(), before)), what="x == its value before numerical_grad",
                        seen=f"x = {x.numpy().tolist()} (before: {before.tolist()})",
                        rule="x must be exactly as before: save each original value and write it back "
                             "(adding and subtracting eps leaves rounding errors)")

    modes = []

    def spy(t):
        modes.append(ag.is_grad_enabled())
        return (t * t).sum()

    x32 = ag.tensor([1.0, 2.0])
    xg = ag.tensor([0.3, -1.2, 2.0], dtype=ag.float64, requires_grad=True)
    with grading.checking("03.numerical_grad", fn):
        r32 = call(fn, lambda t: (t * t).sum(), x32, 1e-2, what="numerical_grad(f, x) for a float32 x",
                   rule="numerical_grad(f, x, eps) works for any x")
        call(fn, spy, xg, what="numerical_grad(f, x) for an x that requires grad",
             rule="numerical_grad(f, x, eps) works for any x")
        r_default = call(fn, lambda t: (t.tanh() * t).sum(), xg.detach(),
                         what="numerical_grad(f, x) with the default eps", rule="numerical_grad(f, x, eps) works for any x")
        ok = call(ag.autograd.gradcheck, lambda t: (t * t).tanh(), (xg,),
                  what="ag.autograd.gradcheck(lambda t: (t * t).tanh(), (x,))",
                  rule="gradcheck builds its numerical Jacobian with your numerical_grad: it must agree with backward")
    grading.expect_equal(r32.dtype, ag.float64, what="the dtype of numerical_grad(f, x) for a float32 x",
                         rule="the numerical gradient is float64, whatever x's dtype")
    grading.expect_close(r32, [2.0, 4.0], rtol=1e-3, what="numerical_grad(sum(x*x), x) for a float32 x",
                         rule=CENTRAL)
    grading.expect_true(len(modes) > 0 and not any(modes), what="grad mode is off while f runs", seen=str(modes),
                        rule="evaluate f under ag.no_grad(): finite differences need values only, not a graph")
    t = np.array([0.3, -1.2, 2.0])
    grading.expect_close(r_default, np.tanh(t) + t * (1 - np.tanh(t) ** 2), atol=1e-7,
                         what="numerical_grad(sum(x * tanh(x)), x) with the default eps", rule=CENTRAL)
    grading.expect_equal(ok, True, what="gradcheck's verdict", rule="gradcheck with your numerical_grad returns True")


# ------------------------------------------------------------------ 03.execute

NEWEST = "among ready nodes the newest (highest _sequence_nr) runs first"
TIES = ("nodes with equal numbers (AccumulateGrad) come out in the heap's own order: compare the numbers "
        "alone, as PyTorch's priority queue does")
ONCE = "every node runs exactly once, after the last edge into it delivered (its count reached 0)"
SUM = "gradients arriving at the same output of a node add up before it runs"
NONE_EDGE = "every edge lowers its node's count, even when its gradient is None"
SKIP = "an edge whose node is not in dependencies (None, or a node not visited) is skipped"
LOOP = "execute runs the whole graph: a node's buffer, the ready queue, the counts"


class StandIn:
    """A stand-in for a backward node: what ``execute`` reads of a node (``next_functions``,
    ``num_outputs``, ``_sequence_nr``), and a name to print."""
    __slots__ = ("name", "next_functions", "num_outputs", "_sequence_nr")

    def __init__(self, name, sequence_nr, num_outputs=1):
        self.name, self._sequence_nr, self.num_outputs = name, sequence_nr, num_outputs
        self.next_functions = ()

    def __repr__(self):
        return self.name


class Trace:
    """A ``run_node`` for stand-in nodes: it records which node ran with which gradients,
    and passes on, along edge ``i``, the sum of what arrived times ``weights[node][i]``
    (None where the weight is None)."""

    def __init__(self, weights):
        self.weights, self.runs = weights, []

    def __call__(self, node, grads):
        self.runs.append((node.name, None if grads is None else list(grads)))
        total = sum(g for g in (grads or ()) if g is not None)
        return [None if w is None else total * w for w in self.weights.get(node.name, ())]


def run_stand_ins(fn, nodes, edges, roots, root_grads, weights):
    """Wire stand-in nodes (``edges``: {name: [(name or None, output_nr), ...]}), count their
    dependencies, run ``fn`` from ``roots`` ([(name, output_nr)]), return the trace's runs."""
    for name, out in edges.items():
        nodes[name].next_functions = tuple((None if n is None else nodes[n], nr) for n, nr in out)
    dependencies = {}
    for name, out in edges.items():
        for n, _ in out:
            if n is not None:
                dependencies[nodes[n]] = dependencies.get(nodes[n], 0) + 1
    trace = Trace(weights)
    with grading.checking("03.execute", fn):
        returned = call(fn, [(nodes[n], nr) for n, nr in roots], list(root_grads), dependencies, trace,
                        what="execute(root_edges, root_grads, dependencies, run_node) on stand-in nodes", rule=LOOP)
    grading.expect_equal(returned, None, what="what execute returns", rule="execute returns nothing (None)")
    return trace.runs


def node_order(loss, leaves, **backward):
    """The names of the nodes (and leaves' tensor hooks) of ``loss``'s graph in the order
    ``loss.backward(**backward)`` runs them, observed through hooks."""
    order, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen or type(node).__name__ == "AccumulateGrad":
            continue
        seen.add(node)
        node.register_hook(lambda grad_inputs, grad_outputs, node=node: order.append(node.name()))
        stack.extend(n for n, _ in node.next_functions)
    for name, leaf in leaves.items():
        leaf.register_hook(lambda grad, name=name: order.append(name))
    loss.backward(**backward)
    return order


def execute(fn):
    """Your ``execute`` on stand-in nodes: a diamond (R -> A, B -> D: the newest ready node runs
    first, D runs once with the two gradients summed), a node with two outputs fed by two
    parents, an edge whose gradient is None, a root listed twice, a root another root points
    into; then real backward passes: the node order PyTorch prints through hooks (ties among
    leaves included), and the gradients."""
    # R (4) -> A (2), B (3); A -> D (1); B -> D: the newest ready node first, D once, summed.
    nodes = {n: StandIn(n, s) for n, s in (("R", 4), ("A", 2), ("B", 3), ("D", 1))}
    runs = run_stand_ins(fn, nodes, {"R": [("A", 0), ("B", 0)], "A": [("D", 0)], "B": [("D", 0)], "D": []},
                         [("R", 0)], [1.0], {"R": [2.0, 3.0], "A": [10.0], "B": [100.0]})
    grading.expect_equal([name for name, _ in runs], ["R", "B", "A", "D"],
                         what="the order the nodes of R -> A (2), B (3) -> D ran in (sequence numbers in brackets)",
                         rule=NEWEST)
    grading.expect_equal(runs[-1], ("D", [320.0]), what="(node, gradients it ran with) for D, fed 20 by A and 300 by B",
                         rule=SUM)

    # M has two outputs: P feeds output 0, Q output 1.
    nodes = {n: StandIn(n, s, 2 if n == "M" else 1) for n, s in (("P", 5), ("Q", 4), ("M", 1), ("R", 6))}
    runs = run_stand_ins(fn, nodes, {"R": [("P", 0), ("Q", 0)], "P": [("M", 0)], "Q": [("M", 1)], "M": []},
                         [("R", 0)], [1.0], {"R": [1.0, 1.0], "P": [7.0], "Q": [5.0]})
    grading.expect_equal(runs[-1], ("M", [7.0, 5.0]), what="(node, gradients) for M, whose outputs 0 and 1 get 7 and 5",
                         rule="a node keeps one sum per output: the edge's output_nr says which")

    # E's edge from R carries None; E must still run (with what S sent).
    nodes = {n: StandIn(n, s) for n, s in (("R", 3), ("S", 2), ("E", 1))}
    runs = run_stand_ins(fn, nodes, {"R": [("E", 0), ("S", 0), (None, 0)], "S": [("E", 0)], "E": []},
                         [("R", 0)], [1.0], {"R": [None, 4.0, 9.0], "S": [0.5]})
    grading.expect_equal(runs, [("R", [1.0]), ("S", [4.0]), ("E", [2.0])],
                         what="the runs (node, gradients) when R sends None to E and 4 to S, S sends 2 to E",
                         rule=NONE_EDGE)

    # The same root twice, and a root (T) that the other root (R) points into.
    nodes = {n: StandIn(n, s) for n, s in (("R", 3), ("T", 2))}
    runs = run_stand_ins(fn, nodes, {"R": [("T", 0)], "T": []},
                         [("R", 0), ("T", 0), ("R", 0)], [1.0, 10.0, 2.0], {"R": [1.0]})
    grading.expect_equal(runs, [("R", [3.0]), ("T", [13.0])],
                         what="the runs for roots R, T, R with gradients 1, 10, 2 (R points into T)",
                         rule="each root runs once, with its gradients summed; a root that another root points "
                              "into waits for its count to reach 0")

    with grading.checking("03.execute", fn):
        x = ag.tensor([0.5, -1.0], requires_grad=True)
        L = (x * 2 + x.exp()).sum()
        order = call(node_order, L, {"x": x}, what="L.backward() for L = (x * 2 + x.exp()).sum()", rule=LOOP)
        leaves = {n: ag.ones(2, requires_grad=True) for n in "abcde"}
        ties = call(node_order, ag.stack([leaves[n] for n in "ebdac"]).sum(), leaves,
                    what="ag.stack([e, b, d, a, c]).sum().backward()", rule=LOOP)
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        p, q = w.unbind()
        call((p * 2 + q * 3).backward, what="(p * 2 + q * 3).backward() for p, q = w.unbind()", rule=LOOP)
    grading.expect_equal(order, ["SumBackward0", "AddBackward0", "ExpBackward0", "MulBackward0", "x"],
                         what="the order of the nodes for L = (x * 2 + x.exp()).sum() "
                              "(PyTorch's, printed by hooks)", rule=NEWEST)
    grading.expect_close(x.grad, 2 + np.exp([0.5, -1.0]), what="x.grad for L = (x * 2 + x.exp()).sum()", rule=SUM)
    grading.expect_equal(ties, ["SumBackward0", "StackBackward0", "e", "d", "c", "b", "a"],
                         what="the order of the nodes and the leaves' hooks for ag.stack([e, b, d, a, c]).sum() "
                              "(PyTorch's)", rule=TIES)
    grading.expect_close(w.grad, [2.0, 3.0], what="w.grad for p, q = w.unbind(), (p * 2 + q * 3).backward()",
                         rule="a node keeps one sum per output: the edge's output_nr says which")
