"""The exercise slots: the library really reaches each piece through its slot,
checking() isolates one exercise, and the tripwire catches delegation."""

import pytest

import autograd_lib as ag
from autograd_course import grading
from autograd_lib import exercises


@pytest.fixture(autouse=True)
def _restore():
    yield
    exercises.unplug_all()
    ag.grad_mode._set_grad_enabled(True)     # a spied __exit__ never restored the mode


def test_every_slot_resolves_to_the_reference():
    for exercise_id, slot in exercises.SLOTS.items():
        value = exercises.reference(exercise_id)
        assert slot.functions(value), f"{exercise_id}: no reference functions found"
        for fn in slot.functions(value):
            assert callable(fn), f"{exercise_id}: reference {fn!r} is not callable"


class Spy(Exception):
    pass


def _spy(*args, **kwargs):
    raise Spy()


def _exercise_the_library():
    """A small workload touching every slot."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    w = ag.randn(2, 2, requires_grad=True)
    h = (x.unsqueeze(0) @ w).exp()                        # exp, matmul; every op records through record_node
    h.retain_grad()
    y = ((x * x + x) ** 2).mean() + h.sum() + (w + x).sum(1).sum()   # broadcasting, sum(dim)
    y = y + x.sigmoid().sum() + x[[0, 0]].sum() + ag.log_softmax(w, 1).sum()
    y = y + w.var(1).sum() + w.amax(1).sum()                # var, amax
    ag.viz.graph_nodes(y)                                 # the walk behind the drawings
    y.backward()
    x.detach()
    x.requires_grad_(True)
    x.is_leaf
    ag.autograd.gradcheck(lambda t: (t * t).sum(), (ag.tensor([1.0], dtype=ag.float64, requires_grad=True),))
    ag.autograd.functional.hvp(lambda t: (t ** 3).sum(), ag.tensor([1.0, 2.0]), ag.tensor([1.0, 1.0]))
    ag.utils.checkpoint.checkpoint(lambda t: t.exp(), x, use_reentrant=True).sum().backward()   # a custom Function
    with ag.no_grad():                                    # grad mode: enter, exit
        x.data.add_(1)                                    # .data, an in-place write (version)
    ag.no_grad(lambda t: t * 2)(x)                        # the decorator
    ag.set_grad_enabled(True)                             # set_grad_enabled's constructor
    list(ag.no_grad()(lambda: (yield x * 2))())           # a decorated generator, step by step
    (x * 3).detach_()
    z = x * 1
    z.add_(1)                                             # the leaf rule checked on a non-leaf
    z[:1].mul_(2)                                         # a write through a view (CopySlices)
    ag.ones(2).add_(x.detach())                           # does the operand share the target's memory?
    z.sum().backward(inputs=[x])                          # only some gradients: nodes_to_run
    model = ag.nn.Sequential(ag.nn.Linear(2, 2), ag.nn.Linear(2, 1))
    optimizer = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)   # parameter discovery
    optimizer.zero_grad()
    ag.optim.accumulate_gradients(lambda a, b: ((model(a) - b) ** 2).mean(),
                                  [(ag.randn(3, 2), ag.randn(3, 1))])
    ag.nn.utils.clip_grad_norm_(model.parameters(), 1.0)            # gradient clipping
    optimizer.step()
    ag.optim.Adam(model.parameters(), lr=0.01).step()                 # Adam's update
    batches = [(ag.randn(3, 2), ag.tensor([0, 0, 0]))]              # one class: the model has one output
    ag.optim.train_epoch(model, ag.nn.CrossEntropyLoss(), optimizer, batches)   # the training loop
    ag.optim.evaluate(model, ag.nn.CrossEntropyLoss(), batches)
    ag.optim.lr_scheduler.ReduceLROnPlateau(optimizer).step(1.0)     # the scheduler's decision


@pytest.mark.parametrize("exercise_id", sorted(exercises.SLOTS))
def test_library_reaches_each_exercise_through_its_slot(exercise_id):
    slot = exercises.SLOTS[exercise_id]
    spy = _spy
    if slot.kind == "rule":
        def spy(grad, *saved):                      # a rule's VJP: raise when the engine calls it
            raise Spy()
    if slot.kind == "property":
        def spy(tensor):
            raise Spy()
    with exercises.plugged(exercise_id, spy):
        with pytest.raises(Spy):
            _exercise_the_library()


def test_checking_plugs_one_exercise_and_restores_the_others():
    calls = []

    def my_is_leaf(t):
        calls.append("mine")
        return t.grad_fn is None

    exercises.plug("01.detach", _spy)                # a broken exercise plugged earlier
    with grading.checking("01.is_leaf", my_is_leaf):
        t = ag.tensor(1.0)
        t.detach()                                   # reference again: must not raise Spy
        assert t.is_leaf is True and calls == ["mine"], f"expected the student's is_leaf, saw {calls}"
    with pytest.raises(Spy):
        ag.tensor(1.0).detach()                      # the earlier plug is back afterwards


def test_tripwire_catches_delegation_through_any_alias():
    reference = exercises.reference("02.gradient_edge")
    alias = ag.Tensor._gradient_edge                 # taken before grading starts

    def by_reference(t):
        return reference(t)

    def by_alias(t):
        return alias(t)

    for cheat in (by_reference, by_alias):
        with pytest.raises(grading.DelegationError, match="02.gradient_edge"):
            with grading.checking("02.gradient_edge", cheat):
                (ag.tensor([1.0], requires_grad=True) * 2).sum().backward()
    x = ag.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0], f"after grading the reference must work again, saw {x.grad}"


def test_tripwire_covers_gradient_rules():
    formulas = exercises.reference("03.mul_backward")

    def cheat(grad, self, other):
        return formulas["self"][0](grad, other), formulas["other"][0](grad, self)

    with pytest.raises(grading.DelegationError):
        with grading.checking("03.mul_backward", cheat):
            a = ag.tensor([1.0, 2.0], requires_grad=True)
            (a * a).sum().backward()


def test_a_vjp_rule_runs_in_the_engine_and_must_return_one_gradient_per_input():
    def mul_backward(grad, self, other):
        return grad * other, grad * self

    with grading.checking("03.mul_backward", mul_backward):
        a = ag.tensor([1.0, 2.0], requires_grad=True)
        b = ag.tensor([3.0, 4.0], requires_grad=True)
        (a * b).sum().backward()
    assert (a.grad.tolist(), b.grad.tolist()) == ([3.0, 4.0], [1.0, 2.0]), f"saw {a.grad}, {b.grad}"

    with pytest.raises(ValueError, match="must return 2 gradient"):
        with grading.checking("03.mul_backward", lambda grad, other: grad * other):
            (ag.tensor([1.0], requires_grad=True) * ag.tensor([2.0], requires_grad=True)).backward()


def test_unknown_exercise_is_a_clear_error():
    with pytest.raises(KeyError, match="no exercise '99.nothing'"):
        exercises.plug("99.nothing", _spy)


def test_guarded_helpers_are_tripwires_too():
    def sum_backward(grad, self_shape, dim, keepdim):       # delegates to a one-call helper
        return ag.ops.restore_reduced_dims(grad, dim, keepdim).expand(self_shape)

    with pytest.raises(grading.DelegationError, match="05.sum_backward"):
        with grading.checking("05.sum_backward", sum_backward):
            ag.randn(2, 3, requires_grad=True).sum(1).sum().backward()
    x = ag.randn(2, 3, requires_grad=True)
    x.mean(1).sum().backward()                              # the helper works again afterwards
    assert x.grad.shape == (2, 3), f"expected a (2, 3) gradient, saw {x.grad.shape}"


def test_the_reference_of_a_rule_can_be_plugged_back():
    with exercises.plugged("05.exp_backward", exercises.reference("05.exp_backward")):
        x = ag.tensor([0.0, 1.0], requires_grad=True)
        x.exp().sum().backward()
    assert x.grad.tolist() == pytest.approx([1.0, 2.718281828]), f"saw {x.grad}"
