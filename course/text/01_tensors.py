# %% [markdown]
# # Assignment 01: tensors and `requires_grad`
#
# Welcome! In this course you rebuild PyTorch's autograd, one piece at a time, on top of NumPy. You
# work inside `autograd_lib`, a small library with PyTorch's API: `ag.tensor`, `x.backward()`,
# `x.grad`, `ag.no_grad()` and the rest behave as they do in `torch`. In each assignment you write a
# few pieces of the library yourself, plug them in, and watch the real engine run your code.
#
# This first assignment is about the tensor itself: the attributes autograd keeps on every tensor,
# and the rules that decide their values.
#
# | exercise | what you write | test cells | points |
# |---|---|---|---|
# | 1 | `result_requires_grad` and `is_leaf`: which results require grad, which tensors are leaves | `01_result_requires_grad_test` to `_test4` | 7 |
# | 2 | `result_type`: the dtype of an op that mixes tensors and Python numbers | `01_result_type_test`, `_test2` | 4 |
# | 3 | `detach` and `requires_grad_`: a new leaf, and a leaf's flag | `01_detach_test` to `_test4` | 7 |
# | 4 | `infer_dtype`: the dtype `tensor(data)` gives nested Python data | `01_infer_dtype_test`, `_test2` | 3 |
# | 5 | `nested_shape`: the shape of nested lists; ragged data refused | `01_nested_shape_test`, `_test2` | 3 |
# | | | **total** | **24** |

# %% [markdown]
# **How an exercise works.** A section explains one idea, and a demo cell runs it in `autograd_lib`; a
# comment `# PyTorch: ...` says what PyTorch 2.13 prints on that line (PyTorch is not installed
# here). The exercise states what your function must do, with PyTorch's behaviour and its errors,
# and ends with its **Rules**. In the **answer cell** you write the body of the function; its last
# line, `exercises.plug(...)`, installs it in `autograd_lib`, which from then on calls your code
# instead of its own. A demo shows your code at work, and the **test cells** check it: a test
# cell that passes says `passed` and names its check; a failure prints what was expected, what was
# seen, and the rule it grades. Hidden tests run your function on random inputs when the notebook is
# graded.
#
# Each exercise is graded on its own: while a test runs, every other piece is the library's own
# version, so a mistake in one exercise costs no points in another. A function that calls the
# library's own implementation fails with `DelegationError`: write it yourself.
#
# **Stuck?** Until you solve an exercise, a cell that needs it stops with a short message naming it.
# `exercises.unplug("01.result_requires_grad")` (with that exercise's id, as the message gives it)
# puts the library's version back, so that you can carry on.

# %% nbgrader={"grade": false, "grade_id": "01_setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np
import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.checks import tensors as check
from autograd_course.notebook import error_of, reveal

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# ## 1. The five attributes of a tensor
#
# The smallest computation with something to differentiate: a tensor `x` that we want gradients
# for, a constant `y`, and their product. In PyTorch `z.grad_fn` prints as
# `<MulBackward0 object at 0x7fa5caa3f520>`, with the node's memory address; we print
# `t.grad_fn.name()`, just the class name. PyTorch's output is in the comments:

# %%
x = ag.tensor(1.0, requires_grad=True)
y = ag.tensor(2.0)
z = x * y
for name, t in [("x", x), ("y", y), ("z", z)]:
    grad_fn = None if t.grad_fn is None else t.grad_fn.name()
    print(name, t.data, t.requires_grad, grad_fn, t.is_leaf)
# PyTorch: x tensor(1.) True None True
#          y tensor(2.) False None True
#          z tensor(2.) True MulBackward0 False

# %% [markdown]
# * **`data`**: the values, as a tensor without history (section 7).
# * **`requires_grad`**: whether autograd tracks the tensor. It is **`False` unless you ask**, with
#   `requires_grad=True` (or `requires_grad_()`). `z` has it because it was computed from `x`.
# * **`grad`**: where `backward()` stores the gradient; `None` before any backward pass.
# * **`grad_fn`**: the *backward node* of the operation that made the tensor: a `MulBackward0` for
#   `z`, and `None` for a tensor that no recorded operation made.
# * **`is_leaf`**: `x` and `y` are leaves of the graph; `z` is not (section 4).
#
# A tensor's repr shows the same facts briefly:

# %%
print(x)        # PyTorch: tensor(1., requires_grad=True)
print(y)        # PyTorch: tensor(2.)
print(z)        # PyTorch: tensor(2., grad_fn=<MulBackward0>)

# %% [markdown]
# Now the gradient. $z = x \cdot y$, so $\partial z / \partial x = y = 2$. `z.backward()` computes it
# and stores it in `x.grad`. `y` does not require grad, so nothing is stored in `y.grad`. `z.grad` is
# `None` too, and reading it makes PyTorch (and `autograd_lib`) warn: `backward()` fills `.grad` only
# on leaves (assignment 04):

# %%
import warnings

z.backward()
print(x.grad, y.grad)       # PyTorch: tensor(2.) None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(z.grad)
print(caught[0].category.__name__ + ":", str(caught[0].message).split(". ")[0] + ".")
# PyTorch: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.

# %% [markdown]
# A picture of the graph behind `z`: `autograd_lib.viz.draw_graph` draws the backward graph from the
# output down. `z`'s `grad_fn` has one edge per input of the multiplication: `x`'s leads to an
# `AccumulateGrad` node, which adds incoming gradients into `x.grad`; `y`'s is a dotted `None` stub,
# because `y` needs no gradient. Assignment 02 builds these edges.

# %%
x = ag.tensor(1.0, requires_grad=True)
y = ag.tensor(2.0)
z = x * y
ag.viz.draw_graph(z, names={"x": x, "y": y, "z": z}, title="z = x * y")

# %% [markdown]
# ## 2. Data types: only floating-point tensors can require grad
#
# `tensor(...)` chooses the dtype from the data, as PyTorch does: Python floats give `float32` (the
# default floating-point dtype), ints `int64`, bools `bool`, and a list mixing ints and floats
# `float32`:

# %%
print(ag.tensor(1.5).dtype, ag.tensor(2).dtype, ag.tensor([1, 2.5]).dtype, ag.tensor(True).dtype)
# PyTorch: torch.float32 torch.int64 torch.float32 torch.bool

# %% [markdown]
# A gradient measures how the output changes when an input changes by a tiny amount. An integer
# cannot change by a tiny amount, so PyTorch refuses to track an integer tensor, at creation or later
# with `requires_grad_()` (exercise 3), with slightly different messages. The usual fix is to write
# `1.0` instead of `1`, or to pass a floating `dtype`:

# %%
print(error_of(ag.tensor, 1, requires_grad=True))
# PyTorch: RuntimeError: Only Tensors of floating point and complex dtype can require gradients
print(error_of(lambda: ag.tensor([1, 2]).requires_grad_()))
# PyTorch: RuntimeError: only Tensors of floating point dtype can require gradients
print(ag.tensor(1, dtype=ag.float32, requires_grad=True))      # PyTorch: tensor(1., requires_grad=True)

# %% [markdown]
# For the same reason, an operation whose result is an integer never records anything.
#
# **Predict, then run.** `v = [3., 1., 2.]` requires grad, and `i = v.argmax()` is the position of
# its largest element. Does `i` require grad? Replace the `...` below with `True` or `False`, then
# run the next cell.

# %%
prediction = ...      # does v.argmax() require grad? True or False

# %%
v = ag.tensor([3., 1., 2.], requires_grad=True)
i = v.argmax()
print(i, i.requires_grad, i.grad_fn)        # PyTorch: tensor(0) False None
reveal(prediction, i.requires_grad,
       why="argmax returns an integer index (int64), and an integer tensor can't require grad: nothing is recorded")

# %% [markdown]
# ## 3. Who requires grad?
#
# Who decided that `z = x * y` requires grad? The multiplication did. Every operation decides it for
# its result, from its inputs and from **grad mode**: a switch, on by default and off inside
# `with torch.no_grad():`, where nothing is recorded (assignment 07). A result that requires grad gets
# recorded: it receives a `grad_fn`.
#
# Guess before you read PyTorch's answers in the comments: which of these results require grad? `h`
# is itself a result, and `clamp(t, min=...)` takes a third input, `max`, left out here (the library
# passes `None` in its place).

# %%
a = ag.tensor([1., 2.])
b = ag.tensor([3., 4.])
w = ag.tensor([5., 6.], requires_grad=True)
h = a * w
print((a + b).requires_grad, (a + w).requires_grad, (w + a).requires_grad, (h * b).requires_grad)
# PyTorch: False True True True
print(ag.clamp(a, min=0).requires_grad, ag.clamp(w, min=0).requires_grad, ag.clamp(a, min=w).requires_grad)
# PyTorch: False True True
with ag.no_grad():
    print(ag.is_grad_enabled(), (a + w).requires_grad, (h * w).grad_fn)      # PyTorch: False False None
print(ag.is_grad_enabled(), (a * w).grad_fn.name())                          # PyTorch: True MulBackward0


# %% [markdown]
# ## 4. Leaves
#
# The **leaves** of a graph are the tensors it starts from; those that require grad, such as a
# model's weights, are the tensors whose `.grad` `backward()` fills in. Here are six tensors as
# PyTorch sees them:
#
# | tensor | made by | `is_leaf` | `requires_grad` | `grad_fn` |
# |---|---|---|---|---|
# | `x` | `torch.tensor(1.0, requires_grad=True)` | `True` | `True` | `None` |
# | `y` | `torch.tensor(2.0)` | `True` | `False` | `None` |
# | `z` | `x * y` | `False` | `True` | `MulBackward0` |
# | `w` | `y * 3` | `True` | `False` | `None` |
# | `d` | `z.detach()` | `True` | `False` | `None` |
# | `n` | `x * y` inside `with torch.no_grad():` | `True` | `False` | `None` |
#
# `x` requires grad *and* is a leaf; `w` was made by an operation and is a leaf all the same.

# %% [markdown]
# ### Exercise 1: `result_requires_grad` (7 points)
#
# Write two functions:
#
# * `result_requires_grad(*inputs)`, installed as `recording.result_requires_grad`: every operation
#   of the library asks it whether its result requires grad, and records a node only if so. `inputs`
#   are the operation's inputs, in order: tensors, or `None` for an optional input left out. Return a
#   `bool`, PyTorch's answer.
# * `is_leaf(tensor)`, installed as the getter of the property `Tensor.is_leaf`, so `t.is_leaf` calls
#   it from then on (so don't read `tensor.is_leaf` inside: it would call itself forever).
#
# Sections 3 and 4 are your specification: section 3's cell shows PyTorch's answers for inputs of
# every kind, and section 4's table the leaves. Work out what decides each answer; the tests then ask
# about any number of inputs, any tensors and any operations.
#
# **Rules**
# - `any`: results get the `requires_grad` PyTorch gives section 3's, with any number of inputs in any
#   order (`a + w` and `w + a`).
# - `non-leaf`: an input that is itself a result counts as PyTorch counts `h` in `h * b`.
# - `none`: results of constants only (`a + b`, `clamp(a, min=0)`) get PyTorch's answer, and so does
#   an operation with no input at all: `False`.
# - `absent`: a `None` in `inputs` (like `clamp`'s `max` above) changes no answer.
# - `no-grad`: with grad mode off, results get the answers section 3's `no_grad()` block shows.
# - `bool`: `result_requires_grad` returns `True` or `False`.
# - `recorded`: an operation records a node (its result's `grad_fn`) exactly when your answer is
#   `True`, so the results' `grad_fn` match PyTorch's too.
# - `leaf`: the leaves of section 4's table, and any tensor made as one of them was, get PyTorch's
#   `is_leaf`, a bool.
# - `not-leaf`: so do the non-leaves (`z`), whatever else is true of them.

# %% nbgrader={"grade": false, "grade_id": "01_result_requires_grad_answer", "locked": false, "schema_version": 3, "solution": true}
def result_requires_grad(*inputs):
    """Whether the result of an operation on `inputs` (tensors, or None for an input left
    out) requires grad. Returns a bool."""
    ### BEGIN SOLUTION
    if not ag.is_grad_enabled():
        return False
    for t in inputs:
        if t is not None and t.requires_grad:
            return True
    return False
    ### END SOLUTION


def is_leaf(tensor):
    """Whether `tensor` is a leaf of the graph. Returns a bool."""
    ### BEGIN SOLUTION
    return tensor.grad_fn is None
    ### END SOLUTION

exercises.plug("01.result_requires_grad", result_requires_grad)
exercises.plug("01.is_leaf", is_leaf)


# %% [markdown]
# Every operation now asks your rule, and `t.is_leaf` runs your function. `describe` prints a
# tensor's three graph attributes, without memory addresses (we use it below). The six tensors of the
# table:

# %%
def describe(t):
    """requires_grad, grad_fn (its class name) and is_leaf of a tensor."""
    grad_fn = None if t.grad_fn is None else t.grad_fn.name()
    return f"requires_grad={t.requires_grad!s:5}  grad_fn={grad_fn!s:13}  is_leaf={t.is_leaf}"

x = ag.tensor(1.0, requires_grad=True)
y = ag.tensor(2.0)
z = x * y
d = z.detach()
with ag.no_grad():
    n = x * y
for name, t in [("x", x), ("y", y), ("z", z), ("w", y * 3), ("d", d), ("n", n)]:
    print(name, describe(t))

# %% [markdown]
# Your functions on a longer computation. In the picture, the constant `c` shows up only as a `None`
# stub: no gradient flows into it.

# %%
h = x * y + y          # depends on x
c = (y * 3).exp()      # constants only
out = (h * c).sin()
for name, t in [("h", h), ("c", c), ("out", out)]:
    print(f"{name:4}", describe(t))
ag.viz.draw_graph(out, names={"x": x, "h": h, "out": out}, title="out = sin((x*y + y) * exp(3*y))")

# %% [markdown]
# **Tests.** `check.result_requires_grad` asks your rule about leaves, constants, non-leaves, `None` entries, no input and grad mode off; `check.result_requires_grad_in_the_engine` runs ordinary operations with it. `check.is_leaf` tries the six tensors of the table and the property `z.is_leaf`; `check.is_leaf_without_requires_grad` tensors made in other ways. Hidden tests repeat them on random inputs, tensors and operations. Each check is a short function in `autograd_course/checks/tensors.py`: read it to see exactly what it runs.

# %% nbgrader={"grade": true, "grade_id": "01_result_requires_grad_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.result_requires_grad(result_requires_grad)
### BEGIN HIDDEN TESTS
# The same rules on random inputs: any number of them, of random shapes (never 0-dim) and dtypes.
from autograd_course.checks.tensors import compare_requires_grad_rule
compare_requires_grad_rule(result_requires_grad, seed=103)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_result_requires_grad_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.result_requires_grad_in_the_engine(result_requires_grad)
### BEGIN HIDDEN TESTS
# Random inputs and grad modes, then a + b recorded with your rule.
from autograd_course.checks.tensors import compare_requires_grad_in_ops
compare_requires_grad_in_ops(result_requires_grad, seed=101)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_result_requires_grad_test3", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.is_leaf(is_leaf)
### BEGIN HIDDEN TESTS
# Random tensors of every kind of the table, with random shapes (never 0-dim), dtypes and ops.
from autograd_course.checks.tensors import compare_is_leaf
compare_is_leaf(is_leaf, seed=202)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_result_requires_grad_test4", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check.is_leaf_without_requires_grad(is_leaf)
### BEGIN HIDDEN TESTS
# The tensors of random programs over leaves that may require grad.
from autograd_course.checks.tensors import compare_leaves_of_ops
compare_leaves_of_ops(is_leaf, seed=201)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Mixing dtypes: type promotion
#
# When an operation mixes dtypes, which dtype does the result get? Not simply "the larger one":
# PyTorch looks at where each dtype came from, a tensor with dims, a 0-dim tensor, or a Python
# number. A scalar should not silently change the dtype of a whole batch: `batch * 0.5` stays
# float32, and so does `batch * ag.tensor(0.5, dtype=ag.float64)`. Yet an integer tensor times `0.5`
# must become floating point. Dtypes come in three **categories**: bool < integer (`int32`, `int64`)
# < floating point (`float16`, `float32`, `float64`). PyTorch's answers, in the comments:

# %%
i = ag.tensor([1, 2, 3])                     # int64, one dim
i32 = ag.tensor([1, 2, 3], dtype=ag.int32)
x = ag.tensor([1., 2., 3.])                  # float32
h = ag.tensor([1., 2., 3.], dtype=ag.float16)
s64 = ag.tensor(2., dtype=ag.float64)        # a 0-dim float64 tensor
s = ag.tensor(7)                             # a 0-dim int64 tensor
b = ag.tensor([True, False, True])
for label, result in [("i * 0.5", i * 0.5), ("x * s64", x * s64), ("i * s64", i * s64),
                      ("x * float64 ones(3)", x * ag.ones(3, dtype=ag.float64)), ("i32 * 5", i32 * 5),
                      ("i32 * s", i32 * s), ("i32 * h", i32 * h), ("h * 2.5", h * 2.5), ("s * 2.5", s * 2.5),
                      ("s * s64", s * s64), ("b + True", b + True), ("b + 1", b + 1), ("b * s", b * s)]:
    print(f"{label:20} {result.dtype}")
# PyTorch:
#   i * 0.5              torch.float32
#   x * s64              torch.float32
#   i * s64              torch.float64
#   x * float64 ones(3)  torch.float64
#   i32 * 5              torch.int32
#   i32 * s              torch.int32
#   i32 * h              torch.float16
#   h * 2.5              torch.float16
#   s * 2.5              torch.float32
#   s * s64              torch.float64
#   b + True             torch.bool
#   b + 1                torch.int64
#   b * s                torch.int64

# %% [markdown]
# It matters for autograd as well: a gradient always has the dtype of its own tensor (the engine
# casts it, assignment 05), so the dtype an op picks decides the precision its backward runs in.
#
# ### Exercise 2: `result_type` (4 points)
#
# Write `result_type(*operands)`, PyTorch's `torch.result_type` for any number of operands (at least
# one). It is installed as `autograd_lib.dtypes.result_type`, and every op that mixes operands asks
# it for its result's dtype. An operand is a tensor or a Python number (`bool`, `int`, `float`).
# Section 5's thirteen answers hold the whole rule: work out what each kind of operand may change,
# and when. `ag.promote_types(a, b)` is `torch.promote_types`, the larger of two dtypes whatever
# their kind (`int32` and `float16` give `float16`). With three operands, `result_type(i, s64, 2.5)`
# is float64 and `result_type(i, s, 2.5)` float32.
#
# **Rules**
# - `numbers`: a Python number has the dtype `ag.tensor` gives it (section 2), and a Python float
#   follows the default dtype (`ag.set_default_dtype`).
# - `within`: operands all of one kind (tensors with dims, 0-dim tensors, or Python numbers) give
#   PyTorch's answers (`i32 * h`, `s * s64`, `b + True`).
# - `tiers`: operands of mixed kinds give PyTorch's answers where the dtype stays (`x * s64`,
#   `i32 * 5`, `h * 2.5`, `i32 * s`).
# - `raise`: and where it changes (`i * s64`, `i * 0.5`, `s * 2.5`, `b * s`, and the three operands
#   above).

# %% nbgrader={"grade": false, "grade_id": "01_result_type_answer", "locked": false, "schema_version": 3, "solution": true}
def result_type(*operands):
    """The dtype of an operation over tensors and Python numbers (torch.result_type).

    Args:
        operands: tensors and Python numbers (bool, int, float), at least one.
    Returns:
        The dtype of the result (ag.float32, ag.int64, ...).
    """
    ### BEGIN SOLUTION
    tiers = [None, None, None]          # tensors with dims, 0-dim tensors, Python numbers
    for x in operands:
        if isinstance(x, bool):
            dtype, tier = ag.bool, 2
        elif isinstance(x, int):
            dtype, tier = ag.int64, 2
        elif isinstance(x, float):
            dtype, tier = ag.get_default_dtype(), 2
        else:
            dtype, tier = x.dtype, (1 if x.ndim == 0 else 0)
        tiers[tier] = dtype if tiers[tier] is None else ag.promote_types(tiers[tier], dtype)

    def category(dtype):
        return 2 if dtype.is_floating_point else (0 if dtype is ag.bool else 1)

    result = None
    for dtype in tiers:
        if dtype is not None and (result is None or category(dtype) > category(result)):
            result = dtype
    return result
    ### END SOLUTION

exercises.plug("01.result_type", result_type)

# %% [markdown]
# The library's operations now ask your function. A float32 weight used with float64 data computes in
# float64, yet its gradient comes back in float32, its own dtype:

# %%
w = ag.tensor([0.5, -1.], requires_grad=True)          # float32
data = ag.tensor([2., 3.], dtype=ag.float64)
y = w * data
print(y.dtype, ag.result_type(w, data))                 # PyTorch: torch.float64 torch.float64
y.sum().backward()
print(w.grad, w.grad.dtype)                              # PyTorch: tensor([2., 3.]) torch.float32

# %% [markdown]
# **Tests.** `check.result_type` calls your function on fourteen lists of operands (every kind and category, bools, three operands, Python numbers only), then with the default dtype set to float64; `check.result_type_in_the_library` runs six ops that mix dtypes, then backward, and compares the results' and gradients' dtypes and values. Hidden tests do the same with random operands and ops.

# %% nbgrader={"grade": true, "grade_id": "01_result_type_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.result_type(result_type)
### BEGIN HIDDEN TESTS
# Random operands: tensors of random dtypes and dims, Python numbers; the default dtype varies.
from autograd_course.checks.tensors import compare_result_type
compare_result_type(result_type, seed=105)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_result_type_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.result_type_in_the_library(result_type)
### BEGIN HIDDEN TESTS
# Random ops over a float tensor and other operands, then backward.
from autograd_course.checks.tensors import compare_mixed_ops
compare_mixed_ops(result_type, seed=106)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Changing the flag: `requires_grad_`
#
# `t.requires_grad_(flag=True)` sets the flag in place and returns `t` itself, so
# `w = torch.randn(3).requires_grad_()` works in one line. Only a leaf has a flag of its own: a
# non-leaf's comes from its `grad_fn`, so PyTorch refuses to switch it off. A common use is
# *freezing* a parameter: after `p.requires_grad_(False)`, new operations on `p` no longer record it,
# while those already recorded keep their nodes. In PyTorch:
#
# ```python
# >>> p = torch.tensor([1., 2.], requires_grad=True)
# >>> q = p * 2
# >>> p.requires_grad_(False) is p
# True
# >>> q.requires_grad, (p * 2).requires_grad
# (True, False)
# >>> q.requires_grad_(True) is q          # a non-leaf: already on, nothing changes
# True
# >>> q.requires_grad_(False)
# RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().
# >>> torch.tensor([1, 2]).requires_grad_()
# RuntimeError: only Tensors of floating point dtype can require gradients
# >>> torch.tensor([1, 2]).requires_grad_(False)
# tensor([1, 2])
# ```

# %% [markdown]
# ## 7. `.data` and `detach()`
#
# Both `t.data` and `t.detach()` give a tensor with `t`'s values that is a leaf, does not require
# grad, and has no `grad_fn`. Neither copies: both *share storage* with `t`, so writing through either
# one changes `t` as well. The difference is the **version counter**.
#
# Every tensor has a `_version`, a number that each in-place operation (`add_`, `zero_`, `+=`,
# `t[i] = v`, ...) increases by one. Backward nodes save the tensors their formulas need, with the
# `_version` each had then; when `backward()` finds a saved tensor whose version has changed, it
# raises an error instead of computing with the wrong values (assignment 08). `detach()` **shares**
# the version counter with the original, so in-place changes through it are counted; `.data` gets a
# counter of its own, so autograd never learns about them. Both writes below change `y`'s values, but
# only the one through `detach()` changes `y._version` (PyTorch's output in the comments):

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
d = y.detach()
dd = y.data
d.add_(1)
print(y._version, d._version, dd._version)      # PyTorch: 1 1 0
dd.add_(1)
print(y._version, d._version, dd._version)      # PyTorch: 1 1 1
print(y)                                        # PyTorch: tensor([4., 6., 8.], grad_fn=<MulBackward0>)


# %% [markdown]
# Why it matters: $e^x$ is its own derivative, so `y = x.exp()` saves `y` for backward. Zero `y`
# through `.data` and backward uses the zeros unnoticed: PyTorch gives `x.grad = tensor([0., 0., 0.])`,
# silently wrong. Zero it through `detach()` and backward stops you:
#
# ```
# RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. Hint: [...]
# ```
#
# So when you want a tensor's values without its history, use `detach()`. A detached tensor flagged
# with `requires_grad_()` is a new leaf that requires grad: it starts a graph of its own, and a
# gradient that reaches it never flows on to the original.

# %% [markdown]
# ### Exercise 3: `detach` (7 points)
#
# Write two methods of `Tensor`, installed as `Tensor.detach` and `Tensor.requires_grad_` (the
# constructor `ag.Tensor(data, requires_grad=True)` calls the second too):
#
# * `detach(tensor)` returns `tensor`'s values without their history, as section 7 showed PyTorch's
#   does: work out from its demo what it shares with `tensor`, and what it does not;
# * `requires_grad_(tensor, requires_grad=True)` switches `tensor`'s flag as section 6's session
#   showed: every call there must give PyTorch's result, or its error with the exact message. The
#   property's setter (`tensor.requires_grad = ...`) is another entry point, with messages of its
#   own: don't go through it.
#
# A reference of what a tensor holds, and of ways to make one: `t._data` (its NumPy array),
# `t._version_counter` (`t._version` reads it), `t._requires_grad`, `ag.tensor(data)`, `t.clone()`,
# `ag.Tensor._make(array, version_counter=None)` (`help(ag.Tensor._make)` says what it does).
#
# **Rules**
# - `new-leaf`: `detach` returns a new tensor, a leaf that does not require grad.
# - `original`: the original keeps its `grad_fn` and its `requires_grad`.
# - `storage`: a detached tensor shares the original's storage (no copy): a write through one shows in
#   the other.
# - `version`: an in-place write through a detached tensor counts in the original's `_version` (unlike
#   one through `.data`), so backward catches it.
# - `returns`: `requires_grad_` returns the tensor itself, as in section 6.
# - `leaf-flag`: afterwards a leaf's `requires_grad` reads as asked (`True` by default); new
#   operations follow it, old ones keep their nodes (section 6's `q`).
# - `float-only`: a tensor that is not floating point answers as `torch.tensor([1, 2])` does in
#   section 6, for either request.
# - `non-leaf`: a non-leaf answers as `q` does in section 6, for either request (the error's whole
#   message).

# %% nbgrader={"grade": false, "grade_id": "01_detach_answer", "locked": false, "schema_version": 3, "solution": true}
def detach(tensor):
    """`tensor`'s values without their history, as PyTorch's detach() gives them."""
    ### BEGIN SOLUTION
    return ag.Tensor._make(tensor._data, tensor._version_counter)
    ### END SOLUTION


def requires_grad_(tensor, requires_grad=True):
    """Set `tensor`'s requires_grad flag in place, as PyTorch's requires_grad_() does; returns tensor."""
    ### BEGIN SOLUTION
    if tensor.grad_fn is not None:
        if not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        return tensor
    if requires_grad and not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = bool(requires_grad)
    return tensor
    ### END SOLUTION

exercises.plug("01.detach", detach)
exercises.plug("01.requires_grad_", requires_grad_)

# %% [markdown]
# Your two methods at work. First `detach`: the version counters, the in-place change that backward
# catches, and `c = b.detach().requires_grad_()`, which holds the values of `b = a * 3` but is a leaf
# of its own, with its own `AccumulateGrad`: the gradient that reaches `c` stops there and never flows
# on to `a`:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
d = y.detach()
print("d:", describe(d))
d.add_(1)
print("after d.add_(1): y =", y, " y._version =", y._version)

y = x.exp()
y.detach().zero_()
print(error_of(lambda: y.sum().backward()).split(". Hint")[0])

a = ag.tensor([1., 2.], requires_grad=True)
b = a * 3
c = b.detach().requires_grad_()
loss = (c * b).sum()
print("b", describe(b))
print("c", describe(c))
ag.viz.draw_graph(loss, names={"a": a, "b": b, "c": c, "loss": loss}, title="loss = sum(c * b), c = b.detach()")

# %% [markdown]
# Then `requires_grad_`: parameters made in one line, the constructor (it calls your method),
# freezing `scale` after a first backward pass (the second pass leaves its gradient alone), and the
# two errors:

# %%
w = ag.randn(3).requires_grad_()
b = ag.Tensor([0.5, -0.5], requires_grad=True)
print(w, b)
v = ag.tensor([1., 2.], requires_grad=True)
scale = ag.tensor(3.0, requires_grad=True)
(v * scale).sum().backward()
print("first pass: ", v.grad, scale.grad)
scale.requires_grad_(False)
v.grad = None
(v * scale).sum().backward()
print("second pass:", v.grad, scale.grad, " <- scale.grad was not touched")
z = ag.tensor(1.0, requires_grad=True) * 2
print(error_of(lambda: z.requires_grad_(False)))
print(error_of(lambda: ag.arange(3).requires_grad_()))

# %% [markdown]
# **Tests.** `check.detach` looks at everything `detach` must share and everything it must not, then changes a saved result in place through `detach()`; `check.detach_in_the_engine` lets backward store a gradient with it. `check.requires_grad_` tries float, integer and bool leaves and a non-leaf, turning the flag on and off; `check.requires_grad_in_the_library` goes through the `Tensor` constructor and `backward()`. Hidden tests repeat them on random dtypes, shapes, flags and tensors.

# %% nbgrader={"grade": true, "grade_id": "01_detach_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.detach(detach)
### BEGIN HIDDEN TESTS
# The same story on random tensors: dtypes, shapes, values, leaves and non-leaves, the value written
# through the detached tensor, and the operation and in-place change that backward must catch.
from autograd_course.checks.tensors import compare_detach
for case in grading.random_cases(seed=402, count=8):
    compare_detach(detach, int(case.integers(2 ** 31)))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_detach_test2", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check.detach_in_the_engine(detach)
### BEGIN HIDDEN TESTS
# Everything detach must share and must not, on random tensors.
from autograd_course.checks.tensors import compare_detach_summaries
compare_detach_summaries(detach, seed=401)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_detach_test3", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.requires_grad_(requires_grad_)
### BEGIN HIDDEN TESTS
# The same rules on random tensors: dtypes, shapes (never those above), flags and the call's argument vary.
from autograd_course.checks.tensors import compare_requires_grad_
compare_requires_grad_(requires_grad_, seed=302)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_detach_test4", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.requires_grad_in_the_library(requires_grad_)
### BEGIN HIDDEN TESTS
# Random dtypes, leaves and non-leaves made through the library, and random requests.
from autograd_course.checks.tensors import compare_requires_grad_effects
compare_requires_grad_effects(requires_grad_, seed=301)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. From Python data to a tensor
#
# `ag.tensor(data)` answers two questions before NumPy copies the numbers: which dtype, and which
# shape. For the dtype of nested lists, PyTorch looks at **every** item: each has a dtype, and the
# tensor gets the promotion of all of them. This is not `result_type`: there are no tiers, so the
# int32 tensor below is promoted with the Python int to int64.

# %%
print(ag.tensor([True, 2]).dtype, ag.tensor([[1, 2], [3, 4.5]]).dtype)  # PyTorch: torch.int64 torch.float32
print(ag.tensor([np.float64(1.5), 2.0]).dtype)                          # PyTorch: torch.float64
print(ag.tensor([ag.tensor(1, dtype=ag.int32), 2]).dtype)               # PyTorch: torch.int64
print(ag.tensor([[], []]).dtype, tuple(ag.tensor([[], []]).shape))      # PyTorch: torch.float32 (2, 0)
print(error_of(ag.tensor, [1, None]))      # PyTorch: RuntimeError: Could not infer dtype of NoneType


# %% [markdown]
# ### Exercise 4: `infer_dtype` (3 points)
#
# Write `infer_dtype(data)`, installed as `autograd_lib.creation.infer_dtype`: `ag.tensor` asks it for
# the dtype whenever it is given Python data and no `dtype=`. The data is a Python number, a NumPy
# scalar or a 0-dim tensor, or lists and tuples of them nested to any depth (`ag.tensor` turns NumPy
# arrays inside the data into lists before it asks). Return an ag dtype (`ag.bool`, `ag.int64`,
# `ag.float32`, ...), PyTorch 2.13's. The dtype helpers of the library are in `ag.dtypes`
# (`help(ag.dtypes)`). Worked out: `[[1, 2], [3, True]]` is int64, `[[], [1, 2.5]]` float32, and
# `[1, {}]` raises `RuntimeError: Could not infer dtype of dict`.
#
# **Rules**
# - `numbers`: a Python number has the dtype section 2 showed `ag.tensor` giving it; a float follows
#   the default dtype (`ag.get_default_dtype()`).
# - `own`: a NumPy scalar (`np.float64(1.5)`, `np.int32(3)`, `np.bool_(True)`) or a tensor inside the
#   data keeps its own dtype.
# - `promote`: a list or tuple, at any depth, gets the promotion of the dtypes of all its items.
# - `empty`: an empty list, wherever it is, counts as the default dtype.
# - `unknown`: anything else (`None`, a dict, ...) raises `RuntimeError` with PyTorch's message
#   `Could not infer dtype of NoneType` (the name of its type).

# %% nbgrader={"grade": false, "grade_id": "01_infer_dtype_answer", "locked": false, "schema_version": 3, "solution": true}
def infer_dtype(data):
    """The dtype ag.tensor(data) gives Python data: a number, or lists and tuples nested to any depth.

    Returns an ag dtype (ag.bool, ag.int64, ag.float32, ...); raises RuntimeError for an item
    that has no dtype.
    """
    ### BEGIN SOLUTION
    default = ag.get_default_dtype()
    if isinstance(data, (list, tuple)):
        if not data:
            return default
        kinds = [infer_dtype(item) for item in data]
        combined = kinds[0]
        for kind in kinds[1:]:
            combined = ag.promote_types(combined, kind)
        return combined
    if isinstance(data, ag.Tensor):
        return data.dtype
    if isinstance(data, (np.bool_, np.number)):
        return ag.dtypes.from_numpy_dtype(data.dtype)
    if isinstance(data, bool):
        return ag.bool
    if isinstance(data, int):
        return ag.int64
    if isinstance(data, float):
        return default
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    ### END SOLUTION

exercises.plug("01.infer_dtype", infer_dtype)

# %% [markdown]
# `ag.tensor` now asks your function. A bool among ints, int32 NumPy scalars, and a weight whose ints
# and floats make it float32, so that it can require grad:

# %%
print(ag.tensor([[1, 2], [3, True]]).dtype, ag.tensor([np.int32(1), np.int32(2)]).dtype)  # PyTorch: torch.int64 torch.int32
w = ag.tensor([0.5, 2], requires_grad=True)
print(w.dtype, w.requires_grad)                      # PyTorch: torch.float32 True

# %% [markdown]
# **Tests.** `check.infer_dtype` calls your function on numbers, mixed lists, NumPy scalars and 0-dim tensors among Python numbers, nested tuples, empty lists, and data holding `None` or a dict, then with the default dtype set to float64; `check.infer_dtype_in_the_library` makes tensors from such data with `ag.tensor`. Hidden tests do the same on random nested data.

# %% nbgrader={"grade": true, "grade_id": "01_infer_dtype_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.infer_dtype(infer_dtype)
### BEGIN HIDDEN TESTS
# Random nested data: depths, lengths and kinds of items; the default dtype varies.
from autograd_course.checks.tensors import compare_infer_dtype
compare_infer_dtype(infer_dtype, seed=111)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_infer_dtype_test2", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check.infer_dtype_in_the_library(infer_dtype)
### BEGIN HIDDEN TESTS
# ag.tensor of random nested data.
from autograd_course.checks.tensors import compare_infer_in_the_library
compare_infer_in_the_library(infer_dtype, seed=112)
### END HIDDEN TESTS

# %% [markdown]
# **The shape, and ragged data.** A tensor is a box: every row has the same length, and PyTorch
# refuses data that is not. Its errors say where it noticed, and which size it expected there; look
# at the last two below, which hold two defects each:

# %%
print(tuple(ag.tensor([[1, 2], [3, 4], [5, 6]]).shape))       # PyTorch: (3, 2)
for data in ([[1, 2], [3]], [[1], [2, 3]], [[[1, 2]], [[3, 4], [5, 6]]], [[1, 2], 3], [1, [2, 3]],
             [[], [1, 2]], [[1, 2], []], [[1, [2]], [3]], [[1, 2], [3], [4, [5]]]):
    print(error_of(ag.tensor, data) or tuple(ag.tensor(data).shape))
# PyTorch: ValueError: expected sequence of length 2 at dim 1 (got 1)
#          ValueError: expected sequence of length 1 at dim 1 (got 2)
#          ValueError: expected sequence of length 1 at dim 1 (got 2)
#          TypeError: not a sequence
#          TypeError: 'list' object cannot be interpreted as an integer
#          (2, 0)
#          ValueError: expected sequence of length 2 at dim 1 (got 0)
#          TypeError: 'list' object cannot be interpreted as an integer
#          ValueError: expected sequence of length 2 at dim 1 (got 1)

# %% [markdown]
# `[[], [1, 2]]` is accepted, with shape `(2, 0)`: a tensor with no numbers at all.
#
# ### Exercise 5: `nested_shape` (3 points)
#
# Write `nested_shape(data)`, installed as `autograd_lib.creation.nested_shape`: `ag.tensor` and the
# constructor `ag.Tensor` call it on Python data (a number or a 0-dim tensor, or lists and tuples of
# them nested to any depth) before NumPy copies it. Return the shape as a tuple of ints, or raise
# PyTorch's error: every case of the cell above must come out as PyTorch's, and so must any other
# nest, regular or ragged. Worked out: `((1, 2, 3), (4, 5, 6))` has shape `(2, 3)`, `3.5` shape `()`,
# and `[[[1, 2], [3, 4]], [[5, 6], [7]]]` raises
# `ValueError: expected sequence of length 2 at dim 2 (got 1)`. (PyTorch words the `list` error
# `must be real number, not list` when the data is floating point; we keep one message.)
#
# **Rules**
# - `first`: the size expected at each dim is PyTorch's, as the errors above show it
#   (`[[1, 2], [3]]` and `[[1], [2, 3]]`).
# - `item`: a number or a tensor inside the data is one item, of shape `()`; `[]` has shape `(0,)`;
#   the shape is a tuple of ints.
# - `empty`: data whose shape holds a 0 is accepted, whatever the rest of it holds
#   (`[[], [1, 2]]` has shape `(2, 0)`).
# - `every`: a list or tuple of the wrong size raises `ValueError: expected sequence of length N at
#   dim D (got M)`; with several defects, the one PyTorch reports (the last two cases above).
# - `number`: a number where a list is expected raises `TypeError: not a sequence`.
# - `list`: a list or tuple where a number is expected raises
#   `TypeError: 'list' object cannot be interpreted as an integer` (`'tuple'` for a tuple).

# %% nbgrader={"grade": false, "grade_id": "01_nested_shape_answer", "locked": false, "schema_version": 3, "solution": true}
def nested_shape(data):
    """The shape of nested lists and tuples (a tuple of ints); ragged data raises PyTorch's errors.

    data: a number, or lists and tuples of numbers nested to any depth.
    """
    ### BEGIN SOLUTION
    sizes = []
    first = data
    while isinstance(first, (list, tuple)):
        sizes.append(len(first))
        if not first:
            break
        first = first[0]
    shape = tuple(sizes)
    if 0 in shape:
        return shape

    def walk(item, dim):
        nested = isinstance(item, (list, tuple))
        if dim == len(shape):
            if nested:
                kind = type(item).__name__
                raise TypeError(f"'{kind}' object cannot be interpreted as an integer")
            return
        if not nested:
            raise TypeError("not a sequence")
        if len(item) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(item)})")
        for inner in item:
            walk(inner, dim + 1)

    walk(data, 0)
    return shape
    ### END SOLUTION

exercises.plug("01.nested_shape", nested_shape)

# %% [markdown]
# `ag.tensor` and `ag.Tensor` now ask your function for the shape:

# %%
print(tuple(ag.tensor(((1, 2, 3), (4, 5, 6))).shape), tuple(ag.Tensor([[[0.5]]]).shape))  # PyTorch: (2, 3) (1, 1, 1)
print(error_of(ag.Tensor, [[1., 2.], [3.]]))
# PyTorch: ValueError: expected sequence of length 2 at dim 1 (got 1)

# %% [markdown]
# **Tests.** `check.nested_shape` calls your function on numbers, flat and nested lists and tuples, then on ragged data (each error of the rules, at dims 1 and 2) and shapes with a 0; `check.nested_shape_in_the_library` makes tensors from such data with `ag.tensor` and `ag.Tensor`. Hidden tests do the same on random nests, regular and ragged.

# %% nbgrader={"grade": true, "grade_id": "01_nested_shape_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.nested_shape(nested_shape)
### BEGIN HIDDEN TESTS
# Random nests, regular and ragged (one to three defects each, anywhere).
from autograd_course.checks.tensors import compare_nested_shape
compare_nested_shape(nested_shape, seed=113)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "01_nested_shape_test2", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check.nested_shape_in_the_library(nested_shape)
### BEGIN HIDDEN TESTS
# ag.tensor of random nests, regular and ragged.
from autograd_course.checks.tensors import compare_shapes_in_the_library
compare_shapes_in_the_library(nested_shape, seed=114)
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * A tensor carries five attributes for autograd: `data`, `requires_grad`, `grad`, `grad_fn` and
#   `is_leaf`.
# * **Propagation:** each operation decides whether its result requires grad, from its inputs and
#   grad mode; a result that requires grad is recorded with a `grad_fn`.
# * **Leaves:** the tensors a graph starts from; `backward()` fills `.grad` on those that require grad.
# * **dtypes:** Python floats give `float32` and ints `int64`; only floating-point tensors can
#   require grad.
# * **`requires_grad_`** changes leaves only: a non-leaf's flag comes from its `grad_fn`.
# * **`detach()`** shares storage *and* the version counter, so autograd sees in-place changes made
#   through it; `.data` shares storage only, so it hides them.
# * **Type promotion:** a scalar does not change a batch's dtype, unless it is of a higher category.
# * **From Python data:** `tensor(data)` promotes the dtypes of all the items, and refuses ragged
#   data with errors that say where.
#
# Next, in assignment 02, you look inside `grad_fn`: the edges that connect backward nodes into a
# graph.
