"""Visible checks of assignment 03, exercise 4: ``execute``, the engine's loop.

``autograd_course.checks.backward`` (the notebook's ``check``) shows them; ``execute`` is the
visible part of its test cell, run on the function you wrote, and its docstring says what it tries:
first on stand-in nodes (``StandIn``, run by a ``Trace``), then in real passes observed through
hooks (``labelled_order``: nodes that share a class name are told apart as PyTorch would number
them, by creation order, ``MulBackward0 #2`` being the newer).  ``random_loops`` is what the hidden
part runs; ``random_graph``, the random graphs it draws, serves the hidden tests of exercises 5 and
7 too.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.viz import graph_nodes, node_labels
from autograd_course import grading
from autograd_course.notebook import call

__all__ = ["EXECUTE", "StandIn", "Trace", "run_stand_ins", "labelled_order", "random_graph", "execute", "random_loops"]

EXECUTE = grading.rules("03.execute")


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


def run_stand_ins(fn, nodes, edges, roots, root_grads, weights, outside=(), rule=EXECUTE("once")):
    """Wire stand-in nodes (``edges``: {name: [(name or None, output_nr), ...]}), count their
    dependencies (leaving out the nodes named in ``outside``, as a pass that does not visit
    them), run ``fn`` from ``roots`` ([(name, output_nr)]), return the trace's runs."""
    for name, out in edges.items():
        nodes[name].next_functions = tuple((None if n is None else nodes[n], nr) for n, nr in out)
    dependencies = {}
    for name, out in edges.items():
        for n, _ in out:
            if n is not None and n not in outside:
                dependencies[nodes[n]] = dependencies.get(nodes[n], 0) + 1
    trace = Trace(weights)
    with grading.checking("03.execute", fn):
        call(fn, [(nodes[n], nr) for n, nr in roots], list(root_grads), dependencies, trace,
             what="execute(root_edges, root_grads, dependencies, run_node) on stand-in nodes", rule=rule)
    return trace.runs


def labelled_order(loss, leaves, **backward):
    """The nodes of ``loss``'s graph (``MulBackward0 #2`` for the newer of two) and the hooks
    of the tensors in ``leaves`` ({name: tensor}), in the order ``loss.backward(**backward)``
    runs them, observed through hooks."""
    nodes = graph_nodes(loss)
    labels = node_labels(nodes)
    order = []
    for node in nodes:
        if node.name() != "AccumulateGrad":
            node.register_hook(lambda grad_inputs, grad_outputs, node=node: order.append(labels[node]))
    for name, leaf in leaves.items():
        leaf.register_hook(lambda grad, name=name: order.append(name))
    loss.backward(**backward)
    return order


def random_graph(case, size=10):
    """A random recipe of ``size`` ops over three float64 leaves (the first requires grad,
    the others maybe): ``build()`` makes it anew each time and returns ``(loss, leaves, pool)``
    (``leaves``: {name: leaf that requires grad}; ``pool``: every tensor made)."""
    steps = [(int(case.integers(0, 6)), int(case.integers(0, 99)), int(case.integers(0, 99))) for _ in range(size)]
    values = case.standard_normal((3, 2))
    flags = [True, bool(case.integers(0, 2)), bool(case.integers(0, 2))]

    def build():
        leaves = [ag.tensor(v, dtype=ag.float64, requires_grad=f) for v, f in zip(values, flags)]
        pool = list(leaves)
        for op, i, j in steps:
            a, b = pool[i % len(pool)], pool[j % len(pool)]
            if op == 0:
                pool.append(a * b)
            elif op == 1:
                pool.append(a + b.exp())
            elif op == 2:
                pool.append(a.tanh())
            elif op == 3:
                first, second = a.unbind()
                pool.append(ag.stack([second * 2.0, first + second]))
            elif op == 4:
                pool.append(a - b * 0.5)
            else:
                pool.append(a.sin() * b)
        loss = sum((t.sum() for t in pool[-3:]), (leaves[0] * 0.5).sum())      # it requires grad
        return loss, {f"leaf{k}": t for k, t in enumerate(leaves) if t.requires_grad}, pool
    return build


def execute(fn):
    """Your ``execute`` on stand-in nodes: did the root run at all, a diamond (R -> A, B -> D:
    the newest ready node first, D once with the two gradients summed), a node with two
    outputs, an edge whose gradient is None, an edge to a node the pass does not visit, a
    root listed twice, a root another root points into; then real backward passes: the order
    PyTorch prints through hooks (ties among leaves included), and the gradients."""
    # R (4) -> A (2), B (3); A -> D (1); B -> D: the root first, the newest ready node, D once, summed.
    nodes = {n: StandIn(n, s) for n, s in (("R", 4), ("A", 2), ("B", 3), ("D", 1))}
    runs = run_stand_ins(fn, nodes, {"R": [("A", 0), ("B", 0)], "A": [("D", 0)], "B": [("D", 0)], "D": []},
                         [("R", 0)], [1.0], {"R": [2.0, 3.0], "A": [10.0], "B": [100.0]})
    ran = [name for name, _ in runs]
    grading.expect_true(ran[:1] == ["R"], what="whether R, the root (nothing points into it), ran first",
                        seen=f"{ran[0]} ran first" if ran else "nothing ran", rule=EXECUTE("roots"))
    grading.expect_equal(runs[0], ("R", [1.0]), what="(node, gradients it ran with) for the root R, given 1.0",
                         rule=EXECUTE("roots"))
    grading.expect_equal(sorted(ran), ["A", "B", "D", "R"], what="the nodes that ran (each once) in R -> A, B -> D",
                         rule=EXECUTE("once"))
    grading.expect_equal(ran, ["R", "B", "A", "D"],
                         what="the order of R -> A (2), B (3) -> D (sequence numbers in brackets)",
                         rule=EXECUTE("newest"))
    grading.expect_equal(runs[-1], ("D", [320.0]), what="(node, gradients it ran with) for D, fed 20 by A, 300 by B",
                         rule=EXECUTE("sum"))

    # M has two outputs: P feeds output 0, Q output 1.
    nodes = {n: StandIn(n, s, 2 if n == "M" else 1) for n, s in (("P", 5), ("Q", 4), ("M", 1), ("R", 6))}
    runs = run_stand_ins(fn, nodes, {"R": [("P", 0), ("Q", 0)], "P": [("M", 0)], "Q": [("M", 1)], "M": []},
                         [("R", 0)], [1.0], {"R": [1.0, 1.0], "P": [7.0], "Q": [5.0]})
    grading.expect_equal(runs[-1], ("M", [7.0, 5.0]), what="(node, gradients) for M, whose outputs 0 and 1 get 7 and 5",
                         rule=EXECUTE("sum"))

    # E's edge from R carries None; E must still run, with what S sent.
    nodes = {n: StandIn(n, s) for n, s in (("R", 3), ("S", 2), ("E", 1))}
    runs = run_stand_ins(fn, nodes, {"R": [("E", 0), ("S", 0), (None, 0)], "S": [("E", 0)], "E": []},
                         [("R", 0)], [1.0], {"R": [None, 4.0, 9.0], "S": [0.5]})
    grading.expect_equal(runs, [("R", [1.0]), ("S", [4.0]), ("E", [2.0])],
                         what="the runs (node, gradients) when R sends None to E and 4 to S, S sends 2 to E",
                         rule=EXECUTE("count-none"))

    # X is not in dependencies (this pass does not visit it): R's edge to it is skipped.
    nodes = {n: StandIn(n, s) for n, s in (("R", 3), ("A", 2), ("X", 1))}
    runs = run_stand_ins(fn, nodes, {"R": [("X", 0), ("A", 0)], "A": [], "X": []}, [("R", 0)], [1.0],
                         {"R": [5.0, 2.0]}, outside=("X",), rule=EXECUTE("skip"))
    grading.expect_equal(runs, [("R", [1.0]), ("A", [2.0])],
                         what="the runs when R points into A and into X, which is not in dependencies",
                         rule=EXECUTE("skip"))

    # The same root twice, and a root (T) that the other root (R) points into.
    nodes = {n: StandIn(n, s) for n, s in (("R", 3), ("T", 2))}
    runs = run_stand_ins(fn, nodes, {"R": [("T", 0)], "T": []},
                         [("R", 0), ("T", 0), ("R", 0)], [1.0, 10.0, 2.0], {"R": [1.0]})
    grading.expect_equal(runs, [("R", [3.0]), ("T", [13.0])],
                         what="the runs for roots R, T, R with gradients 1, 10, 2 (R points into T)",
                         rule=EXECUTE("roots"))

    with grading.checking("03.execute", fn):
        x = ag.tensor([0.5, -1.0], requires_grad=True)
        order = call(labelled_order, (x * 2 + x.exp()).sum(), {"x": x},
                     what="L.backward() for L = (x * 2 + x.exp()).sum()", rule=EXECUTE("once"))
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = ag.tensor([3.0, -1.0], requires_grad=True)
        two = call(labelled_order, ((a * b).exp() + a * 3.0).sum(), {"a": a, "b": b},
                   what="out.backward() for out = ((a * b).exp() + a * 3.0).sum()", rule=EXECUTE("once"))
        leaves = {n: ag.ones(2, requires_grad=True) for n in "abcde"}
        ties = call(labelled_order, ag.stack([leaves[n] for n in "ebdac"]).sum(), leaves,
                    what="ag.stack([e, b, d, a, c]).sum().backward()", rule=EXECUTE("once"))
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        p, q = w.unbind()
        call((p * 2 + q * 3).backward, what="(p * 2 + q * 3).backward() for p, q = w.unbind()", rule=EXECUTE("once"))
    grading.expect_equal(order, ["SumBackward0", "AddBackward0", "ExpBackward0", "MulBackward0", "x"],
                         what="the order of the nodes for L = (x * 2 + x.exp()).sum() (PyTorch's, seen "
                              "through hooks)", rule=EXECUTE("newest"))
    grading.expect_close(x.grad, 2 + np.exp([0.5, -1.0]), what="x.grad for L = (x * 2 + x.exp()).sum()",
                         rule=EXECUTE("sum"))
    grading.expect_equal(two, ["SumBackward0", "AddBackward0", "MulBackward0 #2", "ExpBackward0", "MulBackward0 #1",
                               "a", "b"], what="the order for ((a * b).exp() + a * 3.0).sum() (PyTorch's; "
                                               "#2 is the newer MulBackward0, of a * 3)", rule=EXECUTE("newest", "ties"))
    grading.expect_equal(ties, ["SumBackward0", "StackBackward0", "e", "d", "c", "b", "a"],
                         what="the order of the nodes and leaves' hooks for ag.stack([e, b, d, a, c]).sum() "
                              "(PyTorch's)", rule=EXECUTE("ties"))
    grading.expect_close(w.grad, [2.0, 3.0], what="w.grad for p, q = w.unbind(), (p * 2 + q * 3).backward()",
                         rule=EXECUTE("sum"))


def _random_stand_ins(case):
    """A random graph of stand-in nodes: (roots, root_grads, dependencies, weights)."""
    size = int(case.integers(3, 12))
    numbers = [float("inf") if case.integers(0, 5) == 0 else int(n) for n in case.permutation(size * 2)[:size]]
    nodes = [StandIn(f"N{i}", numbers[i], int(case.integers(1, 3))) for i in range(size)]
    weights = {}
    for i, node in enumerate(nodes[:-1]):
        edges = []
        for _ in range(int(case.integers(1, 4))):
            j = int(case.integers(i + 1, size))
            edges.append((nodes[j], int(case.integers(0, nodes[j].num_outputs))))
        if case.integers(0, 3) == 0:
            edges.insert(int(case.integers(0, len(edges) + 1)), (None, 0))
        node.next_functions = tuple(edges)
        weights[node.name] = [None if case.integers(0, 5) == 0 else float(case.integers(1, 4)) for _ in edges]
    roots = [(nodes[0], 0)] + [(nodes[int(case.integers(0, size))], 0) for _ in range(int(case.integers(0, 3)))]
    root_grads = [float(case.integers(1, 5)) for _ in roots]
    dependencies, seen, stack = {}, set(), [node for node, _ in roots]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                stack.append(next_node)
    if case.integers(0, 3) == 0:                 # a node this pass does not visit, and all below it
        cut = nodes[int(case.integers(1, size))]
        below, stack = set(), [cut]
        while stack:
            node = stack.pop()
            if node not in below:
                below.add(node)
                stack.extend(n for n, _ in node.next_functions if n is not None)
        dependencies = {n: c for n, c in dependencies.items() if n not in below}
    return roots, root_grads, dependencies, weights


def random_loops(fn, seed):
    """The hidden tests of execute: random stand-in graphs (several outputs, None edges,
    unvisited nodes, equal numbers), random real graphs with hooks, autograd.grad's pruned
    passes, and a chain of 5 000 nodes, against the library's loop."""
    reference_execute = exercises.reference("03.execute")
    for case in grading.random_cases(seed=seed, count=12):
        roots, root_grads, dependencies, weights = _random_stand_ins(case)
        expected = Trace(weights)
        reference_execute(roots, list(root_grads), dict(dependencies), expected)
        seen = Trace(weights)
        with grading.checking("03.execute", fn):
            call(fn, roots, list(root_grads), dict(dependencies), seen,
                 what=f"execute on a random graph of {len(weights) + 1} stand-in nodes", rule=EXECUTE("once"))
        grading.expect_equal([name for name, _ in seen.runs], [name for name, _ in expected.runs],
                             what=f"the order the nodes ran in, a random graph of {len(weights) + 1} stand-in "
                                  f"nodes (sequence numbers {[n._sequence_nr for n, _ in roots[:1]]}...)",
                             rule=EXECUTE("newest", "ties", "once", "skip"))
        grading.expect_equal(seen.runs, expected.runs,
                             what=f"the gradients each node ran with, a random graph of {len(weights) + 1} "
                                  "stand-in nodes", rule=EXECUTE("sum", "count-none"))

    for case in grading.random_cases(seed=seed + 1, count=6):           # real graphs, with hooks
        build = random_graph(case)
        def story(_, build=build):
            loss, leaves, _ = build()
            order = call(labelled_order, loss, leaves, what="loss.backward() on a random graph", rule=EXECUTE("once"))
            return order, {name: None if t.grad is None else t.grad.numpy().copy() for name, t in leaves.items()}

        (expected_order, expected_grads), (order, grads) = grading.side_by_side("03.execute", fn, story)
        grading.expect_equal(order, expected_order, what="the order of the nodes and leaf hooks on a random graph",
                             rule=EXECUTE("newest", "ties"))
        for name, want in expected_grads.items():
            if want is None:                         # a leaf the loss does not use
                grading.expect_equal(grads[name], None, what=f"{name}.grad on a random graph that does not use it",
                                     rule=EXECUTE("once"))
            else:
                grading.expect_close(grads[name], want, what=f"{name}.grad on a random graph", rule=EXECUTE("sum"))

    def pruned(_):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = ag.tensor([3.0, -1.0], requires_grad=True)
        h = a * b
        out = (h.exp() + a * 3.0).sum()
        grads = call(ag.autograd.grad, out, [h, a], what="autograd.grad(out, [h, a]) (a pruned pass)",
                     rule=EXECUTE("skip"))
        return [None if g is None else g.numpy().copy() for g in grads], b.grad

    (expected, _), (seen, b_grad) = grading.side_by_side("03.execute", fn, pruned)
    for got, want, name in zip(seen, expected, ("h", "a")):
        grading.expect_close(got, want, what=f"the gradient of out with respect to {name}, from autograd.grad",
                             rule=EXECUTE("skip"))
    grading.expect_equal(b_grad, None, what="b.grad after autograd.grad(out, [h, a]) (fills no .grad)",
                         rule=EXECUTE("skip"))

    with grading.checking("03.execute", fn):
        z = ag.tensor(1.0, requires_grad=True)
        deep = z
        for _ in range(5_000):
            deep = deep * 1.0001
        call(deep.backward, what="backward through a chain of 5 000 nodes", rule=EXECUTE("deep"))
    grading.expect_close(z.grad, 1.0001 ** 5_000, rtol=1e-4, what="z.grad after a chain of 5 000 multiplications",
                         rule=EXECUTE("deep"))
