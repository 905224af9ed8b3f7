"""The rules of norms and spreads (``ops/norms.py``): ``vector_norm``, ``var``, ``std``.
"""

from ..ops import norms
from .table import rule


# Norms and spreads (ops/norms.py).
rule("linalg_vector_norm", "LinalgVectorNormBackward0",
     self=("self result ord dim keepdim", lambda grad, self, result, ord, dim, keepdim:
           norms.vector_norm_backward(grad, self, result, ord, dim, keepdim)))
rule("var.correction", "VarBackward0",
     self=("self dim correction keepdim", lambda grad, self, dim, correction, keepdim:
           norms.var_node_backward(grad, self, dim, correction, keepdim)))
rule("std.correction", "StdBackward0",
     self=("self result dim correction keepdim", lambda grad, self, result, dim, correction, keepdim:
           norms.std_backward(grad, self, result, dim, correction, keepdim)))

