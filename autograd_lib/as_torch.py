"""Run a PyTorch script on autograd_lib, ``import torch`` lines and all::

    python -m autograd_lib.as_torch script.py [args...]

``import autograd_lib as torch`` is enough for code that reaches everything
through the name ``torch`` (``torch.nn.Linear``, ``torch.optim.SGD``).  Code that
imports submodules by name (``from torch import nn``, ``import torch.nn.functional
as F``, ``from torch.utils.data import DataLoader``) would import PyTorch itself;
this runner makes every ``torch`` and ``torch.<sub>`` import give autograd_lib's
module of the same name instead, for the script it runs (and what that script
imports).  A name autograd_lib does not have fails with ``ModuleNotFoundError:
autograd_lib has no module torch.<sub>`` (``torchvision``, a separate package,
is not touched: it fails on its own, importing PyTorch's internals).
"""

import importlib
import importlib.abc
import importlib.util
import runpy
import sys

__all__ = ["install", "main"]


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` as the autograd_lib modules of the same names."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        target_name = "autograd_lib" + fullname[len("torch"):]
        if importlib.util.find_spec(target_name) is None:
            raise ModuleNotFoundError(f"autograd_lib has no module {fullname}", name=fullname)
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        return importlib.import_module("autograd_lib" + spec.name[len("torch"):])

    def exec_module(self, module):
        """Nothing to run: the autograd_lib module is loaded already."""


def install():
    """From now on, ``import torch...`` in this process gives autograd_lib."""
    if not any(isinstance(finder, _TorchAlias) for finder in sys.meta_path):
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, _TorchAlias())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    install()
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
