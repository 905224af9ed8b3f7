"""How every notebook reads (fast): one title style, one exercise heading style, prose
within its word limits, short asides, a way out of an unfinished exercise, and no
control character in any text.

* The first line is the title ``# Assignment NN: <title>``; numbered sections are
  ``## N. <title>``, in order, and the last section is ``## Summary``.
* Each exercise is introduced by ``### Exercise K: `name` (P points)``, K counting from 1
  in the order of the answer cells, ``name`` the exercise's (its answer cell's grade id
  ``NN_name_answer``), P the points of its test cells.
* Prose (markdown) words, as a student meets them in the release: at most
  ``MAX_WORDS`` per notebook, the median under ``MEDIAN_WORDS``.
* An aside (what a first-timer may skip: PyTorch's internals) is a markdown cell that
  starts ``> **Aside`` and has at most ``ASIDE_WORDS`` words.
* Every notebook says how to unplug an exercise (``exercises.unplug``).
* No cell holds a control character other than a newline (a LaTeX ``\\frac`` written in
  a Python string without ``r`` becomes a form feed and renders as garbage).
"""

import re
import statistics

import pytest

from autograd_course.layout import assignments
from autograd_course.notebooks import exercise_of, grade_id, is_answer_cell, is_test_cell, read_notebook

from tests.course import COURSE
from tests.test_rules import PENDING

MAX_WORDS = 5500
MEDIAN_WORDS = 4000
ASIDE_WORDS = 150
TITLE = re.compile(r"^# Assignment (\d\d): \S.*$")
SECTION = re.compile(r"^## (?:(\d+)\. \S.*|Summary)$")
EXERCISE = re.compile(r"^### Exercise (\d+): `(\w+)` \((\d+) points?\)$")
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def _release(assignment):
    return read_notebook(COURSE / "release" / assignment / f"{assignment}.ipynb")


def _source(assignment):
    return read_notebook(COURSE / "source" / assignment / f"{assignment}.ipynb")


def prose_words(nb):
    return sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")


def _skip_pending(assignment):
    if assignment in PENDING:
        pytest.skip(f"{assignment} is still being rewritten")


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_titles_sections_and_exercise_headings(assignment):
    _skip_pending(assignment)
    nb = _source(assignment)
    problems = []
    first = nb.cells[0].source.split("\n")[0]
    title = TITLE.match(first)
    if not title or title.group(1) != assignment[:2]:
        problems.append(f"the first line is {first!r}; expected '# Assignment {assignment[:2]}: <title>'")
    sections, headings = [], []
    points = {}
    for cell in nb.cells:
        if is_test_cell(cell):
            exercise = re.sub(r"_test.*$", "", grade_id(cell))
            points[exercise] = points.get(exercise, 0) + int(cell.metadata.nbgrader.get("points", 0))
    answers = [exercise_of(grade_id(c)) for c in nb.cells if is_answer_cell(c)]
    pending_heading = None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                if line.startswith("# ") and cell is not nb.cells[0]:
                    problems.append(f"a second title {line!r}")
                if line.startswith("## "):
                    match = SECTION.match(line)
                    if not match:
                        problems.append(f"section heading {line!r}: expected '## N. <title>' or '## Summary'")
                    sections.append(line)
                if line.startswith("### Exercise") or line.startswith("**Exercise"):
                    match = EXERCISE.match(line)
                    if not match:
                        problems.append(f"exercise heading {line!r}: expected '### Exercise K: `name` (P points)'")
                        continue
                    headings.append(match)
                    pending_heading = match
        elif is_answer_cell(cell):
            exercise = exercise_of(grade_id(cell))
            if pending_heading is None:
                problems.append(f"no '### Exercise' heading before the answer cell {grade_id(cell)}")
            else:
                k, name, p = pending_heading.groups()
                if f"{assignment[:2]}_{name}" != exercise:
                    problems.append(f"the heading before {grade_id(cell)} names `{name}`")
                if int(k) != answers.index(exercise) + 1:
                    problems.append(f"the heading of {exercise} numbers it {k}; it is exercise "
                                    f"{answers.index(exercise) + 1}")
                if int(p) != points.get(exercise, 0):
                    problems.append(f"the heading of {exercise} says {p} points; its test cells give "
                                    f"{points.get(exercise, 0)}")
            pending_heading = None
    numbers = [int(SECTION.match(s).group(1)) for s in sections if SECTION.match(s) and SECTION.match(s).group(1)]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"sections are numbered {numbers}; expected 1, 2, 3, ... in order")
    if not sections or sections[-1] != "## Summary":
        problems.append(f"the last section is {sections[-1] if sections else None!r}; expected '## Summary'")
    assert not problems, f"{assignment}: expected one title, section and exercise heading style; found:\n" + \
        "\n".join(problems)


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_no_control_characters(assignment):
    problems = []
    for where, nb in (("source", _source(assignment)), ("release", _release(assignment))):
        for index, cell in enumerate(nb.cells):
            for match in CONTROL.finditer(cell.source):
                start = max(0, match.start() - 30)
                problems.append(f"{where} cell {index}: {match.group()!r} in {cell.source[start:match.end() + 10]!r}")
    assert not problems, f"{assignment}: expected no control character in a cell; found:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_no_empty_or_stray_cell(assignment):
    """A cell that says nothing (empty, or the text 'None' left by a script that wrote a missing
    value) is a leftover a student stops at."""
    stray = [f"cell {index} ({cell.cell_type}): {cell.source.strip()!r}"
             for index, cell in enumerate(_source(assignment).cells)
             if cell.source.strip() in ("", "None", "...") and not cell.metadata.get("nbgrader", {}).get("solution")]
    assert not stray, f"{assignment}: expected every cell to hold something; seen:\n" + "\n".join(stray)


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_asides_are_short_and_the_way_out_is_said(assignment):
    _skip_pending(assignment)
    nb = _release(assignment)
    long = [f"cell {i}: {len(c.source.split())} words" for i, c in enumerate(nb.cells)
            if c.cell_type == "markdown" and c.source.startswith("> **Aside") and len(c.source.split()) > ASIDE_WORDS]
    assert not long, f"{assignment}: expected asides of at most {ASIDE_WORDS} words; found {long}"
    text = "\n".join(c.source for c in nb.cells)
    assert "exercises.unplug(" in text, (f"{assignment}: expected the notebook to say how to unplug an exercise "
                                         f"(exercises.unplug), found no mention")


def test_prose_within_the_word_limits():
    words = {a: prose_words(_release(a)) for a in assignments(COURSE)}
    done = {a: w for a, w in words.items() if a not in PENDING}
    over = {a: w for a, w in done.items() if w > MAX_WORDS}
    assert not over, f"expected at most {MAX_WORDS} words of prose per notebook; over: {over}"
    if not PENDING:
        median = statistics.median(words.values())
        assert median < MEDIAN_WORDS, f"expected a median under {MEDIAN_WORDS} words of prose; seen {median} ({words})"
