"""A picture of one storage and the views that share it: ``draw_views``.

A view is a window on its base's storage: where it starts (``storage_offset()``), how far
each step along a dim jumps (``stride()``) and its ``shape`` say which cells it sees.
One version counter belongs to the storage, so every view shows the same ``_version``;
each view has its own ``grad_fn``, which PyTorch regenerates from the base's history
when the counter has moved since the view's was set.  The figure shows all of that at
once: the storage as a row of cells, each view as a row below with the cells it sees
filled in, and on the right each tensor's ``grad_fn`` and ``_version``.

Only public tensor API is used (``storage_offset``, ``stride``, ``shape``, ``tolist``,
``grad_fn``, ``_version``), so the same call draws PyTorch tensors.
"""

import itertools

from matplotlib.patches import Rectangle

from .draw import GraphFigure
from .walk import node_name

__all__ = ["draw_views", "storage_positions"]

_BASE_COLOR = "#cfe2f3"
_VIEW_COLORS = ["#f9cb9c", "#b6d7a8", "#d5a6bd", "#ffe599", "#a2c4c9", "#ea9999"]


def storage_positions(t):
    """The storage index of every element of ``t``, in ``t``'s row-major order."""
    offset, strides = t.storage_offset(), t.stride()
    return [offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*(range(n) for n in t.shape))]


def _flat_values(t):
    values = t.tolist()
    while isinstance(values, list) and values and isinstance(values[0], list):
        values = [v for row in values for v in row]
    return values if isinstance(values, list) else [values]


def _history(t):
    fn = t.grad_fn
    return "no grad_fn" if fn is None else node_name(fn)


def draw_views(base, views, title=None, base_name="base", cell=0.62):
    """Draw ``base``'s storage and where each view of ``views`` (a dict name -> tensor)
    sits in it; return the matplotlib Figure (it shows itself in Jupyter).

    Args:
        base: a tensor that owns its storage (``base._base is None``), at most 24 elements.
        views: ``{"v": base[1:3], ...}``: tensors whose ``_base`` is ``base``.
        title: a line above the picture.
        base_name: the base's label.
        cell: the width of one storage cell, in inches.

    Returns:
        The Figure: one row for the storage (its values, indices 0..n-1), one row per view
        (the cells it sees, numbered in the view's own order), and beside every row the
        tensor's ``grad_fn`` and ``_version``.
    """
    if getattr(base, "_base", None) is not None:
        raise ValueError("draw_views: base is itself a view; pass the tensor that owns the storage "
                         "(its ._base)")
    n = base.numel()
    if n > 24:
        raise ValueError(f"draw_views: the storage has {n} elements; at most 24 fit in one row")
    for name, v in views.items():
        if v._base is not base:
            raise ValueError(f"draw_views: {name!r} is not a view of base (its ._base is not base)")
    base_values = _flat_values(base)
    rows = [(base_name, base, list(range(n)), _BASE_COLOR)] + [
        (name, v, storage_positions(v), _VIEW_COLORS[i % len(_VIEW_COLORS)])
        for i, (name, v) in enumerate(views.items())]

    label_w, info_w, row_h = 1.2, 3.6, 0.62
    width = label_w + n * cell + info_w
    height = (len(rows) + 0.9) * row_h + (0.4 if title else 0.0)
    fig = GraphFigure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    top = 0.45 if title else 0.1
    if title:
        ax.text(width / 2, 0.22, title, ha="center", va="center", fontsize=11, weight="bold")
    for j in range(n):                                      # storage indices above the cells
        ax.text(label_w + (j + 0.5) * cell, top + 0.2, str(j), ha="center", va="center",
                fontsize=8, color="grey")
    for r, (name, t, positions, color) in enumerate(rows):
        y = top + 0.4 + r * row_h
        ax.text(label_w - 0.12, y + row_h * 0.4, name, ha="right", va="center", fontsize=10,
                family="monospace", weight="bold")
        order = {p: k for k, p in enumerate(positions)}
        for j in range(n):
            seen = j in order
            ax.add_patch(Rectangle((label_w + j * cell, y), cell, row_h * 0.8,
                                   facecolor=color if seen else "white",
                                   edgecolor="black" if seen else "#dddddd", linewidth=0.8,
                                   gid=f"storage-cell:{name}:{j}"))
            if r == 0:
                ax.text(label_w + (j + 0.5) * cell, y + row_h * 0.4, f"{base_values[j]:g}",
                        ha="center", va="center", fontsize=8)
            elif seen:
                ax.text(label_w + (j + 0.5) * cell, y + row_h * 0.4, f"[{order[j]}]",
                        ha="center", va="center", fontsize=7)
        shape = "(" + ", ".join(map(str, t.shape)) + ("," if len(t.shape) == 1 else "") + ")"
        version = "(inference)" if t.is_inference() else t._version     # no counter to show
        ax.text(label_w + n * cell + 0.15, y + row_h * 0.4,
                f"{shape:<7} {_history(t):<19} _version {version}", ha="left", va="center",
                fontsize=8.5, family="monospace", gid=f"storage-info:{name}")
    return fig
