"""The class command (``autograd-course grade-class``, autograd_course/classgrade.py)
with real nbgrader, on the harness fixture assignment (00_fixture: small and fast).

Parallel and serial grading give the same gradebook; a rerun grades nothing
and changes nothing (same grades, no new rows); a submission added or changed
later is graded alone; nothing is lost (a broken submission is reported, every
submission has a grade and a CSV row); the gradebook URL is configurable.
"""

import csv
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from autograd_course import classgrade, sandbox
from autograd_course.layout import source_notebook_path
from autograd_course.nbgrader_setup import env_with_kernel_paths
from autograd_course.notebooks import read_notebook, solution_notebook, with_answer
from autograd_course.pipeline import generate, make_course
from autograd_course.pool import Submission, hand_in
from tests.course import COURSE, FIXTURES, REPO

from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS

FIXTURE = "00_fixture"
TABLES = ("student", "submitted_assignment", "submitted_notebook", "grade", "comment")
WRONG = "def double(x):\n    return x + 2\n"


def _course(root, students):
    """A generated fixture course with ``students`` ({name: notebook}) submitted."""
    work = make_course(root / "course", COURSE, FIXTURES)
    generate(work)
    for student, nb in students.items():
        hand_in(work, Submission(FIXTURE, student, nb))
    return work


@pytest.fixture(scope="module")
def notebooks(fixture_course):
    solution = solution_notebook(read_notebook(source_notebook_path(FIXTURE, fixture_course)))
    release = read_notebook(fixture_course / "release" / FIXTURE / f"{FIXTURE}.ipynb")
    return {"perfect": solution, "blank": release,
            "wrong": with_answer(solution, "00_double_answer", WRONG),
            "half": with_answer(release, "00_square_answer", "def square(x):\n    return x * x\n")}


def scores(work):
    """{student: {grade cell: auto score}} from the gradebook, with sqlite directly."""
    db = sqlite3.connect(work / "gradebook.db")
    try:
        rows = db.execute("SELECT s.student_id, c.name, g.auto_score FROM grade g "
                          "JOIN submitted_notebook n ON g.notebook_id = n.id "
                          "JOIN submitted_assignment s ON n.assignment_id = s.id "
                          "JOIN base_cell c ON g.cell_id = c.id").fetchall()
    finally:
        db.close()
    table = {}
    for student, cell, score in rows:
        table.setdefault(student, {})[cell] = score
    return table


def counts(work):
    db = sqlite3.connect(work / "gradebook.db")
    try:
        return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        db.close()


def mtimes(work):
    return {p.relative_to(work).as_posix(): p.stat().st_mtime_ns
            for d in ("autograded", "feedback") for p in (work / d).rglob("*") if p.is_file()}


def csv_rows(path):
    with open(path, newline="") as fh:
        return sorted((r["student_id"], r["assignment"], r["score"], r["max_score"]) for r in csv.DictReader(fh))


@pytest.fixture(scope="module")
def graded_twice(notebooks, tmp_path_factory):
    """The same class graded serially (1 worker) and in parallel (2 workers)."""
    runs = {}
    for workers in (1, 2):
        work = _course(tmp_path_factory.mktemp(f"class{workers}"), notebooks)
        report = classgrade.grade_class(work, workers=workers, sandbox=None)
        runs[workers] = (work, report)
    return runs


def test_every_submission_is_graded_with_feedback_and_a_csv_row(graded_twice, notebooks):
    work, report = graded_twice[2]
    assert [o.status for o in report.outcomes] == ["graded"] * len(notebooks), report.summary()
    expected = {"perfect": 4.0, "blank": 0.0, "wrong": 1.0, "half": 1.0}
    assert {o.student: o.score for o in report.outcomes} == expected, report.summary()
    for student in notebooks:
        assert (work / "feedback" / student / FIXTURE / f"{FIXTURE}.html").is_file(), f"no feedback for {student}"
    assert csv_rows(report.csv) == sorted((s, FIXTURE, f"{v:.1f}", "4.0") for s, v in expected.items())


def test_parallel_grading_gives_the_serial_grades(graded_twice):
    (serial, _), (parallel, _) = graded_twice[1], graded_twice[2]
    assert scores(parallel) == scores(serial)
    assert counts(parallel) == counts(serial)


def test_a_rerun_grades_nothing_and_changes_nothing(graded_twice):
    work, first = graded_twice[2]
    before = (scores(work), counts(work), mtimes(work), csv_rows(first.csv))
    report = classgrade.grade_class(work, workers=2, sandbox=None)
    assert {o.status for o in report.outcomes} == {"skipped"}, report.summary()
    assert (scores(work), counts(work), mtimes(work), csv_rows(report.csv)) == before


def test_a_later_or_changed_submission_is_graded_alone(graded_twice, notebooks):
    """Through the command line: a new student, and a student who resubmits."""
    work, _ = graded_twice[2]
    before_scores, before_counts, before_times = scores(work), counts(work), mtimes(work)
    hand_in(work, Submission(FIXTURE, "late", notebooks["perfect"]))
    hand_in(work, Submission(FIXTURE, "wrong", notebooks["perfect"]))   # fixed it
    # The command refuses to grade unsandboxed unless told: where bubblewrap cannot run
    # (make test said why), this test grades as the others do, without it.
    unsandboxed = [] if sandbox.check()[0] else ["--no-sandbox"]
    done = subprocess.run([sys.executable, "-m", "autograd_course", "grade-class", "--course", str(work),
                           "--workers", "2", *unsandboxed], cwd=REPO, capture_output=True, text=True,
                          env=env_with_kernel_paths(os.environ), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 graded, 3 unchanged (not regraded), 0 failed" in done.stdout, done.stdout + done.stderr
    assert "2/2 submissions, 2/2 students done" in done.stderr, done.stderr
    after = scores(work)
    assert after["late"] == after["wrong"] == before_scores["perfect"]
    assert {s: v for s, v in after.items() if s not in ("late", "wrong")} == \
        {s: v for s, v in before_scores.items() if s != "wrong"}
    added = {t: counts(work)[t] - before_counts[t] for t in TABLES}
    one_student = {t: n // before_counts["student"] for t, n in before_counts.items()}
    assert added == one_student, f"rows added: {added}; one student has {one_student}"
    untouched = {p: t for p, t in mtimes(work).items() if "/late/" not in p and "/wrong/" not in p}
    assert untouched == {p: t for p, t in before_times.items() if "/wrong/" not in p}, \
        "the submissions that did not change were graded again"


def test_a_broken_submission_is_reported_and_retried(notebooks, tmp_path):
    work = _course(tmp_path, {"perfect": notebooks["perfect"]})
    broken = work / "submitted" / "broken" / FIXTURE
    broken.mkdir(parents=True)
    (broken / f"{FIXTURE}.ipynb").write_text("{ this is not a notebook", encoding="utf-8")
    linked = work / "submitted" / "linked" / FIXTURE
    linked.mkdir(parents=True)
    (linked / f"{FIXTURE}.ipynb").write_text(json.dumps(notebooks["perfect"]), encoding="utf-8")
    (linked / "secrets").symlink_to(work / "gradebook.db")
    report = classgrade.grade_class(work, workers=2, sandbox=None)
    status = {o.student: o.status for o in report.outcomes}
    assert status == {"perfect": "graded", "broken": "failed", "linked": "failed"}, report.summary()
    assert "symlink" in {o.student: o.message for o in report.outcomes}["linked"]
    assert "FAILED broken/00_fixture" in report.summary()
    again = classgrade.grade_class(work, workers=2, sandbox=None)
    assert {o.student: o.status for o in again.outcomes} == {**status, "perfect": "skipped"}, \
        "a failed submission is tried again, a graded one is not"


def test_the_gradebook_url_is_configurable(notebooks, tmp_path, monkeypatch):
    """AUTOGRAD_COURSE_DB_URL (nbgrader's CourseDirectory.db_url): here another sqlite file;
    a PostgreSQL URL works the same way (course/README.md)."""
    other = tmp_path / "elsewhere" / "grades.db"
    other.parent.mkdir()
    monkeypatch.setenv("AUTOGRAD_COURSE_DB_URL", f"sqlite:///{other}")
    work = _course(tmp_path, {"perfect": notebooks["perfect"]})
    report = classgrade.grade_class(work, workers=1, sandbox=None)
    assert [o.score for o in report.outcomes] == [4.0], report.summary()
    assert other.is_file() and not (work / "gradebook.db").exists()
    assert csv_rows(report.csv) == [("perfect", FIXTURE, "4.0", "4.0")]
