"""A submission that hard-codes what the visible tests check earns nothing.

For every exercise, tests/course/hardcoding.py builds an answer that is right
on exactly the inputs the student release passes to the function (recorded by
running the release) and behaves like the exercise's first catalogued mistake
on every other input.  It passes every visible test.  Graded with real nbgrader
against the full tests, every test cell of its exercise must score 0 (each
one has a hidden randomized part), and every other exercise keeps its points.
"""

import concurrent.futures

import pytest

from tools import course

from . import hardcoding
from .conftest import COURSE_MARKS, catalog_selected
from .mistakes import catalogs

pytestmark = COURSE_MARKS

CATALOGS = catalogs()
EXERCISES = [(assignment, grade_id)
             for assignment in course.assignments()
             for grade_id in sorted(hardcoding.answers(assignment))]
CASES = [pytest.param(a, g, id=g.removesuffix("_answer"),
                      marks=[] if catalog_selected(a.split("_", 1)[0])
                      else [pytest.mark.skip(reason=f"COURSE_ASSIGNMENTS excludes {a}")])
         for a, g in EXERCISES]


def _first_mistake(grade_id):
    mistakes = [m for m in CATALOGS.get(grade_id.split("_", 1)[0], []) if m.grade_id == grade_id]
    assert mistakes, f"no catalogued mistake for {grade_id} in tests/course/mistakes/"
    return mistakes[0]


@pytest.fixture(scope="module")
def cheats():
    """{assignment: {answer grade id: cheat code}} for the selected assignments."""
    selected = sorted({a for a, _ in EXERCISES if catalog_selected(a.split("_", 1)[0])})
    with concurrent.futures.ThreadPoolExecutor(course.default_workers()) as pool:
        seen = dict(zip(selected, pool.map(hardcoding.record_visible_inputs, selected)))
    built = {}
    for assignment in selected:
        solutions = hardcoding.answers(assignment)
        built[assignment] = {}
        for grade_id, code in solutions.items():
            _, exercise_id, _ = hardcoding.split_answer(code)
            assert seen[assignment].get(exercise_id), (
                f"{assignment}: the release never calls {exercise_id}'s function, so there is no "
                f"visible input to hard-code (recorded: {sorted(seen[assignment])})")
            built[assignment][grade_id] = hardcoding.cheat_code(
                code, _first_mistake(grade_id).code, seen[assignment][exercise_id])
    return built


@pytest.fixture(scope="module")
def graded(cheats, generated_course, grader):
    """{answer grade id: Future of Graded}: each cheat in the full solution notebook."""
    futures = {}
    for assignment, codes in cheats.items():
        solution = course.solution_notebook(course.read_notebook(course.source_notebook_path(assignment)))
        for grade_id, code in codes.items():
            submission = course.Submission(assignment, f"hardcode-{grade_id.replace('_', '-')}",
                                           course.with_answer(solution, grade_id, code))
            futures[grade_id] = grader.submit(generated_course, submission)
    return futures


@pytest.mark.parametrize("assignment", [pytest.param(a, marks=c.marks) for a, c in
                                        {a: c for c, (a, _) in zip(CASES, EXERCISES)}.items()])
def test_the_cheats_pass_every_visible_test(cheats, assignment, tmp_path):
    nb = hardcoding.release_with(assignment, cheats[assignment])
    executed = hardcoding.run(nb, tmp_path)
    tests = {course.grade_id(c) for c in executed.cells if course.is_test_cell(c)}
    failing = hardcoding.errors_of(executed, only=tests)
    assert not failing, (f"{assignment}: expected every visible test to pass with answers hard-coded "
                         f"on the release's inputs (else this test proves nothing); these failed:\n{failing}")


@pytest.mark.parametrize("assignment, grade_id", CASES)
def test_a_hard_coded_answer_earns_nothing(graded, assignment, grade_id):
    result = graded[grade_id].result()
    assert result.success, f"autograde failed:\n{result.log[-2000:]}"
    exercise = course.exercise_of(grade_id)
    own = course.tests_of(exercise, result.cells)
    assert own, f"no test cell of {exercise} among {sorted(result.cells)}"
    problems = [f"{g}: expected 0 points, saw {result.cells[g].score:g}/{result.cells[g].max_score:g}"
                for g in own if result.cells[g].score]
    problems += [f"{g} (another exercise): expected {c.max_score:g} points, saw {c.score:g}:\n"
                 f"{c.output.strip()[-1200:]}"
                 for g, c in sorted(result.cells.items()) if g not in own and not c.full]
    assert not problems, (f"{grade_id}: an answer right only on the visible tests' inputs (and "
                          f"'{_first_mistake(grade_id).name}' elsewhere):\n" + "\n".join(problems))
