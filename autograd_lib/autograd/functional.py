"""``backward`` and ``grad``: check the arguments the way PyTorch does, then run the engine.

``Tensor.backward`` is installed here: ``t.backward()`` is ``autograd.backward(t)``.
"""

import warnings

from ..creation import ones_like, zeros_like
from ..engine import run_backward
from ..grad_mode import enable_grad
from ..ops.shape import stack
from ..tensor import Size, Tensor

__all__ = ["backward", "grad", "hvp", "jacobian", "hessian", "vjp", "jvp", "vhp"]


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
        # PyTorch refuses only a complex/real mismatch (autograd_lib has no complex dtype):
        # any other dtype is fine, the engine casts it to the output's (run_backward).
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
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d(outputs)/d(inputs), returned as a tuple; ``.grad`` fields are left alone.

    ``is_grads_batched=True``: the first dim of each ``grad_outputs`` tensor is a batch of
    vectors, and each result gets that dim too (PyTorch vmaps one backward pass over the
    batch; here it is one pass per vector, the graph retained until the last)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To "
                      "accumulate gradient for other parts of the graph, please use "
                      "autograd_lib.autograd.backward.", FutureWarning, stacklevel=2)
    if allow_unused is None:
        allow_unused = materialize_grads
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    _check_count(outputs, grad_outputs)
    if is_grads_batched:
        batches = _batched_gradients(outputs, grad_outputs)
    else:
        batches = [initial_gradients(outputs, grad_outputs)]
    _check_requires_grad(outputs)
    for t in inputs:                    # after the outputs' check, as PyTorch
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    results = [run_backward(outputs, grads, retain_graph or i + 1 < len(batches), create_graph,
                            inputs=inputs, accumulate=False) for i, grads in enumerate(batches)]
    if is_grads_batched:                # one tensor per input, the batch first (None: unused)
        result = [None if all(g is None for g in per_input) else
                  stack([zeros_like(t) if g is None else g for g in per_input])
                  for t, per_input in zip(inputs, zip(*results))]
    else:
        result = results[0]
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


def _batched_gradients(outputs, grad_outputs):
    """For ``is_grads_batched=True``: the starting gradients of each backward pass, one list
    per vector of the batch (the first dim of each ``grad_outputs`` tensor)."""
    sizes = set()
    for i, out in enumerate(outputs):
        g = grad_outputs[i]
        if not isinstance(g, Tensor):
            raise RuntimeError("is_grads_batched=True needs a grad_output tensor for every output")
        if g.shape[1:] != out.shape:
            # The shape shown is PyTorch's: that of one vector without its first dim.
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                "shape of corresponding output, but a mismatch was detected: grad_output["
                f"{i}] has a shape of {Size(g.shape[2:])} and output[{i}] has a shape of {out.shape}. If "
                "you only want some tensors in `grad_output` to be considered batched, consider "
                "using vmap.")
        sizes.add(g.shape[0])
    if len(sizes) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, "
                         f"got sizes {sorted(sizes)} for the mapped dimension")
    return [initial_gradients(outputs, [g[b] for g in grad_outputs])
            for b in range(sizes.pop() if sizes else 0)]


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


# --------------------------------------------- jacobian, hessian, vjp, jvp, vhp
# PyTorch's torch.autograd.functional, with vectorize=False semantics: the Jacobian is
# built a row at a time, one backward pass per output element.

def _tuple_of_tensors(x, what, fn_name):
    """``(is_tuple, tensors)``, refusing anything but a Tensor or a tuple of Tensors."""
    if isinstance(x, Tensor):
        return False, (x,)
    if isinstance(x, tuple) and all(isinstance(t, Tensor) for t in x):
        return True, x
    if what == "inputs":
        raise TypeError(f"The inputs given to {fn_name} must be either a Tensor or a tuple of "
                        f"Tensors but the given inputs has type {type(x)}.")
    raise TypeError(f"The outputs of the user-provided function given to {fn_name} must be "
                    f"either a Tensor or a tuple of Tensors but the given outputs of the "
                    f"user-provided function has type {type(x)}.")


def _prepare(inputs, create_graph):
    """Inputs to differentiate: with create_graph a view keeps the caller's history,
    otherwise fresh leaves that require grad (PyTorch's ``_grad_preprocess``)."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad else
                 x.detach().requires_grad_(True) for x in inputs)


def _strict_output_check(outputs, strict):
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require "
                                   "gradients. The outputs must be computed in a differentiable "
                                   "manner from the input when running in strict mode.")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for one input and one output, a tensor of
    shape ``output.shape + input.shape``; a tuple per input and/or per output otherwise.
    ``vectorize=True`` gives the same numbers (there is no vmap here); forward-mode is
    computed in reverse mode."""
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    with enable_grad():
        is_inputs_tuple, inputs = _tuple_of_tensors(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _tuple_of_tensors(outputs, "outputs", "jacobian")
        _strict_output_check(outputs, strict)
        jacobians = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                if flat.requires_grad:
                    grads = grad(flat[j], inputs, retain_graph=True, create_graph=create_graph,
                                 allow_unused=True)
                else:
                    grads = (None,) * len(inputs)
                for k, (g, x) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict and create_graph and not x.requires_grad:
                            continue
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode.")
                        g = zeros_like(x)
                    rows[k].append(g)
            jacobians.append(tuple(
                stack(rows[k]).view(out.shape + x.shape) if rows[k] else
                x.new_zeros(out.shape + x.shape) for k, x in enumerate(inputs)))
    if not create_graph:
        jacobians = [tuple(j.detach() for j in row) for row in jacobians]
    if not is_outputs_tuple:
        return jacobians[0] if is_inputs_tuple else jacobians[0][0]
    return tuple(row if is_inputs_tuple else row[0] for row in jacobians)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``: the Jacobian of its gradient
    (``input.shape + input.shape``; a tuple of tuples for several inputs)."""
    is_inputs_tuple, inputs = _tuple_of_tensors(inputs, "inputs", "hessian")

    def single_output(*xs):
        out = func(*xs)
        is_tuple, out = _tuple_of_tensors(out, "outputs", "hessian")
        if is_tuple or not isinstance(out[0], Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out[0].numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out[0].squeeze()

    def gradient(*xs):
        g = jacobian(single_output, xs, create_graph=True)
        if strict:
            for i, gi in enumerate(g):
                if not gi.requires_grad:
                    raise RuntimeError(
                        f"While computing the hessian, found that the jacobian of the "
                        f"user-provided function with respect to input {i} is independent of the "
                        f"input. This is not allowed in strict mode. You should ensure that your "
                        f"function is twice differentiable and that the jacobian depends on the "
                        f"inputs (this would be violated by a linear function for example).")
        return g
    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
    if not is_inputs_tuple:
        return result[0][0]
    return result


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: one backward pass with ``v`` as the output's gradient."""
    with enable_grad():
        is_inputs_tuple, inputs = _tuple_of_tensors(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _tuple_of_tensors(outputs, "outputs", "vjp")
        _strict_output_check(outputs, strict)
        vs = _tuple_of_tensors(v, "inputs", "vjp")[1] if v is not None else (None,) * len(outputs)
        if v is None and any(o.numel() != 1 for o in outputs):
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
        used = [(o, w) for o, w in zip(outputs, vs) if o.requires_grad]
        grads = grad([o for o, _ in used], inputs, [w for _, w in used], create_graph=create_graph,
                     allow_unused=True) if used else (None,) * len(inputs)
    result = tuple(zeros_like(x) if g is None else g for g, x in zip(grads, inputs))
    if not create_graph:
        outputs = tuple(o.detach() for o in outputs)
        result = tuple(g.detach() for g in result)
    return (outputs if is_outputs_tuple else outputs[0],
            result if is_inputs_tuple else result[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``, by the double-backward trick: ``J v`` is the gradient,
    with respect to a dummy output gradient ``u``, of ``u^T J`` in direction ``v``."""
    with enable_grad():
        is_inputs_tuple, inputs = _tuple_of_tensors(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        vs = _tuple_of_tensors(v, "inputs", "jvp")[1] if v is not None else None
        if vs is None and any(x.numel() != 1 for x in inputs):
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _tuple_of_tensors(outputs, "outputs", "jvp")
        _strict_output_check(outputs, strict)
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        used = [(o, u) for o, u in zip(outputs, dummies) if o.requires_grad]
        first = grad([o for o, _ in used], inputs, [u for _, u in used], create_graph=True,
                     allow_unused=True) if used else (None,) * len(inputs)
        pairs = [(g, w if w is not None else ones_like(x))
                 for g, w, x in zip(first, vs or (None,) * len(inputs), inputs) if g is not None]
        second = grad([g for g, _ in pairs], [u for _, u in used], [w for _, w in pairs],
                      create_graph=create_graph, allow_unused=True) if pairs else ()
        by_dummy = {id(u): s for (_, u), s in zip(used, second)}
    result = tuple(by_dummy.get(id(u)) if by_dummy.get(id(u)) is not None else zeros_like(o)
                   for o, u in zip(outputs, dummies))
    if not create_graph:
        outputs = tuple(o.detach() for o in outputs)
        result = tuple(r.detach() for r in result)
    return (outputs if is_outputs_tuple else outputs[0],
            result if is_outputs_tuple else result[0])


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: for the symmetric Hessian of a scalar function this is
    ``hvp``'s ``H v``."""
    return hvp(func, inputs, v, create_graph=create_graph, strict=strict)
