"""``autograd_lib.linalg``: the vector norms of ``torch.linalg`` (``vector_norm``, and
``norm`` where it is a vector norm), and the matrix functions that autograd examples use
(``inv``, ``det``, ``slogdet``, ``solve``, ``cross``, ``matrix_power``, ``multi_dot``,
``vecdot``; ``ops/matrix_functions.py``).  Matrix norms and decompositions (``svd``, ``qr``,
``eigh``, ``cholesky``) are not implemented."""

from .ops.matrix_functions import (LinAlgError, cross, det, inv, matrix_power, multi_dot, slogdet,  # noqa: F401
                              solve, vecdot)
from .ops.norms import vector_norm

__all__ = ["vector_norm", "norm", "LinAlgError", "inv", "det", "slogdet", "solve", "cross",
           "matrix_power", "multi_dot", "vecdot"]


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``linalg.norm``: with ``ord=None`` the 2-norm of the elements (over ``dim``, or
    all of them); with an ``ord``, the vector norm of a 1-D input or over one ``dim``."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if (dim is not None and len(dim) == 1) or (dim is None and A.ndim == 1):
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    raise NotImplementedError(f"linalg.norm(ord={ord!r}) of a matrix: matrix norms are not "
                              "implemented in autograd_lib")
