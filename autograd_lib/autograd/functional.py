"""``backward`` and ``grad``: check the arguments the way PyTorch does, then run the engine;
and, built on ``grad``, ``torch.autograd.functional``: ``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``hvp``, ``vhp``.

``Tensor.backward`` is installed here: ``t.backward()`` is ``autograd.backward(t)``.

Longer than most modules, on purpose: the functional API is six entry points over one
pattern (check the arguments, run ``grad``, reshape the answers), and three exercise slots
live here (``grad_results``, 04; ``hvp``, 06); the argument
checks themselves are in ``functional_checks.py``.
"""

import warnings

from ..creation import ones_like, zeros_like
from ..engine import backward_pass
from ..grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..ops.shape import stack
from ..tensor import Size, Tensor
from .functional_checks import (OUTPUTS, as_tuple, call_with_v, check_requires_grad, fill_in_zeros,
                                finish, prepare, single_output, unpack, validate_v)
from ..op_table import methods

__all__ = ["backward", "grad", "grad_results", "hvp", "jacobian", "hessian", "vjp", "jvp", "vhp"]


def _as_tuple(x):
    if isinstance(x, Tensor) or hasattr(x, "_gradient_edge"):    # a tensor or a GradientEdge
        return (x,)
    if x is None:
        return ()
    return tuple(x)


def _check_count(outputs, grads):
    # As PyTorch: too few gradients is an error; extra ones are ignored (zip).
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")


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
    if retain_graph is None:
        retain_graph = create_graph
    _check_count(tensors, grad_tensors)
    # The driver (engine.run_backward) checks the gradients and the roots, as PyTorch's
    # _make_grads and engine do, before anything runs.
    backward_pass(tensors, grad_tensors[:len(tensors)], retain_graph, create_graph, inputs=inputs,
                  accumulate=True)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor w.r.t. the graph leaves (see autograd.backward)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


methods(backward=_tensor_backward)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d(outputs)/d(inputs), returned as a tuple; ``.grad`` fields are left alone.  Inputs
    given as a dict (name: tensor) give a dict of their gradients under the same names.

    ``is_grads_batched=True``: the first dim of each ``grad_outputs`` tensor is a batch of
    vectors, and each result gets that dim too (PyTorch vmaps one backward pass over the
    batch; here it is one pass per vector, the graph retained until the last)."""
    grad_results((), (), allow_unused, materialize_grads)     # the flags, refused before anything runs
    if isinstance(inputs, dict):
        grads = grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph,
                     only_inputs, allow_unused, is_grads_batched, materialize_grads)
        return dict(zip(inputs.keys(), grads))
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To "
                      "accumulate gradient for other parts of the graph, please use "
                      "autograd_lib.autograd.backward.", FutureWarning, stacklevel=2)
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    _check_count(outputs, grad_outputs)
    if is_grads_batched:
        batches = _batched_gradients(outputs, grad_outputs)
    else:
        batches = [list(grad_outputs[:len(outputs)])]
    # The driver checks the gradients, then the outputs, then the task the inputs, as PyTorch.
    results = [backward_pass(outputs, grads, retain_graph or i + 1 < len(batches), create_graph,
                             inputs=inputs, accumulate=False) for i, grads in enumerate(batches)]
    if is_grads_batched:                # one tensor per input, the batch first (None: unused)
        result = [None if all(g is None for g in per_input) else
                  stack([zeros_like(t) if g is None else g for g in per_input])
                  for t, per_input in zip(inputs, zip(*results))]
    else:
        result = results[0]
    if materialize_grads and (allow_unused is None or allow_unused) and any(
            g is None and not isinstance(t, Tensor) for t, g in zip(inputs, result)):
        raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
    returned = grad_results(inputs, tuple(result), allow_unused, materialize_grads)
    return tuple(_with_history(g, arrived, create_graph) for g, arrived in zip(returned, result))


def _with_history(g, arrived, create_graph):
    """create_graph (assignment 06): a gradient that arrived keeps its history only with it;
    a zero made for an unused input then requires grad (PyTorch: zeros_like(requires_grad=))."""
    if g is None:
        return None
    if not create_graph:
        return g.detach()
    return g if arrived is not None else g.requires_grad_(True)


def grad_results(inputs, captured, allow_unused, materialize_grads):
    """What ``autograd.grad`` returns, once the backward pass captured ``captured[i]`` for
    ``inputs[i]`` (None when no gradient reached it): a tuple, one entry per input.

    Each captured gradient is returned as it is.  An input that got none is an error
    naming its index (the first such input), unless ``allow_unused``, which defaults to
    ``materialize_grads``; it is then None, or with ``materialize_grads`` a new tensor of
    zeros of the input's shape and dtype.  ``materialize_grads`` with ``allow_unused=False``
    is a ValueError: ``grad()`` calls this function with no inputs before anything else
    runs, so that the flags are refused first, as in PyTorch.

    (Exercise 04.grad_results.)"""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    returned = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None and not allow_unused:      # PyTorch's engine checks this first
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the desired "
                               "behavior.")
        returned.append(zeros_like(t) if g is None and materialize_grads else g)
    return tuple(returned)


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
    if 0 in sizes:          # PyTorch's vmap reads the first vector before anything else
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    if len(sizes) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, "
                         f"got sizes {sorted(sizes)} for the mapped dimension")
    return [[g[b] for g in grad_outputs] for b in range(sizes.pop() if sizes else 0)]


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian of scalar ``func`` at ``inputs`` times ``v``, without forming the
    Hessian: differentiate the gradient (built with ``create_graph=True``) once
    more, with ``v`` as its upstream gradient.  Returns ``(func(inputs), H @ v)``,
    as ``torch.autograd.functional.hvp``.  (Exercise 06.hvp.)"""
    single = isinstance(inputs, Tensor)
    given = _as_tuple(inputs)
    vs = _as_tuple(v) if v is not None else ()
    if v is None and not (len(given) == 1 and given[0].numel() == 1):
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    with enable_grad():
        # With create_graph the result must stay connected to the caller's inputs (a view,
        # made in grad mode as PyTorch makes it, keeps the history); otherwise fresh leaves.
        inputs = tuple(x.view(x.shape) if create_graph and x.requires_grad
                       else x.detach().requires_grad_(True) for x in given)
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


# ------------------------------------------- jacobian, hessian, vjp, jvp, vhp
# As PyTorch's torch.autograd.functional: each runs ``func`` on fresh copies of the inputs
# that require grad, then takes gradients with ``grad``:
# * vjp: one backward pass with ``v`` as the output's gradient (``v^T J``);
# * jvp: the double-backward trick: ``u^T J`` is linear in a dummy ``u``, so its gradient
#   with respect to ``u`` in direction ``v`` is ``J v``;
# * jacobian: one backward pass per output element, a row at a time;
# * hessian: the Jacobian of the gradient; vhp: the gradient of ``g . v``.
# ``vectorize=True`` and ``strategy="forward-mode"`` give PyTorch's numbers (there is no
# vmap nor forward-mode AD here: the rows are still computed one by one).  The checks and
# their messages are in functional_checks.py.


def grad_or_none(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad only; None per input when none does."""
    grad_outputs = grad_outputs if grad_outputs is not None else (None,) * len(outputs)
    used = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not used:
        return (None,) * len(inputs)
    return grad([o for o, _ in used], inputs, [g for _, g in used], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


# ----------------------------------------------------------------- vjp and jvp

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: one backward pass with ``v`` as the output's gradient."""
    with enable_grad():
        is_inputs_tuple, inputs = as_tuple(inputs, "inputs", "vjp")
        inputs = prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = as_tuple(outputs, OUTPUTS, "vjp")
        check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = prepare(as_tuple(v, "v", "vjp")[1], create_graph, need_graph=False)
            validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns "
                               "a single Tensor with a single element.")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = grad_or_none(outputs, inputs, v, create_graph=create_graph)
        result = fill_in_zeros(grads, inputs, strict, create_graph)
    return (unpack(finish(outputs, create_graph), is_outputs_tuple),
            unpack(finish(result, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``, by the double-backward trick: ``u^T J`` (the gradient
    for a dummy output gradient ``u``) is linear in ``u``; its gradient with respect
    to ``u``, in direction ``v``, is ``J v``."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = call_with_v(
            func, inputs, v, create_graph, strict, "jvp")
        # The dummy u: its values never matter (u^T J is linear in u), zeros are safe.
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        grad_inputs = grad_or_none(outputs, inputs, dummies, create_graph=True)
        check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = grad_or_none(grad_inputs, dummies, v, create_graph=create_graph)
        result = fill_in_zeros(grads, outputs, strict, create_graph, back_trick=True)
    return (unpack(finish(outputs, create_graph), is_outputs_tuple),
            unpack(finish(result, create_graph), is_outputs_tuple))


# ------------------------------------------------------------------- jacobian

def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for one input and one output, a tensor of
    shape ``output.shape + input.shape``; otherwise a tuple per output, of one tensor per
    input (as given: a single Tensor or a tuple)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "autograd_lib.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _forward_mode(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = as_tuple(inputs, "inputs", "jacobian")
        inputs = prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = as_tuple(outputs, OUTPUTS, "jacobian")
        check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("autograd_lib.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        result = tuple(_rows(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
    return unpack(finish(result, create_graph), is_outputs_tuple, is_inputs_tuple)


def _rows(i, out, inputs, create_graph, strict):
    """The Jacobian of output ``i`` with respect to each input, one backward pass per
    element of the output (PyTorch's ``vectorize=False``)."""
    rows = [[] for _ in inputs]
    for j in range(out.numel()):
        grads = grad_or_none((out.reshape(-1)[j],), inputs, retain_graph=True,
                             create_graph=create_graph)
        for k, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent "
                                       f"of input {k}. This is not allowed in strict mode.")
                g = zeros_like(x)
            elif strict and create_graph and not g.requires_grad:
                # (PyTorch's message names the output's index here)
                raise RuntimeError(f"The jacobian of the user-provided function is independent of "
                                   f"input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[k].append(g)
    return tuple(stack(r).view(out.shape + x.shape) if r else x.new_zeros(out.shape + x.shape)
                 for r, x in zip(rows, inputs))


def _forward_mode(func, inputs, strict, vectorize):
    """``strategy="forward-mode"``: PyTorch's checks and result structure (lists, not
    tuples); the numbers are computed in reverse mode.  As with forward-mode AD, the
    result keeps its history when an input requires grad."""
    if strict:
        raise RuntimeError("autograd_lib.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    is_inputs_tuple, inputs = as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    keep = any(x.requires_grad for x in inputs)
    with enable_grad():
        leaves = prepare(inputs, keep)
        outputs = func(*leaves)
        is_outputs_tuple, outputs = as_tuple(outputs, "outputs", "jacobian")
        result = [[r if keep else r.detach() for r in _rows(i, out, leaves, keep, False)]
                  for i, out in enumerate(outputs)]
    if not is_inputs_tuple:
        result = tuple(row[0] for row in result)
    return result if is_outputs_tuple else result[0]


# -------------------------------------------------------------- hessian and vhp

def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``: the Jacobian of its gradient
    (``input.shape + input.shape``; a tuple of tuples for a tuple of inputs)."""
    is_inputs_tuple, inputs = as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    single = single_output(func, "hessian", strict)

    def gradient(*xs):
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(x.requires_grad_(True) for x in xs)
        g = jacobian(single, xs, create_graph=True)
        check_requires_grad(g, "jacobian", strict)
        return g
    if outer_jacobian_strategy == "forward-mode" and vectorize and not strict and not create_graph:
        # PyTorch's gradient() marks its (dual) inputs as requiring grad: so the result
        # keeps a history.  Here: fresh leaves that require grad.
        inputs = tuple(x if x.requires_grad else x.detach().requires_grad_(True) for x in inputs)
    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return unpack(result, is_inputs_tuple, is_inputs_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: the gradient of ``g . v``, ``g`` the gradient of ``func``."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = call_with_v(
            func, inputs, v, create_graph, strict, "vhp")
        if is_outputs_tuple:
            raise RuntimeError("The function given to vhp should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to vhp should contain a "
                               "single element")
        first = grad_or_none(outputs, inputs, create_graph=True)
        check_requires_grad(first, "jacobian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = grad_or_none(first, inputs, v, create_graph=create_graph)
        result = fill_in_zeros(grads, inputs, strict, create_graph, double=True)
    return (unpack(finish(outputs, create_graph), is_outputs_tuple),
            unpack(finish(result, create_graph), is_inputs_tuple))
