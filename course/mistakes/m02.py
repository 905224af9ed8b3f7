"""Realistic wrong answers for assignment 02 (the computational graph).

Each mistake edits one answer cell of course/source/02_graph/02_graph.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of the other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_EDGE = "02_gradient_edge_answer"
_NODE = "02_record_node_answer"
_WALK = "02_graph_nodes_answer"

MISTAKES = [
    # ------------------------------------------------------------------ 02.gradient_edge
    Mistake(_EDGE, "a fresh AccumulateGrad at every call (no cache)",
            edits=[
                ('''    node = tensor._accumulator() if tensor._accumulator is not None else None
    if node is None:
        node = ag.graph.AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(node)
    return (node, 0)
''',
                 '    return (ag.graph.AccumulateGrad(tensor), 0)\n'),
            ],
            rule="shared"),
    Mistake(_EDGE, "caches the AccumulateGrad with a strong reference",
            edits=[
                ('''    node = tensor._accumulator() if tensor._accumulator is not None else None
    if node is None:
        node = ag.graph.AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(node)
    return (node, 0)
''',
                 '''    if tensor._accumulator is None:
        tensor._accumulator = ag.graph.AccumulateGrad(tensor)
    return (tensor._accumulator, 0)
'''),
            ],
            rule="not-kept-alive"),
    Mistake(_EDGE, "uses a dead weak reference instead of making a new node",
            edits=[
                ('''    node = tensor._accumulator() if tensor._accumulator is not None else None
    if node is None:
        node = ag.graph.AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(node)
''',
                 '''    if tensor._accumulator is not None:
        return (tensor._accumulator(), 0)
    node = ag.graph.AccumulateGrad(tensor)
    tensor._accumulator = weakref.ref(node)
'''),
            ],
            rule="renewed"),
    Mistake(_EDGE, "output_nr of a non-leaf is always 0",
            edits=[('return (tensor.grad_fn, tensor._output_nr)', 'return (tensor.grad_fn, 0)')],
            rule="non-leaf"),
    Mistake(_EDGE, "an AccumulateGrad for every leaf, even without requires_grad",
            edits=[
                ('''    if not tensor._requires_grad:
        return (None, 0)
''',
                 ''),
            ],
            rule="no-grad"),
    Mistake(_EDGE, "asks the property requires_grad: a view taken under no_grad gets an AccumulateGrad",
            edits=[('if not tensor._requires_grad:', 'if not tensor.requires_grad:')],
            rule="no-grad"),
    Mistake(_EDGE, "returns a list instead of a tuple",
            edits=[
                ('return (tensor.grad_fn, tensor._output_nr)',
                 'return [tensor.grad_fn, tensor._output_nr]'),
                ('return (None, 0)', 'return [None, 0]'),
                ('return (node, 0)', 'return [node, 0]'),
            ],
            rule="tuple"),

    # ------------------------------------------- 02.record_node: the edges (collect_next_functions)
    Mistake(_NODE, "skips the inputs that need no gradient",
            edits=[
                ('''    edges = []
    for t in inputs:
        if t is not None and t.requires_grad:
            edges.append(t._gradient_edge())
        else:
            edges.append((None, 0))
    return tuple(edges)
''',
                 '    return tuple(t._gradient_edge() for t in inputs if t is not None and t.requires_grad)\n'),
            ],
            rule="no-edge"),
    Mistake(_NODE, "returns a list instead of a tuple",
            edits=[('return tuple(edges)', 'return edges')],
            rule="edges"),
    Mistake(_NODE, "crashes on a None input",
            edits=[
                ('''    edges = []
    for t in inputs:
        if t is not None and t.requires_grad:
            edges.append(t._gradient_edge())
        else:
            edges.append((None, 0))
    return tuple(edges)
''',
                 '    return tuple(t._gradient_edge() if t.requires_grad else (None, 0) for t in inputs)\n'),
            ],
            rule="no-edge"),
    Mistake(_NODE, "reads the leaf flag _requires_grad, so non-leaf inputs get no edge",
            edits=[('if t is not None and t.requires_grad:', 'if t is not None and t._requires_grad:')],
            rule="edges"),
    Mistake(_NODE, "uses (grad_fn, output_nr), so leaves get no AccumulateGrad",
            edits=[('edges.append(t._gradient_edge())', 'edges.append((t.grad_fn, t._output_nr))')],
            rule="edges"),
    Mistake(_NODE, "one edge per distinct tensor: x * x gets a single edge",
            edits=[
                ('edges = []', 'edges, seen = [], set()'),
                ('    for t in inputs:\n',
                 '''    for t in inputs:
        if t is not None and id(t) in seen:
            continue
        if t is not None:
            seen.add(id(t))
'''),
            ],
            rule="edges"),
    Mistake(_NODE, "builds the edges in reverse order",
            edits=[
                ('''        if t is not None and t.requires_grad:
            edges.append(t._gradient_edge())
        else:
            edges.append((None, 0))
''',
                 '''        edge = t._gradient_edge() if t is not None and t.requires_grad else (None, 0)
        edges.insert(0, edge)
'''),
            ],
            rule="edges"),

    # ------------------------------------------------ 02.record_node: the node and its outputs
    Mistake(_NODE, "asks whether an input requires grad, not grad mode: records under no_grad",
            edits=[('not ag.recording.result_requires_grad(*inputs)',
                    'not any(t is not None and t.requires_grad for t in inputs)')],
            rule="when"),
    Mistake(_NODE, "numbers the floating outputs among themselves",
            edits=[('''    for number, result in enumerate(outputs):
        if can_carry[number]:
            result.grad_fn = node
            result._output_nr = number
''', '''    floating = [result for result in outputs if result.dtype.is_floating_point]
    for number, result in enumerate(floating):
        result.grad_fn = node
        result._output_nr = number
''')],
            rule="output-nr"),
    Mistake(_NODE, "never sets _output_nr: every output is output 0",
            edits=[('            result._output_nr = number\n', '')],
            rule="output-nr"),
    Mistake(_NODE, "leaves num_outputs at its default, 1",
            edits=[('    node.num_outputs = len(can_carry)\n', '')],
            rule="num-outputs"),
    Mistake(_NODE, "notes the shape and dtype as autograd_lib gives them (t.shape, t.dtype)",
            edits=[('(t._data.shape, t._data.dtype)', '(t.shape, t.dtype)')],
            rule="input-meta"),
    Mistake(_NODE, "leaves the absent inputs out of _input_meta",
            edits=[('tuple(None if t is None else (t._data.shape, t._data.dtype) for t in inputs)',
                    'tuple((t._data.shape, t._data.dtype) for t in inputs if t is not None)')],
            rule="input-meta"),
    Mistake(_NODE, "hooks the node onto integer outputs too",
            edits=[('''        if can_carry[number]:
            result.grad_fn = node
            result._output_nr = number
''', '''        result.grad_fn = node
        result._output_nr = number
''')],
            rule="output-nr"),
    Mistake(_NODE, "collects the edges before deciding: a call that records nothing still makes AccumulateGrad nodes",
            edits=[('    can_carry = [result.dtype.is_floating_point for result in outputs]\n',
                    '''    edges = collect_next_functions(*inputs)
    can_carry = [result.dtype.is_floating_point for result in outputs]
'''),
                   ('node.next_functions = collect_next_functions(*inputs)', 'node.next_functions = edges')],
            rule="no-trace"),
    Mistake(_NODE, "records a node when no output is floating point",
            edits=[('if not any(can_carry) or not ag.recording.result_requires_grad(*inputs):',
                    'if not ag.recording.result_requires_grad(*inputs):')],
            rule="when"),

    # ---------------------------------------------------------------------- 02.graph_nodes
    Mistake(_WALK, "no dedupe: a shared node is expanded, and listed, once per path",
            edits=[('if child is not None and child not in seen:', 'if child is not None:')],
            rule="once"),
    Mistake(_WALK, "pre-order: a node is listed when first met, before all its consumers are",
            edits=[('        seen.add(root)\n', '        seen.add(root)\n        finished.append(root)\n'),
                   ('                    seen.add(child)\n',
                    '                    seen.add(child)\n                    finished.append(child)\n'),
                   ('                stack.pop()\n                finished.append(node)\n',
                    '                stack.pop()\n'),
                   ('return finished[::-1]', 'return finished')],
            rule="order"),
    Mistake(_WALK, "follows the (None, 0) entries too",
            edits=[('if child is not None and child not in seen:', 'if child not in seen:')],
            rule="skip-none"),
    Mistake(_WALK, "returns the finishing order itself: leaves first",
            edits=[('return finished[::-1]', 'return finished')],
            rule="order"),
    Mistake(_WALK, "lists a root again when another root already reached it",
            edits=[('''        if root in seen:
            continue
''', '')],
            rule="once"),
    Mistake(_WALK, "walks from the first root only",
            edits=[('for root in roots:', 'for root in roots[:1]:')],
            rule="reach"),
    Mistake(_WALK, "a recursive depth-first search",
            edits=[('''    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_functions))]     # a node and the edges still to follow
        while stack:
            node, edges = stack[-1]
            for child, _ in edges:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child.next_functions)))
                    break
            else:                                       # no edge left: node is finished
                stack.pop()
                finished.append(node)
''', '''
    def visit(node):
        seen.add(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                visit(child)
        finished.append(node)

    for root in roots:
        if root not in seen:
            visit(root)
''')],
            rule="deep"),
]
