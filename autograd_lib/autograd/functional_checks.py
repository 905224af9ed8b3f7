"""The argument checks of ``torch.autograd.functional`` (``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``vhp``), with PyTorch's messages, and the small helpers they share: making
the inputs fresh tensors, filling in zeros for unused inputs, undoing the tuples.
The functions themselves are in functional.py.
"""

from ..creation import zeros_like
from ..tensor import Tensor

__all__ = ["as_tuple", "unpack", "prepare", "finish", "validate_v", "check_requires_grad",
           "fill_in_zeros", "single_output", "call_with_v", "OUTPUTS"]

OUTPUTS = "outputs of the user-provided function"


def as_tuple(x, what, fn_name):
    """``(was_a_tuple, tensors)``: a Tensor or a tuple of Tensors, anything else refused."""
    is_tuple = isinstance(x, tuple)
    for i, t in enumerate(x if is_tuple else (x,)):
        if not isinstance(t, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(t)}.")
    return is_tuple, (x if is_tuple else (x,))


def unpack(result, *was_tuple):
    """Undo ``as_tuple``: ``unpack(r, t)`` for a flat result; ``unpack(r, outs_t, ins_t)``
    for a result per output, each with one tensor per input."""
    if len(was_tuple) == 2:
        if not was_tuple[1]:
            result = tuple(row[0] for row in result)
        was_tuple = was_tuple[:1]
    return result if was_tuple[0] else result[0]


def prepare(inputs, create_graph, need_graph=True):
    """Fresh tensors for ``func``: with ``create_graph`` a view keeps the caller's history
    (so the result can be differentiated further); otherwise a detached copy."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad
                 else x.detach().requires_grad_(need_graph) for x in inputs)


def finish(tensors, create_graph):
    """Results without history unless ``create_graph`` (nested tuples are walked)."""
    if isinstance(tensors[0], Tensor):
        return tensors if create_graph else tuple(t.detach() for t in tensors)
    return tuple(finish(t, create_graph) for t in tensors)


def validate_v(v, others, others_is_tuple):
    """``v`` must hold one tensor of the right shape per ``others`` tensor."""
    if len(v) != len(others):
        if others_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(others)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (w, o) in enumerate(zip(v, others)):
        if w.shape != o.shape:
            where = f"Entry {i} in " if others_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {o.shape} but got {w.shape}.")


_STRICT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs "
               "must be computed in a differentiable manner from the input when running in strict "
               "mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function "
                "with respect to input {i} is independent of the input. This is not allowed in "
                "strict mode. You should ensure that your function is twice differentiable and "
                "that the jacobian depends on the inputs (this would be violated by a linear "
                "function for example).",
}


def check_requires_grad(tensors, kind, strict):
    """In strict mode, every tensor (an output, a gradient) must depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT[kind].format(i=i))


def fill_in_zeros(grads, refs, strict, create_graph, back_trick=False, double=False):
    """Zeros for the gradients that are None (the input was not used); in strict mode,
    PyTorch's error instead."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                if back_trick:
                    raise RuntimeError(
                        f"The gradient with respect to the input is independent of entry {i} in the "
                        "grad_outputs when using the double backward trick to compute forward mode "
                        "gradients. This is not allowed in strict mode.")
                what = "jacobian" if double else "output"
                raise RuntimeError(f"The {what} of the user-provided function is independent of "
                                   f"input {i}. This is not allowed in strict mode.")
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if double else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def single_output(func, name, strict):
    """``func``, checked to return one tensor of one element (returned squeezed)."""
    def checked(*xs):
        out = func(*xs)
        is_tuple, outs = as_tuple(out, OUTPUTS, name)
        check_requires_grad(outs, "outputs", strict)
        if is_tuple:
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                               "contain a single element")
        return out.squeeze()
    return checked


def call_with_v(func, inputs, v, create_graph, strict, fn_name):
    """The opening of ``jvp`` and ``vhp`` (``v`` has the inputs' shapes): check and prepare
    ``inputs`` and ``v``, run ``func``, check its outputs.  Returns ``(inputs_were_tuple,
    inputs, v, outputs_were_tuple, outputs)``.  Call it with grad mode on."""
    is_inputs_tuple, inputs = as_tuple(inputs, "inputs", fn_name)
    inputs = prepare(inputs, create_graph)
    if v is not None:
        v = prepare(as_tuple(v, "v", fn_name)[1], create_graph, need_graph=False)
        validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    is_outputs_tuple, outputs = as_tuple(func(*inputs), OUTPUTS, fn_name)
    check_requires_grad(outputs, "outputs", strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs
