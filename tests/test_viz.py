"""Tests for autograd_lib.viz (graph drawing / printing).

viz only uses the public graph API (grad_fn, name(), next_functions,
AccumulateGrad.variable), so it is tested against torch tensors; a final test
runs it on autograd_lib tensors once the core package imports.
"""

import ast
import importlib.util
import io
import os
from collections import Counter

import pytest

torch = pytest.importorskip("torch", reason="torch is the test oracle for autograd_lib.viz")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from autograd_lib.viz import (  # noqa: E402
    draw_versions,
    draw_views,
    version_snapshot,
    storage_positions,
    draw_graph,
    format_graph,
    graph_edges,
    graph_nodes,
    node_name,
    print_graph,
)

VIZ_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "autograd_lib", "viz")


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def wxyz():
    torch.manual_seed(0)
    w = torch.randn(5, 3, requires_grad=True)
    x = torch.randn(1, 5)
    y = x @ w
    z = y.mean()
    return w, x, y, z


def mlp_loss():
    """2-layer MLP + weight decay: 21 backward nodes, W1 and W2 used twice."""
    torch.manual_seed(0)
    X, T = torch.randn(8, 4), torch.randn(8, 1)
    W1 = torch.randn(4, 16, requires_grad=True)
    b1 = torch.zeros(16, requires_grad=True)
    W2 = torch.randn(16, 1, requires_grad=True)
    b2 = torch.zeros(1, requires_grad=True)
    h = torch.relu(X @ W1 + b1)
    out = h @ W2 + b2
    loss = ((out - T) ** 2).mean() + 0.01 * ((W1**2).sum() + (W2**2).sum())
    names = dict(X=X, T=T, W1=W1, b1=b1, W2=W2, b2=b2, loss=loss)
    return loss, names


def reference_walk(*roots):
    """Independent walk of next_functions: (set of node ids, Counter of edges)."""
    nodes, edges = {}, Counter()
    todo = [r.grad_fn for r in roots if r.grad_fn is not None]
    while todo:
        n = todo.pop()
        if id(n) in nodes:
            continue
        nodes[id(n)] = n
        for child, _ in n.next_functions:
            if child is not None:
                edges[(id(n), id(child))] += 1
                todo.append(child)
    return nodes, edges


def rendered(fig):
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def node_boxes(fig):
    """{gid: patch} of the node boxes drawn (legend swatches excluded)."""
    return {
        p.get_gid(): p
        for p in fig.findobj(FancyBboxPatch)
        if (p.get_gid() or "").startswith("autograd-node-")
    }


def box_texts(fig, gid):
    return [t.get_text() for t in fig.findobj(Text) if t.get_gid() == f"{gid}:text"]


def boxes_of_kind(fig, kind):
    return {g: p for g, p in node_boxes(fig).items() if g.startswith(f"autograd-node-{kind}-")}


def arrows(fig):
    """[(src gid, dst gid, patch)] for every drawn edge."""
    out = []
    for p in fig.findobj(FancyArrowPatch):
        gid = p.get_gid() or ""
        if gid.startswith("autograd-edge:"):
            src, dst = gid[len("autograd-edge:"):].split("->")
            out.append((src, dst, p))
    return out


def all_texts(fig):
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def overlap(a, b, tol=0.5):
    """True if two display-space bboxes overlap by more than tol pixels."""
    return (
        min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol
    )


# --------------------------------------------------------------------------
# graph walking helpers
# --------------------------------------------------------------------------


def test_graph_nodes_and_edges_of_wxyz():
    w, x, y, z = wxyz()
    nodes = graph_nodes(z)
    names = [node_name(n) for n in nodes]
    assert names == ["MeanBackward0", "MmBackward0", "AccumulateGrad"], (
        f"expected [MeanBackward0, MmBackward0, AccumulateGrad], saw {names}"
    )
    assert nodes[0] is z.grad_fn and nodes[1] is y.grad_fn, "nodes must be the grad_fn objects"
    assert nodes[2].variable is w, "AccumulateGrad node should be the one for w"
    edges = graph_edges(z)
    expected = [(z.grad_fn, y.grad_fn), (y.grad_fn, y.grad_fn.next_functions[1][0])]
    assert edges == expected, f"expected edges {expected}, saw {edges}"


def test_graph_helpers_match_independent_walk_and_are_topological():
    loss, _ = mlp_loss()
    ref_nodes, ref_edges = reference_walk(loss)
    nodes = graph_nodes(loss)
    ids = [id(n) for n in nodes]
    assert len(ids) == len(set(ids)), f"graph_nodes repeats nodes: {[node_name(n) for n in nodes]}"
    assert set(ids) == set(ref_nodes), (
        f"expected {len(ref_nodes)} nodes {sorted(node_name(n) for n in ref_nodes.values())}, "
        f"saw {len(ids)} {sorted(node_name(n) for n in nodes)}"
    )
    got_edges = Counter((id(a), id(b)) for a, b in graph_edges(loss))
    assert got_edges == ref_edges, f"expected edges {ref_edges}, saw {got_edges}"
    rank = {i: k for k, i in enumerate(ids)}
    late = [(node_name(a), node_name(b)) for a, b in graph_edges(loss) if rank[id(a)] >= rank[id(b)]]
    assert not late, f"graph_nodes is not topological, these edges point backwards: {late}"
    assert nodes[0] is loss.grad_fn, f"expected the root grad_fn first, saw {node_name(nodes[0])}"


def test_shared_weight_gives_one_accumulategrad_with_two_edges():
    w = torch.randn(3, requires_grad=True)
    z = w * w
    accs = [n for n in graph_nodes(z) if node_name(n) == "AccumulateGrad"]
    assert len(accs) == 1, f"expected 1 AccumulateGrad for the shared w, saw {len(accs)}"
    into_acc = [e for e in graph_edges(z) if e[1] is accs[0]]
    assert len(into_acc) == 2, f"expected 2 edges MulBackward0 -> AccumulateGrad, saw {len(into_acc)}"


# --------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------


def test_draw_wxyz_boxes_labels_and_arrows():
    w, x, y, z = wxyz()
    fig = draw_graph(z, names={"w": w, "x": x, "y": y, "z": z}, title="z = (x @ w).mean()")
    assert isinstance(fig, Figure), f"expected a matplotlib Figure, saw {type(fig)}"
    kinds = Counter(g.split("-")[2] for g in node_boxes(fig))
    expected = {"root": 1, "fn": 2, "acc": 1, "leaf": 1, "nograd": 1}
    assert kinds == expected, f"expected boxes {expected}, saw {dict(kinds)}"

    (root,) = boxes_of_kind(fig, "root")
    assert box_texts(fig, root) == ["z", "() float32"], f"root box text: {box_texts(fig, root)}"
    (leaf,) = boxes_of_kind(fig, "leaf")
    expected_leaf = ["w", "(5, 3) float32", "requires_grad=True"]
    assert box_texts(fig, leaf) == expected_leaf, (
        f"expected leaf box {expected_leaf}, saw {box_texts(fig, leaf)}"
    )
    fn_texts = sorted(box_texts(fig, g)[0] for g in boxes_of_kind(fig, "fn"))
    assert fn_texts == ["MeanBackward0", "MmBackward0"], f"backward boxes: {fn_texts}"
    texts = all_texts(fig)
    for label in ["AccumulateGrad", "y.grad_fn", "z.grad_fn", "None", "z = (x @ w).mean()",
                  "output tensor", "backward node (grad_fn)", "leaf tensor", "input without grad"]:
        assert label in texts, f"expected text {label!r} in the figure, saw {texts}"

    # arrows: z -> Mean -> Mm -> {None stub, AccumulateGrad} ; AccumulateGrad -> w
    by_gid = {g: box_texts(fig, g)[0] for g in node_boxes(fig)}
    seen = Counter((by_gid[s], by_gid[d]) for s, d, _ in arrows(fig))
    expected = Counter({("z", "MeanBackward0"): 1, ("MeanBackward0", "MmBackward0"): 1,
                        ("MmBackward0", "None"): 1, ("MmBackward0", "AccumulateGrad"): 1,
                        ("AccumulateGrad", "w"): 1})
    assert seen == expected, f"expected arrows {dict(expected)}, saw {dict(seen)}"


def random_dag():
    """A seeded random DAG of add/mul/exp ops on 6 leaves (~25 nodes, long edges)."""
    import random

    rng = random.Random(0)
    torch.manual_seed(1)
    leaves = [torch.randn(2, requires_grad=True) for _ in range(6)]
    pool = list(leaves)
    for _ in range(25):
        a, b = rng.sample(pool, 2)
        pool.append(rng.choice([a * b, a + b, (a - b).exp()]))
    out = pool[-1] + pool[-2] + pool[-5]
    return out, {f"p{i}": t for i, t in enumerate(leaves)}


@pytest.fixture(scope="module", params=["mlp", "random_dag"])
def mlp_figure(request):
    loss, names = mlp_loss() if request.param == "mlp" else random_dag()
    fig = draw_graph(loss, names=names, title=request.param)
    return loss, fig, rendered(fig)


def test_arrows_end_on_top_of_their_target_box(mlp_figure):
    _, fig, renderer = mlp_figure
    boxes = {g: p.get_window_extent(renderer) for g, p in node_boxes(fig).items()}
    for src, dst, arrow in arrows(fig):
        a, b, s = arrow.get_window_extent(renderer), boxes[dst], boxes[src]
        # display y grows upwards: the arrow tip is its lowest point
        assert abs(a.y0 - b.y1) < 3, f"arrow {src}->{dst} ends at y={a.y0:.1f}, box top y={b.y1:.1f}"
        assert abs(a.y1 - s.y0) < 3, f"arrow {src}->{dst} starts at y={a.y1:.1f}, box bottom {s.y0:.1f}"
        fb = fig.bbox
        assert fb.x0 <= a.x0 and a.x1 <= fb.x1, f"arrow {src}->{dst} {a.bounds} leaves the figure {fb.bounds}"


def test_shared_weight_drawn_once_with_two_incoming_arrows():
    w = torch.randn(3, requires_grad=True)
    z = w * w
    fig = draw_graph(z, names={"w": w})
    accs = boxes_of_kind(fig, "acc")
    assert len(accs) == 1, f"expected one AccumulateGrad box, saw {len(accs)}"
    (acc,) = accs
    incoming = [s for s, d, _ in arrows(fig) if d == acc]
    assert len(incoming) == 2, f"expected 2 arrows into AccumulateGrad, saw {len(incoming)}"
    assert all_texts(fig).count("w") == 1, f"w should be drawn once, texts: {all_texts(fig)}"
    # the two arrows must be visibly distinct (different ports)
    renderer = rendered(fig)
    ends = sorted(a.get_window_extent(renderer).x0 for s, d, a in arrows(fig) if d == acc)
    assert ends[1] - ends[0] > 3, f"the two arrows overlap (x starts {ends})"


def test_multiple_roots_share_nodes():
    w = torch.randn(3, requires_grad=True)
    a = w * w
    b = a + w
    fig = draw_graph(b, a, names={"a": a, "b": b, "w": w})
    kinds = Counter(g.split("-")[2] for g in node_boxes(fig))
    assert kinds == {"root": 2, "fn": 2, "acc": 1, "leaf": 1}, f"saw {dict(kinds)}"
    by_gid = {g: box_texts(fig, g)[0] for g in node_boxes(fig)}
    seen = Counter((by_gid[s], by_gid[d]) for s, d, _ in arrows(fig))
    expected = Counter({("b", "AddBackward0"): 1, ("a", "MulBackward0"): 1,
                        ("AddBackward0", "MulBackward0"): 1, ("AddBackward0", "AccumulateGrad"): 1,
                        ("MulBackward0", "AccumulateGrad"): 2, ("AccumulateGrad", "w"): 1})
    assert seen == expected, f"expected arrows {dict(expected)}, saw {dict(seen)}"


def test_tensor_without_grad_fn_is_one_leaf_box():
    w = torch.randn(2, 2, requires_grad=True)
    fig = draw_graph(w, names={"w": w})
    boxes = node_boxes(fig)
    assert len(boxes) == 1, f"expected exactly one box, saw {list(boxes)}"
    (gid,) = boxes
    expected = ["w", "(2, 2) float32", "requires_grad=True", "no grad_fn"]
    assert box_texts(fig, gid) == expected, f"expected {expected}, saw {box_texts(fig, gid)}"
    assert gid.startswith("autograd-node-leaf-"), f"expected a leaf box, saw {gid}"
    assert not arrows(fig), "a lone leaf has no arrows"


def test_show_no_grad_false_omits_stubs():
    w, x, y, z = wxyz()
    fig = draw_graph(z, show_no_grad=False)
    assert not boxes_of_kind(fig, "nograd"), "no 'None' stub expected with show_no_grad=False"
    assert "None" not in all_texts(fig), f"texts: {all_texts(fig)}"


def test_mlp_layout_no_overlaps_text_inside_boxes_and_readable(mlp_figure):
    loss, fig, renderer = mlp_figure
    boxes = {g: p.get_window_extent(renderer) for g, p in node_boxes(fig).items()}
    n_nodes = len(graph_nodes(loss))
    assert 18 <= n_nodes <= 30, f"examples should have ~25 nodes, has {n_nodes}"
    gids = sorted(boxes)
    bad = [(a, b) for i, a in enumerate(gids) for b in gids[i + 1:] if overlap(boxes[a], boxes[b])]
    assert not bad, f"expected no overlapping node boxes, saw {len(bad)}: {bad[:5]}"

    texts = [t for t in fig.findobj(Text) if t.get_text()]
    ext = [(t, t.get_window_extent(renderer)) for t in texts]
    for t, e in ext:
        gid = t.get_gid() or ""
        if gid.endswith(":text"):
            box = boxes[gid[: -len(":text")]]
            inside = e.x0 >= box.x0 - 0.5 and e.x1 <= box.x1 + 0.5 and e.y0 >= box.y0 - 0.5 and e.y1 <= box.y1 + 0.5
            assert inside, f"text {t.get_text()!r} {e.bounds} sticks out of its box {box.bounds}"
        if t.get_gid() != "autograd-index":  # index labels sit on arrows, smaller check below
            assert t.get_fontsize() >= 7, f"text {t.get_text()!r} too small: {t.get_fontsize()}pt"
    clashes = [
        (a.get_text(), b.get_text())
        for i, (a, ea) in enumerate(ext)
        for b, eb in ext[i + 1:]
        if overlap(ea, eb)
    ]
    assert not clashes, f"expected no overlapping texts, saw {clashes[:5]}"
    # every node box is inside the figure
    fb = fig.bbox
    outside = [g for g, b in boxes.items() if b.x0 < fb.x0 - 1 or b.x1 > fb.x1 + 1 or b.y0 < fb.y0 - 1 or b.y1 > fb.y1 + 1]
    assert not outside, f"boxes outside the figure {fb.bounds}: {outside}"


def test_draw_into_given_ax_returns_its_figure():
    w, x, y, z = wxyz()
    fig = Figure(figsize=(8, 4))
    ax1, ax2 = fig.subplots(1, 2)
    out = draw_graph(z, names={"w": w}, ax=ax2)
    assert out is fig, "draw_graph(ax=...) must return ax.figure"
    assert not ax1.findobj(FancyBboxPatch), (
        "nothing should be drawn into the other axes"
    )
    in_ax2 = [p for p in ax2.findobj(FancyBboxPatch) if (p.get_gid() or "").startswith("autograd-node-")]
    assert len(in_ax2) == 6, f"expected 6 node boxes in the given axes, saw {len(in_ax2)}"
    renderer = rendered(fig)
    axbox = ax2.get_window_extent(renderer)
    for p in in_ax2:
        b = p.get_window_extent(renderer)
        assert axbox.x0 - 1 <= b.x0 and b.x1 <= axbox.x1 + 1, f"box {b.bounds} outside axes {axbox.bounds}"


def test_figsize_is_respected():
    w, x, y, z = wxyz()
    fig = draw_graph(z, figsize=(3, 3))
    assert tuple(fig.get_size_inches()) == (3, 3), f"saw {fig.get_size_inches()}"


def test_saves_png():
    w, x, y, z = wxyz()
    fig = draw_graph(z, names={"w": w})
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    data = buf.getvalue()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"not a PNG, starts with {data[:8]!r}"
    assert len(data) > 5_000, f"suspiciously small PNG: {len(data)} bytes"
    assert fig._repr_png_()[:4] == b"\x89PNG", "_repr_png_ (Jupyter display) must return PNG bytes"


# --------------------------------------------------------------------------
# text form
# --------------------------------------------------------------------------


def test_format_graph_exact_small_graph():
    w, x, y, z = wxyz()
    expected = (
        "MeanBackward0\n"
        "└─ MmBackward0\n"
        "   └─ AccumulateGrad  (w: shape (5, 3), requires_grad=True)"
    )
    seen = format_graph(z, names={"w": w})
    assert seen == expected, f"expected:\n{expected}\nsaw:\n{seen}"


def test_format_graph_exact_shared_no_grad_and_leaf_root(capsys):
    w = torch.randn(3, requires_grad=True)
    c = torch.randn(3)
    a = w * c
    b = a + w * w
    expected = (
        "AddBackward0  (b.grad_fn)\n"
        "├─ MulBackward0  (a.grad_fn)\n"
        "│  ├─ AccumulateGrad  (w: shape (3,), requires_grad=True)\n"
        "│  └─ None  (input without grad)\n"
        "└─ MulBackward0\n"
        "   ├─ AccumulateGrad  (w: shape (3,), requires_grad=True)  [same node as above]\n"
        "   └─ AccumulateGrad  (w: shape (3,), requires_grad=True)  [same node as above]\n"
        "no grad_fn  (c: shape (3,), requires_grad=False)"
    )
    seen = format_graph(b, c, names={"a": a, "b": b, "w": w, "c": c}, show_no_grad=True)
    assert seen == expected, f"expected:\n{expected}\nsaw:\n{seen}"
    print_graph(b, c, names={"a": a, "b": b, "w": w, "c": c}, show_no_grad=True)
    assert capsys.readouterr().out == expected + "\n"


def test_format_graph_does_not_repeat_shared_subtrees():
    w = torch.randn(3, requires_grad=True)
    h = (w * 2).exp()
    out = h + h
    seen = format_graph(out).splitlines()
    expected = [
        "AddBackward0",
        "├─ ExpBackward0",
        "│  └─ MulBackward0",
        "│     └─ AccumulateGrad  (shape (3,), requires_grad=True)",
        "└─ ExpBackward0  [same node as above]",
    ]
    assert seen == expected, f"expected {expected}, saw {seen}"


# --------------------------------------------------------------------------
# limits and errors
# --------------------------------------------------------------------------


def test_deep_chain_is_iterative_and_too_big_to_draw():
    x = torch.randn(2, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0
    nodes = graph_nodes(y)  # must not hit RecursionError
    assert len(nodes) == 10_001, f"expected 10000 MulBackward0 + 1 AccumulateGrad, saw {len(nodes)}"
    assert len(graph_edges(y)) == 10_000
    with pytest.raises(ValueError, match="more than 200"):
        draw_graph(y)
    with pytest.raises(ValueError, match="smaller graph"):
        format_graph(y)


def test_max_nodes_is_configurable():
    x = torch.randn(2, requires_grad=True)
    y = x
    for _ in range(30):
        y = y.exp()
    with pytest.raises(ValueError, match="more than 10"):
        draw_graph(y, max_nodes=10)
    fig = draw_graph(y)  # 31 nodes: fine with the default limit
    assert len(boxes_of_kind(fig, "fn")) == 30


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one tensor"):
        draw_graph()
    with pytest.raises(TypeError, match="expects tensors"):
        draw_graph(3.0)
    with pytest.raises(TypeError, match="names"):
        draw_graph(torch.ones(1), names=["x"])


def test_viz_imports_only_stdlib_and_matplotlib():
    """Static check of every import in the viz package (also the ones inside functions):
    stdlib, matplotlib (no pyplot) and the package's own modules, never autograd_lib."""
    modules = set()
    files = sorted(f for f in os.listdir(VIZ_DIR) if f.endswith(".py"))
    assert {"__init__.py", "walk.py", "text.py", "layout.py", "draw.py", "storage.py", "versions.py"} <= set(files), \
        f"expected the viz package's modules, saw {files}"
    for name in files:
        tree = ast.parse(open(os.path.join(VIZ_DIR, name), encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                modules.add("." * node.level + (node.module or ""))
    allowed_roots = {"__future__", "io", "re", "collections", "itertools", "matplotlib", "numpy"}
    bad = sorted(m for m in modules if not m.startswith(".") and
                 (m.split(".")[0] not in allowed_roots or "pyplot" in m))
    assert not bad, f"viz may only import numpy/matplotlib (no pyplot) and stdlib, saw {bad}"


# --------------------------------------------------------------------------
# on autograd_lib itself (once the core exists)
# --------------------------------------------------------------------------


def _autograd_lib():
    if importlib.util.find_spec("autograd_lib.tensor") is None:
        pytest.skip("autograd_lib core not written yet")
    try:
        import autograd_lib as ag
    except Exception as exc:  # the core is being written concurrently
        pytest.skip(f"autograd_lib does not import yet: {exc!r}")
    if not all(hasattr(ag, f) for f in ("tensor", "randn")):
        pytest.skip("autograd_lib has no tensor/randn yet")
    return ag


def test_on_autograd_lib_tensors_same_picture_as_torch():
    ag = _autograd_lib()
    w = ag.randn(5, 3, requires_grad=True)
    x = ag.randn(1, 5)
    y = x @ w
    z = y.mean()
    tw, tx, ty, tz = wxyz()
    names = [node_name(n) for n in graph_nodes(z)]
    assert names == ["MeanBackward0", "MmBackward0", "AccumulateGrad"], f"saw {names}"
    assert format_graph(z, names={"w": w, "y": y}) == format_graph(tz, names={"w": tw, "y": ty})
    fig = draw_graph(z, names={"w": w, "x": x, "y": y, "z": z})
    kinds = Counter(g.split("-")[2] for g in node_boxes(fig))
    assert kinds == {"root": 1, "fn": 2, "acc": 1, "leaf": 1, "nograd": 1}, f"saw {dict(kinds)}"

    a = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = a * a
    accs = [n for n in graph_nodes(s) if node_name(n) == "AccumulateGrad"]
    assert len(accs) == 1, f"expected one AccumulateGrad for a*a, saw {len(accs)}"
    assert len(arrows(draw_graph(s))) == 1 + 2 + 1, "z->Mul, Mul->Acc twice, Acc->a"


def _views_picture(lib):
    """draw_views after a write through one view of a non-leaf: (filled cells per row, info texts)."""
    x = lib.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
    b = x * 1
    u, v = b[3:], b[1:4]
    v.mul_(10)
    m = b.view(2, 3).t()
    fig = draw_views(b, {"v": v, "u": u, "m": m, "e": b[2]}, title="after v.mul_(10)")
    filled = {}
    for patch in fig.axes[0].patches:
        row, cell = patch.get_gid().split(":")[1:]
        if patch.get_facecolor()[:3] != (1.0, 1.0, 1.0):
            filled.setdefault(row, []).append(int(cell))
    infos = [t.get_text() for t in fig.axes[0].texts if (t.get_gid() or "").startswith("storage-info")]
    return filled, infos, storage_positions(m)


def test_draw_views_same_picture_as_torch():
    ag = _autograd_lib()
    ours, theirs = _views_picture(ag), _views_picture(torch)
    assert ours == theirs, f"expected torch's picture {theirs}, saw {ours}"
    filled, infos, positions = ours
    assert filled == {"base": [0, 1, 2, 3, 4, 5], "v": [1, 2, 3], "u": [3, 4, 5], "m": [0, 1, 2, 3, 4, 5],
                      "e": [2]}, f"cells each view sees: saw {filled}"
    assert positions == [0, 3, 1, 4, 2, 5], f"b.view(2, 3).t() reads the storage column by column, saw {positions}"
    assert "CopySlices" in infos[0] and "AsStridedBackward0" in infos[2] and all("_version 1" in i for i in infos), \
        f"expected the base's CopySlices, u regenerated and one version for all, saw {infos}"


def test_draw_views_refuses_what_it_cannot_draw():
    ag = _autograd_lib()
    b = ag.arange(6.)
    with pytest.raises(ValueError, match="is itself a view"):
        draw_views(b[1:], {})
    with pytest.raises(ValueError, match="not a view of base"):
        draw_views(b, {"c": ag.arange(3.)})
    with pytest.raises(ValueError, match="at most 24"):
        draw_views(ag.zeros(30), {})


def _cells(fig, prefix):
    """{gid: text} of the cells of a draw_versions figure whose gid starts with ``prefix``."""
    return {t.get_gid()[:-len(":text")]: t.get_text() for t in fig.axes[0].texts
            if (t.get_gid() or "").startswith(prefix) and t.get_gid().endswith(":text")}


def _versions_picture(lib):
    """draw_versions along two writes into y = h.exp(), which exp and a mul saved."""
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    h = x * 2
    y = h.exp()
    loss = (h * y).sum()
    tensors = {"y": y, "y[1:]": y[1:], "y.detach()": y.detach(), "y.data": y.data, "h": h}
    before = version_snapshot(tensors, roots=[loss])
    y.add_(1)
    after = before.again("after y.add_(1)")
    y.data.mul_(2)
    fig = draw_versions(before, after, label="unused", title="y = h.exp(); loss = (h * y).sum()")
    return _cells(fig, "versions-"), [t.get_text() for t in fig.axes[0].texts
                                      if (t.get_gid() or "").startswith("versions-column")]


def test_draw_versions_same_picture_as_torch():
    ag = _autograd_lib()
    ours, theirs = _versions_picture(ag), _versions_picture(torch)
    assert ours == theirs, f"expected torch's picture {theirs}, saw {ours}"
    cells, columns = ours
    assert columns == ["before", "after y.add_(1)"], f"one column per snapshot, saw {columns}"
    tensors = {k: v for k, v in cells.items() if k.startswith("versions-tensor")}
    assert tensors == {f"versions-tensor:{name}:{c}": f"_version {v}"
                       for name, vs in {"y": (0, 1), "y[1:]": (0, 1), "y.detach()": (0, 1), "y.data": (0, 0),
                                        "h": (0, 0)}.items() for c, v in enumerate(vs)}, \
        f"y, its view and detach() share one counter, .data has its own: saw {tensors}"
    saved = {k: v for k, v in cells.items() if k.startswith("versions-saved")}
    assert saved == {"versions-saved:ExpBackward0._saved_result:0": "saved at 0, now 0: ok",
                     "versions-saved:ExpBackward0._saved_result:1": "saved at 0, now 1: refused",
                     "versions-saved:MulBackward0._saved_other:0": "saved at 0, now 0: ok",
                     "versions-saved:MulBackward0._saved_other:1": "saved at 0, now 1: refused",
                     "versions-saved:MulBackward0._saved_self:0": "saved at 0, now 0: ok",
                     "versions-saved:MulBackward0._saved_self:1": "saved at 0, now 0: ok"}, \
        f"exp's saved output and mul's saved y refused after y.add_(1), mul's saved h fine: saw {saved}"


def _versions_story(lib):
    """A write before saving, two nodes of one name, a write under no_grad, then backward."""
    w = lib.tensor([1., 2., 3.], requires_grad=True)
    h = w * 1
    h.mul_(3)                               # written before it is saved: saved at version 1
    a, b = h * w, h * h                     # two MulBackward0 nodes
    loss = (a + b).sum()
    snapshots = [version_snapshot({"w": w, "h": h}, roots=[loss])]
    with lib.no_grad():
        w.add_(1)                           # an update between forward and backward
    snapshots.append(snapshots[0].again("w.add_(1) under no_grad"))
    fig = draw_versions(*snapshots)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        loss.backward()
    fresh = (h * 2).sum() + (h * h).sum()          # a number kept by h * 2: never drawn
    before_backward = version_snapshot({"h": h}, roots=[fresh])
    fresh.backward()
    fig_freed = draw_versions(before_backward, label="after backward")
    return _cells(fig, "versions-"), _cells(fig_freed, "versions-saved")


def test_draw_versions_of_a_write_before_saving_and_of_two_nodes_of_one_name():
    ag = _autograd_lib()
    ours, theirs = _versions_story(ag), _versions_story(torch)
    assert ours == theirs, f"expected torch's picture {theirs}, saw {ours}"
    cells, freed = ours
    assert cells["versions-tensor:h:0"] == "_version 1" and cells["versions-tensor:w:1"] == "_version 1", cells
    assert cells["versions-saved:MulBackward0 #1._saved_self:0"] == "saved at 1, now 1: ok", \
        f"h was saved at version 1, after its write: saw {cells}"
    assert cells["versions-saved:MulBackward0 #1._saved_other:1"] == "saved at 0, now 1: refused", \
        f"the first mul saved w, then w was updated under no_grad: saw {cells}"
    assert "versions-saved:MulBackward0 #2._saved_self:1" in cells, f"two MulBackward0 told apart: saw {cells}"
    assert {k: v for k, v in freed.items() if k.endswith(":1")} == {
        "versions-saved:MulBackward0._saved_other:1": "freed by backward",
        "versions-saved:MulBackward0._saved_self:1": "freed by backward"}, \
        f"after backward h * h's saved tensors are freed, h * 2's number is not drawn: {freed}"


def test_draw_versions_refuses_what_it_cannot_draw():
    ag = _autograd_lib()
    with pytest.raises(TypeError, match="dict"):
        version_snapshot([ag.ones(2)])
    with pytest.raises(TypeError, match="is not a tensor"):
        version_snapshot({"x": 3.0})
    with pytest.raises(TypeError, match="snapshots"):
        draw_versions({"x": ag.ones(2)})
    fig = draw_versions(version_snapshot({"x": ag.ones(2)}), label="now")       # no graph: tensors only
    assert _cells(fig, "versions-tensor") == {"versions-tensor:x:0": "_version 0", "versions-tensor:x:1": "_version 0"}


def test_every_drawing_walks_the_graph_through_the_slot_of_exercise_02_graph_nodes():
    """graph_nodes, graph_edges, draw_graph and format_graph reach the walk through the module
    global ``walk.topological_nodes``: a plugged walk is what they list and draw."""
    ag = _autograd_lib()
    from autograd_lib import exercises
    a = ag.tensor([1.0, -2.0], requires_grad=True)
    y = a * 2
    z = y * y + y.exp()                            # y's node: three edges in, from two nodes
    reference = graph_nodes(z)
    assert [node_name(n) for n in reference] == ["AddBackward0", "MulBackward0", "ExpBackward0",
                                                 "MulBackward0", "AccumulateGrad"]
    asked = []

    def walk(roots):                               # the reference's nodes, the branches swapped
        asked.append(list(roots))
        return [reference[0], reference[2], reference[1], reference[3], reference[4]]

    with exercises.plugged("02.graph_nodes", walk):
        assert graph_nodes(z) == walk([]) and asked[0] == [z.grad_fn]
        assert [id(n) for n, _ in graph_edges(z)][:2] == [id(reference[0])] * 2
        assert graph_nodes(a) == walk([]) and asked[-2] == []     # a leaf: no root node
        fig = draw_graph(z)
        assert len(boxes_of_kind(fig, "fn")) == 4 and len(boxes_of_kind(fig, "acc")) == 1
        boxes = node_boxes(fig)
        assert box_texts(fig, "autograd-node-fn-2") == ["ExpBackward0"], sorted(boxes)
        format_graph(z)
    assert len(asked) == 7 and graph_nodes(z) == reference      # unplugged: the library's walk again
