"""Comparisons and logic: ``==``, ``<``, ``&``, ``~``, ``isnan``, ``allclose``, ...

Their results are bool tensors (or Python bools), which never require grad:
nothing here is recorded.
"""

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .operands import commuted, promote, quietly, to_tensor
from ..op_table import exports, methods, op

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "isnan", "allclose", "equal"]


def _compare(np_fn):
    def compare(input, other):
        a, b, _ = promote(input, other)
        return Tensor._make(np.asarray(quietly(np_fn, a._data, b._data)))
    return compare


eq, ne = _compare(np.equal), _compare(np.not_equal)
lt, le = _compare(np.less), _compare(np.less_equal)
gt, ge = _compare(np.greater), _compare(np.greater_equal)
logical_and, logical_or = _compare(np.logical_and), _compare(np.logical_or)
logical_xor = _compare(np.logical_xor)
exports(logical_xor=logical_xor)

op("eq", "__eq__", public="eq")(eq)
op("ne", "__ne__", public=("ne", "not_equal"))(ne)
op("lt", "__lt__", public=("less", "lt"))(lt)
op("le", "__le__", public=("le", "less_equal"))(le)
op("gt", "__gt__", public=("greater", "gt"))(gt)
op("ge", "__ge__", public=("ge", "greater_equal"))(ge)
op("logical_and", public="logical_and")(logical_and)
op("logical_or", public="logical_or")(logical_or)


def _bitwise(np_fn, name):
    def op(input, other):
        a, b, dtype = promote(input, other)
        if dtype.is_floating_point:
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{_dt.LEGACY_NAMES[dtype.name][:-6]}'")
        return Tensor._make(np.asarray(quietly(np_fn, a._data, b._data)))
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")

op("__and__")(bitwise_and)
methods(__rand__=commuted(bitwise_and))
op("__or__")(bitwise_or)
methods(__ror__=commuted(bitwise_or))
op("__xor__")(bitwise_xor)


@op("logical_not", public=True)
def logical_not(input):
    return Tensor._make(np.logical_not(to_tensor(input)._data))


@op("__invert__")
def _invert(self):
    """``~t``: logical not of a bool tensor, bitwise not of an integer one."""
    return logical_not(self) if self.dtype is _dt.bool else Tensor._make(np.invert(self._data))


@op("isnan", public=True)
def isnan(input):
    return Tensor._make(np.isnan(to_tensor(input)._data))


@op("allclose", public=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(to_tensor(input)._data, to_tensor(other)._data, rtol, atol, equal_nan))


@op("equal", public=True)
def equal(input, other):
    """True when both tensors have the same shape and values."""
    a, b = to_tensor(input), to_tensor(other)
    return a.shape == b.shape and bool(np.array_equal(a._data, b._data))


def _any_all(np_fn):
    def reduce(input, dim=None, keepdim=False):
        input = to_tensor(input)
        if dim is None:
            return Tensor._make(np.asarray(np_fn(input._data)))
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = tuple(d % max(input.ndim, 1) for d in dims) if input.ndim else None
        return Tensor._make(np.asarray(np_fn(input._data, axis=dims, keepdims=keepdim)))
    return reduce


all, any = _any_all(np.all), _any_all(np.any)   # bool results: whether all / any is non-zero
__all__ += ["all", "any"]
op("all", public="all")(all)
op("any", public="any")(any)


@op("isclose", public=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where ``|input - other| <= atol + rtol * |other|`` (infinities equal to themselves)."""
    input, other = to_tensor(input), to_tensor(other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_dt.LEGACY_NAMES[input.dtype.name][:-6]} did not match "
                           f"{_dt.LEGACY_NAMES[other.dtype.name][:-6]}")
    a, b = input._data, other._data
    if a.dtype.kind == "b":
        return Tensor._make(np.asarray(a == b))
    close = quietly(np.isclose, a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return Tensor._make(np.asarray(close))


__all__ += ["isclose"]
