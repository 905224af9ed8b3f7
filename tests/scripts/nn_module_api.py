# The nn.Module API a training script leans on: hooks, state_dict, the walks over a
# model's tree, train/eval, containers, repr, nn.init and the common losses with
# their gradients.  Weights come from NumPy (fixed seed), never from torch.randn.
import collections

import numpy as np
import torch
nn = torch.nn
F = torch.nn.functional

rng = np.random.default_rng(0)


def tensor(shape, scale=1.0):
    return torch.tensor((rng.standard_normal(shape) * scale).astype(np.float32))


def set_weights(model):
    """Overwrite every parameter with NumPy values, in named_parameters() order."""
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.copy_(tensor(tuple(p.shape), 0.5))


def first_line(err):
    return str(err).splitlines()[0] if str(err) else ""


# ------------------------------------------------------------------ a small model
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.act = nn.Tanh()
        self.register_buffer("scale", torch.tensor([1.0, 2.0, 3.0]))
        self.register_buffer("tmp", torch.zeros(3), persistent=False)

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(4, 3)
        self.block = Block()
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(3, 2, bias=False))
        self.alpha = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        return self.head(self.block(self.inp(x))) * self.alpha


model = Net()
set_weights(model)
print(model)
print("state_dict keys:", list(model.state_dict().keys()))
print("param names:", [n for n, _ in model.named_parameters()])
print("buffer names:", [n for n, _ in model.named_buffers()])
print("buffer names prefixed:", [n for n, _ in model.named_buffers(prefix="net")])
print("module names:", [n for n, _ in model.named_modules()])
print("module names prefixed:", [n for n, _ in model.named_modules(prefix="m")])
print("children:", [n for n, _ in model.named_children()])
print("non-recursive params:", [n for n, _ in model.named_parameters(recurse=False)])
print("num params:", sum(p.numel() for p in model.parameters()))
print("num trainable:", sum(p.numel() for p in model.parameters() if p.requires_grad))
print("block types:", [type(m).__name__ for m in model.modules()])

x = torch.tensor(np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(2, 4))
y = model(x)
print("forward:", y)

# ----------------------------------------------------------------------- hooks
calls = []


def pre_hook(module, args):
    calls.append(("pre", type(module).__name__, tuple(a.shape for a in args)))


def double_input(module, args):
    return (args[0] * 2,)


def fwd_hook(module, args, output):
    calls.append(("fwd", type(module).__name__, tuple(output.shape)))


def add_one(module, args, output):
    return output + 1


h1 = model.inp.register_forward_pre_hook(pre_hook)
h2 = model.inp.register_forward_hook(fwd_hook)
out = model(x)
print("calls:", calls)
print("same output with observing hooks:", torch.equal(out, y))
h3 = model.inp.register_forward_pre_hook(double_input)
h4 = model.head.register_forward_hook(add_one)
print("with modifying hooks:", model(x))
for h in (h1, h2, h3, h4):
    h.remove()
calls.clear()
print("after remove:", torch.equal(model(x), y), calls)


def kw_pre_hook(module, args, kwargs):
    calls.append(("kwpre", sorted(kwargs)))
    return args, kwargs


def kw_fwd_hook(module, args, kwargs, output):
    calls.append(("kwfwd", sorted(kwargs)))


class Scaler(nn.Module):
    def forward(self, x, factor=1.0):
        return x * factor


s = Scaler()
hk1 = s.register_forward_pre_hook(kw_pre_hook, with_kwargs=True)
hk2 = s.register_forward_hook(kw_fwd_hook, with_kwargs=True)
print("kwargs hooks:", s(torch.tensor([1.0, 2.0]), factor=3.0), calls)
hk1.remove()
hk2.remove()

order = []
s.register_forward_hook(lambda m, a, o: order.append("first"))
s.register_forward_hook(lambda m, a, o: order.append("prepended"), prepend=True)
s(torch.tensor([1.0]))
print("hook order:", order)

# ------------------------------------------------------------------ state dict
sd = model.state_dict()
print("state_dict value requires_grad:", sd["inp.weight"].requires_grad)
print("keep_vars requires_grad:", model.state_dict(keep_vars=True)["inp.weight"].requires_grad)
other = Net()
print("load strict:", other.load_state_dict(sd))
print("loaded equal:", torch.equal(other(x), y))

missing = collections.OrderedDict((k, v) for k, v in sd.items() if k != "alpha")
try:
    other.load_state_dict(missing)
except Exception as err:
    print(type(err).__name__, first_line(err))
    print(str(err).splitlines()[1])
extra = collections.OrderedDict(sd)
extra["extra.weight"] = torch.zeros(1)
try:
    other.load_state_dict(extra)
except Exception as err:
    print(type(err).__name__, first_line(err))
    print(str(err).splitlines()[1])
result = other.load_state_dict(missing, strict=False)
print("strict=False:", result.missing_keys, result.unexpected_keys)
result = other.load_state_dict(extra, strict=False)
print("strict=False:", result)
bad = collections.OrderedDict(sd)
bad["inp.bias"] = torch.zeros(5)
try:
    other.load_state_dict(bad)
except Exception as err:
    print(type(err).__name__, first_line(err))
    print(str(err).splitlines()[1])

print("get_submodule:", model.get_submodule("block.fc"), model.get_submodule("") is model)
print("get_parameter:", model.get_parameter("alpha"), tuple(model.get_parameter("block.fc.bias").shape))
print("get_buffer:", model.get_buffer("block.scale"))
for getter, target in [("get_submodule", "block.nothing"), ("get_submodule", "alpha"),
                       ("get_parameter", "block.scale"), ("get_parameter", "block.fc.nothing"),
                       ("get_buffer", "inp.weight")]:
    try:
        getattr(model, getter)(target)
    except AttributeError as err:
        print("AttributeError", getter, err)
extra_mod = nn.Module()
extra_mod.register_module("lin", nn.Linear(1, 1))
print("register_module:", [n for n, _ in extra_mod.named_children()])

# -------------------------------------------------------- shared modules, dedup
shared = nn.Linear(2, 2)
tied = nn.Sequential(shared, nn.ReLU(), shared)
print("dedup modules:", [n for n, _ in tied.named_modules()])
print("all modules:", [n for n, _ in tied.named_modules(remove_duplicate=False)])
print("dedup params:", [n for n, _ in tied.named_parameters()])
print("all params:", [n for n, _ in tied.named_parameters(remove_duplicate=False)])
print("tied state_dict:", list(tied.state_dict().keys()))
print("tied children:", [n for n, _ in tied.named_children()])
print("tied num params:", len(list(tied.parameters())))

# --------------------------------------------------- train / eval / apply / grads
print("training:", model.training, model.block.fc.training)
model.eval()
print("after eval:", model.training, model.block.training, model.head[1].training)
print("train() returns self:", model.train() is model, model.head[0].training)
names = []
model.apply(lambda m: names.append(type(m).__name__))
print("apply order:", names)


def init_linear(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.1)
        if m.bias is not None:
            nn.init.zeros_(m.bias)


fresh = Net().apply(init_linear)
print("after apply init:", fresh.inp.weight[0], fresh.inp.bias)

loss = model(x).pow(2).sum()
loss.backward()
print("grad alpha:", model.alpha.grad)
print("grad inp.bias:", model.inp.bias.grad)
model.zero_grad()
print("after zero_grad:", model.alpha.grad, model.inp.weight.grad)
model(x).sum().backward()
model.zero_grad(set_to_none=False)
print("zero_grad(set_to_none=False):", model.alpha.grad, model.inp.bias.grad)
model.block.requires_grad_(False)
print("frozen:", [(n, p.requires_grad) for n, p in model.named_parameters()])
print("requires_grad_ returns self:", model.requires_grad_(True) is model)

# ------------------------------------------------------------------ containers
seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print("len:", len(seq), type(seq[0]).__name__, type(seq[-1]).__name__)
sub = seq[1:]
print("slice:", type(sub).__name__, len(sub), [n for n, _ in sub.named_children()])
print(sub)
seq.append(nn.Sigmoid())
print("after append:", len(seq), [type(m).__name__ for m in seq])
del seq[1]
print("after del:", [n for n, _ in seq.named_children()], [type(m).__name__ for m in seq])
seq[0] = nn.Linear(2, 3, bias=False)
print("after setitem:", seq[0])

seq.insert(1, nn.Tanh())
seq.insert(-1, nn.ReLU())
print("after insert:", [type(m).__name__ for m in seq])
seq.extend([nn.Identity()])
popped = seq.pop(0)
print("after extend/pop:", type(popped).__name__, [n for n, _ in seq.named_children()],
      [type(m).__name__ for m in seq])
try:
    seq.insert(10, nn.ReLU())
except IndexError as err:
    print("IndexError", err)
both = seq[:2] + nn.Sequential(nn.Sigmoid())
print("seq + seq:", [type(m).__name__ for m in both], len(both * 2), len(2 * both))
both += nn.Sequential(nn.ReLU())
print("seq += seq:", len(both))
try:
    both + nn.ModuleList([nn.ReLU()])
except ValueError as err:
    print("ValueError", str(err).split(", but")[0])     # then the class's module path
try:
    both * 0
except ValueError as err:
    print("ValueError", str(err).split(" for ")[0])

named = nn.Sequential(collections.OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
print(named)
print("named access:", type(named.enc).__name__, [n for n, _ in named.named_parameters()])

layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
print(layers)
layers.append(nn.ReLU())
layers.extend([nn.Tanh(), nn.Tanh()])
print("modulelist len:", len(layers), type(layers[-1]).__name__, type(layers[3]).__name__)
print("modulelist slice:", type(layers[1:3]).__name__, len(layers[1:3]))
print(layers)
layers.insert(1, nn.Sigmoid())
print("modulelist insert:", [type(m).__name__ for m in layers])
print("modulelist pop:", type(layers.pop(1)).__name__, len(layers))
layers += [nn.Identity()]
joined = layers[:2] + nn.ModuleList([nn.ReLU()])
print("modulelist +:", type(joined).__name__, [type(m).__name__ for m in joined], len(layers))
print("modulelist params:", [n for n, _ in layers.named_parameters()])
try:
    layers[10]
except IndexError as err:
    print("IndexError", err)

# ------------------------------------------------------------ attribute errors
try:
    model.nonexistent
except AttributeError as err:
    print("AttributeError", err)
try:
    model.inp.weight = torch.zeros(3, 4)
except TypeError as err:
    print("TypeError", err)
try:
    model.head = 3
except TypeError as err:
    print("TypeError", err)
model.block.scale = torch.tensor([3.0, 2.0, 1.0])
print("buffer reassigned:", model.block.scale, [n for n, _ in model.named_buffers()])
try:
    model.block.scale = 5
except TypeError:
    print("TypeError")          # PyTorch's message names nn.Buffer, which autograd_lib lacks
model.note = "hello"
print("plain attribute:", model.note, "note" in model.state_dict())
del model.alpha
print("after del alpha:", [n for n, _ in model.named_parameters(recurse=False)])


class Early(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(1, 1)


try:
    Early()
except AttributeError as err:
    print("AttributeError", err)

# --------------------------------------------------------- Parameter and repr
p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p)
print("requires_grad:", p.requires_grad, "leaf:", p.is_leaf, type(p).__name__)
q = nn.Parameter(torch.tensor([1.0, 2.0]), requires_grad=False)
print(q)
try:
    nn.Parameter(torch.tensor([1, 2]))
except RuntimeError as err:
    print("RuntimeError", err)
print(nn.Parameter(torch.tensor([1, 2]), requires_grad=False))
print("op result type:", type(p * 2).__name__)
print("isinstance Tensor:", isinstance(p, torch.Tensor))
lin = nn.Linear(4, 2)
print("extra_repr:", lin.extra_repr())
print(nn.Linear(3, 1, bias=False))
print(nn.Flatten(), nn.Softmax(dim=1), nn.LogSoftmax(dim=-1), nn.ReLU(), nn.Identity())

# --------------------------------------------------------------------- nn.init
w = torch.empty(3, 4)
nn.init.constant_(w, 0.25)
print("constant_:", np.allclose(w.numpy(), np.full((3, 4), 0.25)))
nn.init.zeros_(w)
print("zeros_:", np.array_equal(w.numpy(), np.zeros((3, 4))))
nn.init.ones_(w)
print("ones_:", np.array_equal(w.numpy(), np.ones((3, 4))))
nn.init.eye_(w)
print("eye_:", np.array_equal(w.numpy(), np.eye(3, 4)), w)
try:
    nn.init.eye_(torch.zeros(2, 2, 2))
except ValueError as err:
    print("ValueError", err)
r = nn.init.constant_(w, 2.0)
print("returns tensor:", r is w)
for name in ["linear", "sigmoid", "tanh", "relu", "selu", "conv2d"]:
    print("gain", name, nn.init.calculate_gain(name))
print("gain leaky_relu", nn.init.calculate_gain("leaky_relu"), nn.init.calculate_gain("leaky_relu", 0.2))
try:
    nn.init.calculate_gain("swish")
except ValueError as err:
    print("ValueError", err)
param = nn.Parameter(torch.zeros(2, 2))
nn.init.ones_(param)
print("init on parameter keeps leaf:", param.is_leaf, param.grad_fn, param.requires_grad)
u = torch.empty(50, 20)
nn.init.uniform_(u, -0.5, 0.5)
print("uniform_ range:", bool(u.min() >= -0.5), bool(u.max() <= 0.5))
nn.init.kaiming_uniform_(u, a=5 ** 0.5)
print("kaiming bound:", bool(u.abs().max() <= 1 / 20 ** 0.5))
nn.init.xavier_uniform_(u)
print("xavier bound:", bool(u.abs().max() <= (6 / 70) ** 0.5))

# ---------------------------------------------------------------------- losses
logits_np = (rng.standard_normal((5, 4)) * 2).astype(np.float32)
targets = torch.tensor([0, 3, 1, 2, 3])
class_w = torch.tensor([1.0, 2.0, 0.5, 1.5])


def run(name, fn, *inputs):
    """Print a loss and the gradient of its sum with respect to its first input."""
    leaf = torch.tensor(inputs[0], requires_grad=True)
    value = fn(leaf, *inputs[1:])
    value.sum().backward()
    print(name, value.detach())
    print("  grad", leaf.grad)


for reduction in ["mean", "sum", "none"]:
    run(f"CE {reduction}", nn.CrossEntropyLoss(reduction=reduction), logits_np, targets)
run("CE weight", nn.CrossEntropyLoss(weight=class_w), logits_np, targets)
run("CE weight sum", nn.CrossEntropyLoss(weight=class_w, reduction="sum"), logits_np, targets)
run("CE ignore_index", nn.CrossEntropyLoss(ignore_index=3), logits_np, targets)
run("CE weight+ignore", nn.CrossEntropyLoss(weight=class_w, ignore_index=1), logits_np, targets)
run("CE ignore none", nn.CrossEntropyLoss(ignore_index=3, reduction="none"), logits_np, targets)
probs = torch.softmax(torch.tensor(rng.standard_normal((5, 4)).astype(np.float32)), dim=1)
run("CE probs", nn.CrossEntropyLoss(), logits_np, probs)
run("CE probs weight none", nn.CrossEntropyLoss(weight=class_w, reduction="none"), logits_np, probs)
run("F.cross_entropy", F.cross_entropy, logits_np, targets)
for reduction in ["mean", "sum", "none"]:
    run(f"CE smoothing {reduction}", nn.CrossEntropyLoss(label_smoothing=0.1, reduction=reduction),
        logits_np, targets)
run("CE smoothing weight", nn.CrossEntropyLoss(weight=class_w, label_smoothing=0.2), logits_np, targets)
run("CE smoothing ignore", nn.CrossEntropyLoss(ignore_index=3, label_smoothing=0.2), logits_np,
    targets)
run("CE smoothing weight+ignore", nn.CrossEntropyLoss(weight=class_w, ignore_index=1,
                                                      label_smoothing=0.3), logits_np, targets)
run("CE smoothing probs", nn.CrossEntropyLoss(label_smoothing=0.25), logits_np, probs)
run("CE 1-D smoothing", nn.CrossEntropyLoss(label_smoothing=0.1), logits_np[0], torch.tensor(2))
try:
    nn.CrossEntropyLoss(label_smoothing=1.5)(torch.tensor(logits_np), targets)
except RuntimeError as err:
    print("RuntimeError", err)
pixels = rng.standard_normal((2, 4, 3)).astype(np.float32)          # (N, C, d)
pixel_targets = torch.tensor([[0, 3, 1], [2, 2, 0]])
run("CE (N, C, d)", nn.CrossEntropyLoss(), pixels, pixel_targets)
run("CE (N, C, d) none weight", nn.CrossEntropyLoss(weight=class_w, reduction="none"), pixels,
    pixel_targets)
run("CE (N, C, d) ignore smoothing", nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.1),
    pixels, pixel_targets)
try:
    nn.CrossEntropyLoss()(torch.tensor(pixels), torch.tensor([[0, 3], [2, 2]]))
except RuntimeError as err:
    print("RuntimeError", err)
print("CE module:", nn.CrossEntropyLoss(weight=class_w).weight, nn.CrossEntropyLoss().ignore_index)
print("CE buffers:", [n for n, _ in nn.CrossEntropyLoss(weight=class_w).named_buffers()])

log_probs = torch.log_softmax(torch.tensor(logits_np), dim=1).numpy()
run("NLL", nn.NLLLoss(), log_probs, targets)
run("NLL weight", nn.NLLLoss(weight=class_w), log_probs, targets)
run("NLL none", nn.NLLLoss(reduction="none"), log_probs, targets)
run("NLL (N, C, d)", nn.NLLLoss(reduction="sum"), pixels, pixel_targets)
run("NLL ignore", nn.NLLLoss(ignore_index=0, reduction="sum"), log_probs, targets)

pred = rng.standard_normal((3, 2)).astype(np.float32)
target = torch.tensor(rng.standard_normal((3, 2)).astype(np.float32) * 2)
for reduction in ["mean", "sum", "none"]:
    run(f"MSE {reduction}", nn.MSELoss(reduction=reduction), pred, target)
    run(f"L1 {reduction}", nn.L1Loss(reduction=reduction), pred, target)
    run(f"SmoothL1 {reduction}", nn.SmoothL1Loss(reduction=reduction), pred, target)
    run(f"Huber {reduction}", nn.HuberLoss(reduction=reduction), pred, target)
run("SmoothL1 beta", nn.SmoothL1Loss(beta=0.5), pred, target)
run("Huber delta", nn.HuberLoss(delta=0.5), pred, target)
print(nn.MSELoss(), nn.CrossEntropyLoss(), nn.HuberLoss(delta=2.0))

bin_logits = rng.standard_normal((4, 3)).astype(np.float32)
bin_target = torch.tensor((rng.random((4, 3)) > 0.5).astype(np.float32))
pos_weight = torch.tensor([1.0, 3.0, 0.5])
run("BCEWithLogits", nn.BCEWithLogitsLoss(), bin_logits, bin_target)
run("BCEWithLogits pos_weight", nn.BCEWithLogitsLoss(pos_weight=pos_weight), bin_logits, bin_target)
run("BCEWithLogits weight none", nn.BCEWithLogitsLoss(weight=pos_weight, reduction="none"),
    bin_logits, bin_target)
run("BCE", nn.BCELoss(), 1 / (1 + np.exp(-bin_logits)), bin_target)
run("BCE weight sum", nn.BCELoss(weight=pos_weight, reduction="sum"),
    1 / (1 + np.exp(-bin_logits)), bin_target)
try:
    nn.CrossEntropyLoss(reduction="avg")(torch.tensor(logits_np), targets)
except ValueError as err:
    print("ValueError", err)

# ------------------------------------------------- end to end: one training step
net = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3))
set_weights(net)
xs = torch.tensor(np.linspace(-2, 2, 24, dtype=np.float32).reshape(6, 4))
ys = torch.tensor([0, 1, 2, 0, 1, 2])
loss = nn.CrossEntropyLoss()(net(xs), ys)
loss.backward()
print("loss:", loss.item())
for n, prm in net.named_parameters():
    print(n, prm.grad)
