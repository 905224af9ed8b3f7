# %% [markdown]
# # Assignment 06: Graph lifetime, `retain_graph` and higher-order gradients
#
# Each node of a backward graph keeps the tensors its formula will need, its *saved tensors*, from
# the forward pass until backward has used them; then they are freed. You write what a node keeps, how
# backward frees it and hands it out, and how a saved tensor comes back, and measure the memory. Then
# the graph is kept on purpose (second derivatives, Hessian-vector products) and dropped on purpose:
# *checkpointing* recomputes a piece of the forward pass in backward.
#
# | # | exercise | what you write | points |
# |---|---|---|---|
# | 1 | `plan_saves` | what a new node keeps | 5 |
# | 2 | `free_saved` | `Node.release_saved` and `Node.saved_values` | 10 |
# | 3 | `unpack` | `SavedTensor.unpack` | 5 |
# | 4 | `hvp` | `autograd.functional.hvp` | 6 |
# | 5 | `checkpoint` | `CheckpointFunction.forward` and `.backward` | 10 |
# | 6 | `function_gradients` | what a custom Function's node passes on | 4 |
# | | | **total** | **40** |

# %% [markdown]
# ### How an exercise works
#
# As before: an answer cell ends with `exercises.plug(...)`, which installs your function; a failing
# test prints what it expected, what it saw, and the rule broken. `# PyTorch: ...` is PyTorch 2.13's
# output.
#
# From their answer cells on, every node uses your exercises 1 to 3 (what it keeps, freeing, handing
# out). Stuck on one? `exercises.unplug("06.plan_saves")` (or `"06.release_saved"`, `"06.saved_values"`,
# `"06.unpack"`, ...) puts the library's version back, and you can go on.

# %% nbgrader={"grade": false, "grade_id": "06_setup", "locked": true, "schema_version": 3, "solution": false}
import gc
import tracemalloc
import weakref

import numpy as np
import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.recording import PARAM, PARAM_IF_GIVEN, RESULT, SAVED_PARAM
from autograd_course import grading
from autograd_course.checks import lifetime as check
from autograd_course.notebook import error_of, reveal

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# ## 1. What a node saves
#
# A gradient formula often needs values of the forward pass. The derivative of $e^x$ is $e^x$, so
# the node of `y = x.exp()` keeps `y`. The gradient of `x * w` for `x` is `grad * w`, so that node
# keeps `w`, and `x` for `w`'s gradient. These are the node's **saved tensors**. PyTorch shows them
# as attributes `_saved_<name>`, named after the formula's arguments (`self` and `other` are the
# inputs, `result` the output), and so does `autograd_lib`. A plain value, such as the exponent of
# `x ** 3`, is kept too:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
w = ag.tensor([4., 5., 6.], requires_grad=True)
y = x.exp()
z = x * w
p = x ** 3
print(y.grad_fn._saved_result)                          # PyTorch: tensor([ 2.7183,  7.3891, 20.0855], grad_fn=<ExpBackward0>)
print(z.grad_fn._saved_self, z.grad_fn._saved_other)    # PyTorch: tensor([1., 2., 3.], requires_grad=True) tensor([4., 5., 6.], requires_grad=True)
print(p.grad_fn._saved_self, p.grad_fn._saved_exponent) # PyTorch: tensor([1., 2., 3.], requires_grad=True) 3

# %% [markdown]
# `ag.viz.draw_saved` draws what each node holds (it draws PyTorch's graphs too). `SinBackward0`
# holds the product `x * w`, which only the graph keeps alive: in a deep network such saved
# activations are most of the memory training needs.

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
w = ag.tensor([4., 5., 6.], requires_grad=True)
loss = ((x * w).sin() + x ** 3).sum()
ag.viz.draw_saved(loss, names={"x": x, "w": w, "loss": loss}, title="loss = (sin(x * w) + x ** 3).sum()")

# %% [markdown]
# A node keeps them in two dicts: `node._saved` (name to `SavedTensor`: the tensor, and its
# version when saved, for assignment 08) and `node._params` (name to plain value). What a node keeps
# depends on the op and on which inputs require grad: `x * 2` keeps the `2`, not `x`; `x + 1` keeps
# nothing:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
for label, y in [("x.exp()", x.exp()), ("x ** 3", x ** 3), ("x * 2", x * 2), ("x + 1", x + 1)]:
    print(f"{label:8} saved={list(y.grad_fn._saved)} params={y.grad_fn._params}")

# %% [markdown]
# ### Exercise 1: `plan_saves` (5 points)
#
# Who decides what a node keeps? `recording.record` (assignment 02) calls `plan_saves(node_cls,
# needs_grad)` the first time it builds a node of class `node_cls` with a given pattern of inputs
# needing a gradient (`needs_grad[i]` for input `i`), and keeps the answer for every later node of
# that kind. A node class describes its backward formulas, for reference: `input_names` (its inputs,
# in order), `formulas` (input name to a pair: the formula, and the names of the values it reads) and
# `saves` (plain values PyTorch stores as tensors). The experiment prints them for a few ops (`x`
# requires grad, `c` does not), and what each node shows before and after backward:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
c = ag.tensor([4., 5., 6.])
cond = ag.tensor([True, False, True])


def shown(node, name):
    """grad_fn._saved_<name>, or "freed" when reading it raises the freed error."""
    return "freed" if error_of(lambda: getattr(node, "_saved_" + name)) else getattr(node, "_saved_" + name)


ops = {"x * c": lambda: x * c, "x.exp()": lambda: x.exp(), "x ** 3": lambda: x ** 3,
       "ag.add(x, c, alpha=2.0)": lambda: ag.add(x, c, alpha=2.0), "ag.add(c, x, alpha=2.0)": lambda: ag.add(c, x, alpha=2.0),
       "x[ag.tensor([0, 0])]": lambda: x[ag.tensor([0, 0])], "ag.where(cond, x, c)": lambda: ag.where(cond, x, c)}
for label, op in ops.items():
    y = op()
    node_cls = type(y.grad_fn)
    reads = {name: node_cls.formulas[name][1] for name in node_cls.input_names}
    names = list(dict.fromkeys(n for values in reads.values() for n in values))
    print(f"{label}: {node_cls.__name__}, formulas read {reads}, saves {node_cls.saves}")
    before = {name: shown(y.grad_fn, name) for name in names}
    y.sum().backward()
    print("   before backward", before)
    print("   after backward ", {name: shown(y.grad_fn, name) for name in names})
# PyTorch: the same before and after backward, but x[...] shows self_sym_sizes (3,) for self_shape and
#          indices (tensor([0, 0]),); and backward frees where's condition (this library keeps it).

# %% [markdown]
# Return what the node keeps, as a tuple of `(value_name, source)` pairs. A source tells `record`
# where to find the value and how long the node keeps it (the setup cell imports the constants):
#
# | source | the value | kept |
# |---|---|---|
# | an int `i` | input `i` of the op | until backward frees it |
# | `RESULT` | the op's output | until backward frees it |
# | `SAVED_PARAM` | the op's plain argument of that name | until backward frees it |
# | `PARAM` | the op's plain argument of that name | for good |
# | `PARAM_IF_GIVEN` | the same, if the op was given it | for good |
#
# **Rules**
# - `pairs`: `plan_saves` returns a tuple of `(value_name, source)` pairs, each name once.
# - `needed-only`: before backward a node keeps what PyTorch's node shows in the experiment: what
#   its backward will read, and no other tensor (`_saved_self` of `x * c` is None).
# - `sources`: after backward a node's values read, or raise the freed error, as PyTorch's do in
#   the experiment; but `where`'s `condition`, a plain argument of the op (neither an input of the node
#   nor in `saves`), is kept for good.
# - `if-given`: a plain value read only by formulas that backward will not run is kept too, when the
#   op was given it, as PyTorch's node shows `_saved_alpha` of `ag.add(x, c, alpha=2.0)`.
# - `needed-first`: a plain value that a formula backward will run reads is kept whether or not the
#   op was given it.
# - `computes`: backward computes PyTorch's gradients from what the nodes keep.

# %% nbgrader={"grade": false, "grade_id": "06_plan_saves_answer", "locked": false, "schema_version": 3, "solution": true}
def plan_saves(node_cls, needs_grad):
    """What a new node of class node_cls keeps, given which of its inputs need a gradient:
    a tuple of (value_name, source) pairs, each value name once."""
    ### BEGIN SOLUTION
    inputs = node_cls.input_names
    wanted = [i for i, needed in enumerate(needs_grad) if needed]
    others = [i for i, needed in enumerate(needs_grad) if not needed]
    plan = {}
    for i in wanted:
        for name in node_cls.formulas[inputs[i]][1]:
            if name == "result":
                plan.setdefault(name, RESULT)
            elif name in inputs:
                plan.setdefault(name, inputs.index(name))
            elif name in node_cls.saves:
                plan.setdefault(name, SAVED_PARAM)
            else:
                plan.setdefault(name, PARAM)
    for i in others:
        for name in node_cls.formulas[inputs[i]][1]:
            is_plain = name != "result" and name not in inputs and name not in node_cls.saves
            if is_plain:
                plan.setdefault(name, PARAM_IF_GIVEN)
    return tuple(plan.items())
    ### END SOLUTION

exercises.plug("06.plan_saves", plan_saves)

# %% [markdown]
# Every node recorded from now on keeps what your plan says. The node of `x * c` keeps `c` and not
# `x` (PyTorch shows a value its node did not keep as `None`), and the gradient is PyTorch's:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
c = ag.tensor([4., 5., 6.])
z = x * c
print(z.grad_fn._saved_self, z.grad_fn._saved_other)    # PyTorch: None tensor([4., 5., 6.])
loss = ((x * c).sin() + ag.add(c, x ** 3, alpha=2.0)).sum()
loss.backward()
print(x.grad)                                           # PyTorch: tensor([ 3.3854, 19.8046, 57.9619])
ag.viz.draw_saved(z, names={"x": x, "c": c, "z": z}, title="z = x * c: only c is kept")

# %% [markdown]
# **Tests.** Your function on seven node classes, then ops recorded with your plans and
# differentiated; hidden tests use random classes and ops.

# %% nbgrader={"grade": true, "grade_id": "06_plan_saves_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.plan_saves(plan_saves)
### BEGIN HIDDEN TESTS
from autograd_course.checks.saving import expect_plans, random_plan_cases

expect_plans(plan_saves, random_plan_cases([int(rng.integers(2**32))
                                            for rng in grading.random_cases(seed=603, count=60)]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_plan_saves_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.plan_saves_in_the_engine(plan_saves)
### BEGIN HIDDEN TESTS
from autograd_course.checks.saving import expect_records

expect_records(plan_saves, [int(rng.integers(2**32)) for rng in grading.random_cases(seed=604, count=12)])
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Backward frees what the graph saved
#
# Once backward has used a saved tensor nothing needs it, so the engine frees each node's saved
# tensors right after running the node. The structure stays (`grad_fn`, `next_functions`), the
# values go: a second backward, or `y.grad_fn._saved_result`, raises PyTorch's `RuntimeError`; plain
# values stay. `backward(retain_graph=True)` keeps everything for another pass, whose gradients
# **accumulate** in `.grad`, as when two losses share a graph. A training loop builds a new graph at
# each step and needs none of it.

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x.exp()
loss = y.sum()
loss.backward(retain_graph=True)
print(x.grad)               # PyTorch: tensor([ 2.7183,  7.3891, 20.0855])
loss.backward()
print(x.grad)               # PyTorch: tensor([ 5.4366, 14.7781, 40.1711])
print(error_of(loss.backward))
print(error_of(lambda: y.grad_fn._saved_result))
# PyTorch: RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). [...]
#          (the same error again)
p = x ** 3
p.sum().backward()
print(p.grad_fn._saved_exponent)     # PyTorch: 3

# %% [markdown]
# Section 1's graph after `backward(retain_graph=True)`, then after `backward()`:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
w = ag.tensor([4., 5., 6.], requires_grad=True)
loss = ((x * w).sin() + x ** 3).sum()
names = {"x": x, "w": w, "loss": loss}
fig, (ax_kept, ax_freed) = plt.subplots(1, 2, figsize=(12, 5.5))
loss.backward(retain_graph=True)
ag.viz.draw_saved(loss, names=names, ax=ax_kept, title="after backward(retain_graph=True): all kept")
loss.backward()
ag.viz.draw_saved(loss, names=names, ax=ax_freed, title="after backward(): saved tensors freed")
plt.show()

# %% [markdown]
# **Predict, then run.** With `x = [1., 2., 3.]` requiring grad, `loss = (x + 1).sum()`, and no
# `retain_graph`: what does a second `loss.backward()` do? If you think it raises, write
# `"RuntimeError"`; if you think it works, write `x.grad` after the two calls, as a list.

# %%
prediction = ...      # "RuntimeError", or x.grad after the two calls as a list

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
loss = (x + 1).sum()
loss.backward()
error = error_of(loss.backward)
reveal(prediction, "RuntimeError" if error else x.grad,
       why="neither AddBackward0 (x + 1) nor SumBackward0 saved a tensor, so nothing was freed: "
           "the second backward runs and adds [1, 1, 1] again, as in PyTorch. (x * 2).sum() saves the 2, "
           "and its second backward raises")


# %% [markdown]
# ### Exercise 2: `free_saved` (10 points)
#
# Make a node behave after backward as section 2 showed of PyTorch: what only the graph held is
# reclaimed, `_saved_result` and a second backward raise the error printed there
# (`ag.graph.FREED_MESSAGE`), `_saved_exponent` is still `3`, and `(x + 1).sum()` runs backward twice.
# The engine frees and reads a node's values through two methods of `Node`, which you write:
#
# | your function | called | returns |
# |---|---|---|
# | `release_saved(node)`, the method `node.release_saved()` | by the engine on each node right after running it, unless the pass retains the graph | None |
# | `saved_values(node, names)`, the method `node.saved_values(names)` | by `Node.apply` each time backward runs a formula, with the names it reads in its order (`("self", "exponent")` for `x ** 3`); by `grad_fn._saved_<name>` and `grad_fn.saved_tensors` | the values, as a list |
#
# `saved_values` is only ever asked for names the node kept: `grad_fn._saved_<name>` asks it for a
# name that is a key of `node._saved` or of `node._params` at the time it is read, and answers the
# others itself (None for a tensor the op never keeps, else `AttributeError`). What it does with
# another name is yours (the library's raises `KeyError`; no test asks). A new node holds `node._saved` (a saved
# name to a `SavedTensor`, whose `unpack(node)` gives the tensor back: exercise 3) and `node._params`
# (a name to a plain value); what a released node holds is yours to work out.
#
# **Rules**
# - `frees`: once released, a node holds no reference to the tensors it saved, so their memory can be
#   reclaimed.
# - `remembers`: a released node still answers for what it saved: reading `grad_fn._saved_<name>` of
#   a tensor it had saved raises the freed error, never returns None.
# - `nothing-saved`: releasing a node that saved no tensor changes nothing a user can see, so a graph
#   of such nodes runs backward again, as `(x + 1).sum()` does in PyTorch.
# - `plain-kept`: plain values outlive backward: `_saved_exponent` reads `3` after it, and a formula
#   that reads only plain values still gets them.
# - `refuses`: a formula that reads a saved tensor of a released node gets PyTorch's `RuntimeError`,
#   whatever else it reads.
# - `values`: before release, a formula gets what PyTorch's would, in the order it names its values;
#   a saved tensor written in place since it was saved is refused (the cell after the answer prints
#   PyTorch's error).

# %% nbgrader={"grade": false, "grade_id": "06_free_saved_answer", "locked": false, "schema_version": 3, "solution": true}
def release_saved(node):
    """Free what node saved for its backward formulas (the engine calls it after running the
    node, unless the graph is retained)."""
    ### BEGIN SOLUTION
    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
    ### END SOLUTION


def saved_values(node, names):
    """The values a formula of node needs, one per name, in order; refused with PyTorch's
    error once the saved tensors are freed."""
    ### BEGIN SOLUTION
    if node._freed and any(name in node._saved for name in names):
        raise RuntimeError(ag.graph.FREED_MESSAGE)
    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
    return values
    ### END SOLUTION

exercises.plug("06.release_saved", release_saved)
exercises.plug("06.saved_values", saved_values)

# %% [markdown]
# Every backward pass now frees with your `release_saved`, and every formula gets its values from
# your `saved_values`. A `weakref` watches an array without keeping it alive: below, only the graph
# holds `h` (saved by `sin`), and backward frees it. Then a second backward, and an in-place write
# to a saved tensor that `unpack` catches:

# %%
a = ag.rand(10**5, requires_grad=True)
h = a * 2
y = h.sin()                      # SinBackward0 saves its input h
probe = weakref.ref(h._data)     # watches h's array without keeping it alive
del h                            # from now on only the graph holds h
loss = y.sum()
print("before backward, h's array is alive:", probe() is not None)
loss.backward()
gc.collect()
print("after backward,  h's array is alive:", probe() is not None)
print(str(error_of(loss.backward)).split(" (")[0], "[...]")

x = ag.tensor([1., 2., 3.], requires_grad=True)
h = x * 2
s = h.sin()                  # saves h
h.add_(1)                    # ... which is then changed in place
print(str(error_of(s.sum().backward)).split(": [")[0], "[...]")

# %% [markdown]
# **Tests.** Nodes released and watched; nodes asked for their values (both orders, after an
# in-place write, freed); backward twice, retained or not, and second derivatives. Hidden tests use
# random nodes and graphs.

# %% nbgrader={"grade": true, "grade_id": "06_free_saved_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.release_saved(release_saved, saved_values)
### BEGIN HIDDEN TESTS
from autograd_course.checks.lifetime import expect_release, random_release_cases

expect_release(release_saved, saved_values, random_release_cases([int(rng.integers(2**32))
                                                                 for rng in grading.random_cases(seed=602, count=18)]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_free_saved_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.saved_values(release_saved, saved_values)
### BEGIN HIDDEN TESTS
from autograd_course.checks.lifetime import expect_values, random_value_cases

expect_values(release_saved, saved_values, random_value_cases([int(rng.integers(2**32))
                                                              for rng in grading.random_cases(seed=612, count=36)]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_free_saved_test3", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.free_saved_in_the_engine(release_saved, saved_values)
### BEGIN HIDDEN TESTS
from autograd_course.checks.lifetime import expect_engine_runs

expect_engine_runs(release_saved, saved_values, [int(rng.integers(2**32))
                                                 for rng in grading.random_cases(seed=611, count=16)])
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Memory, measured
#
# How much memory does a graph hold, and does freeing give it back? Python's `tracemalloc` counts
# the bytes allocated now, NumPy's arrays included: `tracemalloc.get_traced_memory()` returns
# `(current, peak)`, the peak since the last `tracemalloc.reset_peak()`. The experiment builds a chain
# of 20 steps `y = exp(-y)` on $10^5$ float32 numbers: each `exp` saves its result, 0.4 MB (`-y`
# saves nothing). Then backward, once freeing the graph and once with `retain_graph=True`:

# %%
MB = 1e6


def exp_chain(y, steps):
    """steps times y = exp(-y)."""
    for _ in range(steps):
        y = (-y).exp()
    return y


def memory_experiment(retain_graph, steps=20, size=10**5, segments=None):
    """Memory held (in MB) while a chain of exp is built, then around backward.
    segments (section 9): build the chain as that many checkpointed pieces instead."""
    gc.collect()
    tracemalloc.start()
    try:
        x = ag.rand(size, requires_grad=True)
        held = [tracemalloc.get_traced_memory()[0] / MB]
        y = x
        for _ in range(segments or steps):
            if segments:
                y = ag.utils.checkpoint.checkpoint(exp_chain, y, steps // segments, use_reentrant=True)
            else:
                y = (-y).exp()                          # ExpBackward0 saves its result
            held.append(tracemalloc.get_traced_memory()[0] / MB)
        loss = y.sum()
        tracemalloc.reset_peak()
        loss.backward(retain_graph=retain_graph)
        gc.collect()
        after, peak = (n / MB for n in tracemalloc.get_traced_memory())
    finally:
        tracemalloc.stop()
    return {"forward": held, "after forward": held[-1], "peak in backward": peak, "after backward": after}


freed = memory_experiment(retain_graph=False)
kept = memory_experiment(retain_graph=True)
for label, run in (("freed", freed), ("retain_graph=True", kept)):
    print(f"{label:18}", "   ".join(f"{key}: {run[key]:4.1f} MB"
                                     for key in ("after forward", "peak in backward", "after backward")))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
left.plot(range(len(freed["forward"])), freed["forward"], marker="o", markersize=3)
left.set_xlabel("exp nodes in the graph")
left.set_ylabel("memory held (MB)")
left.set_title("forward: each exp saves 0.4 MB")

keys = ["after forward", "peak in backward", "after backward"]
positions = np.arange(len(keys))
right.bar(positions - 0.2, [freed[k] for k in keys], width=0.4, label="backward()")
right.bar(positions + 0.2, [kept[k] for k in keys], width=0.4, label="backward(retain_graph=True)")
right.set_xticks(positions, keys)
right.set_ylabel("memory held (MB)")
right.set_title("what backward gives back")
right.set_ylim(0, 12.5)
right.legend(loc="upper center", ncol=2, fontsize="small")
plt.tight_layout()
plt.show()

# %% [markdown]
# The forward pass grows by 0.4 MB per `exp`: 8 MB of saved results. `backward()` leaves about
# 1.2 MB (`x`, `x.grad`, the last `y`); with `retain_graph=True` everything stays until the graph
# itself goes (`del loss, y`). PyTorch behaves the same: on the whole process, 10 steps on $10^7$
# numbers added 400 MB, of which 85 MB were left after `backward()`, 440 MB after
# `backward(retain_graph=True)`.

# %% [markdown]
# ## 4. Where saved tensors live: saved-tensor hooks
#
# Inside `with ag.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):` (PyTorch's
# `torch.autograd.graph.saved_tensors_hooks`), every tensor a node saves is handed to `pack_hook` at
# once, and the node keeps only what `pack_hook` returns: a copy on another device, a compressed
# array, a file name. When backward needs the tensor, `unpack_hook` turns that back into a tensor.
# The hooks below keep NumPy arrays and log each call:

# %%
log = []


def pack_hook(tensor):
    log.append(f"pack    {tuple(tensor.shape)}")
    return tensor.detach().numpy().copy()          # the node keeps a NumPy array, not the tensor


def unpack_hook(array):
    log.append(f"unpack  {array.shape}")
    return ag.tensor(array)


x = ag.tensor([1.0, 2.0], requires_grad=True)
w = ag.tensor([0.5, -1.0], requires_grad=True)
with ag.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = (x * w).exp()
    log.append("forward done")
y.sum().backward()
print("\n".join(log))
print(x.grad)           # PyTorch: tensor([ 0.8244, -0.1353])

# %% [markdown]
# Three packs in the forward pass, three unpacks in backward, as in PyTorch. A packed tensor is
# **not version-checked**: the library no longer holds it, so an in-place write after saving goes
# unnoticed. And a node's **own output comes back attached**: the node saved it without its `grad_fn`
# (that would be a reference cycle), and gets it back with the node as `grad_fn`, at its output
# number, in any grad mode, so that a second derivative flows back through the node (section 6).

# %%
log.clear()
h = x * 2
with ag.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    s = h.sin()                      # saves h, packed
h.add_(1)                            # written in place after saving
x.grad = None
s.sum().backward()                   # no error: backward reads the packed copy
print(log, x.grad)                   # PyTorch: ['pack    (2,)', 'unpack  (2,)'] tensor([-0.8323, -1.3073])

y = x.exp()                          # ExpBackward0 saves its result
with ag.no_grad():
    back = y.grad_fn._saved_result   # unpacked for us
print(back.grad_fn is y.grad_fn, back.output_nr, back.requires_grad)   # PyTorch: True 0 True
print(back is y, back._version == y._version, np.shares_memory(back._data, y._data))   # PyTorch: False True True
with ag.no_grad():
    y.add_(1)                        # written in place: back sees it
print(back, back._version)           # PyTorch: tensor([3.7183, 8.3891], grad_fn=<ExpBackward0>) 1
print((x * w).grad_fn._saved_other is w)   # PyTorch: True (an input comes back as itself)

# %% [markdown]
# ### Exercise 3: `unpack` (5 points)
#
# Write `unpack(saved, node)`, the method `SavedTensor.unpack`: the tensor that the formula of `node`
# gets for `saved`, which `saved_values` and `grad_fn._saved_<name>` hand out, as PyTorch hands it out
# in the cells above. A `SavedTensor` holds, for reference: `tensor` (None when a hook packed it),
# `packed` and `unpack_hook` (None without hooks), `is_output` and `output_nr` (whether the tensor is
# an output of `node`, and which one), and the method `check_version(node)`, which raises PyTorch's
# `RuntimeError` if the tensor was written in place since it was saved (assignment 08 writes it). In
# this library a tensor's `grad_fn` and `_output_nr` (behind `output_nr`) may be assigned.
#
# **Rules**
# - `itself`: without hooks, the formula gets the very tensor that was saved, or PyTorch's
#   `RuntimeError` if it was written in place since (section 2's last line).
# - `hooked`: with hooks, it gets what the unpack hook makes of what the pack hook returned, the hook
#   running once for each request, whatever was written in place since (the log above).
# - `hook-type`: an unpack hook that returns anything but a tensor is refused with PyTorch's
#   `TypeError` (printed after the answer cell; its message is `UNPACK_HOOK_TYPE`, imported below).
# - `attached`: a node's own output comes back as `back` above, in any grad mode: with the node as its
#   `grad_fn` at the output number it was saved at; not the tensor saved, but one that sees its data
#   and its in-place writes.

# %% nbgrader={"grade": false, "grade_id": "06_unpack_answer", "locked": false, "schema_version": 3, "solution": true}
from autograd_lib.graph import UNPACK_HOOK_TYPE, type_name


def unpack(saved, node):
    """The tensor that node's backward formula gets for the SavedTensor saved."""
    ### BEGIN SOLUTION
    if saved.unpack_hook is None:
        saved.check_version(node)             # raises if written in place since it was saved
        tensor = saved.tensor
    else:
        tensor = saved.unpack_hook(saved.packed)
        if not isinstance(tensor, ag.Tensor):
            raise TypeError(UNPACK_HOOK_TYPE.format(type=type_name(tensor)))
    if not saved.is_output:
        return tensor
    output = ag.Tensor._make(tensor._data, tensor._version_counter)
    output.grad_fn = node
    output._output_nr = saved.output_nr
    return output
    ### END SOLUTION

exercises.plug("06.unpack", unpack)

# %% [markdown]
# Every saved tensor now comes back through your method: a backward pass with the hooks, and the
# refusal of an unpack hook that keeps the NumPy array:

# %%
log.clear()
x.grad = None
with ag.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = (x * w).exp()
y.sum().backward()
print(log, x.grad)                   # PyTorch: [... 3 packs, 3 unpacks] tensor([ 0.8244, -0.1353])

with ag.autograd.graph.saved_tensors_hooks(pack_hook, lambda array: array):
    z = x.exp()
print(error_of(z.sum().backward))
# PyTorch: TypeError: Output of saved tensor unpack_hook expected to be a Tensor but got result of type numpy.ndarray

# %% [markdown]
# **Tests.** Ten saved tensors (hooked or not, written in place or not, both grad modes), then
# backward and second derivatives through them; hidden tests use random cases.

# %% nbgrader={"grade": true, "grade_id": "06_unpack_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.unpack(unpack)
### BEGIN HIDDEN TESTS
from autograd_course.checks.saved_hooks import expect_unpack, random_unpack_case

expect_unpack(unpack, [random_unpack_case(int(rng.integers(2**32)))
                       for rng in grading.random_cases(seed=661, count=48)])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_unpack_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.unpack_in_the_engine(unpack)
### BEGIN HIDDEN TESTS
from autograd_course.checks.saved_hooks import expect_engine, random_engine_case

expect_engine(unpack, [random_engine_case(int(rng.integers(2**32)))
                       for rng in grading.random_cases(seed=662, count=16)])
### END HIDDEN TESTS

# %% [markdown]
# ## 5. `autograd.grad`: gradients as return values
#
# `autograd.grad(outputs, inputs)` runs the same engine as `backward()` but **returns** the
# gradients and leaves `.grad` alone. It frees the graph too, and takes `retain_graph=`. An input the
# graph does not use is an error unless `allow_unused=True`, which gives `None`:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
loss = (x ** 2).sum()
print(ag.autograd.grad(loss, x), x.grad)        # PyTorch: (tensor([2., 4., 6.]),) None

u = ag.tensor(1.0, requires_grad=True)
try:
    ag.autograd.grad((x * 2).sum(), [x, u])
except RuntimeError as e:
    print("RuntimeError:", e)
# PyTorch: RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.
print(ag.autograd.grad((x * 2).sum(), [x, u], allow_unused=True))     # PyTorch: (tensor([2., 2., 2.]), None)

# %% [markdown]
# ## 6. Differentiating a gradient: `create_graph=True`
#
# Backward normally runs with grad mode **off**, and the gradient has no graph. With
# `create_graph=True` the engine runs the formulas, tensor operations, with grad mode **on**: they are
# recorded, and the gradient can be differentiated again. For $y = x^3$ at $x = 2$, $y' = 3x^2 = 12$
# and $y'' = 6x = 12$. `retain_graph` then defaults to `True`: the graph of a gradient can lead back
# into the graph it came from.

# %%
x = ag.tensor(2.0, requires_grad=True)
y = x ** 3
(dy,) = ag.autograd.grad(y, x, create_graph=True)
print(dy)                   # PyTorch: tensor(12., grad_fn=<MulBackward0>)
(d2y,) = ag.autograd.grad(dy, x)
print(d2y)                  # PyTorch: tensor(12.)

(plain_dy,) = ag.autograd.grad(x ** 3, x)
try:
    ag.autograd.grad(plain_dy, x)
except RuntimeError as e:
    print("RuntimeError:", e)   # PyTorch: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

# %% [markdown]
# For `exp` the formula is `grad * result`, and the saved `result` leads back into the forward pass's
# `ExpBackward0`: the reattachment your `unpack` does. The dotted `None` stub is `grad`, the constant
# 1 backward started from:

# %%
x = ag.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
(g,) = ag.autograd.grad(y.sum(), x, create_graph=True)
print(g)
ag.viz.draw_graph(g, names={"x": x, "g": g, "y": y}, title="g = d(sum(exp(x)))/dx, built with create_graph=True")

# %% [markdown]
# Elementwise functions are easy to check: the gradient of `y.sum()` holds every $y'(x_i)$, and the
# gradient of that sum every $y''(x_i)$. For $\tanh$, $\tanh' = 1 - \tanh^2$ and
# $\tanh'' = -2\tanh\,(1 - \tanh^2)$ (the gradient is recorded as a `TanhBackwardBackward0` node, in
# PyTorch and here: the backward of a backward):

# %%
x = ag.linspace(-3, 3, 121, dtype=ag.float64).requires_grad_()
f = x.tanh()
(f1,) = ag.autograd.grad(f.sum(), x, create_graph=True)
(f2,) = ag.autograd.grad(f1.sum(), x)
print(f1.grad_fn.name())                # PyTorch: TanhBackwardBackward0

t = np.tanh(x.detach().numpy())
print("f'  matches 1 - tanh^2:        ", np.allclose(f1.detach().numpy(), 1 - t**2))
print("f'' matches -2 tanh (1 - tanh^2):", np.allclose(f2.numpy(), -2 * t * (1 - t**2)))

fig, ax = plt.subplots(figsize=(7, 3.6))
for values, label in ((f, "f = tanh(x)"), (f1, "f'"), (f2, "f''")):
    ax.plot(x.detach().numpy(), values.detach().numpy(), label=label)
ax.axhline(0, color="black", linewidth=0.6)
ax.set_xlabel("x")
ax.legend()
ax.set_title("tanh and its first two derivatives, by autograd")
plt.show()


# %% [markdown]
# ## 7. Hessian-vector products
#
# For a scalar $f$ of $x \in \mathbb{R}^n$, the **Hessian** $H$ is the $n \times n$ matrix of second
# derivatives, $H_{ij} = \partial^2 f / \partial x_i \partial x_j$. Row $i$ is the gradient of
# $g_i = \partial f / \partial x_i$, so with `create_graph=True` we can build $H$ one row per backward
# pass, $n$ passes in all (the tests use this helper):

# %% nbgrader={"grade": false, "grade_id": "06_explicit_hessian", "locked": true, "schema_version": 3, "solution": false}
def explicit_hessian(func, x):
    """The full Hessian of a scalar func at a 1-D x: one backward pass per row."""
    x = x.detach().requires_grad_()
    (g,) = ag.autograd.grad(func(x), x, create_graph=True)
    rows = [ag.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(x.numel())]
    return ag.stack(rows)


# %% [markdown]
# Newton-type optimizers and curvature estimates need only the product of $H$ with a vector $v$,
# $(Hv)_i = \sum_j H_{ij} v_j$: for a model of a million parameters, without the $n \times n$ matrix
# and its $n$ backward passes. For $f(x) = \frac12 x^\top A x$ with a symmetric $A$, $H = A$:

# %%
A = ag.tensor([[2., 1.], [1., 3.]])

def f(x):
    return x @ A @ x / 2

x0 = ag.tensor([1., -1.])
v = ag.tensor([1., 0.])
H = explicit_hessian(f, x0)
print(H)                    # PyTorch: tensor([[2., 1.],
                            #                  [1., 3.]])
print("H @ v =", H @ v)     # PyTorch: H @ v = tensor([2., 1.])

# %% [markdown]
# ### Exercise 4: `hvp` (6 points)
#
# Write `hvp(func, inputs, v=None, create_graph=False, strict=False)`, installed as
# `ag.autograd.functional.hvp`: PyTorch's `torch.autograd.functional.hvp` for one input tensor
# `inputs` (`strict` is in PyTorch's signature; ignore it). It returns the pair `(func(inputs), H v)`,
# $H$ the Hessian of the scalar `func` at `inputs`, in a few backward passes whatever the size of
# `inputs`. PyTorch's behaviour:
#
# ```python
# hvp(lambda t: (t ** 3).sum(), tensor([1., 2., 3.]), tensor([1., -2., 0.5]))   # (tensor(36.), tensor([  6., -24.,   9.]))
# hvp(lambda t: (t * 2).sum(), tensor([1., 2., 3.]), tensor([1., 1., 1.]))      # (tensor(12.), tensor([0., 0., 0.]))
# hvp(lambda t: t ** 3, tensor(2.))                                             # (tensor(8.), tensor(12.))
# hvp(lambda t: t ** 3, tensor([1., 2., 3.]), tensor([1., 1., 1.]))
#     # RuntimeError: The Tensor returned by the function given to hvp should contain a single element
# hvp(lambda t: (t ** 3).sum(), tensor([1., 2., 3.]))
#     # RuntimeError: The vector v can only be None if the input to the user-provided function is a single Tensor with a single element.
# ```
#
# **Rules**
# - `pair`: `hvp` returns the pair `(func(inputs), H v)`.
# - `h-times-v`: the second element is $H v$, of the shape of `inputs`: zeros where the gradient does
#   not depend on the input (a linear `func`).
# - `one-element`: `func` must return a tensor of one element (any shape), else the `RuntimeError` above.
# - `v-none`: `v=None` stands for 1 when `inputs` has one element; for any other input it is the
#   `RuntimeError` above, raised before `func` runs.
# - `any-mode`: `hvp` works when called inside `no_grad()`.
# - `untouched`: the caller's tensor is left as it was: it does not start requiring grad, gets no
#   `.grad`, and stays a leaf.
# - `detached`: without `create_graph`, neither result has a graph.
# - `create-graph`: with `create_graph=True` both results keep their graph, connected to `inputs` when
#   it requires grad, so that `H v` can be differentiated again.

# %% nbgrader={"grade": false, "grade_id": "06_hvp_answer", "locked": false, "schema_version": 3, "solution": true}
V_NONE = ("The vector v can only be None if the input to the user-provided function is a single "
          "Tensor with a single element.")
NOT_ONE_ELEMENT = "The Tensor returned by the function given to hvp should contain a single element"


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v), H the Hessian of the scalar func at the tensor inputs, as
    torch.autograd.functional.hvp."""
    ### BEGIN SOLUTION
    if v is None:
        if inputs.numel() != 1:
            raise RuntimeError(V_NONE)
        v = ag.ones_like(inputs)
    with ag.enable_grad():
        if create_graph and inputs.requires_grad:
            x = inputs.view(inputs.shape)     # keeps the history: the result stays connected
        else:
            x = inputs.detach().requires_grad_()
        output = func(x)
        if output.numel() != 1:
            raise RuntimeError(NOT_ONE_ELEMENT)
        (grad,) = ag.autograd.grad(output, x, create_graph=True)
        if grad.requires_grad:
            (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
        else:                                 # the gradient does not depend on x: H = 0
            product = ag.zeros_like(x)
    if not create_graph:
        return output.detach(), product.detach()
    return output, product
    ### END SOLUTION

exercises.plug("06.hvp", hvp)

# %% [markdown]
# `ag.autograd.functional.hvp` is now your function. Compared with the explicit Hessian on the
# quadratic form, on $\sum x_i^3$ (Hessian $\operatorname{diag}(6x)$) and on $\sum e^{x_i}$ (Hessian
# $\operatorname{diag}(e^x)$), with PyTorch's own `hvp` in the comments:

# %%
print("quadratic:", ag.autograd.functional.hvp(f, x0, v), "  H @ v:", explicit_hessian(f, x0) @ v)
# PyTorch: quadratic: (tensor(1.5000), tensor([2., 1.]))   H @ v: tensor([2., 1.])

def cubes(x):
    return (x ** 3).sum()

def exps(x):
    return x.exp().sum()

x1 = ag.tensor([1., 2., 3.])
v1 = ag.tensor([1., -2., 0.5])
for func in (cubes, exps):
    output, product = ag.autograd.functional.hvp(func, x1, v1)
    print(f"{func.__name__:9}", product, "  H @ v:", explicit_hessian(func, x1) @ v1)
# PyTorch: cubes     tensor([  6., -24.,   9.])   H @ v: tensor([  6., -24.,   9.])
#          exps      tensor([  2.7183, -14.7781,  10.0428])   H @ v: tensor([  2.7183, -14.7781,  10.0428])

# %% [markdown]
# **Tests.** The functions above, a linear one, the two errors, then inside `no_grad()` and with
# `create_graph=True`; hidden tests use random functions and points.

# %% nbgrader={"grade": true, "grade_id": "06_hvp_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.hvp(hvp)
### BEGIN HIDDEN TESTS
from autograd_course.checks.lifetime import expect_hvp, random_hvp_case

expect_hvp(hvp, [random_hvp_case(int(rng.integers(2**32))) for rng in grading.random_cases(seed=622, count=16)])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_hvp_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.hvp_in_the_library(hvp)
### BEGIN HIDDEN TESTS
from autograd_course.checks.lifetime import expect_hvp_against_hessian, random_hessian_cases

expect_hvp_against_hessian(hvp, random_hessian_cases([int(rng.integers(2**32))
                                                      for rng in grading.random_cases(seed=621, count=12)]),
                           explicit_hessian)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Trading compute for memory: checkpointing
#
# *Activation checkpointing* (PyTorch's `torch.utils.checkpoint.checkpoint`) holds less than section
# 3's chain: a checkpointed piece of the model keeps none of its intermediate results, only its
# **inputs**, and pays with a second run of the piece during backward.
#
# It is a **custom `autograd.Function`**, a node you write: `forward(ctx, *inputs)` computes the
# outputs with recording off and keeps in `ctx` what backward needs (tensors through
# `ctx.save_for_backward(...)`, saved as the built-in nodes save them and read back as
# `ctx.saved_tensors`); `backward(ctx, *grad_outputs)` returns one gradient per input.
# `Function.apply(*inputs)` runs it and records one node, named after the class: `ctx` *is* that node.

# %%
class Cube(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


x = ag.tensor([1., 2., 3.], requires_grad=True)
y = Cube.apply(x)
print(y)                            # PyTorch: tensor([ 1.,  8., 27.], grad_fn=<CubeBackward>)
print(y.grad_fn.saved_tensors)      # PyTorch: (tensor([1., 2., 3.], requires_grad=True),)
y.sum().backward()
print(x.grad)                       # PyTorch: tensor([ 3., 12., 27.])

# %% [markdown]
# `checkpoint(function, *args, use_reentrant=True)` wraps `function` in such a node,
# `CheckpointFunctionBackward`, whose edges lead to the arguments and which saves only them. The
# gradients are those of `function` run without checkpoint:

# %%
from autograd_lib.utils.checkpoint import checkpoint


def block(a):
    return (a.sin() * 2).exp()


x = ag.tensor([0.5, 1.0, 1.5], requires_grad=True)
y = checkpoint(block, x, use_reentrant=True)
print(y)                    # PyTorch: tensor([2.6087, 5.3814, 7.3521], grad_fn=<CheckpointFunctionBackward>)
print([type(node).__name__ for node, _ in y.grad_fn.next_functions], len(y.grad_fn.saved_tensors))
# PyTorch: ['AccumulateGrad'] 1
y.sum().backward()
print(x.grad)               # PyTorch: tensor([4.5787, 5.8151, 1.0401])
with ag.no_grad():
    print(block(x) * 2 * x.cos())       # the gradient by hand: exp(2 sin x) * 2 cos x

# %% [markdown]
# `CheckpointFunction`'s own methods can be called by hand on the node of a call with several
# arguments (`ctx` is the node), and `autograd.grad` is refused:

# %%
from autograd_lib.utils.checkpoint import CheckpointFunction


def f(a, k, c):
    return ((a * k).exp() + c).sin()


x = ag.tensor([0.1, -0.2, 0.3], requires_grad=True)
c = ag.tensor([1., 2., 3.])
y = checkpoint(f, x, 2.0, c, use_reentrant=True)
print(y.grad_fn.saved_tensors)
# PyTorch: (tensor([ 0.1000, -0.2000,  0.3000], requires_grad=True), tensor([1., 2., 3.]))
print(CheckpointFunction.backward(y.grad_fn, ag.ones(3)), x.grad)
# PyTorch: (None, None, tensor([-1.4795, -1.1945,  0.3991]), None, None) None
print(error_of(lambda: ag.autograd.grad(y.sum(), x)))
# PyTorch: RuntimeError: When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() [...]

# %% [markdown]
# Without checkpoint, every node of `block` holds its saved tensor until backward:

# %%
x = ag.tensor([0.5, 1.0, 1.5], requires_grad=True)
w = ag.tensor([1.0, -1.0, 2.0], requires_grad=True)
ag.viz.draw_saved((block(x) * w).sum(), names={"x": x, "w": w}, title="(block(x) * w).sum(), after forward")

# %% [markdown]
# Checkpointed, the node holds only `x`. `ag.viz.draw_checkpoint` draws, after backward, the segment
# its backward recomputed (green), ran backward through, and freed (`ag.viz.watch_recomputation`
# wraps `block` to catch the recomputed outputs):

# %%
watched = ag.viz.watch_recomputation(block)
y = checkpoint(watched, x, use_reentrant=True)
loss = (y * w).sum()
loss.backward()
ag.viz.draw_checkpoint(loss, recomputed=watched.recomputed, names={"x": x, "w": w, "y": y},
                       title="(checkpoint(block, x) * w).sum(), after backward")

# %% [markdown]
# ### Exercise 5: `checkpoint` (10 points)
#
# `checkpoint(function, *args, use_reentrant=True, preserve_rng_state=True)` is
# `CheckpointFunction.apply(function, preserve_rng_state, *args)`: write its `forward(ctx, function,
# preserve_rng_state, *args)` and `backward(ctx, *grad_outputs)`, as `checkpoint_forward` and
# `checkpoint_backward`, called as for `Cube` above; what `ctx` keeps between them is yours to
# choose. Arguments that are not tensors (numbers, None, flags) go to the function unchanged. Since
# the node keeps nothing but its tensor arguments, an argument written in place before backward makes
# backward fail (`modified by an inplace operation`), and a second backward raises the freed error, as
# in PyTorch. With a function that draws random numbers (a dropout mask), PyTorch's
# `preserve_rng_state=False` may give a mask different from the forward pass's.
#
# `autograd_lib.utils.checkpoint` has the helpers of PyTorch's `torch.utils.checkpoint` under their
# names (`help()` on each says what it does), among them `get_rng_state()` and `set_rng_state(state)`
# for the default generator; which you need is yours to work out. The answer cell imports PyTorch's
# two messages of the rules below.
#
# **Rules**
# - `outputs`: the outputs are the function's on the arguments, each with the checkpoint's node as
#   its `grad_fn`.
# - `keeps-inputs`: between the passes the node's `saved_tensors` are PyTorch's (the experiment
#   above), and no other tensor is held in any attribute of `ctx`: no output, no intermediate result.
# - `same-grads`: backward gives the gradients of the function run without checkpoint, to the tensor
#   arguments and to the tensors the function reaches through a closure (a layer's weights).
# - `one-per-argument`: called by hand, backward returns what PyTorch's returns in the experiment
#   above, whatever the arguments.
# - `grad-mode`: backward gives these gradients though the engine calls it with grad mode off.
# - `stops-at-inputs`: called by hand, backward adds nothing to the arguments' own `.grad`, as in the
#   experiment (a weight reached through a closure gets its `.grad` from the recomputation, as in
#   PyTorch).
# - `rng-same`: with `preserve_rng_state=True` the recomputation draws the forward pass's random
#   numbers, and backward leaves the caller's generator where it found it.
# - `rng-fresh`: with `preserve_rng_state=False` the recomputation draws from the caller's generator
#   as it stands, advancing it, as in PyTorch.
# - `refuses-grad`: inside `autograd.grad` or `backward(inputs=...)` backward raises PyTorch's
#   `RuntimeError` of the experiment (`NOT_VALID_MESSAGE`).
# - `no-output`: when no output of the recomputation requires grad, backward raises
#   PyTorch's `RuntimeError` (`NO_OUTPUT_MESSAGE`).

# %% nbgrader={"grade": false, "grade_id": "06_checkpoint_answer", "locked": false, "schema_version": 3, "solution": true}
from autograd_lib.utils.checkpoint import NO_OUTPUT_MESSAGE, NOT_VALID_MESSAGE


def checkpoint_forward(ctx, run_function, preserve_rng_state, *args):
    """CheckpointFunction.forward: the outputs of run_function on args, keeping in ctx only
    what backward needs to run it again."""
    ### BEGIN SOLUTION
    from autograd_lib.utils.checkpoint import get_rng_state

    ctx.run_function = run_function
    ctx.rng_state = get_rng_state() if preserve_rng_state else None
    ctx.tensor_indices = [i for i, arg in enumerate(args) if isinstance(arg, ag.Tensor)]
    ctx.inputs = [None if isinstance(arg, ag.Tensor) else arg for arg in args]
    ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
    return run_function(*args)
    ### END SOLUTION


def checkpoint_backward(ctx, *grad_outputs):
    """CheckpointFunction.backward: the gradients of the checkpointed function, one per
    argument of forward, from a recomputation."""
    ### BEGIN SOLUTION
    from autograd_lib.utils.checkpoint import checkpoint_valid, detach_variable, fork_rng, set_rng_state

    if not checkpoint_valid():
        raise RuntimeError(NOT_VALID_MESSAGE)
    inputs = list(ctx.inputs)
    for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
        inputs[i] = tensor
    with fork_rng(enabled=ctx.rng_state is not None):
        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
        copies = detach_variable(tuple(inputs))
        with ag.enable_grad():
            outputs = ctx.run_function(*copies)
    if isinstance(outputs, ag.Tensor):
        outputs = (outputs,)
    recomputed, grads = [], []
    for output, grad in zip(outputs, grad_outputs):
        if isinstance(output, ag.Tensor) and output.requires_grad:
            recomputed.append(output)
            grads.append(ag.zeros_like(output) if grad is None else grad)
    if not recomputed:
        raise RuntimeError(NO_OUTPUT_MESSAGE)
    ag.autograd.backward(recomputed, grads)
    return (None, None) + tuple(c.grad if isinstance(c, ag.Tensor) else None for c in copies)
    ### END SOLUTION

exercises.plug("06.checkpoint_forward", checkpoint_forward)
exercises.plug("06.checkpoint_backward", checkpoint_backward)

# %% [markdown]
# With both methods written, `checkpoint` runs your node. Section 3's `memory_experiment` builds its
# chain of 20 `exp` as checkpointed pieces when given `segments`: one piece of 20 steps, or four of 5.
# After the forward pass only the pieces' inputs are held; in backward each piece is recomputed, one
# at a time:

# %%
runs = {"no checkpoint": freed,
        "1 checkpoint of 20": memory_experiment(retain_graph=False, segments=1),
        "4 checkpoints of 5": memory_experiment(retain_graph=False, segments=4)}
for label, run in runs.items():
    print(f"{label:19}", "   ".join(f"{key}: {run[key]:4.1f} MB" for key in ("after forward", "peak in backward")))

fig, ax = plt.subplots(figsize=(8, 3.6))
keys = ["after forward", "peak in backward"]
positions = np.arange(len(keys))
for i, (label, run) in enumerate(runs.items()):
    ax.bar(positions + (i - 1) * 0.27, [run[k] for k in keys], width=0.27, label=label)
ax.set_xticks(positions, keys)
ax.set_ylabel("memory held (MB)")
ax.set_title("a chain of 20 exp on 10^5 numbers: what checkpointing holds")
ax.set_ylim(0, 12.5)
ax.legend(loc="upper center", ncol=3, fontsize="small")
plt.show()

# %% [markdown]
# One checkpoint around the whole chain holds almost nothing after the forward pass, but its backward
# recomputes all 20 steps at once: the peak is as high as without checkpoint, and the forward pass
# ran twice. Four pieces of 5 hold 4 inputs, and during backward one piece's 5 results: about half the
# peak. With $n$ steps cut into about $\sqrt{n}$ pieces, memory grows like $\sqrt{n}$ instead of $n$,
# for one extra forward pass.

# %% [markdown]
# **Tests.** What the node keeps; gradients (a direct call, a chain, a closure parameter, two
# outputs); random masks with and without `preserve_rng_state`, and `autograd.grad`. Hidden tests use
# random blocks.

# %% nbgrader={"grade": true, "grade_id": "06_checkpoint_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.checkpoint_saves(checkpoint_forward, checkpoint_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.checkpointing import expect_saves

expect_saves(checkpoint_forward, checkpoint_backward,
             [int(rng.integers(2**32)) for rng in grading.random_cases(seed=631, count=24)])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_checkpoint_test2", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.checkpoint_gradients(checkpoint_forward, checkpoint_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.checkpointing import expect_gradients

expect_gradients(checkpoint_forward, checkpoint_backward,
                 [int(rng.integers(2**32)) for rng in grading.random_cases(seed=641, count=24)])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_checkpoint_test3", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.checkpoint_randomness(checkpoint_forward, checkpoint_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.checkpointing import expect_randomness

expect_randomness(checkpoint_forward, checkpoint_backward,
                  [int(rng.integers(2**32)) for rng in grading.random_cases(seed=642, count=16)])
### END HIDDEN TESTS

# %% [markdown]
# ## 9. What `backward` may return
#
# A custom Function's `backward` is your code, and the engine cannot know what it will hand back, so
# the node checks the result before passing anything on. `Scale` below takes a tensor, a number and a
# function deciding what its `backward` returns, so one class can try several answers:

# %%
class Scale(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor, returns):
        ctx.factor, ctx.returns = factor, returns
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return ctx.returns(grad * ctx.factor)


x = ag.tensor([1., 2., 3.], requires_grad=True)
Scale.apply(x, 2.5, lambda g: (g, None, None)).sum().backward()
print(x.grad)                   # PyTorch: tensor([2.5000, 2.5000, 2.5000])


def try_returning(returns):
    """backward through Scale.apply(x, 2.5, returns): None if it worked, else the error."""
    return error_of(lambda: Scale.apply(x, 2.5, returns).sum().backward())


tries = {"(g, None)": lambda g: (g, None),
         "(g, None, None, None)": lambda g: (g, None, None, None),
         "(g, None, None, g)": lambda g: (g, None, None, g),
         "(g, 2.5, None)": lambda g: (g, 2.5, None),
         "(g.numpy(), None, None)": lambda g: (g.numpy(), None, None),
         "[g, None, None]": lambda g: [g, None, None],
         "g": lambda g: g,
         "None": lambda g: None,
         "(g, 2.5)": lambda g: (g, 2.5),
         "(g.numpy(), 2.5, None)": lambda g: (g.numpy(), 2.5, None),
         "(g, g.numpy(), None)": lambda g: (g, g.numpy(), None)}
for shown, returns in tries.items():
    print(f"{shown:24}", try_returning(returns))
print(x.grad)
# PyTorch:
# (g, None)                RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 3, got 2)
# (g, None, None, None)    None
# (g, None, None, g)       RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 3, got 4)
# (g, 2.5, None)           RuntimeError: function ScaleBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable
# (g.numpy(), None, None)  RuntimeError: expected Variable or None (got numpy.ndarray)
# [g, None, None]          RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 3, got 1)
# g                        RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 3, got 1)
# None                     RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 3, got 1)
# (g, 2.5)                 RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 3, got 2)
# (g.numpy(), 2.5, None)   RuntimeError: expected Variable or None (got numpy.ndarray)
# (g, g.numpy(), None)     RuntimeError: function ScaleBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable
# tensor([5., 5., 5.])

# %% [markdown]
# The node passes on one gradient per *tensor* argument of `forward` (its edges). `x.grad` is
# 5 = 2.5 + 2.5: the refused tries stopped before reaching `x`. The last three break two rules each.

# %% [markdown]
# ### Exercise 6: `function_gradients` (4 points)
#
# Write `function_gradients(name, grads, arg_is_tensor)`, the step between a custom Function's
# `backward` and the engine: `name` is the node's name (`"ScaleBackward"`), `grads` what `backward`
# returned, `arg_is_tensor` one bool per argument of `forward`. Return what the node passes on, or
# raise the `RuntimeError` PyTorch raises in the tries above (its three messages are the format strings
# imported below, with `type_name(value)` for a type).
#
# **Rules**
# - `tuple`: `backward`'s result is read as PyTorch reads it, a tuple or not (the tries `g`, `None`,
#   `[g, None, None]`).
# - `count`: a result is refused for its number of gradients exactly where PyTorch refuses it in the
#   tries.
# - `not-a-tensor`: what `backward` returns for an argument of `forward` that is not a tensor is
#   accepted or refused as in the tries.
# - `type`: the gradient of a tensor argument is accepted or refused as in the tries (a `Parameter`
#   is a tensor).
# - `order`: a result that breaks several rules gets the error PyTorch gives it.
# - `passed-on`: the node passes on a list of the gradients of the tensor arguments, in order: the
#   very objects `backward` returned.

# %% nbgrader={"grade": false, "grade_id": "06_function_gradients_answer", "locked": false, "schema_version": 3, "solution": true}
from autograd_lib.autograd.function import NOT_AN_INPUT, NOT_A_GRADIENT, WRONG_COUNT, type_name


def function_gradients(name, grads, arg_is_tensor):
    """The gradients a custom Function's node passes on, from what its backward returned
    (grads), given which arguments of forward were tensors; PyTorch's RuntimeError for a
    wrong result."""
    ### BEGIN SOLUTION
    grads = grads if isinstance(grads, tuple) else (grads,)
    expected = len(arg_is_tensor)
    if len(grads) < expected or any(g is not None for g in grads[expected:]):
        raise RuntimeError(WRONG_COUNT.format(name=name, expected=expected, got=len(grads)))
    passed_on = []
    for position, (grad, is_tensor) in enumerate(zip(grads, arg_is_tensor), start=1):
        if not is_tensor:
            if grad is not None:
                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
        elif grad is not None and not isinstance(grad, ag.Tensor):
            raise RuntimeError(NOT_A_GRADIENT.format(type=type_name(grad)))
        else:
            passed_on.append(grad)
    return passed_on
    ### END SOLUTION

exercises.plug("06.function_gradients", function_gradients)

# %% [markdown]
# From here on, every custom Function's node runs your function. The same tries as above:

# %%
x.grad = None
print(try_returning(lambda g: (g, None, None)), x.grad)
for shown, returns in tries.items():
    print(f"{shown:24}", try_returning(returns))

# %% [markdown]
# **Tests.** Seventeen results of `backward`, right and wrong, then nine custom Functions in the
# engine; hidden tests use random ones.

# %% nbgrader={"grade": true, "grade_id": "06_function_gradients_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.function_gradients(function_gradients)
### BEGIN HIDDEN TESTS
from autograd_course.checks.custom_functions import expect_outcomes, random_gradients_case

expect_outcomes(function_gradients, [random_gradients_case(int(rng.integers(2**32)))
                                     for rng in grading.random_cases(seed=651, count=60)])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "06_function_gradients_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.function_gradients_in_the_engine(function_gradients)
### BEGIN HIDDEN TESTS
from autograd_course.checks.custom_functions import expect_engine_outcomes, random_function_case

expect_engine_outcomes(function_gradients, [random_function_case(int(rng.integers(2**32)))
                                            for rng in grading.random_cases(seed=652, count=24)])
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * A node **saves** what its backward will read, as PyTorch's node does (`plan_saves`).
# * **Backward frees** it node by node (`release_saved`): 8 MB held after the forward pass, 1 MB after.
#   A second backward fails with PyTorch's error (`saved_values`) unless the graph was retained.
# * **Saved-tensor hooks** decide where saved tensors live; a node's own output comes back attached
#   (`unpack`), which **`create_graph=True`** needs for second derivatives and **Hessian-vector
#   products** (`hvp`).
# * **Checkpointing**, a custom `autograd.Function`, keeps only its inputs and recomputes the rest in
#   backward (`checkpoint`); a Function's node checks what `backward` returned (`function_gradients`).
#
# Next, assignment 07: not recording the graph at all, with `no_grad` and `detach`.
