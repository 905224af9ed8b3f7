"""The cubic fit again, with autograd computing the gradients (float64)."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import math

import numpy as np

dtype = torch.float64
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

start = np.random.default_rng(11).standard_normal(4)
a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in start)

learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 500 == 99:
        print(t, loss.item(), loss.requires_grad, loss.grad_fn.name())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
print("a is still a leaf:", a.is_leaf, "version:", a._version)
