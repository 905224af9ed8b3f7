"""Visible checks of assignment 05, exercise 4: ``sum_and_index``, the gradient rules of ``sum`` and of
indexing (its two slots: each check takes both functions).

``autograd_course.checks.ops`` (the notebook's ``check``) shows them; each function without
``_random`` in its name is the visible part of one test cell, run on the functions you wrote, and
its docstring says what it tries.  The ``..._random`` functions are what the hidden parts of the
same cells run: the same rules on random inputs drawn from the generators the cell passes.  The
constants are the rules the checks name (``grading.rules("05.sum_and_index")``).
"""

import numpy as np

import autograd_lib as ag
from autograd_course import grading
from autograd_course.notebook import call

from .op_comparisons import _call, _dtype, _expect_close, _expect_equal, _random_shape, _run, _try, reference_rule

__all__ = ["sum_and_index_slots", "sum_and_index", "sum_and_index_in_the_engine", "sum_and_index_random",
           "sum_and_index_in_the_engine_random", "SUM_COPY", "SUM_DIMS", "INDEX_ZEROS", "INDEX_ADD", "INDEX_TUPLE"]

SUM_AND_INDEX = grading.rules("05.sum_and_index")
SUM_COPY = SUM_AND_INDEX("sum-copy")
SUM_DIMS = SUM_AND_INDEX("sum-dims")
INDEX_ZEROS = SUM_AND_INDEX("index-zeros")
INDEX_ADD = SUM_AND_INDEX("index-add")
INDEX_TUPLE = SUM_AND_INDEX("index-tuple")


def sum_and_index_slots(sum_backward, index_backward):
    """The two slots that exercise 4 fills, for ``grading.checking``."""
    return {"05.sum_backward": sum_backward, "05.index_backward": index_backward}


def _mask_label(indices):
    return "(" + ", ".join("slice(None)" if isinstance(i, slice) else f"a boolean mask of shape {i.shape}"
                           if i.dtype == bool else str(i.tolist()) for i in indices) + ",)"


def _index_same_dtype(seen, grad, label):
    _expect_equal(str(getattr(seen, "dtype", type(seen).__name__)), str(grad.dtype),
                  f"the dtype of index_backward's result for {label} ({grad.dtype})", INDEX_ZEROS)


def sum_and_index(sum_backward, index_backward):
    """Your two rules called directly.  ``sum_backward``: sums over one dim and over two dims
    of a ``(2, 3, 4)`` input, with and without ``keepdim``, and a square ``(3, 3)`` input
    (sum-copy, sum-dims).  ``index_backward``: distinct and repeated integer indices, a slice
    with an array, a boolean mask, pairs of arrays, a float64 gradient, and ``grad`` left
    unchanged (index-zeros, index-add, index-tuple)."""
    bcast = np.broadcast_to
    sum_cases = [
        ("grad=[[10], [20]], self_shape=(2, 3), dim=(1,), keepdim=True",
         ag.tensor([[10.0], [20.0]]), ag.Size([2, 3]), (1,), True, [[10.0] * 3, [20.0] * 3], SUM_COPY),
        ("grad=[10, 20], self_shape=(2, 3), dim=(1,), keepdim=False",
         ag.tensor([10.0, 20.0]), ag.Size([2, 3]), (1,), False, [[10.0] * 3, [20.0] * 3], SUM_DIMS),
        ("grad=[1, 2, 3], self_shape=(2, 3), dim=(0,), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3]), (0,), False, [[1.0, 2.0, 3.0]] * 2, SUM_COPY),
        ("grad=[10, 20, 30], self_shape=(3, 3), dim=(1,), keepdim=False",
         ag.tensor([10.0, 20.0, 30.0]), ag.Size([3, 3]), (1,), False, [[10.0] * 3, [20.0] * 3, [30.0] * 3],
         SUM_DIMS),
        ("grad=[1, 2, 3], self_shape=(2, 3, 4), dim=(0, 2), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3, 4]), (0, 2), False,
         bcast(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)), SUM_DIMS),
        ("grad=[1, 2, 3, 4], self_shape=(2, 3, 4), dim=(0, 1), keepdim=False",
         ag.tensor([1.0, 2.0, 3.0, 4.0]), ag.Size([2, 3, 4]), (0, 1), False,
         bcast(np.array([1.0, 2.0, 3.0, 4.0]), (2, 3, 4)), SUM_DIMS),
        ("grad of shape (1, 3, 1), self_shape=(2, 3, 4), dim=(0, 2), keepdim=True",
         ag.tensor([[[1.0], [2.0], [3.0]]]), ag.Size([2, 3, 4]), (0, 2), True,
         bcast(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)), SUM_COPY),
    ]
    mask = np.array([[True, False, True], [False, False, True]])
    index_cases = [
        ("grad=[1, 10], self_shape=(4,), indices=([3, 1],)", ag.tensor([1.0, 10.0]), ag.Size([4]),
         (np.array([3, 1]),), [0.0, 10.0, 0.0, 1.0], INDEX_ZEROS),
        ("grad=[1, 10, 100], self_shape=(4,), indices=([0, 2, 0],)", ag.tensor([1.0, 10.0, 100.0]), ag.Size([4]),
         (np.array([0, 2, 0]),), [101.0, 0.0, 10.0, 0.0], INDEX_ADD),
        ("grad=[[1, 2, 3], [4, 5, 6]], self_shape=(2, 4), indices=(slice(None), [0, 3, 0])",
         ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), ag.Size([2, 4]), (slice(None), np.array([0, 3, 0])),
         [[4.0, 0.0, 0.0, 2.0], [10.0, 0.0, 0.0, 5.0]], INDEX_TUPLE),
        ("grad=[1, 2, 3], self_shape=(2, 3), indices=(a boolean mask,)", ag.tensor([1.0, 2.0, 3.0]), ag.Size([2, 3]),
         (mask,), [[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], INDEX_TUPLE),
        ("grad=[5, 7], self_shape=(2, 3), indices=([1, 1], [2, 2])", ag.tensor([5.0, 7.0]), ag.Size([2, 3]),
         (np.array([1, 1]), np.array([2, 2])), [[0.0, 0.0, 0.0], [0.0, 0.0, 12.0]], INDEX_ADD),
    ]
    with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
        for label, grad, self_shape, dim, keepdim, expected, rule in sum_cases:
            _try(sum_backward, (grad, self_shape, dim, keepdim), expected, f"sum_backward({label})", rule)
        for label, grad, self_shape, indices, expected, rule in index_cases:
            _try(index_backward, (grad, self_shape, indices), expected, f"index_backward({label})", rule)
        grad = ag.tensor([1.0, 2.0], dtype=ag.float64)
        seen = call(index_backward, grad, ag.Size([3]), (np.array([2, 0]),),
                    what="index_backward(a float64 grad, (3,), ([2, 0],))", rule=INDEX_ZEROS)
    _index_same_dtype(seen, grad, "a float64 grad")
    _expect_close(grad, [1.0, 2.0], "grad after index_backward(grad, ...)", INDEX_ZEROS)


def sum_and_index_in_the_engine(sum_backward, index_backward):
    """Your rules inside the engine: backward through ``x.sum(1)``, ``y.sum((2, 0),
    keepdim=True)`` and a batch normalized by its row sums; through ``v[[0, 2, 0]]``, an
    embedding lookup ``table[tokens]`` with a repeated token, and a mask ``x[x > 2]``."""
    with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
        x = ag.arange(6.0).reshape(2, 3).requires_grad_()
        _run(lambda: x.sum(1).backward(ag.tensor([10.0, 20.0])), "x.sum(1).backward([10, 20])", SUM_COPY)
        y = ag.arange(24.0).reshape(2, 3, 4).requires_grad_()
        _run(lambda: y.sum((2, 0), keepdim=True).backward(ag.tensor([[[1.0], [2.0], [3.0]]])),
             "y.sum((2, 0), keepdim=True).backward(...)", SUM_COPY)
        n = ag.tensor([[1.0, 2.0, 1.0], [3.0, 3.0, 2.0]], requires_grad=True)
        first = ag.tensor([1.0, 0.0, 0.0])          # the first column (a select's backward is not yours)
        _run(lambda: (n / n.sum(-1, keepdim=True) * first).sum().backward(),
             "(n / n.sum(-1, keepdim=True) * [1, 0, 0]).sum().backward()", SUM_COPY)
        v = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        _run(lambda: v[[0, 2, 0]].backward(ag.tensor([1.0, 10.0, 100.0])), "v[[0, 2, 0]].backward([1, 10, 100])",
             INDEX_ADD)
        table = ag.arange(8.0).reshape(4, 2).requires_grad_()
        _run(lambda: table[ag.tensor([1, 3, 1, 1])].sum().backward(), "table[[1, 3, 1, 1]].sum().backward()",
             INDEX_ADD)
        m = ag.arange(6.0).reshape(2, 3).requires_grad_()
        _run(lambda: (m[m > 2] * ag.tensor([1.0, 2.0, 3.0])).sum().backward(),
             "(m[m > 2] * [1, 2, 3]).sum().backward()", INDEX_TUPLE)
    _expect_close(x.grad, [[10.0] * 3, [20.0] * 3], "x.grad for x.sum(1).backward([10, 20])", SUM_DIMS)
    _expect_close(y.grad, np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)),
                  "y.grad for y.sum((2, 0), keepdim=True).backward(...)", SUM_COPY)
    nv = np.array([[1.0, 2.0, 1.0], [3.0, 3.0, 2.0]])
    row_sums = nv.sum(1, keepdims=True)
    _expect_close(n.grad, np.eye(3)[0] / row_sums - nv[:, :1] / row_sums ** 2,
                  "n.grad for the first column of n / n.sum(-1, keepdim=True)", SUM_COPY)
    _expect_close(v.grad, [101.0, 0.0, 10.0, 0.0], "v.grad for v[[0, 2, 0]].backward([1, 10, 100])", INDEX_ADD)
    _expect_close(table.grad, [[0.0, 0.0], [3.0, 3.0], [0.0, 0.0], [1.0, 1.0]],
                  "table.grad for table[[1, 3, 1, 1]].sum()", INDEX_ADD)
    _expect_close(m.grad, [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]], "m.grad for (m[m > 2] * [1, 2, 3]).sum()", INDEX_TUPLE)


_SUM_KINDS = ("one-dim", "dims", "keepdim")
_INDEX_KINDS = ("distinct", "repeated", "pairs", "slice", "mask")


def _sum_case(rng, kind):
    """Random arguments of sum_backward (multiples of 1/4), the summed dims of size 2 to 4."""
    ndim = int(rng.integers(3, 5) if kind == "dims" else rng.integers(2, 4) if kind == "one-dim"
               else rng.integers(1, 4))
    if kind == "one-dim":
        dim = (int(rng.integers(ndim)),)
    else:
        dim = tuple(d for d in range(ndim) if rng.integers(2))
        least = 2 if kind == "dims" else 1
        if len(dim) < least:
            dim = tuple(sorted(int(d) for d in rng.choice(ndim, size=least, replace=False)))
    self_shape = tuple(int(rng.integers(2, 5) if d in dim else rng.integers(1, 5)) for d in range(ndim))
    keepdim = kind == "keepdim"
    grad_shape = np.zeros(self_shape).sum(axis=dim, keepdims=keepdim).shape
    grad = ag.tensor(rng.integers(-20, 21, size=grad_shape) / 4, dtype=_dtype(rng))
    return grad, ag.Size(self_shape), dim, keepdim


def _index_case(rng, kind):
    """Random (grad, self_shape, indices) of this kind of index."""
    shape = _random_shape(rng, 2, 5, int(rng.integers(2 if kind in ("pairs", "slice") else 1, 4)))
    if kind == "distinct":
        indices = (rng.permutation(shape[0])[:int(rng.integers(1, shape[0] + 1))],)
    elif kind == "repeated":
        picks = rng.integers(shape[0], size=int(rng.integers(2, 6)))
        indices = (np.concatenate([picks, picks[:1]]),)
    elif kind == "pairs":
        count = int(rng.integers(1, 4))
        rows, cols = rng.integers(shape[0], size=count), rng.integers(shape[1], size=count)
        indices = (np.concatenate([rows, rows]), np.concatenate([cols, cols]))         # every pair twice
    elif kind == "slice":
        indices = (slice(None), rng.integers(shape[1], size=int(rng.integers(2, 5))))
    else:
        mask = rng.integers(0, 2, size=shape).astype(bool)
        mask.flat[rng.integers(mask.size)] = True
        indices = (mask,)
    grad = ag.tensor(rng.integers(-20, 21, size=np.zeros(shape)[indices].shape) / 4, dtype=_dtype(rng))
    return grad, ag.Size(shape), indices


def _index_rule(indices):
    """The rule a case of these indices is about."""
    if any(isinstance(i, slice) or i.dtype == bool for i in indices) or len(indices) > 1:
        return INDEX_TUPLE
    flat = indices[0].tolist()
    return INDEX_ADD if len(set(flat)) < len(flat) else INDEX_ZEROS


def sum_and_index_random(sum_backward, index_backward, rngs):
    """Both rules called directly on random arguments: sums over one dim, several dims, with
    keepdim; indices distinct, repeated, pairs, a slice with an array, a mask; float32 and
    float64."""
    cases = []
    for i, rng in enumerate(rngs):
        s = _sum_case(rng, _SUM_KINDS[i % len(_SUM_KINDS)])
        x = _index_case(rng, _INDEX_KINDS[i % len(_INDEX_KINDS)])
        cases.append((s, reference_rule("05.sum_backward", *s), x, reference_rule("05.index_backward", *x)))
    with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
        for i, (s, s_expected, x, x_expected) in enumerate(cases):
            grad, self_shape, dim, keepdim = s
            what = (f"sum_backward(random grad #{i}: {grad.dtype} of shape {tuple(grad.shape)}, "
                    f"self_shape={tuple(self_shape)}, dim={dim}, keepdim={keepdim})")
            _try(sum_backward, s, s_expected, what, SUM_COPY if keepdim else SUM_DIMS, grad.dtype)
            grad, self_shape, indices = x
            label = f"random grad #{i}: {grad.dtype} of shape {tuple(grad.shape)}"
            what = f"index_backward({label}, self_shape={tuple(self_shape)}, indices={_mask_label(indices)})"
            before = grad.numpy().copy()
            seen = _call(index_backward, x, what, _index_rule(indices))
            _expect_close(seen, x_expected, what, _index_rule(indices), grad.dtype)
            _index_same_dtype(seen, grad, label)
            _expect_close(grad, before, f"{label} after index_backward(grad, ...)", INDEX_ZEROS)


def _random_key(rng, shape):
    """A key for x[...] of this shape: integer arrays with repeats, a mask, or a slice and an array."""
    kind = int(rng.integers(3))
    if kind == 0 or (kind == 2 and len(shape) == 1):
        return (rng.integers(0, shape[0], size=int(rng.integers(1, 6))),)
    if kind == 1:
        mask = rng.integers(0, 2, size=shape).astype(bool)
        mask.flat[rng.integers(mask.size)] = True
        return (mask,)
    return (slice(None), rng.integers(0, shape[1], size=int(rng.integers(1, 6))))


def _sum_engine_args(rng, i):
    """Random x, dims, keepdim for x.sum(dims, keepdim); every fourth case keeps a dim before a
    summed one, without keepdim."""
    if i % 4 == 3:
        shape = _random_shape(rng, 2, 5, int(rng.integers(2, 4)))
        return shape, tuple(d for d in range(1, len(shape)) if rng.integers(2)) or (1,), False
    shape = _random_shape(rng, 1, 4, int(rng.integers(1, 4)))
    dims = tuple(d for d in range(len(shape)) if rng.integers(2)) or tuple(range(len(shape)))
    return shape, dims, bool(rng.integers(2))


def sum_and_index_in_the_engine_random(sum_backward, index_backward, rngs):
    """Backward through ``x.sum(dims, keepdim)`` and ``x[key]`` for random shapes, dims, flags,
    keys (integer arrays with repeats, masks, a slice and an array) and dtypes."""
    for i, rng in enumerate(rngs):
        shape, dims, keepdim = _sum_engine_args(rng, i)
        dtype = _dtype(rng)
        xv = rng.standard_normal(shape)
        gv = ag.tensor(rng.standard_normal(xv.sum(axis=dims, keepdims=keepdim).shape), dtype=dtype)
        s_expected = reference_rule("05.sum_backward", gv, ag.Size(shape), dims, keepdim)
        key_shape = _random_shape(rng, 1, 4, int(rng.integers(1, 4)))
        key = _random_key(rng, key_shape)
        kv = rng.standard_normal(key_shape)
        kg = ag.tensor(rng.standard_normal(kv[key].shape), dtype=dtype)
        k_expected = reference_rule("05.index_backward", kg, ag.Size(key_shape), key)
        with grading.checking(sum_and_index_slots(sum_backward, index_backward)):
            x = ag.tensor(xv, dtype=dtype, requires_grad=True)
            s_label = f"x.sum({dims}, keepdim={keepdim}), x of shape {shape} ({dtype})"
            _run(lambda: x.sum(dims, keepdim=keepdim).backward(gv), f"{s_label}.backward(g)",
                 SUM_COPY if keepdim else SUM_DIMS)
            k = ag.tensor(kv, dtype=dtype, requires_grad=True)
            k_label = f"k[{_mask_label(key)}], k of shape {key_shape} ({dtype})"
            _run(lambda: k[key].backward(kg), f"{k_label}.backward(g)", _index_rule(key))
        _expect_close(x.grad, s_expected, f"x.grad for {s_label} (random case #{i})",
                      SUM_COPY if keepdim else SUM_DIMS, dtype)
        _expect_close(k.grad, k_expected, f"k.grad for {k_label} (random case #{i})", _index_rule(key), dtype)
