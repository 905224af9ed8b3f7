"""'Predict, then run' questions (issue 14, item 6), fast.

A question is a markdown cell starting **Predict, then run.**, a cell where the student writes
``prediction = ...``, and a cell that runs the code and calls ``reveal(prediction, actual, why=...)``
(``autograd_course.notebook``), which prints whether the prediction was right and why.  They carry
no points: the answer is on the screen once the cell has run.
"""

import contextlib
import io

import pytest

import autograd_lib as ag
from autograd_course.layout import assignments
from autograd_course.notebook import reveal
from autograd_course.notebooks import read_notebook

from tests.course import COURSE

PROMPT = "**Predict, then run.**"


def questions(nb):
    """(index, prompt, prediction cell, run cell) of every question of a notebook."""
    cells = nb.cells
    return [(i, cells[i].source, cells[i + 1].source if i + 1 < len(cells) else "",
             cells[i + 2].source if i + 2 < len(cells) else "")
            for i, c in enumerate(cells) if c.cell_type == "markdown" and PROMPT in c.source]


def test_the_course_asks_predictions_in_several_notebooks():
    found = {a: len(questions(read_notebook(COURSE / "release" / a / f"{a}.ipynb"))) for a in assignments(COURSE)}
    assert sum(n > 0 for n in found.values()) >= 3, f"expected questions in at least 3 notebooks, saw {found}"


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_each_question_leaves_the_prediction_to_the_student_and_reveals_it(assignment):
    nb = read_notebook(COURSE / "release" / assignment / f"{assignment}.ipynb")
    problems = []
    for i, _, prediction, run in questions(nb):
        if not prediction.startswith("prediction = ...") or "\n" in prediction.strip():
            problems.append(f"cell {i + 1}: expected the one line `prediction = ...  # ...`, saw {prediction!r}")
        if "reveal(prediction," not in run:
            problems.append(f"cell {i + 2}: expected the run cell to call reveal(prediction, ...), saw {run[:200]!r}")
    assert not problems, f"{assignment}: " + "; ".join(problems)


def _said(*args, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = reveal(*args, **kwargs)
    return result, out.getvalue()


@pytest.mark.parametrize("prediction, actual, right", [
    ([4.0, 8.0, 12.0], ag.tensor([4.0, 8.0, 12.0]), True),
    ([2.0, 4.0, 6.0], ag.tensor([4.0, 8.0, 12.0]), False),
    ([4.0, 8.0], ag.tensor([4.0, 8.0, 12.0]), False),            # a wrong shape is wrong
    ([[4.0, 8.0, 12.0]], ag.tensor([4.0, 8.0, 12.0]), False),
    (False, False, True),
    (True, False, False),
    ("RuntimeError", "RuntimeError", True),
    ("TypeError", "RuntimeError", False),
    ("RuntimeError", ag.tensor([2.0, 2.0]), False),
])
def test_reveal_judges_a_prediction(prediction, actual, right):
    seen, text = _said(prediction, actual, why="because")
    assert seen is right, f"expected reveal({prediction!r}, {actual!r}) to say {right}, it said {seen}: {text}"
    assert text.startswith("Right" if right else "Not quite") and "Why: because" in text, (
        f"expected the verdict and the reason printed, saw {text!r}")


def test_reveal_without_a_prediction_shows_the_answer_and_says_so():
    seen, text = _said(..., ag.tensor([1.0]), why="because")
    assert seen is False and text.startswith("No prediction yet") and "[1.0]" in text, (
        f"expected 'No prediction yet' with the value, saw {seen}, {text!r}")
