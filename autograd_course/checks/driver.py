"""Visible checks of assignment 03, exercise 6: ``run_backward``, the driver of a pass.

``autograd_course.checks.backward`` (the notebook's ``check``) shows them; ``run_backward`` is the
visible part of its test cell, run on the function you wrote, and its docstring says what it tries:
a recording stand-in in each slot the driver calls (``driver_stand_ins``) and a real pass that notes
what it was given (``RecordingTask``) first, then the rules.  ``random_drivers`` is what the hidden
part runs, on the random graphs of ``engine_loop``, against the library's driver.
"""

import contextlib

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.engine import GraphTask
from autograd_course import grading
from autograd_course.notebook import call

from .engine_loop import random_graph
from .node_runs import _in_slot

__all__ = ["DRIVER", "RecordingTask", "run_backward", "random_drivers", "driver_stand_ins"]

DRIVER = grading.rules("03.run_backward")


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
                         rule=DRIVER("inputs"))
    grading.expect_true(task.given is not None, what="whether task.start(root_edges, root_grads, dependencies) was "
                        "called", seen="never called", rule=DRIVER("inputs"))
    grading.expect_equal(task.given[2] == expected_counts, True, what="the counts given to task.start: those below "
                         "y.grad_fn", rule=DRIVER("inputs"))
    ran = next((args, mode) for name, args, mode in calls if name == "execute")
    edges, grads = [tuple(edge) for edge in ran[0][0]], list(ran[0][1])
    grading.expect_equal(edges == [(y.grad_fn, 0)], True, what="where the starting gradient entered the loop: "
                         "[(y.grad_fn, 0)]", rule=DRIVER("edges"))
    grading.expect_equal([str(t.dtype) for t in grads], [str(ag.float32)],
                         what="the dtype of the gradient entering the loop (float64 given) for a float32 y",
                         rule=DRIVER("dtype"))
    grading.expect_close(grads[0], [1.0, 0.5], what="the gradient entering the loop", rule=DRIVER("dtype"))
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

    def pruned(_):
        a, b = ag.tensor([1.0, 2.0], requires_grad=True), ag.tensor([3.0, -1.0], requires_grad=True)
        h = a * b
        out = (h.exp() + a * 3.0).sum()
        grads = call(lambda: ag.autograd.grad(out, [h, b], retain_graph=True), rule=DRIVER("inputs"),
                     what="autograd.grad(out, [h, b]), out = (exp(a * b) + a * 3).sum()")
        after_grad = (_values(a.grad), _values(b.grad))
        call(lambda: out.backward(inputs=[b]), what="out.backward(inputs=[b])", rule=DRIVER("inputs"))
        return [_values(g) for g in grads], after_grad, (_values(a.grad), _values(b.grad))

    expected, seen = grading.side_by_side("03.run_backward", fn, pruned)
    for got, want, name in zip(seen[0], expected[0], "hb"):
        grading.expect_close(got, want, what=f"d out / d {name} from autograd.grad", rule=DRIVER("inputs"))
    grading.expect_equal(seen[1], expected[1], what="(a.grad, b.grad) after autograd.grad(out, [h, b]) (no "
                         "AccumulateGrad runs)", rule=DRIVER("inputs"))
    grading.expect_equal(seen[2], expected[2], what="(a.grad, b.grad) after out.backward(inputs=[b])",
                         rule=DRIVER("inputs"))


def _values(t):
    """A tensor's values as nested lists (None for None): what a check compares."""
    return None if t is None else t.tolist()


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

        logs = []

        def story(_):
            calls = []
            logs.append(calls)
            with driver_stand_ins(calls):
                return call(outcome, what=f"a random pass ({'autograd.grad, create_graph' if grad_mode else 'backward'}"
                            f", {len(picks)} root(s))", rule=DRIVER("loop"))

        expected, seen = grading.side_by_side("03.run_backward", fn, story)
        calls = logs[-1]
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
