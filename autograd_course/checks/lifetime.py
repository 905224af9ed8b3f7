"""Visible checks of assignment 06: graph lifetime, ``retain_graph`` and higher-order gradients.

Each visible check is the visible part of one test cell, run on the function(s) you wrote; its
docstring says what it tries.  The ``expect_*`` functions are what the hidden tests run on
random inputs (the seeds are in the hidden cells).  The constants are the rules the checks
name, as the task texts state them (``grading.rules``).

This module holds exercise 2 (``free_saved``) and exercise 4 (``hvp``), the helpers the tests
share (``random_graph``, ``random_node``, ``plain``, ``cubes``, ``exps``), and imports the checks
of the other exercises: ``saving.py`` (exercise 1), ``saved_hooks.py`` (3), ``checkpointing.py``
(5) and ``custom_functions.py`` (6), so that the notebook reads them all as ``check``.  Why one
module of this length: one file per notebook for a student to read, two exercises of eight test
cells in all.
"""

import gc
import weakref

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .checkpointing import checkpoint_gradients, checkpoint_randomness, checkpoint_saves  # noqa: F401
from .custom_functions import function_gradients, function_gradients_in_the_engine  # noqa: F401
from .saved_hooks import unpack, unpack_in_the_engine  # noqa: F401
from .saving import grads_of, plain, plan_saves, plan_saves_in_the_engine  # noqa: F401

__all__ = ["plan_saves", "plan_saves_in_the_engine", "release_saved", "saved_values", "free_saved_in_the_engine",
           "unpack", "unpack_in_the_engine", "hvp", "hvp_in_the_library",
           "checkpoint_saves", "checkpoint_gradients", "checkpoint_randomness",
           "function_gradients", "function_gradients_in_the_engine",
           "random_graph", "random_node", "grads_of", "plain", "cubes", "exps",
           "random_release_cases", "expect_release", "random_value_cases", "expect_values", "expect_engine_runs",
           "random_hvp_case", "expect_hvp", "random_hessian_cases", "expect_hvp_against_hessian",
           "FREED", "FREES", "REMEMBERS", "NOTHING_SAVED", "PLAIN_KEPT", "REFUSES", "VALUES",
           "PAIR", "H_TIMES_V", "ONE_ELEMENT", "V_NONE", "ANY_MODE", "UNTOUCHED", "DETACHED", "CREATE_GRAPH"]


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


# ------------------------------------------------------------ 06.free_saved

FREE = grading.rules("06.free_saved")
FREES = FREE("frees")
REMEMBERS = FREE("remembers")
NOTHING_SAVED = FREE("nothing-saved")
PLAIN_KEPT = FREE("plain-kept")
REFUSES = FREE("refuses")
VALUES = FREE("values")
FREED = "Trying to backward through the graph a second time"


def _plugged(release, values):
    return {"06.release_saved": release, "06.saved_values": values}


def _read(node, name):
    """``node._saved_<name>`` as the tests compare it: the freed error, a plain form, or another error."""
    value = outcome(lambda: getattr(node, "_saved_" + name))
    if isinstance(value, str):
        return "the freed error" if FREED in value else value
    return plain(value)


def _built(build):
    """(description, node, saved names, plain names, weakrefs to the saved arrays) of a node
    recorded by the library's code, held by nothing but the returned node."""
    with library_version("06"):
        description, node = build()
    probes = [weakref.ref(s.tensor._data) for s in node._saved.values() if s.tensor is not None]
    return description, node, sorted(node._saved), sorted(node._params), probes


def release_record(release, built):
    """What ``release(node)`` does to a built node, as behaviour: the error it raised, what
    reading each saved name gives afterwards, the plain values, what a node that saved nothing
    hands to a formula that reads all its plain values (``node.saved_values``), and which saved
    arrays were reclaimed."""
    description, node, names, params, probes = built
    result = outcome(release, node)
    record = {"error": result if isinstance(result, str) else None,
              "reading each saved name": {name: _read(node, name) for name in names},
              "plain values": {name: _read(node, name) for name in params}}
    if not names:
        record["a formula reading its plain values (it saved nothing)"] = plain(
            outcome(node.saved_values, tuple(params)))
    return record


def reclaimed(records, builds):
    """Add to each record which of its build's saved arrays were reclaimed (one collection for all)."""
    gc.collect()
    for record, (_, _, _, _, probes) in zip(records, builds):
        record["saved arrays reclaimed"] = [probe() is None for probe in probes]


def expect_release_record(seen, expected, what):
    """Fail when a release record differs from the library's, naming the rule broken."""
    if seen == expected:
        return
    if seen.get("error") != expected.get("error"):
        grading.expect_equal(seen.get("error"), expected.get("error"), what=f"the error of {what}", rule=FREES)
    part = "a formula reading its plain values (it saved nothing)"
    if part in expected and seen != expected:
        grading.expect_equal(seen, expected, what=f"after {what}", rule=NOTHING_SAVED)
    part = "reading each saved name"
    if seen.get(part) != expected.get(part):
        grading.expect_equal(seen.get(part), expected.get(part), what=f"{part} after {what}", rule=REMEMBERS)
    part = "saved arrays reclaimed"
    if seen.get(part) != expected.get(part):
        grading.expect_equal(seen.get(part), expected.get(part), what=f"{part} after {what}", rule=FREES)
    part = "plain values"
    if seen.get(part) != expected.get(part):
        grading.expect_equal(seen.get(part), expected.get(part), what=f"{part} after {what}", rule=PLAIN_KEPT)
    grading.expect_equal(seen, expected, what=what, rule=NOTHING_SAVED)


def _release_checks(release, values, builds):
    """Each build released with the student's release_saved, then with the library's."""
    reference = exercises.reference("06.release_saved")
    built = [_built(build) for build in builds]
    with grading.checking(_plugged(release, values)):
        seen = [release_record(release, b) for b in built]
    reclaimed(seen, built)
    del built
    built = [_built(build) for build in builds]
    expected = [release_record(reference, b) for b in built]
    reclaimed(expected, built)
    for b, s, e in zip(built, seen, expected):
        expect_release_record(s, e, what=f"release_saved(node) for the node of {b[0]}")


def _op_node(label, make):
    def build():
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return label, make(x).grad_fn
    return build


def release_saved(release, values):
    """Your ``release_saved`` on the nodes of ``x.exp()``, ``x + 1``, ``x ** 3`` and ``x * 2``,
    each held by nothing else: afterwards reading ``_saved_<name>`` of a tensor it saved
    raises the freed error, the saved arrays are reclaimed, plain values still read, and the
    node of ``x + 1`` (nothing saved) is as it was.  Compared with the library's."""
    _release_checks(release, values, [_op_node("x.exp()", lambda x: x.exp()), _op_node("x + 1", lambda x: x + 1),
                                      _op_node("x ** 3", lambda x: x ** 3), _op_node("x * 2", lambda x: x * 2)])


def random_release_cases(seeds):
    """Builds of random nodes: the 18 ops of ``random_node`` in turn, on random values."""
    return [lambda seed=seed, op=op: random_node(seed, op)[:2] for op, seed in enumerate(seeds)]


def expect_release(release, values, cases):
    _release_checks(release, values, cases)


def expect_values_outcome(node, names, seen, expected, what):
    """Fail when what saved_values returned (or raised) differs from the library's."""
    if isinstance(expected, str):
        grading.expect_equal(seen if isinstance(seen, str) else plain(seen), expected, what=what,
                             rule=REFUSES if FREED in expected else VALUES)
        return
    if isinstance(seen, str):
        grading.expect_equal(seen, plain(expected), what=what,
                             rule=PLAIN_KEPT if node._freed and FREED in seen else VALUES)
    if not isinstance(seen, list):
        grading.expect_equal(f"an object of type {type(seen).__name__}", "a list", what=what, rule=VALUES)
    for name, s_value, e_value in zip(names, seen, expected):
        grading.expect_equal(plain(s_value), plain(e_value), what=f"the value for {name!r} in {what}",
                             rule=PLAIN_KEPT if node._freed and name not in node._saved else VALUES)
    grading.expect_equal(plain(seen), plain(expected), what=what, rule=VALUES)


def _values_checks(release, values, cases):
    """saved_values(node, names) for each (description, node, names), the student's and the library's."""
    reference = exercises.reference("06.saved_values")
    with library_version("06"):
        expected = [outcome(reference, node, names) for _, node, names in cases]
    with grading.checking(_plugged(release, values)):
        seen = [outcome(values, node, names) for _, node, names in cases]
    for (description, node, names), s, e in zip(cases, seen, expected):
        expect_values_outcome(node, names, s, e, what=f"saved_values(node, {names}) for {description}")


def saved_values(release, values):
    """Your ``saved_values`` on the nodes of ``x * w`` and ``x ** 3``, with the names in both
    orders and with none; on ``sin(h)`` after ``h.add_(1)`` (the version check refuses); on
    freed nodes of ``x.exp()`` and ``x ** 3`` (refused, but a plain value alone is handed
    out).  Compared with the library's."""
    free = exercises.reference("06.release_saved")
    with library_version("06"):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        mul, pow_node = (x * w).grad_fn, (x ** 3).grad_fn
        h = ag.tensor([0.5, 1.0], requires_grad=True) * 2
        sin_node = h.sin().grad_fn
        h.add_(1)
        exp_freed, pow_freed = x.exp().grad_fn, (x ** 3).grad_fn
        free(exp_freed)
        free(pow_freed)
    cases = [("x * w", mul, ("self", "other")), ("x * w", mul, ("other", "self")),
             ("x ** 3", pow_node, ("self", "exponent")), ("x ** 3", pow_node, ("exponent", "self")),
             ("x ** 3 (a formula that needs nothing)", pow_node, ()),
             ("sin(h) after h.add_(1)", sin_node, ("self",)),
             ("a freed x.exp()", exp_freed, ("result",)), ("a freed x ** 3", pow_freed, ("self", "exponent")),
             ("a freed x ** 3", pow_freed, ("exponent",))]
    _values_checks(release, values, cases)


def random_value_cases(seeds):
    """(description, node, names): the nodes of ``random_node`` (each op twice), asked for all
    their names in a random order; the second time freed, written in place, or asked for some
    names only; and freed nodes asked for their plain values alone."""
    cases = []
    free = exercises.reference("06.release_saved")
    with library_version("06"):
        for i, seed in enumerate(seeds):
            rng = np.random.default_rng(seed)
            description, node, h, k = random_node(int(rng.integers(2**32)), op=i)
            names = [(list(node._saved) + list(node._params))[int(j)]
                     for j in rng.permutation(len(node._saved) + len(node._params))]
            state = "as built"
            if i >= 18:
                state = ["as built", "freed", "after h.add_(1)"][int(rng.integers(3))]
                names = names[:int(rng.integers(1, len(names) + 1))] if names else names
            if state == "freed":
                free(node)
            elif state == "after h.add_(1)":
                h.add_(1.0)
            cases.append((f"the random node of {description}, {state}", node, tuple(names)))
            if i >= 18 and node._saved and node._params:
                description, node, h, k = random_node(int(rng.integers(2**32)), op=i)
                free(node)
                params = [list(node._params)[int(j)] for j in rng.permutation(len(node._params))]
                cases.append((f"the random node of {description}, freed", node, tuple(params)))
    return cases


def expect_values(release, values, cases):
    _values_checks(release, values, cases)


def labels(nodes):
    """Each node's name, told apart by its rank among the nodes of that name (``MulBackward0 #2``)."""
    names = [node.name() for node in nodes]
    seen = {}
    shown = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        shown.append(f"{name} #{seen[name]}" if names.count(name) > 1 else name)
    return shown


def two_passes(seed, retain):
    """A random graph's gradients and errors over two backward passes, the first retained or not."""
    leaves, loss = random_graph(seed)
    first = outcome(loss.backward, retain_graph=retain)
    after_first = grads_of(leaves)
    second = outcome(loss.backward)
    return {"first backward": first, "grads after it": after_first, "second backward": second,
            "grads after the second": grads_of(leaves)}


def second_derivatives(seed):
    """The first derivatives of a random graph's loss (create_graph=True), and the gradient of
    their sum: the saved tensors come back attached to their nodes."""
    leaves, loss = random_graph(seed)
    firsts = outcome(ag.autograd.grad, loss, leaves, create_graph=True, allow_unused=True)
    if isinstance(firsts, str):
        return firsts
    parts = [g.sum() for g in firsts if g is not None and g.requires_grad]
    if not parts:
        return plain(list(firsts)), "linear"
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return plain(list(firsts)), plain(outcome(ag.autograd.grad, total, leaves, allow_unused=True))


def expect_passes(seen, expected, retain, what):
    """Fail when two backward passes (``two_passes``) differ, naming the rule broken."""
    if seen == expected:
        return
    for part in ("first backward", "grads after it"):
        if seen[part] != expected[part]:
            grading.expect_equal(seen[part], expected[part], what=f"{part}: {what}", rule=VALUES)
    s, e = seen["second backward"], expected["second backward"]
    if s != e:
        refused = isinstance(e, str) and FREED in e
        grading.expect_equal(s, e, what=f"the second backward: {what}",
                             rule=REFUSES if refused else VALUES if retain else NOTHING_SAVED)
    grading.expect_equal(seen, expected, what=what, rule=VALUES if retain else NOTHING_SAVED)


def _engine_checks(release, values, seeds):
    """Random graphs: every node released (behaviour), two backward passes with and without
    retain_graph, and second derivatives; the student's methods, then the library's."""
    def released(seed):
        leaves, loss = random_graph(seed)
        nodes = ag.viz.graph_nodes(loss)
        return [(label, sorted(node._saved), sorted(node._params), node)
                for label, node in zip(labels(nodes), nodes)], (leaves, loss)

    def states(fn, seed):
        with library_version("06"):
            nodes, keep = released(seed)
        return [(name, release_record(fn, (name, node, names, params, []))) for name, names, params, node in nodes]

    with grading.checking(_plugged(release, values)):
        seen = [(states(release, seed), [two_passes(seed, r) for r in (False, True)], second_derivatives(seed))
                for seed in seeds]
    reference = exercises.reference("06.release_saved")
    with library_version("06"):
        expected = [(states(reference, seed), [two_passes(seed, r) for r in (False, True)], second_derivatives(seed))
                    for seed in seeds]
    for i, ((s_states, s_passes, s_second), (e_states, e_passes, e_second)) in enumerate(zip(seen, expected)):
        for (name, s), (_, e) in zip(s_states, e_states):
            expect_release_record(s, e, what=f"release_saved on {name} of random graph #{i}")
        for retain, s, e in zip((False, True), s_passes, e_passes):
            expect_passes(s, e, retain, what=f"two backward passes through random graph #{i}"
                                             f"{' (the first with retain_graph=True)' if retain else ''}")
        grading.expect_equal(s_second, e_second, rule=VALUES,
                             what=f"first derivatives (create_graph=True), then the gradient of their sum, "
                                  f"for random graph #{i}")


def free_saved_in_the_engine(release, values):
    """Your methods inside the engine: ``(sin(x * w) + x ** 3).sum()`` backward (its
    gradients), a second backward (PyTorch's error), two passes with ``retain_graph=True``
    (they accumulate), ``(x + 1).sum()`` twice (it works), ``(x * 2).sum()`` twice (it does
    not), the array saved by ``sin`` reclaimed after backward, and the second derivative
    of ``exp``."""
    with grading.checking(_plugged(release, values)):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = ag.tensor([4.0, 5.0, 6.0], requires_grad=True)
        loss = ((x * w).sin() + x ** 3).sum()
        first = outcome(loss.backward)
        grading.expect_equal(first, None, what="loss.backward() for loss = (sin(x * w) + x ** 3).sum()", rule=VALUES)
        xv, wv = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
        grading.expect_close(x.grad, np.cos(xv * wv) * wv + 3 * xv ** 2, what="x.grad", rtol=1e-4, rule=VALUES)
        grading.expect_close(w.grad, np.cos(xv * wv) * xv, what="w.grad", rtol=1e-4, rule=VALUES)
        grading.expect_raises(loss.backward, RuntimeError, FREED, what="a second loss.backward()", rule=REFUSES)

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (x ** 3).sum()
        loss.backward(retain_graph=True)
        grading.expect_equal(outcome(loss.backward), None, rule=VALUES,
                             what="a second backward through (x ** 3).sum(), the first retained")
        grading.expect_close(x.grad, [6.0, 24.0, 54.0], rule=VALUES,
                             what="x.grad after two passes through (x ** 3).sum(), the first retained")

        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (x + 1).sum()
        loss.backward()
        grading.expect_equal(outcome(loss.backward), None, what="a second backward of (x + 1).sum()",
                             rule=NOTHING_SAVED)
        grading.expect_close(x.grad, [2.0, 2.0, 2.0], what="x.grad after backward twice through (x + 1).sum()",
                             rule=NOTHING_SAVED)
        loss = (x * 2).sum()
        loss.backward()
        grading.expect_raises(loss.backward, RuntimeError, FREED, what="a second backward of (x * 2).sum()",
                              rule=REFUSES)

        a = ag.rand(1000, requires_grad=True)
        h = a * 2
        loss = h.sin().sum()
        probe = weakref.ref(h._data)
        del h
        loss.backward()
        gc.collect()
        grading.expect_true(probe() is None, what="the array saved by sin is reclaimed after backward",
                            seen="it is still alive", rule=FREES)

        x = ag.tensor([0.0, 1.0, -1.0], requires_grad=True)
        g = outcome(lambda: ag.autograd.grad(x.exp().sum(), x, create_graph=True)[0])
        second = outcome(lambda: ag.autograd.grad(g.sum(), x)[0])
        grading.expect_close(second if isinstance(second, ag.Tensor) else None, np.exp([0.0, 1.0, -1.0]),
                             what=f"the second derivative of exp(x) (seen: {second if isinstance(second, str) else 'a tensor'})",
                             rule=VALUES)


def expect_engine_runs(release, values, seeds):
    _engine_checks(release, values, seeds)


# ------------------------------------------------------------ 06.hvp

HVP = grading.rules("06.hvp")
PAIR = HVP("pair")
H_TIMES_V = HVP("h-times-v")
ONE_ELEMENT = HVP("one-element")
V_NONE = HVP("v-none")
ANY_MODE = HVP("any-mode")
UNTOUCHED = HVP("untouched")
DETACHED = HVP("detached")
CREATE_GRAPH = HVP("create-graph")
NOT_ONE_ELEMENT = "should contain a single element"
NOT_NONE = "The vector v can only be None if the input"


def cubes(x):
    """``(x ** 3).sum()``: its Hessian is ``diag(6 x)``."""
    return (x ** 3).sum()


def exps(x):
    """``x.exp().sum()``: its Hessian is ``diag(exp(x))``."""
    return x.exp().sum()


def linear(x):
    """``(2 * x).sum()``: its Hessian is zero."""
    return (x * 2).sum()


def hvp_record(fn, func, inputs, v, create_graph=False, mode=None):
    """What ``fn(func, inputs, v, create_graph)`` does, as plain values: the error, or the
    pair's values and flags; the caller's tensor afterwards; how often func ran; with
    ``create_graph`` and an input that requires grad, the gradient of ``H v``'s sum with
    respect to the input (None when H v is not connected to it)."""
    calls = []

    def counted(t):
        calls.append(1)
        return func(t)
    if mode == "no_grad":
        with ag.no_grad():
            result = outcome(fn, counted, inputs, v, create_graph=create_graph)
    else:
        result = outcome(fn, counted, inputs, v, create_graph=create_graph)
    caller = (inputs.requires_grad, inputs.grad is None, inputs.is_leaf)
    if isinstance(result, str):
        return {"error": (result.split(":")[0] + ": single element" if NOT_ONE_ELEMENT in result else
                          result.split(":")[0] + ": v None" if NOT_NONE in result else result),
                "func ran": len(calls), "caller (requires_grad, grad is None, is_leaf)": caller}
    if not (isinstance(result, tuple) and len(result) == 2 and all(isinstance(r, ag.Tensor) for r in result)):
        return {"returned": repr(result) if not isinstance(result, tuple) else f"a tuple of {len(result)}"}
    output, product = result
    record = {"value": np.round(output.detach()._data.astype(float), 5).tolist(),
              "H v": np.round(product.detach()._data.astype(float), 5).tolist(),
              "shapes": (tuple(output.shape), tuple(product.shape)),
              "requires_grad (output, H v)": (output.requires_grad, product.requires_grad),
              "caller (requires_grad, grad is None, is_leaf)": caller}
    if create_graph and inputs.requires_grad and product.requires_grad:
        connected = outcome(ag.autograd.grad, product.sum(), inputs, allow_unused=True)
        record["d(sum of H v)/d inputs"] = (None if isinstance(connected, str) or connected[0] is None
                                            else np.round(connected[0]._data.astype(float), 4).tolist())
    return record


def expect_hvp_record(seen, expected, what):
    """Fail when an hvp record differs from the library's, naming the rule broken."""
    if seen == expected:
        return
    if "returned" in seen:
        grading.expect_equal(seen["returned"], "a pair (output, H v) of tensors", what=what, rule=PAIR)
    if "error" in seen or "error" in expected:
        wanted, got = expected.get("error", ""), seen.get("error", "")
        grading.expect_equal(got or "no error", wanted or "no error", what=what,
                             rule=ONE_ELEMENT if "single element" in wanted + got else
                             V_NONE if "v None" in wanted + got else
                             ANY_MODE if "inside no_grad()" in what else
                             H_TIMES_V if "does not require grad" in got else PAIR)
        grading.expect_equal(seen.get("func ran"), expected.get("func ran"), what=f"how often func ran: {what}",
                             rule=V_NONE)
    if seen["value"] != expected["value"]:
        grading.expect_equal(seen["value"], expected["value"], what=f"the first element of {what}", rule=PAIR)
    if seen["H v"] != expected["H v"] or seen["shapes"] != expected["shapes"]:
        grading.expect_equal((seen["H v"], seen["shapes"]), (expected["H v"], expected["shapes"]),
                             what=f"(H v, (output.shape, H v.shape)) of {what}", rule=H_TIMES_V)
    key = "caller (requires_grad, grad is None, is_leaf)"
    if seen[key] != expected[key]:
        grading.expect_equal(seen[key], expected[key], what=f"the caller's tensor after {what}", rule=UNTOUCHED)
    key = "requires_grad (output, H v)"
    if seen[key] != expected[key]:
        grading.expect_equal(seen[key], expected[key], what=f"{key} of {what}",
                             rule=CREATE_GRAPH if "create_graph=True" in what else DETACHED)
    grading.expect_equal(seen, expected, what=what, rule=CREATE_GRAPH)


def _hvp_checks(fn, cases):
    """(label, func, make inputs, v, create_graph, mode) each: the student's hvp, then the library's."""
    reference = exercises.reference("06.hvp")
    with grading.checking("06.hvp", fn):
        seen = [hvp_record(fn, func, make(), v, create_graph, mode) for _, func, make, v, create_graph, mode in cases]
    with library_version("06"):
        expected = [hvp_record(reference, func, make(), v, create_graph, mode)
                    for _, func, make, v, create_graph, mode in cases]
    for (label, *_), s, e in zip(cases, seen, expected):
        expect_hvp_record(s, e, what=label)


def hvp(fn):
    """Your ``hvp`` on the quadratic form ``x @ A @ x / 2`` (Hessian ``A``), ``cubes``, ``exps``
    and a linear function (Hessian 0); with ``v=None`` on one-element inputs; refusing a
    function of several elements and ``v=None`` on a longer input (before calling func); on a
    tensor that requires grad (left untouched).  Compared with PyTorch's values (the library's
    hvp): the pair, its flags, the caller's tensor, how often func ran."""
    A = ag.tensor([[2.0, 1.0], [1.0, 3.0]])

    def quadratic(x):
        return x @ A @ x / 2

    def t(*values, **kw):
        return lambda: ag.tensor(list(values) if len(values) != 1 or kw.get("vector") else values[0],
                                 requires_grad=kw.get("requires_grad", False))
    cases = [("hvp(quadratic, [1, -1], [1, 0])", quadratic, t(1.0, -1.0), ag.tensor([1.0, 0.0]), False, None),
             ("hvp(cubes, [1, 2, 3], [1, -2, 0.5])", cubes, t(1.0, 2.0, 3.0), ag.tensor([1.0, -2.0, 0.5]), False, None),
             ("hvp(exps, [0, 1, -1], [1, 2, -1])", exps, t(0.0, 1.0, -1.0), ag.tensor([1.0, 2.0, -1.0]), False, None),
             ("hvp(linear, [1, 2, 3], [1, 1, 1]), linear(x) = (x * 2).sum()", linear, t(1.0, 2.0, 3.0),
              ag.tensor([1.0, 1.0, 1.0]), False, None),
             ("hvp(lambda t: t ** 3, tensor(2.)) (v=None)", lambda x: x ** 3, t(2.0), None, False, None),
             ("hvp(cubes, tensor([2.])) (v=None)", cubes, t(2.0, vector=True), None, False, None),
             ("hvp(lambda t: t ** 3, [1, 2, 3], [1, 1, 1])", lambda x: x ** 3, t(1.0, 2.0, 3.0),
              ag.tensor([1.0, 1.0, 1.0]), False, None),
             ("hvp(cubes, [1, 2, 3]) (v=None)", cubes, t(1.0, 2.0, 3.0), None, False, None),
             ("hvp(cubes, w, [1, 1, 1]) for w = [1, 2, 3] requiring grad", cubes, t(1.0, 2.0, 3.0, requires_grad=True),
              ag.tensor([1.0, 1.0, 1.0]), False, None)]
    _hvp_checks(fn, cases)


def hvp_in_the_library(fn):
    """Your function as ``ag.autograd.functional.hvp`` on ``cubes``; called inside
    ``no_grad()``; with ``create_graph=True`` (both results keep their graph), also on an input
    that requires grad (``H v`` differentiated again with respect to it)."""
    with grading.checking("06.hvp", fn):
        seen = outcome(ag.autograd.functional.hvp, cubes, ag.tensor([1.0, 2.0, 3.0]), ag.tensor([1.0, 1.0, 1.0]))
        grading.expect_true(isinstance(seen, tuple) and len(seen) == 2, seen=repr(seen), rule=PAIR,
                            what="ag.autograd.functional.hvp(cubes, [1, 2, 3], [1, 1, 1])")
        grading.expect_close(seen[1], [6.0, 12.0, 18.0], rule=H_TIMES_V,
                             what="ag.autograd.functional.hvp(cubes, [1, 2, 3], [1, 1, 1])[1]")
    v = ag.tensor([1.0, 1.0, 1.0])
    _hvp_checks(fn, [
        ("hvp(cubes, [1, 2, 3], [1, 1, 1]) inside no_grad()", cubes, lambda: ag.tensor([1.0, 2.0, 3.0]), v, False,
         "no_grad"),
        ("hvp(cubes, [1, 2, 3], [1, 1, 1], create_graph=True)", cubes, lambda: ag.tensor([1.0, 2.0, 3.0]), v, True,
         None),
        ("hvp(cubes, w, [1, 1, 1], create_graph=True) for w = [1, 2, 3] requiring grad", cubes,
         lambda: ag.tensor([1.0, 2.0, 3.0], requires_grad=True), v, True, None),
        ("hvp(exps, w, [1, -1, 2], create_graph=True) inside no_grad(), w requiring grad", exps,
         lambda: ag.tensor([0.5, 0.0, -0.5], requires_grad=True), ag.tensor([1.0, -1.0, 2.0]), True, "no_grad")])


def random_hvp_case(seed):
    """A random case for ``_hvp_checks``: a function (quadratic, cubes, exps, linear, x sin x,
    or one returning several elements), a float32 or float64 point of 1 to 4 elements (or 0-d),
    v or None, create_graph, an input requiring grad or not, inside no_grad or not."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 5))
    dtype = [ag.float32, ag.float64][int(rng.integers(2))]
    shape = () if n == 0 else (n,)
    size = max(n, 1)
    x = rng.uniform(-1.5, 1.5, size=shape).astype(dtype.numpy)
    v = rng.standard_normal(shape).astype(dtype.numpy)
    M = rng.standard_normal((size, size)).astype(dtype.numpy)
    S = ag.tensor((M + M.T) / 2)
    kind = ["quadratic", "cubes", "exps", "linear", "x sin x", "several elements"][int(rng.integers(6))]
    funcs = {"quadratic": lambda t: t.reshape(-1) @ S @ t.reshape(-1) / 2, "cubes": cubes, "exps": exps,
             "linear": linear, "x sin x": lambda t: (t * t.sin()).sum(), "several elements": lambda t: t ** 3}
    if kind == "several elements" and size == 1:
        kind = "cubes"
    flagged, create_graph = bool(rng.integers(2)), bool(rng.integers(3) == 0)
    no_v = bool(rng.integers(4) == 0)
    mode = "no_grad" if rng.integers(3) == 0 else None
    label = (f"hvp({kind}, x, {'None' if no_v else 'v'}{', create_graph=True' if create_graph else ''}) for a random "
             f"{dtype.name} x of shape {shape}{' requiring grad' if flagged else ''}"
             f"{' inside no_grad()' if mode else ''}")
    return (label, funcs[kind], lambda: ag.tensor(x, dtype=dtype, requires_grad=flagged),
            None if no_v else ag.tensor(v, dtype=dtype), create_graph, mode)


def expect_hvp(fn, cases):
    _hvp_checks(fn, cases)


def random_hessian_cases(seeds):
    """(kind, func, x, v): random functions at random float64 points, to compare with the
    explicit Hessian."""
    cases = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 6))
        kind = ["quadratic", "cubes", "exps", "x sin x"][int(rng.integers(4))]
        M = ag.tensor(rng.standard_normal((n, n)))
        b = ag.tensor(rng.standard_normal(n))
        funcs = {"quadratic": lambda x, M=M, b=b: x @ M @ x / 2 + (b * x).sum(), "cubes": cubes, "exps": exps,
                 "x sin x": lambda x: (x * x.sin()).sum()}
        cases.append((kind, funcs[kind], ag.tensor(rng.standard_normal(n)), ag.tensor(rng.standard_normal(n))))
    return cases


def expect_hvp_against_hessian(fn, cases, explicit_hessian):
    """fn's H v against the explicit Hessian (``explicit_hessian``, the notebook's helper) times v."""
    with library_version("06"):
        expected = [(func(x).item(), explicit_hessian(func, x).numpy() @ v.numpy()) for _, func, x, v in cases]
    with grading.checking("06.hvp", fn):
        seen = [outcome(fn, func, x, v) for _, func, x, v in cases]
    for (kind, func, x, v), s, (value, product) in zip(cases, seen, expected):
        call = f"hvp({kind}, x, v) for a random x of shape {tuple(x.shape)}"
        grading.expect_true(isinstance(s, tuple) and len(s) == 2, what=call, seen=repr(s), rule=PAIR)
        grading.expect_close(s[0], value, what=f"the first element of {call}", rtol=1e-9, rule=PAIR)
        grading.expect_close(s[1], product, what=f"the second element of {call}, against the explicit Hessian",
                             rtol=1e-7, atol=1e-9, rule=H_TIMES_V)
        grading.expect_equal((s[0].requires_grad, s[1].requires_grad, x.requires_grad), (False, False, False),
                             what=f"(output.requires_grad, hvp.requires_grad, x.requires_grad) for {call}",
                             rule=UNTOUCHED if x.requires_grad else DETACHED)
