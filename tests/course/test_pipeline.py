"""The nbgrader pipeline on every assignment of course/source/, with real nbgrader.

generate_assignment -> autograde (student "perfect": the solution notebook;
student "blank": the untouched release) -> generate_feedback -> export (CSV),
plus nbgrader's Validator, the release's secrecy (no solution code, no hidden
tests) and the drift of the committed release/ and solutions/.
"""

import copy
import csv
import shutil
import types

import pytest

from autograd_course import notebooks     # notebooks.tests_of: pytest would collect a bare tests_of
from autograd_course.layout import assignments, source_notebook_path
from autograd_course.nbgrader_setup import export_csv
from autograd_course.notebooks import (exercise_of, grade_id, is_answer_cell, is_test_cell, nbgrader_meta,
                                       read_notebook, solution_notebook)
from autograd_course.pipeline import _tree, drift, source_problems
from autograd_course.pool import Submission, grade_here
from tests.course import COURSE

from .conftest import COURSE_MARKS, require_assignments, wants

pytestmark = COURSE_MARKS

ASSIGNMENTS = assignments(COURSE)          # what exists now; the tests adapt
PARAMS = ASSIGNMENTS or [pytest.param(None, marks=pytest.mark.skip(reason="course/source/ is empty"))]


@pytest.fixture(scope="module")
def pipeline(generated_course, grader, nbval_run, request, tmp_path_factory):
    """Grade the perfect and the blank submission of every assignment in one
    course copy (so feedback and export see all of them), while worker
    processes run the Validator and the "deleted test cells" submission."""
    names = require_assignments()
    work = tmp_path_factory.mktemp("graded") / "course"
    shutil.copytree(generated_course, work)
    solutions = {a: solution_notebook(read_notebook(source_notebook_path(a, COURSE)))
                 for a in names}
    releases = {a: read_notebook(work / "release" / a / f"{a}.ipynb") for a in names}

    # The Validator and the "deleted test cells" student on the first assignment
    # only: they execute the same notebooks again (a kernel each).
    first = names[0]
    deleter = copy.deepcopy(solutions[first])
    deleter.cells = [c for c in deleter.cells if not is_test_cell(c)]
    side_jobs = [Submission(first, "solution", solutions[first], kind="validate"),
                 Submission(first, "blank", releases[first], kind="validate"),
                 Submission(first, "deleter", deleter)]

    if wants(request, "test_solutions_nbval"):
        nbval_run.start()                                 # overlaps the grading below
    side = [grader.submit(generated_course, job) for job in side_jobs]
    if wants(request, "test_mistakes"):
        request.getfixturevalue("mistake_futures")        # the pool grades them meanwhile
    main_jobs = [Submission(a, student, nb) for a in names
                 for student, nb in (("perfect", solutions[a]), ("blank", releases[a]))]
    graded = grade_here(work, main_jobs, feedback={"blank"})
    side_results = [future.result() for future in side]
    csv_path = export_csv(work)
    return types.SimpleNamespace(
        course=work, names=names, csv=csv_path,
        graded={(g.student, g.assignment): g for g in graded},
        validated={(g.student, g.assignment): g for g in side_results if g.kind == "validate"},
        deleter=[g for g in side_results if g.student == "deleter"][0])


# ----------------------------------------------------------------- sources

def test_course_has_assignments():
    assert require_assignments()


def test_sources_carry_no_outputs():
    problems = source_problems(COURSE)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", PARAMS)
def test_source_follows_the_cell_conventions(assignment):
    """AUTHORING.md's metadata table: answer cells are ungraded solutions,
    test cells are locked, graded, with points, named <NN>_<name>_test..."""
    nb = read_notebook(source_notebook_path(assignment, COURSE))
    number = assignment.split("_", 1)[0]
    problems, answers, tests = [], [], []
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_meta(cell)
        if not meta:
            continue
        gid = meta.get("grade_id", "")
        where = f"cell {index} ({gid})"
        if not gid.startswith(number + "_"):
            problems.append(f"{where}: grade_id must start with {number}_")
        if meta.get("solution"):
            answers.append(gid)
            if meta.get("grade") or not gid.endswith("_answer"):
                problems.append(f"{where}: an answer cell is grade=false and named <NN>_<name>_answer")
            if cell.cell_type == "code" and "BEGIN SOLUTION" not in cell.source:
                problems.append(f"{where}: an answer cell has ### BEGIN SOLUTION / ### END SOLUTION")
        elif meta.get("grade"):
            tests.append(gid)
            if not meta.get("locked") or not meta.get("points"):
                problems.append(f"{where}: a test cell is locked and has points")
            if "_test" not in gid:
                problems.append(f"{where}: a test cell is named <NN>_<name>_test...")
    for answer in answers:
        if not notebooks.tests_of(exercise_of(answer), tests):
            problems.append(f"{answer}: no test cell named {exercise_of(answer)}_test...")
    assert answers, "no answer cell"
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------- release

@pytest.mark.parametrize("assignment", PARAMS)
def test_every_assignment_is_generated(generated_course, assignment):
    release = read_notebook(generated_course / "release" / assignment / f"{assignment}.ipynb")
    source = read_notebook(source_notebook_path(assignment, COURSE))
    assert [grade_id(c) for c in release.cells] == [grade_id(c) for c in source.cells]
    assert all(c.outputs == [] for c in release.cells if c.cell_type == "code")


def _regions(source, begin, end):
    """The lines between begin/end marker lines, and the lines outside them."""
    inside, outside, current = [], [], None
    for line in source.split("\n"):
        if begin in line:
            current = []
        elif end in line and current is not None:
            inside.append(current)
            current = None
        elif current is not None:
            current.append(line)
        else:
            outside.append(line)
    return inside, outside


@pytest.mark.parametrize("assignment", PARAMS)
def test_release_carries_no_solution_and_no_hidden_tests(generated_course, assignment):
    source = read_notebook(source_notebook_path(assignment, COURSE))
    release = read_notebook(generated_course / "release" / assignment / f"{assignment}.ipynb")
    release_lines = "\n".join(line.strip() for c in release.cells for line in c.source.split("\n"))
    released = {grade_id(c): {line.strip() for line in c.source.split("\n")}
                for c in release.cells if grade_id(c)}
    stub = {"# YOUR CODE HERE", "raise NotImplementedError()", "YOUR ANSWER HERE", ""}
    problems = [f"the release contains {marker!r}" for marker in
                ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
                if marker in release_lines]
    for cell in source.cells:
        gid = grade_id(cell)
        for begin, end, what in (("BEGIN SOLUTION", "END SOLUTION", "solution code"),
                                 ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "hidden-test code")):
            blocks, outside = _regions(cell.source, begin, end)
            if what == "solution code" and is_answer_cell(cell) and not blocks:
                blocks, outside = [cell.source.split("\n")], []    # the whole cell is the solution
            visible = {line.strip() for line in outside} | stub
            for block in blocks:
                secret = [line.strip() for line in block if line.strip()]
                if len(secret) >= 2 and "\n".join(secret) in release_lines:
                    problems.append(f"{gid}: a whole block of {what} is in the release")
                leaked = [line for line in secret
                          if line not in visible and line in released.get(gid, ())]
                if leaked:
                    problems.append(f"{gid}: {what} left in the released cell: {leaked[:3]}")
    assert not problems, "\n".join(problems)


def test_committed_release_and_solutions_match_the_sources(generated_course):
    """What ``autograd-course check`` checks: rerun make release / make solutions."""
    expected = _tree(generated_course / "release")
    problems = drift(COURSE, expected_release=expected)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- autograde

@pytest.mark.parametrize("assignment", PARAMS)
def test_perfect_submission_gets_full_marks(pipeline, assignment):
    graded = pipeline.graded[("perfect", assignment)]
    assert graded.success, graded.log
    assert graded.cells, "no graded cell"
    assert graded.max_score == sum(c.max_score for c in graded.cells.values()) > 0
    lost = {g: f"{c.score:g}/{c.max_score:g}\n{c.output.strip()[-1500:]}"
            for g, c in graded.cells.items() if not c.full}
    assert not lost, "\n".join(f"{g}: {v}" for g, v in lost.items())
    assert graded.score == graded.max_score


@pytest.mark.parametrize("assignment", PARAMS)
def test_blank_release_gets_zero_without_crashing(pipeline, assignment):
    graded = pipeline.graded[("blank", assignment)]
    assert graded.success, graded.log
    assert graded.cells
    passing = sorted(g for g, c in graded.cells.items() if c.score != 0)
    assert not passing, f"test cells that give points to the untouched release: {passing}"
    assert graded.score == 0


@pytest.mark.parametrize("assignment", PARAMS)
def test_feedback_names_the_failing_tests(pipeline, assignment):
    graded = pipeline.graded[("blank", assignment)]
    html_path = pipeline.course / "feedback" / "blank" / assignment / f"{assignment}.html"
    assert graded.feedback == str(html_path) and html_path.is_file()
    html = html_path.read_text(encoding="utf-8")
    for gid, cell in graded.cells.items():
        assert f"Grade cell: <code>{gid}</code>" in html
        assert f"Score: 0.0 / {cell.max_score}" in html
    assert "NotImplementedError" in html


def test_grades_export_to_csv(pipeline):
    with open(pipeline.csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    students = {"perfect", "blank"}
    assert {(r["student_id"], r["assignment"]) for r in rows} == \
        {(s, a) for s in students for a in pipeline.names}
    assert len(rows) == len(students) * len(pipeline.names)
    for row in rows:
        expected = row["max_score"] if row["student_id"] == "perfect" else "0.0"
        assert float(row["score"]) == float(expected), row
        assert float(row["max_score"]) > 0


def test_deleted_test_cells_are_restored(pipeline):
    """OverwriteCells.add_missing_cells: a submission without its test cells is
    graded with the gradebook's copies (here: full marks)."""
    graded = pipeline.deleter
    assert graded.success, graded.log
    assert graded.cells and all(c.full for c in graded.cells.values()), \
        {g: c.output[-500:] for g, c in graded.cells.items() if not c.full}


def test_validator_accepts_the_solution_and_rejects_the_blank(pipeline):
    """``nbgrader validate`` exits 0 even when tests fail: look at the result
    (first assignment only: the autograde tests run every notebook already)."""
    assignment = pipeline.names[0]
    solution = pipeline.validated[("solution", assignment)].validation
    assert solution == {}, solution
    blank = pipeline.validated[("blank", assignment)].validation
    assert set(blank) == {"failed"}, blank
    tests = [c for c in read_notebook(source_notebook_path(assignment, COURSE)).cells
             if is_test_cell(c)]
    assert len(blank["failed"]) == len(tests)
