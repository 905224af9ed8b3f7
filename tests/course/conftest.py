"""Shared fixtures of the course tests.

Everything runs real nbgrader (0.9.6) through its Python API in a temporary
copy of ``course/``, never in ``course/`` itself, so the instructor's
gradebook and submissions are never touched.  Kernel starts are the main
cost: submissions are graded in parallel worker processes (one per CPU,
``COURSE_WORKERS`` overrides), each with its own copy of the generated course.
"""

import importlib.util
import os
import subprocess
import sys

import pytest

from autograd_course.layout import assignment_for, assignments
from autograd_course.mistakes import catalogs
from autograd_course.nbgrader_setup import env_with_kernel_paths
from autograd_course.pipeline import generate, make_course
from autograd_course.pool import Grader

from . import COURSE, FIXTURES, REPO, SOLUTIONS
from .judging import mistake_submissions

NBGRADER_MISSING = importlib.util.find_spec("nbgrader") is None
NBGRADER_REASON = ("the course tests run real nbgrader: install the course extra "
                   "(pip install -e '.[course,test]'; nbgrader 0.9.6 needs Python >= 3.11)")

# Every module of tests/course starts with: pytestmark = COURSE_MARKS
COURSE_MARKS = [pytest.mark.course, pytest.mark.skipif(NBGRADER_MISSING, reason=NBGRADER_REASON)]


def require_assignments():
    """The assignments of course/source/; the test fails when there are none."""
    names = assignments(COURSE)
    if not names:
        pytest.fail(f"{COURSE / 'source'} has no assignment (expected "
                    f"source/<NN_topic>/<NN_topic>.ipynb): nothing to release or grade")
    return names


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory):
    """A temporary copy of course/ in which every assignment has been generated
    (``nbgrader generate_assignment``): gradebook, source/ and release/."""
    names = require_assignments()
    work = make_course(tmp_path_factory.mktemp("generated") / "course", COURSE)
    generate(work, names)
    return work


@pytest.fixture(scope="session")
def fixture_course(tmp_path_factory):
    """A generated course whose only assignment is tests/course/fixtures/00_fixture."""
    work = make_course(tmp_path_factory.mktemp("fixture") / "course", COURSE, FIXTURES)
    generate(work)
    return work


@pytest.fixture(scope="session")
def grader():
    """One pool of grading processes for the whole session (see autograd_course.pool.Grader)."""
    with Grader() as pool:
        yield pool


@pytest.fixture(scope="session")
def catalog_grader():
    """The pool that grades the mistake catalog (mistake_futures).  In a parallel run (make
    test) the catalog is the longest group of the suite and shares the CPUs with the other
    groups, so this pool starts two processes per CPU instead of one, to take a larger share
    of them; alone, it is the usual pool.  COURSE_WORKERS overrides."""
    workers = None
    if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("COURSE_WORKERS"):
        workers = 2 * (os.cpu_count() or 1)
    with Grader(workers) as pool:
        yield pool


SANITIZE = REPO / "tests" / "course" / "nbval_sanitize.cfg"


def nbval_command(paths):
    """nbval, strictly, on the given notebooks (nbval is off by default: -p no:nbval)."""
    return [sys.executable, "-m", "pytest", "-p", "nbval", "--nbval", "--nbval-current-env",
            "--nbval-sanitize-with", str(SANITIZE), "-q", "-p", "no:cacheprovider",
            *map(str, paths)]


class NbvalRun:
    """nbval on solutions/ in a subprocess, started early so that it overlaps
    the grading (it is mostly kernel time)."""

    def __init__(self):
        self.paths = [SOLUTIONS / f"{name}.ipynb" for name in assignments(COURSE)]
        self.process = None

    def start(self):
        if self.process is None and self.paths and all(p.is_file() for p in self.paths):
            self.process = subprocess.Popen(
                nbval_command(self.paths), cwd=REPO, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, env=env_with_kernel_paths(os.environ))
        return self

    def result(self):
        """(command, return code, output)."""
        self.start()
        output, _ = self.process.communicate(timeout=900)
        return " ".join(nbval_command(self.paths)), self.process.returncode, output


@pytest.fixture(scope="session")
def nbval_run(request):
    run = NbvalRun()
    yield run
    if run.process is not None and run.process.poll() is None:
        run.process.kill()
        run.process.communicate()


# Each graded submission costs one kernel running the whole notebook (2-10 s of
# CPU), and the catalogs hold 20-75 mistakes per assignment: they are graded in
# batches (judging.mistake_batches), and still too many for a quick suite on two
# cores.  By default the whole catalog is graded (make test, CI);
# COURSE_MISTAKES=N grades only the first N mistakes of every exercise, for a
# quick run while writing a notebook (make test-quick).
MISTAKES_SETTING = os.environ.get("COURSE_MISTAKES", "all").strip().lower()
MISTAKES_REASON = (f"COURSE_MISTAKES={MISTAKES_SETTING} grades the first {MISTAKES_SETTING} "
                   f"mistake(s) of each exercise; COURSE_MISTAKES=all grades every one")


# COURSE_ASSIGNMENTS=07,08 grades only the mistakes of those assignments (while
# writing one notebook); unset, every catalog is graded.
ASSIGNMENTS_SETTING = {n.strip() for n in os.environ.get("COURSE_ASSIGNMENTS", "").split(",") if n.strip()}


def catalog_selected(number):
    """Whether the mistakes of assignment ``number`` ("07") are graded in this run."""
    return not ASSIGNMENTS_SETTING or number in ASSIGNMENTS_SETTING


def mistake_selected(mistakes, index):
    """Whether mistake ``index`` of a catalog is graded in this run."""
    if MISTAKES_SETTING == "all":
        return True
    limit = int(MISTAKES_SETTING)
    grade_id = mistakes[index].grade_id
    return sum(m.grade_id == grade_id for m in mistakes[:index]) < limit


@pytest.fixture(scope="session")
def mistake_futures(generated_course, catalog_grader):
    """{(number, index): (Future of Graded, [the other mistakes in that submission])} for
    every selected catalogued mistake whose assignment exists, submitted to the grading
    pool as soon as requested, in the batches of judging.mistake_batches."""
    futures = {}
    for number, mistakes in sorted(catalogs(COURSE).items()):
        assignment = assignment_for(number, COURSE)
        if assignment is None or not catalog_selected(number):
            continue
        pairs = mistake_submissions(COURSE, {assignment: mistakes},
                                    selected=lambda _, index: mistake_selected(mistakes, index))
        for submission, batch in pairs:
            future = catalog_grader.submit(generated_course, submission)
            for index, mistake in batch:
                futures[(number, index)] = (future, [m for i, m in batch if i != index])
    return futures


# Run the pipeline first: it submits the mistakes to the pool before it grades
# its own submissions in this process, so both use the CPUs at the same time.
MODULE_ORDER = {"test_pipeline.py": 0, "test_mistakes.py": 1, "test_solutions_nbval.py": 2}


def pytest_collection_modifyitems(session, config, items):
    here = [i for i, item in enumerate(items)
            if item.path.parent == REPO / "tests" / "course" and item.path.name in MODULE_ORDER]
    ordered = sorted((items[i] for i in here), key=lambda item: MODULE_ORDER[item.path.name])
    for position, item in zip(here, ordered):
        items[position] = item


def wants(request, module):
    """Whether the session runs any test of ``tests/course/<module>.py``."""
    return any(item.path.name == f"{module}.py" for item in request.session.items)
