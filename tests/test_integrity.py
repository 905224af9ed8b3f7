"""The course package around the library: autograd_lib knows nothing of it,
reference() stays the library's own version, the snapshot watches the course
modules a test cell runs (the shared notebook helpers among them), and the
helpers behave as the notebooks rely on."""

import contextlib
import subprocess
import sys
import warnings

import pytest

import autograd_lib as ag
from autograd_course import grading, integrity, notebook
from autograd_lib import exercises


@pytest.fixture(autouse=True)
def _restore():
    yield
    exercises.unplug_all()


def _is_leaf(tensor):
    return tensor.grad_fn is None


def test_autograd_lib_imports_nothing_of_the_course():
    code = ("import sys, autograd_lib, autograd_lib.exercises, autograd_lib.demo\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'autograd_course'))")
    seen = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert seen.strip() == "[]", f"expected autograd_lib to load no autograd_course module, saw {seen.strip()}"


def test_reference_is_the_librarys_own_version_whatever_is_plugged():
    original = vars(ag.Tensor)["detach"]
    exercises.plug("01.detach", lambda tensor: tensor)
    assert exercises.reference("01.detach") is original, "expected reference() to be the library's detach"
    exercises.unplug("01.detach")
    assert vars(ag.Tensor)["detach"] is original, "expected unplug() to put the library's detach back"


@contextlib.contextmanager
def _patched(namespace, name, value):
    saved = getattr(namespace, name)
    setattr(namespace, name, value)
    try:
        yield
    finally:
        setattr(namespace, name, saved)


@pytest.mark.parametrize("module, name", [(notebook, "outcome"), (notebook, "library_version"),
                                          (grading, "expect_equal"), (integrity, "_original")])
def test_replacing_a_course_helper_is_tampering(module, name):
    integrity.seal()
    with _patched(module, name, lambda *args, **kwargs: None):
        with pytest.raises(integrity.TamperingError, match=f"{module.__name__}.{name} was replaced"):
            with grading.checking("01.is_leaf", _is_leaf):
                pass


def test_replacing_a_visible_check_is_tampering():
    from autograd_course.checks import tensors
    integrity.seal()
    with _patched(tensors, "detach", lambda fn: None):
        with pytest.raises(integrity.TamperingError, match="autograd_course.checks.tensors.detach was replaced"):
            with grading.checking("01.is_leaf", _is_leaf):
                pass


def test_a_notebook_whose_check_is_not_a_checks_module_is_tampering():
    import types
    from autograd_course.checks import tensors
    integrity.seal()
    snapshot = integrity.seal()
    snapshot.verify({"check": tensors})                  # the real module: fine
    fake = types.ModuleType("autograd_course.checks.tensors")
    fake.detach = lambda fn: None
    with pytest.raises(integrity.TamperingError, match="the name 'check' of the notebook"):
        snapshot.verify({"check": fake})


def test_a_visible_check_sees_the_notebooks_names():
    """A visible check runs the real grading.checking; a notebook that rebound ``grading`` to a
    fake (to neutralize the hidden part of the cell) is still caught, by the check."""
    import types
    integrity.seal()
    fake = types.ModuleType("autograd_course.grading")
    cell = ("from autograd_course.checks import tensors as check\n"
            "check.is_leaf(lambda tensor: tensor.grad_fn is None)\n")
    honest = {"__name__": "__main__", "grading": grading, "exercises": exercises, "ag": ag}
    exec(cell, honest)                       # the real modules: the check runs and passes
    faked = {"__name__": "__main__", "grading": fake, "exercises": exercises, "ag": ag}
    with pytest.raises(integrity.TamperingError, match="the name 'grading' of the notebook"):
        exec(cell, faked)


def test_changing_the_code_a_helper_decorator_wraps_is_tampering():
    integrity.seal()
    inner = notebook.library_version.__wrapped__

    def nothing(assignment):
        yield

    with _patched(inner, "__code__", nothing.__code__):
        with pytest.raises(integrity.TamperingError, match="the code of autograd_course.notebook.library_version"):
            with grading.checking("01.is_leaf", _is_leaf):
                pass


def test_replacing_a_remembered_reference_is_tampering():
    integrity.seal()
    originals = vars(exercises)["_ORIGINALS"]
    saved = originals["01.detach"]
    originals["01.detach"] = lambda tensor: tensor
    try:
        with pytest.raises(integrity.TamperingError, match="the reference of 01.detach was changed"):
            with grading.checking("01.is_leaf", _is_leaf):
                pass
    finally:
        originals["01.detach"] = saved


def test_library_version_runs_the_librarys_code_for_one_assignment():
    calls = []

    def detach(tensor):
        calls.append("mine")
        return tensor

    exercises.plug("01.detach", detach)
    with notebook.library_version("01"):
        ag.tensor([1.0]).detach()
    assert calls == [], f"expected the library's detach inside library_version('01'), saw {calls}"
    ag.tensor([1.0]).detach()
    assert calls == ["mine"], f"expected the plugged detach back after the block, saw {calls}"


def _fail(*args, **kwargs):
    raise ValueError("bad input")


def _delegate(*args, **kwargs):
    raise grading.DelegationError("calls the library")


def test_outcome_and_error_of_turn_errors_into_text_but_not_delegation():
    assert (notebook.outcome(_fail), notebook.outcome(max, 2, 3)) == ("ValueError: bad input", 3)
    assert (notebook.error_of(_fail), notebook.error_of(max, 2, 3)) == ("ValueError: bad input", None)
    for helper in (notebook.outcome, notebook.error_of):
        with pytest.raises(grading.DelegationError):
            helper(_delegate)


def test_call_names_the_rule_and_says_an_empty_answer_is_not_written():
    def blank():
        raise NotImplementedError()

    def unsupported():
        raise NotImplementedError('"add_cpu" not implemented for Bool')

    for fn, seen in ((unsupported, 'NotImplementedError: "add_cpu" not implemented for Bool'),
                     (_fail, "ValueError: bad input")):
        with pytest.raises(AssertionError) as error:
            notebook.call(fn, what="fn()", rule="a rule")
        expected = f"fn() raised an error.\n  seen:     {seen}\n  rule:     a rule"
        assert str(error.value) == expected, f"expected {expected!r}, saw {str(error.value)!r}"
    with pytest.raises(AssertionError) as error:
        notebook.call(blank, what="fn()", rule="a rule")
    assert str(error.value).startswith("Not written yet") and "rule" not in str(error.value), (
        f"expected a placeholder's bare NotImplementedError() reported as 'Not written yet' with no rule, "
        f"saw {str(error.value)!r}")
    assert notebook.call(max, 2, 3, what="max", rule="") == 3


def test_a_check_that_saw_a_placeholder_says_not_written_instead_of_a_rule():
    for seen in ("NotImplementedError: ", repr("NotImplementedError: "), "('NotImplementedError', '')",
                 ["x", "NotImplementedError: "]):
        with pytest.raises(AssertionError) as error:
            grading.expect_equal(seen, "y", what="f(x)", rule="a rule")
        assert str(error.value).startswith("Not written yet"), (
            f"expected 'Not written yet' for a check that saw {seen!r}, saw {str(error.value)!r}")
    for seen in ('NotImplementedError: "add_cpu" not implemented for Bool', "('NotImplementedError', 'msg')"):
        with pytest.raises(AssertionError) as error:
            grading.expect_equal(seen, "y", what="f(x)", rule="a rule")
        assert "rule" in str(error.value), f"expected a rule failure for PyTorch's error {seen!r}, saw {error.value}"


def test_quietly_hides_only_the_create_graph_warning():
    def both():
        warnings.warn("Using backward() with create_graph=True will create a reference cycle", UserWarning)
        warnings.warn("another warning", UserWarning)
        return 7

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert notebook.quietly(both) == 7
    assert [str(w.message) for w in caught] == ["another warning"], f"saw {[str(w.message) for w in caught]}"


def test_shown_and_array_of():
    t = ag.tensor([1.0, 2.0])
    assert [notebook.shown(v) for v in (None, 3, "x", t)] == [None, 3, "x", "a Tensor object"]
    copy = notebook.array_of(t)
    assert copy.tolist() == [1.0, 2.0] and copy is not t._data, "expected a copy of the tensor's values"
    assert notebook.array_of(None) is None


def test_side_by_side_tells_the_story_with_the_reference_then_with_the_answer():
    told, calls = [], []

    def wrong_detach(tensor):
        calls.append("mine")
        return tensor

    def story(detach):
        told.append(detach)
        return ag.tensor([1.0], requires_grad=True).detach().requires_grad

    exercises.plug("01.is_leaf", _fail)              # another slot broken: the reference runs there
    try:
        expected, seen = grading.side_by_side("01.detach", wrong_detach, story)
    finally:
        exercises.unplug("01.is_leaf")
    assert (expected, seen) == (False, True), \
        f"expected the reference's detach (False) then the student's (True), saw {(expected, seen)}"
    assert told == [exercises.reference("01.detach"), wrong_detach] and calls == ["mine"], \
        f"expected the story told with the reference, then with the answer under test, saw {told}, {calls}"
    assert grading.CHECKS[0] > 0


def test_side_by_side_refuses_an_answer_that_delegates():
    reference = exercises.reference("01.detach")
    with pytest.raises(grading.DelegationError):
        grading.side_by_side("01.detach", lambda t: reference(t), lambda detach: ag.tensor([1.0]).detach())


# A trial student's first answer to 04 nodes_to_run, written from the release notebook alone:
# the obvious walk, which compiles to the reference's own 72 instructions.
HONEST_NODES_TO_RUN = '''
def nodes_to_run(nodes, targets):
    parents = {}
    for node in nodes:
        for child, _ in node.next_functions:
            if child is not None:
                parents.setdefault(child, []).append(node)
    found = set()
    stack = list(targets)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found
'''


def test_an_honest_short_answer_that_compiles_like_the_reference_is_graded_not_refused():
    namespace = {}
    exec(HONEST_NODES_TO_RUN, namespace)
    mine = namespace["nodes_to_run"]
    reference = exercises.reference("04.nodes_to_run")
    from autograd_course.checking import _fingerprint
    assert _fingerprint(mine.__code__) == _fingerprint(reference.__code__), \
        "expected the trial's answer to compile to the reference's code (the case this test is about)"
    x = ag.tensor([1.0], requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    nodes = [z.grad_fn, z.grad_fn.next_functions[0][0], y.grad_fn, y.grad_fn.next_functions[0][0]]
    before = grading.CHECKS[0]
    with grading.checking("04.nodes_to_run", mine):      # no DelegationError: it is graded
        seen = mine(nodes, [y.grad_fn])
    assert seen == set(nodes[:2]) and grading.CHECKS[0] == before + 1, \
        f"expected the answer graded (z's two nodes lead to y's), saw {seen}"
