"""torch.linalg's matrix functions (inv, det, slogdet, logdet, solve, cross, matrix_power,
multi_dot, vecdot), side by side with PyTorch (differential): values, first-order nodes,
gradients of orders 1 and 2 (the second-order graphs differ in their nodes, so their values
are compared), batches, the top-level and Tensor-method names, and the errors."""

import warnings

import numpy as np
import pytest

from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()


def _matrix(lib, shape, seed):
    """A well-conditioned float64 matrix (or batch): random plus 3 on the diagonal."""
    a = arr(shape, seed=seed) + 3 * np.eye(shape[-1])
    return lib.tensor(a, dtype=lib.float64, requires_grad=True)


def _orders(lib, y, inputs, seed):
    """y, and the gradients of (y * w).sum() of orders 1 and 2 (values; first-order nodes)."""
    w = lib.tensor(arr(tuple(y.shape), seed=seed), dtype=lib.float64)
    grads = lib.autograd.grad((y * w).sum(), inputs, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), inputs, allow_unused=True)
    return y, [g.detach() for g in grads], second


@scenario
def inv_and_inverse(lib):
    A = _matrix(lib, (3, 3), 1)
    B = _matrix(lib, (2, 4, 4), 2)
    return (_orders(lib, lib.linalg.inv(A), A, 3), _orders(lib, lib.inverse(B), B, 4),
            type(B.inverse().grad_fn).__name__)


@scenario
def det_slogdet_logdet(lib):
    A = _matrix(lib, (2, 3, 3), 5)
    sign, logabs = lib.linalg.slogdet(A)
    neg = lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=lib.float64, requires_grad=True)
    return (_orders(lib, lib.linalg.det(A), A, 6), _orders(lib, logabs, A, 7), sign,
            _orders(lib, lib.logdet(A @ A.mT), A, 8), lib.logdet(neg), lib.det(neg),
            lib.slogdet(neg), A.det(), A.slogdet()[1])


SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]]     # row 2 = 2 * row 1: rank 2


@scenario(atol=1e-12)
def det_of_a_singular_matrix(lib):
    # Only what does not depend on the machine is compared with torch: the determinant (0, up
    # to rounding), its node, and the gradient's shape and dtype.  torch's gradient at this
    # point is not a fact about det: its first-order rule goes through an LU factorization,
    # whose last pivot comes out exactly 0 or as a rounding residue depending on the CPU's
    # kernels (AVX-512 against AVX2), and torch then returns zeros or the adjugate.  The
    # gradient itself is compared with the mathematics below (test_det_gradient_at_a_singular_matrix).
    A = lib.tensor(SINGULAR, dtype=lib.float64, requires_grad=True)
    y = lib.linalg.det(A)
    g, = lib.autograd.grad(y, A)
    return y, g.shape, g.dtype, g.requires_grad


def _adjugate(a):
    """The transposed matrix of cofactors of a square NumPy matrix, from its minors."""
    n = a.shape[0]
    cof = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, axis=0), j, axis=1)
            cof[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return cof.T


def test_det_gradient_at_a_singular_matrix():
    """d det(A) / dA is the transposed adjugate, also where A is singular (Jacobi's formula;
    det is a polynomial in A's entries, so its gradient is defined everywhere).  At this
    rank-2 matrix it is not zero, and autograd_lib gives it (with create_graph too)."""
    import autograd_lib as ag
    a = np.array(SINGULAR)
    expected = _adjugate(a).T              # d det / d a_ij = cofactor_ij
    A = ag.tensor(a, requires_grad=True)
    g, = ag.autograd.grad(ag.linalg.det(A), A)
    assert np.allclose(g.numpy(), expected, atol=1e-12), f"expected the cofactors\n{expected}\nseen\n{g.numpy()}"
    assert abs(expected).max() > 1, "the cofactors of this rank-2 matrix are not all zero"
    A = ag.tensor(a, requires_grad=True)
    g, = ag.autograd.grad(ag.linalg.det(A), A, create_graph=True)
    assert np.allclose(g.detach().numpy(), expected, atol=1e-12), f"create_graph: expected\n{expected}\nseen\n{g}"


@scenario
def solve_matrix_and_vector(lib):
    A = _matrix(lib, (3, 3), 9)
    B = lib.tensor(arr((3, 2), seed=10), dtype=lib.float64, requires_grad=True)
    b = lib.tensor(arr((3,), seed=11), dtype=lib.float64, requires_grad=True)
    AA = _matrix(lib, (2, 3, 3), 12)
    BB = lib.tensor(arr((2, 3), seed=13), dtype=lib.float64, requires_grad=True)
    return (_orders(lib, lib.linalg.solve(A, B), (A, B), 14), _orders(lib, lib.linalg.solve(A, b), (A, b), 15),
            _orders(lib, lib.linalg.solve(AA, BB), (AA, BB), 16),
            _orders(lib, lib.linalg.solve(A, B.mT, left=False), (A, B), 17))


@scenario
def cross_products(lib):
    a = lib.tensor(arr((4, 3), seed=18), dtype=lib.float64, requires_grad=True)
    b = lib.tensor(arr((4, 3), seed=19), dtype=lib.float64, requires_grad=True)
    c = lib.tensor(arr((3, 5), seed=20), dtype=lib.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default_dim = lib.cross(c, c.flip(1))
    return (_orders(lib, lib.linalg.cross(a, b), (a, b), 21), default_dim,
            lib.linalg.cross(c, c.flip(1), dim=0), a.cross(b, dim=1),
            _orders(lib, lib.linalg.cross(a, b[:1]), (a, b), 22))


@scenario
def matrix_power_multi_dot_vecdot(lib):
    A = _matrix(lib, (3, 3), 23)
    v = lib.tensor(arr((3,), seed=24), dtype=lib.float64, requires_grad=True)
    B = lib.tensor(arr((3, 2), seed=25), dtype=lib.float64, requires_grad=True)
    return ([_orders(lib, lib.linalg.matrix_power(A, n), A, 26 + n) for n in (3, 2, 1, -2)],
            lib.linalg.matrix_power(A, 0), A.matrix_power(4),
            _orders(lib, lib.linalg.multi_dot([A, A, B]), (A, B), 31),
            _orders(lib, lib.linalg.multi_dot([v, A, B]), (v, A, B), 32),
            _orders(lib, lib.linalg.multi_dot([v, A, v]), (v, A), 33),
            _orders(lib, lib.linalg.vecdot(A, B.sum(1).expand(3, 3)), A, 34))


@scenario
def linalg_errors(lib):
    L = lib.linalg
    return (caught(L.inv, lib.zeros(2, 2)), caught(L.inv, lib.zeros(2, 3)), caught(L.det, lib.zeros(2, 3)),
            caught(L.solve, lib.zeros(2, 2), lib.ones(2)), caught(L.solve, lib.eye(2), lib.ones(3)),
            caught(L.inv, lib.eye(2, dtype=lib.int64)), caught(L.cross, lib.ones(2, 4), lib.ones(2, 4)),
            caught(L.inv, lib.ones(3)), isinstance(caught(L.inv, lib.zeros(2, 2)).error, RuntimeError),
            caught(L.multi_dot, [lib.ones(2, 2)]))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
