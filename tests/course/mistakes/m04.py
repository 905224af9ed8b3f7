"""Realistic wrong answers for assignment 04 (leaves, retain_grad and accumulation).

Each mistake replaces one answer cell of course/source/04_leaves/04_leaves.ipynb.
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

import textwrap

from . import Mistake


def _cell(source):
    return textwrap.dedent(source).strip("\n")


_ACC = "04_accumulate_grad_answer"
_RETAIN = "04_retain_grad_answer"
_STORE = "04_store_retained_grad_answer"

_NO_GRAD_MESSAGE = repr("can't retain_grad on Tensor that has requires_grad=False")


MISTAKES = [
    # ------------------------------------------------------------ 04.accumulate_grad
    Mistake(_ACC, "overwrites .grad instead of adding", _cell('''
        def accumulate_grad(variable, new_grad):
            variable._grad = new_grad.clone()

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="a later gradient is added to .grad, not stored in its place"),
    Mistake(_ACC, "stores the incoming gradient itself (no copy)", _cell('''
        def accumulate_grad(variable, new_grad):
            if variable._grad is None:
                variable._grad = new_grad
            elif ag.is_grad_enabled():
                variable._grad = variable._grad + new_grad
            else:
                variable._grad.add_(new_grad)

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="the first gradient (when .grad is None) is stored as a copy"),
    Mistake(_ACC, "stores new_grad.detach(), which shares its memory", _cell('''
        def accumulate_grad(variable, new_grad):
            if variable._grad is None:
                variable._grad = new_grad.detach()
            elif ag.is_grad_enabled():
                variable._grad = variable._grad + new_grad
            else:
                variable._grad.add_(new_grad)

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="never new_grad itself or a view of its memory"),
    Mistake(_ACC, "always adds out of place, also in a normal backward", _cell('''
        def accumulate_grad(variable, new_grad):
            if variable._grad is None:
                variable._grad = new_grad.clone()
            else:
                variable._grad = variable._grad + new_grad

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="a later gradient is added in place: .grad stays the same tensor"),
    Mistake(_ACC, "adds into the NumPy array without bumping the version counter", _cell('''
        def accumulate_grad(variable, new_grad):
            if variable._grad is None:
                variable._grad = new_grad.clone()
            elif ag.is_grad_enabled():
                variable._grad = variable._grad + new_grad
            else:
                variable._grad._data += new_grad._data

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="an in-place addition bumps the version counter of .grad"),
    Mistake(_ACC, "ignores grad mode: adds in place with create_graph=True too", _cell('''
        def accumulate_grad(variable, new_grad):
            if variable._grad is None:
                variable._grad = new_grad.clone()
            else:
                variable._grad.add_(new_grad)

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="in grad mode (create_graph=True), a later gradient is added out of place"),
    Mistake(_ACC, "copies with detach().clone(), dropping the graph of create_graph=True", _cell('''
        def accumulate_grad(variable, new_grad):
            if variable._grad is None:
                variable._grad = new_grad.detach().clone()
            elif ag.is_grad_enabled():
                variable._grad = variable._grad + new_grad
            else:
                variable._grad.add_(new_grad)

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="in grad mode (create_graph=True), the copy is recorded"),
    Mistake(_ACC, "forgets the first gradient: adds to a .grad that is None", _cell('''
        def accumulate_grad(variable, new_grad):
            if ag.is_grad_enabled():
                variable._grad = variable._grad + new_grad
            else:
                variable._grad.add_(new_grad)

        exercises.plug("04.accumulate_grad", accumulate_grad)
        '''), rule="the first gradient (when .grad is None) is stored as a copy"),

    # ------------------------------------------------------------ 04.retain_grad
    Mistake(_RETAIN, "no requires_grad check: a constant is treated like a leaf", _cell('''
        def retain_grad(tensor):
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True
            node = tensor.grad_fn
            if node._retains_grad is None:
                node._retains_grad = {}
            node._retains_grad[tensor._output_nr] = weakref.ref(tensor)

        exercises.plug("04.retain_grad", retain_grad)
        '''), rule="retain_grad refuses a tensor that does not require grad"),
    Mistake(_RETAIN, "raises ValueError instead of RuntimeError", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise ValueError(%s)
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True
            node = tensor.grad_fn
            if node._retains_grad is None:
                node._retains_grad = {}
            node._retains_grad[tensor._output_nr] = weakref.ref(tensor)

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="with PyTorch's RuntimeError"),
    Mistake(_RETAIN, "marks leaves as retaining their grad too", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise RuntimeError(%s)
            tensor._retains_grad = True
            node = tensor.grad_fn
            if node is None:
                return
            if node._retains_grad is None:
                node._retains_grad = {}
            node._retains_grad[tensor._output_nr] = weakref.ref(tensor)

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="on a leaf, retain_grad does nothing"),
    Mistake(_RETAIN, "only sets the flag, never registers with the node", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise RuntimeError(%s)
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="registers weakref.ref(tensor) in tensor.grad_fn._retains_grad"),
    Mistake(_RETAIN, "assumes the node's dict already exists", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise RuntimeError(%s)
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True
            tensor.grad_fn._retains_grad[tensor._output_nr] = weakref.ref(tensor)

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="a dict to create when it is None"),
    Mistake(_RETAIN, "replaces the node's dict, dropping the other outputs", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise RuntimeError(%s)
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True
            tensor.grad_fn._retains_grad = {tensor._output_nr: weakref.ref(tensor)}

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="keep the entries of the node's other outputs"),
    Mistake(_RETAIN, "registers every tensor under output 0", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise RuntimeError(%s)
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True
            node = tensor.grad_fn
            if node._retains_grad is None:
                node._retains_grad = {}
            node._retains_grad[0] = weakref.ref(tensor)

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="register the tensor under its own output number"),
    Mistake(_RETAIN, "the node holds the tensor strongly (a lambda, not a weak reference)", _cell('''
        def retain_grad(tensor):
            if not tensor.requires_grad:
                raise RuntimeError(%s)
            if tensor.grad_fn is None:
                return
            tensor._retains_grad = True
            node = tensor.grad_fn
            if node._retains_grad is None:
                node._retains_grad = {}
            node._retains_grad[tensor._output_nr] = lambda: tensor

        exercises.plug("04.retain_grad", retain_grad)
        ''' % _NO_GRAD_MESSAGE), rule="registers weakref.ref(tensor)"),

    # ------------------------------------------------------------ 04.store_retained_grad
    Mistake(_STORE, "stores the incoming gradient itself (no copy)", _cell('''
        def store_retained_grad(tensor, grad):
            if tensor._grad is None:
                tensor._grad = grad
            else:
                tensor._grad = tensor._grad + grad

        exercises.plug("04.store_retained_grad", store_retained_grad)
        '''), rule="the first gradient (when .grad is None) is stored as a copy"),
    Mistake(_STORE, "stores grad.detach(), which shares its memory", _cell('''
        def store_retained_grad(tensor, grad):
            if tensor._grad is None:
                tensor._grad = grad.detach()
            else:
                tensor._grad = tensor._grad + grad

        exercises.plug("04.store_retained_grad", store_retained_grad)
        '''), rule="never grad itself or a view of its memory"),
    Mistake(_STORE, "adds in place with +=", _cell('''
        def store_retained_grad(tensor, grad):
            if tensor._grad is None:
                tensor._grad = grad.clone()
            else:
                tensor._grad += grad

        exercises.plug("04.store_retained_grad", store_retained_grad)
        '''), rule="a later gradient is added out of place"),
    Mistake(_STORE, "overwrites the stored gradient instead of adding", _cell('''
        def store_retained_grad(tensor, grad):
            tensor._grad = grad.clone()

        exercises.plug("04.store_retained_grad", store_retained_grad)
        '''), rule="a later gradient is added to the stored one"),
    Mistake(_STORE, "copies with detach().clone(), dropping the graph of create_graph=True", _cell('''
        def store_retained_grad(tensor, grad):
            if tensor._grad is None:
                tensor._grad = grad.detach().clone()
            else:
                tensor._grad = tensor._grad + grad

        exercises.plug("04.store_retained_grad", store_retained_grad)
        '''), rule="with create_graph=True the copy is recorded"),
    Mistake(_STORE, "forgets the first gradient: adds to a .grad that is None", _cell('''
        def store_retained_grad(tensor, grad):
            tensor._grad = tensor._grad + grad

        exercises.plug("04.store_retained_grad", store_retained_grad)
        '''), rule="the first gradient (when .grad is None) is stored as a copy"),
]
