"""Visible checks of assignment 06: graph lifetime, ``retain_graph`` and higher-order gradients.

Each function is the visible part of one test cell, run on the function you
wrote; its docstring says what it tries.  The hidden tests in the cell check
the same rules on random inputs.  The constants are the rules the checks name
(the hidden tests name them too); ``random_graph``, ``random_node``,
``grads_of``, ``plain``, ``cubes``, ``exps`` and ``pair_check`` are the helpers
the tests share.

Why one module of this length: it is the visible half of the notebook's 8 test cells after
exercise 1, one function per cell, kept together so that a student reads one file per
notebook.  Exercise 1's checks (``plan_saves``) are in ``saving.py``, exercise 4's (``unpack``)
in ``saved_hooks.py`` and exercise 8's (``function_gradients``) in ``custom_functions.py``, all
imported here.
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib.utils.checkpoint import CheckpointFunction, checkpoint, get_rng_state
from autograd_course import grading
from autograd_course.notebook import outcome

from .custom_functions import function_gradients, function_gradients_in_the_engine  # noqa: F401
from .saved_hooks import unpack, unpack_in_the_engine  # noqa: F401
from .saving import (IF_GIVEN, NEEDED_FIRST, NEEDED_ONLY, PAIRS, SOURCES, grads_of, plan_of,  # noqa: F401
                     plan_rule, plan_saves, plan_saves_in_the_engine, random_records)

__all__ = ["plan_saves", "plan_saves_in_the_engine", "function_gradients", "function_gradients_in_the_engine", "plan_of", "plan_rule", "random_records",
           "release_saved", "release_saved_in_the_engine",
           "saved_values", "saved_values_in_the_engine", "unpack", "unpack_in_the_engine",
           "hvp", "hvp_in_the_library", "checkpoint_forward", "checkpoint_backward",
           "random_graph", "random_node", "grads_of", "plain", "cubes", "exps", "pair_check",
           "PAIRS", "NEEDED_ONLY", "SOURCES", "IF_GIVEN", "NEEDED_FIRST",
           "RETURNS_NONE", "KEEPS_NAMES", "DROPS", "MARKED", "RECLAIMED", "NOTHING_SAVED", "PARAMS_STAY",
           "FREED", "RETURNS_LIST", "UNPACKED", "IN_ORDER", "PLAIN", "VERSION_CHECKED", "REFUSES", "PLAIN_KEPT",
           "SECOND_GRADIENT", "A_PAIR", "VALUE_FIRST", "H_TIMES_V", "UNTOUCHED", "DETACHED",
           "random_block", "block_loss", "forward_record", "forward_rule", "backward_record", "backward_rule",
           "FORWARD_RULES",
           "RUNS_FUNCTION", "SAVES_INPUTS", "KEEPS_OTHERS", "KEEPS_FUNCTION", "RNG_KEPT", "SAME_GRADS",
           "ONE_PER_ARGUMENT", "DETACHED_COPIES", "WITH_GRAD", "SAME_RANDOM", "REFUSES_GRAD", "NOT_VALID"]


# ------------------------------------------------------------ helpers the tests share

def random_graph(seed):
    """A small random computation on two float64 leaves (the same one for the same seed).
    Returns (leaves, loss)."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 4))
    leaves = [ag.tensor(rng.uniform(-1.0, 1.0, size=size), requires_grad=True) for _ in range(2)]
    pool = list(leaves)
    for _ in range(int(rng.integers(2, 6))):
        a, b = (pool[int(i)] for i in rng.integers(len(pool), size=2))
        op = int(rng.integers(8))
        pool.append([lambda: (-a).exp(), lambda: a.sin(), lambda: a.tanh(), lambda: a * b,
                     lambda: a + b, lambda: a + 1.0, lambda: a ** 2, lambda: a * 3.0][op]())
    return leaves, pool[-1].sum()


def random_node(seed, op):
    """The node of op number `op` (of 18) on intermediate tensors h and k, float32 or float64, of a
    random shape, with random values (the same ones for the same seed). Returns (description, node, h, k)."""
    rng = np.random.default_rng(seed)
    name, dtype = [("float32", ag.float32), ("float64", ag.float64)][int(rng.integers(2))]
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    x, w = (ag.tensor(rng.uniform(0.5, 2.0, size=shape).astype(dtype.numpy), requires_grad=True) for _ in "xw")
    h, k = x * float(rng.uniform(0.5, 2.0)), w + float(rng.uniform(0.1, 1.0))
    c, e = round(float(rng.uniform(-2.0, 2.0)), 3), [2, 3, 4, 0.5, -1.5][int(rng.integers(5))]
    ops = {"h.exp()": lambda: h.exp(), "h.sin()": lambda: h.sin(), "h.tanh()": lambda: h.tanh(),
           "h.sigmoid()": lambda: h.sigmoid(), "h.sqrt()": lambda: h.sqrt(), "h.log()": lambda: h.log(),
           f"h ** {e}": lambda: h ** e, "h * k": lambda: h * k, "h / k": lambda: h / k, f"h * {c}": lambda: h * c,
           "h + k": lambda: h + k, "h - k": lambda: h - k, f"h + {c}": lambda: h + c, "-h": lambda: -h,
           "h.sum()": lambda: h.sum(), "h.mean()": lambda: h.mean(),
           "h.reshape(1, -1) @ k.reshape(-1, 1)": lambda: h.reshape(1, -1) @ k.reshape(-1, 1)}
    keepdim = bool(rng.integers(2))
    if shape:
        ops[f"h.sum(0, keepdim={keepdim})"] = lambda: h.sum(0, keepdim=keepdim)
    else:
        ops["h.reshape(1)"] = lambda: h.reshape(1)
    op = list(ops)[op % len(ops)]
    return f"{op} for a {name} h of shape {shape}", ops[op]().grad_fn, h, k


def plain(value):
    """A comparable form of a tensor, a list of values or an error text."""
    if isinstance(value, ag.Tensor):
        return ("tensor", np.round(value._data, 10).tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# ------------------------------------------------------------ 06.release_saved

RETURNS_NONE = "release_saved runs without error and returns None"
KEEPS_NAMES = "release_saved keeps every saved name (mapped to None), so the node remembers what it saved"
DROPS = "release_saved must drop the saved tensors (each name now maps to None)"
MARKED = "a node that dropped its saved tensors is marked freed (node._freed = True)"
RECLAIMED = "release_saved must drop the saved tensors so that their memory can be reclaimed"
NOTHING_SAVED = "a node that saved nothing is not marked freed: it can run again"
PARAMS_STAY = "plain values (node._params) are never freed"


def release_saved(fn):
    """Your ``release_saved`` on the nodes of ``x.exp()``, ``x + 1`` and ``x ** 3``.  Rules:
    it returns None; a node that saved tensors keeps their names, each mapped to None, is
    marked freed, and the saved array is reclaimed; a node that saved nothing stays as it
    was; plain values (``_params``) stay."""
    with grading.checking("06.release_saved", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        node = y.grad_fn
        probe = weakref.ref(node._saved["result"].tensor._data)
        del y                                      # the node's saved result is the only reference left
        returned = outcome(fn, node)
    grading.expect_equal(returned, None, what="release_saved(node) for node = x.exp().grad_fn", rule=RETURNS_NONE)
    grading.expect_equal(sorted(node._saved), ["result"], what="the names in node._saved after release_saved",
                         rule=KEEPS_NAMES)
    grading.expect_equal([value is None for value in node._saved.values()], [True],
                         what="node._saved['result'] is None after release_saved", rule=DROPS)
    grading.expect_equal(node._freed, True, what="node._freed after release_saved", rule=MARKED)
    gc.collect()
    grading.expect_true(probe() is None, what="the saved result's array is reclaimed after release_saved",
                        seen="it is still alive", rule=RECLAIMED)

    with grading.checking("06.release_saved", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        add = (x + 1).grad_fn
        pow_node = (x ** 3).grad_fn
        returned = (outcome(fn, add), outcome(fn, pow_node))
    grading.expect_equal(returned, (None, None), what="release_saved on the nodes of x + 1 and x ** 3",
                         rule=RETURNS_NONE)
    grading.expect_equal((add._saved, add._freed), ({}, False),
                         what="(node._saved, node._freed) of x + 1 (it saved nothing) after release_saved",
                         rule=NOTHING_SAVED)
    grading.expect_equal(pow_node._params, {"exponent": 3}, what="node._params of x ** 3 after release_saved",
                         rule=PARAMS_STAY)
    grading.expect_equal((sorted(pow_node._saved), pow_node._saved.get("self", "missing"), pow_node._freed),
                         (["self"], None, True),
                         what="(names in node._saved, node._saved['self'], node._freed) of x ** 3 after release_saved",
                         rule=DROPS)


def release_saved_in_the_engine(fn):
    """Your method inside the engine: after ``loss.backward()`` the gradients are right, a
    second backward and reading a saved tensor fail with PyTorch's error; with
    ``retain_graph=True`` a second pass works and gradients accumulate; ``(x + 1).sum()``
    can run twice; and the array saved by ``sin`` is reclaimed after backward."""
    with grading.checking("06.release_saved", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        loss = y.sum()
        first = outcome(loss.backward)
        grading.expect_equal(first, None, what="the first loss.backward() for loss = x.exp().sum()",
                             rule="release_saved runs without error and returns None")
        grading.expect_close(x.grad, np.exp([1.0, 2.0, 3.0]), what="x.grad after the first backward",
                             rule="release_saved runs after the node has run: it must not change the gradients")
        grading.expect_raises(loss.backward, RuntimeError, FREED, what="a second loss.backward()",
                              rule="after backward, the graph is freed: a second backward must fail with "
                                   "PyTorch's error")
        grading.expect_raises(lambda: y.grad_fn._saved_result, RuntimeError, FREED,
                              what="reading y.grad_fn._saved_result after backward",
                              rule="a node that dropped its saved tensors is marked freed (node._freed = True)")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = x.exp().sum()
        loss.backward(retain_graph=True)
        second = outcome(loss.backward)
        grading.expect_equal(second, None, what="a second backward after backward(retain_graph=True)",
                             rule="with retain_graph=True the engine does not call release_saved")
        grading.expect_close(x.grad, 2 * np.exp([1.0, 2.0, 3.0]), what="x.grad after two passes, the first retained",
                             rule="with retain_graph=True a second backward works and the gradients accumulate")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (x + 1).sum()
        loss.backward()
        again = outcome(loss.backward)
        grading.expect_equal(again, None, what="a second backward of (x + 1).sum()",
                             rule="a node that saved nothing is not marked freed: it can run again")
        grading.expect_close(x.grad, [2.0, 2.0, 2.0], what="x.grad after backward twice through (x + 1).sum()",
                             rule="a node that saved nothing is not marked freed: it can run again")

        a = ag.rand(1000, requires_grad=True)
        h = a * 2
        loss = h.sin().sum()
        probe = weakref.ref(h._data)
        del h
        loss.backward()
    gc.collect()
    grading.expect_true(probe() is None, what="the array saved by sin is reclaimed after backward",
                        seen="it is still alive",
                        rule="release_saved must drop the saved tensors so that their memory can be reclaimed")


# ------------------------------------------------------------ 06.saved_values

FREED = "Trying to backward through the graph a second time"
RETURNS_LIST = "saved_values returns a list of values, one per name"
UNPACKED = "a name in node._saved gives the saved tensor, unpacked"
IN_ORDER = "saved_values returns the values in the order of names"
PLAIN = "a name that is not a saved tensor is a plain value: node._params[name]"
VERSION_CHECKED = "saved tensors are unpacked with unpack(node), which checks their version"
REFUSES = "a freed node refuses to hand out saved tensors: raise RuntimeError(ag.graph.FREED_MESSAGE)"
PLAIN_KEPT = "plain values (node._params) are never freed: asking only for them still works"


def saved_values(fn):
    """Your ``saved_values`` on the nodes of ``x * w`` and ``x ** 3``, with the names in both
    orders and with no names.  Rules: a list, one value per name, in the order of the names;
    saved tensors unpacked (version-checked: a tensor changed in place is refused), plain
    values from ``_params``; a freed node refuses saved tensors but still gives plain values."""
    with grading.checking("06.saved_values", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        mul = (x * w).grad_fn
        seen_mul = outcome(fn, mul, ("self", "other"))
        seen_mul_reversed = outcome(fn, mul, ("other", "self"))
        pow_node = (x ** 3).grad_fn
        seen_pow = outcome(fn, pow_node, ("self", "exponent"))
        seen_pow_reversed = outcome(fn, pow_node, ("exponent", "self"))
        seen_empty = outcome(fn, pow_node, ())
    grading.expect_true(isinstance(seen_mul, (list, tuple)), what="saved_values(node, ('self', 'other')) for x * w",
                        seen=repr(seen_mul), rule=RETURNS_LIST)
    grading.expect_equal(plain(seen_mul), [("tensor", [1.0, 2.0, 3.0]), ("tensor", [4.0, 5.0, 6.0])],
                         what="saved_values(node, ('self', 'other')) for x * w", rule=UNPACKED)
    grading.expect_equal(plain(seen_mul_reversed), [("tensor", [4.0, 5.0, 6.0]), ("tensor", [1.0, 2.0, 3.0])],
                         what="saved_values(node, ('other', 'self')) for x * w", rule=IN_ORDER)
    grading.expect_equal(plain(seen_pow), [("tensor", [1.0, 2.0, 3.0]), 3],
                         what="saved_values(node, ('self', 'exponent')) for x ** 3", rule=PLAIN)
    grading.expect_equal(plain(seen_pow_reversed), [3, ("tensor", [1.0, 2.0, 3.0])],
                         what="saved_values(node, ('exponent', 'self')) for x ** 3", rule=IN_ORDER)
    grading.expect_equal(plain(seen_empty), [], what="saved_values(node, ()) (a formula that needs nothing)",
                         rule=RETURNS_LIST)

    with grading.checking("06.saved_values", fn):
        a = ag.tensor([0.5, 1.0], requires_grad=True)
        h = a * 2
        sin_node = h.sin().grad_fn
        h.add_(1)
        grading.expect_raises(lambda: fn(sin_node, ("self",)), RuntimeError,
                              "modified by an inplace operation",
                              what="saved_values for sin(h) after h.add_(1)", rule=VERSION_CHECKED)

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        exp_node = x.exp().grad_fn
        pow_node = (x ** 3).grad_fn
        exp_node.release_saved()                 # the library's own release_saved, during this test
        pow_node.release_saved()
        grading.expect_raises(lambda: fn(exp_node, ("result",)), RuntimeError, FREED,
                              what="saved_values(node, ('result',)) for a freed x.exp() node", rule=REFUSES)
        grading.expect_raises(lambda: fn(pow_node, ("self", "exponent")), RuntimeError, FREED,
                              what="saved_values(node, ('self', 'exponent')) for a freed x ** 3 node", rule=REFUSES)
        seen_param = outcome(fn, pow_node, ("exponent",))
    grading.expect_equal(plain(seen_param), [3], what="saved_values(node, ('exponent',)) for a freed x ** 3 node",
                         rule=PLAIN_KEPT)


def saved_values_in_the_engine(fn):
    """Your method inside the engine: the gradients of ``(sin(x * w) + x ** 3).sum()`` are
    right and a second backward fails with PyTorch's error; with ``retain_graph=True`` two
    passes through ``x ** 3`` accumulate; and the second derivative of ``exp`` works, since
    an unpacked saved output is reattached to its node."""
    with grading.checking("06.saved_values", fn):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        loss = ((x * w).sin() + x ** 3).sum()
        first = outcome(loss.backward)
        grading.expect_equal(first, None, what="loss.backward() for loss = (sin(x * w) + x ** 3).sum()",
                             rule="saved_values hands every formula its values: saved tensors and plain values")
        xv, wv = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
        grading.expect_close(x.grad, np.cos(xv * wv) * wv + 3 * xv ** 2, what="x.grad", rtol=1e-4,
                             rule="saved_values hands every formula its values: saved tensors and plain values")
        grading.expect_close(w.grad, np.cos(xv * wv) * xv, what="w.grad", rtol=1e-4,
                             rule="saved_values hands every formula its values: saved tensors and plain values")
        grading.expect_raises(loss.backward, RuntimeError, FREED, what="a second loss.backward()",
                              rule="a freed node refuses to hand out saved tensors: "
                                   "raise RuntimeError(ag.graph.FREED_MESSAGE)")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (x ** 3).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        grading.expect_close(x.grad, [6.0, 24.0, 54.0],
                             what="x.grad after two passes through (x ** 3).sum(), the first retained",
                             rule="with retain_graph=True a second backward works and the gradients accumulate")

        x = ag.tensor([0.0, 1.0, -1.0], requires_grad=True)
        (g,) = ag.autograd.grad(x.exp().sum(), x, create_graph=True)
        grading.expect_true(g.requires_grad,
                            what="the first derivative of exp(x), computed with create_graph=True, requires grad",
                            seen=repr(g.requires_grad),
                            rule="unpack(node) reattaches a saved output to its node in grad mode: "
                                 "that is what makes second derivatives work")
        second = outcome(ag.autograd.grad, g.sum(), x)
        grading.expect_close(second[0] if isinstance(second, tuple) else second, np.exp([0.0, 1.0, -1.0]),
                             what="the second derivative of exp(x)",
                             rule="unpack(node) reattaches a saved output to its node in grad mode: "
                                  "that is what makes second derivatives work")


# ------------------------------------------------------------ 06.hvp

SECOND_GRADIENT = ("H @ v differentiates the gradient a second time: "
                   "compute the gradient with create_graph=True")
A_PAIR = "hvp returns a pair (func(inputs), H @ v), like torch.autograd.functional.hvp"
VALUE_FIRST = "the pair starts with the function's value: (func(inputs), H @ v)"
H_TIMES_V = "hvp returns H @ v: the gradient of (gradient * v).sum()"
UNTOUCHED = "hvp works on a detached copy: the caller's tensor is left untouched"
DETACHED = "without create_graph, both results are detached"


def cubes(x):
    """``(x ** 3).sum()``: its Hessian is ``diag(6 x)``."""
    return (x ** 3).sum()


def exps(x):
    """``x.exp().sum()``: its Hessian is ``diag(exp(x))``."""
    return x.exp().sum()


def pair_check(result, call):
    """result is a pair (output, hvp); an error is reported with the rule it most likely breaks."""
    if isinstance(result, str) and "does not require grad" in result:
        rule = SECOND_GRADIENT
    else:
        rule = A_PAIR
    grading.expect_true(isinstance(result, tuple) and len(result) == 2, what=f"{call}",
                        seen=repr(result), rule=rule)


def hvp(fn):
    """Your ``hvp`` on the quadratic form ``x @ A @ x / 2`` (Hessian ``A``), on ``cubes`` and
    on ``exps``.  Rules: it returns the pair ``(func(inputs), H @ v)``, both detached; the
    caller's tensor is left untouched, also when it requires grad (no ``.grad``, still a
    leaf)."""
    def quadratic(x):
        return x @ A @ x / 2

    with grading.checking("06.hvp", fn):
        A = ag.tensor([[2.0, 1.0], [1.0, 3.0]])
        x0 = ag.tensor([1.0, -1.0])
        v = ag.tensor([1.0, 0.0])
        seen = outcome(fn, quadratic, x0, v)
        pair_check(seen, "hvp(quadratic, x0, v)")
        grading.expect_close(seen[0], 1.5, what="the first element of hvp(quadratic, x0, v)",
                             rule=VALUE_FIRST)
        grading.expect_close(seen[1], [2.0, 1.0], what="the second element of hvp(quadratic, x0, v)",
                             rule=H_TIMES_V)
        grading.expect_equal((x0.requires_grad, x0.grad_fn is None, x0.grad is None), (False, True, True),
                             what="(x0.requires_grad, x0.grad_fn is None, x0.grad is None) after hvp(quadratic, x0, v)",
                             rule=UNTOUCHED)
        grading.expect_equal((seen[0].requires_grad, seen[1].requires_grad), (False, False),
                             what="(output.requires_grad, hvp.requires_grad) for create_graph=False",
                             rule=DETACHED)

        x1 = ag.tensor([1.0, 2.0, 3.0])
        for v1, expected in (([1.0, 1.0, 1.0], [6.0, 12.0, 18.0]), ([1.0, -2.0, 0.5], [6.0, -24.0, 9.0])):
            seen = outcome(fn, cubes, x1, ag.tensor(v1))
            pair_check(seen, f"hvp(cubes, [1, 2, 3], {v1})")
            grading.expect_close(seen[1], expected,
                                 what=f"hvp(cubes, [1, 2, 3], {v1})[1] for cubes(x) = (x ** 3).sum()",
                                 rule=H_TIMES_V)
        x2 = ag.tensor([0.0, 1.0, -1.0])
        seen = outcome(fn, exps, x2, ag.tensor([1.0, 2.0, -1.0]))
        pair_check(seen, "hvp(exps, [0, 1, -1], [1, 2, -1])")
        grading.expect_close(seen[1], np.exp([0.0, 1.0, -1.0]) * [1.0, 2.0, -1.0], rtol=1e-5,
                             what="hvp(exps, [0, 1, -1], [1, 2, -1])[1] for exps(x) = x.exp().sum()",
                             rule=H_TIMES_V)

        w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        seen = outcome(fn, cubes, w, ag.tensor([1.0, 1.0, 1.0]))
        pair_check(seen, "hvp(cubes, w, v) with w.requires_grad=True")
        grading.expect_equal((w.grad is None, w.is_leaf), (True, True),
                             what="(w.grad is None, w.is_leaf) after hvp(cubes, w, v)",
                             rule=UNTOUCHED)


def hvp_in_the_library(fn):
    """Your function as ``ag.autograd.functional.hvp`` on ``cubes``, then called inside
    ``no_grad()`` (it must turn grad mode on itself), then with ``create_graph=True`` (``H @ v``
    must keep its graph)."""
    with grading.checking("06.hvp", fn):
        x1 = ag.tensor([1.0, 2.0, 3.0])
        v1 = ag.tensor([1.0, 1.0, 1.0])
        seen = outcome(ag.autograd.functional.hvp, cubes, x1, v1)
        pair_check(seen, "ag.autograd.functional.hvp(cubes, [1, 2, 3], [1, 1, 1])")
        grading.expect_close(seen[0], 36.0, what="ag.autograd.functional.hvp(cubes, [1, 2, 3], [1, 1, 1])[0]",
                             rule="the pair starts with the function's value: (func(inputs), H @ v)")
        grading.expect_close(seen[1], [6.0, 12.0, 18.0],
                             what="ag.autograd.functional.hvp(cubes, [1, 2, 3], [1, 1, 1])[1]",
                             rule="hvp returns H @ v: the gradient of (gradient * v).sum()")
        with ag.no_grad():
            seen = outcome(fn, cubes, x1, v1)
        grading.expect_true(isinstance(seen, tuple), what="hvp(cubes, x, v) called inside no_grad()", seen=repr(seen),
                            rule="hvp turns grad mode on itself (with ag.enable_grad():), so it works inside no_grad")
        grading.expect_close(seen[1], [6.0, 12.0, 18.0], what="hvp(cubes, x, v)[1] inside no_grad()",
                             rule="hvp turns grad mode on itself (with ag.enable_grad():), so it works inside no_grad")
        seen = outcome(fn, cubes, x1, v1, create_graph=True)
        pair_check(seen, "hvp(cubes, x, v, create_graph=True)")
        grading.expect_close(seen[1], [6.0, 12.0, 18.0], what="hvp(cubes, x, v, create_graph=True)[1]",
                             rule="hvp returns H @ v: the gradient of (gradient * v).sum()")
        grading.expect_equal(seen[1].requires_grad, True, what="hvp(cubes, x, v, create_graph=True)[1].requires_grad",
                             rule="with create_graph=True, H @ v keeps its graph (it is not detached)")


# ------------------------------------------------------------ 06.checkpoint_forward and 06.checkpoint_backward

RUNS_FUNCTION = "forward returns the outputs of the function on its arguments, computed without recording"
SAVES_INPUTS = ("forward saves the tensor arguments, and only them, with ctx.save_for_backward "
                "(not the outputs: backward recomputes those)")
KEEPS_OTHERS = ("ctx.inputs lists every argument, with None in place of each tensor (the tensors go "
                "through save_for_backward), and ctx.tensor_indices the positions of the tensors")
KEEPS_FUNCTION = "forward keeps the function as ctx.run_function"
RNG_KEPT = ("with preserve_rng_state, forward keeps in ctx.rng_state the generator's state from before the "
            "function runs (None without it)")
SAME_GRADS = "checkpointing changes no gradient: they equal those of the function run without checkpoint"
ONE_PER_ARGUMENT = ("backward returns one gradient per argument of forward: None for run_function and "
                    "preserve_rng_state, then one per input (None where the input is not a tensor)")
DETACHED_COPIES = ("backward recomputes on detached copies of the inputs: its own backward pass must not "
                   "reach the graph outside the checkpoint (x.grad is untouched by calling backward itself)")
WITH_GRAD = ("backward recomputes with grad mode on: the engine runs backward with it off, and a "
             "recomputation without a graph has nothing to differentiate")
SAME_RANDOM = ("backward recomputes with the forward pass's random numbers (ctx.rng_state), and leaves the "
               "caller's generator as it was (fork_rng)")
REFUSES_GRAD = ("inside autograd.grad or backward(inputs=...), backward refuses with a RuntimeError "
                "(NOT_VALID_MESSAGE) when checkpoint_valid() says it cannot run")
NOT_VALID = "incompatible with .grad()"


def _block_function(names, steps, noisy, outputs, w):
    """The function a random block checkpoints: a chain of elementwise steps on x."""
    def block(*args):
        env = dict(zip(names, args))
        a = env["x"]
        for step in steps:
            a = {"exp": lambda: (-a).exp(), "sin": lambda: a.sin(), "tanh": lambda: a.tanh(),
                 "w": lambda: a * w, "k": lambda: a * env["k"], "c": lambda: a + env["c"],
                 "square": lambda: a ** 2}[step]()
        if noisy:
            a = a * (ag.rand(*a.shape) > 0.5)          # a dropout-like random mask
        return (a, (a * env["c"]).sum()) if outputs == 2 else a
    return block


def random_block(seed):
    """A random function to checkpoint and its arguments, the same for the same seed.
    Returns (description, function, args, preserve, leaves): args are x (a leaf, or a
    non-leaf made from one), a number k, a constant tensor c, sometimes None, in a
    random order; the function may use a closure parameter w, draw a random mask, and
    return one or two outputs.  leaves are [the leaf behind x, w]."""
    rng = np.random.default_rng(seed)
    name, dtype = [("float32", ag.float32), ("float64", ag.float64)][int(rng.integers(2))]
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    values = lambda: rng.uniform(-1.0, 1.0, size=shape).astype(dtype.numpy)    # noqa: E731
    leaf, w, c = (ag.tensor(values(), requires_grad=flag) for flag in (True, True, False))
    non_leaf = bool(rng.integers(2))
    x = leaf * 1.5 if non_leaf else leaf
    k = round(float(rng.uniform(0.5, 2.0)), 3)
    names = ["x", "k", "c"] + (["none"] if rng.integers(2) else [])
    names = [names[int(i)] for i in rng.permutation(len(names))]
    args = [{"x": x, "k": k, "c": c, "none": None}[n] for n in names]
    steps = [["exp", "sin", "tanh", "w", "k", "c", "square"][int(i)] for i in rng.integers(7, size=int(rng.integers(1, 5)))]
    noisy, outputs, preserve = bool(rng.integers(2)), int(rng.integers(1, 3)), bool(rng.integers(4))
    description = (f"a block of {' -> '.join(steps)}{' -> random mask' if noisy else ''} with {outputs} output(s), "
                   f"arguments ({', '.join(names)}), x {'a non-leaf' if non_leaf else 'a leaf'} "
                   f"of shape {shape} ({name}), preserve_rng_state={preserve}")
    return description, _block_function(names, steps, noisy, outputs, w), args, preserve, [leaf, w]


def _apply(block, preserve, args):
    return CheckpointFunction.apply(block, preserve, *args)


def block_loss(outputs):
    """A scalar from a block's outputs (a weighted sum), to call backward on."""
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    total = outputs[0].sum() * 0.5
    for out in outputs[1:]:
        total = total + out * 2.0
    return total


def forward_record(seed):
    """What a checkpointed random block shows, part by part: its outputs, what its node
    saved (ctx), and the gradients after backward.  Only plain values."""
    description, block, args, preserve, leaves = random_block(seed)
    ag.manual_seed(seed % 997)
    before = get_rng_state()
    outputs = outcome(_apply, block, preserve, args)
    record = {"outputs": plain(outputs)}
    if isinstance(outputs, str):
        return description, record
    node = (outputs[0] if isinstance(outputs, tuple) else outputs).grad_fn
    record["saved"] = plain(outcome(lambda: list(node.saved_tensors)))
    record["inputs"] = [plain(getattr(node, "inputs", "missing")), getattr(node, "tensor_indices", "missing")]
    record["function"] = getattr(node, "run_function", None) is block
    state = getattr(node, "rng_state", "missing")
    record["rng_state"] = (state is None) if not preserve else (state == before)
    error = outcome(lambda: block_loss(outputs).backward())
    record["grads"] = [error if isinstance(error, str) else None, grads_of(leaves)]
    return description, record


def forward_rule(part, seen):
    """The rule a difference in ``part`` of a forward record most likely breaks."""
    if "save_for_backward" in str(seen):
        return SAVES_INPUTS
    return FORWARD_RULES[part]


FORWARD_RULES = {"outputs": RUNS_FUNCTION, "saved": SAVES_INPUTS, "inputs": KEEPS_OTHERS,
                 "function": KEEPS_FUNCTION, "rng_state": RNG_KEPT, "grads": SAME_GRADS}


def backward_record(seed, backward):
    """What a checkpoint's backward does on a random block, part by part: ``backward``
    called on the node directly (its result, and whether the outer leaves were touched),
    then backward through the engine (gradients, and the caller's generator afterwards)."""
    description, block, args, preserve, leaves = random_block(seed)
    ag.manual_seed(seed % 997)
    outputs = CheckpointFunction.apply(block, preserve, *args)
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    rng = np.random.default_rng(seed)
    grad_outputs = [ag.tensor(rng.uniform(-1.0, 1.0, size=o.shape).astype(o.dtype.numpy)) for o in outs]
    returned = outcome(backward, outs[0].grad_fn, *grad_outputs)
    record = {"returned": plain(returned), "untouched": grads_of(leaves)}
    for leaf in leaves:
        leaf.grad = None
    ag.manual_seed(seed % 997)
    outputs = CheckpointFunction.apply(block, preserve, *args)
    ag.rand(3)                                   # the caller draws between forward and backward
    error = outcome(lambda: block_loss(outputs).backward())
    record["grads"] = [error if isinstance(error, str) else None, grads_of(leaves)]
    record["generator"] = round(float(ag.rand(1).item()), 6)
    return description, record


def backward_rule(part, seen):
    """The rule a difference in ``part`` of a backward record most likely breaks."""
    text = str(seen)
    if "requires_grad" in text or "does not require grad" in text:
        return WITH_GRAD
    if "incorrect number of gradients" in text or "different than None" in text:
        return ONE_PER_ARGUMENT
    return {"returned": ONE_PER_ARGUMENT, "untouched": DETACHED_COPIES, "grads": SAME_GRADS,
            "generator": SAME_RANDOM}[part]


def _chain(t):
    for _ in range(3):
        t = (-t).exp()
    return t


def checkpoint_forward(fn):
    """Your ``forward`` as ``CheckpointFunction.forward``, through ``checkpoint(f, x, 2.0, c)``
    with ``f(a, k, c) = sin(exp(a * k) + c)``: the output's values and ``grad_fn``, what the
    node keeps (``saved_tensors``, ``inputs``, ``tensor_indices``, ``run_function``,
    ``rng_state``), then ``x.grad`` after backward; then a function with a random mask,
    with and without ``preserve_rng_state``."""
    def f(a, k, c):
        return ((a * k).exp() + c).sin()

    values = np.array([0.1, -0.2, 0.3])
    with grading.checking("06.checkpoint_forward", fn):
        x = ag.tensor(values, requires_grad=True)
        c = ag.tensor([1.0, 2.0, 3.0])
        before = get_rng_state()
        y = outcome(checkpoint, f, x, 2.0, c, use_reentrant=True)
        grading.expect_true(isinstance(y, ag.Tensor), what="checkpoint(f, x, 2.0, c)", seen=repr(y),
                            rule=forward_rule("outputs", y))
        grading.expect_close(y, np.sin(np.exp(values * 2.0) + [1.0, 2.0, 3.0]), what="checkpoint(f, x, 2.0, c)",
                             rule=RUNS_FUNCTION)
        node = y.grad_fn
        grading.expect_equal(node.name(), "CheckpointFunctionBackward", what="y.grad_fn.name()",
                             rule=RUNS_FUNCTION)
        saved = outcome(lambda: list(node.saved_tensors))
        grading.expect_equal(plain(saved), plain([x, c]), what="y.grad_fn.saved_tensors", rule=SAVES_INPUTS)
        grading.expect_equal([plain(getattr(node, "inputs", "missing")), getattr(node, "tensor_indices", "missing")],
                             [[None, 2.0, None], [0, 2]], what="[ctx.inputs, ctx.tensor_indices]", rule=KEEPS_OTHERS)
        grading.expect_true(getattr(node, "run_function", None) is f, what="ctx.run_function is f",
                            rule=KEEPS_FUNCTION)
        grading.expect_true(getattr(node, "rng_state", None) == before,
                            what="ctx.rng_state == the generator's state before checkpoint(...)", rule=RNG_KEPT)
        error = outcome(lambda: y.sum().backward())
        grading.expect_equal(error, None, what="y.sum().backward()", rule=SAME_GRADS)
        expected = np.cos(np.exp(values * 2.0) + [1.0, 2.0, 3.0]) * np.exp(values * 2.0) * 2.0
        grading.expect_close(x.grad, expected, what="x.grad after y.sum().backward()", rule=SAME_GRADS)

        def noisy(a):
            return a * (ag.rand(50) > 0.5)

        for preserve in (True, False):
            ones = ag.ones(50, requires_grad=True)
            ag.manual_seed(4)
            y = checkpoint(noisy, ones, use_reentrant=True, preserve_rng_state=preserve)
            grading.expect_true((getattr(y.grad_fn, "rng_state", "missing") is None) is (not preserve),
                                what=f"ctx.rng_state is None with preserve_rng_state={preserve}", rule=RNG_KEPT)
            y.sum().backward()
            if preserve:
                grading.expect_close(ones.grad, y.detach(), rule=RNG_KEPT,
                                     what="ones.grad for y = ones * (random mask), checkpointed: the same mask again")


def checkpoint_backward(fn):
    """Your ``backward`` as ``CheckpointFunction.backward``: first called directly on the node
    of ``checkpoint(f, x, 2.0, c)`` (it returns one gradient per argument of ``forward``, and
    ``x.grad`` stays None: the recomputation works on detached copies), then through the
    engine on a chain of three ``exp``, on a non-leaf input, with a closure parameter and
    two outputs; on a random mask (the same numbers again, the caller's generator left as
    it was); and inside ``autograd.grad``, which it refuses."""

    def f(a, k, c):
        return ((a * k).exp() + c).sin()

    values = np.array([0.1, -0.2, 0.3])
    expected = np.cos(np.exp(values * 2.0) + [1.0, 2.0, 3.0]) * np.exp(values * 2.0) * 2.0
    with grading.checking("06.checkpoint_backward", fn):
        x = ag.tensor(values, requires_grad=True)
        y = checkpoint(f, x, 2.0, ag.tensor([1.0, 2.0, 3.0]), use_reentrant=True)
        returned = outcome(fn, y.grad_fn, ag.ones(3))
        grading.expect_true(isinstance(returned, tuple) and len(returned) == 5
                            and [g is None for g in returned] == [True, True, False, True, True],
                            what="backward(ctx, ones) for y = checkpoint(f, x, 2.0, c), c not requiring grad",
                            seen=repr(plain(returned)), rule=ONE_PER_ARGUMENT)
        grading.expect_close(returned[2], expected, what="the gradient of x in backward's result", rule=SAME_GRADS)
        grading.expect_equal(x.grad, None, what="x.grad after calling backward(ctx, ones) directly",
                             rule=DETACHED_COPIES)

        x = ag.tensor(values, requires_grad=True)
        error = outcome(lambda: checkpoint(_chain, x, use_reentrant=True).sum().backward())
        grading.expect_equal(error, None, what="checkpoint(chain of 3 exp, x).sum().backward()",
                             rule=backward_rule("grads", error))
        grading.expect_close(x.grad, _numeric_chain_grad(values), what="x.grad for the chain of 3 exp",
                             rule=SAME_GRADS)

        leaf = ag.tensor(values, requires_grad=True)
        w = ag.tensor([2.0, -1.0, 0.5], requires_grad=True)

        def two(a):
            h = (a * w).tanh()
            return h, (h * h).sum()

        out, total = checkpoint(two, leaf * 3.0, use_reentrant=True)
        error = outcome(lambda: (out.sum() + total).backward())
        grading.expect_equal(error, None, what="backward through checkpoint(two, leaf * 3.0)",
                             rule=backward_rule("grads", error))
        t = np.tanh(values * 3.0 * [2.0, -1.0, 0.5])
        dh = (1 + 2 * t) * (1 - t ** 2)
        grading.expect_close(leaf.grad, dh * [2.0, -1.0, 0.5] * 3.0, rtol=1e-6,
                             what="leaf.grad for a non-leaf input leaf * 3.0 and two outputs", rule=SAME_GRADS)
        grading.expect_close(w.grad, dh * values * 3.0, rtol=1e-6,
                             what="w.grad for a parameter w the function uses", rule=SAME_GRADS)

        def noisy(a):
            return a * (ag.rand(50) > 0.5)

        ones = ag.ones(50, requires_grad=True)
        ag.manual_seed(4)
        y = checkpoint(noisy, ones, use_reentrant=True)
        ag.rand(7)                                   # the caller draws between forward and backward
        next_draw = ag.rand(1).item()
        ag.manual_seed(4)
        y = checkpoint(noisy, ones, use_reentrant=True)
        ag.rand(7)
        error = outcome(lambda: y.sum().backward())
        grading.expect_equal(error, None, what="backward through checkpoint(noisy, ones)",
                             rule=backward_rule("grads", error))
        grading.expect_close(ones.grad, y.detach(), what="ones.grad for y = ones * (random mask)", rule=SAME_RANDOM)
        grading.expect_equal(ag.rand(1).item(), next_draw,
                             what="the caller's next random number after backward", rule=SAME_RANDOM)

        x = ag.tensor(values, requires_grad=True)
        y = checkpoint(_chain, x, use_reentrant=True)
        grading.expect_raises(lambda: ag.autograd.grad(y.sum(), x), RuntimeError, NOT_VALID,
                              what="ag.autograd.grad(checkpoint(chain, x).sum(), x)", rule=REFUSES_GRAD)


def _numeric_chain_grad(values):
    a, grad = np.array(values, dtype=float), 1.0
    for _ in range(3):
        a = np.exp(-a)
        grad = grad * -a
    return grad
