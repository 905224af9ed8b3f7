"""Matrix products: ``mm``, ``mv``, ``dot``, ``bmm``, ``addmm`` and ``@`` (``matmul``).

``matmul`` is decomposed exactly as PyTorch's ``at::matmul`` does (dot, mv,
mm, folding a batch into one mm, or broadcasting into bmm), so the same nodes
appear in the graph.  Matrix inputs must have the same dtype (no promotion).
"""

import math

import numpy as np

from .. import dtypes as _dt
from ..broadcasting import broadcast_shape
from ..recording import record
from ..tensor import Tensor
from .copies import contiguous
from .inplace_views import squeeze_
from .operands import reflected, to_tensor
from .shape import expand, expanded_shape, reshape, squeeze, t, transpose_matrices, unsafe_view, unsqueeze
from ..op_table import methods, op

__all__ = ["mm", "mv", "dot", "bmm", "addmm", "matmul"]


def _check_mm(a, b, name):
    if a.ndim != 2 or b.ndim != 2:
        bad = a if a.ndim != 2 else b
        raise RuntimeError(f"{'self' if bad is a else 'mat2'} must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")


def _matmul_operands(a, b):
    a, b = to_tensor(a), to_tensor(b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_dt.C_TYPE_NAMES[a.dtype.name]} != {_dt.C_TYPE_NAMES[b.dtype.name]}")
    return a, b


def _scalar_type(t):
    """PyTorch's ScalarType name of ``t``'s dtype: ``Float``, ``Double``, ``Long``, ..."""
    return _dt.LEGACY_NAMES[t.dtype.name][:-len("Tensor")]


@op("mm", public=True)
def mm(input, mat2):
    a, b = _matmul_operands(input, mat2)
    _check_mm(a, b, "mm")
    return record("mm", a._data @ b._data, (a, b),
                  {"self_col_major": _col_major(a), "mat2_col_major": _col_major(b)})


def _col_major(m):
    """True for a matrix stored column by column (a transposed contiguous matrix):
    PyTorch's mm backward then computes that input's gradient transposed."""
    rows = m._data.shape[0]
    strides = [st // m._data.itemsize for st in m._data.strides]
    return strides[0] == 1 and strides[1] == rows


@op("mv", public=True)
def mv(input, vec):
    a, v = _matmul_operands(input, vec)
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {v.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({v.shape[0]})")
    return record("mv", a._data @ v._data, (a, v))


@op("dot", public=True)
def dot(input, tensor):
    a, b = _matmul_operands(input, tensor)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the "
                           "same number of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    return record("dot", np.dot(a._data, b._data), (a, b))


@op("bmm", public=True)
def bmm(input, mat2):
    a, b = _matmul_operands(input, mat2)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return record("bmm", np.matmul(a._data, b._data), (a, b))


@op(public=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``: what ``nn.Linear`` records for 2-D inputs."""
    input, m1, m2 = to_tensor(input), to_tensor(mat1), to_tensor(mat2)
    for name, other in (("self", input), ("mat1", m1)):     # PyTorch's order of checks
        if other.dtype is not m2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{_scalar_type(other)} and {_scalar_type(m2)}")
    _check_mm(m1, m2, "addmm")
    expanded_shape(input, (m1.shape[0], m2.shape[1]))       # PyTorch's error if it does not fit
    product = m1._data @ m2._data
    array = (product if alpha == 1 else alpha * product) + (input._data if beta == 1 else beta * input._data)
    return record("addmm", array.astype(m1._data.dtype, copy=False),
                  (input, m1, m2),
                   {"alpha": alpha, "beta": beta, "mat1_col_major": _col_major(m1),
                    "mat2_col_major": _col_major(m2)})


def _should_fold(t1, t2):
    """PyTorch's rule for folding a batched product into one mm/mv (avoiding bmm)."""
    t1_larger = t1.ndim >= t2.ndim
    big = t1._data if t1_larger else _mT_shape(t2)
    dim_big, dim_small = (t1.ndim, t2.ndim) if t1_larger else (t2.ndim, t1.ndim)
    if not (dim_big >= 3 and dim_small <= 2):
        return False
    small_requires_grad = t2.requires_grad if t1_larger else t1.requires_grad
    if small_requires_grad:             # (PyTorch does not look at grad mode here)
        return True
    if t1.ndim == 2:
        return False
    if big.size == 0:
        return True
    shape, strides = big.shape, [s // big.itemsize for s in big.strides]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(dim_big - 2))


def _mT_shape(t):
    return np.swapaxes(t._data, -1, -2)


@op("matmul", "__matmul__", public=True)
def matmul(input, other):
    """The ``@`` operator, decomposed exactly as PyTorch's ``at::matmul`` does
    (dot, mv, mm, folding into mm, or broadcasting into bmm), so the same
    nodes appear in the graph."""
    t1, t2 = _matmul_operands(input, other)
    d1, d2 = t1.ndim, t2.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(t1, t2)
    if d1 == 2 and d2 == 1:
        return mv(t1, t2)
    if d1 == 1 and d2 == 2:
        # PyTorch squeezes the fresh product in place (squeeze_), so the result is not a view.
        return squeeze_(mm(unsqueeze(t1, 0), t2), 0)
    if d1 == 2 and d2 == 2:
        return mm(t1, t2)
    if _should_fold(t1, t2):
        transpose_result = d2 > d1
        a = transpose_matrices(t2) if transpose_result else t1
        b = (t(t1) if d1 == 2 else t1) if transpose_result else t2
        out_shape = a.shape[:-1]
        folded = reshape(a, (math.prod(out_shape), a.shape[-1]))
        if b.ndim == 2:
            _check_mm(folded, b, "matmul")
            output = unsafe_view(mm(folded, b), out_shape + (b.shape[1],))
            return contiguous(transpose_matrices(output)) if transpose_result else output
        return unsafe_view(mv(folded, b), out_shape)
    # Broadcast the batch dims and multiply with bmm.
    n = t1.shape[-2] if d1 > 1 else 1
    m1 = t1.shape[-1]
    m2 = t2.shape[-2] if d2 > 1 else t2.shape[0]
    p = t2.shape[-1] if d2 > 1 else 1
    batch1, batch2 = t1.shape[:max(d1 - 2, 0)], t2.shape[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        # A batch of one that requires grad is squeezed (then folded), as in PyTorch,
        # so that its gradient is not summed over an expanded copy.
        if batch1[0] == 1 and t1.requires_grad:
            return matmul(squeeze(t1, 0), t2)
        if batch2[0] == 1 and t2.requires_grad:
            return matmul(t1, squeeze(t2, 0))
    batch = broadcast_shape(batch1, batch2)
    count = math.prod(batch)
    if m1 != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{count}, {m1}] but got: [{count}, {m2}].")
    a = reshape(expand(t1, batch + (n, m1)), (count, n, m1))
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    if d2 == 1:                        # a vector on the right: one column per batch
        b = unsqueeze(reshape(expand(t2, batch + (m2,)), (count, m2)), 2)
        return unsafe_view(squeeze(bmm(a, b), -1), out_shape)
    b = reshape(expand(t2, batch + (m2, p)), (count, m2, p))
    return unsafe_view(bmm(a, b), out_shape)


methods(__rmatmul__=reflected(matmul))
