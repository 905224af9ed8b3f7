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
from test_oracle import Caught, caught, run_scenario

__all__ = ["registry", "run", "caught", "Caught", "is_torch", "sgd_losses"]


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
    """Run scenario ``name`` on torch and on autograd_lib and compare (test_oracle's way)."""
    run_scenario(name, scenarios)


def sgd_losses(lib, model, inputs, targets, steps, **sgd):
    """Train ``model`` with ``lib.optim.SGD(**sgd)`` and cross-entropy for ``steps`` steps on
    one batch: the losses, the parameters after training, and the last loss tensor."""
    optimizer = lib.optim.SGD(model.parameters(), **sgd)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach() for p in model.parameters()], loss
