"""Check analytic gradients against central finite differences.

For a function ``f`` of tensors, the numerical Jacobian column for input
element ``x_j`` is ``(f(x + eps e_j) - f(x - eps e_j)) / (2 eps)``.  Backward
gives the analytic Jacobian one row at a time (one vector-Jacobian product
per output element).  Use float64 inputs: in float32 the finite differences
are too noisy to compare.
"""

import warnings

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor
from .functional import grad

__all__ = ["gradcheck", "numerical_grad", "numerical_jacobian"]


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
    """One (output numel x input numel) matrix per (output, differentiable input)
    pair, built a row at a time with :func:`numerical_grad`."""
    inputs = tuple(inputs)
    with no_grad():
        outputs = _outputs(fn, inputs)
    jacobians = []
    for k, out in enumerate(outputs):
        row = []
        for col, x in enumerate(inputs):
            if not _differentiable(x):
                continue
            jac = np.zeros((out.numel(), x.numel()))
            for i in range(out.numel()):
                def element(x_value, k=k, i=i, col=col):
                    args = inputs[:col] + (x_value,) + inputs[col + 1:]
                    return _outputs(fn, args)[k].reshape(-1)[i]
                jac[i, :] = numerical_grad(element, x, eps)._data.reshape(-1)
            row.append(jac)
        jacobians.append(row)
    return jacobians


def _differentiable(x):
    return isinstance(x, Tensor) and x.requires_grad


def _analytic_jacobian(fn, inputs):
    diff_inputs = [x for x in inputs if _differentiable(x)]
    outputs = _outputs(fn, inputs)
    jacobians = [[np.zeros((o.numel(), x.numel())) for x in diff_inputs] for o in outputs]
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for i in range(out.numel()):
            seed = np.zeros(out.shape, dtype=out._data.dtype)
            seed.reshape(-1)[i] = 1
            grads = grad(out, diff_inputs, grad_outputs=Tensor._make(seed), retain_graph=True,
                         allow_unused=True)
            for col, g in enumerate(grads):
                if g is not None:
                    jacobians[k][col][i, :] = g._data.reshape(-1)
    return jacobians


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when backward's Jacobian matches finite differences for every input that
    requires grad; otherwise raises (or returns False) saying where they differ."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    for index, x in enumerate(inputs):
        if _differentiable(x) and x.dtype.name != "float64":
            warnings.warn(f"Input #{index} requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning, stacklevel=2)
    numerical = numerical_jacobian(fn, inputs, eps)
    analytic = _analytic_jacobian(fn, inputs)
    for k, (num_row, ana_row) in enumerate(zip(numerical, analytic)):
        for i, (num, ana) in enumerate(zip(num_row, ana_row)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{ana}\n")
    return True


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients disagree."""
