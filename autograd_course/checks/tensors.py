"""Visible checks of assignment 01: tensors and ``requires_grad``.

The notebook's setup cell binds this module as ``check``: ``check.detach(detach)`` in a test
cell is the visible part of that cell, run on the function you wrote, and its docstring says
what it tries.  The hidden tests in the cell check the same rules on random inputs (the
``compare_*`` and ``random_*`` helpers).  Every failure names a rule of the exercise's task text.

The checks live in one module per exercise (exercises 4 and 5, which share their helpers, in
one), and this module shows them all under one name, so that a student reads 01's checks from
``check``:

* ``autograd_course.checks.requires_grad``: exercise 1, ``result_requires_grad`` and ``is_leaf``;
* ``autograd_course.checks.promotion``: exercise 2, ``result_type``;
* ``autograd_course.checks.detaching``: exercise 3, ``detach`` and ``requires_grad_``;
* ``autograd_course.checks.nested_data``: exercises 4 and 5, ``infer_dtype`` and ``nested_shape``.
"""

from .detaching import (NON_LEAF, NOT_FLOAT, compare_detach, compare_detach_summaries, compare_requires_grad_,
                        compare_requires_grad_effects, detach, detach_in_the_engine, requires_grad_,
                        requires_grad_in_the_library)
from .nested_data import (compare_infer_dtype, compare_infer_in_the_library, compare_nested_shape,
                          compare_shapes_in_the_library, expect_dtypes, expect_shapes, infer_dtype,
                          infer_dtype_in_the_library, infer_rule, made, nest_label, nested_shape,
                          nested_shape_in_the_library, random_data, random_nest, random_shape, shape_rule,
                          tensors_made)
from .promotion import (PROMOTION_CASES, compare_mixed_ops, compare_result_type, expect_promotions, mixed_ops,
                        operand_label, result_type, result_type_in_the_library)
from .requires_grad import (compare_is_leaf, compare_leaves_of_ops, compare_requires_grad_in_ops,
                            compare_requires_grad_rule, is_leaf, is_leaf_without_requires_grad, result_requires_grad,
                            result_requires_grad_in_the_engine)

__all__ = ["result_requires_grad", "result_requires_grad_in_the_engine", "is_leaf", "is_leaf_without_requires_grad",
           "compare_requires_grad_rule", "compare_requires_grad_in_ops", "compare_is_leaf", "compare_leaves_of_ops",
           "detach", "detach_in_the_engine", "requires_grad_", "requires_grad_in_the_library", "compare_detach",
           "compare_detach_summaries", "compare_requires_grad_", "compare_requires_grad_effects", "NON_LEAF",
           "NOT_FLOAT", "result_type", "result_type_in_the_library", "operand_label", "expect_promotions",
           "compare_result_type", "compare_mixed_ops", "mixed_ops", "PROMOTION_CASES", "infer_dtype",
           "infer_dtype_in_the_library", "compare_infer_dtype", "compare_infer_in_the_library", "nested_shape",
           "nested_shape_in_the_library", "compare_nested_shape", "compare_shapes_in_the_library", "nest_label",
           "infer_rule", "random_data", "random_nest", "random_shape", "shape_rule", "expect_shapes",
           "expect_dtypes", "made", "tensors_made"]
