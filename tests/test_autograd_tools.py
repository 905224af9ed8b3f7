"""gradcheck (slow and fast mode), gradgradcheck, autograd.functional.jacobian/hessian,
inference_mode and saved-tensor hooks (differential, against PyTorch)."""

import warnings

import numpy as np
import pytest

import autograd_lib
from autograd_lib import exercises
from benchmarks.gradcheck import linear_function_class as _linear_function
from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()


def _wrong(lib, factor=3.0):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * factor
    return Wrong


def _double(lib, shape, seed):
    return lib.tensor(arr(shape, seed=seed, dtype=np.float64), requires_grad=True)


@scenario
def gradcheck_linear_function(lib):
    f = _linear_function(lib).apply
    x, w, b = _double(lib, (5, 4), 1), _double(lib, (3, 4), 2), _double(lib, (3,), 3)
    return [lib.autograd.gradcheck(f, (x, w), eps=1e-6, atol=1e-4),
            lib.autograd.gradcheck(f, (x, w, b), eps=1e-6, atol=1e-4, fast_mode=True),
            lib.autograd.gradcheck(f, (x, w.detach(), b)),
            lib.autograd.gradcheck(f, [x, w, b], fast_mode=False)]


@scenario
def gradcheck_several_outputs(lib):
    x, y = _double(lib, (3,), 4), _double(lib, (2, 3), 5)
    fn = lambda a, b: (a * b, (a.sin() + b).sum(1), a.exp())          # noqa: E731
    return [lib.autograd.gradcheck(fn, (x, y)), lib.autograd.gradcheck(fn, (x, y), fast_mode=True),
            lib.autograd.gradcheck(lambda a: a.norm(), x, fast_mode=True)]


@scenario
def save_for_backward_refuses_a_number_after_a_tensor(lib):
    class SavesANumber(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 2.0)       # argument 1 is named: a tensor before it
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g
    SavesANumber.apply(lib.ones(2, requires_grad=True))


@scenario
def gradcheck_mismatch_slow(lib):
    lib.autograd.gradcheck(_wrong(lib).apply, (_double(lib, (3,), 6),))


@scenario
def gradcheck_mismatch_fast(lib):
    lib.autograd.gradcheck(_wrong(lib).apply, (_double(lib, (3,), 6),), fast_mode=True)


@scenario
def gradcheck_mismatch_no_raise(lib):
    x = _double(lib, (3,), 6)
    return [lib.autograd.gradcheck(_wrong(lib).apply, (x,), raise_exception=False),
            lib.autograd.gradcheck(_wrong(lib).apply, (x,), raise_exception=False, fast_mode=True),
            lib.autograd.gradcheck(lambda a: a.detach() * 2, (x,), raise_exception=False),
            isinstance(caught(lib.autograd.gradcheck, _wrong(lib).apply, (x,)).error,
                       lib.autograd.gradcheck.__globals__["GradcheckError"])]


@scenario
def gradcheck_needs_an_input_that_requires_grad(lib):
    lib.autograd.gradcheck(lambda a: a * 2, (lib.ones(2, dtype=lib.float64),))


@scenario
def gradgradcheck_passes(lib):
    x, w = _double(lib, (2, 3), 7), _double(lib, (3, 4), 8)
    go = lib.tensor(arr((2, 4), seed=9, dtype=np.float64), requires_grad=True)
    return [lib.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), (x, w)),
            lib.autograd.gradgradcheck(lambda a: (a ** 3).sum(), (x,)),
            lib.autograd.gradgradcheck(lambda a, b: (a @ b).sigmoid(), (x, w), (go,)),
            lib.autograd.gradgradcheck(lambda a: a.norm(dim=1), (x,), fast_mode=True),
            lib.autograd.gradgradcheck(lambda a: a * 2, (x,)),
            lib.autograd.gradgradcheck(lambda a: a.std(0) + a.var(), (x,))]


@scenario
def gradgradcheck_catches_a_wrong_double_backward(lib):
    class WrongSecond(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x.detach() ** 2          # first derivative right, second lost
    x = _double(lib, (3,), 10)
    return lib.autograd.gradcheck(WrongSecond.apply, (x,)), \
        lib.autograd.gradgradcheck(WrongSecond.apply, (x,), raise_exception=False)


# ------------------------------------------------ autograd.functional

def _AF(lib):
    return lib.autograd.functional


@scenario
def jacobian_forms(lib):
    J = _AF(lib).jacobian
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    m = lib.tensor(arr((2, 3), seed=3, dtype=np.float64))
    return [J(lambda a: a ** 2, x), J(lambda a, b: a * b, (x, x)), J(lambda a: (a, a.sum()), x),
            J(lambda a: a * 0 + 1, x), J(lambda a: m @ a.exp(), x), J(lambda a: a.sum(), x),
            J(lambda a, b: (a @ b.t(), b.sin()), (m, m)), J(lambda a: a ** 2, x, vectorize=True),
            J(lambda a: a.detach() * 2, x), J(lambda a: (a * a).reshape(3, 1), x)]


@scenario
def jacobian_create_graph(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    j = _AF(lib).jacobian(lambda a: a ** 3, x, create_graph=True)
    j.sum().backward()
    return j, x.grad, _AF(lib).jacobian(lambda a: a ** 3, x).requires_grad


@scenario
def jacobian_errors(lib):
    J, x = _AF(lib).jacobian, lib.tensor([1.0, 2.0], requires_grad=True)
    return [caught(J, lambda a: lib.ones(2), x, strict=True),
            caught(J, lambda a: a.detach(), x, strict=True), caught(J, lambda a: 3, x),
            caught(J, lambda a: a ** 2, [x]), caught(J, lambda a: a ** 2, 3),
            caught(J, lambda a: a ** 2, x, strategy="forward-mode"),
            caught(J, lambda a, b: a * 2, (x, x), strict=True)]


@scenario
def hessian_forms(lib):
    H = _AF(lib).hessian
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    m = lib.tensor(arr((2, 2), seed=5, dtype=np.float64))
    return [H(lambda a: (a ** 3).sum(), x), H(lambda a, b: (a * b).sum(), (x, x)),
            H(lambda a: a.sum(), x), H(lambda a: (a @ m @ a).tanh(), x),
            H(lambda a: a.norm(), x), H(lambda a: (a.exp() * a).sum().reshape(1, 1), x),
            H(lambda a, b: (a.sin() * b ** 2).sum(), (x, x * 2))]


@scenario
def hessian_create_graph(lib):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    h = _AF(lib).hessian(lambda a: (a ** 4).sum(), x, create_graph=True)
    g, = lib.autograd.grad(h.sum(), x)
    return h, g


@scenario
def hessian_errors(lib):
    H, x = _AF(lib).hessian, lib.tensor([1.0, 2.0], requires_grad=True)
    return [caught(H, lambda a: a ** 3, x), caught(H, lambda a: (a, a), x),
            caught(H, lambda a: a.sum(), x, strict=True)]


@scenario
def vjp_jvp_vhp(lib):
    AF = _AF(lib)
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([0.5, -1.0], dtype=lib.float64)
    m = lib.tensor(arr((3, 2), seed=6, dtype=np.float64))
    return [AF.vjp(lambda a: a ** 2, x, v), AF.jvp(lambda a: a ** 2, x, v),
            AF.vhp(lambda a: (a ** 3).sum(), x, v), AF.jvp(lambda a: m @ a.sin(), x, v),
            AF.vjp(lambda a: (m @ a).sum(), x), AF.jvp(lambda a, b: (a * b, a + b), (x, x), (v, v)),
            AF.vjp(lambda a, b: (a * b).sum(), (x, x))]


# ------------------------------------------------------ inference_mode

@scenario
def inference_mode_inside(lib):
    w = lib.ones(3, requires_grad=True)
    with lib.inference_mode():
        a, b = lib.ones(3), w * 2
        inside = [lib.is_inference_mode_enabled(), lib.is_grad_enabled(), a.is_inference(),
                  b.is_inference(), b.requires_grad, b.grad_fn, a.requires_grad_().requires_grad]
    return inside, lib.is_inference_mode_enabled(), lib.is_grad_enabled(), b


@scenario
def enable_grad_inside_inference_mode_records_nothing(lib):
    w = lib.ones(3, requires_grad=True)
    with lib.inference_mode(), lib.enable_grad():
        y = w * 2
        modes = lib.is_grad_enabled(), lib.is_inference_mode_enabled()
        pieces = w.unbind(0)
    return modes, y.requires_grad, y.grad_fn, y.is_inference(), [p.grad_fn for p in pieces]


@scenario
def inference_tensor_saved_for_backward(lib):
    w = lib.ones(3, requires_grad=True)
    with lib.inference_mode():
        a = lib.tensor([1.0, 2.0, 3.0])
    (w + a).sum().backward()                       # add saves nothing: allowed
    return w.grad, caught(lambda: w * a), caught(lambda: lib.nn.functional.linear(
        a, lib.ones(2, 3, requires_grad=True))), (w * a.clone()).sum()


@scenario
def inference_tensor_in_place_and_requires_grad(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    return [caught(a.add_, 1), caught(a.exp_), caught(a.requires_grad_), caught(a.zero_),
            a.requires_grad, a.clone().is_inference(), (a * 2).is_inference(),
            a.detach().is_inference(), lib.is_inference(a), a.view(3).is_inference(),
            lib.ones(1).is_inference()]


@scenario
def inference_mode_forms(lib):
    w = lib.ones(2, requires_grad=True)

    @lib.inference_mode()
    def f(x):
        return x * 2

    @lib.inference_mode
    def g(x):
        return x * 3

    with lib.inference_mode(mode=False):
        off = [lib.is_inference_mode_enabled(), lib.is_grad_enabled(), (w * 2).requires_grad,
               lib.ones(1).is_inference()]
    with lib.no_grad():
        with lib.inference_mode(False):
            regrad = lib.is_grad_enabled()
        after = lib.is_grad_enabled()
    with lib.inference_mode():
        with lib.inference_mode(False):
            x = w * 2
            nested = [x.requires_grad, x.is_inference(), lib.is_grad_enabled()]
        r = lib.ones(2, requires_grad=True)
    (r * 2).sum().backward()
    return f(w), f(w).is_inference(), g(w).is_inference(), off, regrad, after, nested, \
        r.requires_grad, r.is_inference(), r.grad, lib.autograd.inference_mode is lib.inference_mode


@scenario
def inference_mode_evaluation_loop(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape))
    x = lib.tensor(arr((5, 3), seed=1))
    with lib.inference_mode():
        y = model(x)
    model(x).sum().backward()                      # the model itself is unaffected
    return y, y.is_inference(), y.requires_grad, model[0].weight.grad, \
        model[0].weight.is_inference()


# ----------------------------------------------------- saved-tensor hooks

def _recording_hooks(lib, log, scale=1.0):
    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t.detach().clone() * scale

    def unpack(p):
        log.append(("unpack", tuple(p.shape)))
        return p
    return lib.autograd.graph.saved_tensors_hooks(pack, unpack)


@scenario
def saved_tensors_hooks_pack_and_unpack(lib):
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with _recording_hooks(lib, log):
        y = x.pow(2)
        z = y.exp()
        m = x * x
        log.append("forward done")
    (z.sum() + m.sum()).backward()
    return log, x.grad, y.grad_fn._saved_self


@scenario
def saved_tensors_hooks_change_the_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    G = lib.autograd.graph
    with G.saved_tensors_hooks(lambda t: "a string", lambda s: lib.ones(2)):
        y = x.pow(2)
    y.sum().backward()
    first = x.grad.clone()
    x.grad = None
    with G.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        with G.saved_tensors_hooks(lambda t: t * 3, lambda t: t):
            y = x.pow(2)
    y.sum().backward()
    return first, x.grad


@scenario
def saved_tensors_hooks_give_back_history(lib):
    # A tensor saved through hooks comes back as a new tensor with the saved one's history:
    # its grad_fn (a non-leaf), or requires_grad as a leaf (a Parameter comes back a Tensor).
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    p = lib.nn.Parameter(lib.tensor([3.0, 4.0]))
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        h = x * 2
        y = h.sin()
        z = p * x
    back, leaf = y.grad_fn._saved_self, z.grad_fn._saved_self
    return (back is h, back.grad_fn is h.grad_fn, leaf is p, type(leaf).__name__, leaf.requires_grad,
            leaf.is_leaf, back)


@scenario
def saved_tensors_hooks_skip_the_version_check(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        a = x * 1
        b = a.exp()
    a.mul_(2)
    b.sum().backward()
    return x.grad


@scenario
def saved_tensors_hooks_custom_function_and_save_on_cpu(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * g * a
    log = []
    x = lib.tensor([1.0, 3.0], requires_grad=True)
    with _recording_hooks(lib, log):
        y = Square.apply(x)
    y.sum().backward()
    with lib.autograd.graph.save_on_cpu():
        z = x.pow(3)
    z.sum().backward()
    return log, x.grad


@scenario
def saved_tensors_hooks_errors(lib):
    G, x = lib.autograd.graph, lib.tensor([1.0, 2.0], requires_grad=True)

    def enter_inside_disable():
        with G.disable_saved_tensors_hooks("no hooks here"):
            with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with G.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.pow(2)
    return caught(enter_inside_disable), caught(y.sum().backward)


@scenario
def raw_saved_tensor_register_hooks(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t)
    again = caught(y.grad_fn._raw_saved_self.register_hooks, lambda t: t, lambda t: t)
    y.sum().backward()
    return x.grad, again


@scenario
def grad_of_a_dict_of_inputs_and_an_empty_batch(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, -1.0], requires_grad=True)
    named = lib.autograd.grad((x * w * x).sum(), {"x": x, "w": w})
    return (sorted(named), named["x"], named["w"],
            caught(lambda: lib.autograd.grad(x * 2, x, lib.ones(0, 2), is_grads_batched=True)))


@scenario
def a_saved_second_output_comes_back_at_its_number(lib):
    # backward reads a saved output attached to its node at ITS output number (1 here), with
    # or without grad mode: the second derivative flows back through output 1, not output 0
    seen = []

    class TwoOutputs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x.exp()
            ctx.save_for_backward(b)
            return a, b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            b, = ctx.saved_tensors
            seen.append((b.grad_fn is not None, b.output_nr, b.requires_grad))
            return grad_a * 2 + grad_b * b

    x = lib.tensor([0.5, 1.0], requires_grad=True)
    a, b = TwoOutputs.apply(x)
    g, = lib.autograd.grad((a + b).sum(), x, create_graph=True)
    y = x.exp()
    with lib.no_grad():
        saved = y.grad_fn._saved_result
    return g, lib.autograd.grad(g.sum(), x), seen, saved.grad_fn is y.grad_fn


# -------------------------------------------- Function: setup_context style

@scenario
def function_with_setup_context(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.k = k
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * ctx.k + x * 0, None
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    y.sum().backward()
    return y, x.grad, lib.autograd.gradcheck(lambda t: Scale.apply(t, 2.5), (x.double(),))



# -------------------------------------------- Function: what backward may return
# (backward's result, forward's arguments): the count, a gradient for a non-tensor, a
# gradient that is not a tensor, a list, extras that are None, in PyTorch's order of checks.
_RETURNS = {
    "fewer": (lambda g, c: (g,), "tensor, number"),
    "extra_none": (lambda g, c: (g, None, None), "tensor, number"),
    "extra_tensor": (lambda g, c: (g, None, g), "tensor, number"),
    "for_a_number": (lambda g, c: (g, g), "tensor, number"),
    "a_float": (lambda g, c: (g, 1.5), "tensor, constant"),
    "an_array": (lambda g, c: (g.numpy(), None), "tensor, constant"),
    "a_list": (lambda g, c: [g, None], "tensor, number"),
    "bad_type_before_number": (lambda g, c: (0.5, g), "tensor, number"),
    "number_before_bad_type": (lambda g, c: (None, 2.0, 1.0), "number, tensor, tensor"),
    "number_first": (lambda g, c: (None, g * 2), "number, tensor"),
    "for_a_constant": (lambda g, c: (g, g * 3), "tensor, constant"),
}


def _returns_scenario(name, returns, arguments):
    def run(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                return sum(a for a in args if isinstance(a, lib.Tensor)) * 2

            @staticmethod
            def backward(ctx, g):
                return returns(g, None)
        make = {"tensor": lambda: lib.tensor([1.0, 2.0], requires_grad=True),
                "constant": lambda: lib.tensor([3.0, 4.0]), "number": lambda: 2.5}
        args = [make[kind]() for kind in arguments.split(", ")]
        Scale.apply(*args).sum().backward()
        return [a.grad if isinstance(a, lib.Tensor) else a for a in args]
    run.__name__ = "function_returns_" + name
    scenario(run)


for _name, (_returns, _arguments) in _RETURNS.items():
    _returns_scenario(_name, _returns, _arguments)


@scenario
def function_once_differentiable(lib):
    modes = []

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            modes.append(lib.is_grad_enabled())
            return 2 * x * g
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    g, = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    return g, g.requires_grad, modes


def _cube_once_differentiable(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube


@scenario
def once_differentiable_gradient_penalty(lib):
    # a gradient penalty through a once_differentiable backward: the gradient requires grad
    # (its node is PyTorch's Error), and differentiating it raises instead of silently
    # leaving the penalty's own dependence on x out of x.grad
    Cube = _cube_once_differentiable(lib)
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = (Cube.apply(x) ** 2).sum()
    g, = lib.autograd.grad(z, x, create_graph=True)
    penalty = caught((z + g.norm()).backward)
    return g, g.grad_fn.next_functions[0][0].variable, penalty, x.grad


@scenario
def once_differentiable_backward_create_graph_and_several_inputs(lib):
    Cube = _cube_once_differentiable(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (Cube.apply(x) ** 2).sum().backward(create_graph=True)
    first = x.grad
    again = caught(first.sum().backward)
    unused = caught(lib.autograd.grad, (lib.autograd.grad((Cube.apply(x) ** 2).sum(), x, create_graph=True)[0]).sum(), x)

    class Product(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_backward(a, b)
            return a * b * k

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, None, None
    a, b = lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([3.0, 4.0], requires_grad=True)
    ga, gb = lib.autograd.grad((Product.apply(a, b, 2.0) ** 2).sum(), (a, b), create_graph=True, allow_unused=True)
    plain = lib.autograd.grad((Product.apply(a, b, 2.0)).sum(), a, create_graph=True)[0]
    return first, again, unused, ga, gb, plain


def _innermost_frame(message):
    """The source line of the innermost frame of an anomaly warning's forward traceback
    (PyTorch ends the message with where in its C++ it was triggered)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return [line for line in lines if not line.startswith("(Triggered internally")][-1]


@scenario
def anomaly_mode_names_the_failing_node_with_its_forward_traceback(lib):
    x = lib.tensor([1.0, 4.0], requires_grad=True)

    def forward(t):
        y = t.sqrt()
        y.add_(1)                  # SqrtBackward0 saved y: backward will refuse it
        return y

    seen = []
    for during_forward in (True, False):
        with warnings.catch_warnings(record=True) as caught_warnings:
            warnings.simplefilter("always")
            if during_forward:
                with lib.autograd.detect_anomaly():
                    y = forward(x)
                    error = caught(y.sum().backward)
            else:
                y = forward(x)
                with lib.autograd.detect_anomaly():
                    error = caught(y.sum().backward)
        messages = [str(w.message) for w in caught_warnings if str(w.message).startswith("Error detected")]
        # the first sentence, and the innermost frame of the forward call: the line that made the node
        seen.append((error, [m.split(".")[0] for m in messages],
                     [_innermost_frame(m) if during_forward else m.split(" (Triggered")[0] for m in messages]))
    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            z = (x * 0) / (x * 0)
            error = caught(z.sum().backward)
    seen.append((error, [str(w.message).split(".")[0] for w in caught_warnings][1:]))
    return seen


@scenario
def identity_saved_tensor_hooks_give_a_new_tensor(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            seen.append((a is x, a.requires_grad, a.is_leaf))
            return 2 * g * a
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x * x
        h = x * 2
        z = h * h
        s = Square.apply(x)
        d = x * 3
    unkept = caught(d.grad_fn._raw_saved_self.register_hooks, lambda t: t, lambda t: t)
    d = x * x
    d.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach(), lambda t: t)
    saved, inner = y.grad_fn._saved_self, z.grad_fn._saved_self
    s.sum().backward()
    return [saved is x, saved, saved.data_ptr() == x.data_ptr(), inner is h, inner,
            y.grad_fn._saved_self is y.grad_fn._saved_self, (x * x).grad_fn._saved_self is x,
            unkept, d.grad_fn._saved_other, seen, x.grad]


@scenario
def a_node_unpacks_each_saved_tensor_once(lib):
    # a / b: both formulas need b (the one of a, and the one of b with a too); PyTorch unpacks once
    log = []
    a, b = lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([4.0, 5.0], requires_grad=True)
    with _recording_hooks(lib, log):
        y = (a / b) * lib.atan2(a, b)
    y.sum().backward()
    return log, a.grad, b.grad


@scenario
def inference_tensor_is_written_then_refused(lib):
    # outside inference_mode, an in-place write into an inference tensor happens, then raises
    with lib.inference_mode():
        a = lib.ones(3)
    out = []
    for write in (lambda: a.add_(1), lambda: a.mul_(lib.tensor([1.0, 2.0, 3.0], requires_grad=True)),
                  lambda: a.__setitem__(0, 7.0), lambda: a[1:].exp_(), lambda: a.copy_(lib.arange(3.0)),
                  lambda: a.zero_()):
        out.append((caught(write), a.clone()))
    with lib.no_grad():
        out.append((caught(a.fill_, 5.0), a.clone()))
    out.append(caught(a.add_, lib.ones(2)))            # a shape error comes first, nothing written
    return out, a


@scenario
def functional_v_checks(lib):
    F, x = _AF(lib), lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    cube = lambda a: (a ** 3).sum()                                     # noqa: E731
    return [caught(F.vjp, lambda a: a * 2, x, lib.ones(4, dtype=lib.float64)),
            caught(F.jvp, lambda a, b: a * b, (x, x), (x,)),
            caught(F.vhp, cube, x, (x, x)), caught(F.vhp, lambda a: (a ** 2,), x, x),
            caught(F.jvp, lambda a: a * 2, x, [x]), caught(F.vjp, lambda a: 1.0, x, x),
            caught(F.jvp, lambda a, b: (a ** 2).sum(), (x, x), (x, x), strict=True),
            F.jvp(lambda a: (a * 2, a.sum()), x, x), F.vhp(cube, x, x, create_graph=True)[1].requires_grad]


@scenario
def jacobian_strategies(lib):
    F, x = _AF(lib), lib.tensor([1.0, 2.0], dtype=lib.float64)
    fwd = F.jacobian(lambda a, b: (a * b, a.sum()), (x, x), vectorize=True, strategy="forward-mode")
    return [type(fwd).__name__, type(fwd[0]).__name__, fwd[0][1], fwd[1][0],
            F.jacobian(lambda a: a.exp(), x, vectorize=True),
            caught(F.jacobian, lambda a: a, x, strategy="other"),
            caught(F.jacobian, lambda a: a, x, vectorize=True, strict=True),
            caught(F.hessian, lambda a: a.sum(), x, outer_jacobian_strategy="forward-mode"),
            [(h.detach(), h.requires_grad) for h in [F.hessian(  # (grad_fn: forward AD's, not ours)
                lambda a: (a ** 3).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode")]]]


@scenario
def multi_grad_hook_and_gradient_edge(lib):
    a, b = lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([3.0], requires_grad=True)
    seen = []
    handle = lib.autograd.graph.register_multi_grad_hook((a, b), lambda gs: seen.append(list(gs)))
    (a.sum() * b).sum().backward()
    handle.remove()
    (a.sum() * b).sum().backward()
    first = []
    lib.autograd.graph.register_multi_grad_hook((a, b), first.append, mode="any")
    (a.sum() * b).sum().backward()
    mid = a * 3
    edge = lib.autograd.graph.get_gradient_edge(mid)
    return [seen, first, edge.output_nr, lib.autograd.grad((mid ** 2).sum(), edge),
            caught(lib.autograd.graph.get_gradient_edge, lib.ones(2)),
            caught(lib.autograd.graph.register_multi_grad_hook, (a,), print, mode="x")]


@scenario
def multithreading_and_anomaly_switches(lib):
    out = [lib.autograd.is_multithreading_enabled()]
    with lib.autograd.set_multithreading_enabled(False):
        out.append(lib.autograd.is_multithreading_enabled())
    out.append(lib.autograd.is_multithreading_enabled())
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with lib.autograd.detect_anomaly(check_nan=False):
            x = lib.tensor([0.0, 1.0], requires_grad=True)
            (x / x).sum().backward()
    return out + [x.grad]


def test_gradcheck_uses_the_exercise_numerical_grad():
    """gradcheck runs 03.numerical_grad: a wrong one (one-sided differences) makes it fail."""
    x = autograd_lib.tensor(arr((4,), seed=1, dtype=np.float64), requires_grad=True)
    fn = lambda t: (t * t).exp()                                    # noqa: E731
    calls = []

    def one_sided(f, x, eps=1e-6):
        calls.append(x.shape)
        base = f(x).item()
        grad = np.zeros(x.shape)
        flat = x._data.reshape(-1)
        for j in range(flat.size):
            original = flat[j].item()
            flat[j] = original + 1e-2
            grad.reshape(-1)[j] = (f(x).item() - base) / 1e-2
            flat[j] = original
        return autograd_lib.Tensor._make(grad)
    assert autograd_lib.autograd.gradcheck(fn, (x,)) is True
    with exercises.plugged("03.numerical_grad", one_sided):
        slow = autograd_lib.autograd.gradcheck(fn, (x,), raise_exception=False)
        fast = autograd_lib.autograd.gradcheck(fn, (x,), raise_exception=False, fast_mode=True)
    assert calls, "gradcheck never called the exercise's numerical_grad"
    assert (slow, fast) == (False, False), f"a one-sided numerical_grad passed: slow={slow}, fast={fast}"


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)


def test_hooked_tensors_get_their_node_back_through_the_unpack_exercise():
    """06.unpack's readable neighbours hold no copy of its answer: the history of a tensor
    saved through hooks is given back by SavedTensor.unpack (the exercise's slot), so a
    student's unpack is the one that attaches it while it is graded."""
    seen = []
    reference = exercises.reference("06.unpack")

    def spy(saved, node):
        seen.append((saved.is_output, node))
        return reference(saved, node)

    x = autograd_lib.tensor([1.0, 2.0], requires_grad=True)
    with autograd_lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        h = x * 2
        y = h.sin()
    exercises.plug("06.unpack", spy)
    try:
        back = y.grad_fn._saved_self
    finally:
        exercises.unplug("06.unpack")
    assert back.grad_fn is h.grad_fn, f"expected h's MulBackward0 as grad_fn, saw {back.grad_fn}"
    assert (True, h.grad_fn) in seen, f"expected SavedTensor.unpack asked to attach h to its node, saw {seen}"


def test_saved_attributes_read_through_the_saved_values_exercise():
    """grad_fn._saved_<name> and grad_fn.saved_tensors hold no copy of 06.saved_values'
    answer: they ask Node.saved_values (the exercise's slot), so a student's method answers
    them while it is graded."""
    asked = []
    reference = exercises.reference("06.saved_values")

    def spy(node, names):
        asked.append(tuple(names))
        return reference(node, names)

    x = autograd_lib.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 3
    exercises.plug("06.saved_values", spy)
    try:
        shown = (y.grad_fn._saved_self is x, y.grad_fn._saved_exponent, list(y.grad_fn.saved_tensors))
    finally:
        exercises.unplug("06.saved_values")
    assert shown == (True, 3, ["self"]), f"expected (True, 3, ['self']), saw {shown}"
    assert asked == [("self",), ("exponent",), ("self",)], \
        f"expected saved_values asked for self, exponent, then every saved name; saw {asked}"
