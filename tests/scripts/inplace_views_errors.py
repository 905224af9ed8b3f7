"""In-place operations against autograd: views made under no_grad or by multi-output
ops, views of views, detach_ on views, saved outputs of in-place activations, the
version counter's message, and the dtype and shape checks of in-place ops."""
# tolerance: rtol=1e-6 atol=1e-8
import torch


def attempt(label, fn):
    """Run ``fn``; print its result, or the exception's class and first message line."""
    try:
        result = fn()
    except Exception as error:              # noqa: BLE001 - what is raised is what we print
        text = str(error).strip()
        first = text.splitlines()[0] if text else ""
        # Known differences: autograd_lib names PyTorch's C++-only nodes like their class
        # (no "torch::autograd::"), its hint after the version error is its own, and it
        # has no DistributedDataParallel to mention after detach_'s refusal.
        first = first.split(" Hint:")[0].split(" If you are using DistributedDataParallel")[0]
        print(label, type(error).__name__ + ":", first.replace("torch::autograd::", ""))
    else:
        print(label, result)


def leaf(*values):
    return torch.tensor(values, requires_grad=True)


print("== version counter errors")
a = leaf(0.5, 1.0, 1.5)
b = a * 2
c = b.exp()                          # exp saves its result
c.add_(1)
attempt("exp result changed:", lambda: c.sum().backward())
b = a * 2
c = b.sigmoid()
d = c * b                             # mul saves both
b.mul_(3)
attempt("mul input changed:", lambda: d.sum().backward())
b = a * 2
e = b.relu_()
print("relu_ returns self:", e is b, b.grad_fn.name(), b._version)
f = b * 1
b.relu_()
attempt("relu_ twice on a saved result:", lambda: (f.sum() + b.sum()).backward())
a.grad = None
g = a * 1
h = g.tanh()
g.zero_()
attempt("tanh input changed (tanh saves its output):", lambda: h.sum().backward())
print(a.grad)
a.grad = None
g = a * 1
h = g ** 2
g[0] = 10.0
attempt("setitem after pow:", lambda: h.sum().backward())
g = a * 1
h = g * 4                             # mul by a number saves nothing of g
g.add_(1)
h.sum().backward()
print("mul by a number saves no tensor:", a.grad)

print("== views and in-place")
a.grad = None
base = a * 1
v1 = base[1:]
v2 = v1[:1]
v2.mul_(100)
print(base, v1, v2.grad_fn.name(), base.grad_fn.name().split("::")[-1])
base.sum().backward()
print("view of a view:", a.grad)
a.grad = None
with torch.no_grad():
    nv = a[:2]
print("view made under no_grad:", nv.requires_grad, nv._base is a)
attempt("in-place on it:", lambda: nv.mul_(2))
m = a * 1
with torch.no_grad():
    nv2 = m[:2]
attempt("no_grad view of a non-leaf, in place with grad on:", lambda: nv2.mul_(2))
parts = (a * 1).unbind(0)
attempt("unbind output in place:", lambda: parts[0].mul_(2))
chunks = (a * 1).split(2)
attempt("split output in place:", lambda: chunks[1].add_(1))
one_part = (a * 1).split(3)
attempt("split into one piece, in place:", lambda: one_part[0].add_(1))
t = (a * 1).view(3, 1)
t.t_()
print("t_ on a view:", t.shape, t.grad_fn.name())
attempt("detach_ on a view:", lambda: (a * 1)[1:].detach_())
dd = a * 1
dd.detach_()
print("detach_ on a non-view:", dd.requires_grad, dd.grad_fn, dd.is_leaf)
ex = torch.zeros(1).expand(3)
attempt("in-place on an expanded tensor:", lambda: ex.add_(1))
rs = a * 1
v = rs.view(3)
rs.add_(1)
print("base changed, view's grad_fn follows:", v.grad_fn.name(), v._version)
v.sum().backward()
print(a.grad)

print("== in-place dtype and shape checks")
i = torch.tensor([1, 2, 3])
attempt("int += float:", lambda: i.add_(0.5))
attempt("int *= float tensor:", lambda: i.mul_(torch.tensor([1.5, 1.0, 1.0])))
fl = torch.ones(3)
fl.add_(torch.tensor([1, 2, 3]))
print("float += int:", fl, fl.dtype)
attempt("broadcast into a smaller tensor:", lambda: torch.ones(3).add_(torch.ones(2, 3)))
attempt("shape mismatch:", lambda: torch.ones(3).add_(torch.ones(4)))
bo = torch.tensor([True, False])
attempt("bool += int:", lambda: bo.add_(1))
print("float32 += float64:", torch.ones(2).add_(torch.ones(2, dtype=torch.float64)).dtype)
attempt("copy_ of a wrong shape:", lambda: torch.ones(3).copy_(torch.ones(2)))
print("copy_ broadcasts:", torch.zeros(2, 3).copy_(torch.tensor([1.0, 2.0, 3.0])))
cp = leaf(1.0, 2.0)
target = torch.zeros(2)
target.copy_(cp * 3)
print("copy_ into a tensor without grad:", target.requires_grad, target.grad_fn.name().split("::")[-1])
target.sum().backward()
print(cp.grad)
attempt("requires_grad_ on a view of a leaf:", lambda: a[1:].requires_grad_(False))
print("in-place op results require grad:", torch.zeros(2).add_(leaf(1.0, 1.0)).requires_grad)

print("== in-place ops under the modes")
p = leaf(1.0, -2.0)
with torch.no_grad():
    p.mul_(2)
    p[0] = 7.0
print(p, p.requires_grad, p.is_leaf, p._version)
with torch.inference_mode():
    inf = torch.ones(2)
attempt("in-place on an inference tensor outside:", lambda: inf.add_(1))
with torch.inference_mode():
    attempt("in-place on a normal tensor inside:", lambda: torch.ones(2).add_(1))
    attempt("in-place on a leaf that requires grad inside:", lambda: p.add_(1))
print(p)
