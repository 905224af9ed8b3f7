"""Second and third derivatives through common ops (sigmoid, tanh, softmax, log_softmax, norm,
pow, matmul, exp, log, where), anomaly mode's messages, and inference tensors used where
autograd needs them."""
# tolerance: rtol=1e-4 atol=1e-6
import torch

import warnings

from _printing import attempt


def r(t):
    return None if t is None else [round(v, 5) for v in t.flatten().tolist()]


def derivatives(label, fn, x, order=3):
    """The first ``order`` derivatives of ``fn(x).sum()`` (each summed before the next), and
    the node of each gradient."""
    x = x.detach().clone().requires_grad_()
    value, seen = fn(x).sum(), []
    for _ in range(order):
        (value,) = torch.autograd.grad(value, x, create_graph=True)
        seen.append((r(value), type(value.grad_fn).__name__))
        value = value.sum()
    print(label, seen)


x = torch.tensor([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
m = torch.tensor([[0.5, -0.25], [1.0, 2.0], [-1.5, 0.75]])
print("== higher order")
derivatives("sigmoid:", torch.sigmoid, x)
derivatives("tanh:", torch.tanh, x)
derivatives("softmax weighted:", lambda t: t.softmax(1) * torch.tensor([1.0, 2.0, 3.0]), x)
derivatives("log_softmax weighted:", lambda t: t.log_softmax(0) * torch.tensor([[1.0], [-2.0]]), x)
derivatives("norm:", lambda t: t.norm(), x)
derivatives("norm dim=1 p=3:", lambda t: t.norm(p=3, dim=1), x)
derivatives("pow 3:", lambda t: t ** 3, x)
derivatives("pow 2.5 of abs:", lambda t: t.abs() ** 2.5, x)
derivatives("x ** x:", lambda t: t.abs() ** t, x)
derivatives("matmul squared:", lambda t: (t @ m) ** 2, x)
derivatives("exp*log:", lambda t: t.exp() * (t ** 2 + 1).log(), x)
derivatives("where:", lambda t: torch.where(t > 0, t ** 3, t.sin()), x)
derivatives("logsumexp:", lambda t: t.logsumexp(1) ** 2, x)
derivatives("cross_entropy:", lambda t: torch.nn.functional.cross_entropy(t, torch.tensor([2, 0])), x)
derivatives("mse:", lambda t: torch.nn.functional.mse_loss(t, x.flip(1)) ** 2, x)
derivatives("relu:", lambda t: t.relu() ** 2, x)
derivatives("gelu:", torch.nn.functional.gelu, x)
derivatives("softplus:", torch.nn.functional.softplus, x)
xr = x.clone().requires_grad_()
(g,) = torch.autograd.grad(xr.tanh().sum(), xr)
print("without create_graph:", g.requires_grad, g.grad_fn)
attempt("differentiate it:", lambda: torch.autograd.grad(g.sum(), xr))
(g,) = torch.autograd.grad((xr * 2).sum(), xr, create_graph=True)
print("linear with create_graph:", g.requires_grad, g.grad_fn)
attempt("differentiate a constant gradient:", lambda: torch.autograd.grad(g.sum(), xr))
attempt("allow_unused:", lambda: torch.autograd.grad(g.sum(), xr, allow_unused=True))

print("== anomaly mode")
print("enabled:", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.detect_anomaly(check_nan=False):
    print("inside:", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        attempt("nan in backward:", lambda: (a.sqrt() * 0).sum().backward())
        attempt("nan from 0/0:", lambda: (a / a).sum().backward())
        b = torch.tensor([1.0, 4.0], requires_grad=True)
        (b.sqrt()).sum().backward()
        print("clean backward:", r(b.grad))
    with torch.autograd.set_detect_anomaly(True):
        print("set_detect_anomaly:", torch.is_anomaly_enabled())
    print("after:", torch.is_anomaly_enabled())
    c = torch.tensor([0.0, 1.0], requires_grad=True)
    (c.sqrt() * 0).sum().backward()
    print("without anomaly mode:", r(c.grad))

print("== inference tensors")
with torch.inference_mode():
    t = torch.tensor([1.0, 2.0])
    u = t * 2
print("is_inference:", t.is_inference(), u.is_inference(), u.requires_grad)
w = torch.tensor([0.5, -0.5], requires_grad=True)
attempt("saved for backward:", lambda: (w * u).sum().backward())
print("not saved:", r(torch.autograd.grad((w + u).sum(), w)[0]))
attempt("in-place outside:", lambda: u.add_(1))
attempt("requires_grad_:", lambda: u.requires_grad_())
print("clone:", u.clone().is_inference(), r(u.clone().requires_grad_()))
with torch.inference_mode():
    attempt("backward inside:", lambda: (w * 2).sum().backward())
    print("grad inside:", w.grad, (w * 2).requires_grad)
with torch.inference_mode(False):
    print("mode off:", torch.is_inference_mode_enabled(), (w * 2).requires_grad)
attempt("view of an inference tensor in place:", lambda: u[0].mul_(2))
print("no_grad tensor:", torch.no_grad()(lambda: (w * 2).is_inference())())
