"""Visible checks of assignment 08: in-place operations and the version counter.

This is the notebook's ``check``.  Each function is the visible part of one test cell, run on
the function(s) you wrote; its docstring says what it tries, and a failure names the rule of
the task text it breaks.  The hidden tests in the cell check the same rules on random inputs.
The checks of exercise 1 (``safe_writes``) are in ``safe_writes.py``, those of exercises 3 and
4 (``view_grad_fn``, ``overlap_status``: tensors that share memory) in ``aliasing.py``; this
module imports them, and holds those of exercise 2, ``copy_slices_backward``.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .node_runs import no_gradient_functions

from .aliasing import (overlap_in_the_library, overlap_status, view_grad_fn,  # noqa: F401  (exercises 3, 4)
                       view_grad_fn_in_the_engine)
from .safe_writes import (backward_error, error_text, iadd, leaf_rule, saved_tensors_checked,  # noqa: F401
                          versions, versions_counted, without_hint)

__all__ = [
    "versions_counted", "saved_tensors_checked", "leaf_rule",
    "copy_slices_backward", "copy_slices_in_the_engine",
    "view_grad_fn", "view_grad_fn_in_the_engine", "overlap_status", "overlap_in_the_library",
    "error_text", "versions", "without_hint", "iadd", "backward_error",
    "gradients_of", "copy_slices_case", "copy_slices_rule", "base_gradient", "written_nodes",
    "expect_copy_slices", "expect_copy_slices_seen", "through_views", "WRITES",
    "SLICES", "CHAIN", "NOTHING", "OTHERS", "KEEP_GRAD", "DIFFERENTIABLE", "ENGINE_RULES",
]


# --------------------------------------------------- 08.copy_slices_backward

SLICES = grading.rules("08.copy_slices_backward")
CHAIN = SLICES("chain")
NOTHING = SLICES("nothing")
OTHERS = SLICES("others")
KEEP_GRAD = SLICES("keep-grad")
DIFFERENTIABLE = SLICES("differentiable")
ENGINE_RULES = SLICES("chain", "others", "keep-grad", "differentiable", "nothing")


def gradients_of(grads):
    """Each gradient of a list as (shape, dtype, values), None as None: comparable with ==."""
    return [None if g is None else (tuple(g.shape), str(g.dtype), np.round(g.tolist(), 9).tolist())
            if isinstance(g, ag.Tensor) else repr(g) for g in grads]


def copy_slices_rule(seen, expected):
    """The rule a wrong answer breaks, judged from where it differs: one gradient per entry of
    ``next_functions``, the base's first (a list of the wrong length, a right base gradient, or
    None for the base), else the chain rule, which is also what an error is blamed on."""
    if isinstance(seen, str) and "Error" in seen.split(":")[0]:       # it raised
        return CHAIN
    if not isinstance(seen, list) or len(seen) != len(expected) or seen[0] == expected[0] or seen[0] is None:
        return OTHERS
    return CHAIN


def copy_slices_case(fn, node, grad):
    """``fn(node, [grad])`` as comparable gradients, and whether ``grad`` kept its values."""
    before = grad.tolist()
    returned = outcome(fn, node, [grad])
    if isinstance(returned, str):                           # the error it raised
        return returned, grad.tolist() == before
    return (gradients_of(list(returned)) if isinstance(returned, (list, tuple)) else repr(returned),
            grad.tolist() == before)


def base_gradient(node, seed=0):
    """A gradient for the base a CopySlices node belongs to: distinct values, the base's shape."""
    shape, dtype = node._input_meta[0]
    values = np.random.default_rng(seed).integers(-9, 10, size=shape).astype(dtype)
    return ag.tensor(values)


def written_nodes():
    """{label: the CopySlices node} of five writes through views."""
    x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    w = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
    m = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    nodes = {}
    b = x * 1
    b[1:4].mul_(10)
    nodes["b = x * 1; b[1:4].mul_(10)"] = b.grad_fn
    b = x * x
    b[::2].mul_(w)
    nodes["b = x * x; b[::2].mul_(w)"] = b.grad_fn
    b = m * 2
    b[0].copy_(w)
    nodes["b = m * 2; b[0].copy_(w)"] = b.grad_fn
    b = m * 2
    b[:, 1].add_(w[:2], alpha=3)
    nodes["b = m * 2; b[:, 1].add_(w[:2], alpha=3)"] = b.grad_fn
    b = ag.zeros(6)
    b[2:5].mul_(w)
    nodes["b = ag.zeros(6) (a constant); b[2:5].mul_(w)"] = b.grad_fn
    return nodes


def expect_copy_slices(fn, cases):
    """fn (your CopySlices backward) on each case {label: (node, grad, expected)}."""
    for label, (node, grad, expected) in cases.items():
        seen, kept = copy_slices_case(fn, node, grad)
        _expect_gradients(seen, expected, f"the gradients (shape, dtype, values) your function returns for the "
                          f"base of {label}, given {grad.tolist()}",
                          copy_slices_rule(seen, expected))
        grading.expect_true(kept, what=f"the gradient given for the base of {label} after your function ran",
                            rule=KEEP_GRAD)


def expect_copy_slices_seen(seen_cases, expected_cases):
    """Your function and the library's on the same random writes (a hidden test's story):
    {label: ((the gradients returned, whether the given gradient kept its values), the given
    gradient, the node)}, seen and expected."""
    for label, ((seen, kept), grad, node) in seen_cases.items():
        expected = expected_cases[label][0][0]
        _expect_gradients(seen, expected, f"the gradients (shape, dtype, values) your function returns for the "
                          f"base of {label}, given {grad}",
                          copy_slices_rule(seen, expected))
        grading.expect_true(kept, what=f"the gradient given for the base of {label} after your function ran",
                            rule=KEEP_GRAD)


def _expect_gradients(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def copy_slices_backward(fn):
    """Your function called directly on the ``CopySlices`` nodes of five writes through views
    (``mul_`` by a number and by a tensor, ``copy_``, ``add_`` into a column, a write into a
    constant base), each with a gradient of distinct values: the gradients it returns, and
    the gradient it was given, which must keep its values; then each node given ``[None]``
    (no gradient arrived)."""
    reference = exercises.reference("08.copy_slices_backward")
    cases = {}
    with library_version("08"):
        for n, (label, node) in enumerate(written_nodes().items()):
            expected = copy_slices_case(reference, node, base_gradient(node, seed=n))[0]
            cases[label] = (node, base_gradient(node, seed=n), expected)
    with grading.checking("08.copy_slices_backward", fn):
        expect_copy_slices(fn, cases)
        expect_nothing_arrived(fn, {label: node for label, (node, _, _) in cases.items()})


def expect_nothing_arrived(fn, nodes):
    """fn on each node {label: node} given ``[None]``: one None per entry of next_functions."""
    for label, node in nodes.items():
        seen = outcome(fn, node, [None])
        seen = list(seen) if isinstance(seen, (list, tuple)) else seen
        grading.expect_equal(seen, [None] * len(node.next_functions),
                             what=f"what your function returns for the base of {label}, given [None] "
                                  "(no gradient arrived)", rule=NOTHING)


def through_views(seed=None):
    """Writes through views of a base, then backward: the leaves' gradients (and the base's
    retained one).  Without a seed, the five fixed stories of the visible check; with one,
    a random story of one to three writes, second derivatives included."""
    stories = [lambda x, w: _story_section8(x, w), _story_weights, _story_shared, _story_twice,
               _story_second, _story_nothing] if seed is None else [lambda x, w: _random_story(x, w, seed)]
    results = []
    for story in stories:
        x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=ag.float64, requires_grad=True)
        w = ag.tensor([2.0, 3.0, 4.0], dtype=ag.float64, requires_grad=True)
        results.append(outcome(lambda: gradients_of(story(x, w))))
    return results


def _story_section8(x, w):
    b = x * 1
    u, v = b[3:], b[1:4]
    v.mul_(10)
    (u * ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64)).sum().backward()
    return [x.grad]


def _story_weights(x, w):
    b = x * x
    b[1:4].mul_(w)
    b.retain_grad()
    (b * ag.arange(6.0, dtype=ag.float64)).sum().backward()
    return [x.grad, w.grad, b.grad]


def _story_shared(x, w):
    b = x * 2
    d = x * 3
    b[::2].mul_(w)
    ((b + d) * ag.arange(6.0, dtype=ag.float64)).sum().backward()      # b and d get the same gradient
    return [x.grad, w.grad]


def _story_twice(x, w):
    b = (x * 1).view(2, 3)
    b[0].copy_(w)
    b[:, 2].mul_(w[1:])
    b[1, 0] = w[0] * 5
    (b * b).sum().backward()
    return [x.grad, w.grad]


def _story_second(x, w):
    b = x * x
    b[2:5].mul_(w)
    gx, gw = ag.autograd.grad((b * b).sum(), [x, w], create_graph=True)
    return [gx, gw] + list(ag.autograd.grad((gx * gx).sum() + gw.sum(), [x, w]))


def _story_nothing(x, w):
    drop, _ = no_gradient_functions([])
    b = x * x
    b[1:4].mul_(w)
    (drop.apply(b).sum() + (x * w.sum()).sum()).backward()       # no gradient reaches b's node
    return [x.grad, w.grad]


WRITES = [("mul_(w)", lambda v, w: v.mul_(w)), ("add_(w)", lambda v, w: v.add_(w)),
          ("sub_(w, alpha=2)", lambda v, w: v.sub_(w, alpha=2)), ("div_(w)", lambda v, w: v.div_(w)),
          ("copy_(w)", lambda v, w: v.copy_(w)), ("mul_(3)", lambda v, w: v.mul_(3)),
          ("clamp_(min=4)", lambda v, w: v.clamp_(min=4.0)), ("[...] = w * w", lambda v, w: v.__setitem__(
              Ellipsis, w * w))]
VIEWS = [lambda b: b[1:4], lambda b: b[::2], lambda b: b[3:], lambda b: b.view(2, 3)[:, 1],
         lambda b: b.view(3, 2)[1:, 0], lambda b: b[2:5]]


def _random_story(x, w, seed):
    rng = np.random.default_rng(seed)
    b = [x * 1, x * x, x.sin(), x * 2 + 1][int(rng.integers(4))]
    d = x * 3                       # b + d: the two get the same gradient tensor
    for _ in range(int(rng.integers(1, 4))):
        v = VIEWS[int(rng.integers(len(VIEWS)))](b)
        _, write = WRITES[int(rng.integers(len(WRITES)))]
        write(v, w[:v.shape[0]] if v.shape[0] <= 3 else w[:1])
    r = ag.tensor(rng.integers(-3, 4, size=6).astype(np.float64))
    if rng.integers(4) == 0:                # a Function that sends nothing back: b's node gets None
        drop, _ = no_gradient_functions([])
        (drop.apply(b).sum() + (x * w.sum() * r).sum()).backward()
        return [x.grad, w.grad]
    if rng.integers(2):
        gx, gw = ag.autograd.grad(((b + d) * b * r).sum(), [x, w], create_graph=True, allow_unused=True)
        return [gx, gw] + list(ag.autograd.grad((gx * gx).sum(), [x, w], allow_unused=True))
    ((b + d) * r).sum().backward()
    return [x.grad, w.grad]


def copy_slices_in_the_engine(fn):
    """Your function inside ``backward()``: the gradient of section 5's old view after
    ``v.mul_(10)``; a base multiplied through a view by a weight ``w``, with the base's
    retained gradient; a base whose gradient is also another node's (``b + d``); three writes
    into one base; and second derivatives through a write (``create_graph=True``)."""
    expected, seen = grading.side_by_side("08.copy_slices_backward", fn, lambda answer: through_views())
    labels = ["x.grad after b = x * 1; u, v = b[3:], b[1:4]; v.mul_(10); (u * [1, 2, 3]).sum().backward()",
              "(x.grad, w.grad, b.grad) after b = x * x; b[1:4].mul_(w); b.retain_grad(); (b * arange(6)).sum()"
              ".backward()",
              "(x.grad, w.grad) after b = x * 2; d = x * 3; b[::2].mul_(w); ((b + d) * arange(6)).sum()"
              ".backward()",
              "(x.grad, w.grad) after three writes into b = x.view(2, 3): b[0].copy_(w); b[:, 2].mul_(w[1:]); "
              "b[1, 0] = w[0] * 5; then (b * b).sum().backward()",
              "(gx, gw, and their second derivatives) through b = x * x; b[2:5].mul_(w), create_graph=True",
              "(x.grad, w.grad) after b = x * x; b[1:4].mul_(w); (Drop.apply(b).sum() + (x * w.sum()).sum())"
              ".backward(), where Drop's backward sends nothing back"]
    rules = [CHAIN, SLICES("keep-grad", "chain"), KEEP_GRAD, SLICES("chain", "others"),
             DIFFERENTIABLE, NOTHING]
    for label, rule, s, e in zip(labels, rules, seen, expected):
        _expect_gradients(s, e, label + " (shape, dtype, values)", rule)
