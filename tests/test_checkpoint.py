"""autograd_lib.utils.checkpoint against torch.utils.checkpoint (PyTorch is the oracle when installed)."""

import warnings

import numpy as np
import pytest

import autograd_lib as ag
from autograd_lib import exercises
from autograd_lib.utils.checkpoint import CheckpointFunction, checkpoint


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
    record["warnings"] = [(type(c.message).__name__, str(c.message)[:60]) for c in caught]
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


def test_warning_without_use_reentrant_and_non_reentrant_refused():
    x = ag.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda a: a * 2, x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward", \
        f"expected grad_fn CheckpointFunctionBackward, saw {y.grad_fn.name()}"
    with pytest.raises(NotImplementedError, match="use_reentrant=False"):
        checkpoint(lambda a: a * 2, x, use_reentrant=False)


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
