"""Draw (or print) the backward graph behind a tensor.

This package only uses the *public* autograd graph API that ``autograd_lib``
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

Four modules, one algorithm: ``walk`` (follow the graph, name what is in it), ``text``
(the indented tree), ``layout`` (place the boxes in layers with few crossings, route the
arrows) and ``draw`` (matplotlib); beside them ``saved`` draws what the nodes hold for
backward and a checkpoint's recomputation (``draw_saved``, ``draw_checkpoint``, assignment
06), ``storage`` one storage and its views (``draw_views``, assignment 08), ``versions`` the
version counters along a write (``draw_versions``, assignment 08) and ``steps`` replays a
backward pass step by step (``draw_backward_steps``, assignment 03).  None imports anything
from ``autograd_lib`` (only
matplotlib and the standard library, which ``tests/test_viz.py`` checks on every file),
so the same code draws PyTorch's graphs.  The course asks students to write one piece of
it: the walk, ``walk.topological_nodes`` (exercise 02.graph_nodes), which every function below reaches
through its module global.

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

``draw_views(base, views, title=None) -> Figure``
    One storage and the views that share it (``storage.py``): the base's cells with
    their values, one row per view with the cells it sees, and each tensor's
    ``grad_fn`` and ``_version`` (one counter, so one number for all; the ``grad_fn``
    of a view is regenerated when it has moved).  ``storage_positions(t)`` lists the
    storage index of each element of ``t``.

``version_snapshot(tensors, roots=(), label="before")`` and
``draw_versions(*snapshots, label="after", title=None) -> Figure``
    The version counters along a write (``versions.py``): take a snapshot of some tensors
    ({name: tensor}) and of the tensors the graph of ``roots`` saved, write in place, then
    draw: one column per moment, each tensor's ``_version`` (orange where the write moved
    it), and for each saved tensor the version its node checks against and the version
    now (green while they agree, red once backward would refuse it)::

        before = version_snapshot({"y": y, "y[1:]": y[1:], "y.data": y.data}, roots=[loss])
        y.add_(1)
        draw_versions(before, label="after y.add_(1)")

``trace_backward(loss, gradient=None, retain_graph=None, names=None, run=None) -> BackwardTrace``
    Run ``loss.backward()`` (or ``run()``) with a pre-hook and a post-hook on every node
    (removed afterwards) and replay the pass (``steps.py``): after each step, every node's
    dependency count and buffer, the ready queue (newest first), the nodes done.
    ``draw_backward_steps(trace or loss, ..., columns=4)`` draws one panel per step,
    ``format_backward_steps`` prints it; ``node_labels(nodes, names)`` tells nodes that
    share a name apart (``MulBackward0 #2``, by creation order).

``draw_saved(*roots, names=None, ax=None, title=None, figsize=None, show_no_grad=True) -> Figure``
    The graph of ``draw_graph`` with what each node holds for backward now (``saved.py``):
    red boxes list the saved tensors a node holds (name and shape), grey dashed ones the
    names it has freed, blue ones saved nothing.  Drawn before and after ``backward()``
    (and ``backward(retain_graph=True)``), it shows what backward frees and what it keeps.
    ``saved_state(node)`` is what a box shows: ``SavedState(held=((name, shape), ...),
    freed=(name, ...))``, read from ``node._saved_<name>`` and a custom Function's
    ``saved_tensors`` (both raise ``RuntimeError`` once freed).

``draw_checkpoint(*roots, recomputed, names=None, ...) -> Figure``
    ``draw_saved``, plus below each ``CheckpointFunctionBackward`` node the segment its
    backward recomputed (green), joined by a dashed arrow; its leaves are the detached
    copies the recomputation ran on.  ``recomputed`` are the recomputation's outputs:
    wrap the checkpointed function in ``watch_recomputation(f)``, whose ``.recomputed``
    collects them during backward (or pass a dict ``{checkpoint node: outputs}``).

``node_name(node) -> str``
    The display name of a backward node (``"torch::autograd::AccumulateGrad"``
    becomes ``"AccumulateGrad"``).
"""

from .draw import GraphFigure, draw_graph
from .steps import BackwardTrace, draw_backward_steps, format_backward_steps, node_labels, trace_backward
from .saved import SavedState, draw_checkpoint, draw_saved, saved_state, watch_recomputation
from .storage import draw_views, storage_positions
from .text import format_graph, print_graph
from .versions import draw_versions, version_snapshot
from .walk import MAX_NODES, graph_edges, graph_nodes, node_name

__all__ = [
    "draw_graph",
    "draw_views",
    "trace_backward",
    "draw_backward_steps",
    "format_backward_steps",
    "node_labels",
    "BackwardTrace",
    "storage_positions",
    "draw_versions",
    "version_snapshot",
    "draw_saved",
    "draw_checkpoint",
    "saved_state",
    "SavedState",
    "watch_recomputation",
    "format_graph",
    "print_graph",
    "graph_nodes",
    "graph_edges",
    "node_name",
    "MAX_NODES",
    "GraphFigure",
]
