"""Version counters along a write: ``version_snapshot`` and ``draw_versions``.

Every in-place write adds one to the version counter of the storage it writes, which
the storage's views and ``detach()`` share (``.data`` has a counter of its own).  Every
tensor a node saved for backward remembers the version it was saved at, and backward
refuses a saved tensor whose version has moved on.  The figure puts that on one screen:
one column per moment (before a write, after it, after the next one), one row per
tensor you name, with its ``_version``, and one row per tensor the graph saved, with the
version its node checks against and the version now: green while they agree, red once
backward would refuse it.

Only public API is used (``_version``, ``untyped_storage()``, ``data_ptr()``,
``stride()``, ``shape``, ``grad_fn``, ``next_functions`` and the nodes' ``_saved_<name>``
attributes as ``dir(node)`` lists them), so the same calls draw PyTorch tensors.  The
version a node checks against is what unpacking the saved tensor says: while the
versions agree, the saved tensor comes back (its ``_version`` is the one it was saved
at); once they differ, the refusal names both ("is at version 1; expected version 0
instead").
"""

import re

from matplotlib.patches import Rectangle

from .draw import GraphFigure
from .walk import graph_nodes, node_name

__all__ = ["version_snapshot", "draw_versions", "VersionSnapshot", "SavedState"]

_TENSOR_COLOR, _CHANGED_COLOR = "#cfe2f3", "#f9cb9c"
_OK_COLOR, _REFUSED_COLOR, _GONE_COLOR = "#b6d7a8", "#ea9999", "#eeeeee"
_VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")
_FREED = "backward through the graph a second time"


class SavedState:
    """One tensor a node saved, at one moment: ``node`` and ``attribute``
    (``"_saved_result"``), the version the node checks it against (``saved``), its
    version now (``now``), whether unpacking it works (``ok``), and ``alias``: the name
    of the tensor of the snapshot it is (``"y"``), or whose storage it shares
    (``"y's storage"``), or "" when unknown.  ``freed``: backward ran and released it."""

    __slots__ = ("node", "attribute", "saved", "now", "ok", "alias", "freed")

    def __init__(self, node, attribute, saved, now, ok, alias, freed=False):
        self.node, self.attribute, self.saved, self.now = node, attribute, saved, now
        self.ok, self.alias, self.freed = ok, alias, freed

    def __repr__(self):
        state = "freed" if self.freed else f"saved at {self.saved}, now {self.now}: " + (
            "ok" if self.ok else "refused")
        return f"<SavedState {node_name(self.node)}.{self.attribute} ({self.alias}): {state}>"


class VersionSnapshot:
    """The versions at one moment: each named tensor's ``_version`` (``versions``), and
    each tensor saved by the graph of ``roots`` that shares a storage with a named tensor,
    or that backward would refuse (``saved``, a list of :class:`SavedState`)."""

    def __init__(self, tensors, roots=(), label="before"):
        if not isinstance(tensors, dict) or not tensors:
            raise TypeError("version_snapshot: tensors must be a dict {name: tensor} with at least one tensor")
        for name, t in tensors.items():
            if not hasattr(t, "_version") or not hasattr(t, "untyped_storage"):
                raise TypeError(f"version_snapshot: {name!r} is not a tensor")
        self.tensors, self.roots, self.label = dict(tensors), tuple(roots), str(label)
        self.versions = {name: _version_of(t) for name, t in self.tensors.items()}
        self.saved = _saved_states(self.roots, self.tensors)

    def again(self, label="after"):
        """A snapshot of the same tensors and graph, now."""
        return VersionSnapshot(self.tensors, self.roots, label)


def version_snapshot(tensors, roots=(), label="before"):
    """The versions of ``tensors`` ({name: tensor}) and of the tensors saved by the
    backward graph of ``roots`` (tensors), now.  Take one before an in-place write, then
    draw it with :func:`draw_versions` after the write."""
    return VersionSnapshot(tensors, roots, label)


def _version_of(t):
    return "inference" if t.is_inference() else t._version


def _storage(t):
    return t.untyped_storage().data_ptr()


def _alias(value, tensors):
    """The name of the tensor ``value`` is (same storage, start, shape and strides), else
    of one whose storage it shares; "" when none."""
    same_storage = [name for name, t in tensors.items()
                    if not t.is_inference() and t.numel() and _storage(t) == _storage(value)]
    for name in same_storage:
        t = tensors[name]
        if (t.data_ptr(), tuple(t.shape), tuple(t.stride())) == (value.data_ptr(), tuple(value.shape),
                                                                 tuple(value.stride())):
            return name
    return f"{same_storage[0]}'s storage" if same_storage else ""


def _saved_states(roots, tensors):
    states = []
    nodes = graph_nodes(*roots) if roots else []
    for node in nodes:
        for attribute in sorted(a for a in dir(node) if a.startswith("_saved_")):
            try:
                value = getattr(node, attribute)
            except RuntimeError as error:
                found = _VERSIONS.search(str(error))
                if found is not None:
                    states.append(SavedState(node, attribute, int(found[2]), int(found[1]), False, ""))
                elif _FREED in str(error):
                    states.append(SavedState(node, attribute, None, None, True, "", freed=True))
                else:
                    raise
                continue
            if not hasattr(value, "_version") or not hasattr(value, "untyped_storage") or not value.numel():
                continue                   # a size, a dim, None, a number kept as a tensor of its own
            alias = _alias(value, tensors)
            if alias:
                states.append(SavedState(node, attribute, value._version, value._version, True, alias))
    return states


def _node_labels(states):
    """A label per node (by identity): its name, numbered (``MulBackward0 #2``) in order of
    appearance when two nodes share it."""
    order = []
    for state in states:
        if not any(state.node is n for n in order):
            order.append(state.node)
    names = [node_name(n) for n in order]
    labels, seen = {}, {}
    for n, name in zip(order, names):
        seen[name] = seen.get(name, 0) + 1
        labels[id(n)] = name if names.count(name) == 1 else f"{name} #{seen[name]}"
    return labels


def draw_versions(*snapshots, label="after", title=None):
    """Draw the version counters at each snapshot, one column each; return the Figure.

    Args:
        snapshots: one or more :func:`version_snapshot` results, in time order.  With one
            snapshot, the same tensors are read again now, as a last column ``label``.
        label: the last column's heading when it is taken now (``"after y.add_(1)"``).
        title: a line above the picture.

    Returns:
        A matplotlib Figure (it shows itself in Jupyter): a row per named tensor with its
        ``_version`` in each column (orange where a write moved it since the column before),
        then a row per saved tensor: the version its node checks against and the version
        now, green while they agree, red once backward would refuse it.
    """
    if not snapshots or not all(isinstance(s, VersionSnapshot) for s in snapshots):
        raise TypeError("draw_versions: pass the snapshots that version_snapshot returned")
    if len(snapshots) == 1:
        snapshots = snapshots + (snapshots[0].again(label),)
    tensors = {}
    for snap in snapshots:
        for name in snap.tensors:
            tensors.setdefault(name, None)
    # A row per saved tensor seen alive or refused at some moment (one only seen freed, such as
    # a number kept as a tensor, was never on a storage of the picture), in order of appearance.
    shown = {(id(s.node), s.attribute) for snap in snapshots for s in snap.saved if not s.freed}
    rows, known = [], {}             # (node, attribute); the alias seen
    for snap in snapshots:
        for state in snap.saved:
            key = (id(state.node), state.attribute)
            if key not in shown:
                continue
            if key not in known:
                rows.append((state.node, state.attribute))
                known[key] = state.alias
            elif state.alias and not known[key]:
                known[key] = state.alias
    labels = _node_labels([s for snap in snapshots for s in snap.saved if (id(s.node), s.attribute) in shown])

    name_w, col_w, row_h = 3.3, 2.35, 0.42
    names = [f"{labels[id(node)]}.{attribute}" + (f"  (= {known[(id(node), attribute)]})"
                                                   if known[(id(node), attribute)] else "")
             for node, attribute in rows]
    name_w = max(name_w, 0.3 + 0.075 * max([len(n) for n in names + list(tensors)] + [0]))
    n_rows = len(tensors) + len(rows) + 2 + (1 if rows else 0)
    width = name_w + col_w * len(snapshots) + 0.2
    height = (n_rows + 0.6) * row_h + (0.45 if title else 0.1)
    fig = GraphFigure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    y = 0.1
    if title:
        ax.text(width / 2, 0.25, title, ha="center", va="center", fontsize=11, weight="bold")
        y = 0.5
    for c, snap in enumerate(snapshots):
        ax.text(name_w + (c + 0.5) * col_w, y + row_h / 2, snap.label, ha="center", va="center", fontsize=9.5,
                weight="bold", gid=f"versions-column:{c}")
    y += row_h
    ax.text(0.1, y + row_h / 2, "tensors: _version", ha="left", va="center", fontsize=9, color="grey",
            style="italic")
    y += row_h
    for name in tensors:
        ax.text(name_w - 0.15, y + row_h / 2, name, ha="right", va="center", fontsize=9.5, family="monospace")
        previous = None
        for c, snap in enumerate(snapshots):
            version = snap.versions.get(name)
            if version is None:
                previous = None
                continue
            changed = previous is not None and version != previous
            _cell(ax, name_w + c * col_w, y, col_w, row_h, f"_version {version}",
                  _CHANGED_COLOR if changed else _TENSOR_COLOR, f"versions-tensor:{name}:{c}", bold=changed)
            previous = version
        y += row_h
    if rows:
        y += row_h * 0.3
        ax.text(0.1, y + row_h / 2, "saved for backward: the version its node checks against, and now", ha="left", va="center",
                fontsize=9, color="grey", style="italic")
        y += row_h
    for (node, attribute), text in zip(rows, names):
        ax.text(name_w - 0.15, y + row_h / 2, text, ha="right", va="center", fontsize=8.5, family="monospace")
        for c, snap in enumerate(snapshots):
            state = next((s for s in snap.saved if s.node is node and s.attribute == attribute), None)
            if state is None:
                continue
            gid = f"versions-saved:{labels[id(node)]}.{attribute}:{c}"
            if state.freed:
                _cell(ax, name_w + c * col_w, y, col_w, row_h, "freed by backward", _GONE_COLOR, gid)
            else:
                verdict = "ok" if state.ok else "refused"
                _cell(ax, name_w + c * col_w, y, col_w, row_h, f"saved at {state.saved}, now {state.now}: {verdict}",
                      _OK_COLOR if state.ok else _REFUSED_COLOR, gid, bold=not state.ok)
        y += row_h
    return fig


def _cell(ax, x, y, w, h, text, color, gid, bold=False):
    ax.add_patch(Rectangle((x + 0.06, y + 0.04), w - 0.12, h - 0.08, facecolor=color, edgecolor="black",
                           linewidth=0.7, gid=gid))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=8.5, family="monospace",
            weight="bold" if bold else "normal", gid=gid + ":text")
