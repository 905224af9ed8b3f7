"""The rules of indexing (``ops/indexing.py``): ``x[i]``, ``x[a:b]``, ``x[indices]`` (exercise
05), their backward ops, and writing by key: ``index_put_``, ``scatter``.
"""

from .. import ops as F
from ..creation import zeros
from ..ops import backward_helpers as H
from .table import NODES, rule  # noqa: F401  (NODES: an edition's sealed rule(...) finds its node here)


rule("select.int", "SelectBackward0",
     self=("self_shape dim index", lambda grad, self_shape, dim, index: F.embed_in_zeros(
         grad, self_shape, F.dim_key(dim, index), op="select_backward")))
rule("slice.Tensor", "SliceBackward0",
     self=("self_shape dim start end step", lambda grad, self_shape, dim, start, end, step:
           F.embed_in_zeros(grad, self_shape, F.dim_key(dim, slice(start, end, step)))))
rule("index.Tensor", "IndexBackward0", saves=("indices",),
     self=("self_shape indices", lambda grad, self_shape, indices: F.embed_in_zeros(
         grad, self_shape, indices, accumulate=True)))
# The backward of select/slice/index/max(dim) writes the gradient into zeros; its
# own gradient (for double backward) reads the same place back.
for _op, _node in (("select_backward", "SelectBackwardBackward0"),
                   ("slice_backward", "SliceBackwardBackward0")):
    rule(_op, _node, self=("key", lambda grad, key: grad[key]))
# t[key] = values with an advanced key, x.index_put(indices, values) (and zeros.index_put_(key,
# grad) above): the overwritten places of self get no gradient (zeros written over them, by the
# same op, as PyTorch), values get what was written.
rule("index_put_", "IndexPutBackward0", saves=("key",),
     self=("key accumulate", lambda grad, key, accumulate: (
         grad if accumulate else F.index_put_at(grad, key, zeros((), dtype=grad.dtype)))),
     values=("key", lambda grad, key: grad[key]))
for _op, _node in (("_index_put_impl_", "IndexPutImplBackward0"), ("scatter.src", "ScatterBackward0")):
    rule(_op, _node, saves=("key",),
         self=("key accumulate", lambda grad, key, accumulate: (
             grad if accumulate else H.index_fill_zero(grad, key))),
         values=("key", lambda grad, key: grad[key]))

