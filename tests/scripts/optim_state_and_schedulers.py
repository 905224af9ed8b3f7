"""Optimizers and learning-rate schedulers beyond the training loop: every option of SGD,
Adam, AdamW and RMSprop over a few steps, parameters without a gradient, state_dict and
load_state_dict (resuming gives the same numbers), parameter groups, zero_grad, the
errors of bad arguments, and the schedulers' rates and state."""
# tolerance: rtol=1e-5 atol=1e-7
import torch

import copy
import warnings

import numpy as np

rng = np.random.default_rng(7)
W0 = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
B0 = np.linspace(-0.5, 0.5, 2, dtype=np.float32)
X = torch.tensor(rng.uniform(-1, 1, (5, 3)), dtype=torch.float32)
Y = torch.tensor(rng.uniform(-1, 1, (5, 2)), dtype=torch.float32)


def settings(groups):
    """The groups' settings, every key in its order (foreach, fused, ... included)."""
    return [dict(g) for g in groups]


def fresh():
    """Two parameters, and a third that never gets a gradient."""
    w = torch.nn.Parameter(torch.tensor(W0))
    b = torch.nn.Parameter(torch.tensor(B0))
    unused = torch.nn.Parameter(torch.ones(2))
    return w, b, unused


def loss_of(w, b):
    return ((X @ w + b - Y) ** 2).mean()


def run(make, steps=4, params=None):
    """Take ``steps`` steps; print the loss, the parameters and the unused one."""
    w, b, unused = params if params is not None else fresh()
    opt = make([w, b, unused])
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_of(w, b)
        loss.backward()
        opt.step()
    print(f"  loss {loss.item():.7f}", [round(v, 6) for v in w.flatten().tolist()],
          [round(v, 6) for v in b.tolist()], unused.tolist(), unused.grad)
    return opt, (w, b, unused)


print("SGD")
for kwargs in [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, dampening=0.3),
               dict(lr=0.1, momentum=0.8, nesterov=True), dict(lr=0.1, weight_decay=0.05),
               dict(lr=0.1, momentum=0.5, weight_decay=0.1, maximize=True),
               dict(lr=0.05, momentum=0.9, foreach=None)]:
    print(" ", kwargs)
    run(lambda ps, kw=kwargs: torch.optim.SGD(ps, **kw))

print("Adam")
for kwargs in [dict(lr=0.05), dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6), dict(lr=0.05, amsgrad=True),
               dict(lr=0.05, weight_decay=0.1), dict(lr=0.05, weight_decay=0.1, maximize=True),
               dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
               dict(lr=0.05, foreach=None)]:
    print(" ", kwargs)
    run(lambda ps, kw=kwargs: torch.optim.Adam(ps, **kw))

print("AdamW")
for kwargs in [dict(lr=0.05), dict(lr=0.05, weight_decay=0.3, amsgrad=True),
               dict(lr=0.05, betas=(0.5, 0.9), maximize=True)]:
    print(" ", kwargs)
    run(lambda ps, kw=kwargs: torch.optim.AdamW(ps, **kw))

print("RMSprop")
for kwargs in [dict(lr=0.01), dict(lr=0.01, alpha=0.9, momentum=0.5), dict(lr=0.01, centered=True),
               dict(lr=0.01, centered=True, momentum=0.3, weight_decay=0.1, maximize=True)]:
    print(" ", kwargs)
    run(lambda ps, kw=kwargs: torch.optim.RMSprop(ps, **kw))

# The settings each group holds, in their order.
for cls in [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop]:
    print(cls.__name__, list(settings(cls(fresh()[:2], lr=0.1).param_groups)[0]))

# state_dict: state keyed by position, parameters without a gradient have no state.
opt, params = run(lambda ps: torch.optim.Adam(ps, lr=0.05, amsgrad=True), steps=3)
sd = opt.state_dict()
print(list(sd), list(sd["state"]), settings(sd["param_groups"]))
for i, st in sd["state"].items():
    print(i, list(st), st["step"], st["exp_avg"].shape, st["max_exp_avg_sq"].dtype)
print(len(opt.state), params[2] in opt.state)

# state_dict() holds the optimizer's own state tensors: save (here: deep-copy) it to keep it.
print(sd["state"][0] is opt.state[params[0]], sd["state"][0]["exp_avg"] is opt.state[params[0]]["exp_avg"])
print(opt)
sharing = torch.optim.Adam(fresh(), lr=0.05, amsgrad=True)
sharing.load_state_dict(sd)              # loaded straight from state_dict(): the same tensors
loaded = sharing.state[sharing.param_groups[0]["params"][0]]
print(loaded is sd["state"][0], loaded["exp_avg"] is sd["state"][0]["exp_avg"], loaded["step"] is sd["state"][0]["step"])
saved = copy.deepcopy(sd)

# Resume: a fresh optimizer loaded with the saved state continues exactly as the first does.
saved_params = [p.detach().clone() for p in params]
run(lambda ps: opt, steps=2, params=params)
copies = [torch.nn.Parameter(t.clone()) for t in saved_params]
resumed = torch.optim.Adam(copies, lr=0.3)
resumed.load_state_dict(saved)
print(resumed.param_groups[0]["lr"], resumed.param_groups[0]["params"][0] is copies[0],
      resumed.state[copies[0]]["step"], saved["state"][0]["step"])
run(lambda ps: resumed, steps=2, params=copies)

# A float64 parameter loads the state in float64.
double = torch.nn.Parameter(torch.tensor(W0, dtype=torch.float64))
d_opt = torch.optim.Adam([double, torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.ones(2))])
d_opt.load_state_dict(saved)
print(d_opt.state[double]["exp_avg"].dtype, d_opt.state[double]["step"].dtype)

# Named parameters: the names are kept in the groups and in the state dict.
lin = torch.nn.Linear(3, 2)
named = torch.optim.SGD(lin.named_parameters(), lr=0.1, momentum=0.9)
print(named.param_groups[0]["param_names"], settings(named.state_dict()["param_groups"]))
show_names = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
try:
    show_names.add_param_group({"params": lin.named_parameters()})
except ValueError as e:
    print(type(e).__name__, e)

# A parameter given twice in a group: positions count every entry, as listed.
a, c = torch.nn.Parameter(torch.ones(1)), torch.nn.Parameter(torch.ones(1))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    twice = torch.optim.SGD([{"params": [a, c, a]}, {"params": [torch.nn.Parameter(torch.ones(1))]}])
print(twice.state_dict()["param_groups"][0]["params"], twice.state_dict()["param_groups"][1]["params"])

sgd, params = run(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), steps=2)
sd = sgd.state_dict()
print(list(sd["state"][0]), sd["state"][1]["momentum_buffer"])
plain, _ = run(lambda ps: torch.optim.SGD(ps, lr=0.1), steps=1)
print(plain.state_dict()["state"])

# Parameter groups: one lr per group, add_param_group with the defaults filled in.
w, b, unused = fresh()
opt = torch.optim.SGD([{"params": [w]}, {"params": b, "lr": 0.01, "momentum": 0.5}], lr=0.1)
extra = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
opt.add_param_group({"params": [extra], "weight_decay": 0.2})
print([g["lr"] for g in opt.param_groups], [g["momentum"] for g in opt.param_groups],
      [g["weight_decay"] for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups])
for _ in range(3):
    opt.zero_grad()
    (loss_of(w, b) + (extra ** 2).sum()).backward()
    opt.step()
print([round(v, 6) for v in b.tolist()], extra.tolist())
print(settings(opt.state_dict()["param_groups"]))

# zero_grad: None by default, zeros with set_to_none=False.
opt.zero_grad(set_to_none=False)
print(w.grad.abs().sum().item(), b.grad.tolist(), extra.grad.tolist())
opt.zero_grad()
print(w.grad, b.grad, extra.grad)
# A zero gradient (not None) still moves a parameter with momentum.
opt.zero_grad(set_to_none=False)
before = b.detach().clone()
loss_of(w, b).backward()
opt.zero_grad(set_to_none=False)
opt.step()
print((b - before).tolist())

# Errors.
w, b, unused = fresh()


def show(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            print("  ok")
        except Exception as e:
            print(" ", type(e).__name__, e)
    for c in caught:
        print("  warning:", c.category.__name__, c.message)


show(lambda: torch.optim.SGD([w], lr=-0.1))
show(lambda: torch.optim.SGD([w], lr=0.1, momentum=-1))
show(lambda: torch.optim.SGD([w], lr=0.1, weight_decay=-1e-3))
show(lambda: torch.optim.SGD([w], lr=0.1, nesterov=True))
show(lambda: torch.optim.SGD([w], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True))
show(lambda: torch.optim.Adam([w], lr=-1.0))
show(lambda: torch.optim.Adam([w], eps=-1.0))
show(lambda: torch.optim.Adam([w], betas=(0.9, 1.0)))
show(lambda: torch.optim.Adam([w], betas=(-0.1, 0.9)))
show(lambda: torch.optim.Adam([w], weight_decay=-0.5))
show(lambda: torch.optim.AdamW([w], lr=-0.5))
show(lambda: torch.optim.RMSprop([w], alpha=-0.5))
show(lambda: torch.optim.RMSprop([w], momentum=-0.5))
show(lambda: torch.optim.SGD([], lr=0.1))
show(lambda: torch.optim.SGD(w, lr=0.1))
show(lambda: torch.optim.SGD({w, b}, lr=0.1))
show(lambda: torch.optim.SGD([w, b, w], lr=0.1))
show(lambda: torch.optim.SGD([{"params": [w]}, {"params": [b, w]}], lr=0.1))
show(lambda: torch.optim.SGD([w * 2], lr=0.1))
show(lambda: torch.optim.SGD([w]).add_param_group({"params": [w]}))
show(lambda: torch.optim.SGD([w]).add_param_group([b]))
show(lambda: torch.optim.SGD([w], lr=0.1, foreach=True, fused=True))
show(lambda: torch.optim.Adam([w], lr=0.1, foreach=False, fused=None, capturable=False))
opt = torch.optim.SGD([w, b], lr=0.1)
show(lambda: opt.load_state_dict({"state": {}, "param_groups": []}))
show(lambda: opt.load_state_dict({"state": {}, "param_groups": [{"params": [0], "lr": 0.2}]}))

# Schedulers: optimizer.step() then scheduler.step(), the rates over the epochs.
def schedule(make, epochs=8, lr=0.1, groups=1):
    params = [torch.nn.Parameter(torch.zeros(1)) for _ in range(groups)]
    opt = torch.optim.SGD([{"params": [p], "lr": lr * (i + 1)} for i, p in enumerate(params)],
                          lr=lr, momentum=0.9)
    sched = make(opt)
    rates = [sched.get_last_lr()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(epochs):
            opt.step()
            sched.step()
            rates.append(sched.get_last_lr())
    print(type(sched).__name__, [[f"{r:.10g}" for r in rs] for rs in rates], len(caught))
    return opt, sched


S = torch.optim.lr_scheduler
schedule(lambda o: S.StepLR(o, step_size=3, gamma=0.5))
schedule(lambda o: S.StepLR(o, step_size=2), groups=2)
schedule(lambda o: S.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.3))
schedule(lambda o: S.ExponentialLR(o, gamma=0.9))
schedule(lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.01), epochs=10)
schedule(lambda o: S.CosineAnnealingLR(o, T_max=3), groups=2)
schedule(lambda o: S.LambdaLR(o, lr_lambda=lambda e: 1 / (1 + e)))
schedule(lambda o: S.LambdaLR(o, lr_lambda=[lambda e: 0.9 ** e, lambda e: e + 1]), groups=2)
schedule(lambda o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.95))
schedule(lambda o: S.LinearLR(o))
schedule(lambda o: S.LinearLR(o, start_factor=0.5, end_factor=0.1, total_iters=4))

# Two schedulers on the same optimizer: their changes compose.
params = [torch.nn.Parameter(torch.zeros(1))]
opt = torch.optim.SGD(params, lr=1.0)
first, second = S.ExponentialLR(opt, gamma=0.9), S.StepLR(opt, step_size=2, gamma=0.1)
for epoch in range(5):
    opt.step()
    first.step()
    second.step()
    print(epoch, f"{opt.param_groups[0]['lr']:.12g}", first.get_last_lr(), second.get_last_lr())
print(opt.param_groups[0]["initial_lr"], first.base_lrs, second.last_epoch)

# Scheduler state: everything but the optimizer; loading it resumes the schedule.
opt, sched = schedule(lambda o: S.StepLR(o, step_size=3, gamma=0.5), epochs=4)
state = sched.state_dict()
print(state)
opt2 = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
opt2.load_state_dict(opt.state_dict())
sched2 = S.StepLR(opt2, step_size=10)
sched2.load_state_dict(state)
for _ in range(3):
    opt2.step()
    sched2.step()
print(sched2.get_last_lr(), sched2.last_epoch, opt2.param_groups[0]["lr"])
_, lam = schedule(lambda o: S.LambdaLR(o, lr_lambda=lambda e: 0.5 ** e), epochs=2)
print(lam.state_dict())
_, cos = schedule(lambda o: S.CosineAnnealingLR(o, T_max=5), epochs=2)
print(sorted(cos.state_dict()))

# scheduler.step() before optimizer.step() warns once.
opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
sched = S.StepLR(opt, step_size=1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sched.step()
    sched.step()
print([c.category.__name__ for c in caught], sched.get_last_lr())

# Errors of the schedulers.
show(lambda: S.StepLR("not an optimizer", step_size=2))
show(lambda: S.LinearLR(torch.optim.SGD([w]), start_factor=0))
show(lambda: S.LinearLR(torch.optim.SGD([w]), end_factor=1.5))
show(lambda: S.LambdaLR(torch.optim.SGD([w]), lr_lambda=[lambda e: 1, lambda e: 2]))
show(lambda: S.StepLR(torch.optim.SGD([b]), step_size=2, last_epoch=3))


# The deprecated scheduler.step(epoch): the closed form where there is one (it warns).
def one_group_sgd(lr=0.1):
    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr)


for make in [lambda o: S.StepLR(o, 2, 0.5), lambda o: S.MultiStepLR(o, [2, 4], 0.1),
             lambda o: S.ExponentialLR(o, 0.5), lambda o: S.CosineAnnealingLR(o, 10),
             lambda o: S.LinearLR(o, 0.5, total_iters=3)]:
    opt = one_group_sgd()
    sched = make(opt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rates = []
        for epoch in [1, 2, 5, 3]:
            opt.step()
            sched.step(epoch)
            rates.append(f"{sched.get_last_lr()[0]:.12g}")
    print(type(sched).__name__, rates, len(caught))


# A LambdaLR over a callable object saves and loads the object's attributes.
class Decay:
    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


opt = one_group_sgd()
lam = S.LambdaLR(opt, Decay(0.5))
opt.step()
lam.step()
other = Decay(0.1)
lam2 = S.LambdaLR(one_group_sgd(), other)
lam2.load_state_dict(lam.state_dict())
print(lam.state_dict()["lr_lambdas"], other.rate, lam2.last_epoch, lam2.get_last_lr())

# Replacing optimizer.step after making the scheduler: a different warning.
opt = one_group_sgd()
sched = S.StepLR(opt, 2)
opt.step = lambda closure=None: None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sched.step()
print([str(c.message)[:60] for c in caught])
