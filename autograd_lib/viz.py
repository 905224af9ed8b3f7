"""Draw (or print) the backward graph behind a tensor.

This module only uses the *public* autograd graph API that ``autograd_lib``
shares with PyTorch, so it works unchanged on ``torch`` tensors too (handy for
side-by-side comparisons in the notebooks):

* ``t.grad_fn``            -- the backward node that produced ``t`` (``None`` for leaves)
* ``node.name()``          -- e.g. ``"MulBackward0"``
* ``node.next_functions``  -- one ``(node_or_None, index)`` pair per input, in input order
* ``node.variable``        -- only on ``AccumulateGrad`` nodes: the leaf tensor whose
  ``.grad`` they fill in
* ``t.shape``, ``t.dtype``, ``t.requires_grad``

It needs nothing but matplotlib (no pyplot, no graphviz), so it also works
headless.

Why one module of about 900 lines, past the library's few hundred: it is
self-contained on purpose.  It imports nothing from ``autograd_lib`` (only
matplotlib and the standard library, which ``tests/test_viz.py`` checks on
this file), so the same file draws PyTorch's graphs, and it is one algorithm
in four parts (walk the graph, place the boxes in layers with few crossings,
route the arrows, draw), none of which the course asks students to read.

Example
-------
>>> w = randn(5, 3, requires_grad=True)
>>> x = randn(1, 5)
>>> y = x @ w
>>> z = y.mean()
>>> print_graph(z, names={"w": w})
MeanBackward0
└─ MmBackward0
   └─ AccumulateGrad  (w: shape (5, 3), requires_grad=True)
>>> fig = draw_graph(z, names={"x": x, "w": w, "y": y, "z": z}, title="z = mean(x @ w)")
>>> fig.savefig("graph.png")      # or just leave `fig` as the last line of a cell

API
---
``draw_graph(*roots, names=None, ax=None, title=None, figsize=None,
show_no_grad=True, max_nodes=200) -> matplotlib.figure.Figure``
    Draw the backward graph of one or more output tensors, top to bottom:

    * each root tensor: a green box (its name from ``names`` or "output",
      shape such as ``(1, 3)`` and dtype). A root without ``grad_fn`` is drawn
      as a single purple leaf box that says "no grad_fn";
    * each backward node: a blue rounded box with its class name
      (``MeanBackward0``, ``MmBackward0``, ...). If the node is the
      ``grad_fn`` of a tensor listed in ``names``, the box also says
      ``y.grad_fn``;
    * each ``AccumulateGrad`` node: an orange rounded box, linked by a dashed
      arrow to the purple box of the leaf tensor it accumulates into (name,
      shape, dtype, ``requires_grad=True``);
    * arrows follow the backward direction: root -> ``grad_fn`` ->
      ``next_functions`` -> ... When a node has several inputs the arrows
      carry a small grey index: arrow ``i`` is ``next_functions[i]``.
    * ``(None, 0)`` entries of ``next_functions`` (inputs that do not require
      grad, like ``x`` above) are drawn as small faint dotted ``None`` stubs by
      default: this way the picture matches what
      ``print(z.grad_fn.next_functions)`` shows and students see *why* no
      gradient flows into ``x``. Pass ``show_no_grad=False`` to omit them.

    A node reached twice (the same weight used twice, a shared intermediate)
    is drawn once, with one incoming arrow per use. ``names`` maps names to
    tensors; tensors are matched by identity (``is``). Nodes are placed in
    layers (layer = longest distance from the roots) and ordered to reduce
    crossings; the figure is sized from the layout so that text never
    overlaps (about 30 nodes stay comfortably readable). Graphs with more
    than ``max_nodes`` backward nodes raise ``ValueError`` instead of
    producing an unreadable picture. With ``ax=`` the graph is drawn into that
    axes (fonts are scaled to fit its current size) and ``ax.figure`` is
    returned; ``figsize`` likewise fixes the figure size and scales the fonts.
    The returned figure is a plain ``matplotlib.figure.Figure`` (a subclass
    with ``_repr_png_``, so it shows up in Jupyter even without pyplot).
    Its artists carry gids for programmatic checks: node boxes
    ``"autograd-node-<kind>-<i>"`` (kind: root, fn, acc, leaf, nograd), their
    text lines ``"<box gid>:text"``, arrows
    ``"autograd-edge:<src gid>-><dst gid>"``.

``format_graph(*roots, names=None, show_no_grad=False, max_nodes=200) -> str``
    The same graph as an indented text tree (see the example above), for
    students reading without images. A node reached a second time is printed
    again with ``[same node as above]`` and its inputs are not repeated.
    ``(None, 0)`` inputs are left out by default (in plain text they would be
    as loud as real nodes); ``show_no_grad=True`` prints them as ``None``.

``print_graph(*roots, **kwargs)``
    ``print(format_graph(*roots, **kwargs))``.

``graph_nodes(*roots) -> list``
    The unique backward nodes reachable from the roots, in topological order
    (every node comes before the nodes in its ``next_functions``; breadth
    first from the roots). Iterative, so very deep graphs are fine.

``graph_edges(*roots) -> list[tuple[node, node]]``
    One ``(node, next_node)`` pair per non-``None`` entry of
    ``node.next_functions`` (so a weight used twice by the same node gives two
    identical pairs), nodes in ``graph_nodes`` order.

``node_name(node) -> str``
    The display name of a backward node (``"torch::autograd::AccumulateGrad"``
    becomes ``"AccumulateGrad"``).
"""

from __future__ import annotations

import io
from collections import deque

from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path

__all__ = [
    "draw_graph",
    "format_graph",
    "print_graph",
    "graph_nodes",
    "graph_edges",
    "node_name",
    "MAX_NODES",
]

#: default limit on the number of backward nodes draw_graph/format_graph accept
MAX_NODES = 200

# --------------------------------------------------------------------------
# graph walking (public API only, duck-typed, no recursion)
# --------------------------------------------------------------------------


def node_name(node) -> str:
    """Display name of a backward node, e.g. ``"MmBackward0"``."""
    name = getattr(node, "name", None)
    text = name() if callable(name) else type(node).__name__
    return str(text).rsplit("::", 1)[-1]


def _is_acc(node) -> bool:
    return hasattr(node, "variable")


def _key(node):
    # Every node object is drawn once.  A correct engine reuses one AccumulateGrad
    # per leaf; one that hands out a fresh node per use shows up as several boxes,
    # which is exactly what a student debugging gradient_edge needs to see.
    return id(node)


def _next_functions(node):
    out = []
    for i, entry in enumerate(getattr(node, "next_functions", None) or ()):
        child = entry[0] if isinstance(entry, (tuple, list)) else entry
        out.append((i, child))
    return out


def _is_node(obj) -> bool:
    return hasattr(obj, "next_functions") and not hasattr(obj, "grad_fn")


def _check_roots(roots, who):
    if not roots:
        raise ValueError(f"{who}() needs at least one tensor, e.g. {who}(loss)")
    for r in roots:
        if not (hasattr(r, "grad_fn") or _is_node(r)):
            raise TypeError(
                f"{who}() expects tensors (objects with a .grad_fn attribute) "
                f"or backward nodes, got {type(r).__name__}"
            )


def _root_node(r):
    return r if _is_node(r) else r.grad_fn


def _walk(roots, max_nodes=None, who="draw_graph"):
    """Return (nodes in topological order, {key: [(input_index, child or None)]})."""
    seen = {}  # key -> node (the dict also keeps every node alive while we work)
    children = {}
    discovery = []
    stack = []
    for r in roots:
        n = _root_node(r)
        if n is not None and _key(n) not in seen:
            seen[_key(n)] = n
            discovery.append(n)
            stack.append(n)
    while stack:
        node = stack.pop()
        kids = _next_functions(node)
        children[_key(node)] = kids
        for _, child in kids:
            if child is None:
                continue
            k = _key(child)
            if k not in seen:
                seen[k] = child
                discovery.append(child)
                stack.append(child)
                if max_nodes is not None and len(seen) > max_nodes:
                    raise ValueError(
                        f"{who}(): the graph has more than {max_nodes} backward "
                        f"nodes, too many to show readably. Try a smaller graph "
                        f"(fewer layers/steps, or draw an intermediate tensor), "
                        f"or pass max_nodes=... if you really want it."
                    )
    # Kahn's algorithm, FIFO, starting from the roots' grad_fns in order.
    indeg = {k: 0 for k in seen}
    for kids in children.values():
        for _, child in kids:
            if child is not None:
                indeg[_key(child)] += 1
    queue = deque(n for n in discovery if indeg[_key(n)] == 0)
    order = []
    while queue:
        node = queue.popleft()
        order.append(node)
        for _, child in children[_key(node)]:
            if child is None:
                continue
            k = _key(child)
            indeg[k] -= 1
            if indeg[k] == 0:
                queue.append(seen[k])
    if len(order) != len(seen):  # cannot happen for a real autograd graph
        raise ValueError("the backward graph contains a cycle")
    return order, children


def graph_nodes(*roots) -> list:
    """Unique backward nodes reachable from ``roots`` in topological order."""
    _check_roots(roots, "graph_nodes")
    return _walk(roots, who="graph_nodes")[0]


def graph_edges(*roots) -> list:
    """``(node, next_node)`` for every non-None ``next_functions`` entry."""
    _check_roots(roots, "graph_edges")
    order, children = _walk(roots, who="graph_edges")
    canon = {_key(n): n for n in order}
    return [
        (n, canon[_key(c)])
        for n in order
        for _, c in children[_key(n)]
        if c is not None
    ]


# --------------------------------------------------------------------------
# labels
# --------------------------------------------------------------------------


def _shape_str(t) -> str:
    shape = getattr(t, "shape", None)
    if shape is None:
        return "?"
    try:
        return str(tuple(int(d) for d in shape))
    except TypeError:
        return str(shape)


def _dtype_str(t) -> str:
    dt = getattr(t, "dtype", None)
    return "" if dt is None else str(dt).rsplit(".", 1)[-1]


def _name_maps(names):
    if names is None:
        return {}, {}
    if not hasattr(names, "items"):
        raise TypeError("names must be a dict like {'w': w, 'x': x}")
    by_tensor, by_node = {}, {}
    keep = []
    for name, t in names.items():
        keep.append(t)
        by_tensor.setdefault(id(t), []).append(str(name))
        gf = getattr(t, "grad_fn", None)
        if gf is not None:
            by_node.setdefault(_key(gf), []).append(str(name))
    by_tensor = {k: ", ".join(v) for k, v in by_tensor.items()}
    by_node = {k: ", ".join(v) for k, v in by_node.items()}
    return by_tensor, by_node


def _tensor_desc(t, tname):
    rg = bool(getattr(t, "requires_grad", False))
    prefix = f"{tname}: " if tname else ""
    return f"{prefix}shape {_shape_str(t)}, requires_grad={rg}"


# --------------------------------------------------------------------------
# text form
# --------------------------------------------------------------------------


def format_graph(*roots, names=None, show_no_grad=False, max_nodes=MAX_NODES) -> str:
    """The backward graph as an indented text tree (see module docstring)."""
    _check_roots(roots, "format_graph")
    by_tensor, by_node = _name_maps(names)
    _walk(roots, max_nodes=max_nodes, who="format_graph")  # size check first

    def label(node):
        text = node_name(node)
        if _is_acc(node):
            v = node.variable
            text += f"  ({_tensor_desc(v, by_tensor.get(id(v)))})"
        elif _key(node) in by_node:
            text += f"  ({by_node[_key(node)]}.grad_fn)"
        return text

    lines = []
    printed = set()
    for r in roots:
        node = _root_node(r)
        if node is None:
            lines.append(f"no grad_fn  ({_tensor_desc(r, by_tensor.get(id(r)))})")
            continue
        # stack of (node or None, prefix for this line, prefix for its children)
        stack = [(node, "", "")]
        while stack:
            n, head, cont = stack.pop()
            if n is None:
                lines.append(head + "None  (input without grad)")
                continue
            k = _key(n)
            if k in printed:
                lines.append(head + label(n) + "  [same node as above]")
                continue
            printed.add(k)
            lines.append(head + label(n))
            kids = [c for _, c in _next_functions(n) if c is not None or show_no_grad]
            for j in range(len(kids) - 1, -1, -1):
                last = j == len(kids) - 1
                stack.append(
                    (kids[j], cont + ("└─ " if last else "├─ "), cont + ("   " if last else "│  "))
                )
    return "\n".join(lines)


def print_graph(*roots, **kwargs) -> None:
    """Print :func:`format_graph`."""
    print(format_graph(*roots, **kwargs))


# --------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------

_BASE_PT = 10.0  # base font size; layout units are points at this size

_STYLES = {
    "root": dict(face="#d7f0d4", edge="#2e7d32", legend="output tensor"),
    "fn": dict(face="#dce8fa", edge="#2860a8", legend="backward node (grad_fn)"),
    "acc": dict(face="#fde3c3", edge="#d0700c", legend="AccumulateGrad"),
    "leaf": dict(face="#ebdef6", edge="#6c3d99", legend="leaf tensor"),
    "nograd": dict(face="#f7f7f7", edge="#b0b0b0", legend="input without grad"),
}
_LEGEND_ORDER = ("root", "fn", "acc", "leaf", "nograd")

# line styles: (font family, weight, style, size factor, colour)
_LINE_STYLES = {
    "op": ("monospace", "bold", "normal", 1.0, "#111111"),
    "name": ("sans-serif", "bold", "normal", 1.0, "#111111"),
    "info": ("sans-serif", "normal", "normal", 0.86, "#333333"),
    "note": ("sans-serif", "normal", "italic", 0.8, "#555555"),
    "faint": ("monospace", "normal", "normal", 0.8, "#8a8a8a"),
    "index": ("sans-serif", "normal", "normal", 0.72, "#666666"),
}

_PAD_X, _PAD_Y, _LINE_GAP = 9.0, 6.0, 2.5
_GAP_X, _GAP_DUMMY, _GAP_Y, _MARGIN = 18.0, 8.0, 34.0, 14.0
_MAX_FIG_IN = (22.0, 30.0)


class GraphFigure(Figure):
    """A matplotlib Figure that renders itself as PNG in Jupyter."""

    def _repr_png_(self):
        buf = io.BytesIO()
        self.savefig(buf, format="png")
        return buf.getvalue()


def _font(kind, scale=1.0):
    fam, weight, style, factor, _ = _LINE_STYLES[kind]
    return FontProperties(family=fam, weight=weight, style=style, size=_BASE_PT * factor * scale)


class _Measure:
    def __init__(self):
        self._cache = {}
        try:
            from matplotlib.backends.backend_agg import RendererAgg

            self._r = RendererAgg(1, 1, 72)  # 72 dpi: pixels == points
        except Exception:  # pragma: no cover - Agg ships with matplotlib
            self._r = None

    def __call__(self, text, kind):
        key = (text, kind)
        if key not in self._cache:
            self._cache[key] = self._measure(text, kind)
        return self._cache[key]

    def _measure(self, text, kind):
        prop = _font(kind)
        if self._r is not None:
            w, h, _ = self._r.get_text_width_height_descent(text, prop, ismath=False)
        else:  # pragma: no cover
            from matplotlib.textpath import TextToPath

            w, h, _ = TextToPath().get_text_width_height_descent(text, prop, ismath=False)
        return w, prop.get_size_in_points() * 1.18


class _Box:
    __slots__ = ("kind", "lines", "w", "h", "layer", "x", "y", "rank", "dummy", "gid")

    def __init__(self, kind, lines, measure):
        self.kind = kind
        self.lines = lines  # list of (text, line style)
        self.dummy = kind == "dummy"
        self.layer = 0
        self.x = self.y = 0.0
        self.rank = 0
        self.gid = None
        if self.dummy:
            self.w, self.h = 0.0, 0.0
            return
        sizes = [measure(t, k) for t, k in lines]
        self.w = max(40.0, max(s[0] for s in sizes) + 2 * _PAD_X)
        self.h = sum(s[1] for s in sizes) + _LINE_GAP * (len(sizes) - 1) + 2 * _PAD_Y


def _build(roots, names, show_no_grad, max_nodes, measure):
    """Boxes and edges (src, dst, style, input index) of the picture."""
    by_tensor, by_node = _name_maps(names)
    order, children = _walk(roots, max_nodes=max_nodes)
    boxes, edges = [], []
    index = {}  # key -> box index

    def add(key, box):
        index[key] = len(boxes)
        box.gid = f"autograd-node-{box.kind}-{len(boxes)}"
        boxes.append(box)
        return index[key]

    def tensor_lines(t, fallback):
        lines = [(by_tensor.get(id(t), fallback), "name")]
        info = " ".join(s for s in (_shape_str(t), _dtype_str(t)) if s)
        lines.append((info, "info"))
        return lines

    for r in roots:
        k = ("tensor", id(r))
        if k in index:
            continue
        node = _root_node(r)
        if node is None:
            lines = tensor_lines(r, "tensor")
            lines.append((f"requires_grad={bool(getattr(r, 'requires_grad', False))}", "info"))
            lines.append(("no grad_fn", "note"))
            add(k, _Box("leaf", lines, measure))
        elif _is_node(r):
            pass  # a backward node given directly: no tensor box
        else:
            add(k, _Box("root", tensor_lines(r, "output"), measure))

    for n in order:
        k = _key(n)
        if _is_acc(n):
            add(k, _Box("acc", [(node_name(n), "op")], measure))
            v = n.variable
            vk = ("tensor", id(v))
            if vk not in index:
                lines = tensor_lines(v, "leaf")
                lines.append((f"requires_grad={bool(getattr(v, 'requires_grad', False))}", "info"))
                add(vk, _Box("leaf", lines, measure))
        else:
            lines = [(node_name(n), "op")]
            if k in by_node:
                lines.append((f"{by_node[k]}.grad_fn", "note"))
            add(k, _Box("fn", lines, measure))

    for r in roots:
        node = _root_node(r)
        if node is not None and not _is_node(r):
            edges.append((index[("tensor", id(r))], index[_key(node)], "root", -1))
    for n in order:
        src = index[_key(n)]
        kids = children[_key(n)]
        multi = len(kids) > 1
        for i, child in kids:
            if child is None:
                if show_no_grad:
                    stub = add(("nograd", id(n), i), _Box("nograd", [("None", "faint"), ("no grad", "note")], measure))
                    edges.append((src, stub, "nograd", i if multi else -1))
                continue
            edges.append((src, index[_key(child)], "grad", i if multi else -1))
        if _is_acc(n):
            edges.append((src, index[("tensor", id(n.variable))], "acc", -1))
    return boxes, edges


def _pav(targets, weights):
    """Weighted isotonic (non-decreasing) regression, pool adjacent violators."""
    blocks = []  # [mean, weight, count]
    for t, w in zip(targets, weights):
        blocks.append([t, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks[-1]
            blocks[-1] = [(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2]
    out = []
    for m, _, c in blocks:
        out.extend([m] * c)
    return out


def _crossings(layers, down, pos):
    total = 0
    for layer in layers[:-1]:
        segs = [(pos[a], pos[b]) for a in layer for b in down[a]]
        for i in range(len(segs)):
            a1, b1 = segs[i]
            for j in range(i + 1, len(segs)):
                a2, b2 = segs[j]
                if (a1 - a2) * (b1 - b2) < 0:
                    total += 1
    return total


def _layout(boxes, edges, measure):
    """Assign layer, x, y to boxes (adds dummy boxes); return edge routes."""
    n = len(boxes)
    succ = [[] for _ in range(n)]
    indeg = [0] * n
    for s, d, _, _ in edges:
        succ[s].append(d)
        indeg[d] += 1
    # longest distance from the roots (Kahn, no recursion)
    queue = deque(i for i in range(n) if indeg[i] == 0)
    while queue:
        u = queue.popleft()
        for v in succ[u]:
            boxes[v].layer = max(boxes[v].layer, boxes[u].layer + 1)
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    # an output tensor sits right above its grad_fn
    for s, d, style, _ in edges:
        if style == "root":
            boxes[s].layer = boxes[d].layer - 1

    # split long edges with dummy boxes
    routes = []  # per edge: list of box indices from src to dst
    for s, d, _, _ in edges:
        chain = [s]
        for lay in range(boxes[s].layer + 1, boxes[d].layer):
            dummy = _Box("dummy", [], measure)
            dummy.layer = lay
            boxes.append(dummy)
            chain.append(len(boxes) - 1)
        chain.append(d)
        routes.append(chain)
    n = len(boxes)
    down = [[] for _ in range(n)]
    up = [[] for _ in range(n)]
    for chain in routes:
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)

    # initial order: depth-first discovery from the sources (iterative)
    rank = 0
    seen = [False] * n
    for start in range(n):
        if up[start] or seen[start]:
            continue
        stack = [start]
        while stack:
            u = stack.pop()
            if seen[u]:
                continue
            seen[u] = True
            boxes[u].rank = rank
            rank += 1
            stack.extend(reversed(down[u]))
    n_layers = max(b.layer for b in boxes) + 1
    layers = [[] for _ in range(n_layers)]
    for i, b in enumerate(boxes):
        layers[b.layer].append(i)
    for layer in layers:
        layer.sort(key=lambda i: boxes[i].rank)

    # barycenter sweeps to reduce crossings, keeping the best ordering
    def positions():
        return {i: p for layer in layers for p, i in enumerate(layer)}

    pos = positions()
    best = ([list(layer) for layer in layers], _crossings(layers, down, pos))
    for _ in range(8):
        if best[1] == 0:
            break
        for sweep, nbrs in ((range(1, n_layers), up), (range(n_layers - 2, -1, -1), down)):
            for li in sweep:
                layer = layers[li]

                def bary(i, nbrs=nbrs):
                    nb = nbrs[i]
                    return sum(pos[j] for j in nb) / len(nb) if nb else pos[i]

                layer.sort(key=lambda i: (bary(i), pos[i]))
                for p, i in enumerate(layer):
                    pos[i] = p
            c = _crossings(layers, down, pos)
            if c < best[1]:
                best = ([list(layer) for layer in layers], c)
    layers = best[0]

    # x coordinates: pull nodes towards their neighbours, keep order and gaps
    def gap(a, b):
        return _GAP_DUMMY if (boxes[a].dummy or boxes[b].dummy) else _GAP_X

    for layer in layers:
        x = 0.0
        for p, i in enumerate(layer):
            if p:
                x += boxes[layer[p - 1]].w / 2 + gap(layer[p - 1], i) + boxes[i].w / 2
            boxes[i].x = x

    def place(layer, nbr_lists):
        targets, weights, offset = [], [], 0.0
        for p, i in enumerate(layer):
            if p:
                offset += boxes[layer[p - 1]].w / 2 + gap(layer[p - 1], i) + boxes[i].w / 2
            nb = [j for lst in nbr_lists for j in lst[i]]
            # "no grad" stubs hang off to the side: they don't pull their parent
            nb = [j for j in nb if boxes[j].kind != "nograd"] or nb
            want = sum(boxes[j].x for j in nb) / len(nb) if nb else boxes[i].x
            targets.append(want - offset)
            if boxes[i].kind == "nograd":
                weights.append(0.05)  # stubs give way to real nodes
            else:
                weights.append(0.5 if boxes[i].dummy else (1.0 if nb else 0.2))
        fitted = _pav(targets, weights)
        offset = 0.0
        for p, i in enumerate(layer):
            if p:
                offset += boxes[layer[p - 1]].w / 2 + gap(layer[p - 1], i) + boxes[i].w / 2
            boxes[i].x = fitted[p] + offset

    for _ in range(6):
        for li in range(1, n_layers):
            place(layers[li], (up,))
        for li in range(n_layers - 2, -1, -1):
            place(layers[li], (down,))
    for li in range(n_layers):
        place(layers[li], (up, down))

    # straighten long edges: split each chain of dummies into as few runs as
    # possible such that each run fits on one vertical line between its
    # neighbours in every layer, and put it there
    where = {i: p for layer in layers for p, i in enumerate(layer)}
    chains = sorted((c[1:-1] for c in routes if len(c) > 2), key=len, reverse=True)

    def room(d):
        layer, p = layers[boxes[d].layer], where[d]
        lo, hi = float("-inf"), float("inf")
        if p > 0:
            a = layer[p - 1]
            lo = boxes[a].x + boxes[a].w / 2 + gap(a, d)
        if p + 1 < len(layer):
            b = layer[p + 1]
            hi = boxes[b].x - boxes[b].w / 2 - gap(d, b)
        return lo, hi

    def settle(run, lo, hi):
        xs = sorted(boxes[d].x for d in run)
        x = min(max(xs[len(xs) // 2], lo), hi)
        for d in run:
            boxes[d].x = x

    for _ in range(3):
        for chain in chains:
            run, lo, hi = [], float("-inf"), float("inf")
            for d in chain:
                dlo, dhi = room(d)
                if run and (max(lo, dlo) > min(hi, dhi)):
                    settle(run, lo, hi)
                    run, lo, hi = [], float("-inf"), float("inf")
                run.append(d)
                lo, hi = max(lo, dlo), min(hi, dhi)
            settle(run, lo, hi)

    left = min(boxes[i].x - boxes[i].w / 2 for layer in layers for i in layer)
    for b in boxes:
        b.x -= left

    # y coordinates (downwards; flipped when drawing)
    y = 0.0
    layer_band = []
    for layer in layers:
        h = max((boxes[i].h for i in layer if not boxes[i].dummy), default=10.0)
        for i in layer:
            boxes[i].y = y + h / 2
        layer_band.append((y, y + h))
        y += h + _GAP_Y
    return routes, layers, layer_band, y - _GAP_Y


def _ports(boxes, routes, edges):
    """Spread the arrows leaving/entering a box along its bottom/top edge."""
    out_ports, in_ports = {}, {}
    outgoing, incoming = {}, {}
    for e, chain in enumerate(routes):
        outgoing.setdefault(chain[0], []).append(e)
        incoming.setdefault(chain[-1], []).append(e)

    def spread(box_i, es, other, store):
        b = boxes[box_i]
        es = sorted(es, key=lambda e: (boxes[other(e)].x, edges[e][3]))
        k = len(es)
        step = min(16.0, 0.7 * b.w / max(k - 1, 1))
        for j, e in enumerate(es):
            store[e] = b.x + (j - (k - 1) / 2) * step

    for i, es in outgoing.items():
        spread(i, es, lambda e: routes[e][1], out_ports)
    for i, es in incoming.items():
        spread(i, es, lambda e: routes[e][-2], in_ports)
    return out_ports, in_ports


def _route_path(points):
    """Smooth vertical-tangent Bezier path through (x, y_top, y_bottom) points."""
    verts = [(points[0][0], points[0][2])]
    codes = [Path.MOVETO]
    for (x0, _, yb0), (x1, yt1, yb1) in zip(points, points[1:]):
        dy = yt1 - yb0
        verts += [(x0, yb0 + dy * 0.5), (x1, yt1 - dy * 0.5), (x1, yt1)]
        codes += [Path.CURVE4] * 3
        if yb1 != yt1:
            verts.append((x1, yb1))
            codes.append(Path.LINETO)
    return Path([(x, -y) for x, y in verts], codes)


def draw_graph(
    *roots,
    names=None,
    ax=None,
    title=None,
    figsize=None,
    show_no_grad=True,
    max_nodes=MAX_NODES,
):
    """Draw the backward graph of ``roots``; return the matplotlib Figure.

    See the module docstring for the full description.
    """
    _check_roots(roots, "draw_graph")
    measure = _Measure()
    boxes, edges = _build(roots, names, show_no_grad, max_nodes, measure)
    n_real = len(boxes)
    routes, layers, bands, graph_h = _layout(boxes, edges, measure)
    graph_w = max(b.x + b.w / 2 for b in boxes)  # dummies too: long edges may run outside

    # legend: one row under the graph if it fits, else a column on the right
    kinds = [k for k in _LEGEND_ORDER if any(b.kind == k for b in boxes[:n_real])]
    sw, sh, sgap = 16.0, 11.0, 5.0
    items = [(k, sw + sgap + measure(_STYLES[k]["legend"], "info")[0]) for k in kinds]
    row_h = max(sh, measure("Ag", "info")[1])
    row_w = sum(w for _, w in items) + 16.0 * (len(items) - 1)
    title_h = measure(title, "name")[1] * 1.3 + 10.0 if title else 0.0
    top = _MARGIN + title_h
    if row_w <= graph_w:
        legend_at = [(_MARGIN + (graph_w - row_w) / 2, top + graph_h + 22.0)]
        for _, w in items[:-1]:
            legend_at.append((legend_at[-1][0] + w + 16.0, legend_at[-1][1]))
        width = graph_w + 2 * _MARGIN
        height = top + graph_h + 22.0 + row_h + _MARGIN
    else:
        lx = _MARGIN + graph_w + 30.0
        legend_at = [(lx, top + 4.0 + j * (row_h + 6.0)) for j in range(len(items))]
        width = lx + max(w for _, w in items) + _MARGIN
        height = max(top + graph_h, legend_at[-1][1] + row_h) + _MARGIN
    if title:
        width = max(width, measure(title, "name")[0] * 1.15 + 2 * _MARGIN)

    if ax is None:
        if figsize is None:
            k = min(1.0, _MAX_FIG_IN[0] * 72 / width, _MAX_FIG_IN[1] * 72 / height)
            figsize = (width * k / 72, height * k / 72)
        fig = GraphFigure(figsize=figsize, dpi=100)
        ax = fig.add_axes((0, 0, 1, 1))
    else:
        fig = ax.figure
    pos = ax.get_position()
    ax_w = fig.get_figwidth() * 72 * pos.width
    ax_h = fig.get_figheight() * 72 * pos.height
    s = min(ax_w / width, ax_h / height, 1.25)  # points per layout unit
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()

    x0 = _MARGIN
    for b in boxes:
        b.x += x0
        b.y += top

    def text(x, y, t, kind, **kw):
        fam, weight, style, factor, color = _LINE_STYLES[kind]
        kw.setdefault("ha", "center")
        kw.setdefault("color", color)
        ax.text(
            x, -y, t, va="center", family=fam, weight=weight, style=style,
            fontsize=_BASE_PT * factor * s, parse_math=False, **kw,
        )

    # edges first, so that boxes sit on top of them
    out_ports, in_ports = _ports(boxes, routes, edges)
    for e, (chain, (_, _, style, idx)) in enumerate(zip(routes, edges)):
        src, dst = boxes[chain[0]], boxes[chain[-1]]
        points = [(out_ports[e], src.y + src.h / 2, src.y + src.h / 2)]
        for d in chain[1:-1]:
            band = bands[boxes[d].layer]
            points.append((boxes[d].x, band[0] + top, band[1] + top))
        points.append((in_ports[e], dst.y - dst.h / 2, dst.y - dst.h / 2))
        color, ls, lw = {
            "grad": ("#4a4a4a", "-", 1.2),
            "root": ("#2e7d32", "-", 1.2),
            "acc": (_STYLES["leaf"]["edge"], (0, (4, 2)), 1.1),
            "nograd": ("#b5b5b5", (0, (1.2, 1.8)), 1.1),
        }[style]
        ax.add_artist(
            FancyArrowPatch(
                path=_route_path(points), arrowstyle="-|>", mutation_scale=9 * s,
                color=color, lw=lw * s, linestyle=ls, zorder=1,
                joinstyle="round", capstyle="round", gid=f"autograd-edge:{src.gid}->{dst.gid}",
            )
        )
        if idx >= 0:  # which next_functions entry this arrow is, on the arrow
            (xa, _, ya), (xb, yb) = points[0], (points[1][0], points[1][1])
            t = min(0.3, 9.0 / max(yb - ya, 1e-9))
            bx = (1 - t) ** 3 * xa + 3 * (1 - t) ** 2 * t * xa + 3 * (1 - t) * t**2 * xb + t**3 * xb
            by = ya + (yb - ya) * ((1 - t) * 3 * t * (1 - t) * 0.5 + 3 * (1 - t) * t * t * 0.5 + t**3)
            text(bx, by, str(idx), "index", zorder=3, gid="autograd-index",
                 bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none", alpha=0.9))

    for b in boxes[:n_real]:
        st = _STYLES[b.kind]
        rounded = b.kind in ("fn", "acc")
        patch = FancyBboxPatch(
            (b.x - b.w / 2, -(b.y + b.h / 2)), b.w, b.h,
            boxstyle=f"round,pad=0,rounding_size={8 if rounded else 2.5}",
            facecolor=st["face"], edgecolor=st["edge"],
            lw=(1.0 if b.kind == "nograd" else 1.3) * s,
            linestyle=(0, (1.5, 1.5)) if b.kind == "nograd" else "-",
            zorder=2,
        )
        patch.set_gid(b.gid)
        ax.add_artist(patch)
        heights = [measure(t, k)[1] for t, k in b.lines]
        y = b.y - b.h / 2 + _PAD_Y
        for (t, k), h in zip(b.lines, heights):
            text(b.x, y + h / 2, t, k, zorder=4, gid=f"{b.gid}:text")
            y += h + _LINE_GAP

    for (k, _), (lx, ly) in zip(items, legend_at):
        st = _STYLES[k]
        ax.add_artist(
            FancyBboxPatch(
                (lx, -(ly + row_h / 2 + sh / 2)), sw, sh,
                boxstyle=f"round,pad=0,rounding_size={4 if k in ('fn', 'acc') else 1.5}",
                facecolor=st["face"], edgecolor=st["edge"], lw=1.0 * s,
                linestyle=(0, (1.5, 1.5)) if k == "nograd" else "-", zorder=2,
                gid="autograd-legend",
            )
        )
        text(lx + sw + sgap, ly + row_h / 2, st["legend"], "info", ha="left", gid="autograd-legend")
    if title:
        ax.text(
            width / 2, -(_MARGIN + title_h / 2 - 4.0), title, ha="center", va="center",
            fontsize=_BASE_PT * 1.15 * s, weight="bold", color="#111111", gid="autograd-title",
            parse_math=False,
        )
    return fig
