"""The rules of matrix products (``ops/linalg.py``): ``mm`` (exercise 03), ``mv``, ``dot``,
``bmm``, ``addmm``.
"""

from .. import ops as F
from ..ops import backward_helpers as H
from .table import NODES, rule  # noqa: F401  (NODES: an edition's sealed rule(...) finds its node here)


# ------------------------------------------------------------ linear algebra
rule("mm", "MmBackward0",
     self=("mat2 self_col_major", lambda grad, mat2, self_col_major: H.mm_mat1_backward(
         grad, mat2, self_col_major)),
     mat2=("self mat2_col_major", lambda grad, self, mat2_col_major: H.mm_mat2_backward(
         grad, self, mat2_col_major)))
rule("mv", "MvBackward0",
     self=("vec", lambda grad, vec: grad.unsqueeze(1) * vec),
     vec=("self", lambda grad, self: self.t().mv(grad)))
rule("dot", "DotBackward0",
     self=("tensor", lambda grad, tensor: grad * tensor),
     tensor=("self", lambda grad, self: grad * self))
rule("bmm", "BmmBackward0",
     self=("mat2", lambda grad, mat2: grad.bmm(mat2.transpose(1, 2))),
     mat2=("self", lambda grad, self: self.transpose(1, 2).bmm(grad)))
rule("addmm", "AddmmBackward0",
     self=("beta", lambda grad, beta: grad if beta == 1 else F.mul_scalar(grad, beta)),
     mat1=("mat2 alpha mat1_col_major", lambda grad, mat2, alpha, mat1_col_major: H.mm_mat1_backward(
         grad, mat2, mat1_col_major, alpha)),
     mat2=("mat1 alpha mat2_col_major", lambda grad, mat1, alpha, mat2_col_major: H.mm_mat2_backward(
         grad, mat1, mat2_col_major, alpha)))

