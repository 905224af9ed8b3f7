"""The visible tests of the assignments, one module per notebook.

A test cell shows one line, for example ``check.detach(detach)``: it runs the
function of that name in this package's module for the notebook (``tensors`` for
01, ``graph`` for 02, ... ``training`` for 09) on your function.  Each check's
docstring says what it tries and which rules it holds your code to; reading the
module tells you exactly what a visible test does.  The hidden tests stay in
the cell, after the visible line: the grader runs them; you do not see them.

The modules are part of the integrity snapshot (``autograd_course.integrity``):
replacing a check from a notebook fails the test with ``TamperingError``.

+-----------+----------------------------------+
| notebook  | module                           |
+===========+==================================+
| 01        | ``autograd_course.checks.tensors``  |
| 02        | ``autograd_course.checks.graph``    |
| 03        | ``autograd_course.checks.backward`` |
| 04        | ``autograd_course.checks.leaves``   |
|           | (and ``checks.grad_results``)    |
| 05        | ``autograd_course.checks.ops``      |
|           | (and ``checks.jacobians``)       |
| 06        | ``autograd_course.checks.lifetime`` |
|           | (and ``checks.saving``)          |
| 07        | ``autograd_course.checks.no_grad``  |
|           | (and ``checks.set_grad``,        |
|           | ``checks.grad_mode_generators``) |
| 08        | ``autograd_course.checks.inplace``  |
|           | (and ``checks.safe_writes``,     |
|           | ``checks.aliasing``)             |
| 09        | ``autograd_course.checks.training`` |
|           | (and ``checks.optimizers``,      |
|           | ``checks.clipping``,             |
|           | ``checks.schedulers``)           |
+-----------+----------------------------------+
"""

import pkgutil

__all__ = ["module_names"]


def module_names():
    """The full names of the check modules that exist (for the integrity snapshot)."""
    return tuple(sorted(f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)))
