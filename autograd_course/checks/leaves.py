"""Visible checks of assignment 04: leaves, ``retain_grad`` and accumulation.

The notebook's setup cell binds this module as ``check``: ``check.accumulate_grad(accumulate_grad)``
in a test cell is the visible part of that cell, run on the function you wrote, and its docstring
says what it tries.  The ``..._random`` functions are what the hidden parts of the same cells run:
the same rules on random leaves, graphs and backward passes drawn from the generators the cell
passes (the seeds are hidden).  Every check names one of the rules its exercise's task text states
(``grading.rules("04.<name>")``).

The checks live in one module per exercise, and this module shows them all under one name, so
that a student reads 04's checks from ``check``:

* ``autograd_course.checks.leaf_stories``: what they share (comparisons, the hidden parts' stories);
* ``autograd_course.checks.accumulation``: exercise 1, ``accumulate_grad``;
* ``autograd_course.checks.retained_grads``: exercise 2, ``retain_grad``;
* ``autograd_course.checks.tensor_hooks``: exercise 3, ``tensor_hooks`` (its slots
  ``store_retained_grad`` and ``call_tensor_hooks``: its checks take both functions);
* ``autograd_course.checks.pruning``: exercise 4, ``nodes_to_run``;
* ``autograd_course.checks.grad_results``: exercise 5, ``grad_results``.
"""

from .accumulation import (ACCUMULATE_ADDS, ACCUMULATE_COPY, ACCUMULATE_CREATE_GRAPH, ACCUMULATE_IN_PLACE,
                           ACCUMULATE_UNTOUCHED, accumulate_grad, accumulate_grad_in_the_engine,
                           accumulate_grad_in_the_engine_random, accumulate_grad_random)
from .grad_results import (grad_results, grad_results_in_the_engine, grad_results_in_the_engine_random,
                           grad_results_random)
from .pruning import (PRUNE_ANCESTORS, PRUNE_DEEP, PRUNE_OTHERS, PRUNE_TARGETS, deep_chain_grad, expect_pruned, named,
                      nodes_to_run, nodes_to_run_in_the_engine, nodes_to_run_in_the_engine_random, nodes_to_run_random,
                      prune_cases, pruned_story, random_graph, random_prune_case, section6_graph)
from .retained_grads import (RETAIN_LEAF, RETAIN_NO_GRAD, RETAIN_OUTPUTS, RETAIN_REGISTER, RETAIN_TWICE, RETAIN_WEAK,
                             registry_summary, retain_grad, retain_grad_in_the_engine, retain_grad_in_the_engine_random,
                             retain_grad_random)
from .tensor_hooks import (HOOKS_CHAIN, HOOKS_LIST, HOOKS_NOTHING, HOOKS_NO_GRADIENT, HOOKS_REPLACE, HOOKS_RETAIN,
                           STORE_ADDS, STORE_COPY, STORE_NEW_TENSOR, STORE_UNTOUCHED, tensor_hooks, tensor_hooks_random,
                           tensor_hooks_slots, tensor_hooks_store, tensor_hooks_store_in_the_engine,
                           tensor_hooks_store_in_the_engine_random, tensor_hooks_store_random)

__all__ = ["accumulate_grad", "accumulate_grad_in_the_engine", "accumulate_grad_random",
           "accumulate_grad_in_the_engine_random",
           "retain_grad", "retain_grad_in_the_engine", "retain_grad_random", "retain_grad_in_the_engine_random",
           "registry_summary",
           "tensor_hooks_slots", "tensor_hooks_store", "tensor_hooks_store_in_the_engine", "tensor_hooks_store_random",
           "tensor_hooks_store_in_the_engine_random", "tensor_hooks", "tensor_hooks_random",
           "nodes_to_run", "nodes_to_run_in_the_engine", "nodes_to_run_random", "nodes_to_run_in_the_engine_random",
           "named", "expect_pruned", "prune_cases", "section6_graph", "random_graph", "random_prune_case",
           "pruned_story", "deep_chain_grad",
           "grad_results", "grad_results_in_the_engine", "grad_results_random", "grad_results_in_the_engine_random",
           "ACCUMULATE_COPY", "ACCUMULATE_ADDS", "ACCUMULATE_IN_PLACE", "ACCUMULATE_CREATE_GRAPH",
           "ACCUMULATE_UNTOUCHED", "RETAIN_NO_GRAD", "RETAIN_LEAF", "RETAIN_REGISTER", "RETAIN_OUTPUTS",
           "RETAIN_WEAK", "RETAIN_TWICE", "STORE_COPY", "STORE_ADDS", "STORE_NEW_TENSOR", "STORE_UNTOUCHED",
           "HOOKS_NOTHING", "HOOKS_LIST", "HOOKS_CHAIN", "HOOKS_REPLACE", "HOOKS_NO_GRADIENT", "HOOKS_RETAIN",
           "PRUNE_ANCESTORS", "PRUNE_TARGETS", "PRUNE_OTHERS", "PRUNE_DEEP"]
