"""The rules of ``ops/index_ops.py``: ``gather``, ``index_select``, ``index_add``.
"""

from .. import ops as F
from .table import rule


rule("gather", "GatherBackward0",                     # ops/index_ops.py
     self=("self_shape dim index", lambda grad, self_shape, dim, index: F.gather_backward(
         grad, self_shape, dim, index)))
rule("index_select", "IndexSelectBackward0",          # ops/index_ops.py
     self=("self_shape dim index", lambda grad, self_shape, dim, index: F.index_select_backward(
         grad, self_shape, dim, index)))
rule("index_add", "IndexAddBackward0",
     self=lambda grad: grad,
     source=("dim index alpha", lambda grad, dim, index, alpha: (
         F.index_select(grad, dim, index) if alpha == 1 else
         F.mul_scalar(F.index_select(grad, dim, index), alpha))))

