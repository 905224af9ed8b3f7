"""Visible checks of assignment 01, exercises 4 and 5: ``infer_dtype`` and ``nested_shape``,
what ``ag.tensor`` reads from nested lists.

``autograd_course.checks.tensors`` (the notebook's ``check``) shows them; each function
without ``compare_`` in its name is the visible part of one test cell.  The ``random_*``
functions make the nested data of the hidden parts (valid or not, ragged or not), and the
``compare_*`` functions compare your function with the library's own on them.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .promotion import compare_under_default_dtypes

__all__ = ["nest_label", "infer_rule", "random_shape", "random_data", "random_nest", "shape_rule", "expect_shapes",
           "expect_dtypes", "made", "infer_dtype", "tensors_made", "infer_dtype_in_the_library", "nested_shape",
           "nested_shape_in_the_library", "compare_infer_dtype", "compare_infer_in_the_library",
           "compare_nested_shape", "compare_shapes_in_the_library"]

DTYPE = grading.rules("01.infer_dtype")
SHAPE = grading.rules("01.nested_shape")


# ------------------------------------------------------------ 01.infer_dtype and 01.nested_shape

def _expect(seen, expected, what, rule):
    """``seen == expected``, failing with ``rule`` (a rule the helpers below judge from the case)."""
    grading.expect_equal(seen, expected, what=what, rule=rule)


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


# ------------------------------------------------------------ the hidden parts: random cases, the library's own

def compare_infer_dtype(fn, seed, count=40):
    """``fn`` on random nested data, valid or not (every fourth case with the default dtype float64),
    against the library's ``infer_dtype``."""
    compare_under_default_dtypes(
        fn, "01.infer_dtype", seed, count, 4,
        draw=lambda rng: (random_data(rng, valid=bool(rng.integers(2))),),
        expect=lambda fn, args, expected: expect_dtypes(fn, [(args[0], expected)]))


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
