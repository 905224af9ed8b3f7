"""Writing by index and over views, side by side with PyTorch (differential): ``index_put``,
``masked_scatter``, ``scatter_reduce`` and ``scatter(reduce=)``, ``put``, ``diagonal_scatter``,
``select_scatter``, ``slice_scatter``, ``renorm`` and ``cdist``; their values, the gradients of
every input with their graphs, second-order gradients, the in-place forms (versions, writes
through views, the leaf rule) and the errors of misuse."""

import warnings

import numpy as np
import pytest

import autograd_lib
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()


def _f64(lib, shape, seed, low=None, high=None):
    return lib.tensor(arr(shape, seed=seed, dtype=np.float64, low=low, high=high), requires_grad=True)


def _orders(lib, out, inputs, weights=None):
    """The first-order gradients of ``sum(out * out * weights)`` (with their graphs) and the
    second-order ones of the sum of the first."""
    loss = out * out
    if weights is not None:
        loss = loss * weights
    first = lib.autograd.grad(loss.sum(), inputs, create_graph=True, allow_unused=True)
    needed = [g for g in first if g is not None and g.requires_grad]
    second = lib.autograd.grad(sum(g.sum() for g in needed), inputs, allow_unused=True) if needed else ()
    return first, second


def _quietly(fn, *args, **kwargs):
    """``fn`` without its UserWarnings (PyTorch gives scatter(reduce=)'s only once per process)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# =============================================================== index_put

@scenario
def index_put_integer_indices_values_grads_and_second_order(lib):
    out = []
    for accumulate in (False, True):
        x, v = _f64(lib, (3, 4), 1), _f64(lib, (2,), 2)
        y = lib.index_put(x, (lib.tensor([0, 2]), lib.tensor([1, 3])), v, accumulate=accumulate)
        out += [y, *_orders(lib, y, (x, v))]
    return out


@scenario
def index_put_masks_and_broadcast_values(lib):
    x = _f64(lib, (3, 4), 3)
    rows = _f64(lib, (4,), 4)
    one = _f64(lib, (), 5)
    mask = lib.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
    y1 = x.index_put((mask,), one)
    y2 = x.index_put((lib.tensor([True, False, True]),), rows)
    y3 = x.index_put((lib.tensor([True, False, True]), lib.tensor([0, 3])), one)
    y4 = x.index_put((lib.tensor([[0, 1]]), lib.tensor([[0], [2]])), _f64(lib, (2, 2), 6))
    first, second = _orders(lib, y1 + y2 + y3 + y4, (x, rows, one))
    return y1, y2, y3, y4, first, second


@scenario
def index_put_accumulate_repeats_and_broadcasts(lib):
    x, v = _f64(lib, (3, 4), 7), _f64(lib, (1, 4), 8)
    y = x.index_put([lib.tensor([0, 2, 0, 0])], v, True)
    z = x.index_put((lib.tensor([-1, -3]), lib.tensor([1, 1])), lib.tensor([1.0, 2.0], dtype=lib.float64), True)
    w = x.index_put((lib.tensor([1, 2], dtype=lib.int32),), _f64(lib, (4,), 9))
    return y, z, w, _orders(lib, y, (x, v))


@scenario
def index_put_zero_dim_index_integers_and_values_only(lib):
    x, v = _f64(lib, (3, 4), 64), _f64(lib, (4,), 65)
    y = x.index_put((lib.tensor(1),), v)
    m = x.index_put((lib.tensor([[True, False, True, False]] * 3),), lib.tensor(2.0, dtype=lib.float64),
                    accumulate=True)
    ints = lib.arange(12).reshape(3, 4).index_put((lib.tensor([0]),), lib.tensor(7))
    repeated = lib.zeros(3, dtype=lib.float64).index_put((lib.tensor([0, 0]),), v[:2], accumulate=True)
    target = lib.zeros(3, 4, dtype=lib.float64)
    written = target.index_put_((lib.tensor([0, 2]),), v)           # only the values need a gradient
    return (y, m, ints, repeated, written, target._version,
            lib.autograd.grad((y + m + written).sum() + (repeated * repeated).sum(), (x, v)))


@scenario
def index_put_in_place_versions_and_views(lib):
    x, v = _f64(lib, (3, 4), 10), _f64(lib, (2,), 11)
    y = x * 1
    before = y._version
    same = y.index_put_((lib.tensor([1, 2]), lib.tensor([0, 0])), v, accumulate=True)
    after = y._version
    base = x * 2
    row = base[1]
    row.index_put_((lib.tensor([3, 1]),), v)
    g = lib.autograd.grad((y * base).sum(), (x, v))
    return same is y, after - before, y, base, row, row._version, base._version, g


@scenario
def index_put_in_place_on_a_leaf_is_refused(lib):
    x = _f64(lib, (3,), 12)
    with lib.no_grad():
        x.index_put_((lib.tensor([0]),), lib.tensor([5.0], dtype=lib.float64))
    return caught(x.index_put_, (lib.tensor([0]),), lib.tensor([1.0], dtype=lib.float64)), x, x._version


@scenario
def index_put_errors(lib):
    x = lib.zeros(3, 4)
    one = lib.tensor(1.0)
    return (caught(x.index_put, (lib.tensor([0, 5]),), one),
            caught(x.index_put, (lib.tensor([0.0, 1.0]),), one),
            caught(x.index_put, (lib.tensor([0, 1]),), lib.tensor([1.0, 2.0, 3.0])),
            caught(x.index_put, (lib.tensor([0, 1]),), lib.tensor([1, 2, 3, 4])),
            caught(x.index_put, (lib.tensor([0, 1]),), lib.tensor(1.0, dtype=lib.float64)),
            caught(x.index_put, (lib.tensor([0]), lib.tensor([0]), lib.tensor([0])), one),
            caught(x.index_put, (lib.tensor([0, 1]), lib.tensor([0, 1, 2])), one),
            caught(x.index_put, (lib.tensor([True, False]),), one),
            caught(x.index_put, (lib.ones(3, 5, dtype=lib.bool),), one),
            caught(x.index_put, (lib.tensor([True, True, False]), lib.tensor([0, 1, 2])), one),
            caught(x.index_put, (lib.tensor([[True, False, True, True]] * 3),), lib.tensor([1.0, 2.0])),
            caught(x.index_put, (lib.tensor([7]),), lib.tensor([1, 2])),
            caught(x.index_put, lib.tensor([0]), one),
            caught(x.index_put, ([0, 1],), one),
            caught(x.index_put, (lib.tensor([0]),), 1.0),
            caught(lib.index_put, x, (None,), one), caught(lib.index_put, x, (lib.tensor([0]),), 1.0),
            caught(lib.index_put, x, lib.tensor([0]), one), caught(x.index_put_, ([0],), one),
            caught(x.index_put_, (lib.tensor([0]),), 1.0), caught(x.put_, lib.tensor([0]), 1.0),
            caught(lib.put, x, lib.tensor([0]), 1.0), caught(lib.masked_scatter, x, lib.tensor(True), 1.0),
            caught(x.masked_scatter_, lib.tensor(True), 1.0), caught(lib.scatter_reduce, x, 0, lib.tensor([0]), 1.0,
                                                                      "sum"),
            caught(x.scatter_reduce_, 0, lib.tensor([0]), 1.0, "sum"), caught(x.diagonal_scatter, 1.0),
            caught(lib.select_scatter, x, 1.0, 0, 0), caught(x.slice_scatter, 1.0))


@scenario
def setitem_second_order_writes_zeros_by_index_put(lib):
    x, v = _f64(lib, (4,), 13), _f64(lib, (2,), 14)
    y = x * 1
    y[lib.tensor([0, 2])] = v
    return y, _orders(lib, y, (x, v))


# ========================================================== masked_scatter

@scenario
def masked_scatter_values_grads_and_higher_orders(lib):
    x, s = _f64(lib, (3, 4), 15), _f64(lib, (2, 6), 16)
    mask = lib.tensor([True, False, True, True])
    y = x.masked_scatter(mask, s)
    g = lib.autograd.grad((y * y).sum(), (x, s), create_graph=True)
    gg = lib.autograd.grad((g[1] * g[1]).sum(), (x, s), create_graph=True)
    ggg = lib.autograd.grad((gg[1] * gg[1]).sum(), (x, s))
    return y, g, gg, ggg


@scenario
def masked_scatter_broadcasts_self_to_the_mask(lib):
    x, s = _f64(lib, (4,), 17), _f64(lib, (10,), 18)
    mask = lib.tensor([[True, False, True, True], [False, True, True, False]])
    y = lib.masked_scatter(x, mask, s)
    return y, _orders(lib, y, (x, s)), x.masked_scatter(lib.tensor(True), s)


@scenario
def masked_scatter_in_place_versions_and_views(lib):
    x, s = _f64(lib, (3, 4), 19), _f64(lib, (5,), 20)
    y = x * 1
    before = y._version
    same = y.masked_scatter_(lib.tensor([[True], [False], [True]]), _f64(lib, (8,), 21))
    base = x * 2
    col = base[:, 1]
    col.masked_scatter_(lib.tensor([False, True, True]), s)
    g = lib.autograd.grad((y + base).pow(2).sum(), (x, s))
    return same is y, y._version - before, y, base, col, base._version, g


@scenario
def masked_scatter_errors(lib):
    x = lib.zeros(3, 4, dtype=lib.float64)
    m = lib.tensor([True, False, True, True])
    s = lib.ones(10, dtype=lib.float64)
    return (caught(x.masked_scatter, m, lib.ones(10)),
            caught(x.masked_scatter, m, lib.ones(2, dtype=lib.float64)),
            caught(x.masked_scatter, m.double(), s),
            caught(x.masked_scatter, lib.tensor([True, False]), s),
            caught(x.masked_scatter, lib.tensor([True, False]), s[:1].float()),
            caught(x.masked_scatter, m, 1.0),
            caught(x[0].masked_scatter_, lib.ones(2, 4, dtype=lib.bool), s),
            caught(x.masked_scatter_, lib.ones(3, dtype=lib.bool), s),
            caught(lib.masked_scatter, lib.zeros(3, 2), lib.tensor([True, False, True, False]), lib.ones(12)),
            caught(lib.masked_scatter, x, lib.tensor([True, False, True]), s),
            caught(_f64(lib, (4,), 1).masked_scatter_, m, s))


# ========================================================== scatter_reduce

_INDEX = [[0, 1, 2, 0], [0, 1, 2, 2], [1, 1, 0, 0]]


def _reduce_scenario(reduce, include_self):
    def fn(lib):
        x, src = _f64(lib, (3, 4), 22), _f64(lib, (3, 4), 23, 0.5, 2.0)
        y = x.scatter_reduce(0, lib.tensor(_INDEX), src, reduce, include_self=include_self)
        z = lib.scatter_reduce(x, 1, lib.tensor([[3, 3], [0, 1], [1, 1]]), src[:, :2], reduce=reduce,
                               include_self=include_self)
        return y, z, _orders(lib, y + z, (x, src), lib.tensor(arr((3, 4), seed=24), dtype=lib.float64))
    fn.__name__ = f"scatter_reduce_{reduce}_{'with' if include_self else 'without'}_self"
    scenario(fn)


for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _include_self in (True, False):
        _reduce_scenario(_reduce, _include_self)


@scenario
def scatter_reduce_amax_amin_ties_share_the_gradient(lib):
    out = []
    for reduce in ("amax", "amin"):
        for include_self in (True, False):
            x = lib.tensor([[1.0, 5.0, 2.0], [3.0, 1.0, 2.0]], dtype=lib.float64, requires_grad=True)
            src = lib.tensor([[3.0, 5.0, 2.0], [3.0, 1.0, 2.0], [1.0, 5.0, 2.0]], dtype=lib.float64,
                             requires_grad=True)
            idx = lib.tensor([[1, 0, 0], [1, 1, 0], [0, 0, 1]])
            y = x.scatter_reduce(0, idx, src, reduce, include_self=include_self)
            g = lib.autograd.grad((y * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)).sum(),
                                  (x, src))
            out += [y, g]
    return out


@scenario
def scatter_reduce_prod_with_zeros(lib):
    out = []
    for include_self in (True, False):
        x = lib.tensor([[1.0, 2.0, 0.0], [3.0, 0.0, 5.0]], dtype=lib.float64, requires_grad=True)
        src = lib.tensor([[0.0, 2.0, 4.0], [0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], dtype=lib.float64,
                         requires_grad=True)
        idx = lib.tensor([[0, 1, 0], [0, 1, 1], [1, 0, 1]])
        y = x.scatter_reduce(0, idx, src, "prod", include_self=include_self)
        gx, gs = lib.autograd.grad((y * y).sum(), (x, src), create_graph=True)
        out += [y, gx, gs, caught(lib.autograd.grad, gs.sum(), (x, src), retain_graph=True),
                lib.autograd.grad(gx.sum(), (x, src), allow_unused=True)]
        single = lib.tensor([[0.0, 2.0, 4.0], [1.0, 1.0, 0.5], [2.0, 3.0, 3.0]], dtype=lib.float64,
                            requires_grad=True)
        y = x.scatter_reduce(0, idx, single, "prod", include_self=include_self)
        out += [y, _orders(lib, y, (x, single))]
    return out


@scenario
def scatter_reduce_src_larger_than_index_and_one_dim(lib):
    out = []
    for reduce in ("sum", "amax", "prod"):
        x, src = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True), _f64(lib, (3, 4), 61)
        y = x.scatter_reduce(0, lib.tensor([[0, 1], [2, 0]]), src, reduce)
        out += [y, caught(lib.autograd.grad, y.sum(), (x, src))]
    x1 = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for reduce in ("amax", "amin", "mean", "sum", "prod"):
        y = x1.scatter_reduce(0, lib.tensor([0, 0, 2, 2]), lib.tensor([5.0, 1.0, 3.0, 3.0]), reduce,
                              include_self=False)
        out += [y, lib.autograd.grad((y * lib.tensor([1.0, 2.0, 3.0])).sum(), x1)]
    nan = float("nan")
    out += [lib.tensor([1.0, nan, 3.0]).scatter_reduce(0, lib.tensor([0, 1]), lib.tensor([nan, 1.0]), "amax"),
            lib.tensor([1.0, 2.0, 3.0]).scatter_reduce(0, lib.tensor([0, 1]), lib.tensor([nan, 1.0]), "amin",
                                                       include_self=False)]
    return out


@scenario
def backward_twice_through_the_saved_tensors(lib):
    out = []
    idx = lib.tensor([[0, 1, 2, 0]])
    makers = [
        lambda x, s: x.index_put((lib.tensor([0, 2]),), s[0]),
        lambda x, s: x.put(lib.tensor([1, 3]), s[0, :2]),
        lambda x, s: x.masked_scatter(lib.tensor([True, False, True, False]), s),
        lambda x, s: x.scatter_reduce(0, idx, s[:1], "mean"),
        lambda x, s: x.diagonal_scatter(s[0, :3]),
        lambda x, s: x.select_scatter(s[0], 0, 1),
        lambda x, s: x.slice_scatter(s[:, :2], 1, 1, 3),
        lambda x, s: x.renorm(2, 0, 0.5),
        lambda x, s: lib.cdist(x, s),
        lambda x, s: lib.cdist(x, s, compute_mode="use_mm_for_euclid_dist"),
    ]
    for make in makers:
        x, s = _f64(lib, (3, 4), 62), _f64(lib, (3, 4), 63)
        y = make(x * 1, s * 1)
        y.sum().backward()
        out += [x.grad, caught(y.sum().backward)]
    return out


@scenario
def scatter_reduce_integers_and_float32(lib):
    xi = lib.tensor([[1, 2], [3, 4]])
    idx = lib.tensor([[0, 0], [0, 0]])
    srci = lib.tensor([[-2, 3], [-6, 6]])
    ints = [xi.scatter_reduce(0, idx, srci, r, include_self=s) for r in ("sum", "prod", "mean", "amax", "amin")
            for s in (True, False)]
    x = lib.tensor(arr((3, 4), seed=25), requires_grad=True)
    y = x.scatter_reduce(-1, lib.tensor([[0], [3], [3]]), lib.tensor(arr((3, 1), seed=26)), "mean")
    y.sum().backward()
    return ints, y, x.grad


@scenario
def scatter_reduce_in_place_versions_and_views(lib):
    x, src = _f64(lib, (3, 4), 27), _f64(lib, (3, 4), 28, 0.5, 2.0)
    y = x * 1
    same = y.scatter_reduce_(0, lib.tensor(_INDEX), src, "prod")
    version = y._version
    base = x * 1
    row = base[0]
    row.scatter_reduce_(0, lib.tensor([1, 1, 3]), src[1, :3], "amax", include_self=False)
    g = lib.autograd.grad((y * base).sum(), (x, src))
    return same is y, version, y, base, row, base._version, g


@scenario
def scatter_reduce_errors(lib):
    x, s = lib.zeros(3, 4, dtype=lib.float64), lib.ones(3, 4, dtype=lib.float64)
    idx = lib.tensor(_INDEX)
    return (caught(x.scatter_reduce, 0, idx, s, "foo"),
            caught(x.scatter_reduce, 0, idx, s, "add"),
            caught(x.scatter_reduce, 0, idx.float(), s.float(), "foo"),
            caught(x.scatter_reduce, 0, idx, s.float(), "foo"),
            caught(x.scatter_reduce, 0, idx + 5, s, "foo"),
            caught(x.scatter_reduce, 0, idx + 5, s, "sum"),
            caught(x.scatter_reduce, 0, idx - 5, s, "sum"),
            caught(x.scatter_reduce, 0, idx[:, :2], s[:2], "sum"),
            caught(x.scatter_reduce, 0, idx[0], s, "sum"),
            caught(x.scatter_reduce, 1, lib.zeros(3, 5, dtype=lib.int64), s, "sum"),
            caught(x.scatter_reduce, 5, idx.float(), s, "sum"),
            caught(_f64(lib, (3, 4), 1).scatter_reduce_, 0, idx, s, "sum"))


@scenario
def scatter_with_reduce_is_not_differentiable(lib):
    x, src = _f64(lib, (3, 4), 29), _f64(lib, (3, 4), 30)
    idx = lib.tensor(_INDEX)
    add = _quietly(x.scatter, 0, idx, src, reduce="add")
    mul = x.scatter(0, idx, 2.0, reduce="multiply")
    y = x * 1
    _quietly(y.scatter_, 0, idx, src, reduce="multiply")
    z = x * 1
    z.scatter_(1, idx, -1.5, reduce="add")
    return (add, mul, y, z, y._version, caught(add.sum().backward), caught(mul.sum().backward),
            caught(y.sum().backward), caught(z.sum().backward),
            caught(x.scatter, 0, idx, 2.0, reduce="mean"), caught(x.scatter, 0, idx.float(), 2.0, reduce="add"),
            caught(_quietly, x.scatter, 0, idx, src.float(), reduce="add"),
            caught(_quietly, x.scatter, 0, idx + 5, src, reduce="foo"),
            caught(x.scatter, 0, idx, src.float()))


def test_scatter_with_reduce_and_tensor_src_warns():
    x, idx = autograd_lib.zeros(2, 2), autograd_lib.tensor([[0, 1]])
    with pytest.warns(UserWarning, match="The reduce argument of autograd_lib.scatter with Tensor src is "
                                         "deprecated and will be removed in a future PyTorch release"):
        x.scatter(0, idx, autograd_lib.ones(1, 2), reduce="add")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.scatter(0, idx, 2.0, reduce="add")          # a number: no warning


# ====================================================================== put

@scenario
def put_values_grads_and_second_order(lib):
    out = []
    for accumulate in (False, True):
        x, s = _f64(lib, (3, 4), 31), _f64(lib, (2, 2), 32)
        index = lib.tensor([[0, 5], [11, -2]] if not accumulate else [[0, 5], [11, 5]])
        y = x.put(index, s, accumulate=accumulate)
        out += [y, _orders(lib, y, (x, s))]
    x, s = _f64(lib, (3, 4), 33), _f64(lib, (4,), 34)
    y = lib.put(x, lib.tensor([[1, 7], [3, 2]]), s)
    transposed = _f64(lib, (4, 3), 71).t()
    t = transposed.put(lib.tensor([1, 4]), lib.tensor([10.0, 20.0], dtype=lib.float64))
    out += [t, lib.autograd.grad((t * t).sum(), transposed)]
    scalar = _f64(lib, (), 35)
    z = scalar.put(lib.tensor([0, 0]), lib.tensor([2.0, 3.0], dtype=lib.float64), accumulate=True)
    return out, y, _orders(lib, y, (x, s)), z, _orders(lib, z, (scalar,))


@scenario
def put_in_place_versions_and_views(lib):
    x, s = _f64(lib, (3, 4), 36), _f64(lib, (3,), 37)
    y = x * 1
    same = y.put_(lib.tensor([0, 6, 6]), s, accumulate=True)
    version = y._version
    base = x * 1
    tail = base[1:]
    tail.put_(lib.tensor([7, 0, 2]), s)
    g = lib.autograd.grad((y * base).sum(), (x, s))
    return same is y, version, y, base, tail, base._version, g, caught(_f64(lib, (2,), 1).put_,
                                                                      lib.tensor([0]), s[:1])


@scenario
def put_errors(lib):
    x, s = lib.zeros(3, 4, dtype=lib.float64), lib.ones(2, 2, dtype=lib.float64)
    idx = lib.tensor([[0, 5], [11, 5]])
    return (caught(x.put, idx, s.float()), caught(x.put, idx, s[0]), caught(x.put, idx + 10, s),
            caught(x.put, idx - 20, s), caught(x.put, idx.int(), s.float()), caught(x.put, idx.float(), s),
            caught(x.put, idx, 1.0), caught(x.put, lib.tensor([0, 20]), lib.ones(12, dtype=lib.float64)),
            caught(lib.tensor(1.0).put, lib.tensor([0, 1]), lib.tensor([2.0, 3.0])))


# ============================================ diagonal/select/slice_scatter

@scenario
def diagonal_scatter_values_grads_and_second_order(lib):
    out = []
    for shape, src_shape, args in (((3, 4), (3,), ()), ((3, 4), (2,), (2,)), ((3, 4), (2,), (-1,)),
                                   ((2, 3, 4), (3, 1), (1, -1, 0)), ((2, 3, 4), (4, 2), (0, 0, 1)),
                                   ((3, 4), (0,), (10,))):
        x, src = _f64(lib, shape, 38), _f64(lib, src_shape, 39)
        y = lib.diagonal_scatter(x, src, *args)
        out += [y, _orders(lib, y, (x, src))]
    x = _f64(lib, (3, 3), 40)
    out.append(x.diagonal_scatter(lib.tensor([1.0, 2.0, 3.0]), dim1=1, dim2=0))
    return out


@scenario
def select_scatter_values_grads_and_second_order(lib):
    out = []
    for shape, src_shape, args in (((3, 4), (4,), (0, 1)), ((3, 4), (3,), (1, -1)), ((2, 3, 4), (2, 4), (-2, 0))):
        x, src = _f64(lib, shape, 41), _f64(lib, src_shape, 42)
        y = lib.select_scatter(x, src, *args)
        out += [y, _orders(lib, y, (x, src))]
    x = _f64(lib, (3, 2), 43)
    out.append(x.select_scatter(lib.tensor([5, 6]), 0, -3))
    return out


@scenario
def slice_scatter_values_grads_and_second_order(lib):
    out = []
    for shape, src_shape, kwargs in (((3, 4), (3, 2), {"dim": 1, "start": 0, "end": 4, "step": 2}),
                                     ((3, 4), (3, 4), {}),
                                     ((3, 4), (1, 4), {"start": -1}),
                                     ((3, 4), (3, 4), {"start": -10, "end": 100}),
                                     ((3, 4), (0, 4), {"start": 2, "end": 1}),
                                     ((2, 3, 4), (2, 3, 1), {"dim": -1, "start": 3})):
        x, src = _f64(lib, shape, 44), _f64(lib, src_shape, 45)
        y = lib.slice_scatter(x, src, **kwargs)
        out += [y, _orders(lib, y, (x, src))]
    x = _f64(lib, (4, 2), 46)
    out.append(x.slice_scatter(lib.ones(2, 2), 0, 1, None, 2))
    return out


@scenario
def view_scatter_errors(lib):
    x = lib.zeros(3, 4, dtype=lib.float64)
    v = lambda *shape: lib.ones(*shape, dtype=lib.float64) if shape else lib.tensor(1.0, dtype=lib.float64)  # noqa: E731,E501
    return (caught(lib.diagonal_scatter, x, v(2)), caught(lib.diagonal_scatter, x, v(1, 3)),
            caught(lib.diagonal_scatter, x, v(3), 0, 0, 0), caught(lib.diagonal_scatter, x, v(3), 0, 0, 2),
            caught(lib.diagonal_scatter, x, 1.0), caught(lib.diagonal_scatter, x, v()),
            caught(lib.diagonal_scatter, lib.tensor([1.0]), lib.tensor(2.0)),
            caught(lib.select_scatter, x, v(3), 0, 1), caught(lib.select_scatter, x, v(4), 0, 3),
            caught(lib.select_scatter, x, v(4), 0, -4), caught(lib.select_scatter, x, v(4), 2, 0),
            caught(lib.select_scatter, x, v(1, 4), 0, 0), caught(lib.select_scatter, lib.tensor(1.0),
                                                                  lib.tensor(2.0), 0, 0),
            caught(lib.slice_scatter, x, v(3, 3), 1, 0, 4, 2), caught(lib.slice_scatter, x, v(3, 4), 0, step=0),
            caught(lib.slice_scatter, x, v(2, 4), 0, 2, 1), caught(lib.slice_scatter, x, v(3, 4), 2),
            caught(lib.slice_scatter, x, v(4), 0), caught(lib.slice_scatter, lib.tensor(1.0), lib.tensor(2.0), 0),
            caught(lib.slice_scatter, x, v(3, 4), 0, step=-1))


# ================================================================== renorm

@pytest.mark.parametrize("p", [1, 2, 3.0, 1.5, 0.5, float("inf")])
def test_renorm_values_grads_and_second_order(p):
    def renorm_scenario(lib):
        x = lib.tensor([[3.0, 4.0, 1.0, 0.0], [0.1, 0.2, -0.1, 0.0], [1.0, -2.0, 2.0, 0.5]],
                       dtype=lib.float64, requires_grad=True)
        y = x.renorm(p, 0, 1.0)
        z = lib.renorm(x, p, -1, 0.7)
        return y, z, _orders(lib, y + z, (x,), lib.tensor(arr((3, 4), seed=47), dtype=lib.float64))
    renorm_scenario.__name__ = f"renorm_p_{p}"
    run({renorm_scenario.__name__: (renorm_scenario, {"key": None, "rtol": 1e-6, "atol": 1e-9})},
        renorm_scenario.__name__)


@scenario
def renorm_three_dims_float32_and_in_place(lib):
    x = lib.tensor(arr((2, 3, 4), seed=48), requires_grad=True)
    y = x.renorm(2, 1, 1.5)
    y.sum().backward()
    z = x.detach() * 1
    z.renorm_(1, 2, 0.5)
    w = x * 1
    before = w._version
    w.renorm_(2, 0, 1.0)
    g, = lib.autograd.grad((w * w).sum(), x)
    return y, x.grad, z, w, w._version - before, g, caught(x.renorm_, 2, 0, 1.0)


@scenario
def renorm_in_place_through_a_view(lib):
    x = _f64(lib, (3, 4), 66)
    base = x * 1
    rows = base[1:]
    rows.renorm_(2, 0, 0.5)
    return base, rows, base._version, lib.autograd.grad((base * base).sum(), x)


@scenario
def renorm_errors(lib):
    x = lib.ones(3, 4)
    return (caught(x.renorm, -1, 0, 1.0), caught(x.renorm, 0, 0, 1.0), caught(x.renorm, 2, 0, -1.0),
            caught(x.renorm, 2, 0, -1.5), caught(x.renorm, 2, 2, 1.0), caught(x.renorm, 0, 5, -1.0),
            caught(x.renorm, 2, 5, -1.0), caught(x[0].renorm, 0, 0, -1.0), caught(x[0].renorm, 2, 0, 1.0),
            caught(lib.tensor(1.0).renorm, 2, 0, 1.0), caught(x.long().renorm, 2, 0, 1.0))


# =================================================================== cdist

@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_cdist_values_grads_and_no_second_order(p):
    def cdist_scenario(lib):
        a = lib.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=lib.float64,
                       requires_grad=True)
        b = lib.tensor([[1.0, -1.0, 0.5], [1.0, 2.0, 3.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0]], dtype=lib.float64,
                       requires_grad=True)
        y = lib.cdist(a, b, p)
        ga, gb = lib.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        c = lib.tensor(arr((2, 3, 4), seed=49), requires_grad=True)
        d = lib.tensor(arr((1, 5, 4), seed=50), requires_grad=True)
        e = lib.cdist(c, d, p=p)
        e.sum().backward()
        return (y, ga, gb, caught(lib.autograd.grad, ga.sum(), (a, b), retain_graph=True), e, c.grad, d.grad,
                lib.cdist(a, b.detach(), p))
    cdist_scenario.__name__ = f"cdist_p_{p}"
    run({cdist_scenario.__name__: (cdist_scenario, {"key": None, "rtol": 1e-5, "atol": 1e-6})},
        cdist_scenario.__name__)


@scenario(rtol=1e-6, atol=1e-8)
def cdist_through_a_matrix_product(lib):
    a, b = _f64(lib, (3, 4), 51), _f64(lib, (5, 4), 52)
    y = lib.cdist(a, b, compute_mode="use_mm_for_euclid_dist")
    a3, b3 = _f64(lib, (2, 3, 4), 53), _f64(lib, (1, 5, 4), 54)
    y3 = lib.cdist(a3, b3, compute_mode="use_mm_for_euclid_dist")
    big1, big2 = _f64(lib, (30, 3), 55), _f64(lib, (4, 3), 56)
    y4 = lib.cdist(big1, big2)
    y5 = lib.cdist(big1, big2, compute_mode="donot_use_mm_for_euclid_dist")
    a4 = _f64(lib, (2, 1, 3, 4), 57)
    y6 = lib.cdist(a4, b, compute_mode="use_mm_for_euclid_dist")
    return (y, _orders(lib, y, (a, b)), y3, _orders(lib, y3, (a3, b3)), y4, y5, _orders(lib, y4, (big1, big2)),
            y6, lib.autograd.grad(y6.sum(), (a4, b)))


@scenario(rtol=1e-6, atol=1e-8)
def cdist_batches_broadcast(lib):
    a3, b3 = _f64(lib, (2, 3, 4), 58), _f64(lib, (1, 5, 4), 59)
    y = lib.cdist(a3, b3)
    g = lib.autograd.grad((y * y).sum(), (a3, b3), create_graph=True)
    b2 = _f64(lib, (5, 4), 60)
    z = lib.cdist(a3, b2, 1.0)
    return y, g, z, lib.autograd.grad(z.sum(), (a3, b2)), lib.cdist(a3[0][:0], b2).shape, \
        lib.cdist(lib.ones(3, 0), lib.ones(5, 0))


@scenario(rtol=1e-5, atol=1e-6)
def cdist_one_input_needing_a_gradient_and_float32(lib):
    a, b = _f64(lib, (30, 3), 67), _f64(lib, (4, 3), 68)
    y = lib.cdist(a, b.detach())
    z = lib.cdist(a.detach(), b, 1.0)
    c, d = lib.tensor(arr((40, 5), seed=69), requires_grad=True), lib.tensor(arr((30, 5), seed=70),
                                                                           requires_grad=True)
    w = lib.cdist(c, d)
    return (y, z, lib.autograd.grad((y * y).sum(), a, create_graph=True), lib.autograd.grad(z.sum(), b), w,
            lib.autograd.grad(w.sum(), (c, d)))


@scenario
def cdist_errors(lib):
    return (caught(lib.cdist, lib.ones(3), lib.ones(2, 3)),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(3)),
            caught(lib.cdist, lib.ones(2, 3).long(), lib.ones(2, 4), -1),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(2, 4).double()),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(2, 3).double(), -1),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(2, 3).double()),
            caught(lib.cdist, lib.ones(2, 3).double(), lib.ones(2, 3)),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(2, 3).long()),
            caught(lib.cdist, lib.ones(2, 3).long(), lib.ones(2, 3), -1),
            caught(lib.cdist, lib.ones(2, 2, 3), lib.ones(3, 2, 3).double()),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(2, 3), -1, compute_mode="foo"),
            caught(lib.cdist, lib.ones(2, 3), lib.ones(2, 3), 1, "foo"))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
