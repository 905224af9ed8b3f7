"""Visible checks of assignment 04's exercise 5, ``grad_results``: what ``autograd.grad``
returns once the backward pass has run.

``autograd_course.checks.leaves`` (the notebook's ``check``) imports them; each function
without ``_random`` in its name is the visible part of one test cell, run on the function you
wrote, and its docstring says what it tries; the ``..._random`` ones are what the hidden parts
run.  The constants are the rules the checks name (``grading.rules("04.grad_results")``).

An error is compared by its type and, for a RuntimeError, by the index it names (the number
after "index"): the rest of its text earns nothing by itself.
"""

import re

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.checking import DelegationError
from autograd_course.notebook import library_version, quietly, raise_if_not_written

__all__ = ["grad_results", "grad_results_in_the_engine", "grad_results_random", "grad_results_in_the_engine_random",
           "results_of", "results_rule", "expect_results", "random_results_case", "grad_story", "random_grad_calls",
           "RESULTS_TUPLE", "RESULTS_KEEP", "RESULTS_UNUSED", "RESULTS_DEFAULT", "RESULTS_NONE", "RESULTS_ZEROS",
           "RESULTS_FLAGS"]

RESULTS = grading.rules("04.grad_results")
RESULTS_TUPLE = RESULTS("tuple")
RESULTS_KEEP = RESULTS("tuple")
RESULTS_UNUSED = RESULTS("unused")
RESULTS_DEFAULT = RESULTS("unused")
RESULTS_NONE = RESULTS("unused")
RESULTS_ZEROS = RESULTS("zeros")
RESULTS_FLAGS = RESULTS("flags")
RESULTS_UNUSED_DEFAULT = RESULTS("unused")
RESULTS_NONE_DEFAULT = RESULTS("unused")
RESULTS_ZEROS_DEFAULT = RESULTS("zeros", "unused")
RESULTS_ZEROS_NONE_DEFAULT = RESULTS("zeros", "unused")
RESULTS_ENTRIES = RESULTS("tuple", "unused", "zeros")


def _error(error):
    """An error, as the checks compare it: its type, and the index a RuntimeError names."""
    if isinstance(error, RuntimeError) and not isinstance(error, NotImplementedError):
        found = re.search(r"index (\d+)", str(error))
        return f"RuntimeError naming index {found.group(1)}" if found else f"RuntimeError naming no index: {error}"
    if isinstance(error, ValueError):
        return "ValueError"
    return f"{type(error).__name__}: {error}"


def _tensor(t, inputs=(), captured=()):
    """A returned entry, comparable with ==."""
    if t is None:
        return None
    for i, g in enumerate(captured):
        if t is g:
            return f"captured[{i}] itself"
    if not isinstance(t, ag.Tensor):
        return f"an object of type {type(t).__name__}"
    shared = [i for i, x in enumerate(inputs) if isinstance(x, ag.Tensor) and np.shares_memory(t._data, x._data)]
    return ("a new tensor" if not shared else f"a tensor sharing the memory of inputs[{shared[0]}]",
            str(t.dtype), tuple(t.shape), np.round(np.asarray(t.tolist(), dtype=np.float64), 6).tolist(),
            t.requires_grad)


def results_of(fn, inputs, captured, allow_unused, materialize_grads):
    """``fn(inputs, captured, allow_unused, materialize_grads)``, comparable with ==: the error
    (type, and index named), or the type of what was returned and each entry (None, which
    captured gradient it is, or (where its memory comes from, dtype, shape, values,
    requires_grad)); then the inputs' values afterwards."""
    before = [x.tolist() for x in inputs]
    try:
        returned = fn(inputs, captured, allow_unused, materialize_grads)
    except DelegationError:
        raise
    except Exception as error:          # noqa: BLE001  (any error is an answer to compare)
        raise_if_not_written(error)
        seen = _error(error)
    else:
        if isinstance(returned, (tuple, list)):
            seen = (type(returned).__name__, [_tensor(t, inputs, captured) for t in returned])
        else:
            seen = f"an object of type {type(returned).__name__}"
    after = [x.tolist() for x in inputs]
    return seen, ("inputs unchanged" if after == before else f"inputs changed to {after}")


def results_rule(seen, expected, allow_unused):
    """The rule a wrong result breaks, judged from how it differs."""
    default = allow_unused is None
    (s, s_inputs), (e, e_inputs) = seen, expected
    if s_inputs != e_inputs:
        return RESULTS_ZEROS
    if "ValueError" in (s, e):
        return RESULTS_FLAGS
    if any(isinstance(x, str) for x in (s, e)):
        return RESULTS_UNUSED_DEFAULT if default else RESULTS_UNUSED
    if s[0] != e[0] or len(s[1]) != len(e[1]):
        return RESULTS_TUPLE
    for s_entry, e_entry in zip(s[1], e[1]):
        if s_entry != e_entry:
            if e_entry is None:
                return RESULTS_NONE_DEFAULT if default else RESULTS_NONE
            if isinstance(e_entry, tuple):
                if s_entry is None:
                    return RESULTS_ZEROS_NONE_DEFAULT if default else RESULTS("zeros", "unused")
                return RESULTS_ZEROS_DEFAULT if default else RESULTS_ZEROS
            return RESULTS_KEEP
    return RESULTS_TUPLE


def _described(inputs, captured, allow_unused, materialize_grads):
    shown = ", ".join(f"{tuple(x.shape)} {x.dtype}" for x in inputs)
    arrived = ", ".join("None" if g is None else "a gradient" for g in captured)
    return (f"grad_results(inputs [{shown}], captured [{arrived}], allow_unused={allow_unused}, "
            f"materialize_grads={materialize_grads})")


def _expect_equal(seen, expected, what, rule):
    grading.expect_equal(seen, expected, what=what, rule=rule)


def expect_results(fn, cases):
    """fn (your grad_results) on each case (inputs, captured, allow_unused, materialize_grads,
    expected)."""
    for inputs, captured, allow_unused, materialize_grads, expected in cases:
        seen = results_of(fn, inputs, captured, allow_unused, materialize_grads)
        _expect_equal(seen, expected, _described(inputs, captured, allow_unused, materialize_grads),
                      results_rule(seen, expected, allow_unused))


def _fixed_cases():
    """(inputs, captured, allow_unused, materialize_grads) of the visible check."""
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([[3.0]], dtype=ag.float64, requires_grad=True)
    c = ag.tensor(5.0, requires_grad=True)
    h = a * 2
    ga, gb, gc = ag.tensor([0.5, -1.0]), ag.tensor([[2.0]], dtype=ag.float64), ag.tensor(4.0)
    inputs = (a, b, c)
    cases = [(inputs, (ga, gb, gc), None, False), (inputs, (ga, None, gc), None, False),
             (inputs, (ga, None, None), False, False), (inputs, (None, gb, None), None, False),
             (inputs, (ga, None, gc), True, False), (inputs, (None, None, gc), True, False),
             (inputs, (ga, None, None), None, True), (inputs, (None, gb, None), True, True),
             ((h, a), (None, ga), None, True), (inputs, (ga, None, gc), False, True),
             (inputs, (ga, gb, gc), False, True), ((), (), False, True), ((), (), None, False),
             (inputs, (ga, gb, gc), True, False)]
    return cases


def grad_results(fn):
    """Your ``grad_results`` called directly, on inputs of three shapes and two dtypes: every
    gradient captured; one or two missing, with allow_unused None, False and True and with
    and without materialize_grads (which index the error names, None or zeros); a non-leaf
    input; materialize_grads with allow_unused=False, with and without missing gradients and
    with no inputs at all."""
    reference = exercises.reference("04.grad_results")
    cases = [case + (results_of(reference, *case),) for case in _fixed_cases()]
    with grading.checking("04.grad_results", fn):
        expect_results(fn, cases)


def random_results_case(rng):
    """(inputs, captured, allow_unused, materialize_grads) at random: one to five inputs of
    random shapes and dtypes, a random subset of them without a gradient, random flags."""
    n = int(rng.integers(1, 6))
    shapes = [[(), (1,), (3,), (2, 3)][int(rng.integers(4))] for _ in range(n)]
    dtypes = [ag.float64 if rng.integers(2) else ag.float32 for _ in range(n)]
    inputs = tuple(ag.tensor(rng.standard_normal(s), dtype=d, requires_grad=True) for s, d in zip(shapes, dtypes))
    captured = tuple(None if rng.integers(3) == 0 else ag.tensor(rng.standard_normal(s), dtype=d)
                     for s, d in zip(shapes, dtypes))
    return inputs, captured, [None, True, False][int(rng.integers(3))], bool(rng.integers(2))


# ------------------------------------------------------------------ through autograd.grad

def _returned(result):
    if isinstance(result, str):
        return result
    return [None if g is None else (str(g.dtype), tuple(g.shape), np.round(np.asarray(g.tolist(), dtype=np.float64),
                                                                           6).tolist(), g.requires_grad)
            for g in result]


def _graph(rng=None):
    """Leaves a (float32, (2,)), b (float64, (1, 1)), c (float32, ()); h = a * 3; y, a scalar
    of h.  With a generator: random values, up to two more leaves d and e of random shapes
    and dtypes, and y uses some of the leaves besides a."""
    specs = {"a": ((2,), ag.float32, [1.0, 2.0]), "b": ((1, 1), ag.float64, [[3.0]]), "c": ((), ag.float32, 5.0)}
    if rng is not None:
        for name in "de"[:int(rng.integers(3))]:
            shape = [(), (2,), (2, 2)][int(rng.integers(3))]
            specs[name] = (shape, ag.float64 if rng.integers(2) else ag.float32, None)
        specs = {name: (shape, dtype, rng.standard_normal(shape)) for name, (shape, dtype, _) in specs.items()}
    leaves = {name: ag.tensor(values, dtype=dtype, requires_grad=True) for name, (_, dtype, values) in specs.items()}
    h = leaves["a"] * 3
    y = (h * h).sum()
    for name in leaves:
        if name != "a" and rng is not None and rng.integers(2):
            y = y + (leaves[name] * leaves[name]).sum()
    return dict(leaves, h=h, y=y)


def _call(tensors, wanted, kwargs, fired):
    """autograd.grad(y, [wanted tensors], **kwargs): what it returned, the hooks that fired,
    whether the graph can still be differentiated and whether the inputs kept their values
    (with is_grads_batched, the output is h * 1 and grad_outputs an identity)."""
    inputs = [tensors[n] for n in wanted]
    # (batched: the output is a copy of h, so that h's hook fires only when the engine runs
    # the copy's node: PyTorch also fires the hooks of a lone root tensor that leads nowhere)
    output = tensors["h"] * 1 if kwargs.get("is_grads_batched") else tensors["y"]
    if kwargs.get("is_grads_batched"):
        kwargs = dict(kwargs, grad_outputs=ag.eye(2))
    before = [t.tolist() for t in inputs]
    try:
        result = quietly(ag.autograd.grad, output, inputs, **kwargs)
    except DelegationError:
        raise
    except Exception as error:          # noqa: BLE001
        raise_if_not_written(error)
        result = _error(error)
    hooks = sorted(set(fired))
    untouched = "the inputs unchanged" if [t.tolist() for t in inputs] == before else "an input changed"
    try:
        tensors["y"].backward(inputs=[tensors["a"]])        # (backward: your function is not used)
        alive = "the graph could be differentiated again"
    except DelegationError:
        raise
    except Exception:                   # noqa: BLE001
        alive = "the graph was freed"
    return _returned(result), hooks, alive, untouched


FIXED_CALLS = [(["a"], {}), (["a", "b"], {}), (["b", "a", "c"], {}), (["a", "b"], {"allow_unused": True}),
               (["a", "b", "c"], {"materialize_grads": True}),
               (["c", "a", "b"], {"materialize_grads": True, "allow_unused": True}),
               (["a"], {"materialize_grads": True, "allow_unused": False}),
               (["a", "b"], {"materialize_grads": True, "allow_unused": False}),
               (["h", "b"], {"allow_unused": True}),
               (["a", "b"], {"materialize_grads": True, "create_graph": True}),
               (["a", "b", "c"], {"is_grads_batched": True, "materialize_grads": True}),
               (["b", "a"], {"is_grads_batched": True})]


def random_grad_calls(rng):
    """Four calls at random: which tensors, in which order, and which flags."""
    calls = []
    for _ in range(4):
        names = ["a", "b", "c", "d", "e", "h"]
        wanted = [names[int(i)] for i in rng.choice(len(names), size=int(rng.integers(1, 5)), replace=False)]
        kwargs = {}
        allow = int(rng.integers(3))
        if allow:
            kwargs["allow_unused"] = allow == 1
        if rng.integers(2):
            kwargs["materialize_grads"] = True
        if rng.integers(4) == 0:
            kwargs["create_graph"] = True
        if rng.integers(4) == 0:
            kwargs["is_grads_batched"] = True
        calls.append((wanted, kwargs))
    return calls


def grad_story(seed=None):
    """autograd.grad on a fresh graph per call, a hook on h: for each call, what it returned
    (or the error: its type and the index it names), the hooks that fired, whether the
    graph survived and whether the inputs kept their values.  Without a seed, the twelve
    calls of FIXED_CALLS; with one, four random calls on a random graph (random leaves,
    some of them unused)."""
    rng = None if seed is None else np.random.default_rng(seed)
    calls = FIXED_CALLS if rng is None else random_grad_calls(rng)
    story = []
    state = None if rng is None else rng.bit_generator.state
    for wanted, kwargs in calls:
        if rng is not None:
            rng.bit_generator.state = state      # the same graph for every call
        tensors = _graph(rng)
        wanted = [n for n in wanted if n in tensors]
        fired = []
        tensors["h"].register_hook(lambda grad: fired.append("h"))
        story.append((f"autograd.grad(y, {wanted}, {kwargs})", *_call(tensors, wanted, kwargs, fired)))
    return story


def grad_results_in_the_engine(fn):
    """Your ``grad_results`` inside ``autograd.grad``, with y = ((a * 3) ** 2).sum(): all inputs
    used; b, or b and c, unused (which index is named); allow_unused; materialize_grads (the
    zeros' shape and dtype; with create_graph); materialize_grads with allow_unused=False (refused
    before the backward pass runs: no hook fires, the graph survives); a non-leaf input;
    is_grads_batched.  For each call: what it returned, the hooks that fired, whether the
    graph can still be differentiated and whether the inputs kept their values."""
    with library_version("04"):
        expected = grad_story()
    with grading.checking("04.grad_results", fn):
        seen = grad_story()
    expect_story(seen, expected)


def _story_rule(s, e):
    """The rule a call of a story breaks, judged from how it differs."""
    if s[4:] != e[4:]:
        return RESULTS_ZEROS
    if s[1] == e[1] and s[2:] != e[2:]:
        return RESULTS_FLAGS
    if isinstance(e[1], str) or isinstance(s[1], str):
        return RESULTS_FLAGS if "ValueError" in (s[1], e[1]) else RESULTS_UNUSED_DEFAULT
    return RESULTS_ENTRIES


def expect_story(seen, expected):
    """Compare two grad_story results call by call."""
    for s, e in zip(seen, expected):
        _expect_equal(s, e, f"{e[0]}: (the call, what it returned or its error, the hooks that fired, the graph "
                            "afterwards, the inputs afterwards)", _story_rule(s, e))


def grad_results_random(fn, rngs):
    """Your ``grad_results`` on random cases: one to five inputs of random shapes and dtypes,
    a random subset of them without a gradient, random flags; against the library's version."""
    reference = exercises.reference("04.grad_results")
    cases = [case + (results_of(reference, *case),) for case in (random_results_case(rng) for rng in rngs)]
    with grading.checking("04.grad_results", fn):
        expect_results(fn, cases)


def grad_results_in_the_engine_random(fn, rngs):
    """``autograd.grad`` on random graphs (random leaves, some unused) with four random calls
    each: which tensors, in which order, which flags."""
    seeds = [int(rng.integers(2**32)) for rng in rngs]
    with library_version("04"):
        expected = [grad_story(seed) for seed in seeds]
    with grading.checking("04.grad_results", fn):
        seen = [grad_story(seed) for seed in seeds]
    for s, e in zip(seen, expected):
        expect_story(s, e)
