"""Visible checks of assignment 01, exercise 2: ``result_type``, PyTorch's type promotion.

``autograd_course.checks.tensors`` (the notebook's ``check``) shows them: ``result_type``
calls your function directly, ``result_type_in_the_library`` runs it inside the library's ops.
``compare_result_type`` and ``compare_mixed_ops`` are what the hidden parts run on random
operands, against the library's own ``result_type``.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

__all__ = ["operand_label", "promotion_rule", "expect_promotions", "PROMOTION_CASES", "result_type", "mixed_ops",
           "result_type_in_the_library", "compare_result_type", "compare_under_default_dtypes", "random_mixed_ops", "compare_mixed_ops"]

PROMOTE = grading.rules("01.result_type")


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


# ------------------------------------------------------------ the hidden parts: random cases, the library's own

_PROMOTE_DTYPES = [ag.bool, ag.int32, ag.int64, ag.float16, ag.float32, ag.float64]


def _random_operand(rng):
    """A tensor of a random dtype and 0, 1 or 2 dims, or a Python bool, int or float."""
    kind = int(rng.integers(5))
    if kind == 3:
        return [True, 3, 2.5][int(rng.integers(3))]
    dtype = _PROMOTE_DTYPES[int(rng.integers(len(_PROMOTE_DTYPES)))]
    shape = tuple(int(n) for n in rng.integers(1, 3, size=min(kind, 2)))
    return ag.tensor((rng.standard_normal(shape) * 3).astype(dtype.numpy))


def compare_under_default_dtypes(fn, exercise_id, seed, count, per_case, draw, expect):
    """``fn`` against the library's version of ``exercise_id`` on the arguments ``draw(rng)``
    gives, ``per_case`` of them per random case, every fourth case with the default dtype
    float64: ``expect(fn, args, expected)`` checks one; the default dtype is put back."""
    reference = exercises.reference(exercise_id)
    previous = ag.get_default_dtype()
    try:
        cases = []
        for n, rng in enumerate(grading.random_cases(seed=seed, count=count)):
            default = ag.float64 if n % 4 == 3 else ag.float32
            ag.set_default_dtype(default)
            for _ in range(per_case):
                args = draw(rng)
                cases.append((default, args, outcome(reference, *args)))
        with grading.checking(exercise_id, fn):
            for default, args, expected in cases:
                ag.set_default_dtype(default)
                expect(fn, args, expected)
    finally:
        ag.set_default_dtype(previous)


def compare_result_type(fn, seed, count=40):
    """``fn`` on random lists of operands (every fourth case with the default dtype float64), against
    the library's ``result_type``."""
    compare_under_default_dtypes(
        fn, "01.result_type", seed, count, 5,
        draw=lambda rng: [_random_operand(rng) for _ in range(int(rng.integers(1, 5)))],
        expect=lambda fn, operands, expected: expect_promotions(fn, [(operands, expected)]))


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
