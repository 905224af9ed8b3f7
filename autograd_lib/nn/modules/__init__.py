"""``nn.modules``: PyTorch's path to the module machinery, for code that reaches it by name
(``torch.nn.modules.module.register_module_forward_hook``).  The library's modules live
one level up (``nn/module.py``, ``nn/hooks.py``); ``module`` here re-exports them."""

from . import module
from ..module import Module

__all__ = ["module", "Module"]
