"""Global module hooks (torch.nn.modules.module.register_module_*): forward pre-hooks and hooks
(with kwargs) on every module of a model, before each module's own; what they return replaces
the input or output; full backward pre-hooks and hooks in their order with the module's own,
replacing gradients; and removal."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

hooks = torch.nn.modules.module
log = []


def rounded(tensors):
    return [None if t is None else [round(v, 4) for v in t.flatten().tolist()] for t in tensors]


lin = torch.nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
    lin.bias.fill_(0.1)
model = torch.nn.Sequential(lin, torch.nn.Tanh())

print("== forward")
handles = [hooks.register_module_forward_pre_hook(lambda m, args: log.append(("global pre", type(m).__name__))),
           hooks.register_module_forward_hook(lambda m, args, out: log.append(("global", type(m).__name__))),
           hooks.register_module_forward_hook(lambda m, args, kwargs, out: log.append(
               ("global kwargs", type(m).__name__, sorted(kwargs))), with_kwargs=True)]
lin.register_forward_pre_hook(lambda m, args: log.append(("own pre", "Linear")), prepend=True)
lin.register_forward_hook(lambda m, args, out: log.append(("own", "Linear")), prepend=True)
model(torch.ones(1, 2))
print(log)
log.clear()
for handle in handles:
    handle.remove()
model(torch.ones(1, 2))
print("after remove:", log)
log.clear()
doubling = hooks.register_module_forward_pre_hook(lambda m, args: (args[0] * 2,) if isinstance(m, torch.nn.Linear) else None)
shifting = hooks.register_module_forward_hook(lambda m, args, out: out + 1 if isinstance(m, torch.nn.Tanh) else None)
print("replaced:", rounded([model(torch.ones(1, 2))]))
doubling.remove()
shifting.remove()
print("restored:", rounded([model(torch.ones(1, 2))]))

print("== backward")
x = torch.ones(1, 2, requires_grad=True)
handles = [hooks.register_module_full_backward_pre_hook(lambda m, go: log.append(("global pre", type(m).__name__, rounded(go)))),
           hooks.register_module_full_backward_hook(lambda m, gi, go: log.append(("global", type(m).__name__, rounded(gi))))]
lin.register_full_backward_hook(lambda m, gi, go: log.append(("own", "Linear")))
lin.register_full_backward_pre_hook(lambda m, go: log.append(("own pre", "Linear")))
model(x).sum().backward()
for entry in log:
    print(entry)
log.clear()
for handle in handles:
    handle.remove()
x.grad = None
model(x).sum().backward()
print("after remove:", log, rounded([x.grad]))
log.clear()
scaling = hooks.register_module_full_backward_hook(lambda m, gi, go: tuple(g * 10 for g in gi) if isinstance(m, torch.nn.Linear) else None)
x.grad = None
model(x).sum().backward()
print("grad_input x10:", rounded([x.grad]))
scaling.remove()
zeroing = hooks.register_module_full_backward_pre_hook(lambda m, go: (go[0] * 0,) if isinstance(m, torch.nn.Tanh) else None)
x.grad = None
model(x).sum().backward()
print("grad_output zeroed:", rounded([x.grad]), type(zeroing).__name__)
zeroing.remove()
log.clear()
