"""Devices, as PyTorch without a GPU: ``device``, ``cuda``, ``set_default_device``,
``Tensor.to``/``cpu``, ``Module.to``/``cpu``, ``new_zeros`` and kin (differential)."""

import numpy as np
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


# ------------------------------------------------ legacy typed constructors

_TYPED = ("FloatTensor", "DoubleTensor", "HalfTensor", "IntTensor", "LongTensor", "BoolTensor")


@scenario
def legacy_typed_constructors(lib):
    made = []
    for name in _TYPED:
        T = getattr(lib, name)
        made += [T([1, 0, 2]), T((2, 3)), T([[1.5, -2.7]]), T(np.array([1.9, 0.0])), T([]), T().shape,
                 T(2, 3).shape, T(lib.Size([4])).shape, T(np.int64(2)).shape, T(2, device="cpu").shape]
    return made


@scenario
def legacy_typed_isinstance_and_type(lib):
    x, i = lib.tensor([1.0, 2.0]), lib.tensor([1, 2])
    checks = [(name, isinstance(t, getattr(lib, name))) for name in _TYPED + ("ByteTensor", "ShortTensor")
              for t in (x, i, x.double(), x.bool(), i.int(), x.half())]
    return (checks, isinstance(3, lib.FloatTensor), issubclass(lib.FloatTensor, lib.Tensor),
            repr(lib.LongTensor), lib.LongTensor.__name__, lib.FloatTensor.dtype, lib.FloatTensor.is_cuda,
            x.type(lib.DoubleTensor), i.type(lib.FloatTensor), x.type())


@scenario
def legacy_typed_from_a_tensor_and_refusals(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    same = lib.FloatTensor(x * 2)
    same.sum().backward()
    alias = lib.FloatTensor(x)
    return (same, x.grad, alias, alias.data_ptr() == x.data_ptr(), alias is x,
            caught(lib.FloatTensor, lib.tensor([1, 2])), caught(lib.FloatTensor, [1.0], requires_grad=True),
            caught(lib.FloatTensor, "a"), caught(lib.FloatTensor, 2.5), caught(lib.FloatTensor, 2, 3.0),
            caught(lib.FloatTensor, -1), caught(lib.FloatTensor, 2, device="cuda"), caught(lib.LongTensor, None))


# ------------------------------------------------ backends

@scenario
def backends_on_a_machine_without_a_gpu(lib):
    B = lib.backends
    before = (B.cudnn.benchmark, B.cudnn.deterministic, B.cudnn.enabled, B.cuda.matmul.allow_tf32)
    B.cudnn.benchmark, B.cudnn.deterministic, B.cuda.matmul.allow_tf32 = True, True, True
    after = (B.cudnn.benchmark, B.cudnn.deterministic, B.cuda.matmul.allow_tf32)
    B.cudnn.benchmark, B.cudnn.deterministic, B.cuda.matmul.allow_tf32 = before[0], before[1], before[3]
    with B.cudnn.flags(enabled=False):
        inside = B.cudnn.enabled
    device = "mps" if B.mps.is_available() else "cuda" if lib.cuda.is_available() else "cpu"
    return (B.mps.is_available(), B.mps.is_built(), B.cuda.is_built(), B.cudnn.is_available(),
            B.cudnn.version(), B.cudnn.allow_tf32, before, after, inside, B.cudnn.enabled, device,
            caught(lambda: B.cuda.matmul.no_such_switch), caught(lambda: B.mps.no_such_name))


@scenario
def pinned_memory_without_an_accelerator(lib):
    x = lib.ones(2)
    loader = lib.utils.data.DataLoader(list(range(4)), batch_size=2, pin_memory=True)
    return caught(x.pin_memory), x.is_pinned(), list(loader)


def test_out_of_scope_typed_classes_and_backends_say_so():
    """The typed classes of dtypes the library does not have, and PyTorch's other backends,
    exist as names and refuse with PyTorch's exception class and a sentence that says why."""
    import autograd_lib as ag
    for name, missing in (("ByteTensor", "uint8"), ("CharTensor", "int8"), ("ShortTensor", "int16"),
                          ("BFloat16Tensor", "bfloat16")):
        T = getattr(ag, name)
        assert not isinstance(ag.tensor([1]), T), f"isinstance(an int64 tensor, {name}) should be False"
        with pytest.raises(TypeError, match=f"{name} not available: autograd_lib has no {missing} dtype"):
            T([1, 2])
    for name in ("mkldnn", "openmp", "quantized"):
        with pytest.raises(AttributeError, match=f"PyTorch's {name} backend belongs to its own kernels"):
            getattr(ag.backends, name)


def test_backends_import_by_name_under_as_torch():
    """``import torch.backends.cudnn as cudnn`` (a line of pytorch/examples) gives our module."""
    import sys
    import subprocess
    code = ("from autograd_lib import as_torch; as_torch.install()\n"
            "import torch.backends.cudnn as cudnn, torch.backends.mps\n"
            "cudnn.benchmark = True\n"
            "print(cudnn.__name__, cudnn.benchmark, torch.backends.mps.is_available())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["autograd_lib.backends.cudnn", "True", "False"], out


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
