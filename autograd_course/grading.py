"""Assertions for the course's test cells: each failure says what was expected,
what was seen, and which rule of autograd is broken.

    ADD = grading.rules("03.add_backward")
    grading.expect_close(x.grad, [3.], what="x.grad for L = (2*x + 5) + x", rule=ADD("paths"))

fails with::

    CheckFailure: x.grad for L = (2*x + 5) + x is wrong.
      expected: [3.0]
      seen:     [1.0]
      rule paths: gradients that reach a tensor along several paths add up.

The rule is one the exercise's task text states (:mod:`autograd_course.rules`): a check
names it, never writes one, so the text and the tests cannot disagree.  Each line of the
message fits ``nbgrader validate``'s width, and in a notebook a failure shows this message
without the frames of the grading code (:mod:`autograd_course.feedback`).

Every test cell grades inside ``grading.checking(exercise_id, fn)``
(:mod:`autograd_course.checking`, here under this module's name too): only
``fn`` is plugged, every other exercise runs the library's own code, and a
function that calls the library's own implementation fails with
``grading.DelegationError``.

The comparisons are made with functions captured when this module is first
imported, so redefining ``numpy.allclose`` afterwards does not change them.
Importing this module also takes the integrity snapshot
(:func:`autograd_course.integrity.seal`): while a test runs inside
``grading.checking``, these helpers, NumPy and the library must be what they
were then, or the test fails with ``TamperingError``.
"""

import re

import numpy as _np

from autograd_lib import exercises as _exercises
from autograd_lib.tensor import Tensor

from . import feedback as _feedback
from . import integrity as _integrity
from .checking import CHECKS, DelegationError, checking
from .feedback import CheckFailure
from . import notebook as _notebook
from .rules import Rule, UnknownRule, rules

__all__ = ["checking", "DelegationError", "CHECKS", "expect_equal", "expect_close", "expect_true",
           "expect_raises", "expect_warns", "random_cases", "side_by_side", "to_list", "rules", "Rule", "UnknownRule",
           "CheckFailure"]

_allclose = _np.allclose
_array = _np.asarray
_isfinite = _np.isfinite


def to_list(value):
    """A plain, printable form of a tensor, array or nested values."""
    if isinstance(value, Tensor):
        return value._data.tolist()
    if isinstance(value, _np.ndarray):
        return value.tolist()
    return value


# The text of a bare NotImplementedError() (nbgrader's placeholder), as a check shows what it saw:
# "NotImplementedError: " at the end, or before a quote or a closing bracket.  An error PyTorch
# raises always has a message.
_PLACEHOLDER = re.compile(r"NotImplementedError: ?(?:$|['\"]+\s*(?:[,)\]]|$))|NotImplementedError['\"],\s*(?:''|\"\")")


def _fail(what, expected, seen, rule, extra=""):
    if _PLACEHOLDER.search(str(seen)):      # the answer reached is not written yet: say that, not a rule
        raise _feedback.not_written(NotImplementedError())
    raise CheckFailure(_feedback.failure_text(f"{what} is wrong.", (("expected", expected), ("seen", seen)),
                                              rule, extra), rule)


def expect_equal(seen, expected, *, what, rule=""):
    """``seen == expected`` (for names, shapes, flags, objects), of the same type: True is not
    1, a list is not a tuple.  Tuples (torch.Size is one) and dicts (a node's shared empty
    ``_saved``, graph._NothingKept, is one) compare by their items."""
    if not (seen is expected or (type(seen) is type(expected) and seen == expected)
            or (isinstance(seen, tuple) and isinstance(expected, tuple) and seen == expected)
            or (isinstance(seen, dict) and isinstance(expected, dict) and seen == expected)):
        _fail(what, repr(expected), repr(seen), rule)


def expect_true(condition, *, what, rule="", seen=None):
    if condition is not True:
        _fail(what, "True", repr(condition) if seen is None else seen, rule)


def expect_close(seen, expected, *, what, rule="", rtol=1e-5, atol=1e-7):
    """Tensor/array values equal within tolerance, with the same shape."""
    if seen is None:
        _fail(what, to_list(expected), "None", rule)
    if not isinstance(seen, (Tensor, _np.ndarray, int, float, list, tuple)):
        _fail(what, f"a tensor like {to_list(expected)}", f"an object of type {type(seen).__name__}", rule)
    seen_array = _array(seen._data if isinstance(seen, Tensor) else seen, dtype=float)
    expected_array = _array(expected._data if isinstance(expected, Tensor) else expected, dtype=float)
    if seen_array.shape != expected_array.shape:
        _fail(what, f"shape {tuple(expected_array.shape)}: {to_list(expected)}",
              f"shape {tuple(seen_array.shape)}: {to_list(seen)}", rule)
    if not _allclose(seen_array, expected_array, rtol=rtol, atol=atol, equal_nan=True):
        _fail(what, to_list(expected), to_list(seen), rule)


def expect_raises(fn, exception, sentence, *, what, rule=""):
    """``fn()`` raises ``exception`` whose message contains ``sentence``."""
    try:
        fn()
    except exception as e:
        if sentence not in str(e):
            _fail(what, f"{exception.__name__} containing {sentence!r}",
                  f"{type(e).__name__}: {e}", rule)
        return
    except Exception as e:           # the wrong kind of error
        _fail(what, f"{exception.__name__} containing {sentence!r}", f"{type(e).__name__}: {e}", rule)
    _fail(what, f"{exception.__name__} containing {sentence!r}", "no error", rule)


def expect_warns(fn, category, sentence, *, what, rule=""):
    """``fn()`` warns with ``category`` containing ``sentence``; returns fn's result."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    for w in caught:
        if issubclass(w.category, category) and sentence in str(w.message):
            return result
    _fail(what, f"a {category.__name__} containing {sentence!r}",
          [f"{w.category.__name__}: {w.message}" for w in caught] or "no warning", rule)


def random_cases(seed, count=5):
    """A seeded NumPy generator per case, for hidden tests on randomized inputs."""
    root = _np.random.default_rng(seed)
    return [_np.random.default_rng(root.integers(2 ** 32)) for _ in range(count)]


def side_by_side(exercise_id, fn, story):
    """The shape of a hidden test: ``story`` told twice, first by the library's own code
    (every slot of the notebook holds its reference: the expected value, PyTorch's
    behaviour), then with ``fn`` graded in the exercise's slot (:func:`checking`).

    Args:
        exercise_id: the exercise (``"09.sgd_update"``), or, as for :func:`checking`,
            a dict ``{exercise id: function}`` for an exercise of several slots (then
            ``fn`` is None).
        fn: the function under test.
        story: a function of one argument: the function in the slot (the reference,
            then ``fn``; for a dict, a dict of them); what it returns is compared.

    Returns:
        ``(expected, seen)``.
    """
    plugs = dict(exercise_id) if isinstance(exercise_id, dict) else {exercise_id: fn}
    assignment = next(iter(plugs)).split(".")[0]
    with _notebook.library_version(assignment):
        references = {eid: _exercises.reference(eid) for eid in plugs}
        expected = story(references if isinstance(exercise_id, dict) else references[exercise_id])
    with checking(exercise_id, fn) as graded:
        seen = story(graded)
    return expected, seen


_integrity.seal()        # last: the snapshot includes the helpers above
_feedback.install()      # in a notebook's kernel: failures shown without the grading frames
