"""Visible checks of assignment 02, exercise 1: ``gradient_edge``, the edge a tensor gives the
node that uses it (the slot ``Tensor._gradient_edge``).

``autograd_course.checks.graph`` (the notebook's ``check``) shows them; each function without
``compare_`` in its name is the visible part of one test cell, run on the function you wrote,
and its docstring says what it tries.  ``GRADIENT_EDGE_KINDS``, ``compare_gradient_edge`` and
``compare_training`` are what the hidden parts run, against the library's own edges.
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version, outcome

from .graph_labels import edge_name

__all__ = ["expect_edge_shape", "gradient_edge", "gradient_edge_in_the_engine", "GRADIENT_EDGE_KINDS",
           "random_tensor_of_kind", "compare_gradient_edge", "accumulate_grad_nodes", "train", "compare_training"]

EDGE = grading.rules("02.gradient_edge")


def expect_edge_shape(edge, what):
    """Preconditions: ``edge`` is a tuple of two entries."""
    grading.expect_equal(type(edge).__name__, "tuple", what=f"type({what})", rule=EDGE("tuple"))
    grading.expect_equal(len(edge), 2, what=f"len({what})", rule=EDGE("tuple"))


def gradient_edge(fn):
    """Your ``gradient_edge`` called directly on each kind of tensor: non-leaves
    (``y = base * 2`` and the second output of ``base.unbind(0)``), a leaf that
    requires grad (called twice: the same node),
    and tensors whose gradient goes nowhere (a constant, an integer tensor, ``w.detach()``, and
    ``v = w[:1]`` taken under ``no_grad``: it requires grad through its base only)."""
    base = ag.randn(2, 3, requires_grad=True)
    with library_version("02"):                          # non-leaves, built with the library's code
        y = base * 2
        first, second = base.unbind(0)
    w = ag.randn(2, 3, requires_grad=True)            # a leaf that no graph uses yet
    with library_version("02"), ag.no_grad():
        v = w[:1]                                     # a leaf view of w that requires grad

    with grading.checking("02.gradient_edge", fn):
        edge = call(fn, y, what="gradient_edge(y) for y = base * 2", rule=EDGE("non-leaf"))
        expect_edge_shape(edge, "gradient_edge(y)")
        grading.expect_equal(edge_name(edge), ("MulBackward0", 0), what="gradient_edge(y) for y = base * 2",
                             rule=EDGE("non-leaf"))
        grading.expect_true(edge[0] is y.grad_fn, what="`gradient_edge(y)[0] is y.grad_fn`",
                            seen="another node object", rule=EDGE("non-leaf"))
        grading.expect_equal(edge_name(fn(second)), ("UnbindBackward0", 1),
                             what="gradient_edge(second), first, second = base.unbind(0)", rule=EDGE("non-leaf"))

        edge = call(fn, w, what="gradient_edge(w) for a leaf w that requires grad", rule=EDGE("leaf"))
        expect_edge_shape(edge, "gradient_edge(w)")
        grading.expect_equal(edge_name(edge), ("AccumulateGrad", 0), what="gradient_edge(w) for a leaf w",
                             rule=EDGE("leaf"))
        grading.expect_true(edge[0].variable is w, what="`gradient_edge(w)[0].variable is w`",
                            seen="another tensor", rule=EDGE("leaf"))
        grading.expect_true(fn(w)[0] is edge[0], what="`gradient_edge(w)[0]`, called twice: the same node",
                            seen="two different AccumulateGrad objects", rule=EDGE("shared"))

        for name, t in [("a constant ag.randn(3)", ag.randn(3)), ("an integer tensor", ag.arange(3)),
                        ("w.detach()", w.detach()), ("v = w[:1] taken under no_grad", v)]:
            edge = call(fn, t, what=f"gradient_edge of {name}", rule=EDGE("no-grad"))
            grading.expect_equal(edge_name(edge), (None, 0), what=f"gradient_edge of {name}", rule=EDGE("no-grad"))


def gradient_edge_in_the_engine(fn):
    """Your edges inside the engine: a weight ``w`` used twice (``w * 2`` and
    ``w.exp()``) must share one ``AccumulateGrad`` and get both gradients; once its
    graph is gone the old node must be freed, and the next graphs must share a new
    node; ``backward(inputs=[v])`` must work with your edges (it uses them as dict keys)."""
    with grading.checking("02.gradient_edge", fn):
        w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = call(lambda: w * 2, what="w * 2 for a leaf w that requires grad", rule=EDGE("leaf"))
        b = w.exp()
        acc_a, acc_b = a.grad_fn.next_functions[0][0], b.grad_fn.next_functions[0][0]
        grading.expect_equal(type(acc_a).__name__, "AccumulateGrad",
                             what="type of (w * 2).grad_fn.next_functions[0][0]", rule=EDGE("leaf"))
        grading.expect_true(acc_a is acc_b, what="w's node in a = w * 2 and in b = w.exp(): one node",
                            seen="two different AccumulateGrad objects", rule=EDGE("shared"))
        grading.expect_true(acc_a.variable is w, what="`a.grad_fn.next_functions[0][0].variable is w`",
                            seen="another tensor", rule=EDGE("leaf"))

        (a.sum() + b.sum()).backward()
        grading.expect_close(w.grad, 2 + np.exp([0.5, -1.0, 2.0]), what="w.grad after (a.sum() + b.sum()).backward()",
                             rule=EDGE("shared"))

        probe = weakref.ref(acc_a)
        del a, b, acc_a, acc_b
        gc.collect()
        grading.expect_true(probe() is None, what="w's old AccumulateGrad, once its graphs are gone",
                            seen="it is still alive", rule=EDGE("not-kept-alive"))

        w.grad = None
        c, d = w * 3, w * 4                            # new graphs: w's old node is dead
        node, again = c.grad_fn.next_functions[0][0], d.grad_fn.next_functions[0][0]
        grading.expect_equal(type(node).__name__, "AccumulateGrad", what="w's node in a graph built after the old one died",
                             rule=EDGE("renewed"))
        grading.expect_true(node is again, what="w's new node in c = w * 3 and in d = w * 4: one node",
                            seen="two different AccumulateGrad objects", rule=EDGE("renewed"))
        c.sum().backward()
        grading.expect_close(w.grad, [3.0, 3.0, 3.0], what="w.grad after (w * 3).sum().backward()",
                             rule=EDGE("renewed"))

        v = ag.tensor([1.0, 2.0], requires_grad=True)
        u = ag.tensor([3.0, 4.0], requires_grad=True)
        call(lambda: (v * u).sum().backward(inputs=[v]), what="(v * u).sum().backward(inputs=[v])",
             rule=EDGE("tuple"))
        grading.expect_close(v.grad, [3.0, 4.0], what="v.grad after (v * u).sum().backward(inputs=[v])",
                             rule=EDGE("tuple"))


# Each kind of tensor: (the rule that decides its edge, the rule that a second call grades).
GRADIENT_EDGE_KINDS = {
    "leaf": (EDGE("leaf"), EDGE("shared")), "float64 leaf": (EDGE("leaf"), EDGE("shared")),
    "constant": (EDGE("no-grad"), EDGE("no-grad")), "integer": (EDGE("no-grad"), EDGE("no-grad")),
    "detached": (EDGE("no-grad"), EDGE("no-grad")), "non-leaf": (EDGE("non-leaf"), EDGE("non-leaf")),
    "unbind output": (EDGE("non-leaf"), EDGE("non-leaf")), "view": (EDGE("non-leaf"), EDGE("non-leaf")),
    "leaf whose node died": (EDGE("renewed"), EDGE("renewed")),
    "view taken under no_grad": (EDGE("no-grad"), EDGE("no-grad"))}


def random_tensor_of_kind(kind, case):
    """A tensor of ``kind`` (a key of ``GRADIENT_EDGE_KINDS``) with random values and shape, built
    with the library's own code (a leaf whose node died: its AccumulateGrad made, then freed)."""
    shape = tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(0, 3))))
    data = case.standard_normal(shape)
    with library_version("02"):
        leaf = ag.tensor(data, requires_grad=True)
        if kind == "leaf whose node died":
            graph = leaf * 2                          # the library makes leaf's AccumulateGrad ...
            del graph                                 # ... and it dies with the graph
            gc.collect()
            return leaf, shape
        return {
            "leaf": lambda: leaf,
            "constant": lambda: ag.tensor(data),
            "integer": lambda: ag.tensor(case.integers(-5, 5, size=shape)),
            "non-leaf": lambda: (leaf * float(case.uniform(1, 2))).exp(),
            "unbind output": lambda: ag.tensor(case.standard_normal((3, 2)),
                                               requires_grad=True).unbind(0)[int(case.integers(1, 3))],
            "view": lambda: leaf.reshape(-1),
            "view taken under no_grad": lambda: _no_grad_view(leaf),
            "detached": lambda: (leaf * 2).detach(),
            "float64 leaf": lambda: ag.tensor(data, dtype=ag.float64, requires_grad=True),
        }[kind](), shape


def _no_grad_view(leaf):
    """A view of ``leaf`` taken under ``no_grad``: a leaf that requires grad through its base only."""
    with ag.no_grad():
        return leaf.reshape(-1)


def compare_gradient_edge(fn, kind, case):
    """``fn`` on a random tensor of ``kind`` (a key of ``GRADIENT_EDGE_KINDS``), called twice,
    against the library's edge of the same tensor (returns nothing: a test cell may end with it)."""
    _compare_gradient_edge(fn, kind, case, *GRADIENT_EDGE_KINDS[kind])


def _compare_gradient_edge(fn, kind, case, rule, same):
    reference = exercises.reference("02.gradient_edge")
    tensor, shape = random_tensor_of_kind(kind, case)
    what = f"gradient_edge of a {kind} of shape {shape}"
    if kind == "leaf whose node died":                # your function must make the new node
        with grading.checking("02.gradient_edge", fn):
            seen = call(fn, tensor, what=what, rule=rule)
            again = fn(tensor)
        expected = reference(tensor)
    else:                                             # for a leaf: the node is made here and must be reused
        expected = reference(tensor)
        with grading.checking("02.gradient_edge", fn):
            seen = call(fn, tensor, what=what, rule=rule)
            again = fn(tensor)
    expect_edge_shape(seen, what)
    grading.expect_equal(edge_name(seen), edge_name(expected), what=what, rule=rule)
    grading.expect_true(seen[0] is expected[0], what=f"the node of the {what}", seen="another node object",
                        rule=same)
    grading.expect_true(again[0] is seen[0], what=f"the node of the {what}, called twice", seen="another node object",
                        rule=same)


def accumulate_grad_nodes(root):
    """The distinct AccumulateGrad objects in the graph of ``root``."""
    found, seen, stack = {}, set(), [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ag.graph.AccumulateGrad):
            found[id(node)] = node
        stack.extend(next_node for next_node, _ in node.next_functions)
    return list(found.values())


def train(seed, steps=3):
    """A few training steps of two leaves ``W`` and ``bias`` with data-dependent graphs: the
    gradients, the number of AccumulateGrad nodes in each step's graph, and whether every
    step's nodes were freed once its graph was gone (while ``W`` and ``bias`` live on)."""
    rng = np.random.default_rng(seed)
    W = ag.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    bias = ag.tensor(rng.standard_normal(4), requires_grad=True)
    leaves_per_step, probes = [], []
    for step in range(steps):
        x = ag.tensor(rng.standard_normal((2, 3)))
        h = x @ W + bias
        for _ in range(int(rng.integers(1, 4))):
            h = (h * bias).tanh() if h.sum() > 0 else h.sin() + bias
        loss = (h * h).mean()
        nodes = accumulate_grad_nodes(loss)
        leaves_per_step.append(len(nodes))
        probes += [weakref.ref(n) for n in nodes]
        loss.backward(inputs=[W, bias] if step == steps - 1 else None)
        del loss, h, nodes
    gc.collect()
    return W.grad, bias.grad, leaves_per_step, all(p() is None for p in probes)


def compare_training(fn, seed):
    """``train(seed)`` with ``fn`` plugged against the library's (returns nothing)."""
    with library_version("02"):
        expected_W, expected_bias, _, _ = train(seed)
    with grading.checking("02.gradient_edge", fn):
        seen_W, seen_bias, leaves_per_step, freed = call(train, seed, what="three training steps",
                                                         rule=EDGE("leaf"))
    grading.expect_equal(leaves_per_step, [2, 2, 2], what="AccumulateGrad nodes per step (2 leaves: W and bias)",
                         rule=EDGE("shared"))
    grading.expect_equal(freed, True, what="every step's AccumulateGrad nodes freed once its graph is gone",
                         rule=EDGE("not-kept-alive"))
    grading.expect_close(seen_W, expected_W, what="W.grad after 3 training steps", rule=EDGE("renewed"))
    grading.expect_close(seen_bias, expected_bias, what="bias.grad after 3 training steps", rule=EDGE("renewed"))
