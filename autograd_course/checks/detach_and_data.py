"""Visible checks of assignment 07's exercise 3, ``detach_and_data``: ``.data`` and ``detach_()``.

Part of the notebook's ``check`` (``no_grad.py`` imports these); each function is the visible
part of one test cell, run on your two functions; its docstring says what it tries, and a
failure names the rule of the task text it breaks.  The hidden tests in the cells check the
same rules on random tensors.
"""

import warnings

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .grad_mode_programs import grad_mode_on

__all__ = ["detach_and_data", "detach_and_data_in_use", "detach_slots", "expect_fact", "check_data_facts",
           "check_detach_facts", "NEW_TENSOR", "NO_HISTORY", "SHARES", "OWN_COUNTER", "UNCHANGED",
           "VIEW", "CUTS", "RETURNS_SELF", "KEEPS", "VIEWS_REFUSE", "LEAF_OFF", "VIEW_UNCHANGED", "OUTPUT_NR",
           "INFERENCE", "HOOKS", "hook_story"]


# ------------------------------------------------------ 07.detach_and_data: .data

OUT = grading.rules("07.detach_and_data")
NEW_TENSOR = OUT("new")
NO_HISTORY = OUT("new")
SHARES = OUT("shares")
OWN_COUNTER = OUT("own-counter")
UNCHANGED = OUT("unchanged")
INFERENCE = OUT("inference")


def expect_fact(seen, expected, what, broken):
    """A fact of a random case as expected, or ``broken`` (the rule it belongs to) is named."""
    grading.expect_equal(seen, expected, what=what, rule=broken)


def check_data_facts(seen, expected, what):
    """What ``data(t)`` gave for a random ``t`` (a list of facts, or the error's text), rule by rule:
    [d is t, same array, same counter, d._version, d.requires_grad, no grad_fn, no base, dtype, shape,
    values, then after d.add_(1): the write's outcome, t._version, d._version, t's values, t unchanged,
    then (t.is_inference(), read inside inference_mode, d.is_inference())]."""
    if isinstance(seen, str) or isinstance(expected, str):
        grading.expect_equal(seen, expected, what=what, rule=NEW_TENSOR)
        return
    grading.expect_equal([seen[0]] + seen[4:7], [expected[0]] + expected[4:7],
                         what=f"[d is t, d.requires_grad, d.grad_fn is None, d._base is None] for {what}",
                         rule=NEW_TENSOR)
    grading.expect_equal([seen[1]] + seen[7:11] + [seen[13]], [expected[1]] + expected[7:11] + [expected[13]],
                         what=f"[same array, dtype, shape, values, d.add_(1), t's values after it] for {what}",
                         rule=SHARES)
    grading.expect_equal(seen[2:4] + seen[11:13], expected[2:4] + expected[11:13],
                         what=f"[same counter, d._version, then after d.add_(1): t._version, d._version] for {what}",
                         rule=OWN_COUNTER)
    grading.expect_equal(seen[14], expected[14], what=f"t's (version, requires_grad, grad_fn) unchanged, {what}",
                         rule=UNCHANGED)
    grading.expect_equal(seen[15:], expected[15:],
                         what=f"(t.is_inference(), d read inside inference_mode, d.is_inference()) for {what}",
                         rule=INFERENCE)


def check_detach_facts(seen, expected, what):
    """What ``detach_(t)`` did to a random ``t``, rule by rule: [returned t (or the error),
    grad_fn unchanged, grad_fn is None, _requires_grad, requires_grad, _output_nr, same array,
    same counter as an alias, _version, values, then what its hooks saw (hook_story)]."""
    refused = isinstance(expected[0], str) or isinstance(seen[0], str)
    grading.expect_equal(seen[0], expected[0], what=f"what detach_(t) returned (t itself) or raised, {what}",
                         rule=VIEWS_REFUSE if refused else RETURNS_SELF)
    grading.expect_equal(seen[1:5], expected[1:5],
                         what=f"[grad_fn unchanged, grad_fn is None, _requires_grad, requires_grad] after {what}",
                         rule=VIEWS_REFUSE if refused else CUTS)
    grading.expect_equal(seen[5], expected[5], what=f"t._output_nr after {what}",
                         rule=VIEWS_REFUSE if refused else OUTPUT_NR)
    grading.expect_equal(seen[6:10], expected[6:10], what=f"[same array, same counter, _version, values] after {what}",
                         rule=KEEPS)
    grading.expect_equal(seen[10:], expected[10:],
                         what=f"what t's hooks saw (hook_story: hook 1 before, hook 2 after) after {what}",
                         rule=VIEWS_REFUSE if refused else HOOKS)


def detach_slots(data, detach_):
    """The two slots that exercise 5 fills, for ``grading.checking``: your ``data`` and ``detach_``."""
    return {"07.data": data, "07.detach_": detach_}


def detach_and_data(data, detach_):
    """Your ``data``, then your ``detach_``.  ``data`` on ``y = x * 2``, then through the
    property ``y.data`` and ``x.data`` (float64): a new leaf without grad (new), on the same
    NumPy array (shares), with a version counter of its own (own-counter), the tensor itself as
    it was (unchanged), an inference tensor exactly when the tensor is (inference).  ``detach_`` on a
    non-leaf ``b = a * 3`` (cuts, returns-self, keeps), on a leaf that requires grad (cuts), on two
    views (views-refuse), on output 1 of a node with two outputs, the max of ``ag.aminmax(x)``
    (cuts), and on tensors with hooks, PyTorch's experiment (hooks)."""
    slots = detach_slots(data, detach_)
    _check_data(data, slots)
    _check_detach(detach_, slots)


def detach_and_data_in_use(data, detach_):
    """``.data`` on a view and on a tensor saved by a node (the saved version does not move);
    ``detach_()`` cutting a recurrence every 3 steps (as ``h.detach()`` would) and inside
    ``optimizer.zero_grad(set_to_none=False)`` on a ``.grad`` with a graph."""
    slots = detach_slots(data, detach_)
    _data_on_views_and_saved_tensors(data, slots)
    _detach_in_recurrence_and_zero_grad(detach_, slots)


def _check_data(fn, slots):
    grad_mode_on()
    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        d = outcome(fn, y)
    grading.expect_true(isinstance(d, ag.Tensor) and d is not y, what="data(y) for y = x * 2",
                        seen=repr(d) if not isinstance(d, ag.Tensor) else "y itself", rule=NEW_TENSOR)
    grading.expect_equal((d.grad_fn is None, d.requires_grad, d.is_leaf), (True, False, True),
                         what="(d.grad_fn is None, d.requires_grad, d.is_leaf) for d = data(y)",
                         rule=NO_HISTORY)
    grading.expect_true(d._data is y._data, what="data(y)._data is y._data",
                        seen="a different array" + (" (a copy)" if not np.shares_memory(d._data, y._data) else ""),
                        rule=SHARES)
    grading.expect_true(d._version_counter is not y._version_counter and d._version == 0,
                        what="data(y) has a new version counter, at 0",
                        seen=("y's own version counter" if d._version_counter is y._version_counter
                              else f"version {d._version}"),
                        rule=OWN_COUNTER)
    grading.expect_equal((y.requires_grad, type(y.grad_fn).__name__), (True, "MulBackward0"),
                         what="(y.requires_grad, type(y.grad_fn).__name__) after data(y)",
                         rule=UNCHANGED)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64, requires_grad=True)
        y = x * 2
        dd = y.data                       # the property, now your function
        dd[0] = 100.0
        seen = (grading.to_list(y), y._version, dd._version, dd.dtype)
        x.data.add_(1.0)
        leaf = (grading.to_list(x), x._version, x.requires_grad, x.is_leaf)
    grading.expect_equal(seen[0], [100.0, 4.0, 6.0], what="y after y.data[0] = 100", rule=SHARES)
    grading.expect_equal(seen[1:], (0, 1, ag.float64),
                         what="(y._version, dd._version, dd.dtype) after dd = y.data; dd[0] = 100",
                         rule=OWN_COUNTER)
    grading.expect_equal(leaf, ([2.0, 3.0, 4.0], 0, True, True),
                         what="(x, x._version, x.requires_grad, x.is_leaf) after x.data.add_(1) "
                              "on a leaf that requires grad",
                         rule=OWN_COUNTER)

    with grading.checking(slots):
        with ag.inference_mode():
            made_inside = ag.ones(2)
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        outside = [outcome(lambda: fn(t).is_inference()) for t in (made_inside, x)]
        with ag.inference_mode():
            inside = [outcome(lambda: fn(t).is_inference()) for t in (made_inside, x)]
    grading.expect_equal((outside, inside), ([True, False], [True, False]),
                         what="([data(i).is_inference(), data(x).is_inference()] read outside, then inside "
                              "inference_mode), i made inside inference_mode, x outside",
                         rule=INFERENCE)


def _data_on_views_and_saved_tensors(fn, slots):
    grad_mode_on()
    with grading.checking(slots):
        base = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        v = (base * 1)[1]                 # a view of a non-leaf
        dv = v.data
        view_state = (dv._base is None, dv.requires_grad, dv._data is v._data, grading.to_list(dv))
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        z = y * y
        saved = z.grad_fn._saved["self"]
        y.data.mul_(10.0)
        versions = (saved.version, y._version, grading.to_list(y))
    grading.expect_equal(view_state, (True, False, True, [3.0, 4.0]),
                         what="(dv._base is None, dv.requires_grad, dv._data is v._data, dv) for dv = v.data of a view v",
                         rule=NEW_TENSOR)
    grading.expect_equal(versions, (0, 0, [20.0, 40.0, 60.0]),
                         what="(saved version, y._version, y) after y.data.mul_(10), y saved by z = y * y",
                         rule=OWN_COUNTER)


# --------------------------------------------------- 07.detach_and_data: detach_()

VIEW = "Can't detach views in-place. Use detach() instead."
CUTS = OUT("cuts")
RETURNS_SELF = OUT("returns-self")
KEEPS = OUT("keeps")
VIEWS_REFUSE = OUT("views-refuse")
LEAF_OFF = OUT("cuts")
VIEW_UNCHANGED = OUT("views-refuse")
OUTPUT_NR = OUT("cuts")
HOOKS = OUT("hooks")


def hook_story(detach_, t, scale):
    """Hook 1 registered on ``t`` (it must require grad), ``c = t * 2`` recorded, ``detach_(t)``, then
    ``t.requires_grad_()``, hook 2 registered, ``(t * scale).sum().backward()`` and
    ``c.sum().backward()``: what the hooks saw, in order ((hook, gradient) pairs, or an error)."""
    seen = []
    t.register_hook(lambda g: seen.append(("hook 1", grading.to_list(g))))
    c = t * 2
    outcome(detach_, t)
    for step in (t.requires_grad_,
                 lambda: t.register_hook(lambda g: seen.append(("hook 2", grading.to_list(g)))),
                 lambda: (t * scale).sum().backward(), lambda: c.sum().backward()):
        result = outcome(step)
        if isinstance(result, str):
            seen.append(result)
            break
        seen.append("|")
    return seen


def _check_detach(fn, slots):
    grad_mode_on()
    with grading.checking(slots):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = a * 3
        array, counter = b._data, b._version_counter
        returned = outcome(fn, b)
    grading.expect_equal((b.grad_fn is None, b.requires_grad, b.is_leaf), (True, False, True),
                         what="(b.grad_fn is None, b.requires_grad, b.is_leaf) after detach_(b), b = a * 3", rule=CUTS)
    grading.expect_true(returned is b, what="detach_(b) returns b itself",
                        seen=repr(returned) if not isinstance(returned, ag.Tensor) else "another tensor",
                        rule=RETURNS_SELF)
    grading.expect_true(b._data is array and b._version_counter is counter and b._version == 0,
                        what="b keeps its NumPy array, its version counter and its version after detach_(b)",
                        seen="something changed", rule=KEEPS)
    grading.expect_close(b, [3.0, 6.0], what="the values of b after detach_(b)", rule=KEEPS)

    with grading.checking(slots):
        leaf = ag.tensor([1.0, 2.0], requires_grad=True)
        outcome(fn, leaf)
        leaf_state = (leaf.requires_grad, leaf.is_leaf)
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = (x * 1)[1:]
        view_node = v.grad_fn
        grading.expect_raises(lambda: fn(v), RuntimeError, VIEW, what="detach_(v) for a view v = (x * 1)[1:]",
                              rule=VIEWS_REFUSE)
        plain_view = ag.tensor([1.0, 2.0, 3.0])[1:]
        grading.expect_raises(lambda: fn(plain_view), RuntimeError, VIEW,
                              what="detach_(v) for a view v of a tensor without grad", rule=VIEWS_REFUSE)
        view_state = (v.grad_fn is view_node, v.requires_grad)
    grading.expect_equal(leaf_state, (False, True), what="(leaf.requires_grad, leaf.is_leaf) after detach_(leaf), "
                                                         "a leaf that required grad", rule=LEAF_OFF)
    grading.expect_equal(view_state, (True, True),
                         what="(v.grad_fn unchanged, v.requires_grad) after the refused detach_(v)",
                         rule=VIEW_UNCHANGED)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        first, second = ag.aminmax(x)                # one node, AminmaxBackward0: outputs 0 and 1
        outcome(fn, second)
        second_state = (second._output_nr, second.grad_fn is None, second.requires_grad)
    grading.expect_equal(second_state, (0, True, False),
                         what="(second._output_nr, second.grad_fn is None, second.requires_grad) after detach_(second), "
                              "the output 1 of (first, second) = ag.aminmax(x)", rule=OUTPUT_NR)

    stories = [("b = a * 3", lambda a: a * 3), ("output 1 of ag.aminmax(a * 3)", lambda a: ag.aminmax(a * 3)[1]),
               ("a, a leaf that requires grad", lambda a: a)]
    with library_version("07"):
        expected = [hook_story(lambda t: t.detach_(), make(ag.tensor([1.0, 2.0], requires_grad=True)), 5.0)
                    for _, make in stories]
    with grading.checking(slots):
        seen = [hook_story(fn, make(ag.tensor([1.0, 2.0], requires_grad=True)), 5.0) for _, make in stories]
    for (name, _), s, e in zip(stories, seen, expected):
        grading.expect_equal(s, e, what=f"what the hooks saw for t = {name}: hook 1 registered, c = t * 2, detach_(t), "
                                        "t.requires_grad_(), hook 2 registered, (t * 5).sum().backward(), "
                                        "c.sum().backward()", rule=HOOKS)


def _detach_in_recurrence_and_zero_grad(fn, slots):
    grad_mode_on()

    def recurrence(cut, steps=7, every=3):
        """h = tanh(w h + 1), cut every `every` steps by cut(h); returns (dh/dw, nodes behind h)."""
        w = ag.tensor(0.5, dtype=ag.float64, requires_grad=True)
        h = ag.tensor(1.0, dtype=ag.float64)
        for step in range(1, steps + 1):
            h = (w * h + 1).tanh()
            if step % every == 0:
                h = cut(h)
        nodes = len(ag.viz.graph_nodes(h))
        h.backward()
        return w.grad.item(), nodes

    with library_version("07"):
        expected = recurrence(lambda h: h.detach())
    with grading.checking(slots):
        seen = outcome(recurrence, lambda h: fn(h))
    grading.expect_true(isinstance(seen, tuple), what="the recurrence cut with detach_", seen=repr(seen),
                        rule=CUTS)
    grading.expect_close(seen[0], expected[0], rtol=1e-12,
                         what="dh/dw of the recurrence cut with detach_() every 3 steps (as with h = h.detach())",
                         rule=CUTS)
    grading.expect_equal(seen[1], expected[1], what="the number of nodes behind h at the end",
                         rule=CUTS)

    with grading.checking(slots):
        model = ag.nn.Linear(2, 1)
        optimizer = ag.optim.SGD(model.parameters(), lr=0.1)
        loss = model(ag.ones(2)).pow(2).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss.backward(create_graph=True)
        grad = model.weight.grad
        had_graph = grad.grad_fn is not None
        cleared = outcome(optimizer.zero_grad, set_to_none=False)
        state = (cleared, model.weight.grad is grad, grad.grad_fn is None, grad.requires_grad,
                 grading.to_list(grad))
    grading.expect_equal(had_graph, True, what="weight.grad has a grad_fn after backward(create_graph=True)",
                         rule=CUTS)
    grading.expect_equal(state, (None, True, True, False, [[0.0, 0.0]]),
                         what="(zero_grad result, same .grad object, grad_fn is None, requires_grad, values) "
                              "after optimizer.zero_grad(set_to_none=False)",
                         rule=CUTS)
