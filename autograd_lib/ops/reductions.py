"""Reductions: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``, ``argmax``/``argmin``,
``logsumexp``; and ``cumsum``, the running sum.

A reduction over all elements and one over some dims are different overloads
in PyTorch, with different backward nodes (``sum``: SumBackward0,
``sum.dim_IntList``: SumBackward1), and so they are here.  The dims a
reduction was given are saved as a sorted tuple of non-negative dims.
"""

import contextlib
import warnings

import numpy as np

from .. import dtypes as _dt
from ..recording import record, record_outputs
from ..tensor import Tensor, _wrap_dim
from .operands import cast_operand, floating, quietly, to_tensor, wrap_dims
from .pointwise import maximum, minimum
from ..op_table import exports, op

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "return_types", "logsumexp",
           "logsumexp_backward", "cumsum", "cumsum_backward", "aminmax"]


def _reduce_dims(dim, ndim):
    """The dims sum/mean reduce for ``dim`` (an empty list means all, as in PyTorch)."""
    if not ndim:
        return ()
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return tuple(range(ndim))
    return wrap_dims(dim, ndim)


def _sum_dtype(t):
    return t.dtype if t.dtype.is_floating_point else _dt.int64


@op("sum", public=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    input = to_tensor(input)
    out_dtype = _dt.as_dtype(dtype) or _sum_dtype(input)
    if dim is None:
        array = np.sum(input._data, dtype=out_dtype.numpy)
        return record("sum", array, (input,), {"self_shape": input.shape})
    dims = _reduce_dims(dim, input.ndim)
    # (a reduction's result is always contiguous in PyTorch; NumPy may keep the input's order)
    array = np.asarray(np.sum(input._data, axis=dims, keepdims=keepdim, dtype=out_dtype.numpy),
                       order="C")
    return record("sum.dim_IntList", array, (input,),
                  {"self_shape": input.shape, "dim": dims, "keepdim": keepdim})


@op("mean", public=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    input = to_tensor(input)
    out_dtype = _dt.as_dtype(dtype) or input.dtype
    if not out_dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_dt.LEGACY_NAMES[out_dtype.name][:-6]}")
    if dim is None:
        array = _mean_array(input._data, None, False, out_dtype)
        return record("mean", array, (input,), {"self_shape": input.shape})
    dims = _reduce_dims(dim, input.ndim)
    return record("mean.dim", _mean_array(input._data, dims, keepdim, out_dtype), (input,),
                  {"self_shape": input.shape, "dim": dims, "keepdim": keepdim})


def _mean_array(array, dims, keepdim, out_dtype):
    with warnings.catch_warnings() if array.size == 0 else contextlib.nullcontext():
        if array.size == 0:
            warnings.simplefilter("ignore", RuntimeWarning)   # NaN, silently, as in PyTorch
        result = quietly(np.mean, array, axis=dims, keepdims=keepdim, dtype=out_dtype.numpy)
    return np.asarray(result, dtype=out_dtype.numpy, order="C")


class _ReturnType(tuple):
    """Named (values, indices) pairs, printed like ``torch.return_types.max``."""
    _name = ""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"autograd_lib.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class return_types:
    max = type("max", (_ReturnType,), {"_name": "max"})
    min = type("min", (_ReturnType,), {"_name": "min"})
exports(return_types=return_types)


def _extreme(input, dim, keepdim, kind):
    np_fn, arg_fn = (np.max, np.argmax) if kind == "max" else (np.min, np.argmin)
    if input.numel() == 0:
        raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    if dim is None:
        return record(kind, np_fn(input._data), (input,))
    d = _wrap_dim(dim, input.ndim)
    data = input._data if input.ndim else input._data.reshape(1)
    indices = np.asarray(arg_fn(data, axis=d if input.ndim else 0, keepdims=keepdim), dtype=np.int64)
    values = np.take_along_axis(data, indices if keepdim else np.expand_dims(indices, d), axis=d)
    if not keepdim and input.ndim:
        values = np.squeeze(values, axis=d)
    if not input.ndim:
        values, indices = values.reshape(()), indices.reshape(())
    values, indices = np.asarray(values, order="C"), np.asarray(indices, order="C")
    indices_t = Tensor._make(indices)
    values_t = record(f"{kind}.dim", values, (input,),
                      {"self_shape": input.shape, "dim": d, "keepdim": keepdim, "indices": indices_t})
    return getattr(return_types, kind)(values_t, indices_t)


@op("max", public=True)
def max(input, dim=None, keepdim=False):
    """``max(x)``: the largest value; ``max(x, dim)``: (values, indices); ``max(x, y)``: maximum."""
    input = to_tensor(input)
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    return _extreme(input, dim, keepdim, "max")


@op("min", public=True)
def min(input, dim=None, keepdim=False):
    input = to_tensor(input)
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    return _extreme(input, dim, keepdim, "min")


def _amax_amin(input, dim, keepdim, op, np_fn):
    input = to_tensor(input)
    dims = wrap_dims(dim if dim not in ((), []) else None, input.ndim) if input.ndim else ()
    array = np.asarray(np_fn(input._data, axis=dims, keepdims=keepdim), order="C")
    return record(op, array, (input,), {"dim": dims, "keepdim": keepdim})


@op("amax", public=True)
def amax(input, dim=(), keepdim=False):
    return _amax_amin(input, dim, keepdim, "amax", np.max)


@op("amin", public=True)
def amin(input, dim=(), keepdim=False):
    return _amax_amin(input, dim, keepdim, "amin", np.min)


def _arg_extreme(np_fn, input, dim, keepdim):
    """The index of the extreme value (int64, never recorded)."""
    input = to_tensor(input)
    if dim is None:
        return Tensor._make(np.asarray(np_fn(input._data), dtype=np.int64))
    return Tensor._make(np.asarray(np_fn(input._data, axis=_wrap_dim(dim, input.ndim),
                                         keepdims=keepdim), dtype=np.int64))


@op("argmax", public=True)
def argmax(input, dim=None, keepdim=False):
    return _arg_extreme(np.argmax, input, dim, keepdim)


@op("argmin", public=True)
def argmin(input, dim=None, keepdim=False):
    return _arg_extreme(np.argmin, input, dim, keepdim)


@op("logsumexp", public=True)
def logsumexp(input, dim, keepdim=False):
    """``log(exp(x).sum(dim))``, computed without overflow: the largest value is taken out
    first (a dim of only ``-inf`` gives ``-inf``)."""
    input = floating(to_tensor(input))
    dims = wrap_dims(dim, input.ndim)
    data = input._data
    top = np.amax(data, axis=dims, keepdims=True) if data.size else np.zeros((1,) * data.ndim, data.dtype)
    top = np.where(np.isfinite(top), top, 0).astype(data.dtype)
    out = quietly(lambda: np.log(np.sum(np.exp(data - top), axis=dims, keepdims=True)) + top)
    if not keepdim:
        out = np.squeeze(out, axis=dims)
    return record("logsumexp", np.asarray(out, dtype=data.dtype), (input,), {"dim": dims, "keepdim": keepdim})


def logsumexp_backward(grad, self, result, dim, keepdim):
    """Each element's share of the sum: ``grad * exp(x - logsumexp(x))``."""
    if not keepdim:
        for d in dim:                     # dims are sorted ascending
            grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    return grad * (self - result).exp()


@op("cumsum", public=True)
def cumsum(input, dim, *, dtype=None):
    """Running sums along ``dim``; integers and bools add up as int64, as in PyTorch."""
    input = to_tensor(input)
    target = dtype or (input.dtype if input.dtype.is_floating_point else _dt.int64)
    input = cast_operand(input, target)
    d = _wrap_dim(dim, input.ndim) if input.ndim else 0
    array = np.cumsum(input._data, axis=d) if input.ndim else input._data.copy()
    return record("cumsum", np.asarray(array, dtype=target.numpy), (input,), {"dim": d})


def cumsum_backward(grad, dim):
    """Each input adds into every running sum from its place on: the reversed running sum
    of ``grad`` (total minus what came before)."""
    if not grad.ndim:
        return grad
    return grad.sum(dim, keepdim=True) - grad.cumsum(dim) + grad


class _MinMax(tuple):
    """``(min, max)``, printed like ``torch.return_types.aminmax``."""

    def __new__(cls, low, high):
        return super().__new__(cls, (low, high))

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"autograd_lib.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


@op("aminmax", public=True)
def aminmax(input, *, dim=None, keepdim=False):
    """``(amin, amax)`` over ``dim`` (all elements by default), from one node."""
    input = to_tensor(input)
    dims = tuple(range(input.ndim)) if dim is None else (_wrap_dim(dim, input.ndim),) if input.ndim else ()
    if dim is not None and input.ndim and input.shape[dims[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    if input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                           "has no identity.")
    axis = dims if input.ndim else None
    keep = keepdim and dim is not None
    low = np.asarray(np.min(input._data, axis=axis, keepdims=keep), order="C")
    high = np.asarray(np.max(input._data, axis=axis, keepdims=keep), order="C")
    return _MinMax(*record_outputs("aminmax", (Tensor._make(low), Tensor._make(high)), (input,),
                                   {"dims": dims, "keepdim": keep, "high": high}))
