"""Visible checks of assignment 02: the computational graph.

Each function is the visible part of one test cell, run on the function(s) you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  Every failure names a rule of the exercise's
task text.  ``edge_name`` and ``edge_names``, which the notebook's setup cell
imports, show edges without memory addresses.

Why one module of this length: it is the visible half of the notebook's 8 test cells, one
function per cell, and the helpers their hidden parts share (random graphs, comparisons with
the library's own walk and recording), kept together so that a student reads one file per
notebook.
"""

import contextlib
import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version, outcome

__all__ = ["edge_name", "edge_names", "node_labels", "gradient_edge", "gradient_edge_in_the_engine",
           "next_functions", "next_functions_in_the_engine", "record_node", "record_node_in_the_engine",
           "graph_nodes", "graph_nodes_in_viz"]

EDGE = grading.rules("02.gradient_edge")
NODE = grading.rules("02.record_node")
WALK = grading.rules("02.graph_nodes")


def edge_name(edge):
    """An edge (node, output_nr) as (node class name or None, output_nr): no memory address."""
    node, output_nr = edge
    return (None if node is None else type(node).__name__, output_nr)


def edge_names(edges):
    """Every edge of a node's next_functions, as edge_name does it."""
    return tuple(edge_name(edge) for edge in edges)


def node_labels(nodes):
    """``{id(node): label}`` for the nodes of ``nodes``: the class name, and ``#k`` after it when
    several of them share that name (numbered in creation order; nodes of equal creation number,
    such as the ``AccumulateGrad`` nodes, in the order given)."""
    distinct = list({id(n): n for n in nodes if n is not None}.values())
    groups = {}
    for node in distinct:
        groups.setdefault(type(node).__name__, []).append(node)
    labels = {}
    for name, group in groups.items():
        if len(group) == 1:
            labels[id(group[0])] = name
            continue
        for k, node in enumerate(sorted(group, key=lambda n: getattr(n, "_sequence_nr", 0)), 1):
            labels[id(node)] = f"{name} #{k}"
    return labels


def _plugs(collect, record):
    return {"02.collect_next_functions": collect, "02.record_node": record}


# ------------------------------------------------------------------ 02.gradient_edge

def expect_edge_shape(edge, what):
    """Preconditions: ``edge`` is a tuple of two entries."""
    grading.expect_equal(type(edge).__name__, "tuple", what=f"type({what})", rule=EDGE("tuple"))
    grading.expect_equal(len(edge), 2, what=f"len({what})", rule=EDGE("tuple"))


def gradient_edge(fn):
    """Your ``gradient_edge`` called directly on each kind of tensor: non-leaves
    (``y = base * 2`` and the second output of ``base.unbind(0)``), a leaf that
    requires grad (called twice: the same node, found again through ``_accumulator``),
    and tensors that need no gradient (a constant, an integer tensor, ``w.detach()``)."""
    base = ag.randn(2, 3, requires_grad=True)
    with library_version("02"):                          # non-leaves, built with the library's code
        y = base * 2
        first, second = base.unbind(0)
    w = ag.randn(2, 3, requires_grad=True)            # a leaf that no graph uses yet

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
        kept = w._accumulator
        found = (f"w._accumulator is a {type(kept).__name__}, which cannot be called" if not callable(kept) else
                 "w._accumulator is the node itself: calling a node runs it" if isinstance(kept, ag.graph.Node) else
                 outcome(kept))
        grading.expect_true(found is edge[0], what="`w._accumulator() is gradient_edge(w)[0]`",
                            seen=found if isinstance(found, str) else "another object", rule=EDGE("found-again"))

        for name, t in [("a constant ag.randn(3)", ag.randn(3)), ("an integer tensor", ag.arange(3)),
                        ("w.detach()", w.detach())]:
            edge = call(fn, t, what=f"gradient_edge of {name}", rule=EDGE("no-grad"))
            grading.expect_equal(edge_name(edge), (None, 0), what=f"gradient_edge of {name}", rule=EDGE("no-grad"))
            grading.expect_true(t._accumulator is None, what=f"`t._accumulator is None` for t = {name}",
                                seen=repr(t._accumulator), rule=EDGE("no-grad"))


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
    "leaf whose node died": (EDGE("renewed"), EDGE("renewed"))}


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
            "detached": lambda: (leaf * 2).detach(),
            "float64 leaf": lambda: ag.tensor(data, dtype=ag.float64, requires_grad=True),
        }[kind](), shape


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


# ------------------------------------------------------------------ 02.record_node (and collect_next_functions)

def _collected(collect, inputs, what):
    """``collect(*inputs)`` as edge names, after its preconditions (it returns a tuple)."""
    edges = call(collect, *inputs, what=what, rule=NODE("edges"))
    grading.expect_equal(type(edges).__name__, "tuple", what=f"type({what})", rule=NODE("edges"))
    return edges


def next_functions(collect):
    """Your ``collect_next_functions`` called directly (the library's ``record_node`` around it):
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

    with grading.checking("02.collect_next_functions", collect):
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


def next_functions_in_the_engine(collect):
    """Graphs built with your ``collect_next_functions`` (and the library's ``record_node``): the
    ``next_functions`` of ``x * y``, ``2 * x``,
    ``where``, ``addmm``, ``clamp`` with an absent bound and a non-leaf input, then
    the gradients that ``backward`` finds by following your edges (``x @ w``,
    ``exp``, and ``x * x``, the same tensor twice)."""
    with grading.checking("02.collect_next_functions", collect):
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


def compare_collect(collect, case):
    """``collect`` on random inputs against the library's (returns nothing)."""
    inputs, expected = collect_pool(case)
    labels = ["None" if t is None else f"{'leaf' if t.is_leaf else type(t.grad_fn).__name__}"
              f"(requires_grad={t.requires_grad})" for t in inputs]
    what = f"collect_next_functions({', '.join(labels)})"
    with grading.checking("02.collect_next_functions", collect):
        seen = _collected(collect, inputs, what)
    grading.expect_equal(edge_names(seen), edge_names(expected), what=what,
                         rule=NODE("no-edge") if any(t is None or not t.requires_grad for t in inputs) else NODE("edges"))
    grading.expect_true(all(s[0] is e[0] for s, e in zip(seen, expected)), what=f"the nodes of {what}",
                        seen="other node objects", rule=NODE("edges"))


def random_built_graph(seed):
    """A random graph of ``mul``, ``2 * h + c``, ``where``, ``addmm``, ``clamp``, ``sin`` and
    ``h * h`` over leaves ``a``, ``b`` and a constant: its nodes' names and next_functions, then the
    gradients of ``a`` and ``b``."""
    rng = np.random.default_rng(seed)
    a = ag.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    b = ag.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    c = ag.tensor(rng.standard_normal((2, 2)))
    h = a
    for op in rng.integers(0, 8, size=5):
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
        else:
            h = c @ h
    loss = (h * b).sum()
    structure = [(ag.viz.node_name(n), type(n.next_functions).__name__, edge_names(n.next_functions))
                 for n in ag.viz.graph_nodes(loss)]
    loss.backward()
    return structure, a.grad, b.grad


def compare_built_graph(collect, seed):
    """``random_built_graph(seed)`` built with your functions against the library's (returns nothing)."""
    with library_version("02"):
        expected_structure, expected_a, expected_b = random_built_graph(seed)
    with grading.checking("02.collect_next_functions", collect):
        structure, grad_a, grad_b = call(random_built_graph, seed, what=f"a random graph (seed {seed})",
                                         rule=NODE("one-node"))
    grading.expect_equal(structure, expected_structure,
                         what=f"the nodes of a random graph (seed {seed}) and their next_functions",
                         rule=NODE("edges", "no-edge"))
    grading.expect_close(grad_a, expected_a, what="a.grad", rtol=1e-4, rule=NODE("edges"))
    grading.expect_close(grad_b, expected_b, what="b.grad", rtol=1e-4, rule=NODE("edges"))


class HandMadeBackward0(ag.graph.Node):
    """The node class of a hand-made op with one input, for outputs of the checks' choosing."""
    input_names = ("self",)


def meta_names(meta):
    """A node's ``_input_meta`` as it can be printed and compared: per input ``None`` or
    ``(shape, "numpy.<dtype>")``; a dtype that is not NumPy's shows its type."""
    if not isinstance(meta, (tuple, list)):
        return f"not a tuple but a {type(meta).__name__}"
    names = []
    for entry in meta:
        if entry is None:
            names.append(None)
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            shape, dtype = entry
            names.append((tuple(shape) if isinstance(shape, tuple) else f"{type(shape).__name__} {shape!r}",
                          f"numpy.{dtype}" if isinstance(dtype, np.dtype) else f"{type(dtype).__name__} {dtype}"))
        else:
            names.append(f"not a pair (shape, dtype): {entry!r}")
    return tuple(names)


def _hooked(node, outputs):
    """Per output: "the node" when its grad_fn is ``node``, None when it has none, else its class name."""
    return [None if t.grad_fn is None else "the node" if node is not None and t.grad_fn is node
            else type(t.grad_fn).__name__ for t in outputs]


def expect_record(node, outputs, inputs, expected_node, expected_outputs, what, fresh=()):
    """What a ``record_node`` did (it returned ``node`` and changed ``outputs``) against the
    library's result for the same call (``expected_node``, ``expected_outputs``), judged in the
    grad mode of the call.  ``fresh``: leaves requiring grad that had no AccumulateGrad before."""
    if expected_node is None:
        grading.expect_true(node is None, what=f"what {what} returned", seen=f"a {type(node).__name__}",
                            rule=NODE("when"))
        grading.expect_equal(_hooked(None, outputs), [None] * len(outputs),
                             what=f"the outputs' grad_fn after {what}", rule=NODE("no-trace"))
        grading.expect_equal([t._accumulator is None for t in fresh], [True] * len(fresh),
                             what=f"`t._accumulator is None` for the leaves given to {what}", rule=NODE("no-trace"))
        return
    grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
    grading.expect_equal(type(node).__name__, type(expected_node).__name__, what=f"the node {what} returned",
                         rule=NODE("one-node"))
    floating = [t.dtype.is_floating_point for t in outputs]
    hooked = _hooked(node, outputs)
    grading.expect_equal([h for h, f in zip(hooked, floating) if not f], [None] * floating.count(False),
                         what=f"the grad_fn of the integer and bool outputs after {what}", rule=NODE("output-nr"))
    grading.expect_equal(hooked, _hooked(expected_node, expected_outputs),
                         what=f"the outputs' grad_fn after {what}", rule=NODE("one-node"))
    grading.expect_equal([t._output_nr for t in outputs], [t._output_nr for t in expected_outputs],
                         what=f"the outputs' _output_nr after {what}", rule=NODE("output-nr"))
    grading.expect_equal(node.num_outputs, expected_node.num_outputs, what=f"node.num_outputs after {what}",
                         rule=NODE("num-outputs"))
    edges = node.next_functions
    grading.expect_equal(edge_names(edges) if isinstance(edges, tuple) else f"a {type(edges).__name__}",
                         edge_names(expected_node.next_functions), what=f"node.next_functions after {what}",
                         rule=NODE("edges", "no-edge"))
    grading.expect_true(all(s[0] is e[0] for s, e in zip(edges, expected_node.next_functions)),
                        what=f"the nodes in node.next_functions after {what}", seen="other node objects",
                        rule=NODE("edges"))
    grading.expect_equal(meta_names(node._input_meta), meta_names(expected_node._input_meta),
                         what=f"node._input_meta after {what}", rule=NODE("input-meta"))


def compare_record(collect, record, node_cls, inputs, make_outputs, what, grad_enabled=True):
    """``record(node_cls, inputs, make_outputs())`` against the library's ``record_node`` on outputs
    made again, both with grad mode on or off (returns nothing: a test cell may end with it)."""
    fresh = [t for t in inputs if t is not None and t.is_leaf and t.requires_grad and t._accumulator is None]
    outputs, expected_outputs = make_outputs(), make_outputs()
    with contextlib.nullcontext() if grad_enabled else ag.no_grad():
        with grading.checking(_plugs(collect, record)):
            node = call(record, node_cls, inputs, outputs, what=what, rule=NODE("one-node"))
        with library_version("02"):               # the library's edges too, whatever you plugged
            expected_node = exercises.reference("02.record_node")(node_cls, inputs, expected_outputs)
        expect_record(node, outputs, inputs, expected_node, expected_outputs, what, fresh)


def record_node(collect, record):
    """Your ``record_node`` called directly, as ``record`` calls it: ``x * c`` (``x`` a float32
    leaf that requires grad, ``c`` a float64 constant of another shape), ``clamp(h, min=lo)``
    (a non-leaf input and an absent ``max``), the three rows of a matrix as the outputs of one
    node, an integer output before a floating one, integer outputs only, constant inputs, and
    ``x * c`` again under ``no_grad``.  Each time it looks at what you returned, the outputs'
    ``grad_fn`` and ``_output_nr``, and the node's ``next_functions``, ``_input_meta`` and
    ``num_outputs``."""
    rules = ag.recording.RULES
    x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
    c = ag.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]], dtype=ag.float64)
    lo = ag.tensor([0.0, 2.0, 0.0], requires_grad=True)
    m = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    with library_version("02"):
        h = x.exp()                                     # a non-leaf
        x_node, lo_node, m_node = x._gradient_edge()[0], lo._gradient_edge()[0], m._gradient_edge()[0]
    values = x.detach().numpy()

    with grading.checking(_plugs(collect, record)):
        out = ag.tensor(values * c.numpy())
        what = "record_node(MulBackward0, (x, c), (out,)) for out = x * c"
        node = call(record, rules["mul.Tensor"], (x, c), (out,), what=what, rule=NODE("one-node"))
        grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
        grading.expect_equal(type(node).__name__, "MulBackward0", what=f"what {what} returned", rule=NODE("one-node"))
        grading.expect_true(out.grad_fn is node, what=f"`out.grad_fn is node` after {what}",
                            seen=repr(type(out.grad_fn).__name__), rule=NODE("one-node"))
        grading.expect_equal((out._output_nr, out.requires_grad, out.is_leaf), (0, True, False),
                             what=f"(out._output_nr, out.requires_grad, out.is_leaf) after {what}",
                             rule=NODE("output-nr"))
        grading.expect_equal(edge_names(node.next_functions), (("AccumulateGrad", 0), (None, 0)),
                             what=f"node.next_functions after {what}", rule=NODE("edges", "no-edge"))
        grading.expect_true(node.next_functions[0][0] is x_node, what=f"`node.next_functions[0][0]` after {what}",
                            seen="another node than x's AccumulateGrad", rule=NODE("edges"))
        grading.expect_equal(meta_names(node._input_meta), (((3,), "numpy.float32"), ((2, 3), "numpy.float64")),
                             what=f"node._input_meta after {what}", rule=NODE("input-meta"))
        grading.expect_equal(node.num_outputs, 1, what=f"node.num_outputs after {what}", rule=NODE("num-outputs"))

        out = ag.tensor(np.maximum(np.exp(values), lo.detach().numpy()))
        what = "record_node(ClampBackward0, (h, lo, None), (out,)) for out = clamp(h, min=lo), h = x.exp()"
        node = call(record, rules["clamp.Tensor"], (h, lo, None), (out,), what=what, rule=NODE("no-edge"))
        grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
        grading.expect_equal(edge_names(node.next_functions), (("ExpBackward0", 0), ("AccumulateGrad", 0), (None, 0)),
                             what=f"node.next_functions after {what}", rule=NODE("no-edge"))
        grading.expect_true(node.next_functions[0][0] is h.grad_fn and node.next_functions[1][0] is lo_node,
                            what=f"the nodes in node.next_functions after {what}", seen="other node objects",
                            rule=NODE("edges"))
        grading.expect_equal(meta_names(node._input_meta), (((3,), "numpy.float32"), ((3,), "numpy.float32"), None),
                             what=f"node._input_meta after {what}", rule=NODE("input-meta"))

        rows = tuple(ag.tensor(row) for row in m.detach().numpy())
        what = "record_node(UnbindBackward0, (m,), rows) for the 3 rows of m"
        node = call(record, rules["unbind.int"], (m,), rows, what=what, rule=NODE("one-node"))
        grading.expect_equal(_hooked(node, rows), ["the node"] * 3, what=f"the rows' grad_fn after {what}",
                             rule=NODE("one-node"))
        grading.expect_equal([row._output_nr for row in rows], [0, 1, 2], what=f"the rows' _output_nr after {what}",
                             rule=NODE("output-nr"))
        grading.expect_equal(node.num_outputs, 3, what=f"node.num_outputs after {what}", rule=NODE("num-outputs"))
        grading.expect_true(node.next_functions[0][0] is m_node, what=f"node.next_functions[0][0] after {what}",
                            seen=repr(edge_names(node.next_functions)), rule=NODE("edges"))

        indices, doubled = ag.tensor([2, 0, 1]), ag.tensor(values * 2)
        what = "record_node(HandMadeBackward0, (x,), (indices, doubled)): an int64 output, then a float32 one"
        node = call(record, HandMadeBackward0, (x,), (indices, doubled), what=what, rule=NODE("output-nr"))
        grading.expect_equal((indices.grad_fn, indices.requires_grad), (None, False),
                             what=f"(indices.grad_fn, indices.requires_grad) after {what}", rule=NODE("output-nr"))
        grading.expect_true(node is not None, what=f"what {what} returned", seen="None", rule=NODE("when"))
        grading.expect_equal(_hooked(node, (doubled,)), ["the node"], what=f"doubled.grad_fn after {what}",
                             rule=NODE("one-node"))
        grading.expect_equal(doubled._output_nr, 1, what=f"doubled._output_nr after {what}", rule=NODE("output-nr"))
        grading.expect_equal(node.num_outputs, 2, what=f"node.num_outputs after {what}", rule=NODE("num-outputs"))

        fresh = ag.tensor([1.0, 2.0], requires_grad=True)
        signs = ag.tensor([True, False])
        what = "record_node(HandMadeBackward0, (w,), (signs,)) for a leaf w and a bool output"
        grading.expect_true(call(record, HandMadeBackward0, (fresh,), (signs,), what=what, rule=NODE("when")) is None,
                            what=f"what {what} returned", seen="a node", rule=NODE("when"))
        grading.expect_equal((signs.grad_fn, fresh._accumulator), (None, None),
                             what=f"(signs.grad_fn, w._accumulator) after {what}", rule=NODE("no-trace"))

        out = ag.tensor(c.numpy() * 2)
        what = "record_node(MulBackward0, (c, two), (out,)) for constants c and two"
        grading.expect_true(call(record, rules["mul.Tensor"], (c, ag.tensor(2.0)), (out,), what=what,
                                 rule=NODE("when")) is None,
                            what=f"what {what} returned", seen="a node", rule=NODE("when"))
        grading.expect_equal((out.grad_fn, out.requires_grad), (None, False),
                             what=f"(out.grad_fn, out.requires_grad) after {what}", rule=NODE("no-trace"))

        fresh = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = ag.tensor(values * c.numpy())
        what = "record_node(MulBackward0, (w, c), (out,)) inside `with ag.no_grad():` (w a leaf that requires grad)"
        with ag.no_grad():
            node = call(record, rules["mul.Tensor"], (fresh, c), (out,), what=what, rule=NODE("when"))
        grading.expect_true(node is None, what=f"what {what} returned", seen=f"a {type(node).__name__}",
                            rule=NODE("when"))
        grading.expect_equal((out.grad_fn, out.requires_grad, fresh._accumulator), (None, False, None),
                             what=f"(out.grad_fn, out.requires_grad, w._accumulator) after {what}",
                             rule=NODE("no-trace"))


def rows_of(m):
    """The rows of matrix ``m`` as new tensors, recorded as the outputs of one ``UnbindBackward0``
    through ``recording.record_node`` (a hand-made ``m.unbind(0)``)."""
    outputs = tuple(ag.tensor(row) for row in m.detach().numpy())
    node = ag.recording.record_node(ag.recording.RULES["unbind.int"], (m,), outputs)
    if node is not None:                        # what its formula needs: record's saving step keeps it
        node._params = {"self_shape": m.shape, "dim": 0}
    return outputs


def record_node_in_the_engine(collect, record):
    """Graphs recorded by your functions: ``y = x * c`` (a float32 ``x`` of shape (3,), a float64
    ``c`` of shape (2, 3)) and the gradient backward gives ``x`` (its shape and dtype come from
    ``_input_meta``); ``x * 2`` under ``no_grad``; ``clamp`` with an absent bound; ``a * b`` for
    two outputs of ``unbind``; and the rows of a matrix recorded by hand as the three outputs of
    one node (``rows_of``), whose gradients must reach the right rows."""
    with grading.checking(_plugs(collect, record)):
        x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
        c = ag.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]], dtype=ag.float64)
        y = call(lambda: x * c, what="x * c", rule=NODE("one-node"))
        grading.expect_true(y.grad_fn is not None, what="(x * c).grad_fn is a node", seen="None", rule=NODE("when"))
        grading.expect_equal((type(y.grad_fn).__name__, edge_names(y.grad_fn.next_functions)),
                             ("MulBackward0", (("AccumulateGrad", 0), (None, 0))),
                             what="y.grad_fn and its next_functions for y = x * c", rule=NODE("edges", "no-edge"))
        call(lambda: (y * y).sum().backward(), what="(y * y).sum().backward()", rule=NODE("input-meta"))
        grading.expect_equal((tuple(x.grad.shape), str(x.grad.dtype)), ((3,), "autograd_lib.float32"),
                             what="(x.grad.shape, x.grad.dtype) for (y * y).sum(), y = x * c", rule=NODE("input-meta"))
        grading.expect_close(x.grad, (2 * np.array([1.0, -2.0, 3.0]) * c.numpy() ** 2).sum(0),
                             what="x.grad for (y * y).sum(), y = x * c", rule=NODE("input-meta"))

        with ag.no_grad():
            z = call(lambda: x * 2, what="x * 2 under no_grad", rule=NODE("when"))
        grading.expect_equal((z.grad_fn, z.requires_grad), (None, False),
                             what="(z.grad_fn, z.requires_grad) for z = x * 2 under no_grad", rule=NODE("when"))

        lo = ag.tensor([0.0, 5.0, 0.0], requires_grad=True)
        q = call(lambda: ag.clamp(x.exp(), min=lo), what="ag.clamp(x.exp(), min=lo)", rule=NODE("one-node"))
        grading.expect_equal(edge_names(q.grad_fn.next_functions),
                             (("ExpBackward0", 0), ("AccumulateGrad", 0), (None, 0)),
                             what="the next_functions of ag.clamp(x.exp(), min=lo)", rule=NODE("no-edge"))
        grading.expect_equal(meta_names(q.grad_fn._input_meta), (((3,), "numpy.float32"), ((3,), "numpy.float32"), None),
                             what="the _input_meta of ag.clamp(x.exp(), min=lo)", rule=NODE("input-meta"))

        m = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        a, b = m[:2].unbind(0)
        call(lambda: (a * b).sum().backward(), what="(a * b).sum().backward() for a, b = m[:2].unbind(0)",
             rule=NODE("output-nr"))
        grading.expect_close(m.grad, [[3.0, 4.0], [1.0, 2.0], [0.0, 0.0]],
                             what="m.grad for (a * b).sum(), a, b = m[:2].unbind(0)", rule=NODE("output-nr"))

        m.grad = None
        top, middle, bottom = call(rows_of, m, what="rows_of(m)", rule=NODE("one-node"))
        grading.expect_equal([t._output_nr for t in (top, middle, bottom)], [0, 1, 2],
                             what="the _output_nr of top, middle, bottom = rows_of(m)", rule=NODE("output-nr"))
        call(lambda: (top + 3 * bottom).sum().backward(), what="(top + 3 * bottom).sum().backward()",
             rule=NODE("num-outputs"))
        grading.expect_close(m.grad, [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]],
                             what="m.grad for (top + 3 * bottom).sum(), top, middle, bottom = rows_of(m)",
                             rule=NODE("output-nr"))


def random_record_call(case, grad_enabled, floating=True):
    """A random call of ``record_node``: (node class, inputs, a function making new outputs, what).
    Inputs: leaves (float32 or float64) and constants, non-leaves, None, integer tensors, repeats;
    outputs: one to four tensors, floating or not (with ``floating=False``: integer and bool
    outputs only, and some input requiring grad)."""
    with library_version("02"):
        pool = [ag.tensor(case.standard_normal(tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(0, 3))))),
                          dtype=[ag.float32, ag.float64][int(case.integers(2))], requires_grad=bool(case.integers(3)))
                for _ in range(3)]
        pool += [(pool[0] * 2).exp(), None, ag.tensor(case.integers(0, 5, size=2)),
                 ag.tensor(case.standard_normal((2, 2)), requires_grad=True).unbind(0)[1]]
    inputs = tuple(pool[int(i)] for i in case.integers(0, len(pool), size=int(case.integers(1, 5))))
    kinds = [int(k) for k in case.integers(0, 5, size=int(case.integers(1, 5)))]     # 0-2 float, 3 int, 4 bool
    if not floating:
        kinds = [3 + k % 2 for k in kinds]
        if not any(t is not None and t.requires_grad for t in inputs):
            inputs += (pool[6],)                          # an unbind output: it requires grad
    arrays = [case.standard_normal(int(case.integers(1, 4))).astype(["float32", "float64", "float32"][k]) if k < 3
              else case.integers(0, 5, size=2) if k == 3 else case.integers(0, 2, size=2).astype(bool) for k in kinds]
    # By name, so that a seed picks the same class whatever order the rule table's modules
    # declare them in.
    classes = sorted((c for c in ag.derivatives.NODES.values() if not c.variadic), key=lambda c: c.__name__)
    node_cls = classes[int(case.integers(len(classes)))]

    def make_outputs():
        return tuple(ag.tensor(a.copy()) for a in arrays)
    labels = ["None" if t is None else f"{'leaf' if t.is_leaf else type(t.grad_fn).__name__} {tuple(t.shape)} "
              f"{str(t.dtype).split('.')[-1]}{'' if t.requires_grad else ' constant'}" for t in inputs]
    outs = [str(a.dtype) for a in arrays]
    what = (f"record_node({node_cls.__name__}, ({', '.join(labels)}), outputs of dtypes {outs})"
            f"{'' if grad_enabled else ' under no_grad'}")
    return node_cls, inputs, make_outputs, what


def random_recorded_graph(seed):
    """Build a random graph and differentiate it: broadcasts, float32 with float64, ``clamp`` with
    an absent bound, ``unbind``, ``rows_of`` and a part under ``no_grad``.  Returns its nodes (name,
    next_functions, _input_meta), what the ``no_grad`` parts require, and the leaves' gradients."""
    rng = np.random.default_rng(seed)
    a = ag.tensor(rng.standard_normal(3), requires_grad=True)
    b = ag.tensor(rng.standard_normal((2, 3)), dtype=ag.float64, requires_grad=True)
    c = ag.tensor(rng.standard_normal((2, 3)))
    m = ag.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    ops = [int(op) for op in rng.integers(0, 7, size=5)]
    ops.insert(int(rng.integers(0, 6)), 3)                 # always a part under no_grad
    h, flags = a, []
    for op in ops:
        if op == 0:
            h = h * b
        elif op == 1:
            h = (h + c).tanh() * 0.5
        elif op == 2:
            h = ag.clamp(h, min=a)
        elif op == 3:
            with ag.no_grad():
                k = h * 3
            flags.append((k.requires_grad, k.grad_fn is None))
            h = h + k
        elif op == 4:
            first, second = m.unbind(0)[1:]
            h = h * first - second
        elif op == 5:
            top, middle, bottom = rows_of(m)
            h = (h + top * 2) * bottom - middle
        else:
            h = h.sin() * h
    loss = (h * h).sum()
    structure = [(ag.viz.node_name(n), edge_names(n.next_functions), meta_names(n._input_meta))
                 for n in ag.viz.graph_nodes(loss)]
    loss.backward()
    return ops, structure, flags, [t.grad for t in (a, b, m)]


def compare_recorded_graph(collect, record, seed):
    """``random_recorded_graph(seed)`` recorded by your functions against the same graph recorded
    by the library's (returns nothing: a test cell may end with it)."""
    with library_version("02"):
        ops, expected, expected_flags, expected_grads = random_recorded_graph(seed)
    with grading.checking(_plugs(collect, record)):
        _, structure, flags, grads = call(random_recorded_graph, seed, what=f"a random graph (ops {ops})",
                                          rule=NODE("one-node", "num-outputs"))
    what = f"a random graph (ops {ops}: 0 mul, 1 add, 2 clamp, 3 no_grad, 4 unbind, 5 rows_of, 6 sin)"
    grading.expect_equal(flags, expected_flags, what=f"(k.requires_grad, k.grad_fn is None) for k = h * 3 under "
                                                     f"no_grad in {what}", rule=NODE("when"))
    grading.expect_equal([(s[0], [n for n, _ in s[1]]) for s in structure], [(e[0], [n for n, _ in e[1]]) for e in expected],
                         what=f"the nodes of {what} and the nodes in their next_functions", rule=NODE("edges", "no-edge"))
    grading.expect_equal([s[1] for s in structure], [e[1] for e in expected],
                         what=f"the next_functions of the nodes of {what}, with their output numbers",
                         rule=NODE("output-nr"))
    grading.expect_equal([s[2] for s in structure], [e[2] for e in expected],
                         what=f"the _input_meta of the nodes of {what}", rule=NODE("input-meta"))
    for name, seen, wanted in zip("abm", grads, expected_grads):
        grading.expect_equal(*[None if g is None else (tuple(g.shape), g.dtype) for g in (seen, wanted)],
                             what=f"the shape and dtype of {name}.grad in {what}", rule=NODE("input-meta"))
        if wanted is not None:
            grading.expect_close(seen, wanted, rtol=1e-4, what=f"{name}.grad in {what}", rule=NODE("output-nr"))


# ------------------------------------------------------------------ 02.graph_nodes

SKIP_NONE = WALK("skip-none")
DEEP = WALK("deep")
REACH = WALK("reach")


def expect_walk(seen, expected, what):
    """``seen``, what a walk returned, against ``expected`` (the same nodes, as the library
    orders them): a list, each reachable node once, nothing else, every edge pointing forward.
    Nodes that share a class name are told apart as ``MulBackward0 #2`` (by creation order)."""
    grading.expect_equal(type(seen).__name__, "list", what=f"the type of {what}", rule=WALK("list"))
    label = node_labels(list(expected) + [n for n in seen if n is not None])

    def names(nodes):
        return [label.get(id(n), type(n).__name__) for n in nodes]
    grading.expect_true(all(n is not None for n in seen), what=f"`None not in {what}`",
                        seen=f"None among {names(n for n in seen if n is not None)}", rule=SKIP_NONE)
    position = {}
    for i, node in enumerate(seen):
        if id(node) in position:
            grading.expect_equal(f"at positions {position[id(node)]} and {i}", "once",
                                 what=f"how often {label[id(node)]} appears in {what}", rule=WALK("once"))
        position[id(node)] = i
    wanted = {id(n): n for n in expected}
    missing = [label[k] for k in wanted if k not in position]
    extra = [label[id(n)] for n in seen if id(n) not in wanted]
    grading.expect_equal(missing, [], what=f"the reachable nodes missing from {what}", rule=REACH)
    grading.expect_equal(extra, [], what=f"the nodes of {what} that the roots do not reach", rule=REACH)
    for node in seen:
        for child, _ in node.next_functions:
            if child is not None and position[id(child)] < position[id(node)]:
                grading.expect_equal(f"{label[id(child)]} (position {position[id(child)]}) before "
                                     f"{label[id(node)]} (position {position[id(node)]})",
                                     f"{label[id(node)]} before {label[id(child)]}, one of its next_functions",
                                     what=f"the order of {what}: {names(seen)}", rule=WALK("order"))


def walk_with(fn, roots, what, rule=REACH):
    """``fn(roots)`` graded against the library's walk of the same roots (returns nothing: a test
    cell may end with it); ``rule`` is what a crash breaks."""
    expected = exercises.reference("02.graph_nodes")(list(roots))
    with grading.checking("02.graph_nodes", fn):
        seen = call(fn, list(roots), what=what, rule=rule)
    expect_walk(seen, expected, what)


def shared_graph(data_a=(1.0, -2.0), data_b=(0.5, 3.0)):
    """``y = a * b; z = y * y + y.exp()``, built with the library's own code: (a, b, y, z)."""
    with library_version("02"):
        a = ag.tensor(list(data_a), requires_grad=True)
        b = ag.tensor(list(data_b), requires_grad=True)
        y = a * b
        z = y * y + y.exp()
    return a, b, y, z


def random_graph(case):
    """Root tensors of a random graph of ops on leaves and constants (built with the library's own
    code): a shared node, ``unbind`` and ``split`` outputs, numbers, sometimes several roots."""
    with library_version("02"):
        leaves = [ag.tensor(case.standard_normal((2, 3)), requires_grad=True) for _ in range(int(case.integers(1, 4)))]
        pool = leaves + [ag.tensor(case.standard_normal((2, 3))) for _ in range(int(case.integers(1, 3)))]

        def pick():
            return pool[int(case.integers(len(pool)))]
        shared = leaves[0] * pick()                      # two ops use it
        made = [shared * pick(), (shared + pick()).exp()]
        pool += [shared] + made
        for kind in case.integers(0, 6, size=int(case.integers(3, 10))):
            a = pick()
            if kind == 0:
                pool.append(a * pick())
            elif kind == 1:
                pool.append(a + pick().sin())
            elif kind == 2:
                pool.append((a * float(case.uniform(0.5, 2.0))).tanh() - pick())
            elif kind == 3:
                first, second = a.unbind(0)              # one node, two outputs
                pool.append(pick() * (first * second.exp()))
            elif kind == 4:
                top, bottom = a.split(1, dim=0)
                pool.append(pick() * top - bottom)
            else:
                pool.append(a * a)                       # two edges into one node
        roots = [(made[0] * made[1] + pool[-1] * pool[-2]).sum()]
        graded = [t for t in pool if t.grad_fn is not None]
        for i in case.integers(0, len(graded), size=int(case.integers(0, 3))):
            roots.append(graded[int(i)])                 # a root inside another root's graph
    return roots


def two_accumulators(case):
    """A root whose graph holds two ``AccumulateGrad`` nodes of one leaf, as a broken
    ``gradient_edge`` makes them (built with the library's own code)."""
    with library_version("02"):
        w = ag.tensor(case.standard_normal(3), requires_grad=True)
        first = w * float(case.uniform(1, 2))
        w._accumulator = None                   # forget w's node: its next use makes another
        both = (first + w.exp()).sum()
    return both


def chain(length=5000):
    """A leaf, then ``h = h + c`` ``length`` times (built with the library's own code): the last h."""
    with library_version("02"):
        h = ag.tensor([1.0, 2.0], requires_grad=True)
        c = ag.tensor([0.5, -0.5])
        for _ in range(length):
            h = h + c
    return h


def graph_nodes(fn):
    """Your ``graph_nodes`` called on root nodes: ``z = y * y + y.exp()`` with ``y = a * b``
    (a shared node), ``Q = 3 * a**3 - b**2`` (``(None, 0)`` edges), two ``unbind`` outputs
    of one node, several roots (one reachable from another, one given twice), an
    ``AccumulateGrad`` alone, and no root at all.  Each result must be a list with every
    reachable node once, and each node before the nodes in its ``next_functions``."""
    a, b, y, z = shared_graph()
    walk_with(fn, [z.grad_fn], "graph_nodes([z.grad_fn]) for y = a * b; z = y * y + y.exp()", rule=WALK("list"))

    with library_version("02"):
        Q = 3 * a ** 3 - b ** 2
        p, q = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        r = p * q + p.exp()
        acc = y.grad_fn.next_functions[0][0]
    walk_with(fn, [Q.grad_fn], "graph_nodes([Q.grad_fn]) for Q = 3 * a**3 - b**2", rule=SKIP_NONE)
    walk_with(fn, [r.grad_fn], "graph_nodes([r.grad_fn]) for p, q = t.unbind(0); r = p * q + p.exp()")
    walk_with(fn, [y.grad_fn, z.grad_fn], "graph_nodes([y.grad_fn, z.grad_fn]): y's node is also below z's",
              rule=WALK("once"))
    walk_with(fn, [z.grad_fn, Q.grad_fn, z.grad_fn], "graph_nodes([z.grad_fn, Q.grad_fn, z.grad_fn])",
              rule=WALK("once"))
    walk_with(fn, [acc], "graph_nodes([acc]) for a's AccumulateGrad (it has no next_functions)")
    walk_with(fn, [], "graph_nodes([]) (no root: a drawing of a leaf)")


def _drawing(fig):
    """What a drawing shows, whatever the order of its boxes: {label: count} of boxes and arrows."""
    artists = [artist for ax in fig.axes for artist in ax.get_children()]     # not findobj: it makes ticks
    texts = {}
    for artist in artists:
        gid = artist.get_gid() or ""
        if gid.startswith("autograd-node-") and gid.endswith(":text"):
            texts.setdefault(gid[:-len(":text")], []).append(artist.get_text())
    label = {gid: " ".join(lines) for gid, lines in texts.items()}
    boxes = sorted(label.values())
    arrows = sorted(f"{label[src]} -> {label[dst]}" for src, dst in
                    (a.get_gid()[len("autograd-edge:"):].split("->") for a in artists
                     if (a.get_gid() or "").startswith("autograd-edge:")))
    return {"boxes": boxes, "arrows": arrows}


def compare_viz(fn, roots, what, names=None, draw=True, rule=REACH):
    """viz.graph_nodes, viz.graph_edges (and a drawing) of ``roots`` with ``fn`` plugged, against
    the same with the library's walk; ``rule`` is what a crash breaks."""
    with library_version("02"):
        expected = ag.viz.graph_nodes(*roots)
        expected_edges = sorted((id(a), id(b)) for a, b in ag.viz.graph_edges(*roots))
        expected_drawing = _drawing(ag.viz.draw_graph(*roots, names=names)) if draw else None
    with grading.checking("02.graph_nodes", fn):
        seen = call(ag.viz.graph_nodes, *roots, what=f"viz.graph_nodes({what})", rule=rule)
        expect_walk(seen, expected, f"viz.graph_nodes({what}) with your graph_nodes")
        edges = call(ag.viz.graph_edges, *roots, what=f"viz.graph_edges({what})", rule=rule)
        position = {id(n): i for i, n in enumerate(seen)}
        grading.expect_true(all(position[id(a)] < position[id(b)] for a, b in edges),
                            what=f"every (node, next_node) of viz.graph_edges({what}) in graph_nodes order",
                            seen="an edge pointing backwards", rule=WALK("order"))
        grading.expect_true(sorted((id(a), id(b)) for a, b in edges) == expected_edges,
                            what=f"viz.graph_edges({what}) with your graph_nodes: the same edges as the library's",
                            seen=f"{len(edges)} edges instead of {len(expected_edges)}, or other ones", rule=REACH)
        if draw:
            drawing = _drawing(call(lambda: ag.viz.draw_graph(*roots, names=names), what=f"viz.draw_graph({what})",
                                    rule=rule))
            grading.expect_equal(drawing, expected_drawing,
                                 what=f"the boxes and arrows of viz.draw_graph({what}) with your graph_nodes",
                                 rule=WALK("once", "reach"))


def graph_nodes_in_viz(fn):
    """The visualiser with your ``graph_nodes`` plugged: ``viz.graph_nodes``, ``viz.graph_edges``
    and ``viz.draw_graph`` (the same boxes and arrows as with the library's walk) for
    ``z = y * y + y.exp()``, for two tensors ``y, z`` at once, for a graph with ``None`` edges
    and ``unbind``, and ``draw_graph`` of a lone leaf (no root node)."""
    a, b, y, z = shared_graph((0.25, 2.0), (-1.0, 1.5))
    compare_viz(fn, [z], "z", names={"a": a, "b": b, "y": y, "z": z})
    compare_viz(fn, [y, z], "y, z", names={"y": y, "z": z}, rule=WALK("once"))
    with library_version("02"):
        p, q = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        loss = (3 * (p * q) - p.exp()).sum()
    compare_viz(fn, [loss], "loss", names={"loss": loss}, rule=SKIP_NONE)
    compare_viz(fn, [a], "a (a leaf: no grad_fn)", names={"a": a})
