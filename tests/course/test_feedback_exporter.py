"""The feedback exporter remembers Markdown, highlighted code and sanitized HTML across the
notebooks a grading process renders (autograd_course/autograde.py).  What it remembers
must never leak from one student's notebook into another's."""

import copy

import pytest

from autograd_course.notebooks import read_notebook
from tests.course import SOLUTIONS

from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS


def _render(nb):
    from autograd_course.autograde import FeedbackExporter     # nbgrader: imported when a test runs
    html, _ = FeedbackExporter().from_notebook_node(copy.deepcopy(nb))
    return html


@pytest.fixture
def notebook():
    from autograd_course import autograde
    autograde.CachedHighlight._memo.clear()
    autograde.FeedbackExporter._markdown.clear()
    autograde.FeedbackExporter._cleaned.clear()
    return read_notebook(SOLUTIONS / "01_tensors.ipynb")


def _cells(nb, kind):
    return [c for c in nb.cells if c.cell_type == kind and c.source.strip()]


def test_a_remembered_rendering_is_the_fresh_one(notebook):
    from autograd_course import autograde
    fresh = _render(notebook)
    remembered = (len(autograde.CachedHighlight._memo), len(autograde.FeedbackExporter._markdown),
                  len(autograde.FeedbackExporter._cleaned))
    assert remembered[0] >= len(_cells(notebook, "code")) - 1 and remembered[1] >= 1 and remembered[2] >= 1, (
        f"expected the code cells, Markdown cells and sanitized HTML remembered, saw {remembered} entries")
    again = _render(notebook)
    assert again == fresh, "the second rendering (from the cache) differs from the first"


def test_another_students_cells_are_rendered_from_their_own_source(notebook):
    _render(notebook)                                  # a first student fills the cache
    other = copy.deepcopy(notebook)
    code, markdown = _cells(other, "code")[3], _cells(other, "markdown")[2]
    code.source += "\nunusual_name_of_student_two = 42"
    markdown.source += "\n\nA note written by *student two*."
    html = _render(other)
    assert "unusual_name_of_student_two" in html, "the changed code cell was rendered from the cache"
    assert "<em>student two</em>" in html, "the changed Markdown cell was rendered from the cache"
    first = _render(notebook)
    assert "unusual_name_of_student_two" not in first and "student two" not in first, (
        "the first student's notebook shows the second student's cells")
