"""Each learning-rate scheduler for a dozen epochs, two param groups where it matters,
ReduceLROnPlateau's modes, SequentialLR and ChainedScheduler, state_dict round trips,
and the scheduler errors."""
# tolerance: rtol=1e-6 atol=1e-9
import torch

import warnings

from _printing import attempt


def optimizer(lr=0.1, second=None, momentum=0.9):
    w = torch.zeros(2, requires_grad=True)
    groups = [{"params": [w]}]
    if second is not None:
        groups.append({"params": [torch.zeros(1, requires_grad=True)], "lr": second})
    return torch.optim.SGD(groups, lr=lr, momentum=momentum)


def run(label, make, epochs=12, second=0.01):
    opt = optimizer(second=second)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = make(opt)
        lrs = []
        for _ in range(epochs):
            opt.step()
            sched.step()
            lrs.append([round(lr, 8) for lr in sched.get_last_lr()])
    print(f"{label}: {lrs}")
    return opt, sched


S = torch.optim.lr_scheduler
print("== schedulers")
run("StepLR", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
run("MultiStepLR", lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.1))
run("ExponentialLR", lambda o: S.ExponentialLR(o, gamma=0.8))
run("CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.001))
run("CosineAnnealingWarmRestarts", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01))
run("LambdaLR", lambda o: S.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e]))
run("MultiplicativeLR", lambda o: S.MultiplicativeLR(o, lambda e: 0.95))
run("LinearLR", lambda o: S.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4))
run("ConstantLR", lambda o: S.ConstantLR(o, factor=0.5, total_iters=3))
run("PolynomialLR", lambda o: S.PolynomialLR(o, total_iters=6, power=2.0))
run("OneCycleLR", lambda o: S.OneCycleLR(o, max_lr=[1.0, 0.1], total_steps=12), second=0.01)
run("OneCycleLR linear three_phase",
    lambda o: S.OneCycleLR(o, max_lr=0.5, epochs=3, steps_per_epoch=4, anneal_strategy="linear",
                           three_phase=True, pct_start=0.25))
run("CyclicLR triangular2", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"))
run("CyclicLR exp_range", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=1,
                                               mode="exp_range", gamma=0.9))
opt, sched = run("SequentialLR", lambda o: S.SequentialLR(
    o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.5)], milestones=[4]))
run("ChainedScheduler", lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=4),
                                                      S.ExponentialLR(o, gamma=0.9)]))
opt, _ = run("CyclicLR momentum", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                       base_momentum=0.8, max_momentum=0.9), epochs=3)
print("momentum cycled:", [round(g["momentum"], 6) for g in opt.param_groups])

print("== ReduceLROnPlateau")
for kwargs in ({"mode": "min", "patience": 1, "factor": 0.5},
               {"mode": "max", "patience": 0, "factor": 0.1, "threshold": 0.1, "threshold_mode": "abs"},
               {"mode": "min", "patience": 1, "cooldown": 2, "min_lr": 0.02}):
    opt = optimizer(second=0.05)
    sched = S.ReduceLROnPlateau(opt, **kwargs)
    metrics = [1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 0.5, 0.6, 0.7, 0.8]
    lrs = []
    for m in metrics:
        sched.step(m)
        lrs.append([round(g["lr"], 8) for g in opt.param_groups])
    print(kwargs["mode"], lrs, sched.num_bad_epochs, sched.best)

print("== state")
opt = optimizer()
sched = S.StepLR(opt, step_size=2, gamma=0.5)
for _ in range(3):
    opt.step()
    sched.step()
sd = sched.state_dict()
print(sorted(sd), sd["last_epoch"], sd["base_lrs"], sched.last_epoch)
opt2 = optimizer()
sched2 = S.StepLR(opt2, step_size=5, gamma=0.9)
sched2.load_state_dict(sd)
print("loaded:", sched2.step_size, sched2.last_epoch, sched2.get_last_lr(), opt2.param_groups[0]["lr"])
print("initial_lr:", opt.param_groups[0]["initial_lr"], "lr:", opt.param_groups[0]["lr"])
lam = S.LambdaLR(optimizer(), lambda e: 0.5)
print("LambdaLR state:", sorted(lam.state_dict()), lam.state_dict()["lr_lambdas"])

print("== errors")
attempt("OneCycleLR without total_steps:", lambda: S.OneCycleLR(optimizer(), max_lr=0.1))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")             # stepped before optimizer.step(): torch warns
    one_cycle = S.OneCycleLR(optimizer(), max_lr=0.1, total_steps=2)
    attempt("OneCycleLR stepped past the end:", lambda: [one_cycle.step() for _ in range(3)])
attempt("wrong lambda count:", lambda: S.LambdaLR(optimizer(second=0.1), [lambda e: 1.0]))
attempt("plateau bad mode:", lambda: S.ReduceLROnPlateau(optimizer(), mode="middle"))
attempt("plateau factor:", lambda: S.ReduceLROnPlateau(optimizer(), factor=1.5))
attempt("LinearLR bad start:", lambda: S.LinearLR(optimizer(), start_factor=0.0))
attempt("ConstantLR bad factor:", lambda: S.ConstantLR(optimizer(), factor=2.0))
attempt("CosineAnnealingWarmRestarts T_0:", lambda: S.CosineAnnealingWarmRestarts(optimizer(), T_0=0))
attempt("not an optimizer:", lambda: S.StepLR("sgd", step_size=1))
attempt("last_epoch without initial_lr:", lambda: S.StepLR(optimizer(), step_size=1, last_epoch=3))
adam = torch.optim.Adam([torch.zeros(1, requires_grad=True)])
attempt("CyclicLR cycles Adam's beta1:", lambda: type(S.CyclicLR(adam, 0.01, 0.1)).__name__)
print(adam.param_groups[0]["betas"])
attempt("CyclicLR momentum without momentum:",
        lambda: S.CyclicLR(torch.optim.Adagrad([torch.zeros(1, requires_grad=True)]), 0.01, 0.1))
