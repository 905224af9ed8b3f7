"""Visible checks of assignment 08's exercises 3 and 4: tensors that share memory.

``view_grad_fn`` is how a view's history follows its base's after a write, and
``overlap_status`` how an in-place op tells whether an operand shares part of the
memory it writes.  ``autograd_course.checks.inplace`` (the notebook's ``check``)
imports these checks; each function is the visible part of one test cell, run on
the function you wrote, and its docstring says what it tries.  The constants are
the rules the checks name (the hidden tests name them too), and the ``random_...``
functions build the hidden tests' random cases.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.graph import Node
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

__all__ = [
    "view_grad_fn", "view_grad_fn_in_the_engine", "view_summary", "expect_view_summary",
    "random_view_case", "random_view_story",
    "overlap_status", "overlap_in_the_library", "expect_statuses", "random_windows", "random_writes",
    "write_story",
    "VIEW", "VG_NONE", "VG_KEEP", "VG_WRITTEN", "VG_NODE", "VG_ACCUMULATE",
    "VG_RETAIN", "VG_GRADIENTS", "VG_STORY",
    "OVERLAP", "OV_SAME", "OV_EMPTY", "OV_DENSE", "OV_RANGE", "OV_SHARE", "OV_REFUSE",
]


def _values(tensors):
    """Tensors as (shape, dtype, rounded values), anything else as it is: comparable with ==."""
    return [(tuple(t.shape), str(t.dtype), np.round(t.tolist(), 6).tolist()) if isinstance(t, ag.Tensor)
            else t for t in tensors]


# --------------------------------------------------------------- 08.view_grad_fn

VIEW = grading.rules("08.view_grad_fn")
VG_NONE = VIEW("no-history")
VG_KEEP = VIEW("keep")
VG_WRITTEN = VIEW("written")
VG_NODE = VIEW("node")
VG_ACCUMULATE = VIEW("accumulate")
VG_RETAIN = VIEW("retain")
VG_GRADIENTS = VIEW("gradients")
VG_STORY = VIEW("keep", "written", "node", "gradients")


def _describe(node, base):
    """A node as comparable fields (no addresses); None, an error text or another object as it is."""
    if node is None or isinstance(node, str):
        return node
    if not isinstance(node, Node):
        return f"a {type(node).__name__} object"
    fields = {"node": node.name(),
              "next_functions": [(None if f is None else f.name(), nr) for f, nr in node.next_functions],
              "from the base's current history": tuple(node.next_functions) == (base._gradient_edge(),)}
    if isinstance(node, ag.views.AsStridedBackward0):
        params = dict(node._params)
        key = params.get("key")
        meta = tuple(node._input_meta)
        fields.update({
            "_input_meta": [(tuple(shape), str(dtype)) for shape, dtype in meta] if meta else meta,
            "self_shape": tuple(params["self_shape"]) if "self_shape" in params else None,
            "key": [np.asarray(k).tolist() for k in key] if isinstance(key, tuple) else repr(key),
            "accumulate": params.get("accumulate")})
    return fields


def view_summary(fn, view, base):
    """``fn(view)`` read twice, as comparable values: the node (its name, inputs and, for an
    AsStridedBackward0, what it holds; or None, or the error), whether the second read gave
    the same node, whether the view is up to date afterwards, and whether the node retains
    the view's grad."""
    first, second = outcome(fn, view), outcome(fn, view)
    retains = (isinstance(first, Node) and bool(first._retains_grad) and 0 in first._retains_grad
               and first._retains_grad[0]() is view)
    return {"node": _describe(first, base), "same node at the second read": first is second or (
        isinstance(first, str) and first == second),
        "up to date after the read": view._view_version == view._version,
        "the node retains the view's grad": retains}


def _node_rule(expected):
    """The rule the expected node of a view follows from."""
    if expected is None:                # no history, or a view without a node not written since
        return VIEW("no-history", "keep")
    if isinstance(expected, str):
        return VG_WRITTEN
    return VG_WRITTEN if expected.get("node") == "AsStridedBackward0" else VG_KEEP


def _expect_field(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def expect_view_summary(seen, expected, what):
    """Compare two ``view_summary`` results field by field, naming the rule each field shows."""
    node, wanted = seen["node"], expected["node"]
    if not isinstance(node, dict) or not isinstance(wanted, dict) or node.get("node") != wanted.get("node"):
        _expect_field(node, wanted, f"the grad_fn your function returns for {what}", _node_rule(wanted))
    else:
        for field, rule in (("next_functions", VG_NODE), ("from the base's current history", VG_NODE),
                            ("_input_meta", VG_NODE), ("self_shape", VG_NODE), ("key", VG_NODE),
                            ("accumulate", VG_ACCUMULATE)):
            _expect_field(node.get(field), wanted.get(field), f"{field} of the node your function returns for {what}",
                          rule)
    for field, rule in (("same node at the second read", VG_KEEP),
                        ("up to date after the read", VG_KEEP),
                        ("the node retains the view's grad", VG_RETAIN)):
        _expect_field(seen[field], expected[field], f"{field}, for {what}", rule)


def _start():
    x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    return x, x * 2


def _fresh():
    x, b = _start()
    return b[1:4], b


def _base_written():
    x, b = _start()
    v = b[1:4]
    b.add_(1)
    return v, b


def _other_view_written():
    x, b = _start()
    v = b[::2]
    b[3:].mul_(3)
    return v, b


def _written_through_detach():
    x, b = _start()
    v = b.view(2, 3)[:, 1]
    b.detach().zero_()
    return v, b


def _expanded():
    x, b = _start()
    v = b[:2].unsqueeze(0).expand(3, 2)
    b.add_(1)
    return v, b


def _empty_expanded():
    x, b = _start()
    v = b.view(2, 3)[1:1].unsqueeze(0).expand(2, -1, -1)
    b.add_(1)
    return v, b


def _no_grad_view(written):
    def make():
        x, b = _start()
        with ag.no_grad():
            v = b[1:]
        if written:
            b.add_(1)
        return v, b
    return make


def _unbind_output():
    x, b = _start()
    v = b.view(2, 3).unbind(0)[1]
    b.add_(1)
    return v, b


def _constant(copied):
    def make():
        x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
        c = ag.zeros(6)
        v = c[2:]
        if copied:
            c.copy_(x)
        else:
            c.add_(1)
        return v, c
    return make


def _leaf_updated():
    w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = w[1:]
    with ag.no_grad():
        w.mul_(2)
    return v, w


def _retained():
    x, b = _start()
    v = b[1:4]
    v.retain_grad()
    b.add_(1)
    return v, b


VIEW_CASES = {
    "v = b[1:4] of b = x * 2, never written": _fresh,
    "v = b[1:4] of b = x * 2, then b.add_(1)": _base_written,
    "v = b[::2] of b = x * 2, then b[3:].mul_(3) (through another view)": _other_view_written,
    "v = b.view(2, 3)[:, 1] (a view of a view), then b.detach().zero_()": _written_through_detach,
    "v = b[:2].unsqueeze(0).expand(3, 2) (expanded), then b.add_(1)": _expanded,
    "v = b.view(2, 3)[1:1].unsqueeze(0).expand(2, -1, -1) (expanded, no element), then b.add_(1)": _empty_expanded,
    "v = b[1:] made under no_grad, never written": _no_grad_view(False),
    "v = b[1:] made under no_grad, then b.add_(1)": _no_grad_view(True),
    "v = b.view(2, 3).unbind(0)[1], then b.add_(1)": _unbind_output,
    "v = c[2:] of a constant c = ag.zeros(6), then c.add_(1)": _constant(False),
    "v = c[2:] of a constant c = ag.zeros(6), then c.copy_(x) (x requires grad)": _constant(True),
    "v = w[1:] of a leaf w, then w.mul_(2) under no_grad": _leaf_updated,
    "v = b[1:4] with v.retain_grad(), then b.add_(1)": _retained,
}


def view_grad_fn(fn):
    """Your ``view_grad_fn`` called directly, twice, on thirteen views: never written (its own
    node, the same object each time); written through the base, through another view,
    through ``detach()``; expanded (with elements, and without); made under ``no_grad`` (never
    written, then written);
    an output of ``unbind``; of a constant (then of a constant written from a tensor that
    requires grad); of a leaf updated under ``no_grad``; one that retains its grad.  For
    each: the node (its inputs, and what a new ``AsStridedBackward0`` holds), or None, or
    PyTorch's error; whether the second read gives the same node; whether the view is up
    to date; whether the node retains the view's grad."""
    reference = exercises.reference("08.view_grad_fn")
    with library_version("08"):
        expected = {label: view_summary(reference, *make()) for label, make in VIEW_CASES.items()}
    with grading.checking("08.view_grad_fn", fn):
        for label, make in VIEW_CASES.items():
            expect_view_summary(view_summary(fn, *make()), expected[label], label)


def _story_demo():
    x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    b = x * 1
    u, v = b[3:], b[1:4]
    e = b[:2].unsqueeze(0).expand(3, 2)
    u.retain_grad()
    v.mul_(10)
    names = [u.grad_fn.name(), e.grad_fn.name(), v.grad_fn.name()]
    ((u * ag.tensor([1.0, 2.0, 3.0])).sum() + e.sum()).backward()
    return names + _values([x.grad, u.grad])


def _story_through_the_view():
    x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    w = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
    b = x * x
    v = b[1:4]
    v.mul_(w)
    names = [v.grad_fn.name(), b.grad_fn.name()]
    (v * ag.tensor([1.0, -1.0, 2.0])).sum().backward()
    return names + _values([x.grad, w.grad])


def _story_two_writes():
    x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=ag.float64, requires_grad=True)
    w = ag.tensor([5.0, 7.0, 9.0], dtype=ag.float64, requires_grad=True)
    b = x * 1
    v = b[2:5]
    b.mul_(2)
    first = v.grad_fn
    b[3:].add_(w)
    names = [first.name(), first.next_functions[0][0].name(), v.grad_fn.name(),
             v.grad_fn.next_functions[0][0].name(), v.grad_fn is first]
    (v * v).sum().backward()
    return names + _values([x.grad, w.grad])


def _story_leaf():
    w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = w[1:]
    with ag.no_grad():
        w.mul_(2)
    (v * ag.tensor([1.0, 2.0])).sum().backward()
    return [v.grad_fn.name()] + _values([w.grad])


def _story_second_order():
    x = ag.tensor([1.0, 2.0, 3.0, 4.0], dtype=ag.float64, requires_grad=True)
    b = x * x
    v = b[2:]
    b.mul_(3)
    (gx,) = ag.autograd.grad((v * v).sum(), x, create_graph=True)
    return _values([gx] + list(ag.autograd.grad(gx.sum(), x)))


def _story_refused():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    with ag.no_grad():
        n = b[1:]
    b.add_(1)
    return [outcome(lambda: (n * 2).sum().backward()), x.grad]


ENGINE_STORIES = {
    "section 5's b = x * 1; u, v = b[3:], b[1:4]; e = b[:2].unsqueeze(0).expand(3, 2); u.retain_grad(); "
    "v.mul_(10): (u, e, v).grad_fn names, then x.grad and u.grad of (u * [1, 2, 3]).sum() + e.sum()":
        (_story_demo, VIEW("written", "accumulate", "retain")),
    "b = x * x; v = b[1:4]; v.mul_(w) (the write asks for v's node at once): (v, b).grad_fn names, then "
    "(x.grad, w.grad) of (v * [1, -1, 2]).sum()": (_story_through_the_view, VIEW("written", "node")),
    "b = x * 1; v = b[2:5]; b.mul_(2); v read; b[3:].add_(w); v read again: the two nodes and their inputs, "
    "whether they are one node, then (x.grad, w.grad) of (v * v).sum()": (_story_two_writes,
                                                                          VIEW("node", "keep")),
    "v = w[1:] of a leaf w, w.mul_(2) under no_grad: v.grad_fn's name, then w.grad of (v * [1, 2]).sum()":
        (_story_leaf, VG_NODE),
    "b = x * x; v = b[2:]; b.mul_(3): the gradient of (v * v).sum() with create_graph=True and its own "
    "gradient": (_story_second_order, VG_GRADIENTS),
    "b = x * 1; n = b[1:] under no_grad; b.add_(1); then (n * 2).sum().backward(): the error, x.grad":
        (_story_refused, VG_WRITTEN),
}


def view_grad_fn_in_the_engine(fn):
    """Your ``view_grad_fn`` inside the library: section 5's views after ``v.mul_(10)``, with
    an expanded view and a retained gradient; a write through the view itself (the write
    asks for the view's node right away); two writes with reads between them; a view of a
    leaf updated under ``no_grad``; second derivatives; and the refusal of a view made under
    ``no_grad``.  Node names, gradients and errors must be the library's."""
    expected, seen = grading.side_by_side(
        "08.view_grad_fn", fn, lambda answer: {label: outcome(story) for label, (story, _) in ENGINE_STORIES.items()})
    for label, (_, rule) in ENGINE_STORIES.items():
        _expect_field(seen[label], expected[label], label, rule)


# The hidden tests' random views: how the base is made, how the view is made from it, how
# the storage is written afterwards.
BASES = ("a non-leaf (x * 2)", "a leaf that requires grad", "a constant", "a constant, later copy_(x)",
         "a non-leaf (x * 2)")
VIEW_OPS = (("[1:]", lambda t: t[1:]), ("[::2]", lambda t: t[::2]), ("[1:-1]", lambda t: t[1:-1]),
            (".view(2, -1)", lambda t: t.view(2, -1)), (".view(2, -1)[:, 1:]", lambda t: t.view(2, -1)[:, 1:]),
            (".view(2, -1).t()", lambda t: t.view(2, -1).t()), ("[2]", lambda t: t[2]),
            (".unsqueeze(0).expand(2, -1)", lambda t: t.unsqueeze(0).expand(2, -1)),
            ("[:2].unsqueeze(1).expand(2, 3)", lambda t: t[:2].unsqueeze(1).expand(2, 3)))
MADE = ("in grad mode", "in grad mode", "in grad mode", "under no_grad", "by unbind")
WRITES = ("nothing", "the base: add_(1)", "another view: [-2:].mul_(3)", "detach(): mul_(2)",
          "ag.graph.increment_version(base)", "the view itself: mul_(2)", "the base under no_grad: add_(1)")


def random_view_case(seed):
    """A random view, built the same way for a given seed: ``(label, view, base)``.  The base
    (float32 or float64, 6 or 8 elements) is a non-leaf, a leaf, a constant or a constant later
    written from a tensor that requires grad; the view is one or two view ops (slices, steps,
    views, transposes, expands, one element), made in grad mode, under no_grad or by unbind,
    and may retain its grad; the storage is then written in a random way, or not at all."""
    rng = np.random.default_rng(seed)
    dtype = (ag.float32, ag.float64)[int(rng.integers(2))]
    n = (6, 8)[int(rng.integers(2))]
    kind = BASES[int(rng.integers(len(BASES)))]
    x = ag.tensor(rng.standard_normal(n), dtype=dtype, requires_grad=True)
    base = x * 2 if kind == BASES[0] else x if kind == BASES[1] else ag.zeros(n, dtype=dtype)
    made = MADE[int(rng.integers(len(MADE)))]
    if made == "by unbind":
        view, text = base.view(2, -1).unbind(0)[int(rng.integers(2))], ".view(2, -1).unbind(0)[i]"
    else:
        view, text = base, ""
        with ag.set_grad_enabled(made != "under no_grad"):
            for i in rng.choice(len(VIEW_OPS), size=int(rng.integers(1, 3))):
                name, op = VIEW_OPS[int(i)]
                made_one = outcome(op, view)
                if isinstance(made_one, ag.Tensor):
                    view, text = made_one, text + name
        if view is base:
            view, text = base[1:], "[1:]"
    retain = made != "under no_grad" and view.requires_grad and bool(rng.integers(2))
    if retain:
        view.retain_grad()
    write = WRITES[int(rng.integers(len(WRITES)))]
    done = outcome(_write, write, base, view, kind == BASES[1])
    steps = [f"a write into {write}" + (f" ({done})" if isinstance(done, str) else "")]
    if kind == BASES[3]:
        copied = outcome(base.copy_, x)
        steps.append("base.copy_(x)" + (f" ({copied})" if isinstance(copied, str) else ""))
    label = (f"v = base{text} made {made}{' with v.retain_grad()' if retain else ''}, base {kind} "
             f"({dtype}, {n} elements), then {'; '.join(steps)} (random case {seed})")
    return label, view, base


def _write(write, base, view, leaf):
    """One write of ``WRITES`` (a leaf's base is written under no_grad, as an optimizer does)."""
    with ag.set_grad_enabled(not leaf and "no_grad" not in write):
        if write.startswith("the base"):
            base.add_(1)
        elif write.startswith("another view"):
            base[-2:].mul_(3)
        elif write.startswith("detach"):
            base.detach().mul_(2)
        elif write.startswith("ag.graph"):
            ag.graph.increment_version(base)
        elif write.startswith("the view"):
            view.mul_(2)


def random_view_story(seed):
    """A random story through the engine: one to three views of a base, read, written in random
    ways (through the base, a view, detach(), a weight w), read in between and after, then
    backward with random weights (sometimes with create_graph=True and a second derivative).
    Returns, at each read, each view's node name and whether a second read gives the same
    node; the errors; and the gradients of x and w."""
    rng = np.random.default_rng(seed)
    dtype = (ag.float32, ag.float64)[int(rng.integers(2))]
    x = ag.tensor(rng.standard_normal(8), dtype=dtype, requires_grad=True)
    w = ag.tensor(rng.standard_normal(2), dtype=dtype, requires_grad=True)
    base = (x * 1, x * x, x.sin())[int(rng.integers(3))]
    views = [VIEW_OPS[int(i)][1](base) for i in rng.choice(len(VIEW_OPS), size=int(rng.integers(1, 4)))]

    def read():
        return [(v.grad_fn.name(), v.grad_fn is v.grad_fn) for v in views]
    seen = [outcome(read)]
    for _ in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(5))
        if kind == 0:
            seen.append(outcome(base.mul_, float(rng.uniform(0.5, 2))))
        elif kind == 1:
            seen.append(outcome(lambda: base[int(rng.integers(4)):][:2].add_(w)))
        elif kind == 2:
            seen.append(outcome(lambda: base.detach().add_(1)))
        elif kind == 3:
            v = views[int(rng.integers(len(views)))]
            seen.append(outcome(lambda: v.mul_(w[0]) if v.ndim == 0 else v.mul_(2)))
        else:
            seen.append(outcome(read))
        seen[-1] = seen[-1] if isinstance(seen[-1], (str, list)) else "done"
    seen.append(outcome(read))
    weights = [ag.tensor(rng.integers(-3, 4, size=tuple(v.shape)).astype(np.float64), dtype=dtype) for v in views]
    loss = sum(((v * r).sum() for v, r in zip(views, weights)), ag.tensor(0.0, dtype=dtype))
    if rng.integers(2):
        grads = outcome(ag.autograd.grad, loss, [x, w], create_graph=True, allow_unused=True)
        if isinstance(grads, str):
            return seen + [grads]
        squares = [(g * g).sum() for g in grads if g is not None]
        second = outcome(ag.autograd.grad, sum(squares[1:], squares[0]), [x, w], allow_unused=True)
        return seen + _values(list(grads)) + [second if isinstance(second, str) else _values(list(second))]
    return seen + [outcome(loss.backward)] + _values([x.grad, w.grad])


# ------------------------------------------------------------- 08.overlap_status

OVERLAP = grading.rules("08.overlap_status")
OV_SAME = OVERLAP("same")
OV_EMPTY = OVERLAP("empty")
OV_DENSE = OVERLAP("dense")
OV_RANGE = OVERLAP("range")
OV_SHARE = OVERLAP("share")
OV_REFUSE = OVERLAP("refuse")
OV_DENSE_RANGE = OVERLAP("dense", "range")
OV_DENSE_SHARE = OVERLAP("dense", "share")


def _overlap_rule(a, b, expected, seen):
    """The rule the expected status of ``a`` and ``b`` follows from (with the density rule too
    when the status seen is "too hard" and should not be)."""
    if a is b:
        return OV_SAME
    if not a.numel() or not b.numel():
        return OV_EMPTY
    if expected == "too hard":
        return OV_DENSE
    same_range = (a.data_ptr(), a.nbytes) == (b.data_ptr(), b.nbytes)
    if seen == "too hard":
        return OV_DENSE_RANGE if same_range else OV_DENSE_SHARE
    return OV_RANGE if same_range else OV_SHARE


def expect_statuses(fn, cases):
    """fn (your overlap_status) on each case {label: (a, b, expected)}, naming the rule each
    expected status follows from."""
    for label, (a, b, expected) in cases.items():
        seen = outcome(fn, a, b)
        _expect_status(seen, expected, label, _overlap_rule(a, b, expected, seen))


def _expect_status(seen, expected, label, rule):
    grading.expect_equal(seen, expected, what=f"overlap_status({label})", rule=rule)


def _pairs():
    """{label: (a, b)} of the visible check, on one storage x = ag.arange(12.) (float32)."""
    x = ag.arange(12.0)
    m = x[:9].view(3, 3)
    t = x[::2]
    return {
        "t, t for t = x[::2] (the same tensor)": (t, t),
        "x, x.detach()": (x, x.detach()),
        "x[0:3], x[0:3] (two slices)": (x[0:3], x[0:3]),
        "x[2:5], x[0:3]": (x[2:5], x[0:3]),
        "x[0:3], x[3:6] (they touch)": (x[0:3], x[3:6]),
        "x[0:3], x[6:9]": (x[0:3], x[6:9]),
        "m, m.t() for m = x[:9].view(3, 3)": (m, m.t()),
        "m.t(), m.t()": (m.t(), m.t()),
        "m[1:], m[:2]": (m[1:], m[:2]),
        "x[:6], x[:6].view(1, 6)": (x[:6], x[:6].view(1, 6)),
        "m.t(), m[:1] (a permuted layout is dense)": (m.t(), m[:1]),
        "m.t()[:1], x[3:6] (a column of m: gaps)": (m.t()[:1], x[3:6]),
        "x[::2], x[:3] (a gap)": (x[::2], x[:3]),
        "x[6:9], x[:1].expand(3) (a repeat)": (x[6:9], x[:1].expand(3)),
        "x[::2], ag.arange(6.) (a gap, another storage)": (x[::2], ag.arange(6.0)),
        "x[:3], ag.zeros(3)": (x[:3], ag.zeros(3)),
        "m[:1, :2], x[1:3] (shape (1, 2))": (m[:1, :2], x[1:3]),
        "x[:0], x[:0] (no elements)": (x[:0], x[:0]),
        "x[1:1], x (no elements)": (x[1:1], x),
        "m[:, :1], x[3:6] (shape (3, 1))": (m[:, :1], x[3:6]),
        "m[1:2], x[3:6] (shape (1, 3))": (m[1:2], x[3:6]),
    }


def overlap_status(fn):
    """Your ``overlap_status`` on nineteen pairs of tensors: the same tensor, ``x`` and
    ``x.detach()``, equal slices, slices that overlap, touch or lie apart, a square matrix
    and its transpose, rows that overlap, a tensor and a ``view`` of it with another shape, a
    transposed (dense) layout, layouts with a gap or a repeat, another storage, tensors
    without elements, dims of size 1.  Each status must be the library's."""
    reference = exercises.reference("08.overlap_status")
    with library_version("08"):
        cases = {label: (a, b, reference(a, b)) for label, (a, b) in _pairs().items()}
    with grading.checking("08.overlap_status", fn):
        expect_statuses(fn, cases)


def random_windows(rng, n):
    """Random windows on one storage x = ag.arange(n) (random dtype): {label: tensor}."""
    dtype = (ag.float32, ag.float64, ag.int64, ag.int32)[int(rng.integers(4))]
    x = ag.arange(n, dtype=dtype)
    k = int(rng.integers(2, 4 if n >= 9 else 3))
    m = x[:k * k].view(k, k)
    i, j = sorted(int(v) for v in rng.integers(0, n, size=2))
    s = int(rng.integers(2, 4))
    windows = {"x": x, f"x[{i}:{j}]": x[i:j], f"x[{i}:{j + 1}]": x[i:j + 1], f"x[{j}:]": x[j:],
               f"x[{i}::{s}]": x[i::s], "x.detach()": x.detach(), f"x[{i}:{i + 1}].expand(2)": x[i:i + 1].expand(2),
               "m": m, "m.t()": m.t(), "m[1:]": m[1:], "m[:, 1:]": m[:, 1:], "m.t()[1:]": m.t()[1:],
               "m[:1]": m[:1], "m[:, :1]": m[:, :1], "m[:1, :2]": m[:1, :2], "m[1:2, 1:]": m[1:2, 1:],
               f"x[:{k * k}].view(1, {k * k})": x[:k * k].view(1, k * k), "x[:0]": x[:0], f"x[{i}]": x[i],
               "another storage": ag.arange(n, dtype=dtype)}
    return {f"{name} ({dtype}, n = {n}, m = x[:{k * k}].view({k}, {k}))": t for name, t in windows.items()}


def random_writes(seed):
    """A random story of in-place writes between windows of one storage ``x`` (a constant, or a
    non-leaf so that the writes are recorded): for each write, its text, the error (or None),
    and x's values and version afterwards."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 13))
    dtype = (ag.float32, ag.float64)[int(rng.integers(2))]
    grad = bool(rng.integers(2))
    x = ag.tensor(np.arange(n), dtype=dtype, requires_grad=grad)
    x = x * 1 if grad else x
    k = int(rng.integers(2, 4 if n >= 9 else 3))
    m = x[:k * k].view(k, k)
    story = []
    for _ in range(int(rng.integers(5, 10))):
        size = int(rng.integers(1, 4))
        i, j = (int(v) for v in rng.integers(0, n - size + 1, size=2))
        jj = int(rng.integers(0, n - 2 * size + 2))
        dest, src = f"x[{i}:{i + size}]", f"x[{j}:{j + size}]"
        writes = [(f"{dest}.copy_({src})", lambda: x[i:i + size].copy_(x[j:j + size])),
                  (f"{dest} += {src}", lambda: x[i:i + size].add_(x[j:j + size])),
                  (f"{dest} = x[{jj}::2][:{size}]", lambda: x.__setitem__(slice(i, i + size), x[jj::2][:size])),
                  (f"{dest}.clamp_(min={src})", lambda: x[i:i + size].clamp_(min=x[j:j + size])),
                  (f"m.add_(m.t()), m = x[:{k * k}].view({k}, {k})", lambda: m.add_(m.t())),
                  (f"m.t().mul_(m.t()), m = x[:{k * k}].view({k}, {k})", lambda: m.t().mul_(m.t())),
                  (f"m[1:].add_(m[:-1]), m = x[:{k * k}].view({k}, {k})", lambda: m[1:].add_(m[:-1]))]
        text, write = writes[int(rng.integers(len(writes)))]
        with ag.set_grad_enabled(grad):
            done = outcome(write)
        story.append((f"{text} ({dtype}, n = {n}, {'recorded' if grad else 'a constant'})",
                      done if isinstance(done, str) else None, x.tolist(), x._version))
    return story


def write_story():
    """The visible check's writes into x = ag.arange(6.) (and m = x[:4].view(2, 2)), each on a
    fresh storage: the error (or None), the values and the version afterwards."""
    writes = {
        "x[2:5].copy_(x[0:3])": lambda x, m: x[2:5].copy_(x[0:3]),
        "x[1:4] = x[0:3]": lambda x, m: x.__setitem__(slice(1, 4), x[0:3]),
        "x.add_(x)": lambda x, m: x.add_(x),
        "x[0:3].add_(x[0:3])": lambda x, m: x[0:3].add_(x[0:3]),
        "x[:3].copy_(x[3:])": lambda x, m: x[:3].copy_(x[3:]),
        "m.add_(m.t())": lambda x, m: m.add_(m.t()),
        "m.t().add_(m.t())": lambda x, m: m.t().add_(m.t()),
        "x[::2].copy_(x[:3])": lambda x, m: x[::2].copy_(x[:3]),
        "x[1:].clamp_(min=x[:5])": lambda x, m: x[1:].clamp_(min=x[:5]),
        "x.copy_(x.detach())": lambda x, m: x.copy_(x.detach()),
        "x[:6].view(1, 6).mul_(x)": lambda x, m: x[:6].view(1, 6).mul_(x),
    }
    story = {}
    for text, write in writes.items():
        x = ag.arange(6.0)
        done = outcome(write, x, x[:4].view(2, 2))
        story[text] = (done if isinstance(done, str) else None, x.tolist(), x._version)
    h = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True) * 1
    done = outcome(lambda: h[2:5].copy_(h[0:3]))
    story["h[2:5].copy_(h[0:3]), h = w * 1 (recorded)"] = (done if isinstance(done, str) else None, h.tolist(),
                                                          h._version)
    return story


def overlap_in_the_library(fn):
    """Your ``overlap_status`` inside the library's in-place ops: writes whose source partially
    overlaps the target (``x[2:5].copy_(x[0:3])``, ``x[1:4] = x[0:3]``, ``m.add_(m.t())``,
    ``clamp_(min=...)``, a view with another shape, a recorded write) must be refused and change
    nothing; ``x.add_(x)``, equal slices, ``detach()``, disjoint slices, a transposed tensor
    with itself and a layout with gaps must go through.  Errors, values and versions must be
    the library's."""
    expected, seen = grading.side_by_side("08.overlap_status", fn, lambda answer: write_story())
    for text, wanted in expected.items():
        grading.expect_equal(seen[text], wanted, what=f"(error, x's values, x._version) after {text}, "
                                                      "x = ag.arange(6.), m = x[:4].view(2, 2)", rule=OV_REFUSE)
