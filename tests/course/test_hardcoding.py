"""A submission that hard-codes what the visible tests check earns nothing.

For every exercise, tests/course/hardcoding.py builds an answer that is right
on exactly the inputs the student release passes to the function (recorded by
running the release) and behaves like the exercise's first catalogued mistake
on every other input (for an exercise that fills several slots, each function
like the first mistake that changes it).  It passes every visible test.  Graded with real nbgrader
against the full tests, every test cell of its exercise must score 0 (each
one has a hidden randomized part).

Every exercise of an assignment is hard-coded in one submission (one kernel per
assignment, not per exercise): the exercises are independent stages, and
whether a wrong answer costs points elsewhere is the mistake catalog's question
(test_mistakes.py grades each exercise's first mistake, which the cheat imitates
off the visible inputs, alone).
"""

import concurrent.futures

import pytest

from autograd_course import notebooks     # notebooks.tests_of: pytest would collect a bare tests_of
from autograd_course.layout import assignments
from autograd_course.mistakes import catalogs
from autograd_course.notebooks import exercise_of, grade_id, is_test_cell, with_answer
from autograd_course.pool import Submission, default_workers
from tests.course import COURSE

from . import hardcoding
from .conftest import COURSE_MARKS, catalog_selected

pytestmark = COURSE_MARKS

CATALOGS = catalogs(COURSE)
ASSIGNMENTS = assignments(COURSE)
SELECTED = [a for a in ASSIGNMENTS if catalog_selected(a.split("_", 1)[0])]


def _marks(assignment):
    return [] if assignment in SELECTED else [pytest.mark.skip(reason=f"COURSE_ASSIGNMENTS excludes {assignment}")]


CASES = [pytest.param(a, g, id=g.removesuffix("_answer"), marks=_marks(a))
         for a in ASSIGNMENTS for g in sorted(hardcoding.answers(a))]


def _first_mistake(grade_id):
    mistakes = [m for m in CATALOGS.get(grade_id.split("_", 1)[0], []) if m.grade_id == grade_id]
    assert mistakes, f"no catalogued mistake for {grade_id} in course/mistakes/"
    return mistakes[0]


def _wrong_codes(assignment, grade_id):
    """{function name: the wrong answer cell it comes from}: for each function the answer cell plugs,
    the first catalogued mistake that changes it (the first mistake for one that none changes)."""
    code = hardcoding.answers(assignment)[grade_id]
    _, plugs = hardcoding.split_plugs(code)
    mistakes = [m for m in CATALOGS.get(grade_id.split("_", 1)[0], []) if m.grade_id == grade_id]
    assert mistakes, f"no catalogued mistake for {grade_id} in course/mistakes/"
    wrong = {}
    for _, name in plugs:
        right = hardcoding.function_source(code, name)
        changing = [m for m in mistakes if hardcoding.function_source(m.apply(code), name) != right]
        wrong[name] = (changing or mistakes)[0].apply(code)
    return wrong


@pytest.fixture(scope="module")
def recorded():
    """{assignment: {exercise id: fingerprints of the visible inputs}}, selected assignments."""
    with concurrent.futures.ThreadPoolExecutor(default_workers()) as pool:
        return dict(zip(SELECTED, pool.map(hardcoding.record_visible_inputs, SELECTED)))


def _cheat(recorded, assignment, grade_id):
    code = hardcoding.answers(assignment)[grade_id]
    _, plugs = hardcoding.split_plugs(code)
    seen = {exercise_id: recorded[assignment].get(exercise_id) for exercise_id, _ in plugs}
    assert any(seen.values()), (f"{assignment}: the release never calls the functions of {grade_id} "
                                f"({[e for e, _ in plugs]}), so there is no visible input to hard-code "
                                f"(recorded: {sorted(recorded[assignment])})")
    return hardcoding.cheat_code(code, _wrong_codes(assignment, grade_id), seen)


@pytest.fixture(scope="module")
def cheats(recorded):
    """{assignment: {answer grade id: cheat code}} for the selected assignments."""
    return {assignment: {grade_id: _cheat(recorded, assignment, grade_id)
                         for grade_id in hardcoding.answers(assignment)}
            for assignment in recorded}


@pytest.fixture(scope="module")
def graded(cheats, generated_course, grader):
    """{answer grade id: Future of Graded}: per assignment, the solution notebook with
    every answer cell replaced by its cheat."""
    futures = {}
    for assignment, codes in cheats.items():
        notebook = hardcoding.solution(assignment)
        for grade_id, code in codes.items():
            notebook = with_answer(notebook, grade_id, code)
        future = grader.submit(generated_course, Submission(assignment, "hardcode", notebook))
        futures.update(dict.fromkeys(codes, future))
    return futures


def _submission(assignment, kind, grade_id, code):
    """The solution notebook with answer cell ``grade_id`` replaced by ``code``."""
    return Submission(assignment, f"{kind}-{grade_id.replace('_', '-')}",
                             with_answer(hardcoding.solution(assignment), grade_id, code))


@pytest.mark.parametrize("assignment", [pytest.param(a, marks=_marks(a)) for a in ASSIGNMENTS])
def test_the_cheats_pass_every_visible_test(cheats, assignment, tmp_path):
    nb = hardcoding.release_with(assignment, cheats[assignment])
    executed = hardcoding.run(nb, tmp_path)
    tests = {grade_id(c) for c in executed.cells if is_test_cell(c)}
    failing = hardcoding.errors_of(executed, only=tests)
    assert not failing, (f"{assignment}: expected every visible test to pass with answers hard-coded "
                         f"on the release's inputs (else this test proves nothing); these failed:\n{failing}")


@pytest.mark.parametrize("assignment, grade_id", CASES)
def test_a_hard_coded_answer_earns_nothing(graded, assignment, grade_id):
    result = graded[grade_id].result()
    assert result.success, f"autograde failed:\n{result.log[-2000:]}"
    exercise = exercise_of(grade_id)
    own = notebooks.tests_of(exercise, result.cells)
    assert own, f"no test cell of {exercise} among {sorted(result.cells)}"
    problems = [f"{g}: expected 0 points, saw {result.cells[g].score:g}/{result.cells[g].max_score:g}"
                for g in own if result.cells[g].score]
    assert not problems, (f"{grade_id}: an answer right only on the visible tests' inputs (and "
                          f"'{_first_mistake(grade_id).name}' elsewhere):\n" + "\n".join(problems))


# A cheat whose answer cell also redefines a notebook helper that the hidden parts
# compute expected values with, so that "the reference" agrees with the answer:
# (helper, redefinition).  03's reference_vjp lives in its check module, where the hidden
# parts call it (a notebook's own name of it changes nothing; patching the module is
# TamperingError).
# 07's library_version comes from autograd_course.notebook, which the grader imports
# again before each test cell; without that, the cheat gains points (the hidden parts of
# 07_grad_mode_context_test*, where library_version computes the expected values).  (The same
# kind of redefinition of 05's reference_rule gained nothing even without the restoring, so it
# is not a case here: it could not fail.)
REDEFINED = {
    "03_vjps_answer": ("reference_vjp", '''
from autograd_course.checks.backward import reference_vjp as _real_reference_vjp


def reference_vjp(exercise_id, grad, **values):       # "the library's rule" for pow is now mine
    if exercise_id == "03.pow_backward":
        return (pow_backward(grad, values["self"], values["exponent"]),)
    return _real_reference_vjp(exercise_id, grad, **values)
'''),
    "07_grad_mode_context_answer": ("library_version", '''
import contextlib
import sys

_shared_library_version = library_version


@contextlib.contextmanager
def library_version(assignment):    # the library's code, but my grad_mode_enter in grad_mode_enter's tests
    cell = sys._getframe(2)
    while cell.f_code.co_name != "<module>":
        cell = cell.f_back
    with _shared_library_version(assignment):
        if any("07.grad_mode_enter" in (c if isinstance(c, tuple) else (c,)) for c in cell.f_code.co_consts):
            with exercises.plugged("07.grad_mode_enter", grad_mode_enter):
                yield
        else:
            yield
'''),
}
REDEFINED_CASES = [case for case in CASES if case.values[1] in REDEFINED]


@pytest.fixture(scope="module")
def graded_with_helpers(cheats, generated_course, grader):
    """{(answer grade id, redefined?): Future of Graded}: each cheat with and without
    the redefinition of the helper."""
    return {(grade_id, redefined): grader.submit(generated_course, _submission(
                assignment, "helpers" if redefined else "plain", grade_id,
                cheats[assignment][grade_id] + (REDEFINED[grade_id][1] if redefined else "")))
            for assignment, grade_id in (case.values for case in REDEFINED_CASES) if assignment in cheats
            for redefined in (False, True)}


@pytest.mark.parametrize("assignment, grade_id", REDEFINED_CASES)
def test_redefining_the_notebooks_helpers_changes_nothing(graded_with_helpers, assignment, grade_id):
    plain, redefined = (graded_with_helpers[(grade_id, r)].result() for r in (False, True))
    assert plain.success and redefined.success, f"autograde failed:\n{plain.log[-1000:]}{redefined.log[-1000:]}"
    own = notebooks.tests_of(exercise_of(grade_id), plain.cells)
    assert sum(plain.cells[g].score for g in own) < sum(plain.cells[g].max_score for g in own), (
        f"{grade_id}: the cheat without the redefinition already gets full points, so this case proves nothing")
    helper = REDEFINED[grade_id][0]
    changed = [f"{g}: {plain.cells[g].score:g} points without redefining {helper}(), "
               f"{redefined.cells[g].score:g} with it" for g in sorted(plain.cells)
               if redefined.cells.get(g) is None or redefined.cells[g].score != plain.cells[g].score]
    assert not changed, (f"{grade_id}: an answer cell that also redefines the notebook's {helper}() to "
                         f"agree with a wrong answer should get the same grade (before each test the grader "
                         f"puts the locked helpers back and imports the shared ones again); it changed:\n"
                         + "\n".join(changed))
