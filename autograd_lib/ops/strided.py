"""Views made by strides: ``as_strided`` and ``Tensor.unfold``.

A tensor's elements sit in its storage at ``storage_offset() + sum(index * stride)``.
``x.as_strided(size, stride, storage_offset)`` is a view that reads the storage with the
geometry it is given (strides and offset count elements of the storage, whatever ``x``'s own
geometry), and ``x.unfold(dim, size, step)`` the view of the windows of ``size`` elements
along ``dim``, ``step`` apart, as a new last dim: consecutive windows overlap when ``step <
size``.  Both share ``x``'s storage and version counter (``views.py``), and both may show an
element of ``x`` several times, so their gradients add up what reaches one element
(AsStridedBackward0, UnfoldBackward0).

As the library's views are found in their base by replaying how they were made
(``views.positions_in_base``), an ``as_strided`` view is made by indexing: the positions in
``x`` of the elements it reads, found from the memory addresses.  A view that would read
storage outside ``x``'s elements (which PyTorch allows) is refused.
"""

import numpy as np

from ..recording import record
from ..tensor import Tensor, _wrap_dim, storage_owner
from ..op_table import op

__all__ = ["as_strided", "unfold", "unfold_backward"]


def _offsets(array):
    """Where each element of ``array`` is in its storage, in elements from the storage's start."""
    owner = storage_owner(array)
    size = array.itemsize
    start = (array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]) // size
    offsets = np.full(array.shape, start, dtype=np.int64)
    for dim, (n, stride) in enumerate(zip(array.shape, array.strides)):
        offsets += (np.arange(n, dtype=np.int64) * (stride // size)).reshape((n,) + (1,) * (array.ndim - dim - 1))
    return offsets


def _geometry_offsets(size, stride, storage_offset):
    offsets = np.full(size, storage_offset, dtype=np.int64)
    for dim, (n, s) in enumerate(zip(size, stride)):
        offsets += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(size) - dim - 1))
    return offsets


@op("as_strided", public=True)
def as_strided(input, size, stride, storage_offset=None):
    """The view of ``input``'s storage with shape ``size``, ``stride`` and ``storage_offset``
    (elements; the offset defaults to ``input``'s), recorded as AsStridedBackward0."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    owner, itemsize = storage_owner(input._data), input._data.itemsize
    needed = 0 if 0 in size else (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * itemsize
    if needed > owner.nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for "
                           f"storage of size {owner.nbytes}")
    wanted = _geometry_offsets(size, stride, offset)
    have = _offsets(input._data).ravel()
    order = np.argsort(have, kind="stable")
    found = np.searchsorted(have[order], wanted.ravel())
    found = np.minimum(found, max(have.size - 1, 0))
    if have.size == 0 and wanted.size or wanted.size and not np.array_equal(have[order][found], wanted.ravel()):
        raise RuntimeError("as_strided: this view reads storage outside the elements of the tensor it is made "
                           "from, which autograd_lib does not support (make it from the tensor that holds them)")
    flat = order[found].reshape(size) if wanted.size else np.zeros(size, dtype=np.int64)
    key = np.unravel_index(flat, input._data.shape) if input._data.ndim else (Ellipsis,) + (None,) * len(size)
    storage = owner.reshape(-1, order="A")                  # the owner's memory in order: a view
    array = np.lib.stride_tricks.as_strided(storage[min(offset, storage.size):], size,
                                            [s * itemsize for s in stride],
                                            writeable=not any(s == 0 and n > 1 for n, s in zip(size, stride)))
    repeats = wanted.size > 1 and np.unique(flat).size != flat.size
    return record("as_strided", array, (input,), {"self_shape": input.shape, "key": key, "accumulate": repeats},
                  view_of=input, replay=lambda a: a[key])


@op("unfold")
def unfold(input, dimension, size, step):
    """The windows of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim
    (a view; UnfoldBackward0)."""
    d = _wrap_dim(dimension, input.ndim)
    length = input.shape[d] if input.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")

    def replay(a):
        if a.ndim == 0:
            return a.reshape(1)
        return np.lib.stride_tricks.sliding_window_view(a, size, axis=d, writeable=True)[
            (slice(None),) * d + (slice(None, None, step),)]
    return record("unfold", replay(input._data), (input,),
                  {"self_sym_sizes": input.shape, "dimension": d, "size": size, "step": step},
                  view_of=input, replay=replay)


def unfold_backward(grad, input_sizes, dimension, size, step):
    """The gradient of ``unfold``: each window's gradient added back where it was read
    (UnfoldBackwardBackward0, whose own gradient is ``unfold`` again)."""
    g = grad._data
    if not input_sizes:
        array = g.reshape(())
    else:
        array = np.zeros(input_sizes, dtype=g.dtype)
        moved = np.moveaxis(array, dimension, -1)                # a view: adding into it fills array
        windows = np.moveaxis(g, dimension, -2)                  # (..., window, place in window)
        where = np.arange(windows.shape[-2])[:, None] * step + np.arange(size)[None, :]
        np.add.at(moved, (Ellipsis, where), windows)
    return record("unfold_backward", array, (grad,),
                  {"input_sizes": tuple(input_sizes), "dim": dimension, "size": size, "step": step})


