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


# ======================================================================
# Indexing one element is a 0-d view
# ======================================================================

@scenario
def one_element_of_a_vector_is_a_view(lib):
    x = lib.tensor([1.0, 2.0, 3.0])
    e = x[1]
    e.add_(10)
    return x, e, x._version, e._version, e._is_view(), e._base is x


@scenario
def one_element_of_a_matrix_is_a_view(lib):
    m = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    m[0, 1].mul_(5)
    m[1][0].sub_(1)
    i = lib.tensor([[1, 2], [3, 4]])
    i[1, 1].zero_()
    return m, m._version, i, i._version


@scenario
def one_element_written_in_place_records_copy_slices(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    e = h[1]
    e.mul_(3)
    (h * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    return h, e, x.grad, h._version


@scenario
def elements_of_unbind_and_iteration_are_views(lib):
    x = lib.tensor([1.0, 2.0, 3.0])
    a, b, c = x.unbind()
    b.add_(1)
    for e in x:
        e.mul_(2)
    return x, x._version, a, b._is_view()


@scenario
def one_element_of_a_leaf_is_refused_as_a_view(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return caught(lambda: x[0].add_(1)), caught(lambda: x.view(3, 1)[1, 0].mul_(2)), x._version


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    fn, key = SCENARIOS[name]
    check_scenario(fn, key=key)
