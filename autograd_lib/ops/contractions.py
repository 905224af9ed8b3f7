"""Sums of products over named dims: ``tensordot``, ``einsum``, and ``trapezoid`` (the
trapezoid rule), each composed of other ops, so they need no backward rule of their own.

``tensordot`` is built as PyTorch builds it: permute each operand so the contracted dims
meet, reshape both to matrices, ``mm`` (``dot`` when nothing is left free), and view the
result.  ``einsum`` takes diagonals for repeated letters, lines every operand up on one
common order of letters, multiplies them (broadcasting) and sums the letters that are not
in the output; PyTorch contracts pairs with ``bmm`` instead, so the values and gradients
are the same but the recorded graph is not, except for a single operand.
"""

import math

import numpy as np

from ..tensor import _wrap_dim
from .arithmetic import div_scalar, mul_scalar
from .linalg import dot, mm
from .operands import to_tensor
from ..op_table import op

__all__ = ["tensordot", "einsum", "trapezoid"]


# ------------------------------------------------------------- tensordot

def _tensordot_dims(a, b, dims):
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    dims_a, dims_b = dims
    dims_a = [dims_a] if isinstance(dims_a, (int, np.integer)) else list(dims_a)
    dims_b = [dims_b] if isinstance(dims_b, (int, np.integer)) else list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    return [_wrap_dim(d, a.ndim) for d in dims_a], [_wrap_dim(d, b.ndim) for d in dims_b]


@op(public=True)
def tensordot(a, b, dims=2, out=None):
    """The sum of products of ``a`` and ``b`` over the dims ``dims`` pairs up (an int ``n``:
    the last ``n`` of ``a`` with the first ``n`` of ``b``)."""
    a, b = to_tensor(a), to_tensor(b)
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} "
                               f"in dim {da} and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    k = int(np.prod([a.shape[d] for d in dims_a]))
    left, right = a.permute(free_a + dims_a), b.permute(dims_b + free_b)
    if not free_a and not free_b:                   # a full contraction: a dot product
        left = left if left.ndim == 1 else left.reshape(-1)
        right = right if right.ndim == 1 else right.reshape(-1)
        return dot(left, right).view(shape)
    m, n = int(np.prod([a.shape[d] for d in free_a])), int(np.prod([b.shape[d] for d in free_b]))
    return mm(left.reshape(m, k), right.reshape(k, n)).view(shape)


# ---------------------------------------------------------------- einsum

def _parse(equation, operands):
    """``(inputs, output)``: the letters of each operand (``...`` expanded to capital
    letters, which the equation cannot use) and of the output."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(terms) else
                           "einsum(): fewer operands were provided than specified in the equation")
    ellipsis_ndim = 0
    inputs = []
    for term, t in zip(terms, operands):
        letters = term.replace("...", "")
        if not all(c.isalpha() for c in letters):
            raise RuntimeError("einsum(): invalid subscript given at index "
                               f"{next(i for i, c in enumerate(term) if not c.isalpha() and c != '.')} "
                               "in the equation string, subscripts must be in [a-zA-Z]")
        if "..." in term:
            n = t.ndim - len(letters)
            ellipsis_ndim = max(ellipsis_ndim, n)
            term = term.replace("...", "".join(chr(0x100 + i) for i in range(ellipsis_ndim - n, ellipsis_ndim)))
        elif len(term) != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) does "
                               f"not match the number of dimensions ({t.ndim}) for operand "
                               f"{len(inputs)} and no ellipsis was given")
        inputs.append(term)
    dots = "".join(chr(0x100 + i) for i in range(ellipsis_ndim))
    if arrow:
        output = rhs.replace("...", dots)
    else:                       # implicit: the ellipsis, then the letters used once, sorted
        counts = {}
        for c in "".join(inputs):
            counts[c] = counts.get(c, 0) + 1
        output = dots + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in dots))
    return inputs, output


def _take_diagonals(t, letters):
    """Repeated letters of one operand (``ii``): keep their diagonal, once."""
    while len(set(letters)) != len(letters):
        first = next(c for i, c in enumerate(letters) if c in letters[:i])
        i, j = letters.index(first), letters.index(first, letters.index(first) + 1)
        t = t.diagonal(0, i, j)                     # the diagonal goes last
        letters = letters[:i] + letters[i + 1:j] + letters[j + 1:] + first
    return t, letters


@op(public=True)
def einsum(equation, *operands):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; a letter missing from
    the output is summed, a repeated one takes a diagonal.

    The operands are contracted two at a time, left to right, each pair as one batched
    matrix product (:func:`_contract`), so no intermediate is larger than an operand or a
    result: multiplying everything out first would need the product of *all* the sizes."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = [to_tensor(t) for t in operands]
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    inputs, output = _parse(equation, operands)
    terms = [_take_diagonals(t, letters) for t, letters in zip(operands, inputs)]
    t, letters = terms[0]
    for k in range(1, len(terms)):
        wanted = set(output).union(*(later for _, later in terms[k + 1:]))
        t, letters = _contract(t, letters, *terms[k], wanted)
    rest = [c for c in letters if c not in output]          # the output's letters first,
    t = t.permute([letters.index(c) for c in output + "".join(rest)])   # as PyTorch's einsum
    return t.sum(list(range(len(output), len(letters)))) if rest else t


def _sum_out(t, letters, keep):
    """Sum the dims whose letters are not in ``keep``."""
    gone = [i for i, c in enumerate(letters) if c not in keep]
    if not gone:
        return t, letters
    return t.sum(gone), "".join(c for c in letters if c in keep)


def _contract(a, la, b, lb, wanted):
    """``a`` (letters ``la``) times ``b`` (letters ``lb``), summed over the letters they share
    that are not ``wanted`` later: one ``bmm`` of (batch, left, summed) by (batch, summed,
    right).  Returns the product and its letters (batch, left, right)."""
    a, la = _sum_out(a, la, wanted | set(lb))      # a letter only a has, and nobody wants
    b, lb = _sum_out(b, lb, wanted | set(la))
    batch = [c for c in la if c in lb and c in wanted]
    summed = [c for c in la if c in lb and c not in wanted]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    size = {}
    for t, letters in ((a, la), (b, lb)):
        for c, n in zip(letters, t.shape):
            if size.get(c, 1) == 1:                 # a size-1 dim broadcasts (to 0 too)
                size[c] = n
    a = _arranged(a, la, batch + left + summed, size)
    b = _arranged(b, lb, batch + summed + right, size)
    n = [math.prod(size[c] for c in group) for group in (batch, left, summed, right)]
    product = a.reshape(n[0], n[1], n[2]).bmm(b.reshape(n[0], n[2], n[3]))
    return product.reshape([size[c] for c in batch + left + right]), "".join(batch + left + right)


def _arranged(t, letters, order, size):
    """``t``'s dims in ``order``, size-1 dims expanded to the other operand's size."""
    t = t.permute([letters.index(c) for c in order])
    shape = [size[c] for c in order]
    return t if tuple(t.shape) == tuple(shape) else t.expand(shape)


# ------------------------------------------------------------- trapezoid

@op(public=True)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoid rule, with sample points ``x``
    or spacing ``dx`` (1 by default)."""
    y = to_tensor(y)
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    if x is None or not hasattr(x, "ndim"):         # a spacing: dx, or a number given as x
        spacing = dx if x is None else x
        spacing = 1 if spacing is None else spacing
        if n == 0:
            return y.sum(d) * 0
        ends = y.select(d, 0) + y.select(d, -1)
        if not y.dtype.is_floating_point:          # integers: the halves make it float
            return (y.sum(d) - ends * 0.5) * spacing
        return mul_scalar(y.sum(d) - mul_scalar(ends, 0.5), spacing)
    x = to_tensor(x)
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        lined = [1] * y.ndim
        lined[d] = n
        x = x.view(lined)
    elif x.shape[_wrap_dim(dim, x.ndim)] != n:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    xd = _wrap_dim(dim, x.ndim)
    if n == 0:
        return y.sum(d) * 0
    steps = x.narrow(xd, 1, n - 1) - x.narrow(xd, 0, n - 1)
    pairs = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
    total = (pairs * steps).sum(d)
    return div_scalar(total, 2) if total.dtype.is_floating_point else total / 2

