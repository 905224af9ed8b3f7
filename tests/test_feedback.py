"""What a student reads when something fails (autograd_course.feedback).

The lines of a failed check fit ``nbgrader validate``'s width; in a real kernel, a failed
check shows its message without the grading code's frames, an exercise not written yet
is one line naming it and the way out, an error raised in a student's plugged function
names the exercise and shows only the student's frames, and any other error keeps
IPython's own traceback.
"""

import nbformat
import pytest

from autograd_course import feedback, grading
from autograd_course.nbgrader_setup import kernel_environment
from autograd_course.rules import Rule


def test_every_line_of_a_failure_fits_validate():
    rule = Rule("03.execute", ["newest"], ["among the nodes ready to run, the newest (the largest "
                                          "_sequence_nr) runs first, before any node created earlier"])
    with pytest.raises(grading.CheckFailure) as caught:
        grading.expect_equal(list(range(40)), list(range(41)), what="the order the nodes ran in " * 4, rule=rule)
    lines = str(caught.value).split("\n")
    too_long = [line for line in lines if len(line) > feedback.WIDTH]
    assert not too_long, f"expected lines of at most {feedback.WIDTH} characters; seen {too_long}"
    assert any(line.startswith("  rule newest: among the nodes") for line in lines), \
        f"expected a line naming the rule and quoting it; seen:\n{caught.value}"
    assert caught.value.rule == rule, f"expected the failure to carry its rule, seen {caught.value.rule!r}"


def _run(cells):
    """Run code cells in a fresh kernel; the outputs of each."""
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True)
    with kernel_environment():
        client.execute()
    return [cell.outputs for cell in nb.cells]


def _error(outputs):
    errors = [o for o in outputs if o.output_type == "error"]
    assert len(errors) == 1, f"expected the cell to fail with one error output; seen {outputs}"
    return errors[0]


SETUP = "import autograd_lib as ag\nfrom autograd_lib import exercises\nfrom autograd_course import grading"


def test_in_a_kernel_errors_name_the_exercise_and_hide_the_grading_code():
    outputs = _run([
        SETUP,
        "def count_dependencies(roots):\n    raise NotImplementedError()\n"
        "exercises.plug('03.count_dependencies', count_dependencies)",
        "x = ag.tensor([1., 2.], requires_grad=True)\n(x * 2).sum().backward()",
        "def count_dependencies(roots):\n    return {}[5]\nexercises.plug('03.count_dependencies', count_dependencies)",
        "(x * 2).sum().backward()",
        "grading.expect_equal(1, 2, what='the count', rule=None)",
        "1 / 0",
    ])
    unsolved = _error(outputs[2])
    text = "\n".join(unsolved.traceback)
    assert len(unsolved.traceback) == 1 and "03.count_dependencies is not written yet" in text \
        and "exercises.unplug('03.count_dependencies')" in text, \
        f"expected one line naming the exercise and the way out; seen {unsolved.traceback}"
    assert unsolved.ename == "NotImplementedError", f"expected the error kept as the cell's error; seen {unsolved.ename}"

    broken = "\n".join(_error(outputs[4]).traceback)
    assert "Exercise 03.count_dependencies raised KeyError: 5" in broken and "return {}[5]" in broken, \
        f"expected the exercise named and the student's own line shown; seen:\n{broken}"
    assert "autograd_lib" not in broken and "engine.py" not in broken, \
        f"expected no frame of the library; seen:\n{broken}"

    failed = _error(outputs[5])
    assert failed.traceback == ["the count is wrong.\n  expected: 2\n  seen:     1"], \
        f"expected a failed check to show its message alone; seen {failed.traceback}"

    other = "\n".join(_error(outputs[6]).traceback)
    assert "ZeroDivisionError" in other and "Traceback" in other, \
        f"expected IPython's own traceback for an error that is no exercise's; seen:\n{other}"


def test_a_placeholder_left_in_an_answer_cell_is_named_not_compared():
    """nbgrader's placeholder raises a bare NotImplementedError(): a test that compares what the
    student's function gives says 'not written yet' (not 'expected True, seen a str'); an error
    with a message, as PyTorch raises them, is still compared as its text."""
    from autograd_course.notebook import error_of, outcome

    def unwritten(*args):
        raise NotImplementedError()

    def refuses(*args):
        raise NotImplementedError("derivative for aten::foo is not implemented")

    for helper in (outcome, error_of):
        with pytest.raises(feedback.CheckFailure) as failed:
            helper(unwritten, 1)
        assert str(failed.value).startswith("Not written yet"), (
            f"{helper.__name__}: expected the failure to start 'Not written yet', seen {str(failed.value)!r}")
        seen = helper(refuses, 1)
        assert seen == "NotImplementedError: derivative for aten::foo is not implemented", (
            f"{helper.__name__}: expected an error with a message compared as its text, seen {seen!r}")


def test_a_test_cell_whose_visible_check_passed_says_so_and_no_other_cell_does():
    outputs = _run([
        SETUP + "\nfrom autograd_course.checks import tensors as check",
        "def is_leaf(tensor):\n    return tensor.grad_fn is None",
        "check.is_leaf(is_leaf)",
        "def is_leaf(tensor):\n    return True",
        "check.is_leaf(is_leaf)",
        "print('a demo')",
    ])
    texts = [[o.get("text", "") for o in cell if o.output_type == "stream"] for cell in outputs]
    assert texts[2] == ["passed: check.is_leaf (this cell's hidden tests run when it is graded)\n"], \
        f"expected the passing test cell to say it passed; seen {outputs[2]}"
    _error(outputs[4])
    assert not any("passed" in t for t in texts[4]), f"expected no 'passed' after a failed check; seen {outputs[4]}"
    assert texts[5] == ["a demo\n"] and texts[1] == [] and texts[3] == [], \
        f"expected other cells to print only their own output; seen {texts}"
