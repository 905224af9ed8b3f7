"""Grading submissions with real nbgrader: one by one, or in a pool of processes.

    with Grader() as grader:                        # one process per CPU
        results = grader.map(generated_course, [Submission(assignment, student, notebook), ...])

A :class:`Submission` is a notebook handed in by a student; grading it gives a
:class:`Graded`: nbgrader's score, the score and output of every test cell, the
log, the feedback's path.  :func:`grade_here` grades in the course itself (its
gradebook keeps the grades, so feedback and export can follow); the
:class:`Grader`'s processes each grade in their own copy of the generated
course, which stays as it is.  The demo and the course tests grade this way;
a class is graded by ``autograd_course.classgrade``.
"""

import concurrent.futures
import dataclasses
import multiprocessing
import os
import shutil
import tempfile
import time
from pathlib import Path

from .nbgrader_setup import check_result, kernel_environment, load_config, nbgrader_api
from .notebooks import grade_id, output_text, read_notebook


@dataclasses.dataclass
class Submission:
    """A notebook handed in by ``student`` for ``assignment`` (``kind="validate"``:
    run nbgrader's Validator on it instead of autograding)."""
    assignment: str
    student: str
    notebook: object
    kind: str = "autograde"


@dataclasses.dataclass
class CellGrade:
    grade_id: str
    score: float
    max_score: float
    output: str

    @property
    def full(self):
        return self.score == self.max_score


@dataclasses.dataclass
class Graded:
    assignment: str
    student: str
    kind: str
    success: bool
    log: str
    cells: dict                   # grade_id -> CellGrade (the test cells)
    score: float = 0.0
    max_score: float = 0.0        # the assignment's maximum, as nbgrader computes it
    validation: dict = None       # Validator.validate() result (kind="validate")
    feedback: str = None          # path of the feedback HTML, when generated
    seconds: float = 0.0


def hand_in(course, submission):
    """Put a submission where nbgrader collect would: submitted/<student>/<a>/<a>.ipynb."""
    import nbformat
    target = Path(course) / "submitted" / submission.student / submission.assignment
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    nbformat.write(submission.notebook, str(target / f"{submission.assignment}.ipynb"))


def _collect(api, course, submission, result, seconds):
    from nbgrader.api import Gradebook, MissingEntry
    a, s = submission.assignment, submission.student
    graded = Graded(a, s, "autograde", bool(result.get("success")),
                    (result.get("error") or "") + (result.get("log") or ""), {}, seconds=seconds)
    notebook = Path(course) / "autograded" / s / a / f"{a}.ipynb"
    outputs = {}
    if notebook.is_file():
        for cell in read_notebook(notebook).cells:
            if grade_id(cell):
                outputs[grade_id(cell)] = output_text(cell)
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        graded.max_score = gb.find_assignment(a).max_score
        try:
            submitted = gb.find_submission(a, s)
        except MissingEntry:
            return graded
        graded.score = submitted.score
        for nb in submitted.notebooks:
            for grade in nb.grades:
                graded.cells[grade.name] = CellGrade(grade.name, float(grade.score),
                                                     float(grade.max_score),
                                                     outputs.get(grade.name, ""))
    return graded


def _validate(course, submission):
    import nbformat
    from nbgrader.validator import Validator
    with tempfile.TemporaryDirectory(prefix="course-validate-") as tmp:
        path = Path(tmp) / f"{submission.assignment}.ipynb"
        nbformat.write(submission.notebook, str(path))
        start = time.perf_counter()
        validation = Validator(config=load_config(course)).validate(str(path))
    return Graded(submission.assignment, submission.student, "validate", True, "", {},
                  validation=validation, seconds=time.perf_counter() - start)


def grade_here(course, submissions, feedback=()):
    """Autograde (or validate) submissions one by one in ``course`` itself (its
    gradebook keeps the grades: feedback and export can follow).  ``feedback``:
    the students whose feedback HTML is generated (True: all)."""
    results = []
    with kernel_environment():
        api = nbgrader_api(course)
        for submission in submissions:
            if submission.kind == "validate":
                results.append(_validate(course, submission))
                continue
            hand_in(course, submission)
            start = time.perf_counter()
            result = api.autograde(submission.assignment, submission.student)
            graded = _collect(api, course, submission, result, time.perf_counter() - start)
            if graded.success and (feedback is True or submission.student in feedback):
                check_result(api.generate_feedback(submission.assignment, submission.student),
                       f"nbgrader generate_feedback {submission.assignment} {submission.student}")
                html = (Path(course) / "feedback" / submission.student / submission.assignment
                        / f"{submission.assignment}.html")
                graded.feedback = str(html)
            results.append(graded)
    return results


_WORKER = {"copies": {}}


def _worker_init(scratch):
    """A grading process: imports nbgrader once, then grades in its own copies of
    the generated courses (own gradebooks: sqlite is not shared between processes)."""
    _WORKER["scratch"] = scratch
    import nbgrader.apps.api  # noqa: F401 - the slow imports, done while the pool starts
    import nbgrader.validator  # noqa: F401


def _course_copy(generated):
    copies = _WORKER["copies"]
    if generated not in copies:
        root = Path(tempfile.mkdtemp(prefix="worker-", dir=_WORKER.get("scratch")))
        copies[generated] = root / "course"
        shutil.copytree(generated, copies[generated],
                        ignore=shutil.ignore_patterns("submitted", "autograded", "feedback"))
    return copies[generated]


def _worker_grade(generated, submission):
    return grade_here(_course_copy(str(generated)), [submission])[0]


class Grader:
    """A pool of grading processes (one per CPU; ``COURSE_WORKERS`` overrides).
    ``submit``/``map`` autograde or validate submissions against a generated
    course, which is not modified: each worker grades in its own copy.

        with Grader() as grader:
            results = grader.map(generated_course, submissions)
    """

    def __init__(self, workers=None):
        self.workers = workers or default_workers()
        self._scratch = tempfile.mkdtemp(prefix="course-grader-")
        self._pool = None

    def _executor(self):
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init, initargs=(self._scratch,))
        return self._pool

    def submit(self, course, submission):
        """A Future of the :class:`Graded` result."""
        return self._executor().submit(_worker_grade, str(course), submission)

    def map(self, course, submissions):
        futures = [self.submit(course, s) for s in submissions]
        return [f.result() for f in futures]

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def grade(course, submissions, workers=None):
    """Autograde/validate ``submissions`` against the generated ``course`` in
    parallel processes; ``course`` itself is not modified.  Results come back
    in the order of ``submissions``."""
    with Grader(workers) as grader:
        return grader.map(course, submissions)


def default_workers():
    """Kernels are CPU-bound: one grading process per CPU (override: COURSE_WORKERS)."""
    return int(os.environ.get("COURSE_WORKERS") or max(1, os.cpu_count() or 1))
