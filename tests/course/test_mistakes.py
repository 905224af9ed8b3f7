"""Every catalogued mistake (course/mistakes/m<NN>.py) is autograded with
real nbgrader as a submission: the solution notebook with one answer cell
edited.  The exercise must lose points, every other exercise must keep its
points, and the failing test's output must name the broken rule.

The mistakes of all assignments are graded by worker processes (one per CPU),
each with its own copy of the generated course; mistakes of different
exercises share a submission (tests/course/judging.py says how, and why that
still judges each one as if graded alone).  By default
the whole catalog is graded (``make test``, CI); ``COURSE_MISTAKES=1`` grades
only the first mistake of every exercise (``make test-quick``).
"""

import dataclasses

import pytest

from autograd_course.layout import assignment_for, source_notebook_path
from autograd_course.mistakes import Mistake, catalogs, with_mistake
from autograd_course.notebooks import grade_id, is_answer_cell, read_notebook, solution_notebook, with_answer
from autograd_course.pool import Submission
from tests.course import COURSE
from tests.course.judging import judge, mistake_batches, mistake_submissions

from .conftest import (MISTAKES_REASON, COURSE_MARKS, catalog_selected, mistake_selected,
                       require_assignments)

pytestmark = COURSE_MARKS

CATALOGS = catalogs(COURSE)
CASES = [pytest.param(number, index, mistake, id=f"m{number}-{index:02d}-{mistake.grade_id}",
                      marks=[] if mistake_selected(mistakes, index) and catalog_selected(number)
                      else [pytest.mark.skip(reason=MISTAKES_REASON if catalog_selected(number) else
                                             f"COURSE_ASSIGNMENTS excludes {number}")])
         for number, mistakes in sorted(CATALOGS.items()) for index, mistake in enumerate(mistakes)]
MIN_MISTAKES = 3                      # per exercise (AUTHORING.md)


@pytest.fixture(scope="module")
def mistake_results(mistake_futures):
    """{(number, index): (Graded, [the mistakes graded alongside])} for every mistake
    whose assignment exists."""
    return {key: (future.result(), alongside) for key, (future, alongside) in mistake_futures.items()}


@pytest.mark.parametrize("number, index, mistake", CASES)
def test_mistake_is_caught_and_attributed(mistake_results, number, index, mistake):
    assert assignment_for(number, COURSE), f"m{number}.py: no course/source/{number}_*/"
    graded, alongside = mistake_results[(number, index)]
    problems = judge(graded, mistake, alongside)
    assert not problems, "\n\n".join(problems)


def test_catalogs_point_at_answer_cells():
    problems = []
    for number, mistakes in sorted(CATALOGS.items()):
        assignment = assignment_for(number, COURSE)
        if assignment is None:
            problems.append(f"m{number}.py: no assignment course/source/{number}_*/")
            continue
        nb = read_notebook(source_notebook_path(assignment, COURSE))
        answers = {grade_id(c) for c in nb.cells if is_answer_cell(c)}
        for mistake in mistakes:
            if mistake.grade_id not in answers:
                problems.append(f"m{number}.py {mistake.name!r}: {mistake.grade_id} is not an answer "
                                f"cell of {assignment} ({', '.join(sorted(answers))})")
        names = [(m.grade_id, m.name) for m in mistakes]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            problems.append(f"m{number}.py: duplicated mistakes {duplicates}")
    assert not problems, "\n".join(problems)


def test_every_exercise_has_three_mistakes():
    missing = []
    for assignment in require_assignments():
        number = assignment.split("_", 1)[0]
        nb = read_notebook(source_notebook_path(assignment, COURSE))
        for cell in nb.cells:
            if is_answer_cell(cell):
                count = sum(m.grade_id == grade_id(cell) for m in CATALOGS.get(number, []))
                if count < MIN_MISTAKES:
                    missing.append(f"{grade_id(cell)}: {count} mistake(s) in "
                                   f"course/mistakes/m{number}.py, at least {MIN_MISTAKES} needed")
    assert not missing, "\n".join(missing)


# ------------------------------------------------------------ the harness itself

FIXTURE = "00_fixture"
DOUBLE_WRONG = Mistake("00_double_answer", "adds two instead of doubling",
                       edits=[("2 * x", "x + 2")], rule="doubling multiplies by two")
NOT_A_MISTAKE = Mistake("00_square_answer", "a correct answer", edits=[("x * x", "x ** 2")],
                        rule="a square multiplies a number by itself")
LEAKY = Mistake("00_double_answer", "right, but breaks the grading of another exercise",
                edits=[("return 2 * x", "return x + x\n\n"
                        "_expect_equal = grading.expect_equal\n\n"
                        "def _shadow(seen, expected, **kwargs):      # global state that leaks\n"
                        "    if seen == 16:\n"
                        "        raise AssertionError('a side effect of the double answer')\n"
                        "    return _expect_equal(seen, expected, **kwargs)\n\n"
                        "grading.expect_equal = _shadow")], rule="doubling multiplies by two")
WRONG_RULE = dataclasses.replace(DOUBLE_WRONG, rule="a rule that no test prints")
SQUARE_WRONG = Mistake("00_square_answer", "doubles instead of squaring", edits=[("x * x", "x + x")],
                      rule="a square multiplies a number by itself")
TRIPLES = Mistake("00_double_answer", "triples", edits=[("2 * x", "3 * x")], rule="doubling multiplies by two")
CUBES = Mistake("00_square_answer", "cubes", edits=[("x * x", "x * x * x")],
                rule="a square multiplies a number by itself")
CATALOG = [DOUBLE_WRONG, SQUARE_WRONG, TRIPLES, CUBES]
WARNS = ("import warnings\n\ndef double(x):\n"
         "    warnings.warn('a harmless warning', UserWarning)\n    return 2 * x\n")


@pytest.fixture(scope="module")
def fixture_results(fixture_course, grader):
    solution = solution_notebook(
        read_notebook(source_notebook_path(FIXTURE, fixture_course)))
    release = read_notebook(fixture_course / "release" / FIXTURE / f"{FIXTURE}.ipynb")
    submissions = {
        "perfect": solution,
        "blank": release,
        "wrong": with_mistake(solution, DOUBLE_WRONG),
        "correct": with_mistake(solution, NOT_A_MISTAKE),
        "leaky": with_mistake(solution, LEAKY),
        "warns": with_answer(solution, "00_double_answer", WARNS),
    }
    batched, batch = mistake_submissions(fixture_course, {FIXTURE: CATALOG})[-1]
    assert [i for i, _ in batch] == [2, 3], f"the last batch of CATALOG should be TRIPLES and CUBES: {batch}"
    submissions["round"] = batched.notebook
    graded = grader.map(fixture_course, [Submission(FIXTURE, student, nb)
                                         for student, nb in submissions.items()])
    return {g.student: g for g in graded}


def test_harness_grades_the_fixture(fixture_results):
    perfect, blank = fixture_results["perfect"], fixture_results["blank"]
    assert perfect.success and perfect.score == perfect.max_score == 4, perfect.log
    assert blank.success and blank.score == 0 and len(blank.cells) == 3, blank.log


def test_harness_catches_a_wrong_answer_and_attributes_it(fixture_results):
    wrong = fixture_results["wrong"]
    assert judge(wrong, DOUBLE_WRONG) == []
    assert not wrong.cells["00_double_test"].full and wrong.cells["00_square_test"].full
    assert "doubling multiplies by two" in wrong.cells["00_double_test"].output


def test_harness_reports_a_mistake_that_the_tests_miss(fixture_results):
    problems = judge(fixture_results["correct"], NOT_A_MISTAKE)
    assert len(problems) == 1 and "give full points" in problems[0], problems


def test_harness_reports_points_lost_by_another_exercise(fixture_results):
    problems = judge(fixture_results["leaky"], LEAKY)
    assert any("00_square_test (another exercise) lost points" in p for p in problems), problems
    assert any("give full points" in p for p in problems), problems       # double itself is right


def test_harness_reports_feedback_without_the_rule(fixture_results):
    problems = judge(fixture_results["wrong"], WRONG_RULE)
    assert len(problems) == 1 and "names the rule" in problems[0], problems


def test_batches_grade_each_exercise_first_mistake_alone_then_in_rounds():
    seen = mistake_batches(CATALOG)
    assert seen == [[0], [1], [2, 3]], f"expected [[0], [1], [2, 3]], saw {seen}"
    seen = mistake_batches(CATALOG + [DOUBLE_WRONG], selected=lambda index: index != 2)
    assert seen == [[0], [1], [3, 4]], f"with mistake 2 left out, expected [[0], [1], [3, 4]], saw {seen}"


def test_a_round_judges_each_mistake_on_its_own_exercise(fixture_results):
    graded = fixture_results["round"]
    assert not graded.cells["00_double_test"].full and not graded.cells["00_square_test"].full, graded.log
    assert judge(graded, TRIPLES, [CUBES]) == [] and judge(graded, CUBES, [TRIPLES]) == []
    problems = judge(graded, TRIPLES)                        # as if TRIPLES were alone: square lost points
    assert any("00_square_test (another exercise) lost points" in p for p in problems), problems


def test_a_warning_in_a_test_cell_does_not_zero_it(fixture_results):
    """IgnorePattern (nbgrader_config.py) removes Python warnings from stderr."""
    warns = fixture_results["warns"]
    assert warns.success and warns.score == warns.max_score, \
        {g: c.output for g, c in warns.cells.items()}
