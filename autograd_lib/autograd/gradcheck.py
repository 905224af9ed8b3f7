"""Check analytic gradients against central finite differences (``gradcheck``), and
second derivatives the same way (``gradgradcheck``).

The numerical Jacobian of ``f`` is built a *column* at a time: perturbing input
element ``x_j`` by ``±eps`` and running ``f`` twice gives the whole column
``(f(x + eps e_j) - f(x - eps e_j)) / (2 eps)`` (two forward passes per input
element, as PyTorch).  Backward gives the analytic Jacobian a *row* at a time
(one vector-Jacobian product per output element).  Use float64 inputs: in
float32 the finite differences are too noisy to compare.

Your :func:`analytic_jacobian` (exercise 05) gives the analytic side; your
:func:`numerical_grad` (exercise 03) takes part in every check: it
differentiates the scalar ``v . f(x)`` for a random ``v``, which must agree
with the analytic ``v^T J``.  With ``fast_mode=True`` (PyTorch's fast mode)
that is the whole check, along a random direction ``u`` too: ``numerical_grad``
of ``t -> v . f(x + t u)`` against ``v^T J u`` from a single backward pass, so
two forward passes and one backward pass per input instead of whole Jacobians.
"""

import warnings

import numpy as np

from ..creation import tensor as _tensor
from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .functional import grad

__all__ = ["gradcheck", "gradgradcheck", "numerical_grad", "numerical_jacobian", "analytic_jacobian",
           "GradcheckError"]


def _outputs(fn, inputs):
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def numerical_grad(f, x, eps=1e-6):
    """d f / d x by central differences, for a function ``f`` of one tensor that
    returns a single-element tensor: entry j is (f(x + eps e_j) - f(x - eps e_j)) / 2 eps.

    ``x`` is perturbed in place and restored.  (Exercise 03.numerical_grad.)"""
    grad = np.zeros(x.shape, dtype=np.float64)
    flat_x, flat_grad = x._data.reshape(-1), grad.reshape(-1)     # views: writes change x
    with no_grad():
        for j in range(flat_x.size):
            original = flat_x[j].item()
            flat_x[j] = original + eps
            plus = f(x).item()
            flat_x[j] = original - eps
            minus = f(x).item()
            flat_x[j] = original
            flat_grad[j] = (plus - minus) / (2 * eps)
    return Tensor._make(grad)


def numerical_jacobian(fn, inputs, eps=1e-6):
    """One ``(input numel x output numel)`` matrix per (output, differentiable input) pair
    (PyTorch's layout), built a column at a time: two forward passes per input element."""
    inputs = tuple(inputs)
    with no_grad():
        outputs = _outputs(fn, inputs)
        jacobians = [[np.zeros((x.numel(), out.numel())) for x in inputs if _differentiable(x)]
                     for out in outputs]
        col = 0
        for x in inputs:
            if not _differentiable(x):
                continue
            flat = x._data.reshape(-1)                  # a view: writes change x
            for j in range(flat.size):
                original = flat[j].item()
                flat[j] = original + eps
                plus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(fn, inputs)]
                flat[j] = original - eps
                minus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(fn, inputs)]
                flat[j] = original
                for k, (p, m) in enumerate(zip(plus, minus)):
                    jacobians[k][col][j, :] = (p - m) / (2 * eps)
            col += 1
    return jacobians


def _differentiable(x):
    return isinstance(x, Tensor) and x.requires_grad


def analytic_jacobian(fn, inputs):
    """The Jacobians of ``fn`` at ``inputs`` from backward, one pass per output element:
    for each output, a list with one float64 matrix per input that requires grad, of shape
    ``(input numel, output numel)`` (PyTorch's layout: entry ``[j, i]`` is the derivative
    of output element ``i`` by input element ``j``).  An output that does not require
    grad, or an input it does not use, gives zeros; no ``.grad`` is touched.
    (Exercise 05.analytic_jacobian.)"""
    diff_inputs = [x for x in inputs if _differentiable(x)]
    with enable_grad():
        outputs = _outputs(fn, inputs)
    jacobians = [[np.zeros((x.numel(), o.numel())) for x in diff_inputs] for o in outputs]
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        seed = np.zeros(out.shape, dtype=out._data.dtype)
        flat_seed = seed.reshape(-1)
        for i in range(out.numel()):
            flat_seed[:] = 0
            flat_seed[i] = 1
            grads = grad(out, diff_inputs, grad_outputs=Tensor._make(seed.copy()),
                         retain_graph=True, allow_unused=True)
            for col, g in enumerate(grads):
                if g is not None:
                    jacobians[k][col][:, i] = g._data.reshape(-1)
    return jacobians


def _projection_check(fn, inputs, rng, eps):
    """Your ``numerical_grad`` of ``x -> v . f(x)``, for each differentiable input x and
    output, next to the analytic ``v^T J``: [(output, input, numerical, analytic), ...]."""
    with enable_grad():
        outputs = _outputs(fn, inputs)
    results = []
    for k, out in enumerate(outputs):
        v = _unit(rng, out.numel()).reshape(out.shape)
        diff = [x for x in inputs if _differentiable(x)]
        analytic = (grad(out, diff, grad_outputs=Tensor._make(v.astype(out._data.dtype)),
                         allow_unused=True, retain_graph=True)
                    if out.requires_grad else [None] * len(diff))
        col = 0
        for pos, x in enumerate(inputs):
            if not _differentiable(x):
                continue

            def projected(x_value, k=k, pos=pos, v=v):
                args = inputs[:pos] + (x_value,) + inputs[pos + 1:]
                return Tensor._make(np.asarray((_outputs(fn, args)[k]._data * v).sum()))
            numerical = numerical_grad(projected, x, eps)._data.reshape(-1)
            a = analytic[col]
            a = np.zeros(x.numel()) if a is None else a._data.reshape(-1).astype(np.float64)
            results.append((k, col, numerical, a))
            col += 1
    return results


def _unit(rng, n):
    """A random non-negative vector of norm 1 (PyTorch's fast-mode vectors)."""
    v = rng.random(n)
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def _fast_check(fn, inputs, rng, eps, atol, rtol):
    """PyTorch's fast mode: for each (output k, input i), ``v_k^T J_ki u_i`` numerically
    (your ``numerical_grad`` of ``t -> v_k . f(x_i + t u_i)``: two forward passes) and
    analytically (one backward pass).  Returns the first mismatch, or None."""
    with enable_grad():
        outputs = _outputs(fn, inputs)
    diff = [(pos, x) for pos, x in enumerate(inputs) if _differentiable(x)]
    us = [_unit(rng, x.numel()).reshape(x.shape) for _, x in diff]
    for k, out in enumerate(outputs):
        v = _unit(rng, out.numel()).reshape(out.shape)
        analytic = (grad(out, [x for _, x in diff], grad_outputs=Tensor._make(
            v.astype(out._data.dtype)), allow_unused=True, retain_graph=True)
            if out.requires_grad else [None] * len(diff))
        for col, ((pos, x), u) in enumerate(zip(diff, us)):
            a = 0.0 if analytic[col] is None else float((analytic[col]._data * u).sum())

            def along(t, k=k, pos=pos, x=x, u=u, v=v):
                moved = Tensor._make((x._data + t._data * u).astype(x._data.dtype))
                moved._requires_grad = True         # as x: fn may differentiate (gradgradcheck)
                args = inputs[:pos] + (moved,) + inputs[pos + 1:]
                return Tensor._make(np.asarray((_outputs(fn, args)[k]._data * v).sum()))
            n = float(numerical_grad(along, _tensor(0.0, dtype=x.dtype), eps)._data.reshape(-1)[0])
            if abs(a - n) > atol * u.sum() * v.sum() + rtol * abs(n):
                return k, col, n, a
    return None


_FAST_MODE_NOTE = (
    "\n\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n")


def _as_tensor(matrix):
    return Tensor._make(np.asarray(matrix, dtype=np.float64))


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              fast_mode=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False, check_backward_ad=True,
              check_forward_ad=False, masked=None):
    """True when backward's Jacobian matches finite differences for every input that
    requires grad; otherwise raises :class:`GradcheckError` (or returns False) saying
    where they differ.  ``fast_mode=True``: compare random projections only (see the
    module's docstring).  The other keyword arguments are PyTorch's, accepted and ignored."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    for index, x in enumerate(inputs):
        if _differentiable(x) and x.dtype.name != "float64":
            warnings.warn(f"Input #{index} requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning, stacklevel=2)
    if not any(_differentiable(x) for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    rng = np.random.default_rng(0)
    if fast_mode:
        mismatch = _fast_check(fn, inputs, rng, eps, atol, rtol)
        if mismatch is None:
            return True
        if not raise_exception:
            return False
        k, i, n, a = mismatch
        num, ana = numerical_jacobian(fn, inputs, eps)[k][i], analytic_jacobian(fn, inputs)[k][i]
        raise GradcheckError(
            f"Jacobian mismatch for output {k} with respect to input {i},\nnumerical:{n!r}\n"
            f"analytical:{a!r}{_FAST_MODE_NOTE}Numerical:\n {_as_tensor(num)}\nAnalytical:\n"
            f"{_as_tensor(ana)}\n\nThe max per-element difference (slow mode) is: "
            f"{np.abs(num - ana).max() if num.size else 0.0}.\n")
    numerical = numerical_jacobian(fn, inputs, eps)
    analytic = analytic_jacobian(fn, inputs)
    for k, (num_row, ana_row) in enumerate(zip(numerical, analytic)):
        for i, (num, ana) in enumerate(zip(num_row, ana_row)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {k} with respect to input {i},\n"
                                     f"numerical:{_as_tensor(num)}\nanalytical:{_as_tensor(ana)}\n")
    for k, i, num, ana in _projection_check(fn, inputs, rng, eps):
        if not np.allclose(ana, num, rtol=rtol, atol=atol):
            if not raise_exception:
                return False
            raise GradcheckError(
                f"Jacobian mismatch for output {k} with respect to input {i},\n"
                f"numerical:{_as_tensor(num)}\nanalytical:{_as_tensor(ana)}\n(numerical: "
                "numerical_grad of a random projection v . f(x); analytical: v^T J)\n")
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: :func:`gradcheck` of the function that maps the inputs
    and ``grad_outputs`` to the gradient ``autograd.grad(fn(inputs), inputs, grad_outputs,
    create_graph=True)``.  Without ``grad_outputs``, random ones (float64, requiring grad)."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    with enable_grad():
        outputs = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(1)
        grad_outputs = tuple(Tensor._make(rng.standard_normal(o.shape).astype(o._data.dtype))
                             .requires_grad_(True) for o in outputs)
    else:
        grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) \
            else (grad_outputs,)
    count = len(inputs)
    diff = [i for i, x in enumerate(inputs) if _differentiable(x)]

    def first_derivatives(*args):
        xs, gs = args[:count], args[count:]
        with enable_grad():
            outs = _outputs(fn, xs)
            used = [(o, g) for o, g in zip(outs, gs) if o.requires_grad]
            grads = grad([o for o, _ in used], [xs[i] for i in diff], [g for _, g in used],
                         create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode)


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients disagree."""
