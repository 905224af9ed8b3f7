"""Tests of ``autograd_lib.nn``: Parameter, Module, layers, losses, containers, init.

Tests that compare with PyTorch call :func:`oracle`, which skips them when
torch is not installed; the others run everywhere.
"""

import copy
import math
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import autograd_lib as al
from autograd_lib import nn
from autograd_lib.nn import functional as F


def oracle():
    """The torch module (PyTorch is only the oracle of these tests)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")
    torch.set_num_threads(1)                 # tiny tensors: threads would only add overhead
    return torch


def as_torch(torch, t):
    """A torch tensor with the values (a copy) and requires_grad of ``t``."""
    out = torch.from_numpy(np.array(t.detach()._data, copy=True))
    return out.requires_grad_(t.requires_grad)


def values(t):
    """The values of a tensor of either library, as a NumPy array."""
    return np.asarray(t.detach().numpy())


def ours(message):
    """A torch message as autograd_lib words it."""
    return message.replace("torch.", "autograd_lib.")


def graph(grad_fn):
    """The backward graph below ``grad_fn`` as nested ``(name, (children...))``."""
    if grad_fn is None:
        return None
    name = grad_fn.name().replace("torch::autograd::", "")
    return name, tuple(graph(node) for node, _ in grad_fn.next_functions)


def mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


# ====================================================================== Parameter

def test_parameter_is_a_leaf_sharing_storage_and_version_with_its_data():
    data = al.ones(3)
    p = nn.Parameter(data)
    assert isinstance(p, al.Tensor) and type(p) is nn.Parameter
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    data.add_(1)                                       # seen through the parameter
    assert p.tolist() == [2.0, 2.0, 2.0]
    assert p._version == data._version == 1


def test_parameter_from_a_computed_tensor_is_a_leaf():
    x = al.ones(2, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_parameter_arguments():
    assert nn.Parameter().shape == (0,)
    assert not nn.Parameter(al.zeros(2), requires_grad=False).requires_grad
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        nn.Parameter([1.0, 2.0])


def test_operations_on_a_parameter_give_plain_tensors():
    p = nn.Parameter(al.ones(2))
    for result in (p * 2, p + p, p.exp(), p.detach(), p.data, p.sum(), p[0]):
        assert type(result) is al.Tensor


def test_parameter_deepcopy_has_its_own_storage():
    p = nn.Parameter(al.tensor([1.0, 2.0]))
    p.note = "first layer"                             # a Parameter may carry attributes
    clone = copy.deepcopy(p)
    assert type(clone) is nn.Parameter and clone.note == "first layer" and clone.requires_grad
    clone.data.add_(1)
    assert p.tolist() == [1.0, 2.0]


def test_parameter_survives_pickle():
    restored = pickle.loads(pickle.dumps(nn.Parameter(al.tensor([1.0, 2.0]))))
    assert type(restored) is nn.Parameter and restored.requires_grad
    assert restored.tolist() == [1.0, 2.0]


def test_deepcopy_of_a_model_is_independent():
    net = mlp()
    snapshot = copy.deepcopy(net)                      # e.g. keeping the best model so far
    with al.no_grad():
        net[0].weight.add_(1)
    assert not al.equal(snapshot[0].weight, net[0].weight)
    assert type(snapshot[0].weight) is nn.Parameter


@pytest.mark.parametrize("data, requires_grad", [
    ([1.0, 2.5], True),
    ([[1.0, -2.0], [3.0, 4.0]], True),
    ([0.5, 1.5], False),
    ([], True),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_parameter_repr_matches_torch(data, requires_grad, dtype):
    torch = oracle()
    theirs = torch.nn.Parameter(torch.tensor(data, dtype=getattr(torch, dtype)), requires_grad)
    mine = nn.Parameter(al.tensor(data, dtype=dtype), requires_grad)
    assert repr(mine) == ours(repr(theirs))
    assert str(mine) == ours(str(theirs))


# ======================================================================== Module

class Block(nn.Module):
    """A module with a parameter, a buffer and two submodules, one shared."""

    def __init__(self, shared):
        super().__init__()
        self.scale = nn.Parameter(al.ones(1))
        self.register_buffer("steps", al.zeros(1))
        self.first = shared
        self.second = nn.Sequential(nn.Tanh(), shared)

    def forward(self, x):
        return self.second(self.first(x) * self.scale)


def test_setattr_registers_parameters_modules_and_buffers_in_order():
    shared = nn.Linear(2, 2)
    block = Block(shared)
    assert list(block._parameters) == ["scale"]
    assert list(block._modules) == ["first", "second"]
    assert list(block._buffers) == ["steps"]
    assert block.first is shared and block.scale is block._parameters["scale"]
    assert "scale" not in block.__dict__ and "first" not in block.__dict__
    block.plain = al.zeros(1)                          # a plain tensor is only an attribute
    assert "plain" in block.__dict__ and "plain" not in block._buffers


def test_parameters_are_found_recursively_and_shared_ones_once():
    shared = nn.Linear(2, 2)
    block = Block(shared)
    names = [name for name, _ in block.named_parameters()]
    assert names == ["scale", "first.weight", "first.bias"]
    assert len(list(block.parameters())) == 3
    assert [name for name, _ in block.named_parameters(prefix="model")] == [
        "model.scale", "model.first.weight", "model.first.bias"]
    assert [name for name, _ in block.named_parameters(recurse=False)] == ["scale"]
    assert [name for name, _ in block.named_buffers()] == ["steps"]
    assert [name for name, _ in block.named_modules()] == ["", "first", "second", "second.0"]
    assert [name for name, _ in block.named_children()] == ["first", "second"]
    assert list(block.children()) == [shared, block.second]
    assert len(list(block.modules())) == 4


def test_parameter_names_match_torch():
    torch = oracle()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
            self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)])
            self.tied = self.body[0]

    class MyNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
            self.heads = nn.ModuleList([nn.Linear(3, 1), nn.Linear(3, 1)])
            self.tied = self.body[0]

    theirs, mine = Net(), MyNet()
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert list(mine.state_dict()) == list(theirs.state_dict())


def test_registration_errors():
    layer = nn.Linear(2, 3)
    with pytest.raises(TypeError) as error:
        layer.weight = al.zeros(3, 2)
    assert str(error.value) == ("cannot assign 'autograd_lib.FloatTensor' as parameter 'weight' "
                                "(autograd_lib.nn.Parameter or None expected)")
    with pytest.raises(TypeError, match="object to parameter 'w' "):
        layer.register_parameter("w", al.zeros(2))
    with pytest.raises(KeyError) as error:
        layer.register_parameter("a.b", None)
    assert error.value.args[0] == 'parameter name can\'t contain "."'

    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        layer.register_parameter("forward", None)
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        layer.add_module("x", 3)
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'missing'"):
        layer.missing

    class Forgetful(nn.Module):
        def __init__(self):
            self.layer = nn.Linear(1, 1)               # no super().__init__()

    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__\(\)"):
        Forgetful()


def test_registration_error_messages_match_torch():
    torch = oracle()
    for lib, module in ((torch, torch.nn), (al, nn)):
        layer = module.Linear(2, 3)
        errors = []
        for action in (lambda: setattr(layer, "weight", lib.zeros(3, 2)),
                       lambda: layer.register_parameter("w", lib.zeros(2)),
                       lambda: module.Module()(1),
                       lambda: module.Sequential()[0],
                       lambda: layer.train("yes")):
            with pytest.raises(Exception) as error:
                action()
            errors.append((type(error.value), ours(str(error.value))))
        if lib is torch:
            expected = errors
    assert errors == expected


def test_assigning_none_and_deleting():
    layer = nn.Linear(2, 3)
    layer.bias = None                                  # "this layer has no bias"
    assert layer.bias is None and "bias" in layer._parameters
    assert [name for name, _ in layer.named_parameters()] == ["weight"]
    del layer.weight
    assert "weight" not in layer._parameters
    layer.weight = nn.Parameter(al.zeros(3, 2))
    assert list(layer._parameters) == ["bias", "weight"]


def test_call_runs_forward_and_forward_is_required():
    block = Block(nn.Linear(2, 2))
    x = al.randn(5, 2)
    assert al.equal(block(x), block.forward(x))
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required '
                                                  '"forward" function'):
        nn.Module()(x)


def test_zero_grad_set_to_none_and_zeroing_in_place():
    model = mlp()
    model(al.randn(5, 4)).sum().backward()
    grads = {name: p.grad for name, p in model.named_parameters()}
    model.zero_grad(set_to_none=False)
    for name, p in model.named_parameters():
        assert p.grad is grads[name]                   # the same tensor object, now zeros
        assert not p.grad._data.any()
    model.zero_grad()                                  # set_to_none=True is the default
    assert all(p.grad is None for p in model.parameters())


def test_train_and_eval_propagate_to_every_submodule():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 1)))
    assert all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    model[1].train(False)
    assert [m.training for m in model.modules()] == [True, True, False, False, False]
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        model.train("no")


def test_requires_grad_and_apply():
    model = mlp()
    assert model.requires_grad_(False) is model
    assert not any(p.requires_grad for p in model.parameters())
    visited = []
    model.apply(lambda m: visited.append(type(m).__name__))
    assert visited == ["Linear", "ReLU", "Linear", "Sequential"]   # children first


def test_state_dict_round_trip():
    al.manual_seed(0)
    source, target = mlp(), mlp()
    state = source.state_dict()
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(not t.requires_grad for t in state.values())
    # Like PyTorch, the values share storage with the model (copy them to keep a snapshot).
    assert np.shares_memory(state["0.weight"]._data, source[0].weight._data)
    weight = target[0].weight
    version = weight._version
    result = target.load_state_dict(state)
    assert repr(result) == "<All keys matched successfully>"
    assert target[0].weight is weight and weight._version == version + 1    # copied in place
    for (name, a), (_, b) in zip(source.named_parameters(), target.named_parameters()):
        assert al.equal(a, b), name
        assert not np.shares_memory(a._data, b._data), name
    x = al.randn(3, 4)
    assert al.equal(source(x), target(x))


def test_state_dict_keeps_persistent_buffers_only():
    block = Block(nn.Linear(2, 2))
    block.register_buffer("cache", al.zeros(2), persistent=False)
    assert list(block.state_dict()) == ["scale", "steps", "first.weight", "first.bias",
                                        "second.1.weight", "second.1.bias"]


def test_load_state_dict_strict_errors():
    layer = nn.Linear(2, 3)
    bad = {"weight": al.zeros(3, 3), "extra": al.zeros(1)}
    with pytest.raises(RuntimeError) as error:
        layer.load_state_dict(bad)
    assert str(error.value) == (
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
        '\n\tUnexpected key(s) in state_dict: "extra". \n\tsize mismatch for weight: copying a '
        "param with shape autograd_lib.Size([3, 3]) from checkpoint, the shape in current model "
        "is autograd_lib.Size([3, 2]).")
    result = layer.load_state_dict({"weight": al.ones(3, 2), "extra": al.zeros(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    assert layer.weight.tolist() == [[1.0, 1.0]] * 3


def test_load_state_dict_errors_match_torch():
    torch = oracle()
    messages = []
    for lib, module in ((torch, torch.nn), (al, nn)):
        layer = module.Linear(2, 3)
        for state in ({"weight": lib.zeros(3, 3), "extra": lib.zeros(1)},
                      {"weight": lib.zeros(3, 2), "bias": 3}):
            with pytest.raises(RuntimeError) as error:
                layer.load_state_dict(state)
            messages.append(ours(str(error.value)))
        messages.append(repr(layer.load_state_dict({"weight": lib.zeros(3, 2)}, strict=False)))
    assert messages[:3] == messages[3:]


# ========================================================================= repr

def test_module_reprs_match_torch():
    torch = oracle()

    def build(module):
        return module.Sequential(
            module.Linear(2, 3), module.ReLU(),
            module.Sequential(module.Tanh(), module.Softmax(dim=1), module.LogSoftmax(dim=-1)),
            module.Flatten(), module.Identity(), module.Sigmoid(),
            module.MSELoss(), module.CrossEntropyLoss(), module.NLLLoss(),
            module.ModuleList([module.ReLU(), module.ReLU(), module.Tanh(), module.ReLU()]),
            module.Linear(2, 3, bias=False), module.ModuleList())

    assert repr(build(nn)) == repr(build(torch.nn))
    assert repr(nn.Linear(4, 8)) == "Linear(in_features=4, out_features=8, bias=True)"


# ======================================================================= Linear

def test_linear_initialisation_bounds():
    al.manual_seed(0)
    layer = nn.Linear(20, 30)
    bound = 1 / math.sqrt(20)
    assert layer.weight.shape == (30, 20) and layer.bias.shape == (30,)
    for p in (layer.weight, layer.bias):
        assert type(p) is nn.Parameter and p.dtype is al.float32
        assert np.all(np.abs(p._data) <= np.float32(bound))
        assert len(np.unique(p._data)) > 1
        assert p._data.min() < -bound / 2 and p._data.max() > bound / 2    # spread over the range
    al.manual_seed(0)
    assert al.equal(nn.Linear(20, 30).weight, layer.weight)               # seeded generator
    assert nn.Linear(2, 3, dtype=al.float64).weight.dtype is al.float64
    assert nn.Linear(2, 3, bias=False).bias is None


CASES = {                      # input shape, input requires grad, view applied to it
    "1-D input": ((4,), True, lambda x: x),
    "2-D input": ((5, 4), True, lambda x: x),
    "2-D constant input": ((5, 4), False, lambda x: x),
    "3-D input": ((2, 5, 4), True, lambda x: x),
    "4-D input": ((3, 2, 5, 4), True, lambda x: x),
    "non-contiguous 1-D input": ((8,), True, lambda x: x[::2]),
    "non-contiguous 3-D input": ((2, 4, 5), True, lambda x: x.transpose(1, 2)),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_linear_records_the_graph_of_torch(case, bias):
    torch = oracle()
    shape, requires_grad, view = CASES[case]
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    layer = nn.Linear(4, 3, bias=bias)
    theirs = torch.nn.Linear(4, 3, bias=bias)
    theirs.load_state_dict({k: as_torch(torch, v) for k, v in layer.state_dict().items()})
    x = al.tensor(data, requires_grad=requires_grad)
    tx = torch.tensor(data, requires_grad=requires_grad)
    out, expected = layer(view(x)), theirs(view(tx))
    assert graph(out.grad_fn) == graph(expected.grad_fn)
    np.testing.assert_allclose(values(out), values(expected), rtol=1e-6, atol=1e-6)
    out.sum().backward()
    expected.sum().backward()
    for (name, p), (_, q) in zip(layer.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(values(p.grad), values(q.grad), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case}: gradient of {name}")
    if requires_grad:
        np.testing.assert_allclose(values(x.grad), values(tx.grad), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case}: gradient of the input")


def test_linear_needs_at_least_one_dim():
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D, "
                                           "but they are 0D and 2D"):
        F.linear(al.tensor(1.0), al.randn(2, 3))


# ========================================================= activations and losses

@pytest.mark.parametrize("name, args", [("ReLU", ()), ("Tanh", ()), ("Sigmoid", ()),
                                        ("Softmax", (1,)), ("LogSoftmax", (0,)),
                                        ("Flatten", ()), ("Flatten", (0, 1)), ("Identity", ())])
def test_activation_layers_match_torch(name, args):
    torch = oracle()
    x = al.randn(3, 2, 4, requires_grad=True)
    tx = as_torch(torch, x)
    out, expected = getattr(nn, name)(*args)(x), getattr(torch.nn, name)(*args)(tx)
    np.testing.assert_allclose(values(out), values(expected), rtol=1e-6, atol=1e-7)
    assert graph(out.grad_fn) == graph(expected.grad_fn)


def test_softmax_without_dim_warns_like_torch():
    torch = oracle()
    messages = []
    for lib, functional in ((torch, torch.nn.functional), (al, F)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = functional.softmax(lib.ones(2, 3))
        assert out.shape == (2, 3) and abs(out.sum().item() - 2.0) < 1e-6   # along dim 1
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1]


LOSS_CASES = [
    ("MSELoss", {}, "regression"),
    ("MSELoss", {"reduction": "sum"}, "regression"),
    ("MSELoss", {"reduction": "none"}, "regression"),
    ("CrossEntropyLoss", {}, "classes"),
    ("CrossEntropyLoss", {"reduction": "sum"}, "classes"),
    ("CrossEntropyLoss", {"reduction": "none"}, "classes"),
    ("CrossEntropyLoss", {"ignore_index": 1}, "classes"),
    ("CrossEntropyLoss", {"weight": [0.2, 1.0, 3.0]}, "classes"),
    ("CrossEntropyLoss", {}, "probabilities"),
    ("CrossEntropyLoss", {"reduction": "none"}, "probabilities"),
    ("CrossEntropyLoss", {"weight": [0.2, 1.0, 3.0]}, "probabilities"),
    ("CrossEntropyLoss", {}, "one sample"),
    ("NLLLoss", {}, "log-probabilities"),
    ("NLLLoss", {"weight": [0.2, 1.0, 3.0], "reduction": "sum"}, "log-probabilities"),
    ("CrossEntropyLoss", {"label_smoothing": 0.2}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "weight": [0.2, 1.0, 3.0], "ignore_index": 1}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.3, "reduction": "none"}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.2, "weight": [0.2, 1.0, 3.0]}, "probabilities"),
]


@pytest.mark.parametrize("name, options, data", LOSS_CASES)
def test_losses_match_torch(name, options, data):
    torch = oracle()
    rng = np.random.default_rng(3)
    scores = rng.standard_normal((6, 3)).astype(np.float32)
    targets = {
        "regression": rng.standard_normal((6, 3)).astype(np.float32),
        "classes": np.array([0, 1, 2, 1, 1, 0]),
        "probabilities": rng.dirichlet(np.ones(3), 6).astype(np.float32),
        "one sample": np.array(2),
        "log-probabilities": np.array([0, 1, 2, 1, 1, 0]),
    }
    target = targets[data]
    if data == "one sample":
        scores = scores[0]
    if data == "log-probabilities":
        scores = scores - np.log(np.exp(scores).sum(1, keepdims=True))
    results = []
    for lib, module in ((al, nn), (torch, torch.nn)):
        kwargs = {k: lib.tensor(v) if k == "weight" else v for k, v in options.items()}
        x = lib.tensor(scores, requires_grad=True)
        loss = getattr(module, name)(**kwargs)(x, lib.tensor(target))
        loss.sum().backward()
        results.append((loss, x.grad))
    (loss, grad), (expected, expected_grad) = results
    np.testing.assert_allclose(values(loss), values(expected), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values(grad), values(expected_grad), rtol=1e-5, atol=1e-6)
    if data in ("classes", "log-probabilities"):
        assert graph(loss.grad_fn) == graph(expected.grad_fn)


def test_cross_entropy_options_that_are_refused():
    nn.CrossEntropyLoss(label_smoothing=1.5)            # as PyTorch: checked when the loss is computed
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(al.randn(2, 3), al.tensor([0, 1]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="Expected floating point type for target with class "
                                           "probabilities, got Long"):
        F.cross_entropy(al.randn(2, 3), al.zeros(2, 3, dtype=al.int64))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point"):
        F.cross_entropy(al.randn(2, 3), al.rand(2, 3), ignore_index=1)
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        F.cross_entropy(al.randn(2, 3), al.rand(2))


def test_mse_loss_warns_about_broadcasting_like_torch():
    torch = oracle()
    messages = []
    for lib, functional in ((torch, torch.nn.functional), (al, F)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            functional.mse_loss(lib.zeros(3, 1), lib.zeros(3))
        messages.append([ours(str(w.message)) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_gradient_accumulation_equals_the_large_batch_gradient():
    al.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    loss_fn = nn.CrossEntropyLoss()
    x, y = al.randn(32, 4), al.randint(0, 3, (32,))
    loss_fn(model(x), y).backward()
    big_batch = {name: p.grad for name, p in model.named_parameters()}
    model.zero_grad()
    for start in range(0, 32, 8):                       # 4 micro-batches of 8
        micro_loss = loss_fn(model(x[start:start + 8]), y[start:start + 8]) / 4
        micro_loss.backward()                           # .grad accumulates
    for name, p in model.named_parameters():
        assert al.allclose(p.grad, big_batch[name], rtol=1e-5, atol=1e-7), name


# =================================================================== containers

def test_sequential_indexing_and_editing():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b)
    assert len(seq) == 2 and list(seq) == [a, b]
    assert seq[0] is a and seq[-1] is b
    assert seq.append(c) is seq and seq[2] is c
    part = seq[1:]
    assert type(part) is nn.Sequential and list(part._modules) == ["1", "2"]
    seq[1] = nn.Tanh()
    assert type(seq[1]) is nn.Tanh
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[1] is c
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    named = nn.Sequential(OrderedDict([("hidden", a), ("act", b)]))
    assert [name for name, _ in named.named_parameters()] == ["hidden.weight", "hidden.bias"]
    x = al.randn(4, 2)
    assert al.equal(named(x), b(a(x)))


def test_module_list_registers_its_modules():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
    layers.append(nn.Linear(2, 1))
    layers.extend([nn.ReLU()])
    assert len(layers) == 4 and type(layers[-1]) is nn.ReLU
    assert [n for n, _ in layers.named_parameters()] == [
        "0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"]
    assert type(layers[:2]) is nn.ModuleList and len(layers[:2]) == 2
    with pytest.raises(NotImplementedError, match="Module \\[ModuleList\\] is missing"):
        layers(al.zeros(2))
    with pytest.raises(TypeError, match="should be called with an iterable"):
        layers.extend(nn.ReLU())


# ========================================================================= init

def test_init_functions():
    al.manual_seed(0)
    w = nn.Parameter(al.empty(300, 200))
    assert nn.init.kaiming_uniform_(w, a=math.sqrt(5)) is w and w.requires_grad
    assert np.abs(w._data).max() <= 1 / math.sqrt(200)
    nn.init.xavier_uniform_(w)
    assert np.abs(w._data).max() <= math.sqrt(6 / 500)
    nn.init.normal_(w, mean=1.0, std=0.1)
    assert abs(w._data.mean() - 1.0) < 0.01 and abs(w._data.std() - 0.1) < 0.01
    assert nn.init.zeros_(w).sum().item() == 0 and nn.init.ones_(w).sum().item() == 60000
    assert nn.init.calculate_gain("relu") == math.sqrt(2)
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.kaiming_uniform_(al.zeros(3))
