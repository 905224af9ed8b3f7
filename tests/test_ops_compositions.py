"""Compositions and small ops (``ops/compositions.py``), differential against PyTorch:
values, dtypes, node names of the whole graph, gradients, double backward, errors."""

import pytest

from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr
from test_ops_structure import _grads

SCENARIOS, scenario = registry()


@scenario
def stacking(lib):
    fns = {
        "concat": (lambda a, b: lib.concat([a, b], 1), (2, 3), (2, 2)),
        "concatenate": (lambda a, b: lib.concatenate((a, b), dim=-2), (2, 3), (1, 3)),
        "hstack_vectors": (lambda a, b: lib.hstack([a, b]), (3,), (2,)),
        "hstack_matrices": (lambda a, b: lib.hstack((a, b)), (2, 3), (2, 1)),
        "hstack_scalars": (lambda a, b: lib.hstack([a, b]), (), ()),
        "vstack_vectors": (lambda a, b: lib.vstack([a, b]), (3,), (3,)),
        "vstack_mixed": (lambda a, b: lib.vstack([a, b]), (2, 3), (3,)),
        "vstack_scalars": (lambda a, b: lib.vstack([a, b]), (), ()),
        "dstack_matrices": (lambda a, b: lib.dstack([a, b]), (2, 3), (2, 3)),
        "dstack_vectors": (lambda a, b: lib.dstack([a, b]), (3,), (3,)),
        "dstack_scalar": (lambda a, b: lib.dstack([a, b]), (), ()),
        "dstack_3d": (lambda a, b: lib.dstack([a, b]), (2, 3, 1), (2, 3)),
        "column_stack": (lambda a, b: lib.column_stack([a, b]), (3,), (3,)),
        "column_stack_mixed": (lambda a, b: lib.column_stack([a.t(), b]), (2, 3), (3,)),
        "column_stack_scalar": (lambda a, b: lib.column_stack([a, b]), (), (1, 2)),
        "ravel": (lambda a, b: a.ravel() * 2 + lib.ravel(b.t()), (2, 3), (3, 2)),
        "msort": (lambda a, b: lib.msort(a) + b.msort(), (3, 4), (3, 4)),
        "fmax": (lambda a, b: lib.fmax(a, b), (3, 4), (4,)),
        "fmin": (lambda a, b: a.fmin(b), (3, 4), (3, 1)),
        "vdot": (lambda a, b: lib.vdot(a, b), (4,), (4,)),
        "vdot_method": (lambda a, b: a.vdot(b) * 3, (5,), (5,)),
    }
    return {name: _grads(lib, fn, *shapes) for name, (fn, *shapes) in fns.items()}


@scenario
def fmax_fmin_nans_and_ties(lib):
    a = lib.tensor([1.0, float("nan"), float("nan"), 2.0, 3.0], requires_grad=True)
    b = lib.tensor([float("nan"), 2.0, float("nan"), 2.0, -1.0], requires_grad=True)
    out = []
    for fn in (lib.fmax, lib.fmin):
        y = fn(a, b)
        ga, gb = lib.autograd.grad((y * lib.arange(1.0, 6.0)).sum(), (a, b))
        out.append((y, ga, gb))
    i = lib.tensor([1, 5, 3])
    return out, lib.fmax(i, lib.tensor([2, 2, 2])), lib.fmin(i, lib.tensor([1.5, 9.0, 0.0]))


@scenario
def broadcasting(lib):
    x = lib.tensor(arr((2, 3)), requires_grad=True)
    v = lib.tensor(arr((3,), seed=1), requires_grad=True)
    c = lib.tensor(arr((2, 1), seed=2), requires_grad=True)
    a, b, d = lib.broadcast_tensors(x, v, c)
    (a * 1 + b * 2 + d * 3).sum().backward()
    same = lib.broadcast_tensors(x, x * 1)
    return (a, b, d, x.grad, v.grad, c.grad, same[0] is x, len(lib.broadcast_tensors(v)),
            lib.broadcast_shapes((2, 1), (3,)), lib.broadcast_shapes(2, (3, 1)), lib.broadcast_shapes(),
            lib.broadcast_shapes((1, 4), (5, 1, 1)), type(lib.broadcast_shapes((2,))).__name__)


@scenario
def meshgrids(lib):
    a = lib.tensor(arr((3,)), requires_grad=True)
    b = lib.tensor(arr((2,), seed=1), requires_grad=True)
    c = lib.tensor(1.5, requires_grad=True)
    out = {}
    for indexing in ("ij", "xy"):
        grids = lib.meshgrid(a, b, c, indexing=indexing)
        total = sum((g * (k + 1)).sum() for k, g in enumerate(grids))
        out[indexing] = (grids, lib.autograd.grad(total, (a, b, c)))
    return out, lib.meshgrid([a, b], indexing="xy"), lib.meshgrid(a, indexing="xy")


@scenario
def meshgrid_warns_without_indexing(lib):
    return lib.meshgrid(lib.arange(3), lib.arange(2))


@scenario
def small_ones(lib):
    x = lib.tensor([[1, 0], [2, 3]])
    return (lib.is_nonzero(lib.tensor([1.5])), lib.tensor(0).is_nonzero(), lib.tensor([[False]]).is_nonzero(),
            lib.logical_xor(x, lib.tensor([1.0, 0.0])), x.logical_xor(lib.tensor(True)),
            lib.msort(x), lib.msort(lib.tensor(2.0)), lib.vdot(lib.tensor([1, 2]), lib.tensor([3, 4])),
            lib.hstack([x, x]), lib.vstack([lib.tensor([1, 2]), lib.tensor([3.5, 4])]),
            lib.column_stack([lib.tensor([1, 2]), lib.tensor([[3], [4]])]), lib.ravel(lib.tensor(5)))


@scenario
def var_std_mean(lib):
    fns = {
        "var_mean": lambda x: lib.var_mean(x),
        "var_mean_dim": lambda x: lib.var_mean(x, 1),
        "var_mean_keepdim": lambda x: lib.var_mean(x, (0,), correction=0, keepdim=True),
        "var_mean_unbiased": lambda x: lib.var_mean(x, -1, False, True),
        "std_mean": lambda x: lib.std_mean(x),
        "std_mean_dim": lambda x: lib.std_mean(x, dim=0, correction=2),
        "std_mean_keepdim": lambda x: lib.std_mean(x, [0, 1], keepdim=True),
    }
    out = {}
    for name, fn in fns.items():
        def both(x, fn=fn):
            spread, mean = fn(x)
            return spread * 2 + mean * mean
        out[name] = _grads(lib, both, (3, 4))
        r = fn(lib.tensor(arr((3, 4)), requires_grad=True))
        out[name + "_only_spread"] = lib.autograd.grad(r[0].sum(), r[0].grad_fn.next_functions[0][0].variable)
        r = fn(lib.tensor(arr((3, 4)), requires_grad=True))
        out[name + "_only_mean"] = lib.autograd.grad(r[1].sum(), r[1].grad_fn.next_functions[0][0].variable)
        out[name + "_type"] = (type(r).__name__, r[0].grad_fn is r[1].grad_fn, r[1].output_nr)
    return out


@scenario
def triangle_indices(lib):
    return (lib.tril_indices(3, 4), lib.tril_indices(3, 4, 1), lib.triu_indices(4, 3, -1),
            lib.triu_indices(3, 3, 5), lib.tril_indices(0, 3), lib.tril_indices(3, 3, dtype=lib.int32),
            lib.triu_indices(3, 3, offset=-5))


@scenario
def composition_errors(lib):
    x = lib.tensor(arr((2, 3)))
    v = lib.tensor(arr((3,)))
    return [caught(f) for f in (
        lambda: lib.hstack([]), lambda: lib.vstack([]), lambda: lib.dstack([]), lambda: lib.column_stack([]),
        lambda: lib.vstack([x, lib.ones(2)]), lambda: lib.broadcast_tensors(x, lib.ones(4)),
        lambda: lib.broadcast_shapes((2, 1), (4, 3)),
        lambda: lib.meshgrid(v, v, indexing="foo"), lambda: lib.meshgrid(v, v.double(), indexing="ij"),
        lambda: lib.meshgrid(indexing="ij"), lambda: lib.tensor([]).is_nonzero(), lambda: v.is_nonzero(),
        lambda: lib.vdot(x, x), lambda: lib.vdot(v, v.double()), lambda: lib.vdot(v, lib.ones(4)),
        lambda: lib.fmax(x, 2.0), lambda: lib.var_mean(lib.tensor([1, 2])),
        lambda: lib.std_mean(lib.tensor([1, 2])), lambda: lib.tril_indices(3, 3, dtype=lib.float32),
        lambda: lib.triu_indices(-1, 3), lambda: lib.tril_indices(2, -3), lambda: lib.var_mean(x, 2))]


@scenario(key="meshgrid: Expected 0D or 1D tensor in the tensor list but got:")
def meshgrid_of_a_matrix(lib):
    return lib.meshgrid(lib.ones(2, 3), lib.ones(3), indexing="ij")


def _values_only(result):
    """``_grads``'s result without the graph (einsum's graph is not PyTorch's: bmm there)."""
    y, first, second = result
    return y.detach(), first, second


@scenario
def contractions(lib):
    fns = {
        "tensordot_lists": (lambda a, b: lib.tensordot(a, b, dims=([1], [1])), (2, 3), (4, 3)),
        "tensordot_int": (lambda a, b: lib.tensordot(a, b, 1), (2, 3), (3, 4)),
        "tensordot_two": (lambda a, b: lib.tensordot(a, b), (2, 3), (2, 3)),
        "tensordot_zero": (lambda a, b: lib.tensordot(a, b, 0), (2, 3), (3,)),
        "tensordot_vectors": (lambda a, b: lib.tensordot(a, b, 1), (3,), (3,)),
        "tensordot_vector_left": (lambda a, b: lib.tensordot(a, b, ([0], [1])), (3,), (2, 3)),
        "tensordot_3d": (lambda a, b: lib.tensordot(a, b, ([0, 1], [1, 0])), (3, 2, 4), (2, 3)),
        "trapezoid": (lambda y: lib.trapezoid(y), (2, 4)),
        "trapezoid_dx": (lambda y: lib.trapezoid(y, dx=0.5, dim=0), (3, 4)),
        "trapezoid_x": (lambda y, x: lib.trapezoid(y, x), (2, 4), (4,)),
        "trapezoid_x_same": (lambda y, x: lib.trapezoid(y, x, dim=-2), (3, 2), (3, 2)),
        "trapezoid_one": (lambda y: lib.trapezoid(y), (2, 1)),
    }
    return {name: _grads(lib, fn, *shapes) for name, (fn, *shapes) in fns.items()}


@scenario
def einsums(lib):
    fns = {
        "matmul": (lambda a, b: lib.einsum("ij,jk->ik", a, b), (2, 3), (3, 4)),
        "implicit": (lambda a, b: lib.einsum("ij,kj", a, b), (2, 3), (4, 3)),
        "bmm": (lambda a, b: lib.einsum("bij,bjk->bik", a, b), (2, 3, 4), (2, 4, 5)),
        "outer": (lambda a, b: lib.einsum("i,j->ij", a, b), (3,), (4,)),
        "dot": (lambda a, b: lib.einsum("i,i->", a, b), (3,), (3,)),
        "hadamard": (lambda a, b: lib.einsum("ij,ij->ij", a, b), (2, 3), (2, 3)),
        "ellipsis": (lambda a, b: lib.einsum("...j,j->...", a, b), (2, 2, 3), (3,)),
        "ellipsis_batch": (lambda a, b: lib.einsum("...ij,...jk", a, b), (2, 3, 4), (4, 2)),
        "three": (lambda a, b, c: lib.einsum("ij,jk,kl->il", a, b, c), (2, 3), (3, 4), (4, 2)),
        "list": (lambda a, b: lib.einsum("i j , j -> i", [a, b]), (2, 3), (3,)),
        "trace": (lambda a: lib.einsum("ii", a), (3, 3)),
        "diagonal": (lambda a: lib.einsum("ii->i", a), (3, 3)),
        "batch_diagonal": (lambda a: lib.einsum("bii->bi", a), (2, 3, 3)),
        "sum": (lambda a: lib.einsum("ij->", a), (2, 3)),
        "column_sums": (lambda a: lib.einsum("ij->j", a), (2, 3)),
        "transpose": (lambda a: lib.einsum("ij->ji", a), (2, 3)),
        "bilinear": (lambda a, w, b: lib.einsum("bn,anm,bm->ba", a, w, b), (2, 3), (4, 3, 5), (2, 5)),
        "broadcast_batch": (lambda a, b: lib.einsum("bi,bi->b", a, b), (1, 3), (4, 3)),
        "cycle": (lambda a, b, c: lib.einsum("abc,cd,db->a", a, b, c), (2, 3, 4), (4, 5), (5, 3)),
        "diagonal_then_product": (lambda a, b: lib.einsum("iij,jk->ik", a, b), (3, 3, 2), (2, 4)),
        "lonely_letters": (lambda a, b: lib.einsum("ijq,jkr->ik", a, b), (2, 3, 2), (3, 4, 5)),
        "empty_rows": (lambda a, b: lib.einsum("ij,jk->ik", a, b), (0, 3), (3, 4)),
        "empty_sum": (lambda a, b: lib.einsum("ij,jk->ik", a, b), (2, 0), (0, 4)),
        "empty_batch_broadcast": (lambda a, b: lib.einsum("bij,bjk->bik", a, b), (0, 2, 3), (1, 3, 4)),
    }
    return {name: _values_only(_grads(lib, fn, *shapes)) for name, (fn, *shapes) in fns.items()}


@scenario
def einsum_single_operand_graphs(lib):
    x = lib.tensor(arr((2, 3)), requires_grad=True)
    return lib.einsum("ij", x), lib.einsum("ij->ji", x), lib.einsum("ij->j", x), lib.einsum("ij->", x)


@scenario
def contraction_dtypes_and_errors(lib):
    x = lib.tensor(arr((2, 3)))
    v = lib.tensor(arr((3,)))
    i = lib.tensor([[1, 2], [3, 4]])
    return (lib.tensordot(i, i, 1), lib.einsum("ij,jk", i, i), lib.trapezoid(lib.tensor([1, 2, 4])),
            lib.trapezoid(lib.tensor([1, 2, 4]), dx=2), lib.trapezoid(lib.zeros(2, 0)),
            lib.trapezoid(lib.tensor([1, 2, 4]), lib.tensor([0, 1, 3])), lib.trapezoid(lib.tensor([[1, 2]]), dx=0.5),
            [caught(f) for f in (
                lambda: lib.tensordot(x, v, ([0], [0])), lambda: lib.tensordot(x, v, -1),
                lambda: lib.tensordot(x, v, ([0, 1], [0])), lambda: lib.tensordot(x, x.double(), 1),
                lambda: lib.tensordot(x, v, 3), lambda: lib.trapezoid(x, lib.ones(4)),
                lambda: lib.trapezoid(lib.tensor(1.0)), lambda: lib.einsum("ij,jk", x),
                lambda: lib.einsum("ij", x, x), lambda: lib.einsum("ijk", x), lambda: lib.einsum("i1", x))])


@scenario
def extra_ops(lib):
    fns = {
        "aminmax": (lambda x: sum(lib.aminmax(x)), None),
        "aminmax_dim": (lambda x: x.aminmax(dim=1)[0] * 2 + x.aminmax(dim=1).max, None),
        "aminmax_keepdim": (lambda x: lib.aminmax(x, dim=-2, keepdim=True).min, None),
        "aminmax_ties": (lambda x: lib.aminmax(x, dim=1).max - lib.aminmax(x).min, [[1.0, 3.0, 3.0], [0.0, 0.0, -1.0]]),
        "aminmax_only_max": (lambda x: lib.aminmax(x, dim=0)[1], None),
        "ldexp": (lambda x: lib.ldexp(x, lib.tensor([1, -2, 3])), None),
        "ldexp_method": (lambda x: x.ldexp(lib.tensor([[0], [2]])), None),
    }
    return {name: _grads(lib, fn, (2, 3), values=v and [v]) for name, (fn, v) in fns.items()}


@scenario
def ldexp_float_exponent(lib):
    return _grads(lib, lambda x, e: lib.ldexp(x, e), (2, 3), (3,))


@scenario
def extra_values(lib):
    x = lib.tensor([[1, 2], [3, 0]])
    y = lib.tensor([1.0, 2.0]) * 1
    y.ldexp_(lib.tensor([1, 2]))
    h = lib.tensor([1.0, 0.0, -2.0])
    return (lib.heaviside(h, lib.tensor(0.5)), h.heaviside(lib.tensor([7.0, 8.0, 9.0])),
            lib.heaviside(lib.tensor([1, 0, -2]), lib.tensor(7)), y,
            lib.ldexp(lib.tensor([1, 2]), lib.tensor([1, 2])),
            lib.aminmax(x, dim=0, keepdim=True), lib.aminmax(x), repr(lib.aminmax(x)), lib.aminmax(lib.tensor(2.5)),
            lib.logspace(0, 2, 3), lib.logspace(0, 1, 5, base=3, dtype=lib.float64),
            lib.logspace(0, 3, 4, dtype=lib.int64),
            lib.logspace(-1, 1, 1), lib.bincount(lib.tensor([0, 1, 1, 3])), lib.bincount(lib.tensor([0, 1]), minlength=4),
            lib.bincount(lib.tensor([0, 1, 1]), weights=lib.tensor([0.5, 1.0, 2.0])),
            lib.bincount(lib.tensor([0, 2]), weights=lib.tensor([1, 2])),
            lib.bincount(lib.tensor([0, 2]), lib.tensor([1.0, 2.0], dtype=lib.float64)),
            lib.bincount(lib.tensor([], dtype=lib.int64)), lib.tensor([2, 0]).bincount(),
            lib.bucketize(lib.tensor([1, 5, 9]), lib.tensor([1, 3, 5, 7, 9])),
            lib.bucketize(lib.tensor([[1, 5], [9, 0]]), lib.tensor([1, 3, 5, 7, 9]), right=True, out_int32=True),
            lib.searchsorted(lib.tensor([1, 3, 5, 7, 9]), lib.tensor([3, 6, 9])),
            lib.searchsorted(lib.tensor([[1, 3, 5], [2, 4, 6]]), lib.tensor([[3], [5]]), right=True, out_int32=True),
            lib.searchsorted(lib.tensor([1.0, 3.0, 5.0]), lib.tensor([4, 1]), side="right"),
            lib.searchsorted(lib.tensor([5, 1, 3]), lib.tensor([2, 3]), sorter=lib.tensor([1, 2, 0])),
            lib.searchsorted(lib.tensor([1, 3, 5]), 4), lib.bucketize(3, lib.tensor([1, 3, 5])))


@scenario
def heaviside_has_no_derivative(lib):
    x = lib.tensor([1.0, 0.0, -2.0], requires_grad=True)
    y = lib.heaviside(x, lib.tensor(0.5))
    v = lib.tensor(0.5, requires_grad=True)
    z = lib.heaviside(x.detach(), v) + lib.heaviside(x, v)
    return y, caught(y.sum().backward), z, caught(z.sum().backward)


@scenario
def extra_errors(lib):
    return [caught(f) for f in (
        lambda: lib.heaviside(lib.tensor([1.0]), lib.tensor([0.5], dtype=lib.float64)),
        lambda: lib.bincount(lib.tensor([[0, 1]])), lambda: lib.bincount(lib.tensor([-1, 1])),
        lambda: lib.bincount(lib.tensor([0.0, 1.0])), lambda: lib.aminmax(lib.tensor([])),
        lambda: lib.aminmax(lib.zeros(2, 0), dim=1),
        lambda: lib.searchsorted(lib.tensor([[1, 3, 5]]), lib.tensor([4, 1])),
        lambda: lib.searchsorted(lib.tensor([1.0, 3, 5]), lib.tensor([4, 1]), side="left", right=True),
        lambda: lib.bucketize(lib.tensor([4, 1]), lib.tensor([[1.0, 3, 5]])))]


@scenario
def gamma_functions(lib):
    fns = {
        "lgamma": lambda x: lib.lgamma(x), "lgamma_method": lambda x: x.lgamma(),
        "digamma": lambda x: lib.digamma(x), "digamma_method": lambda x: x.digamma(),
        "polygamma1": lambda x: lib.polygamma(1, x), "polygamma2": lambda x: x.polygamma(2),
    }
    positive = {name: _grads(lib, fn, (2, 3), low=0.2, high=30.0) for name, fn in fns.items()}
    negative = {name: _grads(lib, fn, (2, 3), low=-6.0, high=-0.1)[:2] for name, fn in fns.items()}
    return positive, negative


@scenario
def gamma_values_and_in_place(lib):
    x = lib.tensor([0.1, 0.5, 1.0, 2.5, 7.3, 19.9, 25.0, 100.0, -0.5, -1.3, -7.7], dtype=lib.float64)
    y = lib.tensor([0.5, 3.0]) * 1
    z = lib.tensor([0.5, 3.0]) * 1
    w = lib.tensor([0.5, 3.0]) * 1
    y.lgamma_()
    z.digamma_()
    w.polygamma_(1)
    return (lib.lgamma(x), lib.digamma(x), lib.polygamma(2, x), lib.polygamma(0, x), lib.lgamma(lib.tensor([1, 2, 5])),
            lib.digamma(lib.tensor([0.0, -0.0, -1.0, -2.0])), lib.lgamma(lib.tensor([0.0, -1.0])), y, z, w,
            caught(lib.polygamma, -1, x))


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)


def test_einsum_contracts_pairs_with_bmm():
    """A product of two operands is one batched matrix product, not a broadcast product
    summed afterwards (which would hold the product of all the sizes: 600 x 700 x 500
    numbers for this matmul)."""
    import autograd_lib
    a = autograd_lib.zeros(600, 700, requires_grad=True)
    b = autograd_lib.zeros(700, 500, requires_grad=True)
    y = autograd_lib.einsum("ij,jk->ik", a, b)
    names, stack = set(), [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            names.add(type(node).__name__)
            stack.extend(n for n, _ in node.next_functions)
    assert "BmmBackward0" in names and "MulBackward0" not in names, (
        f"expected einsum's graph to contract with BmmBackward0 and no MulBackward0; saw {sorted(names)}")


def test_ops_sharing_a_node_name_keep_their_own_formulas():
    """floor_divide and heaviside both record PyTorch's "NotImplemented" node with one input
    per tensor; whichever ran first, each must keep its own message (the per-count classes
    were cached by node name, so heaviside raised floor_divide's)."""
    import autograd_lib
    a = autograd_lib.tensor([1., -1.], requires_grad=True)
    b = autograd_lib.tensor([0.5, 0.5], requires_grad=True)
    messages = []
    for op in (lambda: a // b, lambda: autograd_lib.heaviside(a, b)):
        try:
            op().sum().backward()
        except RuntimeError as error:
            messages.append(str(error))
    assert messages == ["derivative for aten::floor_divide is not implemented",
                        "derivative for aten::heaviside is not implemented"], (
        f"expected each op's own 'not implemented' message, in order; saw {messages}")


def test_a_shared_node_name_names_the_first_rule_declared():
    """Exercise slots reach a rule through its node name (``NODES``); when several ops
    record the same PyTorch node, the name must stay with the op declared first (the
    core table's), not with whichever family module declared one last."""
    from autograd_lib.derivatives import NODES, RULES
    for node, op in (("NotImplemented", "floor_divide"), ("EluBackward0", "elu"),
                     ("HardtanhBackward0", "hardtanh")):
        assert NODES[node] is RULES[op], (
            f"expected NODES[{node!r}] to be {op}'s node class; saw the class of "
            f"{[o for o, c in RULES.items() if c is NODES[node]]}")
