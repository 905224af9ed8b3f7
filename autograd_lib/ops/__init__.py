"""The operations: a NumPy forward pass, then ``recording.record``.

One module per family, each declaring its ops' names beside their forwards
(``@op("exp", public=True, inplace="exp_")``: ``op_table.py`` installs the Tensor
methods and the public names), in the order they build on each other:

========================  =================================================
``operands.py``           numbers to tensors, dtype promotion, NumPy quietly
``arithmetic.py``         ``+ - * /``, ``neg``, ``reciprocal``, ``pow``
``pointwise.py``          ``exp``, ``log``, ``tanh``, ``sigmoid``, ``relu``, ``clamp``, ``where``
``comparison.py``         ``==``, ``<``, ``&``, ``~``, ``isnan``, ``allclose``, ``isclose`` (not recorded)
``copies.py``             ``clone``, ``contiguous``, ``to``
``reductions.py``         ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``, ``aminmax``, ``argmax``
``shape.py``              views: ``view``, ``reshape``, ``transpose``, ``squeeze``, ``expand``,
                          ``unbind``; ``cat``, ``stack``
``indexing.py``           ``x[key]``, and its backward ``embed_in_zeros``
``linalg.py``             ``mm``, ``mv``, ``dot``, ``bmm``, ``addmm``, ``@``
``losses.py``             ``softmax``, ``log_softmax``, ``nll_loss``, ``mse_loss``
``backward_helpers.py``   the longer helpers of gradient formulas (PyTorch's FunctionsManual)
``inplace.py``            ``add_``, ``copy_``, ``+=``, ``t[key] = v``: writes, views, CopySlices
``aliased_writes.py``     a write whose operand reads the memory written, element by element
``inplace_unary.py``      ``exp_``, ``relu_``, ``pow_``, ...; ``uniform_``, ``normal_``; ``view_as``
``norms.py``              ``norm``, ``vector_norm``, ``renorm``, ``var``, ``std``
``rounding.py``           ``round``, ``floor``, ``ceil``, ``trunc`` (zero gradient)
``sorting.py``            ``sort``, ``argsort``, ``topk``; ``searchsorted``, ``bucketize``, ``bincount``
``index_ops.py``          ``index_select``, ``index_add``, ``index_add_``, ``gather``
``pieces.py``             ``split``, ``chunk`` (views, one node), ``repeat``
``elementwise_losses.py`` ``binary_cross_entropy(_with_logits)``, ``smooth_l1_loss``, ``huber_loss``
``special.py``            ``tan``, ``asin``, ``log1p``, ``erf``, ``erfinv``, ``logit``, ``isinf``, ...
``structure.py``          ``flip``, ``roll``, ``rot90``, ``tril``/``triu``, ``diagonal``, ``diag``, ``trace``
``products.py``           ``prod``, ``cumprod``, ``outer``, ``inner``, ``addmv``, ``baddbmm``, ``tile``, ``repeat_interleave``, ``kron``
``scatter.py``            ``masked_select``, ``take``, ``index_fill``, ``scatter(_add)``, ``tensor_split``, ``diff``
``indexed_writes.py``     ``index_put``, ``put``, ``masked_scatter``, ``scatter_reduce`` (and in place)
``view_scatter.py``       ``diagonal_scatter``, ``select_scatter``, ``slice_scatter``
``distances.py``          ``cdist`` (directly, or through a matrix product for p=2), ``dist``
``statistics.py``         ``median``, ``kthvalue``, ``mode``, ``nansum``, ``cummax``, ``logcumsumexp``, ``nonzero``, ``unique``
``binary_math.py``        ``atan2``, ``hypot``, ``xlogy``, ``fmod``, ``lerp``, ``addcmul``, ``ldexp``, aliases
``compositions.py``       ``hstack``, ``meshgrid``, ``broadcast_tensors``, ``fmax``, ``vdot``, ``var_mean``, ...
``fold.py``               ``im2col``, ``col2im``: sliding blocks as columns (``F.unfold``, ``F.fold``)
``strided.py``            views by strides: ``as_strided``, ``Tensor.unfold`` (overlapping windows)
``inplace_views.py``      in-place views: ``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``
``windows.py``            sliding windows (im2col as a NumPy view) and their adjoint, for the two below
``convolution.py``        ``convolution`` and ``convolution_backward`` (``F.conv1d``, ``F.conv2d``)
``pooling.py``            ``max_pool2d_with_indices``, ``avg_pool2d``, ``adaptive_avg_pool2d`` and their backwards
                          (these three modules are reached as modules: ``ops.convolution.convolution``)
========================  =================================================

``autograd_lib.ops.<name>`` is any of them.  The exercise slots among them
(``pointwise.sigmoid_backward``, ``losses.log_softmax_backward_data``,
``inplace.check_inplace``) are left out of this namespace: the library reaches
each through its own module, where ``exercises.plug`` replaces it.
"""

from . import (arithmetic, pointwise, comparison, copies, reductions, shape, indexing, linalg, losses,
               backward_helpers, inplace, inplace_unary, norms, elementwise_losses, rounding, sorting, index_ops,
               pieces, nn_ops, special, binary_math, structure, products, scatter, indexed_writes, view_scatter,
               distances, statistics, compositions, fold, strided, inplace_views, matrix_functions)
from .. import op_table as _op_table

# The families whose ``__all__`` this namespace holds.  matrix_functions is not one: its
# ``__all__`` is torch.linalg's (``autograd_lib.linalg``), whose ``cross`` is not torch.cross.
_FAMILIES = (arithmetic, pointwise, comparison, copies, reductions, shape, indexing, linalg, losses,
            backward_helpers, inplace, inplace_unary, norms, elementwise_losses, rounding, sorting, index_ops,
            pieces, nn_ops, special, binary_math, structure, products, scatter, indexed_writes, view_scatter,
            distances, statistics, compositions, fold, strided, inplace_views)


def _namespace():
    """The families' ``__all__`` names, then the public ops matrix_functions declares (``cross``
    is torch.cross there); a name two families give different objects is refused."""
    names = {}
    for family in _FAMILIES:
        for name in family.__all__:
            _join(names, name, getattr(family, name), family.__name__)
    for name, value in _op_table.PUBLIC.items():
        if value.__module__ == matrix_functions.__name__:
            _join(names, name, value, matrix_functions.__name__)
    names["LinAlgError"] = matrix_functions.LinAlgError
    return names


def _join(names, name, value, family):
    if names.get(name, value) is not value:
        raise _op_table.SecondOwner(f"autograd_lib.ops.{name} is given by {family} and by "
                          f"{names[name].__module__}, two different objects: a name has one owner")
    names[name] = value


globals().update(_namespace())
