"""autograd_lib.utils.checkpoint against torch.utils.checkpoint (PyTorch is the oracle when installed):
the reentrant variant (a program run on both), the non-reentrant one and checkpoint_sequential
(differential scenarios), and the library's own properties."""

import warnings

import numpy as np
import pytest

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.utils.checkpoint import CheckpointFunction, checkpoint
from conftest import requires_torch
from differential import caught, registry
from differential import run as run_scenario
from test_oracle import arr

SCENARIOS, scenario = registry()


def oracle():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")
    torch.set_num_threads(1)
    return torch


def run(lib, seed=0):
    """The same program in either library: values, grads, node names, edges, warnings."""
    from_np = (lambda a, rg=False: lib.tensor(a, requires_grad=rg))
    rng = np.random.default_rng(seed)
    x = from_np(rng.standard_normal((2, 3)), True)
    w = from_np(rng.standard_normal(3), True)
    b = from_np(rng.standard_normal(3))
    ckpt = lib.utils.checkpoint.checkpoint
    record = {}

    def block(a, k, c):
        h = (a * w).tanh() * k
        return h.exp(), (h + c).sin()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        o1, o2 = ckpt(block, x, 1.5, b)
    # (messages name the library: "torch.utils..." is "autograd_lib.utils..." here)
    record["warnings"] = [(type(c.message).__name__, str(c.message).replace("torch.", "autograd_lib.")[:60])
                          for c in caught]
    record["names"] = (o1.grad_fn.name(), o1.grad_fn is o2.grad_fn)
    record["edges"] = [(None if n is None else type(n).__name__, nr) for n, nr in o1.grad_fn.next_functions]
    record["values"] = [o.detach().numpy().tolist() for o in (o1, o2)]
    (o1.sum() * 2 + o2.sum()).backward()
    record["grads"] = [x.grad.numpy().tolist(), w.grad.numpy().tolist(), b.grad]
    x.grad = w.grad = None
    o1, o2 = ckpt(block, x, 1.5, b, use_reentrant=True)
    o2.pow(2).sum().backward()                            # one output only
    record["one output"] = x.grad.numpy().tolist()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = ckpt(lambda a: a * w, b, use_reentrant=True)
    record["no input requires grad"] = ([str(c.message) for c in caught], y.requires_grad)
    y = ckpt(lambda a: a.exp(), x, use_reentrant=True)
    loss = y.sum()
    loss.backward()
    try:
        loss.backward()
        record["second backward"] = None
    except RuntimeError as e:
        record["second backward"] = str(e)[:60]
    for how in ("grad", "inputs"):
        y = ckpt(lambda a: a.exp(), x, use_reentrant=True)
        try:
            if how == "grad":
                lib.autograd.grad(y.sum(), x)
            else:
                y.sum().backward(inputs=[x])
            record[how] = None
        except RuntimeError as e:
            record[how] = str(e)
    try:
        ckpt(lambda a: a, x, use_reentrant=True, foo=1)
    except ValueError as e:
        record["kwargs"] = str(e)
    x.grad = None
    idx = lib.tensor([0, 1, 1])
    y = ckpt(lambda a, i: a[i], x, idx, use_reentrant=True)
    record["int arg edges"] = [(None if n is None else type(n).__name__, nr) for n, nr in y.grad_fn.next_functions]
    y.sum().backward()
    record["index grads"] = x.grad.numpy().tolist()
    return record


def test_checkpoint_matches_torch():
    torch = oracle()
    for seed in range(3):
        ours, theirs = run(ag, seed), run(torch, seed)
        assert ours.keys() == theirs.keys(), \
            f"seed {seed}: expected the scenarios {sorted(theirs)}, saw {sorted(ours)}"
        for key in ours:
            if key in ("values", "grads", "one output", "index grads"):
                for mine, torchs in zip(ours[key], theirs[key]):
                    if mine is None or torchs is None:
                        assert mine is None and torchs is None, \
                            f"seed {seed}, {key}: expected {torchs!r} (torch), saw {mine!r}"
                    else:
                        np.testing.assert_allclose(mine, torchs, rtol=1e-6, atol=1e-9,
                                                   err_msg=f"seed {seed}, {key}: ours vs torch")
            else:
                assert ours[key] == theirs[key], \
                    f"seed {seed}, {key}: expected {theirs[key]!r} (torch), saw {ours[key]!r}"


def test_gradients_equal_the_unchecked_ones():
    rng = np.random.default_rng(5)
    x = ag.tensor(rng.standard_normal(6), requires_grad=True)

    def chain(t):
        for _ in range(5):
            t = (-t).exp()
        return t

    chain(x).sum().backward()
    expected = x.grad.numpy().copy()
    x.grad = None
    checkpoint(chain, x, use_reentrant=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12,
                               err_msg="the checkpointed gradient must equal the unchecked one")


def test_random_ops_recompute_the_same_numbers():
    x = ag.ones(50, requires_grad=True)

    def noisy(t):
        return t * (ag.rand(50) > 0.5)

    ag.manual_seed(3)
    y = checkpoint(noisy, x, use_reentrant=True)
    after_forward = ag.rand(1).item()
    ag.manual_seed(3)
    checkpoint(noisy, x, use_reentrant=True).sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy()), \
        f"the recomputation must draw the forward's mask {y.detach().numpy()}, its gradient was {x.grad.numpy()}"
    again = ag.rand(1).item()
    assert again == after_forward, \
        f"backward must leave the caller's generator where it was: expected {after_forward}, drew {again}"
    x.grad = None
    ag.manual_seed(3)
    y = checkpoint(noisy, x, use_reentrant=True, preserve_rng_state=False)
    y.sum().backward()
    assert not np.array_equal(x.grad.numpy(), y.detach().numpy()), \
        "with preserve_rng_state=False the recomputation must draw a new mask, saw the forward's"


def test_warning_without_use_reentrant():
    x = ag.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda a: a * 2, x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward", \
        f"expected grad_fn CheckpointFunctionBackward, saw {y.grad_fn.name()}"


def test_reached_through_the_slots():
    calls = []
    reference = exercises.reference("06.checkpoint_forward")

    def forward(ctx, run_function, preserve_rng_state, *args):
        calls.append("forward")
        return reference(ctx, run_function, preserve_rng_state, *args)

    x = ag.ones(2, requires_grad=True)
    with exercises.plugged("06.checkpoint_forward", forward):
        checkpoint(lambda a: a * 2, x, use_reentrant=True)
    assert calls == ["forward"], f"expected the plugged forward called once, saw calls {calls}"
    assert exercises.SLOTS["06.checkpoint_backward"].get() is CheckpointFunction.__dict__["backward"], \
        "the slot 06.checkpoint_backward must be CheckpointFunction.backward"


def test_saves_only_the_inputs():
    x = ag.ones(3, requires_grad=True)
    y = checkpoint(lambda a: (a * 2).exp().sin(), x, use_reentrant=True)
    saved = y.grad_fn.saved_tensors
    assert len(saved) == 1 and saved[0] is not None, f"expected one saved tensor (the input), saw {saved}"
    edge = y.grad_fn.next_functions[0][0]
    assert edge.name() == "AccumulateGrad", f"expected the input's AccumulateGrad as next function, saw {edge.name()}"


# ====================================================== non-reentrant (use_reentrant=False)

def _ckpt(lib):
    return lib.utils.checkpoint


def _block(lib, w):
    def block(a, k=1.0, *, shift=None):
        h = (a * w).tanh() * k
        h = h.exp() / (1 + h * h)
        return h if shift is None else h + shift
    return block


def _inputs(lib):
    x = lib.tensor(arr((2, 3), seed=1), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(arr((3,), seed=2), dtype=lib.float64, requires_grad=True)
    return x, w


@scenario
def non_reentrant_gradients_and_graph(lib):
    # the function's own graph (no Function node), gradients equal to the unchecked ones,
    # keyword arguments passed on, no warning when nothing requires grad
    x, w = _inputs(lib)
    block = _block(lib, w)
    y = _ckpt(lib).checkpoint(block, x, 1.5, shift=w, use_reentrant=False)
    (y * y).sum().backward()
    grads = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    (block(x, 1.5, shift=w) ** 2).sum().backward()
    quiet = _ckpt(lib).checkpoint(lambda a: a * 2, lib.ones(2), use_reentrant=False)
    return y, grads, x.grad, w.grad, quiet


@scenario
def non_reentrant_grad_inputs_and_retain_graph(lib):
    x, w = _inputs(lib)
    calls = []

    def block(a):
        calls.append("run")
        return (a * w).sin().exp()
    y = _ckpt(lib).checkpoint(block, x, use_reentrant=False)
    gx, = lib.autograd.grad(y.sum(), x, retain_graph=True)          # allowed, unlike reentrant
    y.sum().backward(inputs=[w], retain_graph=True)
    y.sum().backward()                                              # recomputes again
    again = caught(y.sum().backward)
    z = _ckpt(lib).checkpoint(lambda a: (a * w).sin(), x, use_reentrant=False)
    outside = z.grad_fn._saved_self, z.grad_fn._saved_self          # unpacked outside backward
    return gx, w.grad, x.grad, len(calls), again, outside


@scenario
def non_reentrant_second_order_and_nesting(lib):
    x, w = _inputs(lib)
    ck = _ckpt(lib).checkpoint

    def inner(a):
        return (a * w).tanh() ** 2

    def outer(a):
        return ck(inner, a.exp(), use_reentrant=False).sin()
    y = ck(outer, x, use_reentrant=False)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    h, = lib.autograd.grad((g * g).sum(), x)
    return y, g, h


@scenario
def non_reentrant_preserves_the_random_state(lib):
    # the recomputation draws the forward's mask; the caller's generator is left as it was
    # (the numbers are each library's own, so what is compared is whether they agree)
    x = lib.ones(50, requires_grad=True)
    ck = _ckpt(lib).checkpoint

    def noisy(t):
        return t * (lib.rand(50) > 0.5)
    lib.manual_seed(3)
    y = ck(noisy, x, use_reentrant=False)
    after = lib.rand(1).item()
    lib.manual_seed(3)
    ck(noisy, x, use_reentrant=False).sum().backward()
    same_mask = bool((x.grad == y.detach()).all())
    same_after = lib.rand(1).item() == after
    x.grad = None
    lib.manual_seed(3)
    z = ck(noisy, x, use_reentrant=False, preserve_rng_state=False)
    z.sum().backward()
    return same_mask, same_after, bool((x.grad == z.detach()).all())


@scenario
def non_reentrant_errors(lib):
    U = _ckpt(lib)
    x, w = _inputs(lib)
    runs = []

    def changes(a):                       # saves one more tensor when recomputed
        runs.append(1)
        return (a * w).exp() if len(runs) == 1 else (a * w).exp().exp()

    def resized(a):                       # saves a tensor of another shape when recomputed
        runs.append(1)
        return (a * w).exp() if len(runs) % 2 else (a.sum(0) * w).exp()

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            ctx.saved_tensors
            return g * ctx.saved_tensors[0]

    out = []
    for fn in (changes, resized):
        runs.clear()
        y = U.checkpoint(fn, x, use_reentrant=False)
        out.append(caught(y.sum().backward))
    out.append(caught(U.checkpoint(lambda a: Twice.apply(a * 1), x, use_reentrant=False).sum().backward))
    runs.clear()
    y = U.checkpoint(changes, x, use_reentrant=False, determinism_check="none", early_stop=False)
    out.append(caught(y.sum().backward))
    h = x * 1
    y = U.checkpoint(lambda a: (a * w).exp(), h, use_reentrant=False)
    with lib.no_grad():
        h.add_(1)                         # the input changed after the forward pass
    out.append(caught(y.sum().backward))
    out += [caught(U.checkpoint, lambda a: a, x, use_reentrant=False, determinism_check="other"),
            caught(U.checkpoint, lambda a: a, x, use_reentrant=True, context_fn=lambda: (None, None)),
            caught(U.checkpoint, lambda a: a, x, use_reentrant=True, debug=True),
            caught(U.checkpoint, lambda a: a, x, use_reentrant=True, shift=1),
            caught(U.checkpoint, lambda a: a, x, use_reentrant=False, debug=True,
                   context_fn=lambda: U.noop_context_fn())]
    return out


@scenario
def non_reentrant_context_fn_and_no_grad(lib):
    import contextlib
    U = _ckpt(lib)
    x, w = _inputs(lib)
    log = []

    @contextlib.contextmanager
    def noting(what):
        log.append(f"enter {what}")
        yield
        log.append(f"exit {what}")

    @contextlib.contextmanager
    def swallowing():
        try:
            yield
        except ValueError:
            pass

    def fails(a):
        raise ValueError("inside")

    y = U.checkpoint(lambda a: (a * w).exp(), x, use_reentrant=False,
                     context_fn=lambda: (noting("forward"), noting("recompute")))
    log.append("forward done")
    y.sum().backward()
    with lib.no_grad():
        plain = U.checkpoint(lambda a: (a * w).exp(), x, use_reentrant=False,
                             context_fn=lambda: (noting("no_grad forward"), noting("no_grad recompute")))
    with U.set_checkpoint_early_stop(False):
        z = U.checkpoint(lambda a: (a * w).exp().sin(), x, use_reentrant=False)
    z.sum().backward()
    return (log, x.grad, plain, caught(U.checkpoint, fails, x, use_reentrant=False),
            caught(U.checkpoint, fails, x, use_reentrant=False, context_fn=lambda: (swallowing(), swallowing())))


@scenario
def checkpoint_sequential_forms(lib):
    nn, U = lib.nn, _ckpt(lib)
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.tensor(arr(tuple(p.shape), seed=10 + i)))
    x = lib.tensor(arr((5, 3), seed=1), requires_grad=True)
    out = []
    for segments, reentrant in ((2, False), (3, True), (1, False), (5, False)):
        y = U.checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
        (y ** 2).sum().backward()
        out.append((y, x.grad.clone(), model[0].weight.grad.clone()))
        x.grad = None
        model.zero_grad()
    functions = [lambda t: t * 2, lambda t: t.exp(), lambda t: t.sum(1)]
    y = U.checkpoint_sequential(functions, 2, x, use_reentrant=False, preserve_rng_state=False)
    y.sum().backward()
    return (out, y, x.grad, caught(U.checkpoint_sequential, functions, 2, x, use_reentrant=False, other=1))


@scenario
def checkpoint_sequential_warns_without_use_reentrant(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = _ckpt(lib).checkpoint_sequential([lambda t: t * 2, lambda t: t.exp()], 2, x)
    y.sum().backward()
    return y, x.grad


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run_scenario(SCENARIOS, name)


def test_non_reentrant_recomputes_and_frees(monkeypatch):
    """The forward pass of a non-reentrant checkpoint keeps no intermediate tensor: its nodes
    hold empty holders; backward recomputes once per pass, and the recomputed tensors are
    gone from the frame once the pass is over."""
    from autograd_lib.utils import checkpoint as module
    frames = []

    class Recorded(module.Frame):
        def __init__(self, *args):
            super().__init__(*args)
            frames.append(self)
    monkeypatch.setattr(module, "Frame", Recorded)
    x = ag.tensor(np.arange(6.0), requires_grad=True)
    runs = []

    def block(a):
        runs.append(1)
        return (a.exp() * a).sin()
    y = checkpoint(block, x, use_reentrant=False)
    node = y.grad_fn
    holders = [s.packed for s in node._saved.values()]
    assert holders and all(type(h).__name__ == "Holder" for h in holders), \
        f"expected the node to keep holders instead of tensors, saw {holders}"
    frame, = frames
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert len(runs) == 3, f"expected the forward run and one recomputation per backward pass, saw {len(runs)} runs"
    assert not frame.recomputed and not frame.counters, \
        f"the frame must forget each pass at its end, kept {frame.recomputed} and {frame.counters}"
