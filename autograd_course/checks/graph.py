"""Visible checks of assignment 02: the computational graph.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  ``edge_name`` and ``edge_names``, which the
notebook's setup cell imports, show edges without memory addresses.
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version

__all__ = ["edge_name", "edge_names", "gradient_edge", "gradient_edge_in_the_engine",
           "collect_next_functions", "collect_next_functions_in_the_engine", "graph_nodes", "graph_nodes_in_viz"]


def edge_name(edge):
    """An edge (node, output_nr) as (node class name or None, output_nr): no memory address."""
    node, output_nr = edge
    return (None if node is None else type(node).__name__, output_nr)


def edge_names(edges):
    """Every edge of a node's next_functions, as edge_name does it."""
    return tuple(edge_name(edge) for edge in edges)


def gradient_edge(fn):
    """Your ``gradient_edge`` called directly on each kind of tensor: non-leaves
    (``y = base * 2`` and the second output of ``base.unbind(0)``), a leaf that
    requires grad (called twice), and tensors that need no gradient (a constant, an
    integer tensor, ``w.detach()``).  The edge must be a tuple ``(node, output_nr)``;
    a leaf's ``AccumulateGrad`` is made once and held weakly in ``_accumulator``."""
    # The three cases, one tensor at a time.
    base = ag.randn(2, 3, requires_grad=True)
    with library_version("02"):                          # non-leaves, built with the library's code
        y = base * 2
        first, second = base.unbind(0)
    w = ag.randn(2, 3, requires_grad=True)            # a leaf that no graph uses yet

    with grading.checking("02.gradient_edge", fn):
        edge = fn(y)
        grading.expect_equal(type(edge).__name__, "tuple", what="type(gradient_edge(y))",
                             rule="an edge is a tuple (node, output_nr)")
        grading.expect_equal(len(edge), 2, what="len(gradient_edge(y))",
                             rule="an edge is a tuple (node, output_nr)")
        grading.expect_equal(edge_name(edge), ("MulBackward0", 0), what="gradient_edge(y) for y = w * 2",
                             rule="a non-leaf's gradient enters the graph at its grad_fn")
        grading.expect_true(edge[0] is y.grad_fn, what="`gradient_edge(y)[0] is y.grad_fn`",
                            seen="another node object", rule="a non-leaf's gradient enters the graph at its grad_fn")
        grading.expect_equal(edge_name(fn(second)), ("UnbindBackward0", 1),
                             what="gradient_edge(second) for first, second = base.unbind(0)",
                             rule="a non-leaf's edge is (grad_fn, output_nr): output_nr says which output of its node it is")

        edge = fn(w)
        grading.expect_equal(edge_name(edge), ("AccumulateGrad", 0), what="gradient_edge(w) for a leaf w",
                             rule="a leaf that requires grad enters the graph through an AccumulateGrad node")
        grading.expect_true(edge[0].variable is w, what="`gradient_edge(w)[0].variable is w`",
                            seen="another tensor", rule="an AccumulateGrad's variable is the leaf itself")
        grading.expect_true(fn(w)[0] is edge[0], what="`gradient_edge(w)[0] is gradient_edge(w)[0]` (two calls, same node)",
                            seen="two different AccumulateGrad objects",
                            rule="a leaf's AccumulateGrad is created once and reused while it is alive")
        grading.expect_equal(type(w._accumulator).__name__, "ReferenceType", what="type(w._accumulator)",
                             rule="the tensor holds its AccumulateGrad only weakly: tensor._accumulator = weakref.ref(node)")
        grading.expect_true(w._accumulator() is edge[0], what="`w._accumulator() is gradient_edge(w)[0]`",
                            seen="another object",
                            rule="the tensor holds its AccumulateGrad only weakly: tensor._accumulator = weakref.ref(node)")

        for name, t in [("a constant ag.randn(3)", ag.randn(3)), ("an integer tensor", ag.arange(3)),
                        ("w.detach()", w.detach())]:
            edge = fn(t)
            grading.expect_equal(edge_name(edge), (None, 0), what=f"gradient_edge of {name}",
                                 rule="a tensor that does not require grad has no edge: (None, 0)")
            grading.expect_true(t._accumulator is None, what=f"`t._accumulator is None` for t = {name}", seen=repr(t._accumulator),
                                rule="a tensor that does not require grad has no edge: (None, 0), and no AccumulateGrad is made")


def gradient_edge_in_the_engine(fn):
    """Your edges inside the engine: a weight ``w`` used twice (``w * 2`` and
    ``w.exp()``) must share one ``AccumulateGrad`` and get both gradients; once its
    graph is gone the old node must die (it is held weakly) and a new graph must get
    a new node; ``backward(inputs=[v])`` must work with your edges (they are dict keys)."""
    # Your edges inside the engine: a weight used twice, backward, and the node's lifetime.
    with grading.checking("02.gradient_edge", fn):
        w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = w * 2
        b = w.exp()
        acc_a, acc_b = a.grad_fn.next_functions[0][0], b.grad_fn.next_functions[0][0]
        grading.expect_equal(type(acc_a).__name__, "AccumulateGrad", what="type of (w * 2).grad_fn.next_functions[0][0]",
                             rule="a leaf that requires grad enters the graph through an AccumulateGrad node")
        grading.expect_true(acc_a is acc_b,
                            what="`a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]` (a = w * 2, b = w.exp())",
                            seen="two different AccumulateGrad objects",
                            rule="a leaf's AccumulateGrad is created once and reused while it is alive")
        grading.expect_true(acc_a.variable is w, what="`a.grad_fn.next_functions[0][0].variable is w`", seen="another tensor",
                            rule="an AccumulateGrad's variable is the leaf itself")

        (a.sum() + b.sum()).backward()
        grading.expect_close(w.grad, 2 + np.exp([0.5, -1.0, 2.0]), what="w.grad after (a.sum() + b.sum()).backward()",
                             rule="the gradients of both uses of w reach w.grad")

        probe = weakref.ref(acc_a)
        del a, b, acc_a, acc_b
        gc.collect()
        grading.expect_true(probe() is None, what="`probe() is None`: the old AccumulateGrad, once its graph is gone (probe is a weakref to it)",
                            seen="it is still alive",
                            rule="the tensor holds its AccumulateGrad only weakly (a strong reference makes a cycle tensor -> node -> tensor)")

        w.grad = None
        c = (w * 3).sum()                              # a new graph: w's old node is dead
        node = c.grad_fn.next_functions[0][0].next_functions[0][0]
        grading.expect_equal(type(node).__name__, "AccumulateGrad", what="w's node in a graph built after the old one died",
                             rule="when the weak reference is dead (it returns None), make a new AccumulateGrad")
        c.backward()
        grading.expect_close(w.grad, [3.0, 3.0, 3.0], what="w.grad after (w * 3).sum().backward()",
                             rule="when the weak reference is dead (it returns None), make a new AccumulateGrad")

        v = ag.tensor([1.0, 2.0], requires_grad=True)
        u = ag.tensor([3.0, 4.0], requires_grad=True)
        try:
            (v * u).sum().backward(inputs=[v])         # backward looks the edges of `inputs` up in a dict
        except Exception as error:                     # report a crash as a broken rule
            grading.expect_equal(f"{type(error).__name__}: {error}", "no error",
                                 what="(v * u).sum().backward(inputs=[v])",
                                 rule="an edge is a tuple (node, output_nr): backward uses edges as dict keys")
        grading.expect_close(v.grad, [3.0, 4.0], what="v.grad after (v * u).sum().backward(inputs=[v])",
                             rule="an edge is a tuple (node, output_nr)")
        grading.expect_true(u.grad is None, what="`u.grad is None` after backward(inputs=[v])", seen=repr(u.grad),
                            rule="backward(inputs=[v]) accumulates into v only")


def collect_next_functions(fn):
    """Your ``collect_next_functions`` called directly: two leaves, constants and
    integer tensors in either place, non-leaves (``x * 2``, ``unbind`` outputs),
    ``None``, the same tensor twice, and no input at all.  It must return a tuple
    with one edge per input, in input order, ``(None, 0)`` for an input that needs
    no gradient."""
    # One edge per input, in order, called directly.
    x = ag.randn(3, requires_grad=True)
    y = ag.randn(3, requires_grad=True)
    c = ag.randn(3)
    with library_version("02"):                          # non-leaves, built with the library's code
        h = x * 2
        first, second = ag.randn(2, 3, requires_grad=True).unbind(0)
        x_edge, y_edge = x._gradient_edge(), y._gradient_edge()

    with grading.checking("02.collect_next_functions", fn):
        edges = fn(x, y)
        grading.expect_equal(type(edges).__name__, "tuple", what="type(collect_next_functions(x, y))",
                             rule="next_functions is a tuple")
        grading.expect_equal(edge_names(edges), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                             what="collect_next_functions(x, y) for two leaves that require grad",
                             rule="a leaf that requires grad is reached through its AccumulateGrad node (its gradient edge)")
        grading.expect_true(edges[0][0] is x_edge[0] and edges[1][0] is y_edge[0],
                            what="the nodes of collect_next_functions(x, y): x's node first, then y's",
                            seen="the nodes in another order, or other nodes",
                            rule="edge i belongs to input i: edges follow the input order")

        for label, args, expected in [("(x, c)", (x, c), (("AccumulateGrad", 0), (None, 0))),
                                      ("(c, x)", (c, x), ((None, 0), ("AccumulateGrad", 0))),
                                      ("(c,)", (c,), ((None, 0),)),
                                      ("(i, x)", (ag.arange(3), x), ((None, 0), ("AccumulateGrad", 0)))]:
            grading.expect_equal(edge_names(fn(*args)), expected,
                                 what=f"collect_next_functions{label} (c: a float constant, i: an integer tensor)",
                                 rule="one edge per input, in input order: (None, 0) for an input that needs no gradient")

        edges = fn(h, c)
        grading.expect_equal(edge_names(edges), (("MulBackward0", 0), (None, 0)),
                             what="collect_next_functions(h, c) for h = x * 2",
                             rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")
        grading.expect_true(edges[0][0] is h.grad_fn, what="`collect_next_functions(h, c)[0][0] is h.grad_fn`",
                            seen="another node", rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")
        grading.expect_equal(edge_names(fn(second, first)),
                             (("UnbindBackward0", 1), ("UnbindBackward0", 0)),
                             what="collect_next_functions(second, first) for first, second = t.unbind(0)",
                             rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")

        try:
            edges = edge_names(fn(x, None, y))
        except Exception as error:                    # report a crash on None as a broken rule
            edges = f"{type(error).__name__}: {error}"
        grading.expect_equal(edges, (("AccumulateGrad", 0), (None, 0), ("AccumulateGrad", 0)),
                             what="collect_next_functions(x, None, y)",
                             rule="an absent optional input (None) gets the edge (None, 0)")

        edges = fn(x, x)
        grading.expect_equal(len(edges), 2, what="len(collect_next_functions(x, x))",
                             rule="one edge per input, even when the same tensor is passed twice")
        grading.expect_true(edges[0][0] is x_edge[0] and edges[1][0] is x_edge[0],
                            what="the nodes of collect_next_functions(x, x): x's AccumulateGrad, twice",
                            seen=repr(edge_names(edges)), rule="one edge per input, even when the same tensor is passed twice")
        grading.expect_equal(fn(), (), what="collect_next_functions() with no input",
                             rule="next_functions is a tuple")


def collect_next_functions_in_the_engine(fn):
    """Graphs built with your function: the ``next_functions`` of ``x * y``, ``2 * x``,
    ``where``, ``addmm``, ``clamp`` with an absent bound and a non-leaf input, then
    the gradients that ``backward`` finds by following your edges (``x @ w``,
    ``exp``, and ``x * x``, the same tensor twice)."""
    # Graphs built with your function: their next_functions and their gradients.
    with grading.checking("02.collect_next_functions", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        z = x * y
        grading.expect_equal(type(z.grad_fn.next_functions).__name__, "tuple", what="type((x * y).grad_fn.next_functions)",
                             rule="next_functions is a tuple")
        grading.expect_equal(edge_names(z.grad_fn.next_functions), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                             what="(x * y).grad_fn.next_functions for two leaves that require grad",
                             rule="a leaf that requires grad is reached through its AccumulateGrad node (its gradient edge)")
        grading.expect_true(z.grad_fn.next_functions[0][0].variable is x and z.grad_fn.next_functions[1][0].variable is y,
                            what="the nodes of (x * y).grad_fn.next_functions: x's node first, then y's", seen="another order",
                            rule="edge i belongs to input i: edges follow the input order")
        cond = ag.tensor([True, False, True])
        lo = ag.tensor([0.0, 3.0, 0.0], requires_grad=True)
        M = ag.ones(2, 3, requires_grad=True)
        m1, m2 = ag.ones(2, 4), ag.ones(4, 3, requires_grad=True)
        for label, build, expected, rule in [
                ("2 * x", lambda: 2 * x, (("AccumulateGrad", 0), (None, 0)),
                 "one edge per input, in input order: (None, 0) for an input that needs no gradient"),
                ("ag.where(cond, x, y)", lambda: ag.where(cond, x, y), (("AccumulateGrad", 0), ("AccumulateGrad", 0)),
                 "one edge per input, in input order"),
                ("ag.addmm(M, m1, m2) with m1 constant", lambda: ag.addmm(M, m1, m2),
                 (("AccumulateGrad", 0), (None, 0), ("AccumulateGrad", 0)),
                 "one edge per input, in input order: (None, 0) for an input that needs no gradient"),
                ("ag.clamp(x, min=lo)", lambda: ag.clamp(x, min=lo), (("AccumulateGrad", 0), ("AccumulateGrad", 0), (None, 0)),
                 "an absent optional input (None) gets the edge (None, 0)"),
                ("(x * y).exp() * 2", lambda: z.exp() * 2, (("ExpBackward0", 0), (None, 0)),
                 "a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")]:
            try:
                seen = edge_names(build().grad_fn.next_functions)
            except Exception as error:                # report a crash as a broken rule
                seen = f"{type(error).__name__}: {error}"
            grading.expect_equal(seen, expected, what=f"the next_functions of {label}", rule=rule)

        ag.manual_seed(2)
        w = ag.randn(5, 3, requires_grad=True)
        data = ag.randn(1, 5)
        (data @ w).mean().backward()
        grading.expect_close(w.grad, np.repeat(data.numpy().T, 3, axis=1) / 3, what="w.grad for z = (x @ w).mean()",
                             rule="backward follows the edges you built: dz/dw = x.T @ ones(1, 3) / 3")
        c = ag.tensor([1.0, -1.0, 0.5])
        ((x * y).exp() * c).sum().backward()
        product = np.array([4.0, 10.0, 18.0])
        grading.expect_close(x.grad, np.exp(product) * [1.0, -1.0, 0.5] * [4.0, 5.0, 6.0], rtol=1e-4,
                             what="x.grad for ((x * y).exp() * c).sum()",
                             rule="a non-leaf input requires grad too: its edge is (grad_fn, output_nr)")
        x.grad = None
        (x * x).sum().backward()
        grading.expect_close(x.grad, [2.0, 4.0, 6.0], what="x.grad for (x * x).sum()",
                             rule="one edge per input, even when the same tensor is passed twice")


# ------------------------------------------------------------------ 02.graph_nodes

EACH_ONCE = "each node once, however many edges or roots lead to it"
REACH_ALL = "every node reachable from any of the roots, through every entry of next_functions"
FORWARD = "a node comes before every node in its next_functions (roots first, leaves last)"
SKIP_NONE = "the (None, 0) entries of next_functions lead to no node: skip them"
NO_RECURSION = ("walk with an explicit stack (a list), not recursion: a chain of 5000 nodes is deeper than "
                "Python's recursion limit")


def _names(nodes):
    return [type(n).__name__ for n in nodes]


def expect_walk(seen, expected, what):
    """``seen``, what a walk returned, against ``expected`` (the same nodes, as the library
    orders them): a list, each reachable node once, nothing else, every edge pointing forward."""
    grading.expect_equal(type(seen).__name__, "list", what=f"the type of {what}", rule="return a list of nodes")
    grading.expect_true(all(n is not None for n in seen), what=f"`None not in {what}`",
                        seen=f"None among {_names(seen)}", rule=SKIP_NONE)
    position = {}
    for i, node in enumerate(seen):
        if id(node) in position:
            grading.expect_equal(f"more than once: at positions {position[id(node)]} and {i}", "once",
                                 what=f"how often one {type(node).__name__} node appears in {what}", rule=EACH_ONCE)
        position[id(node)] = i
    wanted = {id(n): n for n in expected}
    missing = [type(n).__name__ for k, n in wanted.items() if k not in position]
    extra = [type(n).__name__ for n in seen if id(n) not in wanted]
    grading.expect_equal(missing, [], what=f"the reachable nodes missing from {what}", rule=REACH_ALL)
    grading.expect_equal(extra, [], what=f"the nodes of {what} that the roots do not reach",
                         rule="only the nodes reachable from the roots")
    for node in seen:
        for child, _ in node.next_functions:
            if child is not None and position[id(child)] < position[id(node)]:
                grading.expect_equal(f"{type(child).__name__} (position {position[id(child)]}) before "
                                     f"{type(node).__name__} (position {position[id(node)]})",
                                     f"{type(node).__name__} before {type(child).__name__}, one of its next_functions",
                                     what=f"the order of {what}: {_names(seen)}", rule=FORWARD)


def walk_with(fn, roots, what, rule=REACH_ALL):
    """``fn(roots)`` graded against the library's walk of the same roots (returns nothing: a test
    cell may end with it)."""
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
    walk_with(fn, [z.grad_fn], "graph_nodes([z.grad_fn]) for y = a * b; z = y * y + y.exp()")

    with library_version("02"):
        Q = 3 * a ** 3 - b ** 2
        p, q = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        r = p * q + p.exp()
        acc = y.grad_fn.next_functions[0][0]
    walk_with(fn, [Q.grad_fn], "graph_nodes([Q.grad_fn]) for Q = 3 * a**3 - b**2", rule=SKIP_NONE)
    walk_with(fn, [r.grad_fn], "graph_nodes([r.grad_fn]) for p, q = t.unbind(0); r = p * q + p.exp()")
    walk_with(fn, [y.grad_fn, z.grad_fn], "graph_nodes([y.grad_fn, z.grad_fn]): y's node is also below z's")
    walk_with(fn, [z.grad_fn, Q.grad_fn, z.grad_fn], "graph_nodes([z.grad_fn, Q.grad_fn, z.grad_fn])", rule=SKIP_NONE)
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


def compare_viz(fn, roots, what, names=None, draw=True, rule=REACH_ALL):
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
                            seen="an edge pointing backwards", rule=FORWARD)
        grading.expect_true(sorted((id(a), id(b)) for a, b in edges) == expected_edges,
                            what=f"viz.graph_edges({what}) with your graph_nodes: the same edges as the library's",
                            seen=f"{len(edges)} edges instead of {len(expected_edges)}, or other ones", rule=REACH_ALL)
        if draw:
            drawing = _drawing(call(lambda: ag.viz.draw_graph(*roots, names=names), what=f"viz.draw_graph({what})",
                                    rule=rule))
            grading.expect_equal(drawing, expected_drawing,
                                 what=f"the boxes and arrows of viz.draw_graph({what}) with your graph_nodes",
                                 rule=f"{EACH_ONCE}; {REACH_ALL}")


def graph_nodes_in_viz(fn):
    """The visualiser with your ``graph_nodes`` plugged: ``viz.graph_nodes``, ``viz.graph_edges``
    and ``viz.draw_graph`` (the same boxes and arrows as with the library's walk) for
    ``z = y * y + y.exp()``, for two tensors ``y, z`` at once, for a graph with ``None`` edges
    and ``unbind``, and ``draw_graph`` of a lone leaf (no root node)."""
    a, b, y, z = shared_graph((0.25, 2.0), (-1.0, 1.5))
    compare_viz(fn, [z], "z", names={"a": a, "b": b, "y": y, "z": z})
    compare_viz(fn, [y, z], "y, z", names={"y": y, "z": z})
    with library_version("02"):
        p, q = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        loss = (3 * (p * q) - p.exp()).sum()
    compare_viz(fn, [loss], "loss", names={"loss": loss}, rule=SKIP_NONE)
    compare_viz(fn, [a], "a (a leaf: no grad_fn)", names={"a": a})
