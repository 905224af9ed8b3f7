"""How 02's checks name edges and nodes: without memory addresses.

``edge_name`` and ``edge_names``, which the notebook's setup cell imports (through
``autograd_course.checks.graph``), show an edge ``(node, output_nr)`` as
``(class name, output_nr)``; ``node_labels`` tells apart nodes of one class by their creation
order.  The checks of every exercise of 02 use them.
"""

__all__ = ["edge_name", "edge_names", "node_labels"]


def edge_name(edge):
    """An edge (node, output_nr) as (node class name or None, output_nr): no memory address."""
    node, output_nr = edge
    return (None if node is None else type(node).__name__, output_nr)


def edge_names(edges):
    """Every edge of a node's next_functions, as edge_name does it."""
    return tuple(edge_name(edge) for edge in edges)


def node_labels(nodes):
    """``{id(node): label}`` for the nodes of ``nodes``: the class name, and ``#k`` after it when
    several of them share that name (numbered in creation order; nodes of equal creation number,
    such as the ``AccumulateGrad`` nodes, in the order given)."""
    distinct = list({id(n): n for n in nodes if n is not None}.values())
    groups = {}
    for node in distinct:
        groups.setdefault(type(node).__name__, []).append(node)
    labels = {}
    for name, group in groups.items():
        if len(group) == 1:
            labels[id(group[0])] = name
            continue
        for k, node in enumerate(sorted(group, key=lambda n: getattr(n, "_sequence_nr", 0)), 1):
            labels[id(node)] = f"{name} #{k}"
    return labels
