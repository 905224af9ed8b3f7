"""Train a little, save the model's and the optimizer's state dicts, load them into a
fresh model, and carry on: the same numbers as if nothing had happened."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

import os
import tempfile

import numpy as np

rng = np.random.default_rng(1)
X = torch.tensor(rng.standard_normal((32, 3)), dtype=torch.float32)
y = (X.sum(1, keepdim=True) > 0).float()


def fresh_model():
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.6, p.numel()).reshape(p.shape))
    return model


def train(model, optimizer, steps):
    loss_fn = torch.nn.BCEWithLogitsLoss()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
    return loss.item()


model = fresh_model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
print("before saving:", f"{train(model, optimizer, 10):.6f}")
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "checkpoint.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 10}, path)
    checkpoint = torch.load(path)
print(sorted(checkpoint), list(checkpoint["model"].keys()), checkpoint["epoch"])

restored = fresh_model()
print(restored.load_state_dict(checkpoint["model"]))
restored_optimizer = torch.optim.Adam(restored.parameters(), lr=0.05)
restored_optimizer.load_state_dict(checkpoint["optimizer"])
print("same outputs:", torch.equal(restored(X), model(X)))
print("carried on:", f"{train(model, optimizer, 5):.6f}", f"{train(restored, restored_optimizer, 5):.6f}")
print(restored_optimizer.state_dict()["state"][0]["step"])
