"""The backward graph as an indented text tree (``format_graph``, ``print_graph``)."""

from .walk import (MAX_NODES, _check_roots, _is_acc, _key, _name_maps, _next_functions, _root_node,
                   _tensor_desc, _walk, node_name)


def format_graph(*roots, names=None, show_no_grad=False, max_nodes=MAX_NODES) -> str:
    """The backward graph as an indented text tree (see module docstring)."""
    _check_roots(roots, "format_graph")
    by_tensor, by_node = _name_maps(names)
    _walk(roots, max_nodes=max_nodes, who="format_graph")  # size check first

    def label(node):
        text = node_name(node)
        if _is_acc(node):
            v = node.variable
            text += f"  ({_tensor_desc(v, by_tensor.get(id(v)))})"
        elif _key(node) in by_node:
            text += f"  ({by_node[_key(node)]}.grad_fn)"
        return text

    lines = []
    printed = set()
    for r in roots:
        node = _root_node(r)
        if node is None:
            lines.append(f"no grad_fn  ({_tensor_desc(r, by_tensor.get(id(r)))})")
            continue
        # stack of (node or None, prefix for this line, prefix for its children)
        stack = [(node, "", "")]
        while stack:
            n, head, cont = stack.pop()
            if n is None:
                lines.append(head + "None  (input without grad)")
                continue
            k = _key(n)
            if k in printed:
                lines.append(head + label(n) + "  [same node as above]")
                continue
            printed.add(k)
            lines.append(head + label(n))
            kids = [c for _, c in _next_functions(n) if c is not None or show_no_grad]
            for j in range(len(kids) - 1, -1, -1):
                last = j == len(kids) - 1
                stack.append(
                    (kids[j], cont + ("└─ " if last else "├─ "), cont + ("   " if last else "│  "))
                )
    return "\n".join(lines)


def print_graph(*roots, **kwargs) -> None:
    """Print :func:`format_graph`."""
    print(format_graph(*roots, **kwargs))
