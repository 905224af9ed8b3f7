"""Full backward hooks of ``nn.Module``: code that runs when a module's gradients are computed.

* ``module.register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` runs when
  the gradients w.r.t. the module's outputs are known; it may return a replacement tuple;
* ``module.register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)``
  runs when the gradients w.r.t. its positional inputs are known too; it may return a
  replacement for ``grad_input``.

As PyTorch does it: when hooks are registered, ``module(x)`` passes its tensor inputs, and
then its tensor outputs, through an identity :class:`BackwardHookFunction` (so the outputs'
``grad_fn`` is a ``BackwardHookFunctionBackward``).  The output node captures ``grad_output``
(and runs the pre-hooks); the input node, reached once every use of the outputs has sent
its gradient, runs the hooks with both.  Entries are None for non-tensor arguments (and for
outputs that got no gradient).  The hooks are the ones registered when the module was called.
"""

import os
import sys
import warnings

from ..autograd.function import Function
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["BackwardHookFunction", "BackwardHook"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BackwardHookFunction(Function):
    """The identity on tensors; its node is where the module's backward hooks run."""

    @staticmethod
    def forward(ctx, *args):
        # The inputs returned as they are: Function.apply hands the caller a view of each.
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        hook = ctx._input_hook      # set on the node of a module's inputs (PyTorch: a post hook)
        if hook is None:
            return grads
        result = hook(grads)
        return grads if result is None else result


BackwardHookFunction._backward_cls._input_hook = None


def _user_stacklevel():
    """The ``stacklevel`` that points a warning at the first frame outside this library
    (the user's ``loss.backward()``), as PyTorch's does."""
    level, frame = 1, sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    return level + 1


def _spread(positions, values, size):
    """A tuple of ``size`` entries: ``values`` at ``positions``, None elsewhere."""
    spread = [None] * size
    for position, value in zip(positions, values):
        spread[position] = value
    return tuple(spread)


def _replaced_by(hooks, call, grads, wrong_length):
    """``grads`` after each hook in turn, ``call(hook, grads)``, may replace it (None: no
    change); a replacement of another length is PyTorch's error ``wrong_length``."""
    for hook in hooks:
        replaced = call(hook, grads)
        if replaced is None:
            continue
        if len(replaced) != len(grads):
            raise RuntimeError(f"{wrong_length}, got {len(replaced)}, but expected {len(grads)}")
        grads = replaced
    return grads


class BackwardHook:
    """The backward hooks of one call of a module.

    Forward: :meth:`setup_input_hook` and :meth:`setup_output_hook` pass the call's
    tensors through :class:`BackwardHookFunction` and hook the two nodes.  Backward: the
    outputs' node comes first and keeps ``grad_output`` (after the pre-hooks); the inputs'
    node then runs the hooks with ``(grad_input, grad_output)``.
    """

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_output = None                   # set at the outputs' node, used at the inputs'
        self.input_positions = self.output_positions = None   # where the tensors are in args
        self.input_count = self.output_count = 0

    @classmethod
    def of(cls, module, hooks, pre_hooks):
        """The wiring of one call of ``module`` with the backward hooks and pre-hooks registered
        now (``(hook, with_kwargs)`` pairs, global ones first); None (checked on every call, so
        kept cheap) when there are none."""
        if not hooks and not pre_hooks:
            return None
        return cls(module, [h for h, _ in hooks], [h for h, _ in pre_hooks])

    # ------------------------------------------------------------ forward: wiring

    def setup_input_hook(self, args):
        args, self.input_positions = self._through_identity(args, self._at_inputs)
        self.input_count = len(args)
        return args

    def setup_output_hook(self, result):
        several = isinstance(result, tuple)
        outputs, self.output_positions = self._through_identity(
            result if several else (result,), self._at_outputs)
        self.output_count = len(outputs)
        return outputs if several else outputs[0]

    def _through_identity(self, args, hook):
        """``args`` with its tensors replaced by their pass through BackwardHookFunction, whose
        node calls ``hook``; and the tensors' positions (None: no tensor needs a gradient)."""
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        if not is_grad_enabled() or not any(args[i].requires_grad for i in positions):
            return args, None
        passed = BackwardHookFunction.apply(*(args[i] for i in positions))
        node = next(t.grad_fn for t in passed if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward")
        if hook == self._at_inputs:
            node._input_hook = hook               # its return value replaces the gradients
        else:
            node.register_prehook(hook)
        new_args = list(args)
        for i, tensor in zip(positions, passed):
            new_args[i] = tensor
        return (tuple(new_args) if type(args) is tuple else type(args)(*new_args)), positions

    # ----------------------------------------------------------- backward: the hooks

    def _at_outputs(self, grads):
        """The outputs' gradients have arrived: the pre-hooks may replace them.  When no input
        requires grad, the hooks run here too (grad_input all None), as PyTorch's do."""
        grad_output = _replaced_by(self.pre_hooks, lambda hook, g: hook(self.module, g),
                                   _spread(self.output_positions, grads, self.output_count),
                                   "Backward pre hook returned an invalid number of grad_output")
        self.grad_output = grad_output
        if self.input_positions is None:
            self._hooks_without_inputs()
        return tuple(grad_output[i] for i in self.output_positions)

    def _hooks_without_inputs(self):
        warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                      "module outputs since no inputs require gradients. See "
                      "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                      "#torch.nn.Module.register_full_backward_hook for more details.",
                      stacklevel=_user_stacklevel())
        nothing = (None,) * self.input_count
        for hook in self.hooks:
            returned = hook(self.module, nothing, self.grad_output)
            if returned is not None and not (isinstance(returned, tuple)
                                             and all(g is None for g in returned)):
                raise RuntimeError("Backward hook for Modules where no input requires "
                                   "gradient should always return None or None for all gradients.")
        self.grad_output = None

    def _at_inputs(self, grads):
        """The inputs' gradients are known: the hooks may replace them (None: no change)."""
        if self.grad_output is None:              # reached without passing through the outputs
            return None
        grad_input = _replaced_by(self.hooks, lambda hook, g: hook(self.module, g, self.grad_output),
                                  _spread(self.input_positions, grads, self.input_count),
                                  "Backward hook returned an invalid number of grad_input")
        self.grad_output = None
        return tuple(grad_input[i] for i in self.input_positions)
