"""Visible checks of assignment 04, exercise 1: ``accumulate_grad``, how a leaf's ``.grad`` is filled
and added to.

``autograd_course.checks.leaves`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the function you wrote, and its
docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the same
cells run: the same rules on random leaves and backward passes drawn from the generators the cell
passes.  The constants are the rules the checks name (``grading.rules("04.accumulate_grad")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import array_of, error_of, library_version, quietly

from .leaf_stories import (_expect_close, _expect_equal, _expect_stories, _expect_true, _no_error, _own_memory,
                           _random_leaf_values, _seeds)

__all__ = ["accumulate_grad", "accumulate_grad_in_the_engine", "accumulate_grad_random",
           "accumulate_grad_in_the_engine_random", "ACCUMULATE_COPY", "ACCUMULATE_ADDS", "ACCUMULATE_IN_PLACE",
           "ACCUMULATE_CREATE_GRAPH", "ACCUMULATE_UNTOUCHED"]

ACCUMULATE = grading.rules("04.accumulate_grad")
ACCUMULATE_COPY = ACCUMULATE("copy")
ACCUMULATE_ADDS = ACCUMULATE("adds")
ACCUMULATE_IN_PLACE = ACCUMULATE("later")
ACCUMULATE_CREATE_GRAPH = ACCUMULATE("later")
ACCUMULATE_UNTOUCHED = ACCUMULATE("copy")


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
