"""Realistic wrong answers for assignment 01 (tensors and requires_grad).

Each mistake replaces one answer cell of course/source/01_tensors/01_tensors.ipynb.
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

import textwrap

from . import Mistake


def _cell(source):
    return textwrap.dedent(source).strip("\n")


_RRG = "01_result_requires_grad_answer"
_LEAF = "01_is_leaf_answer"
_RG = "01_requires_grad_answer"
_DETACH = "01_detach_answer"

_NON_LEAF_MESSAGE = repr("you can only change requires_grad flags of leaf variables. If you want to use a computed "
                         "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")


MISTAKES = [
    # ------------------------------------------------------------ 01.result_requires_grad
    Mistake(_RRG, "ignores grad mode", _cell('''
        def result_requires_grad(*inputs):
            return any(t is not None and t.requires_grad for t in inputs)

        exercises.plug("01.result_requires_grad", result_requires_grad)
        '''), rule="in no_grad mode, no result requires grad"),
    Mistake(_RRG, "all inputs must require grad instead of any", _cell('''
        def result_requires_grad(*inputs):
            if not ag.is_grad_enabled():
                return False
            present = [t for t in inputs if t is not None]
            return bool(present) and all(t.requires_grad for t in present)

        exercises.plug("01.result_requires_grad", result_requires_grad)
        '''), rule="a result requires grad when ANY input requires grad"),
    Mistake(_RRG, "reads the leaf flag _requires_grad, missing non-leaf inputs", _cell('''
        def result_requires_grad(*inputs):
            if not ag.is_grad_enabled():
                return False
            return any(t is not None and t._requires_grad for t in inputs)

        exercises.plug("01.result_requires_grad", result_requires_grad)
        '''), rule="a non-leaf input requires grad too"),
    Mistake(_RRG, "crashes on None inputs", _cell('''
        def result_requires_grad(*inputs):
            if not ag.is_grad_enabled():
                return False
            return any(t.requires_grad for t in inputs)

        exercises.plug("01.result_requires_grad", result_requires_grad)
        '''), rule="None entries are inputs that were left out"),
    Mistake(_RRG, "falls off the end: returns None instead of False", _cell('''
        def result_requires_grad(*inputs):
            if not ag.is_grad_enabled():
                return False
            for t in inputs:
                if t is not None and t.requires_grad:
                    return True

        exercises.plug("01.result_requires_grad", result_requires_grad)
        '''), rule="returns True or False (a bool)"),
    Mistake(_RRG, "looks at the first input only", _cell('''
        def result_requires_grad(*inputs):
            if not ag.is_grad_enabled() or not inputs or inputs[0] is None:
                return False
            return inputs[0].requires_grad

        exercises.plug("01.result_requires_grad", result_requires_grad)
        '''), rule="wherever it is"),

    # ------------------------------------------------------------ 01.is_leaf
    Mistake(_LEAF, "a leaf is a tensor that does not require grad", _cell('''
        def is_leaf(tensor):
            return not tensor.requires_grad

        exercises.plug("01.is_leaf", is_leaf)
        '''), rule="a tensor created by the user is a leaf, even when it requires grad"),
    Mistake(_LEAF, "only tensors that require grad can be leaves", _cell('''
        def is_leaf(tensor):
            return tensor.requires_grad and tensor.grad_fn is None

        exercises.plug("01.is_leaf", is_leaf)
        '''), rule="a tensor with requires_grad=False is always a leaf"),
    Mistake(_LEAF, "returns the grad_fn instead of a bool", _cell('''
        def is_leaf(tensor):
            return tensor.grad_fn

        exercises.plug("01.is_leaf", is_leaf)
        '''), rule="a tensor created by the user is a leaf"),
    Mistake(_LEAF, "confuses the leaf flag _requires_grad with being a leaf", _cell('''
        def is_leaf(tensor):
            return tensor._requires_grad

        exercises.plug("01.is_leaf", is_leaf)
        '''), rule="a tensor with requires_grad=False is always a leaf"),

    # ------------------------------------------------------------ 01.requires_grad_
    Mistake(_RG, "no leaf check: switches a non-leaf's flag off silently", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if requires_grad and not tensor.dtype.is_floating_point:
                raise RuntimeError("only Tensors of floating point dtype can require gradients")
            tensor._requires_grad = requires_grad
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        '''), rule="a non-leaf's requires_grad comes from its grad_fn: it cannot be turned off"),
    Mistake(_RG, "refuses every non-leaf, even requires_grad_(True)", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if tensor.grad_fn is not None:
                raise RuntimeError(
                    %s)
            if requires_grad and not tensor.dtype.is_floating_point:
                raise RuntimeError("only Tensors of floating point dtype can require gradients")
            tensor._requires_grad = requires_grad
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        ''' % _NON_LEAF_MESSAGE), rule="requires_grad_(True) on a non-leaf changes nothing and raises nothing"),
    Mistake(_RG, "no dtype check", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if tensor.grad_fn is not None:
                if not requires_grad:
                    raise RuntimeError(
                        %s)
                return tensor
            tensor._requires_grad = requires_grad
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        ''' % _NON_LEAF_MESSAGE), rule="only floating-point tensors can require gradients"),
    Mistake(_RG, "forgets to return the tensor", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if tensor.grad_fn is not None:
                if not requires_grad:
                    raise RuntimeError(
                        %s)
                return
            if requires_grad and not tensor.dtype.is_floating_point:
                raise RuntimeError("only Tensors of floating point dtype can require gradients")
            tensor._requires_grad = requires_grad

        exercises.plug("01.requires_grad_", requires_grad_)
        ''' % _NON_LEAF_MESSAGE), rule="requires_grad_ returns the tensor itself"),
    Mistake(_RG, "TypeError instead of RuntimeError for a non-floating dtype", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if tensor.grad_fn is not None:
                if not requires_grad:
                    raise RuntimeError(
                        %s)
                return tensor
            if requires_grad and not tensor.dtype.is_floating_point:
                raise TypeError("only Tensors of floating point dtype can require gradients")
            tensor._requires_grad = requires_grad
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        ''' % _NON_LEAF_MESSAGE), rule="only floating-point tensors can require gradients"),
    Mistake(_RG, "checks the dtype when turning the flag off too", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if tensor.grad_fn is not None:
                if not requires_grad:
                    raise RuntimeError(
                        %s)
                return tensor
            if not tensor.dtype.is_floating_point:
                raise RuntimeError("only Tensors of floating point dtype can require gradients")
            tensor._requires_grad = requires_grad
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        ''' % _NON_LEAF_MESSAGE), rule="turning requires_grad off is always allowed on a leaf, whatever its dtype"),
    Mistake(_RG, "goes through the requires_grad property setter", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            tensor.requires_grad = requires_grad
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        '''), rule="only floating-point tensors can require gradients"),
    Mistake(_RG, "can only switch the flag on", _cell('''
        def requires_grad_(tensor, requires_grad=True):
            if tensor.grad_fn is not None:
                if not requires_grad:
                    raise RuntimeError(
                        %s)
                return tensor
            if requires_grad:
                if not tensor.dtype.is_floating_point:
                    raise RuntimeError("only Tensors of floating point dtype can require gradients")
                tensor._requires_grad = True
            return tensor

        exercises.plug("01.requires_grad_", requires_grad_)
        ''' % _NON_LEAF_MESSAGE), rule="on a leaf, requires_grad_ sets the tensor's own flag"),

    # ------------------------------------------------------------ 01.detach
    Mistake(_DETACH, "copies the storage", _cell('''
        def detach(tensor):
            return ag.Tensor._make(tensor._data.copy(), tensor._version_counter)

        exercises.plug("01.detach", detach)
        '''), rule="detach shares storage with the original (no copy)"),
    Mistake(_DETACH, "a fresh version counter, like .data", _cell('''
        def detach(tensor):
            return ag.Tensor._make(tensor._data)

        exercises.plug("01.detach", detach)
        '''), rule="detach shares the original's version counter (unlike .data)"),
    Mistake(_DETACH, "copies the version number instead of sharing the counter", _cell('''
        def detach(tensor):
            new = ag.Tensor._make(tensor._data)
            new._version_counter.value = tensor._version
            return new

        exercises.plug("01.detach", detach)
        '''), rule="detach shares the original's version counter (unlike .data)"),
    Mistake(_DETACH, "keeps the grad_fn and the flag", _cell('''
        def detach(tensor):
            new = ag.Tensor._make(tensor._data, tensor._version_counter)
            new.grad_fn = tensor.grad_fn
            new._requires_grad = tensor._requires_grad
            return new

        exercises.plug("01.detach", detach)
        '''), rule="a detached tensor is a leaf that does not require grad"),
    Mistake(_DETACH, "copies requires_grad onto the new leaf", _cell('''
        def detach(tensor):
            new = ag.Tensor._make(tensor._data, tensor._version_counter)
            new._requires_grad = tensor.requires_grad
            return new

        exercises.plug("01.detach", detach)
        '''), rule="a detached tensor is a leaf that does not require grad"),
    Mistake(_DETACH, "detaches the original in place", _cell('''
        def detach(tensor):
            tensor.grad_fn = None
            tensor._requires_grad = False
            return tensor

        exercises.plug("01.detach", detach)
        '''), rule="detach returns a new tensor and leaves the original's graph alone"),
    Mistake(_DETACH, "builds a new tensor from the values (a copy)", _cell('''
        def detach(tensor):
            return ag.tensor(tensor._data)

        exercises.plug("01.detach", detach)
        '''), rule="detach shares storage with the original (no copy)"),
]
