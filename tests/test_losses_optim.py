"""Binary cross-entropy (with logits), smooth L1, Huber and L1 losses; RMSprop, AdamW and
the learning-rate schedulers (differential, against PyTorch)."""

import math

import numpy as np
import pytest

from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()


def _probabilities(lib, seed=1, shape=(4, 3)):
    return lib.tensor(arr(shape, seed=seed, dtype=np.float64, low=0.05, high=0.95), requires_grad=True)


def _targets(lib, seed=2, shape=(4, 3)):
    return lib.tensor((arr(shape, seed=seed, low=0, high=1) > 0.5).astype(np.float64))


LOSS_CALLS = {
    "bce": lambda lib, F, x, p, y, w: F.binary_cross_entropy(p, y),
    "bce_sum": lambda lib, F, x, p, y, w: F.binary_cross_entropy(p, y, reduction="sum"),
    "bce_none": lambda lib, F, x, p, y, w: F.binary_cross_entropy(p, y, reduction="none"),
    "bce_weight": lambda lib, F, x, p, y, w: F.binary_cross_entropy(p, y, weight=w),
    "bce_soft_target": lambda lib, F, x, p, y, w: F.binary_cross_entropy(p, p.detach() * 0.5),
    "bcel": lambda lib, F, x, p, y, w: F.binary_cross_entropy_with_logits(x, y),
    "bcel_none": lambda lib, F, x, p, y, w: F.binary_cross_entropy_with_logits(x, y, reduction="none"),
    "bcel_sum_weight": lambda lib, F, x, p, y, w: F.binary_cross_entropy_with_logits(
        x, y, weight=w, reduction="sum"),
    "bcel_pos_weight": lambda lib, F, x, p, y, w: F.binary_cross_entropy_with_logits(
        x, y, pos_weight=lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)),
    "bcel_both_weights": lambda lib, F, x, p, y, w: F.binary_cross_entropy_with_logits(
        x, y, w, pos_weight=lib.tensor([0.5, 2.0, 3.0], dtype=lib.float64)),
    "smooth_l1": lambda lib, F, x, p, y, w: F.smooth_l1_loss(x, y),
    "smooth_l1_beta": lambda lib, F, x, p, y, w: F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
    "smooth_l1_none": lambda lib, F, x, p, y, w: F.smooth_l1_loss(x, y * 3, reduction="none"),
    "smooth_l1_beta0": lambda lib, F, x, p, y, w: F.smooth_l1_loss(x, y, beta=0.0),
    "huber": lambda lib, F, x, p, y, w: F.huber_loss(x, y, delta=0.5),
    "huber_none": lambda lib, F, x, p, y, w: F.huber_loss(x, y, reduction="none", delta=2.0),
    "l1": lambda lib, F, x, p, y, w: F.l1_loss(x, y),
    "l1_sum": lambda lib, F, x, p, y, w: F.l1_loss(x, y, reduction="sum"),
    "l1_none": lambda lib, F, x, p, y, w: F.l1_loss(x, y, reduction="none"),
}


def _loss_scenario(name, call):
    def fn(lib):
        F = lib.nn.functional
        x = lib.tensor(arr((4, 3), seed=3, dtype=np.float64) * 2, requires_grad=True)
        p, y = _probabilities(lib), _targets(lib).requires_grad_()
        w = lib.tensor(arr((3,), seed=4, dtype=np.float64, low=0.5, high=2.0))
        loss = call(lib, F, x, p, y, w)
        used = [t for t in (x, p, y) if t.requires_grad]
        grads = lib.autograd.grad(loss.sum(), used, create_graph=True, allow_unused=True)
        second = [lib.autograd.grad(g.sum(), used, allow_unused=True) if g is not None and
                  g.requires_grad else None for g in grads]
        return loss, [g if g is None else g.detach() for g in grads], second
    fn.__name__ = f"loss_{name}"
    scenario(fn)


for _name, _call in LOSS_CALLS.items():
    _loss_scenario(_name, _call)


@scenario
def loss_bce_at_the_edges(lib):
    p = lib.tensor([0.0, 1.0, 0.0, 1.0], requires_grad=True)
    y = lib.tensor([1.0, 0.0, 0.0, 1.0])
    loss = lib.nn.functional.binary_cross_entropy(p, y, reduction="none")
    loss.sum().backward()
    return loss, p.grad


@scenario
def loss_bcel_large_logits(lib):
    x = lib.tensor([-200.0, -30.0, 0.0, 30.0, 200.0], requires_grad=True)
    loss = lib.nn.functional.binary_cross_entropy_with_logits(x, lib.tensor([1.0, 0.0, 1.0, 1.0, 0.0]))
    loss.backward()
    return loss, x.grad


@scenario
def loss_errors(lib):
    F = lib.nn.functional
    x, y = lib.tensor([0.3, -1.2, 2.0]), lib.tensor([0.0, 1.0, 1.0])
    return [caught(F.binary_cross_entropy_with_logits, x, y[:2]),
            caught(F.binary_cross_entropy_with_logits, x, y, reduction="foo"),
            caught(F.binary_cross_entropy_with_logits, x, lib.tensor([0, 1, 1])),
            caught(F.binary_cross_entropy, lib.tensor([1.5]), lib.tensor([1.0])),
            caught(F.binary_cross_entropy, lib.tensor([0.5, 0.5]), y[:1]),
            caught(F.binary_cross_entropy, lib.tensor([0.5, 0.5]), lib.tensor([0, 1])),
            caught(F.smooth_l1_loss, x, y, beta=-1.0),
            caught(F.huber_loss, x, y, reduction="avg")]


@scenario
def loss_size_mismatch_warns(lib):
    F = lib.nn.functional
    x = lib.tensor([0.3, -1.2, 2.0], requires_grad=True)
    return F.smooth_l1_loss(x, lib.tensor([1.0])), F.l1_loss(x, lib.tensor([1.0]))


@scenario
def loss_modules(lib):
    nn = lib.nn
    x = lib.tensor(arr((4, 3), seed=7), requires_grad=True)
    y = lib.tensor((arr((4, 3), seed=8) > 0).astype(np.float32))
    pw, w = lib.tensor([1.0, 2.0, 0.5]), lib.tensor([0.3, 1.0, 2.0])
    modules = [nn.BCELoss(), nn.BCELoss(w, reduction="sum"), nn.BCEWithLogitsLoss(),
               nn.BCEWithLogitsLoss(pos_weight=pw), nn.BCEWithLogitsLoss(w, reduction="none"),
               nn.SmoothL1Loss(), nn.SmoothL1Loss(beta=2.0, reduction="sum"), nn.L1Loss(),
               nn.HuberLoss(delta=0.3)]
    losses = [m(x.sigmoid() if type(m).__name__ == "BCELoss" else x, y) for m in modules]
    lib.stack([loss.sum() for loss in losses]).sum().backward()
    buffers = {name: t for name, t in nn.BCEWithLogitsLoss(w, pos_weight=pw).named_buffers()}
    return [repr(m) for m in modules], losses, x.grad, buffers, repr(nn.ReLU(inplace=True)), \
        [m.reduction for m in modules]


@scenario
def relu_inplace_forms(lib):
    x = lib.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    y = x * 1
    z = lib.nn.functional.relu(y, inplace=True)
    w = lib.nn.ReLU(inplace=True)(x * 2)
    (z + w).sum().backward()
    return z is y, y, w, x.grad, lib.nn.functional.relu_(lib.tensor([-1.0, 1.0]))


# ---------------------------------------------------------------- optimizers

def _train(lib, make, steps=6, **kwargs):
    """A few steps of an optimizer on a small least-squares problem: the parameters
    and the state's keys after each step."""
    w = lib.nn.Parameter(lib.tensor(arr((3,), seed=11)))
    b = lib.nn.Parameter(lib.tensor(arr((1,), seed=12)))
    X, y = lib.tensor(arr((8, 3), seed=13)), lib.tensor(arr((8,), seed=14))
    opt = make([w, b], **kwargs)
    trace = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((X @ w + b - y) ** 2).mean()
        loss.backward()
        opt.step()
        trace.append((loss.detach(), w.detach().clone(), b.detach().clone()))
    return trace, sorted(opt.state[w]), w._version, opt.state[w]["step"]


OPTIMIZERS = {
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop_momentum": ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    "rmsprop_centered": ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1}),
    "rmsprop_all": ("RMSprop", {"lr": 0.02, "alpha": 0.9, "eps": 1e-6, "momentum": 0.5,
                                "centered": True, "maximize": True}),
    "adamw": ("AdamW", {"lr": 0.05}),
    "adamw_decay": ("AdamW", {"lr": 0.05, "weight_decay": 0.3, "betas": (0.8, 0.9)}),
    "adamw_amsgrad": ("AdamW", {"lr": 0.05, "amsgrad": True}),
}


def _optimizer_scenario(name, cls, kwargs):
    def fn(lib):
        return _train(lib, getattr(lib.optim, cls), **kwargs)
    fn.__name__ = f"optim_{name}"
    scenario(fn)


for _name, (_cls, _kwargs) in OPTIMIZERS.items():
    _optimizer_scenario(_name, _cls, _kwargs)


@scenario
def optim_groups_and_errors(lib):
    w = lib.nn.Parameter(lib.ones(2))
    groups = {k: v for k, v in lib.optim.RMSprop([w]).param_groups[0].items()
              if k in ("lr", "momentum", "alpha", "eps", "centered", "weight_decay", "maximize")}
    adamw = lib.optim.AdamW([w]).param_groups[0]
    return groups, adamw["weight_decay"], adamw["decoupled_weight_decay"], adamw["lr"], \
        [caught(lib.optim.RMSprop, [w], **bad) for bad in (
            {"lr": -1}, {"alpha": -1}, {"eps": -1}, {"momentum": -1}, {"weight_decay": -1})]


# ---------------------------------------------------------------- schedulers

SCHEDULERS = {
    "step": ("StepLR", {"step_size": 3, "gamma": 0.5}),
    "multistep": ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    "exponential": ("ExponentialLR", {"gamma": 0.9}),
    "lambda": ("LambdaLR", {"lr_lambda": lambda epoch: 1 / (epoch + 1)}),
    "multiplicative": ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.95}),
    "cosine": ("CosineAnnealingLR", {"T_max": 4}),
    "cosine_eta_min": ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    "linear": ("LinearLR", {"start_factor": 0.25, "total_iters": 4}),
}


def _scheduler_scenario(name, cls, kwargs):
    def fn(lib):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([{"params": [w]}, {"params": [lib.nn.Parameter(lib.ones(1))],
                                                 "lr": 0.5}], lr=0.1, momentum=0.9)
        sched = getattr(lib.optim.lr_scheduler, cls)(opt, **kwargs)
        rates = [(sched.last_epoch, list(sched.get_last_lr()))]
        for _ in range(12):
            w.grad = lib.ones(2)
            opt.step()
            sched.step()
            rates.append((sched.last_epoch, [g["lr"] for g in opt.param_groups]))
        return rates, sched.base_lrs, [g["initial_lr"] for g in opt.param_groups]
    fn.__name__ = f"scheduler_{name}"
    scenario(fn, rtol=1e-12, atol=1e-15)


for _name, (_cls, _kwargs) in SCHEDULERS.items():
    _scheduler_scenario(_name, _cls, _kwargs)


@scenario
def scheduler_before_optimizer_warns(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=1.0)
    sched = lib.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    sched.step()
    return opt.param_groups[0]["lr"]


@scenario
def scheduler_get_lr_outside_step_warns(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=1.0)
    return lib.optim.lr_scheduler.ExponentialLR(opt, 0.5).get_lr()


@scenario
def scheduler_step_with_epoch(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=1.0)
    sched = lib.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    opt.step()
    sched.step(5)
    return opt.param_groups[0]["lr"], sched.last_epoch


@scenario
def scheduler_errors(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=1.0)
    S = lib.optim.lr_scheduler
    return [caught(S.StepLR, "not an optimizer", 2), caught(S.StepLR, opt, 2, last_epoch=3),
            caught(S.LambdaLR, opt, [lambda e: 1, lambda e: 2]),
            caught(S.LinearLR, opt, start_factor=0)]


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
