"""nn.utils.clip_grad_norm_ and its slot (exercise 09.clip_grad_norm), side by side with
PyTorch on random sets of parameters: the total norm (its value and dtype), the gradients
left, the error for a non-finite norm, what is recorded, the tensors kept, and the
warning for an empty generator."""

import warnings

import numpy as np
import pytest

import autograd_lib
from autograd_lib import exercises

from test_nn import oracle


@pytest.fixture(autouse=True)
def _restore():
    yield
    exercises.unplug_all()


def random_case(rng):
    """(specs, max_norm, norm_type, error_if_nonfinite): specs are (values or None, dtype name)."""
    specs = []
    for _ in range(int(rng.integers(0, 5))):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(0, 3))))
        values = None if rng.integers(4) == 0 else np.array(rng.standard_normal(shape) * 10.0 ** rng.uniform(-4, 2))
        if values is not None and rng.integers(12) == 0:
            values.flat[0] = [np.nan, np.inf, -np.inf][int(rng.integers(3))]
        specs.append((values, shape, ["float32", "float64"][int(rng.integers(2))]))
    norm_type = [2.0, 2, 1, 3.0, 1.5, "inf", float("inf")][int(rng.integers(7))]
    return specs, float(10.0 ** rng.uniform(-3, 1)), norm_type, bool(rng.integers(2))


def clip(lib, specs, max_norm, norm_type, error_if_nonfinite, with_graph=False):
    """What clip_grad_norm_ does in ``lib``: (total or error text, total's dtype, grads, same tensors, recorded)."""
    params, kept = [], []
    for values, shape, dtype in specs:
        p = lib.zeros(shape, dtype=getattr(lib, dtype)).requires_grad_()
        if values is not None:
            g = lib.tensor(values, dtype=getattr(lib, dtype))
            p.grad = g * 1.0 if not with_graph else (g.requires_grad_() * 1.0)
        params.append(p)
        kept.append(p.grad)
    nodes = [None if g is None else g.grad_fn for g in kept]
    try:
        total = lib.nn.utils.clip_grad_norm_((p for p in params), max_norm, norm_type, error_if_nonfinite)
    except RuntimeError as error:
        return str(error), None, [None if g is None else g.detach().numpy().copy() for g in kept], None, None
    grads = [None if p.grad is None else p.grad.detach().numpy().copy() for p in params]
    same = all(p.grad is g for p, g in zip(params, kept))
    recorded = (total.requires_grad, total.grad_fn is not None,
                any(g is not None and g.grad_fn is not node for g, node in zip(kept, nodes)))
    return total.detach().numpy().copy(), str(total.dtype).split(".")[-1], grads, same, recorded


def assert_same(ours, theirs, what):
    for part, o, t in zip(("total", "dtype", "grads", "same tensors", "recorded"), ours, theirs):
        if isinstance(t, list):
            assert [x is None for x in o] == [x is None for x in t], f"{what}: {part}"
            for x, y in zip(o, t):
                if y is not None:
                    assert x.dtype == y.dtype and np.allclose(x, y, rtol=1e-6, atol=0, equal_nan=True), \
                        f"{what}: {part}: expected {y}, saw {x}"
        elif isinstance(t, np.ndarray):
            assert np.allclose(o, t, rtol=1e-6, atol=0, equal_nan=True), f"{what}: {part}: expected {t}, saw {o}"
        else:
            assert o == t, f"{what}: {part}: expected {t!r}, saw {o!r}"


@pytest.mark.parametrize("with_graph", [False, True])
def test_clip_grad_norm_matches_torch_on_random_parameters(with_graph):
    torch = oracle()
    for i, rng in enumerate(np.random.default_rng(np.random.SeedSequence(913 + with_graph)).spawn(150)):
        case = random_case(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")           # torch's empty generator warning: see below
            assert_same(clip(autograd_lib, *case, with_graph=with_graph), clip(torch, *case, with_graph=with_graph),
                        what=f"case {i}: {case}")


def test_an_empty_generator_warns_as_in_torch():
    torch = oracle()
    for lib in (autograd_lib, torch):
        with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
            total = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        assert total.item() == 0.0 and str(total.dtype).endswith("float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        autograd_lib.nn.utils.clip_grad_norm_([], 1.0)          # a list, even empty, does not warn


def test_clip_grad_norm_hands_a_list_to_its_slot():
    seen = []

    def spy(parameters, max_norm, norm_type, error_if_nonfinite):
        seen.append((type(parameters).__name__, len(parameters), max_norm, norm_type, error_if_nonfinite))
        return "the slot's result"

    p = autograd_lib.ones(2, requires_grad=True)
    with exercises.plugged("09.clip_grad_norm", spy):
        results = [autograd_lib.nn.utils.clip_grad_norm_(p, 1.0),
                   autograd_lib.nn.utils.clip_grad_norm_((q for q in [p, p]), 2.0, "inf", True),
                   autograd_lib.nn.utils.clip_grad_norm_([p], 3.0, norm_type=1, error_if_nonfinite=False)]
    assert results == ["the slot's result"] * 3
    assert seen == [("list", 1, 1.0, 2.0, False), ("list", 2, 2.0, "inf", True), ("list", 1, 3.0, 1, False)]
