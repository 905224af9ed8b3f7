"""Realistic wrong answers for assignment 05 (tensor ops and broadcasting).

Each mistake replaces one answer cell of course/source/05_ops/05_ops.ipynb.
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

import textwrap

from . import Mistake


def _cell(source):
    return textwrap.dedent(source).strip("\n")


_SUM_TO = "05_sum_to_answer"
_SUM = "05_sum_backward_answer"
_EXP = "05_exp_backward_answer"
_SIGMOID = "05_sigmoid_backward_answer"
_INDEX = "05_index_backward_answer"
_LOG_SOFTMAX = "05_log_softmax_backward_answer"


MISTAKES = [
    # ------------------------------------------------------------ 05.sum_to
    Mistake(_SUM_TO, "sums the leading dims only, forgets the size-1 dims", _cell('''
        def sum_to(grad, shape):
            shape = tuple(shape)
            if tuple(grad.shape) == shape:
                return grad
            lead = grad.ndim - len(shape)
            if lead:
                grad = grad.sum(tuple(range(lead)))
            return grad.reshape(shape)

        exercises.plug("05.sum_to", sum_to)
        '''), rule="sum (keepdim) over the dims where shape has size 1 but grad does not"),
    Mistake(_SUM_TO, "lines the shapes up from the left, forgets the leading dims", _cell('''
        def sum_to(grad, shape):
            shape = tuple(shape)
            if tuple(grad.shape) == shape:
                return grad
            dims = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
            if dims:
                grad = grad.sum(dims, keepdim=True)
            return grad.reshape(shape)

        exercises.plug("05.sum_to", sum_to)
        '''), rule="sum over the leading dims that broadcasting added"),
    Mistake(_SUM_TO, "always sums, even over no dims (sum(()) sums everything)", _cell('''
        def sum_to(grad, shape):
            shape = tuple(shape)
            lead = grad.ndim - len(shape)
            dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                              if size == 1 and grad.shape[lead + i] != 1)
            return grad.sum(dims, keepdim=True).reshape(shape)

        exercises.plug("05.sum_to", sum_to)
        '''), rule="when grad already has the shape, return grad unchanged"),
    Mistake(_SUM_TO, "averages the copies instead of adding them", _cell('''
        def sum_to(grad, shape):
            shape = tuple(shape)
            if tuple(grad.shape) == shape:
                return grad
            lead = grad.ndim - len(shape)
            dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                              if size == 1 and grad.shape[lead + i] != 1)
            if dims:
                grad = grad.mean(dims, keepdim=True)
            return grad.reshape(shape)

        exercises.plug("05.sum_to", sum_to)
        '''), rule="sum over the leading dims that broadcasting added"),
    Mistake(_SUM_TO, "sums without keepdim and never reshapes", _cell('''
        def sum_to(grad, shape):
            shape = tuple(shape)
            if tuple(grad.shape) == shape:
                return grad
            lead = grad.ndim - len(shape)
            dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                              if size == 1 and grad.shape[lead + i] != 1)
            return grad.sum(dims)

        exercises.plug("05.sum_to", sum_to)
        '''), rule="sum (keepdim) over the dims where shape has size 1 but grad does not"),
    Mistake(_SUM_TO, "sums the NumPy array: the gradient is no longer differentiable", _cell('''
        def sum_to(grad, shape):
            shape = tuple(shape)
            if tuple(grad.shape) == shape:
                return grad
            lead = grad.ndim - len(shape)
            dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                              if size == 1 and grad.shape[lead + i] != 1)
            return ag.tensor(grad._data.sum(axis=dims, keepdims=True).reshape(shape))

        exercises.plug("05.sum_to", sum_to)
        '''), rule="sum_to must be built from tensor ops (sum, reshape) so that the gradient stays differentiable"),

    # ------------------------------------------------------------ 05.sum_backward
    Mistake(_SUM, "no unsqueeze: relies on broadcasting", _cell('''
        def sum_backward(grad, self_shape, dim, keepdim):
            return grad.expand(self_shape)

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="put each summed dim back as a size-1 dim (grad.unsqueeze(d)) before expanding"),
    Mistake(_SUM, "unsqueezes even when keepdim=True", _cell('''
        def sum_backward(grad, self_shape, dim, keepdim):
            for d in dim:
                grad = grad.unsqueeze(d)
            return grad.expand(self_shape)

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="with keepdim=True the summed dims are still there"),
    Mistake(_SUM, "unsqueezes the dims in descending order", _cell('''
        def sum_backward(grad, self_shape, dim, keepdim):
            if not keepdim:
                for d in sorted(dim, reverse=True):
                    grad = grad.unsqueeze(d)
            return grad.expand(self_shape)

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="unsqueeze the summed dims in ascending order"),
    Mistake(_SUM, "always unsqueezes at the last dim", _cell('''
        def sum_backward(grad, self_shape, dim, keepdim):
            if not keepdim:
                for d in dim:
                    grad = grad.unsqueeze(-1)
            return grad.expand(self_shape)

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="put each summed dim back as a size-1 dim (grad.unsqueeze(d)) before expanding"),
    Mistake(_SUM, "divides by the number of summed elements (mean's rule)", _cell('''
        import math

        def sum_backward(grad, self_shape, dim, keepdim):
            if not keepdim:
                for d in dim:
                    grad = grad.unsqueeze(d)
            return grad.expand(self_shape) / math.prod(self_shape[d] for d in dim)

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="each element gets the gradient of its sum, unchanged"),
    Mistake(_SUM, "forgets to expand to self_shape", _cell('''
        def sum_backward(grad, self_shape, dim, keepdim):
            if not keepdim:
                for d in dim:
                    grad = grad.unsqueeze(d)
            return grad

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="expand grad to self_shape"),

    # ------------------------------------------------------------ 05.exp_backward
    Mistake(_EXP, "forgets the incoming grad", _cell('''
        def exp_backward(grad, result):
            return result

        exercises.plug("05.exp_backward", exp_backward)
        '''), rule="the gradient is grad * result"),
    Mistake(_EXP, "exp applied twice: exp of the saved result", _cell('''
        def exp_backward(grad, result):
            return grad * result.exp()

        exercises.plug("05.exp_backward", exp_backward)
        '''), rule="d exp(x)/dx = exp(x), which is the saved result"),
    Mistake(_EXP, "adds instead of multiplying", _cell('''
        def exp_backward(grad, result):
            return grad + result

        exercises.plug("05.exp_backward", exp_backward)
        '''), rule="the gradient is grad * result"),
    Mistake(_EXP, "multiplies the NumPy arrays: not differentiable again", _cell('''
        def exp_backward(grad, result):
            return ag.tensor(grad._data * result._data)

        exercises.plug("05.exp_backward", exp_backward)
        '''), rule="build the gradient with tensor ops (grad * result), so that it can be differentiated again"),

    # ------------------------------------------------------------ 05.sigmoid_backward
    Mistake(_SIGMOID, "forgets grad_output", _cell('''
        def sigmoid_backward(grad_output, output):
            return output * (1 - output)

        exercises.plug("05.sigmoid_backward", sigmoid_backward)
        '''), rule="grad_output * output * (1 - output)"),
    Mistake(_SIGMOID, "applies sigmoid to the output again", _cell('''
        def sigmoid_backward(grad_output, output):
            s = output.sigmoid()
            return grad_output * s * (1 - s)

        exercises.plug("05.sigmoid_backward", sigmoid_backward)
        '''), rule="with s = sigmoid(x) the saved output"),
    Mistake(_SIGMOID, "uses tanh's derivative", _cell('''
        def sigmoid_backward(grad_output, output):
            return grad_output * (1 - output * output)

        exercises.plug("05.sigmoid_backward", sigmoid_backward)
        '''), rule="sigmoid'(x) = s * (1 - s)"),
    Mistake(_SIGMOID, "computes on the NumPy arrays: not differentiable again", _cell('''
        def sigmoid_backward(grad_output, output):
            y = output._data
            return ag.tensor(grad_output._data * y * (1 - y))

        exercises.plug("05.sigmoid_backward", sigmoid_backward)
        '''), rule="build sigmoid_backward from tensor ops"),

    # ------------------------------------------------------------ 05.index_backward
    Mistake(_INDEX, "assigns instead of adding: repeated indices lose gradient", _cell('''
        def index_backward(grad, self_shape, indices):
            out = ag.zeros(self_shape, dtype=grad.dtype)
            out._data[indices] = grad._data
            return out

        exercises.plug("05.index_backward", index_backward)
        '''), rule="repeated indices accumulate"),
    Mistake(_INDEX, "float32 zeros whatever grad's dtype", _cell('''
        def index_backward(grad, self_shape, indices):
            out = ag.zeros(self_shape)
            np.add.at(out._data, indices, grad._data)
            return out

        exercises.plug("05.index_backward", index_backward)
        '''), rule="the gradient has grad's dtype"),
    Mistake(_INDEX, "treats indices as a single index array", _cell('''
        def index_backward(grad, self_shape, indices):
            out = ag.zeros(self_shape, dtype=grad.dtype)
            np.add.at(out._data, indices[0], grad._data)
            return out

        exercises.plug("05.index_backward", index_backward)
        '''), rule="indices has one entry per indexed dim"),
    Mistake(_INDEX, "returns grad itself: the shape of the output, not of x", _cell('''
        def index_backward(grad, self_shape, indices):
            return grad

        exercises.plug("05.index_backward", index_backward)
        '''), rule="every other element gets 0 (a zero tensor of self_shape)"),
    Mistake(_INDEX, "starts from ones instead of zeros", _cell('''
        def index_backward(grad, self_shape, indices):
            out = ag.ones(self_shape, dtype=grad.dtype)
            np.add.at(out._data, indices, grad._data)
            return out

        exercises.plug("05.index_backward", index_backward)
        '''), rule="every other element gets 0"),

    # ------------------------------------------------------------ 05.log_softmax_backward
    Mistake(_LOG_SOFTMAX, "forgets the exp: uses log-probabilities as probabilities", _cell('''
        def log_softmax_backward(grad_output, output, dim):
            return grad_output - output * grad_output.sum(dim, keepdim=True)

        exercises.plug("05.log_softmax_backward", log_softmax_backward)
        '''), rule="d log_softmax(x)_i / dx_j = [i == j] - softmax_j"),
    Mistake(_LOG_SOFTMAX, "assumes grad_output sums to 1", _cell('''
        def log_softmax_backward(grad_output, output, dim):
            return grad_output - output.exp()

        exercises.plug("05.log_softmax_backward", log_softmax_backward)
        '''), rule="grad_output - output.exp() * grad_output.sum(dim, keepdim=True)"),
    Mistake(_LOG_SOFTMAX, "sums grad_output over every dim", _cell('''
        def log_softmax_backward(grad_output, output, dim):
            return grad_output - output.exp() * grad_output.sum()

        exercises.plug("05.log_softmax_backward", log_softmax_backward)
        '''), rule="sum grad_output along dim only"),
    Mistake(_LOG_SOFTMAX, "sums along dim without keepdim", _cell('''
        def log_softmax_backward(grad_output, output, dim):
            return grad_output - output.exp() * grad_output.sum(dim)

        exercises.plug("05.log_softmax_backward", log_softmax_backward)
        '''), rule="with keepdim=True: each row of a batch is a softmax of its own"),
    Mistake(_LOG_SOFTMAX, "uses softmax's gradient rule", _cell('''
        def log_softmax_backward(grad_output, output, dim):
            p = output.exp()
            return (grad_output - (grad_output * p).sum(dim, keepdim=True)) * p

        exercises.plug("05.log_softmax_backward", log_softmax_backward)
        '''), rule="[i == j] - softmax_j"),
    # ------------------------------------- delegating to a one-call library helper
    Mistake(_SUM, "delegates to the library's restore_reduced_dims helper", _cell('''
        def sum_backward(grad, self_shape, dim, keepdim):
            return ag.ops.restore_reduced_dims(grad, dim, keepdim).expand(self_shape)

        exercises.plug("05.sum_backward", sum_backward)
        '''), rule="calls autograd_lib's own implementation"),
    Mistake(_INDEX, "delegates to the library's embed_in_zeros helper", _cell('''
        def index_backward(grad, self_shape, indices):
            return ag.ops.embed_in_zeros(grad, self_shape, indices, accumulate=True)

        exercises.plug("05.index_backward", index_backward)
        '''), rule="calls autograd_lib's own implementation"),
]
