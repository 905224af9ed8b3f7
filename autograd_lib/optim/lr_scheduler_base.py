"""The scheduler base class, and the schedulers that replace its ``step()``.

:class:`LRScheduler` keeps ``base_lrs``, ``last_epoch`` and ``_last_lr`` and, at
each ``step()``, writes what the subclass's ``get_lr()`` computes into the groups.
The schedulers here step in their own way: ``ReduceLROnPlateau`` watches a metric,
``CosineAnnealingWarmRestarts`` takes fractional epochs, ``SequentialLR`` and
``ChainedScheduler`` drive other schedulers.  ``lr_scheduler.py``, the public
module, imports and re-exports all of them (the import goes only that way).

Why one file of this length: the base class and the four schedulers that replace its
``step()`` are read together (each overrides what the base does at a step).
"""

import functools
import math
import warnings
import weakref
from bisect import bisect_right

from .optimizer import Optimizer

__all__ = ["LRScheduler", "ReduceLROnPlateau", "CosineAnnealingWarmRestarts", "SequentialLR",
           "ChainedScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


class LRScheduler:
    """Base class: subclasses give :meth:`get_lr`, the rates for ``last_epoch``."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.\nThis typically "
                                   "happens when:\n1. You're trying to resume training from a "
                                   "checkpoint but haven't properly loaded the optimizer state\n"
                                   "2. You're using last_epoch >= 0 for a fresh training run (not "
                                   "recommended)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Step 0, taken on creation (``SequentialLR`` takes it again when it starts one)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        """The rates the last ``step()`` wrote, one per parameter group."""
        return self._last_lr

    def step(self, epoch=None):
        """Move to the next epoch (or to ``epoch``, deprecated) and write its rates."""
        if self._step_count == 1 and not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
            warnings.warn(
                "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                "initialization. Please, make sure to call `optimizer.step()` before "
                "`lr_scheduler.step()`. See more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning, stacklevel=2)
        elif self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: `optimizer.step()` "
                "before `lr_scheduler.step()`.  Failure to do this will result in PyTorch "
                "skipping the first value of the learning rate schedule. See more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Next epoch's rates from ``get_lr``, or ``epoch``'s from the closed form if any."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._write(values)

    def _write(self, values):
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = self._current()

    def _warn_outside_step(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def _current(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        """Everything but the optimizer (and the functions of LambdaLR)."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


def _track_optimizer_steps(optimizer):
    """Wrap ``optimizer.step`` so the scheduler can tell whether it ran (once per optimizer)."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return
    owner = weakref.ref(optimizer)
    step = type(optimizer).step

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        opt = owner()
        opt._opt_called = True
        return step(opt, *args, **kwargs)
    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


def _per_group(value, optimizer, name, message=None):
    """``value`` for each group: a list or tuple must have one per group, else it is repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(message or f"Expected {len(optimizer.param_groups)} {name}s, but got "
                                        f"{len(value)}")
        return list(value)
    return [value] * len(optimizer.param_groups)


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when the metric has not improved for ``patience`` steps.

    ``step(metric)``: the metric improves when it beats ``best`` by more than
    ``threshold`` (``mode="min"``: ``metric < best * (1 - threshold)`` in
    ``"rel"`` mode, ``metric < best - threshold`` in ``"abs"``; ``"max"``
    mirrors it).  After more than ``patience`` bad steps in a row every rate
    becomes ``max(lr * factor, min_lr)`` (unless that changes it by ``eps`` or
    less), then ``cooldown`` steps pass in which bad steps are not counted.
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self.min_lrs = _per_group(min_lr, optimizer, "min_lr",
                                  f"expected {n} min_lrs, got {len(min_lr)}"
                                  if isinstance(min_lr, (list, tuple)) else None)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = self._current()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Count the metric as a good or bad step, and reduce the rates after too many bad."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        plateau_step(self, current)
        self._last_lr = self._current()

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):      # a group was added since
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                    f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    "to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:
                group["lr"] = new

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def plateau_step(scheduler, current):
    """What ``ReduceLROnPlateau.step`` decides with the metric ``current`` (a float).

    A better metric becomes ``best`` and clears the count of bad epochs; a worse one
    (or a nan) adds one.  While cooling down, the cooldown shrinks by one and bad epochs
    do not count.  More than ``patience`` of them in a row: every group's rate is cut,
    the cooldown starts and the count starts again.  (Exercise 09.plateau_step.)
    """
    if scheduler._is_better(current, scheduler.best):
        scheduler.best, scheduler.num_bad_epochs = current, 0
    else:
        scheduler.num_bad_epochs += 1
    if scheduler.in_cooldown:
        scheduler.cooldown_counter -= 1
        scheduler.num_bad_epochs = 0              # bad steps in the cooldown do not count
    if scheduler.num_bad_epochs > scheduler.patience:
        scheduler._reduce_lr(scheduler.last_epoch)
        scheduler.cooldown_counter, scheduler.num_bad_epochs = scheduler.cooldown, 0


# The decision's two halves as module names: exercise 09.plateau_step arms them as
# tripwires, so a student's plateau_step writes the comparison and the cut itself.
_is_better, _reduce_lr = ReduceLROnPlateau._is_better, ReduceLROnPlateau._reduce_lr


class CosineAnnealingWarmRestarts(LRScheduler):
    """Half a cosine from the base rate down to ``eta_min`` over ``T_i`` epochs, then a restart.

    The first cycle lasts ``T_0`` epochs, each next one ``T_mult`` times longer:
    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2`` with
    ``T_cur`` the epochs since the last restart.  ``step(epoch)`` may be given a
    fractional epoch (e.g. ``epoch + batch / batches``); it does not warn.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        """The next epoch, or ``epoch`` (any non-negative number): find its cycle and place in it."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:                       # restart
                self.T_cur, self.T_i = self.T_cur % self.T_i, self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:       # cycles 0..n-1 fill T_0 * (T_mult**n - 1) / (T_mult - 1) epochs
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._write(values)


def _check_schedulers(owner, optimizer, schedulers):
    for i, scheduler in enumerate(schedulers):
        name = type(owner).__name__
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but "
                             f"got scheduler {type(scheduler).__name__} at index {i} has "
                             f"{scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """A scheduler made of schedulers: its state dict holds each one's."""

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for scheduler, state in zip(self._schedulers, saved):
            scheduler.load_state_dict(state)


class SequentialLR(_Composite):
    """Run ``schedulers[0]``, then from epoch ``milestones[0]`` on ``schedulers[1]``, and so on.

    Each scheduler, when its turn comes, restarts at its epoch 0 (its closed
    form at 0, from the base rates); the rate it starts from is not the last one
    the previous scheduler wrote.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no "
                             "scheduler.")
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one "
                             "more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Making the schedulers took a step each: undo it, and start the first one again.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Take one epoch off every scheduler inside (and inside those)."""
        sched = self if sched is None else sched
        if hasattr(sched, "_schedulers"):
            for inner in sched._schedulers:
                self.recursive_undo(inner)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self):
        """Step the scheduler whose turn it is (at a milestone: start it at its epoch 0)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler of the list, in order, at each ``step()``: their changes compose."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = [group["lr"] for group in schedulers[-1].optimizer.param_groups]

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]
