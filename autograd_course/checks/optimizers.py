"""Visible checks of assignment 09, its optimizers: ``sgd_update`` and ``adam_update``.

The checks of 09's test cells on SGD and Adam, their helpers and their rules' texts;
``autograd_course.checks.training``, the notebook's module, shows them too
(``check.adam_update`` in the notebook is this module's), so a student still reads
09's checks from one name.  They live apart because the two optimizers' checks with
PyTorch's numbers are about 350 lines, and 09's module would be almost a thousand.
"""

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import outcome, shown

__all__ = [
    # the checks, one per test cell
    "sgd_update", "sgd_update_in_the_optimizer", "adam_update",
    # helpers of the checks and the hidden tests
    "rounded", "param_with_grad", "update", "sgd_run", "check_run", "sgd_rule", "expect_sgd", "expect_sgd_flags",
    "adam_step", "adam_state", "adam_history", "check_adam_history", "adam_run", "adam_rule",
    # the rules
    "PLAIN", "IN_PLACE", "GRAD_KEPT", "DECAY", "FIRST", "COPY", "LATER", "NESTEROV", "MAXIMIZE", "MOMENTUM",
    "ADAM_STATE", "ADAM_IN_PLACE", "MOMENTS", "BIAS", "EPS", "AMSGRAD", "L2", "DECOUPLED",
    "ADAM_MAXIMIZE", "ADAM_RULE",
]


def rounded(tensor, digits=10):
    """A tensor's values as a rounded list (None for None)."""
    return None if tensor is None else np.round(tensor._data, digits).tolist()


# ------------------------------------------------------------ 09.sgd_update

SGD = grading.rules("09.sgd_update")
PLAIN = SGD("plain")
IN_PLACE = SGD("in-place")
GRAD_KEPT = SGD("grad-kept")
DECAY = SGD("decay")
FIRST = SGD("first")
COPY = SGD("copy")
LATER = SGD("later")
NESTEROV = SGD("nesterov")
MAXIMIZE = SGD("maximize")
MOMENTUM = SGD("first", "later")


def sgd_rule(options):
    """The rule of the most particular option of an SGD run, the one a failure of the run names."""
    return (NESTEROV if options.get("nesterov") else MAXIMIZE if options.get("maximize") else
            DECAY if options.get("weight_decay") else MOMENTUM if options.get("momentum") else PLAIN)


def expect_sgd(seen, expected, what, broken, rtol=1e-9, atol=1e-12):
    """seen is close to expected, or ``broken`` (a rule of 09.sgd_update) is named."""
    grading.expect_close(seen, expected, what=what, rule=broken, rtol=rtol, atol=atol)


def expect_sgd_flags(seen, expected, what, options):
    """Per step, (result, version increase of param, param.grad unchanged, the buffer is param.grad)."""
    def column(rows, index):
        return [flags[index] for flags in rows]

    grading.expect_equal(column(seen, 1), column(expected, 1), what=f"the version increase of param at each step "
                         f"of {what}", rule=IN_PLACE)
    grading.expect_equal(column(seen, 2), column(expected, 2), what=f"param.grad unchanged, at each step of {what}",
                         rule=GRAD_KEPT)
    grading.expect_equal(column(seen, 3), column(expected, 3), what=f"the buffer is param.grad, at each step of "
                         f"{what}", rule=COPY)
    expect_sgd_results([flags[0] for flags in seen], [flags[0] for flags in expected], what, sgd_rule(options))


def expect_sgd_results(seen, expected, what, broken):
    """What sgd_update returned at each step (None, or an error's text)."""
    grading.expect_equal(seen, expected, what=f"what sgd_update returned at each step of {what}", rule=broken)


def param_with_grad(values, grad):
    """A float64 leaf that requires grad, with these values and this .grad."""
    p = ag.tensor(values, dtype=ag.float64, requires_grad=True)
    p.grad = ag.tensor(grad, dtype=ag.float64)
    return p


def update(fn, p, state, **options):
    """fn(p, state, ...) (your sgd_update) under no_grad, with the defaults of SGD; the error text if any."""
    options = {"lr": 0.1, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
               "maximize": False, **options}
    with ag.no_grad():
        return outcome(fn, p, state, **options)


def sgd_update(fn):
    """Your ``sgd_update`` called directly on ``p = [1, -2]`` with hand-computed results:
    a plain step (in place, ``.grad`` untouched), weight decay, ``maximize``, two momentum
    steps with dampening (the buffer: a copy first, then the same tensor), momentum with
    weight decay, and two Nesterov steps."""
    with grading.checking("09.sgd_update", fn):
        p = param_with_grad([1.0, -2.0], [0.5, 1.0])
        data, version = p._data, p._version
        result = update(fn, p, {})
        grading.expect_equal(result, None, what="sgd_update(p, {}, lr=0.1, ...) without momentum", rule=PLAIN)
        grading.expect_equal((p._data is data, p._version - version), (True, 1),
                             what="(same storage, version increase) of p after one step", rule=IN_PLACE)
        grading.expect_close(p.detach(), [0.95, -2.1], what="p = [1, -2] with grad [0.5, 1] after one step, lr=0.1",
                             rule=PLAIN, rtol=1e-12)
        grading.expect_equal(rounded(p.grad), [0.5, 1.0], what="p.grad after one step", rule=GRAD_KEPT)

        p = param_with_grad([1.0, -2.0], [0.5, 1.0])
        update(fn, p, {}, weight_decay=0.1)
        grading.expect_close(p.detach(), [0.94, -2.08], what="p after one step with weight_decay=0.1",
                             rule=DECAY, rtol=1e-12)
        grading.expect_equal(rounded(p.grad), [0.5, 1.0], what="p.grad after a step with weight_decay=0.1",
                             rule=GRAD_KEPT)

        p = param_with_grad([1.0, -2.0], [-0.5, 1.0])
        update(fn, p, {}, maximize=True)
        grading.expect_close(p.detach(), [0.95, -1.9], what="p after one step with maximize=True", rule=MAXIMIZE,
                             rtol=1e-12)
        p = param_with_grad([1.0, -2.0], [-0.5, 1.0])
        update(fn, p, {}, maximize=True, weight_decay=0.1)
        grading.expect_close(p.detach(), [0.94, -1.88], what="p after one step with maximize=True, weight_decay=0.1",
                             rule=MAXIMIZE, rtol=1e-12)

        p = param_with_grad([1.0, -2.0], [0.5, 1.0])
        state = {}
        update(fn, p, state, momentum=0.9, dampening=0.5)
        buf = state.get("momentum_buffer")
        grading.expect_true(isinstance(buf, ag.Tensor), what="state['momentum_buffer'] after the first step",
                            seen=repr(state), rule=FIRST)
        grading.expect_close(buf, [0.5, 1.0], what="the first momentum buffer (dampening=0.5)", rule=FIRST, rtol=1e-12)
        grading.expect_close(p.detach(), [0.95, -2.1], what="p after the first momentum step", rule=FIRST, rtol=1e-12)
        grading.expect_true(buf is not p.grad and not np.shares_memory(buf._data, p.grad._data),
                            what="the first momentum buffer has memory of its own", seen="it is p.grad's memory",
                            rule=COPY)
        p.grad = ag.tensor([1.0, 1.0], dtype=ag.float64)
        update(fn, p, state, momentum=0.9, dampening=0.5)
        grading.expect_close(state["momentum_buffer"], [0.95, 1.4],
                             what="the buffer after a second step with grad [1, 1]", rule=LATER, rtol=1e-12)
        grading.expect_true(state["momentum_buffer"] is buf, what="state['momentum_buffer'] is the same tensor after "
                            "the second step", seen="a new tensor", rule=LATER)
        grading.expect_close(p.detach(), [0.855, -2.24], what="p after the second momentum step", rule=LATER,
                             rtol=1e-12)

        p = param_with_grad([1.0, -2.0], [0.5, 1.0])
        state = {}
        update(fn, p, state, momentum=0.9, weight_decay=0.1)
        grading.expect_close(state.get("momentum_buffer"), [0.6, 0.8], what="the first buffer with weight_decay=0.1",
                             rule=DECAY, rtol=1e-12)
        p.grad = ag.tensor([1.0, 1.0], dtype=ag.float64)
        update(fn, p, state, momentum=0.9, weight_decay=0.1)
        grading.expect_close(p.detach(), [0.7766, -2.2312], what="p after two momentum steps with weight_decay=0.1",
                             rule=DECAY, rtol=1e-12)

        p = param_with_grad([1.0, -2.0], [0.5, 1.0])
        state = {}
        update(fn, p, state, momentum=0.9, nesterov=True)
        grading.expect_close(p.detach(), [0.905, -2.19], what="p after one Nesterov step (momentum=0.9)",
                             rule=NESTEROV, rtol=1e-12)
        p.grad = ag.tensor([1.0, 1.0], dtype=ag.float64)
        update(fn, p, state, momentum=0.9, nesterov=True)
        grading.expect_close(p.detach(), [0.6745, -2.461], what="p after a second Nesterov step with grad [1, 1]",
                             rule=NESTEROV, rtol=1e-12)


def sgd_run(steps=3, set_to_none=True, lr=0.1, **options):
    """w = [1, -2] and its momentum buffer after each SGD step on (w ** 2).sum() (its negative when
    maximizing), as one array per step: [w..., buffer...]."""
    w = ag.tensor([1.0, -2.0], requires_grad=True)
    optimizer = ag.optim.SGD([w], lr=lr, **options)
    rows = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=set_to_none)
        ((w ** 2).sum() * (-1 if options.get("maximize") else 1)).backward()
        optimizer.step()
        buf = optimizer.state[w].get("momentum_buffer", ag.tensor([np.nan, np.nan]))
        rows.append(np.concatenate([w.detach().numpy(), buf.numpy()]))
    return np.array(rows)


def check_run(seen, expected, what, rule, rtol=0.0, atol=1e-4):
    """seen, what sgd_run returned, is an array close to expected (one row [w0, w1, buf0, buf1] per step)."""
    grading.expect_true(isinstance(seen, np.ndarray), what=what, seen=repr(seen), rule=rule)
    grading.expect_close(seen, expected, what=what + ", each row [w0, w1, buf0, buf1]", rule=rule,
                         rtol=rtol, atol=atol)


def sgd_update_in_the_optimizer(fn):
    """Your ``sgd_update`` inside ``SGD.step()``: three steps on ``(w ** 2).sum()`` with
    momentum; with Nesterov and weight decay after ``zero_grad(set_to_none=False)``; and
    with dampening, maximizing.  ``w`` and the buffer must match PyTorch's numbers."""
    with grading.checking("09.sgd_update", fn):
        check_run(outcome(sgd_run, momentum=0.9),
                  [[0.8, -1.6, 2.0, -4.0], [0.46, -0.92, 3.4, -6.8], [0.062, -0.124, 3.98, -7.96]],
                  what="w and the momentum buffer after each of 3 steps of SGD(lr=0.1, momentum=0.9) "
                       "(PyTorch's values)",
                  rule=LATER)
        check_run(outcome(sgd_run, set_to_none=False, momentum=0.9, nesterov=True, weight_decay=0.1),
                  [[0.601, -1.202, 2.1, -4.2], [0.1911, -0.3822, 3.1521, -6.3042],
                   [-0.1405, 0.2809, 3.2382, -6.4764]],
                  what="w and the buffer after each of 3 steps of SGD(lr=0.1, momentum=0.9, nesterov=True, "
                       "weight_decay=0.1) with zero_grad(set_to_none=False) (PyTorch's values)",
                  rule=COPY)
        check_run(outcome(sgd_run, set_to_none=False, momentum=0.5, dampening=0.5, maximize=True),
                  [[0.8, -1.6, 2.0, -4.0], [0.62, -1.24, 1.8, -3.6], [0.468, -0.936, 1.52, -3.04]],
                  what="w and the buffer after each of 3 steps of SGD(lr=0.1, momentum=0.5, dampening=0.5, "
                       "maximize=True) on -(w ** 2).sum() (PyTorch's values)",
                  rule=MAXIMIZE)


# ----------------------------------------------------------- 09.adam_update

ADAM = grading.rules("09.adam_update")
ADAM_STATE = ADAM("state")
ADAM_IN_PLACE = ADAM("in-place")
MOMENTS = ADAM("moments")
BIAS = ADAM("bias")
EPS = ADAM("eps")
AMSGRAD = ADAM("amsgrad")
L2 = ADAM("l2")
DECOUPLED = ADAM("decoupled")
ADAM_MAXIMIZE = ADAM("maximize")
ADAM_RULE = ADAM("moments", "bias", "eps")


def adam_rule(options):
    """The rule of the most particular option of an Adam run, the one a failure of the run names."""
    decay = options.get("weight_decay")
    return (DECOUPLED if decay and options.get("decoupled_weight_decay") else L2 if decay else
            AMSGRAD if options.get("amsgrad") else ADAM_MAXIMIZE if options.get("maximize") else ADAM_RULE)


def adam_step(fn, p, state, **options):
    """fn(p, state, ...) (your adam_update) under no_grad, with Adam's defaults but lr=0.1;
    the error text if any."""
    options = {"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False,
               "maximize": False, "decoupled_weight_decay": False, **options}
    with ag.no_grad():
        return outcome(fn, p, state, **options)


def adam_state(state):
    """What the tests compare of an Adam state dict: {key: (values, dtype name, shape)}, in order."""
    if not isinstance(state, dict):
        return repr(state)
    return {key: ((np.asarray(value._data, dtype=float).tolist(), str(value.dtype).split(".")[-1], value.shape)
                  if isinstance(value, ag.Tensor) else shown(value)) for key, value in state.items()}


def adam_history(fn, start, grads, dtype=None, **options):
    """Steps of fn (your adam_update) on a fresh parameter, one per gradient.  For each step:
    (result, [same storage, version went up, grad unchanged, the state's tensors are the first
    step's (but 'step')], the parameter's values, adam_state(state))."""
    dtype = dtype or ag.float64
    p = ag.tensor(start, dtype=dtype, requires_grad=True)
    state, first, steps = {}, None, []
    for g in grads:
        p.grad = ag.tensor(g, dtype=dtype)
        grad, data, version = p.grad, p._data, p._version
        grad_values = grad._data.copy()
        result = adam_step(fn, p, state, **options)
        tensors = {key: value for key, value in state.items() if isinstance(value, ag.Tensor) and key != "step"}
        first = first or tensors
        flags = [p._data is data, p._version > version,
                 p.grad is grad and np.array_equal(grad._data, grad_values),
                 all(tensors.get(key) is value for key, value in first.items())]
        steps.append((result if result is None or isinstance(result, str) else shown(result), flags,
                      np.asarray(p._data, dtype=float).copy(), adam_state(state)))
    return steps


def check_adam_history(seen, expected, what, rule, rtol=1e-10, atol=1e-12, moments=None):
    """seen, a history of adam_history, against expected: a list of (p, {state key: values}) per step.
    ``rule`` is the rule of the parameter's values, ``moments`` that of the moments (``rule`` if None)."""
    for step, ((result, flags, p, state), (e_p, e_state)) in enumerate(zip(seen, expected)):
        at = f"{what}, step {step + 1}"
        grading.expect_equal(result, None, what=f"adam_update at {at}",
                             rule=BIAS if "division by zero" in str(result) else ADAM_IN_PLACE)
        grading.expect_equal(flags[:3], [True, True, True],
                             what=f"[param keeps its storage, param's version went up, param.grad unchanged] at {at}",
                             rule=ADAM_IN_PLACE)
        grading.expect_equal(list(state) if isinstance(state, dict) else state, list(e_state),
                             what=f"the keys of state after {at}", rule=ADAM_STATE)
        grading.expect_equal([key for key, value in state.items() if not isinstance(value, tuple)], [],
                             what=f"the entries of state that are not tensors, after {at}", rule=ADAM_STATE)
        grading.expect_equal(flags[3], True,
                             what=f"the state's moments are still the tensors of the first step, at {at}",
                             rule=ADAM_IN_PLACE)
        grading.expect_equal(state["step"][0], float(step + 1), what=f"state['step'] after {at}", rule=ADAM_STATE)
        for key, values in e_state.items():
            if key == "step":
                continue
            grading.expect_close(state[key][0], values, what=f"state[{key!r}] after {at}",
                                 rule=AMSGRAD if key == "max_exp_avg_sq" else rule if moments is None else moments, rtol=rtol, atol=atol)
        grading.expect_close(p, e_p, what=f"param after {at}", rule=rule, rtol=rtol, atol=atol)


def adam_run(steps=3, **options):
    """w = [1, -2] and the optimizer's state after each Adam step on (w ** 2).sum(): per step,
    (w's values, state_dict()['state'] as adam_state gives it)."""
    w = ag.tensor([1.0, -2.0], requires_grad=True)
    optimizer = ag.optim.Adam([w], **options)
    rows = []
    for _ in range(steps):
        optimizer.zero_grad()
        (w ** 2).sum().backward()
        optimizer.step()
        rows.append((np.asarray(w._data, dtype=float).round(6).tolist(),
                     adam_state(optimizer.state_dict()["state"].get(0, {}))))
    return rows


def adam_update(fn):
    """Your ``adam_update`` called directly on ``p = [1, -2]`` (float64), against PyTorch's numbers:
    one step with the defaults (``lr=0.1``), the state it creates (keys, the ``step`` count, the
    moments, dtypes) and ``.grad`` untouched; ``eps=0.1`` with a zero gradient; three steps with
    ``betas=(0.5, 0.8)``, where the bias corrections matter; L2 and decoupled weight decay;
    AMSGrad over three steps; ``maximize``, alone and with weight decay; ``float32``.  Then three
    steps of ``Adam`` itself on ``(w ** 2).sum()``, with its ``state_dict()``."""
    with grading.checking("09.adam_update", fn):
        first = adam_history(fn, [1.0, -2.0], [[0.5, 1.0]])
        eps = adam_history(fn, [1.0, -2.0], [[0.0, 0.02]], eps=0.1)
        bias = adam_history(fn, [1.0, -2.0], [[0.5, 1.0], [-1.0, 1.0], [0.25, 2.0]], betas=(0.5, 0.8))
        l2 = adam_history(fn, [1.0, -2.0], [[0.5, 1.0], [1.0, 1.0]], weight_decay=0.1)
        decoupled = adam_history(fn, [1.0, -2.0], [[0.5, 1.0], [1.0, 1.0]], weight_decay=0.5,
                                 decoupled_weight_decay=True)
        amsgrad = adam_history(fn, [1.0, -2.0], [[2.0, 1.0], [0.1, 3.0], [0.1, 0.1]], betas=(0.5, 0.5), amsgrad=True)
        maximize = adam_history(fn, [1.0, -2.0], [[0.5, -1.0]], maximize=True)
        maximize_l2 = adam_history(fn, [1.0, -2.0], [[0.5, -1.0], [1.0, 1.0]], maximize=True, weight_decay=0.1)
        single = adam_history(fn, [1.0, -2.0], [[0.5, 1.0], [-1.0, 1.0]], dtype=ag.float32, betas=(0.5, 0.8))
        runs = [outcome(adam_run, lr=0.1),
                outcome(adam_run, lr=0.1, betas=(0.5, 0.9), weight_decay=0.1, amsgrad=True,
                        decoupled_weight_decay=True)]
    # first step, the state, loosely: the exact digits are the later cases'
    result, flags, p, state = first[0]
    check_adam_history(first, [([0.900000002, -2.099999999],
                                {"step": 1.0, "exp_avg": [0.05, 0.1], "exp_avg_sq": [0.00025, 0.001]})],
                       what="one step from p = [1, -2] with grad [0.5, 1], lr=0.1 and the other defaults",
                       rule=BIAS, rtol=1e-6, moments=MOMENTS)
    grading.expect_equal(state["step"][1:], ("float32", ()), what="(dtype, shape) of state['step']", rule=ADAM_STATE)
    grading.expect_equal([state[key][1:] for key in ("exp_avg", "exp_avg_sq")], [("float64", (2,))] * 2,
                         what="(dtype, shape) of state['exp_avg'] and state['exp_avg_sq'] for a float64 param of "
                              "shape (2,)", rule=ADAM_STATE)
    check_adam_history(eps, [([1.0, -2.016666666667], {"step": 1.0, "exp_avg": [0.0, 0.002],
                                                        "exp_avg_sq": [0.0, 4e-07]})],
                       what="one step with grad [0, 0.02] and eps=0.1", rule=EPS, moments=MOMENTS)
    check_adam_history(bias, [([0.900000002, -2.099999999],
                               {"step": 1.0, "exp_avg": [0.25, 0.5], "exp_avg_sq": [0.05, 0.2]}),
                              ([0.96123724482, -2.199999998],
                               {"step": 2.0, "exp_avg": [-0.375, 0.75], "exp_avg_sq": [0.24, 0.36]}),
                              ([0.972271301548, -2.305242243433],
                               {"step": 3.0, "exp_avg": [-0.0625, 1.375], "exp_avg_sq": [0.2045, 1.088]})],
                       what="grads [0.5, 1], [-1, 1], [0.25, 2] with betas=(0.5, 0.8)", rule=BIAS,
                       moments=MOMENTS)
    check_adam_history(l2, [([0.900000001667, -2.09999999875],
                             {"step": 1.0, "exp_avg": [0.06, 0.08], "exp_avg_sq": [0.00036, 0.00064]}),
                            ([0.80250297032, -2.199965233316],
                             {"step": 2.0, "exp_avg": [0.163000000017, 0.151000000012],
                              "exp_avg_sq": [0.00154774, 0.00126346]})],
                       what="grads [0.5, 1], [1, 1] with weight_decay=0.1", rule=L2)
    check_adam_history(decoupled, [([0.850000002, -1.999999999],
                                    {"step": 1.0, "exp_avg": [0.05, 0.1], "exp_avg_sq": [0.00025, 0.001]}),
                                   ([0.710981800539, -1.99999999805],
                                    {"step": 2.0, "exp_avg": [0.145, 0.19], "exp_avg_sq": [0.00124975, 0.001999]})],
                       what="grads [0.5, 1], [1, 1] with weight_decay=0.5, decoupled_weight_decay=True",
                       rule=DECOUPLED)
    check_adam_history(amsgrad, [([0.9000000005, -2.099999999],
                                  {"step": 1.0, "exp_avg": [1.0, 0.5], "exp_avg_sq": [2.0, 0.5],
                                   "max_exp_avg_sq": [2.0, 0.5]}),
                                 ([0.855092688824, -2.192717263626],
                                  {"step": 2.0, "exp_avg": [0.55, 1.75], "exp_avg_sq": [1.005, 4.75],
                                   "max_exp_avg_sq": [2.0, 4.75]}),
                                 ([0.830524998241, -2.238089574553],
                                  {"step": 3.0, "exp_avg": [0.325, 0.925], "exp_avg_sq": [0.5075, 2.38],
                                   "max_exp_avg_sq": [2.0, 4.75]})],
                       what="grads [2, 1], [0.1, 3], [0.1, 0.1] with betas=(0.5, 0.5), amsgrad=True", rule=AMSGRAD)
    check_adam_history(maximize, [([1.099999998, -2.099999999],
                                   {"step": 1.0, "exp_avg": [-0.05, 0.1], "exp_avg_sq": [0.00025, 0.001]})],
                       what="grad [0.5, -1] with maximize=True", rule=ADAM_MAXIMIZE)
    check_adam_history(maximize_l2, [([1.0999999975, -2.09999999875],
                                      {"step": 1.0, "exp_avg": [-0.04, 0.08], "exp_avg_sq": [0.00016, 0.00064]}),
                                     ([1.195336236438, -2.074859045357],
                                      {"step": 2.0, "exp_avg": [-0.125000000025, -0.048999999987],
                                       "exp_avg_sq": [0.00095194, 0.00210346]})],
                       what="grads [0.5, -1], [1, 1] with maximize=True, weight_decay=0.1",
                       rule=ADAM_MAXIMIZE)
    check_adam_history(single, [([0.900000035763, -2.099999904633],
                                 {"step": 1.0, "exp_avg": [0.25, 0.5], "exp_avg_sq": [0.05, 0.2]}),
                                ([0.961237311363, -2.199999809265],
                                 {"step": 2.0, "exp_avg": [-0.375, 0.75], "exp_avg_sq": [0.24, 0.36]})],
                       what="a float32 param, grads [0.5, 1], [-1, 1], betas=(0.5, 0.8)", rule=ADAM_RULE,
                       rtol=1e-5, atol=1e-6)
    grading.expect_equal([single[0][3][key][1] for key in ("exp_avg", "exp_avg_sq")], ["float32"] * 2,
                         what="the dtype of the moments of a float32 param", rule=ADAM_STATE)
    for run, (label, rows, last) in zip(runs, (
            ("Adam(lr=0.1)", [[0.9, -1.9], [0.800412, -1.800166], [0.701586, -1.700623]],
             {"step": 3.0, "exp_avg": [0.484082460403, -1.02603328228],
              "exp_avg_sq": [0.009791404009, 0.0433559753]}),
            ("Adam(lr=0.1, betas=(0.5, 0.9), weight_decay=0.1, amsgrad=True, decoupled_weight_decay=True)",
             [[0.89, -1.88], [0.782905, -1.762117], [0.679948, -1.646901]],
             {"step": 3.0, "exp_avg": [1.477905511856, -3.202116966248],
              "exp_avg_sq": [0.854332387447, 3.810406446457],
              "max_exp_avg_sq": [0.854332387447, 3.810406446457]}))):
        what = f"3 steps of {label} on (w ** 2).sum() from w = [1, -2] (PyTorch's values)"
        grading.expect_true(isinstance(run, list), what=what, seen=shown(run), rule=ADAM_RULE)
        grading.expect_close([w for w, _ in run], rows, what=f"w after each of {what}", rule=ADAM_RULE,
                             rtol=0, atol=2e-6)
        state = run[-1][1]
        grading.expect_equal({key: value[1:] for key, value in state.items()} if isinstance(state, dict) else state,
                             {key: (("float32", ()) if key == "step" else ("float32", (2,))) for key in last},
                             what=f"(dtype, shape) of each entry of optimizer.state_dict()['state'][0] after {what}",
                             rule=ADAM_STATE)
        for key, values in last.items():
            grading.expect_close(state[key][0], values, what=f"state_dict()['state'][0][{key!r}] after {what}",
                                 rule=ADAM_RULE, rtol=1e-5, atol=1e-7)
