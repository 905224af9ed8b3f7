"""The rules of ``ops/sorting.py``: ``sort``, ``topk``.
"""

from ..ops import backward_helpers as H
from .table import rule


# Sorting moves each gradient back to where its value came from (ops/sorting.py).
rule("sort", "SortBackward0",
     self=("self_shape dim indices", lambda grad, self_shape, dim, indices: H.scatter_into_zeros(
         grad, self_shape, dim, True, indices)))
rule("topk", "TopkBackward0",
     self=("self_shape dim indices", lambda grad, self_shape, dim, indices: H.scatter_into_zeros(
         grad, self_shape, dim, True, indices)))

