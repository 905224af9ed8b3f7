"""torch.autograd.grad and backward at their edges: allow_unused and materialize_grads,
grad_outputs with None entries, is_grads_batched, retain_graph and the second backward,
non-scalar outputs, inputs that are not in the graph, .grad's setter checks, hooks and
retain_grad on leaves and non-leaves, requires_grad_ on non-leaves, and the functional
API's results differentiated again (create_graph)."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

import warnings

from _printing import attempt


def r(t):
    return None if t is None else [round(v, 5) for v in t.flatten().tolist()]


grad = torch.autograd.grad
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.tensor([1.5, 0.25, -0.5], requires_grad=True)
unused = torch.tensor([3.0], requires_grad=True)

print("== allow_unused, materialize_grads")
out = (x * y).sum()
print("unused None:", [r(g) for g in grad(out, [x, unused], retain_graph=True, allow_unused=True)])
print("materialized:", [r(g) for g in grad(out, [x, unused], retain_graph=True, materialize_grads=True)])
attempt("unused refused:", lambda: grad(out, [x, unused], retain_graph=True))
attempt("materialize without allow_unused:", lambda: grad(out, [unused], retain_graph=True, allow_unused=False,
                                                         materialize_grads=True))
print("input twice:", [r(g) for g in grad(out, [x, x], retain_graph=True)])
print("output twice:", [r(g) for g in grad([out, out], [y], retain_graph=True)])

print("== grad_outputs")
a, b = x * 2, (y ** 2).sum()
print("None for the scalar:", [r(g) for g in grad([a, b], [x, y], grad_outputs=[torch.ones(3), None], retain_graph=True)])
attempt("None for a vector:", lambda: grad([a, b], [x], grad_outputs=[None, None], retain_graph=True))
attempt("vector without grad_outputs:", lambda: grad(a, x, retain_graph=True))
attempt("wrong shape:", lambda: grad(a, x, grad_outputs=torch.ones(2), retain_graph=True))
attempt("wrong count:", lambda: grad([a, b], [x], grad_outputs=[torch.ones(3)], retain_graph=True))
attempt("dtype:", lambda: r(grad(a, x, grad_outputs=torch.ones(3, dtype=torch.float64), retain_graph=True)[0]))
attempt("integer:", lambda: grad(a, x, grad_outputs=torch.ones(3, dtype=torch.long), retain_graph=True))
print("number output:", r(grad(b, y, grad_outputs=torch.tensor(2.0), retain_graph=True)[0]))

print("== is_grads_batched")
basis = torch.eye(3)
print("jacobian rows:", r(grad(a, x, grad_outputs=basis, is_grads_batched=True, retain_graph=True)[0]))
print("of a square:", r(grad(x ** 2, x, grad_outputs=basis * 3, is_grads_batched=True)[0]))
attempt("batched wrong shape:", lambda: grad(x * 3, x, grad_outputs=torch.ones(2, 2), is_grads_batched=True))

print("== retain_graph")
z = (x.exp() * y).sum()
z.backward()
attempt("second backward:", lambda: z.backward())
attempt("second grad:", lambda: grad(z, x))
w = (x * 3).sum()
w.backward()
attempt("no saved tensors, second backward:", lambda: (w.backward(), r(x.grad))[1])
x.grad = None
s = (x ** 2).sum()
print("retained:", r(grad(s, x, retain_graph=True)[0]), r(grad(s, x)[0]))
attempt("after:", lambda: grad(s, x))
attempt("no grad_fn:", lambda: grad(torch.ones(()), x))
attempt("input without grad:", lambda: grad((x * 2).sum(), torch.ones(3)))
attempt("non-leaf input not in graph:", lambda: grad((x * 2).sum(), [y * 1]))
attempt("backward of integer:", lambda: torch.tensor(3).backward())
attempt("empty inputs:", lambda: grad((x * 2).sum(), []))
attempt("backward inputs empty:", lambda: (x * 2).sum().backward(inputs=[]))

print("== .grad setter")
leaf = torch.zeros(3, requires_grad=True)
attempt("shape:", lambda: setattr(leaf, "grad", torch.ones(2)))
try:
    leaf.grad = torch.ones(3, dtype=torch.float64)
except RuntimeError as error:     # torch goes on about a grad_dtype attribute autograd_lib has not
    print("dtype:", str(error).split(" You can")[0])
attempt("not a tensor:", lambda: setattr(leaf, "grad", [1.0, 2.0, 3.0]))
leaf.grad = torch.ones(3)
(leaf * 2).sum().backward()
print("accumulated on a set grad:", r(leaf.grad))
leaf.grad = None
print("cleared:", leaf.grad)
plain = torch.zeros(2)
plain.grad = torch.ones(2)
print("plain tensor grad:", r(plain.grad), plain.requires_grad)

print("== hooks, retain_grad, requires_grad_")
attempt("hook without grad:", lambda: torch.ones(2).register_hook(lambda g: g))
attempt("retain_grad without grad:", lambda: torch.ones(2).retain_grad())
leaf = torch.tensor([1.0, 2.0], requires_grad=True)
leaf.retain_grad()
mid = leaf * 3
mid.retain_grad()
print("retains:", leaf.retains_grad, mid.retains_grad)
(mid ** 2).sum().backward()
print("grads:", r(leaf.grad), r(mid.grad), mid.is_leaf)
attempt("requires_grad_(False) on non-leaf:", lambda: (leaf * 2).requires_grad_(False))
print("requires_grad_(True) on non-leaf:", (leaf * 2).requires_grad_(True).requires_grad)
detached = (leaf * 2).detach()
print("detached requires_grad_:", detached.requires_grad_().is_leaf, detached.grad_fn)
attempt("int requires_grad:", lambda: torch.tensor([1, 2]).requires_grad_())
attempt("int tensor(requires_grad):", lambda: torch.tensor([1, 2], requires_grad=True))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("grad of a non-leaf:", (leaf * 2).grad)
print("warned:", [str(w.message)[:60] for w in caught])

print("== functional results differentiated again")
F = torch.autograd.functional
xr = torch.tensor([0.3, -0.7], requires_grad=True)
J = F.jacobian(lambda t: torch.stack([t[0] * t[1], t[0].sin()]), xr, create_graph=True)
print("jacobian:", r(J), J.requires_grad, r(grad(J.sum(), xr)[0]))
H = F.hessian(lambda t: (t ** 3).sum() + t.prod(), xr, create_graph=True)
print("hessian:", r(H), r(grad(H.trace(), xr)[0]))
out, vjp_value = F.vjp(lambda t: t.tanh(), xr, torch.ones(2), create_graph=True)
print("vjp:", r(out), r(vjp_value), r(grad(vjp_value.sum(), xr)[0]))
out, jvp_value = F.jvp(lambda t: t.exp() * t, xr, torch.tensor([1.0, 2.0]), create_graph=True)
print("jvp:", r(jvp_value), r(grad(jvp_value.sum(), xr)[0]))
out, hvp_value = F.hvp(lambda t: (t.sigmoid() * t).sum(), xr, torch.tensor([1.0, -1.0]), create_graph=True)
print("hvp:", r(out), r(hvp_value), r(grad(hvp_value.sum(), xr)[0]))
out, vhp_value = F.vhp(lambda t, u: (t * u.exp()).sum(), (xr, xr * 2), (torch.ones(2), torch.ones(2)))
print("vhp pair:", r(out), [r(v) for v in vhp_value], vhp_value[0].requires_grad)
J2 = F.jacobian(lambda t, u: (t * u, t + u), (xr, xr.detach()))
print("jacobian of pairs:", [[r(j) for j in row] for row in J2])
print("non-vectorized equals vectorized:", torch.allclose(
    F.jacobian(lambda t: t.softmax(0), xr), F.jacobian(lambda t: t.softmax(0), xr, vectorize=True)))
attempt("vjp of non-tensor output:", lambda: F.vjp(lambda t: 3.0, xr))
attempt("jacobian of non-tensor input:", lambda: F.jacobian(lambda t: t, 3.0))
attempt("hessian of non-scalar:", lambda: F.hessian(lambda t: t * 2, xr))
attempt("vjp wrong v shape:", lambda: F.vjp(lambda t: t * 2, xr, torch.ones(3)))
attempt("jvp wrong v count:", lambda: F.jvp(lambda t: t * 2, xr, (torch.ones(2), torch.ones(2))))
