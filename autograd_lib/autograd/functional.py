"""``backward`` and ``grad``: check the arguments the way PyTorch does, then run the engine.

``Tensor.backward`` is installed here: ``t.backward()`` is ``autograd.backward(t)``.
"""

import warnings

from ..creation import ones_like, zeros_like
from ..engine import run_backward
from ..grad_mode import enable_grad
from ..tensor import Tensor

__all__ = ["backward", "grad", "hvp"]


def _as_tuple(x):
    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return ()
    return tuple(x)


def initial_gradients(outputs, grad_outputs):
    """The gradients backward starts from, one per output: the given tensor (checked
    against the output's shape), or an implicit 1 for a single-element output.

    (Exercise 03.initial_gradients.)"""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            # Only an output that requires grad is checked here: for any other, backward
            # then says that it "does not require grad" (_check_requires_grad).
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(ones_like(out))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        if g.dtype.is_floating_point != out.dtype.is_floating_point:
            raise TypeError(f"For complex Tensors, both grad_output and output are required to have "
                            f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                            f"{g.dtype} and output[{i}] has a dtype of {out.dtype}.")
        grads.append(g)
    return grads


def _check_count(outputs, grads):
    # As PyTorch: too few gradients is an error; extra ones are ignored (zip).
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")


def _check_requires_grad(outputs):
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (or only into ``inputs``'s)."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if isinstance(grad_tensors, tuple) and len(grad_tensors) == 0:
        grad_tensors = (None,) * len(tensors)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    inputs = _as_tuple(inputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(t).__name__}")
        if t.grad_fn is not None:
            t.retain_grad()         # as PyTorch: a non-leaf input gets its .grad this way
    if retain_graph is None:
        retain_graph = create_graph
    _check_count(tensors, grad_tensors)
    grads = initial_gradients(tensors, grad_tensors)
    _check_requires_grad(tensors)
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this function, "
            "make sure to reset the .grad fields of your parameters to None after use to break the "
            "cycle and avoid the leak.", UserWarning, stacklevel=3)
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor w.r.t. the graph leaves (see autograd.backward)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """d(outputs)/d(inputs), returned as a tuple; ``.grad`` fields are left alone."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("grad requires non-empty inputs.")
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if allow_unused is None:
        allow_unused = materialize_grads
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    _check_count(outputs, grad_outputs)
    grads = initial_gradients(outputs, grad_outputs)
    _check_requires_grad(outputs)
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                g = zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the desired "
                                   "behavior.")
        elif not create_graph:
            g = g.detach()
        out.append(g)
    return tuple(out)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian of scalar ``func`` at ``inputs`` times ``v``, without forming the
    Hessian: differentiate the gradient (built with ``create_graph=True``) once
    more, with ``v`` as its upstream gradient.  Returns ``(func(inputs), H @ v)``,
    as ``torch.autograd.functional.hvp``.  (Exercise 06.hvp.)"""
    single = isinstance(inputs, Tensor)
    # With create_graph the result must stay connected to the caller's inputs
    # (a view keeps the history); otherwise work on fresh leaves.
    inputs = tuple(x.view(x.shape) if create_graph and x.requires_grad
                   else x.detach().requires_grad_(True) for x in _as_tuple(inputs))
    vs = _as_tuple(v) if v is not None else ()
    if v is None and not (len(inputs) == 1 and inputs[0].numel() == 1):
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    with enable_grad():
        output = func(*inputs)
        if not isinstance(output, Tensor) or output.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hvp should contain "
                               "a single element")
        if strict and not output.requires_grad:
            raise RuntimeError("Output 0 of the user-provided function does not require gradients. "
                               "The outputs must be computed in a differentiable manner from the "
                               "input when running in strict mode.")
        first = grad(output, inputs, create_graph=True, allow_unused=True)
        for i, g in enumerate(first):
            if strict and (g is None or not g.requires_grad):
                raise RuntimeError(
                    f"While computing the hessian, found that the jacobian of the user-provided "
                    f"function with respect to input {i} is independent of the input. This is not "
                    f"allowed in strict mode. You should ensure that your function is twice "
                    f"differentiable and that the jacobian depends on the inputs (this would be "
                    f"violated by a linear function for example).")
        used = [(g, x, w) for g, x, w in zip(first, inputs, vs or [None] * len(inputs))
                if g is not None and g.requires_grad]
        second = grad([g for g, _, _ in used], [x for _, x, _ in used],
                      grad_outputs=[w for _, _, w in used] if vs else None,
                      create_graph=create_graph, allow_unused=True) if used else ()
    by_input = {id(x): h for (_, x, _), h in zip(used, second)}
    result = tuple(by_input.get(id(x)) if by_input.get(id(x)) is not None else zeros_like(x)
                   for x in inputs)
    if not create_graph:
        output = output.detach()
        result = tuple(h.detach() for h in result)
    return output, (result[0] if single else result)
