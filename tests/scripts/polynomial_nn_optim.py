"""The cubic fit with nn.Sequential, MSELoss and an optimizer (SGD, then RMSprop)."""
# tolerance: rtol=2e-4 atol=1e-5
import torch

import math

x = torch.linspace(-math.pi, math.pi, 1000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)


def fresh_model():
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[0.1, -0.2, 0.05]]))
        model[0].bias.fill_(0.3)
    return model


loss_fn = torch.nn.MSELoss(reduction="sum")
print(fresh_model())

model = fresh_model()
learning_rate = 1e-6
for t in range(1000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 250 == 99:
        print(t, f"{loss.item():.5f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f"SGD by hand: y = {linear_layer.bias.item():.5f} + {linear_layer.weight[:, 0].item():.5f} x"
      f" + {linear_layer.weight[:, 1].item():.5f} x^2 + {linear_layer.weight[:, 2].item():.5f} x^3")

# RMSprop takes steps of about lr whatever the gradient's size, so once a coefficient
# reaches its optimum (the bias: 0, sin is odd) it oscillates there, driven by the
# sign of a gradient that is a sum of cancelling terms: the rounding of the sum,
# which differs between libraries, picks the path.  So: float64, and fewer steps.
model = fresh_model().double()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(500):
    y_pred = model(xx.double())
    loss = loss_fn(y_pred, y.double())
    if t % 100 == 99:
        print(t, f"{loss.item():.5f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
weights = model[0].weight.detach().flatten().tolist()
print("RMSprop:", round(model[0].bias.item(), 4), [round(w, 4) for w in weights])
print(optimizer.param_groups[0]["lr"], sorted(optimizer.state[model[0].weight]))
