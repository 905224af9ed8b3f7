"""In-place views: ``squeeze_``, ``unsqueeze_``, ``t_`` and ``transpose_`` change the shape of
the tensor they are called on, not its values.

As in PyTorch, the tensor keeps its storage and its place (a view stays a view of the same
base), its version counter counts one write, and while recording the op becomes its history
(SqueezeBackward3/4/5, UnsqueezeBackward1, TBackward1, TransposeBackward1, whose input is the
tensor's old history).  What was made from the tensor before follows its storage:

* a view that changes shape in place replays one more view op from its base (``_view_fn``);
* a base that changes shape in place keeps in ``_layout`` how to go from the layout its views
  were made from to its layout now, and back (``views.py``), so that a view made before or
  after regenerates its ``grad_fn`` at the right positions.

The checks are an in-place op's (``inplace._check_write``): not a leaf that requires grad, not
a view made under no_grad or by ``unbind``; an inference tensor outside inference_mode is
changed, then refused.
"""

import numpy as np

from ..grad_mode import is_grad_enabled
from ..recording import record
from ..tensor import _wrap_dim
from .inplace import _check_write, count_write
from .operands import wrap_dims
from ..op_table import op

__all__ = ["squeeze_", "unsqueeze_", "t_", "transpose_"]


def _reshape_in_place(self, op, params, forward, backward):
    """Give ``self`` the layout ``forward(self._data)`` (a NumPy view), recorded as ``op``;
    ``backward`` turns an array of the new layout back into the old one."""
    recording = _checked(self)
    node = record(op, forward(self._data), (self,), params)._grad_fn if recording else None
    self._data = forward(self._data)
    if self._base is not None:
        made = self._view_fn
        self._view_fn = lambda a: forward(made(a))
    else:
        to_now, back = self._layout or (_same, _same)
        self._layout = (lambda a: forward(to_now(a)), lambda a: back(backward(a)))
    count_write(self)
    if node is not None:
        self._grad_fn, self._output_nr = node, 0
        if self._base is not None:                  # its new node is up to date with the write
            self._view_version = self._version_counter.value
    return self


def _checked(self):
    """An in-place op's checks, before the arguments' (as PyTorch): whether it records."""
    recording = is_grad_enabled() and self.requires_grad
    _check_write(self, recording)
    return recording


def _same(array):
    return array


@op("squeeze_")
def squeeze_(self, dim=None):
    """Drop dims of size 1 in place: all of them, ``dim``, or those of a tuple of dims."""
    _checked(self)
    shape = self.shape
    if dim is None:
        op, dims = "squeeze_", tuple(i for i, n in enumerate(shape) if n == 1)
    elif isinstance(dim, (tuple, list)):
        op, dims = "squeeze_.dims", tuple(d for d in wrap_dims(dim, self.ndim) if shape[d] == 1) if self.ndim else ()
    else:
        d = _wrap_dim(dim, self.ndim)
        op, dims = "squeeze_.dim", ((d,) if self.ndim and shape[d] == 1 else ())
    return _reshape_in_place(self, op, {"dims": dims}, lambda a: np.squeeze(a, axis=dims),
                             lambda a: np.expand_dims(a, dims))


@op("unsqueeze_")
def unsqueeze_(self, dim):
    """Insert a dim of size 1 at ``dim``, in place."""
    _checked(self)
    d = _wrap_dim(dim, self.ndim + 1)
    return _reshape_in_place(self, "unsqueeze_", {"dim": d}, lambda a: np.expand_dims(a, d),
                             lambda a: np.squeeze(a, axis=d))


@op("transpose_")
def transpose_(self, dim0, dim1):
    """Swap dims ``dim0`` and ``dim1`` in place."""
    _checked(self)
    d0, d1 = _wrap_dim(dim0, self.ndim), _wrap_dim(dim1, self.ndim)
    swap = (lambda a: np.swapaxes(a, d0, d1)) if self.ndim else _same
    return _reshape_in_place(self, "transpose_", {"dim0": d0, "dim1": d1}, swap, swap)


@op("t_")
def t_(self):
    """Transpose a tensor of at most 2 dims in place."""
    _checked(self)
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _reshape_in_place(self, "t_", None, np.transpose, np.transpose)


