"""Realistic wrong answers for 03_backward (the format: autograd_course/mistakes.py).

The first mistake of each exercise is graded alone: each is one that would cost points in
a later exercise too if the stages were not independent (run_backward calling the
notebook's count_dependencies, a wrong rule reaching the engine's checks, ...)."""

from autograd_course.mistakes import Mistake

_NUM = "03_numerical_grad_answer"
_VJPS = "03_vjps_answer"
_COUNT = "03_count_dependencies_answer"
_EXEC = "03_execute_answer"
_NODE = "03_run_node_answer"
_INIT = "03_run_backward_answer"      # initial_gradients, written in the driver's answer cell
_DRIVER = "03_run_backward_answer"

_NUM_LOOP = '''    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / (2 * eps)
'''

MISTAKES = [
    # ============================================================== 03.numerical_grad
    Mistake(_NUM, "uses a one-sided difference",
            edits=[('    with ag.no_grad():\n', '    with ag.no_grad():\n        base = f(x).item()\n'),
                   ('''            flat_x[j] = original - eps
            minus = f(x).item()
''', ''),
                   ('flat_result[j] = (plus - minus) / (2 * eps)', 'flat_result[j] = (plus - base) / eps')],
            rule="central"),
    Mistake(_NUM, "divides by eps instead of 2 eps",
            edits=[('flat_result[j] = (plus - minus) / (2 * eps)', 'flat_result[j] = (plus - minus) / eps')],
            rule="central"),
    Mistake(_NUM, "does not restore x",
            edits=[('            flat_x[j] = original\n', '')],
            rule="restored"),
    Mistake(_NUM, "restores x by adding eps back (rounding)",
            edits=[('''            original = flat_x[j].item()
            flat_x[j] = original + eps
''', '            flat_x[j] += eps\n'),
                   ('flat_x[j] = original - eps', 'flat_x[j] -= 2 * eps'),
                   ('flat_x[j] = original', 'flat_x[j] += eps')],
            rule="restored"),
    Mistake(_NUM, "perturbs a flattened copy of x",
            edits=[('flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)',
                    'flat_x, flat_result = x._data.flatten(), result.reshape(-1)')],
            rule="central"),
    Mistake(_NUM, "evaluates f with grad mode on",
            edits=[(_NUM_LOOP, '''    for j in range(flat_x.size):
        original = flat_x[j].item()
        flat_x[j] = original + eps
        plus = f(x).item()
        flat_x[j] = original - eps
        minus = f(x).item()
        flat_x[j] = original
        flat_result[j] = (plus - minus) / (2 * eps)
''')],
            rule="no-graph"),
    Mistake(_NUM, "builds the result in x's dtype",
            edits=[('result = np.zeros(x.shape, dtype=np.float64)', 'result = np.zeros_like(x._data)')],
            rule="float64"),
    Mistake(_NUM, "returns a NumPy array",
            edits=[('return ag.tensor(result)', 'return result')],
            rule="float64"),

    # ============================================================== 03.vjps (five rules, one answer cell)
    # First: every rule drops the incoming gradient (the local derivative alone), so every
    # test cell of the exercise fails, and nothing else may.
    Mistake(_VJPS, "returns the local derivatives, without the incoming grad",
            edits=[('return grad, grad', 'return ag.ones_like(grad), ag.ones_like(grad)'),
                   ('return grad * other, grad * self', 'return other, self'),
                   ('return grad * exponent * self ** (exponent - 1)', 'return exponent * self ** (exponent - 1)'),
                   ('return grad.expand(self_shape) / numel', 'return ag.ones(self_shape, dtype=grad.dtype) / numel'),
                   ('return grad @ mat2.T, self.T @ grad',
                    'return ag.ones_like(grad) @ mat2.T, self.T @ ag.ones_like(grad)')],
            rule="any-grad"),
    Mistake(_VJPS, "swaps the two gradients of mul",
            edits=[('return grad * other, grad * self', 'return grad * self, grad * other')],
            rule="mul"),
    Mistake(_VJPS, "forgets the exponent == 0 case (nan at x = 0)",
            edits=[('''    if exponent == 0:
        return ag.zeros_like(self)
''', '')],
            rule="pow-zero"),
    Mistake(_VJPS, "keeps the exponent n instead of n - 1",
            edits=[('return grad * exponent * self ** (exponent - 1)', 'return grad * exponent * self ** exponent')],
            rule="pow"),
    Mistake(_VJPS, "divides the mean's gradient by the number of rows only",
            edits=[('return grad.expand(self_shape) / numel', 'return grad.expand(self_shape) / self_shape[0]')],
            rule="mean"),
    Mistake(_VJPS, "forgets the transposes of mm",
            edits=[('return grad @ mat2.T, self.T @ grad', 'return grad @ mat2, self @ grad')],
            rule="mm"),
    Mistake(_VJPS, "returns one gradient for both inputs of add",
            edits=[('return grad, grad', 'return grad')],
            rule="tuple"),
    Mistake(_VJPS, "negates the gradient of other (as for subtraction)",
            edits=[('return grad, grad', 'return grad, -grad')],
            rule="add"),
    Mistake(_VJPS, "does not expand the mean's gradient to the input's shape",
            edits=[('return grad.expand(self_shape) / numel', 'return grad / numel')],
            rule="mean"),
    Mistake(_VJPS, "returns the gradients of mm in the wrong order",
            edits=[('return grad @ mat2.T, self.T @ grad', 'return self.T @ grad, grad @ mat2.T')],
            rule="mm"),
    Mistake(_VJPS, "drops the factor n of the power rule",
            edits=[('return grad * exponent * self ** (exponent - 1)', 'return grad * self ** (exponent - 1)')],
            rule="pow"),

    # ======================================================== 03.count_dependencies
    Mistake(_COUNT, "counts a node only the first time it is seen",
            edits=[('            dependencies[next_node] = dependencies.get(next_node, 0) + 1\n', ''),
                   ('                seen.add(next_node)\n',
                    '                seen.add(next_node)\n                dependencies[next_node] = 1\n')],
            rule="edges"),
    Mistake(_COUNT, "walks the graph recursively",
            edits=[('''    seen = set(roots)
    stack = list(seen)
    while stack:
        node = stack.pop()
''', '''    seen = set()
    def visit(node):
'''),
                   ('                stack.append(next_node)\n', '''                visit(next_node)
    for root in roots:
        if root not in seen:
            seen.add(root)
            visit(root)
''')],
            rule="deep"),
    Mistake(_COUNT, "pushes a node every time it is reached",
            edits=[('''    seen = set(roots)
    stack = list(seen)
''', '    stack = list(roots)\n'),
                   ('''            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
''', '            stack.append(next_node)\n')],
            rule="edges"),
    Mistake(_COUNT, "does not skip the None entries",
            edits=[('''            if next_node is None:
                continue
''', '')],
            rule="only-pointed"),
    Mistake(_COUNT, "gives every root a count of 0",
            edits=[('dependencies = {}', 'dependencies = {root: 0 for root in roots}')],
            rule="only-pointed"),

    # =================================================================== 03.execute
    Mistake(_EXEC, "runs the oldest ready node first",
            edits=[("return self.node._sequence_nr > other.node._sequence_nr",
                    "return self.node._sequence_nr < other.node._sequence_nr")],
            rule="newest"),
    Mistake(_EXEC, "never runs the roots (queues only nodes of dependencies)",
            edits=[('''    for node in dict.fromkeys(node for node, _ in root_edges):
        if dependencies.get(node, 0) == 0:
''', '''    for node in dependencies:
        if dependencies[node] == 0:
''')],
            rule="roots"),
    Mistake(_EXEC, "keeps the last gradient that arrived instead of the sum",
            edits=[("        slots[nr] = grad if slots[nr] is None else slots[nr] + grad\n",
                    "        slots[nr] = grad\n")],
            rule="sum"),
    Mistake(_EXEC, "counts an edge only when a gradient flows along it",
            edits=[('''                arrive(next_node, nr, grad)
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                heapq.heappush(ready, Ready(next_node))
''', '''                arrive(next_node, nr, grad)
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, Ready(next_node))
''')],
            rule="count-none"),
    Mistake(_EXEC, "breaks ties by the node's id",
            edits=[("return self.node._sequence_nr > other.node._sequence_nr",
                    "return (-self.node._sequence_nr, id(self.node)) < (-other.node._sequence_nr, id(other.node))")],
            rule="ties"),
    Mistake(_EXEC, "keeps one sum per node, whatever the output",
            edits=[("        slots[nr] = grad if slots[nr] is None else slots[nr] + grad\n",
                    "        slots[0] = grad if slots[0] is None else slots[0] + grad\n")],
            rule="sum"),
    Mistake(_EXEC, "queues every root, whatever its count",
            edits=[('''        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, Ready(node))
''', '''        heapq.heappush(ready, Ready(node))
''')],
            rule="roots"),
    Mistake(_EXEC, "does not skip edges to nodes outside dependencies",
            edits=[('''            if next_node not in dependencies:
                continue
''', '''            if next_node is None:
                continue
''')],
            rule="skip"),
    Mistake(_EXEC, "runs each node as soon as it is ready, recursively",
            edits=[('''    while ready:
        node = heapq.heappop(ready).node
''', '''    def run(node):
'''),
                   ('''                heapq.heappush(ready, Ready(next_node))
''', '''                run(next_node)
    while ready:
        run(heapq.heappop(ready).node)
''')],
            rule="newest"),

    # =================================================================== 03.run_node
    Mistake(_NODE, "calls the post-hooks before the gradients are fitted",
            edits=[('''    grad_inputs = ag.engine.validate_outputs(node, list(node.apply(grads)))
''', '''    grad_inputs = list(node.apply(grads))
'''),
                   ('''    for check_node in ag.engine.NODE_CHECKS:
''', '''    grad_inputs = ag.engine.validate_outputs(node, grad_inputs)
    for check_node in ag.engine.NODE_CHECKS:
''')],
            rule="order"),
    Mistake(_NODE, "ignores what a post-hook returns",
            edits=[('''        grad_inputs = ag.engine.hook_result(hook, hook(tuple(grad_inputs), tuple(grads)), grad_inputs)
''', '''        hook(tuple(grad_inputs), tuple(grads))
''')],
            rule="replace"),
    Mistake(_NODE, "frees the saved values even with retain_graph",
            edits=[('''    if not task.retain_graph:
        node.release_saved()
''', '''    node.release_saved()
''')],
            rule="free"),
    Mistake(_NODE, "skips the node when nothing arrived (PyTorch runs it, on a None per output)",
            edits=[('        grads = [None] * node.num_outputs\n', '        return [None] * len(node.next_functions)\n')],
            rule="nothing"),
    Mistake(_NODE, "never asks the task",
            edits=[('''    if not task.runs(node, grads):
        return [None] * len(node.next_functions)
''', '')],
            rule="task"),
    Mistake(_NODE, "takes validate_outputs from the engine module at import",
            edits=[('def run_node(task, node, grads):',
                    'from autograd_lib.engine import validate_outputs\n\n\ndef run_node(task, node, grads):'),
                   ('grad_inputs = ag.engine.validate_outputs(node, list(node.apply(grads)))',
                    'grad_inputs = validate_outputs(node, list(node.apply(grads)))')],
            rule="slots"),
    Mistake(_NODE, "frees the saved values only after the debugging checks passed",
            edits=[('''    if not task.retain_graph:
        node.release_saved()
    for check_node in ag.engine.NODE_CHECKS:
        check_node(node, grad_inputs)
''', '''    for check_node in ag.engine.NODE_CHECKS:
        check_node(node, grad_inputs)
    if not task.retain_graph:
        node.release_saved()
''')],
            rule="free"),
    Mistake(_NODE, "runs the pre-hooks before the tensor hooks",
            edits=[('    grads = ag.engine.call_tensor_hooks(node, grads)\n', ''),
                   ('    grad_inputs = ag.engine.validate_outputs(',
                    '    grads = ag.engine.call_tensor_hooks(node, grads)\n    grad_inputs = ag.engine.validate_outputs(')],
            rule="order"),

    # ========================================================= 03.initial_gradients
    Mistake(_INIT, "tests dim() == 0 instead of one element",
            edits=[('if out.requires_grad and out.numel() != 1:', 'if out.requires_grad and out.dim() != 0:')],
            rule="starts"),
    Mistake(_INIT, "creates ones for a several-element output",
            edits=[('''            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
''', '')],
            rule="refused"),
    Mistake(_INIT, "refuses several elements even when no grad is required",
            edits=[('if out.requires_grad and out.numel() != 1:', 'if out.numel() != 1:')],
            rule="refused"),
    Mistake(_INIT, "raises ValueError for a shape mismatch",
            edits=[('''            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
''', '''            raise ValueError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                             f"output[{i}] has a shape of {out.shape}.")
''')],
            rule="refused"),
    Mistake(_INIT, "puts the class itself in the TypeError message",
            edits=[('raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")',
                    'raise TypeError(f"gradients can be either Tensors or None, but got {type(g)}")')],
            rule="refused"),
    Mistake(_INIT, "always reports position 0",
            edits=[('''            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
''', '''            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and "
                               f"output[0] has a shape of {out.shape}.")
''')],
            rule="refused"),
    Mistake(_INIT, "compares shapes before checking the type",
            edits=[('''        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
''', ''),
                   ('                               f"output[{i}] has a shape of {out.shape}.")\n',
                    '''                               f"output[{i}] has a shape of {out.shape}.")
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
''')],
            rule="refused"),

    # ================================================================ 03.run_backward
    Mistake(_DRIVER, "calls the notebook's own count_dependencies",
            edits=[('dependencies = ag.engine.count_dependencies([node for node, _ in root_edges])',
                    'dependencies = count_dependencies([node for node, _ in root_edges])')],
            rule="slots"),
    Mistake(_DRIVER, "forgets to cast the starting gradients",
            edits=[('    root_grads = [g.to(root.dtype) for root, g in zip(roots, root_grads)]\n', '')],
            rule="dtype"),
    Mistake(_DRIVER, "runs the loop in the caller's grad mode",
            edits=[('''    with ag.set_grad_enabled(task.create_graph):
        ag.engine.execute(root_edges, root_grads, dependencies,
                          lambda node, grads: ag.engine.run_node(task, node, grads))
''', '''    ag.engine.execute(root_edges, root_grads, dependencies,
                      lambda node, grads: ag.engine.run_node(task, node, grads))
''')],
            rule="grad-mode"),
    Mistake(_DRIVER, "never tells the task the pass starts",
            edits=[('    root_edges, root_grads, dependencies = task.start(root_edges, root_grads, dependencies)\n', '')],
            rule="inputs"),
    Mistake(_DRIVER, "checks requires_grad before the starting gradients",
            edits=[('    root_grads = ag.engine.initial_gradients(roots, grad_outputs)\n', ''),
                   ('    root_grads = [g.to(root.dtype)',
                    '    root_grads = ag.engine.initial_gradients(roots, grad_outputs)\n    root_grads = [g.to(root.dtype)')],
            rule="start"),
    Mistake(_DRIVER, "starts every root at its grad_fn, output 0",
            edits=[('root_edges.append(root._gradient_edge())', 'root_edges.append((root.grad_fn, 0))')],
            rule="edges"),
    Mistake(_DRIVER, "leaves the position out of the error",
            edits=[('raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")',
                    'raise RuntimeError("element of tensors does not require grad and does not have a grad_fn")')],
            rule="requires-grad"),
]
