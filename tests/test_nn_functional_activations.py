"""The rest of PyTorch's activations (relu6, hardtanh, selu, celu, mish, softsign, hardsigmoid,
hardswish, logsigmoid, softmin, tanhshrink, hardshrink, softshrink, threshold, glu), functional
and as modules, side by side with PyTorch (differential: values, dtypes, gradients of orders 1
and 2, the grad_fn graphs, in-place forms, reprs, errors)."""

import numpy as np
import pytest

from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()

POINTS = [-40.0, -3.5, -3.0, -1.0, -0.5, -0.2, 0.0, 0.3, 0.5, 1.0, 2.0, 3.0, 4.0, 6.5, 40.0]

ACTIVATIONS = {
    "relu6": {}, "hardtanh": {}, "hardtanh_range": {"min_val": -2.0, "max_val": 3.0},
    "selu": {}, "celu": {}, "celu_alpha": {"alpha": 0.5}, "mish": {}, "softsign": {},
    "hardsigmoid": {}, "hardswish": {}, "logsigmoid": {}, "tanhshrink": {}, "hardshrink": {},
    "hardshrink_lambd": {"lambd": 1.0}, "softshrink": {}, "softshrink_lambd": {"lambd": 1.0},
}
# the gradient's own graph differs from PyTorch's in how it is built (same values)
VALUES_ONLY_AT_ORDER_2 = {"mish", "softsign"}


def _fn_name(key):
    return key.split("_")[0]


def _activation_scenario(key, options, dtype):
    def fn(lib):
        x = lib.tensor(POINTS, dtype=getattr(lib, dtype), requires_grad=True)
        y = getattr(lib.nn.functional, _fn_name(key))(x, **options)
        g, = lib.autograd.grad((y * lib.linspace(0.5, 1.5, len(POINTS), dtype=y.dtype)).sum(), x,
                               create_graph=True)
        if not g.requires_grad:
            return y, g
        if _fn_name(key) == "hardsigmoid":       # PyTorch: no second derivative
            return y, g, caught(g.sum().backward)
        gg, = lib.autograd.grad(g.sum(), x, create_graph=True)
        if _fn_name(key) in VALUES_ONLY_AT_ORDER_2:
            return y, g.detach(), gg.detach(), g.grad_fn.name()
        return y, g, gg
    fn.__name__ = f"activation_{key}_{dtype}"
    scenario(fn, rtol=1e-5 if dtype == "float32" else 1e-10, atol=1e-6 if dtype == "float32" else 1e-12)


for _key, _options in ACTIVATIONS.items():
    for _dtype in ("float32", "float64"):
        _activation_scenario(_key, _options, _dtype)


@scenario
def threshold_values_and_grads(lib):
    x = lib.tensor(POINTS, requires_grad=True)
    y = lib.nn.functional.threshold(x, 0.3, 20.0)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    return y, g


@scenario(rtol=1e-5, atol=1e-6)
def softmin_along_dims(lib):
    x = lib.tensor(arr((3, 4), seed=1), requires_grad=True)
    y0, y1 = lib.nn.functional.softmin(x, 0), lib.nn.functional.softmin(x, dim=1)
    (y0 * lib.tensor(arr((3, 4), seed=2))).sum().backward()
    g, = lib.autograd.grad((y1 * lib.tensor(arr((3, 4), seed=3))).sum(), x, create_graph=True)
    return y0, y1, x.grad, g


@scenario(rtol=1e-5, atol=1e-6)
def glu_values_grads_double_backward(lib):
    x = lib.tensor(arr((3, 4), seed=4), dtype=lib.float64, requires_grad=True)
    y = lib.nn.functional.glu(x)
    y0 = lib.nn.functional.glu(x, 0) if False else lib.nn.functional.glu(x[:2], 0)
    g, = lib.autograd.grad((y * lib.tensor(arr((3, 2), seed=5), dtype=lib.float64)).sum(), x,
                           create_graph=True)
    gg, = lib.autograd.grad((g * lib.tensor(arr((3, 4), seed=6), dtype=lib.float64)).sum(), x)
    return y, y0, g, gg, lib.nn.GLU(0)(x[:2])


@scenario
def glu_errors(lib):
    F = lib.nn.functional
    return caught(F.glu, lib.ones(2, 5)), caught(F.glu, lib.tensor(1.0)), caught(F.glu, lib.ones(3), 0)


@scenario
def activation_errors(lib):
    F = lib.nn.functional
    x = lib.ones(2, 3)
    return (caught(F.hardtanh, x, 2.0, 1.0), caught(F.softshrink, x, -1.0),
            caught(F.selu, lib.tensor([1, -1])))


def _inplace_scenario(name, args):
    def fn(lib):
        x = lib.tensor(POINTS, requires_grad=True)
        y = x * 1
        out = getattr(lib.nn.functional, name)(y, *args, inplace=True)
        version = y._version
        g, = lib.autograd.grad((out * lib.linspace(0.5, 1.5, len(POINTS))).sum(), x)
        return out is y, version, out, g
    fn.__name__ = f"inplace_{name}"
    scenario(fn)


for _name, _args in {"relu6": (), "hardtanh": (-2.0, 3.0), "selu": (), "celu": (0.7,),
                     "threshold": (0.3, -2.0), "hardsigmoid": (), "hardswish": (), "mish": ()}.items():
    _inplace_scenario(_name, _args)


@scenario
def inplace_on_a_leaf_is_refused(lib):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    return caught(lib.nn.functional.hardtanh, x, inplace=True)


@scenario
def activation_modules(lib):
    nn = lib.nn
    modules = [nn.ReLU6(), nn.ReLU6(True), nn.Hardtanh(), nn.Hardtanh(-2, 3, True), nn.SELU(),
               nn.SELU(True), nn.CELU(), nn.CELU(0.5, True), nn.Mish(), nn.Mish(True), nn.Softsign(),
               nn.Hardsigmoid(), nn.Hardsigmoid(True), nn.Hardswish(), nn.Hardswish(True),
               nn.LogSigmoid(), nn.Softmin(1), nn.Tanhshrink(), nn.Hardshrink(), nn.Softshrink(0.3),
               nn.Threshold(0.1, 20), nn.Threshold(0.1, 20, True), nn.GLU(), nn.GLU(0)]
    x = lib.tensor(arr((2, 4), seed=7), requires_grad=True)
    outputs = [m(x * 1) for m in modules]
    return [repr(m) for m in modules], outputs, repr(nn.Sequential(nn.Linear(2, 4), nn.ReLU6(), nn.GLU()))


# ---------------------------------------------- one_hot, embedding, norms, distances, pad

@scenario
def one_hot_values_and_errors(lib):
    F = lib.nn.functional
    return (F.one_hot(lib.tensor([0, 2, 1])), F.one_hot(lib.tensor([[0], [3]]), 5),
            F.one_hot(lib.tensor([], dtype=lib.int64), 3),
            caught(F.one_hot, lib.tensor([0.0, 1.0])), caught(F.one_hot, lib.tensor([0, 3]), 2),
            caught(F.one_hot, lib.tensor([-1, 1])), caught(F.one_hot, lib.tensor([], dtype=lib.int64)))


@scenario
def embedding_grads_padding_idx_and_double_backward(lib):
    F = lib.nn.functional
    w = lib.tensor(arr((5, 3), seed=1), dtype=lib.float64, requires_grad=True)
    idx = lib.tensor([[1, 2, 0], [4, 1, 1]])
    e = F.embedding(idx, w, padding_idx=0)
    g, = lib.autograd.grad((e * e).sum(), w, create_graph=True)
    gg, = lib.autograd.grad((g * g).sum(), w)
    s = F.embedding(idx, w, scale_grad_by_freq=True, padding_idx=-1)
    gs, = lib.autograd.grad(s.sum(), w)
    return e, g, gg, s, gs


@scenario
def embedding_errors(lib):
    F = lib.nn.functional
    w = lib.ones(5, 3)
    return (caught(F.embedding, lib.tensor([5]), w), caught(F.embedding, lib.tensor([1.0]), w),
            caught(F.embedding, lib.tensor([1]), w, padding_idx=7))


@scenario
def embedding_max_norm_renormalizes_looked_up_rows(lib):
    # rows looked up with a norm above max_norm are scaled down in place (one version bump),
    # the others untouched; norm_type picks the norm
    F = lib.nn.functional
    w = lib.tensor(arr((5, 3), seed=40) * 2, requires_grad=True)
    before = w._version
    y = F.embedding(lib.tensor([[0, 2], [2, 4]]), w, max_norm=1.0)
    y.sum().backward()
    m = lib.nn.Embedding(4, 3, max_norm=0.5, norm_type=1.0)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(arr((4, 3), seed=41)))
    return y, w._version - before, w.detach(), w.grad, m(lib.tensor([1, 1, 3])), m.weight.detach()


@scenario
def embedding_module(lib):
    lib.manual_seed(0)
    m = lib.nn.Embedding(6, 3, padding_idx=2)
    out = m(lib.tensor([[2, 3], [5, 2]]))
    out.sum().backward()
    pre = lib.nn.Embedding.from_pretrained(lib.tensor(arr((4, 2), seed=3)))
    return (repr(m), repr(lib.nn.Embedding(5, 3, padding_idx=0, max_norm=1.0, scale_grad_by_freq=True,
                                           sparse=True)),
            m.weight[2], m.weight.grad, list(m.state_dict()), out.shape, out.grad_fn.name(),
            pre(lib.tensor([3, 0])), pre.weight.requires_grad)


@scenario(rtol=1e-5, atol=1e-6)
def normalize_p_dim_eps(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((3, 4), seed=2), requires_grad=True)
    z = lib.zeros(2, 3, requires_grad=True)
    ys = [F.normalize(x), F.normalize(x, p=1, dim=0), F.normalize(x, dim=-1, eps=10.0), F.normalize(z)]
    g, = lib.autograd.grad(sum((y * lib.tensor(arr(y.shape, seed=9))).sum() for y in ys[:3]), x,
                           create_graph=True)
    return ys, g.detach()


@scenario(rtol=1e-5, atol=1e-6)
def cosine_similarity_and_module(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((3, 4), seed=3), requires_grad=True)
    y = lib.tensor(arr((3, 4), seed=4), requires_grad=True)
    c = F.cosine_similarity(x, y)
    c.sum().backward()
    return (c, x.grad, y.grad, F.cosine_similarity(x, y, dim=0), lib.nn.CosineSimilarity(0)(x, y),
            F.cosine_similarity(x, y[:1]), repr(lib.nn.CosineSimilarity()))


@scenario(rtol=1e-5, atol=1e-6)
def pairwise_distance_and_module(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((3, 4), seed=5), requires_grad=True)
    y = lib.tensor(arr((3, 4), seed=6), requires_grad=True)
    d = F.pairwise_distance(x, y)
    d.sum().backward()
    return (d, x.grad, y.grad, F.pairwise_distance(x, y, p=1.0, keepdim=True),
            lib.nn.PairwiseDistance(p=3.0)(x, y), repr(lib.nn.PairwiseDistance()))


@scenario(rtol=1e-5, atol=1e-6)
def layer_norm_grads_and_double_backward(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((2, 3, 4), seed=7), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(arr((3, 4), seed=8), dtype=lib.float64, requires_grad=True)
    b = lib.tensor(arr((3, 4), seed=9), dtype=lib.float64, requires_grad=True)
    y = F.layer_norm(x, (3, 4), w, b, eps=1e-3)
    gx, gw, gb = lib.autograd.grad((y ** 3).sum(), (x, w, b), create_graph=True)
    ggx, ggw = lib.autograd.grad((gx ** 2).sum() + (gw * gx[0]).sum(), (x, w))
    return y, gx.detach(), gw.detach(), gb.detach(), ggx, ggw, F.layer_norm(x, [4])


@scenario(rtol=1e-5, atol=1e-6)
def layer_norm_module(lib):
    nn = lib.nn
    x = lib.tensor(arr((2, 4), seed=10), requires_grad=True)
    mods = [nn.LayerNorm(4), nn.LayerNorm(4, bias=False), nn.LayerNorm([2, 4], elementwise_affine=False,
                                                                        eps=1e-3)]
    outs = [m(x) for m in mods]
    outs[0].sum().backward()
    return ([repr(m) for m in mods], outs, [list(m.state_dict()) for m in mods], mods[0].weight.grad,
            caught(mods[0], lib.ones(2, 3)))


@scenario(rtol=1e-5, atol=1e-6)
def kl_div_reductions(lib):
    F = lib.nn.functional
    out = []
    for log_target in (False, True):
        for reduction in ("none", "sum", "batchmean", "mean"):
            x = lib.tensor(arr((3, 4), seed=11), requires_grad=True)
            lp = F.log_softmax(x, 1)
            t = F.softmax(lib.tensor(arr((3, 4), seed=12)), 1)
            t = t.log() if log_target else t
            loss = F.kl_div(lp, t, reduction=reduction, log_target=log_target)
            loss.sum().backward()
            out += [loss, x.grad]
    m = lib.nn.KLDivLoss(reduction="batchmean", log_target=True)
    return out, repr(m), m(lp, t), F.kl_div(lp, lib.tensor([[0.0, 0.5, 0.5, 0.0]] * 3), reduction="sum")


@scenario
def pad_constant(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((2, 3), seed=13), requires_grad=True)
    ys = [F.pad(x, (1, 2)), F.pad(x, (1, 1, 2, 0), value=-1.5), F.pad(x, (-1, 1)), F.pad(x, [0, 0, 1, 1])]
    g, = lib.autograd.grad(sum((y * lib.tensor(arr(y.shape, seed=14))).sum() for y in ys), x,
                           create_graph=True)
    return ys, g, caught(F.pad, x, (1,)), caught(F.pad, x, (1, 1, 1, 1, 1, 1))


@scenario
def pad_reflect_and_replicate(lib):
    # 1, 2 and 3 padded dims, with and without a batch dim, negative pads; gradients of
    # orders 1 and 2 (the second through ReflectionPad*BackwardBackward0)
    F = lib.nn.functional
    out = []
    for mode in ("reflect", "replicate"):
        for shape, pad in (((2, 5), (1, 3)), ((1, 2, 5), (4, -1)), ((2, 4, 5), (1, 1, 2, 0)),
                           ((1, 2, 3, 4), (2, 0, -1, 2)), ((2, 3, 3, 4), (1, 1, 1, 2, 2, 0))):
            x = lib.tensor(arr(shape, seed=21), requires_grad=True)
            y = F.pad(x, pad, mode=mode)
            w = lib.tensor(arr(tuple(y.shape), seed=22), requires_grad=True)
            g, = lib.autograd.grad((y * w).sum(), x, create_graph=True)
            gw, = lib.autograd.grad((g * g).sum(), w)
            out += [y, g, gw]
    return out


@scenario
def pad_circular(lib):
    # 1, 2 and 3 padded dims, with and without a batch dim, negative pads, a pad as large as
    # the dim (not with a negative pad on the other side: PyTorch then reads memory it never
    # wrote); PyTorch builds it from copies into a new tensor: a chain of CopySlices
    F = lib.nn.functional
    out = []
    for shape, pad in (((2, 5), (1, 3)), ((1, 2, 5), (4, -1)), ((2, 4, 5), (1, 1, 2, 0)),
                       ((1, 2, 3, 4), (2, 0, -1, 2)), ((2, 3, 3, 4), (1, 1, 1, 2, 2, 0)),
                       ((1, 3, 4), (-4, 0)), ((3, 4), (0, 0)), ((1, 2, 5), (5, 0))):
        x = lib.tensor(arr(shape, seed=24), requires_grad=True)
        y = F.pad(x, pad, mode="circular")
        w = lib.tensor(arr(tuple(y.shape), seed=25), requires_grad=True)
        g, = lib.autograd.grad((y * y * w).sum(), x, create_graph=True)
        gw, = lib.autograd.grad((g * g).sum(), w)
        names = [y.grad_fn] + [f for f, _ in y.grad_fn.next_functions]     # torch::autograd::CopySlices
        # (g's own graph differs: PyTorch's CopySlices backward slices, ours indexes; same values)
        out += [y.detach(), [None if f is None else f.name().split("::")[-1] for f in names], y._version,
                g.detach(), gw]
    with lib.no_grad():
        out.append(F.pad(lib.tensor([[1, 2, 3]]), (1, 2), mode="circular"))
    x = lib.zeros(1, 2, 3)
    out += [caught(F.pad, x, (4, 0), mode="circular"), caught(F.pad, x, (-3, -1), mode="circular"),
            caught(F.pad, lib.zeros(3), (1, 1), mode="circular"), caught(F.pad, x, (1, 1), mode="circular", value=1.0)]
    return out


@scenario
def pad_modes_refuse(lib):
    F = lib.nn.functional
    x = lib.zeros(2, 5)
    return (caught(F.pad, lib.zeros(5), (1, 1), mode="reflect"), caught(F.pad, x, (5, 0), mode="reflect"),
            caught(F.pad, x, (1, 1, 1, 1), mode="replicate"), caught(F.pad, x, (-6, 1), mode="replicate"),
            caught(F.pad, lib.zeros(2, 0), (1, 1), mode="replicate"), caught(F.pad, x, (1,), mode="reflect"),
            caught(F.pad, x, (1, 1), mode="bogus"), caught(F.pad, x, (1, 1), mode="reflect", value=2.0))


@scenario
def padding_modules(lib):
    nn = lib.nn
    x = lib.tensor(arr((1, 2, 3, 4), seed=23), requires_grad=True)
    layers = [nn.ReflectionPad2d((1, 2, 0, 1)), nn.ReplicationPad1d(2), nn.ZeroPad2d(1),
              nn.ConstantPad1d(2, 3.5), nn.ReflectionPad3d(1), nn.ReplicationPad3d((0, 1, 1, 0, 1, 1)),
              nn.ConstantPad2d((1, 0, 0, 2), -1.0), nn.ZeroPad1d((2, 0)), nn.CircularPad2d((1, 2, 0, 1)),
              nn.CircularPad1d(2), nn.CircularPad3d(1)]
    ys = [m(x) for m in layers]
    g, = lib.autograd.grad(sum(y.sum() for y in ys), x)
    return [repr(m) for m in layers], [m.padding for m in layers], ys, g


@scenario
def unflatten_module(lib):
    m = lib.nn.Unflatten(1, (2, 3))
    x = lib.tensor(arr((4, 6), seed=15), requires_grad=True)
    return repr(m), m(x), repr(lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Unflatten(1, (2, 2))))


@scenario
def parameter_list_and_dict(lib):
    nn = lib.nn
    m = nn.Module()
    m.pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.ones(2, 3)])
    m.pl.append(nn.Parameter(lib.zeros(1)))
    m.pd = nn.ParameterDict({"a": nn.Parameter(lib.ones(2)), "b": lib.zeros(3)})
    m.pd["c"] = nn.Parameter(lib.ones(1))
    names = [n for n, _ in m.named_parameters()]
    return (names, list(m.state_dict()), repr(m), repr(m.pl), repr(m.pd), len(m.pl), len(m.pd),
            list(m.pd.keys()), m.pl[-1], type(m.pl[1]).__name__, "b" in m.pd,
            len(list(m.parameters())))


# ------------------------------------------------------ rms_norm, more losses, dropouts

@scenario(rtol=1e-5, atol=1e-6)
def rms_norm_and_module(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((2, 3, 4), seed=16), requires_grad=True)
    w = lib.tensor(arr((4,), seed=17), requires_grad=True)
    y = F.rms_norm(x, (4,), w)
    g = lib.autograd.grad((y ** 2).sum(), (x, w), create_graph=True)
    m = lib.nn.RMSNorm([3, 4], eps=1e-3)
    return (y, g, F.rms_norm(x, [3, 4]), m(x), repr(m), repr(lib.nn.RMSNorm(4, elementwise_affine=False)),
            list(m.state_dict()))


@scenario(rtol=1e-5, atol=1e-6)
def more_losses(lib):
    F, nn = lib.nn.functional, lib.nn
    x1 = lib.tensor(arr((5,), seed=18), requires_grad=True)
    x2 = lib.tensor(arr((5,), seed=19), requires_grad=True)
    t = lib.tensor([1.0, -1.0, 1.0, -1.0, 1.0])
    x = lib.tensor(arr((3, 4), seed=20), requires_grad=True)
    y = lib.tensor(np.sign(arr((3, 4), seed=21)))
    counts = lib.tensor(np.abs(arr((3, 4), seed=22)) * 3)
    var = lib.tensor(arr((3, 4), seed=23, low=0.5, high=2.0), requires_grad=True)
    losses = [F.margin_ranking_loss(x1, x2, t), F.margin_ranking_loss(x1, x2, t, margin=0.5, reduction="sum"),
              nn.MarginRankingLoss(0.2, reduction="none")(x1, x2, t),
              F.soft_margin_loss(x, y), F.soft_margin_loss(x, y, reduction="none"), nn.SoftMarginLoss()(x, y),
              F.poisson_nll_loss(x, counts), F.poisson_nll_loss(x.abs(), counts, log_input=False, full=True),
              nn.PoissonNLLLoss(reduction="sum")(x, counts),
              F.gaussian_nll_loss(x, counts, var), F.gaussian_nll_loss(x, counts, var, full=True, reduction="sum"),
              nn.GaussianNLLLoss(reduction="none")(x, counts, var[:, 0])]
    grads = lib.autograd.grad(sum(l.sum() for l in losses), (x1, x2, x, var))
    return losses, grads, [repr(m) for m in (nn.MarginRankingLoss(), nn.SoftMarginLoss(), nn.PoissonNLLLoss(),
                                            nn.GaussianNLLLoss())]


@scenario
def more_losses_errors(lib):
    F = lib.nn.functional
    x = lib.ones(3, 4)
    return (caught(F.gaussian_nll_loss, x, x, lib.ones(2)), caught(F.gaussian_nll_loss, x, x, -x),
            caught(F.soft_margin_loss, x, x, reduction="avg"))


@scenario
def channel_dropouts_eval_and_modules(lib):
    F, nn = lib.nn.functional, lib.nn
    x = lib.tensor(arr((2, 3, 4), seed=24), requires_grad=True)
    m = nn.Dropout2d(0.3)
    m.eval()
    return (F.dropout1d(x, 0.5, training=False) is x, m(x) is x, repr(nn.Dropout1d()), repr(m),
            F.dropout1d(x, 0.0) is x, caught(F.dropout1d, lib.ones(2, 3, 4, 5)),
            caught(F.dropout2d, x, 1.5))


def test_channel_dropouts_zero_whole_channels():
    import autograd_lib as al
    al.manual_seed(0)
    x = al.ones(8, 16, 5)
    y = al.nn.functional.dropout1d(x, 0.5)
    per_channel = y._data.reshape(8, 16, 5)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()     # a channel is kept or dropped whole
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7


# ------------------------------------------------------------------------ batch_norm

@scenario(rtol=1e-5, atol=1e-6)
def batch_norm_training_and_eval(lib):
    F = lib.nn.functional
    x = lib.tensor(arr((4, 3, 2), seed=25), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(arr((3,), seed=26), dtype=lib.float64, requires_grad=True)
    b = lib.tensor(arr((3,), seed=27), dtype=lib.float64, requires_grad=True)
    rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)
    grads = lib.autograd.grad((y ** 3).sum(), (x, w, b), create_graph=True)
    gg = lib.autograd.grad((grads[0] ** 2).sum(), (x, w))
    e = F.batch_norm(x, rm, rv, w, b, eps=1e-3)
    ge = lib.autograd.grad((e ** 3).sum(), (x, w, b))
    return (y, [g.detach() for g in grads], gg, rm, rv, e, ge, F.batch_norm(x[:, :, 0], None, None, training=True),
            caught(F.batch_norm, lib.ones(1, 3), rm, rv, training=True))


@scenario(rtol=1e-5, atol=1e-6)
def batch_norm_module(lib):
    nn = lib.nn
    x = lib.tensor(arr((5, 3), seed=28), requires_grad=True)
    mods = [nn.BatchNorm1d(3), nn.BatchNorm1d(3, momentum=None), nn.BatchNorm1d(3, affine=False),
            nn.BatchNorm1d(3, track_running_stats=False)]
    outs = []
    for m in mods:
        outs += [m(x), m(x * 2)]
        m.eval()
        outs.append(m(x))
    outs[0].sum().backward()
    return ([repr(m) for m in mods], outs, [m.state_dict() for m in mods], x.grad,
            caught(mods[0], lib.ones(2, 3, 4, 5)), [n for n, _ in mods[0].named_parameters()])


@scenario(rtol=1e-5, atol=1e-6)
def group_norm_and_module(lib):
    F, nn = lib.nn.functional, lib.nn
    x = lib.tensor(arr((2, 4, 3), seed=29), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(arr((4,), seed=30), dtype=lib.float64, requires_grad=True)
    b = lib.tensor(arr((4,), seed=31), dtype=lib.float64, requires_grad=True)
    y = F.group_norm(x, 2, w, b, eps=1e-3)
    grads = lib.autograd.grad((y ** 3).sum(), (x, w, b), create_graph=True)
    gg = lib.autograd.grad((grads[0] ** 2).sum(), (x, w))
    m = nn.GroupNorm(2, 4)
    return (y, [g.detach() for g in grads], gg, F.group_norm(x, 4), m(x.float()), repr(m),
            repr(nn.GroupNorm(1, 4, affine=False)), list(m.state_dict()), caught(F.group_norm, x, 3))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
