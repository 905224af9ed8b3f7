"""Differential scenarios for the test modules beside ``test_oracle.py``.

The same idea and the same comparison as ``test_oracle.py`` (whose ``compare``
this module uses): a scenario is a function of ``lib`` (``torch`` or
``autograd_lib``) that returns what both must agree on, or raises an error
both must raise (same class, same key sentence).  Each test module keeps its
own registry::

    SCENARIOS, scenario = registry()

    @scenario
    def device_repr(lib):
        return repr(lib.device("cpu"))

    @pytest.mark.parametrize("name", list(SCENARIOS))
    def test_same_as_torch(name):
        run(SCENARIOS, name)
"""

import autograd_lib
from conftest import capture
from test_oracle import Caught, caught, compare, _compare_errors, _compare_warnings

try:
    import torch
except ImportError:                     # pragma: no cover
    torch = None

__all__ = ["registry", "run", "caught", "Caught", "is_torch"]


def is_torch(lib):
    return lib is not autograd_lib


def registry():
    """A new ``(SCENARIOS, scenario)`` pair: the dict and its registering decorator."""
    scenarios = {}

    def scenario(fn=None, *, key=None, rtol=None, atol=None):
        def register(fn):
            assert fn.__name__ not in scenarios, fn.__name__
            scenarios[fn.__name__] = (fn, {"key": key, "rtol": rtol, "atol": atol})
            return fn
        return register(fn) if fn is not None else register
    return scenarios, scenario


def run(scenarios, name):
    """Run scenario ``name`` on torch and on autograd_lib and compare (as test_oracle does)."""
    fn, opts = scenarios[name]
    expected, expected_error, expected_warnings = capture(fn, torch)
    seen, seen_error, seen_warnings = capture(fn, autograd_lib)
    if expected_error is not None:
        _compare_errors(expected_error, seen_error, opts["key"])
    elif seen_error is not None:
        raise AssertionError(f"torch ran the scenario, autograd_lib raised "
                             f"{type(seen_error).__name__}: {seen_error}") from seen_error
    _compare_warnings(expected_warnings, seen_warnings)
    if expected_error is None:
        compare(expected, seen, rtol=opts["rtol"], atol=opts["atol"])
