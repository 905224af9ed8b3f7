"""autograd_lib: PyTorch's autograd, rebuilt on NumPy to be read and learned from.

The public names are PyTorch's, and so is the behaviour: ``requires_grad``,
leaves and ``grad_fn``, gradient accumulation, ``retain_grad``,
``backward(gradient=, retain_graph=, create_graph=, inputs=)``, ``no_grad``,
``detach`` vs ``.data``, the ``_version`` counter and its in-place errors.

Where to read, in order (start with ``tensor.py``; each module is one concept):

============================  ======================================================================
``tensor.py``                 the Tensor and its autograd bookkeeping (01)
``graph.py``                  backward nodes, AccumulateGrad, saved tensors, hooks (02, 04, 06, 08)
``recording.py``              how an op is recorded: whether, its edges, its node (01, 02)
``ops/``                      the operations, one module per family (``ops/__init__.py`` lists them)
``derivatives/``             every gradient rule, keyed by forward op, with what it needs (03, 05)
``ops/backward_helpers.py``   the longer helpers those rules call (PyTorch's FunctionsManual)
``engine.py``                 the backward pass: dependency counts, ready queue, delivery (03, 04)
``broadcasting.py``           broadcasting, and ``sum_to``, its backward (05)
``grad_mode.py``              no_grad / enable_grad / set_grad_enabled (07)
``ops/inplace.py``            in-place writes, views and CopySlices, the leaf rule (08)
``views.py``                  a view's base, its replay function, its regenerated grad_fn (08)
``autograd/``                 backward, grad, Function, gradcheck, functional (jacobian, hessian),
                              graph (saved-tensor hooks)
``nn/``, ``optim/``           modules, losses, optimizers and lr schedulers (09)
``utils/data.py``             datasets and the DataLoader
``serialization.py``          save and load
``devices.py``, ``cuda.py``   the CPU, the only device (honest answers for GPU questions)
``backends/``                 ``backends.mps``, ``backends.cudnn``, ``backends.cuda``: the same answers
``as_torch.py``               run a PyTorch script whose ``import torch`` lines get this library
``viz/``                      drawing a backward graph (walk, text, layout, draw)
============================  ======================================================================

The numbers are the course's assignments.  ``exercises.py`` lists the pieces
students write (the slots), ``creation.py`` and ``dtypes.py`` make tensors and
their types.
"""

import importlib

from . import dtypes as _dtypes
from .dtypes import (bool, dtype, float16, float32, float64, int32, int64, get_default_dtype,
                     set_default_dtype, promote_types)
from .tensor import Size, Tensor
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .devices import device, get_default_device, set_default_device
from . import accelerator, backends, cuda
from .creation import (Generator, arange, as_tensor, empty, empty_like, eye, from_numpy, full,
                       full_like, initial_seed, linspace, manual_seed, ones, ones_like, rand,
                       rand_like, randint, randn, randn_like, randperm, seed, tensor, zeros,
                       zeros_like)
from .ops import (abs, add, addmm, allclose, amax, amin, argmax, argmin, bmm, broadcast_to, cat,
                  clamp, clone, cos, div, dot, eq, equal, exp, expand, flatten, ge, gt, isnan, le,
                  log, log_softmax, logical_and, logical_not, logical_or, lt, matmul, max, maximum,
                  mean, min, minimum, mm, mul, mv, narrow, ne, neg, permute, pow, reciprocal, relu,
                  reshape, return_types, rsub, sigmoid, sign, sin, softmax, sqrt, squeeze, stack,
                  sub, sum, t, tanh, transpose, unbind, unsqueeze, view, where)
from .ops import (argsort, ceil, chunk, cumsum, exp_, floor, floor_divide, gather, logsumexp, norm, relu_, round, sigmoid_, sort, split,
                  square, std, tanh_, topk, trunc, var)
from .ops.special import *        # noqa: F401,F403  (tan, erf, logit, isinf, ...)
from .ops import (addbmm, addmv, addmv_, addr, baddbmm, cumprod, diag, diag_embed, diagonal, flip,  # noqa: F401
                  fliplr, flipud, ger, inner, moveaxis, movedim, outer, prod, repeat_interleave, roll,
                  rot90, swapaxes, swapdims, tile, trace, tril, triu, unflatten)
from .ops import (argwhere, count_nonzero, diff, dsplit, hsplit, index_copy, index_fill,  # noqa: F401
                  masked_select, nonzero, scatter, scatter_add, take, take_along_dim, tensor_split, vsplit)
from .ops import (cdist, diagonal_scatter, index_put, index_put_, masked_scatter, put, renorm,  # noqa: F401
                  scatter_reduce, select_scatter, slice_scatter)
from .ops import (cummax, cummin, dist, isclose, kron, kthvalue, logcumsumexp, median,  # noqa: F401
                  mode, nanmean, nanmedian, nansum, unique)
from .ops.binary_math import *    # noqa: F401,F403  (atan2, xlogy, lerp, aliases, ...)
from .ops.compositions import *   # noqa: F401,F403  (hstack, meshgrid, fmax, var_mean, ...)
from .ops.inplace_unary import (acos_, acosh_, arccos_, arccosh_, arcsin_, arcsinh_, arctan_,  # noqa: F401
                                arctanh_, asin_, asinh_, atan_, atanh_, cosh_, deg2rad_, erf_, erfc_,
                                exp2_, expm1_, frac_, log10_, log1p_, log2_, logit_, nan_to_num_,
                                negative, rad2deg_, rsqrt_, sinc_, sinh_, tan_)
from .ops import unsafe_chunk, unsafe_split, unsafe_split_with_sizes  # noqa: F401
from .ops import as_strided  # noqa: F401
from .ops import (abs_, clamp_, cos_, fill_, hardshrink, index_add, index_select, log_,  # noqa: F401
                  masked_fill, neg_, reciprocal_, select, sgn, sin_, sqrt_, square_, zero_)
from .nn.functional import (celu, cosine_similarity, group_norm, layer_norm,  # noqa: F401
                            pairwise_distance, rms_norm, selu, threshold)
from .nn.functional import bilinear  # noqa: F401
from .nn.recurrent import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell  # noqa: F401
from .nn.functional import (adaptive_avg_pool1d, avg_pool1d, conv1d, conv2d, conv_transpose1d,  # noqa: F401
                            conv_transpose2d, max_pool1d, max_pool2d)
from .ops.matrix_functions import det, inverse, logdet, matrix_power  # noqa: F401
from .ops.matrix_functions import torch_cross as cross, torch_slogdet as slogdet  # noqa: F401
from . import derivatives           # the gradient rules: what every op above records
from . import autograd
from . import linalg
from .serialization import load, save
from .tensor_types import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor,  # noqa: F401
                           FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor)
from .autograd import Function
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled

clip = clamp
float = float32
double = float64
long = int64
half = float16


def result_type(tensor1, tensor2):
    """The dtype ``tensor1 op tensor2`` would have (PyTorch's promotion rules; exercise
    01.result_type, reached through ``dtypes``)."""
    return _dtypes.result_type(tensor1, tensor2)


def detach(input):
    """``torch.detach(x)``: ``x.detach()`` (exercise 01.detach, reached through the method)."""
    return input.detach()


def is_floating_point(input):
    return input.is_floating_point()


all, any = Tensor.all, Tensor.any       # torch.all(x, dim), torch.any(x): the methods


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_inference(input):
    return input.is_inference()


def numel(input):
    return input.numel()


def __getattr__(name):
    # nn, optim and viz are loaded on first use (ag.nn, ag.viz, ...), not by
    # `import autograd_lib`: viz imports matplotlib, which makes the import several times
    # slower (every notebook and grading kernel pays it). This is not an import cycle: nothing in the
    # core imports them, and they import the core at their top like any user.
    if name in ("nn", "optim", "viz", "utils"):
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'autograd_lib' has no attribute '{name}'")


__version__ = "0.1.0"
