"""The operations: a NumPy forward pass, then ``recording.record``.

One module per family, each installing its Tensor methods next to its ops
(``Tensor.exp = exp``), in the order they build on each other:

========================  =================================================
``operands.py``           numbers to tensors, dtype promotion, NumPy quietly
``arithmetic.py``         ``+ - * /``, ``neg``, ``reciprocal``, ``pow``
``pointwise.py``          ``exp``, ``log``, ``tanh``, ``sigmoid``, ``relu``, ``clamp``, ``where``
``comparison.py``         ``==``, ``<``, ``&``, ``~``, ``isnan``, ``allclose``, ``isclose`` (not recorded)
``copies.py``             ``clone``, ``contiguous``, ``to``
``reductions.py``         ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``, ``argmax``
``shape.py``              views: ``view``, ``reshape``, ``transpose``, ``squeeze``, ``expand``,
                          ``unbind``; ``cat``, ``stack``
``indexing.py``           ``x[key]``, and its backward ``embed_in_zeros``
``linalg.py``             ``mm``, ``mv``, ``dot``, ``bmm``, ``addmm``, ``@``
``losses.py``             ``softmax``, ``log_softmax``, ``nll_loss``, ``mse_loss``
``backward_helpers.py``   the longer helpers of gradient formulas (PyTorch's FunctionsManual)
``inplace.py``            ``add_``, ``copy_``, ``+=``, ``t[key] = v``: writes, views, CopySlices
``inplace_unary.py``      ``exp_``, ``relu_``, ``pow_``, ...; ``uniform_``, ``normal_``; ``view_as``
``norms.py``              ``norm``, ``vector_norm``, ``renorm``, ``var``, ``std``
``rounding.py``           ``round``, ``floor``, ``ceil``, ``trunc`` (zero gradient)
``sorting.py``            ``sort``, ``argsort``
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
``binary_math.py``        ``atan2``, ``hypot``, ``xlogy``, ``fmod``, ``lerp``, ``addcmul``, aliases
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

from .arithmetic import *          # noqa: F401,F403
from .pointwise import *           # noqa: F401,F403
from .comparison import *          # noqa: F401,F403
from .copies import *              # noqa: F401,F403
from .reductions import *          # noqa: F401,F403
from .shape import *               # noqa: F401,F403
from .indexing import *            # noqa: F401,F403
from .linalg import *              # noqa: F401,F403
from .losses import *              # noqa: F401,F403
from .backward_helpers import *    # noqa: F401,F403
from .inplace import *             # noqa: F401,F403
from .inplace_unary import *       # noqa: F401,F403
from .norms import *               # noqa: F401,F403
from .elementwise_losses import *  # noqa: F401,F403
from .rounding import *            # noqa: F401,F403
from .sorting import *             # noqa: F401,F403
from .index_ops import *           # noqa: F401,F403
from .pieces import *              # noqa: F401,F403
from .nn_ops import *              # noqa: F401,F403
from .special import *             # noqa: F401,F403
from .binary_math import *         # noqa: F401,F403
from .structure import *           # noqa: F401,F403
from .products import *            # noqa: F401,F403
from .scatter import *             # noqa: F401,F403
from .indexed_writes import *      # noqa: F401,F403
from .view_scatter import *        # noqa: F401,F403
from .distances import *           # noqa: F401,F403
from .statistics import *          # noqa: F401,F403
from .compositions import *       # noqa: F401,F403
from .fold import *               # noqa: F401,F403
from .strided import *            # noqa: F401,F403
from .inplace_views import *      # noqa: F401,F403
from .matrix_functions import LinAlgError, inverse, det, logdet, matrix_power  # noqa: F401
from .matrix_functions import torch_cross as cross  # noqa: F401
