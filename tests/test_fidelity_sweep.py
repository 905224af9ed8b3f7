"""Differences from PyTorch found by the fidelity sweep of PyTorch-style scripts
(tests/scripts/), each fixed and kept here as a differential scenario: torch and
autograd_lib run the same code side by side and must agree."""

import pytest

from conftest import requires_torch
from differential import registry, run

SCENARIOS, scenario = registry()


def _keyword_function(lib, setup_context):
    """A Function whose forward takes ``y`` and ``scale`` by keyword, in either style."""
    def backward(ctx, grad):
        ctx.log.append(tuple(ctx.needs_input_grad))
        return grad * 3, grad * 4, None

    if setup_context:
        def forward(x, y=None, scale=2.0):
            return x * y * scale

        def setup(ctx, inputs, output):
            ctx.log = [len(inputs)]
        body = {"forward": staticmethod(forward), "setup_context": staticmethod(setup)}
    else:
        def forward(ctx, x, y=None, scale=2.0):
            ctx.log = []
            return x * y * scale
        body = {"forward": staticmethod(forward)}
    body["backward"] = staticmethod(backward)
    return type("Keyword", (lib.autograd.Function,), body)


@scenario
def function_apply_tensor_by_keyword(lib):
    """A tensor passed to ``apply`` by keyword is an input like a positional one: it has
    an edge, a needs_input_grad entry, and receives its gradient (torch 2.13)."""
    results = []
    for setup_context in (False, True):
        fn = _keyword_function(lib, setup_context)
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([0.5, -1.0], requires_grad=True)
        out = fn.apply(a, y=b)
        out.sum().backward()
        results += [out, a.grad, b.grad, out.grad_fn.log]
        only_b = fn.apply(a.detach(), y=b)
        results += [only_b, only_b.requires_grad]
    return results


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
