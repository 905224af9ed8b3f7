"""Visible checks of assignment 01, exercise 1: ``result_requires_grad``, and ``is_leaf``, the
other slot it fills.

``autograd_course.checks.tensors`` (the notebook's ``check``) shows them; each function
without ``compare_`` in its name is the visible part of one test cell, run on the function you
wrote, and its docstring says what it tries.  The ``compare_*`` functions are what the hidden
parts run on random inputs, against the library's own rule.  Every failure names a rule of the
exercise's task text (``grading.rules("01.result_requires_grad")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import outcome

__all__ = ["result_requires_grad", "result_requires_grad_in_the_engine", "REQUIRES_GRAD_KINDS",
           "compare_requires_grad_rule", "compare_requires_grad_in_ops", "is_leaf", "is_leaf_without_requires_grad",
           "LEAF_KINDS", "compare_is_leaf", "compare_leaves_of_ops"]

RRG = grading.rules("01.result_requires_grad")


# ------------------------------------------------------------ 01.result_requires_grad (and is_leaf)

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
        seen = outcome(fn, b, b)
        grading.expect_equal(type(seen).__name__, "bool", what="the type of result_requires_grad(b, b)",
                             rule=RRG("bool"))
        grading.expect_equal(outcome(fn, a, b), True, what="result_requires_grad(a, b) with a.requires_grad=True",
                             rule=RRG("any"))
        grading.expect_equal(outcome(fn, b, a), True, what="result_requires_grad(b, a) with a.requires_grad=True",
                             rule=RRG("any"))
        grading.expect_equal(seen, False, what="result_requires_grad(b, b) with b.requires_grad=False",
                             rule=RRG("none"))
        grading.expect_equal(outcome(fn), False, what="result_requires_grad() with no inputs", rule=RRG("none"))
        grading.expect_equal(outcome(fn, c, b), True, what="result_requires_grad(c, b) with c = a * 3 (a non-leaf)",
                             rule=RRG("non-leaf"))
        grading.expect_equal(outcome(fn, None, a), True, what="result_requires_grad(None, a)", rule=RRG("absent"))
        grading.expect_equal(outcome(fn, b, None), False, what="result_requires_grad(b, None)", rule=RRG("absent"))
        with ag.no_grad():
            grading.expect_equal(outcome(fn, a, b), False, what="result_requires_grad(a, b) inside no_grad()",
                                 rule=RRG("no-grad"))
            grading.expect_equal(outcome(fn, c), False, what="result_requires_grad(c) inside no_grad()",
                                 rule=RRG("no-grad"))


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
                             rule=RRG("any"))
        grading.expect_equal(None if z.grad_fn is None else z.grad_fn.name(), "MulBackward0", what="(x * y).grad_fn",
                             rule=RRG("recorded"))
        w = y * y
        grading.expect_equal((w.grad_fn, w.requires_grad), (None, False),
                             what="(grad_fn, requires_grad) of y * y for a constant y", rule=RRG("none"))
        u = (z + y).exp()
        grading.expect_equal(u.requires_grad, True, what="exp(z + y).requires_grad where z = x * y",
                             rule=RRG("non-leaf"))
        with ag.no_grad():
            v = x * y
        grading.expect_equal((v.grad_fn, v.requires_grad), (None, False),
                             what="(grad_fn, requires_grad) of x * y computed inside no_grad()", rule=RRG("no-grad"))


# Each kind of case of the hidden tests: the rule that decides it.
REQUIRES_GRAD_KINDS = {"any": RRG("any"), "wherever": RRG("any"), "none": RRG("none"), "non-leaf": RRG("non-leaf"),
                       "absent": RRG("absent"), "no_grad": RRG("no-grad")}
_INPUT_DTYPES = [ag.float32, ag.float64, ag.int64, ag.bool]


def _random_input(kind, rng):
    if kind == "None":
        return None
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    if kind == "constant":
        dtype = _INPUT_DTYPES[int(rng.integers(len(_INPUT_DTYPES)))]
        return ag.tensor((rng.standard_normal(shape) * 3).astype(dtype.numpy))
    leaf = ag.tensor(rng.standard_normal(shape).astype(_INPUT_DTYPES[int(rng.integers(2))].numpy), requires_grad=True)
    return leaf if kind == "leaf" else (leaf * float(rng.uniform(0.5, 2.0))).sin()


def _random_kinds(case, rng):
    """Input kinds for which the rule of ``case`` decides the answer."""
    constants = ["constant"] * int(rng.integers(1, 4))
    if case == "any":
        return ["leaf"] + constants + ["leaf", "non-leaf", "constant"][:int(rng.integers(0, 4))]
    if case == "wherever":
        return constants[:1] + list(rng.permutation(constants[1:] + ["leaf"]))
    if case == "none":
        return constants
    if case == "non-leaf":
        return list(rng.permutation(constants + ["non-leaf"]))
    if case == "no_grad":
        return list(rng.permutation(constants + [["leaf", "non-leaf"][int(rng.integers(2))]]
                                    + ["None"] * int(rng.integers(2))))
    deciding = ["leaf", "non-leaf", "constant"][int(rng.integers(3))]      # "absent": the others decide
    return list(rng.permutation(constants + ["None"] * int(rng.integers(1, 3)) + [deciding]))


def compare_requires_grad_rule(fn, seed, count=12):
    """``fn`` on random inputs (any number, random shapes and dtypes; each case one rule of
    ``REQUIRES_GRAD_KINDS`` decides), against the library's rule."""
    reference = exercises.reference("01.result_requires_grad")
    cases = []
    with exercises.plugged("01.result_requires_grad", reference):
        for i, rng in enumerate(grading.random_cases(seed=seed, count=count)):
            case = list(REQUIRES_GRAD_KINDS)[i % len(REQUIRES_GRAD_KINDS)]
            kinds = [str(kind) for kind in _random_kinds(case, rng)]
            inputs = tuple(_random_input(kind, rng) for kind in kinds)
            mode = case != "no_grad"
            with ag.set_grad_enabled(mode):
                cases.append((case, kinds, mode, inputs, reference(*inputs)))
    with grading.checking("01.result_requires_grad", fn):
        for i, (case, kinds, mode, inputs, expected) in enumerate(cases):
            with ag.set_grad_enabled(mode):
                seen = outcome(fn, *inputs)
            what = (f"result_requires_grad(*inputs) for random case {i}, inputs {kinds} "
                    f"({', '.join('None' if t is None else f'{t.dtype} {tuple(t.shape)}' for t in inputs)}), "
                    f"grad mode {'on' if mode else 'off'}")
            _expect_requires_grad(seen, expected, what, REQUIRES_GRAD_KINDS[case])


def _expect_requires_grad(seen, expected, what, rule):
    if not isinstance(seen, str):            # an error is reported below, with the rule of the case
        grading.expect_equal(type(seen).__name__, "bool", what=f"the type of {what}", rule=RRG("bool"))
    grading.expect_equal(seen, expected, what=what, rule=rule)


_OP_KINDS = ["None", "constant", "leaf requiring grad", "non-leaf"]


def _made(kind, rng):
    value = rng.standard_normal(2).astype(np.float32)
    if kind == "None":
        return None
    if kind == "constant":
        return ag.tensor(value)
    if kind == "leaf requiring grad":
        return ag.tensor(value, requires_grad=True)
    return ag.tensor(value, requires_grad=True) * 2.0


def compare_requires_grad_in_ops(fn, seed):
    """``fn`` on random inputs and grad modes, then ``a + b`` recorded with it, against the
    library's rule."""
    reference = exercises.reference("01.result_requires_grad")
    cases, pairs = [], []
    with exercises.plugged("01.result_requires_grad", reference):
        for rng in grading.random_cases(seed=seed, count=16):
            kinds = [_OP_KINDS[int(k)] for k in rng.integers(0, 4, size=int(rng.integers(0, 5)))]
            inputs = tuple(_made(kind, rng) for kind in kinds)
            mode = bool(rng.integers(0, 4))          # grad mode on 3 times out of 4
            with ag.set_grad_enabled(mode):
                cases.append((kinds, mode, inputs, reference(*inputs)))
        for rng in grading.random_cases(seed=seed + 1, count=12):
            kinds = [_OP_KINDS[int(k)] for k in rng.integers(1, 4, size=2)]
            a, b = (_made(kind, rng) for kind in kinds)
            mode = bool(rng.integers(0, 4))
            with ag.set_grad_enabled(mode):
                pairs.append((kinds, mode, a, b, reference(a, b)))
    with grading.checking("01.result_requires_grad", fn):
        for kinds, mode, inputs, expected in cases:
            with ag.set_grad_enabled(mode):
                seen = outcome(fn, *inputs)
            grading.expect_equal(seen, expected,
                                 what=f"result_requires_grad of inputs {kinds} with grad mode {'on' if mode else 'off'}",
                                 rule=RRG("any", "none", "no-grad") if mode else RRG("no-grad"))
        for kinds, mode, a, b, expected in pairs:
            with ag.set_grad_enabled(mode):
                out = a + b
            grading.expect_equal((out.requires_grad, out.grad_fn is not None), (expected, expected),
                                 what=f"(requires_grad, has a grad_fn) of a + b for a, b = {kinds}, grad mode "
                                      f"{'on' if mode else 'off'}", rule=RRG("recorded"))


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
        seen = {name: outcome(fn, t) for name, t in [("x", x), ("y", y), ("z", z), ("w", w), ("d", d), ("n", n)]}
        seen_property = outcome(lambda: z.is_leaf)
    grading.expect_equal(type(seen["x"]).__name__, "bool", what="the type of is_leaf(x)", rule=RRG("leaf"))
    for name, made_by, expected in [
            ("x", "x = tensor(1.0, requires_grad=True)", True), ("y", "y = tensor(2.0)", True),
            ("z", "z = x * y", False), ("w", "w = y * 3", True), ("d", "d = z.detach()", True),
            ("n", "n = x * y computed in no_grad()", True)]:
        grading.expect_equal(seen[name], expected, what=f"is_leaf({name}) for {made_by}",
                             rule=RRG("leaf") if expected else RRG("not-leaf"))
    grading.expect_equal(seen_property, False, what="z.is_leaf (the property now calls your function)",
                         rule=RRG("not-leaf"))


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
        seen = {name: outcome(fn, t) for name, t in no_grad_tensors.items()}
        seen_nonleaf = outcome(fn, (p * 2).sum())
    for name, value in seen.items():
        grading.expect_equal(value, True, what=f"is_leaf({name}), a tensor with requires_grad=False",
                             rule=RRG("leaf"))
    grading.expect_equal(seen_nonleaf, False, what="is_leaf((p * 2).sum()) with p.requires_grad=True",
                         rule=RRG("not-leaf"))


# Each kind of tensor of the hidden tests: whether it is a leaf.
LEAF_KINDS = {"created, requires grad": True, "created, constant": True, "recorded": False, "op on constants": True,
              "detached": True, "no_grad": True}
_LEAF_OPS = {"t * c": lambda t, c: t * c, "tanh(t + c)": lambda t, c: (t + c).tanh(),
             "exp(t - c).sum()": lambda t, c: (t - c).exp().sum(), "t / (c * c + 1)": lambda t, c: t / (c * c + 1.0)}


def _random_leaf_case(kind, rng):
    """A tensor of the given kind and its description."""
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    values = rng.standard_normal(shape).astype(dtype.numpy)
    c = ag.tensor(rng.standard_normal(shape).astype(dtype.numpy))
    op = list(_LEAF_OPS)[int(rng.integers(len(_LEAF_OPS)))]
    if kind == "created, requires grad":
        return ag.tensor(values, requires_grad=True), f"tensor(<{dtype} {shape}>, requires_grad=True)"
    if kind == "created, constant":
        made = [(ag.tensor(values), f"tensor(<{dtype} {shape}>)"),
                (ag.tensor(rng.integers(-5, 5, size=shape)), f"tensor(<int64 {shape}>)"),
                (ag.zeros(*shape, dtype=dtype), f"zeros{shape}")]
        return made[int(rng.integers(len(made)))]
    if kind == "op on constants":
        return _LEAF_OPS[op](ag.tensor(values), c), f"{op} for constants t, c of shape {shape}"
    t = ag.tensor(values, requires_grad=True)
    if kind == "recorded":
        return _LEAF_OPS[op](t, c), f"{op}, t of shape {shape} requires grad"
    if kind == "detached":
        return _LEAF_OPS[op](t, c).detach(), f"({op}).detach(), t of shape {shape} requires grad"
    with ag.no_grad():
        return _LEAF_OPS[op](t, c), f"{op} in no_grad(), t of shape {shape} requires grad"


def compare_is_leaf(fn, seed, count=12):
    """``fn`` and the property ``t.is_leaf`` on random tensors of every kind of ``LEAF_KINDS``
    (random shapes, dtypes and ops), against the library's ``is_leaf``."""
    reference = exercises.reference("01.is_leaf")
    with grading.checking("01.is_leaf", fn):
        cases = []
        for i, rng in enumerate(grading.random_cases(seed=seed, count=count)):
            kind = list(LEAF_KINDS)[i % len(LEAF_KINDS)]
            t, description = _random_leaf_case(kind, rng)
            cases.append((kind, description, t, outcome(fn, t), outcome(lambda: t.is_leaf)))
    for i, (kind, description, t, seen, seen_property) in enumerate(cases):
        expected = reference(t)
        grading.expect_equal(seen, expected, what=f"is_leaf(t) for random case {i}, t = {description}",
                             rule=RRG("leaf") if LEAF_KINDS[kind] else RRG("not-leaf"))
        grading.expect_equal(seen_property, expected, what=f"t.is_leaf (the property now calls your function) for "
                             f"random case {i}, t = {description}",
                             rule=RRG("leaf") if LEAF_KINDS[kind] else RRG("not-leaf"))


def compare_leaves_of_ops(fn, seed):
    """``fn`` on the tensors of random programs (products, ``tanh``, ``detach``, ops under
    ``no_grad``) over leaves that may require grad, against the library's ``is_leaf``."""
    reference = exercises.reference("01.is_leaf")
    with grading.checking("01.is_leaf", fn):
        tensors = []
        for rng in grading.random_cases(seed=seed, count=8):
            pool = [ag.tensor(rng.standard_normal(2).astype(np.float32), requires_grad=bool(rng.integers(2)))
                    for _ in range(2)]
            for step in range(5):
                p, q = pool[int(rng.integers(len(pool)))], pool[int(rng.integers(len(pool)))]
                op = int(rng.integers(4))
                if op == 0:
                    pool.append(p * q)
                elif op == 1:
                    pool.append((p + q).tanh())
                elif op == 2:
                    pool.append(p.detach())
                else:
                    with ag.no_grad():
                        pool.append(p - q)
            tensors += pool
        seen = [outcome(fn, t) for t in tensors]
    expected = [reference(t) for t in tensors]
    for i, (t, s, e) in enumerate(zip(tensors, seen, expected)):
        grad_fn = None if t.grad_fn is None else t.grad_fn.name()
        grading.expect_equal(s, e, what=f"is_leaf of random tensor #{i} (requires_grad={t.requires_grad}, "
                                        f"grad_fn={grad_fn})", rule=RRG("leaf") if e else RRG("not-leaf"))
