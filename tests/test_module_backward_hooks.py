"""``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook``, side by side
with PyTorch.

Each scenario is one function of the library (``torch`` or ``autograd_lib``): it builds the
same model with the same weights and inputs, registers hooks that record what they see, runs
a backward, and returns a record (the hooks' calls with their gradients, the final ``.grad``
of the parameters and inputs, the ``grad_fn`` names of the outputs).  The test compares the
two records and names the first difference: what PyTorch gave and what autograd_lib gave.
"""

import warnings
import zlib

import numpy as np
import pytest

import autograd_lib as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")


# ------------------------------------------------------------------ harness

def arr(t):
    """A gradient (tensor of either library, or None) as a NumPy array (or None)."""
    return None if t is None else np.array(t.detach().numpy(), dtype=np.float64)


def grads(tup):
    """A tuple of gradients as a tuple of arrays / None."""
    return tuple(arr(g) for g in tup)


def data(name, shape):
    """Deterministic values for ``name`` (the same in both libraries)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.standard_normal(shape).astype(np.float32)


def tensor(lib, name, shape, requires_grad=True):
    return lib.tensor(data(name, shape), requires_grad=requires_grad)


def set_params(lib, module):
    """Give every parameter the values its name determines."""
    with lib.no_grad():
        for name, p in module.named_parameters():
            p.copy_(lib.tensor(data(name, tuple(p.shape))))
    return module


def param_grads(module):
    return {name: arr(p.grad) for name, p in module.named_parameters()}


def grad_fn_graph(t, depth=2):
    """``t.grad_fn``'s name and those of the nodes below it (``depth`` levels)."""
    def walk(node, depth):
        if node is None:
            return None
        name = node.name().replace("torch::autograd::", "")
        if depth == 0:
            return name
        return name, tuple(walk(n, depth - 1) for n, _ in node.next_functions)
    return walk(t.grad_fn, depth)


def differences(expected, seen, where="record"):
    """Where ``seen`` differs from ``expected``: a list of messages."""
    if isinstance(expected, np.ndarray) or isinstance(seen, np.ndarray):
        if not (isinstance(expected, np.ndarray) and isinstance(seen, np.ndarray)):
            return [f"{where}: expected {expected!r}, seen {seen!r}"]
        if expected.shape != seen.shape or not np.allclose(expected, seen, rtol=1e-5, atol=1e-5):
            return [f"{where}: expected\n{expected}\nseen\n{seen}"]
        return []
    if isinstance(expected, dict) and isinstance(seen, dict):
        if list(expected) != list(seen):
            return [f"{where}: expected keys {list(expected)}, seen {list(seen)}"]
        return [d for k in expected for d in differences(expected[k], seen[k], f"{where}[{k!r}]")]
    if isinstance(expected, (list, tuple)) and isinstance(seen, (list, tuple)):
        if len(expected) != len(seen):
            return [f"{where}: expected {len(expected)} entries {expected!r}, seen {len(seen)} {seen!r}"]
        return [d for i, (e, s) in enumerate(zip(expected, seen))
                for d in differences(e, s, f"{where}[{i}]")]
    if type(expected) is not type(seen) or expected != seen:
        return [f"{where}: expected {expected!r}, seen {seen!r}"]
    return []


def check_same(scenario, *, needs_calls=True):
    """Run ``scenario`` with both libraries and assert the records agree; returns them."""
    expected, seen = scenario(torch), scenario(al)
    if needs_calls:   # a scenario whose hooks never ran would compare nothing
        assert expected["calls"], f"expected the torch scenario to call hooks; record: {expected}"
    found = differences(expected, seen)
    assert not found, "autograd_lib differs from PyTorch (expected = torch):\n" + "\n".join(found)
    return expected, seen


def test_the_comparison_can_fail():
    expected = {"calls": [("hook", (np.ones(2), None))]}
    assert differences(expected, {"calls": [("hook", (np.ones(2), None))]}) == []
    assert differences(expected, {"calls": [("hook", (np.zeros(2), None))]})
    assert differences(expected, {"calls": [("hook", (np.ones(2), np.ones(2)))]})
    assert differences(expected, {"calls": [("pre", (np.ones(2), None))]})
    assert differences(expected, {"calls": []})


# ---------------------------------------------------------------- scenarios

def recorder(calls, label):
    """A full backward hook that records what it gets."""
    def hook(module, grad_input, grad_output):
        calls.append((label, grads(grad_input), grads(grad_output)))
    return hook


def pre_recorder(calls, label):
    def hook(module, grad_output):
        calls.append((label, grads(grad_output)))
    return hook


def test_linear():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        m.register_full_backward_pre_hook(pre_recorder(calls, "pre"))
        m.register_full_backward_hook(recorder(calls, "hook"))
        x = tensor(lib, "x", (4, 3))
        y = m(x)
        (y ** 2).sum().backward()
        return {"calls": calls, "params": param_grads(m), "x": arr(x.grad),
                "grad_fn": grad_fn_graph(y)}
    expected, _ = check_same(scenario)
    assert expected["grad_fn"][0] == "BackwardHookFunctionBackward"


def test_sequential_of_linear_and_relu_hooks_fire_from_the_last_layer_back():
    def scenario(lib):
        model = set_params(lib, lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU()))
        calls = []
        model.register_full_backward_hook(recorder(calls, "sequential"))
        model[0].register_full_backward_hook(recorder(calls, "linear"))
        model[1].register_full_backward_hook(recorder(calls, "relu"))
        x = tensor(lib, "x", (3, 4))
        y = model(x)
        (y * tensor(lib, "w", (3, 5), requires_grad=False)).sum().backward()
        return {"calls": calls, "params": param_grads(model), "x": arr(x.grad),
                "grad_fn": grad_fn_graph(y, depth=3)}
    check_same(scenario)


def two_inputs(lib):
    class TwoInputs(lib.nn.Module):
        def forward(self, a, b, scale):
            return a * b * scale, a + b
    return TwoInputs()


def test_two_inputs_one_not_requiring_grad_and_a_number():
    def scenario(lib):
        m = two_inputs(lib)
        calls = []
        m.register_full_backward_hook(recorder(calls, "hook"))
        a, b = tensor(lib, "a", (3,)), tensor(lib, "b", (3,), requires_grad=False)
        prod, total = m(a, b, 2.0)
        prod.sum().backward()            # `total` gets no gradient: None in grad_output
        return {"calls": calls, "a": arr(a.grad), "b": arr(b.grad),
                "grad_fn": [grad_fn_graph(prod), grad_fn_graph(total)]}
    check_same(scenario)


def test_no_input_requires_grad_calls_the_hook_with_none_and_warns():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        m.register_full_backward_hook(recorder(calls, "hook"))
        y = m(tensor(lib, "x", (4, 3), requires_grad=False))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y.sum().backward()
        messages = [str(w.message) for w in caught]
        return {"calls": calls, "params": param_grads(m), "grad_fn": grad_fn_graph(y),
                "warnings": messages, "warned_here": [w.filename == __file__ for w in caught]}
    expected, _ = check_same(scenario)
    assert expected["calls"][0][1] == (None,)


def test_output_used_twice_fires_the_hooks_once():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        m.register_full_backward_pre_hook(pre_recorder(calls, "pre"))
        m.register_full_backward_hook(recorder(calls, "hook"))
        x = tensor(lib, "x", (4, 3))
        y = m(x)
        (y * y + y.exp()).sum().backward()
        return {"calls": calls, "params": param_grads(m), "x": arr(x.grad),
                "grad_fn": grad_fn_graph(y)}
    expected, _ = check_same(scenario)
    assert len(expected["calls"]) == 2


def test_hook_returning_a_new_grad_input_changes_the_input_gradient():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        m.register_full_backward_hook(recorder(calls, "after"))   # sees the replacement
        x = tensor(lib, "x", (4, 3))
        h = x * 1                                                  # a node between x and m
        m(h).sum().backward()
        return {"calls": calls, "params": param_grads(m), "x": arr(x.grad)}
    expected, _ = check_same(scenario)
    unchanged = set_params(torch, torch.nn.Linear(3, 2))
    x = tensor(torch, "x", (4, 3))
    unchanged(x).sum().backward()
    assert np.allclose(expected["x"], 10 * arr(x.grad)), "the oracle's x.grad should be 10 times larger"


def test_pre_hook_returning_a_new_grad_output_changes_every_gradient_below():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
        m.register_full_backward_pre_hook(pre_recorder(calls, "pre"))   # sees the replacement
        m.register_full_backward_hook(recorder(calls, "hook"))
        x = tensor(lib, "x", (4, 3))
        m(x).sum().backward()
        return {"calls": calls, "params": param_grads(m), "x": arr(x.grad)}
    expected, _ = check_same(scenario)
    assert np.allclose(expected["calls"][0][1][0], 3), "the oracle's pre hook should see 3s"


def test_remove_by_handle_before_forward_and_after_forward():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        gone = m.register_full_backward_hook(recorder(calls, "removed before forward"))
        late = m.register_full_backward_hook(recorder(calls, "removed after forward"))
        pre = m.register_full_backward_pre_hook(pre_recorder(calls, "pre removed before forward"))
        m.register_full_backward_hook(recorder(calls, "kept"))
        gone.remove()
        pre.remove()
        x = tensor(lib, "x", (4, 3))
        y = m(x)
        late.remove()             # the hooks of a call are those registered when it ran
        y.sum().backward()
        late.remove()             # twice is harmless
        y2 = m(x)                 # a new call: without the removed hooks
        y2.sum().backward()
        return {"calls": [c[0] for c in calls], "grad_fn": [grad_fn_graph(y), grad_fn_graph(y2)]}
    check_same(scenario)


def test_order_of_several_hooks_and_prepend():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        calls = []
        m.register_full_backward_hook(recorder(calls, "hook 1"))
        m.register_full_backward_pre_hook(pre_recorder(calls, "pre 1"))
        m.register_full_backward_hook(recorder(calls, "hook 2"))
        m.register_full_backward_hook(recorder(calls, "hook 3 prepended"), prepend=True)
        m.register_full_backward_pre_hook(pre_recorder(calls, "pre 2 prepended"), prepend=True)
        m.register_full_backward_pre_hook(pre_recorder(calls, "pre 3"))
        m(tensor(lib, "x", (4, 3))).sum().backward()
        return {"calls": [c[0] for c in calls]}
    expected, _ = check_same(scenario)
    assert expected["calls"][0] == "pre 2 prepended"


def test_without_grad_or_hooks_nothing_is_wrapped():
    def scenario(lib):
        m = set_params(lib, lib.nn.Linear(3, 2))
        plain = m(tensor(lib, "x", (4, 3)))
        handle = m.register_full_backward_hook(lambda *args: None)
        with lib.no_grad():
            no_grad = m(tensor(lib, "x", (4, 3)))
        handle.remove()
        removed = m(tensor(lib, "x", (4, 3)))
        return {"calls": ["-"], "grad_fn": [grad_fn_graph(plain, 0), grad_fn_graph(no_grad, 0),
                                            grad_fn_graph(removed, 0)]}
    check_same(scenario)


# -------------------------------------------------------------------- errors

def error_of(fn):
    try:
        fn()
    except Exception as error:          # noqa: BLE001 - the type is part of what is compared
        return type(error).__name__, str(error).replace("torch.", "autograd_lib.")
    return None


def test_errors_match_torch():
    def scenario(lib):
        def wrong_length():
            m = lib.nn.Linear(3, 2)
            m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
            m(tensor(lib, "x", (4, 3))).sum().backward()

        def wrong_length_pre():
            m = lib.nn.Linear(3, 2)
            m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
            m(tensor(lib, "x", (4, 3))).sum().backward()

        def not_none_without_input_grad():
            m = lib.nn.Linear(3, 2)
            m.register_full_backward_hook(lambda mod, gi, go: (lib.ones(4, 3),))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m(tensor(lib, "x", (4, 3), requires_grad=False)).sum().backward()

        class InPlace(lib.nn.Module):
            def forward(self, x):
                return x.mul_(2)

        def modifies_its_input():
            m = InPlace()
            m.register_full_backward_hook(lambda *args: None)
            m(tensor(lib, "x", (3,)) * 1)

        return {"calls": [error_of(wrong_length), error_of(wrong_length_pre),
                          error_of(not_none_without_input_grad), error_of(modifies_its_input)]}
    expected, _ = check_same(scenario)
    assert None not in expected["calls"], f"expected every case to raise in torch: {expected}"


def test_warning_for_an_output_that_is_not_a_tensor_or_tuple():
    def scenario(lib):
        class ListOut(lib.nn.Module):
            def forward(self, x):
                return [x * 2]
        m = ListOut()
        m.register_full_backward_hook(lambda *args: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m(tensor(lib, "x", (3,)))
        return {"calls": [str(w.message).replace("torch.", "autograd_lib.") for w in caught],
                "grad_fn": grad_fn_graph(out[0], 0)}
    check_same(scenario)


def test_gradient_reaching_the_inputs_without_the_outputs_calls_no_hook():
    def scenario(lib):
        class Stash(lib.nn.Module):
            def forward(self, x):
                self.seen_input = x          # the view of x that the hooks' node made
                return x * 2
        m = Stash()
        calls = []
        m.register_full_backward_hook(recorder(calls, "hook"))
        x = tensor(lib, "x", (3,))
        m(x).sum().backward()                    # the hook runs once, with grad_output
        (m.seen_input * 5).sum().backward()      # reaches the inputs' node only: no call
        return {"calls": calls, "x": arr(x.grad), "grad_fn": grad_fn_graph(m.seen_input)}
    expected, _ = check_same(scenario)
    assert len(expected["calls"]) == 1, f"expected one call in torch, saw {expected['calls']}"
