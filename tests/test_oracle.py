"""Differential tests: the same scenario, run on autograd_lib and on PyTorch.

A scenario is a small function of ``lib`` (the module ``autograd_lib`` or
``torch``) that builds tensors with ``lib.tensor(...)``, runs an operation,
maybe a backward pass, and returns what should be compared::

    @scenario
    def mul_backward(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = (x * 2).sum()
        y.backward()
        return y, x.grad

Both runs are compared in depth by :func:`compare`: for tensors the values,
dtype, shape, ``requires_grad``, ``is_leaf``, ``retains_grad`` and the
whole backward graph (``grad_fn`` class names, walking
``next_functions`` of both graphs in parallel); plus numbers, strings (with
"torch." read as "autograd_lib."), shapes and dtypes.  ``_version`` is compared
where a scenario returns it: the version of a ``.grad`` tensor depends on
whether torch could steal the incoming gradient buffer (a reference-count
optimisation), which is not part of the behaviour we reproduce.  An exception raised by
the scenario must be raised by both, with the same class and the same key
sentence (the first sentence of torch's message, or ``key=``); ``caught``
does the same for an error in the middle of a scenario.  UserWarnings must be
the same too.
"""

import math

import numpy as np
import pytest

import autograd_lib
from autograd_lib import ops as _ops
from conftest import assert_close, assert_same, capture, key_sentence, requires_torch

try:
    import torch
except ImportError:                     # pragma: no cover
    torch = None

SCENARIOS = {}


def scenario(fn=None, *, key=None, rtol=None, atol=None):
    """Register ``fn`` as a scenario.  ``key``: the part of the error message both
    libraries must share, when torch's first sentence is not the right one."""
    def register(fn):
        assert fn.__name__ not in SCENARIOS, fn.__name__
        SCENARIOS[fn.__name__] = (fn, {"key": key, "rtol": rtol, "atol": atol})
        return fn
    return register(fn) if fn is not None else register


def is_torch(lib):
    return lib is not autograd_lib


def F(lib):
    """The functional losses: torch.nn.functional, or autograd_lib's core ops."""
    return torch.nn.functional if is_torch(lib) else _ops


class Caught:
    """An exception raised in the middle of a scenario, compared by class and key sentence."""

    def __init__(self, error):
        self.error = error

    def __repr__(self):
        return f"Caught({type(self.error).__name__}: {self.error})"


def caught(fn, *args, **kwargs):
    """Run ``fn`` and return the exception it raises (None when it raises none)."""
    try:
        fn(*args, **kwargs)
    except Exception as e:              # noqa: BLE001 - compared with torch's
        return Caught(e)
    return None


def arr(shape, seed=0, dtype=np.float32, low=None, high=None):
    """Reproducible test values (the same NumPy array for both libraries)."""
    rng = np.random.default_rng(seed)
    if low is not None:
        return rng.uniform(low, high, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def leaf(lib, data, dtype=None, requires_grad=True):
    if dtype is not None:
        dtype = getattr(lib, dtype)
    return lib.tensor(data, dtype=dtype, requires_grad=requires_grad)


# ======================================================================
# Comparison
# ======================================================================

def _is_tensor(x):
    return isinstance(x, autograd_lib.Tensor) or (torch is not None and isinstance(x, torch.Tensor))


def _type_name(node):
    return type(node).__name__


def compare_graphs(expected, seen, path, visited=None):
    """Walk both backward graphs in parallel, comparing node class names and edges."""
    if visited is None:
        visited = set()
    if (expected is None) or (seen is None):
        assert_same(expected is None, seen is None, f"{path}: node is None")
        return
    if (id(expected), id(seen)) in visited:
        return
    visited.add((id(expected), id(seen)))
    assert_same(_type_name(expected), _type_name(seen), f"{path}: node class")
    # torch's C++-only nodes are named "torch::autograd::AccumulateGrad", "...::CopySlices";
    # ours are named like their class.
    assert_same(expected.name().replace("torch::autograd::", ""), seen.name(), f"{path}: node name()")
    e_next, s_next = expected.next_functions, seen.next_functions
    assert_same([(_type_name(n) if n is not None else None, nr) for n, nr in e_next],
                [(_type_name(n) if n is not None else None, nr) for n, nr in s_next],
                f"{path}.next_functions")
    for i, ((en, _), (sn, _)) in enumerate(zip(e_next, s_next)):
        compare_graphs(en, sn, f"{path}.next_functions[{i}]", visited)


def compare(expected, seen, path="result", rtol=None, atol=None):
    """Deep comparison of what the torch run (expected) and our run (seen) returned."""
    if _is_tensor(expected):
        assert_same("Tensor", "Tensor" if _is_tensor(seen) else type(seen).__name__, f"{path}: type")
        assert_same(tuple(expected.shape), tuple(seen.shape), f"{path}.shape")
        assert_same(str(expected.dtype).replace("torch.", ""), seen.dtype.name, f"{path}.dtype")
        assert_same(expected.requires_grad, seen.requires_grad, f"{path}.requires_grad")
        assert_same(expected.is_leaf, seen.is_leaf, f"{path}.is_leaf")
        assert_same(expected.retains_grad, seen.retains_grad, f"{path}.retains_grad")
        assert_close(expected.detach().numpy(), seen.detach()._data, f"{path} values", rtol, atol)
        compare_graphs(expected.grad_fn, seen.grad_fn, f"{path}.grad_fn")
    elif isinstance(expected, Caught):
        assert isinstance(seen, Caught), f"{path}: torch raised {expected!r}, autograd_lib gave {seen!r}"
        _compare_errors(expected.error, seen.error, None, path)
    elif torch is not None and isinstance(expected, torch.Size):
        assert_same(tuple(expected), tuple(seen), f"{path}: size")
        assert_same("Size", type(seen).__name__, f"{path}: type")
    elif torch is not None and isinstance(expected, torch.dtype):
        assert_same(str(expected).replace("torch.", "autograd_lib."), repr(seen), f"{path}: dtype")
    elif isinstance(expected, dict):
        assert_same(sorted(expected), sorted(seen), f"{path}: keys")
        for k in expected:
            compare(expected[k], seen[k], f"{path}[{k!r}]", rtol, atol)
    elif isinstance(expected, (tuple, list)):
        assert isinstance(seen, (tuple, list)), f"{path}: expected a sequence, got {seen!r}"
        assert_same(len(expected), len(seen), f"{path}: length")
        for i, (e, s) in enumerate(zip(expected, seen)):
            compare(e, s, f"{path}[{i}]", rtol, atol)
    elif isinstance(expected, str):
        assert_same(expected.replace("torch.", "autograd_lib."), seen, path)
    elif isinstance(expected, float):
        assert_same(float, type(seen), f"{path}: type")
        if not (math.isnan(expected) and math.isnan(seen)):
            assert math.isclose(expected, seen, rel_tol=rtol or 1e-6, abs_tol=atol or 1e-7), \
                f"{path}: expected {expected!r}, seen {seen!r}"
    elif _is_node(expected):
        compare_graphs(expected, seen, path)
    else:
        assert_same(type(expected).__name__, type(seen).__name__, f"{path}: type")
        assert_same(expected, seen, path)


def _is_node(x):
    return hasattr(x, "next_functions") and hasattr(x, "name")


def _compare_errors(expected, seen, key, path="scenario"):
    assert seen is not None, f"{path}: torch raised {type(expected).__name__}: {expected}\n" \
                             "but autograd_lib raised nothing"
    builtin = next(c for c in type(expected).__mro__ if c.__module__ == "builtins")
    assert isinstance(seen, builtin), (
        f"{path}: torch raised {type(expected).__name__}({builtin.__name__}): {expected}\n"
        f"autograd_lib raised {type(seen).__name__}: {seen}")
    if type(expected).__module__ != "builtins":
        assert_same(type(expected).__name__, type(seen).__name__, f"{path}: exception class")
    sentence = key or key_sentence(str(expected))
    assert sentence in str(expected).replace("torch.", "autograd_lib."), \
        f"the key {sentence!r} is not in torch's message: {expected}"
    assert sentence in str(seen), (f"{path}: error messages differ\n  torch:        {expected}\n"
                                   f"  autograd_lib: {seen}\n  key sentence: {sentence!r}")


# PyTorch gives these warnings once per process (TORCH_WARN_ONCE), so whether a
# scenario sees them depends on what ran before: they are checked on their own
# (test_T_warnings) and ignored here.
_ONCE_PER_PROCESS = ("The use of `x.T` on tensors of dimension other than 2",
                     "Tensor.T is deprecated on 0-D tensors")


def _compare_warnings(expected, seen):
    expected = [m for m in expected if not m.startswith(_ONCE_PER_PROCESS)]
    seen = [m for m in seen if not m.startswith(_ONCE_PER_PROCESS)]
    expected_keys = sorted(key_sentence(m) for m in expected)
    assert_same(len(expected), len(seen), f"number of UserWarnings\n  torch: {expected}\n  ours: {seen}")
    for k in expected_keys:
        assert any(k in m for m in seen), f"warning {k!r} missing; autograd_lib warned {seen}"


def run_scenario(name, scenarios=None):
    """Run scenario ``name`` (of ``scenarios``, this module's by default) on both libraries."""
    fn, opts = (SCENARIOS if scenarios is None else scenarios)[name]
    check_scenario(fn, **opts)


def check_scenario(fn, key=None, rtol=None, atol=None):
    """Run scenario ``fn`` on torch and on autograd_lib and compare everything: the
    results (:func:`compare`), the error raised, if any, and the UserWarnings."""
    expected, expected_error, expected_warnings = capture(fn, torch)
    seen, seen_error, seen_warnings = capture(fn, autograd_lib)
    if expected_error is not None:
        _compare_errors(expected_error, seen_error, key)
    elif seen_error is not None:
        raise AssertionError(f"torch ran the scenario, autograd_lib raised "
                             f"{type(seen_error).__name__}: {seen_error}") from seen_error
    _compare_warnings(expected_warnings, seen_warnings)
    if expected_error is None:
        compare(expected, seen, rtol=rtol, atol=atol)


# ======================================================================
# Creation and dtypes
# ======================================================================

@scenario
def create_float_list(lib):
    return lib.tensor([1., 2., 3.])


@scenario
def create_int_list(lib):
    return lib.tensor([1, 2, 3])


@scenario
def create_bool_list(lib):
    return lib.tensor([True, False])


@scenario
def create_mixed_int_float(lib):
    return lib.tensor([1, 2.5]), lib.tensor([[1, 2], [3, 4.]])


@scenario
def create_mixed_bool_int(lib):
    return lib.tensor([True, 2])


@scenario
def create_from_float64_array(lib):
    return lib.tensor(np.array([1.5, 2.5])), lib.tensor(np.array([1, 2], dtype=np.int32))


@scenario
def create_scalars(lib):
    return lib.tensor(3.5), lib.tensor(3), lib.tensor(True), lib.tensor(2.5).item(), lib.tensor(3).item()


@scenario
def create_empty_list(lib):
    return lib.tensor([]), lib.tensor([[]])


@scenario
def create_explicit_dtype(lib):
    return (lib.tensor([1, 2], dtype=lib.float64), lib.tensor([1.7, -2.7], dtype=lib.int64),
            lib.tensor([0., 2.], dtype=lib.bool))


@scenario
def create_factories(lib):
    return (lib.zeros(2, 3), lib.ones((2,)), lib.full((2,), 1.5), lib.full((2,), 3),
            lib.full((2,), True), lib.eye(3), lib.zeros(2, dtype=lib.int64), lib.ones(0))


@scenario
def create_arange_linspace(lib):
    return (lib.arange(5), lib.arange(1, 4), lib.arange(0, 1, 0.25), lib.arange(5.),
            lib.linspace(0, 1, 5), lib.arange(0, 10, 3))


@scenario
def create_linspace_forms(lib):
    # odd and even counts, integer dtypes (PyTorch steps in float64 and truncates), 0-d
    # tensors as ends, requires_grad, and the errors
    return ([lib.linspace(-3.7, 10.2, n, dtype=d) for n in (0, 1, 2, 7, 8)
             for d in (lib.float32, lib.float64, lib.int64, lib.int32)],
            lib.linspace(lib.tensor(1.0), lib.tensor(2.0), 3), lib.linspace(0, 1, 5, requires_grad=True),
            lib.linspace(5, 1, 4, dtype=lib.float16), caught(lib.linspace, lib.ones(2), 2.0, 3),
            caught(lib.linspace, 0.0, 1.0, -1))


@scenario
def create_like(lib):
    x = lib.tensor([1, 2, 3])
    return (lib.zeros_like(x), lib.ones_like(x, dtype=lib.float32), lib.full_like(x, 7),
            lib.zeros_like(lib.tensor([1.], requires_grad=True)))


@scenario
def create_requires_grad_leaf(lib):
    x = lib.zeros(2, requires_grad=True)
    y = lib.ones(2, 3, requires_grad=True)
    return x, y, x.grad, x.grad_fn


@scenario
def create_int_requires_grad_constructor(lib):
    return lib.tensor([1, 2], requires_grad=True)


@scenario
def create_int_requires_grad_(lib):
    return lib.tensor([1, 2]).requires_grad_()


@scenario
def create_int_requires_grad_setter(lib):
    x = lib.tensor([1, 2])
    x.requires_grad = True


@scenario
def create_bool_requires_grad(lib):
    return caught(lambda: lib.tensor([True]).requires_grad_()), lib.tensor([True]).requires_grad_(False)


@scenario
def create_from_tensor_list(lib):
    return lib.tensor([[1., 2.], [3., 4.]]).shape, lib.tensor([[1, 2], [3, 4]]).size(1)


@scenario
def create_ragged_error(lib):
    return lib.tensor([[1, 2], [3]])


@scenario
def create_ragged_errors_deeper(lib):
    return (caught(lambda: lib.tensor([[[1], [2]], [[3], [4, 5]]])),
            caught(lambda: lib.tensor([[1, 2], 3])), caught(lambda: lib.tensor([1, [2]])))


@scenario
def create_from_tensors_arrays_and_ranges_inside_lists(lib):
    # a tensor inside a list is one number (of its dtype); an array or a range is a sequence
    one = lib.tensor([lib.ones(1), lib.tensor(2.0), lib.ones(1, 1)])
    ints = lib.tensor([lib.tensor(1, dtype=lib.int32), 2])
    arrays = lib.tensor([np.arange(3, dtype=np.float32), [4, 5, 6]])
    nested = lib.tensor([np.ones((2, 2))])
    return (one, ints, arrays, nested, lib.tensor(range(3)), lib.tensor([range(2), range(2)]),
            lib.tensor([2 ** 63, 1.5]))


@scenario
def create_refuses_what_pytorch_refuses(lib):
    return (caught(lambda: lib.tensor([lib.ones(2), lib.ones(2)])),        # several elements
            caught(lambda: lib.tensor([[lib.ones(2)]])),
            caught(lambda: lib.as_tensor([lib.ones(2), lib.ones(2)])),
            caught(lambda: lib.tensor("abc")), caught(lambda: lib.tensor(["a"])),
            caught(lambda: lib.tensor([1, "a"])), caught(lambda: lib.tensor([b"a"])),
            caught(lambda: lib.tensor([np.array(3)])),
            caught(lambda: lib.tensor([2 ** 63])), caught(lambda: lib.tensor([-2 ** 63 - 1])))


@scenario
def dtype_properties(lib):
    x = lib.tensor([1., 2.])
    return (x.dtype, x.is_floating_point(), lib.tensor([1]).is_floating_point(), x.ndim, x.dim(),
            x.numel(), x.element_size(), lib.tensor([1]).element_size(), lib.float, lib.double,
            lib.long, lib.get_default_dtype())


# ======================================================================
# Type promotion
# ======================================================================

@scenario
def promote_int_times_float_scalar(lib):
    return lib.tensor([1, 2]) * 2.5, lib.tensor([1, 2]) + 2, 2.5 * lib.tensor([1, 2])


@scenario
def promote_float32_plus_float64_zero_dim(lib):
    a = lib.tensor([1., 2.])
    return (a + lib.tensor(1., dtype=lib.float64), a + lib.tensor([1.], dtype=lib.float64),
            lib.tensor(1., dtype=lib.float64) + lib.tensor(1.))


@scenario
def promote_int_int_division(lib):
    return lib.tensor([1, 2, 3]) / lib.tensor([2, 2, 2]), lib.tensor([3]) / 2, 1 / lib.tensor([4])


@scenario
def promote_bool_arithmetic(lib):
    t = lib.tensor([True, False])
    return t + t, t * t, t * 2, t * 2.5, t + lib.tensor([1, 2]), t.sum(), t & t, t | ~t


@scenario
def promote_bool_sub_error(lib):
    t = lib.tensor([True, False])
    return t - t


@scenario
def promote_bool_neg_error(lib):
    return -lib.tensor([True, False])


@scenario
def promote_int32(lib):
    a = lib.tensor([1, 2], dtype=lib.int32)
    return a + lib.tensor(5), a * 2, a + lib.tensor([5]), a * 1.5, a + lib.tensor(1.5, dtype=lib.float64)


@scenario
def promote_int_plus_float_zero_dim(lib):
    return lib.tensor([1, 2]) + lib.tensor(1.5), lib.tensor([1, 2]) + lib.tensor(1.5, dtype=lib.float64)


@scenario
def promote_result_type(lib):
    return (lib.result_type(lib.tensor([1]), 1.0), lib.result_type(lib.tensor([1.]), lib.tensor(1., dtype=lib.float64)),
            lib.promote_types(lib.int64, lib.float32), lib.promote_types(lib.bool, lib.int32))


@scenario
def promote_int_negative_power_error(lib):
    return lib.tensor([2, 3]) ** -1


@scenario
def promote_int_power(lib):
    return lib.tensor([2, 3]) ** 2, lib.tensor([2, 3]) ** 0.5, 2 ** lib.tensor([1, 2]), 2.5 ** lib.tensor([1, 2])


@scenario
def promote_int_sum_mean(lib):
    x = lib.tensor([1, 2, 3], dtype=lib.int32)
    return x.sum(), x.sum(0), lib.tensor([1.5, 2.5], dtype=lib.float64).sum(), x.sum(dtype=lib.float32)


@scenario
def promote_int_mean_error(lib):
    return lib.tensor([1, 2]).mean()


@scenario
def promote_int_unary_to_float(lib):
    x = lib.tensor([1, 2])
    return lib.exp(x), lib.log(x), lib.sqrt(x), lib.sigmoid(x), lib.tanh(x), lib.sin(x), lib.abs(-x), x.relu()


@scenario
def promote_casts(lib):
    x = lib.tensor([1.5, -2.5], requires_grad=True)
    y = x.double()
    z = x.to(lib.float64) * 2
    (y.sum() + z.sum()).backward()
    return y, z, x.long(), x.int(), x.bool(), x.float() is x, x.grad, x.type_as(lib.tensor([1]))


@scenario
def promote_comparisons(lib):
    x = lib.tensor([1., 2., 3.])
    return x > 2, x >= 2, x < 2, x <= 2, x == 2, x != 2, lib.tensor([1, 2]) == lib.tensor([1., 3.])


@scenario
def promote_where_scalars(lib):
    c = lib.tensor([True, False])
    return lib.where(c, lib.tensor([1, 2]), 0.5), lib.where(c, lib.tensor([1., 2.]), 0), lib.where(c, 1., 0.)


# ======================================================================
# Elementwise ops, forward and backward
# ======================================================================

def _unary_scenario(name, fn, data):
    def run(lib):
        x = leaf(lib, data)
        y = fn(lib, x)
        g = lib.tensor(arr(np.shape(data), seed=7))
        y.backward(g)
        return y, x.grad
    run.__name__ = name
    scenario(run)


_SIGNED = arr((2, 3), seed=1) * 2
_POSITIVE = arr((2, 3), seed=2, low=0.2, high=3.0)
for _name, _fn, _data in [
    ("exp", lambda lib, x: lib.exp(x), _SIGNED),
    ("exp_method", lambda lib, x: x.exp(), _SIGNED),
    ("log", lambda lib, x: lib.log(x), _POSITIVE),
    ("sqrt", lambda lib, x: x.sqrt(), _POSITIVE),
    ("tanh", lambda lib, x: lib.tanh(x), _SIGNED),
    ("sigmoid", lambda lib, x: lib.sigmoid(x), _SIGNED),
    ("relu", lambda lib, x: lib.relu(x), _SIGNED),
    ("abs", lambda lib, x: lib.abs(x), _SIGNED),
    ("abs_operator", lambda lib, x: abs(x), _SIGNED),
    ("sin", lambda lib, x: lib.sin(x), _SIGNED),
    ("cos", lambda lib, x: x.cos(), _SIGNED),
    ("neg", lambda lib, x: -x, _SIGNED),
    ("reciprocal", lambda lib, x: x.reciprocal(), _POSITIVE),
    ("rtruediv", lambda lib, x: 2 / x, _POSITIVE),
    ("rsub", lambda lib, x: 2 - x, _SIGNED),
    ("radd", lambda lib, x: 2 + x, _SIGNED),
    ("rmul", lambda lib, x: 3 * x, _SIGNED),
    ("sign", lambda lib, x: lib.sign(x), _SIGNED),
    ("pow_2", lambda lib, x: x ** 2, _SIGNED),
    ("pow_3_negative_base", lambda lib, x: x ** 3, _SIGNED),
    ("pow_0", lambda lib, x: x ** 0, _SIGNED),
    ("pow_1", lambda lib, x: x ** 1, _SIGNED),
    ("pow_half", lambda lib, x: x ** 0.5, _POSITIVE),
    ("pow_half_negative_base", lambda lib, x: x ** 0.5, _SIGNED),
    ("pow_minus_1", lambda lib, x: x ** -1, _POSITIVE),
    ("pow_minus_2_5", lambda lib, x: x ** -2.5, _POSITIVE),
    ("pow_function", lambda lib, x: lib.pow(x, 3), _SIGNED),
    ("rpow", lambda lib, x: 2 ** x, _SIGNED),
    ("rpow_float_base", lambda lib, x: 0.5 ** x, _SIGNED),
    ("clamp_both", lambda lib, x: x.clamp(-0.5, 0.5), _SIGNED),
    ("clamp_min", lambda lib, x: lib.clamp(x, min=0.), _SIGNED),
    ("clamp_max", lambda lib, x: lib.clamp(x, max=0.3), _SIGNED),
    ("clip", lambda lib, x: lib.clip(x, -1, 1), _SIGNED),
    ("softmax_dim1", lambda lib, x: lib.softmax(x, 1), _SIGNED),
    ("softmax_dim0", lambda lib, x: x.softmax(0), _SIGNED),
    ("log_softmax_dim1", lambda lib, x: lib.log_softmax(x, dim=1), _SIGNED),
    ("log_softmax_dim_neg", lambda lib, x: x.log_softmax(-2), _SIGNED),
    ("clone", lambda lib, x: x.clone(), _SIGNED),
]:
    _unary_scenario("unary_" + _name, _fn, _data)


@scenario
def special_points_abs_relu_sqrt(lib):
    x = lib.tensor([0., -0., 1.], requires_grad=True)
    (x.abs().sum() + x.relu().sum() * 10).backward()
    z = lib.tensor([0., 4.], requires_grad=True)
    z.sqrt().sum().backward()
    return x.grad, z.grad


@scenario
def special_points_log_zero(lib):
    x = lib.tensor([0., 1.], requires_grad=True)
    y = x.log()
    y.sum().backward()
    return y, x.grad


@scenario
def special_points_pow_zero_zero(lib):
    x = lib.tensor([0., 0., 2.], requires_grad=True)
    e = lib.tensor([0., 2., 0.], requires_grad=True)
    y = x ** e
    y.sum().backward()
    return y, x.grad, e.grad


@scenario
def special_points_pow_scalar_zero_base(lib):
    e = lib.tensor([0., 1., -1., 2.], requires_grad=True)
    y = 0 ** e
    y.sum().backward()
    return y, e.grad


@scenario
def special_points_pow_number_of_zero(lib):
    x = lib.tensor([0., 1.], requires_grad=True)
    (x ** 0).sum().backward()
    a = x.grad.clone()
    x.grad = None
    (x ** 2).sum().backward()
    b = x.grad.clone()
    x.grad = None
    (x ** 0.5).sum().backward()
    return a, b, x.grad


@scenario
def special_points_pow_negative_base_tensor_exponent(lib):
    x = lib.tensor([-2., -2.], requires_grad=True)
    e = lib.tensor([3., 0.5], requires_grad=True)
    y = x ** e
    y.sum().backward()
    return y, x.grad, e.grad


@scenario
def special_points_clamp_boundary(lib):
    x = lib.tensor([-1., 0., 0.5, 1., 2.], requires_grad=True)
    x.clamp(0., 1.).sum().backward()
    return x.grad


@scenario
def special_points_clamp_tensor_bounds(lib):
    x = lib.tensor([-1., 0.5, 2.], requires_grad=True)
    lo = lib.tensor([0., 0., 0.], requires_grad=True)
    hi = lib.tensor([1., 1., 1.], requires_grad=True)
    y = lib.clamp(x, lo, hi)
    y.sum().backward()
    return y, x.grad, lo.grad, hi.grad


@scenario
def special_points_clamp_error(lib):
    return lib.clamp(lib.tensor([1.]))


@scenario
def special_points_sigmoid_tanh_large(lib):
    x = lib.tensor([-100., -20., 0., 20., 100.], requires_grad=True)
    y = x.sigmoid() + x.tanh()
    y.sum().backward()
    return y, x.grad


@scenario
def softmax_large_values(lib):
    x = lib.tensor([[1000., 1001., 1002.], [-1000., 0., 1000.]], requires_grad=True)
    y = lib.softmax(x, dim=1)
    z = lib.log_softmax(x, dim=1)
    (y[:, 0].sum() + z[:, 1].sum()).backward()
    return y, z, x.grad


@scenario
def softmax_float64_3d(lib):
    x = lib.tensor(arr((2, 3, 4), seed=3, dtype=np.float64), requires_grad=True)
    y = x.log_softmax(1)
    y.backward(lib.tensor(arr((2, 3, 4), seed=4, dtype=np.float64)))
    return y, x.grad


@scenario
def softmax_int_input(lib):
    return lib.softmax(lib.tensor([1, 2, 3]), 0)


# ---------------------------------------------------------------- binary ops

_BINARY = {
    "add": lambda lib, a, b: a + b,
    "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=2),
    "sub": lambda lib, a, b: a - b,
    "sub_alpha": lambda lib, a, b: lib.sub(a, b, alpha=3),
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a.abs() ** b,
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "max_binary": lambda lib, a, b: lib.max(a, b),
    "where": lambda lib, a, b: lib.where(a > b, a, b),
}
_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((4, 1, 3), (2, 1)), ((), (2, 2))]


def _binary_scenario(op, fn, sa, sb):
    def run(lib):
        a = leaf(lib, arr(sa, seed=1) + 2)
        b = leaf(lib, arr(sb, seed=2))
        y = fn(lib, a, b)
        y.backward(lib.tensor(arr(y.shape, seed=3)))
        return y, a.grad, b.grad
    run.__name__ = f"binary_{op}_{'x'.join(map(str, sa)) or 'scalar'}_{'x'.join(map(str, sb))}"
    scenario(run)


for _op, _fn in _BINARY.items():
    for _sa, _sb in _SHAPES:
        _binary_scenario(_op, _fn, _sa, _sb)


@scenario
def binary_one_side_requires_grad(lib):
    a = leaf(lib, [1., 2.])
    b = leaf(lib, [3., 4.], requires_grad=False)
    y = a * b + b / a - b
    y.sum().backward()
    return y, a.grad, b.grad, y.grad_fn


@scenario
def binary_with_python_scalars(lib):
    a = leaf(lib, [1., 2.])
    y = (a + 1) * 3 - 2 / (a * 0.5) + a ** 2.0 - 1.5
    y.sum().backward()
    return y, a.grad


@scenario
def binary_float64_with_float32(lib):
    a = leaf(lib, [1., 2.])
    b = leaf(lib, [3., 4.], dtype="float64")
    y = a * b
    y.sum().backward()
    return y, a.grad, b.grad


@scenario
def binary_broadcast_shape_error(lib):
    return lib.ones(2, 3) + lib.ones(2)


@scenario
def maximum_minimum_ties(lib):
    a = leaf(lib, [1., 2., 3.])
    b = leaf(lib, [1., 5., 3.])
    y = lib.maximum(a, b) + 10 * lib.minimum(a, b)
    y.sum().backward()
    return y, a.grad, b.grad


@scenario
def where_backward(lib):
    a = leaf(lib, [1., 2., 3.])
    b = leaf(lib, [4., 5., 6.])
    c = lib.tensor([True, False, True])
    y = lib.where(c, a * 2, b)
    y.sum().backward()
    return y, a.grad, b.grad


@scenario
def where_scalar_branch(lib):
    a = leaf(lib, [1., -2., 3.])
    y = lib.where(a > 0, a, 0.)
    y.sum().backward()
    return y, a.grad


@scenario
def broadcast_errors(lib):
    a, b = lib.ones(2, 3), lib.ones(4, 1, 2)
    return [caught(fn) for fn in (lambda: a * b, lambda: a - b, lambda: a / b, lambda: a ** b,
                                  lambda: lib.maximum(a, b), lambda: a < b,
                                  lambda: lib.where(a > 0, a, b), lambda: a.add_(lib.ones(3, 1)))]


@scenario
def clamp_tensor_bound_variants(lib):
    x = leaf(lib, [-2., -0.5, 0.5, 2., 1.])
    lo = leaf(lib, [-1., -1., -1., -1., 1.])
    hi = leaf(lib, [1., 1., 0., 1., 0.5])          # last: min > max, max wins
    a = lib.clamp(x, min=lo)
    b = x.clamp(max=hi)
    c = x.clamp(lo, hi)
    (a.sum() + 2 * b.sum() + 3 * c.sum()).backward()
    return a, b, c, x.grad, lo.grad, hi.grad


@scenario
def clamp_int_tensor(lib):
    return lib.tensor([1, 5, 9]).clamp(2, 8), lib.tensor([1, 5, 9]).clamp(min=lib.tensor([3, 3, 3]))


@scenario
def max_with_nan(lib):
    x = leaf(lib, [1., float("nan"), 3.])
    y = x.max()
    y.backward()
    return y, x.grad, lib.tensor([1., float("nan")]).amax()


@scenario
def sign_sgn_masked_fill(lib):
    x = leaf(lib, [-2., 0., 3.])
    y = x.sign() + x.sgn() + x.masked_fill(x > 0, 7.)
    y.sum().backward()
    return y, x.grad


@scenario
def unbind_backward(lib):
    x = leaf(lib, arr((3, 2), seed=46))
    a, b, c = x.unbind(0)
    p, q = lib.unbind(x, dim=1)
    (a * b).sum().backward(retain_graph=True)
    (p * 2).sum().backward()
    return (a, b, c), (p, q), x.grad, a._version


@scenario
def stack_errors_and_dtypes(lib):
    a = leaf(lib, [1., 2.])
    b = leaf(lib, [3., 4.], dtype="float64")
    s = lib.stack([a, b], 1)
    s.sum().backward()
    return s, a.grad, b.grad, caught(lambda: lib.stack([a, lib.ones(3)])), caught(lambda: lib.stack([]))


@scenario
def where_condition_not_bool(lib):
    return lib.where(lib.tensor([1, 0]), lib.tensor([1.]), lib.tensor([2.]))


# ======================================================================
# Reductions
# ======================================================================

def _reduction_scenario(name, fn, data=None):
    def run(lib):
        x = leaf(lib, arr((2, 3, 4), seed=5) if data is None else data)
        y = fn(lib, x)
        values = y[0] if isinstance(y, tuple) else y
        values.backward(lib.tensor(arr(values.shape, seed=6)))
        return y, x.grad
    run.__name__ = "reduce_" + name
    scenario(run)


_TIES = [[1., 3., 3.], [2., 2., 0.]]
for _name, _fn, _data in [
    ("sum", lambda lib, x: x.sum(), None),
    ("sum_dim0", lambda lib, x: x.sum(0), None),
    ("sum_dim_neg_keepdim", lambda lib, x: x.sum(-1, keepdim=True), None),
    ("sum_tuple_dims", lambda lib, x: lib.sum(x, (0, 2)), None),
    ("sum_tuple_dims_keepdim", lambda lib, x: x.sum(dim=(2, 0), keepdim=True), None),
    ("sum_list_dims", lambda lib, x: x.sum([1]), None),
    ("mean", lambda lib, x: x.mean(), None),
    ("mean_dim1", lambda lib, x: lib.mean(x, 1), None),
    ("mean_tuple_keepdim", lambda lib, x: x.mean((0, 1), keepdim=True), None),
    ("max_full", lambda lib, x: x.max(), None),
    ("min_full", lambda lib, x: lib.min(x), None),
    ("max_full_ties", lambda lib, x: x.max(), _TIES),
    ("min_full_ties", lambda lib, x: x.min(), _TIES),
    ("max_dim", lambda lib, x: x.max(1), None),
    ("max_dim_keepdim", lambda lib, x: lib.max(x, dim=-1, keepdim=True), None),
    ("min_dim", lambda lib, x: x.min(dim=0), None),
    ("max_dim_ties", lambda lib, x: x.max(1), _TIES),
    ("min_dim_ties", lambda lib, x: x.min(0), _TIES),
    ("amax_ties", lambda lib, x: x.amax(1), _TIES),
    ("amin_ties", lambda lib, x: lib.amin(x, 0), _TIES),
    ("amax_all_ties", lambda lib, x: x.amax(), _TIES),
    ("amax_tuple_keepdim", lambda lib, x: x.amax((0, 2), keepdim=True), None),
    ("amin_all", lambda lib, x: lib.amin(x), None),
]:
    _reduction_scenario(_name, _fn, _data)


@scenario
def reduce_max_dim_return_type(lib):
    x = lib.tensor([[1., 5.], [7., 2.]])
    r = x.max(1)
    values, indices = r
    return r.values, r.indices, values, indices, type(r).__name__


@scenario
def reduce_argmax_argmin(lib):
    x = lib.tensor([[1., 3., 3.], [2., 2., 0.]])
    return x.argmax(), x.argmin(), x.argmax(1), lib.argmin(x, dim=0, keepdim=True)


@scenario
def reduce_zero_dim(lib):
    x = lib.tensor(2., requires_grad=True)
    y = x.sum() + x.mean(0) + x.max() + x.amax()
    y.backward()
    return y, x.grad


@scenario
def reduce_max_dim_zero_dim_input(lib):
    x = lib.tensor(2., requires_grad=True)
    v, i = x.max(0)
    v.backward()
    return v, i, x.grad


@scenario
def reduce_dim_out_of_range(lib):
    return lib.ones(2, 3).sum(2)


@scenario
def reduce_repeated_dim(lib):
    return lib.ones(2, 3).sum((0, 0))


@scenario
def reduce_empty_max(lib):
    return lib.ones(0).max()


@scenario
def reduce_empty_sum_mean(lib):
    x = lib.ones(0, requires_grad=True)
    y = x.sum() + x.mean()
    y.backward()
    return y, x.grad


# ======================================================================
# Shapes and views
# ======================================================================

def _view_scenario(name, fn, shape=(2, 3, 4)):
    def run(lib):
        x = leaf(lib, arr(shape, seed=8))
        y = fn(lib, x)
        y.backward(lib.tensor(arr(y.shape, seed=9)))
        return y, x.grad, y.shape, y.is_contiguous()
    run.__name__ = "view_" + name
    scenario(run)


for _name, _fn, _shape in [
    ("reshape", lambda lib, x: x.reshape(6, 4), (2, 3, 4)),
    ("reshape_minus_one", lambda lib, x: x.reshape(-1), (2, 3, 4)),
    ("reshape_tuple", lambda lib, x: lib.reshape(x, (4, -1)), (2, 3, 4)),
    ("reshape_non_contiguous", lambda lib, x: x.transpose(0, 1).reshape(-1), (2, 3, 4)),
    ("view", lambda lib, x: x.view(3, 8), (2, 3, 4)),
    ("view_tuple", lambda lib, x: x.view((24,)), (2, 3, 4)),
    ("flatten", lambda lib, x: x.flatten(), (2, 3, 4)),
    ("flatten_range", lambda lib, x: lib.flatten(x, 1), (2, 3, 4)),
    ("transpose", lambda lib, x: x.transpose(0, 2), (2, 3, 4)),
    ("transpose_neg", lambda lib, x: lib.transpose(x, -1, -2), (2, 3, 4)),
    ("permute", lambda lib, x: x.permute(2, 0, 1), (2, 3, 4)),
    ("permute_tuple", lambda lib, x: lib.permute(x, (1, 2, 0)), (2, 3, 4)),
    ("T", lambda lib, x: x.T, (3, 4)),
    ("t", lambda lib, x: x.t(), (3, 4)),
    ("t_function_1d", lambda lib, x: lib.t(x), (3,)),
    ("mT", lambda lib, x: x.mT, (2, 3, 4)),
    ("squeeze_all", lambda lib, x: x.squeeze(), (1, 3, 1)),
    ("squeeze_dim", lambda lib, x: x.squeeze(0), (1, 3, 1)),
    ("squeeze_dim_not_one", lambda lib, x: x.squeeze(1), (1, 3, 1)),
    ("squeeze_tuple", lambda lib, x: x.squeeze((0, 1)), (1, 3, 1)),
    ("squeeze_neg", lambda lib, x: lib.squeeze(x, -1), (1, 3, 1)),
    ("unsqueeze", lambda lib, x: x.unsqueeze(0), (2, 3)),
    ("unsqueeze_neg", lambda lib, x: lib.unsqueeze(x, -1), (2, 3)),
    ("expand", lambda lib, x: x.expand(2, 3, 4), (3, 1)),
    ("expand_minus_one", lambda lib, x: x.expand(5, -1, 4), (3, 1)),
    ("expand_as", lambda lib, x: x.expand_as(lib.ones(3, 2)), (1, 2)),
    ("broadcast_to", lambda lib, x: lib.broadcast_to(x, (2, 3)), (3,)),
    ("contiguous", lambda lib, x: x.t().contiguous(), (3, 4)),
    ("chain", lambda lib, x: x.permute(1, 0, 2).reshape(3, 8).t().unsqueeze(1).squeeze(), (2, 3, 4)),
]:
    _view_scenario(_name, _fn, _shape)


@scenario
def view_reshape_alias(lib):
    x = leaf(lib, arr((2, 3), seed=8))
    outs = [x.t().reshape(3, 2), x.t().reshape(3, 2, 1), x.t().reshape(6), x.t().flatten(),
            x.unsqueeze(1).expand(2, 4, 3).reshape(2, 4, 3, 1), x.unsqueeze(1).expand(2, 4, 3).reshape(8, 3)]
    sum((o * o).sum() for o in outs).backward()
    return outs, [o.is_contiguous() for o in outs], x.grad


@scenario
def view_contiguity_of_results(lib):
    x = lib.tensor(arr((4, 3, 2), seed=9)).permute(2, 1, 0)
    return [t.is_contiguous() for t in (x, x * 2, x.exp(), x.sum(0), x.sum(1, keepdim=True),
                                        x.mean(0), x.amax(0), x.max(0).values, x.softmax(0),
                                        x.log_softmax(1), x.clone(), x.contiguous())]


@scenario
def view_T_other_dims(lib):
    x = leaf(lib, [1., 2., 3.])
    s = leaf(lib, 2.)
    b = leaf(lib, arr((2, 3, 4), seed=9))
    ys = [x.T, s.T, b.T, b.mT]
    sum((y * y).sum() for y in ys).backward()
    return ys, x.grad, s.grad, b.grad, caught(lambda: x.mT)


@scenario
def view_non_contiguous_error(lib):
    return lib.ones(2, 3).t().view(-1)


@scenario
def view_invalid_shape_error(lib):
    return lib.ones(2, 3).view(4, 2)


@scenario
def view_two_minus_ones(lib):
    return lib.ones(2, 3).reshape(-1, -1)


@scenario
def view_expand_error(lib):
    return lib.ones(2, 3).expand(4, 3)


@scenario
def view_shares_storage_and_version(lib):
    x = lib.tensor([[1., 2.], [3., 4.]])
    v = x.view(4)
    t = x.t()
    v.mul_(2)
    return x, v, t, x._version, t._version


@scenario
def view_t_3d_error(lib):
    return lib.ones(2, 3, 4).t()


@scenario
def view_permute_error(lib):
    return lib.ones(2, 3).permute(0, 0)


@scenario
def join_cat_stack(lib):
    a = leaf(lib, [[1., 2.]])
    b = leaf(lib, [[3., 4.], [5., 6.]])
    c = lib.cat([a, b], 0)
    s = lib.stack([a[0], b[1]], dim=1)
    (c * lib.tensor([[1.], [2.], [3.]])).sum().backward(retain_graph=True)
    s.sum().backward()
    return c, s, a.grad, b.grad


# ======================================================================
# Indexing
# ======================================================================

def _index_scenario(name, key, shape=(3, 4)):
    def run(lib):
        x = leaf(lib, arr(shape, seed=10))
        k = key(lib) if callable(key) else key
        y = x[k]
        y.backward(lib.tensor(arr(y.shape, seed=11)))
        return y, x.grad
    run.__name__ = "index_" + name
    scenario(run)


for _name, _key, _shape in [
    ("int", 1, (3, 4)),
    ("negative_int", -1, (3, 4)),
    ("int_int", (1, 2), (3, 4)),
    ("slice", slice(1, None), (3, 4)),
    ("slice_step", (slice(None), slice(None, None, 2)), (3, 4)),
    ("slice_negative", slice(-2, None), (3, 4)),
    ("slice_out_of_range", slice(1, 10), (3, 4)),
    ("slice_empty", slice(2, 1), (3, 4)),
    ("column", (slice(None), 0), (3, 4)),
    ("none", None, (3, 4)),
    ("none_middle", (slice(None), None, 1), (3, 4)),
    ("ellipsis", Ellipsis, (3, 4)),
    ("ellipsis_int", (Ellipsis, 0), (2, 3, 4)),
    ("int_ellipsis", (0, Ellipsis), (2, 3, 4)),
    ("mixed_basic", (slice(1, None), None, slice(None, None, 2)), (3, 4)),
    ("int_list_repeats", [0, 0, 2], (3, 4)),
    ("int_list_negative", [-1, 0], (3, 4)),
    ("int_tensor", lambda lib: lib.tensor([2, 0, 2]), (3, 4)),
    ("int_tensor_2d", lambda lib: lib.tensor([[0, 1], [1, 1]]), (3, 4)),
    ("two_lists", ([0, 2, 2], [1, 3, 1]), (3, 4)),
    ("int_and_list", (1, [0, 3, 3]), (3, 4)),
    ("slice_and_list", (slice(None), [3, 0]), (3, 4)),
    ("list_and_slice", ([2, 1], slice(1, 3)), (3, 4)),
    ("bool_mask", lambda lib: lib.tensor([[True, False, True, False]] * 3), (3, 4)),
    ("bool_rows", lambda lib: lib.tensor([True, False, True]), (3, 4)),
    ("bool_list", [True, False, True], (3, 4)),
    ("bool_rows_and_int", lambda lib: (lib.tensor([True, False, True]), 1), (3, 4)),
    ("comparison_mask", lambda lib: lib.tensor(arr((3, 4), seed=10)) > 0, (3, 4)),
    ("ellipsis_list", (Ellipsis, [0, 0]), (2, 3, 4)),
    ("zero_dim_tensor_index", lambda lib: lib.tensor(1), (3, 4)),
]:
    _index_scenario(_name, _key, _shape)


@scenario
def index_out_of_range(lib):
    return lib.ones(3)[3]


@scenario
def index_too_many(lib):
    return lib.ones(3)[0, 0]


@scenario
def index_float_tensor_error(lib):
    return lib.ones(3)[lib.tensor([0.])]


@scenario
def index_basic_is_view(lib):
    x = lib.tensor([[1., 2.], [3., 4.]])
    row = x[0]
    row.add_(10)
    return x, row, row._version, x._version


@scenario
def index_advanced_is_copy(lib):
    x = lib.tensor([[1., 2.], [3., 4.]])
    rows = x[[0]]
    rows.add_(10)
    return x, rows, x._version


@scenario
def setitem_non_leaf(lib):
    x = leaf(lib, [1., 2., 3., 4.])
    y = x * 2
    y[0] = 5.
    y[1:3] = lib.tensor([7., 8.])
    y.backward(lib.tensor([1., 2., 3., 4.]))
    return y, x.grad, y._version


@scenario
def setitem_tensor_value_requires_grad(lib):
    x = leaf(lib, [1., 2., 3.])
    v = leaf(lib, [10., 20.])
    y = x.clone()
    y[[0, 2]] = v * 3
    y.backward(lib.tensor([1., 2., 3.]))
    return y, x.grad, v.grad


@scenario
def setitem_broadcast_value(lib):
    x = leaf(lib, [[1., 2.], [3., 4.]])
    v = leaf(lib, [5.])
    y = x * 1
    y[:, 1] = v
    y.sum().backward()
    return y, x.grad, v.grad


@scenario
def setitem_bool_mask(lib):
    x = leaf(lib, [-1., 2., -3.])
    y = x + 0
    y[y < 0] = 0.
    y.sum().backward()
    return y, x.grad


@scenario
def setitem_no_grad_data(lib):
    x = lib.tensor([[1, 2], [3, 4]])
    x[0, 1] = 9
    x[1] = lib.tensor([7, 8])
    x[:, 0] = 2.7
    return x, x._version


def _setitem_scenario(name, key, value_shape):
    def run(lib):
        x = leaf(lib, arr((2, 3), seed=40))
        v = leaf(lib, arr(value_shape, seed=41))
        y = x * 1
        y[key] = v
        y.backward(lib.tensor(arr((2, 3), seed=42)))
        return y, x.grad, v.grad, y._version
    run.__name__ = "setitem_" + name
    scenario(run)


for _name, _key, _shape in [
    ("row_broadcast_from_1", 0, (1,)),
    ("row_leading_ones", 0, (1, 1, 3)),
    ("row_zero_dim_value", 1, ()),
    ("column", (slice(None), 2), (2,)),
    ("whole_slice", slice(None), (2, 3)),
    ("whole_slice_broadcast", slice(None), (3,)),
    ("ellipsis_zero_dim", Ellipsis, ()),
    ("ellipsis_full_slice", (Ellipsis, slice(0, 10)), (1, 3)),
    ("none_key", None, (3,)),
    ("int_pair", (1, 2), (1,)),
    ("step_slice", (slice(None), slice(None, None, 2)), (2, 2)),
    ("advanced_rows", [1, 0], (2, 3)),
    ("advanced_broadcast", [1, 0], (3,)),
    ("advanced_zero_dim", [1], ()),
    ("advanced_leading_one", [0, 1], (1, 3)),
    ("advanced_pairs", ([0, 1], [2, 0]), (2,)),
    ("mask", (np.array([[True, False, True], [False, False, True]]),), (3,)),
]:
    _setitem_scenario(_name, _key, _shape)


@scenario
def setitem_number_keys(lib):
    x = leaf(lib, arr((2, 3), seed=43))
    out = []
    for key in (0, Ellipsis, [0], (slice(None), 1), slice(None)):
        y = x * 1
        y[key] = 5.
        out.append(y)
    sum(o.sum() for o in out).backward()
    return out, x.grad


@scenario
def setitem_other_dtype_value(lib):
    x = leaf(lib, arr((2, 3), seed=44))
    v = leaf(lib, arr((3,), seed=45), dtype="float64")
    y = x * 1
    y[1] = v
    y.sum().backward()
    return y, x.grad, v.grad


@scenario
def setitem_leaf_advanced_error(lib):
    x = leaf(lib, [1., 2.])
    x[[0]] = 3.


@scenario
def setitem_leaf_whole_error(lib):
    x = leaf(lib, [1., 2.])
    x[:] = 3.


@scenario
def setitem_leaf_requires_grad_error(lib):
    x = leaf(lib, [1., 2.])
    x[0] = 3.


@scenario
def setitem_leaf_under_no_grad(lib):
    x = leaf(lib, [1., 2.])
    with lib.no_grad():
        x[0] = 3.
    (x * x).sum().backward()
    return x, x.grad, x._version


# ======================================================================
# Matrix products
# ======================================================================

def _matmul_scenario(sa, sb, ga=True, gb=True):
    def run(lib):
        a = leaf(lib, arr(sa, seed=12), requires_grad=ga)
        b = leaf(lib, arr(sb, seed=13), requires_grad=gb)
        y = a @ b
        y.backward(lib.tensor(arr(y.shape, seed=14)))
        return y, a.grad, b.grad
    run.__name__ = (f"matmul_{'x'.join(map(str, sa))}_{'x'.join(map(str, sb))}"
                    f"{'' if ga else '_a_const'}{'' if gb else '_b_const'}")
    scenario(run, rtol=1e-4, atol=1e-5)


for _sa, _sb in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((6, 5, 2, 3), (5, 3, 4)),
                 ((1, 2, 3), (6, 3, 4)), ((6, 1, 2, 3), (1, 5, 3, 4)), ((6, 5, 2, 3), (3, 4)),
                 ((6, 5, 2, 3), (3,))]:
    _matmul_scenario(_sa, _sb)
for _sa, _sb in [((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((6, 5, 2, 3), (3, 4))]:
    _matmul_scenario(_sa, _sb, ga=False)
    _matmul_scenario(_sa, _sb, gb=False)


# Batches of one: PyTorch squeezes a 3-D operand that requires grad, or folds.
for _sa, _sb in [((1, 2, 3), (6, 3, 4)), ((6, 2, 3), (1, 3, 4)), ((1, 1, 2, 3), (6, 3, 4)),
                 ((1, 2, 3), (1, 3, 4)), ((2, 3), (1, 3, 4)), ((1, 2, 3), (5, 1, 3, 4))]:
    if _sa != (1, 2, 3) or _sb != (6, 3, 4):
        _matmul_scenario(_sa, _sb)
    _matmul_scenario(_sa, _sb, ga=False)
    _matmul_scenario(_sa, _sb, gb=False)


@scenario(rtol=1e-4, atol=1e-5)
def matmul_transposed_batch_vector(lib):
    a = leaf(lib, arr((3, 4, 2), seed=1)).transpose(0, 1)       # not foldable without a copy
    v = leaf(lib, arr((2,), seed=2), requires_grad=False)
    y = a @ v
    y.sum().backward()
    return y, y.is_contiguous()


@scenario(rtol=1e-4, atol=1e-5)
def matmul_no_grad_mode(lib):
    a = leaf(lib, arr((5, 2, 3), seed=1))
    b = leaf(lib, arr((3, 4), seed=2))
    with lib.no_grad():
        y = a @ b
    return y, y.is_contiguous()


@scenario(rtol=1e-4, atol=1e-5)
def matmul_functions(lib):
    a = leaf(lib, arr((2, 3), seed=1))
    b = leaf(lib, arr((3, 4), seed=2))
    v = leaf(lib, arr((3,), seed=3))
    c = leaf(lib, arr((4,), seed=4))
    bias = leaf(lib, arr((4,), seed=5))
    ba = leaf(lib, arr((2, 2, 3), seed=6))
    bb = leaf(lib, arr((2, 3, 2), seed=7))
    outs = [lib.mm(a, b), lib.mv(a, v), lib.dot(v, v), lib.bmm(ba, bb), lib.addmm(bias, a, b),
            lib.addmm(bias, a, b, beta=0.5, alpha=2), lib.matmul(a, b), b.mv(c)]
    sum(o.sum() for o in outs).backward()
    return outs, a.grad, b.grad, v.grad, c.grad, bias.grad, ba.grad, bb.grad


@scenario
def matmul_shape_error(lib):
    return lib.ones(2, 3) @ lib.ones(2, 3)


@scenario
def matmul_dtype_error(lib):
    return lib.ones(2, 3) @ lib.ones(3, 2, dtype=lib.float64)


@scenario
def matmul_zero_dim_error(lib):
    return lib.matmul(lib.tensor(1.), lib.ones(2))


@scenario
def matmul_batch_mismatch(lib):
    return lib.ones(2, 2, 3) @ lib.ones(3, 3, 4)


@scenario
def matmul_int(lib):
    return lib.tensor([[1, 2], [3, 4]]) @ lib.tensor([[1], [1]]), lib.tensor([1, 2]) @ lib.tensor([3, 4])


# ======================================================================
# Losses
# ======================================================================

@scenario
def loss_nll_mean(lib):
    x = leaf(lib, arr((4, 3), seed=15))
    target = lib.tensor([0, 2, 1, 2])
    logp = lib.log_softmax(x, 1)
    loss = F(lib).nll_loss(logp, target)
    loss.backward()
    return loss, x.grad


@scenario
def loss_nll_reductions(lib):
    x = leaf(lib, arr((4, 3), seed=16))
    target = lib.tensor([1, 1, 0, 2])
    a = F(lib).nll_loss(x, target, reduction="sum")
    b = F(lib).nll_loss(x, target, reduction="none")
    b.backward(lib.tensor([1., 2., 3., 4.]))
    a.backward()
    return a, b, x.grad


@scenario
def loss_nll_weight_ignore_index(lib):
    x = leaf(lib, arr((4, 3), seed=17))
    target = lib.tensor([0, 2, -100, 1])
    w = lib.tensor([1., 2., 0.5])
    loss = F(lib).nll_loss(x, target, weight=w)
    loss2 = F(lib).nll_loss(x, lib.tensor([0, 2, 1, 1]), ignore_index=1)
    (loss + loss2).backward()
    return loss, loss2, x.grad


@scenario
def loss_nll_1d_input(lib):
    x = leaf(lib, arr((3,), seed=18))
    loss = F(lib).nll_loss(x, lib.tensor(1))
    loss.backward()
    return loss, x.grad


@scenario
def loss_nll_target_out_of_bounds(lib):
    return F(lib).nll_loss(lib.ones(2, 3), lib.tensor([0, 3]))


@scenario
def loss_nll_float_target(lib):
    return F(lib).nll_loss(lib.ones(2, 3), lib.tensor([0., 1.]))


@scenario
def loss_cross_entropy_via_log_softmax(lib):
    logits = leaf(lib, arr((5, 4), seed=19) * 10)
    target = lib.tensor([3, 0, 1, 1, 2])
    loss = F(lib).nll_loss(logits.log_softmax(dim=1), target)
    loss.backward()
    return loss, logits.grad


@scenario
def loss_mse(lib):
    x = leaf(lib, arr((3, 2), seed=20))
    y = leaf(lib, arr((3, 2), seed=21))
    losses = [F(lib).mse_loss(x, y), F(lib).mse_loss(x, y, reduction="sum"),
              F(lib).mse_loss(x, y, reduction="none")]
    (losses[0] + losses[1] + losses[2].sum()).backward()
    return losses, x.grad, y.grad


@scenario
def loss_mse_constant_target(lib):
    x = leaf(lib, arr((4,), seed=22))
    loss = F(lib).mse_loss(x, lib.zeros(4))
    loss.backward()
    return loss, x.grad


@scenario
def loss_bad_reduction(lib):
    return F(lib).mse_loss(lib.ones(2), lib.ones(2), reduction="avg")


# ======================================================================
# Leaves, requires_grad, grad_fn
# ======================================================================

@scenario
def leaf_rules(lib):
    a = lib.tensor([1., 2.])
    b = lib.tensor([1., 2.], requires_grad=True)
    c = b * 2
    d = a * 2
    e = c.detach()
    return [(t.is_leaf, t.requires_grad, t.grad_fn is None) for t in (a, b, c, d, e)]


@scenario
def requires_grad_propagation(lib):
    a = lib.tensor([1., 2.])
    b = lib.tensor([3., 4.], requires_grad=True)
    return a + a, a + b, b.sum(), (a * 2).exp(), lib.where(a > 1, a, b), a[0], b[0]


@scenario
def requires_grad_false_on_non_leaf(lib):
    b = lib.tensor([3., 4.], requires_grad=True)
    c = b * 2
    c.requires_grad = False


@scenario
def requires_grad_true_on_non_leaf_is_fine(lib):
    b = lib.tensor([3., 4.], requires_grad=True)
    c = b * 2
    c.requires_grad_(True)
    c.requires_grad = True
    return c


@scenario
def requires_grad_toggle_leaf(lib):
    a = lib.tensor([1., 2.], requires_grad=True)
    a.requires_grad_(False)
    b = a * 2
    a.requires_grad = True
    c = a * 2
    return b, c


@scenario
def grad_fn_next_functions(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    y = (x * w + x).exp().sum()
    return y.grad_fn, y.grad_fn.next_functions[0][0], len(y.grad_fn.next_functions)


@scenario
def grad_fn_none_input_edges(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    c = lib.tensor([3., 4.])
    y = c * x
    z = x * c
    return y.grad_fn.next_functions[0][0] is None, z.grad_fn.next_functions[1][0] is None, y, z


@scenario
def grad_fn_accumulate_grad_shared(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = x + 1
    n1 = y.grad_fn.next_functions[0][0]
    n2 = z.grad_fn.next_functions[0][0]
    return n1 is n2, n1.variable is x, type(n1).__name__


@scenario
def grad_fn_saved_values(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.])
    y = x.exp()
    z = x * w
    return y.grad_fn._saved_result, z.grad_fn._saved_other


@scenario
def grad_fn_call_directly(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * lib.tensor([3., 4.])
    return y.grad_fn(lib.tensor([1., 1.]))


# ======================================================================
# backward(): accumulation, retain_graph, errors
# ======================================================================

@scenario
def backward_accumulates(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * 2).sum().backward()
    first = x.grad.clone()
    g = x.grad
    (x * x).sum().backward()
    return first, x.grad, g is x.grad, x.grad._version


@scenario
def backward_zero_grad_then_again(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * 2).sum().backward()
    x.grad.zero_()
    (x * 3).sum().backward()
    return x.grad


@scenario
def backward_grad_set_to_none(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * 2).sum().backward()
    x.grad = None
    (x * 3).sum().backward()
    return x.grad


@scenario
def backward_grad_assign_wrong_shape(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    x.grad = lib.zeros(3)


@scenario
def backward_grad_assign_wrong_dtype(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    return (caught(lambda: setattr(x, "grad", lib.zeros(2, dtype=lib.float64))),
            caught(lambda: setattr(x, "grad", lib.zeros(2, dtype=lib.int64))),
            caught(lambda: setattr(x, "grad", [1., 2.])))


@scenario
def requires_grad_flags_on_non_leaf(lib):
    c = lib.tensor([3., 4.], requires_grad=True) * 2
    return (caught(lambda: setattr(c, "requires_grad", False)), caught(lambda: c.requires_grad_(False)),
            c.requires_grad_(True), lib.tensor([1, 2]).requires_grad_(False))


@scenario
def backward_freed_graph_error(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


@scenario
def backward_freed_graph_exp(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x.exp().sum()
    y.backward()
    return caught(y.backward), x.grad


@scenario
def backward_twice_nothing_saved(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    return x.grad


@scenario
def backward_retain_graph_twice(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad, caught(y.backward)


@scenario
def backward_saved_tensor_after_free(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * x
    y.sum().backward()
    return y.grad_fn._saved_self


@scenario
def multi_grad_hook_once_per_pass(lib):
    # "all": once the tensors a pass reaches have their gradients, None for the others;
    # "any": the first gradient of each pass
    a = lib.tensor([1., 2.], requires_grad=True)
    b = lib.tensor([3., 4.], requires_grad=True)
    c = lib.tensor([5.], requires_grad=True)
    log = []
    register = lib.autograd.graph.register_multi_grad_hook
    handles = [register((a, b, c), lambda gs: log.append(("all", [None if g is None else g.tolist() for g in gs]))),
               register((a, b, c), lambda g: log.append(("any", g.tolist())), mode="any")]
    (a * b).sum().backward()
    (c * 2).sum().backward()
    (a.sum() + c.sum()).backward()
    for h in handles:
        h.remove()
    (a * b).sum().backward()
    return log


@scenario
def node_post_hook_sees_gradients_fitted_to_inputs(lib):
    # PyTorch runs validate_outputs before a node's post-hooks: the hook of a broadcast add
    # sees b's gradient already summed to b's shape (1,)
    a = lib.ones(3, requires_grad=True)
    b = lib.ones(1, requires_grad=True)
    y = a + b
    log = []
    y.grad_fn.register_hook(lambda gi, go: log.append(([list(g.shape) for g in gi], [list(g.shape) for g in go])))
    y.sum().backward()
    return log, b.grad


@scenario
def node_hooks_may_replace_gradients(lib):
    # a post-hook's tuple replaces the node's input gradients (the next post-hook sees it, and
    # it is what flows on); a pre-hook's replaces what the node runs on
    x = lib.tensor([2., 3.], requires_grad=True)
    y = x * x
    log = []
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", [None if g is None else g.tolist() for g in gi])))
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.sum().backward()
    return log, x.grad


@scenario
def node_hook_results_are_checked(lib):
    # what a node's hook returns must be a tuple of the right length, None where None was
    def result(kind, returned):
        x = lib.tensor([2., 3.], requires_grad=True)
        y = x * lib.tensor([1., 2.])
        if kind == "pre":
            y.grad_fn.register_prehook(lambda go: returned(go))
        else:
            y.grad_fn.register_hook(lambda gi, go: returned(gi))
        return caught(y.sum().backward), x.grad
    return [result("pre", lambda g: [g[0]]), result("pre", lambda g: (g[0], g[0])),
            result("post", lambda g: (g[0],)), result("post", lambda g: (g[0], g[0])),
            result("post", lambda g: 3), result("post", lambda g: (None, None))]


@scenario
def accumulate_grad_node_hooks_run(lib):
    # the AccumulateGrad node's pre-hooks and post-hooks run (post: no input gradients)
    a = lib.tensor([1., 2.], requires_grad=True)
    log = []
    acc = (a * 2).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
    acc.register_hook(lambda gi, go: log.append(("post", list(gi), [g.tolist() for g in go])))
    (a * 2).sum().backward()
    return log, a.grad


@scenario
def function_node_hooks_see_unmaterialized_gradients(lib):
    # a Function's node fills in zeros inside its backward: its hooks see None
    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, a, b):
            return a + b
    x = lib.tensor([1., 2.], requires_grad=True)
    u, v = TwoOut.apply(x)
    log = []
    u.grad_fn.register_prehook(lambda go: log.append(("pre", [None if g is None else g.tolist() for g in go])))
    u.grad_fn.register_hook(lambda gi, go: log.append(("post", [g.tolist() for g in gi],
                                                        [None if g is None else g.tolist() for g in go])))
    u.sum().backward()
    return log, x.grad


@scenario
def queue_callback_runs_after_the_pass(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    log = []
    engine = lib.autograd.Variable._execution_engine

    def hook(grad):
        engine.queue_callback(lambda: log.append(("callback", x.grad.tolist())))
        log.append(("hook", grad.tolist()))
    y = x * 3
    y.register_hook(hook)
    y.sum().backward()
    v = lib.autograd.Variable(y, requires_grad=True)
    return (log, caught(engine.queue_callback, lambda: None), v.is_leaf, v.requires_grad,
            isinstance(x, lib.autograd.Variable), v.grad_fn)


@scenario
def unsaved_input_reads_none(lib):
    # x * c with c constant keeps c for x's gradient, and not x: _saved_self is None,
    # before and after backward; _saved_other is kept, then freed.
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    c = lib.tensor([4., 5., 6.])
    y = x * c
    before = (y.grad_fn._saved_self, y.grad_fn._saved_other)
    y.sum().backward()
    return before, y.grad_fn._saved_self, caught(lambda: y.grad_fn._saved_other)


@scenario
def backward_gradient_argument(lib):
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    y.backward(gradient=lib.tensor([1., 0.1, 0.01]))
    return x.grad


@scenario
def backward_gradient_shape_error(lib):
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    (x * 2).backward(lib.tensor([1., 2.]))


@scenario
def backward_gradient_wrong_shape_broadcastable(lib):
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    (x * 2).backward(lib.tensor(1.))


@scenario
def backward_non_scalar_implicit(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * 2).backward()


@scenario
def backward_single_element_non_scalar(lib):
    x = lib.tensor([3.], requires_grad=True)
    y = (x * 2).view(1, 1)
    y.backward()
    return x.grad


@scenario
def backward_no_requires_grad(lib):
    x = lib.tensor([1., 2.])
    x.sum().backward()


@scenario
def backward_leaf_itself(lib):
    x = lib.tensor(2., requires_grad=True)
    x.backward()
    return x.grad


@scenario
def backward_inputs_leaf(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    (x * w).sum().backward(inputs=[x])
    return x.grad, w.grad


@scenario
def backward_inputs_non_leaf(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    y.backward(inputs=[h])
    return h.grad, x.grad, h.retains_grad


@scenario
def backward_inputs_tensor(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    (x * w).sum().backward(inputs=w)
    return x.grad, w.grad


@scenario
def backward_inputs_empty(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * 2).sum().backward(inputs=[])


@scenario
def backward_diamond(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    a = x * 2
    b = x.exp()
    y = (a * b + a).sum()
    y.backward()
    return x.grad


@scenario
def backward_same_input_twice(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x * x + x / x).sum()
    y.backward()
    return x.grad, y.grad_fn


@scenario
def backward_through_int_cast_breaks(lib):
    x = lib.tensor([1.5, 2.5], requires_grad=True)
    y = x.long()
    return y, y.requires_grad


@scenario
def backward_dtype_of_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x.double() * 3).sum()
    y.backward()
    return x.grad, y


@scenario
def backward_autograd_backward_function(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    a = (x * 2).sum()
    b = (x * x).sum()
    lib.autograd.backward([a, b])
    return x.grad


@scenario
def backward_autograd_backward_grad_tensors(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    lib.autograd.backward(y, grad_tensors=lib.tensor([1., 3.]))
    return x.grad


# ======================================================================
# retain_grad and hooks
# ======================================================================

@scenario
def retain_grad_non_leaf(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    h.retain_grad()
    (h * h).sum().backward()
    return h.grad, x.grad, h.retains_grad, x.retains_grad


@scenario
def retain_grad_accumulates(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    y.backward()
    return h.grad


@scenario
def retain_grad_on_leaf_is_noop(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    x.retain_grad()
    (x * 2).sum().backward()
    return x.grad, x.retains_grad


@scenario
def retain_grad_no_requires_grad(lib):
    lib.tensor([1.]).retain_grad()


@scenario
def non_leaf_grad_warning(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    h.sum().backward()
    return h.grad


@scenario
def non_leaf_grad_no_warning_when_retained(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    h.retain_grad()
    before = h.grad
    h.sum().backward()
    return before, h.grad, x.grad


@scenario
def leaf_grad_no_warning(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    before = x.grad
    c = lib.tensor([1.])
    return before, c.grad


@scenario
def hook_doubles_then_retain_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: g * 2)
    h.retain_grad()
    h.sum().backward()
    return h.grad, x.grad


@scenario
def hook_after_retain_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 3
    h.retain_grad()
    h.register_hook(lambda g: g * 2)
    h.sum().backward()
    return h.grad, x.grad


@scenario
def hook_on_leaf(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    return seen, x.grad


@scenario
def hook_order_and_remove(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 1
    order = []
    h.register_hook(lambda g: order.append("a"))
    handle = h.register_hook(lambda g: g + 100)
    h.register_hook(lambda g: (order.append("c"), g * 2)[1])
    handle.remove()
    h.sum().backward()
    return order, x.grad


@scenario
def hook_on_no_grad_tensor(lib):
    lib.tensor([1.]).register_hook(lambda g: g)


@scenario
def hook_returns_none_leaves_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(1))
    (x * 5).sum().backward()
    return calls, x.grad


@scenario
def hook_on_node(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (tuple(g.clone() for g in grad_inputs), tuple(g.clone() for g in grad_outputs))))
    y.sum().backward()
    return seen, x.grad


@scenario
def hook_node_prehook(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 3,))
    y.sum().backward()
    return x.grad


# ======================================================================
# autograd.grad
# ======================================================================

@scenario
def grad_basic(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x ** 2).sum()
    (g,) = lib.autograd.grad(y, x)
    return g, x.grad


@scenario
def grad_two_inputs(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    gx, gw = lib.autograd.grad((x * w).sum(), [x, w])
    return gx, gw


@scenario
def grad_unused_error(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    lib.autograd.grad((x * 2).sum(), [x, w])


@scenario
def grad_allow_unused(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    return lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)


@scenario
def grad_materialize(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    return lib.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)


@scenario
def grad_input_no_requires_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    lib.autograd.grad((x * 2).sum(), lib.tensor([1.]))


@scenario
def grad_non_leaf_input(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x.exp()
    y = (h * h).sum()
    return lib.autograd.grad(y, h), x.grad


@scenario
def grad_grad_outputs(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * x
    return lib.autograd.grad(y, x, grad_outputs=lib.tensor([1., 10.]))


@scenario
def grad_second_derivative_cube(lib):
    x = lib.tensor([1., 2., -3.], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (g2,) = lib.autograd.grad(g.sum(), x, create_graph=True)
    (g3,) = lib.autograd.grad(g2.sum(), x)
    return g, g2, g3


@scenario
def grad_create_graph_requires_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (g,) = lib.autograd.grad((x * x).sum(), x, create_graph=True)
    (h,) = lib.autograd.grad((x * x).sum(), x)
    return g.requires_grad, h.requires_grad, g, h


@scenario
def grad_second_derivative_functions(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x.exp() + x.tanh() + x.sigmoid() + x.sin() * x.cos() + x.log_softmax(0)).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (g2,) = lib.autograd.grad(g.sum(), x)
    return g, g2


@scenario
def grad_hessian_vector_product(lib):
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    a = lib.tensor([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]])
    y = 0.5 * (x @ a @ x) + (x ** 3).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    v = lib.tensor([1., 0., -1.])
    (hv,) = lib.autograd.grad((g * v).sum(), x)
    return g, hv


@scenario
def grad_second_derivative_mixed(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    y = (x * x * w).sum()
    (gx,) = lib.autograd.grad(y, x, create_graph=True)
    return lib.autograd.grad(gx.sum(), [x, w])


@scenario
def grad_freed_after_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    lib.autograd.grad(y, x)
    lib.autograd.grad(y, x)


@scenario
def grad_retain_graph(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    a = lib.autograd.grad(y, x, retain_graph=True)
    b = lib.autograd.grad(y, x)
    return a, b, x.grad


@scenario
def grad_backward_create_graph_double_backward(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x ** 3).sum()
    y.backward(create_graph=True)
    g = x.grad
    x.grad = None
    g.sum().backward()
    return g, x.grad


@scenario
def grad_double_backward_through_mul_tanh(lib):
    x = lib.tensor([0.3, -0.7], requires_grad=True)
    w = lib.tensor([1.5, 2.0], requires_grad=True)
    y = (x * w).tanh().sum()
    gx, gw = lib.autograd.grad(y, [x, w], create_graph=True)
    return gx, gw, lib.autograd.grad((gx * gx).sum() + gw.sum(), [x, w])


def _double_backward_scenario(name, fn, data):
    def run(lib):
        x = leaf(lib, data, dtype="float64")
        (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        (g2,) = lib.autograd.grad((g * lib.tensor(arr(np.shape(data), seed=31, dtype=np.float64))).sum(),
                                  x, allow_unused=True)
        return g, g2
    run.__name__ = "double_backward_" + name
    scenario(run)


_X = arr((2, 3), seed=30, dtype=np.float64) + 0.1
_XP = arr((2, 3), seed=32, dtype=np.float64, low=0.5, high=2.0)
for _name, _fn, _data in [
    ("mul", lambda lib, x: x * x * 3, _X),
    ("div", lambda lib, x: 1 / (x * x + 1) + x / (x + 3), _X),
    ("pow", lambda lib, x: x ** 3 + x ** 0.5 * 0 + x.abs() ** 2.5, _X),
    ("pow_tensor", lambda lib, x: x ** (x * 0 + 2), _XP),
    ("rpow", lambda lib, x: 2 ** x, _X),
    ("exp_log", lambda lib, x: x.exp() + (x * x + 1).log(), _X),
    ("sqrt", lambda lib, x: x.sqrt(), _XP),
    ("reciprocal", lambda lib, x: x.reciprocal(), _XP),
    ("tanh", lambda lib, x: x.tanh(), _X),
    ("sigmoid", lambda lib, x: lib.sigmoid(x), _X),
    ("relu", lambda lib, x: x.relu() * x, _X),
    ("abs", lambda lib, x: x.abs() * x, _X),
    ("sin_cos", lambda lib, x: x.sin() * x.cos(), _X),
    ("softmax", lambda lib, x: x.softmax(1) * x, _X),
    ("log_softmax", lambda lib, x: x.log_softmax(0) * x, _X),
    ("sum_mean", lambda lib, x: x.sum(1, keepdim=True) * x.mean(0) * x.mean(), _X),
    ("max_dim", lambda lib, x: x.max(1).values * x.min(0)[0].sum(), _X),
    ("max_full", lambda lib, x: x.max() * x, _X),
    ("amax", lambda lib, x: x.amax(1) * x.amin(), _X),
    ("maximum", lambda lib, x: lib.maximum(x, x * 2) * x, _X),
    ("clamp", lambda lib, x: x.clamp(-0.5, 0.5) * x, _X),
    ("where", lambda lib, x: lib.where(x > 0, x * x, x), _X),
    ("views", lambda lib, x: x.t().reshape(3, 2).unsqueeze(0).expand(2, 3, 2).permute(2, 1, 0) * x.T, _X),
    ("indexing", lambda lib, x: x[0] * x[1, [0, 0, 2]] * x[:, 1:].sum(), _X),
    ("matmul", lambda lib, x: (x @ x.t()) @ x, _X),
    ("matmul_vector", lambda lib, x: x[0] @ (x.t() @ x[1]) * x, _X),
    ("mse", lambda lib, x: F(lib).mse_loss(x * x, lib.ones(2, 3, dtype=lib.float64)), _X),
    ("nll", lambda lib, x: F(lib).nll_loss((x * x).log_softmax(1), lib.tensor([2, 0])), _X),
    ("cat_stack", lambda lib, x: lib.cat([x, x * x]) * lib.stack([x, x]).sum(0).sum(), _X),
]:
    _double_backward_scenario(_name, _fn, _data)


@scenario
def grad_of_non_scalar_without_grad_outputs(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    lib.autograd.grad(x * 2, x)


@scenario
def grad_output_does_not_require_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    lib.autograd.grad(lib.tensor(1.), x)


# ======================================================================
# Grad mode
# ======================================================================

@scenario
def grad_mode_no_grad_context(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.no_grad():
        y = x * 2
        inside = lib.is_grad_enabled()
    return y, inside, lib.is_grad_enabled()


@scenario
def grad_mode_nested(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.no_grad():
        with lib.enable_grad():
            a = x * 2
        b = x * 2
        with lib.set_grad_enabled(True):
            c = x * 2
        with lib.set_grad_enabled(False):
            d = x * 2
    return a, b, c, d, lib.is_grad_enabled()


@scenario
def grad_mode_decorators(lib):
    x = lib.tensor([1., 2.], requires_grad=True)

    @lib.no_grad()
    def f(t):
        return t * 2

    @lib.enable_grad()
    def g(t):
        return t * 2

    @lib.set_grad_enabled(False)
    def h(t):
        return t * 2

    with lib.no_grad():
        inner = g(x)
    return f(x), inner, h(x), lib.is_grad_enabled(), f.__name__


@scenario
def grad_mode_set_grad_enabled_call(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    lib.set_grad_enabled(False)
    try:
        y = x * 2
        state = lib.is_grad_enabled()
    finally:
        lib.set_grad_enabled(True)
    return y, state, lib.is_grad_enabled()


@scenario
def grad_mode_exception_restores(lib):
    try:
        with lib.no_grad():
            raise ValueError("boom")
    except ValueError:
        pass
    return lib.is_grad_enabled()


@scenario
def grad_mode_bare_decorator_and_recursion(lib):
    x = lib.tensor([1., 2.], requires_grad=True)

    @lib.no_grad
    def f(t):
        return t * 2

    @lib.enable_grad
    def g(t, depth):
        # a decorated function calling itself: each call needs its own context
        return t * 1 if depth == 0 else g(t, depth - 1) * 1

    with lib.no_grad():
        deep = g(x, 3)
        still_off = lib.is_grad_enabled()
    return f(x), f.__name__, type(f).__name__, deep, still_off, lib.is_grad_enabled()


@scenario
def grad_mode_decorated_generator(lib):
    x = lib.tensor([1., 2.], requires_grad=True)

    @lib.no_grad()
    def steps(t):
        got = yield (t * 2).requires_grad, lib.is_grad_enabled()
        yield (t * got).requires_grad, lib.is_grad_enabled()
        return "done"

    gen = steps(x)
    first = next(gen)
    outside = lib.is_grad_enabled()
    second = gen.send(3)
    try:
        next(gen)
        value = None
    except StopIteration as stop:
        value = stop.value
    return first, outside, second, value, lib.is_grad_enabled()


@scenario
def grad_mode_decorated_generator_thrown_and_closed(lib):
    """Each step of a decorated generator (a throw it handles, close) runs in the mode; the
    caller's own mode is back between steps."""
    finals = []

    @lib.enable_grad
    def steps():
        try:
            while True:
                try:
                    yield lib.is_grad_enabled()
                except ValueError:
                    yield "caught", lib.is_grad_enabled()
        finally:
            finals.append(lib.is_grad_enabled())

    with lib.no_grad():
        gen = steps()
        seen = [next(gen), lib.is_grad_enabled(), gen.throw(ValueError("in")), lib.is_grad_enabled()]
        gen.close()
    return seen, finals, lib.is_grad_enabled(), steps.__name__


@scenario
def grad_mode_decorated_class(lib):
    """Decorating a class warns (FutureWarning) and makes its objects in the mode."""
    import warnings

    class Probe:
        def __init__(self, tag):
            self.tag, self.mode = tag, lib.is_grad_enabled()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = lib.no_grad()(Probe)
        bare = lib.set_grad_enabled(False)(Probe)
    probes = [made(1), bare(tag=2)]
    return ([(w.category.__name__, str(w.message)) for w in caught], made.__name__,
            [(type(p).__name__, p.tag, p.mode) for p in probes], lib.is_grad_enabled())


@scenario
def grad_mode_set_grad_enabled_enter_switches_again(lib):
    ctx = lib.set_grad_enabled(False)
    lib.set_grad_enabled(True)
    with ctx:
        inside = lib.is_grad_enabled()
    return inside, lib.is_grad_enabled(), repr(ctx).split(".")[-1]


@scenario(key="argument 'enabled' (position 1) must be bool")
def grad_mode_set_grad_enabled_needs_a_bool(lib):
    lib.set_grad_enabled(1)


@scenario
def output_nr_of_multi_output_node(lib):
    x = lib.tensor([1., 2.], requires_grad=True) * 2
    a, b = x.unbind(0)
    return a.output_nr, b.output_nr, x.output_nr


@scenario
def grad_mode_is_thread_local(lib):
    import threading
    seen = {}

    def worker():
        seen["worker"] = lib.is_grad_enabled()

    with lib.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        seen["main"] = lib.is_grad_enabled()
    return seen["worker"], seen["main"]


@scenario
def grad_mode_decorator_restores_after_exception(lib):
    @lib.no_grad()
    def boom():
        raise ValueError("boom")

    try:
        boom()
    except ValueError:
        pass
    return lib.is_grad_enabled()


@scenario
def grad_mode_backward_under_no_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    with lib.no_grad():
        y.backward()
    return x.grad


@scenario
def grad_mode_autograd_namespace(lib):
    x = lib.tensor([1.], requires_grad=True)
    with lib.autograd.no_grad():
        y = x * 2
    with lib.autograd.set_grad_enabled(False):
        z = x * 2
    return y, z


# ======================================================================
# detach, .data and version counters
# ======================================================================

@scenario
def detach_shares_storage_and_version(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    d = x.detach()
    d.add_(1)
    return x, d, x._version, d._version, d.requires_grad, d.is_leaf


@scenario
def detach_inplace_caught_by_backward(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    y.detach().zero_()
    y.sum().backward()


@scenario
def detach_inplace_on_input_caught(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * x
    x.detach().mul_(2)
    y.sum().backward()


@scenario
def data_own_version_counter(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    d = x.data
    d.add_(1)
    return x, d, x._version, d._version, d.requires_grad


@scenario
def data_inplace_not_caught(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    y.data.mul_(0)
    y.sum().backward()
    return x.grad, y


@scenario
def data_inplace_on_input_silently_wrong(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * x
    x.data.mul_(10)
    y.sum().backward()
    return x.grad, x


@scenario
def data_setter(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    x.data = lib.tensor([5., 6.])
    (x * x).sum().backward()
    c = lib.ones(2)
    c.data = lib.tensor([1, 2])                     # no grad required: any dtype
    return x, x.grad, c, caught(setattr, x, "data", lib.tensor([1, 2])), caught(setattr, x, "data", 3)


@scenario
def detach_inplace_detach_(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.detach_()
    return y, y.is_leaf


@scenario
def inplace_on_unbind_output_refused(lib):
    h = lib.tensor([1., 2., 3.], requires_grad=True) * 2
    a, b, c = h.unbind(0)
    b.add_(1)


@scenario
def inplace_on_unbind_output_of_leaf_refused(lib):
    a, b = lib.tensor([1., 2.], requires_grad=True).unbind(0)
    a.mul_(2)


@scenario
def inplace_on_unbind_output_allowed_without_grad(lib):
    with lib.no_grad():
        a, b = lib.tensor([1., 2.], requires_grad=True).unbind(0)
        a.mul_(2)
    c, d = lib.tensor([1., 2.]).unbind(0)
    c.add_(1)
    # (a requires grad, through its base, and asking for its grad_fn raises: see
    # tests/test_views.py, unbind_outputs_written_without_grad)
    return a.tolist(), c


@scenario
def inplace_on_view_of_leaf_made_under_no_grad(lib):
    w = lib.tensor([1., 2., 3.], requires_grad=True)
    with lib.no_grad():
        v = w[1:]
    v.add_(1)


@scenario
def mean_of_empty_is_nan(lib):
    x = lib.zeros(0, 3, requires_grad=True)
    m = x.mean()
    m.backward()
    return m, x.mean(0), x.mean(1), x.grad


@scenario
def detach_inplace_on_view_refused(lib):
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    y[:2].detach_()


@scenario
def detach_inplace_on_leaf(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    x.detach_()
    return x, x.requires_grad, x.is_leaf


@scenario
def data_has_its_own_version_counter(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    d = x.data
    d.add_(1)
    e = x.detach()
    e.add_(1)
    return d._version, x._version, e._version, d.requires_grad, d.is_leaf, x


@scenario
def data_setter_keeps_the_tensor(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    v = x._version
    x.data = lib.tensor([3., 4., 5.])
    return x, x.requires_grad, x._version, v


# ======================================================================
# In-place operations
# ======================================================================

def _inplace_scenario(name, fn):
    def run(lib):
        x = lib.tensor([1., -2., 3.], requires_grad=True)
        y = x * 1
        out = fn(lib, y)
        v = y._version
        y.backward(lib.tensor([1., 2., 3.]))
        return out is y, y, v, x.grad
    run.__name__ = "inplace_" + name
    scenario(run)


for _name, _fn in [
    ("add_", lambda lib, y: y.add_(2)),
    ("add_alpha", lambda lib, y: y.add_(lib.tensor([1., 1., 1.]), alpha=3)),
    ("sub_", lambda lib, y: y.sub_(lib.tensor(1.5))),
    ("mul_", lambda lib, y: y.mul_(3)),
    ("mul_tensor", lambda lib, y: y.mul_(lib.tensor([1., 2., 3.]))),
    ("div_", lambda lib, y: y.div_(4)),
    ("zero_", lambda lib, y: y.zero_()),
    ("fill_", lambda lib, y: y.fill_(7)),
    ("copy_", lambda lib, y: y.copy_(lib.tensor([4., 5., 6.]))),
    ("clamp_", lambda lib, y: y.clamp_(0, 2)),
    ("chain", lambda lib, y: y.add_(1).mul_(2).div_(3)),
]:
    _inplace_scenario(_name, _fn)


@scenario
def inplace_operators(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 1
    versions = []
    y += 1
    versions.append(y._version)
    y -= lib.tensor([0.5, 0.5])
    versions.append(y._version)
    y *= 3
    versions.append(y._version)
    y /= 2
    versions.append(y._version)
    y.sum().backward()
    return y, versions, x.grad


@scenario
def inplace_operator_keeps_identity(lib):
    a = lib.tensor([1., 2.])
    alias = a
    a += 1
    a *= 2
    return a is alias, a, a._version


@scenario
def inplace_copy_from_grad_source(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = lib.zeros(2)
    y.copy_(x * 3)
    y.sum().backward()
    return y, x.grad, y._version


@scenario
def inplace_copy_broadcast_and_cast(lib):
    y = lib.zeros(2, 3)
    y.copy_(lib.tensor([1, 2, 3]))
    return y, y._version


@scenario
def inplace_mixed_dtypes(lib):
    x = lib.ones(2)
    x.add_(lib.tensor([0.5, 1.5], dtype=lib.float64))
    i = lib.tensor([1, 2], dtype=lib.int32)
    i.add_(lib.tensor([1, 1]))
    a = lib.tensor([1., 2.], requires_grad=True) * 1
    b = lib.tensor([3., 4.], dtype=lib.float64, requires_grad=True)
    a.mul_(b)
    a.sum().backward()
    return x, i, a, b.grad, caught(lambda: lib.tensor([True]).add_(lib.tensor([1])))


@scenario
def inplace_int_tensor_result_type_error(lib):
    a = lib.tensor([1, 2])
    a += 1.5


@scenario
def inplace_int_tensor_div_error(lib):
    lib.tensor([1, 2]).div_(2)


@scenario
def inplace_shape_error(lib):
    lib.ones(3).add_(lib.ones(2, 3))


@scenario
def inplace_leaf_requires_grad_error(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    x.add_(1)


@scenario
def inplace_leaf_operator_error(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    x *= 2


@scenario
def inplace_leaf_allowed_under_no_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    with lib.no_grad():
        x.add_(1)
        x.mul_(2)
        x -= 1
    (x * x).sum().backward()
    return x, x.grad, x._version, x.is_leaf


@scenario
def inplace_view_of_leaf_error(lib):
    x = lib.tensor([1., 2., 3.], requires_grad=True)
    v = x[:2]
    v.mul_(2)


@scenario
def inplace_view_of_leaf_setitem_error(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    x[0][1] = 5.


@scenario
def inplace_zero_grad_style(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * 3).sum().backward()
    with lib.no_grad():
        x -= 0.1 * x.grad
    x.grad.zero_()
    return x, x.grad, x._version


@scenario
def inplace_non_leaf_retain_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    return y.grad, x.grad


@scenario
def inplace_on_view_of_non_leaf(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    h = x * 2
    v = h[0]
    v.mul_(3)
    h.sum().backward()
    return h, v, x.grad, h._version, v._version


@scenario
def inplace_operator_on_column(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    h = x * 2
    h[:, 0] *= 2
    (h * h).sum().backward()
    return h, x.grad


@scenario
def inplace_chained_setitem(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    h = x * 2
    h[0][1] = 7.
    h[1][:] = x[0] * 5
    (h * h).sum().backward()
    return h, x.grad


@scenario
def inplace_on_transposed_view(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    w = lib.ones(2, 2, requires_grad=True)
    h = x * 2
    v = h.t()
    v.add_(w * x)
    (h * v).sum().backward()
    return h, v, x.grad, w.grad


@scenario
def inplace_on_view_of_constant(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    z = lib.zeros(3)
    z[1:].add_(x[0] * 2)
    z.view(3)[0] = x[1, 1]
    (z * z).sum().backward()
    return z, x.grad, z.is_leaf


@scenario
def inplace_on_view_saved_tensor_check(lib):
    x = lib.tensor([1., 2., 3., 4.], requires_grad=True)
    h = x * 1
    y = h.exp()
    h.view(2, 2)[0].mul_(2)
    y.sum().backward()


@scenario
def inplace_on_view_created_under_no_grad(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    h = x * 1
    with lib.no_grad():
        v = h[:1]
    v.mul_(2)


@scenario
def inplace_on_tensor_without_grad_with_grad_operand(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = lib.ones(2)
    y.mul_(x)
    y.sum().backward()
    return y, x.grad


@scenario
def inplace_no_grad_versions(lib):
    a = lib.tensor([1., 2.])
    a.add_(1)
    a.zero_()
    a.fill_(3.)
    a.clamp_(min=0, max=1)
    a[0] = 5
    return a, a._version


@scenario
def inplace_fill_tensor_value(lib):
    a = lib.zeros(2)
    a.fill_(lib.tensor(2.5))
    return a, caught(lambda: a.fill_(lib.tensor([1., 2.])))


# ---------------------------------------------- saved tensors modified in place

def _saved_modified_scenario(name, fn, modify_input):
    def run(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        a = x * 1
        y = fn(lib, a)
        (a if modify_input else y).add_(1)
        y.sum().backward()
    run.__name__ = "saved_modified_" + name
    scenario(run)


for _name, _fn, _mod in [
    ("exp_result", lambda lib, a: a.exp(), False),
    ("mul_input", lambda lib, a: a * lib.tensor([2., 3.], requires_grad=True), True),
    ("mul_self", lambda lib, a: a * a, True),
    ("sigmoid_result", lambda lib, a: a.sigmoid(), False),
    ("tanh_result", lambda lib, a: lib.tanh(a), False),
    ("pow_input", lambda lib, a: a ** 2, True),
    ("div_input", lambda lib, a: lib.tensor([1., 2.]) / a, True),
    ("log_input", lambda lib, a: a.log(), True),
    ("sqrt_result", lambda lib, a: a.sqrt(), False),
]:
    _saved_modified_scenario(_name, _fn, _mod)


@scenario
def saved_not_modified_when_not_needed(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    a = x * 1
    y = a * 2          # a's gradient needs only the 2, a itself is not saved
    a.add_(1)
    y.sum().backward()
    return x.grad


@scenario
def saved_add_needs_nothing(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    a = x * 1
    y = a + 2
    a.mul_(5)
    y.sum().backward()
    return x.grad


@scenario
def saved_modified_then_restored_version_still_fails(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    a = x * 1
    y = a.exp()
    y.mul_(2)
    y.div_(2)
    return caught(y.sum().backward), y._version


# ======================================================================
# Conversions and errors
# ======================================================================

@scenario
def numpy_requires_grad_error(lib):
    lib.tensor([1.], requires_grad=True).numpy()


@scenario
def numpy_detach_ok(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    return x.detach().numpy().tolist(), (x * 2).detach().numpy().dtype.name


@scenario
def item_and_conversions(lib):
    x = lib.tensor([[2.5]])
    return x.item(), float(x), int(x), bool(x), lib.tensor([1, 2]).tolist(), len(lib.ones(3, 2))


@scenario
def item_many_elements_error(lib):
    return lib.ones(2).item()


@scenario
def bool_ambiguous_error(lib):
    return bool(lib.ones(2))


@scenario
def len_zero_dim_error(lib):
    return len(lib.tensor(1.))


@scenario
def iterate_tensor(lib):
    x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    rows = list(x)
    sum(r.sum() for r in rows).backward()
    return rows, x.grad


@scenario
def size_and_shape(lib):
    x = lib.ones(2, 3)
    return x.shape, x.size(), x.size(-1), x.shape[0], x.shape.numel(), repr(x.shape)


@scenario
def deepcopy_non_leaf_error(lib):
    import copy
    x = lib.tensor([1.], requires_grad=True)
    copy.deepcopy(x * 2)


@scenario
def deepcopy_leaf(lib):
    import copy
    x = lib.tensor([1., 2.], requires_grad=True)
    y = copy.deepcopy(x)
    return y, y is x


# ======================================================================
# autograd.Function
# ======================================================================

def _double_in_place(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Double


def _identity(lib):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    return Identity


@scenario
def function_dirty_input_keeps_its_old_history(lib):
    # the node's edge is the input's history before the call, not the node itself
    a = lib.tensor([1., 2.], requires_grad=True)
    b = a * 3
    version = b._version
    c = _double_in_place(lib).apply(b)
    (c * c).sum().backward()
    return (version, b._version, c is b, a.grad, b.grad_fn.name(),
            b.grad_fn.next_functions[0][0].name())


@scenario
def function_dirty_leaf_and_not_returned(lib):
    class NotReturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * 2
    a = lib.tensor([1., 2.], requires_grad=True)
    leaf = caught(lambda: _double_in_place(lib).apply(a))
    with lib.no_grad():
        c = _double_in_place(lib).apply(a)
    return (leaf, caught(lambda: NotReturned.apply(a * 1)), caught(lambda: NotReturned.apply(lib.ones(1))),
            c is a, a._version, a)


@scenario
def function_dirty_input_saved_by_an_earlier_node(lib):
    a = lib.tensor([1., 2.], requires_grad=True)
    b = a * 1
    e = b.exp()
    s = b * b
    _double_in_place(lib).apply(b)
    return caught(lambda: s.sum().backward()), caught(lambda: e.sum().backward()), a.grad


@scenario
def function_returning_its_input_under_no_grad(lib):
    a = lib.tensor([1., 2.], requires_grad=True)
    k = lib.tensor([1., 2.])
    with lib.no_grad():
        c = _identity(lib).apply(a)
        d = _identity(lib).apply(k)
        b = a * 1
        e = _double_in_place(lib).apply(b)
    f = _identity(lib).apply(k)
    return ((c is a, c._base is None, c.requires_grad, c.is_leaf), (d is k, d._base is k, d.requires_grad),
            (e is b, e._base is None, e.requires_grad, b._version), (f is k, f._base is k))


def _cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x ** 2
    return Cube


@scenario
def function_cube(lib):
    x = lib.tensor([1., -2.], requires_grad=True)
    y = _cube(lib).apply(x)
    y.sum().backward()
    return y, x.grad, type(y.grad_fn).__name__, y.grad_fn.name()


@scenario
def function_no_grad_input(lib):
    y = _cube(lib).apply(lib.tensor([1., 2.]))
    return y


@scenario
def function_saved_tensor_modified(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    a = x * 1
    y = _cube(lib).apply(a)
    a.add_(1)
    y.sum().backward()


@scenario
def function_freed_saved_tensors(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = _cube(lib).apply(x)
    y.sum().backward()
    return caught(y.sum().backward), caught(lambda: y.grad_fn.saved_tensors)


@scenario
def function_needs_input_grad_two_outputs(lib):
    class MulAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_backward(a, b)
            ctx.k = k
            return a * b * k, a + b

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            a, b = ctx.saved_tensors
            seen.append(ctx.needs_input_grad)
            ga = g_prod * b * ctx.k + g_sum if ctx.needs_input_grad[0] else None
            gb = g_prod * a * ctx.k + g_sum if ctx.needs_input_grad[1] else None
            return ga, gb, None

    seen = []
    a = lib.tensor([1., 2.], requires_grad=True)
    b = lib.tensor([3., 4.])
    p, s = MulAdd.apply(a, b, 2.0)
    (p.sum() + 10 * s.sum()).backward()
    q, _ = MulAdd.apply(a, b, 1.0)
    q.sum().backward()            # the second output's gradient is materialized as zeros
    return p, s, a.grad, seen, type(p.grad_fn).__name__, p.grad_fn is s.grad_fn


@scenario
def function_mark_non_differentiable(lib):
    class SortLike(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax().reshape(1).float()
            out = x * 2
            ctx.mark_non_differentiable(idx)
            return out, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2

    x = lib.tensor([1., 3., 2.], requires_grad=True)
    out, idx = SortLike.apply(x)
    out.sum().backward()
    return out, idx, idx.requires_grad, x.grad


@scenario
def function_returns_input_marked_non_differentiable(lib):
    # The marks name the tensor forward returned: an input returned as it is and
    # marked non-differentiable comes back as an alias without history (a leaf that
    # may be written in place), and its gradient in backward is zeros.
    class PassThrough(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_non_differentiable(x)
            return x, y * 2

        @staticmethod
        def backward(ctx, g_x, g_y):
            seen.append(g_x.clone())
            return None, g_y * 2

    seen = []
    x = lib.tensor([1., 2.], requires_grad=True)
    y = lib.tensor([3., 4.], requires_grad=True)
    a, b = PassThrough.apply(x, y)
    facts = (a.requires_grad, a.is_leaf, a._is_view(), a._base is x, a is x)
    b.sum().backward()
    a.mul_(3)                   # no history: allowed, and it writes x's storage
    return facts, seen[0], y.grad, x.detach(), x._version


@scenario
def function_wrong_number_of_grads(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    x = lib.tensor([1.], requires_grad=True)
    Bad.apply(x, x).sum().backward()


@scenario
def function_in_graph(lib):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    y = (_cube(lib).apply(x.exp()) * 2).sum()
    y.backward()
    return y, x.grad


@scenario
def function_forward_runs_without_grad(lib):
    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            inside.append(lib.is_grad_enabled())
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    inside = []
    y = Probe.apply(lib.tensor([1.], requires_grad=True))
    return inside, y


@scenario
def function_returns_input(lib):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = lib.tensor([1., 2.], requires_grad=True)
    y = Identity.apply(x)
    y.sum().backward()
    return y is x, y, x.grad


@scenario
def function_non_tensor_gradient_error(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    Scale.apply(lib.tensor([1.], requires_grad=True), 2.0).sum().backward()


@scenario
def function_legacy_call_error(lib):
    class F(lib.autograd.Function):
        def forward(self, x):
            return x
    F()(lib.tensor([1.]))


# ======================================================================
# gradcheck
# ======================================================================

@scenario
def gradcheck_passes(lib):
    x = lib.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.5, -0.5], dtype=lib.float64, requires_grad=True)
    return (lib.autograd.gradcheck(lambda a, b: (a * b).tanh() @ b, (x, w)),
            lib.autograd.gradcheck(lambda a: a.softmax(1), (x,)),
            lib.autograd.gradcheck(lambda a: a.log_softmax(0).sum(0), x))


@scenario
def gradcheck_fails_raise(lib):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
    lib.autograd.gradcheck(Wrong.apply, (x,))


@scenario
def gradcheck_fails_no_raise(lib):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
    return lib.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)


@scenario
def gradcheck_float32_warning(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    return lib.autograd.gradcheck(lambda a: a * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


# ======================================================================
# repr
# ======================================================================

@scenario
def repr_strings(lib):
    x = lib.tensor([1., 2.5], requires_grad=True)
    return [repr(t) for t in (
        lib.tensor([1., 2.]), lib.tensor([1, 2]), lib.tensor([True, False]), lib.tensor(3.5),
        lib.tensor([1., 2.], dtype=lib.float64), x, x * 2, x.sum(), x[0], x.exp(),
        lib.tensor([[1e-8, 1e8]]), lib.zeros(0), lib.tensor([1, 2], dtype=lib.int32),
        x.max(0).values, x.detach(), lib.tensor([float("nan"), float("inf")]))]


@scenario
def repr_return_types_and_dtypes(lib):
    x = lib.tensor([[1., 5.], [7., 2.]])
    return repr(x.max(1)), repr(lib.float32), repr(lib.int64), repr(lib.bool), str(lib.tensor([1.]))


# ======================================================================
# Smaller behaviours, one line each
# ======================================================================

_MISC = {
    'numpy_scalars': lambda lib: [lib.tensor(v) for v in (
        np.float64(1.5), np.float32(1.5), np.int32(2), np.bool_(True), np.float16(1),
        [np.float64(1.5), 2.0], [np.float32(1.5), 2], [np.int32(1), 2])],
    'numpy_scalars_in_factories': lambda lib: (
        lib.full((2,), np.float64(1.5)), lib.arange(np.float64(3)), lib.full((2,), np.int32(1)),
        lib.arange(lib.tensor(3)), lib.full((1,), True)),
    'tensor_of_tensor': lambda lib: lib.tensor(lib.tensor([1., 2.])),
    'tensor_of_tensor_rg': lambda lib: lib.tensor(lib.tensor([1., 2.], requires_grad=True)),
    'sum_empty_dims': lambda lib: lib.ones(2, 3).sum(dim=()),
    'mean_empty_dims': lambda lib: lib.ones(2, 3).mean(dim=[]),
    'amax_empty_dims': lambda lib: lib.ones(2, 3).amax(dim=()),
    'item_rg': lambda lib: lib.tensor([2.], requires_grad=True).item(),
    'float_rg': lambda lib: float(lib.tensor([2.], requires_grad=True) * 2),
    'to_cpu': lambda lib: lib.ones(2).to("cpu"),
    'div_zero': lambda lib: (lib.tensor([1., -1., 0.]) / 0, lib.tensor([1, 0]) / 0),
    'int_div_int_zero': lambda lib: lib.tensor([1, 0]) / lib.tensor([0, 0]),
    'pow_int_tensor_tensor': lambda lib: lib.tensor([2, 3]) ** lib.tensor([2, 0]),
    'neg_zero_dim': lambda lib: -lib.tensor(2),
    'abs_int': lambda lib: lib.tensor([-2, 3]).abs(),
    'relu_int': lambda lib: lib.tensor([-2, 3]).relu(),
    'sign_int': lambda lib: lib.tensor([-2, 3]).sign(),
    'sigmoid_f64': lambda lib: lib.tensor([0.5], dtype=lib.float64).sigmoid(),
    'sum_bool_dim': lambda lib: lib.tensor([[True, False], [True, True]]).sum(0),
    'mean_dtype': lambda lib: lib.tensor([1, 2]).mean(dtype=lib.float64),
    'max_int': lambda lib: (lib.tensor([1, 5, 2]).max(), lib.tensor([[1, 5], [7, 0]]).max(1)),
    'cat_mixed': lambda lib: lib.cat([lib.tensor([1, 2]), lib.tensor([1.5])]),
    'cat_err': lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3, 2)]),
    'zeros_neg': lambda lib: lib.zeros(-1),
    'arange_float_end': lambda lib: lib.arange(0, 1, 0.1),
    'arange_neg_step': lambda lib: lib.arange(5, 0, -2),
    'linspace_one': lambda lib: lib.linspace(0, 1, 1),
    'eye_rect': lambda lib: lib.eye(2, 3),
    'full_float_int_dtype': lambda lib: lib.full((2,), 1.5, dtype=lib.int64),
    'ones_like_rg': lambda lib: lib.ones_like(lib.tensor([1.], requires_grad=True)),
    'squeeze_dim_err': lambda lib: lib.ones(2).squeeze(3),
    'unsqueeze_err': lambda lib: lib.ones(2).unsqueeze(3),
    'transpose_err': lambda lib: lib.ones(2).transpose(0, 2),
    'view_minus1_zero': lambda lib: lib.ones(0, 3).view(-1, 3),
    'reshape_err': lambda lib: lib.ones(6).reshape(4, -1),
    'softmax_dim_err': lambda lib: lib.ones(2).softmax(1),
    'log_softmax_dtype': lambda lib: lib.tensor([1, 2]).log_softmax(0, dtype=lib.float64),
    'where_int_float': lambda lib: lib.where(lib.tensor([True, False]), lib.tensor([1, 2]), lib.tensor([0.5, 0.5])),
    'eq_method': lambda lib: (lib.tensor([1., 2.]).eq(2), lib.tensor([1, 2]).equal(lib.tensor([1, 2]))),
    'allclose': lambda lib: lib.allclose(lib.tensor([1., 2.]), lib.tensor([1., 2.000001])),
    'isnan': lambda lib: lib.isnan(lib.tensor([1., float('nan')])),
    'logical': lambda lib: (lib.tensor([True, False]).logical_not(), lib.logical_and(lib.tensor([True, False]), lib.tensor([True, True]))),
    'invert_int': lambda lib: ~lib.tensor([1, 2]),
    'xor': lambda lib: lib.tensor([True, False]) ^ lib.tensor([True, True]),
    'and_float_err': lambda lib: lib.tensor([1.]) & lib.tensor([1.]),
    'iter_0d': lambda lib: list(lib.tensor(1.)),
    'index_bool_scalar': lambda lib: lib.tensor([1., 2.])[True],
    'index_tensor_rg': lambda lib: (lambda x: (x[x > 1], ))(lib.tensor([1., 2., 3.], requires_grad=True)),
    'len_rg': lambda lib: len(lib.ones(3, requires_grad=True)),
    'format': lambda lib: f"{lib.tensor(2.5):.2f}",
    'hash_eq': lambda lib: lib.tensor(1.) in [lib.tensor(1.)],
    'rsub_tensor': lambda lib: lib.rsub(lib.tensor([1., 2.]), 3),
    'add_alpha_int': lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([1, 1]), alpha=2),
    'sub_alpha_float_err': lambda lib: lib.sub(lib.tensor([1, 2]), lib.tensor([1, 1]), alpha=0.5),
    'mm_err': lambda lib: lib.mm(lib.ones(2), lib.ones(2, 2)),
    'bmm_err': lambda lib: lib.bmm(lib.ones(2, 2), lib.ones(2, 2)),
    'dot_err': lambda lib: lib.dot(lib.ones(2), lib.ones(3)),
    'mv_err': lambda lib: lib.mv(lib.ones(2, 3), lib.ones(2)),
    'expand_neg_err': lambda lib: lib.ones(2).expand(-1, 2),
    'flatten_0d': lambda lib: lib.tensor(1., requires_grad=True).flatten(),
    'detach_view': lambda lib: (lambda x: x[0].detach_())(lib.ones(2, 2) * 1),
    'retain_grad_leaf_no_rg': lambda lib: lib.ones(2).retain_grad(),
    'requires_grad_int_factory': lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True),
    'randn_rg_int': lambda lib: lib.arange(3, requires_grad=True),
    'clone_rg_grad_fn': lambda lib: lib.ones(2, requires_grad=True).clone(),
    'contiguous_same': lambda lib: (lambda x: x.contiguous() is x)(lib.ones(2, 2)),
    'type_as': lambda lib: lib.ones(2).type_as(lib.ones(1, dtype=lib.float64)),
    'size_err': lambda lib: lib.ones(2).size(2),
    'numel_fn': lambda lib: lib.numel(lib.ones(2, 3)),
    'is_tensor': lambda lib: (lib.is_tensor(lib.ones(1)), lib.is_tensor(1)),
}
for _name, _fn in _MISC.items():
    _fn.__name__ = "misc_" + _name
    scenario(_fn)


# ======================================================================
# The test
# ======================================================================

# ------------------------------------------------ formatting and flag types

@scenario
def format_zero_dim_tensor(lib):
    return f"{lib.tensor(2.5)}|{lib.tensor(3)}|{lib.tensor(0.125):.2f}|{lib.tensor([1.0, 2.0])}"


@scenario
def requires_grad_needs_a_bool(lib):
    lib.tensor([1.0]).requires_grad_(1)


@scenario
def backward_extra_gradients_are_ignored(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return lib.autograd.grad([x * 2], [x], grad_outputs=[lib.ones(2), lib.ones(2)])


@scenario
def backward_too_few_gradients(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    lib.autograd.backward([x * 2, x * 3], [lib.ones(2)])


@scenario
def backward_numpy_gradient_is_rejected(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(np.ones(2))


@scenario
def hvp_create_graph_stays_connected(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _, hv = lib.autograd.functional.hvp(lambda t: (t ** 3).sum(), x, lib.ones(3), create_graph=True)
    return lib.autograd.grad(hv.sum(), x)


@scenario
def hvp_create_graph_inside_no_grad_stays_connected(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.no_grad():
        value, hv = lib.autograd.functional.hvp(lambda t: (t ** 3).sum(), x, lib.ones(3), create_graph=True)
    return value.detach(), hv.detach(), hv.requires_grad, lib.autograd.grad(hv.sum(), x)


@scenario
def hvp_strict_rejects_a_linear_function(lib):
    lib.autograd.functional.hvp(lambda t: (2 * t).sum(), lib.tensor([1.0, 2.0]), lib.ones(2), strict=True)


@scenario
def hvp_plain(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64)
    return lib.autograd.functional.hvp(lambda t: (t.exp() * t).sum(), x, lib.tensor([1.0, -1.0], dtype=lib.float64))


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run_scenario(name)


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_linspace_bits_as_torch(dtype):
    """linspace gives PyTorch's bits: the first half from ``start`` and the second from ``end``,
    each value a fused multiply-add (issue 37: NumPy's linspace differed in the last bit for
    about a quarter of the values).  Random ends of every magnitude, odd and even counts."""
    rng = np.random.default_rng(37)
    mismatched = []
    for _ in range(400):
        start, end = rng.uniform(-1e3, 1e3, 2) * 10.0 ** rng.integers(-6, 6, 2)
        if dtype == "float16":
            start, end = rng.uniform(-100, 100, 2)
        steps = int(rng.integers(0, 500))
        expected = torch.linspace(float(start), float(end), steps, dtype=getattr(torch, dtype)).numpy()
        seen = autograd_lib.linspace(float(start), float(end), steps, dtype=getattr(autograd_lib, dtype)).numpy()
        if seen.dtype != expected.dtype or not np.array_equal(expected.view(np.uint8), seen.view(np.uint8)):
            mismatched.append((float(start), float(end), steps, int(np.sum(expected != seen))))
    assert not mismatched, (f"{len(mismatched)} of 400 linspace calls differ from torch in their bits "
                            f"(start, end, steps, values that differ): {mismatched[:5]}")


def test_T_warnings():
    """``x.T`` warns unless 2-D, with PyTorch's message (which torch gives once per process)."""
    expected = {
        1: "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
           "deprecated and it will throw an error in a future release. Consider `x.mT` to "
           "transpose batches of matrices or `x.permute(*autograd_lib.arange(x.ndim - 1, -1, -1))` "
           "to reverse the dimensions of a tensor.",
        0: "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    }
    for shape, key in (((3,), 1), ((2, 3, 4), 1), ((), 0)):
        with pytest.warns(UserWarning) as record:
            y = autograd_lib.ones(*shape, requires_grad=True).T
        assert [str(w.message) for w in record] == [expected[key]]
        assert type(y.grad_fn).__name__ == "PermuteBackward0"


def test_enough_scenarios():
    assert len(SCENARIOS) >= 150

