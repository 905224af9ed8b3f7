"""Visible checks of assignment 03, exercises 4-7: the engine's loop (``execute``), one node
(``run_node``), the starting gradients (``initial_gradients``) and the driver
(``run_backward``).  ``backward.py`` imports them: a test cell calls ``check.execute(...)``.

Each check tries the preconditions first (did the root run at all, did your function call
the pieces through their slots: a recording stand-in is plugged in each), then the rules.
Nodes that share a class name are told apart as PyTorch would number them, by creation
order (``MulBackward0 #2`` is the newer).  The ``random_...`` functions are the hidden tests.

Why a module of this length: four exercises' visible checks and random cases, the engine
of the course, kept together.
"""

import contextlib

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.engine import GraphTask
from autograd_lib.viz import graph_nodes, node_labels
from autograd_course import grading
from autograd_course.notebook import call, library_version

__all__ = ["EXECUTE", "NODE", "STARTS", "DRIVER", "StandIn", "Trace", "run_stand_ins", "labelled_order",
           "random_graph", "execute", "random_loops", "TaskStandIn", "recording", "run_node", "random_nodes", "broadcast_hooks",
           "initial_gradients", "random_starts", "RecordingTask", "run_backward", "random_drivers"]

EXECUTE = grading.rules("03.execute")
NODE = grading.rules("03.run_node")
STARTS = grading.rules("03.initial_gradients")
DRIVER = grading.rules("03.run_backward")


# ------------------------------------------------------------------ exercise 4: execute

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
        with library_version("03"):
            loss, leaves, _ = build()
            expected_order = labelled_order(loss, leaves)
            expected_grads = [None if t.grad is None else t.grad.numpy().copy() for t in leaves.values()]
        with grading.checking("03.execute", fn):
            loss, leaves, _ = build()
            order = call(labelled_order, loss, leaves, what="loss.backward() on a random graph", rule=EXECUTE("once"))
        grading.expect_equal(order, expected_order, what="the order of the nodes and leaf hooks on a random graph",
                             rule=EXECUTE("newest", "ties"))
        for (name, t), want in zip(leaves.items(), expected_grads):
            if want is None:                         # a leaf the loss does not use
                grading.expect_equal(t.grad, None, what=f"{name}.grad on a random graph that does not use it",
                                     rule=EXECUTE("once"))
            else:
                grading.expect_close(t.grad, want, what=f"{name}.grad on a random graph", rule=EXECUTE("sum"))

    with library_version("03"):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = ag.tensor([3.0, -1.0], requires_grad=True)
        h = a * b
        out = (h.exp() + a * 3.0).sum()
        expected = [g.numpy().copy() for g in ag.autograd.grad(out, [h, a], retain_graph=True)]
    with grading.checking("03.execute", fn):
        seen = call(ag.autograd.grad, out, [h, a], what="autograd.grad(out, [h, a]) (a pruned pass)",
                    rule=EXECUTE("skip"))
    for got, want, name in zip(seen, expected, ("h", "a")):
        grading.expect_close(got, want, what=f"the gradient of out with respect to {name}, from autograd.grad",
                             rule=EXECUTE("skip"))
    grading.expect_equal(b.grad, None, what="b.grad after autograd.grad(out, [h, a]) (fills no .grad)",
                         rule=EXECUTE("skip"))

    with grading.checking("03.execute", fn):
        z = ag.tensor(1.0, requires_grad=True)
        deep = z
        for _ in range(5_000):
            deep = deep * 1.0001
        call(deep.backward, what="backward through a chain of 5 000 nodes", rule=EXECUTE("deep"))
    grading.expect_close(z.grad, 1.0001 ** 5_000, rtol=1e-4, what="z.grad after a chain of 5 000 multiplications",
                         rule=EXECUTE("deep"))


# ------------------------------------------------------------------ exercise 5: run_node

class TaskStandIn:
    """A stand-in for the pass (a ``GraphTask``): ``runs(node, grads)`` notes that it was
    asked and answers ``runs``; ``retain_graph`` and ``create_graph`` are as given."""

    def __init__(self, runs=True, retain_graph=False, create_graph=False):
        self.answer, self.retain_graph, self.create_graph = runs, retain_graph, create_graph
        self.asked = []

    def runs(self, node, grads):
        self.asked.append(node.name())
        return self.answer


@contextlib.contextmanager
def _in_slot(exercise_id, fn):
    """``fn`` in the slot of ``exercise_id`` inside the block (set directly: a stand-in of the
    check is not one of your functions, and errors are not noted as an exercise's)."""
    slot = exercises.SLOTS[exercise_id]
    previous = slot.get()
    slot.set(fn)
    try:
        yield
    finally:
        slot.set(previous)


@contextlib.contextmanager
def recording(log, *exercise_ids):
    """Inside the block, the slot of each exercise holds a stand-in that notes its name
    (``call_tensor_hooks`` for 04.call_tensor_hooks) in ``log``, then runs the library's
    function: so a check sees whether, and when, your function reached the slot."""
    with contextlib.ExitStack() as stack:
        for exercise_id in exercise_ids:
            name, reference = exercise_id.split(".", 1)[1], exercises.reference(exercise_id)

            def stand_in(*args, name=name, reference=reference):
                log.append(name)
                return reference(*args)
            stack.enter_context(_in_slot(exercise_id, stand_in))
        yield


@contextlib.contextmanager
def noting_checks(log):
    """A check in ``ag.engine.NODE_CHECKS`` that notes ``NODE_CHECKS`` in ``log``."""
    def note(node, grad_inputs):
        log.append("NODE_CHECKS")
    ag.engine.NODE_CHECKS.append(note)
    try:
        yield
    finally:
        ag.engine.NODE_CHECKS.remove(note)


def _product():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0, -1.0], requires_grad=True)
    return a, b, a * b


def _values(grads):
    return [None if g is None else g.tolist() for g in grads]


def _edges(result, count, what, rule):
    grading.expect_true(isinstance(result, (list, tuple)) and len(result) == count, what=what,
                        seen=repr(result if not isinstance(result, (list, tuple)) else _values(result)), rule=rule)
    return list(result)


def run_node(fn):
    """Your ``run_node`` on ``y = a * b``'s node with a stand-in task: nothing arrived (no hook
    may run), a node the task skips; then, with hooks of every kind (two of each kind of node
    hook, some replacing gradients) and a recording stand-in in each slot it calls, the events
    compared with those of the library's ``run_node``; ``retain_graph``; then real passes,
    compared with PyTorch."""
    log = []

    def hook_everything(y):
        y.register_hook(lambda g: log.append("tensor hook"))
        y.grad_fn.register_prehook(lambda go: log.append("pre-hook"))
        y.grad_fn.register_hook(lambda gi, go: log.append("post-hook"))

    with grading.checking("03.run_node", fn):
        a, b, y = _product()
        hook_everything(y)
        result = call(fn, TaskStandIn(), y.grad_fn, None, what="run_node(task, y.grad_fn, None), y = a * b",
                      rule=NODE("nothing"))
    result = _edges(result, 2, "what run_node returns when nothing arrived: a list, one entry per edge (y = a * b: 2)",
                    NODE("nothing"))
    grading.expect_equal(result, [None, None], what="what run_node returns when nothing arrived", rule=NODE("nothing"))
    grading.expect_equal(log, [], what="the hooks called when nothing arrived", rule=NODE("nothing"))

    task = TaskStandIn(runs=False)
    with grading.checking("03.run_node", fn):
        a, b, y = _product()
        hook_everything(y)
        result = call(fn, task, y.grad_fn, [ag.ones(2)], what="run_node(task, y.grad_fn, [ones]), a task that says "
                      "no", rule=NODE("task"))
    grading.expect_true(len(task.asked) > 0, what="whether run_node asked task.runs(node, grads)", seen="never asked",
                        rule=NODE("task"))
    result = _edges(result, 2, "what run_node returns when the task says no: one entry per edge", NODE("task"))
    grading.expect_equal(result, [None, None], what="what run_node returns when the task says no", rule=NODE("task"))
    grading.expect_equal(log, [], what="the hooks called when the task says no", rule=NODE("task"))

    def hooked_run(run, log, seen):
        a, b, y = _product()
        y.register_hook(lambda g: log.append("tensor hook"))
        y.grad_fn.register_prehook(lambda go: (log.append("pre-hook 1"), (go[0] * 10,))[1])
        y.grad_fn.register_prehook(lambda go: (log.append("pre-hook 2"), seen.setdefault("pre 2", _values(go)))[0])
        y.grad_fn.register_hook(lambda gi, go: (log.append("post-hook 1"), (gi[0] * 2, gi[1]))[1])
        y.grad_fn.register_hook(lambda gi, go: (log.append("post-hook 2"),
                                                seen.setdefault("post 2", (_values(gi), _values(go))))[0])
        with recording(log, "04.call_tensor_hooks", "05.validate_outputs", "06.release_saved"), noting_checks(log):
            result = call(run, TaskStandIn(), y.grad_fn, [ag.ones(2)],
                          what="run_node(task, y.grad_fn, [ones]) with hooks on y = a * b", rule=NODE("order"))
        return result, _freed(y.grad_fn)

    expected = []
    hooked_run(exercises.reference("03.run_node"), expected, {})
    log, seen = [], {}
    with grading.checking("03.run_node", fn):
        result, freed = hooked_run(fn, log, seen)
    for piece in ("call_tensor_hooks", "validate_outputs"):
        grading.expect_true(piece in log, what=f"whether run_node called ag.engine.{piece} (a recording stand-in "
                            "was plugged in its slot)", seen=f"the events: {log}", rule=NODE("slots"))
    grading.expect_equal(log, expected, what="the events of one node, in the order they happened",
                         rule=NODE("order", "free"))
    grading.expect_equal(seen.get("pre 2"), [[10.0, 10.0]], what="what pre-hook 2 got after pre-hook 1 returned "
                         "(grad * 10,)", rule=NODE("replace"))
    grading.expect_equal(seen.get("post 2"), ([[60.0, -20.0], [10.0, 20.0]], [[10.0, 10.0]]),
                         what="what post-hook 2 got (input gradients, output gradients) after post-hook 1 "
                              "doubled the first", rule=NODE("replace"))
    result = _edges(result, 2, "what run_node returns: one gradient per edge (y = a * b: 2)", NODE("order"))
    grading.expect_equal(_values(result), [[60.0, -20.0], [10.0, 20.0]],
                         what="what run_node returns for y = a * b, grad ones, after the hooks' replacements",
                         rule=NODE("replace"))
    grading.expect_equal(freed, True, what="whether y.grad_fn's saved values were freed (retain_graph False)",
                         rule=NODE("free"))

    log = []
    with grading.checking("03.run_node", fn):
        a, b, y = _product()
        with recording(log, "06.release_saved"):
            call(fn, TaskStandIn(retain_graph=True), y.grad_fn, [ag.ones(2)],
                 what="run_node(task, y.grad_fn, [ones]) with task.retain_graph True", rule=NODE("free"))
        freed = _freed(y.grad_fn)
    grading.expect_equal((log, freed), ([], False), what="(calls of release_saved, saved values freed) with "
                         "retain_graph True", rule=NODE("free"))

    with grading.checking("03.run_node", fn):
        x = ag.tensor([2.0, 3.0], requires_grad=True)
        y = x * x
        events = []
        y.register_hook(lambda g: events.append(("tensor hook", g.tolist())))
        y.grad_fn.register_prehook(lambda go: events.append(("pre-hook", _values(go))))
        y.grad_fn.register_hook(lambda gi, go: (events.append(("post-hook", _values(gi))), (gi[0] * 10, None))[1])
        call(lambda: y.sum().backward(retain_graph=True), what="y.sum().backward() with hooks, y = x * x",
             rule=NODE("order"))
        s = ag.tensor(2.0, requires_grad=True)
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = v + s
        shapes = []
        z.grad_fn.register_hook(lambda gi, go: shapes.append([list(g.shape) for g in gi]))
        call(z.sum().backward, what="(v + s).sum().backward() with a post-hook, s 0-d", rule=NODE("order"))
        call(y.sum().backward, what="a second y.sum().backward() (the graph was retained)", rule=NODE("free"))
        grading.expect_raises(y.sum().backward, RuntimeError, "Trying to backward through the graph a second time",
                              what="a third y.sum().backward(), the second one not retained", rule=NODE("free"))
    grading.expect_equal(events[:3], [("tensor hook", [1.0, 1.0]), ("pre-hook", [[1.0, 1.0]]),
                                      ("post-hook", [[2.0, 3.0], [2.0, 3.0]])],
                         what="the hooks' events for y = x * x (PyTorch's)", rule=NODE("order"))
    grading.expect_close(x.grad, [40.0, 60.0], what="x.grad after two passes whose post-hook returns "
                         "(gi[0] * 10, None) (PyTorch: [20, 30] each)", rule=NODE("replace"))
    grading.expect_equal(shapes, [[[3], []]], what="the shapes a post-hook of v + s sees (fitted: s is 0-d)",
                         rule=NODE("order"))


def _freed(node):
    """Whether a node's saved values were freed (reading one raises)."""
    try:
        node._saved_self
    except RuntimeError:
        return True
    return False


def random_nodes(fn, seed):
    """The hidden tests of run_node: random graphs with random tensor hooks, pre-hooks and
    post-hooks (some returning replacements), backward with and without retain_graph, and
    autograd.grad's pruned passes, against the library's run_node."""
    for case in grading.random_cases(seed=seed, count=8):
        build = random_graph(case, size=int(case.integers(4, 10)))
        plan = [(int(case.integers(0, 3)), int(case.integers(0, 3)), float(case.integers(2, 5)))
                for _ in range(40)]
        retain = bool(case.integers(0, 2))
        pruned = case.integers(0, 3) == 0

        def run():
            loss, leaves, pool = build()
            nodes = graph_nodes(loss)
            labels = node_labels(nodes)
            log = []
            for node, (pre, post, factor) in zip(nodes, plan):
                label = labels[node]
                if pre == 1:
                    node.register_prehook(lambda go, label=label: log.append((label, "pre", _values(go))))
                elif pre == 2:
                    node.register_prehook(lambda go, f=factor: tuple(None if g is None else g * f for g in go))
                if post == 1:
                    node.register_hook(lambda gi, go, label=label: log.append((label, "post", _values(gi),
                                                                               _values(go))))
                elif post == 2:
                    node.register_hook(lambda gi, go, f=factor: tuple(None if g is None else g / f for g in gi))
            for k, t in enumerate(pool[3:]):
                if plan[k][0] == 1 and t.requires_grad:
                    t.register_hook(lambda g, k=k: log.append((f"tensor {k}", "hook", g.tolist())))
            if pruned:
                wanted = [t for t in (pool[-4], *leaves.values()) if t.requires_grad]
                results = ag.autograd.grad(loss, wanted, allow_unused=True, retain_graph=retain)
                grads = [None if g is None else g.tolist() for g in results]
            else:
                loss.backward(retain_graph=retain)
                grads = [None if t.grad is None else t.grad.tolist() for t in leaves.values()]
            freed = [_freed_any(node) for node in nodes]
            return log, grads, freed

        with library_version("03"):
            expected = run()
        with grading.checking("03.run_node", fn):
            seen = call(run, what=f"a random pass with hooks ({'autograd.grad' if pruned else 'backward'}, "
                        f"retain_graph={retain})", rule=NODE("order"))
        grading.expect_equal(seen[0], expected[0], what="the hooks' events on a random graph (node, kind, gradients)",
                             rule=NODE("order", "replace", "task") if pruned else NODE("order", "replace"))
        grading.expect_equal(seen[1], expected[1], what="the gradients of a random pass with hooks",
                             rule=NODE("replace"))
        grading.expect_equal(seen[2], expected[2], what=f"which nodes freed their saved values (retain_graph={retain})",
                             rule=NODE("free"))


def broadcast_hooks(fn, seed):
    """Hidden tests of run_node: a post-hook of ``a * b`` or ``a + b`` where ``b`` was broadcast
    sees ``b``'s gradient fitted to ``b``'s shape, as PyTorch's does."""
    for case in grading.random_cases(seed=seed, count=6):
        n, m = (int(d) for d in case.integers(2, 4, size=2))
        small = [(), (m,), (1, m), (n, 1)][int(case.integers(0, 4))]
        values = np.asarray(case.standard_normal((n, m))), np.asarray(case.standard_normal(small))
        product = bool(case.integers(0, 2))

        def run():
            a, b = (ag.tensor(v, requires_grad=True) for v in values)
            y = a * b if product else a + b
            seen = []
            y.grad_fn.register_hook(lambda gi, go: seen.append([(list(g.shape), g.tolist()) for g in gi]))
            y.sum().backward()
            return seen, b.grad.tolist()

        with library_version("03"):
            expected = run()
        shown = f"a {'*' if product else '+'} b, a of shape {(n, m)}, b of {small}"
        with grading.checking("03.run_node", fn):
            seen = call(run, what=f"backward() through {shown}, with a post-hook", rule=NODE("order"))
        grading.expect_equal(seen, expected, what=f"(what the post-hook saw, b.grad) for {shown}", rule=NODE("order"))


def _freed_any(node):
    """Whether reading any of a node's saved tensors raises (they were freed)."""
    try:
        node.saved_tensors
    except RuntimeError:
        return True
    return False


# ------------------------------------------------------------------ exercise 6: initial_gradients

def initial_gradients(fn):
    """Your ``initial_gradients`` for one-element outputs (0-d and shape (1,)), a given gradient,
    an output that does not require grad, and PyTorch's errors (several elements without a
    gradient, a wrong shape naming the position, a gradient that is not a tensor); then
    ``backward()`` with and without a gradient."""
    a = ag.tensor([2.0, 3.0], requires_grad=True)
    s = (a * a).sum()                          # shape ()
    one = a[:1] * 3.0                          # shape (1,)
    Q = a * a                                  # shape (2,)
    with grading.checking("03.initial_gradients", fn):
        r_scalar = call(fn, [s], [None], what="initial_gradients([s], [None]) for a 0-d s", rule=STARTS("implicit"))
        r_one = call(fn, [one], [None], what="initial_gradients([t], [None]) for t of shape (1,)",
                     rule=STARTS("implicit"))
        r_given = call(fn, [Q], [ag.tensor([1.0, -1.0], dtype=ag.float64)],
                       what="initial_gradients([Q], [v]), v float64 of Q's shape", rule=STARTS("given"))
        r_plain = call(fn, [ag.ones(3)], [None], what="initial_gradients([ones(3)], [None]) (no grad required)",
                       rule=STARTS("scalar-only"))
    grading.expect_true(isinstance(r_scalar, list) and len(r_scalar) == 1, what="the result for one output",
                        seen=repr(r_scalar), rule=STARTS("implicit"))
    grading.expect_close(r_scalar[0], 1.0, what="the implicit gradient of a 0-d output", rule=STARTS("implicit"))
    grading.expect_close(r_one[0], [1.0], what="the implicit gradient of an output of shape (1,)",
                         rule=STARTS("implicit"))
    grading.expect_close(r_given[0], [1.0, -1.0], what="the gradient given for Q", rule=STARTS("given"))
    grading.expect_equal(r_given[0].dtype, ag.float64, what="the dtype of the gradient given (float64) for a "
                         "float32 Q", rule=STARTS("given"))
    grading.expect_close(r_plain[0], [1.0, 1.0, 1.0], what="the gradient for an output of 3 elements that does "
                         "not require grad", rule=STARTS("scalar-only"))

    with grading.checking("03.initial_gradients", fn):
        grading.expect_raises(lambda: fn([Q], [None]), RuntimeError,
                              "grad can be implicitly created only for scalar outputs",
                              what="initial_gradients([Q], [None]) for Q of shape (2,)", rule=STARTS("scalar-only"))
        grading.expect_raises(lambda: fn([Q], [ag.ones(3)]), RuntimeError,
                              f"Mismatch in shape: grad_output[0] has a shape of {ag.Size([3])} and "
                              f"output[0] has a shape of {ag.Size([2])}.",
                              what="initial_gradients([Q], [ones(3)]) for Q of shape (2,)", rule=STARTS("shape"))
        grading.expect_raises(lambda: fn([Q], [[1.0, 1.0]]), TypeError,
                              "gradients can be either Tensors or None, but got list",
                              what="initial_gradients([Q], [[1.0, 1.0]])", rule=STARTS("type"))
        grading.expect_raises(lambda: fn([Q], [np.ones(2)]), TypeError,
                              "gradients can be either Tensors or None, but got ndarray",
                              what="initial_gradients([Q], [np.ones(2)])", rule=STARTS("type"))
        grading.expect_raises(lambda: fn([s, Q], [None, ag.ones(3)]), RuntimeError,
                              f"Mismatch in shape: grad_output[1] has a shape of {ag.Size([3])} and "
                              f"output[1] has a shape of {ag.Size([2])}.",
                              what="initial_gradients([s, Q], [None, ones(3)])", rule=STARTS("shape"))

    with grading.checking("03.initial_gradients", fn):
        x = ag.tensor([2.0], requires_grad=True)
        L = (2 * x + 5) + x
        call(L.backward, what="L.backward() for L of shape (1,)", rule=STARTS("implicit"))
        b = ag.tensor([6.0, 4.0], requires_grad=True)
        P = b * b
        call(lambda: P.backward(gradient=ag.tensor([1.0, 0.5])), what="P.backward(gradient=[1, 0.5]), P = b * b",
             rule=STARTS("given"))
    grading.expect_close(x.grad, [3.0], what="x.grad after L.backward() for L of shape (1,)", rule=STARTS("implicit"))
    grading.expect_close(b.grad, [12.0, 4.0], what="b.grad after P.backward(gradient=[1, 0.5])", rule=STARTS("given"))


def _outcome(fn, outputs, grads):
    try:
        return "value", [(g.tolist(), str(g.dtype)) for g in fn(outputs, grads)]
    except (RuntimeError, TypeError) as error:
        return type(error).__name__, str(error)


def random_starts(fn, seed):
    """The hidden tests of initial_gradients: random outputs (one element or several, needing
    grad or not) with every kind of gradient, against the library's function."""
    reference = exercises.reference("03.initial_gradients")
    for case in grading.random_cases(seed=seed, count=12):
        outputs, grads = [], []
        for _ in range(int(case.integers(1, 4))):
            shape = tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(0, 3))))
            if case.integers(0, 4) == 0:
                shape = (1,) * int(case.integers(0, 4))
            leaf = ag.tensor(np.asarray(case.standard_normal(shape)), requires_grad=bool(case.integers(0, 4)))
            outputs.append(leaf * 2.0)
            kind = int(case.integers(0, 7))
            if kind in (0, 6):
                grads.append(None)
            elif kind == 1:
                dtype = [ag.float32, ag.float64, ag.int64][int(case.integers(0, 3))]
                grads.append(ag.tensor(np.asarray(case.standard_normal(shape))).to(dtype))
            elif kind == 2:
                grads.append(ag.tensor(np.asarray(case.standard_normal(shape + (2,)))))
            elif kind == 3:
                grads.append([1.0, 2.0][: int(case.integers(1, 3))])
            elif kind == 4:
                grads.append(float(case.standard_normal()))
            else:
                grads.append(np.asarray(case.standard_normal(shape)))
        expected = _outcome(reference, outputs, grads)
        with grading.checking("03.initial_gradients", fn):
            try:
                seen = _outcome(fn, outputs, grads)
            except Exception as error:               # noqa: BLE001 - shown to the student as it is
                seen = type(error).__name__, str(error)
        shapes = [(tuple(out.shape), out.requires_grad) for out in outputs]
        kinds = ["None" if g is None else type(g).__name__ + (str(tuple(g.shape)) if isinstance(g, ag.Tensor) else "")
                 for g in grads]
        rule = {"value": STARTS("implicit", "given"), "TypeError": STARTS("type")}.get(
            expected[0], STARTS("shape") if "Mismatch" in str(expected[1]) else STARTS("scalar-only"))
        grading.expect_equal(seen, expected, what=f"initial_gradients for outputs (shape, requires_grad) {shapes} "
                             f"and gradients {kinds}", rule=rule)


# ------------------------------------------------------------------ exercise 7: run_backward

class RecordingTask(GraphTask):
    """A real pass (a ``GraphTask``) that notes what ``start`` was given and returned."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.given = self.returned = None

    def start(self, root_edges, root_grads, dependencies):
        self.given = ([tuple(edge) for edge in root_edges], list(root_grads), dict(dependencies))
        self.returned = super().start(root_edges, root_grads, dependencies)
        return self.returned


@contextlib.contextmanager
def driver_stand_ins(calls):
    """Inside the block, the slots the driver calls (initial_gradients, count_dependencies,
    execute, run_node) hold stand-ins that note ``(name, arguments, grad mode)`` in ``calls``,
    then run the library's function."""
    with contextlib.ExitStack() as stack:
        for exercise_id in ("03.initial_gradients", "03.count_dependencies", "03.execute", "03.run_node"):
            name, reference = exercise_id.split(".", 1)[1], exercises.reference(exercise_id)

            def stand_in(*args, name=name, reference=reference):
                calls.append((name, args, ag.is_grad_enabled()))
                return reference(*args)
            stack.enter_context(_in_slot(exercise_id, stand_in))
        yield


def run_backward(fn):
    """Your ``run_backward`` with a recording stand-in in each slot it calls (was each called,
    with what, in which grad mode; what ``task.start`` was given), on ``y = a * 3`` with a
    float64 gradient; with ``create_graph``; then real passes: a leaf and an ``unbind`` output
    as roots, several roots, ``autograd.grad`` with ``inputs``, the errors."""
    calls = []
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    g = ag.tensor([1.0, 0.5], dtype=ag.float64)
    task = RecordingTask(False, False)
    with grading.checking("03.run_backward", fn):
        y = a * 3.0
        with driver_stand_ins(calls):
            call(fn, task, [y], [g], what="run_backward(task, [y], [g]), y = a * 3 (float32), g float64",
                 rule=DRIVER("loop"))
    expected_counts = exercises.reference("03.count_dependencies")([y.grad_fn])
    names = [name for name, _, _ in calls]
    for piece in ("initial_gradients", "count_dependencies", "execute", "run_node"):
        grading.expect_true(piece in names, what=f"whether ag.engine.{piece} was called (a recording stand-in was "
                            "plugged in its slot)", seen=f"the slots called: {sorted(set(names)) or 'none'}",
                            rule=DRIVER("slots"))
    start = next(args for name, args, _ in calls if name == "initial_gradients")
    grading.expect_true(names[0] == "initial_gradients" and list(start[0]) == [y] and start[1][0] is g,
                        what="the first slot called, and with what: initial_gradients([y], [g])",
                        seen=f"{names[0]}", rule=DRIVER("start"))
    counted = next(args for name, args, _ in calls if name == "count_dependencies")
    grading.expect_equal(list(counted[0]) == [y.grad_fn], True, what="count_dependencies called with [y.grad_fn]",
                         rule=DRIVER("counts"))
    grading.expect_true(task.given is not None, what="whether task.start(root_edges, root_grads, dependencies) was "
                        "called", seen="never called", rule=DRIVER("counts"))
    edges, grads, dependencies = task.given
    grading.expect_equal(edges == [(y.grad_fn, 0)], True, what="the root edges given to task.start: "
                         "[(y.grad_fn, 0)]", rule=DRIVER("edges"))
    grading.expect_equal([str(t.dtype) for t in grads], [str(ag.float32)],
                         what="the dtype of the starting gradient (float64 given) for a float32 y",
                         rule=DRIVER("dtype"))
    grading.expect_close(grads[0], [1.0, 0.5], what="the starting gradient given to task.start", rule=DRIVER("dtype"))
    grading.expect_equal(dependencies == expected_counts, True, what="the counts given to task.start: those of "
                         "y.grad_fn", rule=DRIVER("counts"))
    ran = next((args, mode) for name, args, mode in calls if name == "execute")
    grading.expect_equal(ran[1], False, what="grad mode while execute runs (task.create_graph False)",
                         rule=DRIVER("grad-mode"))
    grading.expect_true(all(args[0] is task for name, args, _ in calls if name == "run_node"),
                        what="whether each node ran through ag.engine.run_node(task, node, grads) for this task",
                        seen="run_node called with another task", rule=DRIVER("loop"))
    grading.expect_close(a.grad, [3.0, 1.5], what="a.grad after run_backward(task, [y], [g]), y = a * 3",
                         rule=DRIVER("loop"))

    calls = []
    x = ag.tensor(3.0, requires_grad=True)
    task = RecordingTask(False, True, inputs=(x,), accumulate=False)
    with grading.checking("03.run_backward", fn):
        cube = x ** 3
        with driver_stand_ins(calls):
            call(fn, task, [cube], [None], what="run_backward(task, [x ** 3], [None]), create_graph",
                 rule=DRIVER("grad-mode"))
    modes = [mode for name, _, mode in calls if name == "execute"]
    grading.expect_equal(modes, [True], what="grad mode while execute runs, task.create_graph True",
                         rule=DRIVER("grad-mode"))
    grading.expect_true(task.captured[0] is not None and task.captured[0].grad_fn is not None,
                        what="whether d(x**3)/dx, with create_graph, has a grad_fn", seen=repr(task.captured[0]),
                        rule=DRIVER("grad-mode"))

    with grading.checking("03.run_backward", fn):
        leaf = ag.tensor([1.0, 2.0], requires_grad=True)
        call(lambda: fn(GraphTask(False, False), [leaf], [ag.tensor([1.0, 1.0])]),
             what="run_backward(task, [leaf], [ones]) (a leaf as the root)", rule=DRIVER("edges"))
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        p, q, r = w.unbind()
        call(lambda: fn(GraphTask(False, False), [r, p], [None, ag.tensor(2.0)]),
             what="run_backward(task, [r, p], [None, 2]) for p, q, r = w.unbind()", rule=DRIVER("edges"))
        v = ag.tensor([1.0, -1.0], requires_grad=True)
        u = v * 2.0
        u.retain_grad()
        call(lambda: u.backward(gradient=ag.tensor([1, 3])), what="u.backward(gradient=ag.tensor([1, 3])), an int64 "
             "gradient for a float32 u", rule=DRIVER("dtype"))
        grading.expect_raises(lambda: fn(GraphTask(False, False), [v * 2, ag.ones(2)], [ag.ones(2), ag.ones(2)]),
                              RuntimeError, "element 1 of tensors does not require grad and does not have a grad_fn",
                              what="run_backward with roots [v * 2, ag.ones(2)]", rule=DRIVER("requires-grad"))
        grading.expect_raises(lambda: fn(GraphTask(False, False), [ag.ones(2), v * 2], [None, None]), RuntimeError,
                              "grad can be implicitly created only for scalar outputs",
                              what="run_backward with roots [ag.ones(2), v * 2], no gradients (the starting "
                                   "gradients are checked first)", rule=DRIVER("start"))
    grading.expect_close(leaf.grad, [1.0, 1.0], what="leaf.grad when the leaf itself is the root", rule=DRIVER("edges"))
    grading.expect_close(w.grad, [2.0, 0.0, 1.0], what="w.grad for roots [r, p] of w.unbind(), gradients [1, 2]",
                         rule=DRIVER("edges"))
    grading.expect_equal(str(u.grad.dtype), str(ag.float32), what="u.grad's dtype for an int64 gradient "
                         "(retain_grad shows the starting gradient)", rule=DRIVER("dtype"))

    with library_version("03"):
        a, b = ag.tensor([1.0, 2.0], requires_grad=True), ag.tensor([3.0, -1.0], requires_grad=True)
        h = a * b
        out = (h.exp() + a * 3.0).sum()
        expected = [t.numpy().copy() for t in ag.autograd.grad(out, [h, b], retain_graph=True)]
    with grading.checking("03.run_backward", fn):
        seen = call(ag.autograd.grad, out, [h, b], what="autograd.grad(out, [h, b]), out = (exp(a * b) + a * 3).sum()",
                    rule=DRIVER("counts"))
    for got, want, name in zip(seen, expected, "hb"):
        grading.expect_close(got, want, what=f"d out / d {name} from autograd.grad", rule=DRIVER("counts"))
    grading.expect_equal((a.grad, b.grad), (None, None), what="(a.grad, b.grad) after autograd.grad (it runs "
                         "what task.start keeps: no AccumulateGrad)", rule=DRIVER("counts"))


def random_drivers(fn, seed):
    """The hidden tests of run_backward: random passes over random graphs (one to three roots,
    leaves among them, gradients of random dtypes or None, backward or autograd.grad with
    create_graph and retain_graph, a root that does not require grad), against the library's
    driver."""
    for case in grading.random_cases(seed=seed, count=10):
        build = random_graph(case, size=int(case.integers(3, 9)))
        picks = [int(case.integers(0, 99)) for _ in range(int(case.integers(1, 4)))]
        kinds = [int(case.integers(0, 4)) for _ in picks]
        grad_mode = bool(case.integers(0, 2))
        broken = int(case.integers(0, len(picks))) if case.integers(0, 5) == 0 else None

        def run():
            loss, leaves, pool = build()
            roots = [loss if k == 0 else pool[p % len(pool)] for k, p in enumerate(picks)]
            if broken is not None:
                roots[broken] = roots[broken].detach()
            grads = []
            for root, kind in zip(roots, kinds):
                if kind == 0 and root.numel() == 1:
                    grads.append(None)
                else:
                    dtype = [ag.float64, ag.float32, ag.float64, ag.int64][kind]
                    grads.append(ag.ones_like(root).to(dtype) * (kind + 1))
            if grad_mode:
                wanted = [t for t in (*leaves.values(), pool[-1]) if t.requires_grad]
                results = ag.autograd.grad(roots, wanted, grads, create_graph=True, allow_unused=True)
                return [None if r is None else (r.tolist(), str(r.dtype), r.requires_grad) for r in results]
            ag.autograd.backward(roots, grads)
            return [None if t.grad is None else (t.grad.tolist(), str(t.grad.dtype)) for t in leaves.values()]

        def outcome():
            try:
                return run()
            except RuntimeError as error:
                return f"RuntimeError: {error}"

        with library_version("03"):
            expected = outcome()
        calls = []
        with grading.checking("03.run_backward", fn):
            with driver_stand_ins(calls):
                seen = call(outcome, what=f"a random pass ({'autograd.grad, create_graph' if grad_mode else 'backward'}"
                            f", {len(picks)} root(s))", rule=DRIVER("loop"))
        if not isinstance(expected, str):
            called = {name for name, _, _ in calls}
            grading.expect_equal([piece for piece in ("initial_gradients", "count_dependencies", "execute", "run_node")
                                  if piece not in called], [],
                                 what="the slots a random pass did not reach through ag.engine", rule=DRIVER("slots"))
        if isinstance(expected, str):
            rule = DRIVER("requires-grad")
        else:
            rule = DRIVER("grad-mode", "loop") if grad_mode else DRIVER("edges", "dtype", "loop")
        grading.expect_equal(seen, expected, what=f"the gradients of a random pass ({len(picks)} root(s), "
                             f"gradient kinds {kinds})", rule=rule)
