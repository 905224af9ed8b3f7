"""Visible checks of assignment 02: the computational graph.

The notebook's setup cell binds this module as ``check``: ``check.record_node(collect_next_functions,
record_node)`` in a test cell is the visible part of that cell, run on the function(s) you wrote, and
its docstring says what it tries.  The hidden tests in the cell check the same rules on random
inputs.  Every failure names a rule of the exercise's task text.  ``edge_name`` and ``edge_names``,
which the notebook's setup cell imports, show edges without memory addresses.

The checks live in one module per exercise (exercise 2 in two: its edges, its node), and this module
shows them all under one name, so that a student reads 02's checks from ``check``:

* ``autograd_course.checks.graph_labels``: ``edge_name``, ``edge_names``, ``node_labels``;
* ``autograd_course.checks.gradient_edges``: exercise 1, ``gradient_edge``;
* ``autograd_course.checks.next_functions``: exercise 2, ``record_node``: the node's edges;
* ``autograd_course.checks.node_recording``: exercise 2, ``record_node``: the node and its outputs;
* ``autograd_course.checks.graph_walks``: exercise 3, ``graph_nodes`` (the slot ``topological_nodes``).
"""

from .gradient_edges import (GRADIENT_EDGE_KINDS, compare_gradient_edge, compare_training, gradient_edge,
                             gradient_edge_in_the_engine)
from .graph_labels import edge_name, edge_names, node_labels
from .graph_walks import (DEEP, chain, compare_viz, graph_nodes, graph_nodes_in_viz, random_graph, two_accumulators,
                          walk_with)
from .next_functions import compare_built_graph, compare_collect, next_functions, next_functions_in_the_engine
from .node_recording import (compare_record, compare_recorded_graph, random_record_call, record_node,
                             record_node_in_the_engine)

__all__ = [
    # how the checks show edges and nodes (the setup cell imports edge_names)
    "edge_name", "edge_names", "node_labels",
    # the checks, one per test cell
    "gradient_edge", "gradient_edge_in_the_engine", "next_functions", "next_functions_in_the_engine",
    "record_node", "record_node_in_the_engine", "graph_nodes", "graph_nodes_in_viz",
    # what the hidden parts import
    "GRADIENT_EDGE_KINDS", "compare_gradient_edge", "compare_training", "compare_collect", "compare_built_graph",
    "compare_record", "random_record_call", "compare_recorded_graph",
    "DEEP", "chain", "random_graph", "two_accumulators", "walk_with", "compare_viz",
]
