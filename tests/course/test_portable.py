"""The course grades when copied out of the repository.

A wheel of the project (``pip wheel --no-deps``, built from a copy of the
packaged files only) is installed into a fresh virtual environment with
nbgrader, ipykernel and nbclient at the versions of the test environment.
``course/`` is copied to a directory outside the repository, and with that
environment's commands alone, in a fresh home directory and without
PYTHONPATH, one assignment is generated (``nbgrader generate_assignment``)
and its solution and its blank release are autograded twice: by hand
(``nbgrader autograde``, which reads ``nbgrader_config.py`` from the course
directory) and by ``autograd-course grade-class``.  Both must give every
test cell the score the repository's own course gives it.

Nothing of the repository is importable there: this is what an instructor
on a JupyterHub has, a course directory and an installed package.
"""

import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from autograd_course import sandbox as bwrap
from autograd_course.layout import JUNK, PER_TERM, source_notebook_path
from autograd_course.notebooks import read_notebook, solution_notebook
from autograd_course.pipeline import generate, make_course
from autograd_course.pool import Submission, hand_in
from tests.course import COURSE, REPO
from tests.fresh_env import clean_environ

from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS

ASSIGNMENT = "01_tensors"                       # the first and smallest assignment
PACKAGED = ("pyproject.toml", "README.md", "LICENSE", "autograd_lib", "autograd_course")
NEEDED = ("nbgrader", "ipykernel", "nbclient")  # what grading needs beyond the wheel's own dependencies
TAIL = 3000


def _run(command, what, timeout=600, **kwargs):
    """Run ``command`` (in :func:`clean_environ` unless told otherwise); fail the test
    with its output when it fails."""
    kwargs.setdefault("env", clean_environ())
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, (f"{what}: expected exit status 0, saw {done.returncode}\n$ "
                                  + " ".join(map(str, command)) + f"\n{done.stdout[-TAIL:]}\n{done.stderr[-TAIL:]}")
    return done


def _cell_scores(gradebook, student):
    """{grade cell: (auto score, max score)} of ``student``'s ASSIGNMENT, read with sqlite."""
    db = sqlite3.connect(gradebook)
    try:
        rows = db.execute("SELECT b.name, g.auto_score, c.max_score FROM grade g "
                          "JOIN submitted_notebook n ON g.notebook_id = n.id "
                          "JOIN submitted_assignment s ON n.assignment_id = s.id "
                          "JOIN assignment a ON s.assignment_id = a.id "
                          "JOIN base_cell b ON g.cell_id = b.id JOIN grade_cells c ON c.id = b.id "
                          "WHERE s.student_id = ? AND a.name = ?", (student, ASSIGNMENT)).fetchall()
    finally:
        db.close()
    return {name: (float(score if score is not None else -1), float(points)) for name, score, points in rows}


@pytest.fixture(scope="module")
def expected(grader, tmp_path_factory):
    """What the repository's course gives: {student: {grade cell: (score, max score)}} and
    {student: total}, graded with the repository's own package (in the session's pool)."""
    work = make_course(tmp_path_factory.mktemp("portable-expected") / "course", COURSE, names=[ASSIGNMENT])
    generate(work, [ASSIGNMENT])
    solution = solution_notebook(read_notebook(source_notebook_path(ASSIGNMENT, COURSE)))
    blank = read_notebook(work / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    graded = grader.map(work, [Submission(ASSIGNMENT, "perfect", solution), Submission(ASSIGNMENT, "blank", blank)])
    for g in graded:
        assert g.success, f"the repository's course could not grade {g.student}:\n{g.log[-TAIL:]}"
    cells = {g.student: {gid: (c.score, c.max_score) for gid, c in g.cells.items()} for g in graded}
    return cells, {g.student: g.score for g in graded}


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    """A fresh environment with the wheel installed, and a copy of course/; all outside the repository."""
    root = tmp_path_factory.mktemp("portable")
    assert not root.resolve().is_relative_to(REPO), f"expected a temporary directory outside {REPO}, got {root}"
    source = root / "source"
    source.mkdir()
    for name in PACKAGED:
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(
            REPO / name, source / name, **({"ignore": shutil.ignore_patterns(*JUNK)} if (REPO / name).is_dir() else {}))
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", root / "wheels", source],
         "building the wheel")
    wheels = sorted((root / "wheels").glob("autograd_course-*.whl"))
    assert len(wheels) == 1, f"expected one wheel of autograd-course, saw {[w.name for w in wheels]}"

    venv = root / "venv"
    _run([sys.executable, "-m", "venv", venv], "creating the fresh environment")
    frozen = _run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], "listing the test environment")
    (root / "constraints.txt").write_text(frozen.stdout, encoding="utf-8")
    _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "-c", root / "constraints.txt", wheels[0], *NEEDED], "installing the wheel and nbgrader", timeout=900)

    home = root / "home"
    home.mkdir()
    env = {"PATH": os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
           "HOME": str(home), "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
    found = _run([venv / "bin" / "python", "-c", "import autograd_course, autograd_lib, nbgrader; "
                  "print(autograd_course.__file__); print(autograd_lib.__file__)"],
                 "importing the packages in the fresh environment", env=env, cwd=home).stdout.split()
    outside_venv = [f for f in found if not os.path.realpath(f).startswith(os.path.realpath(venv) + os.sep)]
    assert not outside_venv, f"expected autograd_course and autograd_lib from {venv}, saw them at {outside_venv}"

    course = root / "course"
    shutil.copytree(COURSE, course, ignore=shutil.ignore_patterns(*JUNK, *PER_TERM))
    return {"root": root, "venv": venv, "env": env, "course": course}


@pytest.fixture(scope="module")
def graded_outside(outside):
    """Generate ASSIGNMENT, hand in the solution and the blank release, then grade: by hand
    with nbgrader (student perfect), then every submission with autograd-course grade-class."""
    course, env, bin_ = outside["course"], outside["env"], outside["venv"] / "bin"
    sandbox_ok, why = bwrap.check()
    _run([bin_ / "nbgrader", "generate_assignment", ASSIGNMENT, "--force"], "nbgrader generate_assignment",
         env=env, cwd=course)
    solution = solution_notebook(read_notebook(source_notebook_path(ASSIGNMENT, course)))
    blank = read_notebook(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    hand_in(course, Submission(ASSIGNMENT, "perfect", solution))
    hand_in(course, Submission(ASSIGNMENT, "blank", blank))

    by_hand = [bin_ / "nbgrader", "autograde", ASSIGNMENT, "--student", "perfect"]
    _run(by_hand + ([] if sandbox_ok else ["--GuardedExecute.sandbox=False"]), "nbgrader autograde", env=env,
         cwd=course)
    nbgrader_scores = _cell_scores(course / "gradebook.db", "perfect")

    grade_class = [bin_ / "autograd-course", "grade-class", "--course", course, "--assignment", ASSIGNMENT,
                   "--force", "--workers", "2"]
    done = _run(grade_class + ([] if sandbox_ok else ["--no-sandbox"]), "autograd-course grade-class",
                env=env, cwd=outside["root"])
    with open(course / "grades.csv", newline="") as fh:
        totals = {row["student_id"]: float(row["score"]) for row in csv.DictReader(fh)
                  if row["assignment"] == ASSIGNMENT}
    cells = {student: _cell_scores(course / "gradebook.db", student) for student in ("perfect", "blank")}
    return {"nbgrader": nbgrader_scores, "cells": cells, "totals": totals, "log": done.stdout + done.stderr,
            "sandbox": (sandbox_ok, why)}


def test_the_installed_package_grades_the_copied_course_as_the_repository_does(expected, graded_outside):
    cells, totals = expected
    assert graded_outside["nbgrader"] == cells["perfect"], (
        f"nbgrader autograde in the copied course: expected the repository's cell scores "
        f"{cells['perfect']}, saw {graded_outside['nbgrader']}")
    for student in ("perfect", "blank"):
        assert graded_outside["cells"][student] == cells[student], (
            f"autograd-course grade-class, student {student}: expected the repository's cell scores "
            f"{cells[student]}, saw {graded_outside['cells'][student]}\n{graded_outside['log'][-TAIL:]}")
    assert graded_outside["totals"] == totals, (
        f"grades.csv of the copied course: expected the repository's totals {totals}, "
        f"saw {graded_outside['totals']}")
    assert totals["perfect"] > 0 and totals["blank"] == 0, \
        f"expected the solution to earn points and the blank release none, saw {totals}"


def test_the_copied_course_grades_in_the_sandbox_of_the_installed_package(outside, graded_outside):
    ok, why = graded_outside["sandbox"]
    if not ok:
        pytest.skip(f"the kernel sandbox cannot run here: {why}")
    spec = outside["venv"] / "share" / "jupyter" / "kernels" / bwrap.KERNEL_NAME / "kernel.json"
    assert spec.is_file(), f"expected grading to install the sandbox's kernelspec at {spec}"
    argv = json.loads(spec.read_text())["argv"]
    assert argv[:4] == [str(outside["venv"] / "bin" / "python"), "-P", "-m", bwrap.LAUNCHER], (
        f"expected the kernelspec to run the fresh environment's launcher "
        f"({outside['venv'] / 'bin' / 'python'} -P -m {bwrap.LAUNCHER}), saw {argv}")
