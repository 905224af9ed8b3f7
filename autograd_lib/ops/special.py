"""Special pointwise functions of one input: trigonometry and its inverses
(``tan``, ``asin``, ``atanh``, ...), logs and exponentials in other bases or near 0
(``log1p``, ``expm1``, ``log2``, ``exp2``), ``rsqrt``, the error function family
(``erf``, ``erfc``, ``erfinv``), ``sinc``, ``logit``, ``frac``, ``deg2rad``,
``nan_to_num`` and the ``isinf``-style tests.

Each computes elementwise with NumPy (integer inputs in the default float dtype,
as PyTorch) and records itself under PyTorch's op name; the gradient rules are
in ``derivatives/special.py``.  NumPy has no ``erf``: it is computed with
``math.erf`` element by element (as gelu in ``activations.py``), and ``erfinv``
by Newton's method on it.  The in-place forms (``x.tan_()``) are in
``inplace_unary.py``.
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor
from .operands import floating, quietly, to_tensor
from ..op_table import op

__all__ = ["tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
           "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
           "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "erf", "erfc", "erfinv", "sinc",
           "logit", "positive", "frac", "deg2rad", "rad2deg", "nan_to_num",
           "isfinite", "isinf", "isposinf", "isneginf", "signbit"]


def _unary(op, np_fn, input, params=None):
    """Compute ``np_fn`` on ``input`` (as a float tensor) and record op ``op``."""
    input = floating(to_tensor(input))
    array = np.asarray(quietly(np_fn, input._data)).astype(input._data.dtype, copy=False)
    return record(op, array, (input,), params)


@op("tan", public=True, inplace="tan_")
def tan(input):
    return _unary("tan", np.tan, input)


@op("sinh", public=True, inplace="sinh_")
def sinh(input):
    return _unary("sinh", np.sinh, input)


@op("cosh", public=True, inplace="cosh_")
def cosh(input):
    return _unary("cosh", np.cosh, input)


@op("asin", "arcsin", public=("arcsin", "asin"), inplace="asin_")
def asin(input):
    return _unary("asin", np.arcsin, input)


@op("acos", "arccos", public=("acos", "arccos"), inplace="acos_")
def acos(input):
    return _unary("acos", np.arccos, input)


@op("atan", "arctan", public=("arctan", "atan"), inplace="atan_")
def atan(input):
    return _unary("atan", np.arctan, input)


@op("asinh", "arcsinh", public=("arcsinh", "asinh"), inplace="asinh_")
def asinh(input):
    return _unary("asinh", np.arcsinh, input)


@op("acosh", "arccosh", public=("acosh", "arccosh"), inplace="acosh_")
def acosh(input):
    return _unary("acosh", np.arccosh, input)


@op("atanh", "arctanh", public=("arctanh", "atanh"), inplace="atanh_")
def atanh(input):
    return _unary("atanh", np.arctanh, input)


def written_in_place(name):
    """The form of asinh, acosh or atanh that ``x.asinh_()`` runs: PyTorch records a
    node of its own for it (AsinhBackward1, ...) whose backward refuses."""
    np_fn = {"asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}[name]
    return lambda input: _unary(name + "_", np_fn, input)


# NumPy's names for them are PyTorch's aliases (same op, same node).
arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


@op("log1p", public=True, inplace="log1p_")
def log1p(input):
    """``log(1 + x)``, accurate for small ``x``."""
    return _unary("log1p", np.log1p, input)


@op("expm1", public=True, inplace="expm1_")
def expm1(input):
    """``exp(x) - 1``, accurate for small ``x``."""
    return _unary("expm1", np.expm1, input)


@op("log2", public=True, inplace="log2_")
def log2(input):
    return _unary("log2", np.log2, input)


@op("log10", public=True, inplace="log10_")
def log10(input):
    return _unary("log10", np.log10, input)


@op("exp2", public=True, inplace="exp2_")
def exp2(input):
    return _unary("exp2", np.exp2, input)


@op("rsqrt", public=True, inplace="rsqrt_")
def rsqrt(input):
    """``1 / sqrt(x)``."""
    return _unary("rsqrt", lambda a: 1 / np.sqrt(a), input)


# ------------------------------------------------------------ error function

_erf64 = np.frompyfunc(math.erf, 1, 1)
_erfc64 = np.frompyfunc(math.erfc, 1, 1)


def _np_erf(a):
    return _erf64(a.astype(np.float64)).astype(np.float64)


def _np_erfc(a):
    return _erfc64(a.astype(np.float64)).astype(np.float64)


def _np_erfinv(a):
    """The inverse of erf: a close first guess (Winitzki's formula), then Newton steps
    ``y -= (erf(y) - x) / erf'(y)`` until float64 accuracy.  ``erfinv(±1) = ±inf``,
    and nan outside [-1, 1]."""
    x = a.astype(np.float64)
    inside = np.abs(x) < 1
    xi = np.where(inside, x, 0.0)
    k = 0.147
    ln = np.log1p(-xi * xi)
    t = 2 / (math.pi * k) + ln / 2
    y = np.sign(xi) * np.sqrt(np.sqrt(t * t - ln / k) - t)
    for _ in range(6):
        y = y - (_np_erf(y) - xi) / (2 / math.sqrt(math.pi) * np.exp(-y * y))
    edge = np.where(np.abs(x) == 1, np.sign(x) * np.inf, np.nan)
    return np.where(inside, y, edge)


@op("erf", public=True, inplace="erf_")
def erf(input):
    return _unary("erf", _np_erf, input)


@op("erfc", public=True, inplace="erfc_")
def erfc(input):
    """``1 - erf(x)``, accurate where erf is close to 1."""
    return _unary("erfc", _np_erfc, input)


@op("erfinv", public=True, inplace="erfinv_")
def erfinv(input):
    return _unary("erfinv", _np_erfinv, input)


# ----------------------------------------------------------------- the rest

@op("sinc", public=True, inplace="sinc_")
def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0."""
    return _unary("sinc", np.sinc, input)


@op("logit", public=True, inplace="logit_")
def logit(input, eps=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]``."""
    def np_logit(p):
        if eps is not None:
            p = np.clip(p, eps, 1 - eps)
        return np.log(p / (1 - p))
    return _unary("logit", np_logit, input, {"eps": eps})


@op("positive", public=True)
def positive(input):
    """``input`` itself (PyTorch returns the same tensor; refused for bool)."""
    input = to_tensor(input)
    if input.dtype is _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@op("frac", public=True, inplace="frac_")
def frac(input):
    """The fractional part ``x - trunc(x)`` (float tensors only)."""
    input = to_tensor(input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"frac_cpu" not implemented for '
                           f"'{_dt.LEGACY_NAMES[input.dtype.name][:-6]}'")
    return record("frac", quietly(lambda a: a - np.trunc(a), input._data), (input,))


@op("deg2rad", public=True, inplace="deg2rad_")
def deg2rad(input):
    return _unary("deg2rad", lambda a: a * np.asarray(math.pi / 180, a.dtype), input)


@op("rad2deg", public=True, inplace="rad2deg_")
def rad2deg(input):
    return _unary("rad2deg", lambda a: a * np.asarray(180 / math.pi, a.dtype), input)


@op("nan_to_num", public=True, inplace="nan_to_num_")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan becomes ``nan``, ±inf the largest/smallest finite value (or the ones given)."""
    input = to_tensor(input)
    a = input._data
    if a.dtype.kind != "f":
        return record("nan_to_num", a.copy(), (input,))
    info = np.finfo(a.dtype)
    out = np.where(np.isnan(a), nan, a)
    out = np.where(np.isposinf(a), info.max if posinf is None else posinf, out)
    out = np.where(np.isneginf(a), info.min if neginf is None else neginf, out)
    return record("nan_to_num", quietly(np.asarray, out, dtype=a.dtype), (input,))


# --------------------------------------------------- tests (bool results, not recorded)

def _test(np_fn):
    def test(input):
        return Tensor._make(np.asarray(np_fn(to_tensor(input)._data)))
    return test


isfinite, isinf = _test(np.isfinite), _test(np.isinf)
isposinf, isneginf, signbit = _test(np.isposinf), _test(np.isneginf), _test(np.signbit)
op("isfinite", public="isfinite")(isfinite)
op("isinf", public="isinf")(isinf)
op("isposinf", public="isposinf")(isposinf)
op("isneginf", public="isneginf")(isneginf)
op("signbit", public="signbit")(signbit)
