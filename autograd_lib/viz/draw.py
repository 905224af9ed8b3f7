"""Drawing a laid-out graph with matplotlib (no pyplot): ``draw_graph``."""

import io

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from .layout import (_BASE_PT, _LEGEND_ORDER, _LINE_GAP, _LINE_STYLES, _MARGIN, _MAX_FIG_IN, _PAD_Y, _STYLES, _Measure,
                     _build, _layout, _ports, _route_path)
from .walk import MAX_NODES, _check_roots


class GraphFigure(Figure):
    """A matplotlib Figure that renders itself as PNG in Jupyter."""

    def _repr_png_(self):
        buf = io.BytesIO()
        self.savefig(buf, format="png")
        return buf.getvalue()


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
    return render(boxes, edges, measure, ax=ax, title=title, figsize=figsize)


def render(boxes, edges, measure, ax=None, title=None, figsize=None):
    """Lay out and draw boxes and edges (as ``layout._build`` makes them); return the Figure.
    ``draw_graph`` and the drawings of ``saved`` share it."""
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
            "recompute": (_STYLES["recomputed"]["edge"], (0, (5, 2.5)), 1.4),
        }[style]
        ax.add_artist(
            FancyArrowPatch(
                path=_route_path(points), arrowstyle="-|>", mutation_scale=9 * s,
                color=color, lw=lw * s, linestyle=ls, zorder=1,
                joinstyle="round", capstyle="round", gid=f"autograd-edge:{src.gid}->{dst.gid}",
            )
        )
        if style == "recompute":  # what the dashed arrow means, beside it
            (xa, _, ya), (xb, yb, _) = points[0], points[-1]
            text((xa + xb) / 2 + 6.0, (ya + yb) / 2, "recomputes", "note", ha="left", zorder=3,
                 color=_STYLES["recomputed"]["edge"], gid="autograd-recompute-label")
        if idx >= 0:  # which next_functions entry this arrow is, on the arrow
            (xa, _, ya), (xb, yb) = points[0], (points[1][0], points[1][1])
            t = min(0.3, 9.0 / max(yb - ya, 1e-9))
            bx = (1 - t) ** 3 * xa + 3 * (1 - t) ** 2 * t * xa + 3 * (1 - t) * t**2 * xb + t**3 * xb
            by = ya + (yb - ya) * ((1 - t) * 3 * t * (1 - t) * 0.5 + 3 * (1 - t) * t * t * 0.5 + t**3)
            text(bx, by, str(idx), "index", zorder=3, gid="autograd-index",
                 bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none", alpha=0.9))

    for b in boxes[:n_real]:
        st = _STYLES[b.kind]
        rounded = b.kind not in ("root", "leaf", "nograd")
        patch = FancyBboxPatch(
            (b.x - b.w / 2, -(b.y + b.h / 2)), b.w, b.h,
            boxstyle=f"round,pad=0,rounding_size={8 if rounded else 2.5}",
            facecolor=st["face"], edgecolor=st["edge"],
            lw=(1.0 if b.kind == "nograd" else 1.3) * s,
            linestyle=_dashes(b.kind, b.dashed),
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
                boxstyle=f"round,pad=0,rounding_size={1.5 if k in ('root', 'leaf', 'nograd') else 4}",
                facecolor=st["face"], edgecolor=st["edge"], lw=1.0 * s,
                linestyle=_dashes(k, st.get("dashed", False)), zorder=2,
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


def _dashes(kind, dashed):
    """A box's outline: dotted for an input without grad, dashed for what is gone (freed)."""
    if kind == "nograd":
        return (0, (1.5, 1.5))
    return (0, (4, 2)) if dashed else "-"
