"""Visible checks of assignment 01: tensors and ``requires_grad``.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs (the ``compare_*`` and ``random_*`` helpers
below).  Every failure names a rule of the exercise's task text.

Why one module of this length: it is the visible half of the notebook's 14 test cells, one
function per cell, and the helpers their hidden parts share, kept together so that a student
reads one file per notebook.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import error_of, library_version, outcome

__all__ = ["result_requires_grad", "result_requires_grad_in_the_engine", "is_leaf", "is_leaf_without_requires_grad",
           "compare_requires_grad_rule", "compare_requires_grad_in_ops", "compare_is_leaf", "compare_leaves_of_ops",
           "detach", "detach_in_the_engine", "requires_grad_", "requires_grad_in_the_library", "compare_detach",
           "compare_detach_summaries", "compare_requires_grad_", "compare_requires_grad_effects", "NON_LEAF",
           "NOT_FLOAT", "result_type", "result_type_in_the_library", "operand_label", "expect_promotions",
           "compare_result_type", "compare_mixed_ops", "mixed_ops", "PROMOTION_CASES", "infer_dtype",
           "infer_dtype_in_the_library", "compare_infer_dtype", "compare_infer_in_the_library", "nested_shape",
           "nested_shape_in_the_library", "compare_nested_shape", "compare_shapes_in_the_library", "nest_label",
           "infer_rule", "random_data", "random_nest", "random_shape", "shape_rule", "expect_shapes",
           "expect_dtypes", "made", "tensors_made"]

RRG = grading.rules("01.result_requires_grad")
DETACH = grading.rules("01.detach")
PROMOTE = grading.rules("01.result_type")
DTYPE = grading.rules("01.infer_dtype")
SHAPE = grading.rules("01.nested_shape")


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


# ------------------------------------------------------------ 01.detach (and requires_grad_)

NON_LEAF = ("you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
            "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
NOT_FLOAT = "only Tensors of floating point dtype can require gradients"


def detach(fn):
    """Your ``detach`` on ``y = x * 2``: a new tensor, a leaf that does not require grad,
    ``y``'s graph untouched, the same NumPy storage and the same version counter (an
    ``add_`` through the detached tensor shows in ``y`` and bumps its version); and an
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
        grading.expect_true(np.shares_memory(d._data, y._data), what="detach(y) shares y's NumPy array",
                            seen="a copy of the values", rule=DETACH("storage"))
        grading.expect_true(d._version_counter is y._version_counter, what="detach(y) shares y's version counter",
                            seen="a different counter object", rule=DETACH("version"))
        d.add_(1.0)
        grading.expect_close(y, [3.0, 5.0, 7.0], what="y after detach(y).add_(1)", rule=DETACH("storage"))
        grading.expect_equal(y._version, 1, what="y._version after detach(y).add_(1)", rule=DETACH("version"))

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
              (f"the values of detach(t), {label}", DETACH("storage"), d._data.copy()),
              (f"detach(t) shares t's NumPy array, {label}", DETACH("storage"),
               bool(np.shares_memory(d._data, t._data))),
              (f"detach(t) shares t's version counter, {label}", DETACH("version"),
               d._version_counter is t._version_counter)]
    amount = int(rng.integers(1, 5)) if dtype == ag.int64 else round(float(rng.uniform(-3, 3)), 2)
    version = t._version
    facts += [(f"the error of d.add_({amount}), {label}", DETACH("new-leaf"),
               error_of(lambda: d.add_(amount)) or "no error"),
              (f"t after detach(t).add_({amount}), {label}", DETACH("storage"), t._data.copy()),
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
    return {"values": result._data.tolist(), "dtype": str(result.dtype), "shape": tuple(result.shape),
            "new tensor": result is not original, "grad_fn is None": result.grad_fn is None,
            "requires_grad": result.requires_grad,
            "shares storage": bool(np.shares_memory(result._data, original._data)),
            "shares version counter": result._version_counter is original._version_counter,
            "original requires_grad": original.requires_grad,
            "original grad_fn": None if original.grad_fn is None else original.grad_fn.name()}


_DETACH_DTYPES = [ag.float32, ag.float64, ag.int64]


# What the summary of a detached tensor holds, and the rule each entry grades.
_SUMMARY_RULES = {"values": DETACH("storage"), "dtype": DETACH("storage"), "shape": DETACH("storage"),
                  "new tensor": DETACH("new-leaf"), "grad_fn is None": DETACH("new-leaf"),
                  "requires_grad": DETACH("new-leaf"), "shares storage": DETACH("storage"),
                  "shares version counter": DETACH("version"), "original requires_grad": DETACH("original"),
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
    expected = [_summary(reference(t), t) for t in originals]
    with grading.checking("01.detach", fn):
        seen = [_summary(outcome(fn, t), t) for t in originals]
    for label, s, e in zip(labels, seen, expected):
        grading.expect_true(isinstance(s, dict), what=f"detach of {label}", seen=s, rule=DETACH("new-leaf"))
        for key, rule in _SUMMARY_RULES.items():
            _expect(s[key], e[key], f"{key}, for detach of {label}", rule)


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


# ------------------------------------------------------------ 01.result_type

def _expect(seen, expected, what, rule):
    """``seen == expected``, failing with ``rule`` (a rule the helpers below judge from the case)."""
    grading.expect_equal(seen, expected, what=what, rule=rule)


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
        return PROMOTE("numbers")
    if any(isinstance(x, float) for x in operands) and ag.get_default_dtype() is not ag.float32:
        return PROMOTE("numbers")
    tensors = [x for x in operands if isinstance(x, ag.Tensor)]
    if len({x.ndim == 0 for x in tensors}) < len(tensors) or len(tensors) == len(operands) > 1:
        return PROMOTE("tiers", "within")       # two operands of one tier
    return PROMOTE("tiers", "raise")


def expect_promotions(fn, cases):
    """fn (your result_type) on each list of operands of ``cases``, compared with the expected dtype."""
    for operands, expected in cases:
        seen = outcome(fn, *operands)
        _expect(seen, expected, "result_type(" + ", ".join(operand_label(x) for x in operands) + ")",
                promotion_rule(operands, seen, expected))


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
                             rule=PROMOTE("tiers", "raise"))


# ------------------------------------------------------------ 01.infer_dtype and 01.nested_shape

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
    """The rule a wrong dtype for ``data`` breaks, judged from its items (the most specific first)."""
    items = _flat(data)
    if any(not isinstance(x, (list, bool, int, float, np.generic, ag.Tensor)) for x in items):
        return DTYPE("unknown")
    if any(isinstance(x, (np.generic, ag.Tensor)) for x in items):
        return DTYPE("own", "promote")
    if any(isinstance(x, list) for x in items):
        return DTYPE("empty", "promote")
    if isinstance(data, (list, tuple)):
        return DTYPE("numbers", "promote")
    return DTYPE("numbers")


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
        return SHAPE("empty") if 0 in expected else SHAPE("first", "item")
    if expected.startswith("ValueError"):
        return SHAPE("first", "every")
    return SHAPE("number") if "not a sequence" in expected else SHAPE("list")


def expect_shapes(fn, cases):
    """fn (your nested_shape) on each data of ``cases``, compared with the expected shape or error."""
    for data, expected in cases:
        seen = outcome(fn, data)
        _expect(seen, expected, f"nested_shape({nest_label(data)})", shape_rule(expected))


def expect_dtypes(fn, cases):
    """fn (your infer_dtype) on each data of ``cases``, compared with the expected dtype or error."""
    for data, expected in cases:
        seen = outcome(fn, data)
        _expect(seen, expected, f"infer_dtype({nest_label(data)}) with default dtype {ag.get_default_dtype()}",
                infer_rule(data))


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
        _expect(s, e, f"(dtype, shape, values) of {label}", infer_rule(data))


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
        _expect(s, e, f"(dtype, shape, values) of ag.tensor({nest_label(data)}), then of ag.Tensor({nest_label(data)})",
                shape_rule(e[0] if isinstance(e[0], str) else e[0][1]))


# ------------------------------------------------------------ the hidden parts of 01's last exercises

_PROMOTE_DTYPES = [ag.bool, ag.int32, ag.int64, ag.float16, ag.float32, ag.float64]


def _random_operand(rng):
    """A tensor of a random dtype and 0, 1 or 2 dims, or a Python bool, int or float."""
    kind = int(rng.integers(5))
    if kind == 3:
        return [True, 3, 2.5][int(rng.integers(3))]
    dtype = _PROMOTE_DTYPES[int(rng.integers(len(_PROMOTE_DTYPES)))]
    shape = tuple(int(n) for n in rng.integers(1, 3, size=min(kind, 2)))
    return ag.tensor((rng.standard_normal(shape) * 3).astype(dtype.numpy))


def compare_result_type(fn, seed, count=40):
    """``fn`` on random lists of operands (every fourth case with the default dtype float64), against
    the library's ``result_type``."""
    reference = exercises.reference("01.result_type")
    previous = ag.get_default_dtype()
    try:
        cases = []
        for n, rng in enumerate(grading.random_cases(seed=seed, count=count)):
            default = ag.float64 if n % 4 == 3 else ag.float32
            ag.set_default_dtype(default)
            for _ in range(5):
                operands = [_random_operand(rng) for _ in range(int(rng.integers(1, 5)))]
                cases.append((default, operands, reference(*operands)))
        with grading.checking("01.result_type", fn):
            for default, operands, expected in cases:
                ag.set_default_dtype(default)
                expect_promotions(fn, [(operands, expected)])
    finally:
        ag.set_default_dtype(previous)


_MIXED_OPS = {"a + b": lambda a, b: a + b, "a * b": lambda a, b: a * b, "a - b": lambda a, b: a - b,
              "ag.maximum(a, b)": lambda a, b: ag.maximum(a, b) if isinstance(b, ag.Tensor) else a * 1 + b}


def random_mixed_ops(seed):
    """Random ops over a float tensor that requires grad and a random operand: (dtype, values) of each
    result, a bool or int32 tensor plus a Python number, then the gradient of the float tensor."""
    rng = np.random.default_rng(seed)
    w = ag.tensor(rng.standard_normal(3), dtype=[ag.float16, ag.float32, ag.float64][int(rng.integers(3))],
                  requires_grad=True)
    seen, total = [], None
    for _ in range(3):
        kind = int(rng.integers(4))
        dtype = _PROMOTE_DTYPES[int(rng.integers(1, len(_PROMOTE_DTYPES)))]
        other = ([2, 0.5, True][int(rng.integers(3))] if kind == 0 else
                 ag.tensor(float(rng.integers(1, 4)), dtype=dtype) if kind == 1 else
                 ag.tensor(rng.integers(1, 4, size=3).astype(dtype.numpy)))
        name = list(_MIXED_OPS)[int(rng.integers(len(_MIXED_OPS)))]
        result = outcome(_MIXED_OPS[name], w, other)
        seen.append((name, operand_label(other), result if isinstance(result, str) else
                     (str(result.dtype), np.round(result.tolist(), 2).tolist())))
        flags = ag.tensor([True, False, True], dtype=[ag.bool, ag.int32][int(rng.integers(2))])
        number = [True, False, 2, 1.5][int(rng.integers(4))]
        mixed_flags = outcome(lambda: flags + number)
        seen.append(("flags + number", operand_label(flags), repr(number), mixed_flags if isinstance(mixed_flags, str)
                     else (str(mixed_flags.dtype), mixed_flags.tolist())))
        if not isinstance(result, str):
            total = result.sum() if total is None else total + result.sum()
    if total is not None:
        total.backward()
    seen.append(None if w.grad is None else (str(w.grad.dtype), np.round(w.grad.tolist(), 2).tolist()))
    return seen


def compare_mixed_ops(fn, seed, count=16):
    """``random_mixed_ops`` with ``fn`` plugged, against the library's ``result_type``."""
    seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=seed, count=count)]
    with library_version("01"):
        expected = [random_mixed_ops(s) for s in seeds]
    with grading.checking("01.result_type", fn):
        seen = [random_mixed_ops(s) for s in seeds]
    for s_seed, s, e in zip(seeds, seen, expected):
        grading.expect_equal(s, e, what=f"random ops over a float tensor w and other operands (seed {s_seed}): "
                                        "(op, other operand, (dtype, values)) for each, then (dtype, values) of w.grad",
                             rule=PROMOTE("tiers", "raise"))


def compare_infer_dtype(fn, seed, count=40):
    """``fn`` on random nested data, valid or not (every fourth case with the default dtype float64),
    against the library's ``infer_dtype``."""
    reference = exercises.reference("01.infer_dtype")
    previous = ag.get_default_dtype()
    try:
        cases = []
        for n, rng in enumerate(grading.random_cases(seed=seed, count=count)):
            default = ag.float64 if n % 4 == 3 else ag.float32
            ag.set_default_dtype(default)
            for _ in range(4):
                data = random_data(rng, valid=bool(rng.integers(2)))
                cases.append((default, data, outcome(reference, data)))
        with grading.checking("01.infer_dtype", fn):
            for default, data, expected in cases:
                ag.set_default_dtype(default)
                expect_dtypes(fn, [(data, expected)])
    finally:
        ag.set_default_dtype(previous)


def compare_infer_in_the_library(fn, seed, count=12):
    """``ag.tensor`` of random nested data with ``fn`` plugged, against the library's."""
    previous = ag.get_default_dtype()
    try:
        for n, rng in enumerate(grading.random_cases(seed=seed, count=count)):
            ag.set_default_dtype(ag.float64 if n % 4 == 3 else ag.float32)
            datas = [random_data(rng) for _ in range(4)]
            with library_version("01"):
                expected = [made(data) for data in datas]
            with grading.checking("01.infer_dtype", fn):
                seen = [made(data) for data in datas]
            for data, s, e in zip(datas, seen, expected):
                _expect(s, e, f"(dtype, shape, values) of ag.tensor({nest_label(data)}) with default dtype "
                              f"{ag.get_default_dtype()}", infer_rule(data))
    finally:
        ag.set_default_dtype(previous)


def compare_nested_shape(fn, seed, count=60):
    """``fn`` on random nests, regular and ragged, against the library's ``nested_shape``."""
    reference = exercises.reference("01.nested_shape")
    cases = []
    for rng in grading.random_cases(seed=seed, count=count):
        data = random_nest(rng, ragged=bool(rng.integers(4)))
        cases.append((data, outcome(reference, data)))
    with grading.checking("01.nested_shape", fn):
        expect_shapes(fn, cases)


def compare_shapes_in_the_library(fn, seed, count=40):
    """``ag.tensor`` of random nests, regular and ragged, with ``fn`` plugged, against the library's."""
    datas = [random_nest(rng, ragged=bool(rng.integers(3))) for rng in grading.random_cases(seed=seed, count=count)]
    with library_version("01"):
        expected = [made(data) for data in datas]
    with grading.checking("01.nested_shape", fn):
        seen = [made(data) for data in datas]
    for data, s, e in zip(datas, seen, expected):
        _expect(s, e, f"(dtype, shape, values) of ag.tensor({nest_label(data)})",
                shape_rule(e if isinstance(e, str) else e[1]))
