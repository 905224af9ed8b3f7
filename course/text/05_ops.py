# %% [markdown]
# # Assignment 05: tensor ops and broadcasting
#
# Real models add a bias to a whole batch, sum over dims, pick rows out of an embedding table and
# take the log-softmax of logits. Each op needs a gradient rule, and one mechanism ties them
# together: when the forward pass **broadcasts** a tensor, the backward pass **sums** its gradient
# back to the tensor's shape. You write that sum and the engine's step that calls it, then the
# analytic side of `gradcheck`, with which you check the rules you derive from each op's
# mathematics.
#
# | # | exercise | what you write | points |
# |---|---|---|---|
# | 1 | `05.sum_to` | sum a broadcast gradient back to an input's shape | 4 |
# | 2 | `05.validate_outputs` | the engine's step after each node: fit every gradient to its input | 4 |
# | 3 | `05.analytic_jacobian` | gradcheck's analytic side: the Jacobians, from backward | 4 |
# | 4 | `05.sum_and_index` | the gradients of `x.sum(dim)` and of `x[indices]` | 7 |
# | 5 | `05.derive_rules` | the gradients of `exp`, `sigmoid` and `log_softmax`, derived and checked | 10 |
# | 6 | `05.var_backward` | the gradient of `x.var(dim, correction=c)` | 4 |
# | 7 | `05.amax_backward` | the gradient of `amax` and `amin`, ties included | 4 |
# | | | **total** | **37** |

# %% [markdown]
# ### How an exercise works
#
# A quoted block or a comment `# PyTorch: ...` shows what PyTorch 2.13 prints. In an **answer
# cell** you write functions (keep their signatures); its last lines, `exercises.plug(...)`,
# install them in `autograd_lib`, so the demos after it run your code. Each task ends with the
# rules its test cells check (`check` is `autograd_course/checks/ops.py`); a failure prints what
# was expected, what was seen and the rule broken. Hidden tests check the same rules on random
# inputs, and each exercise is graded on its own.
#
# **The way out.** If an exercise does not work yet, `exercises.unplug("05.sum_to")` (with its id;
# exercise 4 fills `05.sum_backward` and `05.index_backward`, exercise 5 `05.exp_backward`,
# `05.sigmoid_backward` and `05.log_softmax_backward`) puts the library's version back, and you
# can go on.

# %% nbgrader={"grade": false, "grade_id": "05_setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np
import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.checks import ops as check
from autograd_course.notebook import error_of, reveal

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# ## 1. Broadcasting
#
# **Broadcasting** lets an elementwise op such as `*` take operands of different shapes: lined up
# **from the right**, dim by dim, the sizes must be equal or one of them 1. A dim of size 1, or one
# that a shape lacks on the left, is **stretched** to the other size: its single value is reused.
#
# | `x.shape` | `y.shape` | `(x * y).shape` |
# |---|---|---|
# | `(3,)` | `(2, 3)` | `(2, 3)`: `x` is reused for both rows |
# | `(2, 1)` | `(2, 3)` | `(2, 3)`: each row's value is reused for 3 columns |
# | `()` | `(2, 3)` | `(2, 3)`: one number, reused everywhere |
# | `(4, 1, 3)` | `(2, 1)` | `(4, 2, 3)` |
# | `(2, 3)` | `(2,)` | error: 3 and 2 differ and neither is 1 |
#
# ```python
# >>> torch.ones(2, 3) + torch.ones(2)
# RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
# ```

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = ag.tensor([[10., 20., 30.], [40., 50., 60.]])
print(x * y)
print(error_of(lambda: ag.ones(2, 3) + ag.ones(2)))

# %% [markdown]
# ## 2. Broadcasting in backward: a sum
#
# In `z = x * y` above each $x_j$ is used **twice**, once per row: $z_{0j} = x_j y_{0j}$ and
# $z_{1j} = x_j y_{1j}$. The gradients of a value used twice add up (assignment 03), so for
# $L = \sum_{ij} z_{ij}$, $\partial L / \partial x_j = y_{0j} + y_{1j}$: the column sums of `y`,
# of the shape of `x`. PyTorch agrees:
#
# ```python
# >>> (x * y).sum().backward()
# >>> x.grad
# tensor([50., 70., 90.])
# ```

# %%
(x * y).sum().backward()
print(x.grad, " column sums of y:", y.sum(0))

# %% [markdown]
# **Broadcasting is an implicit `expand`.** `x * y` computes what `x.expand(2, 3) * y` computes.
# Written out, `expand` is an op of its own, recorded as `ExpandBackward0`, whose backward sums
# over the copies. An implicit broadcast records no node: `MulBackward0`'s rule returns a `(2, 3)`
# gradient for `x`, and the engine, which checks every gradient a node returns against its input's
# shape, sums it down. Both graphs give the same `x.grad`:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
implicit = (x * y).sum()
explicit = (x.expand(2, 3) * y).sum()
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
ag.viz.draw_graph(implicit, names={"x": x}, ax=axes[0], title="(x * y).sum()")
ag.viz.draw_graph(explicit, names={"x": x}, ax=axes[1], title="(x.expand(2, 3) * y).sum()")
plt.show()


# %% [markdown]
# ### Exercise 1: `sum_to` (4 points)
#
# Write `sum_to(grad, shape)`: the gradient of an input of shape `shape` that was broadcast to
# `grad.shape`, in which each element of the input gets the sum of `grad` over every place it was
# copied to. `shape` is a tuple of ints, an `ag.Size` or `()`, and it broadcasts to `grad.shape`.
# It is installed as `ag.broadcasting.sum_to`: the engine calls it for every gradient whose shape
# differs from its input's, and `expand`'s backward calls it too.
#
# For `g = ag.arange(24.).reshape(4, 2, 3)`: `sum_to(g, (2, 3))` is
# `[[36., 40., 44.], [48., 52., 56.]]`, `sum_to(g, (2, 1))` is `[[120.], [156.]]` and
# `sum_to(g, ())` is `tensor(276.)`. Careful: `t.sum(())`, with an empty tuple of dims, sums over
# **every** dim, as in PyTorch.
#
# **Rules**
# - `lead`: the dims that `grad` has on the left beyond those of `shape` are summed away (every
#   dim, for `shape == ()`).
# - `ones`: a dim of size 1 in `shape`, where `grad`'s is larger, is summed, and stays in the
#   result with size 1.
# - `same`: a `grad` that already has the shape `shape` comes back as it is.
# - `graph`: the result is computed with tensor ops (never NumPy on `grad._data`), so that a
#   gradient taken with `create_graph=True` can be differentiated again.

# %% nbgrader={"grade": false, "grade_id": "05_sum_to_answer", "locked": false, "schema_version": 3, "solution": true}
def sum_to(grad, shape):
    """grad (the gradient of a broadcast result) summed back to shape: each element of
    the input gets the sum of grad over every place it was copied to."""
    ### BEGIN SOLUTION
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                      if size == 1 and grad.shape[lead + i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)
    ### END SOLUTION

exercises.plug("05.sum_to", sum_to)

# %% [markdown]
# Every broadcast in the library now ends in your function. A linear layer adds one bias vector to
# every row of a batch, so the bias gets the sum of the output's gradients over the batch:

# %%
X = ag.randn(4, 3)
W = ag.randn(3, 2, requires_grad=True)
b = ag.zeros(2, requires_grad=True)
G = ag.randn(4, 2)               # some upstream gradient
(X @ W + b).backward(G)
print("b.grad:", b.grad, "  G.sum(0):", G.sum(0))

s = ag.tensor(2.0, requires_grad=True)
c = ag.tensor([[1.], [2.]], requires_grad=True)
(s * c * y).sum().backward()     # s: () -> (2, 3), c: (2, 1) -> (2, 3)
print("s.grad:", s.grad, "  c.grad:", c.grad.tolist())

# %% [markdown]
# > **Aside.** A batch of inputs times one weight matrix, `A @ W` with `A` of shape `(4, 2, 3)` and
# > `W` of shape `(3, 5)`, broadcasts `W` over the batch, so `W.grad` is a sum over the batch too.
# > PyTorch does not loop over it: it reshapes `A` to `(8, 3)`, does one `mm` and reshapes the
# > result (`UnsafeViewBackward0` → `MmBackward0`), and the sum over the batch happens inside that
# > `mm`. `autograd_lib` records the same nodes:

# %%
A = ag.randn(4, 2, 3, requires_grad=True)
W = ag.randn(3, 5, requires_grad=True)
ag.viz.print_graph(A @ W, names={"A": A, "W": W})

# %% [markdown]
# **Tests.** Hand-made shapes, then backward through broadcasts and `expand`, twice.

# %% nbgrader={"grade": true, "grade_id": "05_sum_to_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.sum_to(sum_to)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import sum_to_random

# The rules on random gradients and shapes: each kind of shape twice, in float32 and float64.
sum_to_random(sum_to, grading.random_cases(seed=503, count=10))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_sum_to_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.sum_to_in_the_engine(sum_to)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import sum_to_in_the_engine_random

# Backward through x * y and x.expand(...) for random shapes that broadcast, and create_graph.
sum_to_in_the_engine_random(sum_to, grading.random_cases(seed=502, count=12))
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Fitting each gradient to its input
#
# A node's rule computes one gradient per input, and nothing forces it to have the input's shape or
# dtype. So the engine you wrote in 03 passes what each node's rule returns through
# `validate_outputs(node, grad_inputs)` before the gradients flow on. A custom `autograd.Function`
# (assignment 06 writes one) shows what PyTorch does there, since its backward returns whatever you
# like. `returning(shape_it)` below is `y = x * c` with a backward that returns `shape_it(g)` for `x`
# (a float32 `(3,)` leaf) and, for the constant `c`, a gradient of the wrong shape:

# %%
def returning(shape_it):
    """A custom Function y = x * c whose backward returns shape_it(grad) for x and grad[:1] for c."""
    class Returns(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x, c):
            return x * c

        @staticmethod
        def backward(ctx, grad):
            return shape_it(grad), grad[:1]
    return Returns


x, c = ag.tensor([1., 2., 3.], requires_grad=True), ag.ones(3)
for text, shape_it in {"g.expand(2, 3)": lambda g: g.expand(2, 3), "g.unsqueeze(0)": lambda g: g.unsqueeze(0),
                       "g.double()": lambda g: g.double(), "None": lambda g: None, "g[:2]": lambda g: g[:2],
                       "g.unsqueeze(1)": lambda g: g.unsqueeze(1), "g.sum()": lambda g: g.sum()}.items():
    x.grad = None
    done = error_of(lambda: returning(shape_it).apply(x, c).sum().backward())
    print(f"{text:15}", done or (x.grad, None if x.grad is None else x.grad.dtype))
# PyTorch:
# g.expand(2, 3)  (tensor([2., 2., 2.]), torch.float32)
# g.unsqueeze(0)  (tensor([1., 1., 1.]), torch.float32)
# g.double()      (tensor([1., 1., 1.]), torch.float32)
# None            (None, None)
# g[:2]           RuntimeError: Function ReturnsBackward returned an invalid gradient at index 0 - got [2] but expected shape compatible with [3]
# g.unsqueeze(1)  RuntimeError: Function ReturnsBackward returned an invalid gradient at index 0 - got [3, 1] but expected shape compatible with [3]
# g.sum()         RuntimeError: Function ReturnsBackward returned an invalid gradient at index 0 - got [] but expected shape compatible with [3]

# %% [markdown]
# ### Exercise 2: `validate_outputs` (4 points)
#
# Write `validate_outputs(node, grad_inputs)`, installed as `ag.engine.validate_outputs`: what
# PyTorch's engine does with the gradients a node's rule returned, before they flow on. Work out from
# the experiment above which gradients PyTorch accepts as they are, which it changes and how, and
# which it refuses (why does `(1, 3)` pass for a `(3,)` input, and `(3, 1)` not?), and why `c`'s
# one-element gradient never caused an error.
#
# What you are given: `grad_inputs[i]` is the gradient the rule returned for input `i` (a tensor or
# `None`); `node.next_functions[i]` is that input's edge, `(None, 0)` when it needs no gradient;
# `node._input_meta[i]` is input `i`'s `(shape, dtype)` when it was recorded (the dtype as NumPy's,
# `t._data.dtype`). `ag.broadcasting.sum_to` is your exercise 1, and
# `ag.broadcasting.is_expandable_to(shape, desired)` says whether a tensor of `shape` broadcasts to
# `desired`. Example: for the node of `x * y`, `x` of shape `(3,)` and `y` of shape `(2, 3)`, the
# gradients `[g, g]` with `g = [[1, 2, 3], [4, 5, 6]]` come back as `[[5, 7, 9], g]`.
#
# **Rules**
# - `list`: the result is a list with one gradient per input, in input order.
# - `shape`: an input whose shape broadcasts to its gradient's receives a gradient of its own shape,
#   with the values PyTorch gives (`[2., 2., 2.]` for `g.expand(2, 3)` above).
# - `dtype`: an input that needs a gradient receives one of its own dtype.
# - `refuse`: any other shape is refused with PyTorch's `RuntimeError`, worded as above (the node's
#   `name()`, the index, the shapes as lists).
# - `keep`: `None`, a gradient that already fits, and the gradient of an input that needs none pass
#   as they are.

# %% nbgrader={"grade": false, "grade_id": "05_validate_outputs_answer", "locked": false, "schema_version": 3, "solution": true}
def validate_outputs(node, grad_inputs):
    """The gradients a node's rule returned, each fitted to its input's shape and dtype
    (node._input_meta[i]), as PyTorch's engine does; a list, one per input."""
    ### BEGIN SOLUTION
    checked = []
    for i, grad in enumerate(grad_inputs):
        next_node, _ = node.next_functions[i]
        if grad is None or next_node is None:
            checked.append(grad)
            continue
        shape, dtype = node._input_meta[i]
        if tuple(grad.shape) != tuple(shape):
            if not ag.broadcasting.is_expandable_to(shape, tuple(grad.shape)):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                                   f"got {list(grad.shape)} but expected shape compatible with {list(shape)}")
            grad = ag.broadcasting.sum_to(grad, shape)
        if grad._data.dtype != dtype:
            grad = grad.to(ag.dtypes.as_dtype(dtype))
        checked.append(grad)
    return checked
    ### END SOLUTION

exercises.plug("05.validate_outputs", validate_outputs)

# %% [markdown]
# Every node now hands its gradients to your function. The linear layer again, with a float64
# gradient given to `backward` (the engine casts it to the output's float32 before any node runs):

# %%
X = ag.randn(4, 3)
W = ag.randn(3, 2, requires_grad=True)
b = ag.zeros(2, requires_grad=True)
(X @ W + b).backward(ag.ones(4, 2, dtype=ag.float64))
print(b.grad, W.grad.dtype)           # PyTorch: tensor([4., 4.]) torch.float32

# %% [markdown]
# **Tests.** Direct calls with gradients of every kind, then backward through broadcasts and
# custom Functions.

# %% nbgrader={"grade": true, "grade_id": "05_validate_outputs_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.validate_outputs(validate_outputs)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import validate_outputs_random

# The nodes of a * b for random shapes, dtypes and flags, with random gradients of every kind.
validate_outputs_random(validate_outputs, grading.random_cases(seed=504, count=40))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_validate_outputs_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.validate_outputs_in_the_engine(validate_outputs)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import validate_outputs_in_the_engine_random

# Backward through random broadcasting graphs of leaves of random shapes and dtypes.
validate_outputs_in_the_engine_random(validate_outputs, grading.random_cases(seed=505, count=16))
### END HIDDEN TESTS

# %% [markdown]
# ## 4. A second opinion: `gradcheck`
#
# A gradient rule can be wrong in ways no error message reveals: a missing factor, a sum over the
# wrong dim. `gradcheck(fn, inputs)` compares, for every element of every input, two Jacobians:
# the **numerical** one, a column at a time, by central finite differences (your `numerical_grad`
# of 03), and the **analytic** one, a row at a time, from backward (the rules under test). The
# vector-Jacobian product with a vector that is 1 at one output element and 0 elsewhere is that
# element's row. It needs **float64**: in float32 the rounding errors of $f(x \pm \epsilon)$ are
# about as large as the differences themselves, and PyTorch warns:
#
# ```python
# >>> x = torch.randn(3, requires_grad=True)          # float32
# >>> torch.autograd.gradcheck(torch.sigmoid, (x,), raise_exception=False)
# UserWarning: Input #0 requires gradient and is not a double precision floating point or complex. This check will likely fail if all the inputs are not of double precision floating point or complex.
# False
# ```

# %% [markdown]
# ### Exercise 3: `analytic_jacobian` (4 points)
#
# Write `analytic_jacobian(fn, inputs)`, installed as `ag.autograd.gradcheck.analytic_jacobian`,
# which every `gradcheck` calls. `inputs` is a tuple of arguments for `fn`: tensors (some require
# grad, some do not) and numbers; `fn(*inputs)` returns a tensor or a tuple of tensors.
# `ag.autograd.grad` (assignment 04) gives vector-Jacobian products.
#
# For `fn = lambda A, v: A @ v` with `A = [[1, 2, 3], [4, 5, 6]]` and `v = [1, 10, 100]` (float64,
# both requiring grad), the result is `[[J_A, J_v]]`: `J_v` is `A` transposed, of shape `(3, 2)`;
# `J_A`, of shape `(6, 2)`, holds `v` in rows 0-2 of column 0 and in rows 3-5 of column 1.
#
# **Rules**
# - `lists`: one list per output of `fn`, in order, each with one matrix per input that requires
#   grad, in order (a constant or a number gets none).
# - `layout`: a matrix is a float64 NumPy array of shape `(input numel, output numel)`, PyTorch's
#   layout: entry `[j, i]` belongs to output element `i` and input element `j` (both flattened).
# - `entries`: entry `[j, i]` is the derivative of output element `i` by input element `j` as
#   backward computes it (never by finite differences: they are the other side of the check).
# - `zeros`: an output that does not require grad, or an input an output does not use, gives a
#   matrix of zeros.
# - `grad-mode`: `fn` runs with grad mode on, also when `analytic_jacobian` is called inside
#   `no_grad()`.
# - `untouched`: no input's `.grad` changes.

# %% nbgrader={"grade": false, "grade_id": "05_analytic_jacobian_answer", "locked": false, "schema_version": 3, "solution": true}
def analytic_jacobian(fn, inputs):
    """For each output of fn(*inputs), the list of its Jacobians, one per input that
    requires grad: float64 arrays of shape (input numel, output numel), from backward."""
    ### BEGIN SOLUTION
    wanted = [x for x in inputs if isinstance(x, ag.Tensor) and x.requires_grad]
    with ag.enable_grad():
        outputs = fn(*inputs)
    if isinstance(outputs, ag.Tensor):
        outputs = (outputs,)
    jacobians = []
    for out in outputs:
        matrices = [np.zeros((x.numel(), out.numel())) for x in wanted]
        if out.requires_grad:
            for i in range(out.numel()):
                seed = np.zeros(out.numel())
                seed[i] = 1.0
                grads = ag.autograd.grad(out, wanted, grad_outputs=ag.tensor(seed.reshape(out.shape)),
                                         retain_graph=True, allow_unused=True)
                for matrix, g in zip(matrices, grads):
                    if g is not None:
                        matrix[:, i] = g.numpy().reshape(-1)
        jacobians.append(matrices)
    return jacobians
    ### END SOLUTION

exercises.plug("05.analytic_jacobian", analytic_jacobian)

# %%
A = ag.tensor([[1., 2., 3.], [4., 5., 6.]], dtype=ag.float64, requires_grad=True)
v = ag.tensor([1., 10., 100.], dtype=ag.float64, requires_grad=True)
(jac_A, jac_v), = analytic_jacobian(lambda A, v: A @ v, (A, v))
print(jac_v)
print(jac_A)
x32 = ag.randn(3, requires_grad=True)
print("float64:", ag.autograd.gradcheck(ag.sigmoid, (x32.detach().double().requires_grad_(),)))

# %% [markdown]
# **Tests.** Eight functions (two inputs, two outputs, constants, unused inputs, `no_grad()`),
# then `gradcheck` of right and wrong custom Functions.

# %% nbgrader={"grade": true, "grade_id": "05_analytic_jacobian_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.analytic_jacobian(analytic_jacobian)
### BEGIN HIDDEN TESTS
from autograd_course.checks.jacobians import analytic_jacobian_random

# Random functions of two inputs of random shapes and dtypes, some not requiring grad.
analytic_jacobian_random(analytic_jacobian, grading.random_cases(seed=510, count=24))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_analytic_jacobian_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.analytic_jacobian_in_gradcheck(analytic_jacobian)
### BEGIN HIDDEN TESTS
from autograd_course.checks.jacobians import analytic_jacobian_in_gradcheck_random

# gradcheck of right and wrong functions, and gradgradcheck, at random inputs.
analytic_jacobian_in_gradcheck_random(analytic_jacobian, grading.random_cases(seed=511, count=6))
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Gradients that move values: sums and indexing
#
# Some ops compute nothing new: they move values. Their gradients move the gradient values back.
#
# | forward | node | backward |
# |---|---|---|
# | `x.reshape(3, 2)`, `x.view(6)` | `ViewBackward0` | the gradient reshaped to `x.shape` |
# | `x.transpose(0, 1)`, `x.t()` | `TransposeBackward0`, `TBackward0` | the gradient transposed back |
# | `x[0]`, `x[:, 1:]` | `SelectBackward0`, `SliceBackward0` | zeros of `x.shape`, the gradient in the selected places |
# | `x.sum(dim)` | `SumBackward1` | you write it |
# | `x[[0, 2, 0]]`, `x[x > 2]` | `IndexBackward0` | you write it |
#
# **Sums over dims.** `x.sum(dim)` adds up along some dims and removes them; with `keepdim=True`
# they stay with size 1, so that the result still broadcasts against `x`. `SumBackward1` saves no
# tensor, only the input's shape, the dims and the flag:
#
# ```python
# >>> x = torch.arange(6.).reshape(2, 3).requires_grad_()
# >>> x.sum(1)
# tensor([ 3., 12.], grad_fn=<SumBackward1>)
# >>> x.sum(1).backward(torch.tensor([10., 20.]))
# >>> x.grad
# tensor([[10., 10., 10.],
#         [20., 20., 20.]])
# ```

# %%
x = ag.arange(6.).reshape(2, 3).requires_grad_()
s = x.sum(1)
print(s, s.grad_fn.name(), s.grad_fn._saved_dim, s.grad_fn._saved_keepdim, s.grad_fn._saved_self_shape)
print(x.sum(-1, keepdim=True).grad_fn._saved_dim, " <- dims are saved sorted and non-negative")

# %% [markdown]
# **Indexing with integer arrays** can pick the same element more than once: `v[[0, 2, 0]]` reads
# `v[0]` twice, and the gradients of a value used twice add up. An **embedding** table indexed
# with the token ids of a batch is the everyday case: a frequent token's row must collect the
# gradient of every occurrence. Beware NumPy's fancy assignment, which keeps one write per
# repeated index: `out[idx] += g` below adds `g[0] = 1` nowhere.
#
# ```python
# >>> v = torch.tensor([1., 2., 3., 4.], requires_grad=True)
# >>> v[[0, 2, 0]].backward(torch.tensor([1., 10., 100.]))
# >>> v.grad
# tensor([101.,   0.,  10.,   0.])
# ```

# %%
out, idx, g = np.zeros(4), [0, 2, 0], np.array([1., 10., 100.])
out[idx] += g
print(out, " <- v[0] lost the 1")

x = ag.arange(6.).reshape(2, 3).requires_grad_()
for picked in (x[[1, 0, 1]], x[:, [0, 2, 0]], x[x > 2]):
    print(picked.grad_fn.name(), tuple(picked.grad_fn._saved_self_shape), picked.grad_fn._saved_indices)


# %% [markdown]
# ### Exercise 4: `sum_and_index` (7 points)
#
# Write the rules of these two nodes. As in assignment 03, a rule receives the gradient of the
# op's result and the values its node saved, and returns the gradient of `x`; build it with tensor
# ops where you can (`t._data` is a tensor's NumPy array).
#
# - `sum_backward(grad, self_shape, dim, keepdim)`, for `x.sum(dim, keepdim=keepdim)`:
#   `self_shape` is `x.shape`, `dim` a sorted tuple of non-negative dims.
# - `index_backward(grad, self_shape, indices)`, for `x[indices]`: `indices` is the tuple `x` was
#   indexed with, as printed above, usable as a NumPy index.
#
# Calling the library's `backward_helpers.restore_reduced_dims` or `indexing.embed_in_zeros` is a
# `DelegationError`.
#
# **Rules**
# - `sum-copy`: `sum_backward` returns a tensor of shape `self_shape` in which every element holds
#   the gradient of the sum it went into, unchanged.
# - `sum-dims`: with or without `keepdim`, over one dim or several, each element gets the gradient
#   of its own sum (for a square `x`, a gradient that lands on the wrong dim raises no error).
# - `index-zeros`: `index_backward` returns a new tensor of shape `self_shape` and of `grad`'s
#   dtype, 0 wherever `x[indices]` read nothing, and leaves `grad` unchanged.
# - `index-add`: an element that `x[indices]` read several times gets the sum of the gradients of
#   all its reads.
# - `index-tuple`: `indices` may hold one entry per indexed dim: integer arrays, boolean masks and
#   slices, as `x[indices]` used them.

# %% nbgrader={"grade": false, "grade_id": "05_sum_and_index_answer", "locked": false, "schema_version": 3, "solution": true}
def sum_backward(grad, self_shape, dim, keepdim):
    """The gradient of x.sum(dim, keepdim) (SumBackward1), of shape self_shape."""
    ### BEGIN SOLUTION
    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
    return grad.expand(self_shape)
    ### END SOLUTION


def index_backward(grad, self_shape, indices):
    """The gradient of x[indices] (IndexBackward0), of shape self_shape and grad's dtype."""
    ### BEGIN SOLUTION
    out = ag.zeros(self_shape, dtype=grad.dtype)
    np.add.at(out._data, indices, grad._data)
    return out
    ### END SOLUTION

exercises.plug("05.sum_backward", sum_backward)
exercises.plug("05.index_backward", index_backward)

# %% [markdown]
# Both rules in use: a batch normalized so that each row sums to 1 (its row sums are kept with
# `keepdim=True` and broadcast back), and an embedding lookup in which token 1 appears three times.
# PyTorch prints `tensor([[0., 0.], [3., 3.], [0., 0.], [1., 1.]])` for the table's gradient:

# %%
v = ag.tensor([[1., 2., 1.], [3., 3., 2.]], requires_grad=True)
normalized = v / v.sum(1, keepdim=True)
normalized[:, 0].sum().backward()
print(normalized, v.grad, sep="\n")

table = ag.arange(8.).reshape(4, 2).requires_grad_()       # 4 tokens, 2 features each
table[ag.tensor([1, 3, 1, 1])].sum().backward()
print(table.grad)

# %% [markdown]
# **Tests.** Direct calls (one and two dims, `keepdim`; repeated indices, slices, masks), then
# backward through sums, `v[[0, 2, 0]]`, the embedding and a mask.

# %% nbgrader={"grade": true, "grade_id": "05_sum_and_index_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.sum_and_index(sum_backward, index_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import sum_and_index_random

# Both rules on random shapes, dims, flags, indices and dtypes.
sum_and_index_random(sum_backward, index_backward, grading.random_cases(seed=512, count=10))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_sum_and_index_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.sum_and_index_in_the_engine(sum_backward, index_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import sum_and_index_in_the_engine_random

# Backward through x.sum(...) and x[key] for random shapes, dims, flags and keys.
sum_and_index_in_the_engine_random(sum_backward, index_backward, grading.random_cases(seed=541, count=16))
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Derive a rule, then check it
#
# An elementwise function $y = f(x)$ has a diagonal Jacobian, and its node keeps what it needs to
# compute $f'(x)$ later. Often the derivative is simplest in terms of the **output**, which the node
# then saves: `ExpBackward0`, `TanhBackward0`, `SigmoidBackward0` and `ReluBackward0` save
# `_saved_result`, `LogBackward0` saves `_saved_self` (assignment 08: writing into `y = x.exp()` in
# place destroys what `ExpBackward0` needs). Three ops whose rules you derive:
#
# * **exp**: $y = e^x$, elementwise.
# * **sigmoid**: $s = \sigma(x) = \dfrac{1}{1 + e^{-x}}$, elementwise. PyTorch's `SigmoidBackward0`
#   calls `sigmoid_backward(grad_output, output)`, an op in its own right (with
#   `create_graph=True` it is recorded as `SigmoidBackwardBackward0`).
# * **log_softmax** along `dim`: $y_i = x_i - \log \sum_k e^{x_k}$, where $k$ runs over the slice
#   of `x` along `dim` that holds $x_i$. Every slice (a row of a batch, for `dim=1`) is a softmax
#   of its own, and $e^{y}$ is the softmax. `LogSoftmaxBackward0` saves the output and `dim`, and
#   calls `_log_softmax_backward_data(grad_output, output, dim, ...)`.
#
# The vector-Jacobian product of an upstream gradient $\bar{y}$ is
# $\bar{x}_j = \sum_i \bar{y}_i \, \partial y_i / \partial x_j$.

# %% [markdown]
# **Why from the output.** Written naively, log-softmax breaks for large logits: in float32,
# $e^{x}$ overflows to `inf` as soon as $x > 88.7$. PyTorch (and `ag.log_softmax`) subtract the
# max first, $\log \sum_k e^{x_k} = m + \log \sum_k e^{x_k - m}$ with $m = \max_k x_k$, so every
# exponent is $\le 0$. A rule that works from the output inherits that safety: the
# log-probabilities are finite, and their $e^{y} \le 1$.
#
# ```python
# >>> logits = torch.tensor([1000., 0., -1000.], requires_grad=True)
# >>> logits - logits.exp().sum().log()                # naive
# tensor([-inf, -inf, -inf], grad_fn=<SubBackward0>)
# >>> torch.log_softmax(logits, 0)
# tensor([    0., -1000., -2000.], grad_fn=<LogSoftmaxBackward0>)
# ```

# %%
with np.errstate(all="ignore"):     # NumPy would warn of the overflow; PyTorch does not
    logits = ag.tensor([1000., 0., -1000.], requires_grad=True)
    print(logits - logits.exp().sum().log())
print(ag.log_softmax(logits, 0))


# %% [markdown]
# ### Exercise 5: `derive_rules` (10 points)
#
# Derive the vector-Jacobian products of the three ops from their definitions above, write each
# with the saved output (all its node keeps), and build them with tensor ops:
#
# - `exp_backward(grad, result)`, the rule of `ExpBackward0` (the parameter's name `result` makes
#   the node save the op's output, as PyTorch's does);
# - `sigmoid_backward(grad_output, output)`, installed as `ag.ops.pointwise.sigmoid_backward`,
#   which `SigmoidBackward0` calls with the saved output;
# - `log_softmax_backward(grad_output, output, dim)`, installed as
#   `ag.ops.losses.log_softmax_backward_data`, which `LogSoftmaxBackward0` calls with the
#   log-probabilities.
#
# Check your derivations by hand first: at $x = 0$ with an upstream gradient of 3, `exp`'s rule
# gives 3 and `sigmoid`'s gives 0.75; `log_softmax([0., 0.], 0)` with an upstream gradient
# `[1., 0.]` gives `[0.5, -0.5]`. Then check them with `gradcheck` in float64 (the cell after the
# answer does): your `analytic_jacobian` against your finite differences.
#
# **Rules**
# - `exp`: `exp_backward` returns the vector-Jacobian product of $y = e^x$, computed from the saved
#   output `result`.
# - `sigmoid`: `sigmoid_backward` returns the vector-Jacobian product of $\sigma$, computed from
#   its output $s = \sigma(x)$.
# - `log-softmax`: `log_softmax_backward` returns the vector-Jacobian product of `log_softmax`
#   along `dim`, computed from the log-probabilities, each slice along `dim` on its own: finite
#   for any finite output, huge logits included.
# - `graph`: the rules are built from tensor ops, so that a gradient taken with
#   `create_graph=True` can be differentiated again, and second derivatives come out right.

# %% nbgrader={"grade": false, "grade_id": "05_derive_rules_answer", "locked": false, "schema_version": 3, "solution": true}
def exp_backward(grad, result):
    """The gradient of result = x.exp() (ExpBackward0), from its saved output."""
    ### BEGIN SOLUTION
    return grad * result
    ### END SOLUTION


def sigmoid_backward(grad_output, output):
    """The gradient of output = sigmoid(x), from that output."""
    ### BEGIN SOLUTION
    return grad_output * output * (1 - output)
    ### END SOLUTION


def log_softmax_backward(grad_output, output, dim):
    """The gradient of output = log_softmax(x, dim), from that output."""
    ### BEGIN SOLUTION
    return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)
    ### END SOLUTION

exercises.plug("05.exp_backward", exp_backward)
exercises.plug("05.sigmoid_backward", sigmoid_backward)
exercises.plug("05.log_softmax_backward", log_softmax_backward)


# %% [markdown]
# Your three rules through your `gradcheck`, at random float64 points; every line must say `True`.
# Then sigmoid's gradient over a whole range, next to finite differences (`numerical_grad`): the
# curves must coincide. It peaks at $x = 0$ and vanishes where the sigmoid saturates.

# %%
def r(*shape):
    return ag.randn(*shape, dtype=ag.float64, requires_grad=True)

for name, fn, inputs in (("exp", ag.exp, (r(4),)), ("sigmoid", ag.sigmoid, (r(4),)),
                         ("log_softmax(t, 1)", lambda t: ag.log_softmax(t, 1), (r(2, 3),)),
                         ("log_softmax(t, 0)", lambda t: ag.log_softmax(t, 0), (r(2, 3),))):
    print(f"gradcheck({name}):", ag.autograd.gradcheck(fn, inputs, raise_exception=False))

x = ag.linspace(-6, 6, 121, dtype=ag.float64, requires_grad=True)
ag.sigmoid(x).sum().backward()
numerical = ag.autograd.numerical_grad(lambda t: ag.sigmoid(t).sum(), x.detach().clone())
xs = x.detach().numpy()
fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(xs, ag.sigmoid(x).detach().numpy(), color="0.6", label="sigmoid(x)")
ax.plot(xs, x.grad.numpy(), lw=2, label="gradient from backward (your rule)")
ax.plot(xs[::6], numerical.numpy()[::6], "o", ms=5, mfc="none", label="finite differences")
ax.legend()
plt.show()

# %% [markdown]
# Cross-entropy is `nll_loss(log_softmax(x, 1), target)`, so its gradient flows through your rule:
# softmax minus one-hot, over the batch size. PyTorch prints
# `tensor([[-0.1705, 0.1212, 0.0493], [0.0581, -0.0710, 0.0130]])` and, for the huge logits,
# `tensor([-1., 1., 0.])`:

# %%
x = ag.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
target = ag.tensor([0, 1])
ag.nn.functional.cross_entropy(x, target).backward()
print(x.grad)
print((ag.softmax(x.detach(), 1) - ag.eye(3)[target]) / 2, " <- softmax minus one-hot, over 2")
huge = ag.tensor([1000., 0., -1000.], requires_grad=True)
ag.log_softmax(huge, 0)[1].backward()
print(huge.grad)

# %% [markdown]
# **Tests.** Direct calls, then backward through the ops, cross-entropy, huge logits and
# `gradcheck`, then second derivatives.

# %% nbgrader={"grade": true, "grade_id": "05_derive_rules_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.derive_rules(exp_backward, sigmoid_backward, log_softmax_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import derive_rules_random

# The three rules at random points: random shapes, dims, dtypes and upstream gradients.
derive_rules_random(exp_backward, sigmoid_backward, log_softmax_backward, grading.random_cases(seed=522, count=8))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_derive_rules_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.derive_rules_in_the_engine(exp_backward, sigmoid_backward, log_softmax_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import derive_rules_in_the_engine_random

# Backward through the three ops (and a chain factor) at random points, and gradcheck.
derive_rules_in_the_engine_random(exp_backward, sigmoid_backward, log_softmax_backward,
                                  grading.random_cases(seed=531, count=8))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_derive_rules_test3", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.derive_rules_second_derivative(exp_backward, sigmoid_backward, log_softmax_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import derive_rules_second_derivative_random

# Second derivatives of the three ops at random points.
derive_rules_second_derivative_random(exp_backward, sigmoid_backward, log_softmax_backward,
                                      grading.random_cases(seed=551, count=6))
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Reductions that spread or pick: `var` and `amax`
#
# `sum` treats every element of a group alike; `var` does not, and `amax` only cares about the
# elements that hold the maximum.
#
# **The variance.** `x.var(dim, correction=c, keepdim=k)` computes, for each group of $N$ elements
# reduced together (a row of a matrix for `dim=1`; for a tuple of dims, $N$ is the product of their
# sizes),
#
# $$v = \frac{1}{N - c} \sum_{i=1}^{N} (x_i - m)^2, \qquad m = \frac{1}{N} \sum_{i=1}^{N} x_i .$$
#
# The default `correction=1` (Bessel's) gives the unbiased estimate; `correction=0` the mean of the
# squared deviations. `x.std(...)` is $\sqrt{v}$. `VarBackward0` saves the input, the dims, the
# correction and the flag. When $N \le c$, PyTorch warns and the variance is `inf` or `nan`; this
# exercise leaves that case out.
#
# ```python
# >>> x = torch.tensor([[1., 2., 6.], [4., 4., 7.]], requires_grad=True)
# >>> v = x.var(1)
# >>> v, v.grad_fn._saved_dim, v.grad_fn._saved_correction, v.grad_fn._saved_keepdim
# (tensor([7., 3.], grad_fn=<VarBackward0>), (1,), 1, False)
# ```

# %%
x = ag.tensor([[1., 2., 6.], [4., 4., 7.]], requires_grad=True)
v = x.var(1)
print(v, v.grad_fn._saved_dim, v.grad_fn._saved_correction, v.grad_fn._saved_keepdim)
print(x.var(1, correction=0))         # PyTorch: tensor([4.6667, 2.0000], grad_fn=<VarBackward0>)


# %% [markdown]
# ### Exercise 6: `var_backward` (4 points)
#
# Derive $\partial v / \partial x_j$ for an element $x_j$ of a group: $x_j$ appears in its own
# square, and also in $m$, which appears in *every* square. Check a tiny case by hand: $x = (0, 2)$
# with `correction=0` gives $v = 1$, and $x_2 = 2 + \epsilon$ raises $v$ by about $\epsilon$.
#
# Then write `var_backward(grad, self, dim, correction, keepdim)`, installed as
# `ag.ops.norms.var_backward`: `VarBackward0` calls it with the saved values, and so does
# `StdBackward0` (after the chain rule through the square root). `self` is the input, `dim` a
# sorted tuple of non-negative dims, `correction` an int below $N$; `grad` has the shape of the
# variance. Return the gradient of `self`.
#
# **Rules**
# - `derivative`: each element gets its group's gradient times $\partial v / \partial x_j$, the
#   derivative of the formula above (its own square and the mean's share in every square).
# - `correction`: $v$ divides by $N -$ `correction`, and so does its gradient.
# - `groups`: each group has its own mean and its own gradient; over several dims, one group spans
#   them all.
# - `keepdim`: with `keepdim=False` the reduced dims are missing from `grad`, and each group's
#   gradient still reaches its own elements (for a square `self`, a wrong alignment raises no
#   error).
# - `graph`: the gradient is built from tensor ops, so that it can be differentiated again.

# %% nbgrader={"grade": false, "grade_id": "05_var_backward_answer", "locked": false, "schema_version": 3, "solution": true}
def var_backward(grad, self, dim, correction, keepdim):
    """The gradient of self.var(dim, correction=correction, keepdim=keepdim), of self's
    shape (VarBackward0, and StdBackward0 through it)."""
    ### BEGIN SOLUTION
    count = 1
    for d in dim:
        count *= self.shape[d]
    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
    deviations = self - self.mean(dim, keepdim=True)
    return grad * deviations * (2 / (count - correction))
    ### END SOLUTION

exercises.plug("05.var_backward", var_backward)

# %% [markdown]
# Your rule for `var` and for `std`. PyTorch prints `tensor([[-2., -1., 3.], [-2., -2., 4.]])` and
# `tensor([[-0.3780, -0.1890, 0.5669], [-0.5774, -0.5774, 1.1547]])`. Then your `gradcheck`
# compares it with finite differences for several dims, corrections and flags:

# %%
x = ag.tensor([[1., 2., 6.], [4., 4., 7.]], requires_grad=True)
x.var(1).backward(ag.tensor([1., 2.]))
print(x.grad)
x.grad = None
x.std(1).backward(ag.tensor([1., 2.]))
print(x.grad)

t = ag.randn(2, 3, 4, dtype=ag.float64, requires_grad=True)
for dim, correction, keepdim in (((1,), 1, False), ((0, 2), 0, False), ((2, 0), 2, True), (None, 1, False)):
    ok = ag.autograd.gradcheck(lambda a: a.var(dim, correction=correction, keepdim=keepdim), (t,),
                               raise_exception=False)
    print(f"var(dim={dim}, correction={correction}, keepdim={keepdim}):", ok)

# %% [markdown]
# **Tests.** Direct calls against finite differences, then backward through `var` and `std`,
# `gradcheck` and `gradgradcheck`.

# %% nbgrader={"grade": true, "grade_id": "05_var_backward_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.var_backward(var_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import var_backward_random

# The rules on random inputs, dims, corrections and flags, in float32 or float64.
var_backward_random(var_backward, grading.random_cases(seed=562, count=12))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_var_backward_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.var_backward_in_the_engine(var_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import var_backward_in_the_engine_random

# Backward through x.var(...) and x.std(...) for random shapes, dims, corrections and flags.
var_backward_in_the_engine_random(var_backward, grading.random_cases(seed=561, count=14))
### END HIDDEN TESTS

# %% [markdown]
# **The largest element: `amax`, and ties.** `x.amax(dim, keepdim=False)` returns the largest value
# of each group reduced together (`dim` a dim or a tuple), and `x.amin` the smallest. Nudging an
# element that is not the maximum does not move the maximum, so its gradient is 0. Where several
# elements hold the maximum, a **tie**, there is no derivative and a library must choose.
# `x.max(dim)` returns one index per group and sends the whole gradient there:
#
# ```python
# >>> x = torch.tensor([[1., 3., 3.], [2., 5., 4.]], requires_grad=True)
# >>> x.max(1).values.backward(torch.tensor([10., 20.]))
# >>> x.grad
# tensor([[ 0., 10.,  0.],
#         [ 0., 20.,  0.]])
# ```
#
# `amax` returns no indices: `AmaxBackward0` saves the input and the result (`_saved_self`,
# `_saved_result`), the dims and the flag.

# %% [markdown]
# **Predict, then run.** Same `x`, fresh gradients: `x.amax(1).backward(tensor([10., 20.]))`. Row 0
# has its maximum, 3, twice. What is `x.grad`? Replace the `...` below with your answer, a list of
# two rows of three numbers, before you run the next cell.

# %%
prediction = ...      # x.grad after x.amax(1).backward([10., 20.]), as [[a, b, c], [d, e, f]]

# %%
x = ag.tensor([[1., 3., 3.], [2., 5., 4.]], requires_grad=True)
x.amax(1).backward(ag.tensor([10., 20.]))
print(x.grad)
reveal(prediction, x.grad, why="amax has no index to pick: the tied maxima of a row share its gradient "
       "equally, 10 / 2 for each 3 of row 0, while the single 5 of row 1 gets all 20")


# %% [markdown]
# > **Aside.** A `nan` is a case apart: the maximum of a group that holds a `nan` is `nan`, no
# > element equals it, and PyTorch gives every element of that group a `nan` gradient (`x.max()`
# > over everything, by contrast, shares among the `nan`s). The tests use no `nan`.

# %% [markdown]
# ### Exercise 7: `amax_backward` (4 points)
#
# Write `amax_backward(grad, self, result, dims, keepdim)`, installed as
# `ag.ops.backward_helpers.share_among_ties`: the rules of both `AmaxBackward0` and `AminBackward0`
# call it with the saved values. `result` is each group's maximum (for `amin`, its minimum) and
# `dims` a sorted tuple of non-negative dims. Return the gradient of `self`, of its shape. Over
# several dims the rule is the same: `y.amax()` of a tensor whose maximum appears four times gives
# each of the four a quarter of the gradient. Calling `backward_helpers.evenly_distribute` is a
# `DelegationError`.
#
# **Rules**
# - `pick`: only the elements equal to their group's `result` get gradient; every other element
#   gets 0.
# - `share`: the $k$ tied extremes of a group share its gradient equally, $1/k$ each.
# - `groups`: ties are counted in each group separately (the dims reduced together), not over the
#   whole tensor.
# - `keepdim`: with `keepdim=False`, `grad` and `result` are missing the reduced dims, and each
#   group's values still reach its own elements.
# - `amin`: the same function serves `amin`, where `result` holds each group's minimum.

# %% nbgrader={"grade": false, "grade_id": "05_amax_backward_answer", "locked": false, "schema_version": 3, "solution": true}
def amax_backward(grad, self, result, dims, keepdim):
    """The gradient of result = self.amax(dims, keepdim) or self.amin(dims, keepdim)
    (AmaxBackward0, AminBackward0), of self's shape."""
    ### BEGIN SOLUTION
    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
            result = result.unsqueeze(d)
    ties = (self == result).to(grad.dtype)
    return grad * ties / ties.sum(dims, keepdim=True)
    ### END SOLUTION

exercises.plug("05.amax_backward", amax_backward)

# %% [markdown]
# Your function serves `amin` too; PyTorch prints `tensor([[ 5.,  5.,  0.], [10.,  0., 10.]])`.
# `gradcheck` cannot judge a tie, where there is no derivative, but at distinct values it checks
# your function like any other rule:

# %%
w = ag.tensor([[1., 1., 3.], [2., 5., 2.]], requires_grad=True)
w.amin(1).backward(ag.tensor([10., 20.]))
print(w.grad)

t = ag.randn(2, 3, 4, dtype=ag.float64, requires_grad=True)
print("amax((0, 2)):", ag.autograd.gradcheck(lambda a: a.amax((0, 2)), (t,), raise_exception=False))
print("amin(1, keepdim=True):", ag.autograd.gradcheck(lambda a: a.amin(1, keepdim=True), (t,),
                                                     raise_exception=False))

# %% [markdown]
# **Tests.** Direct calls with ties, `keepdim` and minima, then backward through `amax` and
# `amin`, and `gradcheck` at distinct values.

# %% nbgrader={"grade": true, "grade_id": "05_amax_backward_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.amax_backward(amax_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import amax_backward_random

# The rules on random small integers (so most groups hold their extreme more than once).
amax_backward_random(amax_backward, grading.random_cases(seed=572, count=12))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "05_amax_backward_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.amax_backward_in_the_engine(amax_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.ops import amax_backward_in_the_engine_random

# Backward through x.amax(dims) and x.amin(dims) for random shapes and flags, with ties.
amax_backward_in_the_engine_random(amax_backward, grading.random_cases(seed=571, count=16))
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * **Broadcasting** reuses a value, so its gradients add up: `validate_outputs` sums every
#   gradient back to its input's shape (`sum_to`), as `expand`'s backward does.
# * **gradcheck** compares backward's Jacobian, a row per output element, with finite
#   differences, a column per input element, in float64.
# * **Sums and indexing** move values: a sum's gradient is copied back along the summed dims, an
#   index's added back into zeros, repeated picks adding up.
# * Many nodes save their **output**, in which the derivative is simplest; from it,
#   **log_softmax**'s gradient is finite for any logits.
# * **var** spreads its gradient over the group by each element's deviation; **amax** picks, and
#   tied extremes share equally.
#
# Next, in assignment 06: how long all these saved tensors live, and what backward frees.
