"""Visible checks of assignment 06's exercise 1, ``plan_saves``: what a new node keeps.

``autograd_course.checks.lifetime`` (the notebook's ``check``) imports them; each function
is the visible part of one test cell, run on the function you wrote, and its docstring says
what it tries.  The constants are the rules the checks name (the hidden tests name them too).
``grads_of`` and ``plain`` are shared with the other checks of the notebook.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib.recording import PARAM, PARAM_IF_GIVEN, RESULT, SAVED_PARAM
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, raise_if_not_written

__all__ = ["plan_saves", "plan_saves_in_the_engine", "plan_of", "expect_plan", "random_records", "grads_of", "plain",
           "random_plan_cases", "expect_plans", "expect_records", "expect_record",
           "PAIRS", "NEEDED_ONLY", "SOURCES", "IF_GIVEN", "NEEDED_FIRST", "COMPUTES"]


def grads_of(tensors):
    """The .grad of each tensor as a rounded list (None where there is none)."""
    return [None if t.grad is None else np.round(t.grad._data, 10).tolist() for t in tensors]


def plain(value):
    """A comparable form of a tensor, a list of values or an error text."""
    if isinstance(value, ag.Tensor):
        return ("tensor", np.round(value._data, 10).tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# ------------------------------------------------------------ 06.plan_saves

PLAN = grading.rules("06.plan_saves")
PAIRS = PLAN("pairs")
NEEDED_ONLY = PLAN("needed-only")
SOURCES = PLAN("sources")
IF_GIVEN = PLAN("if-given")
NEEDED_FIRST = PLAN("needed-first")
COMPUTES = PLAN("computes")


def plan_of(fn, node_cls, needs_grad):
    """What ``fn(node_cls, needs_grad)`` returns, as {value name: source}, or the problem
    with it as a text (an error, a value that is not a pair, a name given twice)."""
    try:
        plan = fn(node_cls, tuple(needs_grad))
        pairs = [tuple(pair) for pair in plan]
    except Exception as error:                   # report a crash as what was seen
        return f"{type(error).__name__}: {error}"
    if not all(len(pair) == 2 for pair in pairs):
        return f"not (value_name, source) pairs: {plan!r}"
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        return f"a value name more than once: {names}"
    return dict(pairs)


def _node_class(name):
    return ag.derivatives.NODES[name]


def plan_saves(fn):
    """Your ``plan_saves`` called directly on the node classes of ``x * w``, ``x / w``,
    ``x.exp()``, ``x ** 3``, ``x + w`` (``alpha``), ``x[idx]`` (``indices``, freed with the
    saved tensors) and ``addmm``, for several patterns of inputs that need a gradient."""
    cases = [  # (node name, op, needs_grad, expected plan)
        ("MulBackward0", "x * w", (True, True), {"other": 1, "self": 0}),
        ("MulBackward0", "x * w", (True, False), {"other": 1}),
        ("MulBackward0", "x * w", (False, True), {"self": 0}),
        ("DivBackward0", "x / w", (True, True), {"other": 1, "self": 0}),
        ("ExpBackward0", "x.exp()", (True,), {"result": RESULT}),
        ("PowBackward0", "x ** 3", (True,), {"self": 0, "exponent": PARAM}),
        ("IndexBackward0", "x[idx]", (True,), {"self_shape": PARAM, "indices": SAVED_PARAM}),
        ("AddBackward0", "x + w", (True, True), {"alpha": PARAM}),
        ("AddBackward0", "x + w", (False, True), {"alpha": PARAM}),
        ("AddBackward0", "x + w", (True, False), {"alpha": PARAM_IF_GIVEN}),
        ("AddmmBackward0", "addmm(b, m1, m2)", (True, False, False), {"beta": PARAM, "alpha": PARAM_IF_GIVEN,
         "mat1_col_major": PARAM_IF_GIVEN, "mat2_col_major": PARAM_IF_GIVEN}),
        ("AddmmBackward0", "addmm(b, m1, m2)", (False, False, True), {"mat1": 1, "alpha": PARAM,
         "mat2_col_major": PARAM, "beta": PARAM_IF_GIVEN, "mat1_col_major": PARAM_IF_GIVEN}),
    ]
    with grading.checking("06.plan_saves", fn):
        seen = [plan_of(fn, _node_class(node), needs) for node, _, needs, _ in cases]
    for (node, op, needs, expected), plan in zip(cases, seen):
        expect_plan(plan, expected, what=f"plan_saves({node}, {needs}) as a dict, for {op} "
                                         f"(its formulas name {_names_per_input(_node_class(node))})")


def expect_plan(seen, expected, what):
    """Fail when the plan ``seen`` (as ``plan_of`` gives it) differs from ``expected``, naming
    the rule its difference breaks."""
    if seen == expected:
        return
    if not isinstance(seen, dict):
        grading.expect_equal(seen, expected, what=what, rule=PAIRS)
    differ = [name for name in {**seen, **expected} if seen.get(name) != expected.get(name)]
    if any(expected.get(name) == PARAM and seen.get(name) == PARAM_IF_GIVEN for name in differ):
        grading.expect_equal(seen, expected, what=what, rule=NEEDED_FIRST)
    if any(PARAM_IF_GIVEN in (seen.get(name), expected.get(name)) for name in differ):
        grading.expect_equal(seen, expected, what=what, rule=IF_GIVEN)
    grading.expect_equal(seen, expected, what=what, rule=NEEDED_ONLY if set(seen) != set(expected) else SOURCES)


def _names_per_input(node_cls):
    return {name: node_cls.formulas[name][1] for name in node_cls.input_names}


def _what_is_kept(y):
    """(saved names, plain values) of y's node, sorted."""
    node = y.grad_fn
    return sorted(node._saved), {name: ("tensor", value.tolist()) if isinstance(value, ag.Tensor) else value
                                 for name, value in sorted(node._params.items())}


def random_records(seed):
    """Six ops on random operands a and b, one or both requiring grad (the same ones for the
    same seed): per op, (label, a.requires_grad, b.requires_grad, what its node keeps, or None
    without a node, and the gradients of a and b after backward)."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 4))
    records = []
    for _ in range(6):
        needs = int(rng.integers(1, 4))               # a, b or both require grad
        a, b = (ag.tensor(rng.uniform(0.5, 2.0, size=size)).requires_grad_(bool(needs & bit))
                for bit in (1, 2))
        k = round(float(rng.uniform(0.5, 2.0)), 2)
        ops = {"a * b": lambda: a * b, "a / b": lambda: a / b, f"ag.add(a, b, alpha={k})": lambda: ag.add(a, b, alpha=k),
               f"ag.sub(a, b, alpha={k})": lambda: ag.sub(a, b, alpha=k), "a.exp()": lambda: a.exp(),
               "a.sigmoid()": lambda: a.sigmoid(), f"a ** {k}": lambda: a ** k,
               "ag.where(a > 1, a, b)": lambda: ag.where(a > 1, a, b), "a[[0, 0]]": lambda: a[ag.tensor([0, 0])],
               f"ag.addcmul(a, a, b, value={k})": lambda: ag.addcmul(a, a, b, value=k),
               f"ag.lerp(a, b, {k})": lambda: ag.lerp(a, b, k), "ag.clamp(a, min=b)": lambda: ag.clamp(a, min=b)}
        label = list(ops)[int(rng.integers(len(ops)))]
        try:
            y = ops[label]()
            kept = _what_is_kept(y) if y.grad_fn is not None else None
            if y.requires_grad:
                y.sum().backward()
            records.append((label, a.requires_grad, b.requires_grad, kept, grads_of([a, b])))
        except Exception as error:                    # report a crash as what was seen
            raise_if_not_written(error)
            records.append((label, a.requires_grad, b.requires_grad, f"{type(error).__name__}: {error}", None))
    return records


def plan_saves_in_the_engine(fn):
    """Nodes recorded with your plans: what ``x * c``, ``x.exp()``, ``x ** 3``,
    ``ag.add(c, x, alpha=2.0)``, ``x[idx]`` and ``ag.where(cond, x, c)`` keep (``x``
    requires grad, ``c`` does not), and the gradients their backward computes with it."""
    with grading.checking("06.plan_saves", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = ag.tensor([4.0, 5.0, 6.0])
        cond = ag.tensor([True, False, True])
        cases = [("x * c", lambda: x * c, ["other"], {}, [4.0, 5.0, 6.0]),
                 ("x.exp()", lambda: x.exp(), ["result"], {}, np.exp([1.0, 2.0, 3.0])),
                 ("x ** 3", lambda: x ** 3, ["self"], {"exponent": 3}, [3.0, 12.0, 27.0]),
                 ("ag.add(c, x, alpha=2.0)", lambda: ag.add(c, x, alpha=2.0), [], {"alpha": 2.0},
                  [2.0, 2.0, 2.0]),
                 ("x[idx] for idx = [0, 0, 2]", lambda: x[ag.tensor([0, 0, 2])], ["indices"],
                  {"self_shape": (3,)}, [2.0, 0.0, 1.0]),
                 ("ag.where(cond, x, c)", lambda: ag.where(cond, x, c), [],
                  {"condition": ("tensor", [True, False, True])}, [1.0, 0.0, 1.0])]
        seen = []
        for label, build, _, _, _ in cases:
            x.grad = None
            try:
                y = build()
                kept = _what_is_kept(y)
                y.sum().backward()
                seen.append((kept, None if x.grad is None else x.grad.numpy()))
            except Exception as error:                # report a crash as a broken rule
                raise_if_not_written(error)
                seen.append((f"{type(error).__name__}: {error}", None))
    for (label, _, saved, params, grad), (kept, x_grad) in zip(cases, seen):
        what = f"(sorted(node._saved), node._params) of the node of {label}"
        if isinstance(kept, tuple) and kept[0] != saved:
            grading.expect_equal(kept, (saved, params), what=what, rule=NEEDED_ONLY)
        grading.expect_equal(kept, (saved, params), what=what, rule=SOURCES)
        grading.expect_close(x_grad, grad, what=f"x.grad after ({label}).sum().backward()",
                             rule=COMPUTES)


def random_plan_cases(seeds):
    """(node class, needs_grad) for each seed: a random class of the library's nodes (not
    variadic) and a random pattern of inputs needing a gradient, at least one."""
    classes = sorted({c for c in ag.derivatives.NODES.values() if c.input_names and not c.variadic},
                     key=lambda c: c.__name__)
    cases = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        node_cls = classes[int(rng.integers(len(classes)))]
        needs = tuple(bool(b) for b in rng.integers(2, size=len(node_cls.input_names)))
        cases.append((node_cls, needs if any(needs) else (True,) + needs[1:]))
    return cases


def expect_plans(fn, cases):
    """fn's plan for each (node class, needs_grad), compared with the library's."""
    reference = exercises.reference("06.plan_saves")
    with grading.checking("06.plan_saves", fn):
        seen = [plan_of(fn, node_cls, needs) for node_cls, needs in cases]
    for (node_cls, needs), plan in zip(cases, seen):
        expected = plan_of(reference, node_cls, needs)
        expect_plan(plan, expected, what=f"plan_saves({node_cls.__name__}, {needs}) as a dict "
                                         f"(its formulas name {_names_per_input(node_cls)}, saves {node_cls.saves})")


def expect_record(seen, expected, what):
    """Fail when two records of ``random_records`` differ, naming the rule the first
    difference breaks: what a node kept, or the gradients computed from it."""
    for s, e in zip(seen, expected):
        if s[3] != e[3]:
            if not (isinstance(s[3], tuple) and isinstance(e[3], tuple)):
                grading.expect_equal(seen, expected, what=what, rule=PAIRS)
            grading.expect_equal(seen, expected, what=what, rule=NEEDED_ONLY if s[3][0] != e[3][0] else SOURCES)
    grading.expect_equal(seen, expected, what=what, rule=COMPUTES)


def expect_records(fn, seeds):
    """random_records(seed) with fn plugged, compared with the library's."""
    with grading.checking("06.plan_saves", fn):
        seen = [random_records(seed) for seed in seeds]
    with library_version("06"):
        expected = [random_records(seed) for seed in seeds]
    for i, (s, e) in enumerate(zip(seen, expected)):
        expect_record(s, e, what=f"random ops #{i}: (op, a.requires_grad, b.requires_grad, (saved names, "
                                 "params) of its node, the grads of a and b)")
