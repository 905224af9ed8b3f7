"""Views, in-place writes and what backward runs, against PyTorch (issue 17).

The same differential style as ``test_oracle.py``: each scenario is a function of
``lib`` (``autograd_lib`` or ``torch``), run on both, and everything it returns is
compared by ``test_oracle.compare`` (values, dtypes, ``requires_grad``, ``is_leaf``,
``grad_fn`` names and the whole graph below them); an error must be raised by both,
with the same class and key sentence.  The property test at the end builds random
chains of views and in-place writes and runs them on both libraries.
"""

import numpy as np
import pytest

import autograd_lib
from conftest import requires_torch
from test_oracle import caught, check_scenario

SCENARIOS = {}


def scenario(fn=None, *, key=None):
    """Register ``fn`` as a scenario (``key``: the part of an error message both must share)."""
    def register(fn):
        assert fn.__name__ not in SCENARIOS, fn.__name__
        SCENARIOS[fn.__name__] = (fn, key)
        return fn
    return register(fn) if fn is not None else register


# ======================================================================
# Error texts
# ======================================================================

@scenario
def numpy_of_requires_grad_inside_no_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        array = x.numpy()
    return array.tolist(), caught(x.numpy)


@scenario
def backward_of_an_integer_tensor(lib):
    lib.tensor([1, 2]).sum().backward()


@scenario
def backward_of_an_integer_scalar(lib):
    lib.tensor(3).backward()


@scenario
def backward_of_a_float_tensor_without_grad(lib):
    return caught(lib.tensor(3.0).backward), caught(lib.ones(2).backward)


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    fn, key = SCENARIOS[name]
    check_scenario(fn, key=key)
