"""Visible checks of assignment 05: tensor ops and broadcasting.

The notebook's setup cell binds this module as ``check``: ``check.sum_to(sum_to)`` in a test cell
is the visible part of that cell, run on the function(s) you wrote, and its docstring says what it
tries.  The ``..._random`` functions are what the hidden parts of the same cells run: the same
rules on random inputs drawn from the generators the cell passes (the seeds are hidden).  Every
check names one of the rules its exercise's task text states (``grading.rules("05.<exercise>")``).
Exercises 4 and 5 fill several slots; their checks take all your functions and grade them together.

The checks live in one module per exercise, and this module shows them all under one name, so
that a student reads 05's checks from ``check``:

* ``autograd_course.checks.op_comparisons``: what they share (comparisons, random shapes and
  dtypes, ``reference_rule``);
* ``autograd_course.checks.broadcast_sums``: exercise 1, ``sum_to``;
* ``autograd_course.checks.output_validation``: exercise 2, ``validate_outputs``;
* ``autograd_course.checks.jacobians``: exercise 3, ``analytic_jacobian``;
* ``autograd_course.checks.sum_index_rules``: exercise 4, ``sum_and_index``;
* ``autograd_course.checks.derived_rules``: exercise 5, ``derive_rules``;
* ``autograd_course.checks.variance_rules``: exercise 6, ``var_backward``;
* ``autograd_course.checks.amax_rules``: exercise 7, ``amax_backward``.
"""

from .amax_rules import (AMAX_AMIN, AMAX_GROUPS, AMAX_KEEPDIM, AMAX_PICK, AMAX_SHARE, amax_backward,
                         amax_backward_in_the_engine, amax_backward_in_the_engine_random, amax_backward_random)
from .broadcast_sums import (SUM_TO_BOTH, SUM_TO_GRAPH, SUM_TO_LEAD, SUM_TO_ONES, SUM_TO_SAME, sum_to,
                             sum_to_in_the_engine, sum_to_in_the_engine_random, sum_to_random)
from .derived_rules import (DERIVE_EXP, DERIVE_GRAPH, DERIVE_LOG_SOFTMAX, DERIVE_SIGMOID, derive_rules,
                            derive_rules_in_the_engine, derive_rules_in_the_engine_random, derive_rules_random,
                            derive_rules_second_derivative, derive_rules_second_derivative_random, derive_slots)
from .jacobians import (analytic_jacobian, analytic_jacobian_in_gradcheck, analytic_jacobian_in_gradcheck_random,
                        analytic_jacobian_random)
from .op_comparisons import reference_rule
from .output_validation import (VALIDATE_DTYPE, VALIDATE_FIT, VALIDATE_KEEP, VALIDATE_LIST, VALIDATE_REFUSE,
                                VALIDATE_SHAPE, random_broadcast_grads, validate_case, validate_outputs,
                                validate_outputs_in_the_engine, validate_outputs_in_the_engine_random,
                                validate_outputs_random, validate_rule)
from .sum_index_rules import (INDEX_ADD, INDEX_TUPLE, INDEX_ZEROS, SUM_COPY, SUM_DIMS, sum_and_index,
                              sum_and_index_in_the_engine, sum_and_index_in_the_engine_random, sum_and_index_random,
                              sum_and_index_slots)
from .variance_rules import (VAR_CORRECTION, VAR_DERIVATIVE, VAR_GRAPH, VAR_GROUPS, VAR_KEEPDIM, numerical_vjp,
                             var_backward, var_backward_in_the_engine, var_backward_in_the_engine_random,
                             var_backward_random)

__all__ = ["reference_rule",
           "sum_to", "sum_to_in_the_engine", "sum_to_random", "sum_to_in_the_engine_random",
           "validate_outputs", "validate_outputs_in_the_engine", "validate_outputs_random",
           "validate_outputs_in_the_engine_random", "validate_case", "validate_rule", "random_broadcast_grads",
           "analytic_jacobian", "analytic_jacobian_in_gradcheck", "analytic_jacobian_random",
           "analytic_jacobian_in_gradcheck_random",
           "sum_and_index_slots", "sum_and_index", "sum_and_index_in_the_engine", "sum_and_index_random",
           "sum_and_index_in_the_engine_random",
           "derive_slots", "derive_rules", "derive_rules_in_the_engine", "derive_rules_second_derivative",
           "derive_rules_random", "derive_rules_in_the_engine_random", "derive_rules_second_derivative_random",
           "var_backward", "var_backward_in_the_engine", "var_backward_random", "var_backward_in_the_engine_random",
           "numerical_vjp",
           "amax_backward", "amax_backward_in_the_engine", "amax_backward_random",
           "amax_backward_in_the_engine_random",
           "SUM_TO_LEAD", "SUM_TO_ONES", "SUM_TO_SAME", "SUM_TO_GRAPH", "SUM_TO_BOTH",
           "VALIDATE_LIST", "VALIDATE_SHAPE", "VALIDATE_DTYPE", "VALIDATE_REFUSE", "VALIDATE_KEEP", "VALIDATE_FIT",
           "SUM_COPY", "SUM_DIMS", "INDEX_ZEROS", "INDEX_ADD", "INDEX_TUPLE",
           "DERIVE_EXP", "DERIVE_SIGMOID", "DERIVE_LOG_SOFTMAX", "DERIVE_GRAPH",
           "VAR_DERIVATIVE", "VAR_CORRECTION", "VAR_GROUPS", "VAR_KEEPDIM", "VAR_GRAPH",
           "AMAX_PICK", "AMAX_SHARE", "AMAX_GROUPS", "AMAX_KEEPDIM", "AMAX_AMIN"]
