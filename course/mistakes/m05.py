"""Realistic wrong answers for assignment 05 (tensor ops and broadcasting).

Each mistake edits one answer cell of course/source/05_ops/05_ops.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_SUM_TO = "05_sum_to_answer"
_VALIDATE = "05_validate_outputs_answer"
_SUM = "05_sum_backward_answer"
_EXP = "05_exp_backward_answer"
_SIGMOID = "05_sigmoid_backward_answer"
_INDEX = "05_index_backward_answer"
_LOG_SOFTMAX = "05_log_softmax_backward_answer"
_VAR = "05_var_backward_answer"
_AMAX = "05_amax_backward_answer"
_JACOBIAN = "05_analytic_jacobian_answer"

MISTAKES = [
    # ------------------------------------------------------------ 05.sum_to
    Mistake(_SUM_TO, "sums the leading dims only, forgets the size-1 dims",
            edits=[
                ('''    dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                      if size == 1 and grad.shape[lead + i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
''',
                 '''    if lead:
        grad = grad.sum(tuple(range(lead)))
'''),
            ],
            rule="sum (keepdim) over the dims where shape has size 1 but grad does not"),
    Mistake(_SUM_TO, "lines the shapes up from the left, forgets the leading dims",
            edits=[
                ('''    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                      if size == 1 and grad.shape[lead + i] != 1)
''',
                 '    dims = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)\n'),
            ],
            rule="sum over the leading dims that broadcasting added"),
    Mistake(_SUM_TO, "always sums, even over no dims (sum(()) sums everything)",
            edits=[
                ('''    if tuple(grad.shape) == shape:
        return grad
''',
                 ''),
                ('''    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)
''',
                 '    return grad.sum(dims, keepdim=True).reshape(shape)\n'),
            ],
            rule="when grad already has the shape, return grad unchanged"),
    Mistake(_SUM_TO, "averages the copies instead of adding them",
            edits=[('grad = grad.sum(dims, keepdim=True)', 'grad = grad.mean(dims, keepdim=True)')],
            rule="sum over the leading dims that broadcasting added"),
    Mistake(_SUM_TO, "sums without keepdim and never reshapes",
            edits=[
                ('''    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)
''',
                 '    return grad.sum(dims)\n'),
            ],
            rule="sum (keepdim) over the dims where shape has size 1 but grad does not"),
    Mistake(_SUM_TO, "sums the NumPy array: the gradient is no longer differentiable",
            edits=[
                ('''    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)
''',
                 '    return ag.tensor(grad._data.sum(axis=dims, keepdims=True).reshape(shape))\n'),
            ],
            rule="sum_to must be built from tensor ops (sum, reshape) so that the gradient stays differentiable"),

    # ------------------------------------------------------------ 05.validate_outputs
    Mistake(_VALIDATE, "never sums a broadcast gradient back: it reaches the input with the output's shape",
            edits=[('            grad = ag.broadcasting.sum_to(grad, shape)\n', '')],
            rule="a gradient whose shape broadcasts to its input's shape is summed to that shape"),
    Mistake(_VALIDATE, "refuses every gradient whose shape differs, broadcast or not",
            edits=[('if not ag.broadcasting.is_expandable_to(shape, tuple(grad.shape)):', 'if True:')],
            rule="a gradient whose shape broadcasts to its input's shape is summed to that shape"),
    Mistake(_VALIDATE, "keeps the gradient's dtype",
            edits=[('''        if grad._data.dtype != dtype:
            grad = grad.to(ag.dtypes.as_dtype(dtype))
''', '')],
            rule="a gradient of another dtype is cast to its input's dtype"),
    Mistake(_VALIDATE, "also fits the gradient of an input that has no edge",
            edits=[('if grad is None or next_node is None:', 'if grad is None:')],
            rule="the gradient of an input without an edge"),
    Mistake(_VALIDATE, "crashes on a None gradient",
            edits=[('if grad is None or next_node is None:', 'if next_node is None:')],
            rule="None, a gradient that already fits"),

    # ------------------------------------------------------------ 05.sum_backward
    Mistake(_SUM, "no unsqueeze: relies on broadcasting",
            edits=[
                ('''    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
''',
                 ''),
            ],
            rule="put each summed dim back as a size-1 dim (grad.unsqueeze(d)) before expanding"),
    Mistake(_SUM, "unsqueezes even when keepdim=True",
            edits=[
                ('''    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
''',
                 '''    for d in dim:
        grad = grad.unsqueeze(d)
'''),
            ],
            rule="with keepdim=True the summed dims are still there"),
    Mistake(_SUM, "unsqueezes the dims in descending order",
            edits=[('for d in dim:', 'for d in sorted(dim, reverse=True):')],
            rule="unsqueeze the summed dims in ascending order"),
    Mistake(_SUM, "always unsqueezes at the last dim",
            edits=[('grad = grad.unsqueeze(d)', 'grad = grad.unsqueeze(-1)')],
            rule="put each summed dim back as a size-1 dim (grad.unsqueeze(d)) before expanding"),
    Mistake(_SUM, "divides by the number of summed elements (mean's rule)",
            edits=[
                ('def sum_backward(grad, self_shape, dim, keepdim):\n',
                 '''import math
def sum_backward(grad, self_shape, dim, keepdim):
'''),
                ('return grad.expand(self_shape)',
                 'return grad.expand(self_shape) / math.prod(self_shape[d] for d in dim)'),
            ],
            rule="each element gets the gradient of its sum, unchanged"),
    Mistake(_SUM, "forgets to expand to self_shape",
            edits=[('return grad.expand(self_shape)', 'return grad')],
            rule="expand grad to self_shape"),

    # ------------------------------------------------------------ 05.exp_backward
    Mistake(_EXP, "forgets the incoming grad",
            edits=[('return grad * result', 'return result')],
            rule="the gradient is grad * result"),
    Mistake(_EXP, "exp applied twice: exp of the saved result",
            edits=[('return grad * result', 'return grad * result.exp()')],
            rule="d exp(x)/dx = exp(x), which is the saved result"),
    Mistake(_EXP, "adds instead of multiplying",
            edits=[('return grad * result', 'return grad + result')],
            rule="the gradient is grad * result"),
    Mistake(_EXP, "multiplies the NumPy arrays: not differentiable again",
            edits=[('return grad * result', 'return ag.tensor(grad._data * result._data)')],
            rule="build the gradient with tensor ops (grad * result), so that it can be differentiated again"),

    # ------------------------------------------------------------ 05.sigmoid_backward
    Mistake(_SIGMOID, "forgets grad_output",
            edits=[('return grad_output * output * (1 - output)', 'return output * (1 - output)')],
            rule="grad_output * output * (1 - output)"),
    Mistake(_SIGMOID, "applies sigmoid to the output again",
            edits=[
                ('    return grad_output * output * (1 - output)\n',
                 '''    s = output.sigmoid()
    return grad_output * s * (1 - s)
'''),
            ],
            rule="with s = sigmoid(x) the saved output"),
    Mistake(_SIGMOID, "uses tanh's derivative",
            edits=[
                ('return grad_output * output * (1 - output)',
                 'return grad_output * (1 - output * output)'),
            ],
            rule="sigmoid'(x) = s * (1 - s)"),
    Mistake(_SIGMOID, "computes on the NumPy arrays: not differentiable again",
            edits=[
                ('    return grad_output * output * (1 - output)\n',
                 '''    y = output._data
    return ag.tensor(grad_output._data * y * (1 - y))
'''),
            ],
            rule="build sigmoid_backward from tensor ops"),

    # ------------------------------------------------------------ 05.index_backward
    Mistake(_INDEX, "assigns instead of adding: repeated indices lose gradient",
            edits=[('np.add.at(out._data, indices, grad._data)', 'out._data[indices] = grad._data')],
            rule="repeated indices accumulate"),
    Mistake(_INDEX, "float32 zeros whatever grad's dtype",
            edits=[('out = ag.zeros(self_shape, dtype=grad.dtype)', 'out = ag.zeros(self_shape)')],
            rule="the gradient has grad's dtype"),
    Mistake(_INDEX, "treats indices as a single index array",
            edits=[
                ('np.add.at(out._data, indices, grad._data)',
                 'np.add.at(out._data, indices[0], grad._data)'),
            ],
            rule="indices has one entry per indexed dim"),
    Mistake(_INDEX, "returns grad itself: the shape of the output, not of x",
            edits=[
                ('''    out = ag.zeros(self_shape, dtype=grad.dtype)
    np.add.at(out._data, indices, grad._data)
    return out
''',
                 '    return grad\n'),
            ],
            rule="every other element gets 0 (a zero tensor of self_shape)"),
    Mistake(_INDEX, "starts from ones instead of zeros",
            edits=[
                ('out = ag.zeros(self_shape, dtype=grad.dtype)',
                 'out = ag.ones(self_shape, dtype=grad.dtype)'),
            ],
            rule="every other element gets 0"),

    # ------------------------------------------------------------ 05.log_softmax_backward
    Mistake(_LOG_SOFTMAX, "forgets the exp: uses log-probabilities as probabilities",
            edits=[
                ('return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)',
                 'return grad_output - output * grad_output.sum(dim, keepdim=True)'),
            ],
            rule="d log_softmax(x)_i / dx_j = [i == j] - softmax_j"),
    Mistake(_LOG_SOFTMAX, "assumes grad_output sums to 1",
            edits=[
                ('return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)',
                 'return grad_output - output.exp()'),
            ],
            rule="grad_output - output.exp() * grad_output.sum(dim, keepdim=True)"),
    Mistake(_LOG_SOFTMAX, "sums grad_output over every dim",
            edits=[
                ('return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)',
                 'return grad_output - output.exp() * grad_output.sum()'),
            ],
            rule="sum grad_output along dim only"),
    Mistake(_LOG_SOFTMAX, "sums along dim without keepdim",
            edits=[
                ('return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)',
                 'return grad_output - output.exp() * grad_output.sum(dim)'),
            ],
            rule="with keepdim=True: each row of a batch is a softmax of its own"),
    Mistake(_LOG_SOFTMAX, "uses softmax's gradient rule",
            edits=[
                ('    return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)\n',
                 '''    p = output.exp()
    return (grad_output - (grad_output * p).sum(dim, keepdim=True)) * p
'''),
            ],
            rule="[i == j] - softmax_j"),
    # ------------------------------------------------------------ 05.var_backward
    Mistake(_VAR, "forgets the factor 2 of the square",
            edits=[("(2 / (count - correction))", "(1 / (count - correction))")],
            rule="brings down a factor 2 when differentiated"),
    Mistake(_VAR, "divides by N, ignoring correction",
            edits=[("(2 / (count - correction))", "(2 / count)")],
            rule="var divides by N - correction"),
    Mistake(_VAR, "forgets to put the reduced dims back without keepdim",
            edits=[
                ('''    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
''',
                 ''),
            ],
            rule="with keepdim=False, put the reduced dims back as size-1 dims before broadcasting grad"),
    Mistake(_VAR, "centres on the mean of the whole tensor instead of each group's",
            edits=[("self - self.mean(dim, keepdim=True)", "self - self.mean()")],
            rule="each element is compared with the mean of its own group"),
    Mistake(_VAR, "puts the reduced dims back in descending order",
            edits=[
                ('''        for d in dim:
            grad = grad.unsqueeze(d)
''',
                 '''        for d in reversed(dim):
            grad = grad.unsqueeze(d)
'''),
            ],
            rule="put the reduced dims back in ascending order"),

    # ------------------------------------------------------------ 05.amax_backward
    Mistake(_AMAX, "sends the whole gradient to every tie",
            edits=[("return grad * ties / ties.sum(dims, keepdim=True)", "return grad * ties")],
            rule="tied extremes share the gradient equally"),
    Mistake(_AMAX, "sends the gradient to the first tie only, as max(dim) does",
            edits=[
                ('''    ties = (self == result).to(grad.dtype)
    return grad * ties / ties.sum(dims, keepdim=True)
''',
                 '''    hit = (self == result)._data
    last = tuple(range(hit.ndim - len(dims), hit.ndim))
    moved = np.moveaxis(hit, dims, last)
    flat = moved.reshape(moved.shape[:hit.ndim - len(dims)] + (-1,))
    first = (flat & (flat.cumsum(-1) == 1)).reshape(moved.shape)
    return grad * ag.tensor(np.moveaxis(first, last, dims), dtype=grad.dtype)
'''),
            ],
            rule="tied extremes share the gradient equally"),
    Mistake(_AMAX, "forgets to put the reduced dims back without keepdim",
            edits=[
                ('''    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
            result = result.unsqueeze(d)
''',
                 ''),
            ],
            rule="with keepdim=False, grad and result have lost the reduced dims"),
    Mistake(_AMAX, "puts the dims back into grad but not into result",
            edits=[("            result = result.unsqueeze(d)\n", "")],
            rule="with keepdim=False, grad and result have lost the reduced dims"),
    Mistake(_AMAX, "counts the ties over the whole tensor",
            edits=[("ties.sum(dims, keepdim=True)", "ties.sum()")],
            rule="count the ties of each group separately"),

    # ------------------------------------- delegating to a one-call library helper
    Mistake(_SUM, "delegates to the library's restore_reduced_dims helper",
            edits=[
                ('''    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
    return grad.expand(self_shape)
''',
                 '    return ag.ops.restore_reduced_dims(grad, dim, keepdim).expand(self_shape)\n'),
            ],
            rule="calls autograd_lib's own implementation"),
    Mistake(_INDEX, "delegates to the library's embed_in_zeros helper",
            edits=[
                ('''    out = ag.zeros(self_shape, dtype=grad.dtype)
    np.add.at(out._data, indices, grad._data)
    return out
''',
                 '    return ag.ops.embed_in_zeros(grad, self_shape, indices, accumulate=True)\n'),
            ],
            rule="calls autograd_lib's own implementation"),
    Mistake(_AMAX, "delegates to the library's evenly_distribute helper (max()'s rule)",
            edits=[
                ('''    ties = (self == result).to(grad.dtype)
    return grad * ties / ties.sum(dims, keepdim=True)
''',
                 '    return ag.ops.evenly_distribute(grad, self, result)\n'),
            ],
            rule="calls autograd_lib's own implementation"),
    Mistake(_JACOBIAN, "builds the matrices the mathematician's way round, (output numel, input numel)",
            edits=[("np.zeros((x.numel(), out.numel()))", "np.zeros((out.numel(), x.numel()))"),
                   ("matrix[:, i] = g.numpy().reshape(-1)", "matrix[i, :] = g.numpy().reshape(-1)")],
            rule="of shape (input numel, output numel)"),
    Mistake(_JACOBIAN, "frees the graph after the first output element",
            edits=[("                                         retain_graph=True, allow_unused=True)",
                    "                                         allow_unused=True)")],
            rule="through a graph that must survive until the last one"),
    Mistake(_JACOBIAN, "lets autograd.grad refuse an input the output does not use",
            edits=[("                                         retain_graph=True, allow_unused=True)",
                    "                                         retain_graph=True)")],
            rule="an input an output does not use, gives a matrix of zeros"),
    Mistake(_JACOBIAN, "keeps one seed for all the output elements, so the ones pile up",
            edits=[("                seed = np.zeros(out.numel())\n", ""),
                   ("        if out.requires_grad:\n", "        seed = np.zeros(out.numel())\n        if out.requires_grad:\n")],
            rule="with a gradient that is 1 at that element and 0 elsewhere"),
    Mistake(_JACOBIAN, "gives a matrix to every tensor input, also to a constant",
            edits=[("wanted = [x for x in inputs if isinstance(x, ag.Tensor) and x.requires_grad]",
                    "wanted = [x for x in inputs if isinstance(x, ag.Tensor)]")],
            rule="each with one matrix per input that requires grad"),
]
