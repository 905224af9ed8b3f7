"""A two-layer ReLU network fitted to fixed data: by hand, with autograd, with a
custom ReLU Function, and with nn + optim (the device chosen the usual way)."""
# tolerance: rtol=1e-4 atol=1e-5
import torch

import numpy as np

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dtype = torch.float
print("device:", device, "cuda available:", torch.cuda.is_available())

N, D_in, H, D_out = 16, 10, 20, 3
rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((N, D_in)), device=device, dtype=dtype)
y = torch.tensor(rng.standard_normal((N, D_out)), device=device, dtype=dtype)
w1_start = rng.standard_normal((D_in, H)) * 0.3
w2_start = rng.standard_normal((H, D_out)) * 0.3
learning_rate = 1e-3

# 1. Everything by hand.
w1 = torch.tensor(w1_start, device=device, dtype=dtype)
w2 = torch.tensor(w2_start, device=device, dtype=dtype)
for t in range(200):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h_relu = grad_y_pred.mm(w2.t())
    grad_h = grad_h_relu.clone()
    grad_h[h < 0] = 0
    grad_w1 = x.t().mm(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2
print("by hand:", f"{loss:.5f}")


# 2. Autograd, with ReLU as a custom Function.
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


for relu in (lambda t: t.clamp(min=0), MyReLU.apply):
    w1 = torch.tensor(w1_start, device=device, dtype=dtype, requires_grad=True)
    w2 = torch.tensor(w2_start, device=device, dtype=dtype, requires_grad=True)
    for t in range(200):
        y_pred = relu(x.mm(w1)).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    print("autograd:", f"{loss.item():.5f}", y_pred.grad_fn.name())

# 3. nn and optim.
model = torch.nn.Sequential(torch.nn.Linear(D_in, H), torch.nn.ReLU(), torch.nn.Linear(H, D_out))
model.to(device)
with torch.no_grad():
    model[0].weight.copy_(torch.tensor(w1_start.T))
    model[2].weight.copy_(torch.tensor(w2_start.T))
    model[0].bias.zero_()
    model[2].bias.zero_()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = torch.nn.MSELoss(reduction="sum")
for t in range(200):
    loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if t % 50 == 0:
        print(t, f"{loss.item():.5f}")
print("nn + Adam:", f"{loss.item():.5f}", model[0].weight.device, model[0].weight.dtype)
model.double()
print("after double():", model[0].weight.dtype, model(x.double()).dtype)
