"""Tests for autograd_lib.viz.steps: a backward pass replayed step by step.

The trace watches a real pass through node hooks (public API only), so it is compared on
torch and on autograd_lib side by side; a broken engine plugged into autograd_lib must
show up in it (the order, a node run before its count reached 0, a node never run).
"""

import pytest

torch = pytest.importorskip("torch", reason="torch is the test oracle for autograd_lib.viz")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import autograd_lib as ag  # noqa: E402
from autograd_lib import exercises  # noqa: E402
from autograd_lib.viz import (draw_backward_steps, format_backward_steps, node_labels,  # noqa: E402
                              trace_backward)
from autograd_lib.viz.steps import format_value, sequence_nr  # noqa: E402


def worked_example(lib):
    x = lib.tensor([2.0], requires_grad=True)
    y = 2 * x + 5
    L = y + x
    return x, y, L


def two_leaves(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, -1.0], requires_grad=True)
    out = ((a * b).exp() + a * 3.0).sum()
    return a, b, out


def summary(trace):
    """Everything a trace says, as plain text: per step the node, what it ran on and sent,
    every count, every buffer, the queue."""
    labels = trace.labels
    return [(None if s.node is None else labels[s.node],
             None if s.received is None else [format_value(g) for g in s.received],
             None if s.sent is None else [format_value(g) for g in s.sent],
             {labels[n]: c for n, c in s.counts.items()},
             {labels[n]: [format_value(g) for g in b] for n, b in s.buffers.items()},
             [labels[n] for n in s.ready], s.early) for s in trace.steps]


def test_the_worked_example_replayed():
    x, y, L = worked_example(torch)
    trace = trace_backward(L, names={"x": x})
    assert trace.order == ["AddBackward0 #2", "AddBackward0 #1", "MulBackward0", "AccumulateGrad (x)"], \
        f"expected the root's add, y's add, the multiplication, x's AccumulateGrad; saw {trace.order}"
    start = trace.steps[0]
    counts = {trace.labels[n]: c for n, c in start.counts.items()}
    assert counts == {"AddBackward0 #2": 0, "AddBackward0 #1": 1, "MulBackward0": 1, "AccumulateGrad (x)": 2}, \
        f"expected the edges into each node before the pass (x's AccumulateGrad: 2), saw {counts}"
    assert [trace.labels[n] for n in start.ready] == ["AddBackward0 #2"], "only the root is ready at the start"
    acc = trace.nodes[-1]
    after = [format_value(s.buffers[acc][0]) for s in trace.steps]
    assert after == ["—", "[1.]", "[1.]", "[3.]", "[3.]"], \
        f"x's AccumulateGrad buffer after each step: 1 from the root's add, then 2 from mul; saw {after}"
    assert [format_value(g) for g in trace.steps[4].received] == ["[3.]"], "AccumulateGrad ran on the sum 3"
    assert x.grad.tolist() == [3.0], f"the traced pass is the real one: x.grad 3, saw {x.grad}"
    assert not any(s.early for s in trace.steps), "a correct engine runs no node before its count is 0"


def test_same_trace_on_torch_and_autograd_lib():
    for build in (worked_example, two_leaves):
        ours, theirs = build(ag), build(torch)
        mine = trace_backward(ours[-1], names={"a": ours[0], "b": ours[1]} if build is two_leaves else None)
        expected = trace_backward(theirs[-1], names={"a": theirs[0], "b": theirs[1]} if build is two_leaves else None)
        assert summary(mine) == summary(expected), f"{build.__name__}: expected torch's replay, saw ours differ"
        assert format_backward_steps(mine) == format_backward_steps(expected)


def test_the_queue_is_newest_first():
    a, b, out = two_leaves(torch)
    trace = trace_backward(out, names={"a": a, "b": b})
    step = trace.steps[2]                   # the add ran: exp's node and a * 3's node are ready
    ready = [trace.labels[n] for n in step.ready]
    assert ready == ["MulBackward0 #2", "ExpBackward0"], f"expected the newer a * 3 first, saw {ready}"
    assert sequence_nr(step.ready[0]) > sequence_nr(step.ready[1])
    assert trace.order[2] == "MulBackward0 #2", f"and it runs next, saw {trace.order}"


def test_node_labels_tell_nodes_apart_by_creation_order():
    for lib in (ag, torch):
        x = lib.tensor([1.0], requires_grad=True)
        first = x * 2
        second = first * 3
        nodes = [second.grad_fn, first.grad_fn, first.grad_fn.next_functions[0][0]]
        labels = node_labels(nodes)
        assert [labels[n] for n in nodes] == ["MulBackward0 #2", "MulBackward0 #1", "AccumulateGrad"], \
            f"{lib.__name__}: the older MulBackward0 is #1, saw {labels.values()}"
        assert node_labels(nodes, names={"x": x})[nodes[2]] == "AccumulateGrad (x)"


def test_hooks_are_removed_after_the_pass():
    x, y, L = worked_example(ag)
    trace_backward(L, retain_graph=True)
    left = [n for n in (L.grad_fn, y.grad_fn) if n._node_prehooks or n._hooks]
    assert not left, f"expected no hook left on the nodes, saw hooks on {[n.name() for n in left]}"
    L.backward()
    assert x.grad.tolist() == [6.0], f"a second pass after the trace accumulates again: saw {x.grad}"


def test_a_broken_engine_shows_in_the_trace():
    reference = exercises.reference("03.execute")

    def oldest_first(root_edges, root_grads, dependencies, run_node):    # runs a node at each arrival
        queue = [(node, [grad]) for (node, _), grad in zip(root_edges, root_grads)]
        while queue:
            node, grads = queue.pop(0)
            for (child, nr), grad in zip(node.next_functions, run_node(node, grads)):
                if child in dependencies and grad is not None:
                    queue.append((child, [grad]))

    x, y, L = worked_example(ag)
    with exercises.plugged("03.execute", oldest_first):
        trace = trace_backward(L, names={"x": x})
    assert exercises.SLOTS["03.execute"].get() is reference
    assert trace.order == ["AddBackward0 #2", "AddBackward0 #1", "AccumulateGrad (x)", "MulBackward0",
                           "AccumulateGrad (x)"], f"expected x's node run twice, saw {trace.order}"
    assert trace.steps[3].early and not trace.steps[5].early, "its first run came before its count reached 0"
    assert "(its count was not 0!)" in format_backward_steps(trace)

    def stops_after_the_root(root_edges, root_grads, dependencies, run_node):
        run_node(root_edges[0][0], list(root_grads))

    x, y, L = worked_example(ag)
    with exercises.plugged("03.execute", stops_after_the_root):
        text = format_backward_steps(L, names={"x": x})
    assert text.endswith("never ran: AddBackward0 #1, MulBackward0, AccumulateGrad (x)"), text


def test_a_pass_run_by_autograd_grad():
    a, b, out = two_leaves(torch)
    trace = trace_backward(out, names={"a": a, "b": b}, run=lambda: torch.autograd.grad(out, [b]))
    assert "AccumulateGrad (a)" not in trace.order and a.grad is None, \
        f"autograd.grad(out, [b]) runs no AccumulateGrad: saw {trace.order}"


def panels(fig):
    gids = [t.get_gid() or "" for t in fig.findobj(Text)]
    return sorted(g for g in gids if g.startswith("backward-step-") and ":" not in g)


def boxes(fig, step):
    """{state: [first line of the box]} in one panel."""
    found = {}
    texts = {}
    for t in fig.findobj(Text):
        texts.setdefault(t.get_gid(), []).append(t.get_text())
    for p in fig.findobj(FancyBboxPatch):
        gid = p.get_gid() or ""
        if gid.startswith(f"backward-step-{step}:node-"):
            found.setdefault(gid.rsplit(":", 1)[1], []).append(texts[f"{gid}:text"][0])
    return found


def test_the_picture_has_a_panel_per_step_with_each_node_in_its_state():
    for lib in (torch, ag):
        x, y, L = worked_example(lib)
        fig = draw_backward_steps(L, names={"x": x}, title="L = (2*x + 5) + x")
        assert isinstance(fig, Figure)
        assert panels(fig) == [f"backward-step-{k}" for k in range(5)], f"{lib.__name__}: saw {panels(fig)}"
        assert boxes(fig, 0) == {"ready": ["AddBackward0 #2"],
                                 "waiting": ["AddBackward0 #1", "MulBackward0", "AccumulateGrad (x)"]}, boxes(fig, 0)
        assert boxes(fig, 3) == {"done": ["AddBackward0 #2", "AddBackward0 #1"], "running": ["MulBackward0"],
                                 "ready": ["AccumulateGrad (x)"]}, boxes(fig, 3)
        lines = [line for t in fig.findobj(Text) for line in t.get_text().split("\n")]
        for expected in ("count 2", "buffer [3.]", "ran on [1.]", "ready: MulBackward0", "[2.]", "runs now"):
            assert expected in lines, f"{lib.__name__}: expected {expected!r} in the picture"


def test_bad_arguments():
    with pytest.raises(ValueError, match="grad_fn"):
        trace_backward(torch.ones(2, requires_grad=True))
    deep = torch.ones(1, requires_grad=True)
    for _ in range(20):
        deep = deep * 2
    with pytest.raises(ValueError, match="too many"):
        trace_backward(deep.sum())
