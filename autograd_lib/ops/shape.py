"""Shapes and views: ``view``, ``reshape``, ``unflatten``, ``transpose``, ``permute``,
``movedim``, ``select``, ``squeeze``, ``unsqueeze``, ``expand``, ``unbind``, ``cat``,
``stack``, ``x.T``.

A *view* shares its input's storage and version counter (``record(...,
view_of=input, replay=...)``, ``views.py``): writing into one writes into the
other, and PyTorch's in-place rules for views follow (``ops/inplace.py``).  ``reshape`` is a view
when the memory layout allows it and a copy otherwise, as in PyTorch.
``cat`` and ``stack`` copy.

Every view op lives here, with its error messages, so the module is longer than most:
they share the replay mechanism and the dimension checks.
"""

import math
import operator
import warnings

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import is_grad_enabled
from ..recording import record, record_outputs
from ..tensor import Tensor, _wrap_dim
from ..views import MULTI_OUTPUT_NODE, make_view, same_layout
from .copies import contiguous
from .operands import cast_operand, to_tensor, wrap_dims
from ..op_table import methods, op

__all__ = ["view", "reshape", "flatten", "unflatten", "transpose", "swapaxes", "swapdims", "t",
           "permute", "movedim", "moveaxis", "select", "squeeze", "unsqueeze",
           "expand", "expand_as", "broadcast_to", "unbind", "cat", "stack", "dim_key", "select_key",
           "views_of_one_node"]


def _shape_arg(shape):
    """Accept ``f(2, 3)`` and ``f((2, 3))`` alike."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _view_array(array, shape):
    """The NumPy view with ``shape``, or None when the strides don't allow one."""
    try:
        return array.reshape(shape, copy=False)
    except ValueError:
        return None


@op("view", public=True)
def view(input, *shape):
    shape = _infer_shape(_shape_arg(shape), input.numel())
    array = _view_array(input._data, shape)
    if array is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return record("view", array, (input,), {"self_shape": input.shape}, view_of=input,
                  replay=lambda a: a.reshape(shape))


@op("reshape", public=True)
def reshape(input, *shape):
    """A view when the memory layout allows it, otherwise a copy (like PyTorch)."""
    shape = _infer_shape(_shape_arg(shape), input.numel())
    if input._data.flags.c_contiguous:
        return view(input, shape)
    array = _view_array(input._data, shape)
    if array is not None:           # a view of a non-contiguous tensor: PyTorch's _reshape_alias
        return record("_reshape_alias", array, (input,), {"self_shape": input.shape}, view_of=input,
                      replay=lambda a: a.reshape(shape))
    return unsafe_view(contiguous(input), shape)


def unsafe_view(input, shape):
    return record("_unsafe_view", input._data.reshape(shape), (input,), {"self_shape": input.shape})


@op("flatten", public=True)
def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, input.ndim), _wrap_dim(end_dim, input.ndim)
    if s == e:
        return input
    shape = input.shape[:s] + (math.prod(input.shape[s:e + 1]),) + input.shape[e + 1:]
    return reshape(input, shape)


@op("unflatten", public=True)
def unflatten(input, dim, sizes):
    """Split dim ``dim`` into several of ``sizes`` (one may be -1): a ``view``, as in PyTorch."""
    d = _wrap_dim(dim, input.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n, known = input.shape[d], math.prod(s for s in sizes if s != -1)
    if (math.prod(sizes) != n) if -1 not in sizes else (known == 0 or n % known):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of "
                           f"dim {d} ({n}) in the input tensor")
    return view(input, input.shape[:d] + _infer_shape(sizes, n) + input.shape[d + 1:])


@op("transpose", public=True, inplace="transpose_")
def transpose(input, dim0, dim1):
    n = input.ndim
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    replay = (lambda a: np.swapaxes(a, d0, d1)) if n else same_layout
    return record("transpose.int", replay(input._data.view()), (input,), {"dim0": d0, "dim1": d1},
                  view_of=input, replay=replay)


@op("t", public=True, inplace="t_")
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return record("t", input._data.T, (input,), view_of=input, replay=_transposed)


@op("permute", public=True)
def permute(input, *dims):
    dims = tuple(_wrap_dim(d, input.ndim) for d in _shape_arg(dims))
    if sorted(dims) != list(range(input.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. input.dim() "
                           f"= {input.ndim} is not equal to len(dims) = {len(dims)}"
                           if len(dims) != input.ndim else "permute(): duplicate dims are not allowed.")
    return record("permute", np.transpose(input._data, dims), (input,),
                  {"dims": dims}, view_of=input, replay=lambda a: np.transpose(a, dims))


@op("movedim", public=("moveaxis", "movedim"))
def movedim(input, source, destination):
    """Move dims ``source`` to positions ``destination``, the others keeping their order:
    a ``permute`` (PermuteBackward0), as in PyTorch."""
    src, dst = _dims_arg(source), _dims_arg(destination)
    if src is None or dst is None:
        raise TypeError(f"movedim() received an invalid combination of arguments - got "
                        f"({type(source).__name__}, {type(destination).__name__}), but expected "
                        "one of: (int source, int destination) or (tuple of ints source, tuple "
                        "of ints destination)")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should "
                           f"contain the same number of dims as destination ({dst} dims)")
    for name, dims in (("source", src), ("destination", dst)):
        if len({_wrap_dim(d, input.ndim) for d in dims}) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    src = [_wrap_dim(d, input.ndim) for d in src]
    dst = [_wrap_dim(d, input.ndim) for d in dst]
    order = [None] * input.ndim                 # order[new position] = old dim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(input.ndim) if i not in src)
    return permute(input, tuple(o if o is not None else next(rest) for o in order))


def _dims_arg(dims):
    """movedim's ``source``/``destination``: an int or a sequence of ints, as a list (None
    for anything else)."""
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        return [int(dims)]
    if isinstance(dims, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in dims):
        return [int(d) for d in dims]
    return None


@op("swapaxes", public=("swapaxes", "swapdims"))
def swapaxes(input, axis0, axis1):
    """NumPy's name for ``transpose`` (also ``swapdims``)."""
    return transpose(input, axis0, axis1)


@op("select", public=True)
def select(input, dim, index):
    """``x.select(dim, i)``: the view of index ``i`` of ``dim``, that dim removed
    (``x[:, i]`` for dim 1)."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if isinstance(index, Tensor) and index.ndim == 0 and not index.dtype.is_floating_point:
        index = index.item()
    if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
        raise TypeError(f"select(): argument 'index' (position 2) must be int, not "
                        f"{type(index).__name__}")
    d = _wrap_dim(dim, input.ndim)
    n, index = input.shape[d], int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    key = select_key(d, index % n)
    return record("select.int", input._data[key], (input,),
                  {"self_shape": input.shape, "dim": d, "index": index % n}, view_of=input,
                  replay=operator.itemgetter(key))


moveaxis, swapdims = movedim, swapaxes       # NumPy's names, and PyTorch's other one
op("moveaxis")(moveaxis)
op("swapdims")(swapdims)


def _T(self):
    """``x.T``: the dims reversed (a permute, as in PyTorch, which warns unless 2-D)."""
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=3)
    elif self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*autograd_lib.arange(x.ndim - 1, -1, -1))` to reverse the "
                      "dimensions of a tensor.", UserWarning, stacklevel=3)
    return permute(self, tuple(range(self.ndim))[::-1])


def transpose_matrices(x):
    return transpose(x, -2, -1)


def _mT_property(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return transpose_matrices(self)


methods(T=property(_T))
methods(mT=property(_mT_property))


@op("squeeze", public=True, inplace="squeeze_")
def squeeze(input, dim=None):
    shape = input.shape
    if dim is None:
        op, dims = "squeeze", tuple(i for i, s in enumerate(shape) if s == 1)
    elif isinstance(dim, (tuple, list)):
        op, dims = "squeeze.dims", tuple(d for d in wrap_dims(dim, input.ndim) if shape[d] == 1) if input.ndim else ()
    else:
        d = _wrap_dim(dim, input.ndim)
        op, dims = "squeeze.dim", ((d,) if input.ndim and shape[d] == 1 else ())
    replay = (lambda a: np.squeeze(a, axis=dims)) if dims else same_layout
    return record(op, replay(input._data.view()), (input,), {"self_shape": shape, "dims": dims},
                  view_of=input, replay=replay)


@op("unsqueeze", public=True, inplace="unsqueeze_")
def unsqueeze(input, dim):
    d = _wrap_dim(dim, input.ndim + 1)
    return record("unsqueeze", np.expand_dims(input._data, d), (input,), {"dim": d}, view_of=input,
                  replay=lambda a: np.expand_dims(a, d))


@op("expand", public=True)
def expand(input, *sizes):
    target = expanded_shape(input, _shape_arg(sizes))
    return record("expand", np.broadcast_to(input._data, target), (input,), {"self_shape": input.shape},
                  view_of=input, replay=lambda a: np.broadcast_to(a, target))


def expanded_shape(input, sizes):
    """The shape ``input`` expands to for ``sizes`` (``-1``: keep that dim), with PyTorch's
    errors (``expand``, and ``addmm``'s ``input``)."""
    if len(sizes) < input.ndim:
        raise RuntimeError(f"expand(autograd_lib.{_dt.LEGACY_NAMES[input.dtype.name]}{{{list(input.shape)}}}, size={list(sizes)}): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({input.ndim})")
    lead = len(sizes) - input.ndim
    target = []
    for i, s in enumerate(sizes):
        own = input.shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({own}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}."
                               f"  Tensor sizes: {list(input.shape)}")
        target.append(s)
    return tuple(target)


@op("expand_as")
def expand_as(input, other):
    return expand(input, other.shape)


@op("broadcast_to", public=True)
def broadcast_to(input, shape):
    return expand(input, shape)


def _transposed(a):
    return a.T


def dim_key(dim, index):
    """An indexing key that applies ``index`` along ``dim`` only."""
    return (slice(None),) * dim + (index,)


def select_key(dim, index):
    """The NumPy key of ``select(dim, index)``: ``dim_key`` plus a trailing ``...``, so that
    the result is a view even when no dim is left (``a[1]`` of a 1-D array would be a copy,
    a NumPy scalar; ``a[1, ...]`` is a 0-d view, as PyTorch's ``x[1]``)."""
    return (slice(None),) * dim + (index, Ellipsis)


@op("unbind", public=True)
def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of views: one node with one output per
    slice (iterating over a tensor calls this, as in PyTorch).  Views that share a
    node cannot be written in place while recording (``views.MULTI_OUTPUT_NODE``)."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n == 0:
        return ()
    return views_of_one_node("unbind.int", input, [select_key(d, i) for i in range(n)],
                             {"self_shape": input.shape, "dim": d})


def views_of_one_node(op, input, keys, params, as_views=True):
    """The views ``input[key]`` for each key, recorded as the outputs of one node of ``op``
    (unbind, split): views that share a node cannot be written in place while recording
    (``views.MULTI_OUTPUT_NODE``).  ``as_views=False`` (``unsafe_split``): the pieces share
    the input's storage but autograd does not know it (no base, their own version
    counters), so they may be written in place."""
    if not as_views:
        outputs = [Tensor._make(input._data[key]) for key in keys]
    else:
        outputs = [make_view(input._data[key], input, operator.itemgetter(key)) for key in keys]
        if is_grad_enabled():
            for out in outputs:
                out._creation_meta = MULTI_OUTPUT_NODE
    return record_outputs(op, outputs, (input,), params)


@op(public=("cat", "concat", "concatenate"))
def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:         # torch raises this one as a ValueError (its argument parser)
        raise ValueError("autograd_lib.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    tensors = [cast_operand(t, dtype) for t in tensors]
    d = _wrap_dim(dim, tensors[0].ndim)
    first = tensors[0].shape
    for i, t in enumerate(tensors[1:], 1):
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and "
                               f"{t.ndim}")
        for k, (a, b) in enumerate(zip(first, t.shape)):
            if k != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                                   f"size {a} but got size {b} for tensor number {i} in the list.")
    out = np.concatenate([t._data for t in tensors], axis=d)
    offsets = [0]
    for t in tensors:
        offsets.append(offsets[-1] + t.shape[d])
    keys = [slice(offsets[i], offsets[i + 1]) for i in range(len(tensors))]
    return record("cat", out, tensors, {"dim": d, "keys": keys})


@op(public=True)
def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dim."""
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {i}")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    tensors = [cast_operand(t, dtype) for t in tensors]
    d = _wrap_dim(dim, tensors[0].ndim + 1)
    out = np.stack([t._data for t in tensors], axis=d)
    return record("stack", out, tensors, {"dim": d, "keys": list(range(len(tensors)))})
