"""Visible checks of assignment 08: in-place operations and the version counter.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  The small helpers below (``versions``,
``without_hint``, ...) and the rules' texts are shared by the checks, the hidden
tests and the notebook's demos.

Why one module of this length: it is the visible half of the notebook's first 8 test cells,
one function per cell, kept together so that a student reads one file per notebook.
Exercises 5 and 6 (``view_grad_fn``, ``overlap_status``: tensors that share memory) have
their checks in ``aliasing.py``, imported here.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .aliasing import (overlap_in_the_library, overlap_status, view_grad_fn,  # noqa: F401  (exercises 5, 6)
                       view_grad_fn_in_the_engine)

__all__ = [
    "increment_version", "increment_version_in_the_library",
    "check_version", "check_version_in_the_engine",
    "check_inplace", "check_inplace_in_the_library",
    "error_text", "versions", "without_hint", "iadd", "expect_refusal", "expect_outcomes",
    "ONE", "ALWAYS", "SHARED", "VALUES", "EACH",
    "DETECT", "PASS", "SAVED_VERSION", "OUTPUT", "INPUT", "ERROR", "VERSIONS", "PREFIX",
    "LEAF_MESSAGE", "VIEW_MESSAGE", "LEAF", "VIEW", "NO_GRAD", "NOT_LEAF", "NO_GRAD_NEEDED",
    "copy_slices_backward", "copy_slices_in_the_engine",
    "gradients_of", "copy_slices_case", "copy_slices_rule", "base_gradient", "written_nodes",
    "expect_copy_slices", "through_views",
    "THROUGH", "PASS_ON", "OTHERS", "UNTOUCHED", "NONE_GIVEN",
    "view_grad_fn", "view_grad_fn_in_the_engine", "overlap_status", "overlap_in_the_library",
]


# ------------------------------------------------------------------ helpers

def error_text(value):
    """The error text of an outcome, or None when there was no error."""
    return value if isinstance(value, str) else None


def versions(*tensors):
    """The _version of each tensor, as a tuple."""
    return tuple(t._version for t in tensors)


def without_hint(text):
    """An error text without its " Hint: ..." sentence (the part where PyTorch's text differs)."""
    return text.split(" Hint:")[0] if isinstance(text, str) else text


def iadd(t, value):
    """t += value, as a function (a lambda cannot contain +=)."""
    t += value
    return t


# ------------------------------------------------------ 08.increment_version

ONE = ("increment_version adds exactly one to tensor._version_counter.value "
       "(tensor._version is a read-only property) and returns None")
ALWAYS = "every in-place write counts: also under no_grad, and for a tensor that does not require grad"
SHARED = ("the version counter is shared by every alias of the storage (views, detach()): "
          "increment it, never replace it")
VALUES = "increment_version only counts a write: it never changes the values"
EACH = "each in-place operation (add_, +=, t[...] = v, zero_, fill_, copy_, mul_) bumps the version by exactly one"


def increment_version(fn):
    """Your ``increment_version`` called directly: twice on a leaf that requires grad (it
    returns None, adds one each time, leaves the values alone), on a constant, under
    ``no_grad``, and on a non-leaf, one of its views and its ``detach()``, which share one
    counter: each call must move all three by one and keep the same counter object."""
    with grading.checking("08.increment_version", fn):
        # A tensor that requires grad, in grad mode: the common case.
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        first = outcome(fn, w)
        grading.expect_equal(first, None, what="increment_version(w) on a new tensor w", rule=ONE)
        grading.expect_equal(w._version, 1, what="w._version after one increment_version(w)", rule=ONE)
        outcome(fn, w)
        grading.expect_equal(w._version, 2, what="w._version after two calls of increment_version(w)", rule=ONE)
        grading.expect_equal(w.tolist(), [1.0, 2.0, 3.0], what="w's values after increment_version(w)",
                             rule=VALUES)

        # A tensor that does not require grad, and grad mode off.
        c = ag.tensor([1.0, 2.0])
        outcome(fn, c)
        grading.expect_equal(c._version, 1, what="c._version after increment_version(c), c = ag.tensor([1., 2.]) "
                             "(it does not require grad)", rule=ALWAYS)
        with ag.no_grad():
            outcome(fn, w)
        grading.expect_equal(w._version, 3, what="w._version after a third increment_version(w), under no_grad",
                             rule=ALWAYS)

        # Aliases of one storage share the counter.
        h = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True) * 2
        counter = h._version_counter
        view, alias = h[1:3], h.detach()
        outcome(fn, h)
        grading.expect_equal(versions(h, view, alias), (1, 1, 1),
                             what="(h, h[1:3], h.detach()) versions after increment_version(h)", rule=SHARED)
        outcome(fn, view)
        grading.expect_equal(versions(h, view, alias), (2, 2, 2),
                             what="(h, h[1:3], h.detach()) versions after increment_version(h[1:3])", rule=SHARED)
        outcome(fn, alias)
        grading.expect_equal(versions(h, view, alias), (3, 3, 3),
                             what="(h, h[1:3], h.detach()) versions after increment_version(h.detach())",
                             rule=SHARED)
        grading.expect_true(h._version_counter is counter and view._version_counter is counter,
                            what="h and its view still hold their original counter object",
                            seen="a new counter object", rule=SHARED)


def increment_version_in_the_library(fn):
    """Your ``increment_version`` inside the library: seven in-place writes (``add_``, ``+=``,
    ``x[0] = 5.``, ``zero_``, ``fill_``, ``copy_``, ``mul_``) must count one each and ``x + 1``
    none; writes through a view and ``detach()`` reach the base; an update under ``no_grad``
    and the addition into ``.grad`` of a second ``backward()`` count; and backward notices a
    write through ``detach()`` into a tensor that ``exp`` saved."""
    with grading.checking("08.increment_version", fn):
        x = ag.zeros(3)
        seen = []
        for write in (lambda: x.add_(1), lambda: iadd(x, 1), lambda: x.__setitem__(0, 5.0), x.zero_,
                      lambda: x.fill_(2.0), lambda: x.copy_(ag.ones(3)), lambda: x.mul_(2)):
            error = error_text(outcome(write))
            seen.append(error or x._version)
        grading.expect_equal(seen, [1, 2, 3, 4, 5, 6, 7],
                             what="x._version after x.add_(1), x += 1, x[0] = 5., x.zero_(), x.fill_(2.), "
                                  "x.copy_(ones), x.mul_(2)", rule=EACH)
        y = x + 1
        grading.expect_equal(versions(x, y), (7, 0), what="(x, y) versions after y = x + 1",
                             rule="an out-of-place operation writes nothing: no version changes")

        base = ag.zeros(4)
        view, alias = base[1:3], base.detach()
        outcome(view.mul_, 10)
        outcome(alias.add_, 1)
        grading.expect_equal(versions(base, view, alias), (2, 2, 2),
                             what="(base, base[1:3], base.detach()) versions after view.mul_(10), alias.add_(1)",
                             rule="the version counter is shared by every alias of the storage (views, detach())")

        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with ag.no_grad():
            outcome(lambda: iadd(w, -0.1))
        grading.expect_equal(w._version, 1, what="w._version after `w -= 0.1` under no_grad (w requires grad)",
                             rule="every in-place write counts: also under no_grad")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        outcome(lambda: (x ** 2).sum().backward())
        grad = x.grad
        outcome(lambda: (x ** 2).sum().backward())
        grading.expect_equal(None if grad is None else grad._version, 1,
                             what="x.grad._version after a second backward (it adds into .grad in place)",
                             rule="every in-place write counts: also the in-place addition into .grad, "
                                  "which runs with grad mode off")

        y = x.exp()
        loss = y.sum()
        outcome(lambda: y.detach().mul_(2))
        grading.expect_raises(loss.backward, RuntimeError, "has been modified by an inplace operation",
                              what="loss.backward() after y.detach().mul_(2), y = x.exp() (exp saves y)",
                              rule="a write through detach() bumps the shared counter, so backward notices it")


# ---------------------------------------------------------- 08.check_version

DETECT = "check_version refuses a saved tensor whose version moved on since it was saved"
PASS = "check_version lets an unmodified saved tensor through (it returns None)"
SAVED_VERSION = "compare with self.version, the version the tensor had when it was saved (not with 0)"
OUTPUT = "a saved output (is_output) is named after the node that saved it: producer = node"
INPUT = ("a saved input is named after its current grad_fn (the in-place op's node), "
         "or not at all when it has none: producer = tensor.grad_fn")
ERROR = "raise the RuntimeError that ag.graph.modified_by_inplace_error(tensor, producer, self.version) returns"
VERSIONS = ("the message gives the saved version as the expected one: "
            "modified_by_inplace_error(tensor, producer, self.version)")
PREFIX = ("RuntimeError: one of the variables needed for gradient computation has been modified by an "
          "inplace operation: ")


def expect_refusal(seen, middle, what, rule):
    """seen is the outcome of a check_version call that must raise PyTorch's error; middle is the
    expected text between "inplace operation: " and the hint; rule names the producer's rule."""
    if not isinstance(seen, str):
        grading.expect_equal(seen, PREFIX + middle + " Hint: [...]", what=what, rule=DETECT)
    grading.expect_true(seen.startswith(PREFIX), what=what, seen=seen, rule=ERROR)
    seen_tensor, _, seen_versions = without_hint(seen)[len(PREFIX):].partition(" is at version ")
    tensor, _, versions_ = middle.partition(" is at version ")
    grading.expect_equal(seen_tensor, tensor, what=f"the start of the message of {what}", rule=rule)
    grading.expect_equal("is at version " + seen_versions, "is at version " + versions_,
                         what=f"the end of the message of {what}", rule=VERSIONS)


def check_version(fn):
    """Your ``check_version`` called directly on saved tensors: exp's saved output before
    and after a write (named after ``Exp``, the node that saved it), a saved non-leaf input
    and a saved constant after writes (named after their current ``grad_fn``, or nothing),
    an unmodified one, and a tensor written before it was saved (compare with
    ``self.version``, not 0).  A refusal must be PyTorch's error, word for word up to the hint."""
    with grading.checking("08.check_version", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        node = y.grad_fn
        saved = node._saved["result"]
        grading.expect_equal(outcome(fn, saved, node), None,
                             what="check_version(saved, node) for y = x.exp() before any write", rule=PASS)
        y.add_(1)
        expect_refusal(outcome(fn, saved, node),
                       "[autograd_lib.FloatTensor [3]], which is output 0 of Exp, is at version 1; "
                       "expected version 0 instead.",
                       what="check_version(saved, node) for exp's saved output after y.add_(1)", rule=OUTPUT)

        w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        h = x * 2
        z = h * w
        node = z.grad_fn
        h.add_(1)
        expect_refusal(outcome(fn, node._saved["self"], node),
                       "[autograd_lib.FloatTensor [3]], which is output 0 of Add, is at version 1; "
                       "expected version 0 instead.",
                       what="check_version for h, saved by z = h * w, after h.add_(1)", rule=INPUT)
        grading.expect_equal(outcome(fn, node._saved["other"], node), None,
                             what="check_version for w, saved by z = h * w and never modified", rule=PASS)

        c = ag.tensor([[4.0, 5.0], [6.0, 7.0]], dtype=ag.float64)
        x2 = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ag.float64, requires_grad=True)
        z = x2 * c
        node = z.grad_fn
        c.mul_(2)
        c.mul_(2)
        expect_refusal(outcome(fn, node._saved["other"], node),
                       "[autograd_lib.DoubleTensor [2, 2]] is at version 2; expected version 0 instead.",
                       what="check_version for the constant c (no grad_fn), saved by z = x * c, after two c.mul_(2)",
                       rule=INPUT)

        h = x * 2
        h.add_(1)                               # written before it is saved: saved at version 1
        z = h.sin()
        node = z.grad_fn
        grading.expect_equal(outcome(fn, node._saved["self"], node), None,
                             what="check_version for h, saved by h.sin() after h.add_(1) (saved at version 1)",
                             rule=SAVED_VERSION)
        h.mul_(3)
        expect_refusal(outcome(fn, node._saved["self"], node),
                       "[autograd_lib.FloatTensor [3]], which is output 0 of Mul, is at version 2; "
                       "expected version 1 instead.",
                       what="check_version for the same h after h.mul_(3)", rule=SAVED_VERSION)


def check_version_in_the_engine(fn):
    """Your ``check_version`` inside ``backward()``: it must refuse a graph whose saved
    output (``sigmoid``) or saved input (``sin``, after ``h[0] = 0.``) was written, and let
    through a tensor written before it was saved, an ``add`` whose input was edited (it
    saved nothing), and a second derivative with nothing modified, with the right gradients."""
    with grading.checking("08.check_version", fn):
        x = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        grading.expect_raises(y.sum().backward, RuntimeError,
                              "[autograd_lib.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; "
                              "expected version 0 instead.",
                              what="y.sum().backward() after y = x.sigmoid(); y.mul_(2)",
                              rule="backward unpacks every saved tensor with check_version: a modified one is refused")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        y = h.sin()
        h[0] = 0.0
        grading.expect_raises(y.sum().backward, RuntimeError, "which is output 0 of CopySlices, is at version 1",
                              what="y.sum().backward() after y = h.sin(); h[0] = 0.",
                              rule="a saved input is named after its current grad_fn (the in-place op's node)")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        h.mul_(3)
        error = outcome(lambda: (h * h).sum().backward())
        grading.expect_equal(error_text(error), None, what="(h * h).sum().backward() after h = x * 2; h.mul_(3)",
                             rule="compare with self.version, the version the tensor had when it was saved "
                                  "(not with 0)")
        grading.expect_close(x.grad, [72.0, 144.0, 216.0], what="x.grad of (h * h).sum(), h = 6x",
                             rule="compare with self.version, the version the tensor had when it was saved "
                                  "(not with 0)")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        y = h + 1
        h.add_(1)
        error = outcome(lambda: y.sum().backward())
        grading.expect_equal(error_text(error), None, what="y.sum().backward() after y = h + 1; h.add_(1)",
                             rule="only saved tensors are checked: add saves nothing, so editing its input is safe")
        grading.expect_close(x.grad, [2.0, 2.0, 2.0], what="x.grad of (h + 1).sum(), h = 2x",
                             rule="only saved tensors are checked: add saves nothing, so editing its input is safe")

        x = ag.tensor([0.0, 1.0], requires_grad=True)
        (g,) = ag.autograd.grad(x.exp().sum(), x, create_graph=True)
        second = outcome(ag.autograd.grad, g.sum(), x)
        grading.expect_close(second[0] if isinstance(second, tuple) else second, np.exp([0.0, 1.0]),
                             what="the second derivative of exp(x) (create_graph=True, nothing modified)",
                             rule="check_version lets an unmodified saved tensor through (it returns None)")


# ---------------------------------------------------------- 08.check_inplace

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
LEAF = "while recording, a leaf that requires grad is refused with PyTorch's RuntimeError: " + repr(LEAF_MESSAGE)
VIEW = ("while recording, a view of a leaf that requires grad is refused with PyTorch's RuntimeError: "
        + repr(VIEW_MESSAGE))
NO_GRAD = "under no_grad every in-place write is allowed (that is how optimizers update the weights)"
NOT_LEAF = "a non-leaf may be written in place (the write is recorded on its history)"
NO_GRAD_NEEDED = "a tensor that does not require grad may be written in place"


def expect_outcomes(fn, cases):
    """fn (your check_inplace) on every case, {label: (t, the outcome in grad mode, rule)}: in grad mode,
    then under no_grad."""
    for label, (t, expected, rule) in cases.items():
        grading.expect_equal(outcome(fn, t), expected, what=f"check_inplace({label}) in grad mode",
                             rule=rule)
    with ag.no_grad():
        for label, (t, expected, rule) in cases.items():
            grading.expect_equal(outcome(fn, t), None, what=f"check_inplace({label}) under no_grad",
                                 rule=NO_GRAD)


def check_inplace(fn):
    """Your ``check_inplace`` called directly on nine tensors, in grad mode then under
    ``no_grad``: a leaf that requires grad and three views of such leaves must be refused
    with PyTorch's errors while recording; a non-leaf, its view, a constant, ``w.detach()``
    and its view are allowed; under ``no_grad`` everything is allowed."""
    with grading.checking("08.check_inplace", fn):
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        m = ag.ones(2, 3, requires_grad=True)
        h = w * 2
        c = ag.tensor([1.0, 2.0])
        d = w.detach()
        cases = {
            "w (a leaf that requires grad)": (w, "RuntimeError: " + LEAF_MESSAGE, LEAF),
            "h = w * 2 (a non-leaf)": (h, None, NOT_LEAF),
            "h[1:] (a view of a non-leaf)": (h[1:], None, NOT_LEAF),
            "c (a constant)": (c, None, NO_GRAD_NEEDED),
            "w.detach()": (d, None, NO_GRAD_NEEDED),
            "w.detach()[1:]": (d[1:], None, NO_GRAD_NEEDED),
            "w[1:] (a view of w)": (w[1:], "RuntimeError: " + VIEW_MESSAGE, VIEW),
            "m.t() (a view of the leaf m)": (m.t(), "RuntimeError: " + VIEW_MESSAGE, VIEW),
            "m[0][1:] (a view of a view of the leaf m)": (m[0][1:], "RuntimeError: " + VIEW_MESSAGE, VIEW),
        }
        expect_outcomes(fn, cases)


def check_inplace_in_the_library(fn):
    """Your ``check_inplace`` inside the library's in-place methods: seven writes into a leaf
    that requires grad and one into its view must be refused, changing nothing; under
    ``no_grad`` an optimizer-style update goes through and ``w`` stays a leaf; a non-leaf
    and a constant may be written (and backward still gives the right gradient)."""
    with grading.checking("08.check_inplace", fn):
        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        for label, write in (("w.add_(1)", lambda: w.add_(1)), ("w.mul_(2)", lambda: w.mul_(2)),
                             ("w.zero_()", w.zero_), ("w.fill_(0.)", lambda: w.fill_(0.0)),
                             ("w.copy_(ones)", lambda: w.copy_(ag.ones(3))), ("w += 1", lambda: iadd(w, 1)),
                             ("w[...] = 0.", lambda: w.__setitem__(Ellipsis, 0.0))):
            grading.expect_raises(write, RuntimeError, LEAF_MESSAGE, what=f"{label} for a leaf w that requires grad",
                                  rule="every in-place method checks the leaf rule: a leaf that requires grad is "
                                       "refused")
        grading.expect_raises(lambda: w[1:].add_(1), RuntimeError, VIEW_MESSAGE, what="w[1:].add_(1)",
                              rule="a view of a leaf that requires grad is refused too")
        grading.expect_equal((w.tolist(), w.is_leaf), ([1.0, 2.0, 3.0], True), what="(w's values, w.is_leaf) after "
                             "the refused writes", rule="the check runs before the write: a refused write changes "
                                                        "nothing")

        w.grad = ag.tensor([1.0, 1.0, 1.0])
        with ag.no_grad():
            error = error_text(outcome(lambda: iadd(w, -0.5 * w.grad)))
            view_error = error_text(outcome(lambda: w[:1].mul_(2)))
        grading.expect_equal((error, view_error), (None, None),
                             what="(w -= 0.5 * w.grad, w[:1].mul_(2)) under no_grad",
                             rule="under no_grad every in-place write is allowed (that is how optimizers update "
                                  "the weights)")
        grading.expect_equal((w.tolist(), w.is_leaf, w.requires_grad), ([1.0, 1.5, 2.5], True, True),
                             what="(values, is_leaf, requires_grad) of w after the update under no_grad",
                             rule="under no_grad every in-place write is allowed (that is how optimizers update "
                                  "the weights)")

        h = w * 2
        error = error_text(outcome(h.add_, 1))
        grading.expect_equal(error, None, what="h.add_(1) for h = w * 2",
                             rule="a non-leaf may be written in place (the write is recorded on its history)")
        outcome(lambda: h.sum().backward())
        grading.expect_close(w.grad, [3.0, 3.0, 3.0], what="w.grad after (w * 2).add_(1).sum().backward() "
                             "(it held [1., 1., 1.] before)",
                             rule="a non-leaf may be written in place (the write is recorded on its history)")

        c = ag.zeros(3)
        error = error_text(outcome(c.add_, w))
        grading.expect_equal((error, c.requires_grad), (None, True), what="(error, c.requires_grad) for c.add_(w), "
                             "c = ag.zeros(3)", rule="a tensor that does not require grad may be written in place")


# --------------------------------------------------- 08.copy_slices_backward

THROUGH = ("the written cells' gradient goes through the op's node (self.fn), and what it gives for the "
           "view's old values replaces the gradient in those cells")
PASS_ON = "the cells the write did not touch pass their gradient on unchanged, to the base's old history"
OTHERS = ("after the base's gradient come the op's gradients for its other inputs, in order "
          "(one per entry of self.next_functions)")
UNTOUCHED = ("the gradient you receive is not yours to change: the engine may also give it to another "
             "node, and a hook may have kept it")
NONE_GIVEN = "when the op's node gives None for the view's old values, those cells get zero gradient"


def gradients_of(grads):
    """Each gradient of a list as (shape, dtype, values), None as None: comparable with ==."""
    return [None if g is None else (tuple(g.shape), str(g.dtype), np.round(g.tolist(), 9).tolist())
            if isinstance(g, ag.Tensor) else repr(g) for g in grads]


def copy_slices_rule(seen, expected):
    """The rule a wrong list of gradients breaks, judged from where it differs."""
    if not isinstance(seen, list) or len(seen) != len(expected):
        return OTHERS
    if seen[0] != expected[0]:
        return THROUGH + "; " + PASS_ON
    return OTHERS


def copy_slices_case(fn, node, grad):
    """``fn(node, [grad])`` as comparable gradients, and whether ``grad`` kept its values."""
    before = grad.tolist()
    returned = fn(node, [grad])
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
        rule = copy_slices_rule(seen, expected)
        grading.expect_equal(seen, expected, what=f"the gradients (shape, dtype, values) your function returns "
                             f"for the base of {label}, given {grad.tolist()}",
                             rule=NONE_GIVEN + "; " + rule if node.next_functions[0][0] is None else rule)
        grading.expect_true(kept, what=f"the gradient given for the base of {label} after your function ran",
                            rule=UNTOUCHED)


def copy_slices_backward(fn):
    """Your function called directly on the ``CopySlices`` nodes of five writes through views
    (``mul_`` by a number and by a tensor, ``copy_``, ``add_`` into a column, a write into a
    constant base), each with a gradient of distinct values: the gradients it returns, and
    the gradient it was given, which must keep its values."""
    reference = exercises.reference("08.copy_slices_backward")
    cases = {}
    with library_version("08"):
        for n, (label, node) in enumerate(written_nodes().items()):
            expected = copy_slices_case(reference, node, base_gradient(node, seed=n))[0]
            cases[label] = (node, base_gradient(node, seed=n), expected)
    with grading.checking("08.copy_slices_backward", fn):
        expect_copy_slices(fn, cases)


def through_views(seed=None):
    """Writes through views of a base, then backward: the leaves' gradients (and the base's
    retained one).  Without a seed, the five fixed stories of the visible check; with one,
    a random story of one to three writes, second derivatives included."""
    stories = [lambda x, w: _story_section8(x, w), _story_weights, _story_shared, _story_twice,
               _story_second] if seed is None else [lambda x, w: _random_story(x, w, seed)]
    results = []
    for story in stories:
        x = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=ag.float64, requires_grad=True)
        w = ag.tensor([2.0, 3.0, 4.0], dtype=ag.float64, requires_grad=True)
        results.append(gradients_of(story(x, w)))
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
    if rng.integers(2):
        gx, gw = ag.autograd.grad(((b + d) * b * r).sum(), [x, w], create_graph=True, allow_unused=True)
        return [gx, gw] + list(ag.autograd.grad((gx * gx).sum(), [x, w], allow_unused=True))
    ((b + d) * r).sum().backward()
    return [x.grad, w.grad]


def copy_slices_in_the_engine(fn):
    """Your function inside ``backward()``: the gradient of section 8's old view after
    ``v.mul_(10)``; a base multiplied through a view by a weight ``w``, with the base's
    retained gradient; a base whose gradient is also another node's (``b + d``); three writes
    into one base; and second derivatives through a write (``create_graph=True``)."""
    with library_version("08"):
        expected = through_views()
    with grading.checking("08.copy_slices_backward", fn):
        seen = through_views()
    labels = ["x.grad after b = x * 1; u, v = b[3:], b[1:4]; v.mul_(10); (u * [1, 2, 3]).sum().backward()",
              "(x.grad, w.grad, b.grad) after b = x * x; b[1:4].mul_(w); b.retain_grad(); (b * arange(6)).sum()"
              ".backward()",
              "(x.grad, w.grad) after b = x * 2; d = x * 3; b[::2].mul_(w); ((b + d) * arange(6)).sum()"
              ".backward()",
              "(x.grad, w.grad) after three writes into b = x.view(2, 3): b[0].copy_(w); b[:, 2].mul_(w[1:]); "
              "b[1, 0] = w[0] * 5; then (b * b).sum().backward()",
              "(gx, gw, and their second derivatives) through b = x * x; b[2:5].mul_(w), create_graph=True"]
    rules = [THROUGH, UNTOUCHED + "; " + THROUGH, UNTOUCHED, PASS_ON + "; " + OTHERS, THROUGH]
    for label, rule, s, e in zip(labels, rules, seen, expected):
        grading.expect_equal(s, e, what=label + " (shape, dtype, values)", rule=rule)
