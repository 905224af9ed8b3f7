"""Adagrad, Adamax, NAdam, RAdam and Adadelta against PyTorch, step by step.

Each run builds the same parameters (fixed float64 data, or float32) in both libraries,
takes the same steps on the same loss, and compares after every step the loss, every
parameter and every entry of the optimizer's state (keys in order, dtype, shape, values).
The constructors are compared too: signature, defaults kept in the groups, and the
ValueError of each invalid argument.  Tests that need torch take conftest's ``torch``
fixture, so without torch they are skipped.
"""

import copy
import inspect

import numpy as np
import pytest

import autograd_lib as al
from autograd_lib import optim
from conftest import assert_close, assert_same

NAMES = ["Adagrad", "Adamax", "NAdam", "RAdam", "Adadelta"]

CONFIGS = [                                          # optimizer, options
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-6}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adagrad", {"lr": 0.1, "foreach": False}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-4}),
    ("Adamax", {"lr": 0.05, "betas": (0.3, 0.9)}),   # 1 - beta1 > 0.5: lerp's other form
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.05, "betas": (0.8, 0.99)}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.05, "betas": (0.4, 0.9), "maximize": True, "eps": 1e-3}),
    ("RAdam", {}),                                   # rho_t passes 5 at step 6
    ("RAdam", {"lr": 0.05, "betas": (0.8, 0.9)}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.05, "betas": (0.3, 0.95), "maximize": True, "eps": 1e-3}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-3}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("Adadelta", {"rho": 1.0}),
]
STEPS = 10
TOLERANCE = {"float64": (1e-12, 1e-15), "float32": (1e-5, 1e-6)}


def make_params(lib, dtype):
    """Two parameters that train and one that gets no gradient (skipped by step)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal(2)]
    return [lib.nn.Parameter(lib.tensor(a.astype(dtype))) for a in arrays]


def loss_of(lib, params, dtype):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((6, 3)).astype(dtype), rng.standard_normal((6, 2)).astype(dtype)
    w, b, _ = params
    return ((lib.tanh(lib.tensor(x) @ w + b) - lib.tensor(y)) ** 2).mean()


def compare_states(theirs, ours, params_theirs, params_ours, what, dtype):
    """Every state entry of every parameter (the parameters themselves too)."""
    rtol, atol = TOLERANCE[dtype]
    for i, (q, p) in enumerate(zip(params_theirs, params_ours)):
        assert_close(q.detach().numpy(), p.detach().numpy(), f"{what}: parameter {i}", rtol, atol)
        expected, seen = theirs.state.get(q, {}), ours.state.get(p, {})
        assert_same(list(expected), list(seen), f"{what}: state keys of parameter {i}")
        for key, value in expected.items():
            mine = seen[key]
            assert_same((str(value.dtype).replace("torch.", ""), tuple(value.shape)),
                        (mine.dtype.name, tuple(mine.shape)),
                        f"{what}: dtype and shape of state[{key!r}] of parameter {i}")
            tol = (0, 0) if key == "step" else (rtol, atol)
            assert_close(value.numpy(), mine.numpy(), f"{what}: state[{key!r}] of parameter {i}",
                         *tol)


def run_both(torch, name, options, dtype="float64", steps=STEPS):
    """Train in both libraries, comparing after every step; returns both optimizers."""
    runs = []
    for lib in (torch, al):
        params = make_params(lib, dtype)
        runs.append((lib, params, getattr(lib.optim, name)(params, **options)))
    (_, tp, topt), (_, op, oopt) = runs
    what = f"{name}({options}), {dtype}"
    compare_states(topt, oopt, tp, op, f"{what}, before any step", dtype)
    for step in range(steps):
        losses = []
        for lib, params, opt in runs:
            opt.zero_grad()
            loss = loss_of(lib, params, dtype)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert_close(losses[0], losses[1], f"{what}: loss at step {step}", *TOLERANCE[dtype])
        compare_states(topt, oopt, tp, op, f"{what}: after step {step}", dtype)
    return topt, oopt


@pytest.mark.parametrize("name, options", CONFIGS)
def test_steps_match_torch_in_float64(torch, name, options):
    run_both(torch, name, options)


@pytest.mark.parametrize("name, options", [c for c in CONFIGS if not c[1]]
                         + [("NAdam", {"lr": 0.05, "weight_decay": 0.1,
                                       "decoupled_weight_decay": True})])
def test_steps_match_torch_in_float32(torch, name, options):
    run_both(torch, name, options, "float32")


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_with_their_own_options(torch, name):
    """Two groups, the second with its own lr and weight decay, a third group added later."""
    runs = []
    for lib in (torch, al):
        w, b, c = make_params(lib, "float64")
        opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.3,
                                                          "weight_decay": 0.2}], lr=0.05)
        runs.append((lib, [w, b, c], opt))
    for step in range(4):
        for lib, (w, b, c), opt in runs:
            if step == 2:
                opt.add_param_group({"params": [c], "lr": 0.01})
            opt.zero_grad()
            (loss_of(lib, [w, b, c], "float64") + (c * c).sum()).backward()
            opt.step()
        compare_states(runs[0][2], runs[1][2], runs[0][1], runs[1][1],
                       f"{name} with groups, after step {step}", "float64")
    for i, (expected, seen) in enumerate(zip(runs[0][2].param_groups, runs[1][2].param_groups)):
        assert_same({k: v for k, v in expected.items() if k != "params"},
                    {k: v for k, v in seen.items() if k != "params"}, f"{name}: group {i}")


# ================================================================== the constructor

@pytest.mark.parametrize("name", NAMES)
def test_signature_and_defaults_match_torch(torch, name):
    def shape(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]
    assert_same(shape(getattr(torch.optim, name)), shape(getattr(optim, name)),
                f"{name}: constructor parameters (name, kind, default)")
    theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2))])
    ours = getattr(optim, name)([al.nn.Parameter(al.zeros(2))])
    expected = {k: v for k, v in theirs.param_groups[0].items() if k != "params"}
    seen = {k: v for k, v in ours.param_groups[0].items() if k != "params"}
    assert_same(expected, seen, f"{name}: the settings a default group holds")
    assert_same(list(expected), list(seen), f"{name}: the order of a group's settings")
    assert_same(theirs.defaults, ours.defaults, f"{name}: defaults")


INVALID = [
    ("Adagrad", {"lr": -1}, "Invalid learning rate: -1"),
    ("Adagrad", {"lr_decay": -0.5}, "Invalid lr_decay value: -0.5"),
    ("Adagrad", {"weight_decay": -1e-4}, "Invalid weight_decay value: -0.0001"),
    ("Adagrad", {"initial_accumulator_value": -1.0},
     "Invalid initial_accumulator_value value: -1.0"),
    ("Adagrad", {"eps": -1e-10}, "Invalid epsilon value: -1e-10"),
    ("Adagrad", {"lr": -1, "eps": -1}, "Invalid learning rate: -1"),
]
for _name in ("Adamax", "NAdam", "RAdam"):
    INVALID += [
        (_name, {"lr": -0.1}, "Invalid learning rate: -0.1"),
        (_name, {"eps": -1.0}, "Invalid epsilon value: -1.0"),
        (_name, {"betas": (1.0, 0.999)}, "Invalid beta parameter at index 0: 1.0"),
        (_name, {"betas": (-0.1, 0.999)}, "Invalid beta parameter at index 0: -0.1"),
        (_name, {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
        (_name, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
        (_name, {"eps": -1.0, "weight_decay": -1}, "Invalid epsilon value: -1.0"),
    ]
INVALID += [
    ("NAdam", {"momentum_decay": -0.1}, "Invalid momentum_decay value: -0.1"),
    ("Adadelta", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adadelta", {"rho": -0.5}, "Invalid rho value: -0.5"),
    ("Adadelta", {"eps": -1e-6}, "Invalid epsilon value: -1e-06"),
    ("Adadelta", {"weight_decay": -2}, "Invalid weight_decay value: -2"),
]


@pytest.mark.parametrize("name, options, message", INVALID)
def test_invalid_arguments_match_torch(torch, name, options, message):
    errors = []
    for lib in (torch, al):
        with pytest.raises(Exception) as caught:
            getattr(lib.optim, name)([lib.nn.Parameter(lib.zeros(2))], **options)
        errors.append((type(caught.value).__name__, str(caught.value)))
    assert_same(("ValueError", message), errors[0], f"{name}({options}): torch's error")
    assert_same(errors[0], errors[1], f"{name}({options}): the error")


def test_adagrad_fused_with_foreach_is_refused_as_in_torch(torch):
    errors = []
    for lib in (torch, al):
        with pytest.raises(RuntimeError) as caught:
            lib.optim.Adagrad([lib.nn.Parameter(lib.zeros(2))], fused=True, foreach=True)
        errors.append(str(caught.value))
    assert_same(errors[0], errors[1], "Adagrad(fused=True, foreach=True): the RuntimeError")


@pytest.mark.parametrize("name", NAMES)
def test_implementation_options_change_nothing(name):
    """foreach (and capturable, fused where they exist) are accepted and give the same steps;
    differentiable=True is refused, as by the other optimizers."""
    extra = {"fused": True} if name == "Adagrad" else {"capturable": True}
    variants = ({}, {"foreach": True}, {"foreach": False}, extra)
    results = []
    for options in variants:
        params = make_params(al, "float64")
        opt = getattr(optim, name)(params, lr=0.05, **options)
        for _ in range(3):
            opt.zero_grad()
            loss_of(al, params, "float64").backward()
            opt.step()
        results.append([p.detach().numpy() for p in params])
    for options, result in zip(variants[1:], results[1:]):
        for i, (expected, seen) in enumerate(zip(results[0], result)):
            assert_close(expected, seen, f"{name}({options}): parameter {i} as with the "
                                         "defaults", 0, 0)
    with pytest.raises(NotImplementedError):
        getattr(optim, name)(make_params(al, "float64"), differentiable=True)


# ================================================================ state and in place

@pytest.mark.parametrize("name", NAMES)
def test_step_updates_in_place_and_returns_the_closure_loss(name):
    params = make_params(al, "float64")
    opt = getattr(optim, name)(params, lr=0.05)
    before = [(p._version, p.detach().numpy().copy()) for p in params]

    def closure():
        opt.zero_grad()
        loss = loss_of(al, params, "float64")
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert loss is not None and loss.requires_grad, \
        f"expected the closure's loss (computed with grad on), saw {loss!r}"
    for i, (p, (version, old)) in enumerate(zip(params[:2], before)):
        assert p._version > version and not np.array_equal(p.detach().numpy(), old), \
            f"expected parameter {i} changed in place (version > {version}), saw {p._version}"
    assert params[2]._version == before[2][0], \
        f"expected the parameter without gradient untouched, saw version {params[2]._version}"


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip(torch, name):
    """Save after 3 steps, load (a deep copy, as from a file) into fresh optimizers over copies
    of the parameters, and take 3 more steps, in both libraries: the saved dicts and every
    later step agree.  (Loading casts the state to the parameters' dtype, except "step":
    NAdam's float32 "mu_product" comes back as float64, in PyTorch as here.)"""
    topt, oopt = run_both(torch, name, {"lr": 0.05}, steps=3)
    saved = [topt.state_dict(), oopt.state_dict()]
    assert_same(sorted(saved[0]["state"]), sorted(saved[1]["state"]),
                f"{name}: the parameter indices of state_dict()['state']")
    assert_same(saved[0]["param_groups"], saved[1]["param_groups"],
                f"{name}: state_dict()['param_groups']")
    reloaded = []
    for lib, opt, state_dict in ((torch, topt, saved[0]), (al, oopt, saved[1])):
        copies = [lib.nn.Parameter(p.detach().clone()) for p in opt.param_groups[0]["params"]]
        other = getattr(lib.optim, name)(copies, lr=0.9)
        other.load_state_dict(copy.deepcopy(state_dict))
        reloaded.append((lib, copies, other))
    assert_same(0.05, reloaded[1][2].param_groups[0]["lr"], f"{name}: lr after load_state_dict")
    for step in range(3):
        for lib, params, opt in reloaded:
            opt.zero_grad()
            loss_of(lib, params, "float64").backward()
            opt.step()
        compare_states(reloaded[0][2], reloaded[1][2], reloaded[0][1], reloaded[1][1],
                       f"{name} reloaded, after step {step}", "float64")
