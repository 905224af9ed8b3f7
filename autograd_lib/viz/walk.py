"""Walking a backward graph through the public API only, and naming what is in it.

Duck-typed (``grad_fn``, ``name()``, ``next_functions``, ``variable``), so it walks
PyTorch's graphs as well as autograd_lib's; iterative, so deep graphs are fine.
"""

from collections import deque

#: default limit on the number of backward nodes draw_graph/format_graph accept
MAX_NODES = 200


def node_name(node) -> str:
    """Display name of a backward node, e.g. ``"MmBackward0"``."""
    name = getattr(node, "name", None)
    text = name() if callable(name) else type(node).__name__
    return str(text).rsplit("::", 1)[-1]


def _is_acc(node) -> bool:
    return hasattr(node, "variable")


def _key(node):
    # Every node object is drawn once.  A correct engine reuses one AccumulateGrad
    # per leaf; one that hands out a fresh node per use shows up as several boxes,
    # which is exactly what a student debugging gradient_edge needs to see.
    return id(node)


def _next_functions(node):
    out = []
    for i, entry in enumerate(getattr(node, "next_functions", None) or ()):
        child = entry[0] if isinstance(entry, (tuple, list)) else entry
        out.append((i, child))
    return out


def _is_node(obj) -> bool:
    return hasattr(obj, "next_functions") and not hasattr(obj, "grad_fn")


def _check_roots(roots, who):
    if not roots:
        raise ValueError(f"{who}() needs at least one tensor, e.g. {who}(loss)")
    for r in roots:
        if not (hasattr(r, "grad_fn") or _is_node(r)):
            raise TypeError(
                f"{who}() expects tensors (objects with a .grad_fn attribute) "
                f"or backward nodes, got {type(r).__name__}"
            )


def _root_node(r):
    return r if _is_node(r) else r.grad_fn


def topological_nodes(roots) -> list:
    """Every backward node reachable from the nodes ``roots`` through ``next_functions``, each
    once, in topological order: a node comes before every node in its ``next_functions``.

    ``roots`` is a list of nodes (maybe repeated, maybe reachable from one another); the
    ``(None, 0)`` entries lead nowhere.  A node is one object: two node objects are two nodes,
    even two ``AccumulateGrad`` of one leaf (as a broken ``gradient_edge`` makes them), see
    ``_key``.  Discovery with an explicit stack, then Kahn's algorithm, first in first out,
    starting from the roots in their order: iterative, so deep graphs are fine.
    (Exercise 02.graph_nodes.)"""
    seen = {}  # key -> node (the dict also keeps every node alive while we work)
    discovery = []
    stack = []
    for n in roots:
        if _key(n) not in seen:
            seen[_key(n)] = n
            discovery.append(n)
            stack.append(n)
    indeg = {}
    while stack:
        for _, child in _next_functions(stack.pop()):
            if child is None:
                continue
            k = _key(child)
            indeg[k] = indeg.get(k, 0) + 1
            if k not in seen:
                seen[k] = child
                discovery.append(child)
                stack.append(child)
    queue = deque(n for n in discovery if _key(n) not in indeg)
    order = []
    while queue:
        node = queue.popleft()
        order.append(node)
        for _, child in _next_functions(node):
            if child is None:
                continue
            k = _key(child)
            indeg[k] -= 1
            if indeg[k] == 0:
                queue.append(seen[k])
    if len(order) != len(seen):  # cannot happen for a real autograd graph
        raise ValueError("the backward graph contains a cycle")
    return order


def _walk(roots, max_nodes=None, who="draw_graph"):
    """Return (nodes in topological order, {key: [(input_index, child or None)]}).

    The order comes from the module global ``topological_nodes``, the slot of exercise
    02.graph_nodes: what a student plugs there is what every drawing shows."""
    order = topological_nodes([n for n in map(_root_node, roots) if n is not None])
    if max_nodes is not None and len(order) > max_nodes:
        raise ValueError(
            f"{who}(): the graph has more than {max_nodes} backward "
            f"nodes, too many to show readably. Try a smaller graph "
            f"(fewer layers/steps, or draw an intermediate tensor), "
            f"or pass max_nodes=... if you really want it."
        )
    return order, {_key(n): _next_functions(n) for n in order}


def graph_nodes(*roots) -> list:
    """Unique backward nodes reachable from ``roots`` in topological order."""
    _check_roots(roots, "graph_nodes")
    return _walk(roots, who="graph_nodes")[0]


def graph_edges(*roots) -> list:
    """``(node, next_node)`` for every non-None ``next_functions`` entry."""
    _check_roots(roots, "graph_edges")
    order, children = _walk(roots, who="graph_edges")
    canon = {_key(n): n for n in order}
    return [
        (n, canon[_key(c)])
        for n in order
        for _, c in children[_key(n)]
        if c is not None
    ]


def _shape_str(t) -> str:
    shape = getattr(t, "shape", None)
    if shape is None:
        return "?"
    try:
        return str(tuple(int(d) for d in shape))
    except TypeError:
        return str(shape)


def _dtype_str(t) -> str:
    dt = getattr(t, "dtype", None)
    return "" if dt is None else str(dt).rsplit(".", 1)[-1]


def _name_maps(names):
    if names is None:
        return {}, {}
    if not hasattr(names, "items"):
        raise TypeError("names must be a dict like {'w': w, 'x': x}")
    by_tensor, by_node = {}, {}
    keep = []
    for name, t in names.items():
        keep.append(t)
        by_tensor.setdefault(id(t), []).append(str(name))
        gf = getattr(t, "grad_fn", None)
        if gf is not None:
            by_node.setdefault(_key(gf), []).append(str(name))
    by_tensor = {k: ", ".join(v) for k, v in by_tensor.items()}
    by_node = {k: ", ".join(v) for k, v in by_node.items()}
    return by_tensor, by_node


def _tensor_desc(t, tname):
    rg = bool(getattr(t, "requires_grad", False))
    prefix = f"{tname}: " if tname else ""
    return f"{prefix}shape {_shape_str(t)}, requires_grad={rg}"
