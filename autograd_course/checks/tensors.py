"""Visible checks of assignment 01: tensors and ``requires_grad``.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

__all__ = ["result_requires_grad", "result_requires_grad_in_the_engine", "is_leaf", "is_leaf_without_requires_grad",
           "requires_grad_", "requires_grad_in_the_library", "detach", "detach_in_the_engine", "NON_LEAF",
           "NOT_FLOAT", "result_type", "result_type_in_the_library", "operand_label", "expect_promotions",
           "mixed_ops", "PROMOTION_CASES", "PROMOTE_TIERS", "PROMOTE_WITHIN", "PROMOTE_NUMBERS", "PROMOTE_RAISE",
           "infer_dtype", "infer_dtype_in_the_library", "nested_shape", "nested_shape_in_the_library", "DTYPE_NUMBERS",
           "DTYPE_OWN", "DTYPE_PROMOTE", "DTYPE_EMPTY", "DTYPE_RAISE", "SHAPE_FIRST", "SHAPE_EVERY", "SHAPE_NUMBER",
           "SHAPE_LIST", "SHAPE_EMPTY", "SHAPE_ITEM", "nest_label", "infer_rule", "random_data", "random_nest",
           "random_shape", "shape_rule", "expect_shapes", "expect_dtypes", "made", "tensors_made"]


def result_requires_grad(fn):
    """Your ``result_requires_grad`` on hand-made inputs: a leaf that requires grad
    (``a``), a constant (``b``), a non-leaf (``c = a * 3``), ``None`` entries, no input
    at all, and grad mode off.  Each answer must be the bool the rule gives."""
    # Inputs built with the library's own rule, so that they are right whatever your function does.
    with exercises.plugged("01.result_requires_grad", exercises.reference("01.result_requires_grad")):
        a = ag.tensor(1.0, requires_grad=True)     # a leaf that requires grad
        b = ag.tensor(2.0)                         # a constant
        c = a * 3.0                                # a non-leaf: it requires grad through its grad_fn
    with grading.checking("01.result_requires_grad", fn):
        grading.expect_equal(outcome(fn, a, b), True, what="result_requires_grad(a, b) with a.requires_grad=True",
                             rule="a result requires grad when ANY input requires grad")
        grading.expect_equal(outcome(fn, b, a), True, what="result_requires_grad(b, a) with a.requires_grad=True",
                             rule="a result requires grad when ANY input requires grad, wherever it is")
        seen = outcome(fn, b, b)
        grading.expect_equal(type(seen).__name__, "bool", what="the type of result_requires_grad(b, b)",
                             rule="result_requires_grad returns True or False (a bool)")
        grading.expect_equal(seen, False, what="result_requires_grad(b, b) with b.requires_grad=False",
                             rule="when no input requires grad, the result does not require grad")
        grading.expect_equal(outcome(fn), False, what="result_requires_grad() with no inputs",
                             rule="when no input requires grad, the result does not require grad")
        grading.expect_equal(outcome(fn, c, b), True, what="result_requires_grad(c, b) with c = a * 3 (a non-leaf)",
                             rule="a non-leaf input requires grad too (it has a grad_fn)")
        grading.expect_equal(outcome(fn, None, a), True, what="result_requires_grad(None, a)",
                             rule="None entries are inputs that were left out: skip them and look at the others")
        grading.expect_equal(outcome(fn, b, None), False, what="result_requires_grad(b, None)",
                             rule="None entries are inputs that were left out: skip them and look at the others")
        with ag.no_grad():
            grading.expect_equal(outcome(fn, a, b), False, what="result_requires_grad(a, b) inside no_grad()",
                                 rule="in no_grad mode, no result requires grad")
            grading.expect_equal(outcome(fn, c), False, what="result_requires_grad(c) inside no_grad()",
                                 rule="in no_grad mode, no result requires grad")


def result_requires_grad_in_the_engine(fn):
    """Your rule inside the engine, through ordinary operations: ``x * y`` with ``x``
    requiring grad is recorded (``MulBackward0``); ``y * y`` on constants is not;
    ``exp(z + y)`` of a non-leaf ``z`` requires grad; ``x * y`` inside ``no_grad()``
    is not recorded."""
    with grading.checking("01.result_requires_grad", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = ag.tensor([3.0, 4.0])
        z = x * y
        grading.expect_equal(z.requires_grad, True, what="(x * y).requires_grad with x.requires_grad=True",
                             rule="a result requires grad when ANY input requires grad")
        grading.expect_equal(None if z.grad_fn is None else z.grad_fn.name(), "MulBackward0", what="(x * y).grad_fn",
                             rule="a result that requires grad is recorded: it gets a grad_fn")
        w = y * y
        grading.expect_equal(w.grad_fn is None and not w.requires_grad, True,
                             what="y * y is an unrecorded constant (grad_fn None, requires_grad False)",
                             rule="when no input requires grad, the result does not require grad")
        u = (z + y).exp()
        grading.expect_equal(u.requires_grad, True, what="exp(z + y).requires_grad where z = x * y",
                             rule="a non-leaf input requires grad too (it has a grad_fn)")
        with ag.no_grad():
            v = x * y
        grading.expect_equal(v.grad_fn is None and not v.requires_grad, True,
                             what="x * y computed inside no_grad() is unrecorded (grad_fn None, requires_grad False)",
                             rule="in no_grad mode, no result requires grad")


def is_leaf(fn):
    """Your ``is_leaf`` on the six tensors of the table in section 4: a leaf that requires
    grad, a constant, a recorded result, a result of constants only, a detached tensor and
    a result computed in ``no_grad()``; then the property ``z.is_leaf``, which now calls it."""
    with grading.checking("01.is_leaf", fn):
        x = ag.tensor(1.0, requires_grad=True)
        y = ag.tensor(2.0)
        z = x * y
        w = y * 3
        d = z.detach()
        with ag.no_grad():
            n = x * y
        seen = {name: fn(t) for name, t in [("x", x), ("y", y), ("z", z), ("w", w), ("d", d), ("n", n)]}
        seen_property = z.is_leaf

    for name, made, expected, rule in [
            ("x", "x = tensor(1.0, requires_grad=True)", True,
             "a tensor created by the user is a leaf, even when it requires grad"),
            ("y", "y = tensor(2.0)", True, "a tensor with requires_grad=False is always a leaf"),
            ("z", "z = x * y", False, "a tensor made by a recorded operation (it has a grad_fn) is not a leaf"),
            ("w", "w = y * 3", True, "results of operations on tensors that don't require grad are leaves"),
            ("d", "d = z.detach()", True, "detach() makes a new leaf"),
            ("n", "n = x * y computed in no_grad()", True, "results computed in no_grad mode are leaves")]:
        grading.expect_equal(seen[name], expected, what=f"is_leaf({name}) for {made}", rule=rule)
    grading.expect_equal(seen_property, False, what="z.is_leaf (the property now calls your function)",
                         rule="a tensor made by a recorded operation (it has a grad_fn) is not a leaf")


def is_leaf_without_requires_grad(fn):
    """Your ``is_leaf`` on tensors that do not require grad, however they were made
    (``zeros``, ``arange``, an op on constants, ``detach()``, ``argmax()``): all leaves;
    and on ``(p * 2).sum()`` for a ``p`` that requires grad: not a leaf."""
    with grading.checking("01.is_leaf", fn):
        p = ag.tensor([1.0, 2.0], requires_grad=True)
        no_grad_tensors = {
            "zeros(3)": ag.zeros(3),
            "arange(4)": ag.arange(4),
            "tensor([1., 2.]) * 2": ag.tensor([1.0, 2.0]) * 2,
            "p.detach()": p.detach(),
            "(p * 2).detach()": (p * 2).detach(),
            "p.argmax()": p.argmax(),
        }
        seen = {name: fn(t) for name, t in no_grad_tensors.items()}
        seen_nonleaf = fn((p * 2).sum())
    for name, value in seen.items():
        grading.expect_equal(value, True, what=f"is_leaf({name}), a tensor with requires_grad=False",
                             rule="a tensor with requires_grad=False is always a leaf")
    grading.expect_equal(seen_nonleaf, False, what="is_leaf((p * 2).sum()) with p.requires_grad=True",
                         rule="a tensor made by a recorded operation (it has a grad_fn) is not a leaf")


NON_LEAF = ("you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
            "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
NOT_FLOAT = "only Tensors of floating point dtype can require gradients"


def _returned(fn, t, *args):
    """Whether ``fn(t, *args)`` returned ``t`` itself, or the error it raised."""
    try:
        return "returned the tensor" if fn(t, *args) is t else "did not return the tensor"
    except grading.DelegationError:
        raise
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def requires_grad_(fn):
    """Your ``requires_grad_`` on a float leaf (on, then off; it returns the tensor), on
    integer and bool leaves (asking for True must raise PyTorch's error, asking for False is
    fine), and on a non-leaf ``z = x * 2`` (turning it off must raise; asking for True
    changes nothing)."""
    with grading.checking("01.requires_grad_", fn):
        t = ag.tensor([1.0, 2.0])
        returned = fn(t)
        grading.expect_true(returned is t, what="requires_grad_(t)'s return value",
                            seen=f"{type(returned).__name__} {returned!r}",
                            rule="requires_grad_ returns the tensor itself, so calls can be chained")
        grading.expect_equal(t.requires_grad, True, what="t.requires_grad after requires_grad_(t)",
                             rule="on a leaf, requires_grad_ sets the tensor's own flag (True by default)")
        fn(t, False)
        grading.expect_equal(t.requires_grad, False, what="t.requires_grad after requires_grad_(t, False)",
                             rule="on a leaf, requires_grad_ sets the tensor's own flag")
        grading.expect_raises(lambda: fn(ag.tensor([1, 2])), RuntimeError, NOT_FLOAT,
                              what="requires_grad_ on an int64 leaf",
                              rule="only floating-point tensors can require gradients")
        grading.expect_raises(lambda: fn(ag.tensor([True, False]), True), RuntimeError, NOT_FLOAT,
                              what="requires_grad_(t, True) on a bool leaf",
                              rule="only floating-point tensors can require gradients")
        grading.expect_equal(_returned(fn, ag.tensor([1, 2]), False), "returned the tensor",
                             what="requires_grad_(t, False) on an int64 leaf",
                             rule="turning requires_grad off is always allowed on a leaf, whatever its dtype")

        x = ag.tensor(1.0, requires_grad=True)
        z = x * 2
        grading.expect_raises(lambda: fn(z, False), RuntimeError, NON_LEAF,
                              what="requires_grad_(z, False) on z = x * 2",
                              rule="a non-leaf's requires_grad comes from its grad_fn: it cannot be turned off")
        grading.expect_equal(_returned(fn, z, True), "returned the tensor", what="requires_grad_(z, True) on z = x * 2",
                             rule="requires_grad_(True) on a non-leaf changes nothing and raises nothing")
        grading.expect_equal(None if z.grad_fn is None else z.grad_fn.name(), "MulBackward0",
                             what="z.grad_fn after requires_grad_ on z",
                             rule="requires_grad_(True) on a non-leaf changes nothing and raises nothing")


def requires_grad_in_the_library(fn):
    """Your method inside the library: the ``Tensor`` constructor calls it
    (``requires_grad=True``), a chained ``tensor(3.0).requires_grad_()`` gets a gradient
    from ``backward()``, and after ``requires_grad_(False)`` the next op records no edge
    to that tensor."""
    with grading.checking("01.requires_grad_", fn):
        w = ag.Tensor([1.0, 2.0], requires_grad=True)        # the constructor calls Tensor.requires_grad_
        grading.expect_equal(w.requires_grad, True, what="ag.Tensor([1., 2.], requires_grad=True).requires_grad",
                             rule="on a leaf, requires_grad_ sets the tensor's own flag (True by default)")
        s = ag.tensor(3.0).requires_grad_()
        grading.expect_true(isinstance(s, ag.Tensor), what="ag.tensor(3.0).requires_grad_() is a tensor",
                            seen=type(s).__name__,
                            rule="requires_grad_ returns the tensor itself, so calls can be chained")
        (w * s).sum().backward()
        grading.expect_close(s.grad, 3.0, what="s.grad after (w * s).sum().backward()",
                             rule="on a leaf, requires_grad_ sets the tensor's own flag (True by default)")
        s.requires_grad_(False)
        frozen = w * s
        grading.expect_equal((s.requires_grad, frozen.grad_fn.next_functions[1][0] is None), (False, True),
                             what="(s.requires_grad, the edge of s in w * s is None) after s.requires_grad_(False)",
                             rule="on a leaf, requires_grad_ sets the tensor's own flag")


def detach(fn):
    """Your ``detach`` on ``y = x * 2``: a new tensor, a leaf that does not require grad,
    ``y``'s graph untouched, the same NumPy storage and the same version counter (an
    ``add_`` through the detached tensor shows in ``y`` and bumps its version); and an
    in-place change through ``detach()`` of a saved result that backward must catch."""
    with grading.checking("01.detach", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        d = fn(y)
        grading.expect_true(isinstance(d, ag.Tensor) and d is not y, what="detach(y) is a new tensor",
                            seen=f"{type(d).__name__}{' (y itself)' if d is y else ''}",
                            rule="detach returns a new tensor and leaves the original's graph alone")
        grading.expect_equal((y.requires_grad, None if y.grad_fn is None else y.grad_fn.name()), (True, "MulBackward0"),
                             what="(y.requires_grad, y.grad_fn) after detach(y)",
                             rule="detach returns a new tensor and leaves the original's graph alone")
        grading.expect_equal((d.grad_fn is None, d.requires_grad, d.is_leaf), (True, False, True),
                             what="(d.grad_fn is None, d.requires_grad, d.is_leaf) for d = detach(y)",
                             rule="a detached tensor is a leaf that does not require grad")
        grading.expect_close(d, [2.0, 4.0, 6.0], what="the values of detach(y)",
                             rule="detach shares storage with the original (no copy)")
        grading.expect_true(np.shares_memory(d._data, y._data), what="detach(y) shares y's NumPy array",
                            seen="a copy of the values",
                            rule="detach shares storage with the original (no copy)")
        grading.expect_true(d._version_counter is y._version_counter, what="detach(y) shares y's version counter",
                            seen="a different counter object",
                            rule="detach shares the original's version counter (unlike .data)")
        d.add_(1.0)
        grading.expect_close(y, [3.0, 5.0, 7.0], what="y after detach(y).add_(1)",
                             rule="detach shares storage with the original (no copy)")
        grading.expect_equal(y._version, 1, what="y._version after detach(y).add_(1)",
                             rule="detach shares the original's version counter (unlike .data)")

        a = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
        e = a.exp()
        fn(e).zero_()
        grading.expect_raises(lambda: e.sum().backward(), RuntimeError, "modified by an inplace operation",
                              what="backward after an in-place change through detach()",
                              rule="an in-place change through detach() must be caught by backward")


def detach_in_the_engine(fn):
    """Your ``detach`` on a leaf ``x`` that requires grad (a new leaf without
    ``requires_grad``; ``x`` unchanged), then inside the engine: the first time backward
    stores a gradient in ``x.grad`` it stores a detached copy, so the values must be right."""
    with grading.checking("01.detach", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        d = fn(x)
        grading.expect_equal((d is not x, d.requires_grad, d.grad_fn is None), (True, False, True),
                             what="(a new tensor, requires_grad, grad_fn is None) for d = detach(x), x a leaf that "
                                  "requires grad",
                             rule="a detached tensor is a leaf that does not require grad")
        grading.expect_equal((x.requires_grad, x.is_leaf), (True, True), what="(x.requires_grad, x.is_leaf) after detach(x)",
                             rule="detach returns a new tensor and leaves the original's graph alone")
        (x * 3.0).sum().backward()
        grading.expect_close(x.grad, [3.0, 3.0], what="x.grad after (x * 3).sum().backward()",
                             rule="backward stores grad.detach().clone(): detach must keep the values")


# ------------------------------------------------------------ 01.result_type

PROMOTE_TIERS = ("the operands with dims decide; 0-dim tensors count only when they are of a higher category "
                 "(bool < integer < floating point), and Python numbers only when they are of a higher category "
                 "than both")
PROMOTE_WITHIN = "within a tier, the operands' dtypes combine with ag.promote_types (the larger one wins)"
PROMOTE_NUMBERS = ("a Python bool is a bool, an int is int64, a float is the default dtype "
                   "(ag.get_default_dtype()); check bool before int: True is an int in Python")
PROMOTE_RAISE = ("an operand of a higher category raises the result to that category with its own dtype "
                 "(a float64 0-dim tensor makes an int64 tensor float64), but to the default dtype for a Python float")


def operand_label(x):
    """How a test names an operand: 'int32 tensor of shape (3,)', 'int32 0-dim tensor', '2.5'."""
    if isinstance(x, ag.Tensor):
        name = str(x.dtype).rsplit(".", 1)[-1]
        return f"{name} 0-dim tensor" if x.ndim == 0 else f"{name} tensor of shape {tuple(x.shape)}"
    return repr(x)


def promotion_rule(operands, seen, expected):
    """The rule a wrong dtype breaks, judged from the operands."""
    if any(isinstance(x, bool) for x in operands) and any(isinstance(x, int) and not isinstance(x, bool)
                                                          for x in operands) or (
            any(isinstance(x, bool) for x in operands) and expected is not ag.int64 and seen is ag.int64):
        return PROMOTE_NUMBERS
    if any(isinstance(x, float) for x in operands) and ag.get_default_dtype() is not ag.float32:
        return PROMOTE_NUMBERS
    return PROMOTE_TIERS + "; " + PROMOTE_RAISE


def expect_promotions(fn, cases):
    """fn (your result_type) on each list of operands of ``cases``, compared with the expected dtype."""
    for operands, expected in cases:
        seen = outcome(fn, *operands)
        grading.expect_equal(seen, expected, what="result_type(" + ", ".join(operand_label(x) for x in operands)
                             + ")", rule=promotion_rule(operands, seen, expected))


PROMOTION_CASES = [
    (lambda: [ag.tensor([1, 2, 3]), 0.5], ag.float32),
    (lambda: [ag.tensor([1, 2, 3], dtype=ag.int32), 5], ag.int32),
    (lambda: [ag.ones(3), ag.tensor(2.0, dtype=ag.float64)], ag.float32),
    (lambda: [ag.tensor([1, 2, 3]), ag.tensor(2.0, dtype=ag.float64)], ag.float64),
    (lambda: [ag.tensor([True, False]), True], ag.bool),
    (lambda: [ag.tensor([True, False]), 1], ag.int64),
    (lambda: [ag.tensor(1, dtype=ag.int32), ag.tensor(1)], ag.int64),
    (lambda: [ag.ones(2, dtype=ag.float16), ag.ones(2, dtype=ag.float64)], ag.float64),
    (lambda: [ag.tensor(1, dtype=ag.int32), 2.5], ag.float32),
    (lambda: [ag.ones(2, dtype=ag.float16), 2.5, ag.tensor(1.0, dtype=ag.float64)], ag.float16),
    (lambda: [True, 2], ag.int64),
    (lambda: [2, 3.0], ag.float32),
    (lambda: [ag.tensor(1, dtype=ag.int32), 5], ag.int32),
    (lambda: [ag.tensor(2.0, dtype=ag.float16), 2.5], ag.float16),
]


def result_type(fn):
    """Your ``result_type`` called directly on fourteen lists of operands: an integer tensor and a
    float, a tensor and a 0-dim tensor of a higher or the same category, bools, two 0-dim tensors,
    float16 with float64, three operands, Python numbers only, a 0-dim tensor and a number; then a
    float with the default dtype set to float64.  The dtype PyTorch gives (``torch.result_type``) each time."""
    with grading.checking("01.result_type", fn):
        expect_promotions(fn, [(make(), expected) for make, expected in PROMOTION_CASES])
        previous = ag.get_default_dtype()
        ag.set_default_dtype(ag.float64)
        try:
            expect_promotions(fn, [([ag.tensor([1, 2]), 0.5], ag.float64), ([ag.ones(2, dtype=ag.float32), 0.5], ag.float32)])
        finally:
            ag.set_default_dtype(previous)


def mixed_ops():
    """The dtypes, values and gradients of six ops that mix dtypes, as comparable lists."""
    w = ag.tensor([0.5, -1.0], requires_grad=True)
    w64 = ag.tensor([2.0, 3.0], dtype=ag.float64, requires_grad=True)
    i = ag.tensor([1, 2])
    results = [i * 0.5, i + ag.tensor(0.25, dtype=ag.float64), w * i, w * ag.tensor(3.0, dtype=ag.float64),
               w + w64, ag.tensor([True, False]) + 1]
    (results[2].sum() + results[3].sum() + results[4].sum()).backward()
    return ([(str(r.dtype), r.tolist()) for r in results]
            + [(str(t.grad.dtype), t.grad.tolist()) for t in (w, w64)])


def result_type_in_the_library(fn):
    """Your ``result_type`` inside the library's ops: an int64 tensor times 0.5, plus a float64
    0-dim tensor; a float32 weight times an int64 tensor, times a float64 0-dim tensor, plus a
    float64 tensor; a bool tensor plus 1. The results' dtypes and values, then the gradients:
    each has the dtype of its own tensor."""
    with library_version("01"):
        expected = mixed_ops()
    with grading.checking("01.result_type", fn):
        seen = mixed_ops()
    labels = ["i * 0.5", "i + float64 0-dim tensor", "w * i", "w * float64 0-dim tensor", "w + w64",
              "bool tensor + 1", "w.grad", "w64.grad"]
    for label, s, e in zip(labels, seen, expected):
        grading.expect_equal(s, e, what=f"(dtype, values) of {label} (w float32, w64 float64, i int64)",
                             rule=PROMOTE_TIERS + "; " + PROMOTE_RAISE)


# ------------------------------------------------------------ 01.infer_dtype and 01.nested_shape

DTYPE_NUMBERS = ("a Python bool is bool, an int int64, a float the default dtype (ag.get_default_dtype()); "
                 "check bool before int: True is an int in Python")
DTYPE_OWN = ("a NumPy scalar or a tensor inside the data keeps its own dtype (np.float64(1.5) is float64, "
             "not a Python float)")
DTYPE_PROMOTE = ("the dtype of nested data is the promotion (ag.promote_types) of every item's dtype, "
                 "at every depth: bool with int64 is int64")
DTYPE_EMPTY = "an empty list, wherever it is, counts as the default dtype"
DTYPE_RAISE = "anything else raises RuntimeError: Could not infer dtype of <the name of its type>"

SHAPE_FIRST = "the sizes come from the first element at each depth"
SHAPE_EVERY = ("every list at depth D must have size N of dim D: the first one that differs, in reading order, "
               "raises ValueError: expected sequence of length N at dim D (got M)")
SHAPE_NUMBER = "a number where a list is expected raises TypeError: not a sequence"
SHAPE_LIST = ("a list (or tuple) where a number is expected raises TypeError: "
              "'list' object cannot be interpreted as an integer ('tuple' for a tuple)")
SHAPE_EMPTY = "a shape with a 0 has nothing to copy, and PyTorch checks nothing more: [[], [1]] has shape (2, 0)"
SHAPE_ITEM = "anything that is not a list or tuple is one item (shape ()); the shape is a tuple of ints"

_NUMPY_TYPES = [np.bool_, np.int32, np.int64, np.float16, np.float32, np.float64]
_DTYPES = [ag.bool, ag.int32, ag.int64, ag.float16, ag.float32, ag.float64]


def _flat(data):
    """Every item of nested lists and tuples (empty lists too, as [])."""
    if isinstance(data, (list, tuple)):
        return [x for item in data for x in _flat(item)] if data else [[]]
    return [data]


def nest_label(data):
    """How a test prints nested data: NumPy scalars and tensors by their dtype."""
    if isinstance(data, list):
        return "[" + ", ".join(nest_label(x) for x in data) + "]"
    if isinstance(data, tuple):
        return "(" + ", ".join(nest_label(x) for x in data) + ("," if len(data) == 1 else "") + ")"
    if isinstance(data, ag.Tensor):
        return f"ag.tensor({data.item()!r}, dtype={str(data.dtype).replace('autograd_lib', 'ag')})"
    if isinstance(data, np.generic):
        return f"np.{type(data).__name__}({data.item()!r})"
    return repr(data)


def infer_rule(data):
    """The rules a wrong dtype for ``data`` may break, judged from its items."""
    items = _flat(data)
    rules = []
    if any(not isinstance(x, (list, bool, int, float, np.generic, ag.Tensor)) for x in items):
        rules.append(DTYPE_RAISE)
    if any(isinstance(x, (np.generic, ag.Tensor)) for x in items):
        rules.append(DTYPE_OWN)
    if any(isinstance(x, list) for x in items):
        rules.append(DTYPE_EMPTY)
    if any(isinstance(x, (bool, int, float)) for x in items):
        rules.append(DTYPE_NUMBERS)
    if isinstance(data, (list, tuple)):
        rules.append(DTYPE_PROMOTE)
    return "; ".join(rules)


def _item(rng):
    """A random item: a Python bool, int or float, a NumPy scalar, or a 0-dim tensor."""
    kind = int(rng.integers(10))
    if kind < 6:
        return [bool(rng.integers(2)), int(rng.integers(-9, 10)), float(rng.integers(-9, 10)) + 0.5][kind % 3]
    k = int(rng.integers(len(_DTYPES)))
    value = _NUMPY_TYPES[k](rng.integers(0, 4))
    return value if kind < 8 else ag.tensor(value.item(), dtype=_DTYPES[k])


def _filled(rng, shape, item):
    if not shape:
        return item(rng)
    made = [_filled(rng, shape[1:], item) for _ in range(shape[0])]
    return tuple(made) if rng.integers(5) == 0 else made


def random_shape(rng, zeros=True):
    """0 to 3 dims of 1 to 3 elements; now and then a dim of size 0."""
    return tuple(0 if zeros and rng.integers(10) == 0 else int(rng.integers(1, 4))
                 for _ in range(int(rng.integers(0, 4))))


def random_data(rng, *, valid=True):
    """Random nested data: a random shape filled with random items (Python numbers, NumPy scalars,
    0-dim tensors).  Not ``valid``: lists of any lengths, empty lists anywhere, now and then an item
    of no dtype (None, a dict).  Made with the library's own code."""
    with library_version("01"):
        if valid:
            data = _filled(rng, random_shape(rng), _item)
            while isinstance(data, ag.Tensor):          # tensor(a tensor) warns: a number instead
                data = _item(rng)
            return data

        def ragged(depth):
            if depth == 0 or rng.integers(6) == 0:
                return [] if rng.integers(4) == 0 else _item(rng)
            return [ragged(depth - 1) for _ in range(int(rng.integers(0, 4)))]
        data = ragged(int(rng.integers(1, 4)))
        if rng.integers(6) == 0 and isinstance(data, list):
            data.insert(int(rng.integers(len(data) + 1)), [None, {}][int(rng.integers(2))])
        return data


def _perturbed(rng, data):
    """``data`` with one to three random defects: a list one element longer or shorter, a number
    in place of a list, a list in place of a number."""
    for _ in range(int(rng.integers(1, 4))):
        lists, leaves = [], []

        def walk(node, parent, index):
            if isinstance(node, list):
                lists.append(node)
                for i, x in enumerate(node):
                    walk(x, node, i)
            elif parent is not None:
                leaves.append((parent, index))
        walk(data, None, None)
        kind = int(rng.integers(4))
        if kind < 2 and lists:
            target = lists[int(rng.integers(len(lists)))]
            if kind == 0 and target:
                target.pop()
            else:
                target.append(target[0] if target else 1)
        elif kind == 2 and len(lists) > 1:
            target = lists[int(rng.integers(1, len(lists)))]
            target[:] = [target[0] if target and not isinstance(target[0], list) else 5]
            target.append(7)          # a list of numbers one level up: numbers where lists are expected
        elif leaves:
            parent, index = leaves[int(rng.integers(len(leaves)))]
            parent[index] = [parent[index]] if rng.integers(2) else (parent[index], 1)
    return data


def random_nest(rng, *, ragged):
    """Random nested lists of Python numbers (``ragged``: with random defects, see ``_perturbed``)."""
    shape = random_shape(rng, zeros=not ragged) or (int(rng.integers(1, 4)),)
    data = _filled(rng, shape, lambda r: [True, int(r.integers(-9, 10)), float(r.integers(-9, 10)) + 0.5][int(r.integers(3))])
    data = _as_lists(data)
    return _perturbed(rng, data) if ragged else data


def _as_lists(data):
    return [_as_lists(x) for x in data] if isinstance(data, (list, tuple)) else data


def shape_rule(expected):
    """The rule a wrong answer breaks, judged from the expected outcome."""
    if isinstance(expected, tuple):
        return SHAPE_EMPTY if 0 in expected else SHAPE_FIRST + "; " + SHAPE_ITEM
    if expected.startswith("ValueError"):
        return SHAPE_FIRST + "; " + SHAPE_EVERY
    return SHAPE_NUMBER if "not a sequence" in expected else SHAPE_LIST


def expect_shapes(fn, cases):
    """fn (your nested_shape) on each data of ``cases``, compared with the expected shape or error."""
    for data, expected in cases:
        seen = outcome(fn, data)
        grading.expect_equal(seen, expected, what=f"nested_shape({nest_label(data)})", rule=shape_rule(expected))


def expect_dtypes(fn, cases):
    """fn (your infer_dtype) on each data of ``cases``, compared with the expected dtype or error."""
    for data, expected in cases:
        seen = outcome(fn, data)
        grading.expect_equal(seen, expected, what=f"infer_dtype({nest_label(data)}) with default dtype "
                                                  f"{ag.get_default_dtype()}", rule=infer_rule(data))


def made(data, make=None):
    """What ``ag.tensor(data)`` gives: (dtype, shape, values), or the error as text."""
    result = outcome(make or ag.tensor, data)
    if isinstance(result, str):
        return result
    return str(result.dtype), tuple(result.shape), result.tolist()


def _infer_cases():
    t32 = ag.tensor(1, dtype=ag.int32)
    return [2.5, 7, True, [True, 2], [[1, 2], [3, 4.5]], [np.float64(1.5), 2.0], [np.int32(1), np.int32(2)],
            [t32, 2], [ag.tensor(2.0, dtype=ag.float16), True], ((1, 2), (3, 4)), [], [[], []], [[], [1, 2]],
            [[[True]], [[False]]], [1, None], [[1.5], [{"a": 1}]]]


def infer_dtype(fn):
    """Your ``infer_dtype`` called directly: a float, an int, a bool; ``[True, 2]``; nested ints and
    floats; NumPy scalars and 0-dim tensors among Python numbers; nested tuples; ``[]``, ``[[], []]``
    and ``[[], [1, 2]]``; nested bools; data holding ``None`` or a dict (an error); then floats, a
    float32 NumPy scalar and ``[]`` with the default dtype set to float64."""
    reference = exercises.reference("01.infer_dtype")
    with library_version("01"):
        cases = [(data, outcome(reference, data)) for data in _infer_cases()]
    previous = ag.get_default_dtype()
    ag.set_default_dtype(ag.float64)
    try:
        later = [(data, outcome(reference, data)) for data in ([1, 2.5], [np.float32(1), 2], [], [[2], [np.float16(1)]])]
    finally:
        ag.set_default_dtype(previous)
    with grading.checking("01.infer_dtype", fn):
        expect_dtypes(fn, cases)
        ag.set_default_dtype(ag.float64)
        try:
            expect_dtypes(fn, later)
        finally:
            ag.set_default_dtype(previous)


def _library_cases():
    return [[True, 2], [[1, 2], [3, 4.5]], [np.float64(1.5), 2.0], [ag.tensor(1, dtype=ag.int32), 2], [],
            [[], []], ((True, False),), [1, None], 3]


def tensors_made(cases):
    """``ag.tensor`` of each data, ``tensor([1., 2.5], requires_grad=True)``, and
    ``tensor([1, 2], requires_grad=True)`` (an int64 tensor cannot require grad)."""
    return ([made(data) for data in cases]
            + [made(data, lambda d: ag.tensor(d, requires_grad=True)) for data in ([1.0, 2.5], [1, 2])])


def infer_dtype_in_the_library(fn):
    """Your ``infer_dtype`` inside ``ag.tensor``: the dtype, shape and values of ``ag.tensor(data)`` for
    ``[True, 2]``, nested ints and floats, a float64 NumPy scalar among floats, an int32 0-dim tensor
    among ints, ``[]``, ``[[], []]``, a tuple of bools, data holding ``None`` (an error) and ``3``; then
    ``tensor(..., requires_grad=True)`` for floats (fine) and for ints (an error: only floating-point
    tensors can require grad)."""
    with library_version("01"):
        expected = tensors_made(_library_cases())
    with grading.checking("01.infer_dtype", fn):
        seen = tensors_made(_library_cases())
    labels = [f"ag.tensor({nest_label(data)})" for data in _library_cases()] + [
        "ag.tensor([1., 2.5], requires_grad=True)", "ag.tensor([1, 2], requires_grad=True)"]
    for label, s, e, data in zip(labels, seen, expected, _library_cases() + [[1.0, 2.5], [1, 2]]):
        grading.expect_equal(s, e, what=f"(dtype, shape, values) of {label}", rule=infer_rule(data))


_SHAPE_CASES = [3.5, [], [1, 2, 3], [[1, 2], [3, 4], [5, 6]], ((1,), (2,)), [[[1], [2]]], [[1, 2], [3]],
                [[1], [2, 3]], [[[1, 2], [3, 4]], [[5, 6], [7]]], [[[1, 2]], [[3, 4], [5, 6]]], [[1, 2], 3],
                [1, [2, 3]], [1, (2, 3)], [[1, 2], [3, [4]]], [[], [1, 2]], [[1, 2], []], [[1, 2], [3, 4], [5]]]


def nested_shape(fn):
    """Your ``nested_shape`` called directly: a number, ``[]``, flat and nested lists and tuples, then
    ragged data: a short or long list at dim 1 or 2, a long list at dim 1 before a short one at dim 2,
    a number where a list is expected, a list or a tuple where a number is expected, ``[[], [1, 2]]``
    (shape (2, 0)), ``[[1, 2], []]``, and a 0-dim tensor inside a list."""
    reference = exercises.reference("01.nested_shape")
    with library_version("01"):
        cases = [(data, outcome(reference, data)) for data in _SHAPE_CASES + [[ag.tensor(1.0), 2.0]]]
    with grading.checking("01.nested_shape", fn):
        expect_shapes(fn, cases)


def _shape_library_cases():
    return [[[1, 2], [3, 4], [5, 6]], [[1, 2], [3]], [[[1, 2], [3, 4]], [[5, 6], [7, 8, 9]]], [[1, 2], 3],
            [1, [2, 3]], [[], [1, 2]], ((1.5,), (2.5,))]


def nested_shape_in_the_library(fn):
    """Your ``nested_shape`` inside ``ag.tensor`` and the constructor ``ag.Tensor``: the dtype, shape and
    values of each, or the error, for nested lists, ragged lists at dims 1 and 2, a number where a list
    is expected, a list where a number is expected, ``[[], [1, 2]]`` and nested tuples."""
    with library_version("01"):
        expected = [(made(d), made(d, ag.Tensor)) for d in _shape_library_cases()]
    with grading.checking("01.nested_shape", fn):
        seen = [(made(d), made(d, ag.Tensor)) for d in _shape_library_cases()]
    for data, s, e in zip(_shape_library_cases(), seen, expected):
        grading.expect_equal(s, e, what=f"(dtype, shape, values) of ag.tensor({nest_label(data)}), then of "
                                        f"ag.Tensor({nest_label(data)})",
                             rule=shape_rule(e[0] if isinstance(e[0], str) else e[0][1]))
