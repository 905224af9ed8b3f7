"""A backward pass, step by step: ``trace_backward`` watches one, ``draw_backward_steps``
draws it and ``format_backward_steps`` prints it.

The engine runs a node once every gradient flowing into it has arrived.  Each node has a
*dependency count* (the edges into it that have not delivered yet) and a *buffer* (what has
arrived, summed per output); the nodes whose count reached 0 wait in the *ready queue*, the
newest (largest ``_sequence_nr``) first.  None of that is visible from outside, so this
module watches a real pass and replays it:

* before the pass, every node reachable from the root gets a pre-hook
  (``node.register_prehook``: the node is about to run, here is its buffer) and a post-hook
  (``node.register_hook``: it ran, here is what it sends along each edge of
  ``next_functions``).  Both return None, so the pass is unchanged, and both are removed
  when it ends;
* the order in which the pre-hooks fire is the order the nodes ran; replaying what each
  node sent gives, after every step, each node's count and buffer, and the queue.

Only the public graph API is used (``next_functions``, ``name()``, ``register_prehook``,
``register_hook``, ``variable`` on ``AccumulateGrad``, ``_sequence_nr`` as an attribute or
a method), so the same call draws PyTorch's passes, and whatever engine ran: a node that
ran before its count reached 0, or never ran, shows it.  The nodes are found through
``walk.topological_nodes`` (the slot of exercise 02.graph_nodes), as every drawing is.
"""

from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from .draw import GraphFigure
from .layout import _BASE_PT, _LINE_STYLES, _Box, _Measure, _layout, _ports, _route_path
from .walk import _is_acc, _key, _walk, node_name

__all__ = ["trace_backward", "draw_backward_steps", "format_backward_steps", "node_labels", "sequence_nr",
           "BackwardTrace", "Step", "MAX_STEP_NODES"]

#: the largest graph a step-by-step picture accepts (each step redraws all of it)
MAX_STEP_NODES = 16

# node states in a picture: (face, edge, text colour, legend)
_STATES = {
    "waiting": ("#ffffff", "#868e96", "#111111", "waiting (count > 0)"),
    "ready": ("#d3f9d8", "#2b8a3e", "#111111", "ready (count 0)"),
    "running": ("#ffe8cc", "#e8590c", "#111111", "runs now"),
    "done": ("#f1f3f5", "#ced4da", "#868e96", "done"),
    "early": ("#ffe3e3", "#c92a2a", "#111111", "ran before its count was 0"),
}


def sequence_nr(node):
    """A node's creation number: ``_sequence_nr`` (autograd_lib's attribute, torch's method).
    An ``AccumulateGrad`` has the largest there is (inf, or 2**64 - 1 in torch)."""
    number = getattr(node, "_sequence_nr", None)
    return number() if callable(number) else number


def _is_newest(number):
    return number is None or number == float("inf") or number >= 2 ** 63


def node_labels(nodes, names=None):
    """``{node: label}``: a node's name, and ``#k`` after it when several of ``nodes`` share
    the name (``MulBackward0 #1`` is the older: k counts by ``_sequence_nr``, then by the
    order given).  An ``AccumulateGrad`` whose leaf is in ``names`` (``{"x": x}``) is
    ``AccumulateGrad (x)``."""
    by_tensor = {id(t): name for name, t in (names or {}).items()}
    labels, groups = {}, {}
    for position, node in enumerate(nodes):
        name = node_name(node)
        if _is_acc(node) and id(node.variable) in by_tensor:
            labels[node] = f"{name} ({by_tensor[id(node.variable)]})"
            continue
        groups.setdefault(name, []).append((position, node))
    for name, members in groups.items():
        if len(members) == 1:
            labels[members[0][1]] = name
            continue
        ranked = sorted(members, key=lambda m: (float("inf") if _is_newest(sequence_nr(m[1]))
                                                else sequence_nr(m[1]), m[0]))
        for k, (_, node) in enumerate(ranked, 1):
            labels[node] = f"{name} #{k}"
    return labels


class Step:
    """The pass after step ``number``: ``node`` (None at the start) has just run, on the
    gradients ``received`` (one per output), and sent ``sent`` (one per edge of its
    ``next_functions``); then, for every node, ``counts`` (edges still to deliver) and
    ``buffers`` (what has arrived, per output); ``ready`` (newest first) and ``done`` (in the
    order they ran).  ``early``: the node ran while its count was not 0."""
    __slots__ = ("number", "node", "received", "sent", "counts", "buffers", "ready", "done", "early")

    def __init__(self, number, node, received, sent, counts, buffers, ready, done, early):
        self.number, self.node, self.received, self.sent = number, node, received, sent
        self.counts, self.buffers, self.ready, self.done, self.early = counts, buffers, ready, done, early


class BackwardTrace:
    """One backward pass, replayed: ``nodes`` (topological order), ``labels`` (node ->
    text), ``steps`` (``steps[0]`` is the start, then one per node that ran).  ``order`` is
    the labels of the nodes in the order they ran; ``str(trace)`` the pass as text,
    ``trace.draw()`` as a figure."""

    def __init__(self, nodes, labels, steps):
        self.nodes, self.labels, self.steps = nodes, labels, steps

    @property
    def order(self):
        return [self.labels[step.node] for step in self.steps[1:]]

    def draw(self, **kwargs):
        return draw_backward_steps(self, **kwargs)

    def __str__(self):
        return format_backward_steps(self)


def _root_of(root):
    node = getattr(root, "grad_fn", None)
    if node is None:
        raise ValueError("trace_backward() needs a tensor with a grad_fn (the output of an op "
                         f"that recorded a node), got {type(root).__name__} without one")
    return node


def trace_backward(root, gradient=None, retain_graph=None, names=None, run=None,
                   max_nodes=MAX_STEP_NODES):
    """Run ``root.backward(gradient, retain_graph)`` (or ``run()``, a function that runs a
    backward pass through ``root``'s graph) and return what happened, step by step, as a
    :class:`BackwardTrace`.  ``names`` (``{"x": x}``) names leaves in the labels.  The pass
    is the real one: ``.grad`` fills in as usual."""
    top = _root_of(root)
    nodes, _ = _walk([top], max_nodes=max_nodes, who="trace_backward")
    events, handles = [], []          # ("ran", node, what it ran on), ("sent", node, what it sent)

    def before(node):
        def hook(grad_outputs):
            events.append(("ran", node, list(grad_outputs)))
        return hook

    def after(node):
        def hook(grad_inputs, grad_outputs):
            events.append(("sent", node, list(grad_inputs)))
        return hook

    try:
        for node in nodes:
            handles.append(node.register_prehook(before(node)))
            handles.append(node.register_hook(after(node)))
        if run is None:
            root.backward(gradient=gradient, retain_graph=retain_graph)
        else:
            run()
    finally:
        for handle in handles:
            handle.remove()
    return _replay(nodes, node_labels(nodes, names), top, events)


def _add(old, new):
    return new if old is None else old + new


def _runs(events):
    """[(node, what it ran on, what it sent)] in the order the nodes ran (a node that ran
    twice, in a broken engine, twice)."""
    runs, open_runs = [], {}
    for kind, node, grads in events:
        if kind == "ran":
            open_runs.setdefault(_key(node), []).append(len(runs))
            runs.append([node, grads, []])
        elif open_runs.get(_key(node)):
            runs[open_runs[_key(node)].pop(0)][2] = grads
    return [tuple(run) for run in runs]


def _replay(nodes, labels, top, events):
    runs = _runs(events)
    inside = {_key(n) for n in nodes}
    counts = {_key(n): 0 for n in nodes}
    width = {_key(n): 1 for n in nodes}
    for node in nodes:
        for child, nr in node.next_functions:
            if child is not None and _key(child) in inside:
                counts[_key(child)] += 1
                width[_key(child)] = max(width[_key(child)], nr + 1)
    for node, received, _ in runs:
        width[_key(node)] = max(width[_key(node)], len(received))
    buffers = {_key(n): [None] * width[_key(n)] for n in nodes}
    first = next((received for node, received, _ in runs if node is top), None)
    if first is not None:             # nothing feeds the root: what it ran on is where the pass started
        buffers[_key(top)] = list(first)
    position = {_key(n): i for i, n in enumerate(nodes)}
    done = []

    def order(node):
        number = sequence_nr(node)
        return (0, 0, position[_key(node)]) if _is_newest(number) else (1, -number, position[_key(node)])

    def snapshot(number, run, early):
        ready = sorted((n for n in nodes if counts[_key(n)] == 0 and n not in done), key=order)
        node, received, sent = run if run is not None else (None, None, None)
        return Step(number, node, received, sent, {n: counts[_key(n)] for n in nodes},
                    {n: list(buffers[_key(n)]) for n in nodes}, ready, list(done), early)

    steps = [snapshot(0, None, False)]
    for number, (node, received, sent) in enumerate(runs, 1):
        early = counts[_key(node)] != 0
        done.append(node)
        buffers[_key(node)] = list(received)
        for (child, nr), grad in zip(node.next_functions, sent):
            if child is None or _key(child) not in inside:
                continue
            counts[_key(child)] -= 1
            if grad is not None:
                buffers[_key(child)][nr] = _add(buffers[_key(child)][nr], grad)
        steps.append(snapshot(number, (node, received, sent), early))
    return BackwardTrace(nodes, labels, steps)


# ------------------------------------------------------------------ text

def _number(value):
    text = f"{value:.3g}"
    return text + "." if text.lstrip("-").isdigit() else text


def format_value(grad):
    """A gradient as a short text: ``—`` for None, its values for up to 3 elements (``[3.]``),
    else its shape (``(2, 3)``)."""
    if grad is None:
        return "—"
    shape = tuple(int(d) for d in getattr(grad, "shape", ()))
    count = 1
    for d in shape:
        count *= d
    if count > 3:
        return str(shape)
    values = grad.tolist()
    if not shape:
        return _number(values)
    while values and isinstance(values[0], list):
        values = [v for row in values for v in row]
    return "[" + ", ".join(_number(v) for v in values) + "]"


def _slots(grads):
    return " | ".join(format_value(g) for g in grads) if grads else "—"


def format_backward_steps(trace, gradient=None, retain_graph=None, names=None, run=None):
    """The pass as text, one block per step: which node ran, on what, what it sent along each
    edge, then every count that changed and the ready queue.  ``trace``: a
    :class:`BackwardTrace`, or a tensor to trace (the other arguments as for
    :func:`trace_backward`)."""
    if not isinstance(trace, BackwardTrace):
        trace = trace_backward(trace, gradient, retain_graph, names, run)
    labels, lines = trace.labels, []
    previous = None
    for step in trace.steps:
        if step.node is None:
            head = "start"
            counts = ", ".join(f"{labels[n]} {c}" for n, c in step.counts.items())
        else:
            early = "  (its count was not 0!)" if step.early else ""
            head = (f"step {step.number}: {labels[step.node]} runs on {_slots(step.received)}, "
                    f"sends {_slots(step.sent)}{early}")
            counts = ", ".join(f"{labels[n]} {c}" for n, c in step.counts.items()
                               if c != previous.counts[n])
        lines.append(head)
        if counts:
            lines.append(f"    counts: {counts}")
        lines.append("    ready:  " + (", ".join(labels[n] for n in step.ready) or "(empty)"))
        previous = step
    never = [labels[n] for n in trace.nodes if n not in trace.steps[-1].done]
    if never:
        lines.append("never ran: " + ", ".join(never))
    return "\n".join(lines)


# ------------------------------------------------------------------ picture

def _state(step, node):
    if node is step.node:
        return "early" if step.early else "running"
    if node in step.done:
        return "done"
    return "ready" if node in step.ready else "waiting"


def _lines(step, node, label):
    count = step.counts[node]
    if node in step.done:
        return [(label, "op"), (f"count {count}", "info"), (f"ran on {_slots(step.buffers[node])}", "info")]
    return [(label, "op"), (f"count {count}", "info"), (f"buffer {_slots(step.buffers[node])}", "info")]


def draw_backward_steps(trace, gradient=None, retain_graph=None, names=None, run=None, columns=4,
                        title=None, figsize=None):
    """Draw a backward pass step by step; return the matplotlib Figure.

    ``trace``: a :class:`BackwardTrace`, or a tensor whose ``backward()`` is traced first
    (with ``gradient``, ``retain_graph``, ``names``, ``run`` as for :func:`trace_backward`).
    One panel per step, ``columns`` to a row: the graph, each node with its dependency
    count and its buffer (what has arrived, one entry per output; for a node that ran, what
    it ran on), coloured by state (waiting, ready, running now, done); the edges of the
    node that just ran carry what it sent; under the graph, the ready queue, newest first.
    Artists carry gids: ``backward-step-<k>`` (a panel's title), ``backward-step-<k>:node-<i>
    :<state>`` (a node's box, ``i`` its place in ``trace.nodes``) and ``<box gid>:text``.
    """
    if not isinstance(trace, BackwardTrace):
        trace = trace_backward(trace, gradient, retain_graph, names, run)
    measure = _Measure()
    nodes, labels, steps = trace.nodes, trace.labels, trace.steps
    index = {_key(n): i for i, n in enumerate(nodes)}

    boxes = []
    for node in nodes:                 # sized for the widest text it shows at any step
        every = [_lines(step, node, labels[node]) for step in steps]
        widest = [max((lines[j] for lines in every), key=lambda line: measure(*line)[0])
                  for j in range(3)]
        boxes.append(_Box("acc" if _is_acc(node) else "fn", widest, measure))
    edges = []
    for node in nodes:
        kids = [(i, child) for i, (child, _) in enumerate(node.next_functions)
                if child is not None and _key(child) in index]
        for i, child in kids:
            edges.append((index[_key(node)], index[_key(child)], "grad", i if len(node.next_functions) > 1 else -1))
    routes, _, bands, graph_h = _layout(boxes, edges, measure)
    out_ports, in_ports = _ports(boxes, routes, edges)
    graph_w = max(b.x + b.w / 2 for b in boxes)

    def queue_text(step):
        return "ready: " + (", ".join(labels[n] for n in step.ready) or "(empty)")

    def heading(step):
        if step.node is None:
            return "start"
        return f"step {step.number}: {labels[step.node]} runs"

    pad, gap = 12.0, 22.0
    head_h = measure("Ag", "name")[1] * 1.5
    foot_h = measure("Ag", "info")[1] * 1.8
    panel_w = max([graph_w] + [measure(queue_text(s), "info")[0] for s in steps]
                  + [measure(heading(s), "name")[0] for s in steps]) + 2 * pad
    panel_h = head_h + graph_h + foot_h + 2 * pad
    columns = max(1, min(columns, len(steps)))
    rows = -(-len(steps) // columns)
    used = [s for s in _STATES if s != "early" or any(step.early for step in steps)]
    legend_h = measure("Ag", "info")[1] * 2.2
    title_h = measure("Ag", "name")[1] * 2.0 if title else 0.0
    width = columns * panel_w + (columns - 1) * gap
    height = title_h + rows * panel_h + (rows - 1) * gap + legend_h
    if figsize is None:
        k = min(1.0, 15.0 * 72 / width)
        figsize = (width * k / 72, height * k / 72)
    fig = GraphFigure(figsize=figsize, dpi=80)
    ax = fig.add_axes((0, 0, 1, 1))
    s = min(fig.get_figwidth() * 72 / width, fig.get_figheight() * 72 / height)
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()

    def text(x, y, t, kind, **kw):
        fam, weight, style, factor, color = _LINE_STYLES[kind]
        kw.setdefault("ha", "center")
        kw.setdefault("color", color)
        ax.text(x, -y, t, va="center", family=fam, weight=weight, style=style,
                fontsize=_BASE_PT * factor * s, parse_math=False, **kw)

    if title:
        text(width / 2, title_h / 2, title, "name", gid="backward-steps-title")
    for k, step in enumerate(steps):
        ox = (k % columns) * (panel_w + gap)
        oy = title_h + (k // columns) * (panel_h + gap)
        ax.add_artist(FancyBboxPatch((ox, -(oy + panel_h)), panel_w, panel_h,
                                     boxstyle="round,pad=0,rounding_size=6", facecolor="#fcfcfc",
                                     edgecolor="#dee2e6", lw=0.8 * s, zorder=0))
        text(ox + pad, oy + pad + head_h / 2, heading(step), "name", ha="left", gid=f"backward-step-{k}")
        gx = ox + (panel_w - graph_w) / 2
        gy = oy + pad + head_h
        sent = {}
        if step.node is not None:
            sent = {i: g for i, g in enumerate(step.sent)}
        for e, (chain, (src_i, dst_i, _, idx)) in enumerate(zip(routes, edges)):
            src, dst = boxes[chain[0]], boxes[chain[-1]]
            points = [(gx + out_ports[e], gy + src.y + src.h / 2, gy + src.y + src.h / 2)]
            for d in chain[1:-1]:
                band = bands[boxes[d].layer]
                points.append((gx + boxes[d].x, gy + band[0], gy + band[1]))
            points.append((gx + in_ports[e], gy + dst.y - dst.h / 2, gy + dst.y - dst.h / 2))
            hot = step.node is not None and src_i == index[_key(step.node)]
            ax.add_artist(FancyArrowPatch(path=_route_path(points), arrowstyle="-|>", mutation_scale=8 * s,
                                          color="#e8590c" if hot else "#868e96", lw=(1.8 if hot else 1.0) * s,
                                          zorder=1, gid=f"backward-step-{k}:edge-{src_i}-{dst_i}"))
            if hot:
                position = idx if idx >= 0 else 0
                (xa, _, ya), (xb, yb, _) = points[0], points[1]
                text((xa + xb) / 2, (ya + yb) / 2, format_value(sent.get(position)), "index", zorder=3,
                     color="#d9480f", gid=f"backward-step-{k}:sent",
                     bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.9))
        for i, node in enumerate(nodes):
            b, state = boxes[i], _state(step, node)
            face, edge, color, _ = _STATES[state]
            gid = f"backward-step-{k}:node-{i}:{state}"
            ax.add_artist(FancyBboxPatch((gx + b.x - b.w / 2, -(gy + b.y + b.h / 2)), b.w, b.h,
                                         boxstyle="round,pad=0,rounding_size=6", facecolor=face, edgecolor=edge,
                                         lw=(2.0 if state in ("running", "early") else 1.1) * s, zorder=2, gid=gid))
            (label, kind), *info = _lines(step, node, labels[node])
            top, first = gy + b.y - b.h / 2 + 6.0, measure(label, kind)[1]
            text(gx + b.x, top + first / 2, label, kind, zorder=4, color=color, gid=f"{gid}:text")
            rest = sum(measure(t, k)[1] + 2.5 for t, k in info) - 2.5      # one text for the lines below
            text(gx + b.x, top + first + 2.5 + rest / 2, "\n".join(t for t, _ in info), info[0][1], zorder=4,
                 color=color, linespacing=1.35, gid=f"{gid}:text")
        text(ox + pad, oy + panel_h - pad - foot_h / 2, queue_text(step), "info", ha="left",
             gid=f"backward-step-{k}:ready")

    x = 0.0
    y = height - legend_h / 2
    for state in used:
        face, edge, _, legend = _STATES[state]
        ax.add_artist(FancyBboxPatch((x, -(y + 6)), 18, 12, boxstyle="round,pad=0,rounding_size=3",
                                     facecolor=face, edgecolor=edge, lw=1.1 * s, gid="backward-steps-legend"))
        text(x + 24, y, legend, "info", ha="left", gid="backward-steps-legend")
        x += 24 + measure(legend, "info")[0] + 22
    return fig
