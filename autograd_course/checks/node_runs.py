"""Visible checks of assignment 03, exercise 5: ``run_node``, one node of a pass.

``autograd_course.checks.backward`` (the notebook's ``check``) shows them; ``run_node`` is the
visible part of its test cell, run on the function you wrote, and its docstring says what it tries:
the preconditions first, with a stand-in task (``TaskStandIn``) and a recording stand-in in each
slot your function calls (``recording``), then the rules.  ``random_nodes`` and ``broadcast_hooks``
are what the hidden part runs, against the library's ``run_node``.
"""

import contextlib

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.viz import graph_nodes, node_labels
from autograd_course import grading
from autograd_course.notebook import call, library_version

from .engine_loop import random_graph

__all__ = ["no_gradient_functions", "NODE", "TaskStandIn", "recording", "run_node", "random_nodes", "broadcast_hooks", "nothing_arrives",
           "noting_checks"]

NODE = grading.rules("03.run_node")


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


def _value(grad):
    return None if grad is None else grad.tolist()


def no_gradient_functions(events):
    """Two custom Functions (06): ``Drop``, whose backward sends nothing back (the nodes below
    it get no gradient at all), and ``Triple``, whose backward notes what it got in ``events``
    and sends back three times it."""
    class Drop(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return None

    class Triple(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, grad):
            events.append(("Triple.backward", _value(grad)))
            return grad * 3

    return Drop, Triple


def _hook_noting(t, events, name):
    """Hooks of every kind on ``t`` and its node, noting what they get in ``events``."""
    t.register_hook(lambda g: events.append((f"{name} tensor hook", _value(g))))
    t.grad_fn.register_prehook(lambda go: events.append((f"{name} pre-hook", _values(go))))
    t.grad_fn.register_hook(lambda gi, go: events.append((f"{name} post-hook", _values(gi), _values(go))))


def _nothing_arrived(run):
    """``run(task, node, None)`` on the node of ``y = a * b`` and on a custom Function's node,
    with hooks of every kind: (what each returned, the events, whether each node freed what it
    saved)."""
    events = []
    _, Triple = no_gradient_functions(events)
    a, b, y = _product()
    _hook_noting(y, events, "y")
    product = call(run, TaskStandIn(), y.grad_fn, None, what="run_node(task, y.grad_fn, None), y = a * b",
                   rule=NODE("nothing"))
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    t = Triple.apply(x)
    _hook_noting(t, events, "t")
    custom = call(run, TaskStandIn(), t.grad_fn, None, what="run_node(task, t.grad_fn, None), t = Triple.apply(x)",
                  rule=NODE("nothing"))
    return [product, custom], events, _freed(y.grad_fn)


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

    with library_version("03"):         # the library's 03 throughout: nothing of yours decides the expectation
        expected = _nothing_arrived(exercises.reference("03.run_node"))
    with grading.checking("03.run_node", fn):
        seen = _nothing_arrived(fn)
    results = [_edges(result, count, f"what run_node returns when nothing arrived at {node}: a list, one entry "
                      f"per edge ({count})", NODE("nothing"))
               for result, node, count in zip(seen[0], ("y = a * b", "t = Triple.apply(x)"), (2, 1))]
    grading.expect_equal(seen[1], expected[1], what="(hook, what it got) when nothing arrived (PyTorch calls every "
                         "hook, with None, and Triple's backward, with zeros)", rule=NODE("nothing", "order"))
    grading.expect_equal([_values(r) for r in results], [_values(r) for r in expected[0]],
                         what="what run_node returns when nothing arrived (y = a * b, then Triple)",
                         rule=NODE("nothing"))
    grading.expect_equal(seen[2], True, what="whether y.grad_fn freed its saved values when nothing arrived "
                         "(retain_graph False)", rule=NODE("nothing", "free"))

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
    with library_version("03"):         # the library's 03 throughout: nothing of yours decides the expectation
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

    with grading.checking("03.run_node", fn):
        events = []
        Drop, Triple = no_gradient_functions(events)
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        _hook_noting(y, events, "y")
        call(lambda: Drop.apply(y + Triple.apply(x)).sum().backward(),
             what="Drop.apply(y + Triple.apply(x)).sum().backward(), y = x.exp() with hooks", rule=NODE("nothing"))
    grading.expect_equal(events, [("Triple.backward", [0.0, 0.0]), ("y tensor hook", None), ("y pre-hook", [None]),
                                  ("y post-hook", [None], [None])],
                         what="the events of a pass where Drop sends nothing back (PyTorch's)",
                         rule=NODE("nothing", "order"))
    grading.expect_equal(x.grad.tolist() if x.grad is not None else None, [0.0, 0.0],
                         what="x.grad after that pass (PyTorch: Triple's zeros)", rule=NODE("nothing"))


def nothing_arrives(fn, seed):
    """Hidden tests of run_node: a random graph whose loss goes through ``Drop`` (its backward
    sends nothing back), sometimes beside ``Triple`` of one of its tensors (zeros flow on from
    it), with hooks noting what they get on every node: the events, the gradients and which
    nodes freed what they saved, with backward or autograd.grad, against the library's
    run_node."""
    for case in grading.random_cases(seed=seed, count=6):
        build = random_graph(case, size=int(case.integers(3, 8)))
        triple_at = int(case.integers(-1, 3))          # -1: no Triple
        retain, pruned = bool(case.integers(0, 2)), case.integers(0, 3) == 0

        def run():
            events = []
            Drop, Triple = no_gradient_functions(events)
            loss, leaves, pool = build()
            total = loss if triple_at < 0 else loss + Triple.apply(pool[-1 - triple_at]).sum()
            nodes = graph_nodes(total)
            labels = node_labels(nodes)
            for node in nodes:
                node.register_prehook(lambda go, label=labels[node]: events.append((label, "pre", _values(go))))
                node.register_hook(lambda gi, go, label=labels[node]: events.append((label, "post", _values(gi))))
            for k, t in enumerate(pool):
                if t.requires_grad:
                    t.register_hook(lambda g, k=k: events.append((f"tensor {k}", "hook", _value(g))))
            dropped = Drop.apply(total)
            if pruned:
                results = ag.autograd.grad(dropped, list(leaves.values()), allow_unused=True, retain_graph=retain)
                grads = [_value(g) for g in results]
            else:
                dropped.backward(retain_graph=retain)
                grads = [_value(t.grad) for t in leaves.values()]
            return events, grads, [_freed_any(node) for node in nodes]

        shown = (f"a random pass through Drop ({'autograd.grad' if pruned else 'backward'}, retain_graph={retain}"
                 f"{'' if triple_at < 0 else ', with Triple'})")
        expected, seen = grading.side_by_side("03.run_node", fn, lambda _: call(run, what=shown, rule=NODE("nothing")))
        grading.expect_equal(seen[0], expected[0], what=f"the hooks' events of {shown}", rule=NODE("nothing"))
        grading.expect_equal(seen[1], expected[1], what=f"the gradients of {shown}", rule=NODE("nothing"))
        grading.expect_equal(seen[2], expected[2], what=f"which nodes freed their saved values in {shown}",
                             rule=NODE("nothing", "free"))


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

        shown = f"a random pass with hooks ({'autograd.grad' if pruned else 'backward'}, retain_graph={retain})"
        expected, seen = grading.side_by_side("03.run_node", fn, lambda _: call(run, what=shown, rule=NODE("order")))
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

        shown = f"a {'*' if product else '+'} b, a of shape {(n, m)}, b of {small}"
        expected, seen = grading.side_by_side(
            "03.run_node", fn, lambda _: call(run, what=f"backward() through {shown}, with a post-hook", rule=NODE("order")))
        grading.expect_equal(seen, expected, what=f"(what the post-hook saw, b.grad) for {shown}", rule=NODE("order"))


def _freed_any(node):
    """Whether reading any of a node's saved tensors raises (they were freed)."""
    try:
        node.saved_tensors
    except RuntimeError:
        return True
    return False
