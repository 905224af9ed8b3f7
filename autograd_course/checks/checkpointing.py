"""Visible checks of assignment 06's exercise 5, ``checkpoint``: ``CheckpointFunction.forward``
and ``.backward``, written together.

``autograd_course.checks.lifetime`` (the notebook's ``check``) imports the three visible checks;
each is the visible part of one test cell, run on your two functions, and its docstring says
what it tries.  The ``expect_*`` functions are what the hidden tests run on random blocks.  The
constants are the rules the task text states.  What ``ctx`` keeps is yours to choose, so the
checks look only at what PyTorch shows: outputs, ``saved_tensors``, gradients, errors, and the
random generator.  Why one module of this length: one exercise of two functions and three
test cells, each with the record its hidden tests compare and the rule each difference breaks.
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.utils.checkpoint import CheckpointFunction, checkpoint
from autograd_course import grading
from autograd_course.notebook import library_version, outcome

from .saving import grads_of, plain

__all__ = ["checkpoint_saves", "checkpoint_gradients", "checkpoint_randomness", "random_block", "block_loss",
           "saves_record", "expect_saves", "backward_record", "expect_gradients", "randomness_record",
           "expect_randomness", "tensors_kept",
           "OUTPUTS", "KEEPS_INPUTS", "SAME_GRADS", "ONE_PER_ARGUMENT", "GRAD_MODE", "STOPS_AT_INPUTS",
           "RNG_SAME", "RNG_FRESH", "REFUSES_GRAD", "NO_OUTPUT"]

CHECKPOINT = grading.rules("06.checkpoint")
OUTPUTS = CHECKPOINT("outputs")
KEEPS_INPUTS = CHECKPOINT("keeps-inputs")
SAME_GRADS = CHECKPOINT("same-grads")
ONE_PER_ARGUMENT = CHECKPOINT("one-per-argument")
GRAD_MODE = CHECKPOINT("grad-mode")
STOPS_AT_INPUTS = CHECKPOINT("stops-at-inputs")
RNG_SAME = CHECKPOINT("rng-same")
RNG_FRESH = CHECKPOINT("rng-fresh")
REFUSES_GRAD = CHECKPOINT("refuses-grad")
NO_OUTPUT = CHECKPOINT("no-output")

NOT_VALID = "incompatible with .grad()"
NO_OUTPUT_TEXT = "none of output has requires_grad=True"
INPLACE = "modified by an inplace operation"
FREED = "Trying to backward through the graph a second time"


def _plugged(forward, backward):
    return {"06.checkpoint_forward": forward, "06.checkpoint_backward": backward}


# ------------------------------------------------------------ what the node keeps

_LIBRARY_ATTRIBUTES = []


def _library_attributes():
    """The attributes the library itself gives a custom Function's node."""
    if not _LIBRARY_ATTRIBUTES:
        class Plain(ag.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        _LIBRARY_ATTRIBUTES.append(set(vars(Plain.apply(ag.tensor([1.0], requires_grad=True)).grad_fn)))
    return _LIBRARY_ATTRIBUTES[0]


def _holds_a_tensor(value, depth=0):
    if isinstance(value, ag.Tensor):
        return True
    if depth > 4:
        return False
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds_a_tensor(v, depth + 1) for v in value)
    return False


def tensors_kept(node):
    """The attributes of ``node`` (the ctx), other than the library's own, that hold a tensor."""
    return sorted(name for name, value in vars(node).items()
                  if name not in _library_attributes() and _holds_a_tensor(value))


# ------------------------------------------------------------ random blocks

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


def random_block(seed, noisy=None, preserve=None):
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
    drawn_noisy, outputs, drawn_preserve = bool(rng.integers(2)), int(rng.integers(1, 3)), bool(rng.integers(4))
    noisy = drawn_noisy if noisy is None else noisy
    preserve = drawn_preserve if preserve is None else preserve
    description = (f"a block of {' -> '.join(steps)}{' -> random mask' if noisy else ''} with {outputs} output(s), "
                   f"arguments ({', '.join(names)}), x {'a non-leaf' if non_leaf else 'a leaf'} "
                   f"of shape {shape} ({name}), preserve_rng_state={preserve}")
    return description, _block_function(names, steps, noisy, outputs, w), args, preserve, [leaf, w]


def block_loss(outputs):
    """A scalar from a block's outputs (a weighted sum), to call backward on."""
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    total = outputs[0].sum() * 0.5
    for out in outputs[1:]:
        total = total + out * 2.0
    return total


def _apply(block, preserve, args):
    return CheckpointFunction.apply(block, preserve, *args)


def expect_backward_error(error, what):
    """Fail when backward raised, with the rule the error most likely breaks."""
    if error is None:
        return
    text = str(error)
    grading.expect_equal(error, None, what=what,
                         rule=GRAD_MODE if "requires_grad" in text or "does not require grad" in text else
                         ONE_PER_ARGUMENT if "incorrect number of gradients" in text or "different than None" in text
                         else SAME_GRADS)


# ------------------------------------------------------------ what forward keeps

def saves_record(seed):
    """A checkpointed random block, with whatever forward and backward are plugged: the
    outputs, whether each has the node as grad_fn, the node's saved_tensors, the attributes
    of ctx that hold a tensor; backward's error and gradients; then (for some seeds) an
    in-place write to x before backward, or a second backward."""
    description, block, args, preserve, leaves = random_block(seed)
    ag.manual_seed(seed % 997)
    outputs = outcome(_apply, block, preserve, args)
    record = {"outputs": plain(outputs)}
    if isinstance(outputs, str):
        return description, record
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    node = outs[0].grad_fn
    record["each output's grad_fn is the node"] = [o.grad_fn is node for o in outs]
    record["saved_tensors"] = plain(outcome(lambda: list(node.saved_tensors)))
    record["attributes of ctx holding a tensor"] = tensors_kept(node)
    loss = block_loss(outputs)
    after = ["backward", "in-place write", "second backward"][seed % 3]
    if after == "in-place write":
        x = next(a for a in args if isinstance(a, ag.Tensor) and a.requires_grad)
        with ag.no_grad():
            x.add_(0.25)
    record[f"backward ({after})"] = _short(outcome(loss.backward))
    record["grads"] = grads_of(leaves)
    if after == "second backward":
        record["a second backward"] = _short(outcome(loss.backward))
    return description, record


def _short(error):
    """An error as its class and the sentence that tells which it is (None when there was none)."""
    if not isinstance(error, str):
        return None
    for sentence, short in ((INPLACE, "modified in place"), (FREED, "the freed error"),
                            (NO_OUTPUT_TEXT, "no output requires grad"), (NOT_VALID, "not valid")):
        if sentence in error:
            return f"{error.split(':')[0]}: {short}"
    return error


def expect_saves_record(seen, expected, what):
    """Fail when two saves records differ, naming the rule broken."""
    if seen == expected:
        return
    for part in ("outputs", "each output's grad_fn is the node"):
        if seen.get(part) != expected.get(part):
            grading.expect_equal(seen.get(part), expected.get(part), what=f"{part}: {what}", rule=OUTPUTS)
    for part in ("saved_tensors", "attributes of ctx holding a tensor"):
        if seen.get(part) != expected.get(part):
            grading.expect_equal(seen.get(part), expected.get(part), what=f"{part}: {what}", rule=KEEPS_INPUTS)
    if seen.get("backward (backward)") != expected.get("backward (backward)"):
        expect_backward_error(seen.get("backward (backward)"), what=f"backward on {what}")
    for part in ("backward (in-place write)", "backward (second backward)", "a second backward"):
        if seen.get(part) != expected.get(part):
            grading.expect_equal(seen.get(part), expected.get(part), what=f"{part}: {what}", rule=KEEPS_INPUTS)
    grading.expect_equal(seen, expected, what=what, rule=SAME_GRADS)


def expect_saves(forward, backward, seeds):
    with grading.checking(_plugged(forward, backward)):
        seen = [saves_record(seed) for seed in seeds]
    with library_version("06"):
        expected = [saves_record(seed) for seed in seeds]
    for (description, s), (_, e) in zip(seen, expected):
        expect_saves_record(s, e, what=f"checkpoint on {description}")


def _f(a, k, c):
    return ((a * k).exp() + c).sin()


def checkpoint_saves(forward, backward):
    """``checkpoint(f, x, 2.0, c)`` with ``f(a, k, c) = sin(exp(a * k) + c)``: the output's
    values and ``grad_fn``, the node's ``saved_tensors`` (x and c) and no tensor in another
    attribute of ``ctx``; two outputs; then backward after ``x`` is written in place (refused)
    and a second backward (refused)."""
    values = np.array([0.1, -0.2, 0.3])
    with grading.checking(_plugged(forward, backward)):
        x = ag.tensor(values, requires_grad=True)
        c = ag.tensor([1.0, 2.0, 3.0])
        y = outcome(checkpoint, _f, x, 2.0, c, use_reentrant=True)
        grading.expect_true(isinstance(y, ag.Tensor), what="checkpoint(f, x, 2.0, c)", seen=repr(y), rule=OUTPUTS)
        grading.expect_close(y, np.sin(np.exp(values * 2.0) + [1.0, 2.0, 3.0]), what="checkpoint(f, x, 2.0, c)",
                             rule=OUTPUTS)
        grading.expect_equal(y.grad_fn.name() if y.grad_fn is not None else None, "CheckpointFunctionBackward",
                             what="y.grad_fn.name()", rule=OUTPUTS)
        node = y.grad_fn
        saved = outcome(lambda: list(node.saved_tensors))
        grading.expect_equal(plain(saved), plain([x, c]), what="y.grad_fn.saved_tensors", rule=KEEPS_INPUTS)
        grading.expect_equal(tensors_kept(node), [], what="the attributes of ctx that hold a tensor",
                             rule=KEEPS_INPUTS)

        leaf = ag.tensor(values, requires_grad=True)
        outs = outcome(checkpoint, lambda a: (a.exp(), a * 3), leaf, use_reentrant=True)
        grading.expect_equal(isinstance(outs, tuple) and [o.grad_fn.name() if o.grad_fn else None for o in outs],
                             ["CheckpointFunctionBackward"] * 2, rule=OUTPUTS,
                             what="[o.grad_fn.name() for o in checkpoint(lambda a: (a.exp(), a * 3), x)]")
        grading.expect_true(outs[0].grad_fn is outs[1].grad_fn, what="both outputs have the same grad_fn",
                            rule=OUTPUTS)

        loss = y.sum()
        expect_backward_error(outcome(loss.backward), what="y.sum().backward()")
        grading.expect_raises(loss.backward, RuntimeError, FREED, what="a second y.sum().backward()",
                              rule=KEEPS_INPUTS)

        h = ag.tensor(values, requires_grad=True) * 1.0
        y = checkpoint(_f, h, 2.0, c, use_reentrant=True)
        with ag.no_grad():
            h.add_(1.0)
        grading.expect_raises(y.sum().backward, RuntimeError, INPLACE, rule=KEEPS_INPUTS,
                              what="backward through checkpoint(f, h, 2.0, c) after h.add_(1.0)")


# ------------------------------------------------------------ what backward gives

def backward_record(seed, backward):
    """What a checkpoint's backward does on a random block, part by part: ``backward``
    called on the node directly (its result, and whether the outer leaves were touched),
    then backward through the engine (its error and the gradients); and (for some seeds) a
    block whose recomputed output does not require grad."""
    description, block, args, preserve, leaves = random_block(seed)
    ag.manual_seed(seed % 997)
    outputs = CheckpointFunction.apply(block, preserve, *args)
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    rng = np.random.default_rng(seed)
    grad_outputs = [ag.tensor(rng.uniform(-1.0, 1.0, size=o.shape).astype(o.dtype.numpy)) for o in outs]
    returned = outcome(backward, outs[0].grad_fn, *grad_outputs)
    record = {"returned": plain(returned), "the leaves' .grad after the direct call": grads_of(leaves)}
    for leaf in leaves:
        leaf.grad = None
    ag.manual_seed(seed % 997)
    outputs = CheckpointFunction.apply(block, preserve, *args)
    error = outcome(lambda: block_loss(outputs).backward())
    record["backward"] = error if isinstance(error, str) else None
    record["grads"] = grads_of(leaves)
    if seed % 4 == 0:
        x = next(a for a in args if isinstance(a, ag.Tensor) and a.requires_grad)
        y = CheckpointFunction.apply(lambda *a: x.detach() * 2, preserve, *args)
        record["a block whose recomputation requires no grad"] = _short(outcome(lambda: y.sum().backward()))
    return description, record


def expect_backward_record(seen, expected, what):
    """Fail when two backward records differ, naming the rule broken."""
    if seen == expected:
        return
    s, e = seen["returned"], expected["returned"]
    if s != e:
        if isinstance(s, str):
            expect_backward_error(s, what=f"backward(ctx, *grads) called directly on {what}")
        pattern = (lambda r: [g is None for g in r] if isinstance(r, list) else r)
        grading.expect_equal(s, e, what=f"backward(ctx, *grads) called directly on {what}",
                             rule=ONE_PER_ARGUMENT if pattern(s) != pattern(e) else SAME_GRADS)
    part = "the leaves' .grad after the direct call"
    if seen[part] != expected[part]:
        grading.expect_equal(seen[part], expected[part], what=f"{part}: {what}", rule=STOPS_AT_INPUTS)
    if seen["backward"] != expected["backward"]:
        expect_backward_error(seen["backward"], what=f"backward through {what}")
        grading.expect_equal(seen["backward"], expected["backward"], what=f"backward through {what}", rule=SAME_GRADS)
    if seen["grads"] != expected["grads"]:
        grading.expect_equal(seen["grads"], expected["grads"], what=f"the leaves' .grad after backward through {what}",
                             rule=SAME_GRADS)
    grading.expect_equal(seen, expected, what=what, rule=NO_OUTPUT)


def expect_gradients(forward, backward, seeds):
    reference = exercises.reference("06.checkpoint_backward")
    with grading.checking(_plugged(forward, backward)):
        seen = [backward_record(seed, backward) for seed in seeds]
    with library_version("06"):
        expected = [backward_record(seed, reference) for seed in seeds]
    for (description, s), (_, e) in zip(seen, expected):
        expect_backward_record(s, e, what=description)


def _chain(t):
    for _ in range(3):
        t = (-t).exp()
    return t


def _numeric_chain_grad(values):
    a, grad = np.array(values, dtype=float), 1.0
    for _ in range(3):
        a = np.exp(-a)
        grad = grad * -a
    return grad


def checkpoint_gradients(forward, backward):
    """Your ``backward`` called directly on the node of ``checkpoint(f, x, 2.0, c)`` (one
    gradient per argument of ``forward``, and ``x.grad`` stays None), then through the engine
    on a chain of three ``exp``, on a non-leaf input with a closure parameter and two outputs,
    and on a function whose recomputation requires no grad (refused)."""
    values = np.array([0.1, -0.2, 0.3])
    expected = np.cos(np.exp(values * 2.0) + [1.0, 2.0, 3.0]) * np.exp(values * 2.0) * 2.0
    with grading.checking(_plugged(forward, backward)):
        x = ag.tensor(values, requires_grad=True)
        y = checkpoint(_f, x, 2.0, ag.tensor([1.0, 2.0, 3.0]), use_reentrant=True)
        returned = outcome(backward, y.grad_fn, ag.ones(3))
        expect_backward_error(returned if isinstance(returned, str) else None,
                              what="backward(ctx, ones) for y = checkpoint(f, x, 2.0, c)")
        grading.expect_true(isinstance(returned, tuple) and len(returned) == 5
                            and [g is None for g in returned] == [True, True, False, True, True],
                            what="backward(ctx, ones) for y = checkpoint(f, x, 2.0, c), c not requiring grad",
                            seen=repr(plain(returned)), rule=ONE_PER_ARGUMENT)
        grading.expect_close(returned[2], expected, what="the gradient of x in backward's result", rule=SAME_GRADS)
        grading.expect_equal(x.grad, None, what="x.grad after calling backward(ctx, ones) directly",
                             rule=STOPS_AT_INPUTS)

        x = ag.tensor(values, requires_grad=True)
        error = outcome(lambda: checkpoint(_chain, x, use_reentrant=True).sum().backward())
        expect_backward_error(error, what="checkpoint(chain of 3 exp, x).sum().backward()")
        grading.expect_close(x.grad, _numeric_chain_grad(values), what="x.grad for the chain of 3 exp",
                             rule=SAME_GRADS)

        leaf = ag.tensor(values, requires_grad=True)
        w = ag.tensor([2.0, -1.0, 0.5], requires_grad=True)

        def two(a):
            h = (a * w).tanh()
            return h, (h * h).sum()

        out, total = checkpoint(two, leaf * 3.0, use_reentrant=True)
        error = outcome(lambda: (out.sum() + total).backward())
        expect_backward_error(error, what="backward through checkpoint(two, leaf * 3.0)")
        t = np.tanh(values * 3.0 * [2.0, -1.0, 0.5])
        dh = (1 + 2 * t) * (1 - t ** 2)
        grading.expect_close(leaf.grad, dh * [2.0, -1.0, 0.5] * 3.0, rtol=1e-6,
                             what="leaf.grad for a non-leaf input leaf * 3.0 and two outputs", rule=SAME_GRADS)
        grading.expect_close(w.grad, dh * values * 3.0, rtol=1e-6,
                             what="w.grad for a parameter w the function uses", rule=SAME_GRADS)

        x = ag.tensor(values, requires_grad=True)
        y = checkpoint(lambda a: a.detach() * 2, x, use_reentrant=True)
        grading.expect_raises(y.sum().backward, RuntimeError, NO_OUTPUT_TEXT, rule=NO_OUTPUT,
                              what="backward through checkpoint(lambda a: a.detach() * 2, x)")


# ------------------------------------------------------------ random numbers and refusals

def randomness_record(seed):
    """A checkpointed random block that draws a random mask, the caller drawing between the
    forward pass and backward: the gradients (which mask the recomputation drew) and the
    caller's next random number after backward; then autograd.grad or backward(inputs=...)
    through a checkpoint, refused."""
    description, block, args, preserve, leaves = random_block(seed, noisy=True, preserve=bool(seed % 2))
    ag.manual_seed(seed % 997)
    outputs = CheckpointFunction.apply(block, preserve, *args)
    ag.rand(3)                                   # the caller draws between forward and backward
    error = outcome(lambda: block_loss(outputs).backward())
    record = {"backward": error if isinstance(error, str) else None, "grads": grads_of(leaves),
              "the caller's next random number": round(float(ag.rand(1).item()), 6)}
    loss = block_loss(CheckpointFunction.apply(block, preserve, *args))
    how, run = [("autograd.grad(loss, leaves)", lambda: ag.autograd.grad(loss, leaves)),
                ("loss.backward(inputs=leaves)", lambda: loss.backward(inputs=leaves))][seed % 2]
    record[how] = _short(outcome(run)) or "no error"
    return description, preserve, record


def expect_randomness_record(preserve, seen, expected, what):
    """Fail when two randomness records differ, naming the rule broken."""
    if seen == expected:
        return
    if seen["backward"] != expected["backward"]:
        expect_backward_error(seen["backward"], what=f"backward through {what}")
    for part in ("grads", "the caller's next random number"):
        if seen[part] != expected[part]:
            grading.expect_equal(seen[part], expected[part], what=f"{part} after backward through {what}",
                                 rule=RNG_SAME if preserve else RNG_FRESH)
    grading.expect_equal(seen, expected, what=what, rule=REFUSES_GRAD)


def expect_randomness(forward, backward, seeds):
    with grading.checking(_plugged(forward, backward)):
        seen = [randomness_record(seed) for seed in seeds]
    with library_version("06"):
        expected = [randomness_record(seed) for seed in seeds]
    for (description, preserve, s), (_, _, e) in zip(seen, expected):
        expect_randomness_record(preserve, s, e, what=description)


def _noisy(a):
    return a * (ag.rand(50) > 0.5)


def _masked(preserve):
    """checkpoint(noisy, ones) with the caller drawing between forward and backward: the
    forward pass's mask, backward's error, ones.grad (the recomputation's mask) and the
    caller's next random number."""
    ones = ag.ones(50, requires_grad=True)
    ag.manual_seed(4)
    y = checkpoint(_noisy, ones, use_reentrant=True, preserve_rng_state=preserve)
    ag.rand(7)                                   # the caller draws between forward and backward
    error = outcome(lambda: y.sum().backward())
    return (y.detach()._data.tolist(), error if isinstance(error, str) else None,
            None if ones.grad is None else ones.grad._data.tolist(), round(float(ag.rand(1).item()), 6))


def checkpoint_randomness(forward, backward):
    """``checkpoint(noisy, ones)``, ``noisy`` multiplying by a random mask, the caller drawing
    between forward and backward: with ``preserve_rng_state=True`` the recomputation draws
    the forward pass's mask and backward leaves the caller's generator where it found it;
    with ``preserve_rng_state=False`` it draws from the caller's generator, which advances
    (compared with PyTorch's behaviour, the library's).  Then ``autograd.grad`` and
    ``backward(inputs=...)`` through a checkpoint, refused."""
    with library_version("06"):
        expected = {preserve: _masked(preserve) for preserve in (True, False)}
    with grading.checking(_plugged(forward, backward)):
        for preserve in (True, False):
            mask, error, grad, draw = _masked(preserve)
            expect_backward_error(error, what=f"backward through checkpoint(noisy, ones, preserve_rng_state={preserve})")
            grading.expect_equal(grad, expected[preserve][2], rule=RNG_SAME if preserve else RNG_FRESH,
                                 what=f"ones.grad (the recomputation's mask) with preserve_rng_state={preserve}")
            grading.expect_equal(draw, expected[preserve][3], rule=RNG_SAME if preserve else RNG_FRESH,
                                 what=f"the caller's next random number after backward, preserve_rng_state={preserve}")
        x = ag.tensor([0.1, -0.2, 0.3], requires_grad=True)
        y = checkpoint(_chain, x, use_reentrant=True)
        grading.expect_raises(lambda: ag.autograd.grad(y.sum(), x), RuntimeError, NOT_VALID,
                              what="ag.autograd.grad(checkpoint(chain, x).sum(), x)", rule=REFUSES_GRAD)
        y = checkpoint(_chain, x, use_reentrant=True)
        grading.expect_raises(lambda: y.sum().backward(inputs=[x]), RuntimeError, NOT_VALID,
                              what="checkpoint(chain, x).sum().backward(inputs=[x])", rule=REFUSES_GRAD)
