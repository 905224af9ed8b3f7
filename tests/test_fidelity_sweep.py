"""Differences from PyTorch found by the fidelity sweep of PyTorch-style scripts
(tests/scripts/), each fixed and kept here as a differential scenario: torch and
autograd_lib run the same code side by side and must agree."""

import pytest

from conftest import requires_torch
from differential import registry, run

SCENARIOS, scenario = registry()


def _keyword_function(lib, setup_context):
    """A Function whose forward takes ``y`` and ``scale`` by keyword, in either style."""
    def backward(ctx, grad):
        ctx.log.append(tuple(ctx.needs_input_grad))
        return grad * 3, grad * 4, None

    if setup_context:
        def forward(x, y=None, scale=2.0):
            return x * y * scale

        def setup(ctx, inputs, output):
            ctx.log = [len(inputs)]
        body = {"forward": staticmethod(forward), "setup_context": staticmethod(setup)}
    else:
        def forward(ctx, x, y=None, scale=2.0):
            ctx.log = []
            return x * y * scale
        body = {"forward": staticmethod(forward)}
    body["backward"] = staticmethod(backward)
    return type("Keyword", (lib.autograd.Function,), body)


@scenario
def function_apply_tensor_by_keyword(lib):
    """A tensor passed to ``apply`` by keyword is an input like a positional one: it has
    an edge, a needs_input_grad entry, and receives its gradient (torch 2.13)."""
    results = []
    for setup_context in (False, True):
        fn = _keyword_function(lib, setup_context)
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([0.5, -1.0], requires_grad=True)
        out = fn.apply(a, y=b)
        out.sum().backward()
        results += [out, a.grad, b.grad, out.grad_fn.log]
        only_b = fn.apply(a.detach(), y=b)
        results += [only_b, only_b.requires_grad]
    return results


def _errors(lib, attempts):
    """What each of ``attempts`` (functions of no argument) gives: a result, or the
    error's class and message (compared exactly: these are PyTorch's own words)."""
    seen = []
    for fn in attempts:
        try:
            seen.append(repr(fn()))
        except Exception as error:      # noqa: BLE001 - what is raised is what is compared
            seen.append(f"{type(error).__name__}: {error}")
    return seen


@scenario
def copy_shape_errors(lib):
    """``copy_`` from a source that does not broadcast to the destination raised NumPy's
    ValueError; torch raises RuntimeError: its broadcast message, or 'output with shape'."""
    shapes = [((3,), (2,)), ((3,), (2, 3)), ((2, 3), (3, 2)), ((1,), (3,)), ((3,), (1, 3)), ((2, 3), (3,))]
    return _errors(lib, [lambda a=a, b=b: lib.zeros(*a).copy_(lib.ones(*b)).shape for a, b in shapes])


@scenario
def setitem_advanced_value_shape_errors(lib):
    """``t[index_list] = v`` and ``t[mask] = v`` with a ``v`` that does not broadcast to the
    indexed shape raised NumPy's ValueError; torch raises RuntimeError 'shape mismatch'."""
    def put(key, value):
        target = lib.zeros(2, 3)
        target[key] = value
        return target.sum().item()
    return _errors(lib, [lambda: put([0, 1], lib.ones(4)), lambda: put([0, 1], lib.ones(1, 1, 4)),
                         lambda: put(lib.zeros(2, 3) > 0, lib.ones(4)),
                         lambda: put(lib.zeros(2, 3) >= 0, lib.ones(5)),
                         lambda: put((slice(None), [0, 2]), lib.ones(3)),
                         lambda: put(lib.tensor([True, False]), lib.ones(2, 3))])


@scenario
def expand_too_few_sizes_message(lib):
    """expand's refusal of fewer sizes than dims names both counts, as torch's does."""
    return _errors(lib, [lambda: lib.ones(2, 3).expand(3), lambda: lib.zeros(2, 3).__setitem__(0, lib.ones(2, 3)),
                         lambda: lib.addmm(lib.ones(2, 3, 4), lib.ones(2, 2), lib.ones(2, 2))])


@scenario
def nll_loss_bad_input_errors(lib):
    """nll_loss and cross_entropy refuse what torch refuses, with its words: a weight of
    the wrong size was read past its end or silently used (a wrong loss), an integer input
    gave a loss, a 2-D target for a 2-D input a batch-size error, and the spatial form's
    errors were worded differently."""
    F, L = lib.nn.functional, lib.long
    z = lib.zeros
    return _errors(lib, [
        lambda: F.nll_loss(z(2, 3), z(3, 2, dtype=L)),
        lambda: F.nll_loss(z(2, 3), z(2, 2, dtype=L)),
        lambda: F.nll_loss(z(2, 3), z(2, dtype=L), weight=lib.ones(2)),
        lambda: F.nll_loss(z(2, 3, dtype=L), z(2, dtype=L), weight=lib.ones(3)),
        lambda: F.nll_loss(z(2, 3), z(2, dtype=L), weight=lib.ones(3, dtype=lib.float64)),
        lambda: F.nll_loss(z(3), z(2, dtype=L)),
        lambda: F.nll_loss(z(2, 3, 2, 2), z(2, dtype=L)),
        lambda: F.nll_loss(z(2, 3, 2, 2), z(2, 2, 3, dtype=L)),
        lambda: F.nll_loss(z(2, 3, 2), z(2, 2, dtype=L), weight=lib.ones(2)),
        lambda: F.nll_loss(z(2, 3, 2, dtype=L), z(2, 2, dtype=L)),
        lambda: F.cross_entropy(z(2, 3), z(2, 3), weight=lib.ones(2)),
        lambda: F.cross_entropy(z(2, 3), z(2, dtype=L), weight=lib.ones(2), label_smoothing=0.1),
        lambda: F.nll_loss(z(3), z((), dtype=L)),
    ])


@scenario
def clamp_number_bounds_promote(lib):
    """A number bound takes part in type promotion: an int tensor clamped to 3.5 becomes
    float32 (it stayed int64 and the bound was truncated to 3), a bool one clamped to 0
    becomes int64; float tensors keep their dtype and ClampBackward1."""
    i, x = lib.tensor([3, 4]), lib.tensor([0.5, 2.0], requires_grad=True)
    return [i.clamp(min=3.5), i.clamp(3, 3.5), lib.clip(i, max=3.2), i.clamp(min=True),
            lib.tensor([True, False]).clamp(min=0), x.clamp(1, 1.5)]


@scenario
def can_cast_table(lib):
    """``torch.can_cast`` (it was missing): a cast may keep or raise the category."""
    kinds = [lib.bool, lib.int32, lib.int64, lib.float16, lib.float32, lib.float64]
    return [[lib.can_cast(a, b) for b in kinds] for a in kinds]


@scenario
def group_norm_groups_message(lib):
    """GroupNorm's refusal of channels that do not split into the groups names both numbers."""
    return _errors(lib, [lambda: lib.nn.GroupNorm(3, 2), lambda: lib.nn.GroupNorm(4, 6)])


@scenario
def global_module_hooks_run_first(lib):
    """``nn.modules.module.register_module_*`` hooks (missing: an AttributeError) run on every
    module, before each module's own hooks of the same kind, forward and backward."""
    log, hooks = [], lib.nn.modules.module
    lin = lib.nn.Linear(2, 2)
    model = lib.nn.Sequential(lin, lib.nn.Tanh())
    handles = [hooks.register_module_forward_pre_hook(lambda m, a: log.append(("pre", type(m).__name__))),
               hooks.register_module_forward_hook(lambda m, a, o: log.append(("post", type(m).__name__))),
               hooks.register_module_full_backward_pre_hook(lambda m, g: log.append(("bpre", type(m).__name__))),
               hooks.register_module_full_backward_hook(lambda m, gi, go: log.append(("back", type(m).__name__)))]
    lin.register_forward_pre_hook(lambda m, a: log.append(("own pre", "Linear")), prepend=True)
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("own back", "Linear")))
    try:
        model(lib.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    model(lib.ones(1, 2))
    return log


@scenario
def batchnorm_counter_absent_from_plain_dict(lib):
    """A state_dict without ``_metadata`` (a dict built by hand) is read as the oldest layout:
    BatchNorm's num_batches_tracked, added in version 2, is not reported missing (it was), and
    the module keeps its count; the module's own state_dict carries its version and reports
    it.  kaiming's mode refusal lists the modes as torch prints a list."""
    norm = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    norm[1].num_batches_tracked.fill_(3)
    own = norm.state_dict()
    plain = {k: v for k, v in own.items() if k != "1.num_batches_tracked"}
    del own["1.num_batches_tracked"]
    return [dict(own._metadata), str(norm.load_state_dict(plain)), norm[1].num_batches_tracked,
            *_errors(lib, [lambda: norm.load_state_dict(own),
                           lambda: lib.nn.init.kaiming_normal_(lib.zeros(2, 2), mode="fan_avg")])]



@scenario
def leaf_detached_in_place_gets_no_gradient(lib):
    """A leaf used in a graph, then ``detach_()``ed (or ``requires_grad_(False)``): the old
    graph's backward leaves its ``.grad`` as it was (None, or a gradient set by hand), as
    torch's AccumulateGrad skips a variable that no longer requires grad; its tensor hooks
    and post-accumulate hooks still run.  It accumulated."""
    results = []
    for cut in ("detach_", "requires_grad_", "after a grad"):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        log = []
        x.register_hook(lambda g: log.append("hook"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post"))
        if cut == "after a grad":
            x.grad = lib.tensor([5.0, 5.0])
        y = (x * x).sum()
        x.detach_() if cut != "requires_grad_" else x.requires_grad_(False)
        y.backward()
        results += [x.grad, x.requires_grad, log]
    return results


@scenario
def saved_input_detached_in_place_refused(lib):
    """A non-leaf saved by a node as an input, then ``detach_()``ed: the node's backward
    refuses it with torch's message, before the version check (a later in-place write);
    it computed.  Not refused: a saved output, a saved leaf, a tensor saved through
    saved_tensors_hooks, ``_saved_self`` and a custom Function's ``saved_tensors``."""
    def saved_input(after=None):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        a = x * 1
        y = (a * w).sum()
        a.detach_()
        if after:
            after(a)
        y.backward()
        return x.grad, w.grad

    def saved_output():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        e = x.exp()
        y = (e * 2).sum()
        e.detach_()
        y.backward()
        return x.grad

    def saved_leaf():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        x.detach_()
        y.backward()
        return x.grad

    def hooked():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (a * a).sum()
        a.detach_()
        y.backward()
        return x.grad

    def saved_self():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = a * x
        a.detach_()
        return y.grad_fn._saved_self

    def twice():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = (a * a).sum()
        a.detach_()
        try:
            y.backward(retain_graph=True)
        except RuntimeError:
            pass
        y.backward()
        return x.grad

    return _errors(lib, [saved_input, lambda: saved_input(lambda a: a.add_(1)),
                         lambda: saved_input(lambda a: a.requires_grad_()), saved_output, saved_leaf,
                         hooked, saved_self, twice])


@scenario
def view_of_detached_base_written_in_place(lib):
    """A view taken of a non-leaf ``b`` before ``b.detach_()`` still requires grad (its
    grad_fn reaches the old graph) while its base is now a leaf: torch refuses to write
    it in place, as a view of a leaf (its rule: the view requires grad and its base is a
    leaf, whether or not the base requires grad); it wrote.  A view taken after
    ``detach_`` does not require grad and may be written; under no_grad everything may."""
    def write(take_before, how, grad=True):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x * 2
        early = b[0:1]
        b.detach_()
        view = early if take_before else b[0:1]
        with lib.set_grad_enabled(grad):
            how(view)
        return b

    return _errors(lib, [lambda: write(True, lambda v: v.add_(1)),
                         lambda: write(True, lambda v: v[0].mul_(2)),
                         lambda: write(True, lambda v: v.copy_(lib.tensor([5.0]))),
                         lambda: write(True, lambda v: v.__setitem__(0, 3.0)),
                         lambda: write(True, lambda v: v.add_(1), grad=False),
                         lambda: write(False, lambda v: v.add_(1))])

@scenario
def backward_inputs_that_do_not_require_grad(lib):
    """``backward(inputs=...)`` retains every input once the roots are checked (torch's
    engine calls retain_grad on each), so an input that does not require grad (a plain
    tensor, a detached copy, a tensor detached in place) is refused before any gradient
    lands, while the roots' own errors still come first.  A non-leaf input keeps
    retaining afterwards."""
    def plain_input(kind):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        if kind == "plain":
            given = [x, lib.ones(2)]
        elif kind == "detached copy":
            given = [y.detach()]
        else:
            y.detach_()
            given = [y]
        try:
            z.backward(inputs=given)
        except RuntimeError as error:
            return f"RuntimeError: {error}", x.grad
        return "ran", x.grad

    def root_error_first():
        lib.ones(2).sum().backward(inputs=[lib.ones(2)])

    def retained():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        (y * y).sum().backward(inputs=[y], retain_graph=True)
        (y * 3).sum().backward()
        return y.retains_grad, y.grad, x.grad
    return [plain_input(kind) for kind in ("plain", "detached copy", "detached in place")] + \
        _errors(lib, [root_error_first, retained])


@scenario
def leaf_moved_into_the_graph_interior(lib):
    """A leaf recorded into a graph, then made not to require grad and written in place
    with a tensor that does: it now has a grad_fn, and the old graph's backward refuses
    to accumulate into it (torch's AccumulateGrad), where a plain ``requires_grad_(False)``
    only skips it."""
    def moved():
        x = lib.zeros(3, requires_grad=True)
        y = (x * 2).sum()
        x.requires_grad_(False)
        x.mul_(lib.ones(3, requires_grad=True))
        y.backward()
        return x.grad

    def only_turned_off():
        x = lib.zeros(3, requires_grad=True)
        y = (x * 2).sum()
        x.requires_grad_(False)
        y.backward()
        return x.grad
    return _errors(lib, [moved, only_turned_off])


@scenario
def pack_hook_sees_saved_outputs_with_history(lib):
    """A saved output (exp's, sigmoid's, an in-place op's written target) reaches the
    ``saved_tensors_hooks`` pack hook as the output itself, with its grad_fn, once; the
    library handed it a history-free alias, and an in-place op's result twice."""
    seen = []

    def pack(t):
        seen.append((type(t.grad_fn).__name__, t.requires_grad, t.is_leaf, t._version))
        return t

    def unpack(t):
        seen.append(("unpack", type(t.grad_fn).__name__))
        return t
    x = lib.tensor([0.5, -1.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.exp()
        z = x * 1
        z.tanh_()
        w = x * 1
        w[:1].sigmoid_()
    (y.sum() + z.sum() + w.sum()).backward()
    return seen + [x.grad]


@scenario
def masked_fill_value_tensor_must_be_0_dim(lib):
    """``masked_fill`` with a value tensor of one or more dimensions: torch refuses even a
    one-element one; the library broadcast it (a silent answer where torch raises)."""
    x = lib.arange(6.0).reshape(2, 3)
    return _errors(lib, [lambda: x.masked_fill(x > 2, lib.ones(3)), lambda: x.masked_fill(x > 2, lib.ones(1, 1)),
                         lambda: x.clone().masked_fill_(x > 2, lib.ones(1)),
                         lambda: x.masked_fill(x > 2, lib.tensor(-1.0)).tolist()])


@scenario
def cat_empty_and_zero_dim_errors(lib):
    """``cat`` of no tensors is torch's ValueError (it was a RuntimeError), and of a 0-dim
    tensor its 'zero-dimensional tensor (at position i)' (NumPy's ValueError, or a
    dimension-count message)."""
    return _errors(lib, [lambda: lib.cat([]), lambda: lib.cat(()), lambda: lib.cat([lib.tensor(2.0)]),
                         lambda: lib.cat([lib.ones(1), lib.tensor(2.0)]), lambda: lib.stack([])])


@scenario
def python_number_conversion_errors(lib):
    """``float()``/``int()`` of a tensor with other than one element is torch's ValueError
    'only one element tensors ...' (the library raised item()'s RuntimeError), and
    ``bool()`` of an empty tensor says 'with no values'."""
    attempts = []
    for value in (lib.ones(2), lib.ones(0), lib.ones(2, dtype=lib.int64), lib.ones(1, 1)):
        attempts += [lambda v=value: float(v), lambda v=value: int(v), lambda v=value: bool(v)]
    return _errors(lib, attempts)


@scenario
def requires_grad_setter_takes_a_bool_only(lib):
    """``t.requires_grad = v`` takes a Python bool only (torch: "requires_grad must be a
    bool" for 1, None, 0.0 or a NumPy bool), where ``requires_grad_`` is the method."""
    import numpy as np

    def assign(value):
        t = lib.ones(2)
        t.requires_grad = value
        return t.requires_grad
    return _errors(lib, [lambda v=v: assign(v) for v in (True, False, 1, None, 0.0, np.True_)])


@scenario
def double_backward_through_an_in_place_op_on_a_view(lib):
    """An op that saves its result (exp_, sigmoid_, tanh_), applied in place to a view: the
    gradient built with create_graph=True differentiates again, whether the view is kept or
    dropped (torch's CopySlices lets go of the op's node when released, instead of freeing
    what the node saved, and the saved result comes back with the view's history)."""
    import gc
    results = []
    for op in ("exp_", "sigmoid_", "tanh_"):
        for keep in (True, False):
            x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
            b = x * x
            if keep:
                v = b[0]
                getattr(v, op)()
            else:
                getattr(b[0], op)()
                gc.collect()
            (g,) = lib.autograd.grad((b * b).sum(), x, create_graph=True)
            (h,) = lib.autograd.grad(g.sum(), x)
            results += [g.detach(), h]
    return results


@scenario
def second_backward_through_copy_slices_refused(lib):
    """A second backward through a CopySlices whose op saved nothing (``add_`` on a view)
    is refused as torch refuses it (its released CopySlices has no node left to run)."""
    def twice():
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        b = x + 0
        b[0].add_(1)
        b.sum().backward()
        b.sum().backward()
        return x.grad
    return _errors(lib, [twice])


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
