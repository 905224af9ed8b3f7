"""Assignment 03's checks of the engine (fast): stage independence and feedback that finds
the real mistake.

The driver and run_node reach the other pieces through their slots (``ag.engine.<name>``),
so a wrong count_dependencies or execute, plugged in the library, costs the driver's check
nothing, and a driver that calls a notebook's own function instead is told so by rule
``slots``.  A loop that never runs the root is told that, not an order error with "seen: []".
"""

import functools
import types

import numpy as np
import pytest

import autograd_lib as ag
from autograd_lib import exercises
from autograd_course import grading
from autograd_course.checks import backward as check
from autograd_course.notebooks import grade_id, is_answer_cell, read_notebook, solution_notebook

from tests.course import COURSE

SOURCE = COURSE / "source" / "03_backward" / "03_backward.ipynb"


@functools.cache
def answers():
    return {grade_id(c): c.source for c in solution_notebook(read_notebook(SOURCE)).cells if is_answer_cell(c)}


def solution(answer, edits=(), extra=None):
    """The names an answer cell of the solution defines (plugging nothing), with ``edits``
    ((old, new) pairs) made first; ``extra``: more names the cell's code may use."""
    code = answers()[answer]
    for old, new in edits:
        assert code.count(old) == 1, f"expected {old!r} once in {answer}"
        code = code.replace(old, new)
    namespace = {"np": np, "ag": ag, "exercises": types.SimpleNamespace(plug=lambda *args: None), **(extra or {})}
    exec(compile(code, answer, "exec"), namespace)
    return namespace


@pytest.fixture(autouse=True)
def library_as_shipped():
    exercises.unplug_all()
    yield
    exercises.unplug_all()


def counts_nodes_once(roots):            # a wrong count_dependencies: every node 1, whatever its edges
    found, stack = {}, list(roots)
    while stack:
        for node, _ in stack.pop().next_functions:
            if node is not None and node not in found:
                found[node] = 1
                stack.append(node)
    return found


def test_a_wrong_count_or_loop_in_the_library_costs_the_driver_nothing():
    run_backward = solution("03_run_backward_answer")["run_backward"]
    oldest_first = solution("03_execute_answer", [("return self.node._sequence_nr > other.node._sequence_nr",
                                                  "return self.node._sequence_nr < other.node._sequence_nr")])
    exercises.plug("03.count_dependencies", counts_nodes_once)
    x = ag.tensor([2.0], requires_grad=True)
    (x * x + x).sum().backward()
    assert x.grad.tolist() != [5.0], "the broken counts should break a plain backward (else this test proves nothing)"
    exercises.plug("03.execute", oldest_first["execute"])
    check.run_backward(run_backward)          # raises CheckFailure if a broken piece reached the driver's check
    check.run_node(solution("03_run_node_answer")["run_node"])


def test_a_driver_calling_the_notebooks_own_count_fails_by_rule_slots():
    run_backward = solution("03_run_backward_answer",
                            [("ag.engine.count_dependencies(", "count_dependencies(")],
                            {"count_dependencies": solution("03_count_dependencies_answer")["count_dependencies"]}
                            )["run_backward"]
    with pytest.raises(grading.CheckFailure) as failure:
        check.run_backward(run_backward)
    message = str(failure.value)
    assert "rule slots:" in message and "count_dependencies" in message, \
        f"expected the failure to name the slot it skipped and rule slots, saw:\n{message}"


def test_run_node_taking_a_piece_at_import_fails_by_rule_slots():
    from autograd_lib.engine import validate_outputs
    run_node = solution("03_run_node_answer", [("ag.engine.validate_outputs(", "validate_outputs(")],
                        {"validate_outputs": validate_outputs})["run_node"]
    with pytest.raises(grading.CheckFailure) as failure:
        check.run_node(run_node)
    assert "rule slots:" in str(failure.value) and "validate_outputs" in str(failure.value), str(failure.value)


def test_a_loop_that_never_runs_the_root_is_told_so():
    broken = solution("03_execute_answer", [("""    for node in dict.fromkeys(node for node, _ in root_edges):
        if dependencies.get(node, 0) == 0:
""", """    for node in dependencies:
        if dependencies[node] == 0:
""")])["execute"]
    with pytest.raises(grading.CheckFailure) as failure:
        check.execute(broken)
    message = str(failure.value)
    assert "rule roots:" in message and "the root" in message and "newest" not in message, \
        f"expected the precondition (the root ran) to fail first, by rule roots; saw:\n{message}"


def test_nodes_that_share_a_name_are_told_apart():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0, -1.0], requires_grad=True)
    order = check.labelled_order(((a * b).exp() + a * 3.0).sum(), {"a": a, "b": b})
    assert order == ["SumBackward0", "AddBackward0", "MulBackward0 #2", "ExpBackward0", "MulBackward0 #1",
                     "a", "b"], f"expected the newer MulBackward0 (a * 3) as #2, first; saw {order}"


def test_the_checks_pass_the_solutions():
    names = {"03_numerical_grad_answer": ["numerical_grad"], "03_count_dependencies_answer": ["count_dependencies"],
             "03_execute_answer": ["execute"], "03_run_node_answer": ["run_node"],
             "03_run_backward_answer": ["initial_gradients", "run_backward"]}
    for answer, functions in names.items():
        defined = solution(answer)
        for name in functions:
            getattr(check, name)(defined[name])
    rules = solution("03_vjps_answer")
    for op in ("add", "mul", "pow", "mean", "mm"):
        getattr(check, f"{op}_rule")(rules[f"{op}_backward"])
    check.vjps(*(rules[f"{op}_backward"] for op in ("add", "mul", "pow", "mean", "mm")))


def _not_written(*args, **kwargs):
    raise NotImplementedError()            # what an answer cell holds before the student writes it


@pytest.mark.parametrize("answer, name", [("03_numerical_grad_answer", "numerical_grad"),
                                          ("03_count_dependencies_answer", "count_dependencies"),
                                          ("03_execute_answer", "execute"), ("03_run_node_answer", "run_node"),
                                          ("03_run_backward_answer", "initial_gradients"),
                                          ("03_run_backward_answer", "run_backward")])
def test_a_visible_check_passes_a_right_answer_while_every_other_exercise_is_unwritten(answer, name):
    """A trial student with 03's vjps not yet written saw check.run_node blame run_node's rule
    `order`: the check computed its expected events with the library's run_node but the student's
    unwritten rules.  Every other slot of 03 holds a placeholder here; the check must still pass."""
    own = {eid for eid in exercises.exercises_of("03") if eid.endswith("." + name)}
    for eid in exercises.exercises_of("03"):
        if eid not in own:
            exercises.plug(eid, _not_written)
    getattr(check, name)(solution(answer)[name])
