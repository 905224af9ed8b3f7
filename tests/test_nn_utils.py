"""nn.utils (clip_grad_norm_, clip_grad_value_, get_total_norm, parameters_to_vector,
vector_to_parameters), side by side with PyTorch: the norms returned, the gradients
left, dtypes, the error for a non-finite norm, and what is recorded."""

import numpy as np
import pytest

import autograd_lib

from test_nn import oracle


def story(lib):
    """What a training script sees of nn.utils, step by step."""
    U, seen = lib.nn.utils, []
    a = lib.nn.Parameter(lib.tensor([3.0, 4.0]))
    b = lib.nn.Parameter(lib.tensor([12.0]))
    a.grad, b.grad = lib.tensor([3.0, 4.0]), lib.tensor([12.0])
    norm = U.clip_grad_norm_([a, b], 1.0)
    seen += [("norm of two", norm), ("a clipped", a.grad), ("b clipped", b.grad),
             ("norm requires grad", norm.requires_grad)]
    a.grad = lib.tensor([3.0, 4.0])
    seen += [("under max_norm", U.clip_grad_norm_(a, 10.0)), ("a unchanged", a.grad)]
    for order in ("inf", 1, 3.0):
        a.grad = lib.tensor([3.0, -4.0])
        seen += [(f"norm {order}", U.clip_grad_norm_([a], 2.0, norm_type=order)), (f"a {order}", a.grad)]
    a.grad = lib.tensor([3.0, float("nan")])
    try:
        U.clip_grad_norm_([a], 2.0, error_if_nonfinite=True)
        seen.append(("non-finite", "no error"))
    except RuntimeError as error:
        seen.append(("non-finite", str(error)))
    seen += [("nan norm, no error", U.clip_grad_norm_([a], 2.0)), ("no parameters", U.clip_grad_norm_([], 1.0)),
             ("no gradients", U.clip_grad_norm_([lib.nn.Parameter(lib.ones(2))], 1.0)),
             ("total norm", U.get_total_norm([lib.ones(2), lib.full((3,), 2.0)], 1))]
    a.grad = lib.tensor([3.0, -4.0])
    U.clip_grad_value_([a], 3.5)
    seen.append(("clamped", a.grad))
    vector = U.parameters_to_vector([a, b])
    seen += [("vector", vector), ("vector's node", vector.grad_fn.name())]
    U.vector_to_parameters(lib.arange(3.0), [a, b])
    seen += [("a from vector", a), ("b from vector", b)]
    d = lib.nn.Parameter(lib.ones(3, dtype=lib.float64))
    d.grad = lib.full((3,), 2.0, dtype=lib.float64)
    seen += [("float64 norm", U.clip_grad_norm_([d], 0.5)), ("float64 clipped", d.grad)]
    return seen


def test_nn_utils_match_torch():
    torch = oracle()
    for (label, ours), (_, theirs) in zip(story(autograd_lib), story(torch)):
        if hasattr(theirs, "detach"):
            o, t = np.asarray(ours.detach().numpy()), np.asarray(theirs.detach().numpy())
            assert o.dtype == t.dtype and o.shape == t.shape and np.allclose(o, t, rtol=1e-6, equal_nan=True), \
                f"{label}: expected {t!r} ({t.dtype}), saw {o!r} ({o.dtype})"
        else:
            assert ours == theirs, f"{label}: expected {theirs!r}, saw {ours!r}"


def test_vector_to_parameters_wants_a_tensor():
    with pytest.raises(TypeError, match="expected autograd_lib.Tensor, but got: list"):
        autograd_lib.nn.utils.vector_to_parameters([1.0], [autograd_lib.nn.Parameter(autograd_lib.ones(1))])


def test_hook_handle_as_context_manager_and_huber_delta_match_torch():
    torch = oracle()
    for lib in (autograd_lib, torch):
        x = lib.ones(2, requires_grad=True)
        with x.register_hook(lambda g: g * 2):
            (x * 1).sum().backward()
        (x * 1).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0], \
            f"{lib.__name__}: expected the hook to double the first gradient only (3, 3); saw {x.grad.tolist()}"
        for delta in (0.0, -1.0):
            with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for delta"):
                lib.nn.functional.huber_loss(lib.ones(2), lib.zeros(2), delta=delta)
