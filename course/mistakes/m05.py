"""Realistic wrong answers for assignment 05 (tensor ops and broadcasting).

Each mistake edits one answer cell of course/source/05_ops/05_ops.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail naming ``rule`` (a rule its task text states),
and the test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_SUM_TO = "05_sum_to_answer"
_VALIDATE = "05_validate_outputs_answer"
_JACOBIAN = "05_analytic_jacobian_answer"
_SUM_INDEX = "05_sum_and_index_answer"
_DERIVE = "05_derive_rules_answer"
_VAR = "05_var_backward_answer"
_AMAX = "05_amax_backward_answer"

_SUM_TO_TAIL = '''    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)
'''
_UNSQUEEZE_SUM = '''    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
'''
_INDEX_BODY = '''    out = ag.zeros(self_shape, dtype=grad.dtype)
    np.add.at(out._data, indices, grad._data)
    return out
'''
_SIGMOID = "return grad_output * output * (1 - output)"
_LOG_SOFTMAX = "return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)"
_TIES = '''    ties = (self == result).to(grad.dtype)
    return grad * ties / ties.sum(dims, keepdim=True)
'''

MISTAKES = [
    # ------------------------------------------------------------ 05.sum_to
    Mistake(_SUM_TO, "sums the leading dims only, forgets the size-1 dims",
            edits=[('''    dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                      if size == 1 and grad.shape[lead + i] != 1)
''' + _SUM_TO_TAIL, '''    if lead:
        grad = grad.sum(tuple(range(lead)))
    return grad
''')],
            rule="ones"),
    Mistake(_SUM_TO, "lines the shapes up from the left, forgets the leading dims",
            edits=[('''    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                      if size == 1 and grad.shape[lead + i] != 1)
''', '    dims = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)\n')],
            rule="lead"),
    Mistake(_SUM_TO, "always sums, even over no dims (sum(()) sums everything)",
            edits=[('''    if tuple(grad.shape) == shape:
        return grad
''', ''), (_SUM_TO_TAIL, '    return grad.sum(dims, keepdim=True).reshape(shape)\n')],
            rule="same"),
    Mistake(_SUM_TO, "averages the copies instead of adding them",
            edits=[('grad = grad.sum(dims, keepdim=True)', 'grad = grad.mean(dims, keepdim=True)')],
            rule="lead"),
    Mistake(_SUM_TO, "sums without keepdim and never reshapes",
            edits=[(_SUM_TO_TAIL, '    return grad.sum(dims)\n')],
            rule="ones"),
    Mistake(_SUM_TO, "sums the NumPy array: the gradient is no longer differentiable",
            edits=[(_SUM_TO_TAIL, '    return ag.tensor(grad._data.sum(axis=dims, keepdims=True).reshape(shape))\n')],
            rule="graph"),

    # ------------------------------------------------------------ 05.validate_outputs
    Mistake(_VALIDATE, "never sums a broadcast gradient back: it reaches the input with the output's shape",
            edits=[('            grad = ag.broadcasting.sum_to(grad, shape)\n', '')],
            rule="shape"),
    Mistake(_VALIDATE, "refuses every gradient whose shape differs, broadcast or not",
            edits=[('if not ag.broadcasting.is_expandable_to(shape, tuple(grad.shape)):', 'if True:')],
            rule="shape"),
    Mistake(_VALIDATE, "keeps the gradient's dtype",
            edits=[('''        if grad._data.dtype != dtype:
            grad = grad.to(ag.dtypes.as_dtype(dtype))
''', '')],
            rule="dtype"),
    Mistake(_VALIDATE, "also fits the gradient of an input that has no edge",
            edits=[('if grad is None or next_node is None:', 'if grad is None:')],
            rule="keep"),
    Mistake(_VALIDATE, "crashes on a None gradient",
            edits=[('if grad is None or next_node is None:', 'if next_node is None:')],
            rule="keep"),
    Mistake(_VALIDATE, "drops the None gradients: the list no longer lines up with the inputs",
            edits=[('''        if grad is None or next_node is None:
            checked.append(grad)
''', '''        if grad is None:
            continue
        if next_node is None:
            checked.append(grad)
''')],
            rule="list"),
    Mistake(_VALIDATE, "refuses a wrong shape with a ValueError",
            edits=[('raise RuntimeError(f"Function {node.name()}', 'raise ValueError(f"Function {node.name()}')],
            rule="refuse"),

    # ------------------------------------------------------------ 05.analytic_jacobian
    Mistake(_JACOBIAN, "builds the matrices the mathematician's way round, (output numel, input numel)",
            edits=[("np.zeros((x.numel(), out.numel()))", "np.zeros((out.numel(), x.numel()))"),
                   ("matrix[:, i] = g.numpy().reshape(-1)", "matrix[i, :] = g.numpy().reshape(-1)")],
            rule="layout"),
    Mistake(_JACOBIAN, "frees the graph after the first output element",
            edits=[("                                         retain_graph=True, allow_unused=True)",
                    "                                         allow_unused=True)")],
            rule="entries"),
    Mistake(_JACOBIAN, "lets autograd.grad refuse an input the output does not use",
            edits=[("                                         retain_graph=True, allow_unused=True)",
                    "                                         retain_graph=True)")],
            rule="zeros"),
    Mistake(_JACOBIAN, "keeps one seed for all the output elements, so the ones pile up",
            edits=[("                seed = np.zeros(out.numel())\n", ""),
                   ("        if out.requires_grad:\n",
                    "        seed = np.zeros(out.numel())\n        if out.requires_grad:\n")],
            rule="entries"),
    Mistake(_JACOBIAN, "gives a matrix to every tensor input, also to a constant",
            edits=[("wanted = [x for x in inputs if isinstance(x, ag.Tensor) and x.requires_grad]",
                    "wanted = [x for x in inputs if isinstance(x, ag.Tensor)]")],
            rule="lists"),
    Mistake(_JACOBIAN, "calls fn in the caller's grad mode: inside no_grad nothing is recorded",
            edits=[('''    with ag.enable_grad():
        outputs = fn(*inputs)
''', '    outputs = fn(*inputs)\n')],
            rule="grad-mode"),
    Mistake(_JACOBIAN, "reads each row from .grad after backward(), and leaves it there",
            edits=[('''                grads = ag.autograd.grad(out, wanted, grad_outputs=ag.tensor(seed.reshape(out.shape)),
                                         retain_graph=True, allow_unused=True)
''', '''                for x in wanted:
                    x.grad = None
                out.backward(ag.tensor(seed.reshape(out.shape)), retain_graph=True)
                grads = [x.grad for x in wanted]
''')],
            rule="untouched"),

    # ------------------------------------------------------------ 05.sum_and_index
    Mistake(_SUM_INDEX, "assigns instead of adding: repeated indices lose gradient",
            edits=[('np.add.at(out._data, indices, grad._data)', 'out._data[indices] = grad._data')],
            rule="index-add"),
    Mistake(_SUM_INDEX, "no unsqueeze: relies on broadcasting",
            edits=[(_UNSQUEEZE_SUM, '')],
            rule="sum-dims"),
    Mistake(_SUM_INDEX, "unsqueezes even when keepdim=True",
            edits=[(_UNSQUEEZE_SUM, '''    for d in dim:
        grad = grad.unsqueeze(d)
''')],
            rule="sum-copy"),
    Mistake(_SUM_INDEX, "unsqueezes the dims in descending order",
            edits=[('for d in dim:', 'for d in sorted(dim, reverse=True):')],
            rule="sum-dims"),
    Mistake(_SUM_INDEX, "always unsqueezes at the last dim",
            edits=[('grad = grad.unsqueeze(d)', 'grad = grad.unsqueeze(-1)')],
            rule="sum-dims"),
    Mistake(_SUM_INDEX, "divides by the number of summed elements (mean's rule)",
            edits=[('def sum_backward(grad, self_shape, dim, keepdim):\n',
                    'import math\n\n\ndef sum_backward(grad, self_shape, dim, keepdim):\n'),
                   ('return grad.expand(self_shape)',
                    'return grad.expand(self_shape) / math.prod(self_shape[d] for d in dim)')],
            rule="sum-copy"),
    Mistake(_SUM_INDEX, "float32 zeros whatever grad's dtype",
            edits=[('out = ag.zeros(self_shape, dtype=grad.dtype)', 'out = ag.zeros(self_shape)')],
            rule="index-zeros"),
    Mistake(_SUM_INDEX, "treats indices as a single index array",
            edits=[('np.add.at(out._data, indices, grad._data)', 'np.add.at(out._data, indices[0], grad._data)')],
            rule="index-tuple"),
    Mistake(_SUM_INDEX, "returns grad itself: the shape of the output, not of x",
            edits=[(_INDEX_BODY, '    return grad\n')],
            rule="index-zeros"),

    # ------------------------------------------------------------ 05.derive_rules
    Mistake(_DERIVE, "sigmoid: uses tanh's derivative",
            edits=[(_SIGMOID, 'return grad_output * (1 - output * output)')],
            rule="sigmoid"),
    Mistake(_DERIVE, "exp: forgets the incoming grad",
            edits=[('return grad * result', 'return result')],
            rule="exp"),
    Mistake(_DERIVE, "exp: applies exp to the saved result again",
            edits=[('return grad * result', 'return grad * result.exp()')],
            rule="exp"),
    Mistake(_DERIVE, "exp: multiplies the NumPy arrays, so the gradient has no graph",
            edits=[('return grad * result', 'return ag.tensor(grad._data * result._data)')],
            rule="graph"),
    Mistake(_DERIVE, "sigmoid: applies sigmoid to the output again",
            edits=[('    ' + _SIGMOID + '\n', '''    s = output.sigmoid()
    return grad_output * s * (1 - s)
''')],
            rule="sigmoid"),
    Mistake(_DERIVE, "log_softmax: uses the log-probabilities as probabilities",
            edits=[(_LOG_SOFTMAX, 'return grad_output - output * grad_output.sum(dim, keepdim=True)')],
            rule="log-softmax"),
    Mistake(_DERIVE, "log_softmax: assumes the upstream gradient sums to 1",
            edits=[(_LOG_SOFTMAX, 'return grad_output - output.exp()')],
            rule="log-softmax"),
    Mistake(_DERIVE, "log_softmax: sums the upstream gradient over every dim",
            edits=[(_LOG_SOFTMAX, 'return grad_output - output.exp() * grad_output.sum()')],
            rule="log-softmax"),
    Mistake(_DERIVE, "log_softmax: uses softmax's rule",
            edits=[('    ' + _LOG_SOFTMAX + '\n', '''    p = output.exp()
    return (grad_output - (grad_output * p).sum(dim, keepdim=True)) * p
''')],
            rule="log-softmax"),

    # ------------------------------------------------------------ 05.var_backward
    Mistake(_VAR, "forgets the factor 2 of the square",
            edits=[("(2 / (count - correction))", "(1 / (count - correction))")],
            rule="derivative"),
    Mistake(_VAR, "divides by N, ignoring correction",
            edits=[("(2 / (count - correction))", "(2 / count)")],
            rule="correction"),
    Mistake(_VAR, "forgets to put the reduced dims back without keepdim",
            edits=[('''    if not keepdim:
        for d in dim:
            grad = grad.unsqueeze(d)
''', '')],
            rule="keepdim"),
    Mistake(_VAR, "centres on the mean of the whole tensor instead of each group's",
            edits=[("self - self.mean(dim, keepdim=True)", "self - self.mean()")],
            rule="groups"),
    Mistake(_VAR, "puts the reduced dims back in descending order",
            edits=[('''        for d in dim:
            grad = grad.unsqueeze(d)
''', '''        for d in reversed(dim):
            grad = grad.unsqueeze(d)
''')],
            rule="keepdim"),
    Mistake(_VAR, "differentiates the element's own square only, with the mean's share counted once",
            edits=[("return grad * deviations * (2 / (count - correction))",
                    "return grad * deviations * (2 * (1 - 1 / count) / (count - correction))")],
            rule="derivative"),
    Mistake(_VAR, "computes the deviations in NumPy: the gradient cannot be differentiated again",
            edits=[("deviations = self - self.mean(dim, keepdim=True)",
                    "deviations = ag.tensor(self._data - self._data.mean(axis=dim, keepdims=True))")],
            rule="graph"),

    # ------------------------------------------------------------ 05.amax_backward
    Mistake(_AMAX, "sends the whole gradient to every tie",
            edits=[("return grad * ties / ties.sum(dims, keepdim=True)", "return grad * ties")],
            rule="share"),
    Mistake(_AMAX, "sends the gradient to the first tie only, as max(dim) does",
            edits=[(_TIES, '''    hit = (self == result)._data
    last = tuple(range(hit.ndim - len(dims), hit.ndim))
    moved = np.moveaxis(hit, dims, last)
    flat = moved.reshape(moved.shape[:hit.ndim - len(dims)] + (-1,))
    first = (flat & (flat.cumsum(-1) == 1)).reshape(moved.shape)
    return grad * ag.tensor(np.moveaxis(first, last, dims), dtype=grad.dtype)
''')],
            rule="share"),
    Mistake(_AMAX, "forgets to put the reduced dims back without keepdim",
            edits=[('''    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
            result = result.unsqueeze(d)
''', '')],
            rule="keepdim"),
    Mistake(_AMAX, "puts the dims back into grad but not into result",
            edits=[("            result = result.unsqueeze(d)\n", "")],
            rule="keepdim"),
    Mistake(_AMAX, "counts the ties over the whole tensor",
            edits=[("ties.sum(dims, keepdim=True)", "ties.sum()")],
            rule="groups"),
    Mistake(_AMAX, "recomputes the maximum instead of using result, so amin picks the maxima",
            edits=[("ties = (self == result).to(grad.dtype)",
                    "ties = (self == self.amax(dims, keepdim=True)).to(grad.dtype)")],
            rule="amin"),
]
