"""Convolution and pooling (F.conv1d/conv2d, F.conv_transpose1d/2d, F.max_pool1d/2d, F.avg_pool1d/2d,
F.adaptive_avg_pool1d/2d, nn.Conv1d/Conv2d, nn.ConvTranspose1d/2d and the pooling layers), side by side with PyTorch
(differential: values, gradients of every input, the grad_fn graphs, second-order gradients,
reprs and parameters, PyTorch's errors, a few SGD steps of a small CNN); and, on the library
alone, gradcheck of the first and second derivatives, the once-per-process warning and the
speed of a small CNN."""

import math
import warnings

import numpy as np
import pytest

import autograd_lib
from autograd_lib.nn import functional_conv
from differential import caught, registry, run, sgd_losses
from test_oracle import arr

SCENARIOS, scenario = registry()

F32 = {"rtol": 1e-4, "atol": 1e-5}


def _leaf(lib, shape, seed, dtype="float32"):
    return lib.tensor(arr(shape, seed=seed), dtype=getattr(lib, dtype), requires_grad=True)


def _weighted(lib, y, seed=99):
    """A scalar whose gradient for ``y`` is not all ones (every position weighs differently)."""
    return (y * lib.tensor(arr(tuple(y.shape), seed=seed), dtype=y.dtype)).sum()


def _quietly(fn, *args, **kwargs):
    """``fn`` with its warnings ignored (PyTorch gives the uneven "same" warning once per process)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ================================================================ convolution

CONV2D = {   # name: (input shape, weight shape, bias, keyword arguments, dtype)
    "basic": ((2, 3, 7, 6), (4, 3, 3, 3), True, {}, "float32"),
    "stride2": ((2, 3, 7, 6), (4, 3, 3, 3), True, {"stride": 2}, "float32"),
    "padding1": ((2, 3, 7, 6), (4, 3, 3, 3), True, {"padding": 1}, "float32"),
    "stride_padding_tuples": ((2, 3, 7, 6), (4, 3, 3, 2), True, {"stride": (2, 1), "padding": (1, 2)}, "float32"),
    "stride_list": ((1, 3, 7, 6), (4, 3, 3, 3), True, {"stride": [3, 2]}, "float32"),
    "dilation2": ((2, 3, 8, 7), (4, 3, 3, 3), True, {"dilation": 2, "padding": 2}, "float32"),
    "dilation_tuple_stride": ((2, 3, 9, 8), (2, 3, 2, 3), True, {"dilation": (1, 2), "stride": (2, 3)}, "float32"),
    "groups2": ((2, 4, 6, 6), (6, 2, 3, 3), True, {"groups": 2}, "float32"),
    "depthwise": ((2, 3, 6, 5), (6, 1, 3, 3), True, {"groups": 3, "padding": 1}, "float32"),
    "no_bias": ((2, 3, 6, 6), (4, 3, 3, 3), False, {}, "float32"),
    "valid": ((2, 3, 6, 6), (4, 3, 3, 3), True, {"padding": "valid"}, "float32"),
    "valid_stride2": ((2, 3, 6, 6), (4, 3, 3, 3), True, {"padding": "valid", "stride": 2}, "float32"),
    "same_odd": ((2, 3, 6, 5), (4, 3, 3, 5), True, {"padding": "same"}, "float32"),
    "same_dilated": ((2, 3, 7, 6), (4, 3, 3, 3), True, {"padding": "same", "dilation": 2}, "float32"),
    "same_even": ((2, 3, 6, 5), (4, 3, 4, 2), True, {"padding": "same"}, "float32"),
    "same_even_groups": ((2, 4, 6, 5), (4, 2, 2, 3), False, {"padding": "same", "groups": 2}, "float32"),
    "kernel_1x1": ((2, 3, 4, 5), (4, 3, 1, 1), True, {}, "float32"),
    "kernel_whole_input": ((2, 3, 3, 3), (4, 3, 3, 3), True, {}, "float32"),
    "float64": ((2, 3, 7, 6), (4, 3, 3, 3), True, {"stride": 2, "padding": 1}, "float64"),
    "unbatched": ((3, 7, 6), (4, 3, 3, 3), True, {"padding": 1}, "float32"),
    "unbatched_same_even": ((3, 6, 6), (2, 3, 2, 2), True, {"padding": "same"}, "float32"),
    "batch_of_one": ((1, 1, 5, 5), (2, 1, 3, 3), True, {}, "float32"),
    "empty_batch": ((0, 3, 5, 5), (2, 3, 3, 3), True, {}, "float32"),
}

CONV1D = {
    "basic": ((2, 3, 9), (4, 3, 3), True, {}, "float32"),
    "stride_padding_dilation": ((2, 3, 11), (4, 3, 3), True, {"stride": 2, "padding": 2, "dilation": 2}, "float32"),
    "tuples": ((2, 3, 11), (4, 3, 2), True, {"stride": (3,), "padding": (1,), "dilation": (2,)}, "float32"),
    "groups": ((2, 4, 9), (2, 2, 3), False, {"groups": 2}, "float32"),
    "same_even": ((2, 3, 9), (4, 3, 4), True, {"padding": "same"}, "float32"),
    "same_odd": ((2, 3, 9), (4, 3, 5), True, {"padding": "same"}, "float64"),
    "valid": ((2, 3, 9), (4, 3, 3), True, {"padding": "valid"}, "float32"),
    "unbatched": ((3, 9), (4, 3, 3), True, {"padding": 1}, "float32"),
}


def _conv_scenario(name, dims, case):
    x_shape, w_shape, has_bias, kwargs, dtype = case

    def fn(lib):
        x, w = _leaf(lib, x_shape, 1, dtype), _leaf(lib, w_shape, 2, dtype)
        b = _leaf(lib, (w_shape[0],), 3, dtype) if has_bias else None
        conv = getattr(lib.nn.functional, f"conv{dims}d")
        y = _quietly(conv, x, w, b, **kwargs)
        _weighted(lib, y).backward()
        return y, x.grad, w.grad, (b.grad if has_bias else None)
    fn.__name__ = f"conv{dims}d_{name}"
    scenario(fn, **F32)


for _name, _case in CONV2D.items():
    _conv_scenario(_name, 2, _case)
for _name, _case in CONV1D.items():
    _conv_scenario(_name, 1, _case)


# Transposed: the weight is (in_channels, out_channels / groups, *kernel); the bias has out_channels.
CONV_TRANSPOSE = {   # name: (dims, input shape, weight shape, bias, keyword arguments, dtype)
    "2d_basic": (2, (2, 3, 4, 5), (3, 4, 3, 3), True, {}, "float32"),
    "2d_stride_padding_output_padding": (2, (2, 4, 5, 5), (4, 3, 3, 3), True,
                                         {"stride": 2, "padding": 1, "output_padding": 1}, "float32"),
    "2d_groups": (2, (2, 4, 5, 5), (4, 3, 3, 3), True,
                  {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, "float64"),
    "2d_dilation_tuples": (2, (1, 2, 4, 6), (2, 3, 2, 3), True,
                           {"stride": (2, 1), "padding": (1, 0), "output_padding": (1, 0), "dilation": (1, 2)},
                           "float32"),
    "2d_output_padding_below_dilation": (2, (1, 2, 4, 4), (2, 3, 3, 3), False,
                                         {"output_padding": 1, "dilation": 2}, "float32"),
    "2d_no_bias_unbatched": (2, (3, 4, 4), (3, 2, 2, 2), False, {"stride": 2}, "float32"),
    "1d_basic": (1, (2, 3, 7), (3, 2, 3), True, {"stride": 3, "padding": 1, "output_padding": 2}, "float32"),
    "1d_groups_unbatched": (1, (4, 6), (4, 1, 3), True, {"groups": 2, "dilation": 2}, "float64"),
}


def _conv_transpose_scenario(name, case):
    dims, x_shape, w_shape, has_bias, kwargs, dtype = case

    def fn(lib):
        x, w = _leaf(lib, x_shape, 1, dtype), _leaf(lib, w_shape, 2, dtype)
        b = _leaf(lib, (w_shape[1] * kwargs.get("groups", 1),), 3, dtype) if has_bias else None
        y = getattr(lib.nn.functional, f"conv_transpose{dims}d")(x, w, b, **kwargs)
        _weighted(lib, y).backward()
        return y, x.grad, w.grad, (b.grad if has_bias else None)
    fn.__name__ = f"conv_transpose{name}"
    scenario(fn, **F32)


for _name, _case in CONV_TRANSPOSE.items():
    _conv_transpose_scenario(_name, _case)


@scenario(rtol=1e-6, atol=1e-8)
def conv_transpose2d_double_backward(lib):
    x, w, b = _leaf(lib, (2, 4, 4, 5), 1, "float64"), _leaf(lib, (4, 3, 3, 2), 2, "float64"), _leaf(lib, (6,), 3, "float64")
    y = lib.nn.functional.conv_transpose2d(x, w, b, stride=(2, 1), padding=1, output_padding=(1, 0), groups=2)
    grads = lib.autograd.grad(_weighted(lib, y), (x, w, b), create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), (x, w))
    return y, grads, second


@scenario(**F32)
def conv_transpose_modules(lib):
    nn = lib.nn
    lib.manual_seed(0)
    modules = [nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
               nn.ConvTranspose2d(4, 6, (2, 3), bias=False), nn.ConvTranspose2d(2, 2, 3, dilation=2, stride=(1, 2)),
               nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1)]
    settings = [(m.in_channels, m.out_channels, m.kernel_size, m.stride, m.padding, m.dilation, m.groups,
                 m.transposed, m.output_padding, m.padding_mode) for m in modules]
    shapes = [[(k, p.shape) for k, p in m.named_parameters()] for m in modules]
    m = _copy_weights(lib, modules[0], 20)
    x = _leaf(lib, (2, 4, 5, 5), 1)
    y, resized = m(x), m(x, output_size=[9, 9])
    _weighted(lib, resized).backward()
    fan_in = modules[1].weight.shape[1] * math.prod(modules[1].weight.shape[2:])
    within = bool(np.all(np.abs(modules[1].weight.detach().numpy()) <= np.float32(1 / math.sqrt(fan_in))))
    return ([repr(m) for m in modules], settings, shapes, y, resized, x.grad, m.weight.grad, m.bias.grad,
            m(x[0], output_size=(6, 10, 10)).shape, within, list(modules[0].state_dict()),
            caught(m, x, output_size=[12, 12]), caught(m, x, output_size=[9]),
            caught(nn.ConvTranspose2d, 4, 6, 3, padding_mode="reflect"), caught(nn.ConvTranspose2d, 4, 5, 3, groups=2))


@scenario
def init_dirac(lib):
    init = lib.nn.init
    w = lib.nn.Parameter(lib.ones(4, 2, 3, 3))
    same = init.dirac_(w, 2) is w
    weights = [init.dirac_(lib.empty(3, 5, 4)), init.dirac_(lib.empty(2, 3, 1, 2, 3)), init.dirac_(lib.empty(6, 2, 3), 3)]
    x = _leaf(lib, (1, 3, 5, 5), 1)
    passed = lib.nn.functional.conv2d(x, init.dirac_(lib.empty(3, 3, 3, 3)), padding=1)
    return (same, w, w._version, w.requires_grad, w.grad_fn, weights, passed, x,
            caught(init.dirac_, lib.empty(2, 2)), caught(init.dirac_, lib.empty(3, 2, 3), 2))


@scenario
def conv_transpose_errors(lib):
    F = lib.nn.functional
    x, w = lib.ones(2, 4, 5, 5), lib.ones(4, 3, 3, 3)
    x1, w1 = lib.ones(1, 2, 5), lib.ones(2, 3, 3)
    return [caught(F.conv_transpose2d, x, w, stride=2, output_padding=2),
            caught(F.conv_transpose2d, x, w, output_padding=1),
            caught(F.conv_transpose1d, x1, w1, stride=2, output_padding=2),
            caught(F.conv_transpose1d, x1, w1, padding=4),
            caught(F.conv_transpose2d, x, lib.ones(5, 3, 3, 3)), caught(F.conv_transpose2d, x, w, lib.ones(4)),
            caught(F.conv_transpose2d, x, w, padding="same"), caught(F.conv_transpose2d, x[0, 0], w),
            caught(F.conv_transpose2d, x, w, groups=3), caught(F.conv_transpose2d, x, w.double()),
            caught(F.conv_transpose1d, x1, w1, stride=0), caught(F.conv_transpose1d, x1, w1, padding=-1),
            caught(F.conv_transpose1d, x1, w1, groups=0), caught(F.conv_transpose1d, x1, lib.ones(2, 3))]


@scenario(**F32)
def conv2d_first_layer_graph(lib):
    # an input that needs no gradient (the images): no edge for it, its gradient never computed
    x = lib.tensor(arr((2, 1, 6, 6), seed=1))
    w, b = _leaf(lib, (3, 1, 3, 3), 2), _leaf(lib, (3,), 3)
    y = lib.nn.functional.conv2d(x, w, b)
    _weighted(lib, y).backward()
    return y, w.grad, b.grad, x.grad is None


@scenario(**F32)
def conv2d_only_input_needs_grad(lib):
    x = _leaf(lib, (2, 3, 6, 6), 1)
    y = lib.nn.functional.conv2d(x, lib.tensor(arr((4, 3, 3, 3), seed=2)), lib.tensor(arr((4,), seed=3)),
                                 padding=1)
    _weighted(lib, y).backward()
    return y, x.grad


@scenario
def conv_integer_inputs(lib):
    x = lib.tensor(np.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4) % 7 - 3)
    w = lib.tensor(np.arange(2 * 3 * 2 * 2).reshape(2, 3, 2, 2) % 5 - 2)
    b = lib.tensor([1, -1])
    x1 = lib.tensor(np.arange(12).reshape(1, 2, 6), dtype=lib.int32)
    return (lib.nn.functional.conv2d(x, w, b, stride=(1, 2), padding=1),
            lib.nn.functional.conv1d(x1, lib.ones(3, 2, 2, dtype=lib.int32)))


@scenario
def conv2d_saved_settings(lib):
    x, w, b = _leaf(lib, (1, 2, 7, 7), 1), _leaf(lib, (4, 1, 3, 3), 2), _leaf(lib, (4,), 3)
    node = lib.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2).grad_fn
    return (node._saved_stride, node._saved_padding, node._saved_dilation, node._saved_groups,
            node._saved_transposed, node._saved_output_padding, node._saved_bias_sym_sizes_opt,
            node._saved_input, node._saved_weight)


@scenario(rtol=1e-6, atol=1e-8)
def conv2d_double_backward(lib):
    # the second-order graph is PyTorch's (ConvolutionBackwardBackward0 with edges to
    # grad_output, input and weight; each gradient its own output); the third-order values match
    x, w, b = _leaf(lib, (2, 3, 7, 6), 1, "float64"), _leaf(lib, (4, 3, 3, 2), 2, "float64"), \
        _leaf(lib, (4,), 3, "float64")
    y = lib.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1)
    gx, gw, gb = lib.autograd.grad((y * y).sum(), (x, w, b), create_graph=True)
    ggx, ggw, ggb = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum() + (gb * gb).sum(), (x, w, b))
    return gx, gw, gb, ggx, ggw, ggb


@scenario(rtol=1e-6, atol=1e-8)
def conv2d_double_backward_groups_dilation(lib):
    x, w = _leaf(lib, (2, 4, 8, 7), 1, "float64"), _leaf(lib, (6, 2, 3, 3), 2, "float64")
    y = lib.nn.functional.conv2d(x, w, None, padding=2, dilation=2, groups=2)
    gx, gw = lib.autograd.grad(_weighted(lib, y * y), (x, w), create_graph=True)
    ggx, ggw = lib.autograd.grad(_weighted(lib, gx, 5) + _weighted(lib, gw, 6), (x, w))
    only_w, = lib.autograd.grad(_weighted(lib, gx, 5), w, retain_graph=True)
    only_x, = lib.autograd.grad(_weighted(lib, gw, 6), x)
    return gx, gw, ggx, ggw, only_w, only_x


@scenario(rtol=1e-6, atol=1e-8)
def conv2d_double_backward_of_a_linear_loss(lib):
    # grad_output needs no gradient: the edges to input and weight stay, as in PyTorch
    x, w, b = _leaf(lib, (2, 3, 5, 5), 1, "float64"), _leaf(lib, (2, 3, 3, 3), 2, "float64"), \
        _leaf(lib, (2,), 3, "float64")
    y = lib.nn.functional.conv2d(x, w, b)
    gx, gw, gb = lib.autograd.grad(y.sum(), (x, w, b), create_graph=True)
    ggw, = lib.autograd.grad((gx * gx).sum(), w)
    return gx, gw, gb, ggw


@scenario(rtol=1e-6, atol=1e-8)
def conv1d_unbatched_double_backward(lib):
    x, w, b = _leaf(lib, (2, 3, 10), 1, "float64"), _leaf(lib, (4, 3, 3), 2, "float64"), \
        _leaf(lib, (4,), 3, "float64")
    y = lib.nn.functional.conv1d(x[0], w, b, padding=1)
    gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    ggx, ggw = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (x, w))
    return y, gx, gw, ggx, ggw


# ================================================================ pooling

MAX_POOL2D = {   # name: (input shape, positional arguments after the input, keyword arguments)
    "kernel2": ((2, 3, 8, 8), (2,), {}),
    "kernel3_stride2_padding1": ((2, 3, 9, 8), (3, 2, 1), {}),
    "dilation2": ((2, 3, 9, 9), (3,), {"stride": 1, "dilation": 2, "padding": 1}),
    "tuples": ((2, 3, 9, 8), ((3, 2),), {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}),
    "ceil_mode": ((2, 3, 7, 8), (2,), {"ceil_mode": True}),
    "ceil_mode_padding": ((1, 2, 7, 7), (3, 2, 1), {"ceil_mode": True}),
    "ceil_mode_last_window_dropped": ((1, 1, 5, 5), (2, 2, 1), {"ceil_mode": True}),
    "overlapping": ((2, 3, 7, 7), (3, 1), {}),
    "unbatched": ((3, 8, 7), (2,), {}),
    "float64": ((2, 3, 8, 8), (3, 2, 1), {}),
    "empty_batch": ((0, 3, 4, 4), (2,), {}),
}

AVG_POOL2D = {
    "kernel2": ((2, 3, 8, 8), (2,), {}),
    "padding_count_include_pad": ((2, 3, 7, 8), (3, 2, 1), {}),
    "padding_exclude_pad": ((2, 3, 7, 8), (3, 2, 1), {"count_include_pad": False}),
    "ceil_mode": ((2, 3, 7, 8), (2,), {"ceil_mode": True}),
    "ceil_mode_padding": ((1, 2, 7, 6), (3, 2, 1), {"ceil_mode": True}),
    "ceil_mode_exclude_pad": ((1, 2, 7, 6), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    "divisor_override": ((2, 3, 7, 8), (3, 2, 1), {"divisor_override": 5}),
    "tuples": ((2, 3, 9, 8), ((3, 2),), {"stride": (2, 1), "padding": (1, 0)}),
    "unbatched": ((3, 8, 7), (2,), {}),
    "float64": ((2, 3, 8, 8), (3, 1, 1), {}),
}

MAX_POOL1D = {
    "kernel2": ((2, 3, 9), (2,), {}),
    "stride_padding_dilation": ((2, 3, 11), (3, 2, 1, 2), {}),
    "ceil_mode": ((2, 3, 9), (2,), {"ceil_mode": True}),
    "unbatched": ((3, 9), (3,), {"stride": 1}),
    "return_indices": ((2, 3, 9), (3, 2, 1), {"return_indices": True}),
    "return_indices_unbatched": ((3, 9), (2,), {"return_indices": True, "ceil_mode": True}),
}

AVG_POOL1D = {
    "kernel2": ((2, 3, 9), (2,), {}),
    "stride_padding": ((2, 3, 11), (3, 2, 1), {}),
    "exclude_pad_ceil": ((2, 3, 10), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    "unbatched": ((3, 9), (3,), {"stride": 1}),
}

ADAPTIVE2D = {
    "to_3": ((2, 3, 8, 8), 3),
    "to_2x5": ((2, 3, 7, 9), (2, 5)),
    "none_keeps_a_dim": ((2, 3, 7, 9), (None, 4)),
    "to_1_is_a_mean": ((2, 3, 7, 9), 1),
    "to_1x1_unbatched": ((3, 5, 4), (1, 1)),
    "exact_division": ((2, 3, 8, 6), (4, 3)),
    "larger_than_input": ((1, 2, 3, 4), (5, 6)),
    "unbatched": ((3, 7, 5), (3, 2)),
}

ADAPTIVE1D = {
    "to_3": ((2, 3, 8), 3),
    "to_1": ((2, 3, 8), 1),
    "overlapping": ((2, 3, 7), 5),
    "unbatched": ((3, 10), (4,)),
}


def _pool_scenario(name, function, case):
    shape, args, kwargs = case

    def fn(lib):
        dtype = "float64" if "float64" in name else "float32"
        x = _leaf(lib, shape, 1, dtype)
        out = getattr(lib.nn.functional, function)(x, *args, **kwargs)
        y = out[0] if isinstance(out, tuple) else out
        _weighted(lib, y).backward()
        return out, x.grad
    fn.__name__ = f"{function}_{name}"
    scenario(fn, **F32)


for _name, _case in MAX_POOL2D.items():
    _pool_scenario(_name, "max_pool2d", _case)
    _pool_scenario(_name + "_return_indices", "max_pool2d", (_case[0], _case[1], dict(_case[2], return_indices=True)))
for _name, _case in AVG_POOL2D.items():
    _pool_scenario(_name, "avg_pool2d", _case)
for _name, _case in MAX_POOL1D.items():
    _pool_scenario(_name, "max_pool1d", _case)
for _name, _case in AVG_POOL1D.items():
    _pool_scenario(_name, "avg_pool1d", _case)
for _name, (_shape, _size) in ADAPTIVE2D.items():
    _pool_scenario(_name, "adaptive_avg_pool2d", (_shape, (_size,), {}))
for _name, (_shape, _size) in ADAPTIVE1D.items():
    _pool_scenario(_name, "adaptive_avg_pool1d", (_shape, (_size,), {}))


@scenario
def max_pool_ties_infinities_and_nan(lib):
    # ties go to the first element; a window of -inf (or of padding and -inf) picks its first
    # element; NaN wins, the last NaN of the window
    F = lib.nn.functional
    x = lib.tensor([[[1.0, 3.0, 3.0, 2.0], [3.0, 0.0, -math.inf, -math.inf],
                     [math.nan, 1.0, 5.0, math.nan], [-math.inf, -math.inf, -math.inf, math.nan]]],
                   requires_grad=True)
    out = [F.max_pool2d(x, 2, return_indices=True), F.max_pool2d(x, 2, 1, 1, return_indices=True),
           F.max_pool2d(x, (1, 4), return_indices=True)]
    sum(o[0].sum() for o in out).backward()
    flat = lib.tensor([[-math.inf, -math.inf, -math.inf, 2.0]])
    return (out, x.grad, F.max_pool1d(flat, 2, 1, 1, return_indices=True),
            F.max_pool1d_with_indices(flat, 2), F.max_pool2d_with_indices(x, 3, 1))


@scenario
def max_pool_integer_inputs(lib):
    F = lib.nn.functional
    x = lib.tensor([[[-5, -3, 4], [-2, -7, 0], [1, 1, -9]]])
    return (F.max_pool2d(x, 2, 1, return_indices=True), F.max_pool2d(x, 2, 2, 1, return_indices=True),
            F.max_pool1d(x, 2, return_indices=True), F.avg_pool2d(x, 2, 1), F.avg_pool2d(-x, 2, 1, 1),
            F.avg_pool1d(x, 2, 1, 1), F.avg_pool2d(x, 2, 1, divisor_override=3))


@scenario
def pooling_saved_settings(lib):
    F = lib.nn.functional
    x = _leaf(lib, (1, 2, 6, 6), 1)
    m = F.max_pool2d(x, 2).grad_fn
    m2 = F.max_pool2d(x, (3, 2), (1, 2), 1, (2, 1), True).grad_fn
    a = F.avg_pool2d(x, 3, 2, 1, True, False, 4).grad_fn
    a0 = F.avg_pool2d(x, 2).grad_fn
    return ((m._saved_kernel_size, m._saved_stride, m._saved_padding, m._saved_dilation, m._saved_ceil_mode,
             m._saved_result1, m._saved_self),
            (m2._saved_kernel_size, m2._saved_stride, m2._saved_padding, m2._saved_dilation, m2._saved_ceil_mode),
            (a._saved_kernel_size, a._saved_stride, a._saved_padding, a._saved_ceil_mode,
             a._saved_count_include_pad, a._saved_divisor_override),
            (a0._saved_stride, a0._saved_divisor_override))


def _pool_double_backward_scenario(name, function, shape, args):
    def fn(lib):
        x = _leaf(lib, shape, 1, "float64")
        y = getattr(lib.nn.functional, function)(x, *args)
        g, = lib.autograd.grad(_weighted(lib, y * y), x, create_graph=True)
        gg, = lib.autograd.grad(_weighted(lib, g * g, 7), x, create_graph=True)
        return y, g, gg
    fn.__name__ = f"{name}_double_backward"
    scenario(fn, rtol=1e-6, atol=1e-8)


for _args in (("max_pool2d", "max_pool2d", (2, 3, 7, 7), (3, 2, 1)),
              ("max_pool2d_unbatched", "max_pool2d", (3, 6, 6), (2,)),
              ("max_pool1d", "max_pool1d", (2, 3, 9), (2,)),
              ("avg_pool2d", "avg_pool2d", (2, 3, 7, 7), (3, 2, 1)),
              ("avg_pool1d", "avg_pool1d", (2, 3, 9), (3, 2)),
              ("adaptive_avg_pool2d", "adaptive_avg_pool2d", (2, 3, 7, 7), (3,)),
              ("adaptive_avg_pool2d_to_1", "adaptive_avg_pool2d", (2, 3, 5, 4), (1,)),
              ("adaptive_avg_pool1d", "adaptive_avg_pool1d", (2, 3, 7), (3,))):
    _pool_double_backward_scenario(*_args)


@scenario(rtol=1e-6, atol=1e-8)
def cnn_graph_double_backward(lib):
    # a gradient of a whole small CNN, differentiated again (a gradient penalty)
    F = lib.nn.functional
    x = _leaf(lib, (2, 1, 8, 8), 1, "float64")
    w1, b1 = _leaf(lib, (3, 1, 3, 3), 2, "float64"), _leaf(lib, (3,), 3, "float64")
    w2 = _leaf(lib, (2, 3, 2, 2), 4, "float64")
    h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
    y = F.avg_pool2d(F.conv2d(h, w2), 3)
    gx, = lib.autograd.grad(_weighted(lib, y), x, create_graph=True)
    penalty = (gx * gx).sum()
    gw1, gb1, gw2 = lib.autograd.grad(penalty, (w1, b1, w2))
    return y, gx, gw1, gb1, gw2


# ================================================================ modules

@scenario
def module_reprs_and_parameters(lib):
    nn = lib.nn
    modules = [nn.Conv2d(1, 8, 3), nn.Conv2d(1, 8, (3, 5), stride=2, padding=1, dilation=2, bias=False),
               nn.Conv2d(4, 8, 3, padding="same", groups=2, padding_mode="reflect"),
               nn.Conv2d(2, 2, 4, padding="same"), nn.Conv2d(2, 4, 3, padding=(1, 2), padding_mode="circular"),
               nn.Conv1d(2, 4, 3), nn.Conv1d(2, 4, 3, padding="valid"),
               nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=3, groups=2, bias=False, padding_mode="circular"),
               nn.MaxPool2d(2), nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, ceil_mode=True,
                                             return_indices=True),
               nn.MaxPool1d(3), nn.MaxPool1d(3, 2, 1, 2, True, True), nn.AvgPool2d(2),
               nn.AvgPool2d((2, 3), 1, 1, True, False, 3), nn.AvgPool1d(3), nn.AvgPool1d(3, 2, 1, True, False),
               nn.AdaptiveAvgPool2d(3), nn.AdaptiveAvgPool2d((None, 3)), nn.AdaptiveAvgPool1d(4)]
    settings = [(m.in_channels, m.out_channels, m.kernel_size, m.stride, m.padding, m.dilation, m.groups,
                 m.transposed, m.output_padding, m.padding_mode, tuple(m._reversed_padding_repeated_twice))
                for m in modules[:8]]
    pools = [vars_of(m) for m in modules[8:]]
    return ([repr(m) for m in modules], [[(k, p.shape) for k, p in m.named_parameters()] for m in modules],
            settings, pools, repr(nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2))),
            list(nn.Conv2d(1, 2, 3).state_dict()))


def vars_of(module):
    names = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode", "count_include_pad",
             "divisor_override", "output_size")
    return {n: getattr(module, n) for n in names if hasattr(module, n)}


@scenario
def conv_default_initialisation_bounds(lib):
    # kaiming_uniform(a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = C/groups * kernel; the
    # bias from the same interval (the numbers differ: the generators do)
    lib.manual_seed(0)
    out = []
    for m in (lib.nn.Conv2d(3, 64, 3), lib.nn.Conv2d(8, 64, (2, 3), groups=4), lib.nn.Conv1d(4, 64, 5)):
        fan_in = m.weight.shape[1] * math.prod(m.weight.shape[2:])
        bound = 1 / math.sqrt(fan_in)
        for p in (m.weight, m.bias):
            data = p.detach().numpy()
            out.append((bool(np.all(np.abs(data) <= np.float32(bound))),
                        bool(data.min() < -bound / 2 and data.max() > bound / 2), p.requires_grad, p.dtype))
    return out, lib.nn.Conv2d(2, 3, 3, dtype=lib.float64).weight.dtype


def _copy_weights(lib, module, seed):
    """Set a module's parameters to the same values in both libraries."""
    with lib.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(lib.tensor(arr(tuple(p.shape), seed=seed + i)))
    return module


@scenario(**F32)
def conv_modules_forward_backward_every_padding_mode(lib):
    nn = lib.nn
    results = []
    for mode in ("zeros", "reflect", "replicate", "circular"):
        for m, shape in ((nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=mode), (2, 3, 6, 5)),
                         (nn.Conv2d(2, 4, 4, padding="same", padding_mode=mode, groups=2), (2, 2, 6, 6)),
                         (nn.Conv1d(3, 2, 3, stride=2, padding=2, padding_mode=mode), (3, 8))):
            _copy_weights(lib, m, 10)
            x = _leaf(lib, shape, 1)
            y = _quietly(m, x)
            _weighted(lib, y).backward()
            results.append((y, x.grad, m.weight.grad, m.bias.grad))
    return results


@scenario(**F32)
def pooling_modules_forward_backward(lib):
    nn = lib.nn
    x2, x1 = _leaf(lib, (2, 3, 7, 8), 1), _leaf(lib, (2, 3, 9), 2)
    outs = [nn.MaxPool2d(2)(x2), nn.MaxPool2d(3, 2, 1, return_indices=True)(x2), nn.AvgPool2d(3, 2, 1)(x2),
            nn.AvgPool2d(2, ceil_mode=True, divisor_override=3)(x2), nn.AdaptiveAvgPool2d((3, None))(x2),
            nn.AdaptiveAvgPool2d(1)(x2), nn.MaxPool1d(2)(x1), nn.MaxPool1d(3, 1, 1, return_indices=True)(x1),
            nn.AvgPool1d(3, 2, 1, count_include_pad=False)(x1), nn.AdaptiveAvgPool1d(4)(x1)]
    sum(_weighted(lib, o[0] if isinstance(o, tuple) else o, i) for i, o in enumerate(outs)).backward()
    return outs, x2.grad, x1.grad


@scenario(**F32)
def top_level_functions(lib):
    x, w = _leaf(lib, (2, 3, 8), 1), _leaf(lib, (4, 3, 3), 2)
    y2 = lib.conv2d(x[None], w[:, :, None], None, 1, (0, 1))
    return (lib.conv1d(x, w, None, 2, 1), y2, lib.max_pool1d(x, 2), lib.max_pool2d(y2, 2),
            lib.avg_pool1d(x, 3, 2, 1), lib.adaptive_avg_pool1d(x, 3))


# ------------------------------------------------------------ training a small CNN

def _tiny_cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3), nn.ReLU(),
                         nn.AvgPool2d(2), nn.Flatten(), nn.Linear(6, 3))


@scenario(rtol=1e-4, atol=1e-5)
def tiny_cnn_trains_as_in_pytorch(lib):
    # the same initial weights (copied from NumPy), the same data, five SGD steps: the same losses
    model = _copy_weights(lib, _tiny_cnn(lib), 20)
    x = lib.tensor(arr((8, 1, 8, 8), seed=1))
    target = lib.tensor(np.random.default_rng(2).integers(0, 3, 8))
    return sgd_losses(lib, model, x, target, 5, lr=0.1, momentum=0.9)


# ================================================================ errors

@scenario
def conv_errors(lib):
    F = lib.nn.functional
    x, w, b = lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), lib.ones(4)
    return [caught(F.conv2d, lib.ones(3, 8), w),                             # input dims
            caught(F.conv2d, lib.ones(1, 2, 3, 8, 8), w),
            caught(F.conv1d, lib.ones(8), lib.ones(4, 3, 3)),
            caught(F.conv1d, lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3)),
            caught(F.conv2d, lib.ones(2, 5, 8, 8), w),                       # channels
            caught(F.conv2d, lib.ones(5, 8, 8), w),
            caught(F.conv2d, lib.ones(2, 6, 8, 8), w, groups=3),             # groups
            caught(F.conv2d, lib.ones(2, 5, 8, 8), lib.ones(6, 2, 3, 3), groups=3),
            caught(F.conv2d, lib.ones(2, 6, 8, 8), lib.ones(2, 2, 3, 3), groups=3),
            caught(F.conv2d, x, w, groups=0),
            caught(F.conv2d, lib.ones(2, 3, 2, 2), w),                       # kernel too large
            caught(F.conv2d, lib.ones(2, 3, 4, 4), w, dilation=2),
            caught(F.conv1d, lib.ones(2, 3, 2), lib.ones(4, 3, 3)),
            caught(F.conv2d, lib.ones(2, 3, 0, 8), w),
            caught(F.conv2d, x, w, padding="same", stride=2),                # "same"
            caught(F.conv1d, lib.ones(3, 8), lib.ones(4, 3, 3), padding="same", stride=2),
            caught(F.conv2d, x, w, padding="same", stride=(1, 1, 1)),
            caught(F.conv2d, x, w, padding="same", dilation=0),
            caught(F.conv2d, x, lib.ones(4, 3, 3), padding="same"),
            caught(F.conv2d, x, w, padding="foo"),
            caught(F.conv2d, x, w, padding=-1), caught(F.conv2d, x, w, stride=0),   # settings
            caught(F.conv2d, x, w, dilation=0), caught(F.conv2d, x, w, stride=(1, 1, 1)),
            caught(F.conv2d, x, w, padding=(1, 1, 1)), caught(F.conv2d, x, lib.ones(4, 3, 3)),
            caught(F.conv2d, x, w, lib.ones(5)), caught(F.conv2d, x, w, lib.ones(4, 1)),   # bias
            caught(F.conv2d, x.double(), w), caught(F.conv2d, x, w.double()),        # dtypes
            caught(F.conv2d, x, w, b.double()), caught(F.conv2d, x, w, b.long()),
            caught(F.conv2d, x.long(), w), caught(F.conv2d, x.bool(), w.bool()),
            caught(F.conv2d, lib.ones(2, 5, 8, 8).double(), w)]


@scenario
def conv_module_errors(lib):
    nn = lib.nn
    return [caught(nn.Conv2d, 3, 4, 3, groups=2), caught(nn.Conv2d, 4, 3, 3, groups=2),
            caught(nn.Conv2d, 4, 4, 3, groups=0), caught(nn.Conv2d, 4, 4, 3, padding="same", stride=2),
            caught(nn.Conv1d, 4, 4, 3, padding="same", stride=2), caught(nn.Conv2d, 4, 4, 3, padding="foo"),
            caught(nn.Conv2d(3, 4, 3), lib.ones(2, 5, 8, 8)),
            caught(nn.Conv2d(3, 4, 3, padding=3, padding_mode="reflect"), lib.ones(1, 3, 3, 3))]


@scenario(key="padding_mode must be one of {")
def conv_module_unknown_padding_mode(lib):
    # (the set's order in the message is the hash order, which differs between the two)
    return lib.nn.Conv2d(4, 4, 3, padding_mode="foo")


@scenario
def max_pool_errors(lib):
    F = lib.nn.functional
    x = lib.ones(2, 3, 8, 8)
    return [caught(F.max_pool2d, x, 2, padding=2), caught(F.max_pool2d, x, 2, padding=2, dilation=2),
            caught(F.max_pool2d, x, 3, 1, 2, 2), caught(F.max_pool2d, lib.ones(1, 3, 1, 1), 2),
            caught(F.max_pool2d, lib.ones(3, 8), 2), caught(F.max_pool2d, lib.ones(1, 2, 3, 8, 8), 2),
            caught(F.max_pool2d, lib.ones(2, 3, 0, 4), 1), caught(F.max_pool2d, x, 2, stride=0),
            caught(F.max_pool2d, x, 0), caught(F.max_pool2d, x, 0, 1), caught(F.max_pool2d, x, 2, 1, -1),
            caught(F.max_pool2d, x, 2, 1, 0, 0), caught(F.max_pool2d, x, 3, -1),
            caught(F.max_pool2d, x, (2, 2, 2)), caught(F.max_pool2d, x, 2, (1, 1, 1)),
            caught(F.max_pool2d, x, 2, 1, (1, 1, 1)), caught(F.max_pool2d, x, 2, 1, 0, (1, 1, 1)),
            caught(F.max_pool2d, lib.ones(3, 2, 2).bool(), 2), caught(F.max_pool2d, lib.ones(3, 1, 1).bool(), 2)]


def _max_pool1d_errors(return_indices, requires_grad):
    def fn(lib):
        F = lib.nn.functional
        x = lib.ones(2, 3, 8, requires_grad=requires_grad)

        def pool(shape_or_x, *args, **kwargs):
            t = lib.ones(*shape_or_x, requires_grad=requires_grad) if isinstance(shape_or_x, tuple) else shape_or_x
            return F.max_pool1d(t, *args, return_indices=return_indices, **kwargs)
        return [caught(pool, x, 2, padding=2), caught(pool, (1, 3, 1), 2), caught(pool, (8,), 2),
                caught(pool, (1, 3, 8, 8), 2), caught(pool, x, 0, 1), caught(pool, x, 2, 0),
                caught(pool, x, 2, 1, 0, 0), caught(pool, x, 2, 1, -1), caught(pool, x, (2, 2)),
                caught(pool, x, 2, (1, 1)), caught(pool, x, 2, 1, (1, 1)), caught(pool, x, 2, 1, 0, (1, 1)),
                caught(pool, (2, 3, 0), 1), caught(F.max_pool1d, lib.ones(2, 3, 4, dtype=lib.int64), 2)]
    fn.__name__ = f"max_pool1d_errors_indices_{return_indices}_requires_grad_{requires_grad}"
    scenario(fn)


for _indices in (False, True):
    for _grad in (False, True):
        _max_pool1d_errors(_indices, _grad)


@scenario
def avg_pool_errors(lib):
    F = lib.nn.functional
    x = lib.ones(2, 3, 8, 8)
    return [caught(F.avg_pool2d, x, 2, padding=2), caught(F.avg_pool1d, x[0], 2, padding=2),
            caught(F.avg_pool2d, lib.ones(1, 3, 1, 1), 2), caught(F.avg_pool1d, lib.ones(1, 3, 1), 2),
            caught(F.avg_pool2d, lib.ones(3, 8), 2), caught(F.avg_pool2d, lib.ones(1, 2, 3, 4, 4), 2),
            caught(F.avg_pool2d, lib.ones(2, 3, 0, 4), 1), caught(F.avg_pool1d, lib.ones(8), 2),
            caught(F.avg_pool1d, lib.ones(1, 3, 8, 8), 2), caught(F.avg_pool2d, x, 0),
            caught(F.avg_pool2d, x, 0, 1), caught(F.avg_pool2d, x, 2, 1, -1), caught(F.avg_pool2d, x, 3, -1),
            caught(F.avg_pool2d, x, (2, 2, 2)), caught(F.avg_pool2d, x, 2, (1, 1, 1)),
            caught(F.avg_pool2d, x, 2, 1, (1, 1, 1)), caught(F.avg_pool2d, x, 2, divisor_override=0),
            caught(F.avg_pool1d, x[0], (2, 2)), caught(F.avg_pool1d, x[0], 2, (1, 1)),
            caught(F.avg_pool1d, x[0], 2, 1, (1, 1)), caught(F.avg_pool1d, x[0], 2, 0),
            caught(F.avg_pool1d, x[0], 0, 1), caught(F.avg_pool2d, lib.ones(3, 2, 2).bool(), 2)]


@scenario
def adaptive_avg_pool_errors(lib):
    F = lib.nn.functional
    x = lib.ones(2, 3, 8, 8)
    return [caught(F.adaptive_avg_pool2d, lib.ones(3, 8), 2), caught(F.adaptive_avg_pool2d, lib.ones(1, 2, 3, 4, 4), 2),
            caught(F.adaptive_avg_pool2d, x, -1), caught(F.adaptive_avg_pool2d, lib.ones(3, 8), -1),
            caught(F.adaptive_avg_pool2d, x, (1, 2, 3)), caught(F.adaptive_avg_pool2d, lib.ones(3, 8), (1, 2, 3)),
            caught(F.adaptive_avg_pool2d, lib.ones(2, 3, 0, 4), 2),
            caught(F.adaptive_avg_pool2d, lib.ones(2, 3, 4, 4, dtype=lib.int64), 2),
            caught(F.adaptive_avg_pool2d, lib.ones(3, 4, 4, dtype=lib.int64), 1),
            caught(F.adaptive_avg_pool1d, lib.ones(8), 2), caught(F.adaptive_avg_pool1d, lib.ones(2, 3, 4, 4), 2),
            caught(F.adaptive_avg_pool1d, lib.ones(2, 3, 4), (2, 2)),
            caught(F.adaptive_avg_pool1d, lib.ones(2, 3, 4), -1),
            caught(F.adaptive_avg_pool1d, lib.ones(2, 3, 0), 2),
            F.adaptive_avg_pool2d(x, 0).shape, F.adaptive_avg_pool1d(lib.ones(2, 3, 4), 0).shape,
            F.adaptive_avg_pool2d(lib.ones(3, 8), 1)]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)


# ================================================================ the library alone

def _gradcheck_cases(al):
    F = al.nn.functional

    def leaf(shape, seed):
        return al.tensor(arr(shape, seed=seed), dtype=al.float64, requires_grad=True)
    return {
        "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
                   (leaf((2, 4, 6, 7), 1), leaf((4, 2, 2, 3), 2), leaf((4,), 3))),
        "conv1d_same": (lambda x, w: F.conv1d(x, w, padding="same"), (leaf((2, 3, 7), 1), leaf((2, 3, 4), 2))),
        "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(0, 1),
                                                                output_padding=(1, 0), groups=2, dilation=(1, 2)),
                             (leaf((2, 4, 3, 4), 1), leaf((4, 2, 2, 3), 2), leaf((4,), 3))),
        "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (leaf((2, 2, 7, 6), 1),)),
        "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1, True, False), (leaf((2, 2, 7, 6), 1),)),
        "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (leaf((2, 2, 7, 6), 1),)),
    }


@pytest.mark.parametrize("case", ["conv2d", "conv1d_same", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                                  "adaptive_avg_pool2d"])
def test_gradcheck_first_and_second_order(case):
    al = autograd_lib
    fn, inputs = _gradcheck_cases(al)[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert al.autograd.gradcheck(fn, inputs)
        assert al.autograd.gradgradcheck(fn, inputs)


def test_uneven_same_padding_warns_once_per_process(monkeypatch):
    monkeypatch.setattr(functional_conv, "_SAME_WARNED", [])
    F = autograd_lib.nn.functional
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        F.conv2d(autograd_lib.ones(1, 1, 5, 5), autograd_lib.ones(1, 1, 2, 2), padding="same")
        F.conv1d(autograd_lib.ones(1, 1, 5), autograd_lib.ones(1, 1, 2), padding="same")
    assert [str(w.message) for w in seen] == [
        "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
        "input be created"]
