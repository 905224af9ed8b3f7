"""What requires_grad does, gradients of a simple function, and what detach/no_grad stop."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

import numpy as np

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
Q.backward(gradient=torch.tensor([1.0, 1.0]))
print(9 * a ** 2 == a.grad, -2 * b == b.grad)
print(Q.grad_fn.name(), [type(n).__name__ for n, _ in Q.grad_fn.next_functions])

rng = np.random.default_rng(5)
x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32, requires_grad=True)
bias = torch.tensor(rng.standard_normal(3), dtype=torch.float32, requires_grad=True)
z = torch.matmul(x, w) + bias
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print("z:", z.grad_fn.name(), "loss:", loss.grad_fn.name(), f"{loss.item():.6f}")
loss.backward()
print(w.grad)
print(bias.grad)

z = torch.matmul(x, w) + bias
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + bias
print(z.requires_grad)
z_det = (torch.matmul(x, w) + bias).detach()
print(z_det.requires_grad, z_det.is_leaf)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out))
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out))
print(f"\nCall after zeroing gradients\n{inp.grad}")

frozen = torch.nn.Linear(4, 2)
for param in frozen.parameters():
    param.requires_grad = False
head = torch.nn.Linear(2, 1)
with torch.no_grad():
    for p in list(frozen.parameters()) + list(head.parameters()):
        p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape))
out = head(frozen(torch.ones(3, 4))).sum()
out.backward()
print(frozen.weight.grad, head.weight.grad, head.bias.grad)
print([n for n, p in head.named_parameters() if p.requires_grad])
