"""Visible checks of assignment 01, exercise 3: ``detach``, and ``requires_grad_``, the
other slot it fills.

``autograd_course.checks.tensors`` (the notebook's ``check``) shows them; each function
without ``compare_`` in its name is the visible part of one test cell, run on the function you
wrote, and its docstring says what it tries.  The ``compare_*`` functions are what the hidden
parts run on random tensors, against the library's own ``detach`` and ``requires_grad_``.
``NON_LEAF`` and ``NOT_FLOAT`` are PyTorch's messages, which the task text quotes.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import error_of, library_version, outcome, raise_if_not_written

__all__ = ["NON_LEAF", "NOT_FLOAT", "detach", "detach_in_the_engine", "detach_story", "compare_detach",
           "compare_detach_summaries", "requires_grad_", "requires_grad_in_the_library", "REQUIRES_GRAD__KINDS",
           "compare_requires_grad_", "compare_requires_grad_effects"]

DETACH = grading.rules("01.detach")


# ------------------------------------------------------------ 01.detach (and requires_grad_)

NON_LEAF = ("you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
            "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
NOT_FLOAT = "only Tensors of floating point dtype can require gradients"


def detach(fn):
    """Your ``detach`` on ``y = x * 2``: a new tensor, a leaf that does not require grad,
    ``y``'s graph untouched, the same storage and the same version counter (an ``add_``
    through the detached tensor shows in ``y`` and bumps its version, and the other way
    round); and an
    in-place change through ``detach()`` of a saved result that backward must catch."""
    with grading.checking("01.detach", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        d = outcome(fn, y)
        grading.expect_true(isinstance(d, ag.Tensor) and d is not y, what="detach(y) is a new tensor",
                            seen=d if isinstance(d, str) else f"{type(d).__name__}{' (y itself)' if d is y else ''}",
                            rule=DETACH("new-leaf"))
        grading.expect_equal((y.requires_grad, None if y.grad_fn is None else y.grad_fn.name()), (True, "MulBackward0"),
                             what="(y.requires_grad, y.grad_fn) after detach(y)", rule=DETACH("original"))
        grading.expect_equal((d.grad_fn is None, d.requires_grad, d.is_leaf), (True, False, True),
                             what="(d.grad_fn is None, d.requires_grad, d.is_leaf) for d = detach(y)",
                             rule=DETACH("new-leaf"))
        grading.expect_close(d, [2.0, 4.0, 6.0], what="the values of detach(y)", rule=DETACH("storage"))
        d.add_(1.0)
        grading.expect_close(y, [3.0, 5.0, 7.0], what="y after detach(y).add_(1)", rule=DETACH("storage"))
        grading.expect_equal(y._version, 1, what="y._version after detach(y).add_(1)", rule=DETACH("version"))
        y.mul_(2.0)
        grading.expect_close(d, [6.0, 10.0, 14.0], what="d = detach(y) after y.mul_(2)", rule=DETACH("storage"))
        grading.expect_equal(d._version, 2, what="d._version after d.add_(1) and y.mul_(2), d = detach(y)",
                             rule=DETACH("version"))

        a = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
        e = a.exp()
        fn(e).zero_()
        grading.expect_raises(lambda: e.sum().backward(), RuntimeError, "modified by an inplace operation",
                              what="backward after an in-place change through detach()", rule=DETACH("version"))


def detach_in_the_engine(fn):
    """Your ``detach`` on a leaf ``x`` that requires grad (a new leaf without
    ``requires_grad``; ``x`` unchanged), then inside the engine: the first time backward
    stores a gradient in ``x.grad`` it stores a detached copy, so the values must be right."""
    with grading.checking("01.detach", fn):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        d = outcome(fn, x)
        grading.expect_true(isinstance(d, ag.Tensor), what="detach(x) for a leaf x that requires grad",
                            seen=d if isinstance(d, str) else type(d).__name__, rule=DETACH("new-leaf"))
        grading.expect_equal((d is not x, d.requires_grad, d.grad_fn is None), (True, False, True),
                             what="(a new tensor, requires_grad, grad_fn is None) for d = detach(x), x a leaf that "
                                  "requires grad", rule=DETACH("new-leaf"))
        grading.expect_equal((x.requires_grad, x.is_leaf), (True, True), what="(x.requires_grad, x.is_leaf) after detach(x)",
                             rule=DETACH("original"))
        error = error_of(lambda: (x * 3.0).sum().backward())
        grading.expect_equal(error, None, what="(x * 3).sum().backward(): backward stores grad.detach().clone()",
                             rule=DETACH("storage"))
        grading.expect_close(x.grad, [3.0, 3.0], what="x.grad after (x * 3).sum().backward()", rule=DETACH("storage"))


_SAVES_RESULT = {"exp": lambda t: t.exp(), "tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid()}
_CHANGES = {"zero_()": lambda t: t.zero_(), "add_(1)": lambda t: t.add_(1), "mul_(2)": lambda t: t.mul_(2)}


def detach_story(fn, seed):
    """What ``check.detach`` looks at, on random tensors (dtypes, shapes, values, leaves and
    non-leaves, the value written through the detached tensor, the operation and the in-place
    change that backward must catch): a list of (what, rule, value)."""
    rng = np.random.default_rng(seed)
    dtype = [ag.float32, ag.float64, ag.int64][int(rng.integers(3))]
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(0, 3))))
    kind = ["constant", "leaf that requires grad", "non-leaf", "non-leaf"][int(rng.integers(4))]
    kind = kind if dtype.is_floating_point else "constant"
    t = ag.tensor((rng.standard_normal(shape) * 3).astype(dtype.numpy), requires_grad=kind != "constant")
    if kind == "non-leaf":
        t = [lambda u: u * 2.0, lambda u: u.sin(), lambda u: (u + 1.0).exp()][int(rng.integers(3))](t)
    label = f"t a {kind} ({dtype}, shape {shape})"
    d = outcome(fn, t)
    facts = [(f"detach(t) is a new tensor, {label}", DETACH("new-leaf"), isinstance(d, ag.Tensor) and d is not t),
             (f"(t.requires_grad, t.grad_fn) after detach(t), {label}", DETACH("original"),
              (t.requires_grad, None if t.grad_fn is None else t.grad_fn.name()))]
    if not isinstance(d, ag.Tensor):
        return facts
    facts += [(f"(d.grad_fn is None, d.requires_grad, d.is_leaf) for d = detach(t), {label}", DETACH("new-leaf"),
               (d.grad_fn is None, d.requires_grad, d.is_leaf)),
              (f"the values of detach(t), {label}", DETACH("storage"), np.array(d.tolist()))]
    amount = int(rng.integers(1, 5)) if dtype == ag.int64 else round(float(rng.uniform(-3, 3)), 2)
    version = t._version
    facts += [(f"the error of d.add_({amount}), {label}", DETACH("new-leaf"),
               error_of(lambda: d.add_(amount)) or "no error"),
              (f"t after detach(t).add_({amount}), {label}", DETACH("storage"), np.array(t.tolist())),
              (f"how much t._version went up with detach(t).add_({amount}), {label}", DETACH("version"),
               t._version - version)]

    a = ag.tensor(rng.standard_normal(shape).astype(np.float64), requires_grad=True)
    op, change = list(_SAVES_RESULT)[int(rng.integers(3))], list(_CHANGES)[int(rng.integers(3))]
    e = _SAVES_RESULT[op](a)
    error = error_of(lambda: _CHANGES[change](fn(e))) or error_of(lambda: e.sum().backward()) or "no error"
    caught = "modified by an inplace operation" in error
    facts.append((f"backward after detach({op}(a)).{change}, a of shape {shape}", DETACH("version"),
                  "RuntimeError: ... modified by an inplace operation ..." if caught else error))
    return facts


def compare_detach(fn, seed):
    """``detach_story`` with ``fn`` against the library's ``detach`` (returns nothing)."""
    with library_version("01"):       # expected values: the library's own versions of 01
        expected = detach_story(exercises.reference("01.detach"), seed)
    with grading.checking("01.detach", fn):
        for (what, rule, seen), (_, _, value) in zip(detach_story(fn, seed), expected):
            _expect_fact(seen, value, f"random case {seed}: {what}", rule)


def _expect_fact(seen, value, what, rule):
    if isinstance(value, np.ndarray):
        grading.expect_close(seen, value, what=what, rule=rule)
    else:
        grading.expect_equal(seen, value, what=what, rule=rule)


def _summary(result, original):
    if isinstance(result, str):                    # the error it raised (outcome)
        return result
    if not isinstance(result, ag.Tensor):
        return f"a {type(result).__name__}, not a tensor"
    summary = {"values": result.tolist(), "dtype": str(result.dtype), "shape": tuple(result.shape),
               "new tensor": result is not original, "grad_fn is None": result.grad_fn is None,
               "requires_grad": result.requires_grad}
    values, version = original.tolist(), original._version
    kept = ag.tensor(result.tolist(), dtype=result.dtype)
    error = error_of(lambda: result.add_(1))          # a write through the detached tensor, undone below
    summary["a write through it shows in the original"] = error or original.tolist() != values
    summary["what a write through it adds to the original's _version"] = error or original._version - version
    if not error:
        result.copy_(kept)
    return {**summary,
            "original requires_grad": original.requires_grad,
            "original grad_fn": None if original.grad_fn is None else original.grad_fn.name()}


_DETACH_DTYPES = [ag.float32, ag.float64, ag.int64]


# What the summary of a detached tensor holds, and the rule each entry grades.
_SUMMARY_RULES = {"values": DETACH("storage"), "dtype": DETACH("storage"), "shape": DETACH("storage"),
                  "new tensor": DETACH("new-leaf"), "grad_fn is None": DETACH("new-leaf"),
                  "requires_grad": DETACH("new-leaf"),
                  "a write through it shows in the original": DETACH("storage"),
                  "what a write through it adds to the original's _version": DETACH("version"), "original requires_grad": DETACH("original"),
                  "original grad_fn": DETACH("original")}


def compare_detach_summaries(fn, seed, count=10):
    """``fn`` on random tensors (dtypes, shapes, leaves and non-leaves): everything it must share
    and must not, against the library's ``detach``."""
    reference = exercises.reference("01.detach")
    with grading.checking("01.detach", fn):        # inputs built with the library's other pieces
        originals = []
        for rng in grading.random_cases(seed=seed, count=count):
            dtype = _DETACH_DTYPES[int(rng.integers(len(_DETACH_DTYPES)))]
            shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3))))
            base = ag.tensor((rng.standard_normal(shape) * 5).astype(dtype.numpy))
            if dtype.is_floating_point and rng.integers(2):
                base.requires_grad_()
                if rng.integers(2):
                    base = (base * 2.0).sin()
            originals.append(base)
    labels = [f"random tensor #{i} ({t.dtype}, shape {tuple(t.shape)}, {'non-leaf' if t.grad_fn is not None else 'leaf'})"
              for i, t in enumerate(originals)]
    with library_version("01"):         # your earlier exercises decide nothing of the expectation
        expected = [_summary(reference(t), t) for t in originals]
    with grading.checking("01.detach", fn):
        seen = [_summary(outcome(fn, t), t) for t in originals]
    for label, s, e in zip(labels, seen, expected):
        grading.expect_true(isinstance(s, dict), what=f"detach of {label}", seen=s, rule=DETACH("new-leaf"))
        for key, rule in _SUMMARY_RULES.items():
            _expect_fact(s[key], e[key], f"{key}, for detach of {label}", rule)


def _returned(fn, t, *args):
    """Whether ``fn(t, *args)`` returned ``t`` itself, or the error it raised."""
    returned = outcome(fn, t, *args)
    if isinstance(returned, str):                   # the error it raised
        return returned
    return "returned the tensor" if returned is t else "did not return the tensor"


def requires_grad_(fn):
    """Your ``requires_grad_`` on a float leaf (on, then off; it returns the tensor), on
    integer and bool leaves (asking for True must raise PyTorch's error, asking for False is
    fine), and on a non-leaf ``z = x * 2`` (turning it off must raise; asking for True
    changes nothing)."""
    with grading.checking("01.requires_grad_", fn):
        t = ag.tensor([1.0, 2.0])
        grading.expect_equal(_returned(fn, t), "returned the tensor", what="requires_grad_(t) for a float leaf t",
                             rule=DETACH("returns"))
        grading.expect_equal(t.requires_grad, True, what="t.requires_grad after requires_grad_(t)",
                             rule=DETACH("leaf-flag"))
        fn(t, False)
        grading.expect_equal(t.requires_grad, False, what="t.requires_grad after requires_grad_(t, False)",
                             rule=DETACH("leaf-flag"))
        grading.expect_raises(lambda: fn(ag.tensor([1, 2])), RuntimeError, NOT_FLOAT,
                              what="requires_grad_ on an int64 leaf", rule=DETACH("float-only"))
        grading.expect_raises(lambda: fn(ag.tensor([True, False]), True), RuntimeError, NOT_FLOAT,
                              what="requires_grad_(t, True) on a bool leaf", rule=DETACH("float-only"))
        grading.expect_equal(_returned(fn, ag.tensor([1, 2]), False), "returned the tensor",
                             what="requires_grad_(t, False) on an int64 leaf", rule=DETACH("float-only"))

        x = ag.tensor(1.0, requires_grad=True)
        z = x * 2
        grading.expect_raises(lambda: fn(z, False), RuntimeError, NON_LEAF,
                              what="requires_grad_(z, False) on z = x * 2", rule=DETACH("non-leaf"))
        grading.expect_equal(_returned(fn, z, True), "returned the tensor", what="requires_grad_(z, True) on z = x * 2",
                             rule=DETACH("non-leaf"))
        grading.expect_equal(None if z.grad_fn is None else z.grad_fn.name(), "MulBackward0",
                             what="z.grad_fn after requires_grad_ on z", rule=DETACH("non-leaf"))


def requires_grad_in_the_library(fn):
    """Your method inside the library: the ``Tensor`` constructor calls it
    (``requires_grad=True``), a chained ``tensor(3.0).requires_grad_()`` gets a gradient
    from ``backward()``, and after ``requires_grad_(False)`` the next op records no edge
    to that tensor."""
    with grading.checking("01.requires_grad_", fn):
        w = outcome(lambda: ag.Tensor([1.0, 2.0], requires_grad=True))   # the constructor calls Tensor.requires_grad_
        grading.expect_true(isinstance(w, ag.Tensor), what="ag.Tensor([1., 2.], requires_grad=True)",
                            seen=w if isinstance(w, str) else type(w).__name__, rule=DETACH("leaf-flag"))
        grading.expect_equal(w.requires_grad, True, what="ag.Tensor([1., 2.], requires_grad=True).requires_grad",
                             rule=DETACH("leaf-flag"))
        s = outcome(lambda: ag.tensor(3.0).requires_grad_())
        grading.expect_true(isinstance(s, ag.Tensor), what="ag.tensor(3.0).requires_grad_() is a tensor",
                            seen=s if isinstance(s, str) else type(s).__name__, rule=DETACH("returns"))
        (w * s).sum().backward()
        grading.expect_close(s.grad, 3.0, what="s.grad after (w * s).sum().backward()", rule=DETACH("leaf-flag"))
        s.requires_grad_(False)
        frozen = w * s
        grading.expect_equal((s.requires_grad, frozen.grad_fn.next_functions[1][0] is None), (False, True),
                             what="(s.requires_grad, the edge of s in w * s is None) after s.requires_grad_(False)",
                             rule=DETACH("leaf-flag"))


# Each kind of case of the hidden tests: (the rule of what the call returns or raises, the rule of
# the flags afterwards).
REQUIRES_GRAD__KINDS = {
    "floating-point leaf, default argument": (DETACH("returns"), DETACH("leaf-flag")),
    "floating-point leaf": (DETACH("returns"), DETACH("leaf-flag")),
    "non-floating leaf, asking True": (DETACH("float-only"), DETACH("float-only")),
    "non-floating leaf, asking False": (DETACH("float-only"), DETACH("float-only")),
    "non-leaf, asking False": (DETACH("non-leaf"), DETACH("non-leaf")),
    "non-leaf, asking True": (DETACH("non-leaf"), DETACH("non-leaf")),
}


def _random_flag_case(kind, rng):
    shape = (int(rng.integers(3, 6)),) + tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(0, 3))))
    values = rng.standard_normal(shape) * 3
    flag = bool(rng.integers(2))
    if kind.startswith("non-floating"):
        dtype, flag = [ag.int64, ag.int32, ag.bool][int(rng.integers(3))], False
    else:
        dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    if kind == "floating-point leaf, default argument" or (kind.endswith("True") and rng.integers(2)):
        args = ()
    else:
        args = (kind.endswith("True") if "asking" in kind else bool(rng.integers(2)),)
    return kind, dtype, shape, values.astype(dtype.numpy), flag, args


def _build_flag_case(case):
    kind, dtype, shape, values, flag, args = case
    if kind.startswith("non-leaf"):
        return (ag.tensor(values, requires_grad=True) * 2.0).exp()
    return ag.tensor(values, requires_grad=flag)


def _flags(t):
    return t.requires_grad, None if t.grad_fn is None else t.grad_fn.name()


def compare_requires_grad_(fn, seed, count=12):
    """``fn`` on random tensors of every kind of ``REQUIRES_GRAD__KINDS`` (dtypes, shapes, flags
    and the call's argument vary), against the library's ``requires_grad_``."""
    reference = exercises.reference("01.requires_grad_")
    cases = [_random_flag_case(list(REQUIRES_GRAD__KINDS)[i % len(REQUIRES_GRAD__KINDS)], rng)
             for i, rng in enumerate(grading.random_cases(seed=seed, count=count))]
    with grading.checking("01.requires_grad_", fn):      # inputs built with the library's other pieces
        theirs, ours = [_build_flag_case(case) for case in cases], [_build_flag_case(case) for case in cases]
    expected = [(_returned(reference, t, *case[-1]), _flags(t)) for case, t in zip(cases, ours)]
    with grading.checking("01.requires_grad_", fn):
        for i, (case, t, (expected_return, expected_flags)) in enumerate(zip(cases, theirs, expected)):
            _expect_flag_case(fn, i, case, t, expected_return, expected_flags, *REQUIRES_GRAD__KINDS[case[0]])


def _expect_flag_case(fn, i, case, t, expected_return, expected_flags, return_rule, flags_rule):
    kind, dtype, shape, values, flag, args = case
    call = f"requires_grad_(t{''.join(f', {a}' for a in args)})"
    what = (f"{call} for random case {i}: t a {kind.split(',')[0]} ({dtype}, shape {shape}, "
            f"requires_grad={t.requires_grad})")
    if expected_return.startswith("RuntimeError: "):
        grading.expect_raises(lambda: fn(t, *args), RuntimeError, expected_return[len("RuntimeError: "):], what=what,
                              rule=return_rule)
    else:
        grading.expect_equal(_returned(fn, t, *args), expected_return, what=f"the return value of {what}",
                             rule=return_rule)
    grading.expect_equal(_flags(t), expected_flags, what=f"(t.requires_grad, t.grad_fn) after {what}", rule=flags_rule)


_FLAG_DTYPES = [ag.float32, ag.float64, ag.int64, ag.bool]


def _build_effect_case(dtype, kind, flag, values):
    if kind == "non-leaf":
        return ag.tensor(values, dtype=dtype, requires_grad=True) * 2.0
    return ag.tensor(values, dtype=dtype, requires_grad=flag)


def _effect(fn, t, ask):
    try:
        returned = fn(t, ask)
    except grading.DelegationError:
        raise
    except Exception as e:
        raise_if_not_written(e)
        return f"{type(e).__name__}: {e}"
    return ("returned the tensor" if returned is t else f"returned {type(returned).__name__}",
            t.requires_grad, t.grad_fn is None)


def compare_requires_grad_effects(fn, seed, count=24):
    """``fn(t, ask)`` on random dtypes, leaves and non-leaves made through the ``Tensor``
    constructor and ops: the outcome, ``requires_grad`` after, and whether ``t`` is a leaf,
    against the library's ``requires_grad_``."""
    reference = exercises.reference("01.requires_grad_")
    cases = []
    for rng in grading.random_cases(seed=seed, count=count):
        dtype = _FLAG_DTYPES[int(rng.integers(len(_FLAG_DTYPES)))]
        kind = "non-leaf" if dtype.is_floating_point and rng.integers(3) == 0 else "leaf"
        flag = dtype.is_floating_point and bool(rng.integers(2))
        ask = bool(rng.integers(2))
        values = rng.integers(0, 2, size=int(rng.integers(1, 4))).tolist()
        cases.append((dtype, kind, flag, ask, values))
    with grading.checking("01.requires_grad_", fn):
        theirs = [_build_effect_case(dtype, kind, flag, values) for dtype, kind, flag, ask, values in cases]
        ours = [_build_effect_case(dtype, kind, flag, values) for dtype, kind, flag, ask, values in cases]
        seen = [_effect(fn, t, case[3]) for t, case in zip(theirs, cases)]
    expected = [_effect(reference, t, case[3]) for t, case in zip(ours, cases)]
    for (dtype, kind, flag, ask, values), s, e in zip(cases, seen, expected):
        grading.expect_equal(s, e, what=f"requires_grad_(t, {ask}) on a {dtype} {kind} with requires_grad="
                                        f"{kind == 'non-leaf' or flag} (outcome, requires_grad after, is a leaf)",
                             rule=DETACH("non-leaf") if kind == "non-leaf" else
                             DETACH("leaf-flag", "float-only") if ask else DETACH("leaf-flag", "returns"))
