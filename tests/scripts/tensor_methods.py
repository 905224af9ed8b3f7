"""Tensor methods the tutorials reach for: norms and spreads, in-place ops, new_*,
view_as, devices and dtypes, and their gradients."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

x = torch.tensor([[3.0, -4.0, 1.0], [0.5, 2.0, -1.5]], requires_grad=True)
stats = [x.norm(), x.norm(dim=1), x.norm(p=1), torch.linalg.vector_norm(x, ord=3),
         x.std(), x.var(dim=0), x.std(dim=1, unbiased=False), x.var(correction=0)]
for s in stats:
    print(s)
total = sum(s.sum() for s in stats)
total.backward()
print(x.grad)

y = x.detach().clone()
y.exp_().log_().sqrt_().mul_(2)
print(y._version, y.abs_().neg_())
h = x * 1
h.relu_()
(h ** 2).sum().backward()
print(h.grad_fn.name(), x.grad)

print(x.new_zeros(2, 2), x.new_ones(3).dtype, x.new_full((2,), 7.0), x.new_tensor([1, 2]))
print(x.view_as(torch.zeros(3, 2)).shape, x.reshape(-1).shape)
print(x.device, x.to("cpu").dtype, x.to(torch.float64).dtype, x.cpu().device == torch.device("cpu"))
print(x.double().dtype, x.half().dtype, x.long().dtype, x.type())

w = torch.empty(1000)
with torch.no_grad():
    w.uniform_(-2, 2)
print(bool((w >= -2).all()), bool((w < 2).all()), w._version)
w.normal_(mean=5.0, std=0.01)
print(round(w.mean().item()), w.std().item() < 0.02)
