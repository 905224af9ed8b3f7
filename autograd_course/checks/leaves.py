"""Visible checks of assignment 04: leaves, ``retain_grad`` and accumulation.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  The constants are the rules that the checks
name when one fails (the hidden tests name them too): ``ACCUMULATE_...`` for
exercise 1, ``RETAIN_...`` for exercise 2, ``STORE_...`` for exercise 3, ``HOOKS_...``
for exercise 4, ``PRUNE_...`` for exercise 5.  Exercise 6's checks (``grad_results``) are in
``grad_results.py``, imported here.

Why one module of this length: it is the visible half of the notebook's 9 test cells,
one function per cell, kept together so that a student reads one file per notebook.
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import error_of, library_version, outcome, quietly

from .grad_results import grad_results, grad_results_in_the_engine  # noqa: F401  (exercise 6)

__all__ = ["accumulate_grad", "accumulate_grad_in_the_engine", "ACCUMULATE_FIRST_COPY", "ACCUMULATE_ADDS",
           "ACCUMULATE_IN_PLACE", "ACCUMULATE_VERSION", "ACCUMULATE_UNTOUCHED", "ACCUMULATE_OUT_OF_PLACE",
           "ACCUMULATE_RECORDED", "retain_grad", "retain_grad_in_the_engine", "registry_summary",
           "RETAIN_NO_GRAD", "RETAIN_LEAF", "RETAIN_REGISTER", "RETAIN_WEAK", "store_retained_grad",
           "store_retained_grad_in_the_engine", "STORE_FIRST_COPY", "STORE_ADDS", "STORE_OUT_OF_PLACE",
           "STORE_UNTOUCHED", "call_tensor_hooks", "HOOKS_REPLACE", "HOOKS_NONE_KEEPS", "HOOKS_CHAIN",
           "HOOKS_SKIP", "HOOKS_RETAIN_LAST", "HOOKS_NOTHING", "HOOKS_GONE",
           "nodes_to_run", "nodes_to_run_in_the_engine", "named", "expect_pruned", "prune_cases",
           "section6_graph", "random_graph", "random_prune_case", "pruned_story", "deep_chain_grad",
           "grad_results", "grad_results_in_the_engine", "PRUNE_ANCESTORS", "PRUNE_TARGET", "PRUNE_OTHERS", "PRUNE_DEEP"]


# Exercise 1, accumulate_grad: the rules its checks name.
ACCUMULATE_FIRST_COPY = ("the first gradient (when .grad is None) is stored as a copy: new_grad.clone(), "
                         "never new_grad itself or a view of its memory")
ACCUMULATE_ADDS = "a later gradient is added to .grad, not stored in its place"
ACCUMULATE_IN_PLACE = "without grad mode (a normal backward), a later gradient is added in place: .grad stays the same tensor"
ACCUMULATE_VERSION = "an in-place addition bumps the version counter of .grad (t.add_(u) does it)"
ACCUMULATE_UNTOUCHED = "accumulating never modifies the incoming gradient"
ACCUMULATE_OUT_OF_PLACE = ("in grad mode (create_graph=True), a later gradient is added out of place: "
                           "variable._grad = variable._grad + new_grad, a new tensor")
ACCUMULATE_RECORDED = "in grad mode (create_graph=True), the copy is recorded: new_grad.clone(), not new_grad.detach().clone()"


def accumulate_grad(fn):
    """Your ``accumulate_grad`` called as the engine calls it in a normal backward
    (grad mode off), twice on one leaf; then two ``backward()`` calls through the
    engine; then ``backward(g)`` with a gradient ``g`` of your own, twice.  The first
    gradient must be stored as a copy, later ones added in place (bumping the version
    of ``.grad``), and no incoming gradient may change."""
    # Checks of exercise 1: how accumulate_grad updates a leaf's gradient.
    with grading.checking("04.accumulate_grad", fn):
        # 1. Called as the engine calls it in a normal backward (grad mode off).
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        g1 = ag.tensor([0.5, 1.0, 2.0])
        g2 = ag.tensor([10.0, 20.0, 30.0])
        with ag.no_grad():
            error = error_of(lambda: fn(x, g1))
        grading.expect_equal(error or "no error", "no error", what="accumulate_grad(x, g1) when x._grad is None",
                             rule=ACCUMULATE_FIRST_COPY)
        grading.expect_close(x._grad, [0.5, 1.0, 2.0], what="x._grad after accumulate_grad(x, g1)", rule=ACCUMULATE_FIRST_COPY)
        grading.expect_true(x._grad is not g1 and not np.shares_memory(x._grad._data, g1._data),
                            what="x._grad is a copy of g1, with memory of its own",
                            seen="g1 itself" if x._grad is g1 else "a tensor that shares g1's memory", rule=ACCUMULATE_FIRST_COPY)
        first, version = x._grad, x._grad._version
        with ag.no_grad():
            error = error_of(lambda: fn(x, g2))
        grading.expect_equal(error or "no error", "no error", what="accumulate_grad(x, g2) when x._grad exists",
                             rule=ACCUMULATE_ADDS)
        grading.expect_close(x._grad, [10.5, 21.0, 32.0], what="x._grad after accumulate_grad(x, g1) and (x, g2)",
                             rule=ACCUMULATE_ADDS)
        grading.expect_true(x._grad is first, what="`x._grad is first` (the tensor that the first call stored)",
                            seen="a new tensor", rule=ACCUMULATE_IN_PLACE)
        grading.expect_equal(first._version, version + 1, what="x._grad._version after the second call (it was "
                             f"{version})", rule=ACCUMULATE_VERSION)
        grading.expect_close(g1, [0.5, 1.0, 2.0], what="g1 after both calls", rule=ACCUMULATE_UNTOUCHED)
        grading.expect_close(g2, [10.0, 20.0, 30.0], what="g2 after both calls", rule=ACCUMULATE_UNTOUCHED)

        # 2. Through the engine: two backward calls add up.
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        error = error_of(lambda: (x ** 2).sum().backward())
        grading.expect_equal(error or "no error", "no error", what="(x ** 2).sum().backward()", rule=ACCUMULATE_FIRST_COPY)
        grading.expect_close(x.grad, [2.0, 4.0, 6.0], what="x.grad after one (x ** 2).sum().backward()", rule=ACCUMULATE_FIRST_COPY)
        first = x.grad
        error = error_of(lambda: (x ** 2).sum().backward())
        grading.expect_equal(error or "no error", "no error", what="a second (x ** 2).sum().backward()", rule=ACCUMULATE_ADDS)
        grading.expect_close(x.grad, [4.0, 8.0, 12.0], what="x.grad after two (x ** 2).sum().backward()",
                             rule="the gradients of successive backward calls add up in .grad")
        grading.expect_true(x.grad is first, what="`x.grad is first` after the second backward", seen="a new tensor",
                            rule=ACCUMULATE_IN_PLACE)

        # 3. The gradient you pass to backward stays yours.
        x = ag.ones(2, requires_grad=True)
        g = ag.tensor([1.0, 2.0])
        error = error_of(lambda: (x + 0).backward(g))
        grading.expect_equal(error or "no error", "no error", what="(x + 0).backward(g)", rule=ACCUMULATE_FIRST_COPY)
        grading.expect_true(x.grad is not None and not np.shares_memory(x.grad._data, g._data),
                            what="x.grad after (x + 0).backward(g) has memory of its own",
                            seen="None" if x.grad is None else "it shares g's memory", rule=ACCUMULATE_FIRST_COPY)
        error = error_of(lambda: (x + 0).backward(g))
        grading.expect_equal(error or "no error", "no error", what="a second (x + 0).backward(g)", rule=ACCUMULATE_ADDS)
        grading.expect_close(g, [1.0, 2.0], what="your tensor g after a second (x + 0).backward(g)", rule=ACCUMULATE_FIRST_COPY)
        grading.expect_close(x.grad, [2.0, 4.0], what="x.grad after two (x + 0).backward(g)",
                             rule="the gradients of successive backward calls add up in .grad")


def accumulate_grad_in_the_engine(fn):
    """Your ``accumulate_grad`` inside the engine: a weight ``W`` used in two layers,
    a hook that keeps the gradient arriving at a leaf, and two
    ``backward(create_graph=True)`` calls, whose sum must be a new, recorded ``.grad``
    that can be differentiated again."""
    # Checks of exercise 1 inside the engine: a shared weight, a hook, and create_graph=True.
    with grading.checking("04.accumulate_grad", fn):
        x = ag.tensor([[1.0, -1.0]])
        W = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        error = error_of(lambda: ((x @ W) @ W).sum().backward())
        grading.expect_equal(error or "no error", "no error", what="((x @ W) @ W).sum().backward()",
                             rule="the first gradient (when .grad is None) is stored as a copy")
        grading.expect_close(W.grad, [[1.0, 5.0], [-5.0, -9.0]],
                             what="W.grad for loss = ((x @ W) @ W).sum(): W used in two layers",
                             rule="the gradients of both uses of a weight add up in its .grad")

        # A hook on the leaf keeps the gradient that arrives: .grad must not share its memory.
        v = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        kept = []
        v.register_hook(lambda grad: kept.append(grad))
        error = error_of(lambda: (v * 2.0).sum().backward())
        grading.expect_true(error is None and v.grad is not None and not np.shares_memory(v.grad._data, kept[0]._data),
                            what="v.grad after (v * 2).sum().backward() has memory of its own (a hook kept the incoming "
                                 "gradient)", seen=error or ("None" if v.grad is None else "it shares the incoming gradient's memory"),
                            rule="the first gradient (when .grad is None) is stored as a copy: new_grad.clone()")

        # create_graph=True: .grad is part of a graph.
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        error = error_of(lambda: quietly(lambda: (x ** 3).sum().backward(create_graph=True)))
        grading.expect_equal(error or "no error", "no error", what="(x ** 3).sum().backward(create_graph=True)",
                             rule=ACCUMULATE_RECORDED)
        grading.expect_close(x.grad, [3.0, 12.0, 27.0], what="x.grad after one backward(create_graph=True)",
                             rule=ACCUMULATE_RECORDED)
        grading.expect_equal(x.grad.requires_grad, True, what="x.grad.requires_grad after backward(create_graph=True)",
                             rule=ACCUMULATE_RECORDED)
        first = x.grad
        error = error_of(lambda: quietly(lambda: (x ** 3).sum().backward(create_graph=True)))
        grading.expect_equal(error or "no error", "no error", what="a second (x ** 3).sum().backward(create_graph=True)",
                             rule=ACCUMULATE_OUT_OF_PLACE)
        grading.expect_close(x.grad, [6.0, 24.0, 54.0], what="x.grad after two backward(create_graph=True)",
                             rule="the gradients of successive backward calls add up in .grad")
        grading.expect_true(x.grad is not first, what="x.grad is a new tensor after the second backward(create_graph=True)",
                            seen="the same tensor, changed in place", rule=ACCUMULATE_OUT_OF_PLACE)
        grading.expect_close(first, [3.0, 12.0, 27.0], what="the first x.grad after the second backward(create_graph=True)",
                             rule=ACCUMULATE_OUT_OF_PLACE)
        gx = x.grad
        x.grad = None
        error = error_of(lambda: gx.sum().backward())
        grading.expect_equal(error or "no error", "no error", what="gx.sum().backward() with gx = x.grad (= 6 x**2)",
                             rule="in grad mode the sum is recorded, so .grad can be differentiated again")
        grading.expect_close(x.grad, [12.0, 24.0, 36.0], what="x.grad of gx.sum(), gx = x.grad after two "
                             "backward(create_graph=True) of (x ** 3).sum(): d/dx of 6 x**2",
                             rule="in grad mode the sum is recorded, so .grad can be differentiated again")


# Exercise 2, retain_grad: the rules its checks name.
RETAIN_NO_GRAD = "retain_grad refuses a tensor that does not require grad, with PyTorch's RuntimeError"
RETAIN_LEAF = "on a leaf, retain_grad does nothing: a leaf keeps its .grad anyway (retains_grad stays False)"
RETAIN_REGISTER = ("on a non-leaf, retain_grad sets tensor._retains_grad = True and registers weakref.ref(tensor) in "
                   "tensor.grad_fn._retains_grad (a dict to create when it is None) under tensor._output_nr")
RETAIN_WEAK = "the graph must not keep the tensor alive: register weakref.ref(tensor), not the tensor"


def registry_summary(node):
    """What ``node._retains_grad`` holds, without memory addresses: ``'None'``, the type of
    something that is not a dict, or the dict ``{output number: type name of the entry}``."""
    registry = node._retains_grad
    if not isinstance(registry, dict):
        return repr(registry) if registry is None else f"a {type(registry).__name__}"
    return {k: type(v).__name__ for k, v in registry.items()}


def retain_grad(fn):
    """Your ``retain_grad`` on its three cases: a tensor that does not require grad
    (PyTorch's ``RuntimeError``), a leaf (nothing to do) and a non-leaf ``b = leaf * 3``,
    called twice.  For the non-leaf it looks at ``b.retains_grad`` and at what
    ``b.grad_fn._retains_grad`` holds."""
    # Checks of exercise 2: the three cases of retain_grad.
    with grading.checking("04.retain_grad", fn):
        constant = ag.tensor([1.0, 2.0])
        grading.expect_raises(lambda: fn(constant), RuntimeError,
                              "can't retain_grad on Tensor that has requires_grad=False",
                              what="retain_grad(ag.tensor([1., 2.])), a tensor that does not require grad", rule=RETAIN_NO_GRAD)

        leaf = ag.tensor([1.0, 2.0], requires_grad=True)
        error = error_of(lambda: fn(leaf))
        grading.expect_equal(error or "no error", "no error", what="retain_grad(leaf), a leaf that requires grad", rule=RETAIN_LEAF)
        grading.expect_equal(leaf.retains_grad, False, what="leaf.retains_grad after retain_grad(leaf)", rule=RETAIN_LEAF)

        b = leaf * 3.0
        error = error_of(lambda: fn(b))
        grading.expect_equal(error or "no error", "no error", what="retain_grad(b) for b = leaf * 3", rule=RETAIN_REGISTER)
        grading.expect_equal(b.retains_grad, True, what="b.retains_grad after retain_grad(b)", rule=RETAIN_REGISTER)
        grading.expect_equal(registry_summary(b.grad_fn), {0: "ReferenceType"},
                             what="b.grad_fn._retains_grad after retain_grad(b) (values shown by type)", rule=RETAIN_REGISTER)
        grading.expect_true(b.grad_fn._retains_grad[0]() is b, what="b.grad_fn._retains_grad[0]() is b",
                            seen="another object", rule=RETAIN_REGISTER)

        error = error_of(lambda: fn(b))
        grading.expect_equal(error or "no error", "no error", what="a second retain_grad(b)",
                             rule="calling retain_grad twice is harmless")
        grading.expect_equal((b.retains_grad, registry_summary(b.grad_fn)), (True, {0: "ReferenceType"}),
                             what="(b.retains_grad, b.grad_fn._retains_grad) after a second retain_grad(b)",
                             rule="calling retain_grad twice is harmless")
        grading.expect_true(b.grad_fn._retains_grad[0]() is b, what="b.grad_fn._retains_grad[0]() is b after a second call",
                            seen="another object", rule="calling retain_grad twice is harmless")


def retain_grad_in_the_engine(fn):
    """Your ``retain_grad`` inside the engine, through ``t.retain_grad()``: the worked
    example ``c = (3 * a**3) * a``, the two outputs of one ``unbind`` node retained
    together, and a retained tensor that goes out of scope while its graph lives on
    (the graph must not keep it alive, and backward must still work)."""
    # Checks of exercise 2 inside the engine: the worked example, several outputs, the weak reference.
    with grading.checking("04.retain_grad", fn):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = 3 * a ** 3
        c = b * a
        error = error_of(b.retain_grad)
        grading.expect_equal(error or "no error", "no error", what="b.retain_grad() for b = 3 * a**3",
                             rule="on a non-leaf, retain_grad registers the tensor with its grad_fn")
        c.backward(gradient=ag.tensor([1.0, 1.0]))
        grading.expect_close(b._grad, [1.0, 2.0], what="b.grad after b.retain_grad(); c.backward(gradient=[1., 1.]), c = b * a",
                             rule="on a non-leaf, retain_grad registers the tensor with its grad_fn, so backward stores its gradient")
        grading.expect_close(a.grad, [12.0, 96.0], what="a.grad in the same example",
                             rule="retain_grad changes nothing about the leaves' gradients")

        w = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        p, q = w.unbind(0)
        errors = [error_of(p.retain_grad), error_of(q.retain_grad)]
        grading.expect_equal(errors, [None, None], what="errors of p.retain_grad() and q.retain_grad() for p, q = w.unbind(0)",
                             rule="retain_grad on a non-leaf raises nothing")
        (p * 2.0 + q * 3.0).sum().backward()
        grading.expect_close(q._grad, [3.0, 3.0], what="q.grad after (p * 2 + q * 3).sum().backward(); q is output 1 "
                             "of the UnbindBackward0 node", rule="register the tensor under its own output number: "
                             "tensor.grad_fn._retains_grad[tensor._output_nr]")
        grading.expect_close(p._grad, [2.0, 2.0], what="p.grad in the same example; p is output 0, registered before q",
                             rule="keep the entries of the node's other outputs: add to an existing "
                                  "tensor.grad_fn._retains_grad dict, don't replace it")

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
        grading.expect_equal(error or "no error", "no error", what="b.retain_grad() inside build()",
                             rule="on a non-leaf, retain_grad registers the tensor with its grad_fn")
        grading.expect_true(not alive, what="b is freed when build() returns, although c's graph (which has b's node) lives on",
                            seen="b is still alive", rule=RETAIN_WEAK)
        c, probe, a = built[0]
        error = error_of(c.backward)
        grading.expect_equal(error or "no error", "no error", what="c.backward() after b was freed",
                             rule="the engine skips a weak reference whose tensor is gone")
        grading.expect_close(a.grad, [6.0, 6.0], what="a.grad for c = (2 * a * 3).sum()",
                             rule="retain_grad changes nothing about the leaves' gradients")


# Exercise 3, store_retained_grad: the rules its checks name.
STORE_FIRST_COPY = ("the first gradient (when .grad is None) is stored as a copy: grad.clone(), "
                    "never grad itself or a view of its memory")
STORE_ADDS = "a later gradient is added to the stored one, not stored in its place"
STORE_OUT_OF_PLACE = ("a later gradient is added out of place: tensor._grad = tensor._grad + grad, "
                      "so a .grad read earlier keeps its value")
STORE_UNTOUCHED = "storing a retained gradient never modifies the incoming gradient"


def store_retained_grad(fn):
    """Your ``store_retained_grad`` called directly, twice on one non-leaf ``y = x * 3``
    (grad mode off), then the worked example through ``backward()``.  The first
    gradient must be stored as a copy, the next one added out of place (the earlier
    ``.grad`` keeps its value), and no incoming gradient may change."""
    # Checks of exercise 3: how store_retained_grad stores a gradient.
    with grading.checking("04.store_retained_grad", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        g1 = ag.tensor([1.0, 2.0])
        g2 = ag.tensor([10.0, 20.0])
        with ag.no_grad():
            error = error_of(lambda: fn(y, g1))
        grading.expect_equal(error or "no error", "no error", what="store_retained_grad(y, g1) when y._grad is None",
                             rule=STORE_FIRST_COPY)
        grading.expect_close(y._grad, [1.0, 2.0], what="y._grad after store_retained_grad(y, g1)", rule=STORE_FIRST_COPY)
        grading.expect_true(y._grad is not g1 and not np.shares_memory(y._grad._data, g1._data),
                            what="y._grad is a copy of g1, with memory of its own",
                            seen="g1 itself" if y._grad is g1 else "a tensor that shares g1's memory", rule=STORE_FIRST_COPY)
        first = y._grad
        with ag.no_grad():
            error = error_of(lambda: fn(y, g2))
        grading.expect_equal(error or "no error", "no error", what="store_retained_grad(y, g2) when y._grad exists",
                             rule=STORE_ADDS)
        grading.expect_close(y._grad, [11.0, 22.0], what="y._grad after store_retained_grad(y, g1) and (y, g2)", rule=STORE_ADDS)
        grading.expect_true(y._grad is not first, what="y._grad is a new tensor after the second call",
                            seen="the same tensor, changed in place", rule=STORE_OUT_OF_PLACE)
        grading.expect_close(first, [1.0, 2.0], what="the tensor stored by the first call, after the second call",
                             rule=STORE_OUT_OF_PLACE)
        grading.expect_close(g1, [1.0, 2.0], what="g1 after both calls", rule=STORE_UNTOUCHED)
        grading.expect_close(g2, [10.0, 20.0], what="g2 after both calls", rule=STORE_UNTOUCHED)

        # The worked example.
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = 3 * a ** 3
        c = b * a
        b.retain_grad()
        error = error_of(lambda: c.backward(gradient=ag.tensor([1.0, 1.0])))
        grading.expect_equal(error or "no error", "no error", what="c.backward(gradient=[1., 1.]) with b retained",
                             rule=STORE_FIRST_COPY)
        grading.expect_close(b.grad, [1.0, 2.0], what="b.grad after b.retain_grad(); c.backward(gradient=[1., 1.]), c = b * a",
                             rule="backward stores the gradient that reaches a retained tensor")
        grading.expect_close(a.grad, [12.0, 96.0], what="a.grad in the same example", rule=STORE_UNTOUCHED)


def store_retained_grad_in_the_engine(fn):
    """Your ``store_retained_grad`` inside the engine: two ``backward`` calls through a
    retained tensor, a hook that doubles its gradient, a gradient ``g`` of your own
    passed to ``backward``, and ``backward(create_graph=True)``, whose stored copy must
    be recorded."""
    # Checks of exercise 3 inside the engine: two backward calls, hooks, your own gradient, create_graph=True.
    with grading.checking("04.store_retained_grad", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        y.retain_grad()
        z = (y * y).sum()
        error = error_of(lambda: z.backward(retain_graph=True))
        grading.expect_equal(error or "no error", "no error", what="z.backward(retain_graph=True), z = (y * y).sum()",
                             rule=STORE_FIRST_COPY)
        first = y.grad
        grading.expect_close(first, [6.0, 12.0], what="y.grad after one backward", rule=STORE_FIRST_COPY)
        error = error_of(z.backward)
        grading.expect_equal(error or "no error", "no error", what="a second z.backward()", rule=STORE_ADDS)
        grading.expect_close(y.grad, [12.0, 24.0], what="y.grad after two backward calls",
                             rule="retained gradients add up across backward calls")
        grading.expect_true(y.grad is not first, what="y.grad is a new tensor after the second backward",
                            seen="the same tensor, changed in place", rule=STORE_OUT_OF_PLACE)
        grading.expect_close(first, [6.0, 12.0], what="the first y.grad after the second backward", rule=STORE_OUT_OF_PLACE)
        grading.expect_close(x.grad, [36.0, 72.0], what="x.grad after the two backward calls", rule=STORE_UNTOUCHED)

        # A hook replaces the gradient: .grad keeps what the hook returned.
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        error = error_of(lambda: (y * y).sum().backward())
        grading.expect_equal(error or "no error", "no error", what="(y * y).sum().backward() with a hook on y",
                             rule=STORE_FIRST_COPY)
        grading.expect_close(y.grad, [12.0, 24.0], what="y.grad with a hook that doubles the gradient",
                             rule="the hooks run first: the stored gradient is the one they return")
        grading.expect_close(x.grad, [36.0, 72.0], what="x.grad with the same hook on y", rule=STORE_UNTOUCHED)

        # The gradient you pass to backward stays yours.
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2.0
        y.retain_grad()
        g = ag.tensor([1.0, 1.0])
        error = error_of(lambda: y.backward(g))
        grading.expect_true(error is None and y.grad is not None and not np.shares_memory(y.grad._data, g._data),
                            what="y.grad after y.backward(g) has memory of its own",
                            seen=error or ("None" if y.grad is None else "it shares g's memory"), rule=STORE_FIRST_COPY)

        # create_graph=True: the copy is recorded.
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x ** 2
        y.retain_grad()
        error = error_of(lambda: quietly(lambda: (y * y).sum().backward(create_graph=True)))
        grading.expect_equal(error or "no error", "no error", what="(y * y).sum().backward(create_graph=True) with y retained",
                             rule=STORE_FIRST_COPY)
        grading.expect_close(y.grad, [2.0, 8.0], what="y.grad after (y * y).sum().backward(create_graph=True), y = x ** 2",
                             rule=STORE_FIRST_COPY)
        grading.expect_equal(y.grad.requires_grad, True, what="y.grad.requires_grad after backward(create_graph=True)",
                             rule="with create_graph=True the copy is recorded: grad.clone(), not grad.detach().clone()")


# Exercise 4, call_tensor_hooks: the rules its checks name.
HOOKS_REPLACE = "a hook may return a replacement: the next hook, retain_grad and the node get it"
HOOKS_NONE_KEEPS = "a hook that returns None keeps the gradient as it was"
HOOKS_CHAIN = "each hook receives the gradient the previous hook left, in the order they were registered"
HOOKS_SKIP = "the hooks of an output that received no gradient (None) do not run"
HOOKS_RETAIN_LAST = "retain_grad stores the gradient after the hooks: the one that flows on"
HOOKS_NOTHING = "when no gradient arrived at all (grads is None), return None"
HOOKS_GONE = "a retained tensor that no longer exists (its weak reference gives None) is skipped"


def call_tensor_hooks(fn):
    """Your ``call_tensor_hooks`` on the node of ``y = x * 3`` with three hooks on ``y`` (one
    doubles, one returns None, one adds 1: what each receives and what flows on), with
    ``retain_grad`` (the stored gradient is the one after the hooks), with nothing arrived
    (``None``), on a node of two outputs where one received nothing, and for a retained tensor
    that was deleted; then ``backward()`` through PyTorch's example of section 5 and a hook on a
    leaf."""
    with grading.checking("04.call_tensor_hooks", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        seen = []
        y.register_hook(lambda g: (seen.append(("double", g.tolist())), g * 2)[1])
        y.register_hook(lambda g: seen.append(("look", g.tolist())))
        y.register_hook(lambda g: (seen.append(("add one", g.tolist())), g + 1)[1])
        y.retain_grad()
        out = fn(y.grad_fn, [ag.tensor([1.0, -1.0])])
        nothing = fn(y.grad_fn, None)
    grading.expect_equal(seen, [("double", [1.0, -1.0]), ("look", [2.0, -2.0]), ("add one", [2.0, -2.0])],
                         what="(hook, the gradient it received) for three hooks on y, given [1, -1]",
                         rule=f"{HOOKS_CHAIN}; {HOOKS_NONE_KEEPS}")
    grading.expect_true(isinstance(out, (list, tuple)) and len(out) == 1, what="what call_tensor_hooks returned",
                        seen=repr(out), rule="return the list of gradients, one per output of the node")
    grading.expect_close(out[0], [3.0, -1.0], what="the gradient that flows on: ([1, -1] * 2) + 1",
                         rule=HOOKS_REPLACE)
    grading.expect_close(y.grad, [3.0, -1.0], what="y.grad (y retains its gradient)", rule=HOOKS_RETAIN_LAST)
    grading.expect_equal(nothing, None, what="call_tensor_hooks(node, None)", rule=HOOKS_NOTHING)

    with grading.checking("04.call_tensor_hooks", fn):
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        u, v = w.unbind()
        calls = []
        u.register_hook(lambda g: (calls.append("u"), g * 10)[1])
        v.register_hook(lambda g: calls.append("v"))
        out = fn(u.grad_fn, [ag.tensor(1.5), None])
    grading.expect_equal(calls, ["u"], what="the hooks that ran when only u (output 0) received a gradient",
                         rule=HOOKS_SKIP)
    grading.expect_close(out[0], 15.0, what="the gradient of u after its hook (x 10)", rule=HOOKS_REPLACE)
    grading.expect_equal(out[1], None, what="the gradient of v, which received none", rule=HOOKS_SKIP)

    with grading.checking("04.call_tensor_hooks", fn):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        b.retain_grad()
        node = b.grad_fn
        del b
        gc.collect()
        out = fn(node, [ag.tensor([1.0, 1.0])])
    grading.expect_close(out[0], [1.0, 1.0], what="the gradient of a node whose retained tensor was deleted",
                         rule=HOOKS_GONE)

    with grading.checking("04.call_tensor_hooks", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        (y * y).sum().backward()
        leaf = ag.tensor([1.0, 1.0], requires_grad=True)
        leaf.register_hook(lambda g: g * 10)
        (leaf * 2).sum().backward()
    grading.expect_close(y.grad, [12.0, 24.0], what="y.grad in PyTorch's example (tensor([12., 24.]))",
                         rule=HOOKS_RETAIN_LAST)
    grading.expect_close(x.grad, [36.0, 72.0], what="x.grad in PyTorch's example (tensor([36., 72.]))",
                         rule=HOOKS_REPLACE)
    grading.expect_close(leaf.grad, [20.0, 20.0], what="leaf.grad with a hook x 10 on the leaf",
                         rule=HOOKS_REPLACE)


# Exercise 5, nodes_to_run: the rules its checks name.
PRUNE_ANCESTORS = ("a node runs when a wanted gradient's node can be reached from it along next_functions, "
                   "by one edge or more")
PRUNE_TARGET = ("a target's own node is in the set only when another target can be reached from it: "
                "the engine takes the target's gradient where it arrives, without running its node")
PRUNE_OTHERS = ("a node from which no target can be reached is not in the set: it does not run, no hook "
                "fires there and no other .grad is filled")
PRUNE_DEEP = "walk without recursion: a chain of thousands of nodes is deeper than Python's recursion limit"


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
        return PRUNE_TARGET
    return PRUNE_ANCESTORS


def expect_pruned(fn, cases):
    """fn (your nodes_to_run) on each case {label: (the graph's nodes in order, targets,
    expected labels)}; a target outside the graph is named after the graph's nodes."""
    for label, (order, targets, expected) in cases.items():
        names = order + [t for t in targets if t not in order]
        target_labels = named(targets, names)
        seen = named(fn(set(order), set(targets)), names)
        grading.expect_equal(seen, expected, what=f"nodes_to_run(every node of {label}, targets {target_labels})",
                             rule=prune_rule(seen, expected, target_labels))


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


def nodes_to_run(fn):
    """Your ``nodes_to_run`` called directly on the graph of section 6's loss with the
    targets of five ``inputs=`` lists (a leaf, a non-leaf, a non-leaf and the leaf below
    it, two branches, a leaf the loss does not use) and on a graph with ``unbind``: the
    set of nodes it returns."""
    reference = exercises.reference("04.nodes_to_run")
    cases = {label: (order, targets, named(reference(set(order), set(targets)),
                                           order + [t for t in targets if t not in order]))
             for label, (order, targets) in prune_cases().items()}
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
    return label, ag.viz.graph_nodes(tensors["loss"]), [ag.autograd.graph.get_gradient_edge(tensors[n]).node for n in wanted]


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
            quietly(tensors["loss"].backward, inputs=inputs, retain_graph=True)
            grads = [t.grad for t in inputs]
        else:
            grads = list(ag.autograd.grad(tensors["loss"], inputs, retain_graph=True, allow_unused=True))
        story.append((f"{kind} of loss with inputs={wanted}",
                      [None if g is None else np.round(g.tolist(), 6).tolist() for g in grads],
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
    additions."""
    with library_version("04"):
        expected = pruned_story()
    with grading.checking("04.nodes_to_run", fn):
        seen = pruned_story()
        chain = deep_chain_grad()
    for s, e in zip(seen, expected):
        grading.expect_equal(s, e, what=f"{e[0]}: (the call, the gradients, (w.grad, v.grad), the hooks that fired)",
                             rule=PRUNE_ANCESTORS + "; " + PRUNE_OTHERS + "; " + PRUNE_TARGET)
    grading.expect_equal(chain, [1.0], what="autograd.grad(chain.sum(), [the tensor halfway up a chain of 3000 "
                         "additions])", rule=PRUNE_DEEP)
