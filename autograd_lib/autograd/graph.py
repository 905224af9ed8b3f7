"""``autograd.graph``: hooks on what the graph saves (PyTorch's ``torch.autograd.graph``).

* ``saved_tensors_hooks(pack_hook, unpack_hook)``: transform every tensor saved for
  backward inside the block (see ``saved_hooks.py``);
* ``save_on_cpu()``: PyTorch's hooks that move saved tensors to the CPU; here every
  tensor is on the CPU already, so they keep a copy (the point, saving device memory,
  does not arise);
* ``disable_saved_tensors_hooks(message)``; ``increment_version(tensor)``; ``Node``.
"""

from ..graph import Node, increment_version
from ..saved_hooks import disable_saved_tensors_hooks, saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "increment_version", "Node"]


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are packed as CPU copies (``pin_memory`` is accepted and ignored)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return Tensor._make(tensor._data.copy())

        def unpack(packed):
            return packed
        super().__init__(pack, unpack)
