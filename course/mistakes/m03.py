"""Realistic wrong answers for 03_backward (the format: autograd_course/mistakes.py)."""

from autograd_course.mistakes import Mistake

# ----------------------------------------------------------------------------- add_backward
_ADD = "03_add_backward_answer"

# -------------------------------------------------------------------------- mul_backward
_MUL = "03_mul_backward_answer"

# -------------------------------------------------------------------------- pow_backward
_POW = "03_pow_backward_answer"

# ------------------------------------------------------------------------- mean_backward
_MEAN = "03_mean_backward_answer"

# --------------------------------------------------------------------------- mm_backward
_MM = "03_mm_backward_answer"

# --------------------------------------------------------------------- count_dependencies
_COUNT = "03_count_dependencies_answer"

# ---------------------------------------------------------------------- initial_gradients
_INIT = "03_initial_gradients_answer"

# -------------------------------------------------------------------------------- execute
_EXEC = "03_execute_answer"

# ------------------------------------------------------------------------- numerical_grad
_NUM = "03_numerical_grad_answer"

MISTAKES = [
    # ============================================================== 03.add_backward
    Mistake(_ADD, "returns one gradient for both inputs",
            edits=[('return grad, grad', 'return grad')],
            rule="one gradient per input of the op (2 here)"),
    Mistake(_ADD, "returns the local derivative 1 instead of the VJP",
            edits=[('return grad, grad', 'return ag.ones_like(grad), ag.ones_like(grad)')],
            rule="add passes grad on unchanged"),
    Mistake(_ADD, "negates the gradient of other (as for subtraction)",
            edits=[('return grad, grad', 'return grad, -grad')],
            rule="add passes grad on unchanged, to both inputs"),
    Mistake(_ADD, "gives no gradient to other",
            edits=[('return grad, grad', 'return grad, None')],
            rule="add passes grad on unchanged, to both inputs"),

    # ============================================================== 03.mul_backward
    Mistake(_MUL, "swaps the two gradients",
            edits=[('return grad * other, grad * self', 'return grad * self, grad * other')],
            rule="the gradient of self is grad * other"),
    Mistake(_MUL, "forgets the upstream grad",
            edits=[('return grad * other, grad * self', 'return other, self')],
            rule="the upstream grad times d(self * other)/d(self) = other"),
    Mistake(_MUL, "copy-pastes the gradient of self for other",
            edits=[('return grad * other, grad * self', 'return grad * other, grad * other')],
            rule="the gradient of other is grad * self"),
    Mistake(_MUL, "returns only the gradient of self",
            edits=[('return grad * other, grad * self', 'return grad * other')],
            rule="one gradient per input of the op (2 here)"),

    # ============================================================== 03.pow_backward
    Mistake(_POW, "forgets the exponent == 0 case (nan at x = 0)",
            edits=[
                ('''    if exponent == 0:
        return ag.zeros_like(self)
''',
                 ''),
            ],
            rule="x ** 0 is the constant 1: its gradient is 0 everywhere, even at x = 0"),
    Mistake(_POW, "drops the factor n of the power rule",
            edits=[
                ('return grad * exponent * self ** (exponent - 1)',
                 'return grad * self ** (exponent - 1)'),
            ],
            rule="power rule: d(x ** n)/dx = n * x ** (n - 1)"),
    Mistake(_POW, "keeps the exponent n instead of n - 1",
            edits=[
                ('return grad * exponent * self ** (exponent - 1)',
                 'return grad * exponent * self ** exponent'),
            ],
            rule="power rule: d(x ** n)/dx = n * x ** (n - 1)"),
    Mistake(_POW, "forgets the upstream grad",
            edits=[
                ('return grad * exponent * self ** (exponent - 1)',
                 'return exponent * self ** (exponent - 1)'),
            ],
            rule="chain rule: multiply the local derivative n * x ** (n - 1) by the upstream grad"),

    # ============================================================= 03.mean_backward
    Mistake(_MEAN, "forgets to divide by the number of elements (sum's rule)",
            edits=[
                ('''    numel = int(np.prod(self_shape))
    return grad.expand(self_shape) / numel
''',
                 '    return grad.expand(self_shape)\n'),
            ],
            rule="each of the N = 2 * 3 = 6 elements gets grad / N"),
    Mistake(_MEAN, "divides by the number of rows only",
            edits=[
                ('''    numel = int(np.prod(self_shape))
    return grad.expand(self_shape) / numel
''',
                 '    return grad.expand(self_shape) / self_shape[0]\n'),
            ],
            rule="each of the N = 2 * 3 = 6 elements gets grad / N"),
    Mistake(_MEAN, "divides by the number of dimensions",
            edits=[
                ('''    numel = int(np.prod(self_shape))
    return grad.expand(self_shape) / numel
''',
                 '    return grad.expand(self_shape) / len(self_shape)\n'),
            ],
            rule="each of the N = 2 * 3 = 6 elements gets grad / N"),
    Mistake(_MEAN, "does not expand grad to the input's shape",
            edits=[
                ('''    numel = int(np.prod(self_shape))
    return grad.expand(self_shape) / numel
''',
                 '    return grad / int(np.prod(self_shape))\n'),
            ],
            rule="the gradient of mean has the input's shape: expand grad to self_shape"),
    Mistake(_MEAN, "computes N for 2-D inputs only",
            edits=[
                ('''    numel = int(np.prod(self_shape))
    return grad.expand(self_shape) / numel
''',
                 '    return grad.expand(self_shape) / (self_shape[0] * self_shape[1])\n'),
            ],
            rule="N is the product of all of self_shape"),

    # =============================================================== 03.mm_backward
    Mistake(_MM, "forgets the transposes",
            edits=[('return grad @ mat2.T, self.T @ grad', 'return grad @ mat2, self @ grad')],
            rule="each gradient has its input's shape"),
    Mistake(_MM, "multiplies in the wrong order",
            edits=[('return grad @ mat2.T, self.T @ grad', 'return mat2.T @ grad, grad @ self.T')],
            rule="each gradient has its input's shape"),
    Mistake(_MM, "returns the gradients in the wrong order",
            edits=[('return grad @ mat2.T, self.T @ grad', 'return self.T @ grad, grad @ mat2.T')],
            rule="each gradient has its input's shape"),
    Mistake(_MM, "uses ones instead of the upstream grad",
            edits=[
                ('    return grad @ mat2.T, self.T @ grad\n',
                 '''    ones = ag.ones_like(grad)
    return ones @ mat2.T, self.T @ ones
'''),
            ],
            rule="the gradient of self is a product of the upstream grad (not ones) and mat2"),

    # ======================================================== 03.count_dependencies
    Mistake(_COUNT, "walks the graph recursively",
            edits=[
                ('''    seen = set(roots)
    stack = list(seen)
    while stack:
        node = stack.pop()
''',
                 '''    seen = set()
    def visit(node):
'''),
                ('                stack.append(next_node)\n',
                 '''                visit(next_node)
    for root in roots:
        if root not in seen:
            seen.add(root)
            visit(root)
'''),
            ],
            rule="count_dependencies must be iterative"),
    Mistake(_COUNT, "pushes a node every time it is reached",
            edits=[
                ('''    seen = set(roots)
    stack = list(seen)
''',
                 '    stack = list(roots)\n'),
                ('''            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
''',
                 '            stack.append(next_node)\n'),
            ],
            rule="expand each node once"),
    Mistake(_COUNT, "counts a node only the first time it is seen",
            edits=[
                ('            dependencies[next_node] = dependencies.get(next_node, 0) + 1\n',
                 ''),
                ('                seen.add(next_node)\n',
                 '''                seen.add(next_node)
                dependencies[next_node] = 1
'''),
            ],
            rule="count edges, not nodes"),
    Mistake(_COUNT, "does not skip the None entries",
            edits=[
                ('''            if next_node is None:
                continue
''',
                 ''),
            ],
            rule="are not nodes: skip them"),
    Mistake(_COUNT, "gives every root a count of 0",
            edits=[('dependencies = {}', 'dependencies = {root: 0 for root in roots}')],
            rule="nothing points into the root"),

    # ========================================================= 03.initial_gradients
    Mistake(_INIT, "tests dim() == 0 instead of one element",
            edits=[('if out.numel() != 1:', 'if out.dim() != 0:')],
            rule="numel() == 1, whatever its shape"),
    Mistake(_INIT, "creates ones for a non-scalar output",
            edits=[
                ('''            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
''',
                 ''),
            ],
            rule="only a single-element output has an implicit gradient"),
    Mistake(_INIT, "raises ValueError for a shape mismatch",
            edits=[
                ('''            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
''',
                 '''            raise ValueError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                             f"output[{i}] has a shape of {out.shape}.")
'''),
            ],
            rule="a given gradient must have the output's shape, else a RuntimeError"),
    Mistake(_INIT, "puts the class itself in the TypeError message",
            edits=[
                ('raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")',
                 'raise TypeError(f"gradients can be either Tensors or None, but got {type(g)}")'),
            ],
            rule="naming its type (type(g).__name__)"),
    Mistake(_INIT, "always reports position 0",
            edits=[
                ('for i, (out, g) in enumerate(zip(outputs, grad_outputs)):',
                 'for out, g in zip(outputs, grad_outputs):'),
                ('''            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
''',
                 '''            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and "
                               f"output[0] has a shape of {out.shape}.")
'''),
            ],
            rule="the message names the position i of the pair"),
    Mistake(_INIT, "compares shapes before checking the type",
            edits=[
                ('''        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
''',
                 ''),
                ('                               f"output[{i}] has a shape of {out.shape}.")\n',
                 '''                               f"output[{i}] has a shape of {out.shape}.")
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
'''),
            ],
            rule="a gradient must be a Tensor or None"),

    # =================================================================== 03.execute
    Mistake(_EXEC, "runs the oldest ready node first",
            edits=[("return self.node._sequence_nr > other.node._sequence_nr",
                    "return self.node._sequence_nr < other.node._sequence_nr")],
            rule="among ready nodes the newest (highest _sequence_nr) runs first"),
    Mistake(_EXEC, "keeps the last gradient that arrived instead of the sum",
            edits=[("                slots[nr] = grad if slots[nr] is None else slots[nr] + grad\n",
                    "                slots[nr] = grad\n")],
            rule="gradients arriving at the same output of a node add up before it runs"),
    Mistake(_EXEC, "counts an edge only when a gradient flows along it",
            edits=[('''                slots[nr] = grad if slots[nr] is None else slots[nr] + grad
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                heapq.heappush(ready, ReadyNode(next_node))
''', '''                slots[nr] = grad if slots[nr] is None else slots[nr] + grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, ReadyNode(next_node))
''')],
            rule="every edge lowers its node's count, even when its gradient is None"),
    Mistake(_EXEC, "breaks ties by the node's id",
            edits=[("return self.node._sequence_nr > other.node._sequence_nr",
                    "return (-self.node._sequence_nr, id(self.node)) < (-other.node._sequence_nr, id(other.node))")],
            rule="nodes with equal numbers (AccumulateGrad) come out in the heap's own order"),
    Mistake(_EXEC, "keeps one sum per node, whatever the output",
            edits=[("        slots[nr] = grad if slots[nr] is None else slots[nr] + grad\n    ready = []",
                    "        slots[0] = grad if slots[0] is None else slots[0] + grad\n    ready = []"),
                   ("                slots[nr] = grad if slots[nr] is None else slots[nr] + grad\n            dep",
                    "                slots[0] = grad if slots[0] is None else slots[0] + grad\n            dep")],
            rule="a node keeps one sum per output: the edge's output_nr says which"),
    Mistake(_EXEC, "queues every root, whatever its count",
            edits=[('''        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, ReadyNode(node))
''', '''        heapq.heappush(ready, ReadyNode(node))
''')],
            rule="a root that another root points into waits for its count to reach 0"),
    Mistake(_EXEC, "does not skip edges to nodes outside dependencies",
            edits=[('''            if next_node not in dependencies:
                continue
''', '''            if next_node is None:
                continue
''')],
            rule="execute runs the whole graph"),
    # ============================================================ 03.numerical_grad
    Mistake(_NUM, "uses a one-sided difference",
            edits=[
                ('    with ag.no_grad():\n',
                 '''    with ag.no_grad():
        base = f(x).item()
'''),
                ('''            flat_x[j] = original - eps
            minus = f(x).item()
''',
                 ''),
                ('flat_result[j] = (plus - minus) / (2 * eps)', 'flat_result[j] = (plus - base) / eps'),
            ],
            rule="a one-sided difference is off by about 3x * eps"),
    Mistake(_NUM, "divides by eps instead of 2 eps",
            edits=[
                ('flat_result[j] = (plus - minus) / (2 * eps)',
                 'flat_result[j] = (plus - minus) / eps'),
            ],
            rule="central differences: (f(x + eps e_j) - f(x - eps e_j)) / (2 eps)"),
    Mistake(_NUM, "does not restore x",
            edits=[
                ('            flat_x[j] = original\n',
                 ''),
            ],
            rule="x must be exactly as before"),
    Mistake(_NUM, "restores x by adding eps back (rounding)",
            edits=[
                ('''            original = flat_x[j].item()
            flat_x[j] = original + eps
''',
                 '            flat_x[j] += eps\n'),
                ('flat_x[j] = original - eps', 'flat_x[j] -= 2 * eps'),
                ('flat_x[j] = original', 'flat_x[j] += eps'),
            ],
            rule="adding and subtracting eps leaves rounding errors"),
    Mistake(_NUM, "perturbs a flattened copy of x",
            edits=[
                ('flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)',
                 'flat_x, flat_result = x._data.flatten(), result.reshape(-1)'),
            ],
            rule="f must see the perturbed x"),
    Mistake(_NUM, "evaluates f with grad mode on",
            edits=[
                ('''    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / (2 * eps)
''',
                 '''    for j in range(flat_x.size):
        original = flat_x[j].item()
        flat_x[j] = original + eps
        plus = f(x).item()
        flat_x[j] = original - eps
        minus = f(x).item()
        flat_x[j] = original
        flat_result[j] = (plus - minus) / (2 * eps)
'''),
            ],
            rule="evaluate f under ag.no_grad()"),
    Mistake(_NUM, "builds the result in x's dtype",
            edits=[('result = np.zeros(x.shape, dtype=np.float64)', 'result = np.zeros_like(x._data)')],
            rule="the numerical gradient is float64, whatever x's dtype"),
    Mistake(_NUM, "returns a NumPy array",
            edits=[('return ag.tensor(result)', 'return result')],
            rule="return a Tensor"),
]
