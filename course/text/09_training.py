# %% [markdown]
# # Assignment 09: Training loops
#
# Every PyTorch training loop repeats four lines:
#
# ```python
# optimizer.zero_grad()              # forget the previous step's gradients
# loss = loss_fn(model(x), y)        # forward: builds the graph
# loss.backward()                    # adds into p.grad for every parameter p
# optimizer.step()                   # updates every p in place
# ```
#
# You write what runs under them, train a network on a toy problem, and in the capstone write the
# training loop itself and train a classifier of handwritten digits to 93% on images it never saw.
#
# | # | exercise | what you write | points |
# |---|---|---|---|
# | 1 | `09.named_members` | the walk behind `named_parameters()` | 5 |
# | 2 | `09.clear_grads` | what `zero_grad` does | 4 |
# | 3 | `09.sgd_update` | a step of SGD with momentum | 5 |
# | 4 | `09.adam_update` | a step of Adam | 6 |
# | 5 | `09.accumulate_gradients` | gradient accumulation | 4 |
# | 6 | `09.clip_grad_norm` | gradient clipping | 5 |
# | 7 | `09.train_epoch` | an epoch of training | 5 |
# | 8 | `09.evaluate` | a classifier's loss and accuracy | 4 |
# | 9 | `09.plateau_step` | the decision of `ReduceLROnPlateau` | 4 |
# | | | **total** | **42** |

# %% [markdown]
# ### How an exercise works
#
# A comment `# PyTorch: ...` says what PyTorch 2.13 prints on that line. In an **answer cell** you
# write a function; its last line, `exercises.plug(...)`, installs it in `autograd_lib`, so the
# demos after it run your code. Each task ends with the rules its test cells check; a failure prints
# what was expected, what was seen and the rule broken, and hidden tests check the same rules on
# random inputs. Calling the library's own version is a `DelegationError`.
#
# **The way out.** From exercise 1 on, every training loop runs your walk through
# `model.parameters()`. If an exercise does not work yet, `exercises.unplug("09.named_members")` (or
# its id) puts the library's version back, and you can go on.

# %% nbgrader={"grade": false, "grade_id": "09_setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np
import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises, nn
from autograd_course import grading
from autograd_course.checks import training as check
from autograd_course.notebook import quietly       # for a demo

_ = ag.manual_seed(0)      # seeds randn, rand and the layers' initialisation

# %% [markdown]
# ## 1. `Parameter`: a tensor to train
#
# A model's weights are leaf tensors that require grad. `nn.Parameter(t)` makes one: a `Tensor`
# subclass that shares `t`'s storage, requires grad by default, and is registered by a module it is
# assigned to. Computing with it gives plain tensors:

# %%
w = nn.Parameter(ag.tensor([1., 2.]))
print(w)            # PyTorch: Parameter containing:
                    #          tensor([1., 2.], requires_grad=True)
print(w.requires_grad, w.is_leaf, type(w).__name__, isinstance(w, ag.Tensor))   # PyTorch: True True Parameter True
print(type(w * 2).__name__, (w * 2).grad_fn.name())                             # PyTorch: Tensor MulBackward0


# %% [markdown]
# ## 2. `Module`: a tree of parameters
#
# A model subclasses `nn.Module`: `__init__` assigns layers and parameters as attributes, and
# `model(x)` calls `forward(x)`. `Module.__setattr__` files a `Parameter` in `self._parameters` and a
# `Module` in `self._modules`; a plain tensor is not registered, so no optimizer will train it:

# %%
class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(ag.ones(3))
        self.offset = ag.zeros(3)               # a plain tensor: not registered

    def forward(self, x):
        return x * self.weight + self.offset

m = Scale()
print(list(m._parameters), "offset" in m.__dict__)       # PyTorch: ['weight'] True
print([name for name, _ in m.named_parameters()])        # PyTorch: ['weight']


# %% [markdown]
# Nor is a plain list of layers (`nn.ModuleList` and `nn.Sequential` are modules). Modules nest, so
# a model is a tree:

# %%
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 4)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(4, 1)
        self.temperature = nn.Parameter(ag.tensor(1.0))

    def forward(self, x):
        return self.head(self.encoder(x)) / self.temperature


net = Net()
print(net)      # PyTorch: Net(
                #            (encoder): Encoder(
                #              (fc): Linear(in_features=2, out_features=4, bias=True)
                #              (act): Tanh()
                #            )
                #            (head): Linear(in_features=4, out_features=1, bias=True)
                #          )
for name, p in net.named_parameters():
    print(f"{name:18} {tuple(p.shape)}")    # PyTorch: temperature        ()
                                            #          encoder.fc.weight  (4, 2)
                                            #          encoder.fc.bias    (4,)
                                            #          head.weight        (1, 4)
                                            #          head.bias          (1,)

# %% [markdown]
# Note that `temperature`, assigned last, comes first. The modules of the tree (the root is `""`),
# and the options `recurse` and `prefix`:

# %%
print([name for name, _ in net.named_modules()])                       # PyTorch: ['', 'encoder', 'encoder.fc', 'encoder.act', 'head']
print([name for name, _ in net.named_parameters(recurse=False)])       # PyTorch: ['temperature']
print([name for name, _ in net.named_parameters(prefix="model")][:2])  # PyTorch: ['model.temperature', 'model.encoder.fc.weight']

# %% [markdown]
# `nn.Sequential` names its layers `"0"`, `"1"`, ...; `Linear(3, 1, bias=False)` registers its
# `bias` as `None`; and an autoencoder may **tie** its decoder's weight to its encoder's, one tensor
# in two modules (an optimizer that got it twice would update it twice):

# %%
seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1, bias=False))
print([name for name, _ in seq.named_parameters()])     # PyTorch: ['0.weight', '0.bias', '2.weight']


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(3, 3, bias=False)
        self.decoder = nn.Linear(3, 3)
        self.decoder.weight = self.encoder.weight        # tied


ae = AutoEncoder()
print([name for name, _ in ae.named_parameters()])                          # PyTorch: ['encoder.weight', 'decoder.bias']
print([name for name, _ in ae.named_parameters(remove_duplicate=False)])    # PyTorch: ['encoder.weight', 'decoder.weight', 'decoder.bias']


# %% [markdown]
# **Buffers** are tensors of a module's state that are not trained (running statistics, class
# weights): `register_buffer(name, t)` files them in `self._buffers`, and `named_buffers()` walks the
# tree as `named_parameters()` does.
#
# ### Exercise 1: `named_members` (5 points)
#
# `named_parameters`, `parameters` and `named_buffers` all call one method, `Module._named_members`;
# only the members they ask for differ:
#
# ```python
# def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
#     return self._named_members(lambda module: module._parameters.items(), prefix, recurse,
#                                remove_duplicate)
# ```
#
# Write `named_members(self, get_members, prefix, recurse, remove_duplicate)`, installed as
# `Module._named_members`: a generator of `(name, tensor)` pairs, the members that
# `get_members(module)` lists in the modules of `self`'s tree, as PyTorch gives them. The cells above
# are worked examples (PyTorch's output in their comments): for `net`, `temperature`,
# `encoder.fc.weight`, `encoder.fc.bias`, `head.weight`, `head.bias`.
#
# **Rules**
# - `pairs`: it yields `(name, tensor)` pairs.
# - `order`: the pairs come in PyTorch's order, for any tree (`temperature` first, above).
# - `names`: the names are PyTorch's (`encoder.fc.weight`, `0.weight`, `temperature`).
# - `prefix`: with a `prefix`, the names are PyTorch's (`model.temperature`).
# - `recurse`: with `recurse=False`, the pairs are PyTorch's (`['temperature']` for `net`).
# - `members`: the members are what `get_members(module)` lists (parameters, buffers, ...).
# - `skip-none`: a member that is `None` gives no pair (`seq`'s missing bias).
# - `once`: with `remove_duplicate=True`, tied weights and a module used twice give PyTorch's pairs
#   (`ae` above).
# - `identity`: two distinct tensors with equal values both give a pair.
# - `every`: with `remove_duplicate=False`, the pairs are PyTorch's (`ae` above), a module used twice
#   included.

# %% nbgrader={"grade": false, "grade_id": "09_named_members_answer", "locked": false, "schema_version": 3, "solution": true}
def named_members(self, get_members, prefix, recurse, remove_duplicate):
    """The (name, tensor) pairs PyTorch's Module._named_members yields for the members
    get_members(module) lists in self's tree."""
    ### BEGIN SOLUTION
    seen = set()
    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
    for module_name, module in modules:
        for name, tensor in get_members(module):
            if tensor is None or tensor in seen:
                continue
            if remove_duplicate:
                seen.add(tensor)
            yield (module_name + "." + name if module_name else name), tensor
    ### END SOLUTION

exercises.plug("09.named_members", named_members)

# %% [markdown]
# `named_parameters()`, `parameters()` and `named_buffers()` now run your walk: the trees above
# again, the number of trainable values in `net`, and a module with buffers:

# %%
print([name for name, _ in net.named_parameters()])
print([name for name, _ in seq.named_parameters()])
print([name for name, _ in ae.named_parameters()], len(list(ae.parameters())), "tensors")
print("trainable values in net:", sum(p.numel() for p in net.parameters()))


class Standardize(nn.Module):
    """(x - mean) / std with fixed statistics: buffers, not parameters."""
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", ag.tensor(mean))
        self.register_buffer("std", ag.tensor(std))

    def forward(self, x):
        return (x - self.mean) / self.std


model = nn.Sequential(Standardize([0.5, -1.0], [2.0, 1.0]), nn.Linear(2, 1))
print([name for name, _ in model.named_buffers()], [name for name, _ in model.named_parameters()])

# %% [markdown]
# **Tests.** A small tree with each option, then `parameters()`, `zero_grad()`, `requires_grad_()`
# and an optimizer; hidden tests walk random trees.

# %% nbgrader={"grade": true, "grade_id": "09_named_members_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.named_members(named_members)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import expect_walk, labelled, walk, walk_rule

ATTRIBUTES = ["stem", "body", "head", "proj", "gate", "core", "tail", "norm", "mix", "lift"]


def random_module(rng, depth, made):
    """A random module tree: parameters (some None, some tied), buffers (some None, some shared),
    Sequentials, Tanhs, and submodules used twice. made collects the parameters, buffers and modules."""
    if depth and rng.integers(4) == 0:
        module = nn.Tanh()
    elif depth < 3 and rng.integers(4) == 0:
        module = nn.Sequential(*[random_module(rng, depth + 1, made) for _ in range(int(rng.integers(1, 4)))])
    else:
        module = nn.Module()
        for name in [ATTRIBUTES[int(j)] for j in rng.permutation(len(ATTRIBUTES))[:int(rng.integers(1, 6))]]:
            kind = int(rng.integers(8))
            if kind <= 1:
                made["params"].append(nn.Parameter(ag.tensor(rng.standard_normal(int(rng.integers(1, 3))))))
                setattr(module, name, made["params"][-1])
            elif kind == 2:
                module.register_parameter(name, None)
            elif kind == 3 and made["params"]:                                  # tied
                setattr(module, name, made["params"][int(rng.integers(len(made["params"])))])
            elif kind == 4:
                choice = int(rng.integers(3))
                if choice == 0:
                    module.register_buffer(name, None)
                elif choice == 1 and made["buffers"]:                           # shared
                    module.register_buffer(name, made["buffers"][int(rng.integers(len(made["buffers"])))])
                else:
                    made["buffers"].append(ag.tensor(rng.standard_normal(int(rng.integers(1, 3)))))
                    module.register_buffer(name, made["buffers"][-1])
            elif kind == 5 and made["modules"]:                                 # a module used twice
                setattr(module, name, made["modules"][int(rng.integers(len(made["modules"])))])
            elif depth < 3:
                setattr(module, name, random_module(rng, depth + 1, made))
    made["modules"].append(module)
    return module


def tensor_labels(module, labels):
    """Label every parameter and buffer of the tree (by identity) t0, t1, ... in the order of a walk."""
    for t in list(module._parameters.values()) + list(module._buffers.values()):
        if t is not None and id(t) not in labels:
            labels[id(t)] = f"t{len(labels)}"
    for child in module._modules.values():
        if child is not None:
            tensor_labels(child, labels)
    return labels


trees = []
for rng in grading.random_cases(seed=902, count=8):
    made = {"params": [], "buffers": [], "modules": []}
    tree = random_module(rng, 0, made)
    prefix = ["net", "backbone", "m", "model2"][int(rng.integers(4))]
    options = [("parameters", "", True, True), ("parameters", prefix, True, True), ("parameters", "", False, True),
               ("buffers", "", True, True), ("parameters", "", True, False),
               (["parameters", "buffers"][int(rng.integers(2))], prefix, bool(rng.integers(2)), bool(rng.integers(2)))]
    trees.append((tree, tensor_labels(tree, {}), options))
expected, seen = grading.side_by_side(
    "09.named_members", named_members,
    lambda _: [[labelled(walk(tree, *o), labels) for o in options] for tree, labels, options in trees])
for i, ((tree, labels, options), seen_tree, expected_tree) in enumerate(zip(trees, seen, expected)):
    for (members, prefix, recurse, remove_duplicate), s, e in zip(options, seen_tree, expected_tree):
        expect_walk(s, e, f"the (name, tensor) pairs of random module tree #{i}, members={members!r}, "
                          f"prefix={prefix!r}, recurse={recurse}, remove_duplicate={remove_duplicate}",
                    walk_rule(s, e, members, prefix, recurse, remove_duplicate))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "09_named_members_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.named_members_in_the_library(named_members)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import expect_walk, labelled, walk, walk_rule

def random_tree(rng, labels, pool, depth=0):
    """A random module tree: parameters (some None, some tied), buffers, shared submodules."""
    module = nn.Module()
    for i in range(int(rng.integers(0, 4))):
        kind = int(rng.integers(5))
        if kind == 0:
            module.register_parameter(f"p{i}", None)
        elif kind == 1 and pool["params"]:
            setattr(module, f"p{i}", pool["params"][int(rng.integers(len(pool["params"])))])
        else:
            p = nn.Parameter(ag.zeros(int(rng.integers(1, 3))))
            labels[id(p)] = f"param{len(labels)}"
            pool["params"].append(p)
            setattr(module, f"p{i}", p)
    for i in range(int(rng.integers(0, 3))):
        if rng.integers(3) == 0:
            module.register_buffer(f"b{i}", None)
        elif rng.integers(3) == 0 and pool["buffers"]:
            module.register_buffer(f"b{i}", pool["buffers"][int(rng.integers(len(pool["buffers"])))])
        else:
            b = ag.zeros(2)
            labels[id(b)] = f"buffer{len(labels)}"
            pool["buffers"].append(b)
            module.register_buffer(f"b{i}", b)
    if depth < 3:
        for i in range(int(rng.integers(0, 4 - depth))):
            if rng.integers(4) == 0 and pool["modules"]:
                child = pool["modules"][int(rng.integers(len(pool["modules"])))]
            else:
                child = random_tree(rng, labels, pool, depth + 1)
            setattr(module, f"m{i}", child)
    pool["modules"].append(module)
    return module


OPTIONS = [(members, prefix, recurse, remove_duplicate) for members in ("parameters", "buffers")
           for prefix in ("", "net") for recurse in (True, False) for remove_duplicate in (True, False)]
trees = []
for rng in grading.random_cases(seed=901, count=24):
    labels = {}
    trees.append((random_tree(rng, labels, {"params": [], "buffers": [], "modules": []}), labels))
expected, seen = grading.side_by_side(
    "09.named_members", named_members,
    lambda _: [[labelled(walk(tree, *options), labels) for options in OPTIONS] for tree, labels in trees])
for i, (seen_tree, expected_tree) in enumerate(zip(seen, expected)):
    for options, s, e in zip(OPTIONS, seen_tree, expected_tree):
        members, prefix, recurse, remove_duplicate = options
        expect_walk(s, e, f"the named {members} of random module tree #{i} with prefix={prefix!r}, "
                          f"recurse={recurse}, remove_duplicate={remove_duplicate}",
                    walk_rule(s, e, members, prefix, recurse, remove_duplicate))
### END HIDDEN TESTS

# %% [markdown]
# ## 3. `Linear` and the losses
#
# `nn.Linear(in_features, out_features)` computes `x @ weight.T + bias`, with `weight` of shape
# `(out_features, in_features)`. It starts uniform in $\pm 1/\sqrt{\text{in}}$, as in PyTorch but from
# another random generator, so to compare outputs with PyTorch we set the weights by hand, under
# `no_grad`:

# %%
lin = nn.Linear(3, 2)
with ag.no_grad():
    lin.weight.copy_(ag.tensor([[1., 0., -1.], [0.5, 0.5, 0.5]]))
    lin.bias.copy_(ag.tensor([0.1, -0.2]))
x = ag.tensor([[1., 2., 3.], [0., -1., 4.]])
print(lin(x))                           # PyTorch: tensor([[-1.9000,  2.8000],
                                        #                  [-3.9000,  1.3000]], grad_fn=<AddmmBackward0>)
print(x @ lin.weight.T + lin.bias)      # PyTorch: tensor([[-1.9000,  2.8000],
                                        #                  [-3.9000,  1.3000]], grad_fn=<AddBackward0>)

# %% [markdown]
# A loss is a module without parameters. `nn.MSELoss()` is the mean squared difference;
# `nn.CrossEntropyLoss()` takes logits of shape `(N, C)` and each sample's class, and averages
# $-\log \mathrm{softmax}$ of the right class over the samples (assignment 05):

# %%
print(nn.MSELoss()(ag.tensor([1., 2., 3.]), ag.tensor([1.5, 2., 1.])))     # PyTorch: tensor(1.4167)
logits = ag.tensor([[2.0, 0.5], [0.1, 1.2], [1.0, 1.0]])
labels = ag.tensor([0, 1, 1])
print(nn.CrossEntropyLoss()(logits, labels))                    # PyTorch: tensor(0.3940)
print(nn.CrossEntropyLoss(reduction="none")(logits, labels))    # PyTorch: tensor([0.2014, 0.2873, 0.6931])

# %% [markdown]
# ## 4. The training loop, and why it clears the gradients
#
# An optimizer gets the tensors it trains, `ag.optim.SGD(model.parameters(), lr=0.1)`, and
# `optimizer.step()` updates each in place from its `.grad` (plain gradient descent:
# `p -= lr * p.grad`). A line fitted twice from the same start, with and without `zero_grad()`:

# %%
rng = np.random.default_rng(0)
x_line = rng.uniform(-2, 2, size=(32, 1))
y_line = 2 * x_line - 1 + rng.normal(0, 0.3, size=(32, 1))
X_line, Y_line = ag.tensor(x_line), ag.tensor(y_line)


def fit_line(clear_grads, steps=50, lr=0.1):
    """Fit Linear(1, 1) to the line data; returns the model and the loss of every step."""
    _ = ag.manual_seed(0)                        # the same initial weights in every run
    model = nn.Linear(1, 1, dtype=ag.float64)
    optimizer = ag.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    for _ in range(steps):
        if clear_grads:
            optimizer.zero_grad()
        loss = loss_fn(model(X_line), Y_line)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses


line_model, cleared = fit_line(clear_grads=True)
_, summed = fit_line(clear_grads=False)
print(f"with zero_grad:    final loss {cleared[-1]:.4f}, weight {line_model.weight.item():.3f}, "
      f"bias {line_model.bias.item():.3f}")
print(f"without zero_grad: final loss {summed[-1]:.4f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
left.semilogy(cleared, label="optimizer.zero_grad() at every step")
left.semilogy(summed, label="never cleared")
left.set_xlabel("step")
left.set_ylabel("MSE loss")
left.legend()
left.set_title("the same model, the same data")
right.scatter(x_line[:, 0], y_line[:, 0], s=12, color="gray")
grid = np.linspace(-2, 2, 2)
with ag.no_grad():
    right.plot(grid, line_model(ag.tensor(grid[:, None])).numpy()[:, 0], label="fitted with zero_grad")
right.set_xlabel("x")
right.set_ylabel("y")
right.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# `backward()` **adds** into `.grad` (assignment 04): without `zero_grad`, step $t$ moves by
# $g_1 + \dots + g_t$, old gradients keep pushing, and the loss oscillates.
#
# `zero_grad()` sets each `.grad` to `None`, freeing it; `zero_grad(set_to_none=False)` fills it with
# zeros in place, so its version goes up:

# %%
lin = nn.Linear(2, 1)
lin(ag.ones(1, 2)).sum().backward()
g = lin.weight.grad
print(g)                                                # PyTorch: tensor([[1., 1.]])
lin.zero_grad(set_to_none=False)
print(lin.weight.grad is g, lin.weight.grad, g._version)    # PyTorch: True tensor([[0., 0.]]) 1
lin.zero_grad()
print(lin.weight.grad)                                  # PyTorch: None


# %% [markdown]
# An optimizer skips a parameter whose `.grad` is `None`, but zeros are a gradient: with momentum, a
# parameter that gets zeros keeps moving (the demo after the exercise shows it).
#
# ### Exercise 2: `clear_grads` (4 points)
#
# Both `zero_grad`s call `clear_grads(self.parameters(), set_to_none)`. Write
# `clear_grads(params, set_to_none=True)`, for any iterable of tensors, so that it does what
# PyTorch's `zero_grad` does. The hard part is a `.grad` in a graph: after
# `backward(create_graph=True)` it has a `grad_fn` (assignment 06), and you may set a `.grad` that
# requires grad, or a view of another tensor. What PyTorch leaves:
#
# ```python
# x = torch.tensor([1., 2.], requires_grad=True)
# (x ** 3).sum().backward(create_graph=True)
# g = x.grad                                  # tensor([ 3., 12.], grad_fn=<CopyBackwards>)
# torch.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False)
# print(x.grad, x.grad is g, g.requires_grad) # tensor([0., 0.]) True False
# ```
#
# **Rules**
# - `to-none`: with `set_to_none=True` (the default), every `.grad` is `None` afterwards.
# - `skip`: a `.grad` that is `None` stays `None`.
# - `read-once`: `params` may be any iterable, read once (a generator).
# - `same`: with `set_to_none=False`, `.grad` is still the same tensor (`x.grad is g` above), and
#   one that views another tensor shows its zeros in that tensor too.
# - `zeros`: every element reads exactly 0, even one that was `nan` or `inf`.
# - `version`: the version of `.grad` goes up by exactly 1.
# - `cut`: afterwards `.grad` has no `grad_fn` and does not require grad (`g.requires_grad` above).

# %% nbgrader={"grade": false, "grade_id": "09_clear_grads_answer", "locked": false, "schema_version": 3, "solution": true}
def clear_grads(params, set_to_none=True):
    """What PyTorch's zero_grad(set_to_none) does to the .grad of every tensor of params
    (any iterable). Returns None."""
    ### BEGIN SOLUTION
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
    ### END SOLUTION

exercises.plug("09.clear_grads", clear_grads)

# %% [markdown]
# Both `zero_grad`s now call your function: the experiment with an unused parameter `b`, and a
# gradient with a graph:

# %%
for set_to_none in (True, False):
    a = ag.tensor(1.0, requires_grad=True)
    b = ag.tensor(1.0, requires_grad=True)
    optimizer = ag.optim.SGD([a, b], lr=0.1, momentum=0.9)
    optimizer.zero_grad(); (a * b).backward(); optimizer.step()     # both are used once
    for _ in range(3):
        optimizer.zero_grad(set_to_none=set_to_none)
        (a ** 2).backward()                                          # b is not used any more
        optimizer.step()
    print(set_to_none, round(a.item(), 4), round(b.item(), 4), b.grad)     # PyTorch: True -0.1233 0.9 None
                                                                           #          False -0.1233 0.6561 tensor(0.)

x = ag.tensor([1., 2.], requires_grad=True)
quietly(lambda: (x ** 3).sum().backward(create_graph=True))
g = x.grad
print("before:", g)                             # PyTorch: tensor([ 3., 12.], grad_fn=<CopyBackwards>)
ag.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False)
print("after: ", x.grad)                        # PyTorch: tensor([0., 0.])
print("same tensor:", x.grad is g)              # PyTorch: True

# %% [markdown]
# **Tests.** Gradients of every kind with each `set_to_none`, then both `zero_grad`s in training
# loops; hidden tests clear random gradients.

# %% nbgrader={"grade": true, "grade_id": "09_clear_grads_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.clear_grads(clear_grads)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import (CLEAR_ONCE, CUT, SAME, SKIP, TO_NONE, VERSION, ZEROS, grad_state,
                                             rounded)
from autograd_course.notebook import outcome

KINDS = ["no .grad", "a plain .grad", "a .grad made with create_graph=True", "a leaf .grad that requires grad",
         "a .grad holding nan or inf", "a .grad that is a view"]


def random_tensors(rng):
    """Float64 tensors with random values, each with .grad in one of the KINDS; (tensor, kind, viewed base)."""
    made = []
    for kind in rng.permutation(len(KINDS))[:int(rng.integers(2, len(KINDS) + 1))]:
        n = int(rng.integers(1, 4))
        p, values, base = ag.tensor(rng.standard_normal(n), requires_grad=True), rng.standard_normal(n), None
        if kind == 1:
            p.grad = ag.tensor(values)
        elif kind == 2:
            quietly(lambda: ((p ** 3).sum() * float(values[0])).backward(create_graph=True))
        elif kind == 3:
            p.grad = ag.tensor(values, requires_grad=True)
        elif kind == 4:
            values[int(rng.integers(n))] = [np.nan, np.inf, -np.inf][int(rng.integers(3))]
            p.grad = ag.tensor(values)
        elif kind == 5:
            base = ag.tensor(rng.standard_normal(n + int(rng.integers(1, 3))))
            p.grad = base[:n]
        made.append((p, KINDS[kind], base))
    return made


cases = []
for rng in grading.random_cases(seed=912, count=8):
    made = random_tensors(rng)
    mode, as_generator = ["True", "False", "the default"][int(rng.integers(3))], bool(rng.integers(2))
    grads = [p._grad for p, _, _ in made]
    cases.append((made, mode, as_generator, grads, [None if g is None else g._version for g in grads],
                  [None if base is None else rounded(base) for _, _, base in made]))
with grading.checking("09.clear_grads", clear_grads):
    results = []
    for made, mode, as_generator, *_ in cases:
        params = (p for p, _, _ in made) if as_generator else [p for p, _, _ in made]
        results.append(outcome(clear_grads, params) if mode == "the default" else
                       outcome(clear_grads, params, mode == "True"))
for i, ((made, mode, as_generator, grads, versions, bases), result) in enumerate(zip(cases, results)):
    call = (f"clear_grads({'a generator of' if as_generator else 'a list of'} {len(made)} random tensors"
            f"{'' if mode == 'the default' else ', ' + mode}) (random case #{i})")
    skipped_none = isinstance(result, str) and "NoneType" in result
    grading.expect_equal(result, None, what=call, rule=SKIP if skipped_none else TO_NONE if mode != "False" else CUT)
    for (p, kind, base), g, version, base_before in zip(made, grads, versions, bases):
        tensor = f"the tensor with {kind} after {call}"
        if g is None:
            grading.expect_equal(p.grad, None, what=f".grad of {tensor}", rule=SKIP)
        elif mode != "False":
            grading.expect_equal(p.grad, None, what=f".grad of {tensor}", rule=CLEAR_ONCE if as_generator else TO_NONE)
        else:
            grading.expect_true(p.grad is g, what=f".grad of {tensor} is the same tensor",
                                seen="None" if p.grad is None else "a new tensor",
                                rule=CLEAR_ONCE if as_generator and p.grad is not None else SAME)
            grading.expect_equal(rounded(p.grad), [0.0] * p.numel(), what=f".grad of {tensor}",
                                 rule=ZEROS if "nan" in kind else SAME)
            grading.expect_equal(g._version - version, 1, what=f"how much .grad._version went up for {tensor}",
                                 rule=VERSION)
            grading.expect_equal(grad_state(p)[1:], (False, False),
                                 what=f"(requires_grad, has a grad_fn) of .grad of {tensor}", rule=CUT)
            if base is not None:
                grading.expect_equal(rounded(base), [0.0] * p.numel() + base_before[p.numel():],
                                     what=f"the tensor that .grad views, for {tensor}", rule=SAME)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "09_clear_grads_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.clear_grads_in_training_loops(clear_grads)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import check_cleared, grad_state
from autograd_course.notebook import outcome

def random_params(seed):
    """Tensors with random .grad states: none, plain, with a graph, a leaf requiring grad, nan/inf, a view."""
    rng = np.random.default_rng(seed)
    params = []
    for _ in range(int(rng.integers(1, 7))):
        n = int(rng.integers(1, 4))
        p = ag.tensor(rng.standard_normal(n), requires_grad=True)
        kind = int(rng.integers(6))
        values = rng.standard_normal(n)
        if kind == 1:
            p.grad = ag.tensor(values)
        elif kind == 2:
            quietly(lambda: ((p ** 3).sum() * float(values[0])).backward(create_graph=True))
        elif kind == 3:
            p.grad = ag.tensor(values, requires_grad=True)
        elif kind == 4:
            values[int(rng.integers(n))] = [np.nan, np.inf, -np.inf][int(rng.integers(3))]
            p.grad = ag.tensor(values)
        elif kind == 5:
            p.grad = ag.tensor(np.concatenate([values, [1.0]]))[:n]
        params.append(p)
    return params


def clear_states(fn, seed, set_to_none, as_generator):
    params = random_params(seed)
    grads = [p._grad for p in params]
    versions = [None if g is None else g._version for g in grads]
    result = outcome(fn, (p for p in params) if as_generator else params, set_to_none)
    return (result, [grad_state(p) for p in params], [p._grad is g for p, g in zip(params, grads)],
            [None if g is None else g._version - v for g, v in zip(grads, versions)])


cases = [(int(rng.integers(2**32)), bool(rng.integers(2)), bool(rng.integers(2)))
         for rng in grading.random_cases(seed=911, count=30)]
expected, seen = grading.side_by_side("09.clear_grads", clear_grads,
                                      lambda fn: [clear_states(fn, *case) for case in cases])
for i, ((seed, set_to_none, as_generator), s, e) in enumerate(zip(cases, seen, expected)):
    check_cleared(s, e, f"random case #{i}: clear_grads({'a generator' if as_generator else 'a list'} of random "
                        f"tensors, set_to_none={set_to_none})", set_to_none)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. SGD with momentum
#
# In a long, narrow valley, plain gradient descent overshoots from wall to wall across it and crawls
# along it. **Momentum** keeps a velocity per parameter, built from the gradients seen so far,
# and moves along it: the zigzags cancel, the steady pull adds up. Three steps on $\sum w^2$, the
# velocity kept in `optimizer.state[w]`:

# %%
w = ag.tensor([1.0, -2.0], requires_grad=True)
optimizer = ag.optim.SGD([w], lr=0.1, momentum=0.9)
for step in range(3):
    optimizer.zero_grad()
    (w ** 2).sum().backward()
    optimizer.step()
    print(step, w.detach(), optimizer.state[w]["momentum_buffer"])    # PyTorch: 0 tensor([ 0.8000, -1.6000]) tensor([ 2., -4.])
                                                                      #          1 tensor([ 0.4600, -0.9200]) tensor([ 3.4000, -6.8000])
                                                                      #          2 tensor([ 0.0620, -0.1240]) tensor([ 3.9800, -7.9600])


# %% [markdown]
# ### Exercise 3: `sgd_update` (5 points)
#
# `SGD.step()` runs under `no_grad` and calls `sgd_update(p, state, lr=..., momentum=...,
# dampening=..., weight_decay=..., nesterov=..., maximize=...)` for each parameter `p` whose `.grad`
# is not `None`; `state` is `optimizer.state[p]`, an empty dict before `p`'s first step. Write it, so
# that after every step `p` and `state["momentum_buffer"]` are PyTorch's, for every combination of
# the options, as PyTorch documents them:
#
# | option | meaning |
# |---|---|
# | `momentum` | $\mu$, how much of the velocity a step keeps (0: no velocity, no state) |
# | `dampening` | $\tau$, a damping of each new gradient's share in the velocity |
# | `weight_decay` | $\lambda$, an L2 penalty $\frac{\lambda}{2}\lVert\theta\rVert^2$ added to the loss |
# | `nesterov` | Nesterov's momentum: the step looks ahead along the velocity |
# | `maximize` | climb the loss instead of descending it |
#
# Where each option enters, and what the first step does, work out from these runs (the gradient is
# always $(1, 1)$; each line is `w` and the velocity after a step):

# %%
def sgd_steps(steps=2, **options):
    """SGD(lr=0.1, **options) from w = [1, -2] on (w * [1, 1]).sum(): w and the velocity after each step."""
    w = ag.tensor([1.0, -2.0], requires_grad=True)
    optimizer = ag.optim.SGD([w], lr=0.1, **options)
    for _ in range(steps):
        optimizer.zero_grad()
        (w * ag.ones(2)).sum().backward()
        optimizer.step()
        print(" ", w.detach(), optimizer.state[w].get("momentum_buffer"))


sgd_steps(momentum=0.9, dampening=0.5)      # PyTorch: tensor([ 0.9000, -2.1000]) tensor([1., 1.])
                                            #          tensor([ 0.7600, -2.2400]) tensor([1.4000, 1.4000])
sgd_steps(momentum=0.5, weight_decay=0.1)   # PyTorch: tensor([ 0.8900, -2.0800]) tensor([1.1000, 0.8000])
                                            #          tensor([ 0.7261, -2.1992]) tensor([1.6390, 1.1920])
sgd_steps(momentum=0.5, nesterov=True)      # PyTorch: tensor([ 0.8500, -2.1500]) tensor([1., 1.])
                                            #          tensor([ 0.6750, -2.3250]) tensor([1.5000, 1.5000])
sgd_steps(1, weight_decay=0.1)              # PyTorch: tensor([ 0.8900, -2.0800]) None
sgd_steps(1, weight_decay=0.1, maximize=True)   # PyTorch: tensor([ 1.0900, -1.8800]) None

# %% [markdown]
# **Rules**
# - `plain`: without momentum, `param` moves by `-lr` times its gradient.
# - `first`: with momentum, after the first step `state["momentum_buffer"]` holds PyTorch's velocity
#   (the first line of each run above).
# - `later`: after each later step it holds PyTorch's velocity, in that same tensor, and `param` is
#   PyTorch's.
# - `decay`: with `weight_decay`, `param` and the velocity are PyTorch's.
# - `nesterov`: with `nesterov=True`, `param` is PyTorch's (the velocity is as without it).
# - `maximize`: with `maximize=True`, `param` climbs the loss: PyTorch's values, with or without
#   `weight_decay`.
# - `copy`: the velocity has memory of its own: a later write into `param.grad` (the next
#   `backward()`, `zero_grad(set_to_none=False)`) never changes it.
# - `in-place`: `param` is updated in place, once: the same tensor, its version up by exactly 1.
# - `grad-kept`: `param.grad` is never changed.

# %% nbgrader={"grade": false, "grade_id": "09_sgd_update_answer", "locked": false, "schema_version": 3, "solution": true}
def sgd_update(param, state, *, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """One step of PyTorch's SGD for one parameter, in place (SGD.step calls it under no_grad).
    Returns None; state["momentum_buffer"] holds the velocity between steps."""
    ### BEGIN SOLUTION
    g = -param.grad if maximize else param.grad
    if weight_decay != 0:
        g = g + weight_decay * param
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = g.detach().clone()
            state["momentum_buffer"] = buf
        else:
            buf.mul_(momentum).add_(g, alpha=1 - dampening)
        g = g + momentum * buf if nesterov else buf
    param.add_(g, alpha=-lr)
    ### END SOLUTION

exercises.plug("09.sgd_update", sgd_update)


# %% [markdown]
# `SGD.step()` now calls your function. The narrow valley, $f(w) = \frac12(w_0^2 + 20\,w_1^2)$, is
# 20 times steeper across than along: plain SGD diverges with a step above $2/20$, and with that step
# it crawls along the valley. Momentum and Nesterov reach the bottom much sooner:

# %%
def valley(w):
    return 0.5 * (w[0] ** 2 + 20 * w[1] ** 2)


def descend(make_optimizer, steps=40):
    """The path of w from (-4, 1) and the loss at every step, minimizing valley(w)."""
    w = ag.tensor([-4.0, 1.0], dtype=ag.float64, requires_grad=True)
    optimizer = make_optimizer([w])
    path, losses = [w.detach().numpy().copy()], []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = valley(w)
        loss.backward()
        optimizer.step()
        path.append(w.detach().numpy().copy())
        losses.append(loss.item())
    return np.array(path), losses


def plot_descents(runs):
    """The paths on the valley's contour lines, and the loss curves."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    g0, g1 = np.meshgrid(np.linspace(-4.5, 1.5, 121), np.linspace(-1.3, 1.3, 81))
    left.contour(g0, g1, 0.5 * (g0 ** 2 + 20 * g1 ** 2), levels=np.geomspace(0.05, 40, 12),
                 colors="lightgray")
    for label, (path, losses) in runs.items():
        left.plot(path[:, 0], path[:, 1], marker="o", markersize=2.5, linewidth=1, label=label)
        right.semilogy(losses, label=label)
    left.set_xlabel("$w_0$")
    left.set_ylabel("$w_1$")
    left.set_title("paths from (-4, 1)")
    right.set_xlabel("step")
    right.set_ylabel("loss")
    right.legend(fontsize="small")
    plt.tight_layout()
    plt.show()


runs = {"SGD, lr=0.09": descend(lambda p: ag.optim.SGD(p, lr=0.09)),
        "momentum 0.7, lr=0.05": descend(lambda p: ag.optim.SGD(p, lr=0.05, momentum=0.7)),
        "Nesterov 0.7, lr=0.05": descend(lambda p: ag.optim.SGD(p, lr=0.05, momentum=0.7, nesterov=True))}
for label, (path, losses) in runs.items():
    print(f"{label:22} loss after 40 steps: {losses[-1]:.2e}")
plot_descents(runs)

# %% [markdown]
# **Tests.** Single steps with each option, worked out by hand, then `SGD.step()` against PyTorch's
# numbers; hidden tests use random options and gradients.

# %% nbgrader={"grade": true, "grade_id": "09_sgd_update_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.sgd_update(sgd_update)
### BEGIN HIDDEN TESTS
from autograd_course.checks.optimizers import (COPY, DECAY, FIRST, GRAD_KEPT, IN_PLACE, LATER, MAXIMIZE,
                                               NESTEROV, PLAIN, param_with_grad, rounded, update)

def numpy_sgd(start, grads, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """PyTorch's SGD in NumPy: (parameter, momentum buffer) after each step."""
    p, buf, after = np.array(start, dtype=float), None, []
    for g in grads:
        g = (-g if maximize else g) + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        after.append((p, buf))
    return after


SCENARIOS = {"plain": (PLAIN, {}), "weight decay": (DECAY, {"weight_decay": None}),
             "maximize": (MAXIMIZE, {"maximize": True}),
             "maximize and weight decay": (MAXIMIZE, {"maximize": True, "weight_decay": None}),
             "momentum and dampening": (LATER, {"momentum": None, "dampening": None}),
             "momentum and weight decay": (DECAY, {"momentum": None, "weight_decay": None}),
             "Nesterov": (NESTEROV, {"momentum": None, "nesterov": True})}
cases = []
for (scenario, (rule, chosen)), rng in zip(SCENARIOS.items(), grading.random_cases(seed=922, count=len(SCENARIOS))):
    options = {"lr": round(float(rng.uniform(0.01, 0.5)), 3), "momentum": 0, "dampening": 0, "weight_decay": 0,
               "nesterov": False, "maximize": False}
    options.update({name: round(float(rng.uniform(0.05, 0.95)), 3) if value is None else value
                    for name, value in chosen.items()})
    shape = [(), (3,), (2, 2)][int(rng.integers(3))]
    start, grads = rng.standard_normal(shape), [rng.standard_normal(shape) for _ in range(2 if options["momentum"] else 1)]
    cases.append((scenario, rule, options, start, grads, numpy_sgd(start, grads, **options)))
with grading.checking("09.sgd_update", sgd_update):
    runs = []
    for scenario, rule, options, start, grads, expected in cases:
        p, state, steps = param_with_grad(start, grads[0]), {}, []
        for step, g in enumerate(grads):
            p.grad = ag.tensor(g, dtype=ag.float64)
            data, version = p._data, p._version
            result = update(sgd_update, p, state, **options)
            buf = state.get("momentum_buffer")
            steps.append((result, (p._data is data, p._version - version), p.detach().numpy().copy(),
                          rounded(p.grad, 12), buf, None if buf is None else buf.numpy().copy(),
                          buf is not None and (buf is p.grad or np.shares_memory(buf._data, p.grad._data))))
        runs.append(steps)
def check_steps(scenario, rule, options, start, grads, expected, steps):
    """The steps of one scenario against NumPy's; rule is the scenario's."""
    first_buffer = steps[0][4]
    for step, ((result, in_place, p, grad, buf, buf_values, shared), (e_p, e_buf), g) in \
            enumerate(zip(steps, expected, grads)):
        call = f"step {step + 1} of SGD ({scenario}) on a random parameter of shape {np.shape(start)}, {options}"
        grading.expect_equal(result, None, what=f"sgd_update at {call}",
                             rule=((FIRST if step == 0 else LATER) if rule == LATER else rule))
        grading.expect_equal(in_place, (True, 1), what=f"(same storage, version increase) of the parameter at {call}",
                             rule=IN_PLACE)
        if options["momentum"]:
            grading.expect_true(isinstance(buf, ag.Tensor), what=f"state['momentum_buffer'] after {call}",
                                seen=repr(buf), rule=FIRST)
            grading.expect_close(buf_values, e_buf, what=f"the momentum buffer after {call}", rtol=1e-12, atol=1e-12,
                                 rule=((FIRST if step == 0 else LATER) if rule == LATER else rule))
            grading.expect_true(buf is first_buffer, what=f"state['momentum_buffer'] is the first buffer after {call}",
                                seen="a new tensor", rule=LATER)
        grading.expect_close(p, e_p, what=f"the parameter after {call}", rtol=1e-12, atol=1e-12,
                             rule=((FIRST if step == 0 else LATER) if rule == LATER else rule))
        grading.expect_equal(grad, rounded(ag.tensor(g), 12), what=f"param.grad after {call}", rule=GRAD_KEPT)
        if options["momentum"] and step == 0:
            grading.expect_true(not shared, what=f"the first momentum buffer has memory of its own ({call})",
                                seen="it is p.grad's memory", rule=COPY)


for case, steps in zip(cases, runs):
    check_steps(*case, steps)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "09_sgd_update_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.sgd_update_in_the_optimizer(sgd_update)
### BEGIN HIDDEN TESTS
from autograd_course.checks.optimizers import check_run, expect_sgd, expect_sgd_flags, sgd_rule, sgd_run
from autograd_course.notebook import outcome


def sgd_history(fn, seed):
    """Six steps of fn on a random parameter with random options and gradients (all drawn up front)."""
    rng = np.random.default_rng(seed)
    momentum = [0.0, 0.0, 0.5, 0.9][int(rng.integers(4))]
    nesterov = bool(momentum and rng.integers(2))
    options = {"lr": float(rng.uniform(0.01, 0.5)), "momentum": momentum,
               "dampening": 0.0 if nesterov or rng.integers(2) else float(rng.uniform(0.1, 0.9)),
               "weight_decay": [0.0, 0.0, 0.01, 0.3][int(rng.integers(4))], "nesterov": nesterov,
               "maximize": bool(rng.integers(2))}
    shape = [(3,), (2, 2), ()][int(rng.integers(3))]
    p = ag.tensor(rng.standard_normal(shape), requires_grad=True)
    grads = [rng.standard_normal(shape) for _ in range(6)]
    reuse = [bool(rng.integers(2)) for _ in range(6)]
    state = {}
    flags, values = [], []
    for step in range(6):
        if reuse[step] and p.grad is not None:
            with ag.no_grad():                          # what zero_grad(set_to_none=False) + backward do
                p.grad.zero_()
                p.grad.add_(ag.tensor(grads[step]))
        else:
            p.grad = ag.tensor(grads[step])
        grad_before, version = p.grad._data.copy(), p._version
        with ag.no_grad():
            result = outcome(fn, p, state if momentum else {}, **options)
        buf = state.get("momentum_buffer")
        flags.append((result, p._version - version, np.array_equal(p.grad._data, grad_before),
                      None if buf is None else buf is p.grad))
        values.append(np.concatenate([p._data.ravel(), (buf._data if buf is not None else p._data * np.nan).ravel()]))
    return options, flags, np.array(values)


seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=921, count=40)]
expected, seen = grading.side_by_side("09.sgd_update", sgd_update,
                                      lambda fn: [sgd_history(fn, seed) for seed in seeds])
for i, ((options, s_flags, s_values), (_, e_flags, e_values)) in enumerate(zip(seen, expected)):
    expect_sgd_flags(s_flags, e_flags, f"random run #{i} of 6 steps with {options}", options)
    expect_sgd(s_values, e_values, f"random run #{i} with {options}: [param..., buffer...] after each of 6 steps",
               sgd_rule(options))

runs = [dict(steps=4, set_to_none=bool(k % 2), lr=0.05 * (k + 1), momentum=0.3 * k, nesterov=k == 2,
             weight_decay=0.02 * k, maximize=k == 3) for k in range(4)]
expected, seen = grading.side_by_side("09.sgd_update", sgd_update,
                                      lambda _: [outcome(sgd_run, **run) for run in runs])
for run, s, e in zip(runs, seen, expected):
    check_run(s, e, f"SGD through optimizer.step() with {run}", sgd_rule(run), rtol=1e-5, atol=1e-6)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Adam
#
# SGD moves every coordinate by `lr` times its gradient, so one huge gradient forces a small `lr` on
# all. **Adam** (Kingma and Ba, 2015) gives each coordinate its own step size, from running averages
# $m$ of the gradient and $v$ of its square. The paper's algorithm, elementwise, from
# $m_0 = v_0 = 0$, for $t = 1, 2, \dots$, with $g_t$ the gradient and $\gamma$ = `lr`:
#
# $$m_t = \beta_1 m_{t-1} + (1-\beta_1)\, g_t, \quad v_t = \beta_2 v_{t-1} + (1-\beta_2)\, g_t^2, \quad
# \hat m_t = \frac{m_t}{1-\beta_1^t}, \quad \hat v_t = \frac{v_t}{1-\beta_2^t}, \quad
# \theta_t = \theta_{t-1} - \gamma\, \frac{\hat m_t}{\sqrt{\hat v_t} + \epsilon}$$
#
# The hats make up for the start at 0. Three steps of PyTorch's `Adam` on $\sum w^2$:

# %%
w = ag.tensor([1.0, -2.0], requires_grad=True)
optimizer = ag.optim.Adam([w], lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    (w ** 2).sum().backward()
    optimizer.step()
    print(step, w.detach())             # PyTorch: 0 tensor([ 0.9000, -1.9000])
                                        #          1 tensor([ 0.8004, -1.8002])
                                        #          2 tensor([ 0.7016, -1.7006])

# %% [markdown]
# In the valley of section 5, Adam ignores that one gradient is 20 times the other and circles in;
# tuned momentum is faster there. Adam's strength is elsewhere (after the exercise):

# %%
runs = {"momentum 0.7, lr=0.05": descend(lambda p: ag.optim.SGD(p, lr=0.05, momentum=0.7)),
        "Adam, lr=0.3": descend(lambda p: ag.optim.Adam(p, lr=0.3))}
for label, (path, losses) in runs.items():
    print(f"{label:22} loss after 40 steps: {losses[-1]:.2e}")
plot_descents(runs)


# %% [markdown]
# ### Exercise 4: `adam_update` (6 points)
#
# `Adam.step()` calls `adam_update(p, state, lr=..., betas=..., eps=..., weight_decay=...,
# amsgrad=..., maximize=..., decoupled_weight_decay=...)` as `SGD.step()` does. Write it, so that
# after every step `p` and `state` are what PyTorch's `p` and `optimizer.state[p]` are. The options
# beyond the paper's $\beta_1, \beta_2$ (`betas`) and $\epsilon$ (`eps`), as PyTorch documents them:
#
# | option | meaning |
# |---|---|
# | `weight_decay` | $\lambda$, an L2 penalty $\frac{\lambda}{2}\lVert\theta\rVert^2$ added to the loss |
# | `decoupled_weight_decay` | AdamW (Loshchilov and Hutter): the decay shrinks $\theta$ apart from the gradient |
# | `amsgrad` | AMSGrad (Reddi et al.): divide by the largest second moment so far, so the step never grows back |
# | `maximize` | climb the loss instead of descending it |
#
# How PyTorch counts the steps, what it keeps, and where each option enters, work out from these runs
# (a float64 `w = [1, -2]`, `lr=0.1`, the gradients given; each line is `w` and the state after a
# step):

# %%
def adam_steps(grads, **options):
    """Adam(lr=0.1, **options) from w = [1, -2] with these gradients: w and the state after each step."""
    w = ag.tensor([1.0, -2.0], dtype=ag.float64, requires_grad=True)
    optimizer = ag.optim.Adam([w], lr=0.1, **options)
    for g in grads:
        w.grad = ag.tensor(g, dtype=ag.float64)
        optimizer.step()
        print(" ", np.round(w.detach().numpy(), 6),
              {key: np.round(value.numpy(), 6).tolist() for key, value in optimizer.state[w].items()})
    return optimizer.state[w]


state = adam_steps([[0.5, 1.0], [-1.0, 1.0]], betas=(0.5, 0.8))
# PyTorch: [ 0.9 -2.1] {'step': 1.0, 'exp_avg': [0.25, 0.5], 'exp_avg_sq': [0.05, 0.2]}
#          [ 0.961237 -2.2     ] {'step': 2.0, 'exp_avg': [-0.375, 0.75], 'exp_avg_sq': [0.24, 0.36]}
print({key: (str(value.dtype).split(".")[-1], tuple(value.shape)) for key, value in state.items()})
# PyTorch: {'step': ('float32', ()), 'exp_avg': ('float64', (2,)), 'exp_avg_sq': ('float64', (2,))}
_ = adam_steps([[0.5, 1.0]], weight_decay=0.1)
# PyTorch: [ 0.9 -2.1] {'step': 1.0, 'exp_avg': [0.06, 0.08], 'exp_avg_sq': [0.00036, 0.00064]}
_ = adam_steps([[0.5, 1.0]], weight_decay=0.5, decoupled_weight_decay=True)
# PyTorch: [ 0.85 -2.  ] {'step': 1.0, 'exp_avg': [0.05, 0.1], 'exp_avg_sq': [0.00025, 0.001]}
_ = adam_steps([[2.0, 1.0], [0.1, 3.0]], betas=(0.5, 0.5), amsgrad=True)
# PyTorch: [ 0.9 -2.1] {'step': 1.0, 'exp_avg': [1.0, 0.5], 'exp_avg_sq': [2.0, 0.5], 'max_exp_avg_sq': [2.0, 0.5]}
#          [ 0.855093 -2.192717] {'step': 2.0, 'exp_avg': [0.55, 1.75], 'exp_avg_sq': [1.005, 4.75], 'max_exp_avg_sq': [2.0, 4.75]}
_ = adam_steps([[0.5, -1.0]], maximize=True, weight_decay=0.1)
# PyTorch: [ 1.1 -2.1] {'step': 1.0, 'exp_avg': [-0.04, 0.08], 'exp_avg_sq': [0.00016, 0.00064]}

# %% [markdown]
# The tests allow a relative $10^{-12}$ ($10^{-5}$ in `float32`): any algebraically equal order of
# operations passes.
#
# **Rules**
# - `state`: after the first step, `state` holds what PyTorch's holds: the same keys in the same
#   order, tensors of the same dtypes and shapes; `"step"` counts the steps taken.
# - `in-place`: it returns nothing; `param` and the state's tensors change in place, the same
#   tensors for the whole run; `param.grad` never changes.
# - `moments`: `exp_avg` and `exp_avg_sq` are the paper's $m_t$ and $v_t$ (of the gradient PyTorch
#   uses, see `l2` and `maximize`).
# - `bias`: `param` is the paper's $\theta_t$, with $t$ counted as PyTorch counts it.
# - `eps`: $\epsilon$ enters where the paper puts it.
# - `amsgrad`: with `amsgrad=True`, `state["max_exp_avg_sq"]` and `param` are PyTorch's.
# - `l2`: with `weight_decay` (not decoupled), `param` and both moments are PyTorch's.
# - `decoupled`: with `decoupled_weight_decay=True`, `param` is PyTorch's, and the moments do not see
#   the decay.
# - `maximize`: with `maximize=True`, `param` climbs the loss: PyTorch's values, with or without
#   `weight_decay`.

# %% nbgrader={"grade": false, "grade_id": "09_adam_update_answer", "locked": false, "schema_version": 3, "solution": true}
def adam_update(param, state, *, lr, betas, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
    """One step of PyTorch's Adam for one parameter, in place (Adam.step calls it under no_grad).
    Returns None; state holds what PyTorch's optimizer.state[p] holds."""
    ### BEGIN SOLUTION
    if not state:
        state["step"] = ag.tensor(0.0)
        state["exp_avg"] = ag.zeros_like(param)
        state["exp_avg_sq"] = ag.zeros_like(param)
        if amsgrad:
            state["max_exp_avg_sq"] = ag.zeros_like(param)
    beta1, beta2 = betas
    g = -param.grad if maximize else param.grad
    if weight_decay != 0 and decoupled_weight_decay:
        param.mul_(1 - lr * weight_decay)
    elif weight_decay != 0:
        g = g + weight_decay * param
    state["step"] += 1
    t = state["step"].item()
    m, v = state["exp_avg"], state["exp_avg_sq"]
    m.mul_(beta1).add_(g, alpha=1 - beta1)
    v.mul_(beta2).add_(g * g, alpha=1 - beta2)
    if amsgrad:
        v_max = state["max_exp_avg_sq"]
        v_max.copy_(v_max.maximum(v))
        v = v_max
    denom = (v / (1 - beta2 ** t)).sqrt() + eps
    param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))
    ### END SOLUTION

exercises.plug("09.adam_update", adam_update)

# %% [markdown]
# `Adam.step()` now calls your function. Where Adam pays: fitting $y = Xw$ with one feature 30 times
# larger than the other. SGD diverges with any `lr` above $7.8\cdot 10^{-4}$, at which the small
# feature's weight barely moves; Adam's steps are about `lr` in each coordinate:

# %%
rng = np.random.default_rng(3)
X_scaled = ag.tensor(rng.standard_normal((16, 2)) * [1.0, 30.0])     # the second feature is 30 times larger
y_scaled = X_scaled @ ag.tensor([2.0, -0.1], dtype=ag.float64)


def fit_line(make_optimizer, steps=100):
    """w after fitting y_scaled = X_scaled @ w from w = 0, and the last loss."""
    w = ag.zeros(2, dtype=ag.float64, requires_grad=True)
    optimizer = make_optimizer([w])
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((X_scaled @ w - y_scaled) ** 2).mean()
        loss.backward()
        optimizer.step()
    return w.detach(), loss.item()


for label, make in (("SGD, lr=7e-4", lambda p: ag.optim.SGD(p, lr=7e-4)),
                    ("Adam, lr=0.1", lambda p: ag.optim.Adam(p, lr=0.1))):
    w, loss = fit_line(make)
    print(f"{label}: w = {np.round(w.numpy(), 3)} (true: [2, -0.1]), loss after 100 steps: {loss:.1e}")

# %% [markdown]
# **Tests.** Steps with each option and the state they make, against PyTorch's numbers, then `Adam`
# itself; hidden tests use random shapes, dtypes, options and parameter groups.

# %% nbgrader={"grade": true, "grade_id": "09_adam_update_test", "locked": true, "points": 6, "schema_version": 3, "solution": false}
check.adam_update(adam_update)
### BEGIN HIDDEN TESTS
from autograd_course.checks.optimizers import (ADAM_MAXIMIZE, ADAM_RULE, ADAM_STATE, AMSGRAD, BIAS, DECOUPLED, EPS,
                                               L2, adam_history, adam_rule, adam_state, check_adam_history)
from autograd_course.notebook import outcome

SCENARIOS = {"plain": (BIAS, {}), "a large eps": (EPS, {"eps": None}), "weight decay": (L2, {"weight_decay": None}),
             "decoupled weight decay": (DECOUPLED, {"weight_decay": None, "decoupled_weight_decay": True}),
             "AMSGrad": (AMSGRAD, {"amsgrad": True}), "maximize": (ADAM_MAXIMIZE, {"maximize": True}),
             "maximize and weight decay": (ADAM_MAXIMIZE, {"maximize": True, "weight_decay": None}),
             "every option": (ADAM_RULE, {"eps": None, "weight_decay": None, "amsgrad": True, "maximize": True,
                                          "decoupled_weight_decay": None})}


def draw(rng, name):
    """A random value of an Adam option."""
    if name == "eps":
        return float(10 ** rng.uniform(-3, -0.5))
    if name == "weight_decay":
        return round(float(rng.uniform(0.05, 0.9)), 3)
    return bool(rng.integers(2))


cases = []
for (scenario, (rule, chosen)), rng in zip(SCENARIOS.items(), grading.random_cases(seed=923, count=len(SCENARIOS))):
    options = {"lr": round(float(rng.uniform(0.01, 0.5)), 3),
               "betas": (round(float(rng.uniform(0.3, 0.95)), 3), round(float(rng.uniform(0.5, 0.999)), 3)),
               "eps": 1e-8, "weight_decay": 0, "amsgrad": False, "maximize": False, "decoupled_weight_decay": False}
    options.update({name: draw(rng, name) if value is None else value for name, value in chosen.items()})
    shape = [(), (3,), (2, 3), (4, 1)][int(rng.integers(4))]
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    start = rng.standard_normal(shape)
    grads = [rng.standard_normal(shape) * 10 ** rng.uniform(-2, 1) * (rng.random(shape) > 0.2)
             for _ in range(int(rng.integers(3, 6)))]
    cases.append((scenario, rule, options, dtype, start, grads))
expected, seen = grading.side_by_side(
    "09.adam_update", adam_update,
    lambda fn: [adam_history(fn, start, grads, dtype, **options) for _, _, options, dtype, start, grads in cases])
for (scenario, rule, options, dtype, start, grads), s, e in zip(cases, seen, expected):
    tight = {"rtol": 1e-5, "atol": 1e-6} if dtype == ag.float32 else {"rtol": 1e-12, "atol": 1e-12}
    what = f"{len(grads)} steps of Adam ({scenario}) on a random {dtype} parameter of shape {np.shape(start)}, {options}"
    check_adam_history(s, [(p, {key: value[0] for key, value in state.items()}) for _, _, p, state in e], what,
                       rule, **tight)
    grading.expect_equal([{key: value[1:] for key, value in state.items()} for _, _, _, state in s],
                         [{key: value[1:] for key, value in state.items()} for _, _, _, state in e],
                         what=f"(dtype, shape) of each state entry after each of {what}", rule=ADAM_STATE)


def optimizer_history(seed):
    """Four steps of Adam with random options on three parameters in two groups, with random gradients
    (sometimes None): per step, (step's result, the parameters' values, state_dict()['state'])."""
    rng = np.random.default_rng(seed)
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    params = [ag.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True) for shape in ((3, 2), (2,), ())]
    options = {"lr": float(rng.uniform(0.01, 0.3)), "betas": (float(rng.uniform(0.5, 0.95)), float(rng.uniform(0.8, 0.999))),
               "eps": float(10 ** rng.uniform(-8, -1)), "weight_decay": [0.0, 0.0, 0.05, 0.5][int(rng.integers(4))],
               "amsgrad": bool(rng.integers(2)), "maximize": bool(rng.integers(2)),
               "decoupled_weight_decay": bool(rng.integers(2))}
    optimizer = ag.optim.Adam([{"params": params[:2]},
                               {"params": params[2:], "lr": float(rng.uniform(0.01, 0.3)), "amsgrad": not options["amsgrad"]}],
                              **options)
    rows = []
    for step in range(4):
        for p in params:
            p.grad = None if rng.random() < 0.2 else ag.tensor(rng.standard_normal(p.shape), dtype=dtype)
        result = outcome(optimizer.step)
        rows.append((result, np.concatenate([np.asarray(p._data, dtype=float).ravel() for p in params]),
                     {index: adam_state(state) for index, state in optimizer.state_dict()["state"].items()}))
    return dtype, options, rows


seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=924, count=6)]
expected, seen = grading.side_by_side("09.adam_update", adam_update,
                                      lambda _: [optimizer_history(seed) for seed in seeds])
def compare_rows(i, dtype, options, s_rows, e_rows, rule):
    """The steps of random run #i against the library's; rule is the rule of its options."""
    tight = {"rtol": 1e-5, "atol": 1e-6} if dtype == ag.float32 else {"rtol": 1e-12, "atol": 1e-12}
    for step, ((s_result, s_values, s_state), (e_result, e_values, e_state)) in enumerate(zip(s_rows, e_rows)):
        what = f"random run #{i} of Adam on three {dtype} parameters in two groups, {options}, step {step + 1}"
        grading.expect_equal(s_result, e_result, what=f"optimizer.step() at {what}", rule=rule)
        grading.expect_equal({k: {key: value[1:] for key, value in state.items()} for k, state in s_state.items()},
                             {k: {key: value[1:] for key, value in state.items()} for k, state in e_state.items()},
                             what=f"the keys, dtypes and shapes of optimizer.state_dict()['state'] at {what}",
                             rule=ADAM_STATE)
        grading.expect_close(s_values, e_values, what=f"the parameters' values at {what}", rule=rule, **tight)
        for k, state in e_state.items():
            for key, value in state.items():
                grading.expect_close(s_state[k][key][0], value[0], what=f"state_dict()['state'][{k}][{key!r}] at {what}",
                                     rule=rule, **tight)


for i, ((dtype, options, s_rows), (_, _, e_rows)) in enumerate(zip(seen, expected)):
    compare_rows(i, dtype, options, s_rows, e_rows, adam_rule(options))
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Gradient accumulation
#
# A step's memory grows with the batch (every sample's activations are saved, assignment 06). When a
# batch does not fit, we split it into **micro-batches**, run forward and backward on each in turn,
# let `.grad` add up their gradients, then take one step. A common recipe divides each micro-batch's
# mean loss by the number of micro-batches. Measured on a batch of 10 split as 4 + 4 + 2 and 5 + 5:

# %%
rng = np.random.default_rng(7)
X_all = ag.tensor(rng.standard_normal((10, 3)))
y_all = ag.tensor(rng.standard_normal(10))
_ = ag.manual_seed(0)
small = nn.Sequential(nn.Linear(3, 4, dtype=ag.float64), nn.Tanh(), nn.Linear(4, 1, dtype=ag.float64))
mse = nn.MSELoss()


def batch_loss(inputs, targets):
    """The mean squared error of `small` on a batch."""
    return mse(small(inputs).reshape(-1), targets)


def gradients(model):
    """Copies of every parameter's .grad, as NumPy arrays."""
    return [p.grad.numpy().copy() for p in model.parameters()]


def largest_difference(grads, reference):
    return max(float(np.abs(g - r).max()) for g, r in zip(grads, reference))


small.zero_grad()
batch_loss(X_all, y_all).backward()
large = gradients(small)                          # one backward over the whole batch

for bounds in ([(0, 4), (4, 8), (8, 10)], [(0, 5), (5, 10)]):
    small.zero_grad()
    for start, stop in bounds:
        (batch_loss(X_all[start:stop], y_all[start:stop]) / len(bounds)).backward()   # 1/K
    sizes = [stop - start for start, stop in bounds]
    print(f"micro-batches of {sizes}, each loss / {len(bounds)}: largest difference from the large "
          f"batch {largest_difference(gradients(small), large):.3f}")


# %% [markdown]
# With 5 + 5 the recipe gives the large batch's gradient; with 4 + 4 + 2 it is visibly off.
#
# ### Exercise 5: `accumulate_gradients` (4 points)
#
# PyTorch leaves this loop to the training script; the library has it as a function:
#
# ```python
# optimizer.zero_grad()
# loss = ag.optim.accumulate_gradients(lambda x, y: loss_fn(model(x), y),
#                                      [(x[i:i + 32], y[i:i + 32]) for i in range(0, len(x), 32)])
# optimizer.step()
# ```
#
# Write `accumulate_gradients(loss_fn, micro_batches)`: `micro_batches` yields `(inputs, targets)`
# pairs of `len(inputs)` samples, and `loss_fn(inputs, targets)` returns their **mean** loss, a
# one-element tensor. After the call, `.grad` holds what one `backward()` over the whole batch would
# have added. For samples with losses 1, 2 and 6 in micro-batches of 2 and 1, the whole batch's loss
# is $(1 + 2 + 6)/3 = 3$.
#
# **Rules**
# - `large`: `.grad` gains the gradient of the mean loss over all the samples, for any sizes of the
#   micro-batches.
# - `adds`: nothing is cleared: that gradient is added to what `.grad` held.
# - `one-graph`: `loss_fn` sees each micro-batch that holds samples once, in order, and no earlier
#   micro-batch's graph is still alive when it is called.
# - `returns`: it returns the mean loss over all the samples, as a Python `float` (an empty
#   micro-batch has no mean loss of its own: it adds nothing).
# - `read-once`: `micro_batches` may be any iterable, read once (a generator).
# - `no-sample`: no sample at all (no micro-batch, or only empty ones) is a `ValueError`.

# %% nbgrader={"grade": false, "grade_id": "09_accumulate_gradients_answer", "locked": false, "schema_version": 3, "solution": true}
def accumulate_gradients(loss_fn, micro_batches):
    """Add to .grad what one backward() of the whole batch's mean loss would add. Returns that
    mean loss as a float. ValueError if there is no sample."""
    ### BEGIN SOLUTION
    micro_batches = list(micro_batches)
    total = sum(len(inputs) for inputs, _ in micro_batches)
    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample")
    mean_loss = 0.0
    for inputs, targets in micro_batches:
        if len(inputs) == 0:
            continue
        loss = loss_fn(inputs, targets) * (len(inputs) / total)
        loss.backward()
        mean_loss += loss.item()
    return mean_loss
    ### END SOLUTION

exercises.plug("09.accumulate_gradients", accumulate_gradients)

# %% [markdown]
# `ag.optim.accumulate_gradients` is now your function. The claim of this section, **asserted**: for
# equal and unequal splits, the accumulated gradient and the returned loss are the large batch's:

# %%
large_loss = batch_loss(X_all, y_all).item()
for bounds in ([(0, 4), (4, 8), (8, 10)], [(0, 5), (5, 10)], [(0, 1), (1, 10)], [(0, 3), (3, 6), (6, 9), (9, 10)]):
    small.zero_grad()
    loss = ag.optim.accumulate_gradients(batch_loss, [(X_all[a:b], y_all[a:b]) for a, b in bounds])
    for g, expected in zip(gradients(small), large):
        np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(loss, large_loss, rtol=1e-12)
    print(f"micro-batches of {[b - a for a, b in bounds]}: the large batch's gradient and loss ({loss:.6f})")


# %% [markdown]
# So training with accumulation *is* large-batch training: 20 steps of SGD with momentum on the whole
# batch and on micro-batches of 3 + 3 + 3 + 1 end with the same weights:

# %%
def train_small(micro_batch_size, steps=20):
    """20 SGD steps on (X_all, y_all); the final weights as NumPy arrays."""
    _ = ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4, dtype=ag.float64), nn.Tanh(), nn.Linear(4, 1, dtype=ag.float64))
    optimizer = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = lambda inputs, targets: mse(model(inputs).reshape(-1), targets)
    for _ in range(steps):
        optimizer.zero_grad()
        ag.optim.accumulate_gradients(loss_fn, [(X_all[i:i + micro_batch_size], y_all[i:i + micro_batch_size])
                                                for i in range(0, len(X_all), micro_batch_size)])
        optimizer.step()
    return [p.detach().numpy().copy() for p in model.parameters()]


for whole, accumulated in zip(train_small(10), train_small(3)):
    np.testing.assert_allclose(accumulated, whole, rtol=1e-10, atol=1e-12)
print("after 20 steps, the weights trained on micro-batches of 3 equal those trained on the whole batch")

# %% [markdown]
# **Tests.** Splits compared with one large batch, then gradients already in `.grad`, the graphs
# alive, and training; hidden tests use random data and splits.

# %% nbgrader={"grade": true, "grade_id": "09_accumulate_gradients_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.accumulate_gradients(accumulate_gradients)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import (GENERATOR, LARGE, NO_SAMPLE, RETURNS, accumulation_problem, rounded,
                                             split)
from autograd_course.notebook import library_version, outcome

cases = []
for rng in grading.random_cases(seed=932, count=8):
    seed, n, d = int(rng.integers(2**32)), int(rng.integers(2, 13)), int(rng.integers(1, 5))
    cuts = sorted(set(int(c) for c in rng.integers(1, n, size=int(rng.integers(1, 4)))))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
    cases.append((seed, sizes, d, bool(rng.integers(2))))
with library_version("09"):
    expected = []
    for seed, sizes, d, _ in cases:
        X, y, params, loss_fn = accumulation_problem(seed, sum(sizes), d)
        loss = loss_fn(ag.tensor(X), ag.tensor(y))
        loss.backward()
        expected.append(([rounded(p.grad, 12) for p in params], loss.item()))
with grading.checking("09.accumulate_gradients", accumulate_gradients):
    seen = []
    for seed, sizes, d, as_generator in cases:
        X, y, params, loss_fn = accumulation_problem(seed, sum(sizes), d)
        batches = split(X, y, sizes)
        result = outcome(accumulate_gradients, loss_fn, (pair for pair in batches) if as_generator else batches)
        seen.append((result, [rounded(p.grad, 12) for p in params]))
    for rng in grading.random_cases(seed=933, count=3):                       # no sample at all
        d, empty = int(rng.integers(1, 5)), int(rng.integers(0, 3))
        X, y, params, loss_fn = accumulation_problem(int(rng.integers(2**32)), 0, d)
        batches = split(X, y, [0] * empty)
        as_generator = bool(rng.integers(2))
        grading.expect_raises(lambda: accumulate_gradients(loss_fn, iter(batches) if as_generator else batches),
                              ValueError, "", rule=NO_SAMPLE,
                              what=f"accumulate_gradients(loss_fn, {'a generator of' if as_generator else 'a list of'} "
                                   f"{empty} empty micro-batches of {d} features)")
for (seed, sizes, d, as_generator), (result, grads), (large_grads, large_loss) in zip(cases, seen, expected):
    batches = f"{'a generator of ' if as_generator else ''}random micro-batches of {sizes} ({d} features)"
    for name, g, e in zip(("w1", "w2", "b"), grads, large_grads):
        grading.expect_close(g, e, what=f"{name}.grad after {batches}, compared with one large batch",
                             rtol=1e-9, atol=1e-12, rule=GENERATOR if as_generator and g is None else LARGE)
    grading.expect_true(isinstance(result, float), what=f"the result for {batches}",
                        seen=f"{result!r} (of type {type(result).__name__})", rule=RETURNS)
    grading.expect_close(result, large_loss, what=f"the returned loss for {batches}", rtol=1e-10, rule=RETURNS)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "09_accumulate_gradients_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.accumulate_gradients_in_training(accumulate_gradients)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import ADDS, LARGE, NO_SAMPLE, RETURNS, accumulation_problem, split
from autograd_course.notebook import library_version, outcome

def random_split(rng, n):
    cuts = sorted(set(int(c) for c in rng.integers(1, n, size=int(rng.integers(0, 4))))) if n > 1 else []
    bounds = [0] + cuts + [n]
    return [b - a for a, b in zip(bounds[:-1], bounds[1:])]


cases = []
for rng in grading.random_cases(seed=931, count=25):
    n = int(rng.integers(1, 14))
    cases.append((int(rng.integers(2**32)), random_split(rng, n), bool(rng.integers(2))))


def run_case(fn, seed, sizes, preset):
    X, y, params, loss_fn = accumulation_problem(seed, sum(sizes), d=2)
    if preset:
        for p in params:
            p.grad = ag.full(p.shape, 0.5, dtype=ag.float64)
    result = outcome(fn, loss_fn, iter(split(X, y, sizes)))
    grads = [np.full(p.shape, np.inf) if p.grad is None else p.grad._data.ravel() for p in params]
    return result, np.concatenate([np.ravel(g) for g in grads])


def large_case(seed, sizes, preset):
    X, y, params, loss_fn = accumulation_problem(seed, sum(sizes), d=2)
    loss = loss_fn(ag.tensor(X), ag.tensor(y))
    loss.backward()
    return loss.item(), np.concatenate([p.grad._data.ravel() + (0.5 if preset else 0.0) for p in params])


with library_version("09"):
    expected = [large_case(*case) for case in cases]
expected_reference, seen = grading.side_by_side("09.accumulate_gradients", accumulate_gradients,
                                                lambda fn: [run_case(fn, *case) for case in cases])
for i, ((seed, sizes, preset), (result, grads), e, r) in enumerate(zip(cases, seen, expected, expected_reference)):
    case = f"micro-batches of {sizes}" + (" on top of gradients of 0.5" if preset else "")
    grading.expect_true(isinstance(result, float), what=f"the result for {case}",
                        seen=f"{result!r} (of type {type(result).__name__})",
                        rule=RETURNS)
    grading.expect_close(result, e[0], what=f"the returned loss for {case}, compared with one large batch", rtol=1e-9,
                         rule=RETURNS)
    grading.expect_close(grads, e[1], what=f"the gradients after {case}, compared with one large batch",
                         rtol=1e-9, atol=1e-12, rule=ADDS if preset else LARGE)
    grading.expect_close(grads, r[1], what=f"the gradients after {case}, compared with the library's version",
                         rtol=1e-9, atol=1e-12, rule=ADDS if preset else LARGE)
with grading.checking("09.accumulate_gradients", accumulate_gradients):
    grading.expect_raises(lambda: accumulate_gradients(lambda a, b: a.sum(), iter([])), ValueError, "",
                          what="accumulate_gradients(loss_fn, an empty generator)",
                          rule=NO_SAMPLE)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Gradient clipping
#
# A huge gradient (at a cliff of the loss, or in a deep network) throws the weights far away, where
# the gradients are larger still, and soon the loss is `inf`. **Clipping**, between `backward()` and
# `step()`, bounds the step:
#
# ```python
# loss.backward()
# nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
# optimizer.step()
# ```
#
# It returns the total norm of the gradients, and shrinks them when that passes `max_norm`. What it
# does to the gradients `[3, 4]` and `[12]`, and to a tiny one:

# %%
a = nn.Parameter(ag.tensor([1.0, 1.0]))
b = nn.Parameter(ag.tensor([1.0]))
a.grad, b.grad = ag.tensor([3.0, 4.0]), ag.tensor([12.0])
print(nn.utils.clip_grad_norm_([a, b], max_norm=1.0))      # PyTorch: tensor(13.)
print(a.grad, b.grad)                                        # PyTorch: tensor([0.2308, 0.3077]) tensor([0.9231])
print(nn.utils.clip_grad_norm_([a, b], max_norm=1.0))      # PyTorch: tensor(1.0000)
print(a.grad, b.grad)                                        # PyTorch: tensor([0.2308, 0.3077]) tensor([0.9231])

a.grad, b.grad = ag.tensor([3.0, -4.0]), ag.tensor([12.0])
print(nn.utils.clip_grad_norm_([a, b], max_norm=1.0, norm_type="inf"))   # PyTorch: tensor(12.)
print(a.grad, b.grad)                        # PyTorch: tensor([ 0.2500, -0.3333]) tensor([1.0000])

c = nn.Parameter(ag.tensor([1e-6]))
c.grad = ag.tensor([1e-6])
print(nn.utils.clip_grad_norm_([c], max_norm=1e-6), c.grad)   # PyTorch: tensor(1.0000e-06) tensor([5.0000e-07])

# %% [markdown]
# Now five `Linear` layers whose weights start 2.5 times too
# large: their first gradients explode. `nn.utils.get_total_norm` measures without clipping:

# %%
rng = np.random.default_rng(0)
X_chain = ag.tensor(rng.standard_normal((64, 4)))
Y_chain = X_chain @ ag.tensor(rng.standard_normal((4, 1)))      # the linear map to learn


def train_chain(max_norm=None, steps=60):
    """SGD (lr=0.02) on 5 linear layers whose weights start 2.5 times too large, with
    clip_grad_norm_(..., max_norm) before each step unless max_norm is None.
    Returns the losses and the gradient norms, stopping once the loss passes 1e10."""
    _ = ag.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(4, 4, bias=False, dtype=ag.float64) for _ in range(4)],
                          nn.Linear(4, 1, bias=False, dtype=ag.float64))
    with ag.no_grad():
        for p in model.parameters():
            p.mul_(2.5)
    optimizer = ag.optim.SGD(model.parameters(), lr=0.02)
    losses, norms = [], []
    for step in range(steps):
        optimizer.zero_grad()
        loss = ((model(X_chain) - Y_chain) ** 2).mean()
        loss.backward()
        if max_norm is None:
            norms.append(nn.utils.get_total_norm([p.grad for p in model.parameters()]).item())
        else:
            norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm).item())
        optimizer.step()
        losses.append(loss.item())
        if not loss.item() < 1e10:
            break
    return losses, norms


plain_losses, plain_norms = train_chain()
for step, (loss, norm) in enumerate(zip(plain_losses, plain_norms)):
    print(f"step {step}: loss {loss:.3g}, gradient norm {norm:.3g}")


# %% [markdown]
# The first gradient has norm 390: with `lr=0.02`, a step of length 8 for weights of at most 1.25,
# and the fourth loss is $3 \cdot 10^{14}$.
#
# ### Exercise 6: `clip_grad_norm` (5 points)
#
# `nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False)` makes a
# list of its `parameters` (a tensor, a list or a generator) and hands it to
# `clip_grad_norm(parameters, max_norm, norm_type, error_if_nonfinite)`. Write it, so that the
# gradients and the total it returns are PyTorch's, as in the cell above, for any `norm_type` (a
# float, an int or `"inf"`). With `error_if_nonfinite=True`, a `nan` or infinite total raises
# PyTorch's error (the order printed as a float):
#
# ```
# RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`
# ```
#
# Calling the library's `nn.utils.get_total_norm` or `nn.utils.clip_grads_with_norm_` (or their
# helpers `_total_norm` and `_scale_grads`) is a `DelegationError`.
#
# **Rules**
# - `total`: the total is PyTorch's: the norm of order `norm_type` of all the gradients' elements
#   together (13 for `[3, 4]` and `[12]` above).
# - `inf-norm`: for `norm_type` inf (`float("inf")` or `"inf"`), it is PyTorch's (12 above).
# - `scale`: above `max_norm`, the gradients are PyTorch's, the tiny one above included: all are
#   scaled by one factor, the same for every tensor.
# - `not-up`: the gradients never grow: a total below `max_norm` leaves them as they are.
# - `nonfinite`: with `error_if_nonfinite=True`, a `nan` or infinite total raises PyTorch's
#   `RuntimeError` before any gradient changes.
# - `scaled-anyway`: otherwise such a total scales too: a `nan` total makes every gradient `nan`, an
#   infinite one multiplies them by 0.
# - `skip`: a tensor whose `.grad` is `None` takes no part, and has no `.grad` after.
# - `no-grads`: without any gradient, it returns `tensor(0.)` (float32) and changes nothing.
# - `in-place`: each `.grad` is scaled in place: the same tensor, with its dtype.
# - `records`: nothing is recorded: the total has no `grad_fn` and does not require grad, and a
#   `.grad` with a graph keeps its `grad_fn`.
# - `returns`: it returns the total before clipping, a 0-dim tensor of the gradients' dtype (float64
#   as soon as one of them is).

# %% nbgrader={"grade": false, "grade_id": "09_clip_grad_norm_answer", "locked": false, "schema_version": 3, "solution": true}
def clip_grad_norm(parameters, max_norm, norm_type, error_if_nonfinite):
    """What nn.utils.clip_grad_norm_ does to the gradients of a list of tensors. Returns the
    total norm of the gradients before clipping, a 0-dim tensor."""
    ### BEGIN SOLUTION
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return ag.tensor(0.0)
    norm_type = float(norm_type)
    with ag.no_grad():
        norms = ag.stack([ag.linalg.vector_norm(g, norm_type) for g in grads])
        total = ag.linalg.vector_norm(norms, norm_type)
        if error_if_nonfinite and not total.isfinite().item():
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped. To disable this error and scale the "
                               "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor)
    return total
    ### END SOLUTION

exercises.plug("09.clip_grad_norm", clip_grad_norm)

# %% [markdown]
# `nn.utils.clip_grad_norm_` now runs your function. The deep network again, clipped to
# `max_norm=1.0` before every step:

# %%
clipped_losses, clipped_norms = train_chain(max_norm=1.0)
fig, ax = plt.subplots(figsize=(6, 3))
ax.semilogy(plain_losses, "o-", label="no clipping")
ax.semilogy(clipped_losses, label="clip_grad_norm_(..., max_norm=1.0)")
ax.set_xlabel("step")
ax.set_ylabel("loss")
ax.legend()
plt.show()
print("clipped run, loss at steps 0, 20, 40, 59:", [f"{clipped_losses[i]:.3g}" for i in (0, 20, 40, 59)])
print("gradient norms before clipping, at steps 0, 20, 40, 59:", [f"{clipped_norms[i]:.3g}" for i in (0, 20, 40, 59)])

# %% [markdown]
# Clipped, the run steps by at most `lr * max_norm` while the gradients are huge, which brings the
# weights to a reasonable size; from step 48 on, clipping changes nothing.
#
# **Tests.** Small sets of gradients worked out by hand, then `nn.utils.clip_grad_norm_` in training;
# hidden tests use random gradients and runs.

# %% nbgrader={"grade": true, "grade_id": "09_clip_grad_norm_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.clip_grad_norm(clip_grad_norm)
### BEGIN HIDDEN TESTS
from autograd_course.checks.clipping import compare_clips, random_clip_case

compare_clips(clip_grad_norm, [random_clip_case(rng) for rng in grading.random_cases(seed=941, count=40)])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "09_clip_grad_norm_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.clip_grad_norm_in_training(clip_grad_norm)
### BEGIN HIDDEN TESTS
from autograd_course.checks.clipping import check_runs, clip_run
from autograd_course.notebook import outcome

runs = [dict(seed=int(rng.integers(2**31)), max_norm=float(10 ** rng.uniform(-1, 0.5)),
             norm_type=[2.0, 1, "inf", 3.0][int(rng.integers(4))], dtype=["float32", "float64"][int(rng.integers(2))],
             as_generator=bool(rng.integers(2))) for rng in grading.random_cases(seed=942, count=12)]
expected, seen = grading.side_by_side("09.clip_grad_norm", clip_grad_norm,
                                      lambda _: [outcome(clip_run, **run) for run in runs])
for run, s, e in zip(runs, seen, expected):
    check_runs(s, e, what=f"(norms returned, losses) of 8 SGD steps with clip_grad_norm_, random run {run}",
               float32=run["dtype"] == "float32")
### END HIDDEN TESTS

# %% [markdown]
# ## 9. Training a classifier on two moons
#
# Everything together: two interleaving half circles, one per class, with noise, a toy problem that
# no straight line separates:

# %%
def make_moons(n, noise, seed):
    """n points on two interleaving half circles (class 0 on top, class 1 below), with Gaussian noise."""
    rng = np.random.default_rng(seed)
    n_top = n // 2
    t_top, t_bottom = rng.uniform(0, np.pi, n_top), rng.uniform(0, np.pi, n - n_top)
    top = np.stack([np.cos(t_top), np.sin(t_top)], axis=1)
    bottom = np.stack([1 - np.cos(t_bottom), 0.5 - np.sin(t_bottom)], axis=1)
    points = np.concatenate([top, bottom]) + rng.normal(0, noise, size=(n, 2))
    classes = np.concatenate([np.zeros(n_top, dtype=np.int64), np.ones(n - n_top, dtype=np.int64)])
    return points, classes


points, classes = make_moons(200, noise=0.2, seed=0)
print(points.shape, classes.shape, "points per class:", np.bincount(classes))
print(np.round(points[:3], 3), classes[:3])

# %% [markdown]
# A small MLP, 2 → 16 → 16 → 2 with `tanh`, outputs two logits per point; the loss is
# `CrossEntropyLoss` and the optimizer SGD with momentum. The loop is the four lines of the top, and
# it runs your code: `parameters()` is your walk, `zero_grad()` your `clear_grads`, `step()` your
# `sgd_update`:

# %%
X_moons, y_moons = ag.tensor(points), ag.tensor(classes)
_ = ag.manual_seed(0)
mlp = nn.Sequential(nn.Linear(2, 16, dtype=ag.float64), nn.Tanh(),
                    nn.Linear(16, 16, dtype=ag.float64), nn.Tanh(),
                    nn.Linear(16, 2, dtype=ag.float64))
optimizer = ag.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()

losses = []
for step in range(200):
    optimizer.zero_grad()
    loss = loss_fn(mlp(X_moons), y_moons)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())

with ag.no_grad():
    accuracy = (mlp(X_moons).argmax(dim=1) == y_moons).float().mean().item()
print("loss at steps 0, 50, 100, 150, 199:", [f"{losses[i]:.4f}" for i in (0, 50, 100, 150, 199)])
print(f"training accuracy: {accuracy:.3f}")

# %% [markdown]
# The **decision boundary**: the trained network, under `no_grad`, on a grid covering the plane,
# colored by the probability of class 1 (the boundary is its 0.5 contour). Two hidden layers of
# `tanh` units bend it between the moons, which no linear model could do:

# %%
g0, g1 = np.meshgrid(np.linspace(-1.6, 2.6, 169), np.linspace(-1.4, 1.8, 129))
with ag.no_grad():
    logits = mlp(ag.tensor(np.stack([g0.ravel(), g1.ravel()], axis=1)))
    p_class1 = ag.nn.functional.softmax(logits, dim=1)[:, 1].numpy().reshape(g0.shape)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
left.plot(losses)
left.set_yscale("log")
left.set_xlabel("step")
left.set_ylabel("cross-entropy")
left.set_title("training loss")
right.contourf(g0, g1, p_class1, levels=np.linspace(0, 1, 11), cmap="coolwarm", alpha=0.6)
right.contour(g0, g1, p_class1, levels=[0.5], colors="k", linewidths=1)
right.scatter(points[:, 0], points[:, 1], c=classes, cmap="coolwarm", s=14, edgecolors="k", linewidths=0.3)
right.set_title("P(class 1) and the decision boundary")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 10. Capstone: handwritten digits
#
# Real data: 1797 handwritten digits of 8 × 8 pixels in 17 shades of grey (the UCI *Optical
# Recognition of Handwritten Digits* data set, shipped with scikit-learn). The goal: a classifier
# that names the digit in images **it has never seen**, 93% of the time. So 360 images are held out
# as a **validation set**, never trained on, and measured after every epoch; a `DataLoader` cuts the
# rest into **mini-batches** of 64, in a new order every **epoch** (one pass over the training set),
# one step each; and measuring runs under `no_grad` in evaluation mode (`model.eval()` sets
# `training = False` in every submodule; `model.train()` sets it back). The next cell, locked, loads the data and defines the split, the model and the loop `fit`:

# %% nbgrader={"grade": false, "grade_id": "09_digits", "locked": true, "schema_version": 3, "solution": false}
from autograd_course.notebook import load_digits    # sklearn.datasets.load_digits's images and target
from autograd_lib.utils.data import DataLoader, TensorDataset

pixels, labels = load_digits()                        # the digit each image shows, 0 to 9
images = (pixels / 16).astype(np.float32)             # 1797 images of 8 x 8 pixels, scaled to [0, 1]


def digits_loaders(seed, batch_size=64, n_val=360):
    """A seeded split into training and validation images, and a DataLoader for each: the training
    loader reshuffles every epoch, the validation loader reads its images in order."""
    order = np.random.default_rng(seed).permutation(len(labels))
    val, train = order[:n_val], order[n_val:]

    def dataset(rows):
        return TensorDataset(ag.tensor(images[rows].reshape(len(rows), 64)), ag.tensor(labels[rows]))

    shuffle = ag.Generator().manual_seed(seed)
    return (DataLoader(dataset(train), batch_size=batch_size, shuffle=True, generator=shuffle),
            DataLoader(dataset(val), batch_size=256))


def digits_model(seed, hidden=32):
    """64 pixels -> hidden ReLU units -> 10 scores, one per digit."""
    _ = ag.manual_seed(seed)
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def fit(model, optimizer, train_loader, val_loader, epochs):
    """Train for some epochs; after each, (training loss, validation loss, validation accuracy)."""
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for epoch in range(epochs):
        train_loss = ag.optim.train_epoch(model, loss_fn, optimizer, train_loader)
        val_loss, val_accuracy = ag.optim.evaluate(model, loss_fn, val_loader)
        history.append((train_loss, val_loss, val_accuracy))
    return history


# %% [markdown]
# One image of each digit, and a batch:

# %%
print(images.shape, labels.shape, "images per digit:", np.bincount(labels))
fig, axes = plt.subplots(1, 10, figsize=(10, 1.4))
for digit, ax in enumerate(axes):
    ax.imshow(images[labels == digit][0], cmap="gray_r")
    ax.set_title(str(digit))
    ax.axis("off")
plt.show()

train_loader, val_loader = digits_loaders(seed=0)
inputs, targets = next(iter(train_loader))
print(len(train_loader.dataset), "training images in", len(train_loader), "batches;",
      len(val_loader.dataset), "validation images")
print("a batch:", tuple(inputs.shape), inputs.dtype, tuple(targets.shape), targets.dtype)


# %% [markdown]
# ### Exercise 7: `train_epoch` (5 points)
#
# Write `train_epoch(model, loss_fn, optimizer, batches)`: one epoch of training, each
# `(inputs, targets)` batch one step of `optimizer`, `loss_fn(model(inputs), targets)` being the
# batch's mean loss. It returns the epoch's mean loss per sample: for batches of 3 and 1 samples
# whose losses are 0.5 and 0.9 when computed, it returns $(3 \cdot 0.5 + 0.9) / 4 = 0.6$. `fit`
# above calls it through `ag.optim.train_epoch`.
#
# **Rules**
# - `step`: each step uses its own batch's gradient only, never what `.grad` held before the call
#   nor the previous batch's.
# - `mode`: the model trains in training mode, whatever mode it was in.
# - `mean`: it returns the mean loss per sample as a Python `float`, each batch's loss (computed
#   before its step) weighted by its number of samples.
# - `graphs`: no graph outlives its step.
# - `read-once`: `batches` may be any iterable, read once (a `DataLoader`, a list, a generator).
# - `empty`: an epoch without samples is a `ValueError`.
# - `digits`: with it, `fit` trains the digits model of this section to 93% on the validation
#   images in 5 epochs.

# %% nbgrader={"grade": false, "grade_id": "09_train_epoch_answer", "locked": false, "schema_version": 3, "solution": true}
def train_epoch(model, loss_fn, optimizer, batches):
    """One epoch of training on the (inputs, targets) batches. Returns the epoch's mean loss per
    sample, as a float. ValueError if there is no sample."""
    ### BEGIN SOLUTION
    model.train()
    loss_sum, seen = 0.0, 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * len(targets)
        seen += len(targets)
    if seen == 0:
        raise ValueError("train_epoch() needs at least one sample")
    return loss_sum / seen
    ### END SOLUTION

exercises.plug("09.train_epoch", train_epoch)

# %% [markdown]
# One epoch of your loop on the digits, from a fresh model:

# %%
model = digits_model(seed=0)
optimizer = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print(f"mean training loss over the first epoch: {train_epoch(model, nn.CrossEntropyLoss(), optimizer, train_loader):.4f}")
print("model.training:", model.training)

# %% [markdown]
# **Tests.** Small classifiers left in evaluation mode, with stale gradients and a loss that watches
# the graphs, against the library's version; hidden tests use random batches.

# %% nbgrader={"grade": true, "grade_id": "09_train_epoch_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.train_epoch(train_epoch)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import MEAN, MODE, READ_ONCE, STEP, one_epoch
from autograd_course.notebook import shown

cases = []
for rng in grading.random_cases(seed=941, count=10):
    n = int(rng.integers(1, 16))
    cuts = sorted(set(int(c) for c in rng.integers(1, n, size=int(rng.integers(0, 4))))) if n > 1 else []
    sizes = tuple(b - a for a, b in zip([0] + cuts, cuts + [n]))
    cases.append((int(rng.integers(2**31)), sizes, bool(rng.integers(2))))
expected, seen = grading.side_by_side(
    "09.train_epoch", train_epoch,
    lambda fn: [one_epoch(fn, seed, sizes, as_generator) for seed, sizes, as_generator in cases])
for (seed, sizes, as_generator), (loss, weights, modes), (e_loss, e_weights, _) in zip(cases, seen, expected):
    what = f"an epoch of random batches of {list(sizes)}{' from a generator' if as_generator else ''}"
    grading.expect_close(weights, e_weights, rtol=1e-9, atol=1e-12, what=f"the weights after {what}",
                         rule=READ_ONCE if as_generator and isinstance(loss, str) else STEP)
    grading.expect_true(isinstance(loss, float), what=f"the result of {what}",
                        seen=f"{shown(loss)} (of type {type(loss).__name__})", rule=MEAN)
    grading.expect_close(loss, e_loss, rtol=1e-9, what=f"the loss returned for {what}", rule=MEAN)
    grading.expect_equal([training for training, _ in modes], [True] * len(sizes),
                         what=f"model.training at each forward of {what}, for a model that was in eval mode", rule=MODE)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 8: `evaluate` (4 points)
#
# Write `evaluate(model, loss_fn, batches)`, which measures a classifier without training it: the
# model maps a batch of inputs to one row of class scores per sample. For batches of 2 and 1 samples
# with mean losses 0.3 and 0.6, where 2 of the 3 samples are right, it returns `(0.4, 0.666...)`.
# `ag.optim.evaluate` becomes your function.
#
# **Rules**
# - `result`: it returns `(mean loss per sample, accuracy)`, two Python floats over all the samples,
#   each batch weighted by its number of samples.
# - `right`: a sample is right when its target is the class `argmax` picks (on a tie, the first of
#   the highest scores, as PyTorch's `argmax`).
# - `eval`: the model runs in evaluation mode, and no graph is recorded (the mode the model is left
#   in afterwards is yours to choose).
# - `read-once`: `batches` may be any iterable, read once.
# - `empty`: no sample at all is a `ValueError`.

# %% nbgrader={"grade": false, "grade_id": "09_evaluate_answer", "locked": false, "schema_version": 3, "solution": true}
def evaluate(model, loss_fn, batches):
    """(mean loss per sample, accuracy) of a classifier over (inputs, targets) batches, two floats,
    in evaluation mode and without a graph. ValueError if there is no sample."""
    ### BEGIN SOLUTION
    model.eval()
    loss_sum, right, seen = 0.0, 0, 0
    with ag.no_grad():
        for inputs, targets in batches:
            scores = model(inputs)
            loss_sum += loss_fn(scores, targets).item() * len(targets)
            right += int((scores.argmax(dim=1) == targets).sum().item())
            seen += len(targets)
    if seen == 0:
        raise ValueError("evaluate() needs at least one sample")
    return loss_sum / seen, right / seen
    ### END SOLUTION

exercises.plug("09.evaluate", evaluate)

# %% [markdown]
# The model of exercise 7, after its one epoch, on the validation images it never saw:

# %%
val_loss, val_accuracy = evaluate(model, nn.CrossEntropyLoss(), val_loader)
print(f"validation loss {val_loss:.4f}, accuracy {val_accuracy:.3f}; model.training: {model.training}")

# %% [markdown]
# **Tests.** The small classifiers of exercise 7, left in training mode, with a hook that records the
# modes; hidden tests use random batches.

# %% nbgrader={"grade": true, "grade_id": "09_evaluate_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.evaluate(evaluate)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import check_evaluation, evaluation

cases = []
for rng in grading.random_cases(seed=951, count=10):
    n = int(rng.integers(1, 30))
    cuts = sorted(set(int(c) for c in rng.integers(1, n, size=int(rng.integers(0, 4))))) if n > 1 else []
    cases.append((int(rng.integers(2**31)), tuple(b - a for a, b in zip([0] + cuts, cuts + [n])), bool(rng.integers(2))))
expected, seen = grading.side_by_side(
    "09.evaluate", evaluate,
    lambda fn: [evaluation(fn, seed, sizes, as_generator) for seed, sizes, as_generator in cases])
for (seed, sizes, as_generator), (result, modes), (e, _) in zip(cases, seen, expected):
    check_evaluation(result, e, modes, f"random batches of {list(sizes)}{' from a generator' if as_generator else ''}",
                     as_generator=as_generator)
### END HIDDEN TESTS

# %% [markdown]
# ### Training, and reading the curves
#
# The whole run: 6 epochs, each your `train_epoch` over the training batches and your `evaluate` on
# the validation set:

# %%
model = digits_model(seed=0)
optimizer = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
history = fit(model, optimizer, train_loader, val_loader, epochs=6)
for epoch in range(6):
    train_loss, val_loss, val_accuracy = history[epoch]
    print(f"epoch {epoch + 1}: training loss {train_loss:.4f}, validation loss {val_loss:.4f}, "
          f"accuracy {val_accuracy:.3f}")

# %% [markdown]
# The **learning curves**: the gap between the training and the validation loss is what the model
# learned about *these* images rather than about digits; a validation loss that turns up while the
# training loss falls means memorising. On the right, validation images it gets wrong:

# %%
with ag.no_grad():
    val_images, val_labels = val_loader.dataset.tensors
    guesses = model(val_images).argmax(dim=1).numpy()
wrong = np.flatnonzero(guesses != val_labels.numpy())

fig = plt.figure(figsize=(11, 3.8))
left, right = fig.subfigures(1, 2, width_ratios=[1.3, 1])
curves = left.subplots()
epochs = np.arange(1, len(history) + 1)
lines = curves.plot(epochs, [h[0] for h in history], "o-", label="training loss")
lines += curves.plot(epochs, [h[1] for h in history], "s-", label="validation loss")
curves.set_xlabel("epoch")
curves.set_ylabel("cross-entropy")
accuracy_axis = curves.twinx()
lines += accuracy_axis.plot(epochs, [h[2] for h in history], "g^--", label="validation accuracy")
accuracy_axis.set_ylabel("validation accuracy", color="g")
curves.legend(handles=lines, loc="center right")
right.suptitle("validation images it gets wrong", fontsize=10)
for ax, index in zip(right.subplots(2, 4).ravel(), wrong):
    ax.imshow(val_images[index].numpy().reshape(8, 8), cmap="gray_r")
    ax.set_title(f"{int(val_labels[index])} read as {guesses[index]}", fontsize=9)
for ax in right.axes:
    ax.axis("off")
plt.show()
print(f"{len(wrong)} of {len(val_labels)} validation images wrong")

# %% [markdown]
# The next test trains the digits model with your `train_epoch` (and the library's `evaluate`) for 5
# epochs and asks for 93%; its hidden part trains one epoch from other seeds.

# %% nbgrader={"grade": true, "grade_id": "09_train_epoch_test_digits", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.train_epoch_on_the_digits(train_epoch, digits_model, digits_loaders, fit)
### BEGIN HIDDEN TESTS
from autograd_course.checks.training import MEAN, STEP
from autograd_course.notebook import outcome

runs = [(int(rng.integers(2**31)), int(rng.choice([32, 50, 64, 100]))) for rng in grading.random_cases(seed=961, count=2)]


def short_run(seed, batch_size):
    model = digits_model(seed, hidden=16)
    history = outcome(fit, model, ag.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
                      *digits_loaders(seed, batch_size=batch_size), epochs=1)
    return history, np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])


expected, seen = grading.side_by_side("09.train_epoch", train_epoch,
                                      lambda _: [short_run(*run) for run in runs])
for (seed, batch_size), (history, weights), (e_history, e_weights) in zip(runs, seen, expected):
    what = f"an epoch on the digits in batches of {batch_size} (seed {seed})"
    grading.expect_close(weights, e_weights, rtol=1e-5, atol=1e-6, what=f"the weights after {what}", rule=STEP)
    grading.expect_close(history, e_history, rtol=1e-6, what=f"(training loss, validation loss, accuracy) after {what}",
                         rule=MEAN)
### END HIDDEN TESTS

# %% [markdown]
# ### When the validation loss stalls: `ReduceLROnPlateau`
#
# After about ten epochs, the digits model's validation loss stops falling and only jumps up and
# down: the rate is too large for the small corrections left. `ReduceLROnPlateau(optimizer, ...)`,
# stepped once per epoch with the metric to watch (`scheduler.step(val_loss)`), lowers the rates when
# the metric stops improving; its state is `best`, `num_bad_epochs` and `cooldown_counter`. With `factor=0.5, patience=2, cooldown=1`:

# %%
w = ag.zeros(1, requires_grad=True)
optimizer = ag.optim.SGD([w], lr=1.0)
scheduler = ag.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2, cooldown=1)
lrs, bad_epochs, cooldowns = [], [], []
for val_loss in [1.0, 0.8, 0.8, 0.81, 0.79, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]:
    scheduler.step(val_loss)
    lrs.append(optimizer.param_groups[0]["lr"])
    bad_epochs.append(scheduler.num_bad_epochs)
    cooldowns.append(scheduler.cooldown_counter)
print("lr:              ", lrs)          # PyTorch: [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25]
print("num_bad_epochs:  ", bad_epochs)   # PyTorch: [0, 0, 1, 2, 0, 1, 2, 0, 0, 1, 2, 0]
print("cooldown_counter:", cooldowns)    # PyTorch: [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
print("best:", scheduler.best)           # PyTorch: best: 0.79


# %% [markdown]
# Which epochs count as bad, when the cut comes, and what the cooldown does: read them off the rows.
#
# ### Exercise 9: `plateau_step` (4 points)
#
# `ReduceLROnPlateau.step(metrics)` turns the metric into a float, adds one to `last_epoch` and
# leaves the rest to `plateau_step(scheduler, current)`, which you write: after it, `scheduler.best`,
# `num_bad_epochs`, `cooldown_counter` and the `"lr"` of each group of
# `scheduler.optimizer.param_groups` must be PyTorch's, after every metric of any sequence. At first
# `best` is `inf` (`-inf` in mode `"max"`) and the counters are 0. The settings, attributes of
# `scheduler`, as PyTorch documents them:
#
# | attribute | meaning |
# |---|---|
# | `mode` | `"min"`: the metric should fall; `"max"`: rise |
# | `threshold`, `threshold_mode` | how much better than `best` a metric must be: relative (`"rel"`) or absolute (`"abs"`) |
# | `patience` | epochs without improvement tolerated before a cut |
# | `cooldown` | epochs to wait after a cut before counting again |
# | `factor` | a cut multiplies a rate by it |
# | `min_lrs` | a lower bound on each group's rate |
# | `eps` | a change of a rate smaller than it is ignored |
#
# Where the thresholds put the bar (for metrics of either sign), and what the floors and `eps` do,
# PyTorch shows (one column per step):

# %%
def plateau(metrics, lrs=(1.0,), **settings):
    """ReduceLROnPlateau(optimizer, **settings) stepped with each metric, for groups with these rates."""
    optimizer = ag.optim.SGD([{"params": [ag.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs])
    scheduler = ag.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **settings)
    rows = []
    for metric in metrics:
        scheduler.step(metric)
        rows.append((scheduler.best, scheduler.num_bad_epochs, [round(g["lr"], 6) for g in optimizer.param_groups]))
    for name, row in zip(("best", "bad", "lrs"), zip(*rows)):
        print(f"  {name:4}", list(row))


plateau([10.0, 9.5, 8.9, -1.0, -0.95, -0.9], threshold=0.1, patience=5)
# PyTorch: best [10.0, 10.0, 8.9, -1.0, -0.95, -0.9]
#          bad  [0, 1, 0, 0, 0, 0]
#          lrs  [[1.0], [1.0], [1.0], [1.0], [1.0], [1.0]]
plateau([3.0, 2.6, 2.4, -0.5, -0.9], threshold=0.5, threshold_mode="abs", patience=5)
# PyTorch: best [3.0, 3.0, 2.4, -0.5, -0.5]
#          bad  [0, 1, 0, 0, 1]
#          lrs  [[1.0], [1.0], [1.0], [1.0], [1.0]]
plateau([-2.0, -2.5, -1.5, float("nan"), 2.0, 2.9, 3.1], mode="max", threshold=0.5, patience=5)
# PyTorch: best [-2.0, -2.5, -1.5, -1.5, 2.0, 2.0, 3.1]
#          bad  [0, 0, 0, 1, 0, 1, 0]
#          lrs  [[1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0]]
plateau([1.0] * 5, lrs=[1.0, 0.05, 0.001], factor=0.5, patience=0, min_lr=[0.1, 0.01, 0.002])
# PyTorch: best [1.0, 1.0, 1.0, 1.0, 1.0]
#          bad  [0, 0, 0, 0, 0]
#          lrs  [[1.0, 0.05, 0.001], [0.5, 0.025, 0.001], [0.25, 0.0125, 0.001], [0.125, 0.01, 0.001], [0.1, 0.01, 0.001]]
plateau([1.0] * 5, lrs=[1.0, 0.05], factor=0.5, patience=0, eps=0.03)
# PyTorch: best [1.0, 1.0, 1.0, 1.0, 1.0]
#          bad  [0, 0, 0, 0, 0]
#          lrs  [[1.0, 0.05], [0.5, 0.05], [0.25, 0.05], [0.125, 0.05], [0.0625, 0.05]]

# %% [markdown]
# Calling the library's `_is_better` or `_reduce_lr` is a `DelegationError`.
#
# **Rules**
# - `better`: `best` is PyTorch's: in both modes, with both threshold modes, for metrics of either
#   sign; a metric that is not better leaves it alone.
# - `bad-epoch`: `num_bad_epochs` counts the epochs in a row whose metric is not better (equal,
#   within the threshold, `nan`); a better one sets it to 0.
# - `cooldown`: during a cooldown, `num_bad_epochs` and `cooldown_counter` are PyTorch's (the first
#   cell's rows).
# - `patience`: the rates are cut at PyTorch's step, for any `patience` (the first cell's `lr` row).
# - `restart`: right after a cut, `num_bad_epochs` and `cooldown_counter` are PyTorch's.
# - `factor`: a cut gives each group PyTorch's new lr, from `factor`...
# - `floor`: ...and from that group's floor (the fourth run above).
# - `min-change`: with `eps`, the rates are PyTorch's (the last run above); a cut never raises a rate,
#   not even one set below its floor.
# - `only`: nothing else changes (`step` itself sets `last_epoch`).

# %% nbgrader={"grade": false, "grade_id": "09_plateau_step_answer", "locked": false, "schema_version": 3, "solution": true}
def plateau_step(scheduler, current):
    """One step of PyTorch's ReduceLROnPlateau with the metric current (a float): updates
    scheduler.best, its counters and the groups' rates as PyTorch's step does. Returns None."""
    ### BEGIN SOLUTION
    best, threshold, rel = scheduler.best, scheduler.threshold, scheduler.threshold_mode == "rel"
    if scheduler.mode == "min":
        better = current < (best * (1 - threshold) if rel else best - threshold)
    else:
        better = current > (best * (1 + threshold) if rel else best + threshold)
    if better:
        scheduler.best, scheduler.num_bad_epochs = current, 0
    else:
        scheduler.num_bad_epochs += 1
    if scheduler.cooldown_counter > 0:
        scheduler.cooldown_counter -= 1
        scheduler.num_bad_epochs = 0
    if scheduler.num_bad_epochs > scheduler.patience:
        for group, floor in zip(scheduler.optimizer.param_groups, scheduler.min_lrs):
            new_lr = max(group["lr"] * scheduler.factor, floor)
            if group["lr"] - new_lr > scheduler.eps:
                group["lr"] = new_lr
        scheduler.cooldown_counter, scheduler.num_bad_epochs = scheduler.cooldown, 0
    ### END SOLUTION

exercises.plug("09.plateau_step", plateau_step)


# %% [markdown]
# `ReduceLROnPlateau.step` now runs your function. The digits model for 20 epochs, with `lr=0.1`
# throughout and with `ReduceLROnPlateau(optimizer, factor=0.2, patience=1)` stepped on the
# validation loss; on the right, the rate of each epoch:

# %%
def train_with_plateau(scheduled, epochs=20):
    """The digits model trained with SGD (lr=0.1, momentum 0.9), with ReduceLROnPlateau stepped on
    the validation loss after each epoch if scheduled. The validation losses, and each epoch's rate."""
    train_loader, val_loader = digits_loaders(seed=0)
    model = digits_model(seed=0)
    optimizer = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = ag.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.2, patience=1)
    loss_fn = nn.CrossEntropyLoss()
    val_losses, rates = [], []
    for epoch in range(epochs):
        rates.append(optimizer.param_groups[0]["lr"])
        train_epoch(model, loss_fn, optimizer, train_loader)
        val_loss, _ = evaluate(model, loss_fn, val_loader)
        val_losses.append(val_loss)
        if scheduled:
            scheduler.step(val_loss)
    return val_losses, rates


plain_val, _ = train_with_plateau(scheduled=False)
plateau_val, plateau_rates = train_with_plateau(scheduled=True)
epochs = np.arange(1, 21)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.5))
left.plot(epochs, plain_val, "o-", label="lr = 0.1 throughout")
left.plot(epochs, plateau_val, "s-", label="ReduceLROnPlateau")
left.set_ylim(0, 0.45)
left.set_xlabel("epoch")
left.set_ylabel("validation loss")
left.legend()
right.semilogy(epochs, plateau_rates, "s-", color="C1")
right.set_xlabel("epoch")
right.set_ylabel("learning rate")
for ax in (left, right):
    ax.set_xticks(range(2, 21, 2))
plt.tight_layout()
plt.show()
print("validation loss, epochs 11 to 20, lr = 0.1:        ", [round(v, 3) for v in plain_val[10:]])
print("validation loss, epochs 11 to 20, ReduceLROnPlateau:", [round(v, 3) for v in plateau_val[10:]])

# %% [markdown]
# The runs agree for 11 epochs; then each pair of epochs without a new best cuts the rate, and the
# validation loss settles at 0.107, where with `lr = 0.1` it still jumps between 0.095 and 0.199.

# %% [markdown]
# **Tests.** Short runs with PyTorch's results, compared after every step; hidden tests use random
# settings and metrics.

# %% nbgrader={"grade": true, "grade_id": "09_plateau_step_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.plateau_step(plateau_step)
### BEGIN HIDDEN TESTS
from autograd_course.checks.schedulers import compare_plateau_runs, random_plateau_case

compare_plateau_runs(plateau_step, [random_plateau_case(rng) for rng in grading.random_cases(seed=991, count=60)])
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * A **`Parameter`** assigned to a module is registered: a model is a tree, which
#   **`named_parameters()`** walks, for `zero_grad()` and every optimizer.
# * `backward()` adds into `.grad`, so a loop calls **`zero_grad()`** at every step.
# * **SGD with momentum** keeps a velocity per parameter; **Adam** gives each coordinate its own step
#   size.
# * **Gradient accumulation** gives a large batch's gradient in the memory of a micro-batch;
#   **clipping** bounds the step that a huge gradient would take.
# * A **training loop** steps once per mini-batch and measures on a **validation set**;
#   **`ReduceLROnPlateau`** lowers the rate once that stalls.
#
# This was the last assignment: you have built the engine under the four lines, and trained a network
# with it on real data.
