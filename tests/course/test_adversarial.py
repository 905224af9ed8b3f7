"""The adversarial catalog (tests/course/adversarial/) autograded with real nbgrader.

One class: an honest student (the solution notebook) and every cheat of the
catalog, graded together by the class command (``autograd_course/classgrade.py``, two
workers, the sandbox, a per-cell limit of a few seconds).  Each cheat must
get 0 for what it cheats on and full points for the rest; the honest student
must keep full marks; the gradebook and the course files must be intact.

Two cheats are also graded *without* the sandbox, in a course of their own:
there they do read the hidden tests and rewrite the honest student's grade,
which shows that the sandbox is what stops them.
"""

import hashlib
import os
import sqlite3
import types

import pytest
from traitlets.config import Config

from autograd_course import classgrade, sandbox
from autograd_course.layout import source_notebook_path
from autograd_course.nbgrader_setup import kernel_environment
from autograd_course.notebooks import grade_id, output_text, read_notebook, solution_notebook
from autograd_course.pipeline import generate, make_course
from autograd_course.pool import Submission, hand_in
from tests.course import COURSE

from .adversarial import (ASSIGNMENT, CATALOG, CELL_TIMEOUT, SECRET_NAME, SECRET_VALUE, max_score, submission,
                          test_cells, zero_cells)
from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS

CHEATS = [pytest.param(c, id=c.student) for c in CATALOG]


@pytest.fixture(scope="module")
def sandbox_ok():
    """Whether bubblewrap works here (installed with apt-get when missing, as root)."""
    return sandbox.ensure(install_packages=True)


def require_sandbox(status):
    ok, reason = status
    if not ok:
        pytest.skip(f"the kernel sandbox cannot run here: {reason}")


def _overrides():
    config = Config()
    config.Execute.timeout = CELL_TIMEOUT
    return config


def _tree_digest(directory):
    h = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(directory)).encode() + path.read_bytes())
    return h.hexdigest()


def _class_course(root, cheats):
    work = make_course(root / "course", COURSE, names=[ASSIGNMENT])
    generate(work, [ASSIGNMENT])
    solution = solution_notebook(read_notebook(source_notebook_path(ASSIGNMENT, COURSE)))
    hand_in(work, Submission(ASSIGNMENT, "honest", solution))
    for cheat in cheats:
        hand_in(work, Submission(ASSIGNMENT, cheat.student, submission(cheat, solution)))
    return work


def _graded(work, report):
    """{student: SimpleNamespace(outcome, cells={grade_id: (score, max)}, outputs={grade_id: text})}."""
    from nbgrader.api import Gradebook
    result = {}
    with kernel_environment(), Gradebook(f"sqlite:///{work / 'gradebook.db'}", "autograd-course") as gb:
        for outcome in report.outcomes:
            cells, outputs = {}, {}
            if outcome.status == "graded":
                sub = gb.find_submission(outcome.assignment, outcome.student)
                cells = {g.name: (g.score, g.max_score) for nb in sub.notebooks for g in nb.grades}
                notebook = work / "autograded" / outcome.student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
                outputs = {grade_id(c): output_text(c) for c in read_notebook(notebook).cells
                           if grade_id(c)}
            result[outcome.student] = types.SimpleNamespace(outcome=outcome, cells=cells, outputs=outputs)
    return result


def _grade(work, sandbox_on, workers):
    """grade-class on ``work``, with a secret in the grader's environment."""
    os.environ[SECRET_NAME] = SECRET_VALUE
    try:
        report = classgrade.grade_class(work, workers=workers, sandbox=sandbox_on, overrides=_overrides())
    finally:
        del os.environ[SECRET_NAME]
    return report, _graded(work, report)


@pytest.fixture(scope="module")
def adversarial_class(tmp_path_factory, sandbox_ok):
    """The honest student and every cheat, graded as one class, sandboxed (only the
    cheats that the sandbox does not stop when bubblewrap cannot run here)."""
    cheats = [c for c in CATALOG if sandbox_ok[0] or not c.sandbox]
    work = _class_course(tmp_path_factory.mktemp("adversarial"), cheats)
    source_before = _tree_digest(work / "source")
    report, graded = _grade(work, sandbox_ok[0], workers=2)
    return types.SimpleNamespace(course=work, report=report, graded=graded, source_before=source_before)


@pytest.mark.parametrize("cheat", CHEATS)
def test_cheat_gets_no_points_for_what_it_cheats_on(adversarial_class, sandbox_ok, cheat):
    if cheat.sandbox:
        require_sandbox(sandbox_ok)
    graded = adversarial_class.graded[cheat.student]
    assert graded.outcome.status == "graded", \
        f"{cheat.student} ({cheat.tried}): autograde failed instead of grading it:\n{graded.outcome.message[-3000:]}"
    zero = zero_cells(cheat, graded.cells)
    assert zero, f"{cheat.student}: none of {sorted(graded.cells)} matches {cheat.zero}"
    problems = []
    for gid, (score, max_score) in sorted(graded.cells.items()):
        wanted = 0 if gid in zero else max_score
        if score != wanted:
            problems.append(f"{gid}: {score:g}/{max_score:g}, expected {wanted:g}\n"
                            f"{graded.outputs.get(gid, '')[-1200:]}")
    assert not problems, (f"{cheat.student} tried: {cheat.tried}\nexpected: {cheat.expected}\n"
                          + "\n".join(problems))
    for gid, text in cheat.says.items():
        assert text in graded.outputs.get(gid, ""), \
            f"{cheat.student}: the output of {gid} should contain {text!r}; it is:\n{graded.outputs.get(gid, '')[-2000:]}"


def test_the_maximum_is_the_released_one_whatever_the_submission(adversarial_class):
    maxima = {s: sum(m for _, m in g.cells.values()) for s, g in adversarial_class.graded.items() if g.cells}
    assert set(maxima.values()) == {float(max_score())}, f"maximum score per student: {maxima}, released: {max_score()}"
    names = {s: sorted(g.cells) for s, g in adversarial_class.graded.items()}
    assert len({tuple(n) for n in names.values()}) == 1, f"graded cells differ between students: {names}"


def test_the_honest_student_keeps_full_marks(adversarial_class):
    honest = adversarial_class.graded["honest"]
    assert honest.outcome.status == "graded", honest.outcome.message[-3000:]
    lost = {g: (s, m, honest.outputs.get(g, "")[-800:]) for g, (s, m) in honest.cells.items() if s != m}
    assert not lost, f"the honest student lost points next to the cheaters: {lost}"
    assert honest.outcome.score == honest.outcome.max_score == max_score(), \
        f"honest: {honest.outcome.score}/{honest.outcome.max_score}, released maximum {max_score()}"


def test_the_gradebook_and_the_course_are_intact(adversarial_class):
    work = adversarial_class.course
    db = sqlite3.connect(work / "gradebook.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        students = sorted(r[0] for r in db.execute("SELECT id FROM student"))
        expected = sorted(adversarial_class.graded)
        assert students == expected, f"students in the gradebook: {students}, submitted: {expected}"
        per_student = db.execute("SELECT student_id, COUNT(*) FROM submitted_assignment GROUP BY student_id").fetchall()
        assert all(n == 1 for _, n in per_student), f"submissions per student: {per_student}"
        grades = db.execute("SELECT COUNT(*) FROM grade").fetchone()[0]
        cells = len(test_cells())
        assert grades == cells * len(students), f"{grades} grade rows for {len(students)} students x {cells} test cells"
    finally:
        db.close()
    assert _tree_digest(work / "source") == adversarial_class.source_before, "source/ changed while grading"
    strays = sorted(p.name for p in work.rglob("cheat*"))
    assert not strays, f"files written by a cheat: {strays}"


def test_the_sandbox_stops_reads_writes_and_the_network(adversarial_class, sandbox_ok):
    require_sandbox(sandbox_ok)
    read = adversarial_class.graded["read_secrets"].outputs["01_detach_answer"]
    assert "READ" not in read and "no secret in reach" in read and "blocked network" in read, read
    wrote = adversarial_class.graded["write_course"].outputs["01_detach_answer"]
    assert "WROTE gradebook" not in wrote and "blocked source/01_tensors/cheat.py" in wrote, wrote


def test_without_the_sandbox_the_same_submissions_do_read_and_write_the_course(tmp_path, sandbox_ok):
    """The control: graded as the grading user, read_secrets reads the hidden tests
    and write_course zeroes the honest student, so the sandbox is what stops them."""
    require_sandbox(sandbox_ok)
    cheats = [c for c in CATALOG if c.student in ("read_secrets", "write_course")]
    work = _class_course(tmp_path, cheats)
    report, graded = _grade(work, False, workers=1)
    read = graded["read_secrets"].outputs["01_detach_answer"]
    assert "READ ../../../source/01_tensors/01_tensors.ipynb HIDDEN TESTS" in read, read
    assert "READ ../../../gradebook.db" in read and "SECRET FOUND" in read, read
    assert "WROTE gradebook" in graded["write_course"].outputs["01_detach_answer"]
    db = sqlite3.connect(work / "gradebook.db")
    try:
        scores = dict(db.execute("SELECT s.student_id, SUM(g.auto_score) FROM grade g JOIN submitted_notebook n "
                                 "ON g.notebook_id = n.id JOIN submitted_assignment s ON n.assignment_id = s.id "
                                 "GROUP BY s.student_id"))
    finally:
        db.close()
    assert graded["honest"].outcome.score == max_score(), "honest was graded first, with full marks"
    assert scores.get("honest") == 0, \
        f"unsandboxed, write_course (graded after honest) should have zeroed the gradebook: {scores}"
