"""Hooks on every level: tensor hooks on shared tensors, grad_fn hooks and pre-hooks,
post-accumulate hooks, module forward/backward hooks (full, pre, with kwargs, removed),
saved-tensor hooks, and what the hooks may return."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import warnings

import numpy as np

from _printing import attempt


def listed(grads):
    return [None if g is None else g.tolist() for g in grads]


print("== tensor hooks on a shared tensor")
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
calls = []
y.register_hook(lambda g: calls.append(("y", g.tolist())))
z = y * y + y.sin()
(z.sum() + y.sum()).backward()
print(calls, x.grad)
calls.clear()
x.grad = None
w = x.exp()
w.register_hook(lambda g: calls.append(("w", g.tolist())) or g * 0.5)
a, b = w * 2, w * 5
(a + b).sum().backward()
print("hook sees the summed gradient once:", calls, x.grad)

print("== grad_fn hooks")
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * x
log = []
node = y.grad_fn
h_pre = node.register_prehook(lambda grad_outputs: log.append(("pre", listed(grad_outputs))))
h_post = node.register_hook(lambda grad_inputs, grad_outputs:
                            log.append(("post", listed(grad_inputs), listed(grad_outputs))))
y.sum().backward(retain_graph=True)
print(log, x.grad)
log.clear()
h_pre.remove()
y.sum().backward(retain_graph=True)
print("after removing the pre-hook:", log)
h_post.remove()
x.grad = None
node.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
y.sum().backward(retain_graph=True)
print("pre-hook replacing:", x.grad)
x.grad = None
bad = node.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1,))
attempt("post-hook returning one of two:", lambda: y.sum().backward(retain_graph=True))
bad.remove()
x.grad = None
node.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1, None))
y.sum().backward()
print("post-hook replacing:", x.grad)

m = torch.tensor([1.0, 2.0], requires_grad=True)
n = torch.tensor([3.0, 4.0], requires_grad=True)
prod = m * n
seen = []
prod.grad_fn.register_hook(lambda gi, go: seen.append((len(gi), len(go))))
prod.sum().backward()
print("MulBackward0 sizes:", seen, m.grad, n.grad)

print("== AccumulateGrad hooks")
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = p * 2
acc = q.grad_fn.next_functions[0][0]
events = []
acc.register_prehook(lambda go: events.append(("acc pre", listed(go))))
acc.register_hook(lambda gi, go: events.append(("acc post", listed(gi), listed(go))))
p.register_hook(lambda g: events.append(("tensor", g.tolist())))
p.register_post_accumulate_grad_hook(lambda t: events.append(("post-acc", t.grad.tolist())))
q.sum().backward()
print(events)

print("== module hooks")
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    lin.bias.copy_(torch.tensor([0.01, -0.02]))
inp = torch.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
record = []


def forward_pre(module, args):
    record.append(("fwd pre", type(module).__name__, tuple(args[0].shape)))


def forward_pre_changes(module, args):
    return (args[0] * 2,)


def forward_hook(module, args, output):
    record.append(("fwd", tuple(output.shape)))


def forward_hook_changes(module, args, output):
    return output + 1


def backward_pre(module, grad_output):
    record.append(("bwd pre", listed(grad_output)))


def backward_hook(module, grad_input, grad_output):
    record.append(("bwd", listed(grad_input), listed(grad_output)))


handles = [lin.register_forward_pre_hook(forward_pre), lin.register_forward_hook(forward_hook),
           lin.register_full_backward_pre_hook(backward_pre), lin.register_full_backward_hook(backward_hook)]
out = lin(inp.float())
out.sum().backward()
for r in record:
    print(" ", r)
print(lin.weight.grad, lin.bias.grad)
for h in handles:
    h.remove()
record.clear()
lin.zero_grad()
lin(inp.float()).sum().backward()
print("removed:", record)

h1 = lin.register_forward_pre_hook(forward_pre_changes)
h2 = lin.register_forward_hook(forward_hook_changes)
print("changed by hooks:", lin(torch.ones(1, 3)))
h1.remove()
h2.remove()
print("unchanged:", lin(torch.ones(1, 3)))


def backward_hook_scales(module, grad_input, grad_output):
    return (grad_input[0] * 100,)


inp2 = torch.ones(1, 3, requires_grad=True)
hb = lin.register_full_backward_hook(backward_hook_scales)
lin(inp2).sum().backward()
print("full backward hook replacing grad_input:", inp2.grad)
hb.remove()


def backward_pre_scales(module, grad_output):
    return (grad_output[0] * -1,)


inp2.grad = None
lin.zero_grad()
hp = lin.register_full_backward_pre_hook(backward_pre_scales)
lin(inp2).sum().backward()
print("full backward pre-hook replacing grad_output:", inp2.grad, lin.bias.grad)
hp.remove()


def kw_pre(module, args, kwargs):
    record.append(("kw pre", sorted(kwargs)))
    return args, kwargs


def kw_fwd(module, args, kwargs, output):
    record.append(("kw fwd", sorted(kwargs)))


class Scaled(torch.nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


record.clear()
sm = Scaled()
sm.register_forward_pre_hook(kw_pre, with_kwargs=True)
sm.register_forward_hook(kw_fwd, with_kwargs=True)
print(sm(torch.ones(2), scale=3.0), record)
record.clear()
relu = torch.nn.ReLU()
relu.register_full_backward_hook(backward_hook)
leaf = torch.tensor([-1.0, 2.0], requires_grad=True)
relu(leaf * 1).sum().backward()
print("relu full hook:", record)
record.clear()
lone = torch.nn.Identity()
lone.register_full_backward_hook(backward_hook)
lone(torch.tensor([1.0, 2.0], requires_grad=True) + 0).sum().backward()
print("identity full hook:", record)
record.clear()
nograd_in = torch.nn.Linear(2, 1)
nograd_in.register_full_backward_hook(backward_hook)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")       # the hook fires on the outputs only: torch warns
    nograd_in(torch.ones(1, 2)).sum().backward()
print("input without grad:", [(r[0], r[1]) for r in record])

print("== saved tensors hooks")
packed = []


def pack(t):
    packed.append(tuple(t.shape))
    return t.detach().numpy().copy()


def unpack(array):
    return torch.from_numpy(array)


s = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    u = (s * s).exp()
print("packed:", packed)
u.sum().backward()
print(s.grad)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 0, lambda t: t):
    v = s.pow(2)
s.grad = None
v.sum().backward()
print("pack changing the value:", s.grad)
with torch.autograd.graph.save_on_cpu():
    s.grad = None
    (s.sin() * s).sum().backward()
print("save_on_cpu:", s.grad)
with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    attempt("disabled:", lambda: torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__())
print(s.pow(3).grad_fn._raw_saved_self is not None)
