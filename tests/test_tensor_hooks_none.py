"""A tensor hook of an output that received no gradient, side by side with PyTorch: it runs,
given None, and cannot put a tensor in its place (PyTorch's PyFunctionTensorPreHook)."""

import pytest

import autograd_lib as ag

torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")


def _calls(lib, replace_with=None):
    """Hooks on both outputs of one unbind node, only the first used: what each hook
    received, w.grad, the retained grad of the unused output, or the error."""
    seen = []
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    p, q = w.unbind()
    q.retain_grad()
    q.register_hook(lambda g: (seen.append(("q", g if g is None else g.tolist())),
                               None if replace_with is None else lib.tensor(replace_with))[1])
    p.register_hook(lambda g: seen.append(("p", g.tolist())))
    try:
        (p * 3).backward()
    except RuntimeError as error:
        return seen, f"RuntimeError: {error}"
    return seen, w.grad.tolist(), q.grad


@pytest.mark.parametrize("replace_with", [None, 5.0])
def test_hooks_of_an_output_without_gradient_get_none(replace_with):
    ours, theirs = _calls(ag, replace_with), _calls(torch, replace_with)
    assert ours == theirs, f"expected PyTorch's {theirs}, seen {ours}"
    assert ("q", None) in ours[0], f"expected q's hook called with None, seen {ours[0]}"


def _retained_then_detached(lib):
    """A retained non-leaf, detach_()ed after it was used: its old node still hands it its
    gradient (PyTorch's retain_grad hook sits on the node, and holds the tensor)."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = (y * 2).sum()
    y.detach_()
    z.backward()
    return y.retains_grad, y._grad.tolist() if lib is ag else y.grad.tolist(), x.grad.tolist()


def test_a_retained_tensor_detached_in_place_still_gets_its_gradient():
    ours, theirs = _retained_then_detached(ag), _retained_then_detached(torch)
    assert ours == theirs, f"expected PyTorch's (retains_grad, y.grad, x.grad) {theirs}, saw {ours}"
