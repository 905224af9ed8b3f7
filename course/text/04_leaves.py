# %% [markdown]
# # Assignment 04: leaves, `retain_grad` and accumulation
#
# After `loss.backward()`, where do the gradients end up? In PyTorch: in the `.grad` of the
# **leaves** that require grad, and nowhere else unless you ask, **added** to whatever `.grad`
# already holds. This assignment is about those rules and the code behind them: how `.grad`
# receives a gradient, `retain_grad()`, the tensor hooks that run before each node, which nodes
# run when only some gradients are wanted (`backward(inputs=...)`, `autograd.grad`), and what
# `autograd.grad` returns.
#
# | # | exercise | what you write | points |
# |---|---|---|---|
# | 1 | `04.accumulate_grad` | how a leaf's `.grad` receives a gradient | 5 |
# | 2 | `04.retain_grad` | the method `Tensor.retain_grad` | 4 |
# | 3 | `04.tensor_hooks` | the step before each node: the tensor hooks, then the retained gradients | 8 |
# | 4 | `04.nodes_to_run` | the nodes that lead to a wanted gradient | 5 |
# | 5 | `04.grad_results` | what `autograd.grad` returns for each input | 4 |
# | | | **total** | **26** |

# %% [markdown]
# ### How an exercise works
#
# A quoted block or a comment `# PyTorch: ...` shows what PyTorch 2.13 prints. In an **answer
# cell** you write a function (keep its signature); its last line, `exercises.plug(...)`, installs
# it in `autograd_lib`, so the demos after it run your code. Each task ends with the rules its test
# cells check (`check` is `autograd_course/checks/leaves.py`); a failure prints what was expected,
# what was seen and the rule broken. Hidden tests check the same rules on random inputs, and each
# exercise is graded on its own.
#
# **The way out.** If an exercise does not work yet, `exercises.unplug("04.accumulate_grad")` (with
# its id) puts the library's version back, and you can go on.

# %% nbgrader={"grade": false, "grade_id": "04_setup", "locked": true, "schema_version": 3, "solution": false}
import warnings
import weakref

import numpy as np
import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.checks import leaves as check
from autograd_course.notebook import error_of, outcome, quietly, reveal

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# ## 1. Only leaves get `.grad`
#
# The example of this notebook: `a = [1., 2.]` is a leaf that requires grad, `b = 3 * a**3` and
# `c = b * a`. Element by element $c = 3a^4$, so $\partial c_i / \partial a_i = 12 a_i^3$, and
# `c.backward(gradient=[1., 1.])` gives `a.grad` $= [12, 96]$. The engine gets there without forming
# $3a^4$: `a` sits at the end of **two** paths, directly as a factor of `c = b * a` ($b = [3, 24]$)
# and through `b` ($a \cdot 9a^2 = [9, 72]$), and its one `AccumulateGrad` node receives the sum.

# %%
a = ag.tensor([1., 2.], requires_grad=True)
b = 3 * a**3
c = b * a
ag.viz.draw_graph(c, names={"a": a, "b": b, "c": c}, title="c = b * a,  b = 3 * a**3")

# %% [markdown]
# A gradient passed through `b` ($[1, 2]$), but `backward()` did not keep it: **only leaves get
# `.grad`**. Reading a non-leaf's `.grad` gives `None` and PyTorch's warning, because it is almost
# always a bug. The leaves are what you train; the tensors in between are recomputed by every
# forward pass, and keeping all their gradients would cost memory for values nobody reads.

# %%
c.backward(gradient=ag.tensor([1., 1.]))
print("a.grad:", a.grad)        # PyTorch: a.grad: tensor([12., 96.])

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("b.grad:", b.grad)    # PyTorch: b.grad: None
print(caught[0].category.__name__ + ":", str(caught[0].message).split(". ")[0] + ".")
# PyTorch: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.

# %% [markdown]
# ## 2. Gradients add up
#
# **A weight used twice.** When a value feeds several uses, its gradient is the sum of the
# gradients through each use (the multivariable chain rule). Below, one weight `W` serves two
# layers: one `AccumulateGrad` node with two edges in. The engine (assignment 03) waits for both
# gradients, sums them in the node's buffer and runs the node **once**; a pre-hook on the node shows
# what it receives, $h^\top \mathbf{1} + x^\top (\mathbf{1} W^\top)$:

# %%
x = ag.tensor([[1., -1.]])
W = ag.tensor([[1., 2.], [3., 4.]], requires_grad=True)
h = x @ W                  # layer 1
loss = (h @ W).sum()       # layer 2: the same weight
acc = h.grad_fn.next_functions[1][0]
print(acc is loss.grad_fn.next_functions[0][0].next_functions[1][0])   # PyTorch: True
acc.register_prehook(lambda grads: print("AccumulateGrad runs with", grads[0].tolist()))
loss.backward()            # PyTorch: AccumulateGrad runs with [[1.0, 5.0], [-5.0, -9.0]]

# %% [markdown]
# **Predict, then run.** `x = [1., 2., 3.]` requires grad, and `(x ** 2).sum().backward()` runs
# **twice**, on two fresh graphs. What is `x.grad` after the second call? Replace the `...` below
# with your answer, a list of three numbers, before you run the next cell.

# %%
prediction = ...      # x.grad after the second backward(), as a list

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
(x ** 2).sum().backward()
print(x.grad)
(x ** 2).sum().backward()
print(x.grad)
reveal(prediction, x.grad, why="backward() adds into .grad, it never replaces it: 2x = [2, 4, 6] twice")

# %% [markdown]
# **`backward()` adds into `.grad`, it never replaces it.** That lets you split a big batch into
# small ones, calling `backward()` on each: `.grad` ends up holding the gradient of their sum. It
# also means that a training loop must **clear the gradients** at every step, which is what
# `optimizer.zero_grad()` does (since PyTorch 2.0 it sets each `.grad` to `None`; assignment 09).

# %% [markdown]
# ## 3. What `.grad` holds after each backward pass
#
# Three cells show PyTorch's behaviour, which your exercise must reproduce. **The first gradient is
# a copy.** The incoming gradient may belong to someone else: the `gradient=` tensor you passed, or
# a tensor a hook kept. Below we change `g` after `backward(g)`, and `x.grad` keeps its values:

# %%
x = ag.ones(2, requires_grad=True)
g = ag.tensor([1., 2.])
(x + 0).backward(g)        # the addition passes g on unchanged
g.mul_(10)                 # you reuse your tensor...
print(x.grad)              # ...and x.grad is not affected. PyTorch: tensor([1., 2.])
print("shares memory:", np.shares_memory(x.grad._data, g._data))   # PyTorch: shares memory: False

# %% [markdown]
# **Later gradients are added in place.** `.grad` stays the same tensor, and, like every in-place
# change, the addition bumps its version counter (assignment 01): anyone who holds `x.grad` sees the
# total, and nothing new is allocated.

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
(x ** 2).sum().backward()
first = x.grad
print(first._version)                      # PyTorch: 0
(x ** 2).sum().backward()
print(x.grad is first, first._version)     # PyTorch: True 1
print(first)                               # PyTorch: tensor([ 4.,  8., 12.])

# %% [markdown]
# **With `create_graph=True`, out of place.** The pass runs in grad mode and records what it
# computes, so that a gradient can be differentiated again (assignment 06). `.grad` is then a
# recorded tensor, and a later pass makes it a **new** tensor, the recorded sum: the old `.grad` may
# be in use in a graph, and is left as it was. PyTorch warns about `create_graph=True` in
# `backward()` (a reference cycle from a leaf through its `.grad`); `quietly` hides the warning:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
quietly(lambda: (x ** 3).sum().backward(create_graph=True))
first = x.grad
print(first)                    # PyTorch: tensor([ 3., 12., 27.], grad_fn=<CopyBackwards>)
quietly(lambda: (x ** 3).sum().backward(create_graph=True))
print(x.grad is first, x.grad)  # PyTorch: False tensor([ 6., 24., 54.], grad_fn=<AddBackward0>)
print(first)                    # PyTorch: tensor([ 3., 12., 27.], grad_fn=<CopyBackwards>)
gx = x.grad                     # 6 x**2, recorded: its sum can be differentiated
x.grad = None
gx.sum().backward()
print(x.grad)                   # PyTorch: tensor([12., 24., 36.])


# %% [markdown]
# ### Exercise 1: `accumulate_grad` (5 points)
#
# Write `accumulate_grad(variable, new_grad)`, installed as `ag.graph.accumulate_grad`: every
# `AccumulateGrad` node calls it with its leaf `variable` and the gradient `new_grad` that reached it
# (same shape and dtype). It updates `variable._grad`, the field behind the property `.grad`, and
# returns nothing. `.grad` must behave as PyTorch's in the three cells above. The engine runs a
# pass in grad mode exactly when it was asked for `create_graph=True`, so `ag.is_grad_enabled()`
# says which kind of pass is running.
#
# **Rules**
# - `copy`: the first gradient is stored in a tensor of its own: `.grad` never is, nor shares
#   memory with, the gradient that arrived (PyTorch takes over a gradient's memory only when nothing
#   else can reach it; yours is handed a gradient that its caller may still hold).
# - `adds`: after several backward passes, `.grad` holds the sum of their gradients.
# - `in-place`: in a normal backward, `.grad` stays the same tensor from pass to pass, and its
#   `_version` goes up by one each time a gradient is added to it.
# - `create-graph`: with `create_graph=True`, `.grad` is recorded, so that it can be differentiated
#   again; a later pass makes it a new tensor, and the earlier one keeps its value.
# - `untouched`: the gradient that arrived is never modified.

# %% nbgrader={"grade": false, "grade_id": "04_accumulate_grad_answer", "locked": false, "schema_version": 3, "solution": true}
def accumulate_grad(variable, new_grad):
    """Receive new_grad, a gradient that reached the leaf `variable`, into variable._grad,
    as PyTorch's AccumulateGrad does. Returns nothing."""
    ### BEGIN SOLUTION
    if variable._grad is None:
        variable._grad = new_grad.clone()
    elif ag.is_grad_enabled():
        variable._grad = variable._grad + new_grad
    else:
        variable._grad.add_(new_grad)
    ### END SOLUTION

exercises.plug("04.accumulate_grad", accumulate_grad)

# %% [markdown]
# Every `.grad` that backward fills in now goes through your function. Here is what clearing the
# gradients is for: gradient descent on $\sum (w - t)^2$, once with `w.grad = None` at every step,
# once without. Without it, each step moves `w` by the sum of *all* the gradients so far, and `w`
# overshoots and swings:

# %%
target = ag.tensor([1.0, -2.0])

def train(clear_grad, steps=40, lr=0.1):
    w = ag.zeros(2, requires_grad=True)
    losses = []
    for _ in range(steps):
        if clear_grad:
            w.grad = None                  # what optimizer.zero_grad() does
        loss = ((w - target) ** 2).sum()
        loss.backward()                    # your accumulate_grad stores the gradient
        with ag.no_grad():
            w -= lr * w.grad               # the update (assignment 09)
        losses.append(loss.item())
    return w, losses

w_cleared, cleared = train(clear_grad=True)
w_summed, summed = train(clear_grad=False)
print("with w.grad = None:", w_cleared, "  without:", w_summed)
fig, ax = plt.subplots(figsize=(6.5, 3))
ax.semilogy(cleared, label="w.grad = None at every step")
ax.semilogy(summed, label="gradients never cleared")
ax.set_xlabel("step")
ax.legend()
plt.show()

# %% [markdown]
# **Tests.** Direct calls as a normal backward makes them, two backward passes, your own gradient;
# then a weight used twice, a hook on a leaf, and `backward(create_graph=True)` twice.

# %% nbgrader={"grade": true, "grade_id": "04_accumulate_grad_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.accumulate_grad(accumulate_grad)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import accumulate_grad_random

# The same stories on random leaves: dtypes, shapes, values, gradients, numbers of calls.
accumulate_grad_random(accumulate_grad, grading.random_cases(seed=404, count=6))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "04_accumulate_grad_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.accumulate_grad_in_the_engine(accumulate_grad)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import accumulate_grad_in_the_engine_random

# Random sequences of backward passes (plain or create_graph) into one leaf.
accumulate_grad_in_the_engine_random(accumulate_grad, grading.random_cases(seed=401, count=8))
### END HIDDEN TESTS

# %% [markdown]
# ## 4. `retain_grad()`: keeping the gradient of a tensor in between
#
# To see the gradient that reaches an activation (hunting a vanishing gradient, say), call
# **`retain_grad()`** on it *before* `backward()`. In the example of section 1, `b.grad` is
# $\partial c_i / \partial b_i = a_i$ times $[1, 1]$: $[1, 2]$, what `MulBackward0` sent along `b`'s
# edge anyway. `retains_grad` says whether a tensor asked; it is `False` on a leaf, whose `.grad` is
# filled in anyway.

# %%
a = ag.tensor([1., 2.], requires_grad=True)
b = 3 * a**3
c = b * a
b.retain_grad()
c.backward(gradient=ag.tensor([1., 1.]))
print(a.grad, b.grad)                                   # PyTorch: tensor([12., 96.]) tensor([1., 2.])
print(a.retains_grad, b.retains_grad, c.retains_grad)   # PyTorch: False True False

# %% [markdown]
# `retain_grad` is not `retain_graph`: `t.retain_grad()` keeps one tensor's gradient, while
# `backward(retain_graph=True)` keeps the graph's saved tensors for a second backward (assignment
# 06). What PyTorch does with a constant, a leaf, a call made twice, and two outputs of one node
# (`p, q = w.unbind(0)` gives `p` and `q` one `UnbindBackward0`, as outputs 0 and 1):

# %%
for t in (ag.tensor([1., 2.]), ag.tensor([1., 2.], requires_grad=True)):     # a constant, a leaf
    print(error_of(t.retain_grad), t.retains_grad)
# PyTorch: RuntimeError: can't retain_grad on Tensor that has requires_grad=False False
#          None False
w = ag.tensor([[1., 2.], [3., 4.]], requires_grad=True)
p, q = w.unbind(0)
p.retain_grad()
q.retain_grad()
q.retain_grad()                                     # twice
(p * 2 + q * 3).sum().backward()
print(p.grad, q.grad, p.grad_fn is q.grad_fn)       # PyTorch: tensor([2., 2.]) tensor([3., 3.]) True


# %% [markdown]
# **What the engine reads.** Backward walks nodes, not tensors. Just before a node runs, the engine
# (your exercise 3; the library's until then) reads `node._retains_grad`: `None`, or a dict whose
# entries `k: f` mean "call `f()`; if it gives back a tensor, store in its `.grad` the gradient that
# arrived at output `k` of this node". The property `t.retains_grad` reads the field
# `t._retains_grad`. What to leave there is yours to work out, with one more fact of PyTorch's: the
# graph does not keep a retained tensor alive. After `b.retain_grad(); c = (b * 3).sum(); del b`,
# `b` is freed although `c`'s graph holds `b`'s node, and `c.backward()` still works.

# %% [markdown]
# ### Exercise 2: `retain_grad` (4 points)
#
# Write `retain_grad(tensor)`, installed as the method `Tensor.retain_grad` (`b.retain_grad()` calls it
# with `tensor = b`), so that `.grad` and `retains_grad` behave as PyTorch's above, through what the
# engine reads. Return nothing.
#
# **Rules**
# - `no-grad`: a tensor that does not require grad raises PyTorch's `RuntimeError`, shown above.
# - `leaf`: on a leaf nothing happens, and `retains_grad` stays `False`.
# - `register`: on a non-leaf, `retains_grad` becomes `True`, and its node holds an entry that gives it
#   back, so that backward stores its gradient in `.grad`.
# - `outputs`: several outputs of one node can be retained, each getting its own gradient.
# - `weak`: the graph does not keep a retained tensor alive: dropped by your code, it is freed, and
#   backward still runs.
# - `twice`: a second call changes nothing.

# %% nbgrader={"grade": false, "grade_id": "04_retain_grad_answer", "locked": false, "schema_version": 3, "solution": true}
def retain_grad(tensor):
    """Ask backward to store the gradient of `tensor` in its .grad, as PyTorch's
    Tensor.retain_grad does. Returns nothing."""
    ### BEGIN SOLUTION
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.grad_fn is None:
        return
    tensor._retains_grad = True
    node = tensor.grad_fn
    if node._retains_grad is None:
        node._retains_grad = {}
    node._retains_grad[tensor._output_nr] = weakref.ref(tensor)
    ### END SOLUTION

exercises.plug("04.retain_grad", retain_grad)

# %% [markdown]
# `t.retain_grad()` now runs your function: the worked example again, then a retained `b` dropped
# before `backward()`, which the engine skips:

# %%
a = ag.tensor([1., 2.], requires_grad=True)
b = 3 * a**3
c = b * a
b.retain_grad()
c.backward(gradient=ag.tensor([1., 1.]))
print("b.grad:", b.grad, " b.retains_grad:", b.retains_grad)

a = ag.tensor([1., 2.], requires_grad=True)
b = a * 2
b.retain_grad()
c = (b * 3).sum()
probe = weakref.ref(b)
del b
print("b after del b:", probe())      # PyTorch: None
c.backward()
print("a.grad:", a.grad)              # PyTorch: tensor([6., 6.])

# %% [markdown]
# **Tests.** The three cases, twice; then the worked example, two outputs of one `unbind` node, and
# a retained tensor dropped while its graph lives on.

# %% nbgrader={"grade": true, "grade_id": "04_retain_grad_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.retain_grad(retain_grad)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import retain_grad_random

# Random tensors (constants of several dtypes, leaves, non-leaves, outputs of one unbind node),
# retained once or more, in random order.
retain_grad_random(retain_grad, grading.random_cases(seed=405, count=8))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "04_retain_grad_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.retain_grad_in_the_engine(retain_grad)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import retain_grad_in_the_engine_random

# Random graphs with several multi-output nodes; retain_grad on random tensors, then backward.
retain_grad_in_the_engine_random(retain_grad, grading.random_cases(seed=402, count=8))
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Hooks, then the retained gradient
#
# `t.register_hook(fn)` registers a function that receives `t`'s gradient during backward and may
# return a replacement. Just before a node runs, the hooks of its outputs run, and **then** the
# retained gradients are stored: `.grad` holds the gradient *after* the hooks, the one that flows
# on (PyTorch's order since 2.0, whatever the order of registration). Below, a hook doubles `y`'s
# gradient $2y = [6, 12]$; `y.grad` and `x` get the doubled one:

# %%
x = ag.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: g * 2)     # a hook may replace the gradient
(y * y).sum().backward()
print(y.grad, x.grad)                # PyTorch: tensor([12., 24.]) tensor([36., 72.])

# %% [markdown]
# A retained gradient is a copy first, for the same reason as a leaf's. But later gradients are
# **not** added in place: the sum is a new tensor, so a `y.grad` read earlier keeps its value
# (`retain_graph=True` keeps the graph for a second backward):

# %%
x = ag.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
z = (y * y).sum()
z.backward(retain_graph=True)
first = y.grad
z.backward()
print(first, y.grad, y.grad is first)  # PyTorch: tensor([ 6., 12.]) tensor([12., 24.]) False


# %% [markdown]
# **What you work with.** Your `run_node` of 03 calls `ag.engine.call_tensor_hooks(node, grads)` when
# the node runs, before its pre-hooks (for `autograd.grad`, `task.runs` also calls it for a node visited
# only to take an input's gradient: section 6). A node keeps the tensor hooks of its outputs in
# `node._pre_hooks`: `None` or `{output number: dict}`, each dict's values the hooks of that output in
# registration order (a leaf's hooks sit on its `AccumulateGrad`, under output 0); its retained outputs
# are in `node._retains_grad` (exercise 2). `t._grad` is the field behind `t.grad` (reading `t.grad` on
# a non-leaf that is not retained warns).

# %% [markdown]
# ### Exercise 3: `tensor_hooks` (8 points)
#
# Write the step that runs just before each node, as two functions of one answer cell, so that hooks
# and retained gradients behave as PyTorch's in the cells of this section:
#
# - `call_tensor_hooks(node, grads)`, installed as `ag.engine.call_tensor_hooks`: `grads` is the list of
#   gradients summed at `node`'s outputs (`None` where nothing arrived, at every output when no gradient
#   reached the node at all); it returns the gradients that flow on into the node.
# - `store_retained_grad(tensor, grad)`, installed as `ag.engine.store_retained_grad`: `grad`, a
#   gradient of `tensor`'s shape and dtype, reaches the retained non-leaf `tensor`; afterwards its
#   `.grad` is what PyTorch's would be. It returns nothing.
#
# Example: `y = x * 3` retained, with three hooks registered in this order: one doubles, one only
# looks, one adds 1. Given `[[1., -1.]]`, the second sees `[2., -2.]`, `call_tensor_hooks` returns
# `[[3., -1.]]`, and `y.grad` is `[3., -1.]`.
#
# **Rules**
# - `nothing`: when no gradient reached the node at all (every entry `None`), PyTorch still runs it:
#   every hook of every output is called, given `None`, no `.grad` is stored, and the Nones flow on.
# - `list`: the result is a list with one gradient per output of the node.
# - `chain`: an output's hooks run in the order they were registered, each given the gradient the
#   previous one left.
# - `replace`: a hook that returns a tensor replaces the gradient, for the next hook, `retain_grad`
#   and the node; a hook that returns `None` keeps it.
# - `no-gradient`: the hooks of an output that received no gradient run too, given `None`; the entry
#   stays `None`, and a hook that returns a tensor there fails with PyTorch's
#   `RuntimeError: can't replace a None gradient with a non-None value` (`register_hook` checks
#   what a hook returns, as it checks dtype and shape).
# - `retain`: a retained output's `.grad` gets the gradient that flows on, after all its hooks; a
#   retained tensor that is gone, or whose output received nothing, gets nothing, and the pass goes on.
# - `copy`: a retained gradient is first stored in a tensor of its own, never `grad` nor a tensor
#   sharing its memory; with `create_graph=True` it is recorded, so it can be differentiated again.
# - `adds`: after several backward passes, a retained `.grad` holds the sum of their gradients.
# - `new-tensor`: a later gradient makes a retained `.grad` a new tensor: a `.grad` read earlier
#   keeps its value.
# - `untouched`: the gradient that arrived is never modified.

# %% nbgrader={"grade": false, "grade_id": "04_tensor_hooks_answer", "locked": false, "schema_version": 3, "solution": true}
def store_retained_grad(tensor, grad):
    """Receive grad, the gradient that reached the retained non-leaf `tensor` (after its
    hooks), into tensor._grad, as PyTorch does. Returns nothing."""
    ### BEGIN SOLUTION
    if tensor._grad is None:
        tensor._grad = grad.clone()
    else:
        tensor._grad = tensor._grad + grad
    ### END SOLUTION


def call_tensor_hooks(node, grads):
    """Just before `node` runs: its outputs' tensor hooks, then the retained gradients;
    returns the gradients that flow on."""
    ### BEGIN SOLUTION
    grads = list(grads)
    for nr, hooks in (node._pre_hooks or {}).items():
        for hook in list(hooks.values()):
            replaced = hook(grads[nr])
            if replaced is not None:
                grads[nr] = replaced
    for nr, ref in (node._retains_grad or {}).items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None and tensor.grad_fn is node:
            store_retained_grad(tensor, grads[nr])
    return grads
    ### END SOLUTION

exercises.plug("04.store_retained_grad", store_retained_grad)
exercises.plug("04.call_tensor_hooks", call_tensor_hooks)

# %% [markdown]
# Every backward pass now runs your functions: the examples of this section on one tensor, with one
# more hook that only looks; then a hook on an output that received nothing:

# %%
x = ag.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: g * 2)
y.register_hook(lambda g: print("the second hook sees", g))    # returns None: keeps the gradient
z = (y * y).sum()
z.backward(retain_graph=True)
first = y.grad
z.backward()
print("first y.grad:", first, " y.grad now:", y.grad, " a new tensor:", y.grad is not first)
print("x.grad:", x.grad)       # PyTorch: tensor([ 72., 144.])

w = ag.tensor([1., 2.], requires_grad=True)
p, q = w.unbind()
q.register_hook(lambda g: print("q's hook sees", g))           # q is not used: it receives nothing
(p * 3).backward()                                             # PyTorch: q's hook sees None

# %% [markdown]
# **Tests.** Storing called directly on one non-leaf, then the worked example; then two backward
# passes, a hook, your own gradient and `backward(create_graph=True)`; then the hooks step on nodes
# with three hooks, a retained tensor, no gradient at all, two outputs of which one received nothing,
# a retained tensor deleted, and backward passes with hooks (one through a node no gradient reaches).

# %% nbgrader={"grade": true, "grade_id": "04_tensor_hooks_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.tensor_hooks_store(store_retained_grad, call_tensor_hooks)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import tensor_hooks_store_random

# The same stories on random non-leaves: dtypes, shapes, values, gradients, numbers of calls.
tensor_hooks_store_random(store_retained_grad, call_tensor_hooks, grading.random_cases(seed=406, count=6))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "04_tensor_hooks_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.tensor_hooks_store_in_the_engine(store_retained_grad, call_tensor_hooks)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import tensor_hooks_store_in_the_engine_random

# Random backward passes (some with create_graph) through one retained non-leaf, with random hooks.
tensor_hooks_store_in_the_engine_random(store_retained_grad, call_tensor_hooks,
                                        grading.random_cases(seed=403, count=8))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "04_tensor_hooks_test3", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.tensor_hooks(store_retained_grad, call_tensor_hooks)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import tensor_hooks_random

# Random hooks and retained outputs on random nodes, called directly and in backward passes.
tensor_hooks_random(store_retained_grad, call_tensor_hooks, grading.random_cases(seed=405, count=12))
### END HIDDEN TESTS

# %% [markdown]
# ## 6. `backward(inputs=...)`: only the gradients you ask for
#
# By default `backward()` fills in the `.grad` of **every** leaf that requires grad in the graph.
# With `inputs=[...]` it fills in only the listed tensors' `.grad` (training one part of a model,
# say). A listed non-leaf gets `retain_grad()` called for it, so it gets a `.grad` too:

# %%
w = ag.tensor([1., 2.], requires_grad=True)
bias = ag.tensor([0.5], requires_grad=True)
h = w * 3
loss = (h * w + bias).sum()
loss.backward(inputs=[w])
print(w.grad, bias.grad)                    # PyTorch: tensor([ 6., 12.]) None

w = ag.tensor([1., 2.], requires_grad=True)
h = w * 3
loss = (h * w).sum()
loss.backward(inputs=[h])
print(h.grad, h.retains_grad, w.grad)       # PyTorch: tensor([1., 2.]) True None


# %% [markdown]
# **Which nodes run.** Each listed tensor has a **target node**, where its gradient arrives (a
# leaf's `AccumulateGrad`, a non-leaf's `grad_fn`: `ag.autograd.graph.get_gradient_edge(t).node`).
# Before the loop, `task.start` (called by your `run_backward` of 03) decides which nodes run: only
# those whose gradients can still reach a target; `task.runs` then tells `run_node`. Any other node
# would fire hooks and fill `.grad`s for nothing. With `autograd.grad(loss, [h])` the target node
# does not run either: the engine takes `h`'s gradient as it arrives. (`backward(inputs=...)` runs
# the targets, so that a leaf's `AccumulateGrad` fills in its `.grad`.) A hook on each tensor shows
# which nodes ran:

# %%
def fired_hooks(call, **tensors):
    """Register a hook on each tensor, make the call, return the names whose hook fired."""
    fired = []
    for name, t in tensors.items():
        t.register_hook(lambda grad, name=name: fired.append(name))
    call()
    return fired

w = ag.tensor([1., 2.], requires_grad=True)
bias = ag.tensor([0.5], requires_grad=True)
h = w * 3
b2 = bias * 2
loss = (h * w).sum() + b2.sum()
print(fired_hooks(lambda: ag.autograd.grad(loss, [h]), w=w, bias=bias, h=h, b2=b2))   # PyTorch: ['h']


# %% [markdown]
# ### Exercise 4: `nodes_to_run` (5 points)
#
# Write `nodes_to_run(nodes, targets)`, installed as `ag.engine.nodes_to_run`: `task.start` calls
# it when a pass was given `inputs=` (`backward(inputs=...)`, `autograd.grad`). `nodes` is the set of
# every node the pass could visit (those reachable from the roots, the roots included), `targets`
# the set of target nodes. Return the set of the nodes that lead to a target. For the graph above,
# `h`'s target is its `MulBackward0`; the nodes that lead to it are the `SumBackward0` of
# `(h * w).sum()`, the `MulBackward0` of `h * w` and the `AddBackward0` of `loss`.
#
# **Rules**
# - `ancestors`: a node is in the set when a target can be reached from it along `next_functions`,
#   by one edge or more.
# - `targets`: a target is in the set only when another target can be reached from it
#   (`autograd.grad(loss, [w, h])` must run `h`'s node to reach `w`).
# - `others`: no other node is in the set: a target that is not in the graph, and an edge
#   `(None, 0)`, lead nowhere.
# - `deep`: a graph thousands of nodes deep (a recurrent network unrolled over a long sequence) works
#   as well, deeper than Python's recursion limit.

# %% nbgrader={"grade": false, "grade_id": "04_nodes_to_run_answer", "locked": false, "schema_version": 3, "solution": true}
def nodes_to_run(nodes, targets):
    """The set of the nodes in `nodes` from which a node of `targets` can be reached along
    next_functions, by one edge or more."""
    ### BEGIN SOLUTION
    parents = {}
    for node in nodes:
        for next_node, _ in node.next_functions:
            if next_node is not None:
                parents.setdefault(next_node, []).append(node)
    needed = set()
    stack = list(targets)
    while stack:
        node = stack.pop()
        for parent in parents.get(node, []):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed
    ### END SOLUTION

exercises.plug("04.nodes_to_run", nodes_to_run)

# %% [markdown]
# Your function now decides for every `backward(inputs=...)` and `autograd.grad`. The graph above,
# with each tensor wanted in turn (a new graph each time, so that the hooks fire once):

# %%
for wanted in ["w", "bias", "h", "b2"]:
    w = ag.tensor([1., 2.], requires_grad=True)
    bias = ag.tensor([0.5], requires_grad=True)
    h = w * 3
    b2 = bias * 2
    loss = (h * w).sum() + b2.sum()
    tensors = {"w": w, "bias": bias, "h": h, "b2": b2}
    fired = fired_hooks(lambda: ag.autograd.grad(loss, [tensors[wanted]]), **tensors)
    print(f"autograd.grad(loss, [{wanted}]):".ljust(30), "hooks fired:", fired)
# PyTorch: ['h', 'w'], ['b2', 'bias'], ['h'], ['b2']

# %% [markdown]
# **Tests.** Direct calls on section 6's graph with five lists of targets and on a graph with
# `unbind`; then `backward(inputs=...)` and `autograd.grad` with a hook on every tensor, and a chain
# of 3000 additions.

# %% nbgrader={"grade": true, "grade_id": "04_nodes_to_run_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.nodes_to_run(nodes_to_run)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import nodes_to_run_random

# Random graphs and one to three random targets.
nodes_to_run_random(nodes_to_run, grading.random_cases(seed=405, count=24))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "04_nodes_to_run_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.nodes_to_run_in_the_engine(nodes_to_run)
### BEGIN HIDDEN TESTS
from autograd_course.checks.leaves import nodes_to_run_in_the_engine_random

# Random graphs with a hook on every tensor, random calls; two chains of random length.
nodes_to_run_in_the_engine_random(nodes_to_run, grading.random_cases(seed=406, count=12))
### END HIDDEN TESTS

# %% [markdown]
# ## 7. What `autograd.grad` returns
#
# `autograd.grad(outputs, inputs)` runs the pass of section 6 with the inputs' nodes as targets and
# *captures* the gradient that arrives for each input instead of storing it in `.grad`. An input
# that the outputs do not depend on captures nothing: usually a parameter the forward pass forgot.
# Two flags say what to do about it, `allow_unused` (default `None`, "not passed") and
# `materialize_grads` (default `False`). PyTorch, for each combination (`y` does not use `b`):

# %%
a = ag.tensor([1., 2.], requires_grad=True)
b = ag.tensor([[3.]], dtype=ag.float64, requires_grad=True)       # y does not use b
y = (a * 2).sum()
for allow_unused in (None, True, False):
    for materialize_grads in (False, True):
        flags = dict(allow_unused=allow_unused, materialize_grads=materialize_grads)
        found = outcome(ag.autograd.grad, y, [a, b], retain_graph=True, **flags)
        print(flags, found if isinstance(found, str) else found[1])
# PyTorch: {'allow_unused': None, 'materialize_grads': False} RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.
#          {'allow_unused': None, 'materialize_grads': True} tensor([[0.]], dtype=torch.float64)
#          {'allow_unused': True, 'materialize_grads': False} None
#          {'allow_unused': True, 'materialize_grads': True} tensor([[0.]], dtype=torch.float64)
#          {'allow_unused': False, 'materialize_grads': False} RuntimeError: The differentiated Tensor at index 1 ...
#          {'allow_unused': False, 'materialize_grads': True} ValueError: Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False.

# %% [markdown]
# ### Exercise 5: `grad_results` (4 points)
#
# Write `grad_results(inputs, captured, allow_unused, materialize_grads)`, installed as
# `ag.autograd.functional.grad_results`: `autograd.grad` calls it once the backward pass has run, with
# the tuple of `inputs` asked for, `captured[i]` the gradient captured for `inputs[i]` (`None` when none
# arrived), and the two flags as the caller gave them; it returns what `autograd.grad` returns, as in
# the cell above. `autograd.grad` also calls it before anything runs, as `grad_results((), (),
# allow_unused, materialize_grads)`, so that a contradiction costs no backward pass (`create_graph` is
# handled after it: assignment 06). The tests compare an error by its type and the index it names.
#
# **Rules**
# - `tuple`: the result is a tuple with one entry per input, in order.
# - `keep`: a gradient that arrived is returned as it is: that very tensor.
# - `unused`: an input without a gradient raises PyTorch's `RuntimeError` above, naming the index
#   of the first such input, unless the flags accept an unused input.
# - `none`: an accepted unused input's entry is `None`, unless `materialize_grads`.
# - `zeros`: with `materialize_grads`, an unused input's entry is zeros like PyTorch's above (the
#   input's shape and dtype), a tensor of its own that does not require grad; the input is left as it was.
# - `default`: `allow_unused` not passed (`None`) accepts or refuses an unused input as the cell
#   above shows PyTorch doing, with `materialize_grads` and without it.
# - `flags`: the `ValueError` above comes whatever was captured, with no inputs at all too.

# %% nbgrader={"grade": false, "grade_id": "04_grad_results_answer", "locked": false, "schema_version": 3, "solution": true}
def grad_results(inputs, captured, allow_unused, materialize_grads):
    """What autograd.grad returns once the backward pass has run: one entry per input,
    from the gradient captured for it (or None), and the caller's two flags."""
    ### BEGIN SOLUTION
    if allow_unused is False and materialize_grads:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    unused_ok = materialize_grads if allow_unused is None else allow_unused
    grads = []
    for index, tensor in enumerate(inputs):
        grad = captured[index]
        if grad is None:
            if not unused_ok:
                raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            if materialize_grads:
                grad = ag.zeros_like(tensor)
        grads.append(grad)
    return tuple(grads)
    ### END SOLUTION

exercises.plug("04.grad_results", grad_results)

# %% [markdown]
# Every `autograd.grad` now ends with your function. A model whose second weight the forward pass
# forgot: the error, the two ways to accept it, and the refusal, which comes before the backward
# pass (the hook on `h` does not fire):

# %%
w1 = ag.tensor([1., -1.], requires_grad=True)
w2 = ag.tensor([0.5, 0.5, 0.5], dtype=ag.float64, requires_grad=True)     # forgotten below
h = w1 * 3
h.register_hook(lambda grad: print("  the hook on h fired"))
loss = (h ** 2).sum()
print(error_of(lambda: ag.autograd.grad(loss, [w2, w1], retain_graph=True)))
print(ag.autograd.grad(loss, [w1, w2], retain_graph=True, allow_unused=True))
print(ag.autograd.grad(loss, [w2, w1], retain_graph=True, materialize_grads=True))
print(error_of(lambda: ag.autograd.grad(loss, [w1], materialize_grads=True, allow_unused=False)))

# %% [markdown]
# **Tests.** Direct calls on inputs of three shapes and two dtypes for every combination of the
# flags; then `autograd.grad` with them, `create_graph` and `is_grads_batched`: what it returns,
# which hooks fire, whether the graph survives.

# %% nbgrader={"grade": true, "grade_id": "04_grad_results_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.grad_results(grad_results)
### BEGIN HIDDEN TESTS
from autograd_course.checks.grad_results import grad_results_random

# Random inputs (shapes, dtypes), random gradients missing, random flags.
grad_results_random(grad_results, grading.random_cases(seed=407, count=40))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "04_grad_results_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.grad_results_in_the_engine(grad_results)
### BEGIN HIDDEN TESTS
from autograd_course.checks.grad_results import grad_results_in_the_engine_random

# autograd.grad on random graphs (some leaves unused) with random inputs and flags.
grad_results_in_the_engine_random(grad_results, grading.random_cases(seed=408, count=16))
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * `backward()` stores gradients in the `.grad` of the **leaves** that require grad; a non-leaf's
#   `.grad` is `None`, with a warning.
# * Gradients **add up**: within one pass for a tensor used several times, and across passes in
#   `.grad`, so a training loop clears them at every step.
# * A leaf's `.grad` is a **copy** first, then added to **in place**, or **out of place** (recorded)
#   with `create_graph=True`.
# * `retain_grad()` registers a non-leaf with its node, under its output number, through a **weak
#   reference**; its gradient is stored after the **tensor hooks**, a copy first, then sums out of
#   place.
# * `backward(inputs=...)` and `autograd.grad` run only the nodes that lead to a wanted gradient.
#   `autograd.grad` returns one entry per input: an unused input is an error, `None` or zeros.
#
# Next, in assignment 05: the gradients of more operations, broadcasting, reductions, indexing and
# `log_softmax`.
