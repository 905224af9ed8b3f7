# %% [markdown]
# # Assignment 03: Backward, the chain rule one node at a time
#
# Assignment 02 wired the backward graph: every result of an op gets a `grad_fn`, whose
# `next_functions` point at the nodes of the op's inputs. Here you run that graph. By the end,
# **every `backward()` in `autograd_lib` runs an engine you wrote**; section 9 shows it on one screen.
#
# | exercise | what you write | points |
# |---|---|---|
# | 1 `numerical_grad` | finite differences, a second opinion on any gradient | 4 |
# | 2 `vjps` | the gradient rules of `+`, `*`, `**`, `mean`, `@` | 12 |
# | 3 `count_dependencies` | how many gradients each node waits for | 4 |
# | 4 `execute` | the loop, in PyTorch's order | 5 |
# | 5 `run_node` | one node: hooks, rule, memory | 5 |
# | 6 `run_backward` | the driver `backward()` calls, and the gradients it starts from | 8 |
# | | **total** | **38** |
#
# **How to work.** Each answer cell ends with `exercises.plug(...)`: from then on the library runs
# *your* function. A test cell says what was expected, what it saw, and which rule of the
# exercise's **Rules** list is broken (hidden tests run more cases). Stuck?
# `exercises.unplug("03.execute")` (any exercise's id) puts the library's version back.

# %% nbgrader={"grade": false, "grade_id": "03_setup", "locked": true, "schema_version": 3, "solution": false}
import inspect
import warnings

import numpy as np
import matplotlib.pyplot as plt

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.viz import draw_backward_steps, draw_graph
from autograd_course import grading
from autograd_course.checks import backward as check
from autograd_course.notebook import reveal

ag.manual_seed(0)
rng = np.random.default_rng(0)

# %% [markdown]
# ## 1. The chain rule on a graph
#
# `L.backward()` never differentiates the formula of `L` as a whole. It walks the graph the forward
# pass recorded, and each node handles the one small operation it stands for. Here `x.grad` is 3
# (PyTorch's output is in the comment): `L` depends on `x` directly, contributing $1$, and through
# `y`, contributing $\frac{\partial L}{\partial y}\cdot\frac{\partial y}{\partial x} = 1 \cdot 2$.
# Gradients arriving along different paths **add up**.

# %%
x = ag.tensor([2.0], requires_grad=True)
y = 2 * x + 5
L = y + x
L.backward()
print(x.grad)           # PyTorch: tensor([3.])
draw_graph(L, names={"x": x, "y": y, "L": L}, title="L = (2*x + 5) + x", figsize=(5.3, 6.2))

# %% [markdown]
# Backward runs from top to bottom: `L`'s `AddBackward0` starts with $\partial L / \partial L = 1$
# and passes it to both inputs; `y`'s passes it to `MulBackward0` (the constant `5` has no node), which
# multiplies by 2; `x`'s `AccumulateGrad` receives `1` and `2`. Each node turns the gradient of its
# **output** into the gradients of its **inputs**, knowing only its own operation.

# %% [markdown]
# ## 2. Vector-Jacobian products
#
# Take one op $y = f(x)$, $x \in \mathbb{R}^n$, $y \in \mathbb{R}^m$, with Jacobian
# $J_{ij} = \partial y_i / \partial x_j$. For a scalar loss $L$ the chain rule says
#
# $$\bar{x}_j = \frac{\partial L}{\partial x_j} = \sum_i \frac{\partial L}{\partial y_i}\,\frac{\partial y_i}{\partial x_j}
# \qquad\text{that is}\qquad \bar{x} = \bar{y}^{\top} J .$$
#
# $\bar{y}$ is what the node receives (we call it `grad`; it has the output's shape) and $\bar{x}$ what it
# sends on (the input's shape). This **vector-Jacobian product** (VJP) is all a backward node computes,
# and it never builds $J$. For elementwise `tanh`, $J$ is diagonal with $J_{ii} = 1 - \tanh^2(x_i)$, and
# the VJP is `grad * (1 - y**2)`. We can still build $J$, one backward pass per row ($\bar{y} = e_i$):

# %%
x = ag.linspace(-2, 2, 8).requires_grad_()
y = ag.tanh(x)

rows = []
for i in range(8):
    e_i = ag.zeros(8)
    e_i[i] = 1.0
    (row,) = ag.autograd.grad(y, x, grad_outputs=e_i, retain_graph=True)
    rows.append(row)
J = ag.stack(rows)                                     # 8 backward passes for an 8 x 8 matrix

v = ag.tensor([1.0, -1.0, 2.0, 0.5, 1.0, -2.0, 0.5, 1.0])
(vjp,) = ag.autograd.grad(y, x, grad_outputs=v)        # 1 backward pass
print("v @ J           :", v @ J)
print("one VJP         :", vjp)
print("v * (1 - y**2)  :", v * (1 - y.detach() ** 2))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), gridspec_kw={"width_ratios": [1, 1.4]})
image = left.imshow(J.numpy(), cmap="Blues")
left.set_title("Jacobian of tanh: 8 x 8 = 64 numbers")
fig.colorbar(image, ax=left, shrink=0.8)
right.bar(range(8), vjp.numpy(), color="tab:orange")
right.axhline(0, color="black", linewidth=0.8)
right.set_title("what backward needs: the VJP, 8 numbers")
right.set_xlabel("input element j")
plt.tight_layout()
plt.show()


# %% [markdown]
# For 8 elements the waste doesn't matter. For a realistic tensor (4 bytes per float32) it does:

# %%
def size(nbytes):
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if nbytes < 1000:
            return f"{nbytes:.0f} {unit}"
        nbytes /= 1000


for n in (10**3, 10**6):
    print(f"n = {n:>9,}:  Jacobian {n * n:.0e} entries = {size(4 * n * n):>6}"
          f"   VJP {n:.0e} entries = {size(4 * n):>6}")


# %% [markdown]
# A million activations would need a 4 TB Jacobian; the VJP takes 4 MB. One VJP per node gives the
# gradient with respect to *all* parameters, at about the cost of a forward pass or two.

# %% [markdown]
# ## 3. Checking gradients numerically
#
# How do you know a gradient is right? Compare it with the definition of the derivative. For $f$
# returning one number, move one element $x_j$ by $\varepsilon$ both ways:
#
# $$\frac{\partial f}{\partial x_j} \approx \frac{f(x + \varepsilon e_j) - f(x - \varepsilon e_j)}{2\varepsilon}$$
#
# This **central difference** is off by about $\frac{\varepsilon^2}{6} f'''$; the one-sided
# $\frac{f(x+\varepsilon e_j) - f(x)}{\varepsilon}$ by $\frac{\varepsilon}{2} f''$, much more. A tiny
# $\varepsilon$ does not help forever: $f$'s values are rounded to about 16 digits in float64, and
# dividing their difference by $\varepsilon$ magnifies the rounding. So gradient checks use **float64**
# and $\varepsilon \approx 10^{-6}$. `ag.autograd.gradcheck(fn, inputs)` (as in PyTorch) compares
# backward's Jacobian with finite differences computed by your function.

# %% [markdown]
# ### Exercise 1: `numerical_grad` (4 points)
#
# Write `numerical_grad(f, x, eps=1e-6)`. `f` takes a tensor shaped like `x` and returns a tensor of
# one element; return the central difference of `f` at `x` for every element of `x`. Example: for
# `f = lambda t: (t ** 3).sum()` and `x = ag.tensor([1.0, 2.0])`, the result is close to `[3., 12.]`
# (exactly $3x^2 + \varepsilon^2$).
#
# `x._data` is the NumPy array behind `x` (what `f(x)` reads).
#
# **Rules**
# - `central`: entry `j` is the central difference above, with the `eps` given, `x` moved in its own
#   dtype (a float32 `x` rounds `x_j + eps` as float32 does), for every element of `x` (any shape, 0-d
#   included).
# - `float64`: the result is a float64 tensor of `x`'s shape, whatever `x`'s dtype.
# - `restored`: afterwards `x` is exactly as before, bit for bit.
# - `no-graph`: inside `f`, `ag.is_grad_enabled()` is False: no call of `f` records a graph.

# %% nbgrader={"grade": false, "grade_id": "03_numerical_grad_answer", "locked": false, "schema_version": 3, "solution": true}
def numerical_grad(f, x, eps=1e-6):
    """Central differences of a scalar-valued f at x: a float64 tensor of x's shape.
    x is left exactly as it was."""
    ### BEGIN SOLUTION
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / (2 * eps)
    return ag.tensor(result)
    ### END SOLUTION

exercises.plug("03.numerical_grad", numerical_grad)

# %% [markdown]
# The analytic gradient of `tanh` (backward, through `TanhBackward0`) against your finite differences,
# then the error at $x = 0.5$ as $\varepsilon$ shrinks, for your central difference and a one-sided one:

# %%
xs = ag.linspace(-3, 3, 61, dtype=ag.float64).requires_grad_()
ag.tanh(xs).sum().backward()
analytic = xs.grad.numpy()
numerical = numerical_grad(lambda t: ag.tanh(t).sum(), xs.detach()).numpy()

point = ag.tensor([0.5], dtype=ag.float64)
exact = 1 - np.tanh(0.5) ** 2
epsilons = np.logspace(-13, -1, 49)
central = [abs(numerical_grad(lambda t: ag.tanh(t).sum(), point, eps).item() - exact) for eps in epsilons]
one_sided = [abs((np.tanh(0.5 + eps) - np.tanh(0.5)) / eps - exact) for eps in epsilons]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
left.plot(xs.detach().numpy(), analytic, label="backward (analytic)")
left.plot(xs.detach().numpy(), numerical, "o", markersize=3, label="central differences")
left.set_title(f"d tanh(x) / dx: largest difference {np.abs(analytic - numerical).max():.0e}")
left.legend()
right.loglog(epsilons, central, "o-", markersize=3, label="central: error ~ eps² (then rounding)")
right.loglog(epsilons, one_sided, "s-", markersize=3, label="one-sided: error ~ eps (then rounding)")
right.axvline(1e-6, color="grey", linestyle=":", label="default eps = 1e-6")
right.set_xlabel("eps")
right.set_title("|numerical - exact| at x = 0.5")
right.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# Right of the minimum, truncation dominates (slopes 2 and 1); left of it, rounding grows like
# $1/\varepsilon$.
#
# **Tests.** `check.numerical_grad` differentiates `sum(x**3)`, a float32 `x`, an `x` that requires
# grad, and runs `gradcheck` with your function. Hidden tests use random functions, shapes and steps.

# %% nbgrader={"grade": true, "grade_id": "03_numerical_grad_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.numerical_grad(numerical_grad)
### BEGIN HIDDEN TESTS
from autograd_course.notebook import call
from autograd_course.checks.backward import NUMERICAL

reference_numerical = exercises.reference("03.numerical_grad")
functions = [("sum(x**3)", lambda t: (t ** 3).sum()), ("mean(tanh(x) * x)", lambda t: (ag.tanh(t) * t).mean()),
             ("sum(sin(x))**2", lambda t: ag.sin(t).sum() ** 2), ("sum(exp(x / 2))", lambda t: (t / 2).exp().sum())]
for case in grading.random_cases(seed=308, count=6):
    shape = tuple(int(n) for n in case.integers(1, 4, size=int(case.integers(0, 3))))
    name, f = functions[int(case.integers(0, len(functions)))]
    eps = [1e-6, 1e-4, 1e-2][int(case.integers(0, 3))]
    dtype = [ag.float64, ag.float32][int(case.integers(0, 2))]
    values = np.asarray(case.standard_normal(shape))
    expected = reference_numerical(f, ag.tensor(values.copy(), dtype=dtype), eps)
    x = ag.tensor(values.copy(), dtype=dtype)
    before = x.numpy().copy()
    with grading.checking("03.numerical_grad", numerical_grad):
        seen = call(numerical_grad, f, x, eps, what=f"numerical_grad({name}, x, eps={eps}), x of shape {shape}",
                    rule=NUMERICAL("central"))
    grading.expect_true(isinstance(seen, ag.Tensor) and seen.dtype == ag.float64, what="the result's type and dtype",
                        seen=f"{type(seen).__name__} {getattr(seen, 'dtype', '')}", rule=NUMERICAL("float64"))
    grading.expect_close(seen, expected, rtol=1e-6, atol=1e-8,
                         what=f"numerical_grad({name}, x, eps={eps}) for x of shape {shape}", rule=NUMERICAL("central"))
    grading.expect_true(bool(np.array_equal(x.numpy(), before)), what=f"x after numerical_grad({name}, x, eps={eps})",
                        seen=str(x.numpy().tolist()), rule=NUMERICAL("restored"))
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Gradient rules, derived and checked
#
# Every backward node has a rule in `derivatives/` (PyTorch keeps its rules in `derivatives.yaml`).
# Here a rule is a Python function `rule(grad, *values)`:
#
# * `grad` is $\bar{y}$, with the output's shape;
# * `values` are what the rule needs, named after the op's arguments (`self`, `other`, `mat2`,
#   `exponent`, or `self_shape` for the input's shape), saved by the op when it ran forward (PyTorch
#   shows them as `grad_fn._saved_self`, ...);
# * it returns one gradient per input, in input order: a tuple, or the tensor alone for an op with
#   one input.
#
# The engine does the rest: it drops the gradients of inputs that need none, and sums a gradient
# back to its input's shape where the forward pass broadcast (assignment 05). Rules run with grad
# mode off (unless `create_graph=True`), so nothing inside them is recorded.

# %% [markdown]
# ### Exercise 2: `vjps` (12 points)
#
# Derive the VJP of each op below from its mathematics (section 2), write it, and check it with
# `gradcheck` before you run the tests (the cell after the answer does). `a`, `b`, `x` are tensors of
# one shape (the engine handles broadcasting); $n$ is a Python number.
#
# | rule | the op | what it is given |
# |---|---|---|
# | `add_backward(grad)` | $y_i = a_i + b_i$ | nothing but `grad` |
# | `mul_backward(grad, self, other)` | $y_i = a_i\, b_i$ | both inputs |
# | `pow_backward(grad, self, exponent)` | $y_i = x_i^{\,n}$ | the input and $n$ |
# | `mean_backward(grad, self_shape)` | $m = \frac{1}{N}\sum_j x_j$ over all $N$ elements | `grad` is 0-d; only $x$'s shape, a tuple |
# | `mm_backward(grad, self, mat2)` | $C_{ij} = \sum_l A_{il} B_{lj}$, $A$ of shape $(n, k)$, $B$ of $(k, m)$ | both matrices (`t.T` transposes) |
#
# One case is PyTorch's choice rather than calculus: `x ** 0` is the constant 1, and for `exponent == 0`
# PyTorch's gradient is 0 everywhere, at $x = 0$ too, where $n x^{n-1}$ would be $0 \cdot \infty$.
# A worked example to check by hand: for `Q = 3*a**3 - b**2` with `a = [2., 3.]`, `b = [6., 4.]` and
# `Q.backward(gradient=ag.tensor([1., 1.]))`, PyTorch gives `a.grad = [36., 81.]`, `b.grad = [-12., -8.]`.
#
# **Rules**
# - `tuple`: a rule returns one gradient per input of its op, in input order: a tuple of two for
#   `add`, `mul` and `mm`, the tensor alone for `pow` and `mean`.
# - `add`: `add_backward` is the VJP of the sum, for each input.
# - `mul`: `mul_backward` is the VJP of the elementwise product, for each input.
# - `pow`: `pow_backward` is the VJP of $x^n$, for any number $n$ (negative, fractional).
# - `pow-zero`: for `exponent == 0` the gradient is 0 everywhere, even at $x = 0$.
# - `mean`: `mean_backward` is the VJP of the mean: a tensor of shape `self_shape`, for any shape
#   (`()` included).
# - `mm`: `mm_backward` is the VJP of the matrix product: gradients of `self`'s and `mat2`'s shapes
#   (calling the library's `mm_mat1_backward` or `mm_mat2_backward` is a `DelegationError`).
# - `any-grad`: each rule holds for any incoming `grad`, not only ones.
# - `together`: plugged in, the five rules give `backward()` PyTorch's gradients through any
#   composition of the five ops.

# %% nbgrader={"grade": false, "grade_id": "03_vjps_answer", "locked": false, "schema_version": 3, "solution": true}
def add_backward(grad):
    """The VJP of self + other: (gradient of self, gradient of other)."""
    ### BEGIN SOLUTION
    return grad, grad
    ### END SOLUTION


def mul_backward(grad, self, other):
    """The VJP of self * other (elementwise): (gradient of self, gradient of other)."""
    ### BEGIN SOLUTION
    return grad * other, grad * self
    ### END SOLUTION


def pow_backward(grad, self, exponent):
    """The VJP of self ** exponent for a number exponent: the gradient of self."""
    ### BEGIN SOLUTION
    if exponent == 0:
        return ag.zeros_like(self)
    return grad * exponent * self ** (exponent - 1)
    ### END SOLUTION


def mean_backward(grad, self_shape):
    """The VJP of self.mean() over all elements: the gradient of self, of shape self_shape."""
    ### BEGIN SOLUTION
    numel = int(np.prod(self_shape))
    return grad.expand(self_shape) / numel
    ### END SOLUTION


def mm_backward(grad, self, mat2):
    """The VJP of self @ mat2 for matrices: (gradient of self, gradient of mat2)."""
    ### BEGIN SOLUTION
    return grad @ mat2.T, self.T @ grad
    ### END SOLUTION


exercises.plug("03.add_backward", add_backward)
exercises.plug("03.mul_backward", mul_backward)
exercises.plug("03.pow_backward", pow_backward)
exercises.plug("03.mean_backward", mean_backward)
exercises.plug("03.mm_backward", mm_backward)

# %% [markdown]
# Every `+`, `*`, `**`, `mean` and `@` now uses your rules. `gradcheck` compares each with your
# finite differences (PyTorch prints `True` for each), then the worked example:

# %%
a = ag.randn(3, 4, dtype=ag.float64, requires_grad=True)
b = ag.randn(3, 4, dtype=ag.float64, requires_grad=True)
m = ag.randn(4, 2, dtype=ag.float64, requires_grad=True)
ops = {"a + b": lambda a, b, m: a + b, "a * b": lambda a, b, m: a * b,
       "a ** 3 and ** -1": lambda a, b, m: a ** 3 + (b * b + 1) ** -1, "a.mean()": lambda a, b, m: a.mean(),
       "a @ m": lambda a, b, m: a @ m}
for name, fn in ops.items():
    print(f"{name:18}", ag.autograd.gradcheck(fn, (a, b, m), raise_exception=False))

a = ag.tensor([2., 3.], requires_grad=True)
b = ag.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
Q.backward(gradient=ag.tensor([1., 1.]))
print(a.grad, b.grad)                   # PyTorch: tensor([36., 81.]) tensor([-12.,  -8.])
x = ag.tensor([0., 1., 2.], requires_grad=True)
(x ** 0).sum().backward()
print(x.grad)                           # PyTorch: tensor([0., 0., 0.])

# %% [markdown]
# **Tests.** A test cell per rule grades it alone (values worked out by hand, then `backward()`); the
# last grades the five together. Hidden tests use random shapes, values and exponents.

# %% nbgrader={"grade": true, "grade_id": "03_vjps_test_add", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.add_rule(add_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import vjp_cases

vjp_cases("03.add_backward", add_backward, seed=301)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "03_vjps_test_mul", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.mul_rule(mul_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import vjp_cases

vjp_cases("03.mul_backward", mul_backward, seed=302)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "03_vjps_test_pow", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.pow_rule(pow_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import vjp_cases

vjp_cases("03.pow_backward", pow_backward, seed=303)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "03_vjps_test_mean", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.mean_rule(mean_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import vjp_cases

vjp_cases("03.mean_backward", mean_backward, seed=304)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "03_vjps_test_mm", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.mm_rule(mm_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import vjp_cases

vjp_cases("03.mm_backward", mm_backward, seed=305)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "03_vjps_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.vjps(add_backward, mul_backward, pow_backward, mean_backward, mm_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import compositions

compositions({"03.add_backward": add_backward, "03.mul_backward": mul_backward, "03.pow_backward": pow_backward,
              "03.mean_backward": mean_backward, "03.mm_backward": mm_backward}, seed=312)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. When may a node run?
#
# In the worked example, `x`'s `AccumulateGrad` receives **two** gradients. A node must wait until
# every gradient flowing into it has arrived and been summed, or it would pass on a partial sum. So
# before the pass starts, PyTorch's engine counts how many gradients each node waits for (C++
# `compute_dependencies`), and the loop of section 6 uses the counts. Those of the worked example,
# from the library's own function:

# %%
count_reference = exercises.reference("03.count_dependencies")

x = ag.tensor([2.0], requires_grad=True)
y = 2 * x + 5
L = y + x
label = {y.grad_fn: "y.grad_fn", y.grad_fn.next_functions[0][0]: "the node of 2 * x",
         L.grad_fn.next_functions[1][0]: "x's AccumulateGrad"}
for node, count in count_reference([L.grad_fn]).items():
    print(f"{type(node).__name__:>15} ({label[node]}): {count} edge(s) in")

# %% [markdown]
# Graphs get deep: an RNN unrolled over a long sequence, or a loop, makes chains of thousands of
# nodes, and Python allows only about 1 000 nested calls (the cell prints its limit).
# A chain of 10 000 additions:

# %%
import sys
print("Python's limit on nested calls:", sys.getrecursionlimit())

start = ag.tensor(1.0, requires_grad=True)
chain_end = start
for _ in range(10_000):
    chain_end = chain_end + 1.0
print("chain_end.grad_fn:", chain_end.grad_fn.name(), "with 10 000 nodes below it")


# %% [markdown]
# ### Exercise 3: `count_dependencies` (4 points)
#
# Write `count_dependencies(roots)`: `roots` is a list of nodes; return a dict mapping every node reachable
# from them to the number of edges pointing into it. PyTorch's engine walks with no recursion, so
# `chain_end.backward()` works on the chain above; yours must too. In the worked example the dict holds
# `y.grad_fn: 1`, the `MulBackward0`: 1, `x`'s `AccumulateGrad`: 2, and not `L.grad_fn`.
#
# **Rules**
# - `edges`: a node's count is the number of edges pointing into it from the nodes reachable from the
#   roots, each edge counted once however many paths lead to it (in `x * x`, two edges point into
#   `x`'s `AccumulateGrad`).
# - `only-pointed`: only nodes that some edge points into are in the dict (a root only if another
#   root points into it); the `(None, 0)` entries of `next_functions` are not nodes.
# - `deep`: it works on a graph of any depth (the tests walk a chain of 20 000 nodes).

# %% nbgrader={"grade": false, "grade_id": "03_count_dependencies_answer", "locked": false, "schema_version": 3, "solution": true}
def count_dependencies(roots):
    """{node: number of edges pointing into it} for every node reachable from the roots
    (nodes), on graphs of any depth."""
    ### BEGIN SOLUTION
    dependencies = {}
    seen = set(roots)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies
    ### END SOLUTION

exercises.plug("03.count_dependencies", count_dependencies)

# %% [markdown]
# The engine now counts with your function: the worked example, then `backward()` through the
# 10 000-node chain (PyTorch's output is in the comments):

# %%
x = ag.tensor([2.0], requires_grad=True)
y = 2 * x + 5
L = y + x
print(sorted((type(node).__name__, count) for node, count in count_dependencies([L.grad_fn]).items()))
L.backward()
print("x.grad =", x.grad)                # PyTorch: x.grad = tensor([3.])

chain_end.backward()
print("start.grad =", start.grad)        # PyTorch: start.grad = tensor(1.)
del chain_end                      # free the long chain

# %% [markdown]
# **Tests.** `check.count_dependencies` counts the worked example, a 20 000-node chain, a ladder
# `y = y + y`, and runs `backward()`. Hidden tests count random graphs, some thousands of nodes deep.

# %% nbgrader={"grade": true, "grade_id": "03_count_dependencies_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.count_dependencies(count_dependencies)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import random_counts

random_counts(count_dependencies, seed=306)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. The loop
#
# `execute` is the pass itself: from where the starting gradients enter, it runs every node they
# reach, each once, on the sum of what reached it (the two paths to `x` meet), and only when nothing
# more can reach it: the counts of section 5 say when that is. Among the nodes that may run, PyTorch
# runs the **newest** first (the largest `_sequence_nr`, PyTorch's
# `grad_fn._sequence_nr()`); every `AccumulateGrad` has the largest number of all, so a leaf gets its
# gradient as soon as it is complete. The order never changes the gradients; it decides when hooks run.
#
# `draw_backward_steps` (`autograd_lib.viz`, for PyTorch's tensors too) draws a pass step by step: each
# node's count and buffer, the queue under each panel. The library's loop on the worked example:

# %%
x = ag.tensor([2.0], requires_grad=True)
L = (2 * x + 5) + x
draw_backward_steps(L, names={"x": x}, title="L = (2*x + 5) + x: the library's loop")

# %% [markdown]
# **Predict, then run.** In `L = (x * 2 + x.exp()).sum()`, `SumBackward0` runs, then `AddBackward0`;
# then both `MulBackward0` (of `x * 2`) and `ExpBackward0` are ready. Which runs next? Write its name.

# %%
prediction = ...  # "MulBackward0" or "ExpBackward0"

# %%
x = ag.tensor([0.5, -1.0], requires_grad=True)
L = (x * 2 + x.exp()).sum()
order = []
for node in (L.grad_fn, L.grad_fn.next_functions[0][0], *[n for n, _ in L.grad_fn.next_functions[0][0].next_functions]):
    node.register_hook(lambda grad_inputs, grad_outputs, node=node: order.append(node.name()))
L.backward()
print(order)        # PyTorch: ['SumBackward0', 'AddBackward0', 'ExpBackward0', 'MulBackward0']
reveal(prediction, order[2], why="x * 2 was recorded before x.exp(), so ExpBackward0 is newer: "
       "the newest ready node runs first")


# %% [markdown]
# > **Aside.** Several `AccumulateGrad` nodes are often ready together, with equal numbers. PyTorch
# > keeps the nodes that may run in a C++ `std::priority_queue` (a binary heap) that compares the
# > numbers alone, and its order among equal numbers is part of what you match:
# > `ag.stack([e, b, d, a, c]).sum()` runs the leaves' hooks in the order `e, d, c, b, a` in PyTorch,
# > neither the order of creation nor its reverse.

# %% [markdown]
# ### Exercise 4: `execute` (5 points)
#
# Write `execute(root_edges, root_grads, dependencies, run_node)`; it returns None.
#
# * `root_edges`: where each starting gradient enters the graph, a `(node, output_nr)` pair each, as in
#   `next_functions`; `root_grads`: the starting gradients, in the same order.
# * `dependencies`: the counts, `{node: edges into it}`, for the nodes this pass may visit besides the
#   roots; you may change the dict.
# * `run_node(node, grads)` runs one node on the list of gradients summed at its outputs (one per output,
#   `node.num_outputs` of them, None where nothing arrived), or on None when nothing arrived at all, and
#   returns its input gradients, one per edge of `node.next_functions` (None where nothing flows).
#
# Example: with `run_node` stand-ins that pass on twice what they got, roots `[(R, 0)]`, gradient `1.0`, R
# pointing into A and B, both pointing into D, R, A, B, D numbered 4, 2, 3, 1: the nodes run R, B, A, D,
# and D runs on `[8.0]`.
#
# **Rules**
# - `roots`: a root node runs on the sum of the starting gradients that enter it (a node listed twice
#   runs once), and not before every other node that reaches it has run.
# - `once`: every node the pass reaches runs exactly once, only after every edge into it counted in
#   `dependencies` has delivered, on what reached each of its outputs (None if nothing arrived at all).
# - `sum`: gradients reaching the same output of a node add up; the edge's `output_nr` says which output.
# - `count-none`: an edge that carries None has delivered too: a node reached only by Nones still runs.
# - `skip`: a node not in `dependencies` (None, or a node this pass does not visit) never runs, unless
#   it is a root.
# - `newest`: among the nodes that may run, the one with the largest `_sequence_nr` runs first.
# - `ties`: nodes with equal numbers run in PyTorch's order (the aside).
# - `deep`: it works on graphs of any depth (5 000 nodes in the hidden tests).

# %% nbgrader={"grade": false, "grade_id": "03_execute_answer", "locked": false, "schema_version": 3, "solution": true}
def execute(root_edges, root_grads, dependencies, run_node):
    """Run every node the pass reaches once, as soon as all the gradients flowing into it
    have arrived, the newest ready node first. Returns None."""
    ### BEGIN SOLUTION
    import heapq

    class Ready:                          # heapq pops the smallest entry: the newest is "smallest"
        def __init__(self, node):
            self.node = node

        def __lt__(self, other):
            return self.node._sequence_nr > other.node._sequence_nr

    buffers = {}                          # node -> [the gradient summed so far at each output]

    def arrive(node, nr, grad):
        slots = buffers.setdefault(node, [None] * node.num_outputs)
        slots[nr] = grad if slots[nr] is None else slots[nr] + grad

    for (node, nr), grad in zip(root_edges, root_grads):
        arrive(node, nr, grad)
    ready = []
    for node in dict.fromkeys(node for node, _ in root_edges):
        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, Ready(node))
    while ready:
        node = heapq.heappop(ready).node
        grads = buffers.pop(node, None)
        for (next_node, nr), grad in zip(node.next_functions, run_node(node, grads)):
            if next_node not in dependencies:
                continue
            if grad is not None:
                arrive(next_node, nr, grad)
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                heapq.heappush(ready, Ready(next_node))
    ### END SOLUTION

exercises.plug("03.execute", execute)

# %% [markdown]
# Every backward pass now runs your loop. Here it is on a graph with two leaves and two paths to `a`
# (draw the same picture with PyTorch's tensors: it should match):

# %%
a = ag.tensor([1.0, 2.0], requires_grad=True)
b = ag.tensor([3.0, -1.0], requires_grad=True)
out = ((a * b).exp() + a * 3.0).sum()
draw_backward_steps(out, names={"a": a, "b": b}, title="out = (exp(a * b) + a * 3).sum(): your loop")

# %% [markdown]
# **Tests.** `check.execute` runs your loop on stand-in nodes whose `run_node` records what it got
# (did the root run, a diamond, two outputs, None edges, repeated roots), then real passes, comparing
# the order of hooks with PyTorch's. Hidden tests use random graphs, `inputs=` and 5 000 nodes.

# %% nbgrader={"grade": true, "grade_id": "03_execute_test", "locked": true, "points": 5, "schema_version": 3, "solution": false}
check.execute(execute)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import random_loops

random_loops(execute, seed=309)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. One node: `run_node`
#
# A node does more than apply its rule. Four places let your code watch or change the gradients:
#
# | registered with | called as | may return |
# |---|---|---|
# | `y.register_hook(fn)`, `y` an output of the node | `fn(grad)` | a tensor replacing `y`'s gradient |
# | `y.retain_grad()` | keeps `y`'s gradient in `y.grad` | |
# | `y.grad_fn.register_prehook(fn)` | `fn(grad_outputs)` | a tuple replacing them |
# | `y.grad_fn.register_hook(fn)` | `fn(grad_inputs, grad_outputs)` | a tuple replacing `grad_inputs` |
#
# The node also fits each input gradient to its input (a broadcast input's gradient is summed back:
# 05) and, unless `retain_graph=True`, frees the tensors it saved (06). In which order? What each hook
# below saw tells you what ran before it (`s` is 0-d, broadcast in `x * s`):

# %%
x = ag.tensor([2.0, 3.0], requires_grad=True)
s = ag.tensor(1.5, requires_grad=True)
y = x * s
log = []
y.register_hook(lambda g: (log.append(f"tensor hook: {g.tolist()}"), g * 10)[1])
y.retain_grad()
y.grad_fn.register_prehook(lambda go: log.append(f"pre-hook: {[g.tolist() for g in go]}"))
y.grad_fn.register_hook(lambda gi, go: log.append(f"post-hook: {[g.tolist() for g in gi]} for "
                                                  f"{[g.tolist() for g in go]}, saved x {y.grad_fn._saved_self.tolist()}"))
y.sum().backward()
print(*log, sep="\n")
print("y.grad:", y.grad, " s.grad:", s.grad)
# PyTorch: tensor hook: [1.0, 1.0]
#          pre-hook: [[10.0, 10.0]]
#          post-hook: [[15.0, 15.0], 50.0] for [[10.0, 10.0]], saved x [2.0, 3.0]
#          y.grad: tensor([10., 10.])  s.grad: tensor(50.)

# %% [markdown]
# Four more experiments: gradients that are None (an output nobody used, an input that is a constant,
# a node that no gradient reaches at all: `Drop`, a custom `autograd.Function` (06), sends nothing back),
# a pass with `inputs=` (04), and a debugging check (`detect_anomaly` refuses NaN gradients):

# %%
w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = w * ag.tensor([5.0, 7.0, 9.0])                  # a constant: its edge is (None, 0)
p, q, r = y.unbind()
p.grad_fn.register_prehook(lambda go: print("UnbindBackward0 pre-hook:", go))
y.grad_fn.register_hook(lambda gi, go: print("MulBackward0 post-hook:", gi))
(p * 3).backward()
# PyTorch: UnbindBackward0 pre-hook: (tensor(3.), None, None)
#          MulBackward0 post-hook: (tensor([15.,  0.,  0.]), None)

class Drop(ag.autograd.Function):                   # its backward sends nothing back
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return None


e = w.exp()
e.grad_fn.register_prehook(lambda go: print("ExpBackward0 pre-hook:", go))
e.grad_fn.register_hook(lambda gi, go: print("ExpBackward0 post-hook:", gi))
Drop.apply(e).sum().backward()
# PyTorch: ExpBackward0 pre-hook: (None,)
#          ExpBackward0 post-hook: (None,)

a = ag.tensor([1.0, 2.0], requires_grad=True)
b = ag.tensor([3.0, -1.0], requires_grad=True)
h = a * b
out = (h.exp() + a * 3.0).sum()
ran = []
for node in (out.grad_fn, out.grad_fn.next_functions[0][0], h.grad_fn, h.grad_fn.next_functions[0][0]):
    node.register_hook(lambda gi, go, node=node: ran.append(node.name()))
print(ag.autograd.grad(out, [h], retain_graph=True), ran)
ran.clear()
out.backward(inputs=[b])
print(ran, a.grad, b.grad)
# PyTorch: (tensor([20.0855,  0.1353]),) ['SumBackward0', 'AddBackward0']
#          ['SumBackward0', 'AddBackward0', 'MulBackward0'] None tensor([20.0855,  0.2707])

x = ag.tensor([2.0, 3.0], requires_grad=True)
y = x * x
y.grad_fn.register_hook(lambda gi, go: (gi[0] * float("nan"), gi[1]))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")                 # anomaly mode warns when it starts
    with ag.autograd.detect_anomaly():
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(error)                            # PyTorch: Function 'MulBackward0' returned nan values in its 0th output.
try:
    y.sum().backward()
except RuntimeError as error:
    print(str(error)[:52])                          # PyTorch: Trying to backward through the graph a second time

# %% [markdown]
# **Predict, then run.** `L = (x * x).sum()` has run `L.backward()` once. What does a second
# `L.backward()` do? Write `"works"`, or the name of the error it raises.

# %%
prediction = ...  # "works" or an error's name, such as "RuntimeError"

# %%
x = ag.tensor([2.0, 3.0], requires_grad=True)
L = (x * x).sum()
L.backward()
try:
    L.backward()
    actual = "works"
except RuntimeError as error:
    actual = type(error).__name__
    print(str(error)[:120], "...")
reveal(prediction, actual, why="MulBackward0 freed the two tensors it saved when it ran; "
       "L.backward(retain_graph=True) keeps them for a second pass")


# %% [markdown]
# ### Exercise 5: `run_node` (5 points)
#
# Write `run_node(task, node, grads)`: run one node on `grads`, the gradients summed at its outputs
# (None where nothing arrived; None alone when nothing arrived at all), and return its input gradients,
# a list with one entry per edge of `node.next_functions`. Every hook, `.grad` and later `backward()`
# must see what PyTorch's do in this section's cells: work out from them when each piece runs.
# Example: for `y = a * b`, `a = [1., 2.]`, `b = [3., -1.]`, a pre-hook returning `(go[0] * 10,)` and a
# post-hook returning `(gi[0] * 2, gi[1])`, `run_node(task, y.grad_fn, [ag.ones(2)])` returns
# `[[60., -20.], [10., 20.]]`.
#
# What exists (a reference, not an order):
#
# | | |
# |---|---|
# | `node.apply(grads)` | the node's rule: input gradients, not yet fitted to the inputs |
# | `node.num_outputs` | how many outputs the node has |
# | `node._node_prehooks`, `node._hooks` | None, or dicts of its pre-hooks, post-hooks (values, in registration order) |
# | `node.release_saved`, a method | frees what the node saved |
# | `task.runs(node, grads)` | whether this pass runs the node (with `inputs=`, some only deliver: 04) |
# | `task.retain_graph` | the pass's `retain_graph` |
# | `ag.engine.call_tensor_hooks(node, grads)` | the tensor hooks and `retain_grad` of its outputs (04): what they leave |
# | `ag.engine.validate_outputs(node, grad_inputs)` | input gradients fitted to their inputs (05) |
# | `ag.engine.hook_result(hook, returned, grads)` | what a node hook's return leaves, or PyTorch's error |
# | `ag.engine.NODE_CHECKS` | functions `check(node, grad_inputs)` of debugging modes |
#
# **Rules**
# - `nothing`: when nothing arrived at all, the node still runs, as PyTorch's: its hooks and its rule
#   get None for each output (the rule decides what flows: a built-in node's sends None along every
#   edge, a custom Function's calls its `backward`), and the rules below hold as for any node.
# - `task`: a node that `task.runs` says this pass does not run (with `inputs=`) calls no node hook
#   and sends None along every edge; its outputs' tensor hooks still run, once, as PyTorch's do
#   (`task.runs` calls them for such a node); `autograd.grad` still returns what reached its inputs.
# - `order`: each hook, the rule and each check get what PyTorch's get: every earlier replacement, and
#   (post-hooks, checks) gradients already of their inputs' shapes (`50.0`).
# - `replace`: hooks of one kind run in registration order; one returning None changes nothing, a tuple
#   replaces the gradients for all that follows (a bad one raises PyTorch's error).
# - `free`: unless `task.retain_graph`, a later `backward()` through the node says the graph was freed,
#   even after a check refused its gradients; its post-hooks can still read what it saved.
# - `slots`: the engine's pieces are reached through `ag.engine`, never a copy taken at import.

# %% nbgrader={"grade": false, "grade_id": "03_run_node_answer", "locked": false, "schema_version": 3, "solution": true}
def run_node(task, node, grads):
    """Run one node of the pass on the gradients summed at its outputs (None: nothing
    arrived); return its input gradients, one per edge of node.next_functions."""
    ### BEGIN SOLUTION
    if grads is None:
        grads = [None] * node.num_outputs
    if not task.runs(node, grads):
        return [None] * len(node.next_functions)
    grads = ag.engine.call_tensor_hooks(node, grads)
    for hook in list((node._node_prehooks or {}).values()):
        grads = ag.engine.hook_result(hook, hook(tuple(grads)), grads)
    grad_inputs = ag.engine.validate_outputs(node, list(node.apply(grads)))
    for hook in list((node._hooks or {}).values()):
        grad_inputs = ag.engine.hook_result(hook, hook(tuple(grad_inputs), tuple(grads)), grad_inputs)
    if not task.retain_graph:
        node.release_saved()
    for check_node in ag.engine.NODE_CHECKS:
        check_node(node, grad_inputs)
    return grad_inputs
    ### END SOLUTION

exercises.plug("03.run_node", run_node)

# %% [markdown]
# Your `run_node` runs every node now: the hooks of this section again, a post-hook that replaces a
# gradient, and the second backward (PyTorch's output in the comments):

# %%
x = ag.tensor([2.0, 3.0], requires_grad=True)
y = x * x
log = []
y.register_hook(lambda g: log.append(f"tensor hook on y: {g.tolist()}"))
y.grad_fn.register_prehook(lambda go: log.append(f"pre-hook: {[g.tolist() for g in go]}"))
y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))       # only the first path, times 10
y.sum().backward(retain_graph=True)
print(*log, sep="\n")
print(x.grad)                          # PyTorch: tensor([20., 30.])
y.sum().backward()                     # retained: a second pass works, and frees the graph
try:
    y.sum().backward()
except RuntimeError as error:
    print(str(error)[:52])             # PyTorch: Trying to backward through the graph a second time

# %% [markdown]
# **Tests.** `check.run_node` calls your function on a real node with a stand-in task (nothing arrived,
# a skipped node, the order of every event, replacing hooks, `retain_graph`), then real passes. Hidden
# tests put random hooks on random graphs, some behind a Function that sends nothing back.

# %% nbgrader={"grade": true, "grade_id": "03_run_node_test", "locked": true, "points": 5, "schema_version": 3, "solution": false}
check.run_node(run_node)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import broadcast_hooks, nothing_arrives, random_nodes

random_nodes(run_node, seed=313)
broadcast_hooks(run_node, seed=315)
nothing_arrives(run_node, seed=317)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. The driver
#
# `backward()` and `autograd.grad()` call one function, the driver. A scalar loss starts from
# $\partial L / \partial L = 1$; a tensor `Q` of several elements has no single gradient:
# `Q.backward(gradient=v)` computes $v^{\top} J$, the gradient of $\sum_i v_i Q_i$. PyTorch checks
# what it is given first (its errors are in the comments):

# %%
a = ag.tensor([2., 3.], requires_grad=True)
Q = 3 * a ** 3
for attempt in (lambda: Q.backward(),
                lambda: Q.backward(gradient=ag.tensor([1., 1., 1.])),
                lambda: ag.autograd.grad(Q, a, grad_outputs=[np.ones(2)])):
    try:
        attempt()
    except (RuntimeError, TypeError) as error:
        print(f"{type(error).__name__}: {error}")
# PyTorch: RuntimeError: grad can be implicitly created only for scalar outputs
#          RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([2]).
#          TypeError: gradients can be either Tensors or None, but got ndarray

# %% [markdown]
# Where each starting gradient enters, in which dtype, in which grad mode the rules run (with
# `create_graph=True` they record: a gradient can be differentiated again), which error comes first:
# PyTorch's answers, with hooks that print what they see:

# %%
w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
p, q, r = w.unbind()                                      # one node, outputs 0, 1, 2
ag.autograd.backward([r, p], [None, ag.tensor(2.0)])
print(w.grad)                                             # PyTorch: tensor([2., 0., 1.])

u = w * 2
u.register_hook(lambda g: print(g.dtype, "grad mode", ag.is_grad_enabled()))
u.backward(gradient=ag.tensor([1, 3, 5]))                 # PyTorch: torch.float32 grad mode False
x = ag.tensor(3.0, requires_grad=True)
cube = x ** 3
cube.register_hook(lambda g: print(g.dtype, "grad mode", ag.is_grad_enabled()))
(dy_dx,) = ag.autograd.grad(cube, x, create_graph=True)   # PyTorch: torch.float32 grad mode True
print(dy_dx)                                              # PyTorch: tensor(27., grad_fn=<MulBackward0>)
dy_dx.backward()
print(x.grad)                                             # PyTorch: tensor(18.)

v = ag.tensor([1.0, -1.0], requires_grad=True)
for roots in ([ag.tensor(1.0), v * 2], [v.sum(), ag.ones(2)]):
    try:
        ag.autograd.backward(roots)                       # no gradients given
    except RuntimeError as error:
        print(error)
# PyTorch: grad can be implicitly created only for scalar outputs
#          element 1 of tensors does not require grad and does not have a grad_fn

# %% [markdown]
# ### Exercise 6: `run_backward` (8 points)
#
# Write `run_backward(task, roots, grad_outputs)`, the driver of `backward()` and `autograd.grad()`:
# `roots` is a list of tensors, `grad_outputs` a list of the same length (a gradient or None each),
# `task` what the pass was asked for. Run the whole pass so that every `.grad`, hook and error is
# PyTorch's in the cells of this section and of section 7; return None. Write with it the slot
# `initial_gradients(outputs, grad_outputs)` (same two lists; tested alone too): the list of starting
# gradients, one per output, as PyTorch makes them, or PyTorch's error for the first pair it refuses.
#
# What exists (a reference, not an order):
#
# | | |
# |---|---|
# | `ag.engine.initial_gradients`, `count_dependencies`, `execute`, `run_node` | the slots: yours above, exercises 3, 4, 5 |
# | `t._gradient_edge()` | the `(node, output_nr)` where `t`'s gradient enters the graph (02) |
# | `task.start(root_edges, root_grads, dependencies)` | the pass begins: given where the starting gradients enter, the gradients and the counts below the roots' nodes, returns the three as the pass needs them (trimmed for `inputs=`: 04) |
# | `task.create_graph`, `task.retain_graph` | what the pass was asked for |
#
# **Rules**
# - `starts`: `initial_gradients` gives None and an output of one element (whatever its shape) ones
#   like the output, and uses a given tensor of the output's shape as it is, whatever its dtype.
# - `refused`: what PyTorch refuses in this section's first cell raises its error, with the position
#   of the first refused pair, the type's name, shapes as `str(t.shape)` prints them
#   (`autograd_lib.Size([3])`); None for an output of several elements that does not require grad is
#   not refused there: it gets ones, and the driver refuses it (the cell above).
# - `start`: the driver's starting gradients are `ag.engine.initial_gradients`'s, and when two problems
#   meet, the error is PyTorch's (the cell above).
# - `requires-grad`: a root that does not require grad raises PyTorch's error of the cell above, with
#   its position in `roots`.
# - `edges`: each starting gradient arrives where its root's gradient would (`w.grad` above; a leaf
#   root gets it in its `.grad`).
# - `dtype`: what arrives has its root's dtype, whatever the gradient given (the hook on `u`).
# - `inputs`: with `inputs=`, only what leads to an input runs (section 7: `grad(out, [h])`,
#   `backward(inputs=[b])`).
# - `loop`: every node below the roots runs once, in exercise 4's order, as exercise 5 runs a node of
#   this pass.
# - `grad-mode`: hooks and rules run with grad mode on exactly when the pass was asked for
#   `create_graph=True`, whatever the caller's mode.
# - `slots`: the pieces are reached through `ag.engine`, never a copy taken at import or the
#   notebook's own functions.

# %% nbgrader={"grade": false, "grade_id": "03_run_backward_answer", "locked": false, "schema_version": 3, "solution": true}
def initial_gradients(outputs, grad_outputs):
    """The gradients backward starts from, one per output: ones for a single-element output
    given None, the given tensors checked against their outputs, as PyTorch."""
    ### BEGIN SOLUTION
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ag.ones_like(out))
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        else:
            grads.append(g)
    return grads
    ### END SOLUTION


def run_backward(task, roots, grad_outputs):
    """The driver of one backward pass: from the roots and their gradients (a tensor or
    None each) to every node run. Returns None."""
    ### BEGIN SOLUTION
    root_grads = ag.engine.initial_gradients(roots, grad_outputs)
    root_edges = []
    for i, root in enumerate(roots):
        if not root.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        root_edges.append(root._gradient_edge())
    root_grads = [g.to(root.dtype) for root, g in zip(roots, root_grads)]
    dependencies = ag.engine.count_dependencies([node for node, _ in root_edges])
    root_edges, root_grads, dependencies = task.start(root_edges, root_grads, dependencies)
    with ag.set_grad_enabled(task.create_graph):
        ag.engine.execute(root_edges, root_grads, dependencies,
                          lambda node, grads: ag.engine.run_node(task, node, grads))
    ### END SOLUTION


exercises.plug("03.initial_gradients", initial_gradients)
exercises.plug("03.run_backward", run_backward)

# %% [markdown]
# The driver at work: a leaf as the root, and `autograd.grad`, which fills no `.grad` (PyTorch's
# output in the comments):

# %%
leaf = ag.tensor([1.0, 2.0], requires_grad=True)
leaf.backward(gradient=ag.tensor([1.0, 0.5], dtype=ag.float64))
print(leaf.grad, leaf.grad.dtype)             # PyTorch: tensor([1.0000, 0.5000]) torch.float32

x = ag.tensor(3.0, requires_grad=True)
(dy_dx,) = ag.autograd.grad(x ** 3, x, create_graph=True)
(d2y_dx2,) = ag.autograd.grad(dy_dx, x)
print(dy_dx.detach(), d2y_dx2, x.grad)        # PyTorch: tensor(27.) tensor(18.) None

# %% [markdown]
# **Tests.** `check.initial_gradients` tries one-element outputs, a given gradient and each of
# PyTorch's errors; `check.run_backward` runs your driver with a recording stand-in in each slot (was
# each called, with what, in which grad mode), then real passes and the errors. Hidden tests mix random
# outputs and gradients, and run random passes against the library's driver.

# %% nbgrader={"grade": true, "grade_id": "03_run_backward_test_starts", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.initial_gradients(initial_gradients)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import random_starts

random_starts(initial_gradients, seed=307)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "03_run_backward_test", "locked": true, "points": 5, "schema_version": 3, "solution": false}
check.run_backward(run_backward)
### BEGIN HIDDEN TESTS
from autograd_course.checks.backward import random_drivers

random_drivers(run_backward, seed=314)
### END HIDDEN TESTS

# %% [markdown]
# ## 9. Your engine on one screen
#
# Every `backward()` and `autograd.grad()` from now on runs the functions below: the driver, the
# starting gradients, the counts, the loop and the node, printed from the library's slots (a slot you
# unplugged shows the library's code).

# %%
for name in ("run_backward", "initial_gradients", "count_dependencies", "execute", "run_node"):
    print(inspect.getsource(getattr(ag.engine, name)))

# %% [markdown]
# The whole engine on a small network's loss, step by step, with your rules for `@`, `*`, `+` and
# `mean` (the same call on PyTorch's tensors draws PyTorch's pass, for comparison):

# %%
w = ag.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
x = ag.tensor([[1.0, 2.0]])
h = x @ w
loss = (h * h + h).mean()
draw_backward_steps(loss, names={"w": w}, title="your engine: loss = mean(h * h + h), h = x @ w")

# %%
print(w.grad)       # PyTorch: tensor([[ 5.,  0.], [10.,  0.]])

# %% [markdown]
# ## Summary
#
# * **Finite differences**, central and in float64, give a second opinion on any gradient.
# * A **gradient rule** is a vector-Jacobian product, never a Jacobian; what it needs, the node saves.
# * The **engine** is yours: the driver, the counts, the loop and the node, with every hook, error
#   and freed buffer where PyTorch has them.
#
# Assignment 04 turns to the leaves, where these gradients end up, and writes the tensor hooks your
# `run_node` already calls.
