"""Special pointwise functions (ops/special.py, ops/binary_math.py), differential against
PyTorch: values, dtypes, gradients, double backward, grad_fn graphs, in-place forms."""

import pytest

from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()

# name -> (low, high) of the test values, inside the function's domain
UNARY = {"tan": (-1.2, 1.2), "sinh": (-2, 2), "cosh": (-2, 2), "asin": (-0.9, 0.9),
         "acos": (-0.9, 0.9), "atan": (-3, 3), "asinh": (-3, 3), "acosh": (1.1, 4),
         "atanh": (-0.9, 0.9), "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9), "arctan": (-3, 3),
         "arcsinh": (-3, 3), "arccosh": (1.1, 4), "arctanh": (-0.9, 0.9),
         "log1p": (-0.5, 3), "expm1": (-2, 2), "log2": (0.1, 4), "log10": (0.1, 4),
         "exp2": (-3, 3), "rsqrt": (0.2, 4), "erf": (-2.5, 2.5), "erfc": (-2.5, 2.5),
         "erfinv": (-0.95, 0.95), "sinc": (-2, 2), "logit": (0.05, 0.95), "frac": (-3, 3),
         "deg2rad": (-200, 200), "rad2deg": (-3, 3), "nan_to_num": (-2, 2)}


def _unary_scenarios(name, low, high):
    def forward_and_grad(lib):
        x = lib.tensor(arr((2, 5), seed=1, low=low, high=high), requires_grad=True)
        y = getattr(lib, name)(x)
        (y * lib.tensor(arr((2, 5), seed=2))).sum().backward()
        return y, x.grad, getattr(x, name)()
    forward_and_grad.__name__ = f"{name}_forward_and_grad"
    scenario(forward_and_grad)

    def double_backward(lib):
        x = lib.tensor(arr((6,), seed=3, low=low, high=high, dtype="float64"), requires_grad=True)
        y = getattr(lib, name)(x)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        return y, g.detach(), gg
    double_backward.__name__ = f"{name}_double_backward"
    scenario(double_backward)

    def on_ints(lib):
        return getattr(lib, name)(lib.tensor([1, 2, 0]) if name != "frac" else lib.tensor([1.5, -2.25]))
    on_ints.__name__ = f"{name}_on_ints"
    scenario(on_ints)

    def in_place(lib):
        x = lib.tensor(arr((2, 3), seed=4, low=low, high=high), requires_grad=True)
        y = x * 1
        out = getattr(y, name + "_")()
        (out * lib.tensor(arr((2, 3), seed=5))).sum().backward()
        return out is y, y._version, y, x.grad
    in_place.__name__ = f"{name}_in_place"
    scenario(in_place)


for _name, (_low, _high) in UNARY.items():
    _unary_scenarios(_name, _low, _high)


@scenario
def special_values_at_the_edges(lib):
    t = lib.tensor([-1.0, 1.0, 0.0, 2.0, -2.0, float("inf"), float("nan")])
    return (lib.erfinv(t), lib.atanh(t), lib.asin(t), lib.acosh(t), lib.log1p(t), lib.rsqrt(t),
            lib.sinc(t), lib.logit(t), lib.logit(t, eps=0.25), lib.erf(t), lib.erfc(t),
            lib.nan_to_num(t), lib.nan_to_num(t, nan=1.5, posinf=9.0, neginf=-9.0), lib.frac(t))


@scenario
def erfinv_is_accurate_in_float64(lib):
    x = lib.tensor([1e-12, 0.1, 0.5, 0.9, 0.999, 0.999999, -0.9999999999], dtype=lib.float64)
    return lib.erfinv(x), lib.erf(lib.erfinv(x))


@scenario
def logit_eps_gradients(lib):
    x = lib.tensor([0.0, 0.05, 0.3, 0.5, 0.97, 1.0], dtype=lib.float64, requires_grad=True)
    y = lib.logit(x, eps=0.1)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x)
    x2 = lib.tensor([0.2, 0.6], requires_grad=True) * 1
    x2.logit_(0.3)
    return y, g, gg, x2


@scenario
def sinc_gradient_at_zero(lib):
    x = lib.tensor([0.0, 0.5, -1.0], dtype=lib.float64, requires_grad=True)
    g, = lib.autograd.grad(lib.sinc(x).sum(), x, create_graph=True)
    return g, lib.autograd.grad(g.sum(), x)[0]


@scenario
def nan_to_num_gradient(lib):
    x = lib.tensor([1.0, float("inf"), float("nan"), -float("inf"), 2.0], requires_grad=True)
    y = x.nan_to_num()
    y.sum().backward()
    z = x * 1
    z.nan_to_num_(nan=3.0)
    return y, x.grad, z


@scenario
def positive_and_tests(lib):
    t = lib.tensor([-1.0, 0.0, -0.0, float("inf"), -float("inf"), float("nan")])
    x = lib.tensor([1.0], requires_grad=True)
    return (lib.positive(x) is x, x.positive() is x, caught(lib.positive, lib.tensor([True])),
            lib.isfinite(t), lib.isinf(t), lib.isposinf(t), lib.isneginf(t), lib.signbit(t),
            t.isfinite(), t.isinf(), t.signbit(), lib.isinf(lib.tensor([1, 2])))


@scenario
def top_level_in_place_functions(lib):
    x = lib.tensor([0.2, 0.4])
    return lib.tan_(x), lib.arcsin_(lib.tensor([0.5])), lib.log1p_(lib.tensor([1.0])), x


@scenario
def inplace_special_on_a_leaf_is_refused(lib):
    x = lib.tensor([0.5], requires_grad=True)
    return caught(x.tan_), caught(x.erfinv_), caught(lib.tensor([1, 2]).tan_)


# ------------------------------------------------------------------ binary

def _pair(lib, shape_a=(2, 3), shape_b=(3,), low=0.3, high=2.0, dtype="float32"):
    a = lib.tensor(arr(shape_a, seed=7, low=low, high=high, dtype=dtype), requires_grad=True)
    b = lib.tensor(arr(shape_b, seed=8, low=low, high=high, dtype=dtype), requires_grad=True)
    return a, b


BINARY = ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "fmod",
          "remainder", "float_power", "clamp_min", "clamp_max", "subtract", "multiply", "divide",
          "true_divide"]


def _binary_scenarios(name):
    def broadcast_grad(lib):
        a, b = _pair(lib)
        if name in ("copysign", "atan2", "arctan2"):
            b = lib.tensor(arr((3,), seed=9), requires_grad=True)
        y = getattr(lib, name)(a, b)
        (y * lib.tensor(arr((2, 3), seed=2))).sum().backward()
        return y, a.grad, b.grad, getattr(a, name)(b)
    broadcast_grad.__name__ = f"{name}_broadcast_grad"
    scenario(broadcast_grad)

    def double_backward(lib):
        a, b = _pair(lib, (4,), (4,), dtype="float64")
        y = getattr(lib, name)(a, b)
        ga, gb = lib.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        return (y, ga.detach(), gb.detach()) + lib.autograd.grad((ga + gb * 2).sum(), (a, b),
                                                                   allow_unused=True)
    double_backward.__name__ = f"{name}_double_backward"
    if name not in ("fmod", "remainder", "copysign"):     # zero/None second derivatives
        scenario(double_backward)

    def on_ints(lib):
        return getattr(lib, name)(lib.tensor([5, -7, 3]), lib.tensor([2, 3, 4]))
    on_ints.__name__ = f"{name}_on_ints"
    scenario(on_ints)


for _name in BINARY:
    _binary_scenarios(_name)


@scenario
def binary_with_a_number(lib):
    x = lib.tensor(arr((4,), seed=1, low=-3, high=3), requires_grad=True)
    outs = [lib.xlogy(x.abs(), 2.0), lib.xlogy(2.0, x.abs()), lib.copysign(x, -1.0),
            lib.fmod(x, 1.5), lib.remainder(x, 1.5), lib.float_power(x, 2), lib.float_power(2, x),
            lib.clamp_min(x, 0.0), lib.clamp_max(x, 0.5), x % 1.5, lib.lerp(x, x * 2, 0.3)]
    lib.stack([o.float() for o in outs]).sum().backward()
    return outs + [x.grad]


@scenario
def number_modulo_tensor(lib):
    x = lib.tensor([1.5, 2.5], requires_grad=True)
    y = 2.0 % x
    return y, lib.remainder(3, x), caught(y.sum().backward), caught(lib.fmod, 2.0, x)


@scenario
def binary_argument_errors(lib):
    x = lib.tensor([1.0, -5.0])
    return (caught(lib.atan2, x, 2.0), caught(x.atan2, 2.0), caught(lib.hypot, x, 1),
            caught(lib.logaddexp, lib.tensor([1]), lib.tensor([2])),
            caught(lib.lerp, x, x.double(), 0.5), caught(lib.lerp, x, x, x.double()),
            caught(lib.frac, lib.tensor([1, 2])), lib.remainder(x, 2.5), lib.remainder(-x, -2.5))


@scenario
def xlogy_with_a_number_other(lib):
    x = lib.tensor([0.0, 1.0, 2.0], dtype=lib.float64, requires_grad=True)
    out = []
    for other in (-1.0, 0.0, 2.0):
        g, = lib.autograd.grad(lib.xlogy(x, other).sum(), x)
        out.append(g)
    return out


@scenario
def xlogy_zeros_and_nans(lib):
    x = lib.tensor([0.0, 0.0, 1.0, 2.0, 0.0, 0.0], requires_grad=True)
    y = lib.tensor([0.0, float("nan"), 0.0, 3.0, 2.0, -1.0], requires_grad=True)
    z = lib.xlogy(x, y)
    z.sum().backward()
    return z, x.grad, y.grad


@scenario
def atan2_at_the_origin(lib):
    y = lib.tensor([0.0, 1.0, -1.0, 0.0], requires_grad=True)
    x = lib.tensor([0.0, 0.0, -1.0, -2.0], requires_grad=True)
    z = lib.atan2(y, x)
    z.sum().backward()
    return z, y.grad, x.grad


@scenario
def divide_rounding_modes(lib):
    a = lib.tensor([5.0, -5.0, 7.5, -7.5], requires_grad=True)
    b = lib.tensor([2.0, 2.0, -2.0, 0.0], requires_grad=True)
    t, f = lib.divide(a, b, rounding_mode="trunc"), a.divide(b, rounding_mode="floor")
    (t + f + lib.divide(a, 3, rounding_mode="floor")).sum().backward()
    i, j = lib.tensor([7, -7, 6, -6]), lib.tensor([2, 2, -4, 4])
    return (t, f, a.grad, b.grad, lib.divide(i, j, rounding_mode="trunc"),
            lib.divide(i, j, rounding_mode="floor"), lib.divide(i, 2, rounding_mode="trunc"),
            caught(lib.divide, a, b, rounding_mode="round"), caught(lib.divide, i, 0, rounding_mode="floor"),
            lib.divide(a, 3, rounding_mode="floor"), a.div(2.5, rounding_mode="trunc"))


@scenario
def divide_in_place_rounding_modes(lib):
    # x.div_(y, rounding_mode=...): DivBackward2 for a tensor or a number divisor; integers stay
    x = lib.tensor([5.0, -7.0, 3.5], requires_grad=True)
    y = x * 1
    y.div_(lib.tensor([2.0, 2.0, -2.0]), rounding_mode="floor")
    z = x * 1
    z.div_(3.0, rounding_mode="trunc")
    (y + z).sum().backward()
    i = lib.tensor([5, -7])
    i.div_(2, rounding_mode="trunc")
    return y, z, x.grad, i, y._version


@scenario
def lerp_scalar_and_tensor_weight(lib):
    a, b = _pair(lib, (2, 3), (2, 3), dtype="float64")
    w = lib.tensor(arr((3,), seed=3, low=0, high=1, dtype="float64"), requires_grad=True)
    y1, y2 = lib.lerp(a, b, 0.7), a.lerp(b, w)
    ga, gb, gw = lib.autograd.grad((y1 * y2).sum(), (a, b, w), create_graph=True)
    second = lib.autograd.grad((ga * gb + gw).sum(), (a, b, w))
    c = a * 1
    c.lerp_(b, 0.25)
    return y1, y2, ga, gb, gw, second, c


@scenario
def addcmul_addcdiv(lib):
    s, t1 = _pair(lib, (2, 3), (2, 3), dtype="float64")
    t2 = lib.tensor(arr((3,), seed=11, low=0.5, high=2, dtype="float64"), requires_grad=True)
    y1 = lib.addcmul(s, t1, t2, value=0.5)
    y2 = s.addcdiv(t1, t2, value=-2)
    grads = lib.autograd.grad((y1 * y2).sum(), (s, t1, t2), create_graph=True)
    second = lib.autograd.grad(sum(g.sum() for g in grads), (s, t1, t2))
    c = s * 1
    c.addcmul_(t1, t2).addcdiv_(t1, t2, value=3)
    return y1, y2, grads, second, c, caught(lib.addcdiv, lib.tensor([1]), lib.tensor([1]),
                                            lib.tensor([2]))


@scenario
def clamp_min_max_with_tensors(lib):
    x = lib.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
    lo = lib.tensor([0.0, 0.0, 3.0, 0.0], requires_grad=True)
    y = lib.clamp_min(x, lo) + x.clamp_max(lo) + x.clamp_min(0.0) + lib.clamp_max(x, 1.0)
    y.sum().backward()
    z = x * 1
    z.clamp_min_(0.2).clamp_max_(1.0)
    return y, x.grad, lo.grad, z


@scenario
def binary_in_place_forms(lib):
    a, b = _pair(lib, (2, 3), (3,))
    outs = []
    for name in ("atan2_", "arctan2_", "hypot_", "xlogy_", "copysign_", "fmod_", "remainder_",
                 "subtract_", "multiply_", "divide_", "true_divide_"):
        c = a * 1
        getattr(c, name)(b)
        outs.append(c)
    lib.stack(outs).sum().backward()
    return outs, a.grad, b.grad


@scenario
def float_power_dtypes_and_in_place(lib):
    x = lib.tensor([1.5, 2.0], requires_grad=True)
    y = lib.float_power(x, lib.tensor([2, 3]))
    y.sum().backward()
    d = lib.tensor([1.5, 2.0], dtype=lib.float64)
    return y, x.grad, caught(x.detach().float_power_, 2), d.float_power_(2)


@scenario
def fmod_remainder_signs(lib):
    a = lib.tensor([5.0, -5.0, 5.0, -5.0, 0.5])
    b = lib.tensor([3.0, 3.0, -3.0, -3.0, 0.25])
    return (lib.fmod(a, b), lib.remainder(a, b), a % b, lib.fmod(lib.tensor([5, -5]), 3),
            lib.remainder(lib.tensor([5, -5]), 3), lib.tensor([5, -5]) % 3)


@scenario
def aliases(lib):
    a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = lib.tensor([2.0, -2.0, 1.0])
    return (lib.subtract(a, b), lib.multiply(a, b), lib.divide(a, b), lib.true_divide(a, b),
            lib.negative(a), lib.absolute(a), a.absolute(), a.negative(), lib.greater(a, b),
            lib.greater_equal(a, b), lib.less(a, b), lib.less_equal(a, b), lib.not_equal(a, b),
            a.greater(b), a.less_equal(b), a.not_equal(b), lib.subtract(a, b, alpha=2),
            lib.divide(a, b, rounding_mode="trunc"), lib.divide(a, b, rounding_mode="floor"),
            lib.clip_(lib.tensor([5.0, -5.0]), -1, 1), lib.tensor([5.0, -5.0]).clip_(max=2))


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
