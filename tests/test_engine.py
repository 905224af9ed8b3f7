"""The engine's own promises (issue: Engine): no torch import, deep graphs without
recursion, saved tensors released, dtypes preserved, no NumPy warnings."""

import gc
import subprocess
import sys
import warnings
import weakref

import numpy as np
import pytest

import autograd_lib as ag


def test_library_never_imports_torch():
    code = ("import sys, autograd_lib, autograd_lib.nn, autograd_lib.optim, autograd_lib.viz, "
            "autograd_lib.autograd, autograd_lib.demo; "
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, f"importing every autograd_lib module failed:\n{out.stderr}"
    assert out.stdout.strip() == "[]", f"expected no torch modules imported, saw {out.stdout.strip()}"


def test_deep_chain_backs_up_without_recursion_error():
    # 200 times Python's recursion limit: a recursive walk of the graph would fail long
    # before.  (The benchmarks build the million-node chain; here it would cost 20 s of CI.)
    x = ag.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(200_000):
        y = y + 1.0                     # AddBackward0 saves nothing: memory stays small
    y.backward(ag.ones(1))
    assert x.grad.tolist() == [1.0], f"expected x.grad == [1.0], saw {x.grad.tolist()}"
    del y                               # freeing the deep graph must not crash either
    gc.collect()


def test_long_chain_of_saving_ops_gives_exact_gradient():
    x = ag.tensor(1.0, dtype=ag.float64, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0001
    y.backward()
    expected = 1.0001 ** 20_000
    assert abs(x.grad.item() - expected) < 1e-9 * expected, \
        f"expected x.grad == {expected}, saw {x.grad.item()}"


def test_saved_tensors_released_after_backward_and_kept_with_retain_graph():
    def graph():
        x = ag.randn(1000, requires_grad=True)
        h = x.exp()                      # saves its result
        probe = weakref.ref(h.grad_fn._saved["result"].tensor._data)
        return x, h.sum(), probe

    x, loss, probe = graph()
    loss.backward(retain_graph=True)
    gc.collect()
    assert probe() is not None, "retain_graph=True must keep the saved result alive"
    loss.backward()
    gc.collect()
    assert probe() is None, "after backward without retain_graph the saved result must be freed"
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


def test_nodes_that_keep_nothing_share_an_empty_dict_that_refuses_writes():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    first, second = (x + 1).grad_fn, (-x).grad_fn          # AddBackward0 saves no tensor; NegBackward0 nothing
    assert first._saved == {} and first._saved is second._saved is second._params, \
        f"expected the nodes to share one empty dict, saw {first._saved!r}, {second._saved!r}, {second._params!r}"
    writes = {"item": lambda d: d.__setitem__("self", 1), "setdefault": lambda d: d.setdefault("self", 1),
              "update": lambda d: d.update(self=1), "clear": lambda d: d.clear(), "pop": lambda d: d.pop("self", None)}
    for how, write in writes.items():
        with pytest.raises(TypeError, match="give the node its own dict"):
            write(first._saved)
    assert second._saved == {} and second._params == {}, \
        f"expected the shared dicts still empty, saw {second._saved!r} {second._params!r}"
    mul = (x * x).grad_fn                                   # keeps both operands: a dict of its own
    assert sorted(mul._saved) == ["other", "self"] and mul._saved is not first._saved, \
        f"expected MulBackward0 to have its own _saved with self and other, saw {mul._saved!r}"


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_dtype_preserved_through_forward_and_backward(dtype):
    x = ag.randn(4, 3, dtype=dtype, requires_grad=True)
    w = ag.randn(3, 2, dtype=dtype, requires_grad=True)
    loss = ag.log_softmax((x @ w).tanh() * 2.5 + 1, 1).exp().sqrt().mean()
    assert loss.dtype is dtype, f"expected loss dtype {dtype}, saw {loss.dtype}"
    loss.backward()
    for t in (x, w):
        assert t.grad.dtype is dtype, f"expected grad dtype {dtype}, saw {t.grad.dtype}"


def test_no_numpy_warnings_leak():
    x = ag.tensor([0.0, -1.0, 1e30, 100.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = x.log() + x.sqrt() + (x * 1e30) + x.exp() + 1 / x + x ** -1.5 + x.sigmoid()
        y.sum().backward()
        ag.softmax(ag.tensor([1e30, -1e30, 0.0]), 0)
        ag.tensor([1.0, 0.0]) / 0
    assert np.isnan(x.grad._data).any() or np.isinf(x.grad._data).any(), \
        "expected inf/nan gradients at the singular points (as PyTorch), saw finite values only"


def test_grad_mode_is_thread_local():
    import threading
    seen = {}

    def worker():
        seen["worker"] = ag.is_grad_enabled()

    with ag.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        seen["main"] = ag.is_grad_enabled()
    assert seen == {"worker": True, "main": False}, f"expected worker True / main False, saw {seen}"


def test_engine_runs_each_node_once_in_topological_order():
    order = []
    x = ag.tensor(2.0, requires_grad=True)
    a = x * 3                                   # used by two branches
    b = a.exp()
    c = a.sin()
    d = b + c
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
        t.register_hook(lambda g, name=name: order.append(name))
    d.backward()
    assert order.index("a") > order.index("b") and order.index("a") > order.index("c"), \
        f"a's gradient must be complete (after b and c) before it flows on; saw order {order}"
    assert sorted(order) == ["a", "b", "c", "d"], f"each hook must run exactly once, saw {order}"
    expected = 3 * (np.exp(6.0) + np.cos(6.0))
    assert abs(x.grad.item() - expected) < 1e-3 * abs(expected), f"expected {expected}, saw {x.grad.item()}"


def test_graphs_are_freed_by_reference_counting_alone():
    """No reference cycles: a dead graph goes away at once, without the garbage
    collector (a node saving its own output must not point back at itself)."""
    gc.disable()
    try:
        x = ag.randn(3, requires_grad=True)
        y = x.exp().tanh().sigmoid().relu().sqrt() * x
        probes = []
        node = y.grad_fn
        while node is not None:
            probes.append(weakref.ref(node))
            nexts = [n for n, _ in node.next_functions if n is not None and type(n).__name__ != "AccumulateGrad"]
            node = nexts[0] if nexts else None
        del y, node, nexts
        alive = [p() for p in probes if p() is not None]
        assert alive == [], f"expected every node freed without gc, still alive: {[type(n).__name__ for n in alive]}"
    finally:
        gc.enable()
