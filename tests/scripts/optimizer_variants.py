"""Every optimizer's options on one small problem (SGD momentum, dampening, nesterov,
weight_decay, maximize; Adam/AdamW amsgrad; RMSprop centered; Adagrad lr_decay; and
the others), param groups, state_dict round trips, and the constructors' errors."""
# tolerance: rtol=1e-5 atol=1e-7
import torch

import copy

import numpy as np

from _printing import attempt


start_w = np.array([[0.5, -1.0, 1.5], [2.0, 0.25, -0.75]])
start_b = np.array([0.1, -0.2])
inputs = torch.tensor(np.linspace(-1.0, 1.0, 12).reshape(4, 3), dtype=torch.float32)
targets = torch.tensor(np.linspace(0.5, -0.5, 8).reshape(4, 2), dtype=torch.float32)


def fresh():
    w = torch.tensor(start_w, dtype=torch.float32, requires_grad=True)
    b = torch.tensor(start_b, dtype=torch.float32, requires_grad=True)
    return w, b


def loss_of(w, b):
    return ((inputs @ w.t() + b - targets) ** 2).mean() + 0.1 * (w ** 4).sum()


def train(make, steps=5):
    w, b = fresh()
    opt = make([w, b])
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_of(w, b)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    return losses, w, b, opt


O = torch.optim
configs = [
    ("SGD", lambda p: O.SGD(p, lr=0.05)),
    ("SGD momentum", lambda p: O.SGD(p, lr=0.05, momentum=0.9)),
    ("SGD dampening", lambda p: O.SGD(p, lr=0.05, momentum=0.9, dampening=0.5)),
    ("SGD nesterov", lambda p: O.SGD(p, lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD weight_decay", lambda p: O.SGD(p, lr=0.05, weight_decay=0.1)),
    ("SGD maximize", lambda p: O.SGD(p, lr=0.01, maximize=True)),
    ("Adam", lambda p: O.Adam(p, lr=0.1)),
    ("Adam amsgrad", lambda p: O.Adam(p, lr=0.1, amsgrad=True)),
    ("Adam weight_decay", lambda p: O.Adam(p, lr=0.1, weight_decay=0.5)),
    ("Adam maximize betas", lambda p: O.Adam(p, lr=0.1, betas=(0.5, 0.9), maximize=True)),
    ("AdamW", lambda p: O.AdamW(p, lr=0.1)),
    ("AdamW amsgrad", lambda p: O.AdamW(p, lr=0.1, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", lambda p: O.RMSprop(p, lr=0.01)),
    ("RMSprop centered momentum", lambda p: O.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True)),
    ("RMSprop weight_decay", lambda p: O.RMSprop(p, lr=0.01, weight_decay=0.2)),
    ("Adagrad", lambda p: O.Adagrad(p, lr=0.1)),
    ("Adagrad lr_decay", lambda p: O.Adagrad(p, lr=0.1, lr_decay=0.5, initial_accumulator_value=0.1,
                                             weight_decay=0.1)),
    ("Adadelta", lambda p: O.Adadelta(p, lr=1.0, rho=0.8)),
    ("Adamax", lambda p: O.Adamax(p, lr=0.1)),
    ("NAdam", lambda p: O.NAdam(p, lr=0.1)),
    ("RAdam", lambda p: O.RAdam(p, lr=0.1)),
]
print("== optimizers")
for name, make in configs:
    losses, w, b, opt = train(make)
    print(f"{name}: {losses}")
    print("  w:", [round(v, 5) for v in w.flatten().tolist()], "b:", [round(v, 5) for v in b.tolist()])

print("== state")
_, w, b, opt = train(lambda p: O.Adam(p, lr=0.1, amsgrad=True), steps=2)
state = opt.state[w]
print(sorted(state), state["step"], state["exp_avg"].shape, state["max_exp_avg_sq"].shape)
sd = opt.state_dict()
print(list(sd), sorted(sd["param_groups"][0]), sd["param_groups"][0]["params"], list(sd["state"]))
print(sorted(sd["state"][0]))
_, w, b, opt = train(lambda p: O.SGD(p, lr=0.05, momentum=0.9), steps=2)
print("SGD state:", sorted(opt.state[w]), opt.state_dict()["param_groups"][0]["nesterov"])
_, w, b, opt = train(lambda p: O.SGD(p, lr=0.05), steps=2)
print("SGD without momentum:", {k: v for k, v in opt.state[w].items()}, len(opt.state))

print("== state_dict round trip")
losses_a, wa, ba, opt_a = train(lambda p: O.RMSprop(p, lr=0.01, momentum=0.5, centered=True), steps=3)
saved = opt_a.state_dict()
wb, bb = fresh()
with torch.no_grad():
    wb.copy_(wa)
    bb.copy_(ba)
opt_b = O.RMSprop([wb, bb], lr=0.5)
opt_b.load_state_dict(copy.deepcopy(saved))     # state_dict() shares the state's tensors
print("lr after load:", opt_b.param_groups[0]["lr"], opt_b.param_groups[0]["centered"])
for opt, w, b in ((opt_a, wa, ba), (opt_b, wb, bb)):
    for _ in range(2):
        opt.zero_grad()
        loss_of(w, b).backward()
        opt.step()
print("continued alike:", torch.allclose(wa, wb), torch.allclose(ba, bb), wa[0])
saved["param_groups"][0]["lr"] = 123.0
print("state_dict is a copy:", opt_a.param_groups[0]["lr"])
attempt("load with a wrong group count:",
        lambda: O.SGD([{"params": [wb]}, {"params": [bb]}], lr=0.1).load_state_dict(O.SGD([wb, bb], lr=0.1).state_dict()))
attempt("load with a wrong param count:",
        lambda: O.SGD([wb], lr=0.1).load_state_dict(O.SGD([wb, bb], lr=0.1).state_dict()))

print("== param groups")
w, b = fresh()
opt = O.SGD([{"params": [w]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.01)
print([(g["lr"], g["momentum"], len(g["params"])) for g in opt.param_groups])
loss_of(w, b).backward()
opt.step()
print(w[0], b)
extra = torch.zeros(2, requires_grad=True)
opt.add_param_group({"params": extra, "weight_decay": 0.1})
print([(g["lr"], g["weight_decay"]) for g in opt.param_groups])
attempt("same parameter twice:", lambda: opt.add_param_group({"params": [w]}))
opt.zero_grad()
print("zero_grad sets None:", w.grad, b.grad)
loss_of(w, b).backward()
opt.zero_grad(set_to_none=False)
print("set_to_none=False:", w.grad.abs().sum().item(), b.grad)

print("== errors")
w, b = fresh()
attempt("negative lr:", lambda: O.SGD([w], lr=-0.1))
attempt("nesterov without momentum:", lambda: O.SGD([w], lr=0.1, nesterov=True))
attempt("bad beta:", lambda: O.Adam([w], betas=(1.0, 0.999)))
attempt("bad eps:", lambda: O.Adam([w], eps=-1.0))
attempt("negative weight decay:", lambda: O.AdamW([w], weight_decay=-0.1))
attempt("RMSprop alpha:", lambda: O.RMSprop([w], alpha=-0.5))
attempt("Adagrad lr_decay:", lambda: O.Adagrad([w], lr_decay=-1.0))
attempt("empty list:", lambda: O.SGD([], lr=0.1))
attempt("a tensor, not an iterable:", lambda: O.SGD(w, lr=0.1))
attempt("a non-leaf:", lambda: O.SGD([w * 2], lr=0.1))
sgd = O.SGD([w], lr=0.1, momentum=0.9)
print("step without grads:", sgd.step(), w[0, 0].item())
print("step with closure:", round(O.SGD([w, b], lr=0.1).step(lambda: loss_of(w, b)).item(), 5))
print(repr(O.SGD([w], lr=0.1)).splitlines()[:4])
