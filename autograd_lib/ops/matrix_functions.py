"""The matrix functions of ``torch.linalg`` that autograd examples use: ``inv``, ``det``,
``slogdet``, ``solve`` and ``cross`` record PyTorch's nodes (LinalgInvExBackward0,
LinalgDetBackward0, LinalgSlogdetBackward0, LinalgSolveExBackward0, LinalgCrossBackward0);
``matrix_power``, ``multi_dot``, ``vecdot`` and ``logdet`` are compositions of other ops, as
in PyTorch.  All work on batches of matrices (the last two dims).  Rules in
``derivatives/matrix_functions.py``: each gradient is written with the ops here, so it can be
differentiated again.

A singular matrix has no inverse: ``inv`` and ``solve`` raise ``LinAlgError`` (a
RuntimeError), with PyTorch's messages.
"""

import warnings

import numpy as np

from .. import dtypes as _dt
from ..recording import record, record_outputs
from ..tensor import Tensor, _wrap_dim
from .linalg import matmul, mm
from .operands import promote, to_tensor
from .pointwise import where
from ..op_table import op

__all__ = ["LinAlgError", "inv", "det", "slogdet", "logdet", "solve", "cross", "matrix_power",
           "multi_dot", "vecdot", "is_vector_rhs", "inverse", "torch_cross", "torch_slogdet"]


class _LinAlgError(RuntimeError):
    """A matrix that the operation cannot handle (singular, for ``inv`` and ``solve``).
    Public as ``linalg.LinAlgError``; the class is named as PyTorch's."""


LinAlgError = _LinAlgError


def _square(A, name):
    A = to_tensor(A)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_dt.LEGACY_NAMES[A.dtype.name][:-len('Tensor')]}")
    return A


@op("inverse", public="inverse")
def inv(A):
    """The inverse of each matrix of ``A``."""
    A = _square(A, "inv")
    try:
        array = np.linalg.inv(A._data)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.inv: The diagonal element 1 is zero, the inversion could not be "
                          "completed because the input matrix is singular.") from None
    return record("linalg_inv_ex", array, (A,))


@op("det", public=True)
def det(A):
    """The determinant of each matrix of ``A``."""
    A = _square(A, "det")
    return record("linalg_det", np.asarray(np.linalg.det(A._data)), (A,))


class _Slogdet(tuple):
    """``(sign, logabsdet)``, printed like ``torch.return_types.linalg_slogdet``."""

    _name = "linalg_slogdet"
    sign = property(lambda self: self[0])
    logabsdet = property(lambda self: self[1])

    def __repr__(self):
        return f"autograd_lib.return_types.{self._name}(\nsign={self[0]!r},\nlogabsdet={self[1]!r})"


class _TorchSlogdet(_Slogdet):
    _name = "slogdet"


@op("slogdet", public="slogdet")
def torch_slogdet(A):
    """``torch.slogdet``: ``linalg.slogdet`` under another name."""
    return _TorchSlogdet(slogdet(A))


def slogdet(A):
    """``(sign, log|det|)`` of each matrix: the log stays finite where ``det`` underflows."""
    A = _square(A, "slogdet")
    sign, logabs = np.linalg.slogdet(A._data)
    return _Slogdet(record_outputs("linalg_slogdet", (Tensor._make(np.asarray(sign)),
                                                      Tensor._make(np.asarray(logabs))), (A,)))


@op("logdet", public=True)
def logdet(A):
    """``log det A``: NaN for a negative determinant (``slogdet``, then a ``where``)."""
    sign, logabs = slogdet(A)
    return where(sign < 0, float("nan"), logabs)


def is_vector_rhs(A, B):
    """PyTorch's rule: ``B`` is a vector (or a batch of them) when it is 1-D, or has one dim
    less than ``A`` and ``A``'s batch-and-row shape."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A, B, *, left=True):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``)."""
    A, B, _ = promote(_square(A, "solve"), B)
    vector = left and is_vector_rhs(A, B)
    rows = B.shape[-1] if vector or not left else B.shape[-2]
    if rows != A.shape[-1]:
        cols = 1 if vector else B.shape[-1] if left else B.shape[-2]
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    a, b = (A._data, B._data[..., None] if vector else B._data) if left else \
        (np.swapaxes(A._data, -1, -2), np.swapaxes(B._data, -1, -2))
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise LinAlgError("autograd_lib.linalg.solve: The solver failed because the input matrix is "
                          "singular.") from None
    x = x[..., 0] if vector else x if left else np.swapaxes(x, -1, -2)
    return record("linalg_solve_ex", np.ascontiguousarray(x), (A, B), {"left": left})


def cross(input, other, *, dim=-1):
    """The cross product of the 3-vectors along ``dim`` (broadcast)."""
    a, b, _ = promote(input, other)
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    array = np.cross(a._data, b._data, axisa=d, axisb=d, axisc=d)
    return record("linalg_cross", array, (a, b), {"dim": d})


@op("cross", public="cross")
def torch_cross(input, other, dim=None):
    """``torch.cross``: ``linalg.cross``, but without ``dim`` the first dim of length 3."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                      "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value "
                      "of dim will change to agree with that of linalg.cross in a future release.",
                      UserWarning, stacklevel=2)
        a = to_tensor(input)
        dim = next((i for i, n in enumerate(a.shape) if n == 3), -1)
    return cross(input, other, dim=dim)


inverse = inv


@op("matrix_power", public=True)
def matrix_power(A, n):
    """``A`` multiplied by itself ``n`` times (``n < 0``: its inverse's power; 0: the
    identity), by repeated squaring with ``matmul`` as PyTorch does."""
    A = to_tensor(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} matrices")
    if n == 0:
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A.shape)
        return A.clone().copy_(Tensor._make(np.ascontiguousarray(eye)))
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, power = None, A
    while n:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


def multi_dot(tensors):
    """The product of a chain of matrices (the first may be a vector, and the last)."""
    tensors = [to_tensor(t) for t in tensors]
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    mats = [first.unsqueeze(0) if first.ndim == 1 else first] + tensors[1:-1] + \
           [last.unsqueeze(1) if last.ndim == 1 else last]
    result = mats[0]
    for m in mats[1:]:
        result = mm(result, m)
    shape = [n for n, squeezed in ((result.shape[0], first.ndim == 1), (result.shape[1], last.ndim == 1))
             if not squeezed]
    return result.view(*shape)


def vecdot(x, y, *, dim=-1):
    """``sum(x * y, dim)`` (the conjugate of ``x`` for complex numbers, not here)."""
    return (to_tensor(x) * y).sum(dim)
