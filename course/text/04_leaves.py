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
# Your exercise 1 must give `.grad` the behaviour PyTorch shows in the three experiments of this
# section; work out from their outputs what `.grad` holds, and which tensor it is, after each pass.
# The first passes a gradient of our own, `g`, and changes `g` afterwards:

# %%
x = ag.ones(2, requires_grad=True)
g = ag.tensor([1., 2.])
(x + 0).backward(g)        # the addition passes g on unchanged
g.mul_(10)                 # we reuse our tensor
print(x.grad)              # PyTorch: tensor([1., 2.])
print("shares memory:", np.shares_memory(x.grad._data, g._data))   # PyTorch: shares memory: False

# %% [markdown]
# The second keeps the `.grad` it read after a first pass (`_version` counts a tensor's in-place
# changes, assignment 01):

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
(x ** 2).sum().backward()
first = x.grad
print(first._version)                      # PyTorch: 0
(x ** 2).sum().backward()
print(x.grad is first, first._version)     # PyTorch: True 1
print(first)                               # PyTorch: tensor([ 4.,  8., 12.])

# %% [markdown]
# The third asks for `create_graph=True`, which records the backward pass so that a gradient can be
# differentiated again (assignment 06). A hook on `x` says whether grad mode is on while each pass
# runs. PyTorch warns about `create_graph=True` in `backward()` (a reference cycle from a leaf
# through its `.grad`); `quietly` hides the warning:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
x.register_hook(lambda g: print("grad mode on:", ag.is_grad_enabled()))
(x ** 3).sum().backward()       # PyTorch: grad mode on: False
x.grad = None
quietly(lambda: (x ** 3).sum().backward(create_graph=True))      # PyTorch: grad mode on: True
first = x.grad
print(first)                    # PyTorch: tensor([ 3., 12., 27.], grad_fn=<CopyBackwards>)
quietly(lambda: (x ** 3).sum().backward(create_graph=True))      # PyTorch: grad mode on: True
print(x.grad is first, x.grad)  # PyTorch: False tensor([ 6., 24., 54.], grad_fn=<AddBackward0>)
print(first)                    # PyTorch: tensor([ 3., 12., 27.], grad_fn=<CopyBackwards>)
gx = x.grad                     # 6 x**2, recorded: its sum can be differentiated
x.grad = None
gx.sum().backward()             # PyTorch: grad mode on: False
print(x.grad)                   # PyTorch: tensor([12., 24., 36.])


# %% [markdown]
# ### Exercise 1: `accumulate_grad` (5 points)
#
# Write `accumulate_grad(variable, new_grad)`, installed as `ag.graph.accumulate_grad`: the
# `AccumulateGrad` node of the leaf `variable` calls it with the gradient `new_grad` that reached it
# (same shape and dtype), and it returns nothing. Afterwards `variable.grad` (whose field is
# `variable._grad`) must be what PyTorch's is in the three experiments above.
#
# **Rules**
# - `copy`: after a first pass, `.grad` neither is, shares memory with, nor changes the gradient that
#   arrived, as in the first experiment (PyTorch takes a gradient's memory only when nothing else can
#   reach it; yours is handed a gradient its caller may still hold).
# - `adds`: after several backward passes, `.grad` holds the sum of their gradients.
# - `later`: after a later pass, `.grad` and a `.grad` read before it compare as in the second
#   experiment (a normal backward) and the third (`create_graph=True`): `is`, values, `_version`;
#   with `create_graph=True`, `.grad` can be differentiated again.

# %% nbgrader={"grade": false, "grade_id": "04_accumulate_grad_answer", "locked": false, "schema_version": 3, "solution": true}
def accumulate_grad(variable, new_grad):
    """Make variable.grad what PyTorch's is once `new_grad` has reached the leaf `variable`.
    Returns nothing."""
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
# 06). What PyTorch does with a constant, a leaf, two outputs of one node (`p, q = w.unbind(0)`
# gives `p` and `q` one `UnbindBackward0`, as outputs 0 and 1), and a call made twice:

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
# **What the engine reads** (a reference). Backward walks nodes, not tensors: just before a node
# runs, the engine (your exercise 3; the library's until then) looks at `node._retains_grad`, `None`
# or a dict `{k: f}`, and for each entry calls `f()`; when that gives back a tensor, the gradient of
# output `k` goes into that tensor's `.grad`. `t.retains_grad` reads `t._retains_grad`. PyTorch's
# graph does not keep a retained tensor alive: after `b.retain_grad(); c = (b * 3).sum(); del b`,
# `b` is freed although `c`'s graph holds `b`'s node, and `c.backward()` still works.

# %% [markdown]
# ### Exercise 2: `retain_grad` (4 points)
#
# Write `retain_grad(tensor)`, installed as the method `Tensor.retain_grad` (`b.retain_grad()` calls it
# with `tensor = b`), so that `.grad` and `retains_grad` behave as PyTorch's above, through what the
# engine reads. Return nothing.
#
# **Rules**
# - `cases`: a constant, a leaf and a second call behave as in the cell above: PyTorch's
#   `RuntimeError` for a tensor that does not require grad; on a leaf `retains_grad` stays `False`
#   and nothing changes; a second call changes nothing.
# - `register`: backward fills in the `.grad` of a retained non-leaf, whose `retains_grad` is `True`;
#   of several outputs of one node too, each its own gradient.
# - `weak`: the graph does not keep a retained tensor alive: dropped by your code, it is freed, and
#   backward still runs.

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
# ## 5. Hooks and the retained gradient
#
# `t.register_hook(fn)` registers a function that receives `t`'s gradient during backward and may
# return a replacement. When a tensor has hooks and is retained, which gradient does `.grad` keep:
# the one that arrived, or the hook's? PyTorch (since 2.0, whatever the order of registration):

# %%
x = ag.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: g * 2)     # a hook may replace the gradient 2y = [6, 12]
(y * y).sum().backward()
print(y.grad, x.grad)                # PyTorch: tensor([12., 24.]) tensor([36., 72.])

# %% [markdown]
# And over two passes (`retain_graph=True` keeps the graph for a second backward), compare with a
# leaf's `.grad` in section 3:

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
# **What you work with** (a reference). Your `run_node` of 03 calls
# `ag.engine.call_tensor_hooks(node, grads)` when the node runs, before its pre-hooks (for
# `autograd.grad`, `task.runs` also calls it for a node visited only to take an input's gradient:
# section 6). `node._pre_hooks` holds the tensor hooks of the node's outputs: `None` or
# `{output number: dict}`, each dict's values the hooks of that output in registration order (a
# leaf's hooks sit on its `AccumulateGrad`, under output 0); `node._retains_grad` is exercise 2's.
# `t._grad` is the field behind `t.grad` (reading `t.grad` on a non-leaf that is not retained warns).

# %% [markdown]
# ### Exercise 3: `tensor_hooks` (8 points)
#
# Write two functions, in one answer cell, so that hooks and retained gradients behave as PyTorch's
# in the cells of this section:
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
# - `list`: the result is a list with one gradient per output of the node.
# - `chain`: what each hook sees, and what flows on, are what PyTorch's give in the example above.
# - `no-gradient`: the hooks of an output that received nothing (of every output, when nothing
#   reached the node) see `None` and `None` flows on, as PyTorch does in the last cell below; a hook
#   that returns a tensor there fails with PyTorch's
#   `RuntimeError: can't replace a None gradient with a non-None value`.
# - `retain`: a retained output's `.grad` is what PyTorch's is in the first cell of this section; a
#   retained tensor that is gone, or whose output received nothing, gets nothing, and the pass goes on.
# - `copy`: a retained `.grad` neither is, shares memory with, nor changes the gradient that arrived;
#   with `create_graph=True` it can be differentiated again.
# - `adds`: over several passes, a retained `.grad` holds the sum of their gradients, and a `.grad`
#   read earlier is not it and keeps its value, as in the second cell of this section.

# %% nbgrader={"grade": false, "grade_id": "04_tensor_hooks_answer", "locked": false, "schema_version": 3, "solution": true}
def store_retained_grad(tensor, grad):
    """Make tensor.grad what PyTorch's is once `grad` has reached the retained non-leaf
    `tensor`. Returns nothing."""
    ### BEGIN SOLUTION
    if tensor._grad is None:
        tensor._grad = grad.clone()
    else:
        tensor._grad = tensor._grad + grad
    ### END SOLUTION


def call_tensor_hooks(node, grads):
    """The gradients that flow on into `node`, one per output, once its outputs' tensor
    hooks and retained gradients have seen `grads` as PyTorch's do."""
    ### BEGIN SOLUTION
    grads = list(grads)
    for nr, hooks in (node._pre_hooks or {}).items():
        for hook in list(hooks.values()):
            replaced = hook(grads[nr])
            if replaced is not None:
                grads[nr] = replaced
    for nr, ref in (node._retains_grad or {}).items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
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
# - `tuple`: the result is a tuple with one entry per input, in order; a gradient that arrived is
#   its input's entry, that very tensor.
# - `unused`: for each combination of the two flags, an input without a gradient gives what PyTorch
#   gives in the cell above; the `RuntimeError` names the first such input's index.
# - `zeros`: zeros are like PyTorch's above (the input's shape and dtype), a tensor of their own
#   that does not require grad; the input is left as it was.
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
#   `.grad` is `None`, with a warning, unless it called `retain_grad()`.
# * Gradients **add up**: within one pass for a tensor used several times, and across passes in
#   `.grad`, so a training loop clears them at every step.
# * A `.grad` belongs to its tensor: the gradient you passed to `backward()` stays yours, and with
#   `create_graph=True` a gradient can be differentiated again.
# * Tensor hooks see, and may replace, a gradient before it flows on; a retained `.grad` keeps what
#   flows on.
# * `backward(inputs=...)` and `autograd.grad` run only the nodes that lead to a wanted gradient.
#   `autograd.grad` returns one entry per input: an unused input is an error, `None` or zeros.
#
# Next, in assignment 05: the gradients of more operations, broadcasting, reductions, indexing and
# `log_softmax`.
