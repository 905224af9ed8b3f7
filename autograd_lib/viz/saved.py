"""What the nodes of a backward graph hold for backward, drawn: ``draw_saved`` and
``draw_checkpoint`` (assignment 06).

A node keeps the tensors its formula needs (its *saved tensors*) from the forward pass until
backward has run it; then they are freed, unless the pass retains the graph.  These drawings
show that state on the graph of ``draw_graph``: a node that holds saved tensors (red, one
line per tensor: its name and shape), a node whose saved tensors were freed (grey, dashed,
``name: freed``), a node that saved nothing (blue, as in ``draw_graph``).
``draw_checkpoint`` adds, below each checkpoint's node, the segment that its backward
recomputed (green), joined to the node by a dashed arrow.

Like the rest of ``viz``, only the public graph API is read, so PyTorch's graphs draw the
same way.  What a node keeps: ``node._saved_<name>`` for the names ``dir(node)`` lists (a
tensor, a tuple of tensors, or a plain value such as an exponent, which is not shown), and
``node.saved_tensors`` (a tuple) on the node of a custom ``autograd.Function``; reading
either raises ``RuntimeError`` once the node was freed.
"""

from collections import namedtuple

from .draw import render
from .layout import _Box, _build, _Measure
from .walk import MAX_NODES, _check_roots, _is_acc, _shape_str, graph_nodes, node_name

__all__ = ["SavedState", "saved_state", "draw_saved", "draw_checkpoint", "watch_recomputation",
           "CHECKPOINT_NODE"]

#: the name of a reentrant checkpoint's node, in PyTorch and in autograd_lib
CHECKPOINT_NODE = "CheckpointFunctionBackward"
_MAX_LINES = 4  # saved tensors listed in a box; more are counted

#: what a node keeps for backward: ``held``, ``((name, shape text), ...)`` for the saved
#: tensors it holds; ``freed``, the names of those it held and has freed
SavedState = namedtuple("SavedState", ["held", "freed"])


def _is_tensor(value):
    return all(hasattr(value, a) for a in ("grad_fn", "shape", "dtype"))


def _tensors_in(value):
    """The tensors of a saved value: itself, or those of a tuple or list of tensors."""
    if _is_tensor(value):
        return [value]
    if isinstance(value, (tuple, list)):
        found = [v for v in value if v is not None]
        if found and all(_is_tensor(v) for v in found):
            return found
    return []


def saved_state(node):
    """What ``node`` holds for backward, as a :class:`SavedState`: the saved tensors it holds
    (name and shape), and the names of those it held and has freed.  Plain values (an
    exponent, a shape) are never freed and are not listed."""
    held, freed = [], []
    listed = dir(node)
    names = [a[len("_saved_"):] for a in listed if a.startswith("_saved_")]
    for name in names:
        try:
            value = getattr(node, "_saved_" + name)
        except RuntimeError:                  # "Trying to backward through the graph a second time"
            freed.append(name)
            continue
        except AttributeError:
            continue
        tensors = _tensors_in(value)
        for i, t in enumerate(tensors):
            held.append((name if len(tensors) == 1 else f"{name}[{i}]", _shape_str(t)))
    if not held and not freed and "saved_tensors" in listed:   # the node of a custom autograd.Function
        try:
            value = node.saved_tensors
        except RuntimeError:
            freed.append("saved_tensors")
        else:
            if isinstance(value, tuple):
                held += [(f"saved_tensors[{i}]", _shape_str(t)) for i, t in enumerate(value) if _is_tensor(t)]
    return SavedState(tuple(held), tuple(freed))


def _state_lines(state):
    lines = [(f"{name} {shape}", "saved") for name, shape in state.held]
    if len(lines) > _MAX_LINES:
        lines = lines[:_MAX_LINES - 1] + [(f"+{len(lines) - _MAX_LINES + 1} more", "saved")]
    lines += [(f"{name}: freed", "faint") for name in state.freed]
    return lines or [("nothing saved", "note")]


def _restyle(box, kind, extra, measure, dashed=False):
    """A box like ``box`` with another kind and lines added (sizes measured again)."""
    new = _Box(kind, box.lines + extra, measure, obj=box.obj, dashed=dashed)
    new.gid = f"autograd-node-{kind}-{box.gid.rsplit('-', 1)[-1]}"
    return new


def _mark_saved(boxes, measure, recomputed_ids=()):
    """Every node's box shows what the node holds; the ids in ``recomputed_ids`` are drawn
    as recomputed."""
    for i, box in enumerate(boxes):
        if box.kind != "fn":
            continue
        state = saved_state(box.obj)
        kind = ("recomputed" if id(box.obj) in recomputed_ids else
                "held" if state.held else "freed" if state.freed else "fn")
        boxes[i] = _restyle(box, kind, _state_lines(state), measure, dashed=bool(state.freed and not state.held))


def draw_saved(*roots, names=None, ax=None, title=None, figsize=None, show_no_grad=True, max_nodes=MAX_NODES):
    """Draw the backward graph of ``roots`` (as ``draw_graph``) with what each node holds for
    backward now: red, the saved tensors it holds (name and shape); grey and dashed, the
    names of those it has freed; blue, "nothing saved".  Draw before and after
    ``backward()`` to see what backward frees, and after ``backward(retain_graph=True)`` to
    see what it keeps.  Returns the matplotlib Figure (``ax=`` draws into an axes)."""
    _check_roots(roots, "draw_saved")
    measure = _Measure()
    boxes, edges = _build(roots, names, show_no_grad, max_nodes, measure)
    _mark_saved(boxes, measure)
    return render(boxes, edges, measure, ax=ax, title=title, figsize=figsize)


class watch_recomputation:
    """Wrap the function given to ``checkpoint``: each call that records a graph (the
    recomputation in backward; the forward pass records none) keeps its outputs in
    ``.recomputed``, for ``draw_checkpoint``.

    >>> block = watch_recomputation(block)
    >>> y = checkpoint(block, x, use_reentrant=True); y.sum().backward()
    >>> draw_checkpoint(y, recomputed=block.recomputed)
    """

    def __init__(self, function):
        self.function = function
        self.recomputed = []

    def __call__(self, *args, **kwargs):
        outputs = self.function(*args, **kwargs)
        tensors = _tensors_in(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
        if any(getattr(t, "grad_fn", None) is not None for t in tensors):
            self.recomputed.append(outputs)
        return outputs


def _pairs(roots, recomputed):
    """[(checkpoint node, [recomputed output tensors])] from ``recomputed``: a list with one
    entry per checkpoint (a tensor, or a tuple of outputs), as ``watch_recomputation``
    collects them; one entry alone, for the graph's only checkpoint; or a dict {checkpoint
    node, or a tensor it made: outputs}."""
    nodes = [n for n in graph_nodes(*roots) if node_name(n) == CHECKPOINT_NODE]
    if not nodes:
        raise ValueError(f"draw_checkpoint(): the graph has no {CHECKPOINT_NODE} node "
                         "(was it made with checkpoint(..., use_reentrant=True)?)")

    def outputs(value):
        found = [value] if _is_tensor(value) else _tensors_in(value)
        if not found:
            raise TypeError(f"draw_checkpoint(): recomputed outputs must be tensors, got {type(value).__name__}")
        return [t for t in found if getattr(t, "grad_fn", None) is not None]

    if hasattr(recomputed, "items"):
        pairs = []
        for key, value in recomputed.items():
            node = key if not _is_tensor(key) else key.grad_fn
            if not any(node is n for n in nodes):
                raise ValueError(f"draw_checkpoint(): {node_name(node) if node is not None else 'None'} "
                                 f"is not a {CHECKPOINT_NODE} node of the graph")
            pairs.append((node, outputs(value)))
        return pairs
    entries = recomputed if isinstance(recomputed, list) else [recomputed]   # a list: one entry per checkpoint
    if len(entries) != len(nodes):
        raise ValueError(f"draw_checkpoint(): the graph has {len(nodes)} {CHECKPOINT_NODE} nodes and "
                         f"{len(entries)} recomputations were given; pass a dict {{node: outputs}}")
    # watch_recomputation collects them in the order backward ran the checkpoints: the
    # newest first, the order graph_nodes lists a chain in
    return [(node, outputs(entry)) for node, entry in zip(nodes, entries)]


def draw_checkpoint(*roots, recomputed, names=None, ax=None, title=None, figsize=None, show_no_grad=True,
                    max_nodes=MAX_NODES):
    """Draw the graph of ``roots`` as ``draw_saved`` does, and below each checkpoint's node
    (``CheckpointFunctionBackward``, which saved only the segment's inputs) the graph that
    its backward recomputed (green boxes, reached by a dashed arrow): the segment whose
    results the forward pass dropped.  ``recomputed``: the outputs of the recomputation
    (``watch_recomputation(f).recomputed``), or a dict {checkpoint node: outputs}.  Their
    leaves are the detached copies the recomputation ran on.  Returns the Figure."""
    _check_roots(roots, "draw_checkpoint")
    pairs = _pairs(roots, recomputed)
    outer = {id(n) for n in graph_nodes(*roots)}
    extra = [t for _, outs in pairs for t in outs]
    segment = {id(n) for n in graph_nodes(*extra) if id(n) not in outer and not _is_acc(n)}
    copies = {id(n.variable) for n in graph_nodes(*extra) if id(n) not in outer and _is_acc(n)}
    measure = _Measure()
    boxes, edges = _build(roots + tuple(extra), names, show_no_grad, max_nodes, measure)
    _mark_saved(boxes, measure, recomputed_ids=segment)
    where = {id(b.obj): i for i, b in enumerate(boxes) if b.obj is not None}
    named = list(names.values()) if names else []
    for i, box in enumerate(boxes):
        if box.kind == "root" and any(box.obj is t for t in extra):
            boxes[i] = _Box("root", [("recomputed output", "name")] + box.lines[1:], measure, obj=box.obj)
            boxes[i].gid = box.gid
        elif box.kind == "leaf" and id(box.obj) in copies and not any(box.obj is t for t in named):
            boxes[i] = _Box("leaf", [("detached copy", "name")] + box.lines[1:], measure, obj=box.obj)
            boxes[i].gid = box.gid
    for node, outs in pairs:
        for t in outs:
            edges.append((where[id(node)], where[id(t)], "recompute", -1))
    return render(boxes, edges, measure, ax=ax, title=title, figsize=figsize)
