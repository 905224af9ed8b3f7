"""Products and repeats: ``prod``, ``cumprod``; ``outer`` (``ger``), ``inner``, ``addmv``,
``addr``, ``baddbmm``, ``addbmm``; ``tile``, ``repeat_interleave``.

The gradient of a product for one factor is the product of the *other* factors.
Dividing the result by the factor gives it, unless the factor is zero; so
:func:`prod_of_others` multiplies the factors before it by those after it
instead (two running products), which is right with any number of zeros.

``outer``, ``inner``, ``tile`` and ``repeat_interleave`` are compositions of
other ops in PyTorch (their graphs show MulBackward0, MmBackward0, RepeatBackward0,
IndexSelectBackward0, ...), and so they are here.
"""

import numpy as np

from .. import dtypes as _dt
from ..recording import record
from ..tensor import Tensor, _wrap_dim
from .arithmetic import mul
from .copies import contiguous
from .index_ops import index_select
from .indexing import narrow
from .inplace import _inplace
from .linalg import dot, mm
from .structure import contiguous_array as _contiguous
from .operands import cast_operand, to_tensor
from .pointwise import where
from .shape import cat, movedim, permute, reshape, unsafe_view, view
from .pieces import repeat
from .structure import flip
from ..op_table import op

__all__ = ["prod", "cumprod", "prod_backward", "cumprod_backward", "prod_of_others", "outer", "ger",
           "inner", "addmv", "addr", "baddbmm", "addbmm", "addmv_", "addr_", "baddbmm_", "addbmm_",
           "tile", "repeat_interleave"]


def _product_dtype(t, dtype):
    """Integers and bools multiply as int64 (as for ``sum``), unless ``dtype`` is given."""
    if dtype is not None:
        return _dt.as_dtype(dtype)
    return t.dtype if t.dtype.is_floating_point else _dt.int64


@op("prod", public=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product of all elements (ProdBackward0), or along ``dim`` (ProdBackward1)."""
    input = to_tensor(input)
    target = _product_dtype(input, dtype)
    input = cast_operand(input, target)
    if dim is None:
        return record("prod", np.asarray(np.prod(input._data), dtype=target.numpy), (input,))
    d = _wrap_dim(dim, input.ndim) if input.ndim else _wrap_dim(dim, 0)
    array = np.prod(input._data, axis=d if input.ndim else None, keepdims=keepdim and input.ndim > 0)
    return record("prod.dim_int", np.asarray(array, dtype=target.numpy, order="C"), (input,),
                  {"dim": d, "keepdim": keepdim})


def prod_of_others(x, dim):
    """For every element, the product of the other elements along ``dim``: the running
    product of those before it times the running product of those after it (no division,
    so zeros are no problem)."""
    n = x.shape[dim]
    if n <= 1:
        return Tensor._make(np.ones(x.shape, dtype=x._data.dtype))
    ones = Tensor._make(np.ones(x.shape[:dim] + (1,) + x.shape[dim + 1:], dtype=x._data.dtype))
    before = cat([ones, cumprod(narrow(x, dim, 0, n - 1), dim)], dim)
    after = flip(cat([ones, cumprod(narrow(flip(x, (dim,)), dim, 0, n - 1), dim)], dim), (dim,))
    return before * after


def prod_backward(grad, self, dim, keepdim):
    """``grad`` times the product of the other factors (``dim`` None: of all elements)."""
    if self.ndim == 0:
        return grad
    if dim is None:
        return grad * prod_of_others(self.reshape(-1), 0).reshape(self.shape)
    if not keepdim:
        grad = grad.unsqueeze(dim)
    return grad * prod_of_others(self, dim)


@op("cumprod", public=True)
def cumprod(input, dim, *, dtype=None):
    """Running products along ``dim``; integers and bools multiply as int64."""
    input = to_tensor(input)
    target = _product_dtype(input, dtype)
    input = cast_operand(input, target)
    d = _wrap_dim(dim, input.ndim) if input.ndim else _wrap_dim(dim, 0)
    array = np.cumprod(input._data, axis=d) if input.ndim else input._data.copy()
    return record("cumprod", np.asarray(array, dtype=target.numpy), (input,), {"dim": d})


def cumprod_backward(grad, self, dim):
    """Element ``k`` is a factor of the running products ``j >= k``; each of them without
    it is the running product of a copy of ``self`` with a 1 in place ``k``.  Those copies
    side by side (a new dim for ``k``) give every such product at once, zeros or not."""
    if self.ndim == 0 or self.shape[dim] <= 1:
        return grad
    x, g = movedim(self, dim, -1), movedim(grad, dim, -1)
    n = x.shape[-1]
    eye = Tensor._make(np.eye(n, dtype=bool))                      # [k, i]: i is k
    without = where(eye, 1.0, x.unsqueeze(-2)).cumprod(-1)         # [..., k, j]
    later = Tensor._make(np.triu(np.ones((n, n), dtype=x._data.dtype)))   # j >= k
    out = (without * later * g.unsqueeze(-2)).sum(-1)
    return movedim(out, -1, dim)


# --------------------------------------------------------------- products

@op("outer", public=("ger", "outer"))
def outer(input, vec2):
    """The matrix of all products ``input[i] * vec2[j]`` (a reshape and a mul, as PyTorch)."""
    input, vec2 = to_tensor(input), to_tensor(vec2)
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(reshape(input, (input.shape[0], 1)), vec2)


ger = outer


@op("inner", public=True)
def inner(input, other):
    """Sums of products over the last dims (``tensordot`` with one pair of dims)."""
    input, other = to_tensor(input), to_tensor(other)
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    a = permute(input, tuple(range(input.ndim)))
    b = permute(other, (other.ndim - 1,) + tuple(range(other.ndim - 1)))
    out_shape = input.shape[:-1] + other.shape[:-1]
    if input.ndim == 1 and other.ndim == 1:
        return view(dot(a, b), out_shape)
    k = input.shape[-1]
    rows, cols = int(np.prod(input.shape[:-1])), int(np.prod(other.shape[:-1]))
    return view(mm(reshape(a, (rows, k)), reshape(b, (k, cols))), out_shape)


def _scaled_sum(input, product, beta, alpha, dtype):
    """``beta * input + alpha * product`` (NumPy arrays); beta 0 ignores input (nan too)."""
    out = product if alpha == 1 else alpha * product
    if beta != 0:
        out = out + (input if beta == 1 else beta * input)
    else:
        out = np.broadcast_to(out, np.broadcast_shapes(out.shape, input.shape))
    return _contiguous(out, dtype=dtype)


def _same_dtype(op, *tensors):
    """Operands of one dtype (PyTorch requires it for these ops, without promotion)."""
    tensors = [to_tensor(t) for t in tensors]
    names = [_dt.LEGACY_NAMES[t.dtype.name][:-6] for t in tensors]
    if len(set(names)) > 1:
        if op == "addmv":
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, "
                               f"{names[1]}, and {names[2]}")
        odd = next(n for n in names if n != names[0])
        raise RuntimeError(f"expected scalar type {names[0]} but found {odd}")
    return tensors


@op("addmv", public=True, inplace="addmv_")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` (AddmvBackward0)."""
    input, mat, vec = _same_dtype("addmv", input, mat, vec)
    product = mv_shape_checked(mat, vec)
    return record("addmv", _scaled_sum(input._data, product, beta, alpha, mat._data.dtype),
                  (input, mat, vec), {"beta": beta, "alpha": alpha})


def mv_shape_checked(mat, vec):
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    return mat._data @ vec._data


@op("addr", public=True, inplace="addr_")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (AddrBackward0)."""
    input, vec1, vec2 = _same_dtype("addr", input, vec1, vec2)
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1
                           else f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return record("addr", _scaled_sum(input._data, np.outer(vec1._data, vec2._data), beta, alpha,
                                      vec1._data.dtype), (input, vec1, vec2), {"beta": beta, "alpha": alpha})


def _batches(batch1, batch2):
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch1.shape[0]}, {batch1.shape[2]}] but got: [{batch2.shape[0]}, "
                           f"{batch2.shape[1]}].")
    return np.matmul(batch1._data, batch2._data)


@op("baddbmm", public=True, inplace="baddbmm_")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``, one product per batch (BaddbmmBackward0)."""
    input, batch1, batch2 = _same_dtype("baddbmm", input, batch1, batch2)
    return record("baddbmm", _scaled_sum(input._data, _batches(batch1, batch2), beta, alpha,
                                         batch1._data.dtype), (input, batch1, batch2),
                  {"beta": beta, "alpha": alpha})


@op("addbmm", public=True, inplace="addbmm_")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (AddbmmBackward0)."""
    input, batch1, batch2 = _same_dtype("addbmm", input, batch1, batch2)
    product = _batches(batch1, batch2).sum(axis=0)
    return record("addbmm", _scaled_sum(input._data, product, beta, alpha, batch1._data.dtype),
                  (input, batch1, batch2), {"beta": beta, "alpha": alpha, "batches": batch1.shape[0]})


def _in_place_of(fn):
    def method(self, a, b, *, beta=1, alpha=1):
        return _inplace(self, lambda s, x, y: fn(s, x, y, beta=beta, alpha=alpha), a, b)
    method.__name__ = fn.__name__ + "_"
    return method


addmv_, addr_, baddbmm_, addbmm_ = (_in_place_of(f) for f in (addmv, addr, baddbmm, addbmm))
op("ger")(ger)
op("addmv_", public="addmv_")(addmv_)
op("addr_")(addr_)
op("baddbmm_")(baddbmm_)
op("addbmm_")(addbmm_)


# ---------------------------------------------------------------- repeats

@op("tile", public=True)
def tile(input, *dims):
    """``repeat``, with ones put in front of ``dims`` when it has fewer than ``input`` has."""
    input = to_tensor(input)
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    dims = (1,) * (input.ndim - len(dims)) + tuple(int(d) for d in dims)
    return repeat(input, dims)


@op("repeat_interleave", public=True)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place: with an
    int, an unsqueeze, expand and copy (as PyTorch); with a tensor of counts, an
    ``index_select``.  ``repeat_interleave(counts)`` alone gives the repeated indices."""
    input = to_tensor(input)
    if repeats is None:                                   # repeat_interleave(counts)
        counts = input._data.astype(np.int64)
        return Tensor._make(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
    if dim is None:
        input, dim = reshape(input, (-1,)), 0
    d = _wrap_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        counts = repeats._data.astype(np.int64)
        if counts.size == 1 and counts.ndim <= 1:            # one count for every slice
            counts = np.full(input.shape[d], counts.reshape(()), dtype=np.int64)
        if counts.ndim != 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if len(counts) != input.shape[d]:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {len(counts)} and input.size({d}) = {input.shape[d]}")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = Tensor._make(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
        return index_select(input, d, index)
    r = int(repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    spread = input.unsqueeze(d + 1).expand(input.shape[:d + 1] + (r,) + input.shape[d + 1:])
    shape = input.shape[:d] + (input.shape[d] * r,) + input.shape[d + 1:]
    return view(contiguous(spread), shape)         # a copy (CloneBackward0), row-major


@op("kron", public=True)
def kron(input, other):
    """The Kronecker product: every element of ``input`` times the whole of ``other``, in
    blocks (reshapes and a mul, as PyTorch records it)."""
    input, other = to_tensor(input), to_tensor(other)
    n = max(input.ndim, other.ndim)
    a_shape = (1,) * (n - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (n - other.ndim) + tuple(other.shape)
    a = unsafe_view(input, tuple(x for s in a_shape for x in (s, 1)))
    b = unsafe_view(other, tuple(x for s in b_shape for x in (1, s)))
    return unsafe_view(a * b, tuple(p * q for p, q in zip(a_shape, b_shape)))


__all__ += ["kron"]
