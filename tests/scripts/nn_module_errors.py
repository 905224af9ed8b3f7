"""nn.Module's refusals and walks: state_dict loading with strict=True (missing, unexpected and
mis-sized entries), registration errors for parameters, buffers and submodules, attribute
deletion, get_submodule/get_parameter/get_buffer errors, named_modules with shared modules,
apply, zero_grad, train/eval through a tree, and nn.init's deterministic schemes and errors."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

import numpy as np

nn = torch.nn


def attempt(label, fn):
    """Run ``fn``; print its result, or the exception's class and its message's lines."""
    try:
        result = fn()
    except Exception as error:              # noqa: BLE001 - what is raised is what we print
        print(label, type(error).__name__ + ":", " | ".join(line.strip() for line in str(error).strip().splitlines()))
    else:
        print(label, result)


def fixed(module):
    """Every parameter set to a fixed pattern (no random numbers)."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1), dtype=torch.float32))
    return module


shared = nn.Linear(2, 2)
model = fixed(nn.Sequential(nn.Linear(3, 2), nn.ReLU(), shared, nn.Sequential(shared, nn.Dropout(0.5)),
                            nn.BatchNorm1d(2)))
print("== walks")
print("named_modules:", [name for name, _ in model.named_modules()])
print("with duplicates:", [name for name, _ in model.named_modules(remove_duplicate=False)])
print("prefix:", [name for name, _ in model.named_modules(prefix="net")][:3])
print("children:", [type(m).__name__ for m in model.children()], [n for n, _ in model.named_children()])
print("parameters:", [n for n, _ in model.named_parameters()])
print("parameters, duplicates:", [n for n, _ in model.named_parameters(remove_duplicate=False)])
print("non-recursive:", [n for n, _ in model[4].named_parameters(recurse=False)],
      [n for n, _ in model.named_buffers()])
print("state_dict keys:", list(model.state_dict()))
seen = []
print("apply returns self:", model.apply(lambda m: seen.append(type(m).__name__)) is model, seen)
model.eval()
print("eval:", [m.training for m in model.modules()])
model[3].train()
print("train one branch:", [m.training for m in model.modules()])
model.train(False)
attempt("train('yes'):", lambda: model.train("yes"))

print("== zero_grad")
model.train()
out = model(torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]) * 0.1)
out.sum().backward()
print("grads set:", [p.grad is not None for p in model.parameters()])
model.zero_grad(set_to_none=False)
print("zeroed:", [p.grad.abs().sum().item() for p in model.parameters()])
model.zero_grad()
print("to None:", [p.grad for p in model.parameters()])

print("== load_state_dict")
state = model.state_dict()
other = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2), nn.Dropout()),
                      nn.BatchNorm1d(2))
print("loaded:", other.load_state_dict(state))
print("same:", all(torch.equal(a, b) for a, b in zip(other.state_dict().values(), state.values())))
missing = {k: v for k, v in state.items() if not k.startswith("4.")}
attempt("missing:", lambda: other.load_state_dict(missing))
attempt("unexpected:", lambda: other.load_state_dict({**state, "5.weight": torch.ones(1), "extra": torch.ones(1)}))
attempt("size mismatch:", lambda: other.load_state_dict({**state, "0.weight": torch.ones(3, 3)}))
attempt("all three:", lambda: other.load_state_dict({**missing, "0.bias": torch.ones(5), "zz": torch.ones(1)}))
result = other.load_state_dict({**missing, "zz": torch.ones(1)}, strict=False)
print("strict=False:", result.missing_keys, result.unexpected_keys)
attempt("strict=False size mismatch:", lambda: other.load_state_dict({"0.bias": torch.ones(5)}, strict=False))
attempt("not a mapping:", lambda: other.load_state_dict([1, 2]))
print("dtype converted:", other.load_state_dict({**state, "0.bias": torch.tensor([1.0, 2.0], dtype=torch.float64)}),
      other[0].bias.dtype, other[0].bias.tolist())

print("== registration")
m = nn.Module()
attempt("parameter not a Parameter:", lambda: m.register_parameter("w", torch.ones(2)))
attempt("parameter name with dot:", lambda: m.register_parameter("a.b", nn.Parameter(torch.ones(2))))
attempt("parameter empty name:", lambda: m.register_parameter("", nn.Parameter(torch.ones(2))))
attempt("parameter name not str:", lambda: m.register_parameter(3, nn.Parameter(torch.ones(2))))
m.existing = 5
attempt("parameter over an attribute:", lambda: m.register_parameter("existing", nn.Parameter(torch.ones(2))))
attempt("buffer not a tensor:", lambda: m.register_buffer("b", [1, 2]))
attempt("buffer name with dot:", lambda: m.register_buffer("a.b", torch.ones(2)))
m.register_buffer("b", torch.ones(2), persistent=False)
m.register_parameter("p", None)
print("buffers:", [n for n, _ in m.named_buffers()], list(m.state_dict()), m.p)
attempt("buffer over a parameter:", lambda: m.register_buffer("p", torch.ones(2)))
attempt("module not a Module:", lambda: m.add_module("sub", torch.ones(2)))
attempt("module name with dot:", lambda: m.add_module("a.b", nn.ReLU()))
attempt("module over an attribute:", lambda: m.add_module("existing", nn.ReLU()))
attempt("assign a tensor to a parameter:", lambda: setattr(m, "p", torch.ones(2)))
m.p = nn.Parameter(torch.ones(3))
print("parameter assigned:", [n for n, _ in m.named_parameters()])
attempt("assign a tensor to a module name:", lambda: (m.add_module("sub", nn.ReLU()), setattr(m, "sub", torch.ones(1))))
del m.p
print("deleted:", [n for n, _ in m.named_parameters()], hasattr(m, "p"))
attempt("delete missing:", lambda: delattr(m, "nothing"))
attempt("get missing attribute:", lambda: m.nothing)
attempt("get_submodule:", lambda: model.get_submodule("3.5"))
attempt("get_submodule not a module:", lambda: model.get_submodule("0.weight"))
attempt("get_parameter:", lambda: model.get_parameter("0.gamma"))
attempt("get_parameter of a buffer:", lambda: model.get_parameter("4.running_mean"))
attempt("get_buffer:", lambda: model.get_buffer("4.weight"))
print("get_buffer:", model.get_buffer("4.num_batches_tracked"))

print("== nn.init")
w = torch.empty(3, 5)
print("constant_:", nn.init.constant_(w, 0.3)[0].tolist(), nn.init.ones_(w)[1].tolist(), nn.init.zeros_(w).sum().item())
print("eye_:", nn.init.eye_(torch.empty(2, 4)).tolist())
print("dirac_:", nn.init.dirac_(torch.empty(2, 3, 3)).flatten().tolist())
print("dirac_ groups:", nn.init.dirac_(torch.empty(4, 2, 3), groups=2).sum(dim=(1, 2)).tolist())
for shape in [(4, 3), (5, 4, 3), (6, 2, 3, 3)]:
    print("fans", shape, nn.init._calculate_fan_in_and_fan_out(torch.empty(shape)))
for nonlinearity in ["linear", "conv2d", "sigmoid", "tanh", "relu", "selu"]:
    print("gain", nonlinearity, nn.init.calculate_gain(nonlinearity))
torch.manual_seed(0)
bound = 1 / np.sqrt(5)
print("kaiming_uniform_ within its bound:", bool((nn.init.kaiming_uniform_(torch.empty(40, 5), a=np.sqrt(5)).abs() <= bound).all()))
print("xavier_uniform_ within:", bool((nn.init.xavier_uniform_(torch.empty(30, 20), gain=2.0).abs() <= 2.0 * np.sqrt(6 / 50)).all()))
print("uniform_ within:", bool(((lambda t: (t >= -0.5) & (t < 0.25))(nn.init.uniform_(torch.empty(100), -0.5, 0.25))).all()))
print("trunc_normal_ within:", bool((nn.init.trunc_normal_(torch.empty(200), std=2.0, a=-1.0, b=1.0).abs() <= 1.0).all()))
q = nn.init.orthogonal_(torch.empty(3, 5))
print("orthogonal_ rows:", torch.allclose(q @ q.T, torch.eye(3), atol=1e-5))
sparse = nn.init.sparse_(torch.empty(10, 4), sparsity=0.3)
print("sparse_ zeros per column:", (sparse == 0).sum(0).tolist())
print("no grad recorded:", nn.init.normal_(nn.Parameter(torch.empty(2))).grad_fn)
attempt("fans of a vector:", lambda: nn.init.xavier_uniform_(torch.empty(3)))
attempt("eye_ of 3-D:", lambda: nn.init.eye_(torch.empty(2, 2, 2)))
attempt("dirac_ of 2-D:", lambda: nn.init.dirac_(torch.empty(2, 2)))
attempt("dirac_ groups:", lambda: nn.init.dirac_(torch.empty(3, 2, 3), groups=2))
attempt("kaiming mode:", lambda: nn.init.kaiming_normal_(torch.empty(2, 2), mode="fan_avg"))
attempt("gain unknown:", lambda: nn.init.calculate_gain("swish"))
attempt("gain bad param:", lambda: nn.init.calculate_gain("leaky_relu", "x"))
attempt("orthogonal_ of a vector:", lambda: nn.init.orthogonal_(torch.empty(3)))
attempt("sparse_ of 3-D:", lambda: nn.init.sparse_(torch.empty(2, 2, 2), 0.5))
attempt("kaiming of empty:", lambda: nn.init.kaiming_uniform_(torch.empty(0, 3)))
