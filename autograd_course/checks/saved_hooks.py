"""Visible checks of assignment 06's exercise 3, ``unpack``: how a saved tensor comes back
for a backward formula, with or without saved-tensor hooks.

``autograd_course.checks.lifetime`` (the notebook's ``check``) imports them; each function is
the visible part of one test cell, run on the function you wrote, and its docstring says
what it tries.  The constants are the rules the checks name (the hidden tests name them too).

A *case* builds a fresh saved tensor each time it runs (a node, one of its saved tensors, and
the log of its unpack hook), so your function and the library's are each called on their own
copy, built the same way.
"""

import contextlib

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

__all__ = ["unpack", "unpack_in_the_engine", "expect_unpack", "expect_engine", "unpack_outcome",
           "expect_unpack_outcome", "random_unpack_case", "engine_run", "expect_engine_run", "random_engine_case",
           "UP_HOOKED", "UP_NOT_A_TENSOR", "UP_ITSELF", "UP_ATTACHED"]

UNPACK = grading.rules("06.unpack")
UP_HOOKED = UNPACK("hooked")
UP_NOT_A_TENSOR = UNPACK("hook-type")
UP_ITSELF = UNPACK("itself")
UP_ATTACHED = UNPACK("attached")


# ------------------------------------------------------------ building saved tensors

class TwoOutputs(ag.autograd.Function):
    """A custom Function with outputs (x * 2, x.exp()) that saves one of them (ctx.which).
    Its backward notes in ``seen`` how the saved output came back: attached or not, at which
    output number."""

    seen = []

    @staticmethod
    def forward(ctx, x, which):
        a, b = x * 2, x.exp()
        ctx.which = which
        ctx.save_for_backward((a, b)[which])
        return a, b

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        saved, = ctx.saved_tensors
        TwoOutputs.seen.append(("attached" if saved.grad_fn is not None else "not attached", saved.output_nr))
        exp = saved if ctx.which else (saved / 2).exp()       # b, or exp(a / 2) when a was saved
        return grad_a * 2 + grad_b * exp, None


def _hooks(kind, log):
    """A (pack, unpack) pair: "clone" keeps a copy; "numpy" keeps a NumPy array and unpacks a new
    tensor; "bad" keeps the array and returns it as it is (not a tensor).  Every unpack result
    goes into ``log``."""
    def pack(t):
        return t.detach().clone() if kind == "clone" else t.detach().numpy().copy()

    def unpack_hook(packed):
        result = ag.tensor(packed) if kind == "numpy" else packed
        log.append(result)
        return result
    return pack, unpack_hook


OPS = {   # name: (make the node from h and w, the saved tensor's name, or its position for a custom Function)
    "h * w, its saved self": (lambda h, w: (h * w).grad_fn, "self"),
    "h * w, its saved other (a leaf)": (lambda h, w: (h * w).grad_fn, "other"),
    "h ** 3, its saved self": (lambda h, w: (h ** 3).grad_fn, "self"),
    "h.exp(), its saved result": (lambda h, w: h.exp().grad_fn, "result"),
    "h.sigmoid(), its saved result": (lambda h, w: h.sigmoid().grad_fn, "result"),
    "h.tanh(), its saved result": (lambda h, w: h.tanh().grad_fn, "result"),
    "TwoOutputs(h), its saved output 0": (lambda h, w: TwoOutputs.apply(h, 0)[0].grad_fn, 0),
    "TwoOutputs(h), its saved output 1": (lambda h, w: TwoOutputs.apply(h, 1)[1].grad_fn, 0),
}


def _saved_of(node, key):
    return node._saved_list[key] if isinstance(key, int) else node._saved[key]


def _make_case(op, hooks, write, grad_mode, values, dtype):
    """A case: a function that builds (saved, node, log) afresh, and what it should do."""
    def build():
        log = []
        x = ag.tensor(np.asarray(values, dtype=dtype.numpy), requires_grad=True)
        w = ag.tensor(np.asarray(values, dtype=dtype.numpy)[::-1].copy() + 1.0, requires_grad=True)
        h = x * 1.5
        make, key = OPS[op]
        if hooks in ("clone", "numpy", "bad"):
            with ag.autograd.graph.saved_tensors_hooks(*_hooks(hooks, log)):
                node = make(h, w)
        else:
            node = make(h, w)
        saved = _saved_of(node, key)
        if hooks == "register_hooks":
            saved.register_hooks(*_hooks("numpy", log))
        if write:                                   # change the saved tensor's storage in place
            target = w if "other" in op else h if "self" in op else h if saved.tensor is None else saved.tensor
            with ag.no_grad():
                target.add_(1.0)
        return saved, node, log
    label = (f"{op}, {'no hooks' if hooks is None else hooks + ' hooks'}"
             f"{', written in place after saving' if write else ''}, grad mode {'on' if grad_mode else 'off'}")
    return label, build, grad_mode


def _visible_cases():
    v = [0.5, -1.0, 2.0]
    return [_make_case("h * w, its saved self", None, False, True, v, ag.float32),
            _make_case("h * w, its saved other (a leaf)", None, False, False, v, ag.float64),
            _make_case("h.exp(), its saved result", None, False, True, v, ag.float32),
            _make_case("h.sigmoid(), its saved result", None, False, False, v, ag.float64),
            _make_case("TwoOutputs(h), its saved output 1", None, False, True, v, ag.float32),
            _make_case("h ** 3, its saved self", None, True, True, v, ag.float32),
            _make_case("h * w, its saved self", "numpy", True, True, v, ag.float64),
            _make_case("h.tanh(), its saved result", "clone", False, False, v, ag.float32),
            _make_case("h.exp(), its saved result", "register_hooks", False, True, v, ag.float64),
            _make_case("h * w, its saved other (a leaf)", "bad", False, True, v, ag.float32)]


def random_unpack_case(seed):
    """A random case: an op, hooks or none, a write after saving or not, grad mode, values, dtype."""
    rng = np.random.default_rng(seed)
    op = list(OPS)[int(rng.integers(len(OPS)))]
    hooks = [None, None, "clone", "numpy", "register_hooks", "bad"][int(rng.integers(6))]
    if hooks == "register_hooks" and op.startswith("TwoOutputs"):
        hooks = "numpy"                             # a custom Function has no _raw_saved_* to hook
    values = np.round(rng.uniform(-2.0, 2.0, size=int(rng.integers(1, 5))), 3)
    return _make_case(op, hooks, bool(rng.integers(3) == 0), bool(rng.integers(2)), values,
                      [ag.float32, ag.float64][int(rng.integers(2))])


# ------------------------------------------------------------ what unpack did

def _refusal(text):
    kind = text.split(":")[0]
    if "modified by an inplace operation" in text:
        return ("refused", kind, "modified by an inplace operation")
    if "unpack_hook expected to be a Tensor" in text:
        return ("refused", kind, "the unpack hook's result is not a tensor")
    return ("refused", text)


def unpack_outcome(fn, case):
    """Build the case and call ``fn(saved, node)`` in its grad mode: a comparable record of the
    result, or of the refusal."""
    _, build, grad_mode = case
    saved, node, log = build()
    source = saved.tensor
    with _mode(grad_mode):
        result = outcome(fn, saved, node)
    if isinstance(result, str):
        return _refusal(result)
    if not isinstance(result, ag.Tensor):
        return ("returned", type(result).__name__)
    if log:
        source = log[-1]
    grad_fn = result.grad_fn
    return {"values": np.round(result._data.astype(np.float64), 6).tolist(),
            "dtype": str(result.dtype),
            "unpack hook calls": len(log),
            "grad_fn": "the node" if grad_fn is node else None if grad_fn is None else type(grad_fn).__name__,
            "output number": result._output_nr,
            "is the saved tensor itself": result is source,
            "same data and version counter": source is not None and result._version_counter is source._version_counter
            and np.shares_memory(result._data, source._data)}


def _mode(grad_mode):
    return ag.enable_grad() if grad_mode else ag.no_grad()


def expect_unpack_outcome(label, seen, expected, what):
    """Fail when what unpack did (``unpack_outcome``) differs from the library's, naming the rule
    the difference breaks."""
    if seen == expected:
        return
    hooked = "hooks" in label and "no hooks" not in label
    if isinstance(expected, tuple) or isinstance(seen, tuple):
        if isinstance(expected, tuple) and "not a tensor" in expected[-1]:
            grading.expect_equal(seen, expected, what=what, rule=UP_NOT_A_TENSOR)
        if isinstance(expected, tuple) and "inplace" in expected[-1]:
            grading.expect_equal(seen, expected, what=what, rule=UP_ITSELF)
        if hooked:
            grading.expect_equal(seen, expected, what=what, rule=UP_HOOKED)
        grading.expect_equal(seen, expected, what=what, rule=UP_ITSELF)
    if expected["is the saved tensor itself"] and not seen["is the saved tensor itself"]:
        grading.expect_equal(seen, expected, what=what, rule=UP_ITSELF)
    if seen.get("unpack hook calls") != expected.get("unpack hook calls"):
        grading.expect_equal(seen, expected, what=what, rule=UP_HOOKED)
    attachment = ("grad_fn", "output number", "same data and version counter")
    if any(seen.get(part) != expected.get(part) for part in attachment):
        grading.expect_equal(seen, expected, what=what, rule=UP_ATTACHED)
    grading.expect_equal(seen, expected, what=what, rule=UP_HOOKED if hooked else UP_ITSELF)


def expect_unpack(fn, cases):
    with library_version("06"):
        expected = [unpack_outcome(exercises.reference("06.unpack"), case) for case in cases]
    with grading.checking("06.unpack", fn):
        seen = [unpack_outcome(fn, case) for case in cases]
    for (label, _, _), s, e in zip(cases, seen, expected):
        expect_unpack_outcome(label, s, e, what=f"unpack(saved, node) for {label}")


def unpack(fn):
    """Your ``unpack`` on ten saved tensors: inputs and outputs (``exp``, ``sigmoid``, output 1
    of a custom Function), saved with or without hooks (``saved_tensors_hooks``,
    ``register_hooks``, an unpack hook that returns a NumPy array), written in place after
    saving, in both grad modes.  Compared with the library's: the values, how often the unpack
    hook ran, the ``grad_fn`` and output number, and whether it is the saved tensor itself or a
    new tensor on its data; or the refusal."""
    expect_unpack(fn, _visible_cases())


# ------------------------------------------------------------ in the engine

def engine_run(case):
    """Gradients of a small graph built under the case's hooks: backward, a first derivative
    with create_graph=True, then a second derivative; the values or the refusal, rounded, and
    how the custom Function's backward saw its saved output each time."""
    label, hooks, write, values = case
    x = ag.tensor(np.asarray(values), requires_grad=True)
    log = []
    context = ag.autograd.graph.saved_tensors_hooks(*_hooks(hooks, log)) if hooks else contextlib.nullcontext()

    def forward():
        with context:
            h = x * 1.5
            a, b = TwoOutputs.apply(h, 1)
            e = h.exp()
            y = e * h.sigmoid() + b * a.tanh()
        if write:
            with ag.no_grad():
                e.add_(0.25)
        return y.sum()

    def plain():
        x.grad = None
        forward().backward()
        return x.grad

    def first():
        grad, = ag.autograd.grad(forward(), x, create_graph=True)
        return grad

    def second():
        grad = first()
        return ag.autograd.grad(grad.sum(), x)[0]
    results = []
    for run in (plain, first, second):
        TwoOutputs.seen.clear()
        result = outcome(run)
        results.append((_refusal(result) if isinstance(result, str) else np.round(result._data, 6).tolist(),
                        list(TwoOutputs.seen)))
    return results


def _engine_cases():
    v = [0.3, -0.7]
    return [("no hooks", None, False, v), ("clone hooks", "clone", False, v), ("numpy hooks", "numpy", False, v),
            ("no hooks, h.exp() written in place after the forward pass", None, True, v),
            ("numpy hooks, h.exp() written in place after the forward pass", "numpy", True, v),
            ("an unpack hook that returns a NumPy array", "bad", False, v)]


def random_engine_case(seed):
    rng = np.random.default_rng(seed)
    hooks = [None, "clone", "numpy", "bad"][int(rng.integers(4))]
    write = bool(rng.integers(3) == 0)
    values = np.round(rng.uniform(-1.5, 1.5, size=int(rng.integers(1, 4))), 3).tolist()
    label = f"{hooks or 'no'} hooks{', h.exp() written in place after the forward pass' if write else ''}, x = {values}"
    return label, hooks, write, values


def expect_engine_run(case, seen, expected, what):
    """Fail when two results of ``engine_run`` differ, naming the rule of the first difference:
    a refusal (version check, hook's type), how the custom Function saw its saved output, or
    the gradients (a second derivative flows through attached outputs)."""
    if seen == expected:
        return
    hooked = case[1] is not None
    for (s_value, s_seen), (e_value, e_seen), order in zip(seen, expected, ("backward", "first", "second")):
        if isinstance(s_value, tuple) or isinstance(e_value, tuple):
            if s_value == e_value:
                continue
            if isinstance(e_value, tuple) and "not a tensor" in e_value[-1]:
                grading.expect_equal(seen, expected, what=what, rule=UP_NOT_A_TENSOR)
            if isinstance(e_value, tuple) and "inplace" in e_value[-1]:
                grading.expect_equal(seen, expected, what=what, rule=UP_ITSELF)
            grading.expect_equal(seen, expected, what=what, rule=UP_HOOKED if hooked else UP_ITSELF)
        if s_seen != e_seen:
            grading.expect_equal(seen, expected, what=what, rule=UP_ATTACHED)
        if s_value != e_value:
            grading.expect_equal(seen, expected, what=what, rule=UP_ATTACHED if order == "second" else
                                 UP_HOOKED if hooked else UP_ITSELF)
    grading.expect_equal(seen, expected, what=what, rule=UP_ATTACHED)


def expect_engine(fn, cases):
    with library_version("06"):
        expected = [engine_run(case) for case in cases]
    with grading.checking("06.unpack", fn):
        seen = [engine_run(case) for case in cases]
    for case, s, e in zip(cases, seen, expected):
        expect_engine_run(case, s, e, what=f"x.grad, then x's first and second derivatives of h.exp() * "
                          f"h.sigmoid() + b * a.tanh() (h = 1.5x; a, b = TwoOutputs(h), saving b) with {case[0]}")


def unpack_in_the_engine(fn):
    """``backward()``, then a first and a second derivative, through ``exp``, ``sigmoid``,
    ``tanh`` and a custom Function that saved its second output (its backward notes how that
    output came back), with your ``unpack`` in the engine: without hooks,
    with two kinds of hooks, after an in-place write (refused without hooks, not with them), and
    with an unpack hook that does not return a tensor."""
    expect_engine(fn, _engine_cases())
