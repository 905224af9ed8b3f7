"""``checkpoint``: activation checkpointing, as ``torch.utils.checkpoint``.

A checkpointed piece of a model keeps none of its intermediate results for backward: they
are recomputed when backward needs them.  Memory is traded for compute.  PyTorch has two
ways, and so has this module:

* ``use_reentrant=True``: ``function`` runs under ``no_grad`` and a single node records it,
  ``CheckpointFunctionBackward``, which saves only the tensor arguments.  When backward
  reaches that node it runs ``function`` again, this time recording, on detached copies of
  the saved arguments, and back-propagates through that fresh graph with a backward pass of
  its own (a *reentrant* backward: the engine runs inside one of its nodes).  The node is a
  custom :class:`~autograd_lib.autograd.Function`, :class:`CheckpointFunction`; its
  ``forward`` and ``backward`` are the course's exercises ``06.checkpoint_forward`` and
  ``06.checkpoint_backward`` (slots of ``autograd_lib.exercises``).
* ``use_reentrant=False`` (PyTorch recommends it): ``function`` records its own graph, but
  every tensor its nodes save is replaced by an empty holder and recomputed when backward
  first needs one (``checkpoint_hooks.py``, saved-tensor hooks).  ``autograd.grad``,
  ``backward(inputs=...)``, keyword arguments for ``function``, ``context_fn`` and nested
  checkpoints work; a recomputation that saves other tensors than the forward pass raises
  :class:`CheckpointError`.

As in PyTorch:

* ``use_reentrant`` not given: a ``UserWarning`` (pass it explicitly), then the
  reentrant version;
* ``preserve_rng_state=True`` (the default): the random generator's state of the
  forward pass is restored for the recomputation, so random ops (``rand``,
  ``randn``, dropout masks) draw the same numbers again, and the caller's generator
  is left as it was;
* the reentrant version refuses ``autograd.grad`` and ``backward(inputs=...)``, and warns
  when no argument requires grad (gradients will be None; parameters the function reaches
  through a closure get none either);
* :func:`checkpoint_sequential` checkpoints a sequence of modules in segments.

``debug=True`` is accepted, but autograd_lib logs no operators: its errors are the same.
"""

import contextlib
import warnings

from .. import creation as _creation
from .. import engine as _engine
from ..autograd.function import Function
from ..autograd.functional import backward as _autograd_backward
from ..creation import zeros_like
from ..grad_mode import enable_grad, is_grad_enabled, no_grad
from ..nn.container import Sequential
from ..tensor import Tensor
from .checkpoint_hooks import CheckpointError, Frame, checkpoint_hooks, metadata

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "CheckpointError", "detach_variable",
           "check_backward_validity", "checkpoint_valid", "get_rng_state", "set_rng_state", "fork_rng",
           "noop_context_fn", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]

USE_REENTRANT_WARNING = (
    "autograd_lib.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
    "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
    "is recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two variants.")
NO_GRAD_INPUTS_WARNING = "None of the inputs have requires_grad=True. Gradients will be None"
NOT_VALID_MESSAGE = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
    "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
    "or call .backward() without passing the `inputs` argument.")
NO_OUTPUT_MESSAGE = "none of output has requires_grad=True, this checkpoint() is not necessary"
SEQUENTIAL_WARNING = (
    "autograd_lib.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
    "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. "
    "Refer to docs for more details on the differences between the two variants.")
SUPPRESSED_MESSAGE = (
    "autograd_lib.utils.checkpoint: the forward context provided by context_fn suppressed an exception raised during "
    "the checkpointed forward. This is not supported because checkpoint cannot return a value for a failed "
    "forward.")


# ------------------------------------------------------------ the random generator

def get_rng_state():
    """The state of the default random generator (the one ``manual_seed`` seeds)."""
    return _creation._generator.get_state()


def set_rng_state(state):
    """Put the default random generator back in a state from :func:`get_rng_state`."""
    _creation._generator.set_state(state)


@contextlib.contextmanager
def fork_rng(enabled=True):
    """Inside the block, random ops may draw as they like: on leaving it, the default
    generator is back in the state it had on entering (as ``torch.random.fork_rng``)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


# ------------------------------------------------------------ helpers of CheckpointFunction

def detach_variable(inputs):
    """A tuple: each tensor of ``inputs`` detached (a new leaf sharing its storage) and
    requiring grad exactly when the original does; anything else as it is."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    copies = []
    for item in inputs:
        if isinstance(item, Tensor):
            copy = item.detach()
            copy.requires_grad = item.requires_grad
            item = copy
        copies.append(item)
    return tuple(copies)


def check_backward_validity(inputs):
    """Warn, as PyTorch, when no tensor among ``inputs`` requires grad."""
    if not any(isinstance(item, Tensor) and item.requires_grad for item in inputs):
        warnings.warn(NO_GRAD_INPUTS_WARNING, UserWarning, stacklevel=3)


def checkpoint_valid():
    """Whether a reentrant checkpoint may run its backward now: not inside ``autograd.grad``
    or ``backward(inputs=...)``, whose pruned graph would not reach the recomputed one."""
    return not _engine.running_with_inputs()


# ------------------------------------------------------------ the Function

class CheckpointFunction(Function):
    """The node of ``checkpoint(..., use_reentrant=True)``: its grad_fn is a
    ``CheckpointFunctionBackward``.  ``CheckpointFunction.apply(function,
    preserve_rng_state, *args)``.

    ``forward`` and ``backward`` are plain functions of the class (``apply`` calls
    them on the class, so they work as PyTorch's static methods do); they are the
    exercises ``06.checkpoint_forward`` and ``06.checkpoint_backward``."""

    def forward(ctx, run_function, preserve_rng_state, *args):
        """Run ``run_function(*args)`` without recording and keep in ``ctx`` what backward
        needs: ``ctx.run_function``; ``ctx.rng_state``, the generator's state before the
        run (None unless ``preserve_rng_state``); the tensor arguments, saved with
        ``ctx.save_for_backward``; ``ctx.inputs``, the arguments with None in place of
        each tensor; ``ctx.tensor_indices``, the positions of the tensors."""
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.tensor_indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        ctx.inputs = [None if isinstance(arg, Tensor) else arg for arg in args]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    def backward(ctx, *grad_outputs):
        """Run the function again, recording, on detached copies of the saved arguments
        (with the forward pass's random numbers), back-propagate ``grad_outputs`` through
        that graph, and return the copies' gradients: ``(None, None, *one per argument)``
        (None for the function, the flag, and every argument that is not a tensor)."""
        if not checkpoint_valid():
            raise RuntimeError(NOT_VALID_MESSAGE)
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = tensor
        with fork_rng(enabled=ctx.rng_state is not None):
            if ctx.rng_state is not None:
                set_rng_state(ctx.rng_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        recomputed, grads = [], []
        for output, grad in zip(outputs, grad_outputs):
            if isinstance(output, Tensor) and output.requires_grad:
                recomputed.append(output)
                grads.append(zeros_like(output) if grad is None else grad)
        if not recomputed:
            raise RuntimeError(NO_OUTPUT_MESSAGE)
        _autograd_backward(recomputed, grads)
        return (None, None) + tuple(item.grad if isinstance(item, Tensor) else None for item in detached)


# ------------------------------------------------------------ the functions

def noop_context_fn():
    """The default ``context_fn``: no context around the forward pass or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


class _Settings:
    early_stop = None               # set_checkpoint_early_stop's value, when inside it
    debug = None                    # set_checkpoint_debug_enabled's


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Inside the block, non-reentrant checkpoints stop their recomputation early or not
    (``early_stop=`` of each call is overridden)."""
    previous, _Settings.early_stop = _Settings.early_stop, enable
    try:
        yield
    finally:
        _Settings.early_stop = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """``debug=`` for every checkpoint inside the block (None: each call's own)."""
    previous, _Settings.debug = _Settings.debug, enabled
    try:
        yield
    finally:
        _Settings.debug = previous


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` without keeping its intermediate results for backward: they
    are recomputed when backward needs them (``torch.utils.checkpoint.checkpoint``).

    ``preserve_rng_state=True`` (keyword): recompute with the forward pass's random numbers.
    ``use_reentrant``: which of PyTorch's two ways (module docstring); ``None`` warns and means
    ``True``.  ``context_fn``, ``determinism_check`` (``"default"`` or ``"none"``), ``debug`` and
    ``early_stop`` are the non-reentrant way's; keyword arguments other than
    ``preserve_rng_state`` go to ``function`` there, and are refused by the reentrant way."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        check_backward_validity(args)
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop,
                                         args, kwargs)


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop, args,
                                  kwargs):
    """Run ``function`` under the hooks of a new :class:`Frame` (``checkpoint_hooks.py``)."""
    if (_Settings.debug if _Settings.debug is not None else debug) and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    checks = {"default": metadata, "none": None}
    if determinism_check not in checks:
        raise ValueError(f"determinism_check should be one of {list(checks)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    state = get_rng_state() if preserve else None

    def recompute(*inputs):
        with fork_rng(enabled=preserve):
            if preserve:
                set_rng_state(state)
            with recompute_context:
                function(*inputs, **kwargs)

    if not is_grad_enabled():                   # nothing will be saved: just run it
        return function(*args, **kwargs)
    stop = _Settings.early_stop if _Settings.early_stop is not None else early_stop
    frame = Frame(recompute, stop, checks[determinism_check])
    frame.save_inputs(args)
    failed = False
    with checkpoint_hooks(frame), forward_context:
        try:
            output = function(*args, **kwargs)
        except BaseException:
            failed = True
            raise
    if failed:                                  # the forward context swallowed the error
        raise RuntimeError(SUPPRESSED_MESSAGE)
    frame.forward_completed = True
    return output


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list of modules or functions, or an ``nn.Sequential``) one after the
    other on ``input``, split into ``segments`` pieces, each checkpointed but the last
    (``torch.utils.checkpoint.checkpoint_sequential``); ``preserve_rng_state`` as in
    :func:`checkpoint`."""
    if use_reentrant is None:
        warnings.warn(SEQUENTIAL_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
