"""Structure, product and repeat ops (``ops/structure.py``, ``ops/products.py``), differential
against PyTorch: values, dtypes, node names, gradients, double backward, errors."""

import pytest

from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()


def _grads(lib, fn, *shapes, seed=0, low=None, high=None, values=None):
    """Run ``fn`` on float64 leaves of ``shapes``; return the result, the first gradients
    (through a random weighting) and the gradients of their weighted sum (double backward)."""
    xs = [lib.tensor(values[i] if values else arr(s, seed=seed + i, dtype="float64", low=low, high=high),
                     dtype=lib.float64, requires_grad=True) for i, s in enumerate(shapes)]
    y = fn(*xs)
    w = lib.tensor(arr(tuple(y.shape), seed=50, dtype="float64"), dtype=lib.float64)
    gs = lib.autograd.grad((y * w).sum(), xs, create_graph=True, allow_unused=True)
    used = [(x, g) for x, g in zip(xs, gs) if g is not None and g.requires_grad]
    second = []
    if used:
        total = sum((g * lib.tensor(arr(tuple(g.shape), seed=60 + i, dtype="float64"),
                                    dtype=lib.float64)).sum() for i, (_, g) in enumerate(used))
        second = lib.autograd.grad(total, xs, allow_unused=True)
    return y, [g if g is None else g.detach() for g in gs], list(second)


CASES = {
    "flip": (lambda x: x.flip(0, -1), (3, 4)),
    "flip_list": (lambda x: x.flip([1]), (2, 3, 4)),
    "fliplr": (lambda x: x.fliplr(), (3, 4)),
    "flipud": (lambda x: x.flipud(), (3, 4)),
    "roll": (lambda x: x.roll(1), (3, 4)),
    "roll_dims": (lambda x: x.roll((1, -2), (0, -1)), (3, 4)),
    "roll_dim": (lambda x: x.roll(-5, 1), (3, 4)),
    "rot90": (lambda x: x.rot90(), (3, 4)),
    "rot90_k2": (lambda x: x.rot90(2, (1, 0)), (3, 4)),
    "rot90_k3": (lambda x: x.rot90(-1, (-1, 0)), (2, 3, 4)),
    "tril": (lambda x: x.tril(), (3, 4)),
    "triu_diag": (lambda x: x.triu(1), (2, 3, 4)),
    "tril_neg": (lambda x: x.tril(-1), (4, 3)),
    "diagonal": (lambda x: x.diagonal(), (3, 4)),
    "diagonal_offset": (lambda x: x.diagonal(1, -1, 0), (3, 4)),
    "diagonal_3d": (lambda x: x.diagonal(-1, 0, 2), (3, 2, 4)),
    "diag_vector": (lambda x: x.diag(), (3,)),
    "diag_vector_offset": (lambda x: x.diag(-2), (3,)),
    "diag_matrix": (lambda x: x.diag(1), (3, 4)),
    "diag_embed": (lambda x: x.diag_embed(), (2, 3)),
    "diag_embed_dims": (lambda x: x.diag_embed(1, 0, 2), (2, 3)),
    "trace": (lambda x: x.trace(), (3, 4)),
    "prod": (lambda x: x.prod(), (3, 4)),
    "prod_dim": (lambda x: x.prod(1), (3, 4)),
    "prod_keepdim": (lambda x: x.prod(-2, keepdim=True), (3, 4)),
    "cumprod": (lambda x: x.cumprod(1), (3, 4)),
    "cumprod_neg": (lambda x: x.cumprod(-2), (3, 4)),
    "tile": (lambda x: x.tile(2), (3, 4)),
    "tile_more": (lambda x: x.tile((2, 1, 2)), (3, 4)),
    "repeat_interleave": (lambda x: x.repeat_interleave(2), (3, 4)),
    "repeat_interleave_dim": (lambda x: x.repeat_interleave(3, dim=-1), (3, 4)),
    "repeat_interleave_dim0": (lambda x: x.repeat_interleave(2, dim=0, output_size=6), (3, 4)),
    "movedim": (lambda x: x.movedim(0, -1), (2, 3, 4)),
    "moveaxis": (lambda x: x.moveaxis((0, 1), (2, 0)), (2, 3, 4)),
    "swapaxes": (lambda x: x.swapaxes(0, -1), (2, 3, 4)),
    "swapdims": (lambda x: x.swapdims(1, 2), (2, 3, 4)),
    "unflatten": (lambda x: x.unflatten(-1, (2, -1)), (3, 4)),
}


def _unary_scenario(name, fn, shape):
    def run_it(lib):
        return _grads(lib, fn, shape)
    run_it.__name__ = name
    scenario(run_it)


for _name, (_fn, _shape) in CASES.items():
    _unary_scenario(_name, _fn, _shape)


ZEROS = {"none": [[1.5, 2.0, -0.5], [3.0, 0.5, 2.0]],
         "one": [[1.5, 0.0, -0.5], [3.0, 0.5, 2.0]],
         "two": [[0.0, 0.0, -0.5], [3.0, 0.5, 0.0]],
         "three": [[0.0, 0.0, 0.0], [0.0, 0.5, 0.0]]}


def _zeros_scenario(kind, values):
    for op, fn in (("prod", lambda x: x.prod()), ("prod_dim1", lambda x: x.prod(1)),
                   ("prod_dim0", lambda x: x.prod(0, True)), ("cumprod", lambda x: x.cumprod(1)),
                   ("cumprod0", lambda x: x.cumprod(0))):
        def run_it(lib, fn=fn):
            return _grads(lib, fn, (2, 3), values=[values])
        run_it.__name__ = f"{op}_zeros_{kind}"
        scenario(run_it)


for _kind, _values in ZEROS.items():
    _zeros_scenario(_kind, _values)


@scenario
def functions_and_dtypes(lib):
    x = lib.tensor([[1, 2, 3], [4, 5, 6]])
    b = lib.tensor([[True, False], [True, True]])
    return (lib.flip(x, [0]), lib.fliplr(x), lib.flipud(x), lib.roll(x, 1, 0), lib.rot90(x, 1, [0, 1]),
            lib.tril(x), lib.triu(x, -1), lib.diagonal(x), lib.diag(x), lib.diag(lib.tensor([1, 2])),
            lib.diag_embed(x), lib.trace(x), lib.prod(x), lib.prod(x, 1), lib.prod(b), lib.cumprod(x, 0),
            lib.cumprod(b, 1), lib.prod(x, 0, dtype=lib.float64), lib.tile(x, (2,)), lib.repeat_interleave(x, 2),
            lib.repeat_interleave(lib.tensor([1, 0, 2])), lib.movedim(x, 0, 1), lib.moveaxis(x, 1, 0),
            lib.swapaxes(x, 0, 1), lib.swapdims(x, 0, 1), lib.unflatten(x, 1, (3, 1)),
            lib.tensor(2.0).prod(), lib.tensor(2.0).prod(0), lib.tensor(3.0).cumprod(0),
            caught(lib.tensor(2.0).flip, 0), lib.tensor(2.0).flip([]), lib.tensor(2.0).roll(1),
            lib.tensor(2.0).tile(2), lib.tensor(2.0).repeat_interleave(2), lib.tensor(5.0).take(lib.tensor([0, 0])),
            caught(lib.tensor(2.0).diag_embed), lib.tensor([[2.0]]).trace(), lib.tensor(1.0).count_nonzero(),
            lib.tensor(1.0).nonzero(), lib.tensor(0.0).nonzero(as_tuple=True), lib.tensor(1.5).kthvalue(1),
            lib.tensor(1.5).mode(), lib.tensor(1.5).nansum(), lib.zeros(0, 3).prod(1), lib.zeros(2, 0).cumprod(1))


@scenario
def views_and_copies(lib):
    x = lib.tensor(arr((3, 4)), requires_grad=True)
    y = x * 1
    return [(t._base is y, t.is_contiguous() if t._base is None else None) for t in (
        y.flip(0), y.roll(1), y.tril(), y.diagonal(), y.diag(), y.movedim(0, 1), y.swapaxes(0, 1),
        y.swapdims(0, 1), y.unflatten(1, (2, 2)), y.tile(2), y.repeat_interleave(2))]


@scenario
def diagonal_is_a_writable_view(lib):
    x = lib.tensor(arr((3, 4)), requires_grad=True)
    y = x * 2
    d = y.diagonal(1)
    d.mul_(3)
    y.sum().backward()
    return y, d, x.grad, d._version


@scenario
def tril_triu_in_place(lib):
    x = lib.tensor(arr((3, 4)), requires_grad=True)
    y = x * 1
    z = x * 1
    y.tril_(1)
    z.triu_(-1)
    (y * 2 + z).sum().backward()
    return y, z, x.grad, caught(x.tril_)


@scenario
def products(lib):
    fns = {
        "outer": (lambda a, b: lib.outer(a, b), (3,), (4,)),
        "ger": (lambda a, b: a.ger(b), (3,), (4,)),
        "inner_1d": (lambda a, b: lib.inner(a, b), (4,), (4,)),
        "inner_2d": (lambda a, b: a.inner(b), (3, 4), (2, 4)),
        "inner_3d": (lambda a, b: lib.inner(a, b), (2, 3, 4), (4,)),
        "inner_scalar": (lambda a, b: lib.inner(a, b), (), (2, 3)),
        "addmv": (lambda i, m, v: lib.addmv(i, m, v), (3,), (3, 4), (4,)),
        "addmv_scaled": (lambda i, m, v: i.addmv(m, v, beta=0.5, alpha=2), (1,), (3, 4), (4,)),
        "addr": (lambda i, a, b: lib.addr(i, a, b, beta=2, alpha=-1), (3, 4), (3,), (4,)),
        "baddbmm": (lambda i, a, b: lib.baddbmm(i, a, b), (2, 3, 5), (2, 3, 4), (2, 4, 5)),
        "baddbmm_scaled": (lambda i, a, b: i.baddbmm(a, b, beta=0.5, alpha=3), (3, 5), (2, 3, 4), (2, 4, 5)),
        "addbmm": (lambda i, a, b: lib.addbmm(i, a, b), (3, 5), (2, 3, 4), (2, 4, 5)),
        "addbmm_scaled": (lambda i, a, b: i.addbmm(a, b, beta=2, alpha=0.5), (5,), (2, 3, 4), (2, 4, 5)),
    }
    return {name: _grads(lib, fn, *shapes) for name, (fn, *shapes) in fns.items()}


@scenario
def products_in_place_and_beta_zero(lib):
    m = lib.tensor(arr((3, 4)), requires_grad=True)
    v = lib.tensor(arr((4,), seed=1), requires_grad=True)
    i = lib.tensor([float("nan")] * 3)
    y = lib.tensor(arr((3,), seed=2)) * 1
    y.addmv_(m, v, alpha=2)
    y.sum().backward()
    return y, m.grad, v.grad, lib.addmv(i, m, v, beta=0)


@scenario
def repeat_interleave_with_counts(lib):
    x = lib.tensor(arr((3, 2)), requires_grad=True)
    y = x.repeat_interleave(lib.tensor([1, 0, 2]), dim=0)
    z = lib.repeat_interleave(x, lib.tensor([2, 1]), dim=1)
    w = x.repeat_interleave(lib.tensor(2))
    (y.sum() + (z * z).sum() + w.sum()).backward()
    return y, z, w, x.grad


@scenario
def structure_errors(lib):
    x = lib.tensor(arr((3, 4)))
    v = lib.tensor(arr((3,)))
    return [caught(f) for f in (
        lambda: x.flip(2), lambda: x.flip(0, 0), lambda: v.fliplr(), lambda: lib.tensor(1.0).flipud(),
        lambda: x.roll(1, 5), lambda: x.roll((1, 2), 0), lambda: x.rot90(1, (0,)), lambda: x.rot90(1, (0, 0)),
        lambda: v.rot90(), lambda: v.tril(), lambda: v.triu(), lambda: x.diagonal(0, 0, 0),
        lambda: x.diagonal(0, 0, 5), lambda: v.trace(), lambda: x.prod(2), lambda: x.cumprod(-3),
        lambda: lib.outer(x, v), lambda: lib.inner(x, v), lambda: lib.addmv(v, x, v),
        lambda: lib.diag(lib.zeros(2, 2, 2)), lambda: x.repeat_interleave(-1),
        lambda: x.repeat_interleave(lib.tensor([1, 2]), dim=0), lambda: x.movedim(0, 2))]


@scenario
def picking_by_index(lib):
    i = lib.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
    fns = {
        "masked_select": (lambda x: x.masked_select(x > 0), (3, 4)),
        "masked_select_broadcast": (lambda x: lib.masked_select(x, lib.tensor([True, False, True, True])), (3, 4)),
        "take": (lambda x: x.take(lib.tensor([[0, 5], [-1, 5]])), (3, 4)),
        "take_along_dim": (lambda x: lib.take_along_dim(x, i, 0), (3, 4)),
        "take_along_dim_broadcast": (lambda x: x.take_along_dim(lib.tensor([[1], [0], [3]]), -1), (3, 4)),
        "take_along_dim_flat": (lambda x: x.take_along_dim(lib.tensor([1, 2, 11])), (3, 4)),
        "index_fill": (lambda x: x.index_fill(1, lib.tensor([0, 2]), 1.5), (3, 4)),
        "index_fill_neg": (lambda x: lib.index_fill(x, -2, lib.tensor([1]), -1), (3, 4)),
        "scatter_value": (lambda x: x.scatter(0, i, 2.0), (3, 4)),
        "diff": (lambda x: x.diff(), (3, 4)),
        "diff_n": (lambda x: lib.diff(x, 2, 0), (4, 3)),
    }
    return {name: _grads(lib, fn, shape) for name, (fn, shape) in fns.items()}


@scenario
def placing_by_index(lib):
    i = lib.tensor([[0, 1, 2, 0], [2, 0, 1, 1]])
    fns = {
        "index_copy": (lambda x, s: x.index_copy(0, lib.tensor([2, 0]), s), (3, 4), (2, 4)),
        "index_copy_dim": (lambda x, s: lib.index_copy(x, -1, lib.tensor([3, 1]), s), (3, 4), (3, 2)),
        "index_fill_tensor": (lambda x, v: x.index_fill(0, lib.tensor([1]), v), (3, 4), ()),
        "scatter": (lambda x, s: x.scatter(1, lib.tensor([[0, 1], [2, 3], [1, 0]]), s), (3, 4), (3, 2)),
        "scatter_fn": (lambda x, s: lib.scatter(x, 0, i[:, :3], s), (3, 4), (2, 3)),
        "scatter_add": (lambda x, s: x.scatter_add(0, i, s), (3, 4), (2, 4)),
        "scatter_add_fn": (lambda x, s: lib.scatter_add(x, -1, i, s), (2, 4), (2, 4)),
        "diff_prepend": (lambda x, p: x.diff(dim=1, prepend=p), (3, 4), (3, 2)),
        "diff_append": (lambda x, p: lib.diff(x, 1, 0, append=p), (3, 4), (1, 4)),
    }
    return {name: _grads(lib, fn, *shapes) for name, (fn, *shapes) in fns.items()}


@scenario
def placing_in_place(lib):
    x = lib.tensor(arr((3, 4)), requires_grad=True)
    s = lib.tensor(arr((2, 4), seed=1), requires_grad=True)
    i = lib.tensor([[0, 1, 2, 0], [2, 0, 1, 1]])
    a, b, c, d, e = (x * 1 for _ in range(5))
    a.index_fill_(1, lib.tensor([1, 3]), 0.5)
    b.index_copy_(0, lib.tensor([1, 2]), s)
    c.scatter_(0, i, s)
    d.scatter_add_(0, i, s)
    e.scatter_(1, lib.tensor([[3], [2], [0]]), -2.0)
    (a + 2 * b + 3 * c + 4 * d + 5 * e).sum().backward()
    return a, b, c, d, e, x.grad, s.grad, caught(x.scatter_, 0, i, s)


@scenario
def finding_and_splitting(lib):
    x = lib.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    z = lib.tensor(arr((4, 6, 2)), requires_grad=True)
    pieces = {"tensor_split": z.tensor_split(3, 1), "tensor_split_idx": lib.tensor_split(z, [1, 5], -2),
              "tensor_split_t": z.tensor_split(lib.tensor([2, 3])), "tensor_split_uneven": z.tensor_split(4, 1),
              "hsplit": z.hsplit(2), "hsplit_idx": lib.hsplit(z, [1, 4]), "vsplit": z.vsplit(2),
              "dsplit": lib.dsplit(z, 2)}
    total = sum((p * (k + 1)).sum() for ps in pieces.values() for k, p in enumerate(ps))
    total.backward()
    return (x.nonzero(), lib.nonzero(x, as_tuple=True), lib.argwhere(x), x.count_nonzero(),
            lib.count_nonzero(x, 0), x.count_nonzero((0, 1)), lib.tensor([3, 0, 2]).nonzero(),
            lib.tensor([True, False]).diff(), lib.tensor([1, 4, 9]).diff(), pieces, z.grad,
            lib.hsplit(lib.arange(6.0), 3))


@scenario
def picking_errors(lib):
    x = lib.tensor(arr((3, 4)))
    i = lib.tensor([[0, 1, 2, 0]])
    return [caught(f) for f in (
        lambda: x.masked_select(x), lambda: x.take(lib.tensor([12])), lambda: x.take(lib.tensor([1.0])),
        lambda: x.take_along_dim(i, 2), lambda: x.index_fill(2, lib.tensor([0]), 1.0),
        lambda: x.index_fill(0, lib.tensor([0.0]), 1.0), lambda: x.scatter(0, lib.tensor([[3]]), 1.0),
        lambda: x.scatter(3, i, 1.0), lambda: x.scatter_add(0, lib.tensor([0]), x),
        lambda: x.index_copy(0, lib.tensor([0]), lib.zeros(1, 4, dtype=lib.float64)),
        lambda: x.hsplit(3), lambda: x.dsplit(2), lambda: lib.arange(3.0).vsplit(1),
        lambda: x.tensor_split(0), lambda: lib.tensor(1.0).diff(), lambda: x.diff(dim=2),
        lambda: x.index_copy(0, lib.tensor([0.0]), x[:1]), lambda: x.index_fill(0, lib.tensor([5]), 1.0),
        lambda: x.index_copy(0, lib.tensor([5]), x[:1]), lambda: x.scatter(0, lib.tensor([[0, 1, 0, 1, 0]]), 1.0),
        lambda: x.scatter(0, lib.tensor([[0, 1]]), lib.ones(1, 1)))]


TIES = [[1.0, 3.0, 2.0, 3.0], [0.0, -1.0, 5.0, -1.0], [2.0, 2.0, 2.0, 1.0]]
NANS = [[1.0, float("nan"), 2.0, 0.5], [0.0, -1.0, 5.0, 4.0], [float("nan")] * 4]
NANS_ROWS = [[1.0, float("nan"), 2.0, 0.5], [0.0, -1.0, 5.0, 4.0], [float("nan"), 3.0, float("nan"), 1.0]]
# (which index an all-NaN row's nanmedian(dim) reports depends on PyTorch's nth_element: not tested)


@scenario
def selecting_reductions(lib):
    fns = {
        "median": (lambda x: x.median(), None), "median_even": (lambda x: lib.median(x[:, :2]), None),
        "median_dim": (lambda x: x.median(1)[0], None), "median_keepdim": (lambda x: lib.median(x, -2, True).values, None),
        "kthvalue": (lambda x: x.kthvalue(2)[0], None), "kthvalue_dim": (lambda x: lib.kthvalue(x, 3, 0, True)[0], None),
        "mode": (lambda x: x.mode()[0], None), "mode_dim": (lambda x: lib.mode(x, 0).values, None),
        "median_ties": (lambda x: x.median(1).values, TIES), "median_ties_all": (lambda x: x.median(), TIES),
        "mode_ties": (lambda x: x.mode(1).values, TIES),
        "cummax": (lambda x: x.cummax(1)[0], None), "cummin": (lambda x: lib.cummin(x, -2).values, None),
        "cummax_ties": (lambda x: x.cummax(1)[0], TIES), "cummin_ties": (lambda x: x.cummin(0)[0], TIES),
        "logcumsumexp": (lambda x: x.logcumsumexp(1), None), "logcumsumexp0": (lambda x: lib.logcumsumexp(x, -2), None),
        "nansum": (lambda x: x.nansum(), NANS), "nansum_dim": (lambda x: lib.nansum(x, 1, True), NANS),
        "nanmean": (lambda x: x.nanmean(), NANS), "nanmean_dim": (lambda x: lib.nanmean(x, 1), NANS),
        "nanmedian": (lambda x: x.nanmedian(), NANS), "nanmedian_dim": (lambda x: x.nanmedian(1)[0], NANS_ROWS),
        "median_nan": (lambda x: x.median(1)[0], NANS),
    }
    return {name: _grads(lib, fn, (3, 4), values=values and [values]) for name, (fn, values) in fns.items()}


@scenario
def selecting_indices_and_types(lib):
    x = lib.tensor(TIES)
    n = lib.tensor(NANS_ROWS)
    i = lib.tensor([[3, 1, 2, 3], [0, 1, 1, 1]])
    return (x.median(1), x.median(0, keepdim=True), x.kthvalue(2, 1), x.mode(1), x.cummax(1), x.cummin(1),
            n.nanmedian(1), n.median(1), n.cummax(1), n.cummin(0), i.median(), i.median(1), i.mode(1),
            i.cummax(1), i.nansum(), i.kthvalue(1), lib.tensor(3.0).median(), lib.tensor(3.0).median(0),
            lib.tensor(2.0).cummax(0), caught(lib.tensor([1, 2]).logcumsumexp, 0), repr(x.median(1)).split("(")[0])


@scenario
def unique_isclose_cross_kron_dist(lib):
    t = lib.tensor([3, 1, 2, 3, 1])
    m = lib.tensor([[1, 2], [1, 2], [0, 1]])
    f = lib.tensor([1.0, 2.0, 1.0], requires_grad=True)
    products = {
        "cross": _grads(lib, lambda a, b: lib.cross(a, b, dim=1), (4, 3), (4, 3)),
        "cross_neg": _grads(lib, lambda a, b: a.cross(b, -2), (3, 2), (3, 2)),
        "kron": _grads(lib, lambda a, b: lib.kron(a, b), (2, 3), (3, 2)),
        "kron_mixed": _grads(lib, lambda a, b: a.kron(b), (3,), (2, 2)),
        "dist": _grads(lib, lambda a, b: lib.dist(a, b), (3, 4), (3, 4)),
        "dist_p": _grads(lib, lambda a, b: a.dist(b, 3), (3, 4), (4,)),
        "dist_inf": _grads(lib, lambda a, b: lib.dist(a, b, float("inf")), (2, 3), (2, 3))[:2],
    }
    u = lib.unique(f)
    return (lib.unique(t), t.unique(return_inverse=True), lib.unique(t, return_counts=True),
            lib.unique(t, sorted=False, return_inverse=True, return_counts=True),
            lib.unique(m, dim=0, return_inverse=True, return_counts=True), lib.unique(m, dim=1),
            u, caught(u.sum().backward), lib.unique(lib.tensor([[2.0, 1.0], [2.0, 0.5]])),
            lib.isclose(lib.tensor([1.0, float("nan"), 1.0, float("inf")]),
                        lib.tensor([1.0 + 1e-9, float("nan"), 1.1, float("inf")])),
            lib.isclose(lib.tensor([1.0, float("nan")]), lib.tensor([1.05, float("nan")]), rtol=0.1, equal_nan=True),
            lib.tensor([1.0, 2.0]).isclose(lib.tensor([1.0, 2.1]), atol=0.2), lib.isclose(t, t), products)


@scenario
def reduction_errors(lib):
    x = lib.tensor(arr((3, 4)))
    return [caught(f) for f in (
        lambda: x.median(2), lambda: x.kthvalue(5, 1), lambda: x.kthvalue(0), lambda: x.mode(3),
        lambda: x.cummax(2), lambda: x.logcumsumexp(-3), lambda: lib.tensor([1, 2]).nanmean(),
        lambda: lib.cross(x, x, dim=1), lambda: lib.isclose(x, x.double()), lambda: x.nansum(2),
        lambda: lib.zeros(3, 0).median(1), lambda: lib.flip(x, 0), lambda: x.flip(),
        lambda: lib.dist(lib.tensor([1, 2]), lib.tensor([3, 4])))]


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
