"""Visible checks of assignment 05, exercise 5: ``derive_rules``, the gradient rules of ``exp``,
``sigmoid`` and ``log_softmax`` (its three slots: each check takes the three functions), and their
second derivatives.

``autograd_course.checks.ops`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the functions you wrote, and
its docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the
same cells run: the same rules on random inputs drawn from the generators the cell passes.  The
constants are the rules the checks name (``grading.rules("05.derive_rules")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.notebook import library_version

from .op_comparisons import (_dtype, _expect_close, _expect_equal, _expect_true, _random_shape, _run, _try,
                             reference_rule)

__all__ = ["derive_slots", "derive_rules", "derive_rules_in_the_engine", "derive_rules_second_derivative",
           "derive_rules_random", "derive_rules_in_the_engine_random", "derive_rules_second_derivative_random",
           "DERIVE_EXP", "DERIVE_SIGMOID", "DERIVE_LOG_SOFTMAX", "DERIVE_GRAPH"]

DERIVE = grading.rules("05.derive_rules")
DERIVE_EXP = DERIVE("exp")
DERIVE_SIGMOID = DERIVE("sigmoid")
DERIVE_LOG_SOFTMAX = DERIVE("log-softmax")
DERIVE_GRAPH = DERIVE("graph")


def derive_slots(exp_backward, sigmoid_backward, log_softmax_backward):
    """The three slots that exercise 5 fills, for ``grading.checking``."""
    return {"05.exp_backward": exp_backward, "05.sigmoid_backward": sigmoid_backward,
            "05.log_softmax_backward": log_softmax_backward}


def _saved_by_exp():
    """Which of _saved_self and _saved_result the node of x.exp() has."""
    y = ag.tensor([0.0, 1.0], requires_grad=True).exp()
    return [name for name in ("_saved_self", "_saved_result") if hasattr(y.grad_fn, name)]


def _softmax(values, dim):
    e = np.exp(values - values.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def derive_rules(exp_backward, sigmoid_backward, log_softmax_backward):
    """Your three rules called directly: ``exp_backward(grad=[1, 2, 3], result=[1, 2, 4])``,
    what ``x.exp()``'s node saves (exp); ``sigmoid_backward`` at outputs 0.5, 0.8 and 0.1
    (sigmoid); ``log_softmax_backward`` on the log-probabilities of a vector and of batches
    along dim 1 and dim 0 (log-softmax).  The expected values are worked out in NumPy."""
    out1 = np.log(_softmax(np.array([2.0, 1.0, 0.1]), 0))
    out2 = np.log(_softmax(np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]]), 1))
    out3 = np.log(_softmax(np.array([[1.0, 0.0, -1.0], [0.2, 0.3, 0.1], [3.0, -2.0, 0.0]]), 1))
    out4 = np.log(_softmax(np.array([[1.0, 0.0, -1.0], [0.2, 0.3, 0.1]]), 0))
    g1, g2 = np.array([1.0, 0.0, 0.0]), np.array([2.0, -1.0, 0.5])
    g3 = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]])
    g4 = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0], [0.5, 0.5, 0.5]])
    g5 = np.array([[1.0, 0.0, 2.0], [3.0, -1.0, 0.0]])
    log_softmax_cases = [("grad_output=[1, 0, 0], a vector, dim=0", g1, out1, 0),
                         ("grad_output=[2, -1, 0.5], a vector, dim=0", g2, out1, 0),
                         ("a (2, 3) batch, dim=1", g3, out2, 1), ("a (3, 3) batch, dim=1", g4, out3, 1),
                         ("a (2, 3) batch, dim=0", g5, out4, 0)]
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        _try(exp_backward, (ag.tensor([1.0, 2.0, 3.0]), ag.tensor([1.0, 2.0, 4.0])), [1.0, 4.0, 12.0],
             "exp_backward(grad=[1, 2, 3], result=[1, 2, 4])", DERIVE_EXP)
        saved = _saved_by_exp()
        _try(sigmoid_backward, (ag.tensor([1.0, 1.0, 2.0]), ag.tensor([0.5, 0.8, 0.1])), [0.25, 0.16, 0.18],
             "sigmoid_backward(grad_output=[1, 1, 2], output=[0.5, 0.8, 0.1])", DERIVE_SIGMOID)
        for label, grad_output, output, dim in log_softmax_cases:
            p = np.exp(output)
            expected = grad_output - p * grad_output.sum(axis=dim, keepdims=True)
            _try(log_softmax_backward, (ag.tensor(grad_output), ag.tensor(output), dim), expected,
                 f"log_softmax_backward({label})", DERIVE_LOG_SOFTMAX)
    _expect_equal(saved, ["_saved_result"], "the values the node of x.exp() saves", DERIVE_EXP)


def derive_rules_in_the_engine(exp_backward, sigmoid_backward, log_softmax_backward):
    """Your rules inside the engine: backward through ``x.exp()`` and ``(z * 2).exp()``,
    ``sigmoid(x)``, cross-entropy (softmax minus one-hot, over the batch size) and
    ``log_softmax`` of huge logits ``[1000, 0, -1000]`` (finite); then ``gradcheck`` of
    ``sigmoid`` and of ``log_softmax(t, 1)`` in float64."""
    xs = np.array([0.0, 2.0, -3.0])
    logits = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        e = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
        _run(lambda: e.exp().sum().backward(), "x.exp().sum().backward()", DERIVE_EXP)
        z = ag.tensor([0.0, 0.5], requires_grad=True)
        _run(lambda: (z * 2).exp().backward(ag.tensor([1.0, 3.0])), "(z * 2).exp().backward([1, 3])", DERIVE_EXP)
        s = ag.tensor(xs, requires_grad=True)
        _run(lambda: ag.sigmoid(s).backward(ag.tensor([1.0, 2.0, 3.0])), "sigmoid(x).backward([1, 2, 3])",
             DERIVE_SIGMOID)
        c = ag.tensor(logits, requires_grad=True)
        _run(lambda: ag.nn.functional.cross_entropy(c, ag.tensor([0, 1])).backward(),
             "cross_entropy(x, [0, 1]).backward()", DERIVE_LOG_SOFTMAX)
        huge = ag.tensor([1000.0, 0.0, -1000.0], requires_grad=True)
        _run(lambda: ag.log_softmax(huge, 0)[1].backward(), "log_softmax([1000, 0, -1000], 0)[1].backward()",
             DERIVE_LOG_SOFTMAX)
        x64 = ag.tensor([-1.0, 0.5, 3.0], dtype=ag.float64, requires_grad=True)
        sigmoid_ok = _run(lambda: ag.autograd.gradcheck(ag.sigmoid, (x64,), raise_exception=False),
                          "gradcheck(sigmoid, x) in float64", DERIVE_SIGMOID)
        t = ag.tensor([[0.3, -1.2, 2.0, 0.0], [1.5, 0.5, -0.5, 0.1]], dtype=ag.float64, requires_grad=True)
        log_softmax_ok = _run(lambda: ag.autograd.gradcheck(lambda u: ag.log_softmax(u, 1), (t,),
                                                            raise_exception=False),
                              "gradcheck(log_softmax(t, 1)) on a (2, 4) float64 batch", DERIVE_LOG_SOFTMAX)
    _expect_close(e.grad, np.exp([0.0, 1.0, 2.0]), "x.grad for x.exp().sum()", DERIVE_EXP, ag.float32)
    _expect_close(z.grad, [2.0, 6.0 * np.exp(1.0)], "z.grad for (z * 2).exp().backward([1, 3])", DERIVE_EXP,
                  ag.float32)
    sv = 1 / (1 + np.exp(-xs))
    _expect_close(s.grad, sv * (1 - sv) * [1.0, 2.0, 3.0], "x.grad for sigmoid(x).backward([1, 2, 3])",
                  DERIVE_SIGMOID, ag.float32)
    grading.expect_true(sigmoid_ok, what="gradcheck(sigmoid, x) in float64", seen=repr(sigmoid_ok),
                        rule=DERIVE_SIGMOID)
    _expect_close(c.grad, (_softmax(logits, 1) - np.eye(3)[[0, 1]]) / 2, "x.grad for cross_entropy(x, [0, 1])",
                  DERIVE_LOG_SOFTMAX, ag.float32)
    _expect_close(huge.grad, [-1.0, 1.0, 0.0], "huge.grad for log_softmax([1000, 0, -1000], 0)[1]",
                  DERIVE_LOG_SOFTMAX)
    grading.expect_true(log_softmax_ok, what="gradcheck(log_softmax(t, 1)) on a (2, 4) float64 batch",
                        seen=repr(log_softmax_ok), rule=DERIVE_LOG_SOFTMAX)


def _twice(op, xv, gv, wv):
    """The gradient of op(x) for the upstream gradient g, taken with create_graph=True, whether
    it requires grad, and the gradient of (gradient * w).sum() by x: values, or None."""
    x = ag.tensor(xv, requires_grad=True)
    (g,) = ag.autograd.grad(op(x), x, grad_outputs=ag.tensor(gv), create_graph=True)
    values = g.detach().numpy().copy()
    if not g.requires_grad:
        return values, False, None
    (h,) = ag.autograd.grad((g * ag.tensor(wv)).sum(), x)
    return values, True, h.detach().numpy().copy()


_OPS = {"exp": (lambda t: t.exp(), "x.exp()", DERIVE_EXP),
        "sigmoid": (ag.sigmoid, "sigmoid(x)", DERIVE_SIGMOID),
        "log_softmax": (None, "log_softmax(x, {dim})", DERIVE_LOG_SOFTMAX)}


def _second_derivatives(slots, cases):
    """For each (name, dim, x, g, w): _twice with the library's rules, then with ``slots``."""
    def op_of(name, dim):
        return (lambda t: ag.log_softmax(t, dim)) if name == "log_softmax" else _OPS[name][0]

    with library_version("05"):
        expected = [_twice(op_of(name, dim), xv, gv, wv) for name, dim, xv, gv, wv in cases]
    seen = []
    with grading.checking(slots):
        for name, dim, xv, gv, wv in cases:
            label = _OPS[name][1].format(dim=dim)
            seen.append(_run(lambda: _twice(op_of(name, dim), xv, gv, wv),
                             f"autograd.grad({label}, x, g, create_graph=True), then its gradient", DERIVE_GRAPH))
    for (name, dim, xv, gv, wv), (g, twice, h), (g_expected, _, h_expected) in zip(cases, seen, expected):
        label = f"{_OPS[name][1].format(dim=dim)} at x = {np.round(xv, 3).tolist()}"
        _expect_close(g, g_expected, f"the gradient of {label}", _OPS[name][2])
        grading.expect_true(twice, what=f"the gradient of {label}, taken with create_graph=True, requires grad",
                            seen=repr(twice), rule=DERIVE_GRAPH)
        _expect_close(h, h_expected, f"the second derivative of {label}", DERIVE_GRAPH)


def derive_rules_second_derivative(exp_backward, sigmoid_backward, log_softmax_backward):
    """Your rules, differentiated again: the gradient of ``x.exp()``, ``sigmoid(x)`` and
    ``log_softmax(x, 1)`` taken with ``create_graph=True`` must require grad, and its own
    gradient must be the library's second derivative (graph)."""
    cases = [("exp", None, np.array([0.0, 1.0]), np.array([1.0, 2.0]), np.array([1.0, -1.0])),
             ("sigmoid", None, np.array([-1.0, 0.0, 2.0]), np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])),
             ("log_softmax", 1, np.array([[0.5, -1.0, 2.0], [0.0, 1.0, 0.0]]), np.array([[1.0, 0.0, 0.0],
              [0.0, 2.0, -1.0]]), np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 1.0]]))]
    _second_derivatives(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward), cases)


def _derive_case(rng, name):
    """(name, dim, x, g, w) at a random point of a random shape (log_softmax: 1 to 3 dims)."""
    if name == "log_softmax":
        shape = _random_shape(rng, 2, 5, int(rng.integers(1, 4)))
        dim = int(rng.integers(len(shape)))
    else:
        shape, dim = _random_shape(rng, 1, 4, int(rng.integers(0, 3))), None
    return (name, dim, rng.uniform(-3, 3, size=shape), rng.uniform(-2, 2, size=shape),
            rng.uniform(-2, 2, size=shape))


def derive_rules_random(exp_backward, sigmoid_backward, log_softmax_backward, rngs):
    """The three rules called directly at random points: random shapes, dims, dtypes and
    upstream gradients; and what ``x.exp()``'s node saves."""
    cases = []
    for rng in rngs:
        dtype = _dtype(rng)
        for name in ("exp", "sigmoid", "log_softmax"):
            _, dim, xv, gv, _ = _derive_case(rng, name)
            x, g = ag.tensor(xv, dtype=dtype), ag.tensor(gv, dtype=dtype)
            output = x.exp() if name == "exp" else ag.sigmoid(x) if name == "sigmoid" else ag.log_softmax(x, dim)
            args = (g, output) if dim is None else (g, output, dim)
            reference = (lambda grad, result: reference_rule("05.exp_backward", grad, result)) if name == "exp" \
                else exercises.reference(f"05.{name}_backward")
            cases.append((name, args, reference(*args)))
    functions = {"exp": exp_backward, "sigmoid": sigmoid_backward, "log_softmax": log_softmax_backward}
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        for i, (name, args, expected) in enumerate(cases):
            dim = "" if len(args) == 2 else f", dim={args[2]}"
            what = (f"{name}_backward(random case #{i}: {args[0].dtype}, shape {tuple(args[0].shape)}{dim}, "
                    f"output={np.round(args[1].numpy(), 3).tolist()})")
            _try(functions[name], args, expected, what, _OPS[name][2], args[0].dtype)
        saved = _saved_by_exp()
    _expect_equal(saved, ["_saved_result"], "the values the node of x.exp() saves", DERIVE_EXP)


def _engine_gradient(name, dim, xv, gv, factor, dtype):
    """x.grad after op(x * factor).backward(g), x of dtype; and gradcheck of op at x (float64,
    at most 4 elements)."""
    op = (lambda t: ag.log_softmax(t, dim)) if name == "log_softmax" else _OPS[name][0]
    x = ag.tensor(xv, dtype=dtype, requires_grad=True)
    op(x * factor).backward(ag.tensor(gv, dtype=dtype))
    point = ag.tensor(xv.reshape(-1)[:4] if name != "log_softmax" else xv, dtype=ag.float64, requires_grad=True)
    checked = ag.autograd.gradcheck(op, (point,), raise_exception=False)
    return x.grad, checked


def derive_rules_in_the_engine_random(exp_backward, sigmoid_backward, log_softmax_backward, rngs):
    """Backward through ``op(x * factor)`` for the three ops at random points, shapes, dims,
    dtypes and chain factors, compared with the library's rules; and ``gradcheck`` of each op."""
    cases = []
    for rng in rngs:
        for name in ("exp", "sigmoid", "log_softmax"):
            _, dim, xv, gv, _ = _derive_case(rng, name)
            cases.append((name, dim, xv, gv, float(rng.choice([-1, 1]) * rng.uniform(0.5, 2)), _dtype(rng)))
    with library_version("05"):
        expected = [_engine_gradient(*case)[0] for case in cases]
    with grading.checking(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward)):
        seen = []
        for name, dim, xv, gv, factor, dtype in cases:
            label = f"{_OPS[name][1].format(dim=dim)} for x * {factor:.4f}, x of shape {xv.shape} ({dtype})"
            seen.append(_run(lambda: _engine_gradient(name, dim, xv, gv, factor, dtype), f"{label}.backward(g)",
                             _OPS[name][2]))
    for i, ((name, dim, xv, gv, factor, dtype), (grad, checked), want) in enumerate(zip(cases, seen, expected)):
        label = f"{_OPS[name][1].format(dim=dim)} for x * {factor:.4f}, x of shape {xv.shape} ({dtype})"
        _expect_close(grad, want, f"x.grad for {label} (random case #{i})", _OPS[name][2], dtype)
        _expect_true(checked, f"gradcheck of {_OPS[name][1].format(dim=dim)} at a random point (case #{i})",
                     _OPS[name][2])


def derive_rules_second_derivative_random(exp_backward, sigmoid_backward, log_softmax_backward, rngs):
    """Second derivatives of the three ops at random points, shapes and dims."""
    cases = [_derive_case(rng, name) for rng in rngs for name in ("exp", "sigmoid", "log_softmax")]
    _second_derivatives(derive_slots(exp_backward, sigmoid_backward, log_softmax_backward), cases)
