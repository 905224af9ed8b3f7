"""The gradient rules of ``ops/matrix_functions.py`` (inv, det, slogdet, solve, cross).  Each gradient is written with library ops,
so it has a graph of its own under ``create_graph=True`` (PyTorch's second-order graphs
go through other nodes, with the same values).

For a matrix ``A`` with inverse ``A⁻¹``:

* ``inv``:   ``dA = -A⁻ᵀ G A⁻ᵀ``;
* ``det``:   ``dA = g det(A) A⁻ᵀ`` (for a singular ``A``, the transposed adjugate, from
  the singular value decomposition, without a graph of its own);
* ``slogdet``: ``dA = g A⁻ᵀ`` (the sign gets no gradient);
* ``solve`` (``A X = B``): ``dB = A⁻ᵀ G`` (a solve), ``dA = -dB Xᵀ``; for ``X A = B``,
  ``dB = G A⁻ᵀ``, ``dA = -Xᵀ dB``;
* ``cross``: ``da = b × G``, ``db = G × a``.
"""

import numpy as np

from ..creation import zeros_like
from ..ops import matrix_functions as LA
from ..ops.linalg import matmul
from ..tensor import Tensor
from .table import rule


def _t(m):
    return m.mT


def _unsqueeze_last(g):
    return g.unsqueeze(-1).unsqueeze(-1)


def _adjugate_t(A):
    """The transposed adjugate of each matrix (the gradient of det), also where it is
    singular: ``det(U) det(V) V diag(prod of the other singular values) Uᵀ``, transposed."""
    u, s, vh = np.linalg.svd(A._data)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    adj = (np.swapaxes(vh, -1, -2) * others[..., None, :]) @ np.swapaxes(u, -1, -2)
    return Tensor._make(np.swapaxes(adj * sign[..., None, None], -1, -2))


def _det_backward(grad, self, result):
    if np.all(np.abs(np.linalg.det(self._data)) > 0):
        return _unsqueeze_last(grad * result) * _t(LA.inv(self))
    return _unsqueeze_last(grad) * _adjugate_t(self)


def _solve_b(grad, A, B, left):
    if not left:                                    # X A = B: dB = G A⁻ᵀ
        return _t(LA.solve(A, _t(grad)))
    vector = LA.is_vector_rhs(A, B)
    g = LA.solve(_t(A), grad.unsqueeze(-1) if vector else grad)
    return g.squeeze(-1) if vector else g


def _solve_a(grad, A, B, result, left):
    gb = _solve_b(grad, A, B, left)
    if not left:                                    # dA = -Xᵀ dB
        return -matmul(_t(result), gb)
    if LA.is_vector_rhs(A, B):
        return -(gb.unsqueeze(-1) * result.unsqueeze(-2))
    return -matmul(gb, _t(result))

rule("linalg_inv_ex", "LinalgInvExBackward0",
     A=("result", lambda grad, result: -matmul(_t(result), matmul(grad, _t(result)))))
rule("linalg_det", "LinalgDetBackward0", A=("A result", _det_backward))
rule("linalg_slogdet", "LinalgSlogdetBackward0", all_grads=True,
     A=("A", lambda grads, A: _unsqueeze_last(grads[1]) * _t(LA.inv(A)) if grads[1] is not None
        else zeros_like(A)))
rule("linalg_solve_ex", "LinalgSolveExBackward0",
     A=("A B result left", _solve_a), B=("A B left", _solve_b))
rule("linalg_cross", "LinalgCrossBackward0",
     self=("other dim", lambda grad, other, dim: LA.cross(other, grad, dim=dim)),
     other=("self dim", lambda grad, self, dim: LA.cross(grad, self, dim=dim)))
