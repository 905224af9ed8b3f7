"""Visible checks of assignment 02, exercise 3: ``graph_nodes``, the walk of the graph that
``ag.viz`` draws (the slot ``topological_nodes``).

``autograd_course.checks.graph`` (the notebook's ``check``) shows them; ``graph_nodes`` calls
your walk directly, ``graph_nodes_in_viz`` through ``ag.viz``'s drawing.  ``random_graph``,
``two_accumulators``, ``chain`` (5000 nodes deep), ``walk_with`` and ``compare_viz`` are what
the hidden parts run.
"""

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import call, library_version

from .graph_labels import node_labels

__all__ = ["SKIP_NONE", "DEEP", "REACH", "expect_walk", "walk_with", "shared_graph", "random_graph",
           "two_accumulators", "chain", "graph_nodes", "compare_viz", "graph_nodes_in_viz"]

WALK = grading.rules("02.graph_nodes")


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
    ``AccumulateGrad`` alone, no root at all, and a chain of 5000 additions (deeper than
    Python's recursion limit).  Each result must be a list with every reachable node once,
    and each node before the nodes in its ``next_functions``."""
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
    h = chain(5000)
    walk_with(fn, [h.grad_fn], "graph_nodes([h.grad_fn]) after 5000 additions h = h + c", rule=DEEP)


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
