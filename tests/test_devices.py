"""Devices, as PyTorch without a GPU: ``device``, ``cuda``, ``set_default_device``,
``Tensor.to``/``cpu``, ``Module.to``/``cpu``, ``new_zeros`` and kin (differential)."""

import pytest

from conftest import requires_torch
from differential import caught, registry, run

SCENARIOS, scenario = registry()


@scenario
def device_names(lib):
    d = lib.device
    return [repr(d("cpu")), str(d("cpu")), repr(d("cuda")), repr(d("cuda:1")), str(d("cuda", 1)),
            repr(d("cpu", 0)), d("cuda:1").index, d("cpu").type, d(d("cpu")) == d("cpu"),
            d("cpu") == "cpu", d("cpu") == d("cpu:0"), hash(d("cpu")) == hash(d("cpu")),
            d(type="cpu") == d("cpu")]


@scenario
def device_unknown_type(lib):
    lib.device("foo")


@scenario
def device_bad_index(lib):
    return [caught(lib.device, "cuda:x"), caught(lib.device, "cpu", -1), caught(lib.device, 3)]


@scenario
def cuda_is_not_available(lib):
    return [lib.cuda.is_available(), lib.cuda.device_count(), lib.cuda.is_initialized(),
            lib.cuda.manual_seed(0), lib.cuda.manual_seed_all(0), caught(lib.cuda.current_device),
            caught(lib.cuda.synchronize), lib.accelerator.is_available(),
            lib.accelerator.current_accelerator()]


@scenario
def the_usual_device_choice(lib):
    device = "cuda" if lib.cuda.is_available() else "cpu"
    x = lib.ones(2, 3, device=device)
    w = lib.ones(3, requires_grad=True, device=lib.device(device))
    return x.to(device) @ w.to(device), repr(x.device), str(x.device), x.is_cuda, x.is_cpu, \
        x.get_device(), x.device == lib.device("cpu")


@scenario
def factory_on_cuda(lib):
    return [caught(f) for f in (lambda: lib.zeros(2, device="cuda"),
                                lambda: lib.tensor([1.0], device="cuda:0"),
                                lambda: lib.randn(2, device=lib.device("cuda")),
                                lambda: lib.ones(2).to("cuda"), lambda: lib.ones(2).cuda(),
                                lambda: lib.ones(2).to(device="cuda", dtype=lib.float64),
                                lambda: lib.ones(2).new_zeros(2, device="cuda"),
                                lambda: lib.ones(2).to("xyz"))]


@scenario
def set_default_device_cpu_and_cuda(lib):
    lib.set_default_device("cpu")
    on_cpu = (lib.zeros(2), repr(lib.get_default_device()))
    lib.set_default_device("cuda")
    try:
        failures = [caught(lib.zeros, 1), caught(lib.get_default_device)]
    finally:
        lib.set_default_device(None)
    return on_cpu, failures, lib.ones(1), repr(lib.get_default_device())


@scenario
def tensor_to_forms(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    same = [x.to("cpu") is x, x.cpu() is x, x.to(lib.float32) is x, x.to(x) is x,
            x.to(lib.device("cpu")) is x, x.to() is x, x.to(device="cpu") is x,
            x.to(lib.float32, copy=True) is x, x.to("cpu", copy=True) is x]
    return same, x.to("cpu", lib.float64), x.to(lib.zeros(1, dtype=lib.float64)), \
        x.to(lib.float64, non_blocking=True), x.to("cpu", copy=True), x.to("cpu", lib.float64, True), \
        x.to(device="cpu", dtype=lib.float16), x.cpu(), x.half(), x.type(), x.type(lib.float64), \
        x.type("torch.DoubleTensor")


@scenario
def tensor_to_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.to("cpu", lib.float64) * x.to(lib.float64, copy=True) + x.cpu()
    y.sum().backward()
    return y, x.grad


@scenario
def module_to_and_cpu(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh(), lib.nn.Linear(2, 1))
    weight = model[0].weight
    model(lib.ones(4, 3)).sum().backward()
    same = [model.to("cpu") is model, model.cpu() is model, model.to(lib.device("cpu")) is model]
    model.to(lib.float64)
    moved = [model[0].weight is weight, weight.dtype, weight.grad.dtype, model[2].bias.dtype,
             isinstance(weight, lib.nn.Parameter), weight.requires_grad, weight.is_leaf]
    model.float()
    back = [weight.dtype, weight.grad.dtype]
    model.double()
    return same, moved, back, model[2].bias.dtype, model(lib.ones(1, 3, dtype=lib.float64)).dtype


@scenario
def module_to_refuses(lib):
    model = lib.nn.Linear(2, 2)
    return [caught(model.to, lib.int64), caught(model.cuda), caught(model.to, "cuda"),
            caught(model.cuda, 0)]


@scenario
def new_factories(lib):
    x = lib.zeros(2, 3, dtype=lib.float64)
    i = lib.zeros(2, dtype=lib.int32)
    return [x.new_zeros(2, 3), x.new_zeros([2, 3]), x.new_zeros((3,), dtype=lib.int64),
            x.new_ones(2, requires_grad=True), x.new_full((2,), 3), x.new_full([1, 2], 1.5),
            x.new_tensor([1, 2]), x.new_tensor([1, 2], dtype=lib.int32), i.new_tensor([1.5]),
            i.new_zeros(2), lib.zeros(2, dtype=lib.int64).new_full((2,), 1.5),
            x.new_full((2,), 1.5, requires_grad=True), x.new_empty(2).shape,
            lib.zeros(2, requires_grad=True).new_tensor([1.0])]


@scenario
def new_full_needs_a_tuple(lib):
    lib.zeros(2).new_full(2, 1.5)


@scenario
def new_tensor_from_a_tensor_warns(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return x.new_tensor(x)


@scenario
def generator_seeds(lib):
    g = lib.Generator().manual_seed(3)
    return isinstance(g, lib.Generator), g.initial_seed(), lib.manual_seed(5).initial_seed(), \
        lib.initial_seed(), sorted(lib.randperm(6, generator=g).tolist()), lib.randperm(4).dtype, \
        lib.randperm(3, dtype=lib.float32).dtype


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
