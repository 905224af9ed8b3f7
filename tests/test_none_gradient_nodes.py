"""A node that no gradient reaches at all (a custom Function's backward returned None for its
input), side by side with PyTorch 2.13: the engine still runs it.  Its hooks are called with
None, a built-in node unpacks what it saved and returns None for every input, a custom
Function's backward is called (with zeros, unless ``set_materialize_grads(False)``), a leaf's
``.grad`` stays None while its post-accumulate hooks run; a pass with ``inputs=`` still runs
only the nodes that lead to an input."""

import warnings

import pytest

import autograd_lib as ag

torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")


def _functions(lib):
    """``Drop`` (its backward returns None: nothing flows below it), ``Show`` (notes what its
    backward got, passes on three times it), ``Two`` (two outputs, one gradient for its input),
    ``Saver`` (saves its input)."""
    class Drop(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return None

    class Show(lib.autograd.Function):
        log = None

        @staticmethod
        def forward(ctx, x, materialize=True):
            ctx.set_materialize_grads(materialize)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            Show.log.append(("Show.backward", _value(g)))
            return (None if g is None else g * 3), None

    class Two(lib.autograd.Function):
        log = None

        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            Two.log.append(("Two.backward", _value(g1), _value(g2)))
            return g1 + g2

    class Saver(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x

    return Drop, Show, Two, Saver


def _value(g):
    """A gradient as plain data: None, or nested lists."""
    if g is None:
        return None
    if isinstance(g, (tuple, list)):
        return tuple(_value(x) for x in g)
    return g.tolist()


def _grad(t):
    return None if t.grad is None else t.grad.tolist()


def _hooks_on_exp(lib, log):
    """``x`` (a leaf), ``y = x.exp()``, with hooks on y, its node and x noting what they get."""
    x = lib.ones(2, requires_grad=True)
    y = x.exp()
    y.register_hook(lambda g: log.append(("tensor hook", _value(g))))
    y.grad_fn.register_prehook(lambda go: log.append(("pre-hook", _value(go))))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post-hook", _value(gi), _value(go))))
    x.register_hook(lambda g: log.append(("leaf hook", _value(g))))
    return x, y


def hooks_of_a_built_in_node(lib, log):
    Drop, *_ = _functions(lib)
    x, y = _hooks_on_exp(lib, log)
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post-accumulate hook", _grad(t))))
    y.retain_grad()
    Drop.apply(y).sum().backward()
    log.append(("x.grad", _grad(x), "y.grad", _grad(y)))


def custom_function_gets_zeros(lib, log):
    Drop, Show, *_ = _functions(lib)
    Show.log = log
    x = lib.ones(2, requires_grad=True)
    s = Show.apply(x)
    s.register_hook(lambda g: log.append(("s hook", _value(g))))
    s.grad_fn.register_prehook(lambda go: log.append(("pre-hook", _value(go))))
    s.grad_fn.register_hook(lambda gi, go: log.append(("post-hook", _value(gi), _value(go))))
    Drop.apply(s).sum().backward()
    log.append(("x.grad", _grad(x)))


def custom_function_without_materializing(lib, log):
    Drop, Show, *_ = _functions(lib)
    Show.log = log
    x = lib.ones(2, requires_grad=True)
    s = Show.apply(x, False)
    s.grad_fn.register_hook(lambda gi, go: log.append(("post-hook", _value(gi), _value(go))))
    Drop.apply(s).sum().backward()
    log.append(("x.grad", _grad(x)))


def zeros_flow_on_below_a_custom_function(lib, log):
    Drop, Show, Two, _ = _functions(lib)
    Show.log = Two.log = log
    x = lib.ones(2, requires_grad=True)
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: log.append(("exp post-hook", _value(gi), _value(go))))
    a, b = Two.apply(y)
    (Drop.apply(Show.apply(a)) + Drop.apply(b)).sum().backward()
    log.append(("x.grad", _grad(x)))


def nodes_with_several_inputs_and_outputs(lib, log):
    Drop, *_ = _functions(lib)
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    m = a * b
    m.grad_fn.register_hook(lambda gi, go: log.append(("mul post-hook", _value(gi), _value(go))))
    x = lib.ones(3, requires_grad=True)
    p, q, r = (x * 2).unbind()
    p.grad_fn.register_hook(lambda gi, go: log.append(("unbind post-hook", _value(gi), _value(go))))
    q.register_hook(lambda g: log.append(("q hook", _value(g))))
    (Drop.apply(m).sum() + Drop.apply(p)).backward()
    log.append(("grads", _grad(a), _grad(b), _grad(x)))


def an_in_place_write_into_a_view(lib, log):
    Drop, *_ = _functions(lib)
    x = lib.ones(3, requires_grad=True)
    b = x * 1
    b[0].mul_(2)
    b.grad_fn.register_hook(lambda gi, go: log.append(("post-hook", _value(gi), _value(go))))
    Drop.apply(b).sum().backward()
    log.append(("x.grad", _grad(x)))


def autograd_grad(lib, log):
    Drop, Show, *_ = _functions(lib)
    Show.log = log
    x, y = _hooks_on_exp(lib, log)
    log.append(("grad x", _value(lib.autograd.grad(Drop.apply(y).sum(), [x], allow_unused=True))))
    y = x.exp()
    log.append(("grad y, x", _value(lib.autograd.grad(Drop.apply(y).sum(), [y, x], allow_unused=True))))
    log.append(("through Show", _value(lib.autograd.grad(Drop.apply(Show.apply(x)).sum(), [x]))))
    g, = lib.autograd.grad(Drop.apply(Show.apply(x)).sum(), [x], create_graph=True)
    log.append(("create_graph", _value(g), g.requires_grad))
    lib.autograd.grad(Drop.apply(x.exp()).sum(), [x])           # not allow_unused: PyTorch's error


def only_what_leads_to_the_inputs_runs(lib, log):
    Drop, *_ = _functions(lib)
    x, w = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    a, b = x.exp(), w.exp()
    for name, t in (("a", a), ("b", b)):
        t.register_hook(lambda g, name=name: log.append((name + " hook", _value(g))))
        t.grad_fn.register_hook(lambda gi, go, name=name: log.append((name + " post-hook", _value(gi))))
    (Drop.apply(a) + Drop.apply(b)).sum().backward(inputs=[x])
    log.append(("grads", _grad(x), _grad(w)))


def the_graph_is_freed(lib, log):
    Drop, *_ = _functions(lib)
    x = lib.ones(2, requires_grad=True)
    y = x.exp()
    Drop.apply(y).sum().backward()
    log.append("first pass")
    y.sum().backward()                                  # ExpBackward0 released what it saved


def saved_tensors_are_unpacked(lib, log):
    Drop, *_ = _functions(lib)
    x, w, c = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True), lib.ones(2)

    def unpack(t):
        log.append(("unpack", t.tolist()))
        return t
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        both, one = x * w, x * c
    Drop.apply(both + one).sum().backward()
    log.append("unpacked")
    y = x.exp()
    with lib.no_grad():
        y.add_(1)
    Drop.apply(y).sum().backward()                      # the saved result changed: PyTorch's error


def twice_through_a_custom_function(lib, log):
    Drop, _, _, Saver = _functions(lib)
    x = lib.ones(2, requires_grad=True)
    L = Drop.apply(Saver.apply(x)).sum()
    L.backward()
    log.append(("x.grad", _grad(x)))
    L.backward()


def hooks_cannot_replace_none(lib, log):
    Drop, *_ = _functions(lib)
    for where in ("tensor", "pre", "post", "leaf"):
        x = lib.ones(2, requires_grad=True)
        y = x.exp()
        if where == "tensor":
            y.register_hook(lambda g: lib.ones(2))
        elif where == "pre":
            y.grad_fn.register_prehook(lambda go: (lib.ones(2),))
        elif where == "post":
            y.grad_fn.register_hook(lambda gi, go: (lib.ones(2),))
        else:
            x.register_hook(lambda g: lib.ones(2))
        try:
            Drop.apply(y).sum().backward()
            log.append((where, "no error", _grad(x)))
        except RuntimeError as error:
            log.append((where, "RuntimeError", str(error)))


def in_anomaly_mode(lib, log):
    Drop, *_ = _functions(lib)
    x, y = _hooks_on_exp(lib, log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            Drop.apply(y).sum().backward()
    log.append(("x.grad", _grad(x)))


SCENARIOS = [hooks_of_a_built_in_node, custom_function_gets_zeros, custom_function_without_materializing,
             zeros_flow_on_below_a_custom_function, nodes_with_several_inputs_and_outputs,
             an_in_place_write_into_a_view, autograd_grad, only_what_leads_to_the_inputs_runs,
             the_graph_is_freed, saved_tensors_are_unpacked, twice_through_a_custom_function,
             hooks_cannot_replace_none, in_anomaly_mode]


def _run(scenario, lib):
    """What the scenario noted, then how it ended: ``ok`` or the error's class and its first
    sentence (library names taken out)."""
    log = []
    try:
        scenario(lib, log)
        end = "ok"
    except Exception as error:      # noqa: BLE001 -- compared with PyTorch's
        message = str(error).replace(lib.__name__, "LIB").split(". ")[0]
        end = f"{type(error).__name__}: {message[:120]}"
    return log, end


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_a_node_no_gradient_reaches_runs_as_in_pytorch(scenario):
    ours, theirs = _run(scenario, ag), _run(scenario, torch)
    assert ours == theirs, f"{scenario.__name__}: expected PyTorch's\n{theirs}\nseen\n{ours}"


def test_the_scenarios_see_what_the_brief_says():
    """The oracle itself, so that a change in PyTorch's behaviour shows here first: hooks with
    None, a custom backward with zeros, x.grad zeros below it and None below a built-in node."""
    log, end = _run(hooks_of_a_built_in_node, torch)
    assert end == "ok" and ("tensor hook", None) in log and ("pre-hook", (None,)) in log, log
    assert ("post-hook", (None,), (None,)) in log and ("leaf hook", None) in log, log
    assert log[-1] == ("x.grad", None, "y.grad", None), log
    log, _ = _run(custom_function_gets_zeros, torch)
    assert ("Show.backward", [0.0, 0.0]) in log and log[-1] == ("x.grad", [0.0, 0.0]), log
