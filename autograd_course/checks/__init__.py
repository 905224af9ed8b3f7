"""The visible tests of the assignments: a module per notebook, and one per exercise or concept.

A test cell shows one line, for example ``check.detach(detach)``: it runs the
function of that name in this package's module for the notebook (``tensors`` for
01, ``graph`` for 02, ... ``training`` for 09) on your function.  Each check's
docstring says what it tries and which rules it holds your code to; reading the
module tells you exactly what a visible test does.  The hidden tests stay in
the cell, after the visible line: the grader runs them; you do not see them.

The modules are part of the integrity snapshot (``autograd_course.integrity``):
replacing a check from a notebook fails the test with ``TamperingError``.

Each notebook has one module, which its setup cell imports as ``check``; the checks of its
exercises live in modules of their own (one per exercise or concept, a few hundred lines
each), and the notebook's module imports them by name, so ``check.<name>`` reaches them all.
Every module of this package is listed here (``tests/test_test_cells.py`` checks it):

========  ===================  =============================================================
notebook  ``check``            the modules it shows
========  ===================  =============================================================
01        ``tensors``          ``requires_grad`` (exercise 1), ``promotion`` (2),
                               ``detaching`` (3), ``nested_data`` (4 and 5)
02        ``graph``            ``graph_labels`` (edges and nodes without addresses),
                               ``gradient_edges`` (1), ``next_functions`` and
                               ``node_recording`` (2), ``graph_walks`` (3)
03        ``backward``         ``engine_loop`` (exercise 4), ``node_runs`` (5),
                               ``starting_gradients`` (6), ``driver`` (7)
04        ``leaves``           ``leaf_stories`` (what the exercises share),
                               ``accumulation`` (1), ``retained_grads`` (2),
                               ``tensor_hooks`` (3), ``pruning`` (4), ``grad_results`` (5)
05        ``ops``              ``op_comparisons`` (what the exercises share),
                               ``broadcast_sums`` (1), ``output_validation`` (2),
                               ``jacobians`` (3), ``sum_index_rules`` (4),
                               ``derived_rules`` (5), ``variance_rules`` (6),
                               ``amax_rules`` (7)
06        ``lifetime``         ``saving`` (1), ``saved_hooks`` (3), ``checkpointing`` (5),
                               ``custom_functions`` (6)
07        ``no_grad``          ``set_grad`` (1), ``grad_mode_generators`` (2),
                               ``detach_and_data`` (3),
                               ``grad_mode_programs`` (the random programs they share)
08        ``inplace``          ``safe_writes`` (1), ``aliasing`` (3 and 4)
09        ``training``         ``optimizers`` (3 and 4), ``clipping`` (6), ``schedulers`` (9)
========  ===================  =============================================================
"""

import pkgutil

__all__ = ["module_names"]


def module_names():
    """The full names of the check modules that exist (for the integrity snapshot)."""
    return tuple(sorted(f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)))
