"""LeakyReLU, ELU, GELU, SiLU, Softplus, Dropout and ModuleDict, side by side with PyTorch.

For each activation: values, first, second and third derivatives (so the gradient's own
graph is differentiable, as PyTorch's is), the nodes recorded at each order, float32 and
float64, at points that test the branches (0, the softplus threshold, large inputs).
Dropout's randomness is autograd_lib's own, so it is checked by its rules (zeros and
scaled values, the share kept, the graph, eval mode) rather than value by value.
"""

import numpy as np
import pytest

import autograd_lib as al
from autograd_lib import nn
from autograd_lib.nn import functional as F

from test_nn import graph, oracle, values

POINTS = [-40.0, -3.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.0, 3.0, 40.0]

CASES = [
    ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {}),
    ("elu", {"alpha": 0.5}),
    ("gelu", {}),
    ("gelu", {"approximate": "tanh"}),
    ("silu", {}),
    ("softplus", {}),
    ("softplus", {"beta": 2.0, "threshold": 3.0}),
]


def derivatives(lib, name, options, dtype):
    """The values and the first three derivatives (summed outputs) at POINTS, and the
    names of the nodes recorded at each order."""
    x = lib.tensor(POINTS, dtype=getattr(lib, dtype), requires_grad=True)
    y = getattr(lib.nn.functional, name)(x, **options)
    out, nodes = [y], [graph(y.grad_fn)]
    for _ in range(3):
        if not out[-1].requires_grad:            # a constant derivative (leaky_relu's second)
            out.append(None)
            nodes.append(None)
            continue
        g, = lib.autograd.grad(out[-1].sum(), x, create_graph=True)
        out.append(g)
        nodes.append(g.grad_fn.name() if g.grad_fn is not None else None)
    return [None if t is None else values(t) for t in out], nodes


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, options", CASES)
def test_activation_matches_torch(name, options, dtype):
    torch = oracle()
    (got, got_nodes), (want, want_nodes) = (derivatives(lib, name, options, dtype) for lib in (al, torch))
    rtol, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-10, 1e-12)
    for order, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            assert g is None and w is None, f"{name}{options} order {order}: expected {w}, saw {g}"
            continue
        if order == 3:       # PyTorch's third derivative of the tanh form overflows to nan at +-40
            g, w = g[1:-1], w[1:-1]
        assert g.dtype == w.dtype, f"{name}{options} order {order}: expected dtype {w.dtype}, saw {g.dtype}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol,
                                   err_msg=f"{name}{options} {dtype}, derivative of order {order}")
    assert got_nodes[:3] == want_nodes[:3], \
        f"{name}{options}: expected the graphs {want_nodes[:3]} (value, 1st, 2nd derivative); saw {got_nodes[:3]}"


def test_module_reprs_match_torch():
    torch = oracle()
    def build(lib):
        return [lib.nn.LeakyReLU(0.2), lib.nn.ELU(), lib.nn.GELU(), lib.nn.GELU("tanh"), lib.nn.SiLU(),
                lib.nn.Softplus(2, 10), lib.nn.Dropout(0.3), lib.nn.Dropout(),
                lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.GELU(), lib.nn.Dropout(0.1))]
    for ours, theirs in zip(build(al), build(torch)):
        assert repr(ours) == repr(theirs), f"expected {theirs!r}, saw {ours!r}"


def test_bad_options_raise_as_torch_does():
    torch = oracle()
    for lib in (al, torch):
        with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
            lib.nn.functional.gelu(lib.ones(2), approximate="fast")
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            lib.nn.Dropout(1.5)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
            lib.nn.functional.dropout(lib.ones(2), -0.1)
    with pytest.raises(NotImplementedError, match=r"leaky_relu\(..., inplace=True\) is not implemented"):
        nn.LeakyReLU(inplace=True)(al.ones(2))


def test_dropout_zeroes_and_scales_in_training_only():
    al.manual_seed(0)
    x = al.rand(200, 50, dtype=al.float64) + 0.5
    x.requires_grad_()
    layer = nn.Dropout(0.3)
    y = layer(x)
    kept = values(y) != 0
    assert 0.67 < kept.mean() < 0.73, f"expected about 70% of the elements kept (p=0.3); saw {kept.mean():.3f}"
    np.testing.assert_allclose(values(y)[kept], values(x)[kept] / 0.7, rtol=1e-12,
                               err_msg="expected the kept elements scaled by 1 / (1 - p)")
    assert graph(y.grad_fn) == ("MulBackward0", (("AccumulateGrad", ()), None)), \
        f"expected PyTorch's graph on a CPU, input * noise; saw {graph(y.grad_fn)}"
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), kept / 0.7, rtol=1e-12,
                               err_msg="expected the gradient to be the noise: 1 / (1 - p) where kept, 0 elsewhere")
    layer.eval()
    assert layer(x) is x, "expected eval() mode to return the input itself"
    assert F.dropout(x, 0.0) is x, "expected p=0 to return the input itself"
    zeros = F.dropout(x, 1.0)
    assert not values(zeros).any() and zeros.grad_fn.name() == "MulBackward0", \
        "expected p=1 to give zeros, through input * noise"


def test_dropout_reproducible_with_manual_seed_and_in_place():
    al.manual_seed(3)
    a = F.dropout(al.ones(100), 0.5)
    al.manual_seed(3)
    b = al.ones(100)
    version = b._version
    out = F.dropout(b, 0.5, inplace=True)
    assert out is b and b._version == version + 1, "expected inplace=True to write into the input"
    assert al.equal(a, b), "expected the same mask after the same manual_seed"


def test_module_dict_matches_torch():
    torch = oracle()
    def story(lib):
        seen = []
        d = lib.nn.ModuleDict({"b": lib.nn.ReLU(), "a": lib.nn.Linear(2, 1)})
        seen.append((list(d), len(d), "a" in d, [n for n, _ in d.named_parameters()]))
        seen.append(repr(d.pop("b")))
        d["c"] = lib.nn.Sigmoid()
        d.update([("z", lib.nn.Tanh())])
        del d["c"]
        seen.append((list(d.keys()), [type(m).__name__ for m in d.values()], repr(d)))
        for bad in (lambda: d["nope"], lambda: d.__setitem__("x", 3), lambda: d.update(3),
                    lambda: d.update([("a",)]), lambda: lib.nn.ModuleDict({"a.b": lib.nn.ReLU()})):
            try:
                bad()
                seen.append("no error")
            except Exception as error:
                seen.append((type(error).__name__, str(error)))
        d.clear()
        seen.append((len(d), repr(d)))
        return seen
    ours, theirs = story(al), story(torch)
    assert ours == theirs, f"expected {theirs}\nsaw {ours}"
