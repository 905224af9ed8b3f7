"""Common layers in train and eval mode (BatchNorm running stats, Dropout, LayerNorm,
Embedding with padding_idx and max_norm, Conv1d/2d, pooling), nn.utils
(clip_grad_value_, clip_grad_norm_, parameters_to_vector, vector_to_parameters), and
the layers' errors for input of the wrong shape."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

import numpy as np

from _printing import attempt


def fill(module):
    """Deterministic parameters: a ramp in each."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5 + 0.1 * i, p.numel()).reshape(p.shape))
    return module


def rounded(t):
    return [round(v, 5) for v in t.detach().flatten().tolist()]


rng = np.random.default_rng(1)
x = torch.tensor(rng.normal(size=(4, 3)), dtype=torch.float32)

print("== BatchNorm1d")
bn = fill(torch.nn.BatchNorm1d(3, momentum=0.2))
out = bn(x)
print(rounded(out), rounded(bn.running_mean), rounded(bn.running_var), bn.num_batches_tracked)
bn(x * 2)
print(rounded(bn.running_mean), rounded(bn.running_var), bn.num_batches_tracked)
bn.eval()
print("eval:", rounded(bn(x)))
bn_cum = torch.nn.BatchNorm1d(3, momentum=None)
bn_cum(x)
bn_cum(x + 1)
print("cumulative average:", rounded(bn_cum.running_mean), bn_cum.num_batches_tracked)
no_stats = torch.nn.BatchNorm1d(3, track_running_stats=False, affine=False)
print("no running stats:", no_stats.running_mean, rounded(no_stats.eval()(x)[0]))
print(sorted(bn.state_dict()))
attempt("one value per channel in training:", lambda: torch.nn.BatchNorm1d(3)(torch.ones(1, 3)))
attempt("wrong channels:", lambda: torch.nn.BatchNorm1d(4)(x))
xi = x.clone().requires_grad_()
bn.train()
(bn(xi) * torch.arange(12.0).reshape(4, 3)).sum().backward()
print("grads:", rounded(xi.grad), rounded(bn.weight.grad), rounded(bn.bias.grad))

print("== BatchNorm2d, LayerNorm, GroupNorm")
img = torch.tensor(rng.normal(size=(2, 2, 3, 3)), dtype=torch.float32)
bn2 = torch.nn.BatchNorm2d(2)
print(rounded(bn2(img)[0, 0, 0]), rounded(bn2.running_var))
ln = fill(torch.nn.LayerNorm([3, 3], eps=1e-3))
print(rounded(ln(img)[1, 1, 2]), ln)
ln_plain = torch.nn.LayerNorm(3, elementwise_affine=False, bias=False)
print(rounded(ln_plain(x)[0]), list(ln_plain.parameters()))
gn = fill(torch.nn.GroupNorm(1, 2))
print(rounded(gn(img)[0, 1, 1]))
attempt("LayerNorm shape:", lambda: torch.nn.LayerNorm(4)(x))
attempt("GroupNorm groups:", lambda: torch.nn.GroupNorm(3, 2))

print("== Dropout")
torch.manual_seed(0)
drop = torch.nn.Dropout(0.5)
d = drop(torch.ones(1000))
print("kept values are scaled:", sorted(set(d.tolist())), 350 < int((d > 0).sum()) < 650)
drop.eval()
print("eval is identity:", torch.equal(drop(x), x), drop)
print("p=0:", torch.equal(torch.nn.Dropout(0.0)(x), x), "p=1:", torch.nn.Dropout(1.0)(x).abs().sum().item())
attempt("p out of range:", lambda: torch.nn.Dropout(1.5))
print("functional training=False:", torch.equal(torch.nn.functional.dropout(x, 0.9, training=False), x))

print("== Embedding")
emb = fill(torch.nn.Embedding(5, 2, padding_idx=0))
print(emb.weight[0], emb)
idx = torch.tensor([[0, 2, 2], [4, 0, 1]])
emb(idx).sum().backward()
print(rounded(emb.weight.grad))
maxn = torch.nn.Embedding(3, 2, max_norm=1.0)
with torch.no_grad():
    maxn.weight.copy_(torch.tensor([[3.0, 4.0], [0.3, 0.4], [1.0, 0.0]]))
print(rounded(maxn(torch.tensor([0, 1]))), rounded(maxn.weight))
attempt("index out of range:", lambda: emb(torch.tensor([5])))
attempt("float indices:", lambda: emb(torch.tensor([1.0])))
pre = torch.nn.Embedding.from_pretrained(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print("from_pretrained:", pre.weight.requires_grad, pre(torch.tensor([1])))

print("== Conv and pooling")
conv = fill(torch.nn.Conv2d(2, 3, 2, stride=1, padding=1))
co = conv(img)
print(co.shape, rounded(co[0, 0, 0]))
c1 = fill(torch.nn.Conv1d(2, 2, 3, padding="same", dilation=2, bias=False))
print(rounded(c1(img[:, :, 0])[1]))
print(torch.nn.MaxPool2d(2, stride=1)(img).shape, rounded(torch.nn.AvgPool2d(2, ceil_mode=True)(img)[0, 0]))
print(rounded(torch.nn.AdaptiveAvgPool2d((1, 2))(img)[1]))
attempt("conv channels:", lambda: conv(torch.ones(1, 3, 4, 4)))
attempt("conv too small:", lambda: torch.nn.Conv2d(1, 1, 5)(torch.ones(1, 1, 3, 3)))
attempt("conv padding same with stride:", lambda: torch.nn.Conv1d(1, 1, 3, stride=2, padding="same"))
attempt("linear shapes:", lambda: torch.nn.Linear(4, 2)(x))

print("== nn.utils")
net = fill(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)))
(net(x) ** 2).sum().backward()
grads_before = [p.grad.clone() for p in net.parameters()]
torch.nn.utils.clip_grad_value_(net.parameters(), clip_value=0.1)
print("clip_grad_value_:", [rounded(p.grad)[:3] for p in net.parameters()])
for p, g in zip(net.parameters(), grads_before):
    p.grad = g.clone()
total = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5, norm_type=2.0)
print("clip_grad_norm_:", round(total.item(), 5), round(torch.nn.utils.get_total_norm(
    [p.grad for p in net.parameters()]).item(), 5))
for p, g in zip(net.parameters(), grads_before):
    p.grad = g.clone()
print("inf norm:", round(torch.nn.utils.clip_grad_norm_(net.parameters(), 0.1, norm_type="inf").item(), 5))
net[0].weight.grad[0, 0] = float("nan")
attempt("error_if_nonfinite:", lambda: torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0, error_if_nonfinite=True))
vec = torch.nn.utils.parameters_to_vector(net.parameters())
print("parameters_to_vector:", vec.shape, rounded(vec[:4]), vec.requires_grad, vec.grad_fn.name())
torch.nn.utils.vector_to_parameters(torch.arange(float(vec.numel())), net.parameters())
print("vector_to_parameters:", rounded(net[2].bias), net[0].weight[1])
attempt("vector of the wrong type:", lambda: torch.nn.utils.vector_to_parameters([1.0], net.parameters()))
print("clip with no grads:", torch.nn.utils.clip_grad_norm_([torch.zeros(2, requires_grad=True)], 1.0))
