"""A training loop over a DataLoader with a learning-rate scheduler, then AdamW with
cosine annealing, on a small regression problem."""
# tolerance: rtol=1e-4 atol=1e-6
import torch

import numpy as np

rng = np.random.default_rng(42)
X = torch.tensor(rng.uniform(-1, 1, (64, 4)), dtype=torch.float32)
true_w = torch.tensor([[1.5], [-2.0], [0.5], [3.0]])
y = X @ true_w + 0.1 * torch.tensor(rng.standard_normal((64, 1)), dtype=torch.float32)

dataset = torch.utils.data.TensorDataset(X, y)
loader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=False)
print(len(dataset), len(loader), [tuple(t.shape) for t in dataset[0]])


def fresh_model():
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.4, 0.4, p.numel()).reshape(p.shape) * (-1) ** i)
    return model


model = fresh_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
loss_fn = torch.nn.MSELoss()
for epoch in range(8):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    scheduler.step()
    print(epoch, f"{total / len(dataset):.6f}", scheduler.get_last_lr())

model = fresh_model()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6)
for epoch in range(6):
    for xb, yb in torch.utils.data.DataLoader(dataset, batch_size=20, drop_last=True):
        optimizer.zero_grad()
        loss = torch.nn.functional.smooth_l1_loss(model(xb), yb, beta=0.5)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(epoch, f"{loss.item():.6f}", f"{optimizer.param_groups[0]['lr']:.6f}")

# A shuffled loader: the order depends on the generator, what it covers does not.
shuffled = torch.utils.data.DataLoader(dataset, batch_size=10, shuffle=True,
                                       generator=torch.Generator().manual_seed(0))
seen = sorted(i for xb, _ in shuffled for i in (xb[:, 0] * 1000).round().long().tolist())
print(len(seen), seen == sorted((X[:, 0] * 1000).round().long().tolist()), len(shuffled))
