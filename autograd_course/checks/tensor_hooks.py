"""Visible checks of assignment 04, exercise 3: ``tensor_hooks``, its two slots ``store_retained_grad``
and ``call_tensor_hooks`` (each check takes both functions).

``autograd_course.checks.leaves`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the functions you wrote, and
its docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the
same cells run: the same rules on random leaves, hooks and backward passes drawn from the generators
the cell passes.  The constants are the rules the checks name
(``grading.rules("04.tensor_hooks")``).
"""

import gc

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import array_of, call, error_of, library_version, outcome, quietly

from .node_runs import no_gradient_functions
from .leaf_stories import (_expect_close, _expect_equal, _expect_stories, _expect_true, _no_error, _own_memory,
                           _random_leaf_values, _seeds)

__all__ = ["tensor_hooks_slots", "tensor_hooks_store", "tensor_hooks_store_in_the_engine", "tensor_hooks_store_random",
           "tensor_hooks_store_in_the_engine_random", "tensor_hooks", "tensor_hooks_random", "STORE_COPY", "STORE_ADDS",
           "STORE_NEW_TENSOR", "STORE_UNTOUCHED", "HOOKS_NOTHING", "HOOKS_LIST", "HOOKS_CHAIN", "HOOKS_REPLACE",
           "HOOKS_NO_GRADIENT", "HOOKS_RETAIN"]

# Exercise 3 fills two slots, store_retained_grad and call_tensor_hooks: each check takes both
# functions and plugs both (grading.checking({...})).

STORE = grading.rules("04.tensor_hooks")
STORE_COPY = STORE("copy")
STORE_ADDS = STORE("adds")
STORE_NEW_TENSOR = STORE("adds")
STORE_UNTOUCHED = STORE("copy")


def tensor_hooks_slots(store, hooks):
    """The two slots that exercise 3 fills, for ``grading.checking``."""
    return {"04.store_retained_grad": store, "04.call_tensor_hooks": hooks}


def tensor_hooks_store(store, hooks):
    """Your ``store_retained_grad`` called directly, twice on one non-leaf ``y = x * 3``
    (grad mode off), then the worked example through ``backward()``: the first gradient in a
    tensor of its own (copy), the next one added (adds) into a new tensor, the earlier
    ``.grad`` keeping its value (new-tensor), and no incoming gradient changed (untouched)."""
    fn = store
    with grading.checking(tensor_hooks_slots(store, hooks)):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        g1 = ag.tensor([1.0, 2.0])
        g2 = ag.tensor([10.0, 20.0])
        with ag.no_grad():
            _no_error(lambda: fn(y, g1), "store_retained_grad(y, g1) when y._grad is None", STORE_COPY)
        _expect_close(y._grad, [1.0, 2.0], "y._grad after store_retained_grad(y, g1)", STORE_COPY)
        _expect_true(_own_memory(y._grad, g1), "y._grad is a copy of g1, with memory of its own", STORE_COPY,
                     "g1 itself" if y._grad is g1 else "a tensor that shares g1's memory")
        first = y._grad
        with ag.no_grad():
            _no_error(lambda: fn(y, g2), "store_retained_grad(y, g2) when y._grad exists", STORE_ADDS)
        _expect_close(y._grad, [11.0, 22.0], "y._grad after store_retained_grad(y, g1) and (y, g2)", STORE_ADDS)
        _expect_true(y._grad is not first, "y._grad is a new tensor after the second call", STORE_NEW_TENSOR,
                     "the same tensor, changed in place")
        _expect_close(first, [1.0, 2.0], "the tensor stored by the first call, after the second call",
                      STORE_NEW_TENSOR)
        _expect_close(g1, [1.0, 2.0], "g1 after both calls", STORE_UNTOUCHED)
        _expect_close(g2, [10.0, 20.0], "g2 after both calls", STORE_UNTOUCHED)

        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = 3 * a ** 3
        c = b * a
        b.retain_grad()
        _no_error(lambda: c.backward(gradient=ag.tensor([1.0, 1.0])), "c.backward(gradient=[1., 1.]) with b retained",
                  STORE_COPY)
        _expect_close(b.grad, [1.0, 2.0], "b.grad after b.retain_grad(); c.backward(gradient=[1., 1.]), c = b * a",
                      STORE_COPY)
        _expect_close(a.grad, [12.0, 96.0], "a.grad in the same example", STORE_UNTOUCHED)


def tensor_hooks_store_in_the_engine(store, hooks):
    """Your two functions inside the engine: two ``backward`` calls through a
    retained tensor (adds, new-tensor), a hook that doubles its gradient, a gradient ``g`` of
    your own passed to ``backward`` (copy), and ``backward(create_graph=True)``, whose stored
    copy must be recorded (copy)."""
    with grading.checking(tensor_hooks_slots(store, hooks)):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        y.retain_grad()
        z = (y * y).sum()
        _no_error(lambda: z.backward(retain_graph=True), "z.backward(retain_graph=True), z = (y * y).sum()", STORE_COPY)
        first = y.grad
        _expect_close(first, [6.0, 12.0], "y.grad after one backward", STORE_COPY)
        _no_error(z.backward, "a second z.backward()", STORE_ADDS)
        _expect_close(y.grad, [12.0, 24.0], "y.grad after two backward calls", STORE_ADDS)
        _expect_true(y.grad is not first, "y.grad is a new tensor after the second backward", STORE_NEW_TENSOR,
                     "the same tensor, changed in place")
        _expect_close(first, [6.0, 12.0], "the first y.grad after the second backward", STORE_NEW_TENSOR)
        _expect_close(x.grad, [36.0, 72.0], "x.grad after the two backward calls", STORE_UNTOUCHED)

        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        _no_error(lambda: (y * y).sum().backward(), "(y * y).sum().backward() with a hook on y", STORE_COPY)
        _expect_close(y.grad, [12.0, 24.0], "y.grad with a hook that doubles the gradient", STORE_COPY)
        _expect_close(x.grad, [36.0, 72.0], "x.grad with the same hook on y", STORE_UNTOUCHED)

        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2.0
        y.retain_grad()
        g = ag.tensor([1.0, 1.0])
        error = error_of(lambda: y.backward(g))
        _expect_true(error is None and y.grad is not None and not np.shares_memory(y.grad._data, g._data),
                     "y.grad after y.backward(g) has memory of its own", STORE_COPY,
                     error or ("None" if y.grad is None else "it shares g's memory"))

        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x ** 2
        y.retain_grad()
        _no_error(lambda: quietly(lambda: (y * y).sum().backward(create_graph=True)),
                  "(y * y).sum().backward(create_graph=True) with y retained", STORE_COPY)
        _expect_close(y.grad, [2.0, 8.0], "y.grad after (y * y).sum().backward(create_graph=True), y = x ** 2",
                      STORE_COPY)
        _expect_equal(getattr(y.grad, "requires_grad", None), True,
                      "y.grad.requires_grad after backward(create_graph=True)", STORE_COPY)


def _store_story(store, seed):
    """What the visible check looks at, on random non-leaves: a list of (what, rule, value)."""
    rng = np.random.default_rng(seed)
    dtype, shape, random = _random_leaf_values(rng)
    facts = []
    x, scale = ag.tensor(random(), requires_grad=True), round(float(rng.uniform(0.5, 3.0)), 2)
    y = (x * scale).sin()
    grads = [ag.tensor(random(5.0)) for _ in range(int(rng.integers(2, 5)))]
    label = f"y = sin(x * {scale}), x a {dtype} leaf of shape {shape}"
    for n, g in enumerate(grads, start=1):
        before = y._grad
        with ag.no_grad():
            error = error_of(lambda: store(y, g)) or "no error"
        if n == 1:
            facts += [(f"store_retained_grad(y, g1) when y._grad is None, {label}", STORE_COPY, error),
                      (f"y._grad after store_retained_grad(y, g1), {label}", STORE_COPY, array_of(y._grad)),
                      (f"y._grad is a copy of g1, with memory of its own, {label}", STORE_COPY, _own_memory(y._grad, g))]
        else:
            facts += [(f"store_retained_grad(y, g{n}) when y._grad exists, {label}", STORE_ADDS, error),
                      (f"y._grad after store_retained_grad with g1 to g{n}, {label}", STORE_ADDS, array_of(y._grad)),
                      (f"y._grad is a new tensor after call {n}, {label}", STORE_NEW_TENSOR, y._grad is not before),
                      (f"the tensor y._grad was before call {n}, after it, {label}", STORE_NEW_TENSOR,
                       array_of(before))]
    facts += [(f"g{n} after the calls, {label}", STORE_UNTOUCHED, g._data.copy()) for n, g in enumerate(grads, start=1)]
    a, k, power = ag.tensor(random(), requires_grad=True), round(float(rng.uniform(0.5, 3.0)), 2), int(rng.integers(1, 4))
    b = k * a ** power
    c = b * a
    b.retain_grad()
    label = f"b = {k} * a ** {power}, c = b * a, a a {dtype} leaf of shape {shape}, g random"
    facts += [(f"c.backward(gradient=g) with b retained, {label}", STORE_COPY,
               error_of(lambda: c.backward(gradient=ag.tensor(random()))) or "no error"),
              (f"b.grad after b.retain_grad(); c.backward(gradient=g), {label}", STORE_COPY, array_of(b._grad)),
              (f"a.grad in the same example, {label}", STORE_UNTOUCHED, array_of(a._grad))]
    return facts


def tensor_hooks_store_random(store, hooks, rngs):
    """The stories of ``store_retained_grad`` on random non-leaves: dtypes, shapes, values,
    gradients and numbers of calls, against the library's version."""
    _expect_stories(_store_story, store, _seeds(rngs), "04.store_retained_grad", tensor_hooks_slots(store, hooks))


def _retained_passes(seed):
    """Random backward passes through one retained non-leaf, with random hooks: .grad after
    each, and facts about it, each with the rule it is about."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    x = ag.tensor(rng.standard_normal(shape), requires_grad=True)
    y = (x * float(rng.uniform(0.5, 2.0))).sin()
    y.retain_grad()
    arrived = []
    if rng.integers(2):
        scale = float(rng.uniform(-2.0, 2.0))
        y.register_hook(lambda grad: grad * scale)
    y.register_hook(lambda grad: arrived.append(grad))
    power = int(rng.integers(1, 4))
    z = ((y ** power) * ag.tensor(rng.standard_normal(shape))).sum()
    steps = []
    for _ in range(int(rng.integers(1, 5))):
        create_graph = bool(rng.integers(4) == 0)
        before = y._grad
        before_values = None if before is None else before._data.copy()
        error = error_of(lambda: quietly(lambda: z.backward(retain_graph=True, create_graph=create_graph)))
        grad = y._grad
        steps.append((None if grad is None else grad._data.copy(), [
            ("the error", STORE_COPY if before is None else STORE_ADDS, error),
            ("whether .grad is a new tensor", STORE_NEW_TENSOR, None if before is None else grad is not before),
            ("whether the earlier .grad kept its values", STORE_NEW_TENSOR,
             None if before is None else bool(np.array_equal(before._data, before_values))),
            ("whether .grad requires grad", STORE_COPY, None if grad is None else grad.requires_grad),
            ("whether .grad shares memory with the incoming gradient", STORE_COPY,
             None if grad is None or not arrived else bool(np.shares_memory(grad._data, arrived[-1]._data)))]))
    return steps


def tensor_hooks_store_in_the_engine_random(store, hooks, rngs):
    """Random backward passes (some with ``create_graph=True``) through one retained non-leaf,
    with random hooks: what ``.grad`` is after each, against the library's version."""
    for seed in _seeds(rngs):
        with library_version("04"):
            expected = _retained_passes(seed)
        with grading.checking(tensor_hooks_slots(store, hooks)):
            seen = _retained_passes(seed)
        for step, ((e_values, e_facts), (s_values, s_facts)) in enumerate(zip(expected, seen)):
            for (what, rule, wanted), (_, _, value) in zip(e_facts, s_facts):
                _expect_equal(value, wanted, f"random case {seed}, backward number {step + 1} through a retained "
                                             f"tensor: {what}", rule)
            if e_values is not None:
                _expect_close(s_values, e_values, f"random case {seed}: y.grad after backward number {step + 1}",
                              STORE_ADDS)


HOOKS = grading.rules("04.tensor_hooks")
HOOKS_NOTHING = HOOKS("no-gradient")
HOOKS_LIST = HOOKS("list")
HOOKS_CHAIN = HOOKS("chain")
HOOKS_REPLACE = HOOKS("chain")
HOOKS_NO_GRADIENT = HOOKS("no-gradient")
HOOKS_RETAIN = HOOKS("retain")
HOOKS_RUN = HOOKS("chain")
HOOKS_ORDER = HOOKS("chain", "no-gradient")


def _flowing(out, count):
    """What call_tensor_hooks returned, checked to be a list of ``count`` entries: the list, or
    None (the check has failed)."""
    _expect_true(isinstance(out, list) and len(out) == count, "what call_tensor_hooks returned", HOOKS_LIST,
                 repr(out) if not isinstance(out, list) else f"a list of {len(out)}, not {count}")
    return out


def tensor_hooks(store, hooks):
    """Your ``call_tensor_hooks`` (with your ``store_retained_grad``) on the node of ``y = x * 3`` with three hooks on ``y`` (one
    doubles, one returns None, one adds 1: what each receives and what flows on: chain,
    replace), with ``retain_grad`` (the stored gradient is the one after the hooks: retain),
    when no gradient reached the node at all (nothing: its hooks still run, given None), on
    a node of two outputs where one received nothing (skip), and for a retained tensor that was deleted (retain); then ``backward()`` through
    the example of section 5 and a hook on a leaf."""
    fn, slots = hooks, tensor_hooks_slots(store, hooks)
    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        seen = []
        y.register_hook(lambda g: (seen.append(("double", g.tolist())), g * 2)[1])
        y.register_hook(lambda g: seen.append(("look", g.tolist())))
        y.register_hook(lambda g: (seen.append(("add one", g.tolist())), g + 1)[1])
        y.retain_grad()
        out = call(fn, y.grad_fn, [ag.tensor([1.0, -1.0])], what="call_tensor_hooks(y.grad_fn, [[1, -1]])",
                   rule=HOOKS_RUN)
    out = _flowing(out, 1)
    _expect_equal(seen, [("double", [1.0, -1.0]), ("look", [2.0, -2.0]), ("add one", [2.0, -2.0])],
                  "(hook, the gradient it received) for three hooks on y, given [1, -1]", HOOKS_RUN)
    _expect_close(out[0], [3.0, -1.0], "the gradient that flows on: ([1, -1] * 2) + 1", HOOKS_REPLACE)
    _expect_close(y.grad, [3.0, -1.0], "y.grad (y retains its gradient)", HOOKS_RETAIN)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        got = []
        y.register_hook(lambda g: got.append(("first", g)))
        y.register_hook(lambda g: got.append(("second", g)))
        y.retain_grad()
        nothing = call(fn, y.grad_fn, [None], what="call_tensor_hooks(y.grad_fn, [None])", rule=HOOKS_NOTHING)
    _expect_equal(got, [("first", None), ("second", None)],
                  "(hook, what it received) when no gradient reached y's node (PyTorch calls them)",
                  HOOKS("no-gradient"))
    _expect_equal(_flowing(nothing, 1), [None], "call_tensor_hooks(y.grad_fn, [None])", HOOKS_NOTHING)
    _expect_equal(y._grad, None, "y.grad (retained) when no gradient reached it", HOOKS_NOTHING)

    with grading.checking(slots):
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        u, v = w.unbind()
        calls = []
        u.register_hook(lambda g: (calls.append(("u", g.tolist())), g * 10)[1])
        v.register_hook(lambda g: calls.append(("v", g)))
        out = call(fn, u.grad_fn, [ag.tensor(1.5), None], what="call_tensor_hooks(node of u, v, [1.5, None])",
                   rule=HOOKS_NO_GRADIENT)
    out = _flowing(out, 2)
    _expect_equal(calls, [("u", 1.5), ("v", None)],
                  "(hook, what it received) when only u (output 0) received a gradient", HOOKS_NO_GRADIENT)
    _expect_close(out[0], 15.0, "the gradient of u after its hook (x 10)", HOOKS_REPLACE)
    _expect_equal(out[1], None, "the gradient of v, which received none", HOOKS_NO_GRADIENT)

    with grading.checking(slots):
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        u, v = w.unbind()
        v.register_hook(lambda g: ag.tensor(5.0))
        refused = outcome(fn, u.grad_fn, [ag.tensor(1.5), None])
    _expect_equal(refused, "RuntimeError: can't replace a None gradient with a non-None value",
                  "call_tensor_hooks(node of u, v, [1.5, None]) when v's hook returns a tensor", HOOKS_NO_GRADIENT)

    with grading.checking(slots):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        b.retain_grad()
        node = b.grad_fn
        del b
        gc.collect()
        out = call(fn, node, [ag.tensor([1.0, 1.0])], what="call_tensor_hooks on a node whose retained tensor was "
                                                          "deleted", rule=HOOKS_RETAIN)
    out = _flowing(out, 1)
    _expect_close(out[0], [1.0, 1.0], "the gradient of a node whose retained tensor was deleted", HOOKS_RETAIN)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        call((y * y).sum().backward, what="(y * y).sum().backward() with a hook on y", rule=HOOKS_RUN)
        leaf = ag.tensor([1.0, 1.0], requires_grad=True)
        leaf.register_hook(lambda g: g * 10)
        call((leaf * 2).sum().backward, what="(leaf * 2).sum().backward() with a hook on the leaf", rule=HOOKS_RUN)
    _expect_close(y.grad, [12.0, 24.0], "y.grad in PyTorch's example (tensor([12., 24.]))", HOOKS_RETAIN)
    _expect_close(x.grad, [36.0, 72.0], "x.grad in PyTorch's example (tensor([36., 72.]))", HOOKS_REPLACE)
    _expect_close(leaf.grad, [20.0, 20.0], "leaf.grad with a hook x 10 on the leaf", HOOKS_REPLACE)

    Drop, _ = no_gradient_functions([])         # its backward sends nothing back (06)

    with grading.checking(slots):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.retain_grad()
        got = []
        y.register_hook(lambda g: got.append(("y", g)))
        x.register_hook(lambda g: got.append(("x", g)))
        call(lambda: Drop.apply(y).sum().backward(), what="Drop.apply(y).sum().backward(), y = x.exp(), where "
             "Drop's backward returns None", rule=HOOKS_NOTHING)
    _expect_equal(got, [("y", None), ("x", None)], "(hook, what it received) in that pass (PyTorch's)",
                  HOOKS("no-gradient"))
    _expect_equal((y._grad, x.grad), (None, None), "(y.grad, x.grad) after that pass", HOOKS_NOTHING)


_HOOK_KINDS = ("scale", "look", "shift")


def _hooked_node(rng, log):
    """A node of 1 to 3 outputs with random hooks and retained outputs; its tensors."""
    size = int(rng.integers(1, 4))
    w = ag.tensor(np.asarray(rng.standard_normal(size)), requires_grad=True)
    outputs = list((w * 2.0).unbind()) if size > 1 and rng.integers(0, 2) else [w * 3.0]
    for k, t in enumerate(outputs):
        for h in range(int(rng.integers(0, 4))):
            kind, amount = _HOOK_KINDS[int(rng.integers(0, 3))], float(rng.integers(2, 5))

            def hook(g, k=k, h=h, kind=kind, amount=amount):
                # An output that received nothing has its hooks called with None (no-gradient).
                log.append((k, h, kind, None if g is None else np.round(g.numpy(), 6).tolist()))
                if g is None or kind == "look":
                    return None
                return g * amount if kind == "scale" else g + amount
            t.register_hook(hook)
        if rng.integers(0, 2):
            t.retain_grad()
    return outputs


def _retained(outputs):
    return [np.round(t.grad.numpy(), 6).tolist() if t.retains_grad and t.grad is not None else None
            for t in outputs]


def _hooks_called(fn, seed):
    """call_tensor_hooks (fn) on a random hooked node: (the hooks' calls, what flows on, the
    retained gradients)."""
    rng = np.random.default_rng(seed)
    log = []
    outputs = _hooked_node(rng, log)
    grads = [None if rng.integers(0, 3) == 0 else ag.tensor(np.asarray(rng.standard_normal(tuple(t.shape))))
             for t in outputs]
    out = call(fn, outputs[0].grad_fn, grads, what=f"call_tensor_hooks on a node of {len(outputs)} output(s) with "
                                                   f"random hooks (seed {seed})", rule=HOOKS_RUN)
    flowing = out if not isinstance(out, list) else [None if g is None else np.round(g.numpy(), 6).tolist()
                                                     for g in out]
    return log, flowing, _retained(outputs)


def _hooks_in_a_pass(seed):
    """A backward pass through a random hooked node and a hooked leaf: (the hooks' calls, the
    retained gradients, the leaf's .grad)."""
    rng = np.random.default_rng(seed)
    log = []
    x = ag.tensor(np.asarray(rng.standard_normal(3)), requires_grad=True)
    x.register_hook(lambda g: g * 0.5)
    outputs = _hooked_node(rng, log)
    loss = sum((t * x.sum()).sum() for t in outputs)
    call(loss.backward, what=f"backward through random hooks (seed {seed})", rule=HOOKS_RUN)
    return log, _retained(outputs), np.round(x.grad.numpy(), 6).tolist()


def tensor_hooks_random(store, hooks, rngs):
    """Random hooks (scaling, looking, shifting) and retained outputs on random nodes of one to
    three outputs, some receiving no gradient: your function called directly, then backward
    passes through such nodes and a hooked leaf, against the library's version."""
    seeds = _seeds(rngs)
    for seed in seeds:
        with library_version("04"):
            log_want, out_want, kept_want = _hooks_called(exercises.reference("04.call_tensor_hooks"), seed)
        with grading.checking(tensor_hooks_slots(store, hooks)):
            log_seen, out_seen, kept_seen = _hooks_called(hooks, seed)
        _expect_equal(log_seen, log_want, f"(output, hook, kind, gradient received) for random hooks (seed {seed})",
                      HOOKS_ORDER)
        _expect_equal(out_seen, out_want, f"the gradients that flow on, random hooks (seed {seed})", HOOKS_REPLACE)
        _expect_equal(kept_seen, kept_want, f"the retained .grad of each output, random hooks (seed {seed})",
                      HOOKS_RETAIN)
    for seed in seeds[:len(seeds) // 2]:
        with library_version("04"):
            log_want, kept_want, x_want = _hooks_in_a_pass(seed + 1)
        with grading.checking(tensor_hooks_slots(store, hooks)):
            log_seen, kept_seen, x_seen = _hooks_in_a_pass(seed + 1)
        _expect_equal(log_seen, log_want, f"the hooks' calls in a random backward pass (seed {seed + 1})", HOOKS_ORDER)
        _expect_equal(kept_seen, kept_want, f"the retained gradients after a random backward pass (seed {seed + 1})",
                      HOOKS_RETAIN)
        _expect_equal(x_seen, x_want, f"x.grad (a leaf hook halves it) after a random backward pass (seed {seed + 1})",
                      HOOKS_REPLACE)
