"""Check ``tensor_repr`` against PyTorch's own ``repr(tensor)``.

Every case builds a NumPy array, prints it with ``tensor_repr`` and compares
with the repr of a torch tensor holding the very same values and dtype
(``torch.`` replaced by ``autograd_lib.``).
"""

import numpy as np
import pytest

from autograd_lib._tensor_str import tensor_repr

torch = pytest.importorskip(
    "torch", reason="PyTorch is the oracle for repr tests; install it with pip install torch==2.13.0"
)

PARAMETER_PREFIX = "Parameter containing:\ntensor("


def torch_repr(array, grad="none"):
    """repr of the torch tensor equal to ``array``.

    grad: "none", "leaf" (requires_grad=True), "mul" (grad_fn=<MulBackward0>)
    or "parameter" (an nn.Parameter).
    """
    tensor = torch.from_numpy(np.array(array, copy=True))
    if grad == "leaf":
        tensor.requires_grad_()
    elif grad == "mul":
        tensor = tensor.requires_grad_() * 1
    elif grad == "parameter":
        tensor = torch.nn.Parameter(tensor)
    return repr(tensor).replace("torch.", "autograd_lib.")


def our_repr(array, grad="none"):
    kwargs = {"dtype_name": array.dtype.name}
    if grad == "leaf":
        kwargs["requires_grad"] = True
    elif grad == "mul":
        kwargs["grad_fn_name"] = "MulBackward0"
    elif grad == "parameter":
        kwargs.update(requires_grad=True, prefix=PARAMETER_PREFIX)
    return tensor_repr(array, **kwargs)


def assert_same_repr(array, grad="none"):
    expected = torch_repr(array, grad)
    seen = our_repr(array, grad)
    assert seen == expected, (
        f"dtype={array.dtype}, shape={array.shape}, grad={grad}\n"
        f"--- expected (torch) ---\n{expected}\n--- seen ---\n{seen}"
    )


nan, inf = np.nan, np.inf
f32, f64 = np.float32, np.float64

EDGE_CASES = {
    # 0-d tensors
    "scalar float": np.array(3.5, f32),
    "scalar whole float": np.array(2.0, f32),
    "scalar int": np.array(-7),
    "scalar bool": np.array(True),
    "scalar nan": np.array(nan, f32),
    "scalar -inf": np.array(-inf, f64),
    "scalar tiny": np.array(1e-8, f32),
    "scalar huge": np.array(123456789.0, f64),
    "scalar negative zero": np.array(-0.0, f32),
    # number styles
    "fixed point": np.array([0.5, -1.25, 3.14159], f32),
    "whole floats": np.array([1.0, -2.0, 30.0], f32),
    "all zeros": np.zeros(4, f32),
    "negative zeros": np.array([-0.0, 0.0, 1.0], f32),
    "negative zero with fraction": np.array([-0.0, 0.5], f64),
    "ratio exactly 1000": np.array([1.0, 1000.0], f64),
    "ratio just above 1000": np.array([1.0, 1000.5], f64),
    "float32 0.001 ratio": np.array([0.001, 1.0], f32),
    "float64 0.001 ratio": np.array([0.001, 1.0], f64),
    "1e-4 in float32 (rounds below)": np.array([1e-4], f32),
    "1e-4 in float64": np.array([1e-4], f64),
    "1e8 exactly": np.array([1e8], f64),
    "above 1e8": np.array([1e8 + 1], f64),
    "whole floats in sci": np.array([1.0, 1e6], f32),
    "nan and inf with whole": np.array([1.0, nan, -inf, inf], f32),
    "nan and inf with fraction": np.array([0.5, nan, -inf], f64),
    "nan and inf with sci": np.array([1e-9, nan, inf], f32),
    "only nan": np.array([nan, nan], f32),
    "only inf": np.array([inf, -inf], f64),
    "rounding half": np.array([0.00005, 0.12345, 2.5], f64),
    "wide ints": np.array([1, -100000, 12345678901234]),
    "int32": np.array([[1, 2], [3, -4]], np.int32),
    "bools": np.array([[True, False], [False, True]]),
    "float16": np.array([0.1, 1000.0, -3.0], np.float16),
    "float16 whole": np.array([[1, 2], [3, 4]], np.float16),
    # layout
    "matrix": np.arange(12, dtype=f32).reshape(3, 4) / 7,
    "3-d": np.arange(24, dtype=f64).reshape(2, 3, 4) - 5,
    "4-d": np.arange(16).reshape(2, 2, 2, 2),
    "wrapping vector": np.linspace(-1, 1, 50, dtype=f32),
    "wrapping matrix": np.linspace(-1, 1, 120, dtype=f64).reshape(3, 40),
    "wrapping sci": np.geomspace(1e-6, 1e6, 30, dtype=f32),
    "wrapping ints": np.arange(100) * 1000,
    "single wide element per line": np.array([[1e30, -1e-30]] * 2, f64),
    "deeply nested": np.ones((1, 1, 1, 1, 1, 3), f32),
    "non-contiguous": np.arange(12, dtype=f32).reshape(3, 4).T,
    # summarization (more than 1000 elements)
    "1001 elements": np.arange(1001, dtype=f32),
    "1000 elements (not summarized)": np.arange(1000),
    "summarized matrix": np.arange(2000, dtype=f64).reshape(40, 50) / 3,
    "summarized short rows": np.arange(1200, dtype=f32).reshape(600, 2),
    "summarized short columns": np.arange(1200).reshape(2, 600),
    "summarized 3-d": np.random.default_rng(0).standard_normal((10, 11, 12)).astype(f32),
    "summarized hides the wide values": np.r_[1e-9, np.ones(2000), 1e9].astype(f32),
    "summarized bools": np.arange(1500) % 3 == 0,
    # empty tensors
    "empty 1-d float": np.zeros(0, f32),
    "empty 1-d int": np.zeros(0, np.int64),
    "empty 2-d": np.zeros((0, 3), f32),
    "empty 3-d float64": np.zeros((2, 0, 4), f64),
    "empty bool": np.zeros((3, 0), bool),
    "empty int32": np.zeros((0,), np.int32),
}


@pytest.mark.parametrize("array", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_edge_cases(array):
    assert_same_repr(array)


FLOAT_CASES = [
    "scalar float", "scalar whole float", "scalar nan", "fixed point", "whole floats",
    "nan and inf with sci", "float16", "matrix", "wrapping vector", "wrapping matrix",
    "summarized matrix", "empty 1-d float", "empty 2-d", "empty 3-d float64",
]


@pytest.mark.parametrize("grad", ["leaf", "mul", "parameter"])
@pytest.mark.parametrize("name", FLOAT_CASES)
def test_autograd_suffixes(name, grad):
    assert_same_repr(EDGE_CASES[name], grad)


def test_suffixes_wrap_onto_a_new_line():
    # The last line is long enough that ", dtype=..." no longer fits.
    array = np.linspace(0, 1, 9 * 8, dtype=f64).reshape(8, 9)
    assert_same_repr(array, "mul")
    assert "\n       dtype=autograd_lib.float64, grad_fn=<MulBackward0>)" in our_repr(array, "mul")


def test_wrapping_is_decided_on_the_torch_spelling():
    # "dtype=autograd_lib.float64" is 7 characters longer than torch's
    # "dtype=torch.float64"; the suffixes must still break where torch's do.
    array = np.array([207.0, -91.0, 776.0, -200.0], f64)
    assert_same_repr(array, "parameter")
    assert our_repr(array, "parameter").endswith("dtype=autograd_lib.float64, requires_grad=True)")


def test_grad_fn_wins_over_requires_grad():
    text = tensor_repr(np.ones(2, f32), dtype_name="float32", requires_grad=True, grad_fn_name="AddBackward0")
    assert text == "tensor([1., 1.], grad_fn=<AddBackward0>)"


def random_arrays(count, seed=1234):
    """Seeded arrays of every supported dtype, 0-d to 4-d, magnitudes 1e-8..1e8."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        ndim = rng.integers(0, 5)
        shape = tuple(rng.integers(0, 7, size=ndim))
        if rng.random() < 0.1:  # now and then, large enough to summarize
            shape = tuple(rng.integers(5, 15, size=max(ndim, 3)))
        kind = rng.choice(["float32", "float64", "float16", "int64", "int32", "bool", "whole"])
        if kind == "bool":
            array = rng.random(shape) < 0.5
        elif kind in ("int64", "int32"):
            scale = 10 ** rng.integers(0, 9)
            array = rng.integers(-scale, scale + 1, size=shape).astype(kind)
        elif kind == "whole":
            array = rng.integers(-1000, 1000, size=shape).astype(rng.choice([f32, f64]))
        else:
            lo, hi = sorted(rng.integers(-8, 9, size=2))
            magnitudes = 10.0 ** rng.uniform(lo, hi, size=shape)
            signs = rng.choice([-1.0, 1.0], size=shape)
            if kind == "float16":  # keep within float16's range
                magnitudes = np.minimum(magnitudes, 6e4)
            array = (signs * magnitudes).astype(kind)
            if array.size and rng.random() < 0.2:
                special = rng.choice([0.0, -0.0, nan, inf, -inf])
                array.reshape(-1)[rng.integers(array.size)] = special
        yield np.asarray(array)


RANDOM_ARRAYS = list(random_arrays(160))


@pytest.mark.parametrize("index", range(len(RANDOM_ARRAYS)))
def test_random_sweep(index):
    array = RANDOM_ARRAYS[index]
    grad = ["none", "leaf", "mul", "parameter"][index % 4] if array.dtype.kind == "f" else "none"
    assert_same_repr(array, grad)
