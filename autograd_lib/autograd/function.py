"""Custom differentiable operations: subclass :class:`Function`.

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x ** 2

    y = Cube.apply(x)          # y.grad_fn is a CubeBackward node

As in PyTorch, ``forward`` runs with recording off, the node *is* the ``ctx``
(so ``y.grad_fn.saved_tensors`` works), saved tensors are version-checked and
freed after backward, and ``backward`` returns one gradient per ``forward``
input (None for inputs that need none).
"""

import functools
import inspect
import warnings

from .. import graph as _graph
from ..creation import zeros
from ..grad_mode import is_grad_enabled, no_grad
from ..graph import FREED_MESSAGE, Node, SavedTensor, type_name
from ..tensor import Tensor
from ..ops.inplace import CopySlices, move_retain_grad
from ..views import IN_CUSTOM_FUNCTION, make_view, positions_in_base, regenerate_grad_fn, same_layout

__all__ = ["Function", "FunctionCtx", "once_differentiable", "Error"]

# PyTorch's refusals of what a backward returned (function_gradients formats them).
WRONG_COUNT = "function {name} returned an incorrect number of gradients (expected {expected}, got {got})"
NOT_AN_INPUT = ("function {name} returned a gradient different than None at position {position}, "
                "but the corresponding forward input was not a Variable")
NOT_A_GRADIENT = "expected Variable or None (got {type})"


def function_gradients(name, grads, arg_is_tensor):
    """The gradients a custom Function's node passes on, from what its ``backward`` returned.

    Args:
        name: the node's name (``"CubeBackward"``), for the error messages.
        grads: what ``backward`` returned: a tuple with one gradient per argument of
            ``forward`` (a tensor or None), or a single gradient when it returned one.
        arg_is_tensor: one bool per argument of ``forward``: was it a tensor?
    Returns:
        A list with one gradient per tensor argument, in order.
    Raises:
        RuntimeError: too few gradients, or extra ones that are not None (WRONG_COUNT);
            a gradient that is not None for an argument that is not a tensor
            (NOT_AN_INPUT, its position counted from 1); a gradient that is neither a
            tensor nor None (NOT_A_GRADIENT). Positions are checked in order.
    (Exercise 06.function_gradients.)
    """
    grads = grads if isinstance(grads, tuple) else (grads,)   # a list is one gradient too
    expected = len(arg_is_tensor)
    if len(grads) < expected or any(g is not None for g in grads[expected:]):
        raise RuntimeError(WRONG_COUNT.format(name=name, expected=expected, got=len(grads)))
    passed_on = []
    for position, (grad, is_tensor) in enumerate(zip(grads, arg_is_tensor), start=1):
        if not is_tensor:
            if grad is not None:
                raise RuntimeError(NOT_AN_INPUT.format(name=name, position=position))
        elif grad is not None and not isinstance(grad, Tensor):
            raise RuntimeError(NOT_A_GRADIENT.format(type=type_name(grad)))
        else:
            passed_on.append(grad)
    return passed_on


class FunctionCtx:
    """What ``forward`` and ``backward`` share."""

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):     # (not tensors.index(t): == on tensors is elementwise)
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(None if s is None else s.unpack(self) for s in self._saved_list)

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = {id(t) for t in tensors}

    def mark_dirty(self, *tensors):
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        self._materialize = bool(value)


class _FunctionNode(Node, FunctionCtx):
    """Base of every ``<Name>Backward`` node made by ``Function.apply``."""
    _function = None
    saved_tensors = FunctionCtx.saved_tensors     # the ctx's tuple, not Node's dict by name

    def __repr__(self):                           # as PyTorch: the node's class by its module
        return f"<autograd_lib.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def __init__(self):
        super().__init__()
        self._to_save = ()
        self._saved_list = ()
        self._non_differentiable = set()
        self._dirty = set()
        self._materialize = True
        self.needs_input_grad = ()

    def release_saved(self):
        # As PyTorch: once released, saved_tensors raises even when nothing was saved.
        self._saved_list = ()
        self._freed = True

    def materialize_grads(self, grads):
        if not self._materialize:
            return grads
        # A non-tensor output (dtype None) has no gradient to fill in: it stays None.
        return [zeros(shape, dtype=dtype) if g is None and dtype is not None else g
                for g, (shape, dtype) in zip(grads, self._output_meta)]

    def apply(self, grad_outputs):
        if self._materialize:             # inside the node, as PyTorch: hooks see None
            grad_outputs = self.materialize_grads(grad_outputs)
        grads = self._function.backward(self, *grad_outputs)
        tensor_grads = function_gradients(self.name(), grads, self._arg_is_tensor)
        # An input that needs no gradient has the edge (None, 0): nothing flows there.
        out = [g if next_node is not None else None for g, (next_node, _) in zip(tensor_grads, self.next_functions)]
        return out


class _FunctionMeta(type):
    """Gives each Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (_FunctionNode,), {"_function": cls})


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """PyTorch's second style: ``forward(*inputs)`` computes without a ctx, then
        ``setup_context(ctx, inputs, output)`` saves what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def _separate_setup_context(cls):
        return cls.setup_context is not Function.setup_context

    def __init__(self, *args, **kwargs):
        # As PyTorch: making an instance only warns; calling it is the error.
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. Instantiating "
                      "an autograd function will raise an error in a future version of PyTorch.",
                      DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls._separate_setup_context():       # as PyTorch: keywords and defaults bound first
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        node = cls._backward_cls()
        # A tensor passed by keyword is an input too, after the positional ones (as PyTorch).
        tensor_args = [a if isinstance(a, Tensor) else None for a in (*args, *kwargs.values())]
        node.needs_input_grad = tuple(a is not None and a.requires_grad for a in tensor_args)
        with no_grad():
            if cls._separate_setup_context():       # forward(*args), then setup_context(ctx, ...)
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        record = is_grad_enabled() and any(node.needs_input_grad)
        _check_dirty(node, outputs, record)
        if record:
            # The inputs' edges first: an input returned as a dirty output (mark_dirty) gets
            # this node as its grad_fn below, and its edge must stay its old history.
            inputs = [a for a in tensor_args if a is not None]    # non-tensor args have no edge
            edges = tuple(a._gradient_edge() for a in inputs)
        results = []
        for i, out in enumerate(outputs):
            if not isinstance(out, Tensor):
                results.append(out)
                continue
            # What forward marked is known by the tensor it returned, before any replacement.
            dirty, differentiable = id(out) in node._dirty, id(out) not in node._non_differentiable
            returned = next((a for a in tensor_args if a is out), None)
            if returned is not None and returned.requires_grad and not (record and differentiable):
                out = Tensor._make(out._data, out._version_counter)   # torch: an alias without history
            elif returned is not None and not dirty:
                out = make_view(out._data, returned, same_layout)     # a view of the input, as torch
            if out._base is not None and not dirty:     # writing into it would bypass the custom backward
                out._creation_meta = IN_CUSTOM_FUNCTION
            if record and differentiable and out.dtype.is_floating_point:
                out.grad_fn, out._output_nr = node, i
                if dirty and out._base is not None:
                    _rebase_dirty_view(out, node)
            results.append(out)
        if record:
            node._arg_is_tensor = tuple(a is not None for a in tensor_args)
            node.next_functions = edges
            node._input_meta = tuple((a._data.shape, a._data.dtype) for a in inputs)
            node.num_outputs = len(outputs)
            node._output_meta = [(o.shape, o.dtype) if isinstance(o, Tensor) else ((), None)
                                 for o in results]
            saved = []
            for t in node._to_save:
                if t is None:
                    saved.append(None)
                elif any(t is o for o in results):
                    alias = Tensor._make(t._data, t._version_counter)
                    alias._output_nr = t._output_nr
                    saved.append(SavedTensor(alias, is_output=True, output=t))
                else:
                    saved.append(SavedTensor(t))
            node._saved_list = tuple(saved)
        node._to_save = ()
        return results[0] if single else tuple(results)


def _check_dirty(node, outputs, record):
    """The inputs a forward marked dirty (``ctx.mark_dirty``): each must be returned, and
    none may be a leaf that requires grad while recording; each counts one more write,
    as PyTorch counts them."""
    if not node._dirty:
        return
    returned = {id(o) for o in outputs if isinstance(o, Tensor)}
    if not node._dirty <= returned:
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                           "output. The inputs that are modified inplace must all be outputs of the Function.")
    for out in outputs:
        if isinstance(out, Tensor) and id(out) in node._dirty:
            _graph.increment_version(out)                   # before the check, as PyTorch
            if record and out.requires_grad and out.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")


def _rebase_dirty_view(view, node):
    """A view that ``forward`` modified in place (``mark_dirty``) changed its base too: as
    for an in-place op on a view, the base's history becomes a CopySlices wrapping ``node``
    (which, as PyTorch assumes, takes the view as its first input) and the view gets its
    grad_fn from that new history (AsStridedBackward0)."""
    base, key = view._base, positions_in_base(view)
    copy_slices = CopySlices.wrapping(node, key, base._gradient_edge(),
                                      (base._data.shape, base._data.dtype))
    move_retain_grad(base, copy_slices)
    base.grad_fn, base._output_nr = copy_slices, 0
    regenerate_grad_fn(view, key)


ONCE_DIFFERENTIABLE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


class Error(Node):
    """The node PyTorch puts on the gradients of a ``@once_differentiable`` backward run with
    ``create_graph=True`` (its ``DelayedError``): the gradients require grad, as they would
    without the decorator, but differentiating them raises instead of silently giving a
    gradient that ignores the backward's own dependence on its inputs.  Its inputs are
    detached copies of the gradients, leaves that require grad, so the graph behind the
    gradients ends here."""

    def apply(self, grad_outputs):
        raise RuntimeError(ONCE_DIFFERENTIABLE_MESSAGE)


def _delayed_error(gradients):
    """``gradients`` (a tensor, None, or a tuple of them) as the outputs of one :class:`Error`
    node, each input a leaf that requires grad holding the same values."""
    single = not isinstance(gradients, tuple)
    gradients = (gradients,) if single else gradients
    leaves = []
    for g in gradients:
        if isinstance(g, Tensor):
            g = g.detach()
            g.requires_grad = True
        leaves.append(g)
    node = Error()
    node.next_functions = tuple(g._gradient_edge() if isinstance(g, Tensor) else (None, 0) for g in leaves)
    node._input_meta = tuple((g._data.shape, g._data.dtype) if isinstance(g, Tensor) else None for g in leaves)
    node.num_outputs = len(leaves)
    outputs = []
    for i, g in enumerate(leaves):
        if isinstance(g, Tensor):
            g = Tensor._make(g._data)
            g.grad_fn, g._output_nr = node, i
        outputs.append(g)
    return outputs[0] if single else tuple(outputs)


def once_differentiable(backward):
    """Decorate a ``Function.backward`` that is not itself differentiable: it runs with
    recording off.  As PyTorch's decorator: when recording is on (``create_graph=True``)
    and a gradient it was given requires grad, its results come back requiring grad
    through an :class:`Error` node, which raises if a later backward reaches it."""
    @functools.wraps(backward)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = backward(ctx, *args)
        if not is_grad_enabled() or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        return _delayed_error(outputs)
    return wrapper
