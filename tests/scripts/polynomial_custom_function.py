"""A custom autograd.Function (a smoothstep 3t^2 - 2t^3) inside a fitted model."""
# tolerance: rtol=1e-6 atol=1e-8
import torch

import math

import numpy as np


class SmoothStep(torch.autograd.Function):
    """s(t) = 3 t^2 - 2 t^3, with its derivative 6 t (1 - t) written by hand."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 3 * input ** 2 - 2 * input ** 3

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 6 * input * (1 - input)


dtype = torch.double
x = torch.linspace(0.0, 1.0, 500, dtype=dtype)
y = torch.exp(-x) * torch.cos(3 * x)

a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True)
              for v in np.random.default_rng(3).uniform(-0.5, 0.5, 4))
step = SmoothStep.apply
learning_rate = 5e-3
for t in range(1500):
    y_pred = a + b * step(c + d * x)
    loss = (y_pred - y).pow(2).mean()
    if t % 300 == 0:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None

print("fitted:", [round(p.item(), 6) for p in (a, b, c, d)])
out = step(torch.tensor([0.25, 0.5], dtype=dtype, requires_grad=True))
print(out, out.grad_fn.name())
print("gradcheck:", torch.autograd.gradcheck(step, (torch.tensor([0.1, 0.6, 0.9], dtype=dtype,
                                                                    requires_grad=True),)))
