"""What the checks of assignment 04's exercises share: comparisons that name a rule, and the random
stories of the hidden parts.

A hidden part tells a story (``story(fn, seed)``: a list of ``(what, rule, value)``) with your
function and with the library's versions of 04, and ``_expect_stories`` compares the two fact by
fact.  ``autograd_course.checks.accumulation``, ``retained_grads``, ``tensor_hooks`` and ``pruning``
import these helpers.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import error_of, library_version

__all__ = ["_expect_equal", "_expect_close", "_expect_true", "_no_error", "_expect_fact", "_expect_stories", "_seeds",
           "_own_memory", "_random_leaf_values"]


def _expect_equal(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def _expect_close(seen, expected, what, rule):
    grading.expect_close(seen, expected, what=what, rule=rule)


def _expect_true(condition, what, rule, seen):
    grading.expect_true(condition, what=what, seen=seen, rule=rule)


def _no_error(thunk, what, rule):
    """``thunk()`` must raise nothing."""
    _expect_equal(error_of(thunk) or "no error", "no error", what, rule)


def _expect_fact(value, wanted, what, rule):
    """One fact of a story: arrays compared within tolerance, anything else with ==."""
    if isinstance(wanted, np.ndarray):
        _expect_close(value, wanted, what, rule)
    else:
        _expect_equal(value, wanted, what, rule)


def _expect_stories(story, fn, seeds, exercise_id, slots=None):
    """``story(fn, seed)`` (a list of (what, rule, value)) with your function, against
    ``story(reference, seed)`` with the library's versions of 04 (``slots``: what to plug,
    when the exercise fills several)."""
    reference = exercises.reference(exercise_id)
    with library_version("04"):
        expected = [story(reference, seed) for seed in seeds]
    with (grading.checking(slots) if slots else grading.checking(exercise_id, fn)):
        for seed, facts in zip(seeds, expected):
            for (what, rule, value), (_, _, wanted) in zip(story(fn, seed), facts):
                _expect_fact(value, wanted, f"random case {seed}: {what}", rule)


def _seeds(rngs):
    return [int(rng.integers(2 ** 31)) for rng in rngs]


def _own_memory(t, other):
    return isinstance(t, ag.Tensor) and t is not other and not np.shares_memory(t._data, other._data)


def _random_leaf_values(rng):
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(0, 3))))
    return dtype, shape, lambda scale=1.0: (rng.standard_normal(shape) * scale).astype(dtype.numpy)
