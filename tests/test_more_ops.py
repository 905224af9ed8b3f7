"""In-place pointwise ops, random fills, ``norm``/``vector_norm``, ``std``/``var``, ``view_as``
(differential, against PyTorch: values, gradients, grad_fn graphs, versions, errors)."""

import math

import numpy as np
import pytest

from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()

INPLACE_UNARY = {"exp_": (), "log_": (), "sqrt_": (), "sin_": (), "cos_": (), "tanh_": (),
                 "sigmoid_": (), "relu_": (), "abs_": (), "neg_": (), "reciprocal_": (),
                 "sign_": (), "square_": (), "pow_": (3,), "negative_": ()}


def _inplace_unary_scenario(name, args):
    def fn(lib):
        x = lib.tensor(arr((2, 3), seed=4, low=0.2, high=2.0), requires_grad=True)
        w = lib.tensor(arr((2, 3), seed=5), requires_grad=True)
        y = x * w                       # a non-leaf: in-place is allowed on it
        out = getattr(y, name)(*args)
        version = y._version
        (out * lib.tensor(arr((2, 3), seed=6))).sum().backward()
        return out is y, version, y, x.grad, w.grad
    fn.__name__ = f"inplace_{name}"
    scenario(fn)


for _name, _args in INPLACE_UNARY.items():
    _inplace_unary_scenario(_name, _args)


@scenario
def inplace_unary_on_a_leaf_is_refused(lib):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    return [caught(getattr(x, name), *args) for name, args in INPLACE_UNARY.items()]


@scenario
def inplace_unary_under_no_grad_and_on_ints(lib):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    with lib.no_grad():
        x.exp_().mul_(2).sigmoid_()
    i = lib.tensor([1, -2])
    return x, x._version, lib.tensor([-2.0, 0.0, 3.0]).sgn_(), i.abs_(), i._version, caught(i.exp_), caught(i.sqrt_), \
        lib.exp_(lib.tensor([0.0, 1.0])), lib.relu_(lib.tensor([-1.0, 2.0])), \
        lib.sigmoid_(lib.tensor([0.0])), lib.tanh_(lib.tensor([0.5]))


@scenario
def inplace_unary_saved_result_is_checked(lib):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()                 # saves its result
    y.exp_()                    # ... which this changes
    return caught(y.sum().backward)


@scenario
def inplace_unary_chain_double_backward(lib):
    x = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
    y = x * 1
    y.sin_().tanh_().pow_(2)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x)
    return y, g.detach(), gg


@scenario
def inplace_on_a_view_of_a_non_leaf(lib):
    x = lib.tensor(arr((2, 3), seed=1), requires_grad=True)
    y = x * 2
    y[0].exp_()
    y[:, 1].relu_()
    y.sum().backward()
    return y, x.grad


@scenario
def random_fills(lib):
    w = lib.nn.Parameter(lib.zeros(1000))
    with lib.no_grad():
        w.uniform_(-0.5, 0.5)
        low, high, version = bool((w >= -0.5).all()), bool((w < 0.5).all()), w._version
        w.normal_(3.0, 0.1)
    spread = abs(float(w.detach().mean()) - 3.0) < 0.05, abs(float(w.detach().std()) - 0.1) < 0.02
    y = lib.ones(3, requires_grad=True) * 2
    y.uniform_(0, 1)
    z = lib.ones(3, requires_grad=True) * 2
    z.normal_()
    return low, high, version, w._version, spread, y.grad_fn, z.grad_fn, \
        lib.autograd.grad((y + z).sum(), y), caught(lib.ones(2, requires_grad=True).uniform_), \
        caught(lib.ones(2).normal_, 0, -1)


@scenario
def random_fills_with_a_generator(lib):
    a = lib.empty(5).uniform_(generator=lib.Generator().manual_seed(7))
    b = lib.empty(5).uniform_(generator=lib.Generator().manual_seed(7))
    c = lib.empty(5).normal_(generator=lib.Generator().manual_seed(8))
    d = lib.empty(5).normal_(generator=lib.Generator().manual_seed(8))
    return lib.equal(a, b), lib.equal(c, d)


@scenario
def view_as_and_reshape_as(lib):
    x = lib.tensor(arr((2, 3), seed=2), requires_grad=True)
    y = x.view_as(lib.zeros(3, 2))
    z = x.t().reshape_as(lib.zeros(6))
    (y.sum() + (z * lib.arange(6.0)).sum()).backward()
    return y, z, x.grad, x.square(), lib.square(x)


NORM_CALLS = {
    "default": lambda lib, x: x.norm(),
    "dim1": lambda lib, x: x.norm(dim=1),
    "p1": lambda lib, x: x.norm(p=1),
    "p2_dim_keepdim": lambda lib, x: x.norm(2, 1, True),
    "fro": lambda lib, x: x.norm(p="fro"),
    "inf": lambda lib, x: x.norm(p=math.inf),
    "neg_inf_dim0": lambda lib, x: x.norm(p=-math.inf, dim=0),
    "p3_dim": lambda lib, x: lib.norm(x, 3, dim=1),
    "p_half": lambda lib, x: x.norm(p=0.5),
    "p1_5": lambda lib, x: x.norm(p=1.5, dim=0, keepdim=True),
    "p0": lambda lib, x: x.norm(p=0),
    "dims_tuple": lambda lib, x: x.norm(dim=(0, 1)),
    "vector_norm": lambda lib, x: lib.linalg.vector_norm(x),
    "vector_norm_ord3": lambda lib, x: lib.linalg.vector_norm(x, ord=3, dim=1),
    "vector_norm_dtype": lambda lib, x: lib.linalg.vector_norm(x, dtype=lib.float64),
    "linalg_norm": lambda lib, x: lib.linalg.norm(x),
    "linalg_norm_dim": lambda lib, x: lib.linalg.norm(x, ord=1, dim=1),
}


def _norm_scenario(name, call):
    def fn(lib):
        x = lib.tensor([[3.0, -4.0, 0.5], [1.0, 2.0, -2.0]], dtype=lib.float64, requires_grad=True)
        y = call(lib, x)
        if name == "p0":                # no gradient at all
            return y, caught(lib.autograd.grad, y, x), lib.autograd.grad(y, x, allow_unused=True)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        return y, g.detach(), gg
    fn.__name__ = f"norm_{name}"
    scenario(fn)


for _name, _call in NORM_CALLS.items():
    _norm_scenario(_name, _call)


@scenario
def norm_at_zero_and_ties(lib):
    x = lib.zeros(3, requires_grad=True)
    x.norm().backward()
    t = lib.tensor([2.0, -2.0, 1.0], requires_grad=True)
    t.norm(p=math.inf).backward()
    return x.grad, t.grad


@scenario
def norm_of_ints_is_refused(lib):
    lib.ones(2, dtype=lib.int64).norm()


SPREAD_CALLS = {
    "std": lambda x: x.std(), "var": lambda x: x.var(), "std_dim0": lambda x: x.std(0),
    "std_unbiased_false": lambda x: x.std(dim=1, unbiased=False),
    "std_correction0_keepdim": lambda x: x.std(dim=1, correction=0, keepdim=True),
    "var_positional": lambda x: x.var(1, True), "var_keepdim": lambda x: x.var(1, False, True),
    "var_correction2": lambda x: x.var(correction=2), "var_bool": lambda x: x.var(False),
    "std_dims": lambda x: x.std(dim=(0, 1)), "var_neg_dim": lambda x: x.var(-1),
    "std_dim_none": lambda x: x.std(dim=None),
}


def _spread_scenario(name, call):
    def fn(lib):
        x = lib.tensor(arr((3, 4), seed=9, dtype=np.float64), requires_grad=True)
        y = call(x)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        return y, g.detach(), gg
    fn.__name__ = f"spread_{name}"
    scenario(fn)


for _name, _call in SPREAD_CALLS.items():
    _spread_scenario(_name, _call)


@scenario
def spread_functions_and_one_dim(lib):
    x = lib.tensor([1.0, 2.0, 4.0], requires_grad=True)
    s, v = lib.std(x), lib.var(x, unbiased=False)
    (s + v).backward()
    return s, v, x.grad


@scenario
def spread_with_too_few_elements(lib):
    x = lib.tensor([1.5], requires_grad=True)
    y = x.std()
    y.backward()
    return y, x.grad, lib.tensor([2.0, 2.0]).var(correction=2)


@scenario
def spread_with_too_few_elements_over_given_dims(lib):
    # Over given dims PyTorch keeps 2 / (N - correction): +-inf (nan at the mean) when N equals
    # the correction, finite and negative below; over everything, inf whatever the sign.
    x = lib.tensor([[0.5, -1.0, 2.0], [1.0, 1.0, 3.0]], dtype=lib.float64, requires_grad=True)
    grads = []
    for call in (lambda: x.var(1, correction=3), lambda: x.var((0, 1), correction=8),
                 lambda: x.std(0, correction=2), lambda: x.var(correction=6), lambda: x.var(correction=9)):
        x.grad = None
        call().sum().backward()
        grads.append(x.grad)
    return grads


@scenario
def spread_nodes_keep_dim_and_correction_as_given(lib):
    x = lib.ones(2, 3, requires_grad=True)
    calls = ({}, {"keepdim": True}, {"unbiased": True}, {"unbiased": False}, {"correction": 0},
             {"dim": 0, "unbiased": False}, {"dim": [1]}, {"dim": (0, 1), "correction": 2})
    return [(node._saved_dim, node._saved_correction, node._saved_keepdim)
            for node in [x.var(**kw).grad_fn for kw in calls] + [x.std(**kw).grad_fn for kw in calls]]


@scenario
def spread_errors(lib):
    return caught(lib.ones(2, dtype=lib.int64).std), caught(lambda: lib.ones(2).var(
        unbiased=True, correction=1))


@scenario
def sort_and_argsort(lib):
    x = lib.tensor([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 5.0]], requires_grad=True)
    v, i = x.sort(dim=1, descending=True)
    w = lib.sort(x, 0)
    (v * lib.arange(4.0)).sum().backward()
    g1 = x.grad.clone()
    (w.values * lib.arange(8.0).reshape(2, 4)).sum().backward()
    return v, i, w, g1, x.grad, x.argsort(), lib.argsort(x, dim=0, descending=True), \
        lib.tensor(2.0, requires_grad=True).sort(), lib.tensor([True, False, True]).sort()


@scenario
def topk_values_indices_and_gradient(lib):
    x = lib.tensor([[3.0, 1.0, 2.0, 5.0], [0.0, -1.0, 4.0, 2.0]], requires_grad=True)
    top = x.topk(2)
    low = lib.topk(x, 3, dim=1, largest=False)
    col = x.topk(1, dim=0)
    (top.values * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    g = x.grad.clone()
    (low.values.sum() + col.values.sum()).backward()
    return (top, low, col, g, x.grad, top.values.grad_fn.name(), x.topk(0).values.shape,
            caught(lambda: x.topk(5)), lib.tensor(2.0, requires_grad=True).topk(1))


@scenario
def gather_picks_along_a_dim_and_adds_back(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    index = lib.tensor([[2, 2], [0, 1]])
    g = x.gather(1, index)                    # index 2 used twice: its gradient adds up
    rows = lib.gather(x, 0, lib.tensor([[1, 0, 1]]))
    (g * lib.tensor([[1.0, 10.0], [100.0, 1000.0]])).sum().backward()
    first = x.grad.clone()
    rows.sum().backward()
    return (g, rows, first, x.grad, g.grad_fn.name(), caught(lambda: x.gather(1, lib.tensor([[3]]))),
            caught(lambda: x.gather(1, lib.tensor([[1.0]]))), caught(lambda: x.gather(1, lib.tensor([1]))),
            x.gather(-1, lib.tensor([[0], [2]])))


@scenario
def post_accumulate_grad_hooks_run_after_grad_is_summed(lib):
    seen = []
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append((t is w, t.grad.clone())))
    (w * 2).sum().backward()
    (w * w).sum().backward()
    handle.remove()
    (w * 4).sum().backward()
    y = w * 2
    return (seen, w.grad, caught(lambda: y.register_post_accumulate_grad_hook(print)),
            caught(lambda: lib.ones(2).register_post_accumulate_grad_hook(print)))


@scenario
def split_and_chunk_are_views_of_one_node(lib):
    x = lib.arange(7.0, requires_grad=True)
    y = x * 1
    pieces = y.split(3)
    sized = lib.split(y, [2, 5])
    chunks = y.chunk(3)
    (pieces[0].sum() + 2 * pieces[2].sum() + (sized[1] * sized[1]).sum()).backward()
    m = lib.arange(12.0).reshape(3, 4)
    return (pieces, sized, chunks, x.grad, [p.grad_fn.name() for p in pieces + sized],
            pieces[0]._base is y, caught(lambda: pieces[0].add_(1)), caught(lambda: sized[1].mul_(2)),
            caught(lambda: y.split([2, 2])), caught(lambda: y.split(0)), m.chunk(4, dim=1), m.split(2, 1),
            lib.chunk(m, 2), caught(lambda: m.chunk(0)))


@scenario
def repeat_tiles_and_adds_the_gradients_back(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.repeat(2, 3)
    z = x.repeat((3, 1, 2))
    (y * lib.arange(24.0).reshape(4, 6)).sum().backward()
    g = x.grad.clone()
    z.sum().backward()
    return (y, z.shape, g, x.grad, y.grad_fn.name(),
            caught(lambda: x.repeat(2)), lib.tensor([1.0, 2.0]).repeat(2))


@scenario
def floor_divide_has_no_derivative(lib):
    x = lib.tensor([3.0, -5.5], requires_grad=True)
    y = x // 2
    i = lib.tensor([7, -7])
    return (y, y.requires_grad, type(y.grad_fn).__name__, caught(lambda: y.sum().backward()), i // 2,
            i // lib.tensor([2, 2]), 7 // lib.tensor([2, -3]), lib.floor_divide(lib.tensor([5.0]), 2.0),
            caught(lambda: i // 0), lib.tensor([1.0, -1.0]) // 0.0, (x * 1).floor_divide(2).grad_fn.next_functions)


@scenario
def grad_checks_its_outputs_before_its_inputs(lib):
    x = lib.tensor([1.0, 2.0])
    w = lib.tensor([1.0], requires_grad=True)
    return (caught(lambda: lib.autograd.grad(x.sum(), x)), caught(lambda: lib.autograd.grad((w * 2).sum(), x)),
            caught(lambda: lib.autograd.grad((w * 2).sum(), [])))


@scenario
def module_forward_hooks(lib):
    lib.manual_seed(0)
    layer = lib.nn.Linear(2, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor([[1.0, 2.0], [0.0, -1.0]]))
        layer.bias.fill_(0.5)
    model = lib.nn.Sequential(layer, lib.nn.ReLU())
    log = []
    h1 = layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    h2 = layer.register_forward_hook(lambda m, args, out: log.append(("first", out.detach().clone())))
    h3 = layer.register_forward_hook(lambda m, args, out: out + 1, prepend=True)
    h4 = model.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] - 1,), kwargs), with_kwargs=True)
    h5 = model.register_forward_hook(lambda m, args, kwargs, out: log.append(("model", len(kwargs))),
                                     with_kwargs=True)
    x = lib.tensor([[1.0, 2.0]], requires_grad=True)
    y = model(x)
    y.sum().backward()
    for h in (h1, h2, h3, h4, h5):
        h.remove()
    return y, log, x.grad, model(lib.tensor([[1.0, 2.0]])), len(log)


@scenario
def cumsum_and_logsumexp(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
    c = x.cumsum(1)
    l = x.logsumexp(1)
    l2 = lib.logsumexp(x, dim=(0, 1), keepdim=True)
    (c * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    g = x.grad.clone()
    (l.sum() + l2.sum()).backward()
    gg, = lib.autograd.grad((x.cumsum(0) ** 2).sum(), x, create_graph=True)
    z = lib.tensor([-math.inf, -math.inf], requires_grad=True)
    lz = z.logsumexp(0)
    lz.backward()
    i = lib.tensor([1, 2, 3])
    # (the second-order graph is built from other nodes than PyTorch's: compare values)
    return (c, l, l2, g, x.grad, c.grad_fn.name(), l.grad_fn.name(), gg.detach(), lib.autograd.grad(gg.sum(), x),
            lz, z.grad, i.cumsum(0), lib.tensor([True, True]).cumsum(0), lib.tensor([1, 2]).logsumexp(0),
            x.cumsum(1, dtype=lib.float64).dtype, lib.cumsum(lib.tensor(2.0), 0))


@scenario
def masked_fill_in_place(lib):
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    v = lib.tensor(5.0, requires_grad=True)
    y = x * 1
    y.masked_fill_(y < 0, 0.0)
    z = x * 1
    z.masked_fill_(lib.tensor([True, False, True]), v)
    (y.sum() + (z * 2).sum()).backward()
    return (y, z, x.grad, v.grad, y.grad_fn.name(), z.grad_fn.name(), y._version,
            caught(lambda: x.masked_fill_(x > 0, 1.0)))


@scenario
def advanced_index_out_of_bounds_says_dimension(lib):
    x = lib.zeros(2, 3)
    def write():
        x[lib.tensor([0, 5])] = 1.0
    return (caught(lambda: x[lib.tensor([5])]), caught(lambda: x[lib.tensor([0]), lib.tensor([7])]),
            caught(write), x._version)


@scenario
def saved_operands_and_parameters_as_pytorch_shows_them(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    c = lib.tensor([3.0, 4.0])
    a, b, q, d, e, f = x * 3, x * 2.5, x / 4, x + 1, x ** 3, x ** 2.0
    g = lib.add(c, x, alpha=2)                    # alpha is kept whichever input needs a gradient
    h = lib.sub(x, c, alpha=3)
    return (a.grad_fn._saved_other, b.grad_fn._saved_other, q.grad_fn._saved_other,
            caught(lambda: d.grad_fn._saved_other), e.grad_fn._saved_exponent, f.grad_fn._saved_exponent,
            d.grad_fn._saved_alpha, g.grad_fn._saved_alpha, h.grad_fn._saved_alpha,
            (x * True).grad_fn._saved_other)


@scenario
def rounding(lib):
    x = lib.tensor([0.5, 1.5, -2.5, 2.7, -0.2], requires_grad=True)
    outs = [x.round(), x.floor(), x.ceil(), x.trunc(), x.round(decimals=1), lib.round(x * 10)]
    lib.stack(outs).sum().backward()
    y = x.detach().clone()
    return outs, x.grad, y.floor_(), y.round_(), lib.tensor([1, 2]).round()


@scenario
def index_select_and_index_add(lib):
    x = lib.tensor(arr((3, 2), seed=3), requires_grad=True)
    s = lib.tensor(arr((4, 2), seed=4), requires_grad=True)
    i = lib.tensor([0, 2, 0, 1])
    y = x.index_add(0, i, s, alpha=2)
    z = x.index_select(1, lib.tensor([1, 1, 0]))
    (y * lib.arange(6.0).reshape(3, 2)).sum().backward()
    (z * z).sum().backward()
    base = lib.zeros(3, 2)
    base.index_add_(0, i, s.detach())
    h = x * 1
    h.index_add_(1, lib.tensor([0]), s[:3, :1])
    return y, z, x.grad, s.grad, base, h, caught(x.index_add, 0, lib.tensor([0.5]), s[:1]), \
        caught(x.index_select, 0, lib.tensor([1.0]))


@scenario
def index_select_double_backward(lib):
    x = lib.tensor(arr((3, 2), seed=5, dtype=np.float64), requires_grad=True)
    y = x.index_select(0, lib.tensor([2, 2, 0]))
    g, = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x)
    return g, gg


@scenario
def function_node_repr(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return repr(Twice.apply(lib.ones(1, requires_grad=True)).grad_fn).split(" object at")[0]


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
