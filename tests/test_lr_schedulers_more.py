"""ReduceLROnPlateau, ConstantLR, PolynomialLR, OneCycleLR, CosineAnnealingWarmRestarts,
SequentialLR and ChainedScheduler against PyTorch, step by step.

Each scenario makes the same optimizer (one parameter per group) and scheduler in both
libraries, then calls ``optimizer.step()`` and ``scheduler.step()`` as a training loop
does, comparing after every step ``get_last_lr()``, each group's ``"lr"`` (and
``"momentum"`` / ``"betas"``, which OneCycleLR also moves) and the warnings raised.
"""

import math
import warnings

import pytest

import autograd_lib as al

torch = pytest.importorskip("torch")

RTOL = 1e-12


def make_optimizer(lib, kind="SGD", lrs=(0.1,), **options):
    """``kind`` over one parameter per group, the groups' rates ``lrs``."""
    groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    return getattr(lib.optim, kind)(groups, lr=lrs[0], **options)


def schedulers_of(lib):
    return lib.optim.lr_scheduler


def close(a, b):
    return a == b or math.isclose(a, b, rel_tol=RTOL, abs_tol=0.0)


def check_same(expected, seen, what):
    """``seen`` (autograd_lib) equals ``expected`` (PyTorch): floats to RTOL, tuples item-wise."""
    if isinstance(expected, (list, tuple)):
        ok = (isinstance(seen, (list, tuple)) and len(seen) == len(expected)
              and all(close(float(e), float(s)) for e, s in zip(expected, seen)))
    else:
        ok = close(float(expected), float(seen))
    assert ok, f"{what}: expected {expected!r} (PyTorch), seen {seen!r} (autograd_lib)"


def snapshot(opt, sched):
    """What a step changes: the last rates, and each group's lr, momentum and betas."""
    state = {"get_last_lr()": list(sched.get_last_lr())}
    for i, group in enumerate(opt.param_groups):
        for key in ("lr", "momentum", "betas"):
            if key in group:
                state[f"param_groups[{i}][{key!r}]"] = group[key]
    return state


def run(lib, optimizer, build, steps, step_args=None):
    """The snapshots (and warning messages) after creation and after each step."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt = make_optimizer(lib, **optimizer)
        sched = build(schedulers_of(lib), opt)
        history = [snapshot(opt, sched)]
        for i in range(steps):
            opt.step()
            sched.step(*(step_args[i] if step_args else ()))
            history.append(snapshot(opt, sched))
    return history, [str(w.message) for w in caught], sched


def compare_runs(optimizer, build, steps, step_args=None):
    expected, expected_warnings, t_sched = run(torch, optimizer, build, steps, step_args)
    seen, seen_warnings, a_sched = run(al, optimizer, build, steps, step_args)
    for step, (e, s) in enumerate(zip(expected, seen)):
        assert sorted(e) == sorted(s), f"step {step}: expected entries {sorted(e)}, seen {sorted(s)}"
        for key in e:
            check_same(e[key], s[key], f"after step {step}, {key}")
    assert seen_warnings == expected_warnings, (f"expected the warnings {expected_warnings}, "
                                                f"seen {seen_warnings}")
    return t_sched, a_sched


def check_state_dict_keys(t_sched, a_sched):
    expected, seen = t_sched.state_dict(), a_sched.state_dict()
    assert sorted(seen) == sorted(expected), (f"expected state_dict keys {sorted(expected)}, "
                                              f"seen {sorted(seen)}")
    for e, s in zip(expected.get("_schedulers", []), seen.get("_schedulers", [])):
        assert sorted(s) == sorted(e), f"expected inner state_dict keys {sorted(e)}, seen {sorted(s)}"


# ============================================================ ReduceLROnPlateau

METRICS = [1.0, 0.9, 0.9, 0.95, 0.9, 0.89995, 0.91, 0.8, 0.8, 0.8, 0.8, 0.85, 0.79, 0.79, 0.79,
           0.795, 0.79, 0.78, 0.78, 0.78, 0.781, 0.78, 0.78, 0.78, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]

# Down a little, then a long plateau: the default patience (10) runs out twice.
LONG_PLATEAU = [1.0, 0.99, 0.98, 0.97] + [0.96] * 13 + [0.95] + [0.95] * 12

PLATEAU = {
    "defaults": ({}, LONG_PLATEAU),
    "threshold 0: a tie is no improvement": ({"threshold": 0.0, "patience": 1}, METRICS),
    "max mode, metric falling": ({"mode": "max", "patience": 1}, METRICS),
    "max mode, threshold 0": ({"mode": "max", "threshold": 0.0, "patience": 0},
                              [-m for m in METRICS]),
    "patience 2": ({"patience": 2}, METRICS),
    "patience 0, factor 0.5, min_lr": ({"patience": 0, "factor": 0.5, "min_lr": 0.01}, METRICS),
    # Negative metrics in max mode: best * (1 + threshold) is below best, so a tie improves.
    "max mode, negative metrics": ({"mode": "max", "patience": 1}, [-m for m in METRICS]),
    "max mode, defaults": ({"mode": "max"}, [2.0 - m for m in LONG_PLATEAU]),
    "max mode, abs threshold": ({"mode": "max", "threshold_mode": "abs", "threshold": 0.02,
                                 "patience": 1}, [-m for m in METRICS]),
    "min mode, abs threshold": ({"threshold_mode": "abs", "threshold": 0.05, "patience": 1},
                                METRICS),
    "large rel threshold": ({"threshold": 0.1, "patience": 1}, METRICS),
    "cooldown 3": ({"patience": 1, "cooldown": 3, "factor": 0.3}, METRICS),
    "eps blocks small changes": ({"patience": 0, "factor": 0.5, "eps": 0.03}, METRICS),
}


@pytest.mark.parametrize("name", sorted(PLATEAU))
def test_reduce_lr_on_plateau_matches_torch(name):
    options, metrics = PLATEAU[name]
    t_sched, a_sched = compare_runs({}, lambda S, o: S.ReduceLROnPlateau(o, **options),
                                    len(metrics), [(m,) for m in metrics])
    check_state_dict_keys(t_sched, a_sched)
    for key in ("best", "num_bad_epochs", "cooldown_counter", "last_epoch", "min_lrs"):
        check_same(getattr(t_sched, key), getattr(a_sched, key), f"attribute {key}")


def test_reduce_lr_on_plateau_per_group_min_lr():
    options = {"patience": 0, "factor": 0.5, "min_lr": [0.02, 0.001]}
    compare_runs({"lrs": (0.1, 0.05)}, lambda S, o: S.ReduceLROnPlateau(o, **options),
                  len(METRICS), [(m,) for m in METRICS])


def test_reduce_lr_on_plateau_takes_a_tensor_metric_and_an_epoch():
    steps = [(0.5, None), (0.6, None), (0.7, 10), (0.8, None), (0.9, None)]
    expected, expected_warnings, t_sched = run(
        torch, {}, lambda S, o: S.ReduceLROnPlateau(o, patience=1), 5,
        [(torch.tensor(m), e) for m, e in steps])
    seen, seen_warnings, a_sched = run(
        al, {}, lambda S, o: S.ReduceLROnPlateau(o, patience=1), 5,
        [(al.tensor(m), e) for m, e in steps])
    for step, (e, s) in enumerate(zip(expected, seen)):
        check_same(e["get_last_lr()"], s["get_last_lr()"], f"after step {step}, get_last_lr()")
    assert seen_warnings == expected_warnings, (f"expected the warnings {expected_warnings}, "
                                                f"seen {seen_warnings}")
    assert a_sched.last_epoch == t_sched.last_epoch, (f"expected last_epoch {t_sched.last_epoch}, "
                                                      f"seen {a_sched.last_epoch}")


def test_reduce_lr_on_plateau_state_dict_round_trip():
    results = {}
    for lib in (torch, al):
        opt = make_optimizer(lib)
        first = schedulers_of(lib).ReduceLROnPlateau(opt, mode="max", patience=1, cooldown=1)
        for m in METRICS[:8]:
            first.step(m)
        second = schedulers_of(lib).ReduceLROnPlateau(opt)
        second.load_state_dict(first.state_dict())
        for m in METRICS[8:]:
            second.step(m)
        results[lib] = (second.get_last_lr(), second.mode, second.mode_worse, second.best)
    assert results[al] == results[torch], (f"expected after loading and stepping {results[torch]}, "
                                           f"seen {results[al]}")


# ================================================= ConstantLR and PolynomialLR

SIMPLE = {
    "ConstantLR defaults": (lambda S, o: S.ConstantLR(o), 12),
    "ConstantLR 0.5 for 4": (lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4), 12),
    "ConstantLR 0.1 for 0": (lambda S, o: S.ConstantLR(o, factor=0.1, total_iters=0), 8),
    "ConstantLR factor 1": (lambda S, o: S.ConstantLR(o, factor=1.0, total_iters=3), 8),
    "PolynomialLR defaults": (lambda S, o: S.PolynomialLR(o), 10),
    "PolynomialLR power 2": (lambda S, o: S.PolynomialLR(o, total_iters=12, power=2.0), 20),
    "PolynomialLR power 0.5": (lambda S, o: S.PolynomialLR(o, total_iters=7, power=0.5), 20),
    "PolynomialLR power 3, 30 iters": (lambda S, o: S.PolynomialLR(o, total_iters=30, power=3.0), 35),
}


@pytest.mark.parametrize("name", sorted(SIMPLE))
@pytest.mark.parametrize("lrs", [(0.1,), (0.3, 0.007)])
def test_constant_and_polynomial_match_torch(name, lrs):
    build, steps = SIMPLE[name]
    t_sched, a_sched = compare_runs({"lrs": lrs}, build, steps)
    check_state_dict_keys(t_sched, a_sched)


@pytest.mark.parametrize("name", sorted(SIMPLE))
def test_closed_form_with_an_epoch_matches_torch(name):
    build, steps = SIMPLE[name]
    epochs = [3, 1, 0, 5, 9, 2, 30, 4][:steps]
    compare_runs({}, build, len(epochs), [(e,) for e in epochs])


# ====================================================================== OneCycleLR

ONE_CYCLE = {
    "cos": ({"max_lr": 1.0, "total_steps": 30}, "SGD", {"momentum": 0.9}),
    "linear": ({"max_lr": 0.5, "total_steps": 25, "anneal_strategy": "linear"}, "SGD",
               {"momentum": 0.9}),
    "three phase cos": ({"max_lr": 0.8, "total_steps": 40, "three_phase": True}, "SGD",
                        {"momentum": 0.9}),
    "three phase linear, pct 0.25": ({"max_lr": 0.8, "total_steps": 37, "three_phase": True,
                                      "anneal_strategy": "linear", "pct_start": 0.25}, "SGD",
                                     {"momentum": 0.5}),
    "epochs x steps_per_epoch": ({"max_lr": 2.0, "epochs": 4, "steps_per_epoch": 7}, "SGD",
                                 {"momentum": 0.9}),
    "Adam betas": ({"max_lr": 0.01, "total_steps": 30, "base_momentum": 0.8,
                    "max_momentum": 0.9}, "Adam", {}),
    "AdamW betas, linear": ({"max_lr": 0.01, "total_steps": 20, "anneal_strategy": "linear"},
                            "AdamW", {}),
    "no momentum cycling": ({"max_lr": 0.3, "total_steps": 20, "cycle_momentum": False}, "SGD", {}),
    "div factors": ({"max_lr": 1.5, "total_steps": 30, "div_factor": 10.0,
                     "final_div_factor": 100.0, "pct_start": 0.5}, "SGD", {"momentum": 0.9}),
    "pct_start 0": ({"max_lr": 1.0, "total_steps": 10, "pct_start": 0.0}, "SGD", {"momentum": 0.9}),
}


@pytest.mark.parametrize("name", sorted(ONE_CYCLE))
def test_one_cycle_matches_torch(name):
    options, kind, optimizer_options = ONE_CYCLE[name]
    total = options.get("total_steps") or options["epochs"] * options["steps_per_epoch"]
    t_sched, a_sched = compare_runs({"kind": kind, **optimizer_options},
                                    lambda S, o: S.OneCycleLR(o, **options), total)
    check_state_dict_keys(t_sched, a_sched)


def test_one_cycle_per_group_values_match_torch():
    options = {"max_lr": [1.0, 0.1], "total_steps": 24, "max_momentum": [0.95, 0.9],
               "base_momentum": (0.85, 0.7)}
    compare_runs({"lrs": (0.1, 0.2), "momentum": 0.9}, lambda S, o: S.OneCycleLR(o, **options), 24)


def error_of(call):
    try:
        call()
    except Exception as error:      # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error)
    return None


def test_one_cycle_stepping_past_total_steps_fails_as_torch():
    errors = {}
    for lib in (torch, al):
        opt = make_optimizer(lib, momentum=0.9)
        sched = schedulers_of(lib).OneCycleLR(opt, max_lr=1.0, total_steps=5)
        for _ in range(5):
            opt.step()
            sched.step()
        errors[lib] = error_of(sched.step)
    assert errors[torch] is not None, "expected PyTorch to refuse the step past total_steps"
    assert errors[al] == errors[torch], f"expected the error {errors[torch]}, seen {errors[al]}"


# ===================================================== CosineAnnealingWarmRestarts

WARM_RESTARTS = {
    "T_0 5": ({"T_0": 5}, 30),
    "T_0 3, T_mult 2": ({"T_0": 3, "T_mult": 2}, 40),
    "T_0 4, T_mult 3, eta_min": ({"T_0": 4, "T_mult": 3, "eta_min": 0.001}, 40),
    "T_0 1": ({"T_0": 1, "eta_min": 0.01}, 20),
}


@pytest.mark.parametrize("name", sorted(WARM_RESTARTS))
@pytest.mark.parametrize("lrs", [(0.1,), (0.5, 0.02)])
def test_warm_restarts_match_torch(name, lrs):
    options, steps = WARM_RESTARTS[name]
    t_sched, a_sched = compare_runs({"lrs": lrs},
                                    lambda S, o: S.CosineAnnealingWarmRestarts(o, **options), steps)
    check_state_dict_keys(t_sched, a_sched)


@pytest.mark.parametrize("name", sorted(WARM_RESTARTS))
def test_warm_restarts_with_fractional_epochs_match_torch(name):
    options, _ = WARM_RESTARTS[name]
    batches = 4
    epochs = [(epoch + batch / batches,) for epoch in range(8) for batch in range(batches)]
    epochs[5:5] = [(26,), (None,), (None,), (2.5,)]        # a jump, plain steps, and back
    compare_runs({}, lambda S, o: S.CosineAnnealingWarmRestarts(o, **options), len(epochs), epochs)


# ======================================================= SequentialLR and ChainedScheduler

COMPOSITE = {
    "warm-up then exponential": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.1, total_iters=5), S.ExponentialLR(o, gamma=0.9)],
        milestones=[5]),
    "three schedulers": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, factor=0.5, total_iters=2), S.CosineAnnealingLR(o, T_max=6),
            S.StepLR(o, step_size=3, gamma=0.5)], milestones=[3, 10]),
    "polynomial then warm restarts": lambda S, o: S.SequentialLR(
        o, [S.PolynomialLR(o, total_iters=4, power=2.0), S.CosineAnnealingWarmRestarts(o, T_0=4)],
        milestones=[6]),
    "chained constant and exponential": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.1, total_iters=4), S.ExponentialLR(o, gamma=0.9)]),
    "chained with optimizer given": lambda S, o: S.ChainedScheduler(
        [S.StepLR(o, step_size=3, gamma=0.5), S.LinearLR(o, start_factor=0.25, total_iters=8),
         S.MultiStepLR(o, milestones=[4, 9], gamma=0.3)], optimizer=o),
    "sequential of a chain": lambda S, o: S.SequentialLR(
        o, [S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=3),
                                S.ExponentialLR(o, gamma=0.95)]),
            S.PolynomialLR(o, total_iters=10)], milestones=[7]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITE))
@pytest.mark.parametrize("lrs", [(0.1,), (1.0, 0.05)])
def test_sequential_and_chained_match_torch(name, lrs):
    t_sched, a_sched = compare_runs({"lrs": lrs}, COMPOSITE[name], 25)
    check_state_dict_keys(t_sched, a_sched)


# A SequentialLR starting with a chain steps the chain's schedulers when made: PyTorch warns.
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")
@pytest.mark.parametrize("name", sorted(COMPOSITE))
def test_composite_state_dict_round_trip(name):
    results = {}
    for lib in (torch, al):
        S, opt = schedulers_of(lib), make_optimizer(lib)
        first = COMPOSITE[name](S, opt)
        for _ in range(6):
            opt.step()
            first.step()
        saved = first.state_dict()
        opt2 = make_optimizer(lib)
        second = COMPOSITE[name](S, opt2)
        second.load_state_dict(saved)
        opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
        rates = []
        for _ in range(6):
            opt2.step()
            second.step()
            rates.append(second.get_last_lr()[0])
        results[lib] = rates
    for step, (e, s) in enumerate(zip(results[torch], results[al])):
        check_same(e, s, f"after loading, step {step}")


# ============================================================================ errors

def two_optimizers(S, lib):
    return make_optimizer(lib), make_optimizer(lib)


ERRORS = {
    "plateau factor 1": lambda S, o: S.ReduceLROnPlateau(o, factor=1.0),
    "plateau factor 2": lambda S, o: S.ReduceLROnPlateau(o, factor=2.0),
    "plateau not an optimizer": lambda S, o: S.ReduceLROnPlateau([1, 2]),
    "plateau min_lr count": lambda S, o: S.ReduceLROnPlateau(o, min_lr=[0.1, 0.2]),
    "plateau mode": lambda S, o: S.ReduceLROnPlateau(o, mode="middle"),
    "plateau threshold mode": lambda S, o: S.ReduceLROnPlateau(o, threshold_mode="relative"),
    "plateau group added": lambda S, o: plateau_after_new_group(S, o),
    "constant factor above 1": lambda S, o: S.ConstantLR(o, factor=1.5),
    "constant factor below 0": lambda S, o: S.ConstantLR(o, factor=-0.1),
    "one cycle no total": lambda S, o: S.OneCycleLR(o, max_lr=1.0),
    "one cycle only epochs": lambda S, o: S.OneCycleLR(o, max_lr=1.0, epochs=3),
    "one cycle total 0": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=0),
    "one cycle total float": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=10.0),
    "one cycle epochs 0": lambda S, o: S.OneCycleLR(o, max_lr=1.0, epochs=0, steps_per_epoch=3),
    "one cycle steps_per_epoch": lambda S, o: S.OneCycleLR(o, max_lr=1.0, epochs=2,
                                                           steps_per_epoch=-1),
    "one cycle pct_start 1.5": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=10,
                                                         pct_start=1.5),
    "one cycle pct_start int": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=0),
    "one cycle anneal": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=10,
                                                  anneal_strategy="cosine"),
    "one cycle max_lr count": lambda S, o: S.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=10),
    "one cycle momentum count": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=10,
                                                          max_momentum=[0.9, 0.9]),
    "one cycle not an optimizer": lambda S, o: S.OneCycleLR("sgd", max_lr=1.0, total_steps=10),
    "warm restarts T_0 0": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=0),
    "warm restarts T_0 float": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2.0),
    "warm restarts T_mult 0": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    "warm restarts T_mult float": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
    "warm restarts eta_min": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    "warm restarts negative epoch": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    "sequential empty": lambda S, o: S.SequentialLR(o, [], milestones=[]),
    "sequential milestones": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o), S.ExponentialLR(o, 0.9)], milestones=[2, 4]),
    "sequential plateau": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o), S.ReduceLROnPlateau(o)], milestones=[2]),
    "sequential not a scheduler": lambda S, o: S.SequentialLR(o, [S.ConstantLR(o), 3], milestones=[2]),
    "chained empty": lambda S, o: S.ChainedScheduler([]),
    "chained plateau": lambda S, o: S.ChainedScheduler([S.ReduceLROnPlateau(o)]),
    "chained not a scheduler": lambda S, o: S.ChainedScheduler([S.ConstantLR(o), "x"]),
}


def plateau_after_new_group(S, opt):
    sched = S.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
    opt.add_param_group({"params": [type(opt.param_groups[0]["params"][0])([1.0])]})
    sched.step(1.0)
    sched.step(2.0)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    expected = error_of(lambda: ERRORS[name](schedulers_of(torch), make_optimizer(torch)))
    seen = error_of(lambda: ERRORS[name](schedulers_of(al), make_optimizer(al)))
    assert expected is not None, f"expected PyTorch to raise for {name!r}"
    assert seen == expected, f"expected the error {expected}, seen {seen}"


def test_mixing_optimizers_fails_as_torch():
    # The message shows the other optimizer (its repr), so only its class and start are compared.
    seen = {}
    for lib in (torch, al):
        S, first, other = schedulers_of(lib), make_optimizer(lib), make_optimizer(lib)
        seen[lib] = [error_of(lambda: S.ChainedScheduler([S.ConstantLR(first), S.ConstantLR(other)])),
                     error_of(lambda: S.SequentialLR(first, [S.ConstantLR(first),
                                                             S.ConstantLR(other)], [3]))]
    for e, s in zip(seen[torch], seen[al]):
        assert e is not None, "expected PyTorch to refuse schedulers of different optimizers"
        start = e[1].split(" has ")[0]
        assert s is not None and s[0] == e[0] and s[1].startswith(start), (
            f"expected the error {e[0]}: {start} ..., seen {s}")


def test_the_comparison_can_fail():
    with pytest.raises(AssertionError, match="expected 0.1 .PyTorch., seen 0.1000000001"):
        check_same(0.1, 0.1000000001, "lr")
    with pytest.raises(AssertionError, match="expected"):
        check_same([0.1, 0.2], [0.1], "rates")


# ======================================================================== CyclicLR

class _Halving:
    """A callable-object scale_fn (its attributes go into the state_dict; a function does not)."""
    def __init__(self):
        self.base = 2.0

    def __call__(self, x):
        return 1 / (self.base ** (x - 1))


CYCLIC = {
    "triangular": ({"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}, "SGD", {"momentum": 0.9}),
    "triangular2, down 6": ({"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "step_size_down": 6,
                             "mode": "triangular2"}, "SGD", {"momentum": 0.9}),
    "exp_range": ({"base_lr": 0.001, "max_lr": 0.1, "step_size_up": 5, "mode": "exp_range",
                   "gamma": 0.95}, "SGD", {"momentum": 0.8}),
    "Adam betas": ({"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 4, "base_momentum": 0.85,
                    "max_momentum": 0.95}, "Adam", {}),
    "no momentum cycling": ({"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 2, "cycle_momentum": False},
                            "SGD", {}),
    "scale_fn per iteration": ({"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3,
                                "scale_fn": lambda x: 0.99 ** x, "scale_mode": "iterations"}, "SGD",
                               {"momentum": 0.9}),
}


@pytest.mark.parametrize("name", sorted(CYCLIC))
def test_cyclic_matches_torch(name):
    options, kind, optimizer_options = CYCLIC[name]
    t_sched, a_sched = compare_runs({"kind": kind, **optimizer_options},
                                    lambda S, o: S.CyclicLR(o, **options), 25)
    check_state_dict_keys(t_sched, a_sched)


def test_cyclic_per_group_values_and_state_dict_match_torch():
    options = {"base_lr": [0.01, 0.02], "max_lr": (0.1, 0.3), "step_size_up": 3,
               "base_momentum": [0.8, 0.7], "max_momentum": 0.9}
    compare_runs({"lrs": (0.1, 0.2), "momentum": 0.9}, lambda S, o: S.CyclicLR(o, **options), 20)
    states = {}
    for lib in (torch, al):
        opt = make_optimizer(lib, momentum=0.9)
        sched = schedulers_of(lib).CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=_Halving())
        states[lib] = (sched.state_dict()["_scale_fn_custom"],
                       schedulers_of(lib).CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: 1.0)
                       .state_dict()["_scale_fn_custom"])
    assert states[al] == states[torch], f"expected the saved scale_fn {states[torch]}, seen {states[al]}"


def test_cyclic_refusals_match_torch():
    for name, call in {
        "no momentum": lambda lib: schedulers_of(lib).CyclicLR(
            make_optimizer(lib, kind="Adagrad"), 0.01, 0.1),
        "bad mode": lambda lib: schedulers_of(lib).CyclicLR(make_optimizer(lib, momentum=0.9), 0.01, 0.1,
                                                           mode="cosine"),
        "too few lrs": lambda lib: schedulers_of(lib).CyclicLR(make_optimizer(lib, lrs=(0.1, 0.2), momentum=0.9),
                                                              [0.01], 0.1),
    }.items():
        expected, seen = error_of(lambda: call(torch)), error_of(lambda: call(al))
        assert expected is not None, f"{name}: expected PyTorch to refuse"
        assert seen == expected, f"{name}: expected the error {expected}, seen {seen}"
