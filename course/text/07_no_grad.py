# %% [markdown]
# # Assignment 07: `no_grad` and `detach`
#
# Recording a graph costs time and memory, and most code never calls `backward()`: evaluating a
# model, updating its weights, logging a metric. This assignment is about the two ways of *not*
# recording: **grad mode**, a per-thread switch that `no_grad`, `enable_grad` and `set_grad_enabled`
# turn off and on, as context managers and as decorators; and **detaching** a tensor, with
# `detach()`, `.data` or `detach_()`. You write the machinery behind the switch and two of the ways
# out of the graph, and you measure what `no_grad` saves.
#
# | # | exercise | what you write | points |
# |---|---|---|---|
# | 1 | `07.grad_mode_context` | the three grad modes as context managers | 10 |
# | 2 | `07.grad_mode_decorators` | the grad modes as decorators, of functions and generators | 10 |
# | 3 | `07.detach_and_data` | `.data` and `detach_()` | 7 |
# | | | **total** | **27** |

# %% [markdown]
# ### How an exercise works
#
# A comment `# PyTorch: ...` says what PyTorch 2.13 prints on that line. In an **answer cell** you
# write a function; its last line, `exercises.plug(...)`, installs it in `autograd_lib`, so the demos
# after it run your code. Each task ends with the rules its test cells check (`check` is
# `autograd_course/checks/no_grad.py`); a failure prints what was expected, what was seen and the
# rule broken. Hidden tests check the same rules on random programs.
#
# **The way out.** Exercise 1 runs in *every* `with ag.no_grad():` and every `backward()`, here and
# inside the library. If it does not work yet, `exercises.unplug("07.grad_mode_enter")` (and
# `"07.grad_mode_exit"`, `"07.set_grad_enabled"`; any exercise's id) puts the library's version back,
# and you can go on.

# %% nbgrader={"grade": false, "grade_id": "07_setup", "locked": true, "schema_version": 3, "solution": false}
import gc
import threading
import time
import tracemalloc
import warnings

import numpy as np
import matplotlib.pyplot as plt
from matplotlib import ticker

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import error_of, reveal
from autograd_course.checks import no_grad as check

_ = ag.manual_seed(0)      # seeds randn, rand, ... (it returns a generator we don't need)

# %% [markdown]
# ## 1. Grad mode: one switch per thread
#
# A result requires grad exactly when grad mode is on and one of its inputs requires grad
# (assignment 01). Grad mode is a switch, on by default, that `is_grad_enabled()` reads; inside
# `with torch.no_grad():` it is off. The switch belongs to a **thread**: a training loop in one
# thread and an evaluation in another must not turn each other's recording off. Below, a worker
# thread started inside `no_grad` still sees grad mode on:

# %%
print(ag.is_grad_enabled())         # PyTorch: True
seen = []

def worker():
    seen.append(ag.is_grad_enabled())

with ag.no_grad():
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    print("main thread:", ag.is_grad_enabled(), "  worker thread:", seen[0])
    # PyTorch: main thread: False   worker thread: True


# %% [markdown]
# > **Aside.** `autograd_lib/grad_mode.py` keeps the switch in an instance of a subclass of
# > Python's `threading.local`, whose attributes are separate in every thread. `is_grad_enabled()`
# > reads it, and `ag.grad_mode._set_grad_enabled(on)` (PyTorch's `torch._C._set_grad_enabled`)
# > sets it, for the calling thread only. Here a worker thread switches its own mode off, and the
# > main thread does not notice:

# %%
def switch_off_in_worker():
    ag.grad_mode._set_grad_enabled(False)
    seen.append(ag.is_grad_enabled())

seen = []
thread = threading.Thread(target=switch_off_in_worker)
thread.start()
thread.join()
print("worker thread:", seen[0], "  main thread:", ag.is_grad_enabled())

# %% [markdown]
# ## 2. What `no_grad` does to results
#
# Under `no_grad`, no operation is recorded: a result gets no `grad_fn`, does not require grad, and
# is therefore a leaf. The inputs are not touched:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
with ag.no_grad():
    y = x * 2
print(y, y.requires_grad, y.grad_fn, y.is_leaf)     # PyTorch: tensor([2., 4., 6.]) False None True
print(x.requires_grad)                              # PyTorch: True

# %% [markdown]
# A value computed under `no_grad` is a **constant** for every graph built later. Below, `c` holds
# $2x$, but the gradient of `(c * x).sum()` is `c`, not $4x$: only the second factor is recorded, and
# the first input of `MulBackward0` is a dotted `None` stub in the graph:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
with ag.no_grad():
    c = x * 2
loss = (c * x).sum()
loss.backward()
print(x.grad)           # PyTorch: tensor([2., 4., 6.])
ag.viz.draw_graph(loss, names={"x": x, "loss": loss}, title="loss = (c * x).sum(), c = 2x computed under no_grad")

# %% [markdown]
# **`model.eval()` is not `no_grad`.** `eval()` switches layers such as dropout and batch norm to
# their evaluation behaviour, and nothing else: the graph is still recorded. Evaluation code usually
# wants both:

# %%
model = ag.nn.Linear(3, 1)
model.eval()
print(model(ag.ones(3)).requires_grad)          # PyTorch: True
with ag.no_grad():
    print(model(ag.ones(3)).requires_grad)      # PyTorch: False


# %% [markdown]
# ## 3. Context managers: `__enter__` and `__exit__`
#
# `with cm:` calls `cm.__enter__()`, runs the block, then calls
# `cm.__exit__(exc_type, exc_value, traceback)`, **whatever happens in the block**. If the block
# raised, the three arguments describe the exception, which goes on after `__exit__` unless
# `__exit__` returns a true value (then it is *swallowed*); otherwise they are `None`. What
# `__enter__` returns is what `with cm as value:` binds.

# %%
class Announce:
    """A context manager that prints what Python calls."""

    def __enter__(self):
        print("  __enter__")

    def __exit__(self, exc_type, exc_value, traceback):
        print("  __exit__ with", None if exc_type is None else exc_type.__name__)
        return False                 # False (or None): an exception goes on


with Announce() as value:
    print("  the block; value =", value)

try:
    with Announce():
        print("  the block raises")
        raise ValueError("inside the block")
except ValueError as e:
    print("caught after __exit__:", e)

# %% [markdown]
# `no_grad` and `enable_grad` are classes that differ only in a class attribute `mode` (`False`,
# `True`), and share `__enter__` and `__exit__` through a base class, `_GradModeContext`.
# `enable_grad` is for code that needs a graph even when its caller turned recording off (06's `hvp`
# computes a gradient of a gradient under it). PyTorch, with the mode at each point:
#
# ```python
# x = torch.tensor([1., 2., 3.], requires_grad=True)
# with torch.no_grad():                                   # False inside
#     with torch.enable_grad():                           # True inside
#         a = x * 2
#     b = x * 2                                           # False again
#     with torch.no_grad():
#         pass
#     print(torch.is_grad_enabled())                      # False
# c = x * 2
# print(a.requires_grad, b.requires_grad, c.requires_grad)   # True False True
# try:
#     with torch.no_grad():
#         raise ValueError("inside the block")
# except ValueError as e:
#     print("ValueError:", e, "| grad mode:", torch.is_grad_enabled())
#                                   # ValueError: inside the block | grad mode: True
# ctx = torch.no_grad()                                   # one object, entered three times
# for start in (True, False, True):
#     torch.set_grad_enabled(start)
#     with ctx as value:
#         pass
#     print(value, torch.is_grad_enabled(), end=" | ")    # None True | None False | None True
# ```
#
# Without the second experiment, one failed evaluation step would leave a training program that
# trains nothing, without any error.

# %% [markdown]
# ## 4. `set_grad_enabled`: a switch with an argument
#
# `set_grad_enabled(mode)` takes the mode as an argument, handy when one loop serves both training
# and evaluation. It works as a plain call, as a context manager and as a decorator (section 5):

# %%
ag.set_grad_enabled(False)
print(ag.is_grad_enabled())                 # PyTorch: False
ag.set_grad_enabled(True)
with ag.set_grad_enabled(False):
    print(ag.is_grad_enabled())             # PyTorch: False
print(ag.is_grad_enabled())                 # PyTorch: True
x = ag.tensor([1., 2., 3.], requires_grad=True)
for phase in ("train", "eval"):
    with ag.set_grad_enabled(phase == "train"):
        out = x * 2
    print(phase, out.requires_grad)         # PyTorch: train True
                                            #          eval False

# %% [markdown]
# **One class, three uses.** `ag.set_grad_enabled(False)` alone on a line makes an object and throws
# it away, and still switches. As a decorator, making the object switches too, and yet the program's
# mode after the `@` line is the one from before it (section 5). `set_grad_enabled` inherits
# `__exit__` from the same base class as `no_grad`, and has an `__enter__` of its own. PyTorch's
# class is built the same way, down to one surprise:

# %% [markdown]
# **Predict, then run.** Recording is on. `switch = ag.set_grad_enabled(True)` makes an object;
# then `ag.set_grad_enabled(False)` switches recording off; then `with switch: pass` runs. Is recording
# on or off after that block? Write `True` for on, `False` for off.

# %%
prediction = ...      # True (recording on after the block) or False (off)

# %%
switch = ag.set_grad_enabled(True)      # made while recording is on
ag.set_grad_enabled(False)
with switch:
    pass
reveal(prediction, ag.is_grad_enabled(),
       why="PyTorch prints True as well. The next cell enters one such object from several modes")
_ = ag.set_grad_enabled(True)

# %% [markdown]
# One object, made while recording is off, entered from three modes; each group prints the mode
# before the block, inside it and after it:

# %%
ag.set_grad_enabled(False)
switch = ag.set_grad_enabled(True)            # made while recording is off
for start in (True, False, True):
    ag.set_grad_enabled(start)
    with switch:
        inside = ag.is_grad_enabled()
    print(start, inside, ag.is_grad_enabled(), end=" | ")
# PyTorch: True True False | False True False | True True False |
_ = ag.set_grad_enabled(True)


# %% [markdown]
# ### Exercise 1: `grad_mode_context` (10 points)
#
# Write the three grad modes' context machinery: `grad_mode_enter(self)` and
# `grad_mode_exit(self, exc_type, exc_value, traceback)`, installed as `_GradModeContext.__enter__`
# and `__exit__` (so shared by `no_grad`, `enable_grad` and, for `__exit__`, `set_grad_enabled`), and
# `set_grad_enabled_init(self, mode)`, installed as `set_grad_enabled.__init__`. Every experiment of
# sections 1, 3 and 4 must print what PyTorch prints. What an object keeps, and where, is yours to
# decide. `backward()` runs its formulas inside `with set_grad_enabled(create_graph):`, so every
# backward pass runs your code.
#
# What exists (the library's, not yours to write):
#
# | name | what it is |
# |---|---|
# | `ag.is_grad_enabled()`, `ag.grad_mode._set_grad_enabled(on)` | read, set this thread's grad mode |
# | `mode` | the mode a context stands for: a class attribute of `no_grad` (`False`) and `enable_grad` (`True`); on a `set_grad_enabled` object, read by the three methods below |
# | `set_grad_enabled.__enter__` | switches to the object's `mode` |
# | `set_grad_enabled.__call__` | decorating: calls `self.__exit__(None, None, None)`, then runs every call in a new `type(self)(self.mode)` |
# | `set_grad_enabled.__repr__` | `autograd_lib.autograd.grad_mode.set_grad_enabled(mode=True)` |
#
# PyTorch takes a `bool` and nothing else, not even `1`, `None` or a NumPy bool:
#
# ```python
# >>> torch.set_grad_enabled(1)
# TypeError: set_grad_enabled(): argument 'enabled' (position 1) must be bool, not int
# ```
#
# (Calling the library's `grad_mode._type_name` is a `DelegationError`.)
#
# **Rules**
# - `switch`: inside a block, grad mode is the context's mode: off in `no_grad()`, on in
#   `enable_grad()`, `mode` in `set_grad_enabled(mode)` (also when the mode changed between making
#   the object and entering it); `repr` shows that mode.
# - `at-once`: `set_grad_enabled(mode)` switches as soon as it is made, also as a plain call.
# - `restore`: after a block, grad mode is what PyTorch's is after the same block: section 3 nests
#   blocks, and section 4 enters `set_grad_enabled` objects made in another mode.
# - `previous`: an object entered again, and two objects of one class nested, end their blocks as
#   PyTorch's do (the last experiment of section 3).
# - `raised`: a block that raised ends in the mode it would have ended in without the error, and the
#   exception goes on to the caller: it is never swallowed.
# - `as-none`: `with ctx as value:` binds `None`, as in PyTorch.
# - `thread`: a block, or a plain `set_grad_enabled` call, changes its own thread's mode only.
# - `bool-only`: a mode that is not a `bool` is PyTorch's `TypeError` above, ending with the name of
#   the value's type (a NumPy type may be named with or without its module, `numpy.bool`).
# - `refuses-first`: a refused mode changes nothing: grad mode stays as it was.
# - `decorates`: `@set_grad_enabled(mode)` leaves the mode after the `@` line as it was before it,
#   and each call of the function runs in `mode`.

# %% nbgrader={"grade": false, "grade_id": "07_grad_mode_context_answer", "locked": false, "schema_version": 3, "solution": true}
def grad_mode_enter(self):
    """Enter a no_grad() or enable_grad() block. Returns None."""
    ### BEGIN SOLUTION
    self._previous = ag.is_grad_enabled()
    ag.grad_mode._set_grad_enabled(self.mode)
    ### END SOLUTION


def grad_mode_exit(self, exc_type, exc_value, traceback):
    """Leave a grad-mode block (no_grad, enable_grad or set_grad_enabled), whether or not it
    raised."""
    ### BEGIN SOLUTION
    ag.grad_mode._set_grad_enabled(self._previous)
    return False
    ### END SOLUTION


def set_grad_enabled_init(self, mode):
    """The constructor of set_grad_enabled(mode), as PyTorch's behaves: a plain call, a block
    and a decorator."""
    ### BEGIN SOLUTION
    if type(mode) is not bool:
        raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    self.mode = mode
    self._previous = ag.is_grad_enabled()
    ag.grad_mode._set_grad_enabled(mode)
    ### END SOLUTION

exercises.plug("07.grad_mode_enter", grad_mode_enter)
exercises.plug("07.grad_mode_exit", grad_mode_exit)
exercises.plug("07.set_grad_enabled", set_grad_enabled_init)

# %% [markdown]
# Every `with ag.no_grad():`, `with ag.enable_grad():` and `ag.set_grad_enabled(...)` now runs your
# functions: PyTorch's nesting example, with the mode at each step, then an exception leaving a
# nested block, and a `backward()` inside `no_grad` (the graph was recorded before):

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
with ag.no_grad():
    print("in no_grad:            ", ag.is_grad_enabled())
    with ag.enable_grad():
        print("in enable_grad:        ", ag.is_grad_enabled())
        a = x * 2
    b = x * 2
    with ag.no_grad():
        print("in the inner no_grad:  ", ag.is_grad_enabled())
    print("back in the outer one: ", ag.is_grad_enabled())
c = x * 2
print(a.requires_grad, b.requires_grad, c.requires_grad)

# %%
with ag.no_grad():
    try:
        with ag.enable_grad():
            raise ValueError("inside enable_grad")
    except ValueError as e:
        print("ValueError:", e, "| grad mode:", ag.is_grad_enabled())
print("after no_grad:", ag.is_grad_enabled())

x = ag.tensor([1., 2., 3.], requires_grad=True)
loss = (x * x).sum()
with ag.no_grad():
    loss.backward()
    print("after backward inside no_grad:", ag.is_grad_enabled(), x.grad)

# %% [markdown]
# And `set_grad_enabled`: a plain call, a train/eval loop, a decorator, two refusals, and
# `autograd.grad(..., create_graph=True)` inside `no_grad`, whose formulas run in
# `with set_grad_enabled(True):`:

# %%
ag.set_grad_enabled(False)
print("after ag.set_grad_enabled(False):", ag.is_grad_enabled())
ag.set_grad_enabled(True)
x = ag.tensor([1., 2., 3.], requires_grad=True)
for phase in ("train", "eval"):
    with ag.set_grad_enabled(phase == "train"):
        out = x * 2
    print(phase, out.requires_grad)


@ag.set_grad_enabled(False)
def triple(t):
    return t * 3


print("after decorating:", ag.is_grad_enabled(), "| triple(x).requires_grad:", triple(x).requires_grad)
for value in (1, None):
    try:
        ag.set_grad_enabled(value)
    except TypeError as e:
        print("TypeError:", e)
cubes = (x ** 3).sum()                  # recorded: grad mode is on here
with ag.no_grad():
    (g,) = ag.autograd.grad(cubes, x, create_graph=True)
    print("inside no_grad: g.requires_grad =", g.requires_grad, "| grad mode:", ag.is_grad_enabled())
print("after the block:", ag.is_grad_enabled())

# %% [markdown]
# **Tests.** `check.grad_mode_context` enters every kind of context from either mode, as a block and
# by calling `__enter__`/`__exit__` by hand, with and without errors, and enters objects again;
# `check.grad_mode_context_in_the_library` nests blocks, uses a thread and runs `backward()` inside
# `no_grad()`; `check.set_grad_enabled` makes objects from either mode and tries seven values that
# are not bools; `check.set_grad_enabled_in_the_library` runs PyTorch's examples, decorators and a
# thread. Hidden tests: random uses, random programs, subclasses.

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_context_test", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.grad_mode_context(grad_mode_enter, grad_mode_exit, set_grad_enabled_init)
### BEGIN HIDDEN TESTS
from autograd_course.checks.no_grad import check_uses, context_slots

check_uses(context_slots(grad_mode_enter, grad_mode_exit, set_grad_enabled_init), seed=702, count=12)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_context_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.grad_mode_context_in_the_library(grad_mode_enter, grad_mode_exit, set_grad_enabled_init)
### BEGIN HIDDEN TESTS
from autograd_course.checks.no_grad import (PROGRAMS, REMEMBER, RESTORE_RAISED, check_programs, check_reused,
                                            context_slots, grad_mode_on, random_programs, run_program)

CONTEXT = context_slots(grad_mode_enter, grad_mode_exit, set_grad_enabled_init)
programs = random_programs(seed=701, count=40) + random_programs(seed=711, count=40)
expected, seen = grading.side_by_side(CONTEXT, None, lambda _: [run_program(program) for program in programs])
grad_mode_on()
check_programs(programs, seen, expected, rule=PROGRAMS)
check_reused(703, 8, CONTEXT, rule=REMEMBER)
check_reused(713, 8, CONTEXT, rule=RESTORE_RAISED)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_context_test3", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.set_grad_enabled(grad_mode_enter, grad_mode_exit, set_grad_enabled_init)
### BEGIN HIDDEN TESTS
from autograd_course.checks.set_grad import check_switch_plans

check_switch_plans((grad_mode_enter, grad_mode_exit, set_grad_enabled_init), seed=751, count=16)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_context_test4", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.set_grad_enabled_in_the_library(grad_mode_enter, grad_mode_exit, set_grad_enabled_init)
### BEGIN HIDDEN TESTS
from autograd_course.checks.set_grad import REMEMBERS, check_switch_plans, slots_of
from autograd_course.checks.no_grad import check_programs, grad_mode_on, random_programs, run_program

CONTEXT = (grad_mode_enter, grad_mode_exit, set_grad_enabled_init)
programs = random_programs(seed=752, count=40)
expected, seen = grading.side_by_side(slots_of(CONTEXT), None, lambda _: [run_program(program) for program in programs])
grad_mode_on()
check_programs(programs, seen, expected, rule=REMEMBERS)
check_switch_plans(CONTEXT, seed=753, count=16)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Grad modes as decorators
#
# A function that should never record, such as a `predict` or an optimizer's `step`, can say so once,
# with a decorator. All three grad modes are decorators, `no_grad` and `enable_grad` also without
# parentheses. A decorated function keeps its name and docstring, and decorating with
# `set_grad_enabled(False)` does not switch recording off:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)

@ag.no_grad()
def predict(t):
    return t * 2

@ag.no_grad
def double(t):
    """Twice t."""
    return t * 2

@ag.set_grad_enabled(False)
def triple(t):
    return t * 3

print(predict(x).requires_grad, double(x).requires_grad,
      triple(x).requires_grad)              # PyTorch: False False False
print(double.__name__, double.__doc__)      # PyTorch: double Twice t.
print(ag.is_grad_enabled())                 # PyTorch: True

# %% [markdown]
# **Why a new context for every call?** A context remembers *one* previous mode, and a decorated
# function may run while another call of it is still running. One `no_grad()` object shared by the
# calls of a recursive function:

# %%
shared = ag.no_grad()             # ONE context object, used by every call

def count_down(n):
    with shared:
        if n > 0:
            count_down(n - 1)

count_down(2)
print("after count_down(2):", ag.is_grad_enabled())
ag.grad_mode._set_grad_enabled(True)      # repair the damage

# %% [markdown]
# The outer call remembered `True`, the inner one overwrote it with `False`, and the outer call
# "restored" `False`: recording stayed off for the rest of the program.

# %% [markdown]
# ### Generators: a body that runs step by step
#
# A **generator function**, one whose body contains `yield`, needs a decorator of its own. Calling it
# runs none of its body: it returns a *generator*, whose body runs one **step** at a time, from where
# it paused to the next `yield`. Data loaders and evaluation loops are often generators. The caller
# resumes a paused generator in four ways: `next(gen)` (the paused `yield` gives `None`),
# `gen.send(value)` (it gives `value`), `gen.throw(error)` (it raises `error`; if the generator
# catches it and yields again, `throw` returns that value) and `gen.close()` (it raises
# `GeneratorExit`, and the generator's `finally` blocks run). When the body returns, the step raises
# `StopIteration`, whose `.value` is the returned value:

# %%
def countdown(n):
    """Yields n, n - 1, ..., 1 and returns "liftoff"; a value sent in replaces the count."""
    print("  [countdown starts]")
    try:
        while n > 0:
            sent = yield n
            n = n - 1 if sent is None else sent
        return "liftoff"
    finally:
        print("  [countdown's finally block]")


gen = countdown(3)                        # nothing runs yet
print("made a", type(gen).__name__)
print("next:", next(gen))                 # runs to the first yield
print("send(2):", gen.send(2))            # the paused yield gives 2
print("next:", next(gen))
try:
    next(gen)                             # the loop ends: return "liftoff"
except StopIteration as stop:
    print("StopIteration, value:", stop.value)

gen = countdown(5)
next(gen)
try:
    gen.throw(ValueError("stop counting"))    # raised at the paused yield, not caught there
except ValueError as e:
    print("ValueError:", e)
gen = countdown(5)
next(gen)
gen.close()                               # GeneratorExit at the paused yield: the finally block runs

# %% [markdown]
# **Predict, then run.** A generator of batches is *called* inside `no_grad`, and stepped after the
# block. Does the first batch that comes out require grad? Write `True` or `False`.

# %%
prediction = ...      # True or False: does the first batch require grad?

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)


def batches(n):
    for i in range(n):
        yield x * (i + 1)


with ag.no_grad():
    gen = batches(2)                      # called under no_grad
first = next(gen)                         # stepped after the block
reveal(prediction, first.requires_grad,
       why="calling batches(2) ran none of its body: the body ran at next(gen), after the with block had "
           "ended, so x * 1 was recorded")

# %% [markdown]
# So a context around the *call* protects nothing in a generator. PyTorch's decorators put the mode
# around each **step** instead, and give the caller its own mode back between steps. A decorated
# generator stepped in every way, then a decorated *class* (PyTorch warns, and still decorates):

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)


@ag.no_grad()
def batches(n):
    """Batches of x, computed without a graph."""
    try:
        for i in range(n):
            sent = yield x * (i + 1), ag.is_grad_enabled()
            print("  [batches] sent in:", sent)
        return "all done"
    except KeyError:
        yield "caught a KeyError", ag.is_grad_enabled()
    finally:
        print("  [batches] finally, mode:", ag.is_grad_enabled())


gen = batches(3)                                  # runs nothing yet
batch, inside = next(gen)
print(batch.requires_grad, inside, ag.is_grad_enabled(), (x * 2).requires_grad)
# PyTorch: False False True True
batch, inside = gen.send("hello")                 # PyTorch:   [batches] sent in: hello
print(batch.requires_grad, inside, ag.is_grad_enabled())       # PyTorch: False False True
print(gen.throw(KeyError("stop")), ag.is_grad_enabled())       # PyTorch: ('caught a KeyError', False) True
gen.close()                                       # PyTorch:   [batches] finally, mode: False
gen = batches(1)
next(gen)
try:
    next(gen)                                     # PyTorch:   [batches] sent in: None
except StopIteration as stop:                     #            [batches] finally, mode: False
    print("returned:", stop.value)                # PyTorch: returned: all done
print(batches.__name__, "|", batches.__doc__, "|", batches.__wrapped__.__qualname__)
# PyTorch: batches | Batches of x, computed without a graph. | batches


class Probe:
    """Remembers the grad mode it was made in."""

    def __init__(self):
        self.mode = ag.is_grad_enabled()


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    make_probe = ag.no_grad()(Probe)
print(caught[0].category.__name__ + ":", str(caught[0].message).split(". ")[0])
# PyTorch: FutureWarning: Decorating classes is deprecated and will be disabled in future versions
probe = make_probe()
print(type(probe).__name__, probe.mode, make_probe.__name__)     # PyTorch: Probe False <lambda>

# %% [markdown]
# ### Exercise 2: `grad_mode_decorators` (10 points)
#
# Every grad-mode decorator (`@no_grad`, `@enable_grad()`, `@set_grad_enabled(mode)`, a
# `set_grad_enabled` object made earlier, ...) ends in `ag.grad_mode.decorate(make_context, fn)`, where
# `make_context()` makes a new context of the decorator's kind and mode; what `decorate` returns is
# what the `@` line binds. Write `decorate`, and `decorate_generator(make_context, fn)`, the decorated
# form of a generator function `fn` (the tests reach it through `decorate` and call it alone too), so
# that everything decorated behaves as PyTorch's does in this section's experiments. `make_context`
# may be any zero-argument callable that makes a context manager: the tests pass one that records when
# its contexts are made, entered and left. (A `StopIteration` that escapes a generator's body becomes
# `RuntimeError: generator raised StopIteration`.)
#
# **Rules**
# - `fresh`: each call of a decorated function, and each step of a decorated generator, runs in a
#   context made for it when it starts; decorating makes none (`@set_grad_enabled(False)` leaves the
#   mode as it was), so recursion and nesting see PyTorch's modes.
# - `inside`: all of a function's body runs in the mode, and the caller's mode is back after the call.
# - `arguments`: positional and keyword arguments reach `fn`.
# - `returns`: a decorated function returns what `fn` returns; a decorated generator returns what its
#   generator returns (`StopIteration.value`), also before any `yield`.
# - `propagates`: an exception from `fn`, at a call or at a step, goes on to the caller, whose mode is
#   back.
# - `wraps`: a decorated function or generator function has `fn`'s `__name__`, `__qualname__`,
#   `__doc__` and `__module__`, and its `__wrapped__` is `fn`.
# - `lazy`: a decorated generator function is a generator function: calling it runs none of `fn`'s
#   body and makes no context.
# - `steps`: every step of its generator (the first, `next`, `send`, `throw`, `close`) runs in the mode.
# - `between`: between two steps, the caller's own mode is back.
# - `send`: a value sent in reaches the generator, and what it yields next comes out.
# - `throw`: an exception thrown in is raised at the paused `yield`: if the generator handles it, what
#   it yields next comes out; if not, it goes on to the caller.
# - `close`: `close()` closes the generator at once, its `finally` blocks running in the mode.
# - `classes`: decorating a class warns with PyTorch's `FutureWarning` (its first sentence above) and
#   gives a function whose calls make objects of the class in the mode.

# %% nbgrader={"grade": false, "grade_id": "07_grad_mode_decorators_answer", "locked": false, "schema_version": 3, "solution": true}
import functools
import inspect


def decorate(make_context, fn):
    """fn decorated as PyTorch's grad-mode decorators decorate it, each call (or step) in a new
    context make_context()."""
    ### BEGIN SOLUTION
    if inspect.isclass(fn):
        warnings.warn("Decorating classes is deprecated and will be disabled in future versions.",
                      FutureWarning, stacklevel=3)
        cls = fn

        def fn(*args, **kwargs):
            return cls(*args, **kwargs)
    if inspect.isgeneratorfunction(fn):
        return ag.grad_mode.decorate_generator(make_context, fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with make_context():
            return fn(*args, **kwargs)
    return wrapper
    ### END SOLUTION


def decorate_generator(make_context, fn):
    """fn, a generator function, decorated as PyTorch's grad-mode decorators decorate it."""
    ### BEGIN SOLUTION
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        generator = fn(*args, **kwargs)
        try:
            with make_context():
                response = next(generator)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        generator.close()
                    raise
                except BaseException as error:
                    with make_context():
                        response = generator.throw(error)
                else:
                    with make_context():
                        response = generator.send(request)
        except StopIteration as stop:
            return stop.value
    return wrapper
    ### END SOLUTION

exercises.plug("07.grad_mode_decorator", decorate)
exercises.plug("07.grad_mode_generator", decorate_generator)


# %% [markdown]
# Decorators now go through your functions: the recursive function decorated this time (a context per
# call), an `enable_grad` function called inside `no_grad`, and the generator of batches again:

# %%
@ag.no_grad
def count_down(n):
    """Recurse n times under no_grad."""
    if n > 0:
        count_down(n - 1)
    return ag.is_grad_enabled()

print("inside:", count_down(2), "  after count_down(2):", ag.is_grad_enabled())
print(count_down.__name__, "-", count_down.__doc__)

x = ag.tensor([1., 2., 3.], requires_grad=True)

@ag.enable_grad()
def recorded(t):
    return t * 2

with ag.no_grad():
    print("enable_grad-decorated call inside no_grad:", recorded(x).requires_grad)


@ag.no_grad()
def batches(n):
    """Batches of x, computed without a graph."""
    try:
        for i in range(n):
            yield x * (i + 1), ag.is_grad_enabled()
    finally:
        print("  [batches' finally block] grad mode:", ag.is_grad_enabled())


for batch, inside in batches(2):
    print("batch.requires_grad:", batch.requires_grad, "| mode inside:", inside,
          "| the caller's mode:", ag.is_grad_enabled(), "| (x * 2).requires_grad:", (x * 2).requires_grad)
gen = batches(5)
next(gen)
gen.close()

# %% [markdown]
# **Tests.** `check.grad_mode_decorator` and `check.grad_mode_generator` decorate functions, a class
# and generators with a context that records when it is made, entered and left, and step the
# generators in every way; the `_in_the_library` checks use the library's decorators. Hidden tests:
# random functions, generators, steps and programs.

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_decorators_test", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.grad_mode_decorator(decorate, decorate_generator)
### BEGIN HIDDEN TESTS
from autograd_course.checks.no_grad import (ARGUMENTS, EVENTS, INSIDE, MAKES_NONE, PROPAGATES, RETURNS,
                                            WRAPS, Boom, decorator_slots, recorder_class, wrapped_names)
from autograd_course.notebook import outcome, shown

events = []
Recorder = recorder_class(events)      # the visible check's context class: records into events
DECORATORS = decorator_slots(decorate, decorate_generator)

NAMES = ["scale", "predict", "evaluate", "step", "loss_of", "forward", "update", "measure"]
ERRORS = [ValueError, KeyError, RuntimeError, TypeError, ZeroDivisionError, Boom]


def decorator_plan(rng):
    """A function with a random name and docstring, a context factory of a random kind (a Recorder
    subclass of a random name, or a function that makes one), and random calls: positional and
    keyword arguments, a random result, or a random error raised by the function."""
    name = f"{NAMES[int(rng.integers(len(NAMES)))]}_{int(rng.integers(100))}"
    doc = f"Returns {int(rng.integers(100))} things." if rng.integers(4) else None
    factory = (f"Context{int(rng.integers(100))}", ["class", "function"][int(rng.integers(2))])
    calls = []
    for _ in range(int(rng.integers(1, 5))):
        args = tuple(int(k) for k in rng.integers(-9, 10, size=int(rng.integers(0, 4))))
        kwargs = {key: int(rng.integers(-9, 10)) for key in ("scale", "shift", "tag") if rng.integers(3) == 0}
        error = (int(rng.integers(len(ERRORS))), f"error {int(rng.integers(100))}") if rng.integers(4) == 0 else None
        calls.append((args, kwargs, error, int(rng.integers(1000))))
    return name, doc, factory, calls


def call_text(name, args, kwargs):
    return f"{name}({', '.join([str(a) for a in args] + [f'{k}={v}' for k, v in kwargs.items()])})"


def decorator_story(plan):
    """ag.grad_mode.decorate a planned function, then call it as planned. Returns the events made by
    decorating, its names (wrapped_names), and per call (its outcome, its events)."""
    name, doc, (context_name, form), calls = plan
    events.clear()
    results = iter(calls)

    def planned(*args, **kwargs):
        events.append(("call", args, kwargs))
        _, _, error, result = next(results)
        if error is not None:
            raise ERRORS[error[0]](error[1])
        return [result, len(args), sorted(kwargs)]

    planned.__name__ = planned.__qualname__ = name
    planned.__doc__ = doc
    context_class = type(context_name, (Recorder,), {})

    def make_context():
        return context_class()

    if form == "class":
        make_context = context_class
    wrapped = outcome(ag.grad_mode.decorate, make_context, planned)
    made = list(events)
    story = []
    for args, kwargs, _, _ in calls:
        events.clear()
        result = outcome(wrapped, *args, **kwargs) if callable(wrapped) else wrapped
        story.append((result if isinstance(result, list) else shown(result), list(events)))
    return made, wrapped_names(wrapped, planned), story


plans = [decorator_plan(rng) for rng in grading.random_cases(seed=722, count=8)]
expected_all, seen_all = grading.side_by_side(DECORATORS, None, lambda _: [decorator_story(plan) for plan in plans])
events.clear()
for n, ((name, doc, (context_name, form), calls), seen, wanted) in enumerate(zip(plans, seen_all, expected_all)):
    factory = context_name if form == "class" else f"lambda: {context_name}()"
    what = f"random case #{n}, wrapped = decorate({factory}, {name})"
    grading.expect_equal(seen[0], wanted[0], what=f"the contexts made by decorate itself, {what}", rule=MAKES_NONE)
    for (args, kwargs, error, _), (s, s_events), (e, e_events) in zip(calls, seen[2], wanted[2]):
        call = f"{what}: the outcome of {call_text('wrapped', args, kwargs)}"
        grading.expect_equal(s, e, what=call + (f" (the function raises {ERRORS[error[0]].__name__})" if error else ""),
                             rule=PROPAGATES if error is not None else ARGUMENTS if kwargs else
                             INSIDE if isinstance(s, str) else RETURNS)
        grading.expect_equal(s_events, e_events, what=f"{what}: the events of {call_text('wrapped', args, kwargs)}",
                             rule=EVENTS)
    grading.expect_equal(seen[1], wanted[1], what=f"(__name__, __qualname__, __doc__, __module__, __wrapped__ is "
                                                  f"the function) of wrapped, {what}", rule=WRAPS)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_decorators_test2", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check.grad_mode_decorator_in_the_library(decorate, decorate_generator)
### BEGIN HIDDEN TESTS
from autograd_course.checks.no_grad import DECORATED, check_programs, decorator_slots, grad_mode_on, random_programs, run_program

programs = random_programs(seed=721, count=40)
expected, seen = grading.side_by_side(decorator_slots(decorate, decorate_generator), None,
                                      lambda _: [run_program(program) for program in programs])
grad_mode_on()
check_programs(programs, seen, expected, rule=DECORATED)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_decorators_test3", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.grad_mode_generator(decorate, decorate_generator)
### BEGIN HIDDEN TESTS
from autograd_course.checks.grad_mode_generators import check_scripts

check_scripts((decorate, decorate_generator), seed=761, count=24)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_grad_mode_decorators_test4", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.grad_mode_generator_in_the_library(decorate, decorate_generator)
### BEGIN HIDDEN TESTS
from autograd_course.checks.grad_mode_generators import check_mode_scripts

check_mode_scripts((decorate, decorate_generator), seed=762, count=24)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Inference with and without `no_grad`, measured
#
# What does `no_grad` save? Take 6 layers `Linear(128, 128)`, each followed by a `ReLU`, and run
# them forward on a batch. With grad mode on, every layer records a node, and the nodes keep their
# **saved tensors** alive until a backward pass frees them (assignment 06): `addmm`, inside `Linear`,
# saves its input, and `ReLU` its output. If no backward ever comes, they live as long as the output
# does. Under `no_grad` each layer's output is freed once the next layer has used it. The bytes the
# graph behind the output has saved, each storage once, parameters left out:

# %%
def mlp(depth=6, width=128):
    """depth layers Linear(width, width), each followed by ReLU."""
    layers = []
    for _ in range(depth):
        layers += [ag.nn.Linear(width, width), ag.nn.ReLU()]
    return ag.nn.Sequential(*layers)


def storage(array):
    """The NumPy array that owns the memory of `array` (a view's base, followed to the end)."""
    while array.base is not None:
        array = array.base
    return array


def saved_bytes(output, model):
    """Bytes of the distinct storages saved by the graph behind output, parameters left out."""
    parameters = {id(storage(p._data)) for p in model.parameters()}
    saved = {}
    for node in ag.viz.graph_nodes(output):
        for value in node._saved.values():
            if value is not None:
                array = storage(value.tensor._data)
                if id(array) not in parameters:
                    saved[id(array)] = array.nbytes
    return len(saved), sum(saved.values())


model = mlp()
batch = ag.randn(256, 128)
out = model(batch)
print("with grad: %d arrays saved, %d bytes" % saved_bytes(out, model))
with ag.no_grad():
    out = model(batch)
print("no_grad:   grad_fn =", out.grad_fn, " (no graph, nothing saved)")
print("one batch of activations: 256 x 128 float32 =", 256 * 128 * 4, "bytes")

# %% [markdown]
# Seven arrays: the input batch and the outputs of the six `ReLU`s (each also the next `addmm`'s
# input). Now over batch sizes from 16 to 1024: the memory still allocated after the forward pass
# (`tracemalloc`, assignment 06), and the best time of 7 runs (which differs from machine to machine,
# so it is only drawn):

# %%
MB = 1e6


def memory_held(model, x, grad):
    """MB allocated after model(x) with grad mode `grad`, while the output is alive."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with ag.set_grad_enabled(grad):
            out = model(x)
        held = tracemalloc.get_traced_memory()[0] - before
        del out                                    # measured while it was alive
    finally:
        tracemalloc.stop()
    return held / MB


def forward_time(model, x, grad):
    """The time of one forward pass model(x) with grad mode `grad`, in milliseconds."""
    start = time.perf_counter()
    with ag.set_grad_enabled(grad):
        model(x)
    return (time.perf_counter() - start) * 1e3


batches = [16, 64, 256, 1024]
inputs = [ag.randn(n, 128) for n in batches]
gc.collect()                         # once: tracemalloc counts only what is allocated after start()
memory = {grad: [memory_held(model, x, grad) for x in inputs] for grad in (True, False)}
times = {grad: [float("inf")] * len(batches) for grad in (True, False)}
for _ in range(7):                   # the best of 7 rounds, the runs interleaved
    for i, x in enumerate(inputs):
        for grad in (True, False):
            times[grad][i] = min(times[grad][i], forward_time(model, x, grad))

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
for grad, label in ((True, "grad mode on"), (False, "no_grad")):
    left.plot(batches, memory[grad], marker="o", label=label)
    right.plot(batches, times[grad], marker="o", label=label)
left.set_title("memory held after the forward pass")
left.set_ylabel("MB")
right.set_title("time of one forward pass (best of 7)")
right.set_ylabel("ms")
for ax in (left, right):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(batches, [str(n) for n in batches])
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel("batch size")
    ax.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# **Memory.** With grad mode on, the memory held is 6 batches of activations; under `no_grad`, one,
# the output. The ratio is the network's depth: this is why evaluation runs under `no_grad`, with
# much larger batches. **Time.** Recording costs a node, its edges and its saved tensors per
# operation, the same for every batch size, so it shows most for small batches.

# %% [markdown]
# > **Aside.** PyTorch also has `torch.inference_mode()`, a stricter `no_grad` that also skips the
# > version counters and the tracking of views. The tensors made inside are *inference tensors*, and
# > autograd refuses them afterwards: outside the block, one cannot be saved for backward, written in
# > place, or made to require grad. `autograd_lib` has it, with PyTorch's refusals but without the
# > savings. An operation that saves nothing, such as `y + x`, may still use one:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
with ag.inference_mode():
    y = x * 2
print(y.requires_grad, y.is_inference())        # PyTorch: False True
print((y + x).requires_grad)                    # PyTorch: True
for what, use in (("y * x", lambda: y * x), ("y.add_(1)", lambda: y.add_(1)),
                  ("y.requires_grad_()", lambda: y.requires_grad_())):
    try:
        use()
    except RuntimeError as e:
        print(f"{what}: RuntimeError:", str(e).split(".")[0])
# PyTorch: y * x: RuntimeError: Inference tensors cannot be saved for backward
#          y.add_(1): RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed
#          y.requires_grad_(): RuntimeError: Setting requires_grad=True on inference tensor outside InferenceMode is not allowed

# %% [markdown]
# ## 7. `detach()`: the same storage, the same version counter
#
# `no_grad` stops recording for a block; `detach()` works on one tensor: its values as a leaf without
# history, the graph left as it is. You wrote it in assignment 01: the new tensor **shares storage**
# and the **version counter** with the original, so a write through it changes the original and
# counts:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
d = y.detach()
d[0] = 100.
print(y)                        # PyTorch: tensor([100.,   4.,   6.], grad_fn=<MulBackward0>)
print(y._version, d._version)   # PyTorch: 1 1
print("same NumPy array:", d._data is y._data, "  same version counter:", d._version_counter is y._version_counter)

# %% [markdown]
# The version counter is what keeps backward honest. A node that saves a tensor also records its
# version (assignment 06); when backward unpacks it, another version means that the values changed
# since the forward pass, and backward refuses. `z = y * y` saves `y` at version 0, and a write
# through `y.detach()` moves `y` to version 1:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
z = y * y                                  # MulBackward0 saves y
saved = z.grad_fn._saved["self"]
print("saved at version", saved.version, "| y now at version", y._version)
y.detach().mul_(10)
print("saved at version", saved.version, "| y now at version", y._version)
print(str(error_of(lambda: z.sum().backward())).split(". Hint")[0])


# %% [markdown]
# ## 8. `.data` and `detach_()`
#
# `.data` is the older way to get a tensor's values without history. It differs from `detach()` in
# one respect: the tensor it returns has a **version counter of its own**, so writes through it are
# real writes into the shared storage, but nobody counts them:
#
# ```python
# x = torch.tensor([1., 2., 3.], requires_grad=True)
# y = x * 2
# dd = y.data
# dd[0] = 100.
# print(y)                              # tensor([100.,   4.,   6.], grad_fn=<MulBackward0>)
# print(y._version, dd._version)        # 0 1
# x.data.add_(1)
# print(x, x._version)                  # tensor([2., 3., 4.], requires_grad=True) 0
# x.add_(1)     # RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# with torch.inference_mode():
#     made_inside = torch.ones(2)                           # an inference tensor
# print(made_inside.data.is_inference(), x.data.is_inference())             # True False
# with torch.inference_mode():
#     print(made_inside.data.is_inference(), x.data.is_inference())         # True False
# ```
#
# `x.data.add_(1)` wrote into a leaf that requires grad, which `x.add_(1)` may not (assignment 08).
# (`.data` is also a setter, `t.data = other`, which stays as it is.)

# %% [markdown]
# > **Aside.** `.data` dates from PyTorch before 0.4, when tensors and the `Variable`s that
# > recorded them were two classes, and `.data` was the tensor inside a `Variable`. Old training loops
# > updated weights with `w.data -= lr * w.grad`; today's code writes
# > `with torch.no_grad(): w -= lr * w.grad`, which is counted.

# %% [markdown]
# `detach_()` detaches the tensor **itself**, in place, and returns it, like every method whose name
# ends in `_`. A **view** refuses, since its history is tied to its base's (assignment 08). PyTorch,
# with what an observer sees afterwards:
#
# ```python
# a = torch.tensor([1., 2.], requires_grad=True)
# b = a * 3
# alias = b.detach()                                  # shares b's storage and version counter
# print(b.detach_() is b, b, b.is_leaf, b.grad_fn)    # True tensor([3., 6.]) True None
# b.add_(1)                                           # allowed now, and counted:
# print(b._version, alias._version, alias)            # 1 1 tensor([4., 7.])
# a.detach_()
# print(a, a.requires_grad, a.is_leaf)                # tensor([1., 2.]) False True
# second = torch.aminmax(torch.ones(2, requires_grad=True) * 2).max   # output 1
# print(second.output_nr, second.detach_().output_nr) # 1 0
# v = (torch.tensor([1., 2., 3.], requires_grad=True) * 1)[1:]
# v.detach_()       # RuntimeError: Can't detach views in-place. Use detach() instead. If you are [...]
# print(v.requires_grad, type(v.grad_fn).__name__)    # True SliceBackward0
# a = torch.tensor([1., 2.], requires_grad=True)
# b = a * 3
# c = b * 2
# b.register_hook(lambda g: print("hook 1:", g))
# b.detach_()
# b.requires_grad_()                                  # a leaf now, which may require grad
# b.register_hook(lambda g: print("hook 2:", g))
# (b * 5).sum().backward()                            # hook 1: tensor([5., 5.])  hook 2: tensor([5., 5.])
# c.sum().backward()                                  # hook 1: tensor([2., 2.])  hook 2: tensor([2., 2.])
# ```
#
# (`autograd_lib`'s message stops after the first two sentences.) A recurrence, a hidden state
# updated at every step, builds a graph that grows with every step: `h.detach_()` every few steps cuts
# it, so backward goes back over the last few steps only, and the old graph can be freed.
# `optimizer.zero_grad(set_to_none=False)` uses it too, on a `.grad` that has a graph of its own.

# %% [markdown]
# A node with two outputs, as a custom `autograd.Function` makes it (`Split` is used by the tests
# below); `output_nr` says which output of its node a tensor is:

# %%
class Split(ag.autograd.Function):
    """Two outputs, 2x and 3x: one node, outputs 0 and 1."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, grad_first, grad_second):
        return 2 * grad_first + 3 * grad_second


x = ag.tensor([1., 2.], requires_grad=True)
first, second = Split.apply(x)
print("second: grad_fn", type(second.grad_fn).__name__, " output_nr", second.output_nr,
      " is_leaf", second.is_leaf)


# %% [markdown]
# ### Exercise 3: `detach_and_data` (7 points)
#
# Write `data(tensor)`, installed as the getter of the property `Tensor.data` (so `t.data` calls
# `data(t)`: read neither `tensor.data` nor `tensor.detach()` inside it), and `detach_(self)`,
# installed as the method `Tensor.detach_`, so that both behave as PyTorch's in sections 7 and 8, as
# an observer sees them afterwards: `.grad_fn`, `.is_leaf`, `.requires_grad`, `.output_nr`,
# `.is_inference()`, `._version`, the values, the hooks that fire, and what a later write or backward
# does. A `Tensor` is made of the fields you met in assignments 01 and 04 (`autograd_lib/tensor.py`);
# which of them you need is yours to find out.
#
# **Rules**
# - `new`: `t.data` is a new tensor without history (a leaf that does not require grad, not a view),
#   whatever `t` is.
# - `shares`: it has `t`'s values, dtype and shape, and a write through it changes `t`.
# - `own-counter`: writes through it are counted on it alone: they move neither `t._version` nor what
#   a node that saved `t` sees, and it starts at version 0 (the experiments of section 8; an
#   inference tensor has no version).
# - `inference`: it is an inference tensor exactly when `t` is, read inside `inference_mode` or not
#   (PyTorch's experiment of section 8).
# - `unchanged`: reading `t.data` leaves `t` as it was.
# - `cuts`: after `t.detach_()`, `t` itself is out of its graph: a non-leaf, a leaf that required
#   grad and output 1 of a node print what PyTorch's print in the experiment of section 8.
# - `keeps`: `t` keeps its values and its version, and stays on its storage and its counter: a
#   tensor that shared them before (`t.detach()`, `t[0]`) still sees `t`'s writes, counted.
# - `hooks`: hooks registered on `t` stay `t`'s, as in PyTorch's experiment: once `t` requires grad
#   again, they fire when it gets a gradient; and the graph `t` left, run backward, fires them too,
#   with those registered since.
# - `returns-self`: `t.detach_()` returns `t` itself.
# - `views-refuse`: a view refuses with PyTorch's `RuntimeError` (its first two sentences) and stays
#   as it was.

# %% nbgrader={"grade": false, "grade_id": "07_detach_and_data_answer", "locked": false, "schema_version": 3, "solution": true}
def data(tensor):
    """The getter of t.data, as PyTorch's behaves."""
    ### BEGIN SOLUTION
    return ag.Tensor._make(tensor._data, type(tensor._version_counter)())
    ### END SOLUTION


def detach_(self):
    """Detach self in place, as PyTorch's detach_() does; returns self."""
    ### BEGIN SOLUTION
    if self._base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    node = self.grad_fn
    if node is not None and node._pre_hooks and self._output_nr in node._pre_hooks:
        self._hooks = node._pre_hooks[self._output_nr]
    self.grad_fn = None
    self._requires_grad = False
    self._output_nr = 0
    return self
    ### END SOLUTION

exercises.plug("07.data", data)
exercises.plug("07.detach_", detach_)

# %% [markdown]
# `t.data` and `t.detach_()` are now yours. PyTorch's `.data` example, then the version check of
# section 7, the write going through `.data` this time:

# %%
x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
dd = y.data
dd[0] = 100.
print(y)
print(y._version, dd._version)
x.data.add_(1)
print(x, x._version)
try:
    x.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
with ag.inference_mode():
    made_inside = ag.ones(2)
print(made_inside.data.is_inference(), x.data.is_inference())
with ag.inference_mode():
    print(made_inside.data.is_inference(), x.data.is_inference())

x = ag.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
z = y * y
saved = z.grad_fn._saved["self"]
y.data.mul_(10)
print("saved at version", saved.version, "| y now at version", y._version, "| y =", y)

# %% [markdown]
# The node saved `y` at version 0, and `y` is still at version 0, so the check that stopped backward
# in section 7 cannot see this change: backward would compute with values the forward pass never
# used, and report no error (assignment 08 runs it). **Use `detach()`**, not `.data`.

# %% [markdown]
# PyTorch's `detach_()` example, then a recurrence $h_{t+1} = \tanh(w\,h_t + 1)$ cut every 3 steps:
# the graph behind `h` grows for two steps and is cut at the third, and the gradient of the last `h`
# reaches back to the last cut only:

# %%
a = ag.tensor([1., 2.], requires_grad=True)
b = a * 3
alias = b.detach()
print(b.detach_() is b, b, b.is_leaf, b.grad_fn)
b.add_(1)
print(b._version, alias._version, alias)
a.detach_()
print(a, a.requires_grad, a.is_leaf)
second = ag.aminmax(ag.ones(2, requires_grad=True) * 2).max
print(second.output_nr, second.detach_().output_nr)
x = ag.tensor([1., 2., 3.], requires_grad=True)
v = (x * 1)[1:]
try:
    v.detach_()
except RuntimeError as e:
    print("RuntimeError:", e)
print(v.requires_grad, type(v.grad_fn).__name__)
a = ag.tensor([1., 2.], requires_grad=True)
b = a * 3
c = b * 2
b.register_hook(lambda g: print("hook 1:", g))
b.detach_()
b.requires_grad_()
b.register_hook(lambda g: print("hook 2:", g))
(b * 5).sum().backward()
c.sum().backward()

w = ag.tensor(0.5, requires_grad=True)
h = ag.tensor(1.0)
nodes = []
for step in range(1, 11):
    h = (w * h + 1).tanh()
    if step % 3 == 0:
        h.detach_()                          # keep the value, drop the history
    nodes.append(len(ag.viz.graph_nodes(h)) if h.grad_fn is not None else 0)
print("nodes behind h after each step:", nodes)
h.backward()
print("dh/dw over the last step only:", round(w.grad.item(), 6))

# %% [markdown]
# And inside the library: after `backward(create_graph=True)` each `.grad` has a graph;
# `zero_grad(set_to_none=False)` cuts it with your `detach_()`, then zeros it, keeping the same
# tensor:

# %%
model = ag.nn.Linear(2, 1)
optimizer = ag.optim.SGD(model.parameters(), lr=0.1)
loss = model(ag.ones(2)).pow(2).sum()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")           # backward(create_graph=True) warns about a reference cycle
    loss.backward(create_graph=True)
grad = model.weight.grad
print("before: grad.requires_grad =", grad.requires_grad, " grad_fn is None:", grad.grad_fn is None)
optimizer.zero_grad(set_to_none=False)
print("after:  grad.requires_grad =", grad.requires_grad, " grad_fn is None:", grad.grad_fn is None,
      " same tensor:", model.weight.grad is grad, " values:", model.weight.grad)

# %% [markdown]
# **Tests.** `check.detach_and_data` tries `.data` on a non-leaf and on inference tensors, and
# `detach_()` on non-leaves, leaves, views, a second output and tensors with hooks;
# `check.detach_and_data_in_use` reads `.data` of a view and of a saved tensor, cuts a recurrence and
# clears a gradient with a graph. Hidden tests: random tensors.

# %% nbgrader={"grade": true, "grade_id": "07_detach_and_data_test", "locked": true, "points": 4, "schema_version": 3, "solution": false}
check.detach_and_data(data, detach_)
### BEGIN HIDDEN TESTS
from autograd_course.checks.no_grad import (CUTS, KEEPS, LEAF_OFF, NEW_TENSOR, NO_HISTORY, OUTPUT_NR, OWN_COUNTER,
                                            RETURNS_SELF, SHARES, UNCHANGED, VIEW_UNCHANGED, VIEWS_REFUSE,
                                            expect_fact)
from autograd_course.notebook import outcome

OUT = {"07.data": data, "07.detach_": detach_}

DATA_KINDS = ["leaf", "leaf that requires grad", "non-leaf", "view of a non-leaf", "view of a leaf",
              "written non-leaf"]
DTYPES = [ag.float32, ag.float64, ag.int64]


def data_input(rng, kind):
    """A random tensor of this kind (dtype, shape, values; a written one has a version above 0), and how
    data is read: data(t) or the property t.data."""
    dtype = DTYPES[int(rng.integers(3 if kind in ("leaf", "view of a leaf") else 2))]
    shape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(0 if "view" not in kind else 1, 3))))
    values = (rng.standard_normal(shape) * 5).astype(dtype.numpy)
    grad = kind not in ("leaf", "view of a leaf")
    factor = float(rng.integers(2, 5))
    writes = int(rng.integers(1, 4)) if kind == "written non-leaf" else 0
    return kind, dtype, shape, values, grad, factor, writes, ["data(t)", "t.data"][int(rng.integers(2))]


def data_facts(fn, case):
    """What data gives for a case, grouped by rule: (NEW_TENSOR, NO_HISTORY, SHARES, OWN_COUNTER, UNCHANGED)."""
    kind, dtype, shape, values, grad, factor, writes, form = case
    t = ag.tensor(values.copy(), dtype=dtype, requires_grad=grad)
    if kind not in ("leaf", "leaf that requires grad", "view of a leaf"):
        t = t * factor
    if "view" in kind:
        t = t[0]
    for _ in range(writes):
        t.mul_(2)
    before = (t.requires_grad, type(t.grad_fn).__name__, t._version)
    d = outcome(fn, t) if form == "data(t)" else outcome(lambda: t.data)
    if not isinstance(d, ag.Tensor) or d is t:
        return ("the tensor itself" if d is t else f"a {type(d).__name__}, not a tensor",), None, None, None, None
    facts = [("a new Tensor",), (d.grad_fn is None, d.requires_grad, d.is_leaf),
             [d._data is t._data, d.dtype, tuple(d.shape), grading.to_list(d)],
             [d._version_counter is t._version_counter, d._version],
             (t.requires_grad, type(t.grad_fn).__name__, t._version) == before]
    written = outcome(d.add_, 1)
    facts[2].append(grading.to_list(t) if not isinstance(written, str) else written)
    facts[3] += [t._version, d._version]
    return tuple(tuple(f) if isinstance(f, list) else f for f in facts)


cases = [data_input(rng, DATA_KINDS[n % len(DATA_KINDS)])
         for n, rng in enumerate(grading.random_cases(seed=732, count=12))]
expected, seen_all = grading.side_by_side(OUT, None, lambda fns: [data_facts(fns["07.data"], case) for case in cases])
for n, (case, seen, wanted) in enumerate(zip(cases, seen_all, expected)):
    kind, dtype, shape, _, _, _, writes, form = case
    shape = shape[1:] if "view" in kind else shape
    written = f", written {writes} times" if writes else ""
    what = f"random case #{n}: d = {form}, t a {kind} ({dtype}, shape {shape}{written})"
    for facts, rule, s, e in zip(["(a new Tensor)", "(d.grad_fn is None, d.requires_grad, d.is_leaf)",
                                  "(d._data is t._data, d.dtype, d.shape, d's values, t's values after d.add_(1))",
                                  "(d shares t's counter, d._version, then after d.add_(1): t._version, d._version)",
                                  "t's (requires_grad, grad_fn, _version) are as before"],
                                 [NEW_TENSOR, NO_HISTORY, SHARES, OWN_COUNTER, UNCHANGED], seen, wanted):
        expect_fact(s, e, f"{facts} for {what}", rule)


DETACH_KINDS = ["non-leaf", "leaf that requires grad", "leaf", "output 0 of Split", "output 1 of Split",
                "view of a non-leaf", "view of a leaf that requires grad", "view of a leaf",
                "transposed view of a non-leaf"]


def detach_input(rng, kind):
    """A random tensor of this kind: dtype, shape, values, the op that made it, writes before."""
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    shape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(1, 3))))
    op = ["sin", "exp", "mul"][int(rng.integers(3))]
    start = int(rng.integers(shape[0]))
    grad = kind not in ("leaf", "view of a leaf")
    writes = 0 if kind.endswith("leaf that requires grad") else int(rng.integers(0, 3))   # the leaf rule
    return kind, dtype, shape, rng.standard_normal(shape), grad, op, start, writes


def detach_tensor(kind, dtype, shape, values, grad, op, start, writes):
    x = ag.tensor(values, dtype=dtype, requires_grad=grad)
    made = {"sin": x.sin, "exp": x.exp, "mul": lambda: x * 3}[op]
    t = {"non-leaf": made, "leaf that requires grad": lambda: x, "leaf": lambda: x,
         "output 0 of Split": lambda: Split.apply(x)[0], "output 1 of Split": lambda: Split.apply(x)[1],
         "view of a non-leaf": lambda: made()[start:], "view of a leaf that requires grad": lambda: x[start:],
         "view of a leaf": lambda: x[start:], "transposed view of a non-leaf": lambda: made().t()}[kind]()
    for _ in range(writes):
        t.mul_(2)
    return t


def detach_facts(fn, case):
    """detach_ on a case, grouped by rule: (CUTS, RETURNS_SELF, KEEPS, LEAF_OFF, VIEWS_REFUSE,
    VIEW_UNCHANGED, OUTPUT_NR)."""
    t = detach_tensor(*case)
    node, array, counter, version = t.grad_fn, t._data, t._version_counter, t._version
    returned = outcome(fn, t)
    refused = returned if isinstance(returned, str) else "no error"
    return ((t.grad_fn is None, t.requires_grad, t.is_leaf), returned is t if refused == "no error" else refused,
            (t._data is array, t._version_counter is counter, t._version - version, grading.to_list(t)),
            t._requires_grad, refused, (t.grad_fn is node, t.requires_grad), t._output_nr)


cases = [detach_input(rng, DETACH_KINDS[n % len(DETACH_KINDS)])
         for n, rng in enumerate(grading.random_cases(seed=742, count=12))]
expected, seen_all = grading.side_by_side(OUT, None,
                                          lambda fns: [detach_facts(fns["07.detach_"], case) for case in cases])
for n, (case, seen, wanted) in enumerate(zip(cases, seen_all, expected)):
    kind, dtype, shape, _, grad, op, start, writes = case
    made = {"sin": "x.sin()", "exp": "x.exp()", "mul": "x * 3"}[op]
    source = {"non-leaf": made, "output 0 of Split": "Split.apply(x)[0]", "output 1 of Split": "Split.apply(x)[1]",
              "view of a non-leaf": f"({made})[{start}:]", "view of a leaf that requires grad": f"x[{start}:]",
              "view of a leaf": f"x[{start}:]",
              "transposed view of a non-leaf": f"({made}).t()"}.get(kind, "x")
    what = (f"detach_(t) for random case #{n}, a {kind}: t = {source}, x of shape {shape}, {dtype}"
            f"{', requires_grad=True' if grad else ''}"
            f"{f', then written {writes} time(s) with t.mul_(2)' if writes else ''}")
    view = "view" in kind
    checks = [("the error", VIEWS_REFUSE, 4)] if view else []
    checks += [("(t.grad_fn unchanged, t.requires_grad)", VIEW_UNCHANGED, 5)] if view else [
        ("(t.grad_fn is None, t.requires_grad, t.is_leaf)", CUTS, 0), ("returned t itself", RETURNS_SELF, 1),
        ("(same NumPy array, same version counter, versions added, values)", KEEPS, 2),
        ("t._requires_grad", LEAF_OFF if kind == "leaf that requires grad" else CUTS, 3),
        ("t._output_nr", OUTPUT_NR, 6)]
    for facts, rule, i in checks:
        expect_fact(seen[i], wanted[i], f"{facts} after {what}", rule)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "07_detach_and_data_test2", "locked": true, "points": 3, "schema_version": 3, "solution": false}
check.detach_and_data_in_use(data, detach_)
### BEGIN HIDDEN TESTS
from autograd_course.checks.no_grad import check_data_facts, check_detach_facts, hook_story
from autograd_course.notebook import outcome

OUT = {"07.data": data, "07.detach_": detach_}


def random_tensor(rng):
    """A random tensor: a leaf with or without grad, a non-leaf, a view, a float64 or an int tensor."""
    shape = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    kind = ["leaf", "leaf with grad", "non-leaf", "view", "float64 non-leaf", "int", "inference"][int(rng.integers(7))]
    values = rng.standard_normal(shape)
    if kind == "inference":
        with ag.inference_mode():
            return kind, ag.tensor(values) * float(rng.integers(1, 5))
    if kind == "int":
        return kind, ag.tensor(np.round(values * 10).astype(np.int64))
    if kind == "leaf":
        return kind, ag.tensor(values)
    leaf = ag.tensor(values, dtype=ag.float64 if kind == "float64 non-leaf" else ag.float32, requires_grad=True)
    if kind == "leaf with grad":
        return kind, leaf
    result = leaf * float(rng.integers(1, 5))
    if kind == "view" and result.dim() > 0:
        return kind, result[0]
    return kind, result


def data_facts(fn, seed):
    rng = np.random.default_rng(seed)
    kind, t = random_tensor(rng)
    inside = bool(rng.integers(2))                  # read inside inference_mode
    version = lambda u: outcome(lambda: u._version)      # an inference tensor has none: an error
    before = (version(t), t.requires_grad, t.grad_fn is None)
    if inside:
        with ag.inference_mode():
            d = outcome(fn, t)
    else:
        d = outcome(fn, t)
    if not isinstance(d, ag.Tensor):
        return kind, repr(d)
    facts = [d is t, d._data is t._data, d._version_counter is t._version_counter, version(d),
             d.requires_grad, d.grad_fn is None, d._base is None, d.dtype, tuple(d.shape), grading.to_list(d)]
    written = outcome(d.add_, 1)
    facts += [written if isinstance(written, str) else "written", version(t), version(d), grading.to_list(t),
              (version(t), t.requires_grad, t.grad_fn is None) == before]
    facts += [t.is_inference(), inside, d.is_inference()]
    return kind, facts


seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=731, count=24)]
expected, seen = grading.side_by_side(OUT, None, lambda fns: [data_facts(fns["07.data"], seed) for seed in seeds])
for (kind, s), (_, e) in zip(seen, expected):
    check_data_facts(s, e, f"data(t) for a random {kind} t")


def detach_facts(fn, seed):
    """fn on a random tensor: the tensor's state after, or the error."""
    rng = np.random.default_rng(seed)
    kind = ["leaf", "leaf with grad", "non-leaf", "view of a leaf", "view of a non-leaf", "output 1 of Split",
            "computed under no_grad", "detached non-leaf"][int(rng.integers(8))]
    x = ag.tensor(rng.standard_normal(int(rng.integers(1, 4)) + 1), requires_grad=True)
    t = {"leaf": lambda: ag.tensor(rng.standard_normal(2)),
         "leaf with grad": lambda: x,
         "non-leaf": lambda: x * float(rng.integers(1, 5)),
         "view of a leaf": lambda: x[1:],
         "view of a non-leaf": lambda: (x * 2)[:1],
         "output 1 of Split": lambda: Split.apply(x)[1],
         "computed under no_grad": lambda: ag.no_grad()(lambda: x * 2)(),
         "detached non-leaf": lambda: (x * 3).detach()}[kind]()
    alias = t.detach()
    array, node = t._data, t.grad_fn
    returned = outcome(fn, t)
    state = [returned if isinstance(returned, str) else returned is t, t.grad_fn is node, t.grad_fn is None,
             t._requires_grad, t.requires_grad, t._output_nr, t._data is array,
             t._version_counter is alias._version_counter, t._version, grading.to_list(t)]
    if kind in ("leaf with grad", "non-leaf", "output 1 of Split"):      # hooks: a new tensor of the same kind
        x = ag.tensor(rng.standard_normal(int(rng.integers(1, 4)) + 1), requires_grad=True)
        fresh = {"leaf with grad": lambda: x, "non-leaf": lambda: x * float(rng.integers(1, 5)),
                 "output 1 of Split": lambda: Split.apply(x)[1]}[kind]()
        state.append(hook_story(fn, fresh, float(rng.integers(2, 6))))
    return kind, state


seeds = [int(rng.integers(2**32)) for rng in grading.random_cases(seed=741, count=32)]
expected, seen = grading.side_by_side(OUT, None, lambda fns: [detach_facts(fns["07.detach_"], seed) for seed in seeds])
for (kind, s), (_, e) in zip(seen, expected):
    check_detach_facts(s, e, f"detach_(t) for a random {kind} t")
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# * **Grad mode** is a switch per thread. Under `no_grad` nothing is recorded: results are leaves
#   without `grad_fn`, constants for any graph built later. `model.eval()` does not stop recording.
# * Grad-mode blocks **nest**: after one, even one that raised (its error goes on), the program is
#   back in its own mode, and `enable_grad` can record inside `no_grad`.
# * `set_grad_enabled(mode)` switches as soon as it is made, so it also works as a plain call; it
#   takes a bool only.
# * The grad modes are **decorators**, a fresh context per call; a **generator**'s decorator
#   enters one per step (`next`, `send`, `throw`, `close`), so the caller's code between steps
#   keeps its own mode.
# * **Measured:** without a graph, a forward pass holds its output only, and runs faster.
# * `detach()` and `.data` both share **storage**; only `detach()` shares the **version counter**, so
#   only its writes are seen by backward's check. `detach_()` cuts a tensor out of its graph in place,
#   keeping its hooks (views refuse).
#
# Next, assignment 08: in-place operations and the version counter.
