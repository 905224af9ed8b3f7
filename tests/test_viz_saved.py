"""autograd_lib.viz.saved: what the nodes of a graph hold for backward (``saved_state``,
``draw_saved``) and a checkpoint's recomputation (``draw_checkpoint``).

Like the rest of viz it reads only the public graph API, so every picture is drawn from a
PyTorch graph and from the same computation in autograd_lib, side by side: the two must be
the same picture (the boxes' kinds and texts, the arrows).
"""

import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is the test oracle for autograd_lib.viz")

import autograd_lib as ag  # noqa: E402
from autograd_lib.utils.checkpoint import checkpoint as ag_checkpoint  # noqa: E402
from autograd_lib.viz import (SavedState, draw_checkpoint, draw_saved, graph_nodes, node_name,  # noqa: E402
                              saved_state, watch_recomputation)

from tests.test_viz import arrows, box_texts, node_boxes  # noqa: E402

LIBS = {"torch": torch, "autograd_lib": ag}


def _checkpoint(lib, *args, **kwargs):
    if lib is torch:
        from torch.utils.checkpoint import checkpoint
        return checkpoint(*args, **kwargs)
    return ag_checkpoint(*args, **kwargs)


def picture(fig):
    """The drawing as plain data: {kind: sorted box texts}, and the arrows by kind of end."""
    boxes = {}
    for gid in node_boxes(fig):
        kind = gid.split("-")[2]
        boxes.setdefault(kind, []).append(" | ".join(box_texts(fig, gid)))
    edges = sorted(f"{src.split('-')[2]}->{dst.split('-')[2]}:{p.get_linestyle()}" for src, dst, p in arrows(fig))
    return {k: sorted(v) for k, v in sorted(boxes.items())}, edges


def sin_pow(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    loss = ((x * w).sin() + x ** 3).sum()
    return x, w, loss


def states(loss):
    return [(node_name(n), saved_state(n)) for n in graph_nodes(loss)]


def test_saved_state_before_and_after_backward_is_torchs():
    seen = {}
    for name, lib in LIBS.items():
        x, w, loss = sin_pow(lib)
        before = states(loss)
        loss.backward(retain_graph=True)
        retained = states(loss)
        loss.backward()
        after = states(loss)
        seen[name] = before, retained, after
    assert seen["autograd_lib"] == seen["torch"], \
        f"expected torch's states {seen['torch']}, saw {seen['autograd_lib']}"
    before, retained, after = seen["torch"]
    assert dict(before)["MulBackward0"] == SavedState((("other", "(3,)"), ("self", "(3,)")), ()), before
    assert retained == before, f"expected retain_graph=True to keep every saved tensor, saw {retained}"
    assert dict(after)["MulBackward0"] == SavedState((), ("other", "self")), after
    assert dict(after)["SumBackward0"] == SavedState((), ()), "a plain value (a shape) is neither held nor freed"


class _Cube:
    """x ** 3 as a custom Function of lib, saving x."""

    def __new__(cls, lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3 * x ** 2
        return Cube


def test_a_custom_functions_saved_tensors_are_read_and_freed_as_torchs():
    seen = {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = _Cube(lib).apply(x)
        before = saved_state(y.grad_fn)
        y.sum().backward()
        seen[name] = before, saved_state(y.grad_fn)
    assert seen["autograd_lib"] == seen["torch"] == (SavedState((("saved_tensors[0]", "(2,)"),), ()),
                                                      SavedState((), ("saved_tensors",))), seen


def test_a_custom_function_that_saved_nothing_is_freed_too_as_in_torch():
    """PyTorch: after backward, ctx.saved_tensors raises even when nothing was saved."""
    seen = {}
    for name, lib in LIBS.items():
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Double.apply(x)
        s = y.sum()
        s.backward()
        s.backward()                         # nothing saved: a second pass runs
        try:
            y.grad_fn.saved_tensors
            after = "no error"
        except RuntimeError as error:
            after = str(error).split(" (")[0]
        seen[name] = after, x.grad.tolist()
    assert seen["autograd_lib"] == seen["torch"], f"expected torch's {seen['torch']}, saw {seen['autograd_lib']}"


def test_dir_of_a_node_lists_its_saved_names_as_torchs():
    seen = {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        nodes = {"mul": (x * x.exp()).grad_fn, "pow": (x ** 3).grad_fn, "sin": x.sin().grad_fn}
        seen[name] = {k: sorted(a for a in dir(n) if a.startswith(("_saved_", "_raw_saved_")))
                      for k, n in nodes.items()}
    assert seen["autograd_lib"] == seen["torch"], f"expected torch's {seen['torch']}, saw {seen['autograd_lib']}"


def test_draw_saved_marks_held_freed_and_retained_nodes_as_for_torch():
    pictures = {}
    for name, lib in LIBS.items():
        x, w, loss = sin_pow(lib)
        names = {"x": x, "w": w, "loss": loss}
        shots = [picture(draw_saved(loss, names=names))]
        loss.backward(retain_graph=True)
        shots.append(picture(draw_saved(loss, names=names)))
        loss.backward()
        shots.append(picture(draw_saved(loss, names=names, title="after backward()")))
        pictures[name] = shots
    assert pictures["autograd_lib"] == pictures["torch"], \
        f"expected torch's pictures {pictures['torch']}, saw {pictures['autograd_lib']}"
    (before, _), (retained, _), (after, _) = pictures["torch"]
    assert before["held"] == ["MulBackward0 | other (3,) | self (3,)", "PowBackward0 | self (3,)",
                              "SinBackward0 | self (3,)"], before
    assert before["fn"] == ["AddBackward0 | nothing saved", "SumBackward0 | loss.grad_fn | nothing saved"], before
    assert "freed" not in before and retained == before, "retain_graph=True keeps what every node holds"
    assert after["freed"] == ["MulBackward0 | other: freed | self: freed", "PowBackward0 | self: freed",
                              "SinBackward0 | self: freed"] and "held" not in after, after


def test_a_freed_box_is_dashed_and_a_held_one_is_not():
    x, w, loss = sin_pow(ag)
    held = draw_saved(loss)
    loss.backward()
    freed = draw_saved(loss)
    styles = {kind: {p.get_linestyle() for g, p in node_boxes(fig).items() if f"-{kind}-" in g}
              for kind, fig in (("held", held), ("freed", freed))}
    assert styles["held"] == {"-"} and styles["freed"] != {"-"} and len(styles["freed"]) == 1, styles


def block(a):
    return (a.sin() * 2).exp()


def _checkpointed(lib):
    x = lib.tensor([0.5, 1.0, 1.5], requires_grad=True)
    w = lib.tensor([1.0, -1.0, 2.0], requires_grad=True)
    watched = watch_recomputation(block)
    y = _checkpoint(lib, watched, x, use_reentrant=True)
    loss = (y * w).sum()
    return x, w, y, loss, watched


def test_draw_checkpoint_hangs_the_recomputed_segment_under_its_node_as_for_torch():
    pictures = {}
    for name, lib in LIBS.items():
        x, w, y, loss, watched = _checkpointed(lib)
        before = saved_state(y.grad_fn)
        assert watched.recomputed == [], "the forward pass records no graph: nothing recomputed yet"
        loss.backward()
        assert len(watched.recomputed) == 1, f"backward recomputes the block once, saw {len(watched.recomputed)}"
        fig = draw_checkpoint(loss, recomputed=watched.recomputed, names={"x": x, "w": w, "loss": loss, "y": y})
        pictures[name] = before, picture(fig)
    assert pictures["autograd_lib"] == pictures["torch"], \
        f"expected torch's picture {pictures['torch']}, saw {pictures['autograd_lib']}"
    before, (boxes, edges) = pictures["torch"]
    assert before == SavedState((("saved_tensors[0]", "(3,)"),), ()), f"the checkpoint keeps only x, saw {before}"
    assert boxes["recomputed"] == ["ExpBackward0 | result: freed", "MulBackward0 | other: freed",
                                   "SinBackward0 | self: freed"], boxes
    assert "CheckpointFunctionBackward | y.grad_fn | saved_tensors: freed" in boxes["freed"], boxes
    assert "detached copy | (3,) float32 | requires_grad=True" in boxes["leaf"], boxes
    assert "recomputed output | (3,) float32" in boxes["root"], boxes
    recompute = [e for e in edges if not e.endswith(":-")]
    assert any(e.startswith("freed->root:") for e in recompute), f"a dashed arrow node -> recomputed output: {edges}"


def test_draw_checkpoint_pairs_several_checkpoints_and_refuses_what_it_cannot_pair():
    x = ag.tensor([0.5, 1.0], requires_grad=True)
    watched = watch_recomputation(block)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y1 = ag_checkpoint(watched, x, use_reentrant=True)
        y2 = ag_checkpoint(watched, y1, use_reentrant=True)
    loss = y2.sum()
    loss.backward()
    fig = draw_checkpoint(loss, recomputed=watched.recomputed)
    boxes, edges = picture(fig)
    assert len(boxes["recomputed"]) == 6 and sum(not e.endswith(":-") and "->root" in e for e in edges) == 2, \
        f"two segments of three nodes, each under its node: {boxes}, {edges}"
    fig = draw_checkpoint(loss, recomputed={y2: watched.recomputed[0]})
    assert len(picture(fig)[0]["recomputed"]) == 3
    with pytest.raises(ValueError, match="2 CheckpointFunctionBackward nodes and 1 recomputations"):
        draw_checkpoint(loss, recomputed=watched.recomputed[0])
    with pytest.raises(ValueError, match="no CheckpointFunctionBackward"):
        draw_checkpoint(x.exp().sum(), recomputed=watched.recomputed[0])
    with pytest.raises(ValueError, match="is not a CheckpointFunctionBackward node"):
        draw_checkpoint(loss, recomputed={loss: watched.recomputed[0]})
    with pytest.raises(TypeError, match="must be tensors"):
        draw_checkpoint(y2, recomputed={y2: 3.0})
    with pytest.raises(TypeError, match="expects tensors"):
        draw_saved(3.0)
