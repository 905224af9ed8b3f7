"""Visible checks of assignment 09, the learning-rate scheduler: ``plateau_step``.

The check of 09's test cell on ``ReduceLROnPlateau``, its helpers and its rules' texts;
``autograd_course.checks.training``, the notebook's module, shows them too
(``check.plateau_step`` in the notebook is this module's), so a student still reads
09's checks from one name.  They live apart to keep 09's module under 800 lines.

A run makes an SGD optimizer with one parameter group per starting rate, a
``ReduceLROnPlateau`` with the run's settings, and calls ``scheduler.step(metric)``
for each metric: the library's ``step`` turns the metric into a float, counts the
epoch, and hands the decision to your ``plateau_step``.  After each step the test
reads the state: ``(each group's lr, best, num_bad_epochs, cooldown_counter, last_epoch)``.
"""

import math

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import error_of

__all__ = [
    # the check of the test cell
    "plateau_step",
    # helpers of the check and the hidden tests
    "plateau_run", "plateau_state", "plateau_rule", "check_plateau_runs", "random_plateau_case",
    "compare_plateau_runs",
    # the rules
    "IMPROVES", "BAD_EPOCH", "COOLDOWN", "PATIENCE", "RESTART", "FACTOR", "FLOOR", "MIN_CHANGE",
    "FLOOR_OR_MIN_CHANGE", "PLATEAU_RULE",
]

PLATEAU = grading.rules("09.plateau_step")
IMPROVES = PLATEAU("better")
BAD_EPOCH = PLATEAU("bad-epoch")
COOLDOWN = PLATEAU("cooldown")
PATIENCE = PLATEAU("patience")
RESTART = PLATEAU("restart")
FACTOR = PLATEAU("factor")
FLOOR = PLATEAU("floor")
MIN_CHANGE = PLATEAU("min-change")
FLOOR_OR_MIN_CHANGE = PLATEAU("floor", "min-change")
PLATEAU_RULE = PLATEAU("only")

_FIELDS = "(each group's lr, best, num_bad_epochs, cooldown_counter, last_epoch)"


# ------------------------------------------------------------------ helpers

def _number(x):
    """A float as the tests compare it: 12 significant digits, nan as the text 'nan'."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return repr(x)
    return "nan" if math.isnan(x) else float(f"{x:.12g}")


def plateau_state(scheduler):
    """What the tests compare after a step: ``(lrs, best, num_bad_epochs, cooldown_counter, last_epoch)``."""
    return ([_number(group["lr"]) for group in scheduler.optimizer.param_groups], _number(scheduler.best),
            scheduler.num_bad_epochs, scheduler.cooldown_counter, scheduler.last_epoch)


def plateau_run(settings, metrics):
    """``ReduceLROnPlateau(optimizer, **options)`` stepped with each metric, where ``settings``
    holds ``lrs`` (one parameter group per starting rate) and the scheduler's options.
    Returns the initial state and then the state after each step; a step that raised ends
    the list with the error's text."""
    groups = [{"params": [ag.zeros(1, requires_grad=True)], "lr": lr} for lr in settings["lrs"]]
    optimizer = ag.optim.SGD(groups)
    options = {key: value for key, value in settings.items() if key != "lrs"}
    scheduler = ag.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)
    states = [plateau_state(scheduler)]
    for metric in metrics:
        error = error_of(scheduler.step, metric)
        if error is not None:
            states.append(error)
            break
        states.append(plateau_state(scheduler))
    return states


def _floors(settings):
    min_lr = settings.get("min_lr", 0)
    return list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * len(settings["lrs"])


def plateau_rule(settings, before, seen, expected):
    """The rule a step broke, from the expected state before it and the states after it."""
    if isinstance(seen, str) or not isinstance(seen, tuple) or len(seen) != 5:
        return PLATEAU_RULE
    (b_lrs, b_best, b_bad, b_cool, _), (s_lrs, s_best, s_bad, s_cool, s_epoch) = before, seen
    e_lrs, e_best, e_bad, e_cool, e_epoch = expected
    if s_best != e_best:
        return IMPROVES
    better = e_best != b_best
    cooling = b_cool > 0
    cut = not better and not cooling and e_bad == 0           # what the library did at this step
    seen_cut = s_lrs != b_lrs or (not better and not cooling and s_bad == 0 and s_cool == settings.get("cooldown", 0))
    if cooling and (s_bad, s_cool, s_lrs) != (e_bad, e_cool, e_lrs):
        return COOLDOWN
    if cut != seen_cut:
        return PATIENCE
    if not cut:
        return BAD_EPOCH if s_bad != e_bad else PLATEAU_RULE if s_epoch != e_epoch else COOLDOWN
    if (s_bad, s_cool) != (e_bad, e_cool):
        return RESTART
    floors = [_number(f) for f in _floors(settings)]
    for old, lr, want, floor in zip(b_lrs, s_lrs, e_lrs, floors):
        if lr == want:
            continue
        if isinstance(lr, float) and lr < floor:
            return FLOOR
        if want == old:
            return MIN_CHANGE
        if lr == old:                  # a cut skipped: a wrong floor or a wrong eps test
            return FLOOR_OR_MIN_CHANGE
        if want == floor or lr in floors:
            return FLOOR
        return FACTOR
    return PLATEAU_RULE


def _expect_state(seen, expected, what, broken):
    """One step's state as expected, or ``broken`` (the rule plateau_rule found) is named."""
    grading.expect_equal(seen, expected, what=what, rule=broken)


def check_plateau_runs(seen, expected, settings, metrics, label):
    """Compare the states of two runs of the same case, step by step, naming the broken rule."""
    options = ", ".join(f"{key}={value!r}" for key, value in settings.items() if key != "lrs")
    for i, (s, e) in enumerate(zip(seen[1:], expected[1:])):
        what = (f"{_FIELDS} after step {i + 1} of {label}: groups with lr {settings['lrs']}, "
                f"ReduceLROnPlateau({options}), metrics so far {[_number(m) for m in metrics[:i + 1]]}")
        _expect_state(s, e, what, plateau_rule(settings, expected[i], s, e))
    grading.expect_equal(len(seen), len(expected), what=f"the number of steps taken by {label}", rule=PLATEAU_RULE)


def random_plateau_case(rng):
    """Random ``(settings, metrics)``: 1 to 3 groups, each mode and threshold mode, thresholds
    from 0 to 0.5, patience 0 to 4, cooldown 0 to 3, factor, eps, min_lr as one number or
    one per group (some above their group's lr), and 1 to 30 metrics: random walks, small
    integers (ties, negatives), falling curves with noise, sometimes a nan or an infinity."""
    n = int(rng.integers(1, 4))
    lrs = [float(10.0 ** rng.uniform(-3, 0)) for _ in range(n)]
    floor = int(rng.integers(4))
    min_lr = (0 if floor == 0 else float(10.0 ** rng.uniform(-4, -1)) if floor == 1 else
              [float(lr * rng.uniform(0, 1.5)) if rng.integers(3) else 0.0 for lr in lrs])
    settings = dict(lrs=lrs, mode=["min", "max"][int(rng.integers(2))],
                    factor=float(rng.choice([0.1, 0.5, 0.8, 0.25])), patience=int(rng.integers(0, 5)),
                    threshold=float(rng.choice([0.0, 1e-4, 0.05, 0.2, 0.5])),
                    threshold_mode=["rel", "abs"][int(rng.integers(2))], cooldown=int(rng.integers(0, 4)),
                    min_lr=min_lr, eps=float(rng.choice([1e-8, 0.0, 1e-3, 0.02])))
    steps = int(rng.integers(1, 31))
    kind = int(rng.integers(4))
    values = (np.cumsum(rng.standard_normal(steps)) if kind == 0 else
              rng.integers(-3, 4, steps).astype(float) if kind == 1 else
              1 / (1 + np.arange(steps)) + 0.1 * rng.standard_normal(steps) if kind == 2 else
              rng.standard_normal(steps) * 10.0 ** rng.uniform(-2, 2))
    metrics = [float(v) for v in values]
    for _ in range(int(rng.integers(0, 3)) if rng.integers(3) == 0 else 0):
        metrics[int(rng.integers(steps))] = float(rng.choice([np.nan, np.inf, -np.inf]))
    return settings, metrics


# ------------------------------------------------------------------ the check

# (label, settings, metrics, then per step: (lrs, best, num_bad_epochs, cooldown_counter)), PyTorch's values
_CASES = [
    ("patience=2", dict(lrs=[1.0], factor=0.5, patience=2), [5.0, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0],
     [([1.0], 5.0, 0, 0), ([1.0], 4.0, 0, 0), ([1.0], 4.0, 1, 0), ([1.0], 4.0, 2, 0), ([0.5], 4.0, 0, 0),
      ([0.5], 3.0, 0, 0), ([0.5], 3.0, 1, 0)]),
    ("patience=0, cooldown=2", dict(lrs=[1.0], factor=0.1, patience=0, cooldown=2),
     [1.0, 2.0, 2.0, 2.0, 2.0, 0.5, 2.0, 2.0],
     [([1.0], 1.0, 0, 0), ([0.1], 1.0, 0, 2), ([0.1], 1.0, 0, 1), ([0.1], 1.0, 0, 0), ([0.01], 1.0, 0, 2),
      ([0.01], 0.5, 0, 1), ([0.01], 0.5, 0, 0), ([0.001], 0.5, 0, 2)]),
    ("mode 'min', a relative threshold of 0.1", dict(lrs=[1.0], threshold=0.1, patience=5),
     [10.0, 9.5, 8.9, -1.0, -0.95, -1.2],
     [([1.0], 10.0, 0, 0), ([1.0], 10.0, 1, 0), ([1.0], 8.9, 0, 0), ([1.0], -1.0, 0, 0), ([1.0], -0.95, 0, 0),
      ([1.0], -1.2, 0, 0)]),
    ("mode 'min', an absolute threshold of 0.5", dict(lrs=[1.0], threshold=0.5, threshold_mode="abs", patience=5),
     [3.0, 2.6, 2.4, -0.5, -0.9],
     [([1.0], 3.0, 0, 0), ([1.0], 3.0, 1, 0), ([1.0], 2.4, 0, 0), ([1.0], -0.5, 0, 0), ([1.0], -0.5, 1, 0)]),
    ("mode 'max', a relative threshold of 0.5", dict(lrs=[1.0], mode="max", threshold=0.5, patience=5),
     [2.0, 2.9, 3.1, 4.6, 4.7],
     [([1.0], 2.0, 0, 0), ([1.0], 2.0, 1, 0), ([1.0], 3.1, 0, 0), ([1.0], 3.1, 1, 0), ([1.0], 4.7, 0, 0)]),
    ("mode 'max', an absolute threshold of 0.1",
     dict(lrs=[1.0], mode="max", threshold=0.1, threshold_mode="abs", patience=5), [1.0, 1.05, 1.2, 1.25, 1.31],
     [([1.0], 1.0, 0, 0), ([1.0], 1.0, 1, 0), ([1.0], 1.2, 0, 0), ([1.0], 1.2, 1, 0), ([1.0], 1.31, 0, 0)]),
    ("three groups with their own min_lr", dict(lrs=[1.0, 0.05, 0.001], factor=0.5, patience=0,
                                                min_lr=[0.1, 0.01, 0.002]), [1.0] * 6,
     [([1.0, 0.05, 0.001], 1.0, 0, 0), ([0.5, 0.025, 0.001], 1.0, 0, 0), ([0.25, 0.0125, 0.001], 1.0, 0, 0),
      ([0.125, 0.01, 0.001], 1.0, 0, 0), ([0.1, 0.01, 0.001], 1.0, 0, 0), ([0.1, 0.01, 0.001], 1.0, 0, 0)]),
    ("eps=0.03", dict(lrs=[1.0, 0.05], factor=0.5, patience=0, eps=0.03), [1.0] * 8,
     [([1.0, 0.05], 1.0, 0, 0), ([0.5, 0.05], 1.0, 0, 0), ([0.25, 0.05], 1.0, 0, 0), ([0.125, 0.05], 1.0, 0, 0),
      ([0.0625, 0.05], 1.0, 0, 0), ([0.03125, 0.05], 1.0, 0, 0), ([0.03125, 0.05], 1.0, 0, 0),
      ([0.03125, 0.05], 1.0, 0, 0)]),
    ("mode 'max' with nan metrics", dict(lrs=[1.0], mode="max", patience=1), [1.0, math.nan, math.nan, 2.0, math.nan],
     [([1.0], 1.0, 0, 0), ([1.0], 1.0, 1, 0), ([0.1], 1.0, 0, 0), ([0.1], 2.0, 0, 0), ([0.1], 2.0, 1, 0)]),
]


def plateau_step(fn):
    """Your ``plateau_step`` behind ``ReduceLROnPlateau.step``, on short runs with PyTorch's
    results: a reduction after ``patience`` bad epochs, a cooldown, both modes with relative
    and absolute thresholds (negative metrics too), three groups with their own ``min_lr``
    (one starting below it), ``eps``, and nan metrics.  Each step's state must match."""
    with grading.checking("09.plateau_step", fn):
        runs = [plateau_run(settings, metrics) for _, settings, metrics, _ in _CASES]
    for (label, settings, metrics, rows), seen in zip(_CASES, runs):
        first = ([_number(lr) for lr in settings["lrs"]], _number(math.inf if settings.get("mode") != "max"
                                                                  else -math.inf), 0, 0, 0)
        expected = [first] + [([_number(lr) for lr in lrs], _number(best), bad, cool, i + 1)
                              for i, (lrs, best, bad, cool) in enumerate(rows)]
        check_plateau_runs(seen, expected, settings, metrics, f"the run with {label}")


def compare_plateau_runs(fn, cases):
    """Run each random ``(settings, metrics)`` with your ``plateau_step`` and with the library's,
    and compare them step by step."""
    expected, seen = grading.side_by_side("09.plateau_step", fn,
                                          lambda _: [plateau_run(settings, metrics) for settings, metrics in cases])
    for i, ((settings, metrics), s, e) in enumerate(zip(cases, seen, expected)):
        check_plateau_runs(s, e, settings, metrics, f"random run #{i}")
