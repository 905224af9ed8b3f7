"""``nn.modules.module``, as PyTorch spells it: ``Module`` and the global module hooks
(``register_module_forward_pre_hook``, ``register_module_forward_hook``,
``register_module_full_backward_pre_hook``, ``register_module_full_backward_hook``), which
are defined in ``nn/hooks.py``."""

from ..hooks import (register_module_forward_hook, register_module_forward_pre_hook,
                     register_module_full_backward_hook, register_module_full_backward_pre_hook)
from ..module import Module

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]
