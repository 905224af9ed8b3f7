"""Realistic wrong answers for 03_backward (see __init__.py for the format)."""

from . import Mistake

# ----------------------------------------------------------------------------- add_backward
_ADD = "03_add_backward_answer"
_ADD_PLUG = '\nexercises.plug("03.add_backward", add_backward)\n'

# -------------------------------------------------------------------------- mul_backward
_MUL = "03_mul_backward_answer"
_MUL_PLUG = '\nexercises.plug("03.mul_backward", mul_backward)\n'

# -------------------------------------------------------------------------- pow_backward
_POW = "03_pow_backward_answer"
_POW_PLUG = '\nexercises.plug("03.pow_backward", pow_backward)\n'

# ------------------------------------------------------------------------- mean_backward
_MEAN = "03_mean_backward_answer"
_MEAN_PLUG = '\nexercises.plug("03.mean_backward", mean_backward)\n'

# --------------------------------------------------------------------------- mm_backward
_MM = "03_mm_backward_answer"
_MM_PLUG = '\nexercises.plug("03.mm_backward", mm_backward)\n'

# --------------------------------------------------------------------- count_dependencies
_COUNT = "03_count_dependencies_answer"
_COUNT_PLUG = '\nexercises.plug("03.count_dependencies", count_dependencies)\n'

# ---------------------------------------------------------------------- initial_gradients
_INIT = "03_initial_gradients_answer"
_INIT_PLUG = '\nexercises.plug("03.initial_gradients", initial_gradients)\n'

# ------------------------------------------------------------------------- numerical_grad
_NUM = "03_numerical_grad_answer"
_NUM_PLUG = '\nexercises.plug("03.numerical_grad", numerical_grad)\n'

MISTAKES = [
    # ============================================================== 03.add_backward
    Mistake(_ADD, "returns one gradient for both inputs", '''
def add_backward(grad):
    return grad
''' + _ADD_PLUG, rule="one gradient per input of the op (2 here)"),
    Mistake(_ADD, "returns the local derivative 1 instead of the VJP", '''
def add_backward(grad):
    return ag.ones_like(grad), ag.ones_like(grad)
''' + _ADD_PLUG, rule="add passes grad on unchanged"),
    Mistake(_ADD, "negates the gradient of other (as for subtraction)", '''
def add_backward(grad):
    return grad, -grad
''' + _ADD_PLUG, rule="add passes grad on unchanged, to both inputs"),
    Mistake(_ADD, "gives no gradient to other", '''
def add_backward(grad):
    return grad, None
''' + _ADD_PLUG, rule="add passes grad on unchanged, to both inputs"),

    # ============================================================== 03.mul_backward
    Mistake(_MUL, "swaps the two gradients", '''
def mul_backward(grad, self, other):
    return grad * self, grad * other
''' + _MUL_PLUG, rule="the gradient of self is grad * other"),
    Mistake(_MUL, "forgets the upstream grad", '''
def mul_backward(grad, self, other):
    return other, self
''' + _MUL_PLUG, rule="the upstream grad times d(self * other)/d(self) = other"),
    Mistake(_MUL, "copy-pastes the gradient of self for other", '''
def mul_backward(grad, self, other):
    return grad * other, grad * other
''' + _MUL_PLUG, rule="the gradient of other is grad * self"),
    Mistake(_MUL, "returns only the gradient of self", '''
def mul_backward(grad, self, other):
    return grad * other
''' + _MUL_PLUG, rule="one gradient per input of the op (2 here)"),

    # ============================================================== 03.pow_backward
    Mistake(_POW, "forgets the exponent == 0 case (nan at x = 0)", '''
def pow_backward(grad, self, exponent):
    return grad * exponent * self ** (exponent - 1)
''' + _POW_PLUG, rule="x ** 0 is the constant 1: its gradient is 0 everywhere, even at x = 0"),
    Mistake(_POW, "drops the factor n of the power rule", '''
def pow_backward(grad, self, exponent):
    if exponent == 0:
        return ag.zeros_like(self)
    return grad * self ** (exponent - 1)
''' + _POW_PLUG, rule="power rule: d(x ** n)/dx = n * x ** (n - 1)"),
    Mistake(_POW, "keeps the exponent n instead of n - 1", '''
def pow_backward(grad, self, exponent):
    if exponent == 0:
        return ag.zeros_like(self)
    return grad * exponent * self ** exponent
''' + _POW_PLUG, rule="power rule: d(x ** n)/dx = n * x ** (n - 1)"),
    Mistake(_POW, "forgets the upstream grad", '''
def pow_backward(grad, self, exponent):
    if exponent == 0:
        return ag.zeros_like(self)
    return exponent * self ** (exponent - 1)
''' + _POW_PLUG, rule="chain rule: multiply the local derivative n * x ** (n - 1) by the upstream grad"),

    # ============================================================= 03.mean_backward
    Mistake(_MEAN, "forgets to divide by the number of elements (sum's rule)", '''
def mean_backward(grad, self_shape):
    return grad.expand(self_shape)
''' + _MEAN_PLUG, rule="each of the N = 2 * 3 = 6 elements gets grad / N"),
    Mistake(_MEAN, "divides by the number of rows only", '''
def mean_backward(grad, self_shape):
    return grad.expand(self_shape) / self_shape[0]
''' + _MEAN_PLUG, rule="each of the N = 2 * 3 = 6 elements gets grad / N"),
    Mistake(_MEAN, "divides by the number of dimensions", '''
def mean_backward(grad, self_shape):
    return grad.expand(self_shape) / len(self_shape)
''' + _MEAN_PLUG, rule="each of the N = 2 * 3 = 6 elements gets grad / N"),
    Mistake(_MEAN, "does not expand grad to the input's shape", '''
def mean_backward(grad, self_shape):
    return grad / int(np.prod(self_shape))
''' + _MEAN_PLUG, rule="the gradient of mean has the input's shape: expand grad to self_shape"),
    Mistake(_MEAN, "computes N for 2-D inputs only", '''
def mean_backward(grad, self_shape):
    return grad.expand(self_shape) / (self_shape[0] * self_shape[1])
''' + _MEAN_PLUG, rule="N is the product of all of self_shape"),

    # =============================================================== 03.mm_backward
    Mistake(_MM, "forgets the transposes", '''
def mm_backward(grad, self, mat2):
    return grad @ mat2, self @ grad
''' + _MM_PLUG, rule="each gradient has its input's shape"),
    Mistake(_MM, "multiplies in the wrong order", '''
def mm_backward(grad, self, mat2):
    return mat2.T @ grad, grad @ self.T
''' + _MM_PLUG, rule="each gradient has its input's shape"),
    Mistake(_MM, "returns the gradients in the wrong order", '''
def mm_backward(grad, self, mat2):
    return self.T @ grad, grad @ mat2.T
''' + _MM_PLUG, rule="each gradient has its input's shape"),
    Mistake(_MM, "uses ones instead of the upstream grad", '''
def mm_backward(grad, self, mat2):
    ones = ag.ones_like(grad)
    return ones @ mat2.T, self.T @ ones
''' + _MM_PLUG, rule="grad_self = grad @ mat2.T (the upstream grad, not ones)"),

    # ======================================================== 03.count_dependencies
    Mistake(_COUNT, "walks the graph recursively", '''
def count_dependencies(roots):
    dependencies = {}
    seen = set()

    def visit(node):
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                visit(next_node)

    for root in roots:
        if root not in seen:
            seen.add(root)
            visit(root)
    return dependencies
''' + _COUNT_PLUG, rule="count_dependencies must be iterative"),
    Mistake(_COUNT, "pushes a node every time it is reached", '''
def count_dependencies(roots):
    dependencies = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            stack.append(next_node)
    return dependencies
''' + _COUNT_PLUG, rule="expand each node once"),
    Mistake(_COUNT, "counts a node only the first time it is seen", '''
def count_dependencies(roots):
    dependencies = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node not in seen:
                seen.add(next_node)
                dependencies[next_node] = 1
                stack.append(next_node)
    return dependencies
''' + _COUNT_PLUG, rule="count edges, not nodes"),
    Mistake(_COUNT, "does not skip the None entries", '''
def count_dependencies(roots):
    dependencies = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies
''' + _COUNT_PLUG, rule="are not nodes: skip them"),
    Mistake(_COUNT, "gives every root a count of 0", '''
def count_dependencies(roots):
    dependencies = {root: 0 for root in roots}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies
''' + _COUNT_PLUG, rule="nothing points into the root"),

    # ========================================================= 03.initial_gradients
    Mistake(_INIT, "tests dim() == 0 instead of one element", '''
def initial_gradients(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.dim() != 0:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ag.ones_like(out))
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        else:
            grads.append(g)
    return grads
''' + _INIT_PLUG, rule="numel() == 1, whatever its shape"),
    Mistake(_INIT, "creates ones for a non-scalar output", '''
def initial_gradients(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            grads.append(ag.ones_like(out))
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        else:
            grads.append(g)
    return grads
''' + _INIT_PLUG, rule="only a single-element output has an implicit gradient"),
    Mistake(_INIT, "raises ValueError for a shape mismatch", '''
def initial_gradients(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ag.ones_like(out))
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise ValueError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                             f"output[{i}] has a shape of {out.shape}.")
        else:
            grads.append(g)
    return grads
''' + _INIT_PLUG, rule="a given gradient must have the output's shape, else a RuntimeError"),
    Mistake(_INIT, "puts the class itself in the TypeError message", '''
def initial_gradients(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ag.ones_like(out))
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g)}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        else:
            grads.append(g)
    return grads
''' + _INIT_PLUG, rule="naming its type (type(g).__name__)"),
    Mistake(_INIT, "always reports position 0", '''
def initial_gradients(outputs, grad_outputs):
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ag.ones_like(out))
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and "
                               f"output[0] has a shape of {out.shape}.")
        else:
            grads.append(g)
    return grads
''' + _INIT_PLUG, rule="the message names the position i of the pair"),
    Mistake(_INIT, "compares shapes before checking the type", '''
def initial_gradients(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ag.ones_like(out))
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        elif not isinstance(g, ag.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        else:
            grads.append(g)
    return grads
''' + _INIT_PLUG, rule="a gradient must be a Tensor or None"),

    # ============================================================ 03.numerical_grad
    Mistake(_NUM, "uses a one-sided difference", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        base = f(x).item()
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - base) / eps
    return ag.tensor(result)
''' + _NUM_PLUG, rule="a one-sided difference is off by about 3x * eps"),
    Mistake(_NUM, "divides by eps instead of 2 eps", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / eps
    return ag.tensor(result)
''' + _NUM_PLUG, rule="central differences: (f(x + eps e_j) - f(x - eps e_j)) / (2 eps)"),
    Mistake(_NUM, "does not restore x", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_result[j] = (plus - minus) / (2 * eps)
    return ag.tensor(result)
''' + _NUM_PLUG, rule="x must be exactly as before"),
    Mistake(_NUM, "restores x by adding eps back (rounding)", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            flat_x[j] += eps
            plus = f(x).item()
            flat_x[j] -= 2 * eps
            minus = f(x).item()
            flat_x[j] += eps
            flat_result[j] = (plus - minus) / (2 * eps)
    return ag.tensor(result)
''' + _NUM_PLUG, rule="adding and subtracting eps leaves rounding errors"),
    Mistake(_NUM, "perturbs a flattened copy of x", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.flatten(), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / (2 * eps)
    return ag.tensor(result)
''' + _NUM_PLUG, rule="f must see the perturbed x"),
    Mistake(_NUM, "evaluates f with grad mode on", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    for j in range(flat_x.size):
        original = flat_x[j].item()
        flat_x[j] = original + eps
        plus = f(x).item()
        flat_x[j] = original - eps
        minus = f(x).item()
        flat_x[j] = original
        flat_result[j] = (plus - minus) / (2 * eps)
    return ag.tensor(result)
''' + _NUM_PLUG, rule="evaluate f under ag.no_grad()"),
    Mistake(_NUM, "builds the result in x's dtype", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros_like(x._data)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / (2 * eps)
    return ag.tensor(result)
''' + _NUM_PLUG, rule="the numerical gradient is float64, whatever x's dtype"),
    Mistake(_NUM, "returns a NumPy array", '''
def numerical_grad(f, x, eps=1e-6):
    result = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_result = x._data.reshape(-1), result.reshape(-1)
    with ag.no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_result[j] = (plus - minus) / (2 * eps)
    return result
''' + _NUM_PLUG, rule="return a Tensor"),
]
