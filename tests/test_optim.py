"""Tests of ``autograd_lib.optim``: SGD and Adam against PyTorch, step by step.

The central test trains the same MLP (same starting weights, same data) with
autograd_lib and with PyTorch for 20 steps, and compares the loss and every
parameter after every step.  Tests that need torch call :func:`oracle`,
which skips them when torch is not installed.
"""

import copy
import warnings

import numpy as np
import pytest

import autograd_lib as al
from autograd_lib import nn, optim


def oracle():
    """The torch module (PyTorch is only the oracle of these tests)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")
    torch.set_num_threads(1)                 # tiny tensors: threads would only add overhead
    return torch


def model(dtype=al.float32):
    return nn.Sequential(nn.Linear(4, 8, dtype=dtype), nn.Tanh(), nn.Linear(8, 3, dtype=dtype))


def trained_once(optimizer_cls, **options):
    """A model whose parameters all have a gradient, and an optimizer over them."""
    al.manual_seed(0)
    net = model()
    net(al.randn(5, 4)).pow(2).sum().backward()
    return net, optimizer_cls(net.parameters(), **options)


# ====================================================== training against PyTorch

CLASSIFY = ("CrossEntropyLoss", "ReLU")
REGRESS = ("MSELoss", "Tanh")
CONFIGS = [                                  # optimizer, options, (loss, activation)
    ("SGD", {"lr": 0.1}, CLASSIFY),
    ("SGD", {"lr": 0.1}, REGRESS),
    ("SGD", {"lr": 0.1, "momentum": 0.9}, CLASSIFY),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5, "weight_decay": 0.01}, REGRESS),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}, CLASSIFY),
    ("SGD", {"lr": 0.01, "maximize": True}, REGRESS),
    ("Adam", {"lr": 0.01}, CLASSIFY),
    ("Adam", {"lr": 0.01}, REGRESS),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1}, REGRESS),
    ("Adam", {"lr": 0.01, "amsgrad": True}, CLASSIFY),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "amsgrad": True,
              "weight_decay": 0.1}, REGRESS),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}, CLASSIFY),
    ("Adam", {"lr": 0.01, "maximize": True}, REGRESS),
]


def train_both(torch, optimizer_name, options, loss_name, activation, dtype, rtol, atol):
    """Train the same 4-8-3 MLP in both libraries for 20 steps, comparing as we go."""
    al.manual_seed(0)
    ours = nn.Sequential(nn.Linear(4, 8, dtype=dtype), getattr(nn, activation)(),
                         nn.Linear(8, 3, dtype=dtype))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 8), getattr(torch.nn, activation)(),
                                 torch.nn.Linear(8, 3)).to(getattr(torch, dtype.name))
    theirs.load_state_dict({name: torch.from_numpy(t.numpy().copy())
                            for name, t in ours.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype(dtype.numpy)
    if loss_name == "CrossEntropyLoss":
        y = rng.integers(0, 3, 32)
    else:
        y = rng.standard_normal((32, 3)).astype(dtype.numpy)
    runs = []
    for lib, module, net, library_optim in ((al, nn, ours, optim),
                                            (torch, torch.nn, theirs, torch.optim)):
        optimizer = getattr(library_optim, optimizer_name)(net.parameters(), **options)
        runs.append((lib, net, optimizer, getattr(module, loss_name)()))

    setting = f"{optimizer_name}({options}), {loss_name}, {dtype.name}"
    for step in range(20):
        losses = []
        for lib, net, optimizer, loss_fn in runs:
            optimizer.zero_grad()
            loss = loss_fn(net(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        seen, expected = losses
        np.testing.assert_allclose(seen, expected, rtol=rtol, atol=atol,
                                   err_msg=f"{setting}: loss at step {step}")
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(
                p.detach().numpy(), q.detach().numpy(), rtol=rtol, atol=atol,
                err_msg=f"{setting}: parameter {name!r} after step {step} "
                        "(actual: autograd_lib, desired: torch)")


@pytest.mark.parametrize("optimizer_name, options, task", CONFIGS)
def test_training_matches_torch(optimizer_name, options, task):
    train_both(oracle(), optimizer_name, options, *task, al.float32, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("optimizer_name, options, task", [CONFIGS[4], CONFIGS[10]])
def test_training_matches_torch_in_float64(optimizer_name, options, task):
    train_both(oracle(), optimizer_name, options, *task, al.float64, rtol=1e-12, atol=1e-14)


# ====================================================================== step()

@pytest.mark.parametrize("optimizer_cls, options", [
    (optim.SGD, {"lr": 0.1}), (optim.SGD, {"lr": 0.1, "momentum": 0.9}), (optim.Adam, {})])
def test_step_updates_in_place(optimizer_cls, options):
    net, optimizer = trained_once(optimizer_cls, **options)
    before = [(p, p._version, p.detach().numpy().copy()) for p in net.parameters()]
    optimizer.step()
    for (p, version, old), now in zip(before, net.parameters()):
        assert now is p                                   # same tensor, changed in place
        assert p._version == version + 1
        assert not np.array_equal(p.detach().numpy(), old)
        assert p.requires_grad and p.is_leaf and p.grad_fn is None


@pytest.mark.parametrize("optimizer_cls", [optim.SGD, optim.Adam])
def test_parameters_without_gradient_are_skipped(optimizer_cls):
    net, optimizer = trained_once(optimizer_cls, lr=0.1, weight_decay=0.1)
    frozen = net[0].weight
    frozen.grad = None
    version, old = frozen._version, frozen.detach().numpy().copy()
    optimizer.step()
    assert frozen._version == version and np.array_equal(frozen.detach().numpy(), old)
    assert frozen not in optimizer.state                 # no state is created for it either


def test_sgd_momentum_buffer_starts_as_a_copy_of_the_gradient():
    net, optimizer = trained_once(optim.SGD, lr=0.1, momentum=0.9)
    grads = {p: p.grad.detach().numpy().copy() for p in net.parameters()}
    optimizer.step()
    for p in net.parameters():
        buf = optimizer.state[p]["momentum_buffer"]
        assert buf is not p.grad and np.array_equal(buf.numpy(), grads[p])


def test_adam_state():
    net, optimizer = trained_once(optim.Adam, amsgrad=True)
    optimizer.step()
    optimizer.step()
    state = optimizer.state[net[0].weight]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert state["step"].item() == 2.0 and state["step"].dtype is al.float32
    assert state["exp_avg"].shape == net[0].weight.shape


def test_step_runs_the_closure_with_grad_enabled_and_returns_its_loss():
    al.manual_seed(0)
    net = model()
    optimizer = optim.SGD(net.parameters(), lr=0.1)
    x = al.randn(5, 4)

    def closure():
        optimizer.zero_grad()
        loss = net(x).pow(2).mean()
        loss.backward()
        return loss

    first = optimizer.step(closure)
    assert first.requires_grad                           # computed with grad mode on
    assert optimizer.step(closure).item() < first.item()
    assert al.is_grad_enabled()


def test_zero_grad():
    net, optimizer = trained_once(optim.SGD, lr=0.1)
    grads = [p.grad for p in net.parameters()]
    optimizer.zero_grad(set_to_none=False)
    for p, grad in zip(net.parameters(), grads):
        assert p.grad is grad and not grad._data.any()   # same tensor, zeroed in place
    optimizer.zero_grad()
    assert all(p.grad is None for p in net.parameters())


# ===================================================================== arguments

INVALID = [
    ("SGD", {"lr": -1}, "Invalid learning rate: -1"),
    ("SGD", {"momentum": -0.5}, "Invalid momentum value: -0.5"),
    ("SGD", {"weight_decay": -1e-4}, "Invalid weight_decay value: -0.0001"),
    ("SGD", {"nesterov": True}, "Nesterov momentum requires a momentum and zero dampening"),
    ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1},
     "Nesterov momentum requires a momentum and zero dampening"),
    ("Adam", {"lr": -0.1}, "Invalid learning rate: -0.1"),
    ("Adam", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    ("Adam", {"betas": (1.0, 0.999)}, "Invalid beta parameter at index 0: 1.0"),
    ("Adam", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    ("Adam", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
]


@pytest.mark.parametrize("name, options, message", INVALID)
def test_invalid_arguments(name, options, message):
    with pytest.raises(ValueError) as error:
        getattr(optim, name)([nn.Parameter(al.zeros(2))], **options)
    assert str(error.value) == message


@pytest.mark.parametrize("name, options, message", INVALID)
def test_invalid_arguments_match_torch(name, options, message):
    torch = oracle()
    with pytest.raises(ValueError) as error:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2))], **options)
    assert str(error.value) == message


def test_params_must_be_an_iterable_of_leaf_tensors():
    p = nn.Parameter(al.zeros(2))
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got "
                                        "autograd_lib.FloatTensor"):
        optim.SGD(p)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([p * 2])
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the "
                                        "params is int"):
        optim.SGD([p, 3])
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {p}}])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optim.SGD([p, p])
    assert "duplicate parameters" in str(caught[0].message)


def test_param_groups_take_the_defaults_they_do_not_set():
    net = model()
    optimizer = optim.SGD([{"params": net[0].parameters()},
                           {"params": net[2].parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [group["lr"] for group in optimizer.param_groups] == [0.1, 0.5]
    assert all(group["momentum"] == 0.9 for group in optimizer.param_groups)
    assert optimizer.param_groups[1]["params"] == list(net[2]._parameters.values())
    optimizer.add_param_group({"params": nn.Parameter(al.zeros(1))})
    assert len(optimizer.param_groups) == 3 and len(optimizer.param_groups[2]["params"]) == 1
    net[0].weight.grad = al.ones(8, 4)
    net[2].weight.grad = al.ones(3, 8)
    w0, w2 = net[0].weight.detach().numpy().copy(), net[2].weight.detach().numpy().copy()
    optimizer.step()
    np.testing.assert_allclose(net[0].weight.detach().numpy(), w0 - 0.1, rtol=1e-6)
    np.testing.assert_allclose(net[2].weight.detach().numpy(), w2 - 0.5, rtol=1e-6)


def test_repr():
    optimizer = optim.SGD([{"params": [nn.Parameter(al.zeros(1))]},
                           {"params": [nn.Parameter(al.zeros(1))], "lr": 1}], lr=0.1)
    group = ("    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n"
             "    lr: {}\n    maximize: False\n    momentum: 0\n    nesterov: False\n    weight_decay: 0\n")
    expected = ("SGD (\nParameter Group 0\n" + group.format(0.1) + "\nParameter Group 1\n"
                + group.format(1) + ")")
    assert repr(optimizer) == expected, f"expected PyTorch's repr\n{expected}\nsaw\n{optimizer!r}"


def test_state_dict_round_trip():
    net, optimizer = trained_once(optim.Adam, lr=0.01)
    optimizer.step()
    other_net = model()
    other_net.load_state_dict(net.state_dict())
    other = optim.Adam(other_net.parameters(), lr=0.5)
    saved = optimizer.state_dict()
    assert sorted(saved["state"]) == [0, 1, 2, 3]
    assert saved["param_groups"][0]["params"] == [0, 1, 2, 3]
    sharing = optim.Adam(model().parameters())
    sharing.load_state_dict(saved)
    state, loaded = optimizer.state[net[0].weight], sharing.state[sharing.param_groups[0]["params"][0]]
    assert loaded is not state and loaded["exp_avg"] is state["exp_avg"], \
        "expected, as PyTorch, a new state dict holding the loaded tensors themselves (not copies)"
    assert sharing.param_groups[0] is not saved["param_groups"][0], "expected the settings copied"
    other.load_state_dict(copy.deepcopy(saved))        # as if saved to a file and loaded back
    assert other.param_groups[0]["lr"] == 0.01
    assert other.param_groups[0]["params"] == list(other_net.parameters())
    for p, q in zip(net.parameters(), other_net.parameters()):
        q.grad = p.grad.clone()
    optimizer.step()
    other.step()
    for p, q in zip(net.parameters(), other_net.parameters()):
        assert al.equal(p, q)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [net[0].weight]}, {"params": [net[0].bias]}]).load_state_dict(saved)


# ==================================================================== accumulation

def test_accumulated_gradient_equals_the_large_batch_gradient():
    """Micro-batches of unequal sizes (4, 4, 2): the accumulated .grad and loss are the
    large batch's, which only holds because each loss is weighted by its share."""
    al.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5, dtype=al.float64), nn.Tanh(), nn.Linear(5, 1, dtype=al.float64))
    x, y = al.randn(10, 3, dtype=al.float64), al.randn(10, 1, dtype=al.float64)
    loss_fn = nn.MSELoss()
    full = loss_fn(net(x), y)
    full.backward()
    expected = {name: p.grad.clone() for name, p in net.named_parameters()}
    net.zero_grad()
    loss = optim.accumulate_gradients(lambda a, b: loss_fn(net(a), b),
                                      [(x[0:4], y[0:4]), (x[4:8], y[4:8]), (x[8:10], y[8:10])])
    assert isinstance(loss, float), f"expected the mean loss as a float, saw {type(loss).__name__}"
    np.testing.assert_allclose(loss, full.item(), rtol=1e-12, err_msg="mean loss over all samples")
    for name, p in net.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), expected[name].numpy(), rtol=1e-10, atol=1e-14,
                                   err_msg=f"accumulated gradient of {name!r} vs one large batch")


def test_accumulation_adds_to_existing_gradients_and_refuses_no_samples():
    w = al.tensor([1.0, 2.0], requires_grad=True)
    w.grad = al.tensor([10.0, 10.0])
    optim.accumulate_gradients(lambda a, b: (w * a).sum(1).mean(), [(al.ones(2, 2), None)])
    assert w.grad.tolist() == [11.0, 11.0], f"expected [11, 11] (10 + 1), saw {w.grad.tolist()}"
    w.grad = None
    loss = optim.accumulate_gradients(lambda a, b: (w * a).sum(1).mean(),
                                      [(al.ones(3, 2), None), (al.ones(0, 2), None)])
    assert loss == 3.0 and w.grad.tolist() == [1.0, 1.0], \
        f"an empty micro-batch adds nothing: expected loss 3.0 and grad [1, 1], saw {loss}, {w.grad}"
    with pytest.raises(ValueError, match="at least one sample"):
        optim.accumulate_gradients(lambda a, b: a.sum(), [])
