# %% [markdown]
# # Assignment 02: the computational graph
#
# Notebook 01 decided *whether* an operation is recorded. This one is about *what* it records: the
# **backward graph** that `loss.backward()` walks.
#
# * every recorded operation leaves one **node** behind, the result's `grad_fn`;
# * each node knows where the gradients of its inputs go: its **`next_functions`**;
# * a leaf that requires grad is reached through an **`AccumulateGrad`** node, which writes into `.grad`;
# * every forward pass builds a new graph, so Python's `if` and `while` shape it: the graph is **dynamic**.
#
# Then you write the recording yourself: where a tensor's gradient enters the graph, the node that
# every operation leaves behind, and the walk that lists a graph's nodes in an order a backward pass
# can use. Each is plugged into `autograd_lib`, and you watch real graphs built (and differentiated)
# by your code.
#
# | exercise | what you write | test cells | points |
# |---|---|---|---|
# | 1 | `gradient_edge`: where a tensor's gradient enters the graph | `02_gradient_edge_test`, `_test2` | 6 |
# | 2 | `record_node`: the node of an operation, and its edges | `02_record_node_test` to `_test4` | 12 |
# | 3 | `graph_nodes`: every node of a graph once, in order | `02_graph_nodes_test`, `_test2` | 6 |
# | | | **total** | **24** |
#
# Each exercise ends with its **Rules**: every test grades one of them, and a failing test prints what
# was expected, what it saw and the rule. Hidden tests try your code on more, randomized, inputs when
# the notebook is graded.
#
# **Stuck?** Until an exercise works, a cell that needs it stops with a one-line message.
# `exercises.unplug("02.gradient_edge")` (with that exercise's id, as the message gives it) puts the
# library's own version back, so that you can go on.

# %% [markdown]
# **Setup.** Run the next cell first. `edge_names(edges)` prints a node's `next_functions` without
# memory addresses, as `(node class name or None, output_nr)` pairs; `check` holds the visible tests.

# %% nbgrader={"grade": false, "grade_id": "02_setup", "locked": true, "schema_version": 3, "solution": false}
import weakref

import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises, viz
from autograd_course import grading
from autograd_course.checks import graph as check
from autograd_course.checks.graph import edge_names

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# ## 1. One node per operation
#
# An operation on a tensor that requires grad computes its result, then records a **backward node** in
# the result's `grad_fn`: the node will turn the gradient of the result into gradients of the inputs.
# `x` and `y` were made by you, not by an operation: they have no `grad_fn`, they are leaves. In
# PyTorch `z.grad_fn` prints as `<MulBackward0 object at 0x7fc39cbd4d00>`, with an address that changes
# at every run; `autograd_lib` records the same nodes, under the same names (PyTorch's output is in the
# comments):

# %%
x = ag.tensor(1.0, requires_grad=True)
y = ag.tensor(2.0)
z = x * y
print(z)                                            # PyTorch: tensor(2., grad_fn=<MulBackward0>)
print(type(z.grad_fn).__name__, z.grad_fn.name())   # PyTorch: MulBackward0 MulBackward0
print(x.grad_fn, y.grad_fn)                         # PyTorch: None None

# %% [markdown]
# A node is named after its operation: `Mul`, `Backward`, and a number that tells PyTorch's overloads
# of an operation apart. One operation, one node: `Q` below takes four operations, and
# `viz.graph_nodes(Q)` lists every node reachable from `Q`. An operation on tensors that don't require
# grad records nothing at all:

# %%
a = ag.tensor([2., 3.], requires_grad=True)
b = ag.tensor([6., 4.], requires_grad=True)
Q = 3 * a**3 - b**2
print(Q)                # PyTorch: tensor([-12.,  65.], grad_fn=<SubBackward0>)
print([viz.node_name(node) for node in viz.graph_nodes(Q)])
c = ag.tensor([1., 2.])
print((c * 3).grad_fn)  # PyTorch: None

# %% [markdown]
# `SubBackward0`, `MulBackward0` and two `PowBackward0`: one per operation. The two `AccumulateGrad`
# nodes stand for the leaves `a` and `b` (section 3).
#
# ## 2. `next_functions`: where the gradients go
#
# A node must know where to send the gradient of each of its inputs: its **`next_functions`**, a
# tuple with **one pair per input, in the order of the op's inputs**. Each pair `(node, output_nr)` is
# an *edge*:
#
# * `node` receives the gradient of that input: the input's own `grad_fn`, or an `AccumulateGrad` for
#   a leaf;
# * `output_nr` says which output of that node the input was (almost always 0: see below);
# * `(None, 0)` means the input doesn't require grad: no gradient goes there.
#
# For `z = x * y`, PyTorch prints `z.grad_fn.next_functions` as
# `((<AccumulateGrad object at 0x7fc3bdd87040>, 0), (None, 0))`: input 0 is `x`, input 1 the constant
# `y`. `edge_names` prints the same without addresses:

# %%
print(edge_names(z.grad_fn.next_functions))        # PyTorch: (('AccumulateGrad', 0), (None, 0))


# %% [markdown]
# Following `next_functions` from `Q.grad_fn` visits the whole graph. In PyTorch:
#
# ```python
# >>> Q.grad_fn.next_functions
# ((<MulBackward0 object at 0x7fc39cbd4df0>, 0), (<PowBackward0 object at 0x7fc39cbd4d30>, 0))
# >>> Q.grad_fn.next_functions[0][0].next_functions
# ((<PowBackward0 object at 0x7fc39cbd4d30>, 0), (None, 0))
# ```
#
# The 3 of `3 * a**3` comes *second*: Python runs `3 * t` as `t.__rmul__(3)`, which records `t * 3`.
# A few lines of recursion print the whole tree:

# %%
def walk(node, depth=0):
    print("    " * depth + ("None" if node is None else viz.node_name(node)))
    if node is not None:
        for next_node, output_nr in node.next_functions:
            walk(next_node, depth + 1)

walk(Q.grad_fn)

# %% [markdown]
# **`output_nr`.** An operation with several outputs has one node for all of them, and each output
# tensor remembers which one it is (PyTorch's `t.output_nr`, `t._output_nr` in `autograd_lib`).
# `unbind` splits a tensor into its rows: both edges of `p * q` lead to the *same* node, and `q`'s
# gradient goes into its output 1 (PyTorch's output, with `output_nr`, in the comments):

# %%
p, q = ag.randn(2, 3, requires_grad=True).unbind(0)
print(type(p.grad_fn).__name__, p._output_nr, q._output_nr, p.grad_fn is q.grad_fn)
# PyTorch: UnbindBackward0 0 1 True
print(edge_names((p * q).grad_fn.next_functions))  # PyTorch: (('UnbindBackward0', 0), ('UnbindBackward0', 1))

# %% [markdown]
# ## 3. `AccumulateGrad`: the node of a leaf
#
# A leaf has no `grad_fn`, yet its gradient must arrive somewhere: at an **`AccumulateGrad`** node.
# It has no `next_functions` of its own (the graph ends there), and its attribute `variable` is the
# leaf, into whose `.grad` it adds the gradient that arrives. Only leaves that require grad get one:
# `y`'s edge is `None`. (PyTorch's `name()` carries its C++ namespace.)

# %%
acc = z.grad_fn.next_functions[0][0]
print(type(acc).__name__, acc.name(), acc.variable is x, acc.next_functions)
# PyTorch: AccumulateGrad torch::autograd::AccumulateGrad True ()

# %% [markdown]
# **One leaf, one node.** A weight used twice gets **one** `AccumulateGrad`, with two edges into it.
# The backward engine (notebook 03) counts the edges into each node, waits until every gradient has
# arrived, adds them up, and runs the node once. In the figure, the orange node has two arrows coming
# in:

# %%
w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
s = (w * 2 + w.exp()).sum()
mul, exp = [node for node, _ in s.grad_fn.next_functions[0][0].next_functions]
print(type(mul).__name__, type(exp).__name__)       # PyTorch: MulBackward0 ExpBackward0
print("the same AccumulateGrad:", mul.next_functions[0][0] is exp.next_functions[0][0])
# PyTorch: the same AccumulateGrad: True
viz.draw_graph(s, names={"w": w, "s": s}, title="s = sum(w * 2 + exp(w))")

# %% [markdown]
# **The node lives as long as the graph.** The `AccumulateGrad` belongs to the graph, not to the
# tensor. While some graph uses it, a new graph gets the same node; when the last graph that uses `w`
# is gone, the node goes too, and the next graph gets a fresh one. PyTorch shows it with the
# `metadata` dict that every node carries. Below, `probe` (Python's `weakref` module) watches the node
# without keeping it alive.

# %%
w = ag.randn(3, requires_grad=True)
a = w * 2
a.grad_fn.next_functions[0][0].metadata["tag"] = "first"
b = w.exp()                                         # the graph of `a` is still alive: same node
print(b.grad_fn.next_functions[0][0].metadata)      # PyTorch: {'tag': 'first'}

probe = weakref.ref(a.grad_fn.next_functions[0][0]) # autograd_lib only: PyTorch's nodes refuse weak references
del a, b                                            # every graph using w is gone
print("old node freed:", probe() is None)
print((w * 3).grad_fn.next_functions[0][0].metadata)   # PyTorch: {}

# %% [markdown]
# ## 4. Drawing a graph
#
# `viz.draw_graph` draws the backward graph behind one or more tensors. Take a weight matrix `w` that
# requires grad, an input `x` that doesn't, and `z = (x @ w).mean()`: PyTorch records a `MmBackward0`
# (matrix multiplication) and a `MeanBackward0`, and the `MmBackward0`'s `next_functions` is
# `((None, 0), (<AccumulateGrad object at 0x7f2464a85420>, 0))`, `x` first. The same in `autograd_lib`:

# %%
w = ag.randn(5, 3, requires_grad=True)
x = ag.randn(1, 5)
y = x @ w
z = y.mean()
names = {"w": w, "x": x, "y": y, "z": z}
viz.draw_graph(z, names=names, title="z = mean(x @ w)")

# %% [markdown]
# Arrows go the way gradients flow, from the output back to the leaves. The grey numbers are positions
# in `next_functions`, and the dotted `None` box is `x`'s `(None, 0)` edge. `viz.format_graph` prints
# the same graph as text, and `z.backward()` walks exactly these edges: `w.grad` is filled, `x` gets
# nothing.

# %%
print(viz.format_graph(z, names=names, show_no_grad=True))
z.backward()
print(w.grad.shape, x.grad)         # PyTorch: torch.Size([5, 3]) None


# %% [markdown]
# ## 5. Dynamic graphs: the code that runs is the graph
#
# Autograd records operations *as they run*: there is no graph declared in advance, and every forward
# pass builds a new one, holding only the operations that ran. So Python decides its shape: an `if`
# picks which operations get recorded, a `while` loop records as many as it iterates. Here the data
# decides both (PyTorch records the same chains):

# %%
def forward(x, w):
    h = x * w
    while h.abs().sum() < 4:      # as many doublings as the data needs
        h = h * 2
    if h.sum() > 0:               # the data picks the branch
        return h.exp().sum()
    return h.sin().sum()


def chain(node):
    """The names along the first grad-requiring edge of each node, down to the leaf."""
    names = []
    while node is not None:
        names.append(viz.node_name(node))
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return names


w = ag.tensor([1.0, 1.0], requires_grad=True)
x_big, x_small = ag.tensor([3.0, 2.0]), ag.tensor([-0.5, 0.25])
loss_big, loss_small = forward(x_big, w), forward(x_small, w)
print(chain(loss_big.grad_fn))
# PyTorch: ['SumBackward0', 'ExpBackward0', 'MulBackward0', 'AccumulateGrad']
print(chain(loss_small.grad_fn))
# PyTorch: ['SumBackward0', 'SinBackward0', 'MulBackward0', 'MulBackward0', 'MulBackward0', 'MulBackward0', 'AccumulateGrad']
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 7))
viz.draw_graph(loss_big, names={"w": w, "loss": loss_big}, ax=left, title="x = [3, 2]: exp branch")
viz.draw_graph(loss_small, names={"w": w, "loss": loss_small}, ax=right,
               title="x = [-0.5, 0.25]: three doublings, sin branch")
plt.show()

# %% [markdown]
# The loop condition `h.abs().sum() < 4` recorded small graphs of its own, but nothing leads from
# `loss` to them. Each backward walks the graph its own forward pass built, so the gradients differ:

# %%
loss_big.backward()
print(w.grad)               # PyTorch: tensor([60.2566, 14.7781])
w.grad = None
loss_small.backward()
print(w.grad)               # PyTorch: tensor([ 2.6146, -0.8323])

# %% [markdown]
# ## 6. Where a tensor's gradient enters the graph
#
# When an operation records its node, it asks each input where its gradient must go: the input's
# **gradient edge**, the pair `(node, output_nr)` that becomes an entry of `next_functions`. PyTorch
# has it as `torch.autograd.graph.get_gradient_edge`:
#
# ```python
# >>> w = torch.randn(3, requires_grad=True)
# >>> get_gradient_edge(w)
# GradientEdge(node=<AccumulateGrad object at 0x7fc783c73df0>, output_nr=0, ownership_token=None)
# >>> y = w * 2
# >>> get_gradient_edge(y).node is y.grad_fn
# True
# >>> p, q = torch.randn(2, 3, requires_grad=True).unbind(0)
# >>> get_gradient_edge(q)
# GradientEdge(node=<UnbindBackward0 object at 0x7f7dbb1fbd30>, output_nr=1, ownership_token=None)
# >>> get_gradient_edge(torch.arange(3))
# RuntimeError: It is not possible to get the gradient edge for a Tensor that does not require gradients
# ```
#
# Inside the library, a tensor that needs no gradient is no error: its gradient goes nowhere, `(None, 0)`.
#
# One kind of tensor requires grad, yet PyTorch sends its gradient nowhere: a view of a leaf that
# requires grad, taken under `no_grad` (notebook 07). It requires grad through its base, but it is a
# leaf, with no `grad_fn` (PyTorch's `get_gradient_edge` fails an assertion on it):

# %%
w = ag.randn(3, requires_grad=True)
with ag.no_grad():
    v = w[:2]                                       # a view of w, taken under no_grad
print(v.requires_grad, v.is_leaf, v.grad_fn)        # PyTorch: True True None
print(edge_names((v * 2).grad_fn.next_functions))   # PyTorch: ((None, 0), (None, 0))
(v * 2).sum().backward()
print(v.grad, w.grad)                               # PyTorch: None None


# %% [markdown]
# ### Exercise 1: `gradient_edge` (6 points)
#
# Write `gradient_edge(tensor)`: the edge, a tuple `(node, output_nr)`, at which a gradient for
# `tensor` enters the backward graph. Where PyTorch's `get_gradient_edge` gives an edge, yours is that
# edge; where PyTorch sends the gradient nowhere, yours is `(None, 0)`. It becomes the method
# `Tensor._gradient_edge`, which the recording of every operation and `backward()` use.
#
# A leaf's node must live as section 3 showed: one `AccumulateGrad` per leaf while some graph uses it,
# gone with the last such graph, and a fresh one for the next graph. Mind who keeps whom alive: the
# node holds its leaf (`node.variable`), a model's weights live for the whole training, and each graph
# for one step.
#
# What exists, for reference:
#
# | name | what it is |
# |---|---|
# | `tensor._accumulator` | a slot on every tensor, yours: `None` on a new tensor, and copied along wherever the library copies a leaf's history |
# | `tensor.grad_fn`, `tensor._output_nr` | the node that made the tensor (`None` for a leaf), and which of its outputs the tensor is |
# | `tensor._requires_grad` | the tensor's own flag, as `requires_grad=True` or `requires_grad_()` set it; the property `requires_grad` is also `True` for a tensor with a `grad_fn` and for a view of a tensor that requires grad |
# | `ag.graph.AccumulateGrad(tensor)` | a new `AccumulateGrad` node for the leaf `tensor` |
#
# Worked out, for `w` a leaf that requires grad, `p, q = m.unbind(0)` and the view `v` above:
#
# | call | returns |
# |---|---|
# | `gradient_edge(w)`, twice | `(A, 0)` both times: one `AccumulateGrad` `A`, and `A.variable is w` |
# | `gradient_edge(w * 2)`, `gradient_edge(q)` | `((w * 2).grad_fn, 0)`, `(q.grad_fn, 1)` |
# | `gradient_edge(ag.arange(3))`, `gradient_edge(w.detach())`, `gradient_edge(v)` | `(None, 0)` |
# | `gradient_edge(w)` once every graph that used `A` is gone | `(B, 0)`, a new node |
#
# **Rules**
# - `tuple`: an edge is a tuple `(node, output_nr)`.
# - `non-leaf`: a tensor made by a recorded operation gets the edge `get_gradient_edge` gives it.
# - `leaf`: a leaf given `requires_grad` of its own gets, as in PyTorch, an `AccumulateGrad` whose
#   `variable` is the leaf, at output 0.
# - `no-grad`: every other tensor gets `(None, 0)`: one that does not require grad, and a leaf that
#   requires grad only through its base, as the view `v` above.
# - `shared`: while a leaf's `AccumulateGrad` is alive, every call returns that same node, so the
#   gradients of all the leaf's uses reach its `.grad`.
# - `not-kept-alive`: the tensor does not keep its node alive: once no graph uses it, the node is freed.
# - `renewed`: after a leaf's node has been freed, the next call makes a new one, shared in turn.

# %% nbgrader={"grade": false, "grade_id": "02_gradient_edge_answer", "locked": false, "schema_version": 3, "solution": true}
def gradient_edge(tensor):
    """Where a gradient for `tensor` enters the backward graph: a tuple (node, output_nr)."""
    ### BEGIN SOLUTION
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    if not tensor._requires_grad:
        return (None, 0)
    node = tensor._accumulator() if tensor._accumulator is not None else None
    if node is None:
        node = ag.graph.AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(node)
    return (node, 0)
    ### END SOLUTION

exercises.plug("02.gradient_edge", gradient_edge)

# %% [markdown]
# Your function is now the library's: every node built below gets its edges from it, and `backward()`
# starts from it. The shared weight of section 3 again:

# %%
w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
s = (w * 2 + w.exp()).sum()
mul, exp = [node for node, _ in s.grad_fn.next_functions[0][0].next_functions]
print(edge_names(mul.next_functions), edge_names(exp.next_functions))
print("one AccumulateGrad for both uses:", mul.next_functions[0][0] is exp.next_functions[0][0])
s.backward()
print(w.grad)                 # 2 + exp(w); PyTorch: tensor([3.6487, 2.3679, 9.3891])

# %% [markdown]
# **Tests.** `check.gradient_edge` calls your function on each kind of tensor; `check.gradient_edge_in_the_engine` builds graphs with it, runs `backward()`, and lets a graph die. Hidden tests repeat them on random tensors and short training runs.

# %% nbgrader={"grade": true, "grade_id": "02_gradient_edge_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.gradient_edge(gradient_edge)
### BEGIN HIDDEN TESTS
# Tensors of every kind, with random values and shapes, against the library's own gradient_edge.
from autograd_course.checks.graph import GRADIENT_EDGE_KINDS, compare_gradient_edge
for kind, case in zip(GRADIENT_EDGE_KINDS, grading.random_cases(seed=201, count=len(GRADIENT_EDGE_KINDS))):
    compare_gradient_edge(gradient_edge, kind, case)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "02_gradient_edge_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.gradient_edge_in_the_engine(gradient_edge)
### BEGIN HIDDEN TESTS
# A few training steps with data-dependent graphs, against the library's own gradient_edge.
from autograd_course.checks.graph import compare_training
for case in grading.random_cases(seed=202, count=4):
    compare_training(gradient_edge, int(case.integers(2 ** 31)))
### END HIDDEN TESTS

# %% [markdown]
# ## 7. The node of an operation
#
# Every operation of `autograd_lib` computes its result with NumPy and hands it to `recording.record`,
# which attaches the node when there is one. Stripped to its bones:
#
# ```python
# def record(op, array, inputs):
#     out = Tensor._make(array)                         # the result: a new tensor, a leaf so far
#     node = record_node(RULES[op], inputs, (out,))     # e.g. a MulBackward0 for "mul.Tensor", or None
#     ...                                               # the node saves what its formula needs (06)
#     return out
# ```
#
# `negate(x)` below is an operation written by hand that way (`RULES` maps PyTorch's name of each
# operation to its node class). PyTorch's output for `-x` is in the comments:

# %%
def negate(x):
    """-x, as a library operation does it: compute with NumPy, then record."""
    out = ag.tensor(-x.detach().numpy())                                # the result: a new tensor
    ag.recording.record_node(ag.recording.RULES["neg"], (x,), (out,))  # its node: NegBackward0
    return out


x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = negate(x)
print(y, y.grad_fn.name(), y.is_leaf)   # PyTorch: tensor([-1.,  2., -3.], grad_fn=<NegBackward0>) NegBackward0 False
print(edge_names(y.grad_fn.next_functions))                  # PyTorch: (('AccumulateGrad', 0),)
with ag.no_grad():
    print(negate(x).grad_fn)                                 # PyTorch: None

# %% [markdown]
# What PyTorch shows of the nodes it records is what your recording must show. Their edges first:
# `2 * x` is recorded as `x * 2`, so the 2 is input 1; `where(cond, u, v)` takes no gradient for
# `cond`, so it has two inputs; `addmm(M, m1, m2)` is `M + m1 @ m2`, here with a constant `m1`;
# `clamp` with tensor bounds has three inputs `(self, min, max)`, and without `max` the op passes
# `None` for it; `x * x` uses one tensor twice:

# %%
x = ag.randn(3, requires_grad=True)
u, v = ag.randn(3, requires_grad=True), ag.randn(3, requires_grad=True)
lo = ag.randn(3, requires_grad=True)
M, m1, m2 = ag.randn(2, 3, requires_grad=True), ag.randn(2, 4), ag.randn(4, 3, requires_grad=True)
cond = ag.tensor([True, False, True])
for label, t in [("2 * x", 2 * x), ("where(cond, u, v)", ag.where(cond, u, v)),
                 ("addmm(M, m1, m2)", ag.addmm(M, m1, m2)), ("clamp(x, min=lo)", ag.clamp(x, min=lo)),
                 ("x * x", x * x)]:
    print(f"{label:18} {t.grad_fn.name():15} {edge_names(t.grad_fn.next_functions)}")
# PyTorch: 2 * x              MulBackward0    (('AccumulateGrad', 0), (None, 0))
#          where(cond, u, v)  WhereBackward0  (('AccumulateGrad', 0), ('AccumulateGrad', 0))
#          addmm(M, m1, m2)   AddmmBackward0  (('AccumulateGrad', 0), (None, 0), ('AccumulateGrad', 0))
#          clamp(x, min=lo)   ClampBackward0  (('AccumulateGrad', 0), ('AccumulateGrad', 0), (None, 0))
#          x * x              MulBackward0    (('AccumulateGrad', 0), ('AccumulateGrad', 0))

# %% [markdown]
# Why keep `(None, 0)` instead of leaving out the inputs that need no gradient? A node's formulas (one
# per input: `self`, `other`, ...) are paired with `next_functions` **by position**. Drop the
# `(None, 0)` of `c` in `c * x`, and the gradient meant for `x` would be computed by the formula of
# `self`: wrong. The engine simply skips `None` edges.
#
# **Several outputs.** `unbind` (section 2) has one node for all its outputs, numbered 0, 1, ....
# Only a floating-point output can carry a gradient. A custom `autograd.Function` (assignment 06)
# whose first output is an integer shows what PyTorch makes of such an output, and how it numbers the
# others:
#
# ```python
# >>> class F(torch.autograd.Function):
# ...     @staticmethod
# ...     def forward(ctx, x):
# ...         return x.argmax(), x * 2
# ...     @staticmethod
# ...     def backward(ctx, grad_index, grad_double):
# ...         return grad_double * 2
# >>> i, d = F.apply(torch.randn(3, requires_grad=True))
# >>> i.grad_fn, i.requires_grad, i.output_nr, d.output_nr
# (None, False, 0, 1)
# ```
#
# Here is `max` along a dim, whose second output is an integer tensor, and `argmax`, whose only
# output is one, as PyTorch shows them:
#

# %%
x = ag.tensor([3.0, 1.0, 2.0], requires_grad=True)
values, indices = x.max(0)                    # two outputs: the largest value, and where it is
for label, t in [("values", values), ("indices", indices), ("x.argmax()", x.argmax())]:
    grad_fn = None if t.grad_fn is None else t.grad_fn.name()
    print(f"{label:10} grad_fn={grad_fn!s:12} is_leaf={t.is_leaf!s:5} requires_grad={t.requires_grad!s:5} "
          f"output_nr={t._output_nr}")
# PyTorch: values     grad_fn=MaxBackward0 is_leaf=False requires_grad=True  output_nr=0
#          indices    grad_fn=None         is_leaf=True  requires_grad=False output_nr=0
#          x.argmax() grad_fn=None         is_leaf=True  requires_grad=False output_nr=0
(values * 2).backward()
print(x.grad)                                 # PyTorch: tensor([2., 0., 0.])

# %% [markdown]
# **A gradient comes back in its own tensor's shape and dtype.** Below, a float32 `x` of shape `(3,)`
# meets a float64 `(2, 3)` matrix: the product is a float64 `(2, 3)` tensor, yet `x.grad` is float32,
# of shape `(3,)`, as in PyTorch. The backward pass (assignment 05) fits each input's gradient to what
# the node noted about that input when it was recorded.

# %%
c = ag.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]], dtype=ag.float64)
x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * c
print(y.dtype, tuple(y.shape))       # PyTorch: torch.float64 (2, 3)
y.sum().backward()
print(x.grad, x.grad.dtype)          # PyTorch: tensor([2.5000, 1.5000, 0.0000]) torch.float32


# %% [markdown]
# ### Exercise 2: `record_node` (12 points)
#
# Every operation of the library ends as `record` above: once it has computed `outputs` (a tuple of
# new tensors) from `inputs` (tensors, or `None` for an optional input left out), it calls
# `record_node(node_cls, inputs, outputs)`, which returns the operation's new node, a `node_cls()`, or
# `None` when there is nothing to record. Write it, in one answer cell with
# `collect_next_functions(*inputs)`, the `next_functions` of a node whose operation had these inputs
# (the tests call it alone too). From this cell on, the library records every operation with your
# code, and it must show what PyTorch shows in sections 1, 2 and 7: each result's `grad_fn`,
# `is_leaf`, `requires_grad` and output number, each node's `next_functions`, and what a later
# `backward()` leaves in `.grad`, down to its shape and dtype. When PyTorch records, what, and what it
# leaves alone, you work out from those experiments.
#
# What the engine reads later, and what the library offers, for reference (in no particular order):
#
# | name | what it is | on a new object |
# |---|---|---|
# | `node.num_outputs` | how many gradients the engine hands the node's backward, one per output number | `1` |
# | `node.metadata` | a dict for the user (section 3) | `{}` |
# | `t._gradient_edge()` | exercise 1, as a method | |
# | `node._saved`, `node._params` | what the node's formula needs (assignment 06 fills them) | `{}` |
# | `t.grad_fn`, `t._output_nr` | the node that made `t`, and which of its outputs `t` is (PyTorch's `t.output_nr`) | `None`, `0` |
# | `node._input_meta` | what backward fits the gradients of the node's inputs to: one entry per input, the `(shape, dtype)` of a NumPy array, or `None` for an absent input | `()` |
# | `t._data` | `t`'s NumPy array | |
# | `ag.recording.result_requires_grad(*inputs)` | notebook 01's rule: whether a result of these inputs requires grad | |
# | `node.next_functions` | where the gradient of each input goes (section 2) | `()` |
# | `dtype.is_floating_point`, `ag.is_grad_enabled()` | whether a dtype is floating point; whether grad mode is on | |
#
# Worked out: `x` is a float32 leaf of shape `(3,)` that requires grad, `c` a float64 constant of shape
# `(2, 3)`, `out` a new tensor holding their product. `record_node(MulBackward0, (x, c), (out,))` returns
# a `MulBackward0` `n`; then `out.grad_fn is n`, `out.is_leaf` is `False`, `edge_names(n.next_functions)`
# is `(('AccumulateGrad', 0), (None, 0))`, and `out.sum().backward()` gives `x` a float32 gradient of
# shape `(3,)`. Under `no_grad` the same call returns `None`, and `out` stays a leaf.
#
# **Rules**
# - `edges`: a recorded node's `next_functions`, and `collect_next_functions` of the same inputs, are
#   the tuple PyTorch shows for those inputs (sections 2 and 7), the same tensor twice included.
# - `no-edge`: an input no gradient goes to (a constant, an integer tensor, `None`) keeps its place in
#   that tuple, as in PyTorch.
# - `when`: `record_node` returns a node exactly for the calls whose outputs PyTorch would give a
#   `grad_fn` (notebook 01 and this notebook's experiments show which), and `None` for the others.
# - `no-trace`: a call that returns `None` leaves no trace: its outputs stay leaves, and no
#   `AccumulateGrad` is made for its inputs.
# - `one-node`: a recorded call has one node, the new `node_cls()` it returns, which is the `grad_fn`
#   of every output PyTorch gives one.
# - `output-nr`: an output that gets the node is numbered by its position among all the operation's
#   outputs (`d` above is output 1); an integer or bool output gets no `grad_fn` and keeps output
#   number 0, as PyTorch's `i` and `indices` do.
# - `num-outputs`: the node's backward receives one gradient per output of the operation, integer
#   ones included (`F.backward` takes two).
# - `input-meta`: backward gives each input's gradient that input's shape and dtype (section 7's last
#   experiment).

# %% nbgrader={"grade": false, "grade_id": "02_record_node_answer", "locked": false, "schema_version": 3, "solution": true}
def collect_next_functions(*inputs):
    """The next_functions of a new node whose operation had these inputs (tensors, or None
    for an absent optional input), in order."""
    ### BEGIN SOLUTION
    edges = []
    for t in inputs:
        if t is not None and t.requires_grad:
            edges.append(t._gradient_edge())
        else:
            edges.append((None, 0))
    return tuple(edges)
    ### END SOLUTION


def record_node(node_cls, inputs, outputs):
    """The backward node of an operation that computed `outputs` (a tuple of new tensors) from
    `inputs`, hooked onto its outputs; None when there is nothing to record."""
    ### BEGIN SOLUTION
    can_carry = [result.dtype.is_floating_point for result in outputs]
    if not any(can_carry) or not ag.recording.result_requires_grad(*inputs):
        return None
    node = node_cls()
    node.next_functions = collect_next_functions(*inputs)
    node._input_meta = tuple(None if t is None else (t._data.shape, t._data.dtype) for t in inputs)
    node.num_outputs = len(can_carry)
    for number, result in enumerate(outputs):
        if can_carry[number]:
            result.grad_fn = node
            result._output_nr = number
    return node
    ### END SOLUTION

exercises.plug("02.collect_next_functions", collect_next_functions)
exercises.plug("02.record_node", record_node)


# %% [markdown]
# Every operation now records its node with your functions. The examples above again: the product
# with its broadcast and its two dtypes, `clamp` with an absent `max`, and `no_grad`; then `rows(m)`,
# a hand-made `m.unbind(0)` that records the three rows of `m` as the outputs of one
# `UnbindBackward0` (its formula needs `m`'s shape and the dim, which `rows` saves by hand as `record`
# would), whose gradients go back to their own rows:

# %%
def rows(m):
    """The rows of matrix m as new tensors, the outputs of one UnbindBackward0 (a hand-made m.unbind(0))."""
    outputs = tuple(ag.tensor(row) for row in m.detach().numpy())
    node = ag.recording.record_node(ag.recording.RULES["unbind.int"], (m,), outputs)
    if node is not None:                           # what its formula needs (saving: assignment 06)
        node._params = {"self_shape": m.shape, "dim": 0}
    return outputs


x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
lo = ag.tensor([0.0, 5.0, 0.0], requires_grad=True)
y = ag.clamp(x * c, min=lo)
print(edge_names(y.grad_fn.next_functions), y.grad_fn._input_meta)
# PyTorch, its next_functions: (('MulBackward0', 0), ('AccumulateGrad', 0), (None, 0))
y.sum().backward()
print(x.grad, x.grad.dtype)           # PyTorch: tensor([2.5000, 0.0000, 1.0000]) torch.float32
with ag.no_grad():
    print((x * 2).grad_fn)            # PyTorch: None
m = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
top, middle, bottom = rows(m)
print([t._output_nr for t in (top, middle, bottom)], top.grad_fn is bottom.grad_fn, top.grad_fn.num_outputs)
# PyTorch, with m.unbind(0) and output_nr: [0, 1, 2] True
(top + 3 * bottom).sum().backward()
print(m.grad.tolist())                # PyTorch, with m.unbind(0): [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]]

# %% [markdown]
# **Tests.** Each grades your two functions together. `check.next_functions` calls your `collect_next_functions` on leaves, constants, integer tensors, non-leaves, `None` and one tensor twice; `check.next_functions_in_the_engine` builds graphs with your functions and differentiates them. `check.record_node` calls your `record_node` as `record` does (broadcasts, two dtypes, an absent input, several outputs, integer outputs, constants, `no_grad`); `check.record_node_in_the_engine` builds graphs with it and checks what backward finds. Hidden tests repeat them on random inputs, outputs and graphs.

# %% nbgrader={"grade": true, "grade_id": "02_record_node_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.next_functions(collect_next_functions, record_node)
### BEGIN HIDDEN TESTS
# Random mixes of inputs, against the library's own collect_next_functions.
from autograd_course.checks.graph import compare_collect
for case in grading.random_cases(seed=203, count=6):
    compare_collect(collect_next_functions, record_node, case)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "02_record_node_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.next_functions_in_the_engine(collect_next_functions, record_node)
### BEGIN HIDDEN TESTS
# Random graphs (a part under no_grad) built by your functions, against the same graphs built by the library's own code.
from autograd_course.checks.graph import compare_built_graph
for case in grading.random_cases(seed=204, count=5):
    compare_built_graph(collect_next_functions, record_node, int(case.integers(2 ** 31)))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "02_record_node_test3", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.record_node(collect_next_functions, record_node)
### BEGIN HIDDEN TESTS
# Random calls (inputs of every kind, outputs floating or not, grad mode on or off), against the library's record_node.
from autograd_course.checks.graph import compare_record, random_record_call
for i, case in enumerate(grading.random_cases(seed=208, count=12)):
    grad_enabled = i % 3 != 0
    node_cls, inputs, make_outputs, what = random_record_call(case, grad_enabled, floating=i % 4 != 1)
    compare_record(collect_next_functions, record_node, node_cls, inputs, make_outputs, what, grad_enabled)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "02_record_node_test4", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.record_node_in_the_engine(collect_next_functions, record_node)
### BEGIN HIDDEN TESTS
# Random graphs recorded by your functions, against the same graphs recorded by the library's.
from autograd_course.checks.graph import compare_recorded_graph
for case in grading.random_cases(seed=209, count=5):
    compare_recorded_graph(collect_next_functions, record_node, int(case.integers(2 ** 31)))
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Every node once, in order
#
# The recursive `walk` of section 2 prints a tree, and on `Q` that was the whole story: every node
# there had one consumer. But a value used several times is one node with several edges coming in, and
# `walk` follows every *path*: the shared node, and everything below it, is printed once per path. Here
# `y` is used three times, twice by `y * y` and once by `exp`:

# %%
a = ag.tensor([1.0, -2.0], requires_grad=True)
b = ag.tensor([0.5, 3.0], requires_grad=True)
y = a * b
z = y * y + y.exp()
walk(z.grad_fn)                     # y's MulBackward0 and the two leaves below it: three times
print([viz.node_name(node) for node in viz.graph_nodes(z)])
viz.draw_graph(z, names={"a": a, "b": b, "y": y, "z": z}, title="y = a * b;  z = y * y + y.exp()")


# %% [markdown]
# `viz.graph_nodes` lists each node **once**, and in an order that matters: every node comes **before
# all the nodes in its `next_functions`**, the nodes it sends gradients to. Such an order is called
# *topological*. `y.grad_fn` comes after both its consumers, the `MulBackward0` of `y * y` and the
# `ExpBackward0`, and the `AccumulateGrad` nodes come last. It is the order a backward pass needs
# (notebook 03): a node may run only once every node that sends it a gradient has run. A tree printout
# cannot give it, since a node's place depends on *all* the paths into it.
#
# The drawings need the same list: `draw_graph` makes one box per node it finds and stacks the boxes in
# layers, from the output down to the leaves. Several tensors can be given at once, as in
# `viz.graph_nodes(y, z)`: their graphs overlap, and the nodes they share are listed once.

# %% [markdown]
# ### Exercise 3: `graph_nodes` (6 points)
#
# Write `graph_nodes(roots)`. It becomes `autograd_lib.viz.walk.topological_nodes`: `viz.graph_nodes`,
# `viz.graph_edges` and `viz.draw_graph` take the `grad_fn` of the tensors you give them and ask your
# function for the nodes, so once you plug it, every graph drawn in this notebook is walked by your
# code.
#
# `roots` is a list of nodes: the `grad_fn`s of the tensors to draw. It may be empty (a drawing of a
# leaf), hold a node twice, or hold a node that another root reaches; a root may be an
# `AccumulateGrad`. Return a list of the nodes reachable from the roots. Several orders are right (two
# branches may come in either order): the tests accept any of them, and a drawing shows the same boxes
# and arrows whichever you give. A node is one **object**: nodes can go in a `set` or be `dict` keys
# (they hash by identity). Two `MulBackward0` are two nodes, and a broken `gradient_edge` that made
# two `AccumulateGrad` for one leaf should show both, so that you can see the bug. A loop of 5000
# additions builds a graph 5000 nodes deep, and Python stops after `sys.getrecursionlimit()` nested
# calls (3000 in a Jupyter kernel).
#
# Worked out on the graph above (`y = a * b; z = y * y + y.exp()`), `graph_nodes([z.grad_fn])` returns
# the six nodes: `AddBackward0` first; then `MulBackward0` (of `y * y`) and `ExpBackward0`, in
# either order; then `y.grad_fn`, a `MulBackward0`; then the `AccumulateGrad` of `a` and that of `b`,
# in either order.
#
# **Rules**
# - `list`: `graph_nodes` returns a list of nodes.
# - `reach`: the list holds every node reachable from the roots through every entry of
#   `next_functions`, and no other node.
# - `once`: each node appears once, however many edges or roots lead to it.
# - `order`: a node comes before every node in its `next_functions` (roots first, leaves last).
# - `skip-none`: the `(None, 0)` entries of `next_functions` lead to no node.
# - `deep`: a graph deeper than Python's recursion limit is walked too (a chain of 5000 nodes).

# %% nbgrader={"grade": false, "grade_id": "02_graph_nodes_answer", "locked": false, "schema_version": 3, "solution": true}
def graph_nodes(roots):
    """Every node reachable from the nodes in `roots` through next_functions, each once, as a
    list in which every node comes before all the nodes in its next_functions."""
    ### BEGIN SOLUTION
    seen = set()            # every node met so far
    finished = []           # each node after all the nodes below it
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_functions))]     # a node and the edges still to follow
        while stack:
            node, edges = stack[-1]
            for child, _ in edges:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child.next_functions)))
                    break
            else:                                       # no edge left: node is finished
                stack.pop()
                finished.append(node)
    return finished[::-1]
    ### END SOLUTION

exercises.plug("02.graph_nodes", graph_nodes)

# %% [markdown]
# Your walk, called directly on one root and on three (the same `y` twice), then behind the
# visualiser: the list `draw_graph` lays out below is yours. A chain of 5000 additions needs no
# recursion either.

# %%
print([viz.node_name(node) for node in graph_nodes([z.grad_fn])])
print([viz.node_name(node) for node in graph_nodes([y.grad_fn, z.grad_fn, y.grad_fn])])
h = a
for _ in range(5000):
    h = h + 1
print(len(viz.graph_nodes(h)), "nodes: 5000 additions and a's AccumulateGrad")
viz.draw_graph(z, names={"a": a, "b": b, "y": y, "z": z}, title="the same graph, walked by your graph_nodes")

# %% [markdown]
# **Tests.** `check.graph_nodes` calls your function on root nodes: the shared `y` above, `Q` with its `(None, 0)` edges, two outputs of one `unbind`, several roots (one below another, one given twice), an `AccumulateGrad` alone and no root at all; any valid order passes. `check.graph_nodes_in_viz` compares `viz.graph_nodes`, `viz.graph_edges` and the boxes and arrows of `viz.draw_graph` with the library's. Hidden tests repeat them on random graphs and on chains of thousands of additions.

# %% nbgrader={"grade": true, "grade_id": "02_graph_nodes_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.graph_nodes(graph_nodes)
### BEGIN HIDDEN TESTS
# Random graphs, a leaf with two AccumulateGrad nodes and a deep chain, against the library's walk
# (any valid order passes).
from autograd_course.checks.graph import DEEP, chain, random_graph, two_accumulators, walk_with
R = grading.rules("02.graph_nodes")
for case in grading.random_cases(seed=205, count=6):
    nodes = [t.grad_fn for t in random_graph(case)]
    nodes += [nodes[int(i)] for i in case.integers(0, len(nodes), size=int(case.integers(0, 2)))]   # a root twice
    walk_with(graph_nodes, nodes, f"graph_nodes on a random graph, {len(nodes)} roots", rule=R("skip-none"))
case = grading.random_cases(seed=207, count=1)[0]
walk_with(graph_nodes, [two_accumulators(case).grad_fn], "graph_nodes for a leaf with two AccumulateGrad nodes",
          rule=R("once"))
h = chain(int(case.integers(4000, 6000)))
walk_with(graph_nodes, [h.grad_fn], "graph_nodes on a chain of thousands of additions", rule=DEEP)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "02_graph_nodes_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.graph_nodes_in_viz(graph_nodes)
### BEGIN HIDDEN TESTS
# Random graphs drawn with your walk, and a deep chain through viz.graph_nodes.
from autograd_course.checks.graph import DEEP, chain, compare_viz, random_graph
for case in grading.random_cases(seed=206, count=4):
    roots = random_graph(case)
    compare_viz(graph_nodes, roots, f"{len(roots)} tensors of a random graph")
h = chain(int(case.integers(4000, 6000)))
compare_viz(graph_nodes, [h], "h after thousands of additions h = h + c", draw=False, rule=DEEP)
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * Every recorded operation leaves **one node**, the `grad_fn` of its results, named like PyTorch's
#   (`MulBackward0`, `MmBackward0`, `MeanBackward0`, ...); the outputs of one operation are told
#   apart by their `output_nr`.
# * A tensor's gradient enters the graph at its **gradient edge**: its own node, a leaf's
#   **`AccumulateGrad`**, which lives as long as some graph uses it, or nowhere: your `gradient_edge`.
# * A node's **`next_functions`** hold one edge per input, in input order, `(None, 0)` where no
#   gradient goes; your `record_node` records them, and the node, where PyTorch does.
# * **`graph_nodes`** lists every node reachable from the roots once, each before the nodes it sends
#   gradients to (a topological order), without recursion; the drawings are made from your list.
# * The graph is **dynamic**: it records what actually ran, so `if` and `while` shape it anew at every
#   forward pass.
#
# Next, in notebook 03, you write the engine that walks these edges backward: the gradient formulas of
# the nodes, and the order in which the nodes run.
