"""Jacobians and Hessians with autograd.functional, and the same numbers by hand."""
# tolerance: rtol=1e-7 atol=1e-9
import torch

import numpy as np

hessian, jacobian = torch.autograd.functional.hessian, torch.autograd.functional.jacobian
jvp, vjp = torch.autograd.functional.jvp, torch.autograd.functional.vjp

A = torch.tensor(np.arange(6.0).reshape(2, 3) / 5, dtype=torch.float64)


def f(x):
    return torch.tanh(A @ x) * x[:2]


def energy(x, y):
    return (x.exp() * y).sum() + (x * x).sum() * y.norm()


x = torch.tensor([0.1, -0.4, 0.7], dtype=torch.float64)
y = torch.tensor([1.5, 0.5, -1.0], dtype=torch.float64)
J = jacobian(f, x)
print(J)
print(J.shape, J.requires_grad)

rows = []
xr = x.clone().requires_grad_()
out = f(xr)
for i in range(out.numel()):
    g, = torch.autograd.grad(out[i], xr, retain_graph=True)
    rows.append(g)
print("same as row by row:", torch.allclose(torch.stack(rows), J))

H = hessian(lambda t: energy(t, y), x)
print(H)
Hxy = hessian(energy, (x, y))
print([[tuple(h.shape) for h in row] for row in Hxy])
print(Hxy[0][1])
print(vjp(f, x, torch.tensor([1.0, -1.0], dtype=torch.float64)))
print(jvp(f, x, torch.ones(3, dtype=torch.float64)))
Jg = jacobian(f, x.clone().requires_grad_(), create_graph=True)
print(Jg.requires_grad, Jg.grad_fn.name())
print(torch.autograd.gradcheck(f, (x.clone().requires_grad_(),)),
      torch.autograd.gradgradcheck(f, (x.clone().requires_grad_(),)))
