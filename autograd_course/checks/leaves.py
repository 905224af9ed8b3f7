"""Visible checks of assignment 04: leaves, ``retain_grad`` and accumulation.

Each function without ``_random`` in its name is the visible part of one test cell, run on
the function you wrote; its docstring says what it tries.  The ``..._random`` functions are
what the hidden parts of the same cells run: the same rules on random leaves, graphs and
backward passes drawn from the generators the cell passes (the seeds are hidden).  Every
check names one of the rules its exercise's task text states (``grading.rules("04.<name>")``).
Exercise 3 fills two slots, so its checks take both functions.  Exercise 5's checks
(``grad_results``) are in ``grad_results.py``, imported here.

Why one module of this length: it is the visible half of the notebook's test cells and their
random stories, one section per exercise, kept together so that a student reads one file per
notebook.
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import array_of, call, error_of, library_version, outcome, quietly

from .grad_results import (grad_results, grad_results_in_the_engine,  # noqa: F401  (exercise 5)
                           grad_results_random, grad_results_in_the_engine_random)

__all__ = ["accumulate_grad", "accumulate_grad_in_the_engine", "accumulate_grad_random",
           "accumulate_grad_in_the_engine_random",
           "retain_grad", "retain_grad_in_the_engine", "retain_grad_random", "retain_grad_in_the_engine_random",
           "registry_summary",
           "tensor_hooks_slots", "tensor_hooks_store", "tensor_hooks_store_in_the_engine", "tensor_hooks_store_random",
           "tensor_hooks_store_in_the_engine_random", "tensor_hooks", "tensor_hooks_random",
           "nodes_to_run", "nodes_to_run_in_the_engine", "nodes_to_run_random", "nodes_to_run_in_the_engine_random",
           "named", "expect_pruned", "prune_cases", "section6_graph", "random_graph", "random_prune_case",
           "pruned_story", "deep_chain_grad",
           "grad_results", "grad_results_in_the_engine", "grad_results_random", "grad_results_in_the_engine_random",
           "ACCUMULATE_COPY", "ACCUMULATE_ADDS", "ACCUMULATE_IN_PLACE", "ACCUMULATE_CREATE_GRAPH",
           "ACCUMULATE_UNTOUCHED", "RETAIN_NO_GRAD", "RETAIN_LEAF", "RETAIN_REGISTER", "RETAIN_OUTPUTS",
           "RETAIN_WEAK", "RETAIN_TWICE", "STORE_COPY", "STORE_ADDS", "STORE_NEW_TENSOR", "STORE_UNTOUCHED",
           "HOOKS_NOTHING", "HOOKS_LIST", "HOOKS_CHAIN", "HOOKS_REPLACE", "HOOKS_NO_GRADIENT", "HOOKS_RETAIN",
           "PRUNE_ANCESTORS", "PRUNE_TARGETS", "PRUNE_OTHERS", "PRUNE_DEEP"]


def _expect_equal(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def _expect_close(seen, expected, what, rule):
    grading.expect_close(seen, expected, what=what, rule=rule)


def _expect_true(condition, what, rule, seen):
    grading.expect_true(condition, what=what, seen=seen, rule=rule)


def _no_error(thunk, what, rule):
    """``thunk()`` must raise nothing."""
    _expect_equal(error_of(thunk) or "no error", "no error", what, rule)


def _expect_fact(value, wanted, what, rule):
    """One fact of a story: arrays compared within tolerance, anything else with ==."""
    if isinstance(wanted, np.ndarray):
        _expect_close(value, wanted, what, rule)
    else:
        _expect_equal(value, wanted, what, rule)


def _expect_stories(story, fn, seeds, exercise_id, slots=None):
    """``story(fn, seed)`` (a list of (what, rule, value)) with your function, against
    ``story(reference, seed)`` with the library's versions of 04 (``slots``: what to plug,
    when the exercise fills several)."""
    reference = exercises.reference(exercise_id)
    with library_version("04"):
        expected = [story(reference, seed) for seed in seeds]
    with (grading.checking(slots) if slots else grading.checking(exercise_id, fn)):
        for seed, facts in zip(seeds, expected):
            for (what, rule, value), (_, _, wanted) in zip(story(fn, seed), facts):
                _expect_fact(value, wanted, f"random case {seed}: {what}", rule)


def _seeds(rngs):
    return [int(rng.integers(2 ** 31)) for rng in rngs]


def _own_memory(t, other):
    return isinstance(t, ag.Tensor) and t is not other and not np.shares_memory(t._data, other._data)


# ------------------------------------------------------------ 04.accumulate_grad

ACCUMULATE = grading.rules("04.accumulate_grad")
ACCUMULATE_COPY = ACCUMULATE("copy")
ACCUMULATE_ADDS = ACCUMULATE("adds")
ACCUMULATE_IN_PLACE = ACCUMULATE("in-place")
ACCUMULATE_CREATE_GRAPH = ACCUMULATE("create-graph")
ACCUMULATE_UNTOUCHED = ACCUMULATE("untouched")


def accumulate_grad(fn):
    """Your ``accumulate_grad`` called as the engine calls it in a normal backward
    (grad mode off), twice on one leaf; then two ``backward()`` calls through the
    engine; then ``backward(g)`` with a gradient ``g`` of your own, twice.  The first
    gradient in a tensor of its own (copy), later ones added (adds) to the same tensor,
    its version bumped (in-place), and no incoming gradient changed (untouched)."""
    with grading.checking("04.accumulate_grad", fn):
        # 1. Called as the engine calls it in a normal backward (grad mode off).
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        g1 = ag.tensor([0.5, 1.0, 2.0])
        g2 = ag.tensor([10.0, 20.0, 30.0])
        with ag.no_grad():
            _no_error(lambda: fn(x, g1), "accumulate_grad(x, g1) when x._grad is None", ACCUMULATE_COPY)
        _expect_close(x._grad, [0.5, 1.0, 2.0], "x._grad after accumulate_grad(x, g1)", ACCUMULATE_COPY)
        _expect_true(_own_memory(x._grad, g1), "x._grad is a copy of g1, with memory of its own", ACCUMULATE_COPY,
                     "g1 itself" if x._grad is g1 else "a tensor that shares g1's memory")
        first, version = x._grad, x._grad._version
        with ag.no_grad():
            _no_error(lambda: fn(x, g2), "accumulate_grad(x, g2) when x._grad exists", ACCUMULATE_ADDS)
        _expect_close(x._grad, [10.5, 21.0, 32.0], "x._grad after accumulate_grad(x, g1) and (x, g2)", ACCUMULATE_ADDS)
        _expect_true(x._grad is first, "`x._grad is first` (the tensor that the first call stored)",
                     ACCUMULATE_IN_PLACE, "a new tensor")
        _expect_equal(first._version, version + 1, f"x._grad._version after the second call (it was {version})",
                      ACCUMULATE_IN_PLACE)
        _expect_close(g1, [0.5, 1.0, 2.0], "g1 after both calls", ACCUMULATE_UNTOUCHED)
        _expect_close(g2, [10.0, 20.0, 30.0], "g2 after both calls", ACCUMULATE_UNTOUCHED)

        # 2. Through the engine: two backward calls add up.
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        _no_error(lambda: (x ** 2).sum().backward(), "(x ** 2).sum().backward()", ACCUMULATE_COPY)
        _expect_close(x.grad, [2.0, 4.0, 6.0], "x.grad after one (x ** 2).sum().backward()", ACCUMULATE_COPY)
        first = x.grad
        _no_error(lambda: (x ** 2).sum().backward(), "a second (x ** 2).sum().backward()", ACCUMULATE_ADDS)
        _expect_close(x.grad, [4.0, 8.0, 12.0], "x.grad after two (x ** 2).sum().backward()", ACCUMULATE_ADDS)
        _expect_true(x.grad is first, "`x.grad is first` after the second backward", ACCUMULATE_IN_PLACE,
                     "a new tensor")

        # 3. The gradient you pass to backward stays yours.
        x = ag.ones(2, requires_grad=True)
        g = ag.tensor([1.0, 2.0])
        _no_error(lambda: (x + 0).backward(g), "(x + 0).backward(g)", ACCUMULATE_COPY)
        _expect_true(x.grad is not None and not np.shares_memory(x.grad._data, g._data),
                     "x.grad after (x + 0).backward(g) has memory of its own", ACCUMULATE_COPY,
                     "None" if x.grad is None else "it shares g's memory")
        _no_error(lambda: (x + 0).backward(g), "a second (x + 0).backward(g)", ACCUMULATE_ADDS)
        _expect_close(g, [1.0, 2.0], "your tensor g after a second (x + 0).backward(g)", ACCUMULATE_COPY)
        _expect_close(x.grad, [2.0, 4.0], "x.grad after two (x + 0).backward(g)", ACCUMULATE_ADDS)


def accumulate_grad_in_the_engine(fn):
    """Your ``accumulate_grad`` inside the engine: a weight ``W`` used in two layers (adds),
    a hook that keeps the gradient arriving at a leaf (copy), and two
    ``backward(create_graph=True)`` calls, whose sum must be a new, recorded ``.grad``
    that can be differentiated again (create-graph)."""
    with grading.checking("04.accumulate_grad", fn):
        x = ag.tensor([[1.0, -1.0]])
        W = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        _no_error(lambda: ((x @ W) @ W).sum().backward(), "((x @ W) @ W).sum().backward()", ACCUMULATE_COPY)
        _expect_close(W.grad, [[1.0, 5.0], [-5.0, -9.0]], "W.grad for loss = ((x @ W) @ W).sum(): W used in two layers",
                      ACCUMULATE_ADDS)

        # A hook on the leaf keeps the gradient that arrives: .grad must not share its memory.
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        kept = []
        v.register_hook(lambda grad: kept.append(grad))
        error = error_of(lambda: (v * 2.0).sum().backward())
        _expect_true(error is None and v.grad is not None and not np.shares_memory(v.grad._data, kept[0]._data),
                     "v.grad after (v * 2).sum().backward() has memory of its own (a hook kept the incoming gradient)",
                     ACCUMULATE_COPY,
                     error or ("None" if v.grad is None else "it shares the incoming gradient's memory"))

        # create_graph=True: .grad is part of a graph.
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        _no_error(lambda: quietly(lambda: (x ** 3).sum().backward(create_graph=True)),
                  "(x ** 3).sum().backward(create_graph=True)", ACCUMULATE_CREATE_GRAPH)
        _expect_close(x.grad, [3.0, 12.0, 27.0], "x.grad after one backward(create_graph=True)", ACCUMULATE_COPY)
        _expect_equal(getattr(x.grad, "requires_grad", None), True,
                      "x.grad.requires_grad after backward(create_graph=True)", ACCUMULATE_CREATE_GRAPH)
        first = x.grad
        _no_error(lambda: quietly(lambda: (x ** 3).sum().backward(create_graph=True)),
                  "a second (x ** 3).sum().backward(create_graph=True)", ACCUMULATE_CREATE_GRAPH)
        _expect_close(x.grad, [6.0, 24.0, 54.0], "x.grad after two backward(create_graph=True)", ACCUMULATE_ADDS)
        _expect_true(x.grad is not first, "x.grad is a new tensor after the second backward(create_graph=True)",
                     ACCUMULATE_CREATE_GRAPH, "the same tensor, changed in place")
        _expect_close(first, [3.0, 12.0, 27.0], "the first x.grad after the second backward(create_graph=True)",
                      ACCUMULATE_CREATE_GRAPH)
        gx = x.grad
        x.grad = None
        _no_error(lambda: gx.sum().backward(), "gx.sum().backward() with gx = x.grad (= 6 x**2)",
                  ACCUMULATE_CREATE_GRAPH)
        _expect_close(x.grad, [12.0, 24.0, 36.0], "x.grad of gx.sum(), gx = x.grad after two "
                      "backward(create_graph=True) of (x ** 3).sum(): d/dx of 6 x**2", ACCUMULATE_CREATE_GRAPH)


def _random_leaf_values(rng):
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(0, 3))))
    return dtype, shape, lambda scale=1.0: (rng.standard_normal(shape) * scale).astype(dtype.numpy)


def _accumulate_story(accumulate, seed):
    """What the visible check looks at, on random leaves: a list of (what, rule, value)."""
    rng = np.random.default_rng(seed)
    dtype, shape, random = _random_leaf_values(rng)
    facts = []
    # 1. Called as the engine calls it in a normal backward (grad mode off).
    x = ag.tensor(random(), requires_grad=True)
    grads = [ag.tensor(random(5.0)) for _ in range(int(rng.integers(2, 5)))]
    label = f"x a {dtype} leaf of shape {shape}"
    for n, g in enumerate(grads, start=1):
        before = x._grad
        version = before._version if isinstance(before, ag.Tensor) else None
        with ag.no_grad():
            error = error_of(lambda: accumulate(x, g)) or "no error"
        if n == 1:
            facts += [(f"accumulate_grad(x, g1) when x._grad is None, {label}", ACCUMULATE_COPY, error),
                      (f"x._grad after accumulate_grad(x, g1), {label}", ACCUMULATE_COPY, array_of(x._grad)),
                      (f"x._grad is a copy of g1, with memory of its own, {label}", ACCUMULATE_COPY,
                       _own_memory(x._grad, g))]
        else:
            facts += [(f"accumulate_grad(x, g{n}) when x._grad exists, {label}", ACCUMULATE_ADDS, error),
                      (f"x._grad after accumulate_grad with g1 to g{n}, {label}", ACCUMULATE_ADDS, array_of(x._grad)),
                      (f"`x._grad is` the tensor that x._grad was before call {n}, {label}", ACCUMULATE_IN_PLACE,
                       x._grad is before),
                      (f"how much x._grad._version went up in call {n}, {label}", ACCUMULATE_IN_PLACE,
                       x._grad._version - version if x._grad is before and version is not None else None)]
    facts += [(f"g{n} after the calls, {label}", ACCUMULATE_UNTOUCHED, g._data.copy())
              for n, g in enumerate(grads, start=1)]
    # 2. Through the engine: backward calls add up.
    x = ag.tensor(random(), requires_grad=True)
    w, power = ag.tensor(random()), int(rng.integers(1, 4))
    label = f"x a {dtype} leaf of shape {shape}, loss = (x ** {power} * w).sum()"
    first = None
    for n in range(1, int(rng.integers(2, 4)) + 1):
        error = error_of(lambda: (x ** power * w).sum().backward()) or "no error"
        rule = ACCUMULATE_COPY if n == 1 else ACCUMULATE_ADDS
        facts += [(f"backward number {n}, {label}", rule, error),
                  (f"x.grad after {n} backward calls, {label}", rule, array_of(x._grad))]
        if n == 1:
            first = x._grad
        else:
            facts.append((f"`x.grad is first` after backward number {n}, {label}", ACCUMULATE_IN_PLACE,
                          x._grad is first))
    # 3. The gradient you pass to backward stays yours.
    x, g, shift = ag.tensor(random(), requires_grad=True), ag.tensor(random(3.0)), round(float(rng.uniform(-2, 2)), 2)
    label = f"x a {dtype} leaf of shape {shape}, your own g"
    facts += [(f"(x + {shift}).backward(g), {label}", ACCUMULATE_COPY,
               error_of(lambda: (x + shift).backward(g)) or "no error"),
              (f"x.grad after (x + {shift}).backward(g) has memory of its own, {label}", ACCUMULATE_COPY,
               _own_memory(x._grad, g)),
              (f"a second (x + {shift}).backward(g), {label}", ACCUMULATE_ADDS,
               error_of(lambda: (x + shift).backward(g)) or "no error"),
              (f"your tensor g after a second (x + {shift}).backward(g), {label}", ACCUMULATE_COPY, g._data.copy()),
              (f"x.grad after two (x + {shift}).backward(g), {label}", ACCUMULATE_ADDS, array_of(x._grad))]
    return facts


def accumulate_grad_random(fn, rngs):
    """The stories of ``accumulate_grad`` on random leaves: dtypes, shapes, values, gradients
    and numbers of calls, against the library's version."""
    _expect_stories(_accumulate_story, fn, _seeds(rngs), "04.accumulate_grad")


def _accumulation_passes(seed):
    """Random backward passes (plain or create_graph) into one leaf: what .grad is after each,
    and facts about it, each with the rule it is about."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    x = ag.tensor(rng.standard_normal(shape), requires_grad=True)
    w = ag.tensor(rng.standard_normal(shape))
    arrived = []
    x.register_hook(lambda grad: arrived.append(grad))
    steps = []
    for _ in range(int(rng.integers(2, 6))):
        create_graph = bool(rng.integers(3) == 0)
        power = int(rng.integers(1, 4))
        twice = bool(rng.integers(2))
        before = x._grad
        before_values = None if before is None else before._data.copy()
        before_version = None if before is None else before._version
        loss = ((x ** power) * w + x * x).sum() if twice else ((x ** power) * w).sum()
        error = error_of(lambda: quietly(lambda: loss.backward(create_graph=create_graph)))
        grad = x._grad
        kind = ACCUMULATE_CREATE_GRAPH if create_graph else ACCUMULATE_IN_PLACE
        steps.append((create_graph, None if grad is None else grad._data.copy(), [
            ("the error", ACCUMULATE_COPY if before is None else kind, error),
            ("whether .grad is a new tensor", kind, None if before is None else grad is not before),
            ("the version bump of .grad", kind,
             grad._version - before_version if before is not None and grad is before else None),
            ("whether the earlier .grad kept its values", kind,
             None if before is None or grad is before else bool(np.array_equal(before._data, before_values))),
            ("whether .grad requires grad", ACCUMULATE_CREATE_GRAPH, None if grad is None else grad.requires_grad),
            ("whether .grad shares memory with the incoming gradient", ACCUMULATE_COPY,
             None if grad is None or not arrived else bool(np.shares_memory(grad._data, arrived[-1]._data)))]))
    return steps


def accumulate_grad_in_the_engine_random(fn, rngs):
    """Random sequences of backward passes, plain or with ``create_graph=True``, into one
    leaf: what ``.grad`` is after each, against the library's version."""
    for seed in _seeds(rngs):
        with library_version("04"):
            expected = _accumulation_passes(seed)
        with grading.checking("04.accumulate_grad", fn):
            seen = _accumulation_passes(seed)
        for step, ((create_graph, e_values, e_facts), (_, s_values, s_facts)) in enumerate(zip(expected, seen)):
            mode = "backward(create_graph=True)" if create_graph else "backward()"
            for (what, rule, wanted), (_, _, value) in zip(e_facts, s_facts):
                _expect_equal(value, wanted, f"random case {seed}, {mode} number {step + 1} into one leaf: {what}",
                              rule)
            if e_values is not None:
                _expect_close(s_values, e_values, f"random case {seed}: .grad after {mode} number {step + 1}",
                              ACCUMULATE_ADDS)


# ------------------------------------------------------------ 04.retain_grad

RETAIN = grading.rules("04.retain_grad")
RETAIN_NO_GRAD = RETAIN("no-grad")
RETAIN_LEAF = RETAIN("leaf")
RETAIN_REGISTER = RETAIN("register")
RETAIN_OUTPUTS = RETAIN("outputs")
RETAIN_WEAK = RETAIN("weak")
RETAIN_TWICE = RETAIN("twice")


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


# ------------------------------------------------------------ 04.tensor_hooks
# Exercise 3 fills two slots, store_retained_grad and call_tensor_hooks: each check takes both
# functions and plugs both (grading.checking({...})).

STORE = grading.rules("04.tensor_hooks")
STORE_COPY = STORE("copy")
STORE_ADDS = STORE("adds")
STORE_NEW_TENSOR = STORE("new-tensor")
STORE_UNTOUCHED = STORE("untouched")


def tensor_hooks_slots(store, hooks):
    """The two slots that exercise 3 fills, for ``grading.checking``."""
    return {"04.store_retained_grad": store, "04.call_tensor_hooks": hooks}


def tensor_hooks_store(store, hooks):
    """Your ``store_retained_grad`` called directly, twice on one non-leaf ``y = x * 3``
    (grad mode off), then the worked example through ``backward()``: the first gradient in a
    tensor of its own (copy), the next one added (adds) into a new tensor, the earlier
    ``.grad`` keeping its value (new-tensor), and no incoming gradient changed (untouched)."""
    fn = store
    with grading.checking(tensor_hooks_slots(store, hooks)):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        g1 = ag.tensor([1.0, 2.0])
        g2 = ag.tensor([10.0, 20.0])
        with ag.no_grad():
            _no_error(lambda: fn(y, g1), "store_retained_grad(y, g1) when y._grad is None", STORE_COPY)
        _expect_close(y._grad, [1.0, 2.0], "y._grad after store_retained_grad(y, g1)", STORE_COPY)
        _expect_true(_own_memory(y._grad, g1), "y._grad is a copy of g1, with memory of its own", STORE_COPY,
                     "g1 itself" if y._grad is g1 else "a tensor that shares g1's memory")
        first = y._grad
        with ag.no_grad():
            _no_error(lambda: fn(y, g2), "store_retained_grad(y, g2) when y._grad exists", STORE_ADDS)
        _expect_close(y._grad, [11.0, 22.0], "y._grad after store_retained_grad(y, g1) and (y, g2)", STORE_ADDS)
        _expect_true(y._grad is not first, "y._grad is a new tensor after the second call", STORE_NEW_TENSOR,
                     "the same tensor, changed in place")
        _expect_close(first, [1.0, 2.0], "the tensor stored by the first call, after the second call",
                      STORE_NEW_TENSOR)
        _expect_close(g1, [1.0, 2.0], "g1 after both calls", STORE_UNTOUCHED)
        _expect_close(g2, [10.0, 20.0], "g2 after both calls", STORE_UNTOUCHED)

        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = 3 * a ** 3
        c = b * a
        b.retain_grad()
        _no_error(lambda: c.backward(gradient=ag.tensor([1.0, 1.0])), "c.backward(gradient=[1., 1.]) with b retained",
                  STORE_COPY)
        _expect_close(b.grad, [1.0, 2.0], "b.grad after b.retain_grad(); c.backward(gradient=[1., 1.]), c = b * a",
                      STORE_COPY)
        _expect_close(a.grad, [12.0, 96.0], "a.grad in the same example", STORE_UNTOUCHED)


def tensor_hooks_store_in_the_engine(store, hooks):
    """Your two functions inside the engine: two ``backward`` calls through a
    retained tensor (adds, new-tensor), a hook that doubles its gradient, a gradient ``g`` of
    your own passed to ``backward`` (copy), and ``backward(create_graph=True)``, whose stored
    copy must be recorded (copy)."""
    with grading.checking(tensor_hooks_slots(store, hooks)):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        y.retain_grad()
        z = (y * y).sum()
        _no_error(lambda: z.backward(retain_graph=True), "z.backward(retain_graph=True), z = (y * y).sum()", STORE_COPY)
        first = y.grad
        _expect_close(first, [6.0, 12.0], "y.grad after one backward", STORE_COPY)
        _no_error(z.backward, "a second z.backward()", STORE_ADDS)
        _expect_close(y.grad, [12.0, 24.0], "y.grad after two backward calls", STORE_ADDS)
        _expect_true(y.grad is not first, "y.grad is a new tensor after the second backward", STORE_NEW_TENSOR,
                     "the same tensor, changed in place")
        _expect_close(first, [6.0, 12.0], "the first y.grad after the second backward", STORE_NEW_TENSOR)
        _expect_close(x.grad, [36.0, 72.0], "x.grad after the two backward calls", STORE_UNTOUCHED)

        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        _no_error(lambda: (y * y).sum().backward(), "(y * y).sum().backward() with a hook on y", STORE_COPY)
        _expect_close(y.grad, [12.0, 24.0], "y.grad with a hook that doubles the gradient", STORE_COPY)
        _expect_close(x.grad, [36.0, 72.0], "x.grad with the same hook on y", STORE_UNTOUCHED)

        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2.0
        y.retain_grad()
        g = ag.tensor([1.0, 1.0])
        error = error_of(lambda: y.backward(g))
        _expect_true(error is None and y.grad is not None and not np.shares_memory(y.grad._data, g._data),
                     "y.grad after y.backward(g) has memory of its own", STORE_COPY,
                     error or ("None" if y.grad is None else "it shares g's memory"))

        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x ** 2
        y.retain_grad()
        _no_error(lambda: quietly(lambda: (y * y).sum().backward(create_graph=True)),
                  "(y * y).sum().backward(create_graph=True) with y retained", STORE_COPY)
        _expect_close(y.grad, [2.0, 8.0], "y.grad after (y * y).sum().backward(create_graph=True), y = x ** 2",
                      STORE_COPY)
        _expect_equal(getattr(y.grad, "requires_grad", None), True,
                      "y.grad.requires_grad after backward(create_graph=True)", STORE_COPY)


def _store_story(store, seed):
    """What the visible check looks at, on random non-leaves: a list of (what, rule, value)."""
    rng = np.random.default_rng(seed)
    dtype, shape, random = _random_leaf_values(rng)
    facts = []
    x, scale = ag.tensor(random(), requires_grad=True), round(float(rng.uniform(0.5, 3.0)), 2)
    y = (x * scale).sin()
    grads = [ag.tensor(random(5.0)) for _ in range(int(rng.integers(2, 5)))]
    label = f"y = sin(x * {scale}), x a {dtype} leaf of shape {shape}"
    for n, g in enumerate(grads, start=1):
        before = y._grad
        with ag.no_grad():
            error = error_of(lambda: store(y, g)) or "no error"
        if n == 1:
            facts += [(f"store_retained_grad(y, g1) when y._grad is None, {label}", STORE_COPY, error),
                      (f"y._grad after store_retained_grad(y, g1), {label}", STORE_COPY, array_of(y._grad)),
                      (f"y._grad is a copy of g1, with memory of its own, {label}", STORE_COPY, _own_memory(y._grad, g))]
        else:
            facts += [(f"store_retained_grad(y, g{n}) when y._grad exists, {label}", STORE_ADDS, error),
                      (f"y._grad after store_retained_grad with g1 to g{n}, {label}", STORE_ADDS, array_of(y._grad)),
                      (f"y._grad is a new tensor after call {n}, {label}", STORE_NEW_TENSOR, y._grad is not before),
                      (f"the tensor y._grad was before call {n}, after it, {label}", STORE_NEW_TENSOR,
                       array_of(before))]
    facts += [(f"g{n} after the calls, {label}", STORE_UNTOUCHED, g._data.copy()) for n, g in enumerate(grads, start=1)]
    a, k, power = ag.tensor(random(), requires_grad=True), round(float(rng.uniform(0.5, 3.0)), 2), int(rng.integers(1, 4))
    b = k * a ** power
    c = b * a
    b.retain_grad()
    label = f"b = {k} * a ** {power}, c = b * a, a a {dtype} leaf of shape {shape}, g random"
    facts += [(f"c.backward(gradient=g) with b retained, {label}", STORE_COPY,
               error_of(lambda: c.backward(gradient=ag.tensor(random()))) or "no error"),
              (f"b.grad after b.retain_grad(); c.backward(gradient=g), {label}", STORE_COPY, array_of(b._grad)),
              (f"a.grad in the same example, {label}", STORE_UNTOUCHED, array_of(a._grad))]
    return facts


def tensor_hooks_store_random(store, hooks, rngs):
    """The stories of ``store_retained_grad`` on random non-leaves: dtypes, shapes, values,
    gradients and numbers of calls, against the library's version."""
    _expect_stories(_store_story, store, _seeds(rngs), "04.store_retained_grad", tensor_hooks_slots(store, hooks))


def _retained_passes(seed):
    """Random backward passes through one retained non-leaf, with random hooks: .grad after
    each, and facts about it, each with the rule it is about."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    x = ag.tensor(rng.standard_normal(shape), requires_grad=True)
    y = (x * float(rng.uniform(0.5, 2.0))).sin()
    y.retain_grad()
    arrived = []
    if rng.integers(2):
        scale = float(rng.uniform(-2.0, 2.0))
        y.register_hook(lambda grad: grad * scale)
    y.register_hook(lambda grad: arrived.append(grad))
    power = int(rng.integers(1, 4))
    z = ((y ** power) * ag.tensor(rng.standard_normal(shape))).sum()
    steps = []
    for _ in range(int(rng.integers(1, 5))):
        create_graph = bool(rng.integers(4) == 0)
        before = y._grad
        before_values = None if before is None else before._data.copy()
        error = error_of(lambda: quietly(lambda: z.backward(retain_graph=True, create_graph=create_graph)))
        grad = y._grad
        steps.append((None if grad is None else grad._data.copy(), [
            ("the error", STORE_COPY if before is None else STORE_ADDS, error),
            ("whether .grad is a new tensor", STORE_NEW_TENSOR, None if before is None else grad is not before),
            ("whether the earlier .grad kept its values", STORE_NEW_TENSOR,
             None if before is None else bool(np.array_equal(before._data, before_values))),
            ("whether .grad requires grad", STORE_COPY, None if grad is None else grad.requires_grad),
            ("whether .grad shares memory with the incoming gradient", STORE_COPY,
             None if grad is None or not arrived else bool(np.shares_memory(grad._data, arrived[-1]._data)))]))
    return steps


def tensor_hooks_store_in_the_engine_random(store, hooks, rngs):
    """Random backward passes (some with ``create_graph=True``) through one retained non-leaf,
    with random hooks: what ``.grad`` is after each, against the library's version."""
    for seed in _seeds(rngs):
        with library_version("04"):
            expected = _retained_passes(seed)
        with grading.checking(tensor_hooks_slots(store, hooks)):
            seen = _retained_passes(seed)
        for step, ((e_values, e_facts), (s_values, s_facts)) in enumerate(zip(expected, seen)):
            for (what, rule, wanted), (_, _, value) in zip(e_facts, s_facts):
                _expect_equal(value, wanted, f"random case {seed}, backward number {step + 1} through a retained "
                                             f"tensor: {what}", rule)
            if e_values is not None:
                _expect_close(s_values, e_values, f"random case {seed}: y.grad after backward number {step + 1}",
                              STORE_ADDS)


HOOKS = grading.rules("04.tensor_hooks")
HOOKS_NOTHING = HOOKS("nothing")
HOOKS_LIST = HOOKS("list")
HOOKS_CHAIN = HOOKS("chain")
HOOKS_REPLACE = HOOKS("replace")
HOOKS_NO_GRADIENT = HOOKS("no-gradient")
HOOKS_RETAIN = HOOKS("retain")
HOOKS_RUN = HOOKS("chain", "replace")
HOOKS_ORDER = HOOKS("chain", "no-gradient")


def _flowing(out, count):
    """What call_tensor_hooks returned, checked to be a list of ``count`` entries: the list, or
    None (the check has failed)."""
    _expect_true(isinstance(out, list) and len(out) == count, "what call_tensor_hooks returned", HOOKS_LIST,
                 repr(out) if not isinstance(out, list) else f"a list of {len(out)}, not {count}")
    return out


def tensor_hooks(store, hooks):
    """Your ``call_tensor_hooks`` (with your ``store_retained_grad``) on the node of ``y = x * 3`` with three hooks on ``y`` (one
    doubles, one returns None, one adds 1: what each receives and what flows on: chain,
    replace), with ``retain_grad`` (the stored gradient is the one after the hooks: retain),
    with nothing arrived (nothing), on a node of two outputs where one received nothing
    (skip), and for a retained tensor that was deleted (retain); then ``backward()`` through
    the example of section 5 and a hook on a leaf."""
    fn, slots = hooks, tensor_hooks_slots(store, hooks)
    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        seen = []
        y.register_hook(lambda g: (seen.append(("double", g.tolist())), g * 2)[1])
        y.register_hook(lambda g: seen.append(("look", g.tolist())))
        y.register_hook(lambda g: (seen.append(("add one", g.tolist())), g + 1)[1])
        y.retain_grad()
        out = call(fn, y.grad_fn, [ag.tensor([1.0, -1.0])], what="call_tensor_hooks(y.grad_fn, [[1, -1]])",
                   rule=HOOKS_RUN)
        nothing = call(fn, y.grad_fn, None, what="call_tensor_hooks(y.grad_fn, None)", rule=HOOKS_NOTHING)
    out = _flowing(out, 1)
    _expect_equal(seen, [("double", [1.0, -1.0]), ("look", [2.0, -2.0]), ("add one", [2.0, -2.0])],
                  "(hook, the gradient it received) for three hooks on y, given [1, -1]", HOOKS_RUN)
    _expect_close(out[0], [3.0, -1.0], "the gradient that flows on: ([1, -1] * 2) + 1", HOOKS_REPLACE)
    _expect_close(y.grad, [3.0, -1.0], "y.grad (y retains its gradient)", HOOKS_RETAIN)
    _expect_equal(nothing, None, "call_tensor_hooks(node, None)", HOOKS_NOTHING)

    with grading.checking(slots):
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        u, v = w.unbind()
        calls = []
        u.register_hook(lambda g: (calls.append(("u", g.tolist())), g * 10)[1])
        v.register_hook(lambda g: calls.append(("v", g)))
        out = call(fn, u.grad_fn, [ag.tensor(1.5), None], what="call_tensor_hooks(node of u, v, [1.5, None])",
                   rule=HOOKS_NO_GRADIENT)
    out = _flowing(out, 2)
    _expect_equal(calls, [("u", 1.5), ("v", None)],
                  "(hook, what it received) when only u (output 0) received a gradient", HOOKS_NO_GRADIENT)
    _expect_close(out[0], 15.0, "the gradient of u after its hook (x 10)", HOOKS_REPLACE)
    _expect_equal(out[1], None, "the gradient of v, which received none", HOOKS_NO_GRADIENT)

    with grading.checking(slots):
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        u, v = w.unbind()
        v.register_hook(lambda g: ag.tensor(5.0))
        refused = outcome(fn, u.grad_fn, [ag.tensor(1.5), None])
    _expect_equal(refused, "RuntimeError: can't replace a None gradient with a non-None value",
                  "call_tensor_hooks(node of u, v, [1.5, None]) when v's hook returns a tensor", HOOKS_NO_GRADIENT)

    with grading.checking(slots):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        b.retain_grad()
        node = b.grad_fn
        del b
        gc.collect()
        out = call(fn, node, [ag.tensor([1.0, 1.0])], what="call_tensor_hooks on a node whose retained tensor was "
                                                          "deleted", rule=HOOKS_RETAIN)
    out = _flowing(out, 1)
    _expect_close(out[0], [1.0, 1.0], "the gradient of a node whose retained tensor was deleted", HOOKS_RETAIN)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        call((y * y).sum().backward, what="(y * y).sum().backward() with a hook on y", rule=HOOKS_RUN)
        leaf = ag.tensor([1.0, 1.0], requires_grad=True)
        leaf.register_hook(lambda g: g * 10)
        call((leaf * 2).sum().backward, what="(leaf * 2).sum().backward() with a hook on the leaf", rule=HOOKS_RUN)
    _expect_close(y.grad, [12.0, 24.0], "y.grad in PyTorch's example (tensor([12., 24.]))", HOOKS_RETAIN)
    _expect_close(x.grad, [36.0, 72.0], "x.grad in PyTorch's example (tensor([36., 72.]))", HOOKS_REPLACE)
    _expect_close(leaf.grad, [20.0, 20.0], "leaf.grad with a hook x 10 on the leaf", HOOKS_REPLACE)


_HOOK_KINDS = ("scale", "look", "shift")


def _hooked_node(rng, log):
    """A node of 1 to 3 outputs with random hooks and retained outputs; its tensors."""
    size = int(rng.integers(1, 4))
    w = ag.tensor(np.asarray(rng.standard_normal(size)), requires_grad=True)
    outputs = list((w * 2.0).unbind()) if size > 1 and rng.integers(0, 2) else [w * 3.0]
    for k, t in enumerate(outputs):
        for h in range(int(rng.integers(0, 4))):
            kind, amount = _HOOK_KINDS[int(rng.integers(0, 3))], float(rng.integers(2, 5))

            def hook(g, k=k, h=h, kind=kind, amount=amount):
                # An output that received nothing has its hooks called with None (no-gradient).
                log.append((k, h, kind, None if g is None else np.round(g.numpy(), 6).tolist()))
                if g is None or kind == "look":
                    return None
                return g * amount if kind == "scale" else g + amount
            t.register_hook(hook)
        if rng.integers(0, 2):
            t.retain_grad()
    return outputs


def _retained(outputs):
    return [np.round(t.grad.numpy(), 6).tolist() if t.retains_grad and t.grad is not None else None
            for t in outputs]


def _hooks_called(fn, seed):
    """call_tensor_hooks (fn) on a random hooked node: (the hooks' calls, what flows on, the
    retained gradients)."""
    rng = np.random.default_rng(seed)
    log = []
    outputs = _hooked_node(rng, log)
    grads = [None if rng.integers(0, 3) == 0 else ag.tensor(np.asarray(rng.standard_normal(tuple(t.shape))))
             for t in outputs]
    out = call(fn, outputs[0].grad_fn, grads, what=f"call_tensor_hooks on a node of {len(outputs)} output(s) with "
                                                   f"random hooks (seed {seed})", rule=HOOKS_RUN)
    flowing = out if not isinstance(out, list) else [None if g is None else np.round(g.numpy(), 6).tolist()
                                                     for g in out]
    return log, flowing, _retained(outputs)


def _hooks_in_a_pass(seed):
    """A backward pass through a random hooked node and a hooked leaf: (the hooks' calls, the
    retained gradients, the leaf's .grad)."""
    rng = np.random.default_rng(seed)
    log = []
    x = ag.tensor(np.asarray(rng.standard_normal(3)), requires_grad=True)
    x.register_hook(lambda g: g * 0.5)
    outputs = _hooked_node(rng, log)
    loss = sum((t * x.sum()).sum() for t in outputs)
    call(loss.backward, what=f"backward through random hooks (seed {seed})", rule=HOOKS_RUN)
    return log, _retained(outputs), np.round(x.grad.numpy(), 6).tolist()


def tensor_hooks_random(store, hooks, rngs):
    """Random hooks (scaling, looking, shifting) and retained outputs on random nodes of one to
    three outputs, some receiving no gradient: your function called directly, then backward
    passes through such nodes and a hooked leaf, against the library's version."""
    seeds = _seeds(rngs)
    for seed in seeds:
        with library_version("04"):
            log_want, out_want, kept_want = _hooks_called(exercises.reference("04.call_tensor_hooks"), seed)
        with grading.checking(tensor_hooks_slots(store, hooks)):
            log_seen, out_seen, kept_seen = _hooks_called(hooks, seed)
        _expect_equal(log_seen, log_want, f"(output, hook, kind, gradient received) for random hooks (seed {seed})",
                      HOOKS_ORDER)
        _expect_equal(out_seen, out_want, f"the gradients that flow on, random hooks (seed {seed})", HOOKS_REPLACE)
        _expect_equal(kept_seen, kept_want, f"the retained .grad of each output, random hooks (seed {seed})",
                      HOOKS_RETAIN)
    for seed in seeds[:len(seeds) // 2]:
        with library_version("04"):
            log_want, kept_want, x_want = _hooks_in_a_pass(seed + 1)
        with grading.checking(tensor_hooks_slots(store, hooks)):
            log_seen, kept_seen, x_seen = _hooks_in_a_pass(seed + 1)
        _expect_equal(log_seen, log_want, f"the hooks' calls in a random backward pass (seed {seed + 1})", HOOKS_ORDER)
        _expect_equal(kept_seen, kept_want, f"the retained gradients after a random backward pass (seed {seed + 1})",
                      HOOKS_RETAIN)
        _expect_equal(x_seen, x_want, f"x.grad (a leaf hook halves it) after a random backward pass (seed {seed + 1})",
                      HOOKS_REPLACE)


# ------------------------------------------------------------ 04.nodes_to_run

PRUNE = grading.rules("04.nodes_to_run")
PRUNE_ANCESTORS = PRUNE("ancestors")
PRUNE_TARGETS = PRUNE("targets")
PRUNE_OTHERS = PRUNE("others")
PRUNE_DEEP = PRUNE("deep")
PRUNE_SEEN = PRUNE("ancestors", "others", "targets")


def named(nodes, order):
    """The nodes of a set as sorted labels "#i Name", i their place in ``order``."""
    if not isinstance(nodes, (set, frozenset, list, tuple)):
        return f"an object of type {type(nodes).__name__}"
    place = {node: i for i, node in enumerate(order)}
    return sorted((f"#{place[n]} {n.name()}" if n in place else f"a node not in the graph ({n!r:.40})")
                  for n in set(nodes))


def prune_rule(seen, expected, target_labels):
    """The rule a wrong set breaks, judged from how it differs."""
    if not isinstance(seen, list):
        return PRUNE_ANCESTORS
    extra = [n for n in seen if n not in expected and n not in target_labels]
    if extra:
        return PRUNE_OTHERS
    if (set(seen) ^ set(expected)) & set(target_labels):
        return PRUNE_TARGETS
    return PRUNE_ANCESTORS


def expect_pruned(fn, cases):
    """fn (your nodes_to_run) on each case {label: (the graph's nodes in order, targets,
    expected labels)}; a target outside the graph is named after the graph's nodes."""
    for label, (order, targets, expected) in cases.items():
        names = order + [t for t in targets if t not in order]
        target_labels = named(targets, names)
        what = f"nodes_to_run(every node of {label}, targets {target_labels})"
        seen = named(call(fn, set(order), set(targets), what=what, rule=PRUNE_ANCESTORS), names)
        _expect_equal(seen, expected, what, prune_rule(seen, expected, target_labels))


def prune_cases():
    """{label: (the graph's nodes in order, the target nodes)} of six graphs and their targets."""
    edge = ag.autograd.graph.get_gradient_edge
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    bias = ag.tensor([0.5], requires_grad=True)
    h = w * 3
    loss = (h * w + bias).sum()
    order = ag.viz.graph_nodes(loss)       # the nodes in a fixed order, to name them "#3 MulBackward0"
    cases = {"loss = (h * w + bias).sum(), h = w * 3; the targets of inputs=[w]": (order, [edge(w).node]),
             "the same loss; inputs=[h]": (order, [edge(h).node]),
             "the same loss; inputs=[h, w]": (order, [edge(h).node, edge(w).node]),
             "the same loss; inputs=[h, bias]": (order, [edge(h).node, edge(bias).node])}
    other = ag.tensor([1.0], requires_grad=True)
    cases["the same loss; inputs=[other], a leaf it does not use"] = (order, [edge(other).node])
    a, b, c = ag.unbind(ag.tensor([[1.0], [2.0], [3.0]], requires_grad=True) * 2)
    out = (a * b).sum() + c.exp().sum()
    cases["out = (a * b).sum() + c.exp().sum(), a, b, c = unbind(m * 2); inputs=[c]"] = (
        ag.viz.graph_nodes(out), [edge(c).node])
    return cases


def _pruned_cases(cases):
    """The cases with the library's answer added."""
    reference = exercises.reference("04.nodes_to_run")
    return {label: (order, targets, named(reference(set(order), set(targets)),
                                          order + [t for t in targets if t not in order]))
            for label, (order, targets) in cases.items()}


def nodes_to_run(fn):
    """Your ``nodes_to_run`` called directly on the graph of section 6's loss with the
    targets of five ``inputs=`` lists (a leaf, a non-leaf, a non-leaf and the leaf below
    it, two branches, a leaf the loss does not use) and on a graph with ``unbind``: the
    set of nodes it returns (ancestors, targets, others)."""
    cases = _pruned_cases(prune_cases())
    with grading.checking("04.nodes_to_run", fn):
        expect_pruned(fn, cases)


def section6_graph():
    """The tensors of the engine check's graph: leaves w and v, h = w * 3, g = (h * v).tanh(),
    k = v.exp(), loss = (g * w).sum() + k.sum()."""
    w = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    v = ag.tensor([0.3, -0.1], dtype=ag.float64, requires_grad=True)
    h = w * 3
    g = (h * v).tanh()
    k = v.exp()
    return {"w": w, "v": v, "h": h, "g": g, "k": k, "loss": (g * w).sum() + k.sum()}


RANDOM_OPS = [("a * b", lambda a, b: a * b), ("a + b", lambda a, b: a + b),
              ("(a * 0.5).tanh() - b", lambda a, b: (a * 0.5).tanh() - b), ("a.exp() * 0.1", lambda a, b: a.exp() * 0.1)]


def random_graph(rng):
    """Leaves w and v, then three to eight tensors t0, t1, ..., each a random op of two earlier
    ones, and loss, the sum of all the t's."""
    tensors = {"w": ag.tensor(rng.standard_normal(2), requires_grad=True),
               "v": ag.tensor(rng.standard_normal(2), requires_grad=True)}
    for i in range(int(rng.integers(3, 9))):
        names = list(tensors)
        a, b = (tensors[names[int(rng.integers(len(names)))]] for _ in "ab")
        tensors[f"t{i}"] = RANDOM_OPS[int(rng.integers(len(RANDOM_OPS)))][1](a, b)
    tensors["loss"] = sum((t.sum() for n, t in tensors.items() if n.startswith("t")), ag.tensor(0.0))
    return tensors


def random_prune_case(seed):
    """A random graph and one to three of its tensors: (label, the graph's nodes, the targets)."""
    rng = np.random.default_rng(seed)
    tensors = random_graph(rng)
    names = [n for n in tensors if n != "loss"]
    wanted = [names[int(i)] for i in rng.choice(len(names), size=int(rng.integers(1, 4)), replace=False)]
    label = f"a random graph of {len(tensors) - 3} ops (seed {seed}), inputs={wanted}"
    return label, ag.viz.graph_nodes(tensors["loss"]), [ag.autograd.graph.get_gradient_edge(tensors[n]).node
                                                        for n in wanted]


def nodes_to_run_random(fn, rngs):
    """Your ``nodes_to_run`` on random graphs of three to eight ops and one to three random
    targets, against the library's version."""
    cases = {}
    for rng in rngs:
        label, order, targets = random_prune_case(int(rng.integers(2**32)))
        cases[label] = (order, targets)
    cases = _pruned_cases(cases)
    with grading.checking("04.nodes_to_run", fn):
        expect_pruned(fn, cases)


def pruned_story(seed=None):
    """What a user sees of the pruning: backward(inputs=...) and autograd.grad on a graph with
    a hook on every tensor, then the gradients, the .grad of every leaf and which hooks fired.
    Without a seed, five fixed calls on section6_graph(); with one, three on a random graph."""
    rng = np.random.default_rng(seed)
    tensors = section6_graph() if seed is None else random_graph(rng)
    fired = []
    for name, t in tensors.items():
        t.register_hook(lambda grad, name=name: fired.append(name))
    names = [n for n in tensors if n != "loss"]
    calls = ([("backward", ["w"]), ("backward", ["h"]), ("grad", ["h"]), ("grad", ["w", "h"]), ("grad", ["k"])]
             if seed is None else
             [("backward" if rng.integers(2) else "grad",
               [names[int(i)] for i in rng.choice(len(names), size=int(rng.integers(1, 3)), replace=False)])
              for _ in range(3)])
    leaves = [tensors["w"], tensors["v"]]
    story = []
    for kind, wanted in calls:
        fired.clear()
        inputs = [tensors[n] for n in wanted]
        for t in leaves:
            t.grad = None
        if kind == "backward":
            result = outcome(quietly, tensors["loss"].backward, inputs=inputs, retain_graph=True)
            grads = [t.grad for t in inputs]
        else:
            result = outcome(ag.autograd.grad, tensors["loss"], inputs, retain_graph=True, allow_unused=True)
            grads = list(result) if isinstance(result, tuple) else [result]
        story.append((f"{kind} of loss with inputs={wanted}",
                      [g if g is None or isinstance(g, str) else np.round(g.tolist(), 6).tolist() for g in grads],
                      [None if t.grad is None else np.round(t.grad.tolist(), 6).tolist() for t in leaves],
                      sorted(set(fired))))
    return story


def deep_chain_grad(length=3000, middle=1500):
    """autograd.grad through a chain of ``length`` additions, to the tensor after addition
    number ``middle``: its gradient, or the error."""
    t = ag.tensor([1.0], requires_grad=True)
    wanted = None
    for i in range(length):
        t = t + 1
        if i == middle:
            wanted = t
    return outcome(lambda: ag.autograd.grad(t.sum(), [wanted])[0].tolist())


def nodes_to_run_in_the_engine(fn):
    """Your ``nodes_to_run`` inside ``backward(inputs=...)`` and ``autograd.grad``, on a graph
    with a hook on every tensor: ``backward(inputs=[w])``, ``backward(inputs=[h])``,
    ``autograd.grad`` of ``h``, of ``w`` and ``h``, of a branch ``k``: the gradients, every
    leaf's ``.grad`` and which hooks fired; then ``autograd.grad`` halfway up a chain of 3000
    additions (deep)."""
    with library_version("04"):
        expected = pruned_story()
    with grading.checking("04.nodes_to_run", fn):
        seen = pruned_story()
        chain = deep_chain_grad()
    for s, e in zip(seen, expected):
        _expect_equal(s, e, f"{e[0]}: (the call, the gradients, (w.grad, v.grad), the hooks that fired)", PRUNE_SEEN)
    _expect_equal(chain, [1.0], "autograd.grad(chain.sum(), [the tensor halfway up a chain of 3000 additions])",
                  PRUNE_DEEP)


def nodes_to_run_in_the_engine_random(fn, rngs):
    """``backward(inputs=...)`` and ``autograd.grad`` on random graphs with a hook on every
    tensor, and ``autograd.grad`` up two chains of random length."""
    seeds = [int(rng.integers(2**32)) for rng in rngs]
    chains = [(int(rng.integers(1200, 2500)), int(rng.integers(0, 1200))) for rng in rngs[:2]]
    with library_version("04"):
        expected = [pruned_story(seed) for seed in seeds]
        expected_chains = [deep_chain_grad(n, m) for n, m in chains]
    with grading.checking("04.nodes_to_run", fn):
        seen = [pruned_story(seed) for seed in seeds]
        seen_chains = [deep_chain_grad(n, m) for n, m in chains]
    for seed, s, e in zip(seeds, seen, expected):
        _expect_equal(s, e, f"a random graph with a hook on every tensor (seed {seed}): for each call, the gradients, "
                            "(w.grad, v.grad) and the hooks that fired", PRUNE_SEEN)
    for (n, m), s, e in zip(chains, seen_chains, expected_chains):
        _expect_equal(s, e, f"autograd.grad through a chain of {n} additions, to the tensor after addition {m}",
                      PRUNE_DEEP)
