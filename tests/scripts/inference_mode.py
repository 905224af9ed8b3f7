"""Evaluation with inference_mode and no_grad, and what inference tensors refuse."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Sigmoid(), torch.nn.Linear(3, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape))
x = torch.tensor([[0.5, -1.0], [2.0, 0.25]])

model.eval()
with torch.inference_mode():
    prediction = model(x)
print(prediction, prediction.requires_grad, prediction.is_inference())
print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())


@torch.inference_mode()
def predict(batch):
    return model(batch).sigmoid()


p = predict(x)
print(p, p.is_inference())

with torch.no_grad():
    q = model(x)
print(q.requires_grad, q.is_inference())

w = torch.ones(1, requires_grad=True)
usable = prediction.clone()             # a normal tensor: autograd may use it
try:
    (prediction * w).sum().backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])
try:
    prediction.add_(1)
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])
(usable * w).sum().backward()
print(w.grad, usable.is_inference())
model.train()
print(model.training, model[0].training)
