# %% [markdown]
# # Assignment 08: in-place operations and the version counter
#
# `x.add_(1)` changes `x` where it is instead of making a new tensor; optimizers do it to every weight at
# every step. But backward needs the values of the forward pass, and a write can destroy them. PyTorch
# **counts** the writes into every storage, each saved tensor remembers the count it was saved at, and
# backward refuses once the count has moved on. You build that machinery, then what a write through a view
# does: the backward of such a write, a view's history after it, and the refusal of a write whose source
# overlaps its destination.
#
# | # | exercise | what you write | points |
# |---|---|---|---|
# | 1 | `08.safe_writes` | the version counter, the check of saved tensors, the leaf rule | 12 |
# | 2 | `08.copy_slices_backward` | the backward of a write through a view | 5 |
# | 3 | `08.view_grad_fn` | a view's `grad_fn` once its storage was written | 5 |
# | 4 | `08.overlap_status` | how two tensors share memory, from addresses and strides | 5 |
# | | | **total** | **27** |
#
# Hidden tests also run your functions on random inputs and compare them with the library's own.

# %% [markdown]
# ### How an exercise works
#
# As before: `# PyTorch: ...` is what PyTorch 2.13 prints; an **answer cell** ends with
# `exercises.plug(...)`, which installs your functions in `autograd_lib`; a failing **test cell** says what it
# expected, what it saw, and which rule is broken.
#
# **The way out.** Every in-place write runs the functions of exercise 1: until you solve it, the cells
# after its answer cell fail, each with one line naming the exercise. To go on without an exercise, put the
# library's version back: `exercises.unplug("08.view_grad_fn")`; exercise 1 fills three slots, unplug
# `"08.increment_version"`, `"08.check_version"` and `"08.check_inplace"`.

# %% nbgrader={"grade": false, "grade_id": "08_setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np
import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.checks import inplace as check
from autograd_course.checks.inplace import backward_error, versions   # for the demos
from autograd_course.notebook import outcome

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# Demo helpers: `versions(*tensors)` gives each tensor's `_version`, `backward_error(loss)` the middle of
# `loss.backward()`'s error (or "no error"), `outcome(fn, ...)` what `fn` returned or raised.
#
# ## 1. In-place operations and `_version`
#
# An **in-place** operation writes its result into an existing tensor's memory: the methods whose name ends
# in `_` (`add_`, `mul_`, `zero_`, `fill_`, `copy_`, `clamp_`, ...), the augmented assignments `+=`, `-=`,
# `*=`, `/=`, and item assignment `t[...] = v`. Every tensor has a **version counter**, `t._version`: 0 for
# a new tensor, one more after each in-place write. It counts writes, not changes: `x.mul_(1)` counts too.

# %%
x = ag.tensor([1., 2., 3.])
print("new tensor:   ", x._version)                  # PyTorch: 0
x.add_(1)                                            # a method ending in _
print("x.add_(1):    ", x._version)                  # PyTorch: 1
x += 1                                               # an augmented assignment
print("x += 1:       ", x._version)                  # PyTorch: 2
x[0] = 5.                                            # an item assignment
print("x[0] = 5.:    ", x._version)                  # PyTorch: 3
x.zero_()
x.fill_(2.)
x.copy_(ag.ones(3))
print("zero_, fill_, copy_:", x._version)            # PyTorch: 6
y = x + 1                                            # out of place
print("y = x + 1:    ", x._version, y._version)      # PyTorch: 6 0
x.mul_(1)
print("x.mul_(1):    ", x._version, x)               # PyTorch: 7 tensor([1., 1., 1.])

# %% [markdown]
# ### One counter per storage
#
# A view (`x[1:3]`, `x.t()`, `x.view(...)`) and `x.detach()` are new tensor objects on `x`'s memory. A write
# through any of them changes what all of them see, so they share one counter. `x.data` is the exception
# (assignment 07): the same memory, a counter of its own.

# %%
x = ag.tensor([1., 2., 3., 4.])
v, d, e = x[1:3], x.detach(), x.data
v.mul_(10)
print(x, versions(x, v, d, e))      # PyTorch: tensor([ 1., 20., 30.,  4.]) (1, 1, 1, 0)
d.zero_()
print(versions(x, v, d, e))         # PyTorch: (2, 2, 2, 0)
e.add_(1)
print(versions(x, v, d, e))         # PyTorch: (2, 2, 2, 1)

# %% [markdown]
# ## 2. Saved tensors remember their version
#
# A node saves the tensors its gradient formula needs (assignment 06): `h.exp()` saves its output, since
# $(e^h)' = e^h$, and `h * y` saves both factors. Change a saved tensor in place, and backward would compute
# with the wrong numbers. So a saved tensor also remembers the **version** it was saved at, and unpacking it
# compares that with the tensor's version now. `ag.viz.version_snapshot` reads the versions of some tensors
# and of the tensors a graph saved; `ag.viz.draw_versions` draws them before and after a write:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
h = x * 2
y = h.exp()                      # ExpBackward0 saves its output y
loss = (h * y).sum()             # MulBackward0 saves h and y
before = ag.viz.version_snapshot({"y": y, "y[1:]": y[1:], "y.detach()": y.detach(), "y.data": y.data, "h": h},
                                 roots=[loss])
y.add_(1)
ag.viz.draw_versions(before, label="after y.add_(1)", title="y = h.exp();  loss = (h * y).sum()")

# %% [markdown]
# The write moved the one counter of `y`, its view and `detach()` (not `.data`'s). Both nodes saved `y` at
# version 0, so backward refuses, and so does reading `node._saved_result`, which unpacks the same way:

# %%
print(backward_error(loss))
# PyTorch: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead.
print(outcome(lambda: y.grad_fn.next_functions[0][0]._saved_result))
# PyTorch: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace
# operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead.
# Hint: enable anomaly detection to find the operation that failed to compute its gradient, with
# torch.autograd.set_detect_anomaly(True, check_nan=False).

# %% [markdown]
# ### Reading the message
#
# `[torch.FloatTensor [3]]` is the tensor's type and shape (here `autograd_lib.FloatTensor`); only the hint
# differs from PyTorch's. What do "which is output 0 of ..." and the two versions say? Four experiments:
# `exp` saved its output, `h * w` its inputs, `x * c` a constant, and `sin` an `h` written before and after:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
w = ag.tensor([4., 5., 6.], requires_grad=True)
y = x.exp()
y.add_(1)                       # exp saved its output
print(backward_error(y.sum()))  # PyTorch: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead.

h = x * 2
z = h * w                       # mul saves both inputs
h.add_(1)                       # h.grad_fn is now AddBackward0
print(backward_error(z.sum()))  # PyTorch: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead.

c = ag.tensor([4., 5., 6.])
z = x * c                       # c is a constant: no grad_fn
c.mul_(2)
print(backward_error(z.sum()))  # PyTorch: [torch.FloatTensor [3]] is at version 1; expected version 0 instead.

h = x * 2
h.add_(1)                       # before sin saves h
z = h.sin()
h.detach()[1:].mul_(2)          # after: through a view of detach()
h.data.mul_(2)                  # and through .data
print(h._version, backward_error(z.sum()))
# PyTorch: 2 [torch.FloatTensor [3]], which is output 0 of Add, is at version 2; expected version 1 instead.

# %% [markdown]
# A write before the save is harmless: below, `h` is tripled before anything saves it, and the gradient of
# $\sum (6x)^2$ is $72x$:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
h = x * 2
h.mul_(3)                # before anything saved h: fine
loss = (h * h).sum()
before = ag.viz.version_snapshot({"h": h}, roots=[loss], label="h.mul_(3), then saved")
loss.backward()
print(x.grad)            # PyTorch: tensor([ 72., 144., 216.])
ag.viz.draw_versions(before, label="after backward")

# %% [markdown]
# ## 3. Which in-place edits are safe?
#
# It depends on what the nodes saved, which depends on the derivative. `exp`, `sigmoid`, `tanh`, `relu` and
# `sqrt` save their **output** ($\sigma' = \sigma(1 - \sigma)$, $\tanh' = 1 - \tanh^2$): writing into the
# output breaks backward, writing into the input is safe. `sin`, `log`, `** 2` and `h * w` save their
# **inputs**: the other way round. `h + 1`, `h * 3` and `sum` save no tensor, so every edit is safe. The cell
# tries each case: `y = op(h)`, then `h.mul_(1)` or `y.mul_(1)` (no value changes, but a write), then
# backward. PyTorch gives the same table.

# %%
OPS = {"h + 1": lambda h, w: h + 1, "h * 3": lambda h, w: h * 3, "h.sum()": lambda h, w: h.sum(),
       "h * w": lambda h, w: h * w, "h ** 2": lambda h, w: h ** 2, "h.sin()": lambda h, w: h.sin(),
       "h.log()": lambda h, w: h.log(), "h.exp()": lambda h, w: h.exp(), "h.sigmoid()": lambda h, w: h.sigmoid(),
       "h.tanh()": lambda h, w: h.tanh(), "h.relu()": lambda h, w: h.relu(), "h.sqrt()": lambda h, w: h.sqrt()}


def edit_outcome(make, edit):
    """Build y = make(h, w), write into h ("input") or y ("output") with mul_(1), run backward."""
    x = ag.tensor([0.5, 1.0, 2.0], requires_grad=True)
    w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
    h = x * 1                     # a non-leaf (a leaf that requires grad can't be written: section 4)
    y = make(h, w)
    (h if edit == "input" else y).mul_(1)
    return "safe" if backward_error(y.sum()) == "no error" else "error"


table = {name: [edit_outcome(make, edit) for edit in ("input", "output")] for name, make in OPS.items()}
fig, ax = plt.subplots(figsize=(7, 4.4))
ax.imshow([[result == "safe" for result in row] for row in table.values()], cmap="RdYlGn", vmin=-0.3, vmax=1.3,
          aspect="auto")
for i, row in enumerate(table.values()):
    for j, result in enumerate(row):
        ax.text(j, i, result, ha="center", va="center", fontsize=10)
for row in (2.5, 6.5):
    ax.axhline(row, color="white", linewidth=4)
for middle, label in ((1, "saves no tensor"), (4.5, "saves its inputs"), (9, "saves its output")):
    ax.text(1.6, middle, label, va="center", fontsize=11)
ax.set_xticks([0, 1], ["write into the input h", "write into the output y"])
ax.set_yticks(range(len(table)), list(table))
ax.set_title("y = op(h); then h.mul_(1) or y.mul_(1); then backward")
plt.tight_layout()
plt.show()

# %% [markdown]
# So `nn.ReLU(inplace=True)` is safe after a linear layer, which saved its input, not after a `sigmoid`,
# which saved its output.
#
# ## 4. The leaf rule
#
# A leaf that requires grad (a weight) cannot be written in place while autograd records, not even through
# a view: recorded, the write would make `w` **stop being a leaf**, and `backward()` would no longer fill
# `w.grad`. Which writes does PyTorch refuse? Each below starts from a fresh weight `w`, `h = w * 2` and a
# constant `c`, and prints the error, or `w` and its version after the write (PyTorch's output in the
# comments):

# %%
writes = {"w.add_(1)": lambda w, h, c: w.add_(1),
          "w[1:].mul_(2)": lambda w, h, c: w[1:].mul_(2),
          "w[1:][1:].mul_(2)": lambda w, h, c: w[1:][1:].mul_(2),
          "w.detach().add_(1)": lambda w, h, c: w.detach().add_(1),
          "w.detach()[1:].mul_(2)": lambda w, h, c: w.detach()[1:].mul_(2),
          "h.add_(1)": lambda w, h, c: h.add_(1),
          "h[1:].mul_(2)": lambda w, h, c: h[1:].mul_(2),
          "c.add_(1)": lambda w, h, c: c.add_(1)}
for text, write in writes.items():
    w = ag.tensor([1., 2., 3.], requires_grad=True)
    result = outcome(write, w, w * 2, ag.zeros(3))
    print(f"{text:23}", result if isinstance(result, str) else (w, w._version))
# PyTorch:
# w.add_(1)               RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# w[1:].mul_(2)           RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# w[1:][1:].mul_(2)       RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# w.detach().add_(1)      (tensor([2., 3., 4.], requires_grad=True), 1)
# w.detach()[1:].mul_(2)  (tensor([1., 4., 6.], requires_grad=True), 1)
# h.add_(1)               (tensor([1., 2., 3.], requires_grad=True), 0)
# h[1:].mul_(2)           (tensor([1., 2., 3.], requires_grad=True), 0)
# c.add_(1)               (tensor([1., 2., 3.], requires_grad=True), 0)

# %% [markdown]
# Yet an optimizer *must* change the weights in place: the model and the optimizer hold the same tensor
# objects. Under `no_grad` (assignment 07) nothing is recorded, so the write is just a change of values: `w`
# stays a leaf, and the next forward pass builds a new graph from the new values. Every `torch.optim` step
# runs under `no_grad`. The counter still counts there, so the order matters: an update between the forward
# pass and `backward()` is noticed (the message names no node). A training step
# is forward, backward, update.

# %%
w = ag.tensor([1., 2., 3.], requires_grad=True)
loss = (w * w).sum()
with ag.no_grad():
    w -= 0.1                    # allowed: nothing recorded
print(w, w.is_leaf, w._version)  # PyTorch: tensor([0.9000, 1.9000, 2.9000], requires_grad=True) True 1
print(backward_error(loss))     # PyTorch: [torch.FloatTensor [3]] is at version 1; expected version 0 instead.


# %% [markdown]
# ### Exercise 1: `safe_writes` (12 points)
#
# Make in-place writes safe: a user of `autograd_lib` must see what sections 1 to 4 showed of PyTorch.
# The library does the writing and the recording; around every write it calls three functions, which you
# write in one answer cell. What each must do, you work out from what a user sees.
#
# | the library calls | when | it expects |
# |---|---|---|
# | `increment_version(tensor)` | after every in-place write into `tensor` (also the engine's addition into `.grad`) | None |
# | `check_version(saved, node)`, the method `SavedTensor.check_version` | when `node`'s backward (or `node._saved_<name>`) unpacks `saved`, a tensor `node` kept | None, or PyTorch's error raised |
# | `check_inplace(t)` | before every in-place write into `t`, in the write's grad mode | None, or PyTorch's error raised |
#
# Where the library keeps a tensor's counter and what a `SavedTensor` remembers of the tensor it kept,
# you find in the library (`vars(t)`, the class in `autograd_lib/graph.py`). Section 2's message is built
# by `ag.graph.modified_by_inplace_error` (see its `help`); which node it must name, section 2's
# experiments show.
#
# An example:
#
# ```python
# x = ag.tensor([1., 2., 3.], requires_grad=True)
# h = x * 2
# y = h.exp()
# z = h * x
# h.add_(1)                   # h, h[1:] and h.detach() are now at version 1, h.data still at 0
# y.sum().backward()          # fine: exp saved its output y, which was not written
# z.sum().backward()          # RuntimeError: ... which is output 0 of Add, is at version 1; expected version 0 instead. ...
# x.add_(1)                   # RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# x[1:].mul_(2)               # RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# with ag.no_grad():
#     x.add_(1)               # allowed: x stays a leaf, now at version 1
# ```
#
# **Rules**
# - `count`: a write moves the written tensor's `_version` up by exactly one and changes nothing else,
#   whatever the tensor and the grad mode (section 1).
# - `shared`: the tensor, its views and `detach()` show the same `_version` after any writes through any of
#   them, as in section 1; `.data` counts on its own.
# - `unchanged`: backward uses a saved tensor not written since it was saved (section 2's last cell).
# - `modified`: backward, and reading `node._saved_<name>`, refuse a saved tensor written since it was
#   saved, with section 2's `RuntimeError` and the two versions PyTorch gives.
# - `names`: the message names the node PyTorch's names, or none, in each of section 2's experiments and
#   in section 4's last cell.
# - `leaf`: while grad mode is on, the writes PyTorch refuses in section 4's first cell are refused, with
#   its errors, for every kind of tensor that cell tries; the tensor keeps its values and version.
# - `allowed`: every write PyTorch lets through in sections 1 to 4 goes through: the rest of that cell,
#   and any write under `no_grad`.

# %% nbgrader={"grade": false, "grade_id": "08_safe_writes_answer", "locked": false, "schema_version": 3, "solution": true}
def increment_version(tensor):
    """Called after each in-place write into tensor's storage. Returns None."""
    ### BEGIN SOLUTION
    tensor._version_counter.value += 1
    ### END SOLUTION


def check_version(self, node):
    """None when node may use the tensor it saved as self (a SavedTensor); raises PyTorch's error if not."""
    ### BEGIN SOLUTION
    tensor = self.tensor
    if tensor._version != self.version:
        producer = node if self.is_output else tensor.grad_fn
        raise ag.graph.modified_by_inplace_error(tensor, producer, self.version)
    ### END SOLUTION


def check_inplace(t):
    """None when PyTorch allows an in-place write into t now; raises PyTorch's error if not."""
    ### BEGIN SOLUTION
    if not ag.is_grad_enabled():
        return
    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    ### END SOLUTION


exercises.plug("08.increment_version", increment_version)
exercises.plug("08.check_version", check_version)
exercises.plug("08.check_inplace", check_inplace)

# %% [markdown]
# Every in-place write now runs your functions. The example of the task, then gradient descent on
# $y = 2x - 1$ plus noise, the weights updated under `no_grad` and the gradients cleared with
# `.grad = None` (assignment 04):

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
h = x * 2
y = h.exp()
z = h * x
h.add_(1)
print(versions(h, h[1:], h.detach(), h.data))      # PyTorch: (1, 1, 1, 0)
print(backward_error(y.sum()))                     # PyTorch: no error
print(backward_error(z.sum()))                     # PyTorch: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead.
print(outcome(lambda: x.add_(1)))                  # PyTorch: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
print(outcome(lambda: x[1:].mul_(2)))              # PyTorch: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.

rng = np.random.default_rng(0)
inputs = ag.tensor(rng.uniform(-1, 1, size=(64, 1)), dtype=ag.float32)
targets = 2 * inputs - 1 + ag.tensor(rng.normal(0, 0.1, size=(64, 1)), dtype=ag.float32)
weight, bias = ag.zeros(1, 1, requires_grad=True), ag.zeros(1, requires_grad=True)
losses = []
for step in range(60):
    loss = ((inputs @ weight + bias - targets) ** 2).mean()
    loss.backward()
    with ag.no_grad():                 # your check_inplace allows it here
        weight -= 0.3 * weight.grad
        bias -= 0.3 * bias.grad
    weight.grad, bias.grad = None, None
    losses.append(loss.item())
print(f"weight = {weight.item():.3f}, bias = {bias.item():.3f}, leaves: {weight.is_leaf}, "
      f"weight._version = {weight._version}")
fig, ax = plt.subplots(figsize=(6, 2.6))
ax.semilogy(losses)
ax.set_xlabel("step")
ax.set_ylabel("mean squared error")
ax.set_title("gradient descent, updates under no_grad")
plt.show()

# %% [markdown]
# **Tests.** Each grades your three functions together (the counting, the saved tensors, the leaf rule),
# called directly, then through the library. Hidden tests do the same on random tensors, graphs and writes.

# %% nbgrader={"grade": true, "grade_id": "08_safe_writes_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.versions_counted(increment_version, check_version, check_inplace)
### BEGIN HIDDEN TESTS
from autograd_course.checks.safe_writes import (VERSION_KINDS, expect_version_stories, expect_write_stories,
                                                grad_versions, plugs, random_version_case, version_story,
                                                write_story)

cases = [random_version_case(rng, VERSION_KINDS[n % len(VERSION_KINDS)])
         for n, rng in enumerate(grading.random_cases(seed=804, count=9))]
seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=801, count=16)]
expected, seen = grading.side_by_side(
    plugs(increment_version, check_version, check_inplace), None,
    lambda fns: ([version_story(fns["08.increment_version"], case) for case in cases],
                 [(write_story(seed), grad_versions(seed)) for seed in seeds]))
expect_version_stories(seen[0], expected[0], cases)
expect_write_stories(seen[1], expected[1])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "08_safe_writes_test2", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.saved_tensors_checked(increment_version, check_version, check_inplace)
### BEGIN HIDDEN TESTS
from autograd_course.checks.safe_writes import (edited_graph, expect_edited_graphs, expect_saved_checks,
                                                expect_written_constants, plugs, random_saved_case, saved_checks,
                                                written_constant)

cases = [random_saved_case(rng) for rng in grading.random_cases(seed=805, count=12)]
graphs = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=802, count=30)]
constants = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=803, count=6)]
expected, seen = grading.side_by_side(
    plugs(increment_version, check_version, check_inplace), None,
    lambda fns: ([saved_checks(fns["08.check_version"], case) for case in cases],
                 [edited_graph(fns["08.check_version"], s) for s in graphs], [written_constant(s) for s in constants]))
expect_written_constants(seen[2], expected[2])
expect_saved_checks(seen[0], expected[0], cases)
expect_edited_graphs(seen[1], expected[1])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "08_safe_writes_test3", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.leaf_rule(increment_version, check_version, check_inplace)
### BEGIN HIDDEN TESTS
from autograd_course.checks.safe_writes import (expect_leaf_stories, expect_random_leaves, leaf_outcomes, leaf_story,
                                                plugs)

seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=806, count=10)]
expected, seen = grading.side_by_side(
    plugs(increment_version, check_version, check_inplace), None,
    lambda fns: (leaf_outcomes(fns["08.check_inplace"], seed=807),
                 [leaf_story(fns["08.check_inplace"], seed) for seed in seeds]))
expect_random_leaves(seen[0], expected[0])
expect_leaf_stories(seen[1], expected[1])
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Writing through a view
#
# A view is a window on its base's storage, so a write through it is a write into the base: the base's
# history must change, and so must that of every other view of it. PyTorch has two rules:
#
# 1. **The write is recorded on the base.** An in-place op on a view gives the *base* a new `grad_fn`, a
#    `CopySlices` node, which keeps the op's own node (here `MulBackward0`).
# 2. **Views regenerate their history.** When the shared counter has moved since a view's `grad_fn` was set,
#    the next read of it builds a new one, an `AsStridedBackward0` whose input is the base's *current*
#    history. This happens to every view of the base, also those made before the write.
#
# Below, two overlapping views of `b` before and after a write through one of them, and the storage: each
# view's cells, each tensor's `grad_fn` and `_version` (`b[::2]`, made after the write, has no need to
# regenerate).

# %%
x = ag.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
b = x * 1
u, v = b[3:], b[1:4]          # two views of b; they overlap at b[3]
print("before:", b.grad_fn.name(), v.grad_fn.name(), u.grad_fn.name())  # PyTorch: MulBackward0 SliceBackward0 SliceBackward0
v.mul_(10)
print("after: ", b.grad_fn.name(), v.grad_fn.name(), u.grad_fn.name())  # PyTorch: torch::autograd::CopySlices AsStridedBackward0 AsStridedBackward0
ag.viz.draw_views(b, {"v = b[1:4]": v, "u = b[3:]": u, "b[::2]": b[::2]}, base_name="b",
                  title="b = x * 1;  u, v = b[3:], b[1:4];  v.mul_(10)")

# %% [markdown]
# `u`'s first cell, `b[3]`, was multiplied by 10 through `v`. Had `u` kept its old `SliceBackward0`, the
# gradient of `u[0]` would reach `x[3]` with factor 1: silently wrong. Through the regenerated history it
# passes `CopySlices`, the node of `mul_(10)`: `x[3]` gets 10, in
# PyTorch as here. (The `MulBackward0` under `CopySlices` in the drawing is `b = x * 1`, the old history.)

# %%
(u * ag.tensor([1., 2., 3.])).sum().backward()
print(x.grad)       # PyTorch: tensor([ 0.,  0.,  0., 10.,  2.,  3.])
ag.viz.draw_graph(u, names={"x": x, "u": u}, title="u's history after v.mul_(10)")

# %% [markdown]
# ### Exercise 2: `copy_slices_backward` (5 points)
#
# Take `b = x * x`, then `b[1:4].mul_(w)`. `b` now holds new values: cells 1 to 3 are `w * (their old
# values)`, the others their old values. Its `grad_fn` is a `CopySlices`. Backward hands it the gradient
# of `b`'s **new** values; it must give the gradients of its inputs, the entries of its `next_functions`.
# The node also keeps what the library recorded of the write, `fn` (a node, with its inputs) and `key`:

# %%
x = ag.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
w = ag.tensor([2., 3., 4.], requires_grad=True)
b = x * x
b[1:4].mul_(w)
node = b.grad_fn
print(node.name(), "  fn:", node.fn.name(), [f.name() for f, _ in node.fn.next_functions], "  key:", node.key)
print([None if f is None else f.name() for f, _ in node.next_functions])
# PyTorch: ['MulBackward0', 'torch::autograd::AccumulateGrad']

# %% [markdown]
# Write `copy_slices_backward(self, grad_outputs)`, installed as the method `CopySlices.apply`: `self` is the
# node, `grad_outputs` a one-element list, the gradient of the base's new values; it returns a list with
# one gradient per entry of `self.next_functions`. `self.fn` and `self.key` are the record printed above
# (`fn` is a node like any other, callable as in PyTorch).
#
# Work out, cell by cell, how `b`'s new values depend on its old values and on `w`. For the example,
# `b.sum().backward()` must give `x` the gradient $2x$ in the untouched cells and $2x \cdot w$ in the written
# ones, and `w` the old values $x_{1:4}^2$.
#
# **Rules**
# - `chain`: backward through a write gives what the chain rule gives, cell by cell, for every op and view;
#   cells a write replaces without reading them (`copy_`, `fill_`, `zero_`, `t[...] = v`) give their old
#   values a zero gradient, as in PyTorch.
# - `others`: each input gets its gradient in the order of `next_functions`, `None` where PyTorch gives
#   none; the base's old values always get one of the base's shape (also when the base itself needs none).
# - `nothing`: when no gradient reaches the node (`grad_outputs` is `[None]`: a custom Function above
#   the base sent none back), no input gets one, as in PyTorch.
# - `keep-grad`: the gradient the node receives keeps its values: a hook on `b`, the retained `b.grad` and
#   another node the engine hands the same tensor (in `b + d` both inputs get it) see it as it came.
# - `differentiable`: second derivatives through a write (`create_graph=True`) are PyTorch's.

# %% nbgrader={"grade": false, "grade_id": "08_copy_slices_backward_answer", "locked": false, "schema_version": 3, "solution": true}
def copy_slices_backward(self, grad_outputs):
    """Backward of a write through a view, recorded on the base (installed as CopySlices.apply).

    Args:
        self: the CopySlices node. self.fn is the op's node, self.key the written cells' positions
            in the base.
        grad_outputs: [the gradient of the base's new values], a tensor of the base's shape.
    Returns:
        A list with one gradient per entry of self.next_functions.
    """
    ### BEGIN SOLUTION
    grad = grad_outputs[0]
    if grad is None:
        return [None for _ in self.next_functions]
    base_grad = grad.clone()
    written = self.fn(grad[self.key])
    base_grad[self.key] = 0. if written[0] is None else written[0]
    return [base_grad] + list(written[1:])
    ### END SOLUTION

exercises.plug("08.copy_slices_backward", copy_slices_backward)

# %% [markdown]
# Every write through a view now goes back through your function. The example of the task; the base's
# retained gradient is the gradient it received, all ones:

# %%
b = x * x
b[1:4].mul_(w)
b.retain_grad()
b.sum().backward()
print(x.grad)     # PyTorch: tensor([ 2.,  8., 18., 32., 10., 12.])
print(w.grad)     # PyTorch: tensor([ 4.,  9., 16.])
print(b.grad)     # PyTorch: tensor([1., 1., 1., 1., 1., 1.])

# %% [markdown]
# **Tests.** `check.copy_slices_backward` calls your function on the nodes of five writes through views;
# `check.copy_slices_in_the_engine` runs backward through writes (a retained or shared gradient, three
# writes, second derivatives). Hidden tests do the same with random views, ops and graphs.

# %% nbgrader={"grade": true, "grade_id": "08_copy_slices_backward_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.copy_slices_backward(copy_slices_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.inplace import WRITES, base_gradient, copy_slices_case, expect_copy_slices_seen

HIDDEN_VIEWS = {"[1:4]": lambda b: b[1:4], "[::2]": lambda b: b[::2], "[-3:]": lambda b: b[-3:],
                ".view(2, 3)[:, 1]": lambda b: b.view(2, 3)[:, 1], ".view(3, 2)[1:, 0]": lambda b: b.view(3, 2)[1:, 0],
                ".view(2, 3)[1]": lambda b: b.view(2, 3)[1], "[2:5]": lambda b: b[2:5]}
HIDDEN_BASES = {"x * 1": lambda x: x * 1, "x * x": lambda x: x * x, "x.sin()": lambda x: x.sin(),
                "ag.zeros(6) (a constant)": lambda x: ag.zeros(6, dtype=x.dtype)}


def written_views(fn):
    """{label: (fn on the node of a random write through a view, the given gradient, the node)}."""
    cases = {}
    for n, rng in enumerate(grading.random_cases(seed=811, count=24)):
        dtype = [ag.float32, ag.float64][int(rng.integers(2))]
        x = ag.tensor(rng.standard_normal(6), dtype=dtype, requires_grad=True)
        w = ag.tensor(rng.standard_normal(3), dtype=dtype, requires_grad=bool(rng.integers(3)))
        base = list(HIDDEN_BASES)[int(rng.integers(len(HIDDEN_BASES)))]
        view = list(HIDDEN_VIEWS)[int(rng.integers(len(HIDDEN_VIEWS)))]
        label, write = WRITES[int(rng.integers(len(WRITES)))]
        b = HIDDEN_BASES[base](x)
        v = HIDDEN_VIEWS[view](b)
        write(v, w[:v.shape[0]])
        if b.grad_fn is None:
            continue
        node, grad = b.grad_fn, base_gradient(b.grad_fn, int(rng.integers(2**32)))
        cases[f"b = {base}; b{view}.{label}, {dtype}, w requires_grad={w.requires_grad} "
              f"(random case #{n})"] = (copy_slices_case(fn, node, grad), grad.tolist(), node)
    return cases


expected, seen = grading.side_by_side("08.copy_slices_backward", copy_slices_backward, written_views)
expect_copy_slices_seen(seen, expected)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "08_copy_slices_backward_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.copy_slices_in_the_engine(copy_slices_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.inplace import ENGINE_RULES, through_views

seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=812, count=16)]
expected, seen = grading.side_by_side("08.copy_slices_backward", copy_slices_backward,
                                      lambda fn: [through_views(seed) for seed in seeds])
for i, (s, e) in enumerate(zip(seen, expected)):
    grading.expect_equal(s, e, what=f"(x.grad, w.grad) after one to three random writes through views of a base, "
                                    f"random case #{i} (shape, dtype, values; some with second derivatives)",
                         rule=ENGINE_RULES)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. A view's history after a write
#
# Rule 2 of section 5 lives where a view's `grad_fn` is read: for a view, `Tensor.grad_fn` calls
# `view._view_grad_fn()` (so does a write through the view, once it rewrote the base's history). A view
# keeps `view._base` (the tensor whose storage it shares), `view._grad_fn` (its node, or `None`),
# `view._view_version` and `view._creation_meta` (`None`, or how it was made when that forbids following a
# write: `"no_grad"`, `"multi_output"` for `unbind` or `split`, `"custom_function"`). The cell prints them
# for a view before a write into its base, after it, and once its `grad_fn` is read, with what the
# library's new node holds (`ag.views.positions_in_base(v)` says where `v`'s cells are in `b`), also for
# an expanded view `e`:

# %%
x = ag.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
b = x * 1
v, e = b[1:4], b[:2].unsqueeze(0).expand(3, 2)
print("made:   ", v._grad_fn.name(), "  _view_version:", v._view_version, "  _version:", v._version,
      "  _creation_meta:", v._creation_meta)
b.mul_(2)
print("written:", v._grad_fn.name(), "  _view_version:", v._view_version, "  _version:", v._version)
node = v.grad_fn                                    # reading grad_fn regenerates it
print("read:   ", v._grad_fn.name(), "  _view_version:", v._view_version, "  _version:", v._version)
print("the same node at the next read:", v.grad_fn is node)                  # PyTorch: True
print("its input:", node.next_functions[0][0].name(), "  b.grad_fn:", node.next_functions[0][0] is b.grad_fn)
# PyTorch: its input: MulBackward0   b.grad_fn: True
print("v's cells in b:", ag.views.positions_in_base(v))
print("v's node holds:", node._input_meta, node._params)
print("e's node holds:", e.grad_fn._params)


# %% [markdown]
# What does reading `grad_fn` give in general? An experiment: views of `b = x * 2`, of a constant `c`
# and of the leaf `x`, made in grad mode, under `no_grad` or by `unbind`, then written or not. For each,
# its `grad_fn` (`<-` its input) and whether a second read gives the same node; PyTorch's output in the
# comments, and its two errors in full below:

# %%
def written(view_of, write=None, base="x * 2"):
    """Make b (x * 2, a constant, or the leaf x itself) and v = view_of(b), then write(b, x)."""
    x = ag.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
    b = {"x * 2": lambda: x * 2, "constant": lambda: ag.zeros(6), "leaf": lambda: x}[base]()
    v = view_of(b)
    if write is not None:
        write(b, x)
    return v


def no_grad_view(b):
    with ag.no_grad():
        return b[1:]


def under_no_grad(write):
    def run(b, x):
        with ag.no_grad():
            write(b, x)
    return run


views = {
    "b[1:4], not written": written(lambda b: b[1:4]),
    "b[1:4], b.add_(1)": written(lambda b: b[1:4], lambda b, x: b.add_(1)),
    "b[1:4], b[4:].mul_(2)": written(lambda b: b[1:4], lambda b, x: b[4:].mul_(2)),
    "b[:2].expand(3, 2), b.add_(1)": written(lambda b: b[:2].expand(3, 2), lambda b, x: b.add_(1)),
    "c[2:], c.add_(1)": written(lambda b: b[2:], lambda b, x: b.add_(1), "constant"),
    "c[2:], c.copy_(x)": written(lambda b: b[2:], lambda b, x: b.copy_(x), "constant"),
    "x[1:], no_grad x.mul_(2)": written(lambda b: b[1:], under_no_grad(lambda b, x: b.mul_(2)), "leaf"),
    "no_grad b[1:], not written": written(no_grad_view),
    "no_grad b[1:], b.add_(1)": written(no_grad_view, lambda b, x: b.add_(1)),
    "no_grad c[1:], c.add_(1)": written(no_grad_view, lambda b, x: b.add_(1), "constant"),
    "unbind(0)[1], b.add_(1)": written(lambda b: b.view(2, 3).unbind(0)[1], lambda b, x: b.add_(1)),
}
for text, v in views.items():
    node = outcome(lambda: v.grad_fn)
    if node is None or isinstance(node, str):
        print(f"{text:30}", node if node is None else node[:70] + " ...")
    else:
        print(f"{text:30}", node.name(), "<-", node.next_functions[0][0].name(), "  same at the next read:",
              v.grad_fn is node)
# PyTorch:
# b[1:4], not written            SliceBackward0 <- MulBackward0   same at the next read: True
# b[1:4], b.add_(1)              AsStridedBackward0 <- AddBackward0   same at the next read: True
# b[1:4], b[4:].mul_(2)          AsStridedBackward0 <- torch::autograd::CopySlices   same at the next read: True
# b[:2].expand(3, 2), b.add_(1)  AsStridedBackward0 <- AddBackward0   same at the next read: True
# c[2:], c.add_(1)               None
# c[2:], c.copy_(x)              AsStridedBackward0 <- torch::autograd::CopyBackwards   same at the next read: True
# x[1:], no_grad x.mul_(2)       AsStridedBackward0 <- torch::autograd::AccumulateGrad   same at the next read: True
# no_grad b[1:], not written     None
# no_grad b[1:], b.add_(1)       RuntimeError: A view was created in no_grad mode and its base or anoth ...
# no_grad c[1:], c.add_(1)       None
# unbind(0)[1], b.add_(1)        RuntimeError: Output 1 of Unbind is a view and its base or another vie ...
# In full:
# RuntimeError: A view was created in no_grad mode and its base or another view of its base has been modified
# inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You
# can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you
# don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).
# RuntimeError: Output 1 of Unbind is a view and its base or another view of its base has been modified
# inplace. This view is the output of a function that returns multiple views. Such functions do not allow the
# output views to be modified inplace. You should replace the inplace operation by an out-of-place one.

# %% [markdown]
# ### Exercise 3: `view_grad_fn` (5 points)
#
# Write `view_grad_fn(view)`, installed as the method `Tensor._view_grad_fn`: it returns what PyTorch's
# `view.grad_fn` returns. Work out from the experiment which views keep their node, get a new one, read
# `None` or are refused, and which answer wins where two seem to apply. Calling the library's
# `views.regenerate_grad_fn` is a `DelegationError`.
#
# A new node is an `ag.views.AsStridedBackward0`, whose backward is written: it must hold what the
# library's own node holds in the cell of section 6. PyTorch's refusals of a view and a retained grad's
# move to a new node are in `ag.views` (`view_write_error`, `move_retained_grad`: see their `help`).
#
# **Rules**
# - `no-history`: a view without a node of its own, of a base that does not require grad, reads `None`,
#   as `c`'s in the experiment, written or not, however it was made.
# - `keep`: two reads in a row give the same node, before a write and after it; a view whose storage was
#   not written since it got its node reads that node (or `None`); after a read the view is up to date,
#   as in section 6's cell.
# - `written`: once its storage was written, through any of its tensors and in any grad mode, any other view
#   reads what PyTorch's reads in the experiment: a new `AsStridedBackward0`, or PyTorch's refusal.
# - `node`: the new node's one input is the base's history at the read (the experiment's `<-`), and it
#   holds what the library's node holds in section 6's cell (`_input_meta`, `_params`), so its backward
#   sends the view's gradient to the base's cells the view shows.
# - `accumulate`: its `"accumulate"` is true exactly when the view shows some cell of the base more than
#   once (as `e` in section 6's cell); a view without elements shows none.
# - `retain`: a view that retains its grad goes on retaining it through its new node.
# - `gradients`: so backward through a written view reaches its base's current history: the leaves get the
#   gradients PyTorch gives.

# %% nbgrader={"grade": false, "grade_id": "08_view_grad_fn_answer", "locked": false, "schema_version": 3, "solution": true}
def view_grad_fn(view):
    """What PyTorch's view.grad_fn gives for view (installed as Tensor._view_grad_fn): its node,
    None, or PyTorch's refusal.
    """
    ### BEGIN SOLUTION
    base = view._base
    if view._grad_fn is None and not base.requires_grad:
        return None
    if view._view_version == view._version:
        return view._grad_fn
    if view._creation_meta:
        raise ag.views.view_write_error(view, indirect=True)
    node = ag.views.AsStridedBackward0()
    node.next_functions = (base._gradient_edge(),)
    node._input_meta = ((base._data.shape, base._data.dtype),)
    repeats = view.numel() > 0 and any(step == 0 and size > 1 for size, step in zip(view.shape, view.stride()))
    node._params = {"self_shape": base.shape, "key": ag.views.positions_in_base(view), "accumulate": repeats}
    ag.views.move_retained_grad(view, view._grad_fn, node)
    view._grad_fn, view._view_version = node, view._version
    return node
    ### END SOLUTION

exercises.plug("08.view_grad_fn", view_grad_fn)

# %% [markdown]
# Every read of a view's `grad_fn` now goes through your function. Section 5's views again, with an expanded
# view `e` that shows `b[0]` and `b[1]` three times each, and `u` retaining its gradient. `x[1]` gets 30:
# three copies in `e`, each multiplied by 10 by `v.mul_(10)`:

# %%
x = ag.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
b = x * 1
u, v = b[3:], b[1:4]
e = b[:2].unsqueeze(0).expand(3, 2)     # b[0] and b[1], three times each
u.retain_grad()
v.mul_(10)
print(u.grad_fn.name(), e.grad_fn.name(), v.grad_fn.name())  # PyTorch: AsStridedBackward0 AsStridedBackward0 AsStridedBackward0
((u * ag.tensor([1., 2., 3.])).sum() + e.sum()).backward()
print(x.grad)       # PyTorch: tensor([ 3., 30.,  0., 10.,  2.,  3.])
print(u.grad)       # PyTorch: tensor([1., 2., 3.])

# %% [markdown]
# **Tests.** `check.view_grad_fn` reads thirteen views twice each (written or not, expanded, made under
# `no_grad`, by `unbind`, of a constant, of a leaf, retaining a grad); `check.view_grad_fn_in_the_engine`
# runs backward through written views. Hidden tests do the same with random views and writes.

# %% nbgrader={"grade": true, "grade_id": "08_view_grad_fn_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.view_grad_fn(view_grad_fn)
### BEGIN HIDDEN TESTS
from autograd_course.checks.aliasing import expect_view_summary, random_view_case, view_summary

seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=813, count=30)]
expected, seen = grading.side_by_side(
    "08.view_grad_fn", view_grad_fn,
    lambda fn: [(case[0], view_summary(fn, *case[1:])) for case in map(random_view_case, seeds)])
for (label, s), (_, e) in zip(seen, expected):
    expect_view_summary(s, e, label)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "08_view_grad_fn_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.view_grad_fn_in_the_engine(view_grad_fn)
### BEGIN HIDDEN TESTS
from autograd_course.checks.aliasing import VG_STORY, random_view_story
from autograd_course.notebook import outcome

seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=814, count=16)]
expected, seen = grading.side_by_side("08.view_grad_fn", view_grad_fn,
                                      lambda fn: [outcome(random_view_story, seed) for seed in seeds])
for i, (s, e) in enumerate(zip(seen, expected)):
    grading.expect_equal(s, e, what=f"random story #{i} through views of a base (dtype, views, writes, weights): "
                                    "at each read, each view's (grad_fn name, the same node at a second read); "
                                    "the writes' errors; the gradients of x and w (and their own, with create_graph)",
                         rule=VG_STORY)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. When the source overlaps the destination
#
# `x[2:5].copy_(x[0:3])` copies three cells into three others, and the two windows share `x[2]`. Copied from
# the front, `x[2]` is overwritten before it is read for `x[4]`; copied from the back, it is not. The result
# depends on the order of the writes, which no library promises, so PyTorch refuses. It lets through what
# cannot depend on the order: `x.add_(x)` reads each cell where it writes it, and windows that share no cell
# are independent. Some writes into `x = ag.arange(6.)` and `m`, its first four cells as a 2 x 2 matrix:

# %%
writes = {"x[2:5].copy_(x[0:3])": lambda x, m: x[2:5].copy_(x[0:3]),
          "x[0:3].copy_(x[3:6])": lambda x, m: x[0:3].copy_(x[3:6]),
          "x.add_(x)": lambda x, m: x.add_(x),
          "m.add_(m.t())": lambda x, m: m.add_(m.t()),
          "x[::2].copy_(x[:3])": lambda x, m: x[::2].copy_(x[:3])}
for text, write in writes.items():
    x = ag.arange(6.)
    m = x[:4].view(2, 2)
    result = outcome(write, x, m)
    print(f"{text:22}", result[:60] + " ..." if isinstance(result, str) else x)
# PyTorch:
# x[2:5].copy_(x[0:3])   RuntimeError: unsupported operation: some elements of the in ...
# x[0:3].copy_(x[3:6])   tensor([3., 4., 5., 3., 4., 5.])
# x.add_(x)              tensor([ 0.,  2.,  4.,  6.,  8., 10.])
# m.add_(m.t())          RuntimeError: unsupported operation: some elements of the in ...
# x[::2].copy_(x[:3])    tensor([0., 1., 1., 3., 1., 5.])

# %% [markdown]
# The last write goes through although `x[::2]` and `x[:3]` share cells: PyTorch read `x[2]` after writing
# it (`x[4]` is 1). Telling whether two windows with gaps share a cell takes real work, so PyTorch does not
# try.
#
# When does it tell? A tensor is a window on its storage: the address of its first element
# (`t.data_ptr()`, in bytes), how far a step along each dim jumps (`t.stride()`, in elements), its `shape`,
# and `t.itemsize`, the bytes of one element. Windows on `x = ag.arange(12.)` (float32, 4 bytes an element;
# PyTorch gives the same numbers):

# %%
x = ag.arange(12.)
m = x[:9].view(3, 3)
windows = {"x": x, "x[2:5]": x[2:5], "x[0:3]": x[0:3], "x[::2]": x[::2], "m": m, "m.t()": m.t(),
           "m[:, :1]": m[:, :1], "x[:1].expand(3)": x[:1].expand(3)}
for name, t in windows.items():
    print(f"{name:16} starts at byte {t.data_ptr() - x.data_ptr():2}, stride {t.stride()}, shape {tuple(t.shape)}, "
          f"{t.numel() * t.itemsize} bytes of elements")


# %% [markdown]
# PyTorch compares only windows whose elements fill a block of consecutive bytes, each byte once:
# **non-overlapping and dense**. A contiguous tensor is, and so is one with its dims permuted: `m.t()` covers
# the same 36 bytes as `m`, in another order. `x[::2]` is not (it skips every other element), nor
# `m[:, :1]` (a column: gaps), nor `x[:1].expand(3)` (one element three times). For anything else PyTorch
# gives up and lets the write through.
#
# ### Exercise 4: `overlap_status` (5 points)
#
# Write `overlap_status(a, b)`, PyTorch's `get_overlap_status`, installed as
# `autograd_lib.ops.inplace.overlap_status`: every in-place op calls it with its target and each tensor
# operand, and refuses `"partial"` with the error above. It returns `"full"`, `"partial"`, `"no"` or
# `"too hard"`. Addresses are real addresses: tensors on different storages never share a byte. You have
# `data_ptr()`, `numel()`, `itemsize`, `stride()` and `shape`; telling a dense layout from its strides and
# shape is the heart of the problem (calling the library's `inplace._dense_bytes` is a `DelegationError`).
# Examples on `x = ag.arange(12.)`, `m = x[:9].view(3, 3)`, `s = x[::2]`
# and the empty `e = x[0:0]`, from which you can also tell which answer wins where two seem to apply:
#
# | `a, b` | status | | `a, b` | status |
# |---|---|---|---|---|
# | `x, x.detach()` | full | | `x[0:3], x[3:6]` (they touch) | no |
# | `x[2:5], x[0:3]` | partial | | `s, x[:3]` | too hard |
# | `m, m.t()` | partial | | `s, x[1::2]` (no shared cell) | too hard |
# | `x[:6], x[:6].view(1, 6)` | partial | | `s, s` (one object) | full |
# | `m.t(), x[:9].view(3, 3).t()` | full | | `e, e` / `e, s` | full / no |
#
# **Rules**
# - `range`: two non-overlapping and dense tensors that cover the same bytes are `"full"` when laid out
#   alike, as PyTorch judges it from their strides (the rows on `m` and `x[:6]`), and `"partial"` when not.
# - `share`: other non-overlapping and dense tensors are `"partial"` when they share a byte, `"no"` when
#   they share none.
# - `dense`: PyTorch gives up (`"too hard"`) on a layout that is not non-overlapping and dense (gaps, as
#   `x[::2]`, or repeats, as an expand), whatever the storages; a permuted contiguous layout is dense,
#   and a dim of size 1 is never stepped along.
# - `same`: a tensor with itself (one object) gets the table's answer, whatever its layout.
# - `empty`: a tensor without elements gets the table's answer with any other tensor.
# - `refuse`: so an in-place op refuses an operand that partially overlaps its target (PyTorch's
#   `RuntimeError`), and allows the others, their result unchanged.

# %% nbgrader={"grade": false, "grade_id": "08_overlap_status_answer", "locked": false, "schema_version": 3, "solution": true}
def overlap_status(a, b):
    """How the memory of tensors a and b overlaps, as PyTorch's get_overlap_status: "full", "no",
    "too hard" or "partial".
    """
    ### BEGIN SOLUTION
    if a is b:
        return "full"
    if a.numel() == 0 or b.numel() == 0:
        return "no"
    for t in (a, b):
        step = 1                            # the stride the next dim needs, in elements
        for stride, size in sorted((st, n) for st, n in zip(t.stride(), t.shape) if n != 1):
            if stride != step:
                return "too hard"
            step *= size
    a_begin, b_begin = a.data_ptr(), b.data_ptr()
    a_end, b_end = a_begin + a.numel() * a.itemsize, b_begin + b.numel() * b.itemsize
    if (a_begin, a_end) == (b_begin, b_end):
        return "full" if a.stride() == b.stride() else "partial"
    if a_begin < b_end and b_begin < a_end:
        return "partial"
    return "no"
    ### END SOLUTION

exercises.plug("08.overlap_status", overlap_status)

# %% [markdown]
# Every in-place op now asks your function about its operands (here through the library, as the ops do).
# Some pairs of windows, then a write that is refused and one that is not:

# %%
x = ag.arange(12.)
m = x[:9].view(3, 3)
pairs = {"x[2:5], x[0:3]": (x[2:5], x[0:3]), "x[0:3], x[3:6]": (x[0:3], x[3:6]), "x, x.detach()": (x, x.detach()),
         "m, m.t()": (m, m.t()), "m.t(), m.t()": (m.t(), m.t()), "x[::2], x[:3]": (x[::2], x[:3])}
for text, (a, b) in pairs.items():
    print(f"{text:16}", ag.ops.inplace.overlap_status(a, b))
y = ag.arange(6.)
print(outcome(lambda: y[1:4].copy_(y[2:5])))
# PyTorch: RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to
# a single memory location. Please clone() the tensor before performing the operation.
print(y[:3].copy_(y[3:]))           # PyTorch: tensor([3., 4., 5.])

# %% [markdown]
# **Tests.** `check.overlap_status` tries twenty-one pairs of windows, `check.overlap_in_the_library`
# in-place writes between windows of one storage. Hidden tests do the same with random windows and writes.

# %% nbgrader={"grade": true, "grade_id": "08_overlap_status_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.overlap_status(overlap_status)
### BEGIN HIDDEN TESTS
from autograd_course.checks.aliasing import expect_statuses, random_windows

reference = exercises.reference("08.overlap_status")
cases = {}
for n, rng in enumerate(grading.random_cases(seed=815, count=6)):
    windows = random_windows(rng, int(rng.integers(9, 17)))
    names = list(windows)
    for _ in range(30):
        i, j = (int(k) for k in rng.integers(len(names), size=2))
        a, b = windows[names[i]], windows[names[j]]
        cases[f"{names[i]}, {names[j]}, random case #{n}"] = (a, b, reference(a, b))
with grading.checking("08.overlap_status", overlap_status):
    expect_statuses(overlap_status, cases)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "08_overlap_status_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.overlap_in_the_library(overlap_status)
### BEGIN HIDDEN TESTS
from autograd_course.checks.aliasing import OV_REFUSE, random_writes

seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=816, count=12)]
expected, seen = grading.side_by_side("08.overlap_status", overlap_status,
                                      lambda fn: [random_writes(seed) for seed in seeds])
for i, (story, wanted) in enumerate(zip(seen, expected)):
    for step, (s, e) in enumerate(zip(story, wanted)):
        grading.expect_equal(s, e, what=f"random story #{i}, write {step + 1}: (the write, its error, x's values, "
                                        "x._version)", rule=OV_REFUSE)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. The `.data` anti-pattern
#
# Old PyTorch code often changes tensors through `.data`: `w.data -= lr * w.grad`. `.data` shares the
# storage but has its **own** counter and no history, so a write through it escapes every check of this
# notebook: no leaf rule, no version for a saved tensor to notice. Backward then silently uses the new
# values. Below, `y = exp(x)` and `loss = y.sum()`, whose gradient is $e^x$; between the forward pass and
# `backward()`, `y` is doubled through `.data`, then, on a fresh graph, through `detach()`, which shares the
# counter:

# %%
x = ag.tensor([0., 1., 2.], requires_grad=True)
y = x.exp()
loss = y.sum()
y.data.mul_(2)                          # autograd does not see this write
loss.backward()
print(".data:   ", y._version, x.grad)  # PyTorch: 0 tensor([ 2.0000,  5.4366, 14.7781])
print("e^x:     ", np.exp([0., 1., 2.]).round(4))

x = ag.tensor([0., 1., 2.], requires_grad=True)
y = x.exp()
loss = y.sum()
y.detach().mul_(2)
print("detach():", y._version, backward_error(loss), x.grad)
# PyTorch: 1 [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. None

# %% [markdown]
# Through `.data`, `ExpBackward0` multiplied by its saved output, now $2e^x$: twice the gradient, and
# nothing warned. Through `detach()`, an error that points at the line to fix. So: `detach()` for a tensor without history, `with no_grad():` to
# change weights, and `.data` only when no graph saved the tensor.
#
# ## Summary
#
# * Every **in-place** write adds one to the **version counter** of its storage, shared by views and
#   `detach()`, not by `.data`.
# * A **saved tensor** remembers its version; backward refuses it once the version moved on. Which edits
#   are safe follows from what the derivative needs.
# * The **leaf rule**: while recording, a leaf that requires grad, or a view of one, cannot be written.
#   Optimizers update under **`no_grad`**, after backward.
# * A write through a view is recorded on the base by **`CopySlices`**, and a view's **history follows its
#   base's** (`AsStridedBackward0`).
# * A write whose operand **partially overlaps** its target is refused.
# * A write through **`.data`** escapes every check and can give a silently wrong gradient.
#
# Next, assignment 09 puts it all together: modules, optimizers and a training loop.
