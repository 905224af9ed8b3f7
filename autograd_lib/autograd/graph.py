"""``autograd.graph``: hooks on what the graph saves (PyTorch's ``torch.autograd.graph``).

* ``saved_tensors_hooks(pack_hook, unpack_hook)``: transform every tensor saved for
  backward inside the block (see ``saved_hooks.py``);
* ``save_on_cpu()``: PyTorch's hooks that move saved tensors to the CPU; here every
  tensor is on the CPU already, so they keep a copy (the point, saving device memory,
  does not arise);
* ``disable_saved_tensors_hooks(message)``; ``increment_version(tensor)``; ``Node``;
* ``register_multi_grad_hook``: one hook for the gradients of several tensors;
* ``get_gradient_edge(t)``: a ``GradientEdge``, usable in ``autograd.grad`` like ``t``.
"""

from typing import NamedTuple

from .. import engine as _engine
from .. import graph as _graph
from ..graph import Node
from ..saved_hooks import disable_saved_tensors_hooks, saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "increment_version", "Node", "register_multi_grad_hook", "GradientEdge",
           "get_gradient_edge"]


def increment_version(tensor):
    """Count an in-place write that autograd did not see, on ``tensor`` or on each tensor
    of an iterable (the counting itself is ``autograd_lib.graph.increment_version``)."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        _graph.increment_version(t)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are packed as CPU copies (``pin_memory`` is accepted and ignored)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return Tensor._make(tensor._data.copy())

        def unpack(packed):
            return packed
        super().__init__(pack, unpack)


# ------------------------------------------------------- register_multi_grad_hook

class _MultiHandle:
    """Removes every tensor hook that ``register_multi_grad_hook`` installed."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """One hook for several tensors, once per backward pass that reaches any of them.

    * ``mode="all"``: ``fn(grads)`` once the gradients of all the tensors this pass reaches
      are computed, ``grads`` holding one per tensor (None for a tensor the pass does not
      reach);
    * ``mode="any"``: ``fn(grad)`` with the first of their gradients to be computed."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state = {}                                   # this pass -> [grads, how many are expected]

    def make_hook(i):
        def hook(grad):
            running = _engine.current_pass()
            if running not in state:             # the first gradient of this pass
                _engine.queue_callback(state.clear)          # forgotten when the pass ends
                expected = sum(1 for t in tensors if t.requires_grad
                               and running is not None and running.will_run(t._gradient_edge()[0]))
                state[running] = [[None] * len(tensors), expected]
                if mode == "any":
                    fn(grad)
            grads = state[running]
            grads[0][i] = grad
            grads[1] -= 1
            if mode == "all" and grads[1] == 0:
                fn(list(grads[0]))
        return hook
    return _MultiHandle([t.register_hook(make_hook(i))
                         for i, t in enumerate(tensors) if t.requires_grad])


# ------------------------------------------------------------- gradient edges

class GradientEdge(NamedTuple):
    """Where a tensor's gradient enters the graph: ``(node, output_nr)``.  It may be
    given to ``autograd.grad`` in place of the tensor, as an output or an input."""
    node: Node
    output_nr: int
    ownership_token: object = None

    def _gradient_edge(self):            # what the engine asks a tensor for
        return self.node, self.output_nr


def get_gradient_edge(tensor):
    """The ``GradientEdge`` of ``tensor``: its ``grad_fn`` and output number, or the
    ``AccumulateGrad`` node of a leaf."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = tensor._gradient_edge()
    return GradientEdge(node, nr)
