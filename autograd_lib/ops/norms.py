"""Norms and spreads: ``norm`` / ``linalg.vector_norm``, ``renorm``, ``var``, ``std``.

Reductions like ``sum``: over all elements, or over ``dim`` (an int or several),
keeping the reduced dims as size 1 with ``keepdim=True``.  Each records one
node as PyTorch (LinalgVectorNormBackward0, VarBackward0, StdBackward0); their
gradients, below the forward ops, are written with tensor ops so that they can
be differentiated again (PyTorch's ``linalg_vector_norm_backward``,
``var_backward``, ``std_backward``).

``var``/``std`` divide by ``N - correction`` (``correction=1`` by default, Bessel's
correction; ``unbiased=False`` is ``correction=0``).
"""

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .arithmetic import add_scalar, div_scalar, mul_scalar, reciprocal
from .backward_helpers import restore_reduced_dims
from .inplace import _inplace
from .operands import quietly, to_tensor, wrap_dims
from .pointwise import masked_fill, sgn, where
from ..op_table import op

__all__ = ["norm", "vector_norm", "renorm", "renorm_", "renorm_backward", "var", "std", "vector_norm_backward",
           "var_backward", "var_node_backward", "std_backward"]


def _reduced(input, dim):
    """The sorted dims a reduction over ``dim`` covers (None or [] means all)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(input.ndim))
    return wrap_dims(dim, input.ndim) if input.ndim else ()


# ------------------------------------------------------------------- norms

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``sum(|x|**ord) ** (1/ord)`` over ``dim`` (all elements by default);
    ``ord=inf``: the largest ``|x|``, ``-inf``: the smallest, ``0``: how many are non-zero."""
    x = to_tensor(x)
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dt.LEGACY_NAMES[x.dtype.name][:-6]}")
    dims = _reduced(x, dim)
    a = np.abs(x._data)
    axis = dims if x.ndim else None
    if ord == math.inf:
        array = np.max(a, axis=axis, keepdims=keepdim)
    elif ord == -math.inf:
        array = np.min(a, axis=axis, keepdims=keepdim)
    elif ord == 0:
        array = np.sum(a != 0, axis=axis, keepdims=keepdim)
    elif ord == 1:
        array = np.sum(a, axis=axis, keepdims=keepdim)
    elif ord == 2:
        array = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    else:
        array = quietly(lambda: np.sum(a ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord))
    array = np.asarray(array, dtype=x._data.dtype, order="C")
    return record("linalg_vector_norm", array, (x,), {"ord": ord, "dim": dims, "keepdim": keepdim})


@op("norm", public=True)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``torch.norm``: a vector norm (``p=2``, ``"fro"``: the 2-norm of all elements
    of ``dim``; any number: ``vector_norm``).  Matrix norms (``"nuc"``, a number with
    two dims meaning a matrix norm) are not implemented."""
    if p == "fro":
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm(p={p!r}): matrix norms are not implemented in autograd_lib")
    if isinstance(dim, int):
        dim = (dim,)
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


@op("renorm", public=True, inplace="renorm_")
def renorm(input, p, dim, maxnorm):
    """Each slice of ``dim`` whose ``p``-norm is over ``maxnorm`` scaled down to it (times
    ``maxnorm / (norm + 1e-7)``, as PyTorch); the others unchanged (RenormBackward0)."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = _wrap_dim(dim, input.ndim)
    others = tuple(k for k in range(input.ndim) if k != d)
    norms = vector_norm(Tensor._make(input._data), p, others, keepdim=True)._data
    factor = np.where(norms > maxnorm, quietly(np.divide, maxnorm, norms + 1e-7), 1).astype(norms.dtype)
    return record("renorm", input._data * factor, (input,), {"p": p, "dim": d, "maxnorm": maxnorm})


@op("renorm_")
def renorm_(self, p, dim, maxnorm):
    return _inplace(self, lambda s: renorm(s, p, dim, maxnorm))


def vector_norm_backward(grad, self, result, ord, dim, keepdim):
    """The gradient of ``vector_norm`` (PyTorch's ``linalg_vector_norm_backward``)."""
    if ord == 0:
        return None                 # as PyTorch: no gradient at all (x.grad stays None)
    grad = restore_reduced_dims(grad, dim, keepdim)
    result = restore_reduced_dims(result, dim, keepdim)
    if ord == 1:
        return self.sgn() * grad
    if ord == 2:
        return grad * masked_fill(self / result, result == 0, 0)
    if ord in (math.inf, -math.inf):
        mask = self.abs() == result
        return sgn(self) * ((grad / mask.sum(dim, keepdim=True)) * mask)
    if ord < 1:
        scaled = sgn(self) * masked_fill(self.abs() ** (ord - 1), self == 0, 0)
        return scaled * grad * result ** (1 - ord)
    if ord < 2:
        scaled = sgn(self) * self.abs() ** (ord - 1)
    else:
        scaled = self * self.abs() ** (ord - 2)
    return scaled * masked_fill(grad / result ** (ord - 1), result == 0, 0)


def renorm_backward(grad, self, p, dim, maxnorm):
    """The gradient of ``renorm`` (PyTorch's ``renorm_backward``): through the scale
    ``maxnorm / (norm + 1e-7)`` and the norm itself where a slice was scaled, ``grad`` as it
    is elsewhere."""
    others = tuple(k for k in range(self.ndim) if k != dim)
    norms = vector_norm(self, p, others, keepdim=True)
    inverse = reciprocal(add_scalar(norms, 1e-7))
    through_norm = vector_norm_backward((self * grad).sum(others, keepdim=True), self, norms, p, others, True)
    scaled = mul_scalar(inverse, maxnorm) * (grad - inverse * through_norm)
    return where(norms > maxnorm, scaled, grad)


# ----------------------------------------------------------------- spreads

def _correction(name, dim, unbiased, correction):
    """``(dim, correction, shown)`` from PyTorch's overloads: ``var(dim, unbiased, keepdim)``,
    ``var(dim, *, correction)``, ``var(unbiased)``.  ``shown`` is what ``grad_fn._saved_correction``
    shows: None when nothing chose the correction (``x.var()``), which backward reads as 1."""
    if isinstance(dim, bool):                   # x.var(False): the unbiased flag
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(correction=int, unbiased=bool, ), but expected one of:\n"
                        " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
                        " * (tuple of ints dim = None, *, Number correction = None, "
                        "bool keepdim = False)\n * (bool unbiased = True)\n")
    shown = correction
    if correction is None:
        correction = 0 if unbiased is False else 1
        shown = None if unbiased is None and dim is None else correction
    return dim, correction, shown


def _spread(name, input, dim, unbiased, keepdim, correction):
    input = to_tensor(input)
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dim, correction, shown = _correction(name, dim, unbiased, correction)
    dims = _reduced(input, dim)
    axis = dims if input.ndim else None
    count = math.prod(input.shape[d] for d in dims)
    dof = max(count - correction, 0)
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    data = input._data
    centered = data - np.mean(data, axis=axis, keepdims=True)
    squares = np.sum(centered * centered, axis=axis, keepdims=keepdim)
    # What the node keeps, as PyTorch shows it: dim None when none was given (backward
    # then treats N <= correction its own way, see var_node_backward).
    params = {"dim": None if dim is None else dims, "correction": shown, "keepdim": keepdim}
    return input, params, quietly(np.true_divide, squares, dof)


@op("var", public=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance ``sum((x - mean)**2) / (N - correction)`` over ``dim`` (all by default)."""
    input, params, array = _spread("var", input, dim, unbiased, keepdim, correction)
    array = np.asarray(array, dtype=input._data.dtype, order="C")
    return record("var.correction", array, (input,), params)


@op("std", public=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation: ``sqrt(var(...))`` (same arguments)."""
    input, params, array = _spread("std", input, dim, unbiased, keepdim, correction)
    array = np.asarray(np.sqrt(array), dtype=input._data.dtype, order="C")
    return record("std.correction", array, (input,), params)


def var_backward(grad, self, dim, correction, keepdim):
    """``2 / (N - correction) * grad * (self - mean)`` (PyTorch's ``var_backward``).

    (Exercise 05.var_backward; std_backward reaches it through this module too.)"""
    count = math.prod(self.shape[d] for d in dim) if self.ndim else 1
    grad = restore_reduced_dims(grad, dim, keepdim)
    mean = self.mean(dim, keepdim=True) if self.ndim else self.mean()
    dof = count - correction
    scale = 2.0 / dof if dof else math.inf     # N == correction: +-inf, nan at the mean (as PyTorch)
    return mul_scalar(grad, scale) * (self - mean)


def var_node_backward(grad, self, dim, correction, keepdim):
    """What VarBackward0 runs, given what the node kept (``dim`` None when none was given,
    ``correction`` None for the default 1): ``var_backward`` over the reduced dims, except
    PyTorch's own case of a variance over everything with N <= correction, where the
    gradient is inf, and nan where self is the mean, whatever the sign of self - mean."""
    correction = 1 if correction is None else correction
    if dim is None or self.ndim == 0:
        if self.numel() - correction <= 0:
            return grad * where(self == self.mean(), math.nan, math.inf)
        dim = tuple(range(self.ndim))
    return var_backward(grad, self, dim, correction, keepdim)


def std_backward(grad, self, result, dim, correction, keepdim):
    """``var_backward(grad / (2 * result))``, 0 where the result is 0 (what StdBackward0 runs)."""
    return var_node_backward(where(result == 0, 0.0, grad / mul_scalar(result, 2)), self, dim,
                             correction, keepdim)
