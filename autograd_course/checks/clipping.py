"""Visible checks of assignment 09, gradient clipping: ``clip_grad_norm``.

The checks of 09's two test cells on ``clip_grad_norm``, their helpers and their rules'
texts; ``autograd_course.checks.training``, the notebook's module, shows them too
(``check.clip_grad_norm`` in the notebook is this module's), so a student still reads
09's checks from one name.  They live apart to keep 09's module under 800 lines.
"""

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import library_version, outcome, quietly

__all__ = [
    # the checks, one per test cell
    "clip_grad_norm", "clip_grad_norm_in_training",
    # helpers of the checks and the hidden tests
    "make_params", "clip_outcome", "check_clip", "compare_clips", "random_clip_case", "clip_run",
    "check_runs", "exploding_run",
    # the rules
    "TOTAL", "INF_NORM", "SCALE", "NOT_UP", "NONFINITE", "SCALED_ANYWAY", "SKIP_NO_GRAD", "NO_GRADS",
    "CLIP_IN_PLACE", "RECORDS", "CLIP_RETURNS", "CLIP_RULE",
]

CLIP = grading.rules("09.clip_grad_norm")
TOTAL = CLIP("total")
INF_NORM = CLIP("inf-norm")
SCALE = CLIP("scale")
NOT_UP = CLIP("not-up")
NONFINITE = CLIP("nonfinite")
SCALED_ANYWAY = CLIP("scaled-anyway")
SKIP_NO_GRAD = CLIP("skip")
NO_GRADS = CLIP("no-grads")
CLIP_IN_PLACE = CLIP("in-place")
RECORDS = CLIP("records")
CLIP_RETURNS = CLIP("returns")
CLIP_RULE = CLIP("total", "scale")

_MESSAGE = ("RuntimeError: The total norm of order {} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`")


# ------------------------------------------------------------------ helpers

def make_params(specs):
    """One leaf that requires grad per ``(values, dtype name, kind)``: kind ``"none"``
    gives it no ``.grad``, ``"plain"`` a ``.grad`` holding ``values``, ``"leaf"`` such a
    ``.grad`` that requires grad, ``"graph"`` the ``.grad`` of ``backward(create_graph=True)``
    (equal to ``values``, with a ``grad_fn``)."""
    params = []
    for values, dtype, kind in specs:
        dtype = getattr(ag, dtype)
        p = ag.tensor(values, dtype=dtype, requires_grad=True)
        if kind in ("plain", "leaf"):
            p.grad = ag.tensor(values, dtype=dtype, requires_grad=kind == "leaf")
        elif kind == "graph":
            quietly(lambda: ((p * p).sum() / 2).backward(create_graph=True))
        params.append(p)
    return params


def clip_outcome(fn, params, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """What ``fn(params, max_norm, norm_type, error_if_nonfinite)`` does: ``(result, grads)``.
    ``result`` is the error text, or ``(values, dtype, shape, requires_grad, has a grad_fn)``
    of the returned norm; for each parameter, ``grads`` has None or ``(values, dtype, same
    tensor as before, same grad_fn as before)`` of its ``.grad``."""
    before = [(p._grad, None if p._grad is None else p._grad.grad_fn) for p in params]
    result = outcome(fn, params, max_norm, norm_type, error_if_nonfinite)
    if isinstance(result, ag.Tensor):
        result = (result._data.copy(), str(result.dtype), tuple(result.shape), result.requires_grad,
                  result.grad_fn is not None)
    grads = []
    for p, (g, node) in zip(params, before):
        now = p._grad
        grads.append(None if now is None else (now._data.copy(), str(now.dtype), now is g, now.grad_fn is node))
    return result, grads


def _flat(*tensors):
    """The values of tensors joined in one float array (None if one is None)."""
    if any(t is None for t in tensors):
        return None
    return np.concatenate([np.ravel(t._data if isinstance(t, ag.Tensor) else t).astype(float) for t in tensors])


def check_runs(seen, expected, what, float32=False):
    """Compare :func:`clip_run` results: (norms, losses), or an error's text."""
    if isinstance(seen, str) or isinstance(expected, str):
        grading.expect_equal(seen, expected, what=what, rule=CLIP_RULE)
        return
    grading.expect_close(np.array(seen[0] + seen[1]), np.array(expected[0] + expected[1]), what=what,
                         rule=CLIP_RULE, rtol=1e-3 if float32 else 1e-8, atol=0)


def _tolerance(dtype):
    return 1e-5 if "float32" in str(dtype) else 1e-10


def check_clip(seen, expected, what, norm_type=2.0):
    """Compare two :func:`clip_outcome` results, rule by rule."""
    (result, grads), (want, want_grads) = seen, expected
    if isinstance(want, str) or isinstance(result, str):
        grading.expect_equal(result if isinstance(result, str) else "the total norm, no error",
                             want if isinstance(want, str) else "the total norm, no error", what=what,
                             rule=NONFINITE if isinstance(want, str) or "non-finite" in result else
                             RECORDS if "in-place" in result else SKIP_NO_GRAD if "NoneType" in result else CLIP_RULE)
        if isinstance(want, str):
            for i, (g, w) in enumerate(zip(grads, want_grads)):
                if g is not None or w is not None:
                    grading.expect_close(None if g is None else g[0], None if w is None else w[0], rtol=0, atol=0,
                                         what=f"gradient {i} after {what}", rule=NONFINITE)
            return
    grading.expect_true(isinstance(result, tuple), what=f"the result of {what}",
                        seen=f"{result!r} (of type {type(result).__name__})", rule=CLIP_RETURNS)
    values, dtype, shape, requires_grad, has_node = result
    grading.expect_equal((dtype, shape), want[1:3], what=f"(dtype, shape) of the total norm returned by {what}",
                         rule=CLIP_RETURNS)
    grading.expect_equal((requires_grad, has_node), (False, False),
                         what=f"(requires_grad, has a grad_fn) of the total norm returned by {what}", rule=RECORDS)
    infinite = str(norm_type) == "inf" or norm_type == float("inf")
    grading.expect_close(values, want[0], rtol=_tolerance(want[1]), atol=0, what=f"the total norm returned by {what}",
                         rule=INF_NORM if infinite else TOTAL)
    total = float(want[0])
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        name = f"gradient {i} after {what}"
        grading.expect_equal(g is None, w is None, what=f"{name} is None", rule=SKIP_NO_GRAD)
        if w is None:
            continue
        grading.expect_equal((g[1], g[2]), (w[1], True), what=f"(dtype, same tensor as before) of {name}",
                             rule=CLIP_IN_PLACE)
        grading.expect_equal(g[3], True, what=f"{name} keeps its grad_fn", rule=RECORDS)
        unscaled = w[0] is not None and np.array_equal(w[0], _unscaled(w))
        grading.expect_close(g[0], w[0], rtol=_tolerance(w[1]), atol=0, what=name,
                             rule=SCALED_ANYWAY if not np.isfinite(total) else NOT_UP if unscaled else SCALE)


def _unscaled(w):
    return w[4] if len(w) > 4 else None


def _expected(specs, max_norm, norm_type, error_if_nonfinite):
    """The library's own clip of ``make_params(specs)``, with each gradient's values before
    clipping appended."""
    with library_version("09"):
        params = make_params(specs)
        before = [None if p._grad is None else p._grad._data.copy() for p in params]
        result, grads = clip_outcome(ag.nn.utils.clip_grad_norm_, params, max_norm, norm_type, error_if_nonfinite)
    return result, [None if g is None else g + (b,) for g, b in zip(grads, before)]


def compare_clips(fn, cases):
    """Run ``fn`` and the library's version on each ``(specs, max_norm, norm_type,
    error_if_nonfinite, label)`` (fresh parameters each time) and compare them."""
    expected = [_expected(specs, *args) for specs, *args, _ in cases]
    with grading.checking("09.clip_grad_norm", fn):
        seen = [clip_outcome(fn, make_params(specs), *args) for specs, *args, _ in cases]
    for (specs, max_norm, norm_type, error_if_nonfinite, label), s, e in zip(cases, seen, expected):
        check_clip(s, e, what=f"clip_grad_norm({label}, max_norm={max_norm:.4g}, norm_type={norm_type!r}, "
                              f"error_if_nonfinite={error_if_nonfinite})", norm_type=norm_type)


def _p_norm(values, p):
    a = np.abs(np.ravel(values))
    return a.max(initial=0.0) if p == float("inf") else (a ** p).sum() ** (1 / p)


def random_clip_case(rng):
    """A random ``(specs, max_norm, norm_type, error_if_nonfinite, label)``: 1 to 5
    parameters of random shapes and dtypes, gradients of every kind (some None, some
    with a graph), values from 1e-5 to 100, sometimes a nan or an infinity, and a
    max_norm below or above the total."""
    norm_type = [2.0, 2, 1, 3.0, 1.5, "inf", float("inf")][int(rng.integers(7))]
    scale = 10.0 ** rng.uniform(-5, 2)
    specs = []
    for _ in range(int(rng.integers(1, 6))):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(0, 3))))
        values = np.array(rng.standard_normal(shape) * scale * 10.0 ** rng.uniform(-1, 1))
        kind = ["none", "plain", "plain", "plain", "graph", "leaf"][int(rng.integers(6))]
        specs.append((values, ["float32", "float64"][int(rng.integers(2))], kind))
    with_grad = [values for values, _, kind in specs if kind != "none"]
    if with_grad and rng.integers(5) == 0:
        values = with_grad[int(rng.integers(len(with_grad)))]
        values.flat[int(rng.integers(np.size(values)))] = [np.nan, np.inf, -np.inf][int(rng.integers(3))]
    p = float(norm_type)
    total = _p_norm([_p_norm(v, p) for v in with_grad], p) if all(np.isfinite(v).all() for v in with_grad) else 0.0
    max_norm = float(total * [0.05, 0.3, 0.9, 1.5, 4.0][int(rng.integers(5))]) if total > 0 else \
        float(10.0 ** rng.uniform(-2, 1))
    label = "[" + ", ".join(f"{'no .grad' if kind == 'none' else 'a ' + kind + ' .grad'} {np.shape(v)} {d}"
                            for v, d, kind in specs) + "]"
    return specs, max_norm, norm_type, bool(rng.integers(2)), label


def clip_run(seed, steps=8, max_norm=1.0, norm_type=2.0, dtype="float64", as_generator=True, lr=0.5):
    """A small tanh network whose weights start 3 times too large, trained with SGD and
    ``nn.utils.clip_grad_norm_`` before each step: the norms returned and the losses."""
    rng = np.random.default_rng(seed)
    dtype = getattr(ag, dtype)
    _ = ag.manual_seed(seed % 2**31)
    model = ag.nn.Sequential(ag.nn.Linear(3, 5, dtype=dtype), ag.nn.Tanh(), ag.nn.Linear(5, 1, dtype=dtype))
    with ag.no_grad():
        for p in model.parameters():
            p.mul_(3.0)
    X = ag.tensor(rng.standard_normal((16, 3)), dtype=dtype)
    y = ag.tensor(rng.standard_normal((16, 1)) * 4, dtype=dtype)
    optimizer = ag.optim.SGD(model.parameters(), lr=lr)
    norms, losses = [], []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        params = model.parameters() if as_generator else list(model.parameters())
        norm = ag.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        optimizer.step()
        norms.append(norm.item() if isinstance(norm, ag.Tensor) else norm)
        losses.append(loss.item())
    return norms, losses


def exploding_run(clip, steps=30, depth=5, lr=0.02):
    """The notebook's deep linear network (weights 2.5 times too large) trained with SGD, with
    ``nn.utils.clip_grad_norm_(model.parameters(), clip)`` before each step (no clipping for
    None); the losses, up to the first one above 1e10."""
    rng = np.random.default_rng(0)
    X = ag.tensor(rng.standard_normal((64, 4)))
    y = ag.tensor(X.numpy() @ rng.standard_normal((4, 1)))
    _ = ag.manual_seed(0)
    layers = [ag.nn.Linear(4, 4, bias=False, dtype=ag.float64) for _ in range(depth - 1)]
    model = ag.nn.Sequential(*layers, ag.nn.Linear(4, 1, bias=False, dtype=ag.float64))
    with ag.no_grad():
        for p in model.parameters():
            p.mul_(2.5)
    optimizer = ag.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        if clip is not None:
            ag.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        losses.append(loss.item())
        if not loss.item() < 1e10:
            break
    return losses


# ------------------------------------------------------------------ the checks

def clip_grad_norm(fn):
    """Your ``clip_grad_norm`` called on small sets of gradients with hand-computed results:
    ``[3, 4]`` and ``[12]`` (float64) clipped to 1 (total 13), the same under a large
    max_norm, the norm types 2, 1, 3, inf and ``"inf"``, a parameter without ``.grad``,
    no gradient at all, gradients of a few millionths (where the ``1e-6`` counts), nan and
    inf with and without ``error_if_nonfinite``, and gradients with a graph or that
    require grad (nothing may be recorded)."""
    def grads(*values, dtype="float32", kind="plain"):
        return make_params([(np.asarray(v, dtype=float), dtype, kind) for v in values])

    with grading.checking("09.clip_grad_norm", fn):
        a, b = make_params([(np.array([3.0, 4.0]), "float32", "plain"), (np.array([12.0]), "float64", "plain")])
        ga, gb = a.grad, b.grad
        norm = fn([a, b], 1.0, 2.0, False)
        grading.expect_true(isinstance(norm, ag.Tensor) and norm.dim() == 0 and norm.dtype == ag.float64,
                            what="the result of clip_grad_norm([a, b], 1.0, 2.0, False), a.grad = [3, 4] float32, "
                                 "b.grad = [12] float64", seen=repr(norm), rule=CLIP_RETURNS)
        grading.expect_close(norm, 13.0, what="the total norm of a.grad = [3, 4] and b.grad = [12]", rule=TOTAL,
                             rtol=1e-12)
        grading.expect_true(a.grad is ga and b.grad is gb, what="a.grad and b.grad are the same tensors as before",
                            seen="a new tensor", rule=CLIP_IN_PLACE)
        grading.expect_close(_flat(a.grad, b.grad), [3 / 13.000001, 4 / 13.000001, 12 / 13.000001],
                             what="(a.grad, b.grad) after clipping to max_norm=1", rule=SCALE, rtol=1e-6, atol=0)
        grading.expect_equal((str(a.grad.dtype), str(b.grad.dtype)), ("autograd_lib.float32", "autograd_lib.float64"),
                             what="the dtypes of (a.grad, b.grad) after clipping", rule=CLIP_IN_PLACE)

        a, = grads([3.0, 4.0])
        grading.expect_close(fn([a], 10.0, 2.0, False), 5.0, what="the result with a.grad = [3, 4], max_norm=10",
                             rule=CLIP_RETURNS)
        grading.expect_close(a.grad, [3.0, 4.0], what="a.grad = [3, 4] after clipping to max_norm=10", rule=NOT_UP,
                             rtol=0, atol=0)

        totals = {2.0: 34 ** 0.5, 1: 12.0, 3: 108 ** (1 / 3), float("inf"): 4.0, "inf": 4.0}
        for norm_type, total in totals.items():
            a, c, b = make_params([(np.array([3.0, -4.0]), "float64", "plain"), (np.ones(2), "float64", "none"),
                                   (np.array([-1.0, 2.0, 2.0]), "float64", "plain")])
            what = f"clip_grad_norm([a, c, b], 2.0, {norm_type!r}, False), a.grad = [3, -4], no c.grad, " \
                   "b.grad = [-1, 2, 2]"
            norm = outcome(fn, [a, c, b], 2.0, norm_type, False)
            grading.expect_close(norm, total, what=f"the total norm of {what}", rtol=1e-12,
                                 rule=INF_NORM if total == 4.0 else TOTAL)
            grading.expect_equal(c.grad, None, what=f"c.grad after {what}", rule=SKIP_NO_GRAD)
            grading.expect_close(b.grad, [-2 / (total + 1e-6), 4 / (total + 1e-6), 4 / (total + 1e-6)],
                                 what=f"b.grad after {what}", rule=SCALE, rtol=1e-12, atol=0)

        for params, what in (([], "[]"), (make_params([(np.ones(2), "float64", "none")]), "[a tensor without .grad]")):
            norm = outcome(fn, params, 1.0, 2.0, False)
            grading.expect_equal((repr(norm), str(getattr(norm, "dtype", None))), ("tensor(0.)", "autograd_lib.float32"),
                                 what=f"(result, its dtype) of clip_grad_norm({what}, 1.0, 2.0, False)", rule=NO_GRADS)

        a, = grads([3e-6, 4e-6], dtype="float64")
        fn([a], 1e-6, 2.0, False)
        grading.expect_close(a.grad, [5e-7, 2e-6 / 3], what="a.grad = [3e-6, 4e-6] (total 5e-6) after clipping to "
                             "max_norm=1e-6", rule=SCALE, rtol=1e-9, atol=0)

        for bad, order, norm_type in ((np.nan, "2.0", 2), (np.inf, "inf", "inf")):
            a, b = grads([3.0, bad], [1.0])
            grading.expect_equal(outcome(fn, [a, b], 1.0, norm_type, True), _MESSAGE.format(order),
                                 what=f"clip_grad_norm([a, b], 1.0, {norm_type!r}, True), a.grad = [3, {bad}]",
                                 rule=NONFINITE)
            grading.expect_close(_flat(a.grad, b.grad), [3.0, bad, 1.0], what="(a.grad, b.grad) after that error",
                                 rule=NONFINITE, rtol=0, atol=0)
            outcome(fn, [a, b], 1.0, norm_type, False)
            grading.expect_close(_flat(a.grad, b.grad), [np.nan] * 3 if np.isnan(bad) else [0.0, np.nan, 0.0],
                                 what=f"(a.grad, b.grad) after clip_grad_norm([a, b], 1.0, "
                                 f"{norm_type!r}, False), a.grad = [3, {bad}], b.grad = [1]", rule=SCALED_ANYWAY)

        for kind in ("graph", "leaf"):
            a, b = grads([3.0, 4.0], [12.0], kind=kind)
            what = f"clip_grad_norm([a, b], 1.0, 2.0, False) where each .grad {'has a graph' if kind == 'graph' else 'requires grad'}"
            node = a.grad.grad_fn
            norm = outcome(fn, [a, b], 1.0, 2.0, False)
            grading.expect_true(isinstance(norm, ag.Tensor) and not norm.requires_grad and norm.grad_fn is None,
                                what=f"the result of {what} does not require grad", seen=repr(norm), rule=RECORDS)
            grading.expect_true(a.grad.grad_fn is node, what=f"a.grad keeps its grad_fn after {what}",
                                seen=type(a.grad.grad_fn).__name__, rule=RECORDS)
            grading.expect_close(a.grad, [3 / 13.000001, 4 / 13.000001], what=f"a.grad after {what}", rule=SCALE,
                                 rtol=1e-6, atol=0)


def clip_grad_norm_in_training(fn):
    """Your ``clip_grad_norm`` behind ``nn.utils.clip_grad_norm_``: called with
    ``model.parameters()`` (a generator), a list and a single tensor, then in training runs
    of SGD on small networks whose weights start too large (the norms returned and the
    losses, against the library's version), and on the notebook's exploding deep network,
    whose loss must stay finite and fall."""
    with grading.checking("09.clip_grad_norm", fn):
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        w.grad = ag.tensor([6.0, 8.0])
        norm = outcome(ag.nn.utils.clip_grad_norm_, w, 5.0)
        grading.expect_true(isinstance(norm, ag.Tensor), what="the result of nn.utils.clip_grad_norm_(w, 5.0), "
                            "w.grad = [6, 8]", seen=repr(norm), rule=CLIP_RETURNS)
        grading.expect_close(_flat(norm, w.grad), [10.0, 3 / 1.0000001, 4 / 1.0000001], rtol=1e-6,
                             what="(result, w.grad) of nn.utils.clip_grad_norm_(w, 5.0), w.grad = [6, 8]",
                             rule=CLIP_RULE)
        lin = ag.nn.Linear(2, 1, dtype=ag.float64)
        lin.weight.grad = ag.tensor([[0.0, 3.0]], dtype=ag.float64)
        lin.bias.grad = ag.tensor([-4.0], dtype=ag.float64)
        norm = outcome(ag.nn.utils.clip_grad_norm_, lin.parameters(), 1.0, norm_type="inf")
        what = ("nn.utils.clip_grad_norm_(lin.parameters(), 1.0, norm_type='inf'), weight.grad = [[0, 3]], "
                "bias.grad = [-4]")
        grading.expect_true(isinstance(norm, ag.Tensor), what=f"the result of {what}", seen=repr(norm),
                            rule=CLIP_RETURNS)
        grading.expect_close(norm, 4.0, what=f"the result of {what}", rtol=1e-9, rule=INF_NORM)
        grading.expect_close(_flat(lin.weight.grad, lin.bias.grad), [0.0, 0.75 / 1.00000025, -1 / 1.00000025],
                             what=f"(weight.grad, bias.grad) after {what}", rtol=1e-9, rule=SCALE)
        runs = [dict(seed=1, max_norm=1.0), dict(seed=2, max_norm=0.5, norm_type=1, as_generator=False),
                dict(seed=3, max_norm=2.0, norm_type="inf", dtype="float32")]
        seen = [outcome(clip_run, **run) for run in runs]
        exploding = outcome(exploding_run, 1.0)
    with library_version("09"):
        expected = [clip_run(**run) for run in runs]
    for run, s, e in zip(runs, seen, expected):
        check_runs(s, e, what=f"(norms returned, losses) of 8 SGD steps with clip_grad_norm_, {run}",
                   float32=run.get("dtype") == "float32")
    grading.expect_true(isinstance(exploding, list) and len(exploding) == 30 and exploding[-1] < exploding[0] / 5,
                        what="30 steps of the notebook's exploding network with clip_grad_norm_(..., 1.0): every loss "
                             "finite and the last one 5 times lower than the first",
                        seen=str(exploding)[:300], rule=CLIP_RULE)
