"""The rules of views and shapes (``ops/shape.py``, ``ops/pieces.py``, ``ops/strided.py``,
``ops/inplace_views.py``): ``view``, ``squeeze``, ``unsqueeze``, ``as_strided``, ``unfold``,
``expand``, ``split``, ``repeat``, ``unbind``, ``transpose``, ``t``, ``permute``, ``cat``, ``stack``.
"""

from .. import broadcasting
from .. import ops as F
from ..ops import backward_helpers as H
from ..views import AsStridedBackward0
from .table import rule


# ---------------------------------------------------------- shape and views
for _op, _node in (("view", "ViewBackward0"), ("_unsafe_view", "UnsafeViewBackward0"),
                   ("_reshape_alias", "ReshapeAliasBackward0")):
    rule(_op, _node, self=("self_shape", lambda grad, self_shape: grad.reshape(self_shape)))
for _op, _node in (("squeeze", "SqueezeBackward0"), ("squeeze.dim", "SqueezeBackward1"),
                   ("squeeze.dims", "SqueezeBackward2"), ("squeeze_", "SqueezeBackward3"),
                   ("squeeze_.dim", "SqueezeBackward4"), ("squeeze_.dims", "SqueezeBackward5")):
    rule(_op, _node, self=("dims", lambda grad, dims: H.unsqueeze_dims(grad, dims)))
rule("unsqueeze", "UnsqueezeBackward0", self=("dim", lambda grad, dim: grad.squeeze(dim)))
rule("unsqueeze_", "UnsqueezeBackward1", self=("dim", lambda grad, dim: grad.squeeze(dim)))  # ops/inplace_views.py
rule("as_strided", AsStridedBackward0,                 # a view regenerated from its base (views.py),
     self=("self_shape key accumulate", lambda grad, self_shape, key, accumulate: F.embed_in_zeros(
         grad, self_shape, key, accumulate=accumulate)))                             # or as_strided
rule("unfold", "UnfoldBackward0",                      # ops/strided.py
     self=("self_sym_sizes dimension size step", lambda grad, self_sym_sizes, dimension, size, step:
           F.unfold_backward(grad, self_sym_sizes, dimension, size, step)))
rule("unfold_backward", "UnfoldBackwardBackward0",
     grad_in=("dim size step", lambda grad, dim, size, step: grad.unfold(dim, size, step)))
rule("expand", "ExpandBackward0",
     self=("self_shape", lambda grad, self_shape: broadcasting.sum_to(grad, self_shape)))
for _op, _node in (("split.Tensor", "SplitBackward0"), ("split_with_sizes", "SplitWithSizesBackward0"),
                   ("unsafe_split.Tensor", "UnsafeSplitBackward0"),
                   ("unsafe_split_with_sizes", "UnsafeSplitWithSizesBackward0")):
    rule(_op, _node, all_grads=True,                  # ops/pieces.py
         self=("self_shape dim sizes", lambda grads, self_shape, dim, sizes: F.split_backward(
             grads, self_shape, dim, sizes)))
rule("repeat", "RepeatBackward0",
     self=("self_shape repeats", lambda grad, self_shape, repeats: F.repeat_backward(grad, self_shape, repeats)))
rule("unbind.int", "UnbindBackward0", all_grads=True,
     self=("self_shape dim", lambda grads, self_shape, dim: H.unbind_backward(grads, self_shape, dim)))
rule("transpose.int", "TransposeBackward0",
     self=("dim0 dim1", lambda grad, dim0, dim1: grad.transpose(dim0, dim1)))
rule("transpose_", "TransposeBackward1",              # ops/inplace_views.py
     self=("dim0 dim1", lambda grad, dim0, dim1: grad.transpose(dim0, dim1)))
rule("t", "TBackward0", self=lambda grad: grad.t())
rule("t_", "TBackward1", self=lambda grad: grad.t())
rule("permute", "PermuteBackward0",
     self=("dims", lambda grad, dims: grad.permute(H.inverse_permutation(dims))))
for _op, _node in (("cat", "CatBackward0"), ("stack", "StackBackward0")):
    rule(_op, _node, variadic=True,                     # tensor i gets its part of grad back
         tensors=("dim keys", lambda grad, dim, keys, i: grad[F.dim_key(dim, keys[i])]))

