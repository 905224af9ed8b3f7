"""Visible checks of assignment 04, exercise 2: ``retain_grad``, the gradients a non-leaf keeps.

``autograd_course.checks.leaves`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random graphs and backward passes drawn from the generators the cell
passes.  The constants are the rules the checks name (``grading.rules("04.retain_grad")``).
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import error_of, library_version, outcome

from .leaf_stories import _expect_close, _expect_equal, _expect_stories, _expect_true, _no_error, _seeds

__all__ = ["retain_grad", "retain_grad_in_the_engine", "retain_grad_random", "retain_grad_in_the_engine_random",
           "registry_summary", "RETAIN_NO_GRAD", "RETAIN_LEAF", "RETAIN_REGISTER", "RETAIN_OUTPUTS", "RETAIN_WEAK",
           "RETAIN_TWICE"]

RETAIN = grading.rules("04.retain_grad")
RETAIN_NO_GRAD = RETAIN("cases")
RETAIN_LEAF = RETAIN("cases")
RETAIN_REGISTER = RETAIN("register")
RETAIN_OUTPUTS = RETAIN("register")
RETAIN_WEAK = RETAIN("weak")
RETAIN_TWICE = RETAIN("cases")


def registry_summary(node):
    """What ``node._retains_grad`` holds, without memory addresses: ``'None'``, the type of
    something that is not a dict, or the dict ``{output number: "callable"}`` (or the type of
    an entry that cannot be called)."""
    registry = node._retains_grad
    if not isinstance(registry, dict):
        return repr(registry) if registry is None else f"a {type(registry).__name__}"
    return {k: "callable" if callable(v) else type(v).__name__ for k, v in registry.items()}


def _gives_back(node, nr):
    """What the entry for output ``nr`` in ``node._retains_grad`` gives back when called."""
    registry = node._retains_grad
    entry = registry.get(nr) if isinstance(registry, dict) else None
    return outcome(entry) if callable(entry) else None


def retain_grad(fn):
    """Your ``retain_grad`` on its three cases: a tensor that does not require grad
    (PyTorch's ``RuntimeError``: no-grad), a leaf (nothing to do: leaf) and a non-leaf
    ``b = leaf * 3`` (register), called twice (twice).  For the non-leaf it looks at
    ``b.retains_grad`` and at what ``b.grad_fn._retains_grad`` holds."""
    with grading.checking("04.retain_grad", fn):
        constant = ag.tensor([1.0, 2.0])
        grading.expect_raises(lambda: fn(constant), RuntimeError,
                              "can't retain_grad on Tensor that has requires_grad=False",
                              what="retain_grad(ag.tensor([1., 2.])), a tensor that does not require grad",
                              rule=RETAIN_NO_GRAD)
        leaf = ag.tensor([1.0, 2.0], requires_grad=True)
        _no_error(lambda: fn(leaf), "retain_grad(leaf), a leaf that requires grad", RETAIN_LEAF)
        _expect_equal(leaf.retains_grad, False, "leaf.retains_grad after retain_grad(leaf)", RETAIN_LEAF)

        b = leaf * 3.0
        _no_error(lambda: fn(b), "retain_grad(b) for b = leaf * 3", RETAIN_REGISTER)
        _expect_equal(b.retains_grad, True, "b.retains_grad after retain_grad(b)", RETAIN_REGISTER)
        _expect_equal(registry_summary(b.grad_fn), {0: "callable"},
                      "b.grad_fn._retains_grad after retain_grad(b)", RETAIN_REGISTER)
        _expect_true(_gives_back(b.grad_fn, 0) is b, "b.grad_fn._retains_grad[0]() is b", RETAIN_REGISTER,
                     "another object")
        _no_error(lambda: fn(b), "a second retain_grad(b)", RETAIN_TWICE)
        _expect_equal((b.retains_grad, registry_summary(b.grad_fn)), (True, {0: "callable"}),
                      "(b.retains_grad, b.grad_fn._retains_grad) after a second retain_grad(b)", RETAIN_TWICE)
        _expect_true(_gives_back(b.grad_fn, 0) is b, "b.grad_fn._retains_grad[0]() is b after a second call",
                     RETAIN_TWICE, "another object")


def retain_grad_in_the_engine(fn):
    """Your ``retain_grad`` inside the engine, through ``t.retain_grad()``: the worked
    example ``c = (3 * a**3) * a`` (register), the two outputs of one ``unbind`` node
    retained together (outputs), and a retained tensor that goes out of scope while its
    graph lives on: the graph must not keep it alive, and backward must still work (weak)."""
    with grading.checking("04.retain_grad", fn):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = 3 * a ** 3
        c = b * a
        _no_error(b.retain_grad, "b.retain_grad() for b = 3 * a**3", RETAIN_REGISTER)
        c.backward(gradient=ag.tensor([1.0, 1.0]))
        _expect_close(b._grad, [1.0, 2.0], "b.grad after b.retain_grad(); c.backward(gradient=[1., 1.]), c = b * a",
                      RETAIN_REGISTER)
        _expect_close(a.grad, [12.0, 96.0], "a.grad in the same example", RETAIN_REGISTER)

        w = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        p, q = w.unbind(0)
        _expect_equal([error_of(p.retain_grad), error_of(q.retain_grad)], [None, None],
                      "errors of p.retain_grad() and q.retain_grad() for p, q = w.unbind(0)", RETAIN_OUTPUTS)
        (p * 2.0 + q * 3.0).sum().backward()
        _expect_close(q._grad, [3.0, 3.0], "q.grad after (p * 2 + q * 3).sum().backward(); q is output 1 of the "
                      "UnbindBackward0 node", RETAIN_OUTPUTS)
        _expect_close(p._grad, [2.0, 2.0], "p.grad in the same example; p is output 0, retained before q",
                      RETAIN_OUTPUTS)

        def build():
            a = ag.tensor([1.0, 2.0], requires_grad=True)
            b = a * 2.0
            b.retain_grad()
            return (b * 3.0).sum(), weakref.ref(b), a

        built = []
        gc.disable()              # only reference counting may free b here
        try:
            error = error_of(lambda: built.append(build()))
            alive = bool(built) and built[0][1]() is not None
        finally:
            gc.enable()
        _expect_equal(error or "no error", "no error", "b.retain_grad() inside build()", RETAIN_REGISTER)
        _expect_true(not alive, "b is freed when build() returns, although c's graph (which has b's node) lives on",
                     RETAIN_WEAK, "b is still alive")
        c, probe, a = built[0]
        _no_error(c.backward, "c.backward() after b was freed", RETAIN_WEAK)
        _expect_close(a.grad, [6.0, 6.0], "a.grad for c = (2 * a * 3).sum()", RETAIN_WEAK)


def _retain_story(retain, seed):
    """What the visible check looks at, on random tensors: a list of (what, rule, value)."""
    rng = np.random.default_rng(seed)
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    rows, cols = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    w = ag.tensor(rng.standard_normal((rows, cols)).astype(dtype.numpy), requires_grad=True)
    with ag.no_grad():
        frozen = w * 2.0
    pool = {"c": ag.tensor(rng.standard_normal(cols).astype(dtype.numpy)),
            "n": ag.tensor(rng.integers(-3, 4, size=(rows,))), "w.detach()": w.detach(), "w * 2 in no_grad()": frozen,
            "w": w, "v": ag.tensor(rng.standard_normal(cols).astype(dtype.numpy), requires_grad=True),
            "(w * 3).sum(0)": (w * 3.0).sum(0), "w.tanh()": w.tanh()}
    pool.update({f"w.unbind(0)[{k}]": t for k, t in enumerate(w.unbind(0))})
    names = list(pool)
    kinds = {name: "no grad" if not t.requires_grad else "leaf" if t.grad_fn is None else "non-leaf"
             for name, t in pool.items()}

    def node_entries(t):
        """t.grad_fn._retains_grad: {output number: (callable or not, the tensor it gives back)}."""
        registry = None if t.grad_fn is None else t.grad_fn._retains_grad
        if not isinstance(registry, dict):
            return registry if registry is None else f"a {type(registry).__name__}"
        entries = {}
        for nr, ref in registry.items():
            target = ref() if callable(ref) else None
            kind = "callable" if callable(ref) else type(ref).__name__
            entries[nr] = (kind, next((n for n, u in pool.items() if u is target),
                                      "another object" if target is not None else None))
        return entries

    picks = [names[int(rng.integers(0, 4))], names[int(rng.integers(4, 6))], names[int(rng.integers(6, 8))],
             f"w.unbind(0)[{int(rng.integers(1, rows))}]", f"w.unbind(0)[{int(rng.integers(rows))}]"]
    picks += [names[int(i)] for i in rng.integers(0, len(names), size=int(rng.integers(1, 4)))]
    picks = [str(name) for name in rng.permutation(picks)]
    facts, called = [], set()
    for name in picks:
        t = pool[name]
        again = name in called
        called.add(name)
        label = f"{'another' if again else 'a first'} retain_grad(t), t = {name}, w a {dtype} of shape {(rows, cols)}"
        rule = {"no grad": RETAIN_NO_GRAD, "leaf": RETAIN_LEAF}.get(kinds[name], RETAIN_TWICE if again else
                                                                     RETAIN_OUTPUTS if name.startswith("w.unbind")
                                                                     else RETAIN_REGISTER)
        try:
            retain(t)
            error = "no error"
        except Exception as e:             # noqa: BLE001  (any error is an answer to compare)
            text = "can't retain_grad on Tensor that has requires_grad=False"
            error = type(e).__name__ + (f": {text}" if text in str(e) else f": {e}")
        facts += [(f"the error of {label}", rule, error),
                  (f"(t.retains_grad, t.grad_fn._retains_grad as {{output number: (callable, what it gives back)}}) "
                   f"after {label}", rule, (t.retains_grad, node_entries(t)))]
    return facts


def retain_grad_random(fn, rngs):
    """Random tensors (constants of several dtypes, leaves, non-leaves, the outputs of one
    ``unbind`` node), retained once or more, in random order, against the library's version."""
    _expect_stories(_retain_story, fn, _seeds(rngs), "04.retain_grad")


def _retained_graph(seed):
    """A random graph with several multi-output nodes; retain_grad on random tensors, then
    backward: the errors, the flags, backward's error and every tensor's .grad."""
    rng = np.random.default_rng(seed)
    w = ag.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    const = ag.tensor(rng.standard_normal(2))
    rows = list(w.unbind(0))
    h = rows[0] * rows[1] + rows[2].sin() * const
    parts = list((h * 2.0).unbind(0))
    out = parts[1] * parts[0] + parts[1].exp()
    pool = {"w": w, "const": const, "row0": rows[0], "row1": rows[1], "row2": rows[2], "h": h,
            "part0": parts[0], "part1": parts[1], "out": out}
    names = list(pool)
    picks = [names[int(i)] for i in rng.integers(0, len(names), size=int(rng.integers(2, 8)))]
    outcomes = [(name, error_of(pool[name].retain_grad)) for name in picks]
    flags = {name: t.retains_grad for name, t in pool.items()}
    error = error_of(out.backward)
    grads = {name: None if t._grad is None else t._grad._data.copy() for name, t in pool.items()}
    return outcomes, flags, error, grads


def retain_grad_in_the_engine_random(fn, rngs):
    """Random graphs with several multi-output nodes; ``retain_grad`` on random tensors, then
    backward: the errors, ``retains_grad`` and every tensor's ``.grad``."""
    for seed in _seeds(rngs):
        with library_version("04"):
            expected = _retained_graph(seed)
        with grading.checking("04.retain_grad", fn):
            seen = _retained_graph(seed)
        _expect_equal(seen[0], expected[0], f"random case {seed}: (tensor, error) of each retain_grad call",
                      RETAIN_NO_GRAD)
        _expect_equal(seen[1], expected[1], f"random case {seed}: retains_grad of each tensor", RETAIN_REGISTER)
        _expect_equal(seen[2], expected[2], f"random case {seed}: error of out.backward()", RETAIN_REGISTER)
        for name, wanted in expected[3].items():
            if wanted is None:
                _expect_true(seen[3][name] is None, f"random case {seed}: {name}.grad is None", RETAIN_LEAF,
                             "a gradient")
            else:
                _expect_close(seen[3][name], wanted, f"random case {seed}: {name}.grad", RETAIN_OUTPUTS)
