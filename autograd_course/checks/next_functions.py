"""Visible checks of assignment 02, exercise 2 (``record_node``), on the edges of a node: its
``next_functions``.

The exercise fills two slots in one answer cell (``collect_next_functions`` and
``record_node``), and every check here plugs both (``grading.checking`` with a dict).
``autograd_course.checks.graph`` (the notebook's ``check``) shows them; ``next_functions``
calls your ``collect_next_functions`` directly, ``next_functions_in_the_engine`` runs your two
functions inside the library's ops.  ``compare_collect`` and ``compare_built_graph`` are what
the hidden parts run on random inputs and graphs.  The rules are those of exercise 2
(``02.record_node``), whose task text states them; ``node_recording.py`` has the checks of
the node itself.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version

from .graph_labels import edge_names

__all__ = ["next_functions", "next_functions_in_the_engine", "collect_pool", "compare_collect",
           "random_built_graph", "compare_built_graph"]

NODE = grading.rules("02.record_node")


def _plugs(collect, record):
    return {"02.collect_next_functions": collect, "02.record_node": record}


def _collected(collect, inputs, what):
    """``collect(*inputs)`` as edge names, after its preconditions (it returns a tuple)."""
    edges = call(collect, *inputs, what=what, rule=NODE("edges"))
    grading.expect_equal(type(edges).__name__, "tuple", what=f"type({what})", rule=NODE("edges"))
    return edges


def next_functions(collect, record):
    """Your ``collect_next_functions`` called directly (your ``record_node`` plugged too):
    two leaves, constants and
    integer tensors in either place, non-leaves (``x * 2``, ``unbind`` outputs),
    ``None``, the same tensor twice, and no input at all."""
    x = ag.randn(3, requires_grad=True)
    y = ag.randn(3, requires_grad=True)
    c = ag.randn(3)
    with library_version("02"):                          # non-leaves, built with the library's code
        h = x * 2
        first, second = ag.randn(2, 3, requires_grad=True).unbind(0)
        x_edge, y_edge = x._gradient_edge(), y._gradient_edge()

    with grading.checking(_plugs(collect, record)):
        edges = _collected(collect, (x, y), "collect_next_functions(x, y)")
        grading.expect_equal(edge_names(edges), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                             what="collect_next_functions(x, y) for two leaves that require grad", rule=NODE("edges"))
        grading.expect_true(edges[0][0] is x_edge[0] and edges[1][0] is y_edge[0],
                            what="the nodes of collect_next_functions(x, y): x's node first, then y's",
                            seen="the nodes in another order, or other nodes", rule=NODE("edges"))

        for label, args, expected in [("(x, c)", (x, c), (("AccumulateGrad", 0), (None, 0))),
                                      ("(c, x)", (c, x), ((None, 0), ("AccumulateGrad", 0))),
                                      ("(c,)", (c,), ((None, 0),)),
                                      ("(i, x)", (ag.arange(3), x), ((None, 0), ("AccumulateGrad", 0))),
                                      ("(x, None, y)", (x, None, y),
                                       (("AccumulateGrad", 0), (None, 0), ("AccumulateGrad", 0)))]:
            what = f"collect_next_functions{label} (c: a float constant, i: an integer tensor)"
            edges = call(collect, *args, what=what, rule=NODE("no-edge"))
            grading.expect_equal(edge_names(edges), expected, what=what, rule=NODE("no-edge"))

        edges = _collected(collect, (h, c), "collect_next_functions(h, c)")
        grading.expect_equal(edge_names(edges), (("MulBackward0", 0), (None, 0)),
                             what="collect_next_functions(h, c) for h = x * 2", rule=NODE("edges"))
        grading.expect_true(edges[0][0] is h.grad_fn, what="`collect_next_functions(h, c)[0][0] is h.grad_fn`",
                            seen="another node", rule=NODE("edges"))
        grading.expect_equal(edge_names(collect(second, first)), (("UnbindBackward0", 1), ("UnbindBackward0", 0)),
                             what="collect_next_functions(second, first) for first, second = t.unbind(0)",
                             rule=NODE("edges"))
        edges = _collected(collect, (x, x), "collect_next_functions(x, x)")
        grading.expect_equal(len(edges), 2, what="len(collect_next_functions(x, x))", rule=NODE("edges"))
        grading.expect_true(edges[0][0] is x_edge[0] and edges[1][0] is x_edge[0],
                            what="the nodes of collect_next_functions(x, x): x's AccumulateGrad, twice",
                            seen=repr(edge_names(edges)), rule=NODE("edges"))
        grading.expect_equal(collect(), (), what="collect_next_functions() with no input", rule=NODE("edges"))


def _expect_built(label, build, expected, rule):
    """``build()`` (an op on tensors) records a node whose next_functions are ``expected``."""
    result = call(build, what=label, rule=rule)
    grading.expect_true(result.grad_fn is not None, what=f"({label}).grad_fn is a node", seen="None",
                        rule=NODE("one-node"))
    grading.expect_equal(edge_names(result.grad_fn.next_functions), expected, what=f"the next_functions of {label}",
                         rule=rule)


def next_functions_in_the_engine(collect, record):
    """Graphs built with your ``collect_next_functions`` and ``record_node``: the
    ``next_functions`` of ``x * y``, ``2 * x``,
    ``where``, ``addmm``, ``clamp`` with an absent bound and a non-leaf input, then
    the gradients that ``backward`` finds by following your edges (``x @ w``,
    ``exp``, and ``x * x``, the same tensor twice)."""
    with grading.checking(_plugs(collect, record)):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        z = call(lambda: x * y, what="x * y", rule=NODE("one-node"))
        grading.expect_true(z.grad_fn is not None, what="(x * y).grad_fn is a node", seen="None",
                            rule=NODE("one-node"))
        grading.expect_equal(type(z.grad_fn.next_functions).__name__, "tuple",
                             what="type((x * y).grad_fn.next_functions)", rule=NODE("edges"))
        grading.expect_equal(edge_names(z.grad_fn.next_functions), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                             what="(x * y).grad_fn.next_functions for two leaves that require grad", rule=NODE("edges"))
        grading.expect_true(z.grad_fn.next_functions[0][0].variable is x and z.grad_fn.next_functions[1][0].variable is y,
                            what="the nodes of (x * y).grad_fn.next_functions: x's node first, then y's",
                            seen="another order", rule=NODE("edges"))
        cond = ag.tensor([True, False, True])
        lo = ag.tensor([0.0, 3.0, 0.0], requires_grad=True)
        M = ag.ones(2, 3, requires_grad=True)
        m1, m2 = ag.ones(2, 4), ag.ones(4, 3, requires_grad=True)
        for label, build, expected, rule in [
                ("2 * x", lambda: 2 * x, (("AccumulateGrad", 0), (None, 0)), NODE("no-edge")),
                ("ag.where(cond, x, y)", lambda: ag.where(cond, x, y), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                 NODE("edges")),
                ("ag.addmm(M, m1, m2) with m1 constant", lambda: ag.addmm(M, m1, m2),
                 (("AccumulateGrad", 0), (None, 0), ("AccumulateGrad", 0)), NODE("no-edge")),
                ("ag.clamp(x, min=lo)", lambda: ag.clamp(x, min=lo),
                 (("AccumulateGrad", 0), ("AccumulateGrad", 0), (None, 0)), NODE("no-edge")),
                ("(x * y).exp() * 2", lambda: z.exp() * 2, (("ExpBackward0", 0), (None, 0)), NODE("edges"))]:
            _expect_built(label, build, expected, rule)

        ag.manual_seed(2)
        w = ag.randn(5, 3, requires_grad=True)
        data = ag.randn(1, 5)
        call(lambda: (data @ w).mean().backward(), what="(x @ w).mean().backward()", rule=NODE("edges"))
        grading.expect_close(w.grad, np.repeat(data.numpy().T, 3, axis=1) / 3, what="w.grad for z = (x @ w).mean()",
                             rule=NODE("no-edge"))
        c = ag.tensor([1.0, -1.0, 0.5])
        call(lambda: ((x * y).exp() * c).sum().backward(), what="((x * y).exp() * c).sum().backward()",
             rule=NODE("edges"))
        product = np.array([4.0, 10.0, 18.0])
        grading.expect_close(x.grad, np.exp(product) * [1.0, -1.0, 0.5] * [4.0, 5.0, 6.0], rtol=1e-4,
                             what="x.grad for ((x * y).exp() * c).sum()", rule=NODE("edges"))
        x.grad = None
        call(lambda: (x * x).sum().backward(), what="(x * x).sum().backward()", rule=NODE("edges"))
        grading.expect_close(x.grad, [2.0, 4.0, 6.0], what="x.grad for (x * x).sum()", rule=NODE("edges"))


def collect_pool(case):
    """Random inputs for ``collect_next_functions`` (built with the library's own code): a leaf,
    constants, None, non-leaves, unbind outputs, an integer tensor, a detached tensor."""
    with library_version("02"):
        leaf = ag.tensor(case.standard_normal(3), requires_grad=True)
        outputs = ag.tensor(case.standard_normal((3, 2)), requires_grad=True).unbind(0)
        pool = [leaf, ag.tensor(case.standard_normal(3)), None, (leaf * 3).sin(), outputs[1], outputs[2],
                ag.tensor(case.integers(0, 5, size=3)), leaf.detach()]
        inputs = [pool[int(i)] for i in case.integers(0, len(pool), size=int(case.integers(1, 6)))]
        expected = exercises.reference("02.collect_next_functions")(*inputs)
    return inputs, expected


def compare_collect(collect, record, case):
    """``collect`` on random inputs (``record`` plugged too) against the library's (returns nothing)."""
    inputs, expected = collect_pool(case)
    labels = ["None" if t is None else f"{'leaf' if t.is_leaf else type(t.grad_fn).__name__}"
              f"(requires_grad={t.requires_grad})" for t in inputs]
    what = f"collect_next_functions({', '.join(labels)})"
    with grading.checking(_plugs(collect, record)):
        seen = _collected(collect, inputs, what)
    grading.expect_equal(edge_names(seen), edge_names(expected), what=what,
                         rule=NODE("no-edge") if any(t is None or not t.requires_grad for t in inputs) else NODE("edges"))
    grading.expect_true(all(s[0] is e[0] for s, e in zip(seen, expected)), what=f"the nodes of {what}",
                        seen="other node objects", rule=NODE("edges"))


def random_built_graph(seed):
    """A random graph of ``mul``, ``2 * h + c``, ``where``, ``addmm``, ``clamp``, ``sin``,
    ``h * h`` and a part under ``no_grad`` over leaves ``a``, ``b`` and a constant: what the
    ``no_grad`` parts require, its nodes' names and next_functions, then the gradients of ``a``
    and ``b``."""
    rng = np.random.default_rng(seed)
    a = ag.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    b = ag.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    c = ag.tensor(rng.standard_normal((2, 2)))
    h, flags = a, []
    ops = [int(op) for op in rng.integers(0, 8, size=5)]
    ops.insert(int(rng.integers(0, 6)), 8)                # always a part under no_grad
    for op in ops:
        if op == 0:
            h = h * b
        elif op == 1:
            h = 2 * h + c
        elif op == 2:
            h = ag.where(c > 0, h, b)
        elif op == 3:
            h = ag.addmm(h, c, b)
        elif op == 4:
            h = ag.clamp(h, min=b)
        elif op == 5:
            h = h.sin() * h
        elif op == 6:
            h = (h * h).tanh()                # the same tensor twice
        elif op == 7:
            h = c @ h
        else:
            with ag.no_grad():
                k = h * 3
            flags.append((k.requires_grad, k.grad_fn is None))
            h = h + k
    loss = (h * b).sum()
    structure = [(ag.viz.node_name(n), type(n.next_functions).__name__, edge_names(n.next_functions))
                 for n in ag.viz.graph_nodes(loss)]
    loss.backward()
    return flags, structure, a.grad, b.grad


def compare_built_graph(collect, record, seed):
    """``random_built_graph(seed)`` built with your functions against the library's (returns nothing)."""
    with library_version("02"):
        expected_flags, expected_structure, expected_a, expected_b = random_built_graph(seed)
    with grading.checking(_plugs(collect, record)):
        flags, structure, grad_a, grad_b = call(random_built_graph, seed, what=f"a random graph (seed {seed})",
                                                rule=NODE("one-node"))
    grading.expect_equal(flags, expected_flags, what=f"(k.requires_grad, k.grad_fn is None) for k = h * 3 under "
                                                     f"no_grad in a random graph (seed {seed})", rule=NODE("when"))
    grading.expect_equal(structure, expected_structure,
                         what=f"the nodes of a random graph (seed {seed}) and their next_functions",
                         rule=NODE("edges", "no-edge"))
    grading.expect_close(grad_a, expected_a, what="a.grad", rtol=1e-4, rule=NODE("edges"))
    grading.expect_close(grad_b, expected_b, what="b.grad", rtol=1e-4, rule=NODE("edges"))
