"""Placing the boxes of a graph picture: sizes measured with matplotlib's Agg renderer,
layers by longest distance from the roots, an order with few crossings, and arrow routes.

Nothing is drawn here (that is ``draw``); everything is in points at the base font size.
"""

from collections import deque

from matplotlib.font_manager import FontProperties
from matplotlib.path import Path

from .walk import _dtype_str, _is_acc, _is_node, _key, _name_maps, _root_node, _shape_str, _walk, node_name

_BASE_PT = 10.0  # base font size; layout units are points at this size

_STYLES = {
    "root": dict(face="#d7f0d4", edge="#2e7d32", legend="output tensor"),
    "fn": dict(face="#dce8fa", edge="#2860a8", legend="backward node (grad_fn)"),
    "acc": dict(face="#fde3c3", edge="#d0700c", legend="AccumulateGrad"),
    "leaf": dict(face="#ebdef6", edge="#6c3d99", legend="leaf tensor"),
    "nograd": dict(face="#f7f7f7", edge="#b0b0b0", legend="input without grad"),
    # the drawings of saved.py: what a node holds for backward
    "held": dict(face="#fbdcd6", edge="#b3261e", legend="holds saved tensors"),
    "freed": dict(face="#eeeeee", edge="#8c8c8c", legend="saved tensors freed", dashed=True),
    "recomputed": dict(face="#d4efe9", edge="#00796b", legend="recomputed in backward"),
}
_LEGEND_ORDER = ("root", "fn", "held", "freed", "recomputed", "acc", "leaf", "nograd")

# line styles: (font family, weight, style, size factor, colour)
_LINE_STYLES = {
    "op": ("monospace", "bold", "normal", 1.0, "#111111"),
    "name": ("sans-serif", "bold", "normal", 1.0, "#111111"),
    "info": ("sans-serif", "normal", "normal", 0.86, "#333333"),
    "note": ("sans-serif", "normal", "italic", 0.8, "#555555"),
    "faint": ("monospace", "normal", "normal", 0.8, "#8a8a8a"),
    "saved": ("monospace", "normal", "normal", 0.8, "#8e1c14"),
    "index": ("sans-serif", "normal", "normal", 0.72, "#666666"),
}

_PAD_X, _PAD_Y, _LINE_GAP = 9.0, 6.0, 2.5
_GAP_X, _GAP_DUMMY, _GAP_Y, _MARGIN = 18.0, 8.0, 34.0, 14.0
_MAX_FIG_IN = (22.0, 30.0)




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
    __slots__ = ("kind", "lines", "w", "h", "layer", "x", "y", "rank", "dummy", "gid", "obj", "dashed")

    def __init__(self, kind, lines, measure, obj=None, dashed=False):
        self.kind = kind
        self.obj = obj  # the node or tensor the box stands for (None for stubs and dummies)
        self.dashed = dashed
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
            add(k, _Box("leaf", lines, measure, obj=r))
        elif _is_node(r):
            pass  # a backward node given directly: no tensor box
        else:
            add(k, _Box("root", tensor_lines(r, "output"), measure, obj=r))

    for n in order:
        k = _key(n)
        if _is_acc(n):
            add(k, _Box("acc", [(node_name(n), "op")], measure, obj=n))
            v = n.variable
            vk = ("tensor", id(v))
            if vk not in index:
                lines = tensor_lines(v, "leaf")
                lines.append((f"requires_grad={bool(getattr(v, 'requires_grad', False))}", "info"))
                add(vk, _Box("leaf", lines, measure, obj=v))
        else:
            lines = [(node_name(n), "op")]
            if k in by_node:
                lines.append((f"{by_node[k]}.grad_fn", "note"))
            add(k, _Box("fn", lines, measure, obj=n))

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
