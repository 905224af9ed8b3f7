"""No task text contains its own answer (fast).

A student reads the release: the prose (markdown cells) and, in each answer cell, the
signature and docstring around the part they write.  None of it may contain a line of
the solution, so that an exercise is a problem to solve and not a line to copy.  Lines
are compared without whitespace, and a leading ``return`` or ``raise`` is not part of
what is compared (``return x * 2`` is leaked by a prose that says "x * 2").  Not counted:
comments, lines of fewer than ``MIN_CHARS`` characters (``return (None, 0)`` says too
little to be an answer), the error an exercise raises (PyTorch's message is part of the
specification, quoted for the student to match), and the lines of ``IDIOMS``.
"""

import re

import pytest

from autograd_course.layout import assignments
from autograd_course.notebooks import grade_id, is_answer_cell, marked_lines, read_notebook

from tests.course import COURSE

MIN_CHARS = 16
RAISE = re.compile(r"^raise \w+(Error|Exception)\(")
# Lines that are the subject being taught, quoted as PyTorch's own usage before the exercise.
IDIOMS = {
    "09_train_epoch_answer": {"optimizer.zero_grad()", "optimizer.step()"},   # the four lines of every loop
}


def _key(line):
    return re.sub(r"\s+", "", re.sub(r"^(return|raise)\s+", "", line.strip()))


def solution_lines(source_nb):
    """(answer grade id, line) for every line a student writes."""
    for cell in source_nb.cells:
        if not is_answer_cell(cell):
            continue
        for line in marked_lines(cell.source):
            text = line.strip()
            if (not text or text.startswith("#") or RAISE.match(text) or len(_key(text)) < MIN_CHARS
                    or text in IDIOMS.get(grade_id(cell), ())):
                continue
            yield grade_id(cell), text


def task_text(release_nb):
    """What the student reads: every markdown cell, and the answer cells as released."""
    return {(grade_id(c) or f"cell {i}"): re.sub(r"\s+", "", c.source)
            for i, c in enumerate(release_nb.cells) if c.cell_type == "markdown" or is_answer_cell(c)}


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_no_task_text_contains_a_line_of_its_answer(assignment):
    source = read_notebook(COURSE / "source" / assignment / f"{assignment}.ipynb")
    release = read_notebook(COURSE / "release" / assignment / f"{assignment}.ipynb")
    texts = task_text(release)
    leaks = [f"{answer}: {line!r} appears in {where}" for answer, line in solution_lines(source)
             for where, text in texts.items() if _key(line) in text]
    assert not leaks, (f"{assignment}: expected the release's prose and answer cells to state goals, not "
                       f"solution lines; found {len(leaks)}:\n" + "\n".join(leaks))


def test_the_check_finds_a_planted_leak():
    """A prose cell that prints a solution line is caught (the check can fail)."""
    import copy

    source = read_notebook(COURSE / "source" / "04_leaves" / "04_leaves.ipynb")
    release = copy.deepcopy(read_notebook(COURSE / "release" / "04_leaves" / "04_leaves.ipynb"))
    answer, line = next(solution_lines(source))
    release.cells[0].source += f"\n\nHint: `{line}`"
    found = [a for a, l in solution_lines(source) if _key(l) in task_text(release)[grade_id(release.cells[0]) or "cell 0"]]
    assert answer in found, f"expected the planted line {line!r} of {answer} to be found, found leaks of {found}"


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_every_helper_the_grader_forbids_is_named_in_the_task_text(assignment):
    """A slot's guards (library helpers that hold the whole answer) are armed as tripwires while
    the exercise is graded: calling one earns nothing, so the notebook must say so by name."""
    from autograd_lib import exercises

    number = assignment[:2]
    release = read_notebook(COURSE / "release" / assignment / f"{assignment}.ipynb")
    prose = "\n".join(c.source for c in release.cells if c.cell_type == "markdown")
    unnamed = [f"{eid}: {path.split(':')[1]}" for eid, slot in exercises.SLOTS.items()
               if eid.startswith(number + ".") for path in slot.guards
               if path.split(":")[1] not in prose]
    assert not unnamed, (f"{assignment}: expected the task text to name each library helper whose call earns "
                         f"no points (a DelegationError while graded); not named: {unnamed}")
