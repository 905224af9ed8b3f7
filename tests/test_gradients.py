"""Property tests: every differentiable op's gradient against finite differences.

For random float64 inputs of random shapes (broadcasting pairs for binary
ops), the vector-Jacobian product that autograd computes,
``autograd.grad(f(x), x, grad_outputs=v)``, must equal the central finite
difference of ``sum(f(x) * v)``.  Inputs stay away from the points where an
op is not differentiable (|x| > 0.1 for abs and relu, positive values for
log and sqrt, distinct values for max, ...).  A few ops are also checked to
second order (``create_graph=True``): the gradient of ``<grad f(x), w>``
against finite differences of the first gradient.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lib as al
from autograd_lib import ops

SETTINGS = settings(max_examples=25, deadline=None)
EPS = 1e-6


# ----------------------------------------------------------------- helpers

def values(shape, low=-3.0, high=3.0):
    """float64 arrays of ``shape`` with finite values in [low, high]."""
    return hnp.arrays(np.float64, shape,
                      elements=st.floats(low, high, allow_nan=False, allow_infinity=False, width=64))


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def away_from_zero(a, gap=0.1):
    """Values pushed at least ``gap`` away from 0 (keeping their sign)."""
    return np.where(a >= 0, a + gap, a - gap)


def distinct(a, gap=1e-3):
    """True when no two entries of ``a`` are closer than ``gap`` (max/min are smooth there)."""
    flat = np.sort(a.reshape(-1))
    return flat.size < 2 or np.min(np.diff(flat)) > gap


def numerical_vjp(fn, arrays, v, index):
    """Central finite difference of ``sum(fn(*arrays) * v)`` with respect to arrays[index]."""
    def objective(xs):
        with al.no_grad():
            out = fn(*[al.tensor(x) for x in xs])
        return float(np.sum(out._data * v))

    xs = [np.array(a, dtype=np.float64, copy=True) for a in arrays]
    x = xs[index]
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for j in range(flat.size):
        original = flat[j]
        flat[j] = original + EPS
        plus = objective(xs)
        flat[j] = original - EPS
        minus = objective(xs)
        flat[j] = original
        gflat[j] = (plus - minus) / (2 * EPS)
    return grad


def check_gradients(fn, *arrays, seed=0, rtol=1e-4, atol=1e-6):
    """autograd_lib's vector-Jacobian products of ``fn`` equal finite differences."""
    inputs = [al.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*inputs)
    assert out.dtype is al.float64
    v = np.random.default_rng(seed).standard_normal(out.shape)
    grads = al.autograd.grad(out, inputs, grad_outputs=al.tensor(v), allow_unused=True)
    for i, (g, a) in enumerate(zip(grads, arrays)):
        analytic = np.zeros(np.shape(a)) if g is None else g._data
        assert analytic.shape == np.shape(a)
        numeric = numerical_vjp(fn, arrays, v, i)
        np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i}")


def check_second_order(fn, *arrays, seed=0, rtol=1e-4, atol=1e-5):
    """The gradient of ``h(x) = <grad(sum(fn(x) * v)), w>`` (create_graph=True) equals
    finite differences of ``h``, itself computed with first-order autograd."""
    rng = np.random.default_rng(seed)
    with al.no_grad():
        out_shape = fn(*[al.tensor(a) for a in arrays]).shape
    v = rng.standard_normal(out_shape)
    ws = [rng.standard_normal(np.shape(a)) for a in arrays]

    def h(*xs):
        grads = al.autograd.grad(fn(*xs), xs, grad_outputs=al.tensor(v), create_graph=True,
                                 allow_unused=True)
        total = al.tensor(0., dtype=al.float64)
        for g, w in zip(grads, ws):
            if g is not None:
                total = total + (g * al.tensor(w)).sum()
        return total

    inputs = [al.tensor(a, requires_grad=True) for a in arrays]
    second = al.autograd.grad(h(*inputs), inputs, allow_unused=True)

    def h_value(*xs):                     # h at constant inputs, for the finite differences
        with al.enable_grad():
            xs = [x.detach().requires_grad_() for x in xs]
            return h(*xs).detach()

    for i, (g, a) in enumerate(zip(second, arrays)):
        analytic = np.zeros(np.shape(a)) if g is None else g._data
        numeric = numerical_vjp(h_value, arrays, np.ones(()), i)
        np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"second derivative for input {i}")


seeds = st.integers(0, 2 ** 16)


# ------------------------------------------------------------ unary ops

UNARY = {
    "exp": (lambda x: x.exp(), None),
    "log": (lambda x: x.log(), "positive"),
    "sqrt": (lambda x: x.sqrt(), "positive"),
    "tanh": (lambda x: x.tanh(), None),
    "sigmoid": (lambda x: x.sigmoid(), None),
    "relu": (lambda x: x.relu(), "nonzero"),
    "abs": (lambda x: x.abs(), "nonzero"),
    "sin": (lambda x: x.sin(), None),
    "cos": (lambda x: x.cos(), None),
    "neg": (lambda x: -x, None),
    "reciprocal": (lambda x: x.reciprocal(), "nonzero"),
    "rtruediv": (lambda x: 3 / x, "nonzero"),
    "rsub": (lambda x: 2 - x, None),
    "square": (lambda x: x ** 2, None),
    "cube": (lambda x: x ** 3, None),
    "pow_half": (lambda x: x ** 0.5, "positive"),
    "pow_negative": (lambda x: x ** -1.5, "positive"),
    "rpow": (lambda x: 2.5 ** x, None),
    "clamp": (lambda x: x.clamp(-1.05, 0.95), "off_bounds"),
    "clamp_min": (lambda x: al.clamp(x, min=0.05), "off_bounds"),
    "sign": (lambda x: x.sign() * x, "nonzero"),
    "clone": (lambda x: x.clone(), None),
    "sum": (lambda x: x.sum(), None),
    "mean": (lambda x: x.mean(), None),
    "max": (lambda x: x.max(), "distinct"),
    "min": (lambda x: al.min(x), "distinct"),
    "amax": (lambda x: x.amax(), "distinct"),
    "flatten": (lambda x: x.flatten() * 2, None),
    "T": (lambda x: x.permute(*reversed(range(x.ndim))) * 1, None),
    "masked_fill": (lambda x: x.masked_fill(x > 0, 1.5), "nonzero"),
}


def prepare(a, kind):
    if kind == "positive":
        return np.abs(a) + 0.1
    if kind == "nonzero":
        return away_from_zero(a)
    if kind == "off_bounds":                         # the clamp bounds used above
        near = np.min([np.abs(a - b) for b in (-1.05, 0.05, 0.95)], axis=0) < 0.02
        return np.where(near, a + 0.1, a)
    return a


@pytest.mark.parametrize("name", list(UNARY))
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_unary(name, data, seed):
    fn, kind = UNARY[name]
    a = prepare(data.draw(values(data.draw(shapes()))), kind)
    if kind == "distinct":
        assume(distinct(a))
    check_gradients(fn, a, seed=seed)


# -------------------------------------------------------- ops with a dim

DIM_OPS = {
    "sum_dim": lambda x, d: x.sum(d),
    "sum_dim_keepdim": lambda x, d: x.sum(d, keepdim=True),
    "mean_dim": lambda x, d: x.mean(d),
    "max_dim": lambda x, d: x.max(d).values,
    "min_dim_keepdim": lambda x, d: x.min(d, keepdim=True)[0],
    "amax_dim": lambda x, d: x.amax(d),
    "amin_dim": lambda x, d: al.amin(x, d, keepdim=True),
    "softmax": lambda x, d: x.softmax(d),
    "log_softmax": lambda x, d: x.log_softmax(d),
    "unsqueeze": lambda x, d: x.unsqueeze(d) * 1,
    "squeeze": lambda x, d: x.squeeze(d) * 1,
    "transpose": lambda x, d: x.transpose(d, 0) * 1,
    "select": lambda x, d: x[(slice(None),) * d + (-1,)],
    "unbind": lambda x, d: sum(t * (i + 1) for i, t in enumerate(x.unbind(d))),
}


@pytest.mark.parametrize("name", list(DIM_OPS))
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_dim_ops(name, data, seed):
    a = data.draw(values(data.draw(shapes(min_dims=1))))
    d = data.draw(st.integers(0, a.ndim - 1))
    if name in ("max_dim", "min_dim_keepdim", "amax_dim", "amin_dim"):
        assume(distinct(a))
    check_gradients(lambda x: DIM_OPS[name](x, d), a, seed=seed)


@SETTINGS
@given(data=st.data(), seed=seeds)
def test_sum_mean_over_several_dims(data, seed):
    a = data.draw(values(data.draw(shapes(min_dims=2))))
    dims = tuple(data.draw(st.lists(st.integers(0, a.ndim - 1), min_size=1, unique=True)))
    keepdim = data.draw(st.booleans())
    check_gradients(lambda x: x.sum(dims, keepdim=keepdim) * 2 + x.mean(dims, keepdim=keepdim),
                    a, seed=seed)


# ----------------------------------------------------------- binary ops

BINARY = {
    "add": (lambda a, b: a + b, None),
    "add_alpha": (lambda a, b: al.add(a, b, alpha=2.5), None),
    "sub": (lambda a, b: a - b, None),
    "mul": (lambda a, b: a * b, None),
    "div": (lambda a, b: a / b, "b_nonzero"),
    "pow": (lambda a, b: a ** b, "a_positive"),
    "maximum": (lambda a, b: al.maximum(a, b), "apart"),
    "minimum": (lambda a, b: al.minimum(a, b), "apart"),
    "where": (lambda a, b: al.where(a > b, a * a, b), "apart"),
    "clamp_tensor": (lambda a, b: al.clamp(a, min=b), "apart"),
    "mse_loss": (lambda a, b: ops.mse_loss(a, b), "same_shape"),
}


@pytest.mark.parametrize("name", list(BINARY))
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_binary_broadcasting(name, data, seed):
    fn, kind = BINARY[name]
    if kind == "same_shape":
        shape = data.draw(shapes())
        shape_a = shape_b = shape
    else:
        shape_a, shape_b = data.draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=3, max_side=3)).input_shapes
    a = data.draw(values(shape_a))
    b = data.draw(values(shape_b))
    if kind == "b_nonzero":
        b = away_from_zero(b, 0.3)
    elif kind == "a_positive":
        a = np.abs(a) + 0.2
    elif kind == "apart":
        assume(np.min(np.abs(np.subtract(a, b)), initial=1.0) > 1e-3)
    check_gradients(fn, a, b, seed=seed)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                 ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4)), ((2, 2, 3), (2, 3, 2)),
                 ((1, 2, 3), (2, 3, 2)), ((2, 1, 2, 3), (3, 3, 2)), ((2, 2, 3), (3,)),
                 ((3,), (2, 3, 2))]


@pytest.mark.parametrize("shapes_ab", MATMUL_SHAPES, ids=str)
@settings(max_examples=5, deadline=None)
@given(data=st.data(), seed=seeds)
def test_matmul(shapes_ab, data, seed):
    a = data.draw(values(shapes_ab[0]))
    b = data.draw(values(shapes_ab[1]))
    check_gradients(lambda x, y: x @ y, a, b, seed=seed)


@SETTINGS
@given(data=st.data(), seed=seeds)
def test_addmm_mm_mv_dot_bmm(data, seed):
    n, m, p = (data.draw(st.integers(1, 3)) for _ in range(3))
    bias, m1, m2 = (data.draw(values(s)) for s in ((p,), (n, m), (m, p)))
    check_gradients(lambda b, x, y: al.addmm(b, x, y, beta=0.5, alpha=2.0), bias, m1, m2, seed=seed)
    check_gradients(lambda x, y: x.t().mm(x) @ y, m1, m2, seed=seed)
    check_gradients(lambda x, y: al.mv(x, y[:, 0]) * al.dot(y[:, 0], y[:, 0]), m1, m2, seed=seed)
    check_gradients(lambda x, y: al.bmm(x.unsqueeze(0).expand(2, n, m), y.unsqueeze(0).expand(2, m, p)),
                    m1, m2, seed=seed)


# ------------------------------------------------- shapes, views, indexing

@SETTINGS
@given(data=st.data(), seed=seeds)
def test_views_and_expand(data, seed):
    a = data.draw(values(data.draw(shapes(min_dims=2, max_dims=3))))
    perm = data.draw(st.permutations(range(a.ndim)))
    size = a.size

    def fn(x):
        y = x.permute(*perm).reshape(size).reshape(*reversed(x.shape))
        z = x.unsqueeze(0).expand(2, *x.shape).sum(0)
        return y.t() if y.ndim == 2 else y.transpose(0, -1), z

    check_gradients(lambda x: fn(x)[0] * 1, a, seed=seed)
    check_gradients(lambda x: fn(x)[1] * x, a, seed=seed)


@SETTINGS
@given(data=st.data(), seed=seeds)
def test_indexing(data, seed):
    a = data.draw(values(data.draw(shapes(min_dims=2, max_dims=3, min_side=2))))
    rows = data.draw(st.lists(st.integers(-a.shape[0], a.shape[0] - 1), min_size=1, max_size=5))
    mask = data.draw(hnp.arrays(np.bool_, a.shape[1:]))
    step = data.draw(st.integers(1, 2))
    check_gradients(lambda x: x[rows], a, seed=seed)                         # repeats accumulate
    check_gradients(lambda x: x[:, mask] * 2, a, seed=seed)
    check_gradients(lambda x: x[1:, ::step][..., None], a, seed=seed)
    check_gradients(lambda x: x[-1, [0, 0]].sum() * x[0], a, seed=seed)


@SETTINGS
@given(data=st.data(), seed=seeds)
def test_setitem_and_cat_stack(data, seed):
    a = data.draw(values(data.draw(shapes(min_dims=1, max_dims=2, min_side=2))))
    b = data.draw(values(a.shape[1:]))

    def write(x, v):
        y = x * 1
        y[0] = v * 3
        y[[-1]] = v
        return y

    def modify_view(x, v):
        y = x * 1
        y[0].mul_(v)                 # in place on a view: the base's history is rewritten
        y.t()[-1].add_(v.sum())
        return y

    check_gradients(write, a, b, seed=seed)
    if a.ndim == 2:
        check_gradients(modify_view, a, b, seed=seed)
    check_gradients(lambda x, v: al.cat([x, v.unsqueeze(0)]) * 2, a, b, seed=seed)
    check_gradients(lambda x, v: al.stack([x[0], v, x[-1]], dim=-1), a, b, seed=seed)


# ------------------------------------------------------------ losses

@SETTINGS
@given(data=st.data(), seed=seeds)
def test_nll_loss_of_log_softmax(data, seed):
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(2, 4))
    logits = data.draw(values((n, c), -5, 5))
    target = al.tensor(data.draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, c - 1))))
    weight = data.draw(values((c,), 0.5, 2.0))
    reduction = data.draw(st.sampled_from(["mean", "sum", "none"]))
    check_gradients(lambda x: ops.nll_loss(x.log_softmax(1), target, weight=weight,
                                           reduction=reduction), logits, seed=seed)


# ------------------------------------------------------- second order

SECOND_ORDER = {
    "exp": (lambda x: x.exp(), 1),
    "tanh": (lambda x: x.tanh(), 1),
    "sigmoid": (lambda x: x.sigmoid(), 1),
    "mul": (lambda x, y: x * y * x, 2),
    "pow": (lambda x: x ** 3 + x.abs() ** 2.5, 1),
    "pow_tensor": (lambda x, y: (x.abs() + 0.5) ** y, 2),
    "div": (lambda x, y: x / (y * y + 1), 2),
    "log_softmax": (lambda x: x.log_softmax(-1), 1),
    "softmax": (lambda x: x.softmax(0), 1),
    "matmul": (lambda x, y: (x @ y.t()).tanh(), 2),
    "mse_loss": (lambda x, y: ops.mse_loss(x * x, y), 2),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
@settings(max_examples=10, deadline=None)
@given(data=st.data(), seed=seeds)
def test_second_derivatives(name, data, seed):
    fn, arity = SECOND_ORDER[name]
    shape = data.draw(shapes(min_dims=1, max_dims=2, max_side=3))
    arrays = [away_from_zero(data.draw(values(shape, -2, 2))) for _ in range(arity)]
    check_second_order(fn, *arrays, seed=seed)
