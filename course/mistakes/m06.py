"""Realistic wrong answers for assignment 06 (graph lifetime, retain_graph, higher-order gradients).

Each mistake edits one answer cell of course/source/06_lifetime/06_lifetime.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_RELEASE = "06_release_saved_answer"
_VALUES = "06_saved_values_answer"
_HVP = "06_hvp_answer"

MISTAKES = [
    # ------------------------------------------------------------ 06.release_saved
    Mistake(_RELEASE, "empties the dict, forgetting the saved names",
            edits=[('node._saved = {name: None for name in node._saved}', 'node._saved = {}')],
            rule="release_saved keeps every saved name (mapped to None)"),
    Mistake(_RELEASE, "only sets the flag: the saved tensors stay in memory",
            edits=[
                ('        node._saved = {name: None for name in node._saved}\n',
                 ''),
            ],
            rule="release_saved must drop the saved tensors"),
    Mistake(_RELEASE, "drops the tensors but never marks the node freed",
            edits=[
                ('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''',
                 '''    for name in node._saved:
        node._saved[name] = None
'''),
            ],
            rule="a node that dropped its saved tensors is marked freed (node._freed = True)"),
    Mistake(_RELEASE, "marks every node freed, even one that saved nothing",
            edits=[
                ('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''',
                 '''    node._saved = {name: None for name in node._saved}
    node._freed = True
'''),
            ],
            rule="a node that saved nothing is not marked freed"),
    Mistake(_RELEASE, "frees the plain values too",
            edits=[
                ('        node._saved = {name: None for name in node._saved}\n',
                 '''        node._saved = {name: None for name in node._saved}
        node._params = {}
'''),
            ],
            rule="plain values (node._params) are never freed"),
    Mistake(_RELEASE, "deletes the dict entries with del while iterating",
            edits=[
                ('''    if node._saved:
        node._saved = {name: None for name in node._saved}
        node._freed = True
''',
                 '''    for name in node._saved:
        del node._saved[name]
    node._freed = True
'''),
            ],
            rule="release_saved runs without error and returns None"),

    # ------------------------------------------------------------ 06.saved_values
    Mistake(_VALUES, "never checks whether the node was freed",
            edits=[
                ('''    if node._freed and any(name in node._saved for name in names):
        raise RuntimeError(ag.graph.FREED_MESSAGE)
''',
                 ''),
            ],
            rule="a freed node refuses to hand out saved tensors"),
    Mistake(_VALUES, "refuses everything once freed, plain values too",
            edits=[
                ('if node._freed and any(name in node._saved for name in names):', 'if node._freed:'),
            ],
            rule="plain values (node._params) are never freed"),
    Mistake(_VALUES, "reads .tensor instead of unpack(node): no version check",
            edits=[
                ('values.append(node._saved[name].unpack(node))',
                 'values.append(node._saved[name].tensor)'),
            ],
            rule="saved tensors are unpacked with unpack(node), which checks their version"),
    Mistake(_VALUES, "a ValueError with a message of its own",
            edits=[
                ('        raise RuntimeError(ag.graph.FREED_MESSAGE)\n',
                 '        raise ValueError("the saved tensors of this node have been freed")\n'),
            ],
            rule="raise RuntimeError(ag.graph.FREED_MESSAGE)"),
    Mistake(_VALUES, "saved tensors first, then the plain values",
            edits=[
                ('''    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
''',
                 '''    values = [node._saved[name].unpack(node) for name in names if name in node._saved]
    values += [node._params[name] for name in names if name not in node._saved]
'''),
            ],
            rule="saved_values returns the values in the order of names"),
    Mistake(_VALUES, "forgets the plain values",
            edits=[
                ('''    values = []
    for name in names:
        if name in node._saved:
            values.append(node._saved[name].unpack(node))
        else:
            values.append(node._params[name])
    return values
''',
                 '    return [node._saved[name].unpack(node) for name in names if name in node._saved]\n'),
            ],
            rule="a name that is not a saved tensor is a plain value"),

    # ------------------------------------------------------------ 06.hvp
    Mistake(_HVP, "first gradient without create_graph=True",
            edits=[
                ('(grad,) = ag.autograd.grad(output, x, create_graph=True)',
                 '(grad,) = ag.autograd.grad(output, x)'),
            ],
            rule="compute the gradient with create_graph=True"),
    Mistake(_HVP, "forgets v: returns H @ ones",
            edits=[
                ('(product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)',
                 '(product,) = ag.autograd.grad(grad.sum(), x, create_graph=create_graph)'),
            ],
            rule="hvp returns H @ v"),
    Mistake(_HVP, "returns the pair the wrong way round",
            edits=[
                ('''        return output.detach(), product.detach()
    return output, product
''',
                 '''        return product.detach(), output.detach()
    return product, output
'''),
            ],
            rule="the pair starts with the function's value"),
    Mistake(_HVP, "flags the caller's tensor instead of a detached copy",
            edits=[('x = inputs.detach().requires_grad_()', 'x = inputs.requires_grad_()')],
            rule="the caller's tensor is left untouched"),
    Mistake(_HVP, "never detaches the results",
            edits=[
                ('''        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
    if not create_graph:
        return output.detach(), product.detach()
''',
                 '        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=True)\n'),
            ],
            rule="without create_graph, both results are detached"),
    Mistake(_HVP, "always detaches, even with create_graph=True",
            edits=[
                ('''    if not create_graph:
        return output.detach(), product.detach()
    return output, product
''',
                 '    return output.detach(), product.detach()\n'),
            ],
            rule="with create_graph=True, H @ v keeps its graph"),
    Mistake(_HVP, "does not turn grad mode on: fails inside no_grad",
            edits=[
                ('''    with ag.enable_grad():
        output = func(x)
        (grad,) = ag.autograd.grad(output, x, create_graph=True)
        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
''',
                 '''    output = func(x)
    (grad,) = ag.autograd.grad(output, x, create_graph=True)
    (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
'''),
            ],
            rule="hvp turns grad mode on itself"),
    Mistake(_HVP, "two backward() calls: x.grad accumulates the gradient and H @ v",
            edits=[
                ('''        (grad,) = ag.autograd.grad(output, x, create_graph=True)
        (product,) = ag.autograd.grad((grad * v).sum(), x, create_graph=create_graph)
    if not create_graph:
        return output.detach(), product.detach()
    return output, product
''',
                 '''        output.backward(create_graph=True)
        (x.grad * v).sum().backward()
    return output.detach(), x.grad.detach()
'''),
            ],
            rule="hvp returns H @ v"),
]
