"""Grade a whole class: ``autograd-course grade-class`` (``make grade-class``).

    autograd-course grade-class [--course DIR] [--workers N] [--assignment A ...]
                                [--force] [--no-sandbox] [--csv PATH]

1. **Collect.** Every ``submitted/<student>/<assignment>/<assignment>.ipynb``
   of an assignment of ``source/`` (nbgrader's layout: ``nbgrader collect`` or
   ``zip_collect`` put them there).  A submission that contains a symlink is
   refused: nbgrader would copy what it points to into the graded directory.
2. **Skip what is graded.**  ``.grade-class.json`` (next to the gradebook)
   remembers a hash of each submitted directory.  A submission is graded again
   only when that hash changed, or when the gradebook or the graded notebook is
   missing (``--force``: all of them); one whose feedback alone is missing gets
   its feedback only.  A rerun with nothing new grades nothing and gives the same
   grades; a submission added later is graded alone.
3. **Autograde in parallel.** Worker processes (one per CPU, plus one: a worker
   often waits for its kernel, and the extra one uses that time) run nbgrader's own
   autograde through its Python API, every one on this course and its one
   gradebook.  The workers never touch sqlite at the same time: each holds
   ``gradebook.db.lock`` while nbgrader has the gradebook open
   (``autograd_course.gradebook_lock``), which nbgrader does only for short reads
   and writes, never while a kernel runs.  With PostgreSQL
   (``CourseDirectory.db_url``) the database does the locking.
4. **Export.** ``nbgrader export``'s CSV plugin writes ``grades.csv``: every
   grade is in when the grading phase ends.
5. **Feedback, after grading** (as nbgrader's own ``generate_feedback`` step
   follows ``autograde``): the same workers render each graded submission's
   feedback HTML.
6. **The class report.** What the checks found was recorded as each submission
   was graded (``findings.db``: autograde's ``RecordFindings`` step; a submission
   autograde could not grade is recorded here, with the reason); each assignment
   with a submission gets ``reports/<assignment>/index.html``
   (``autograd_course.report``: which rules the class broke, who needs help).

Progress (submissions and students done, elapsed, time left) goes to stderr.
"""

import concurrent.futures
import dataclasses
import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import time
from pathlib import Path

from . import report as class_report
from .findings import Store, failed_record
from .layout import PipelineError, course_dir
from .nbgrader_setup import (check_result, export_csv, kernel_environment, load_config, nbgrader_api, register,
                             sandbox_enabled)
from .pool import default_workers

MANIFEST = ".grade-class.json"


@dataclasses.dataclass
class Outcome:
    """One submission of a grading run."""
    student: str
    assignment: str
    status: str                   # graded | skipped | failed
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0
    message: str = ""
    digest: str = ""


@dataclasses.dataclass
class Report:
    outcomes: list
    csv: str
    seconds: float                # the whole command
    grading_seconds: float = 0.0  # until every grade is in the gradebook and grades.csv
    feedback_seconds: float = 0.0 # then the feedback
    workers: int = 0
    reports: list = dataclasses.field(default_factory=list)   # the class reports written

    def of(self, status):
        return [o for o in self.outcomes if o.status == status]

    def summary(self):
        graded, skipped, failed = (len(self.of(s)) for s in ("graded", "skipped", "failed"))
        lines = [f"grade-class: {graded} graded, {skipped} unchanged (not regraded), {failed} failed, "
                 f"in {_clock(self.seconds)} (grades in {_clock(self.grading_seconds)}, then feedback in "
                 f"{_clock(self.feedback_seconds)}); grades: {self.csv}"]
        lines += [f"  report: {path}" for path in self.reports]
        lines += [f"  FAILED {o.student}/{o.assignment}: {o.message.strip()[-600:]}" for o in self.of("failed")]
        return "\n".join(lines)


# ---------------------------------------------------------------- collect

def submitted(course, names):
    """{(student, assignment): directory} of every submission of an assignment in ``names``."""
    found = {}
    root = Path(course) / "submitted"
    if not root.is_dir():
        return found
    for student in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for name in names:
            if (student / name / f"{name}.ipynb").is_file():
                found[(student.name, name)] = student / name
    return found


def digest(directory):
    """A hash of the files of a submitted directory (paths and contents); None when
    it holds a symlink."""
    h = hashlib.sha256()
    for path in sorted(Path(directory).rglob("*")):
        if path.is_symlink():
            return None
        if path.is_file():
            h.update(path.relative_to(directory).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def load_manifest(course):
    path = Path(course) / MANIFEST
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8")).get("submissions", {})
        except (ValueError, AttributeError):
            pass
    return {}


def save_manifest(course, entries):
    path = Path(course) / MANIFEST
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"version": 1, "submissions": entries}, indent=1, sort_keys=True) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)


def gradebook_state(course, db_url):
    """{(student, assignment): True when every grade of the submission has an autograde score}."""
    from nbgrader.api import Gradebook
    state = {}
    with Gradebook(db_url, load_config(course).CourseDirectory.course_id) as gb:
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                grades = [g for nb in submission.notebooks for g in nb.grades]
                state[(submission.student.id, assignment.name)] = bool(grades) and all(
                    g.auto_score is not None for g in grades)
    return state


# ------------------------------------------------------------------ grade

_WORKER = {}


def _init_worker(course, sandbox, overrides, db_url):
    """A grading process: its gradebook sessions are serialized with the others'."""
    from .gradebook_lock import serialize_gradebook   # lazy: it imports nbgrader (2 s); only grading needs it
    serialize_gradebook(db_url)
    _WORKER.update(course=course, sandbox=sandbox, overrides=overrides)


def _api():
    if "api" not in _WORKER:                               # one API per worker process
        _WORKER["api"] = nbgrader_api(_WORKER["course"], sandbox=_WORKER["sandbox"], overrides=_WORKER["overrides"])
    return _WORKER["api"]


def _grade(student, assignment, digest_):
    """Autograde one submission with nbgrader's API; an Outcome."""
    from nbgrader.api import Gradebook
    course = Path(_WORKER["course"])
    start = time.perf_counter()
    for directory in ("autograded", "feedback"):           # regrade from scratch
        shutil.rmtree(course / directory / student / assignment, ignore_errors=True)
    Store(course).drop(student, assignment)                # autograde records the new findings
    with kernel_environment():
        api = _api()
        result = api.autograde(assignment, student)
        if not result.get("success"):
            message = (result.get("error") or "") + (result.get("log") or "")
            Store(course).put(failed_record(student, assignment, message))
            return Outcome(student, assignment, "failed", seconds=time.perf_counter() - start,
                           message=message)
        with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
            graded = gb.find_submission(assignment, student)
            score, max_score = graded.score, graded.max_score
    return Outcome(student, assignment, "graded", score, max_score, time.perf_counter() - start,
                   digest=digest_)


def _feedback(student, assignment):
    """Render the feedback of a graded submission; None, or why it failed."""
    shutil.rmtree(Path(_WORKER["course"]) / "feedback" / student / assignment, ignore_errors=True)
    with kernel_environment():
        made = _api().generate_feedback(assignment, student)
    if not made.get("success"):
        return "generate_feedback: " + (made.get("error") or "") + (made.get("log") or "")
    return None


class Progress:
    """One line on stderr: submissions and students done, elapsed, time left."""

    def __init__(self, todo, stream=None, every=10.0, what="grade-class"):
        self.stream = stream or sys.stderr
        self.what = what
        self.total = len(todo)
        self.left = {}
        for student, _ in todo:
            self.left[student] = self.left.get(student, 0) + 1
        self.students = len(self.left)
        self.done = 0
        self.start = time.perf_counter()
        self.every, self.last = every, 0.0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def line(self):
        elapsed = time.perf_counter() - self.start
        finished = sum(1 for n in self.left.values() if n == 0)
        eta = elapsed / self.done * (self.total - self.done) if self.done else None
        return (f"{self.what}: {self.done}/{self.total} submissions, {finished}/{self.students} "
                f"students done, {_clock(elapsed)} elapsed, "
                f"{'ETA ' + _clock(eta) if eta is not None else 'ETA --:--'}")

    def update(self, student):
        self.done += 1
        self.left[student] -= 1
        now = time.perf_counter()
        if self.tty:
            print("\r" + self.line(), end="", file=self.stream, flush=True)
        elif now - self.last >= self.every or self.done == self.total:
            self.last = now
            print(self.line(), file=self.stream, flush=True)
        if self.tty and self.done == self.total:
            print(file=self.stream, flush=True)


def _clock(seconds):
    seconds = int(round(seconds or 0))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def grade_class(course=None, workers=None, names=None, force=False, sandbox=True, csv=None,
                overrides=None, feedback=True, progress=None, reports=True):
    """Autograde every new or changed submission of ``course``, then render the feedback
    of those graded (see the module doc).  ``sandbox``: True (required), False, or None
    (when available); ``overrides``: a traitlets Config merged over nbgrader_config.py
    (tests lower the timeout); ``feedback=False``: grades only; ``reports=False``: no class
    report.  Returns a :class:`Report`."""
    from .gradebook_lock import serialize_gradebook   # lazy: it imports nbgrader (2 s); only grading needs it
    start = time.perf_counter()
    course = course_dir(course)
    config = load_config(course)
    if overrides:
        config.merge(overrides)
    names = list(names or config.AutogradCourse.get("assignments", []))
    if not names:
        raise PipelineError(f"{course}/source has no assignments to grade")
    use_sandbox = sandbox_enabled(sandbox)
    with kernel_environment():
        api = nbgrader_api(course, sandbox=False, overrides=overrides)
        db_url = api.coursedir.db_url
        serialize_gradebook(db_url)
        _ensure_generated(course, api, names)
        register(api, names)

    found = submitted(course, names)
    manifest = load_manifest(course)
    state = gradebook_state(course, db_url)
    outcomes, todo, render = [], [], []
    for (student, name), directory in sorted(found.items()):
        key = f"{student}/{name}"
        digest_ = digest(directory)
        if digest_ is None:
            outcomes.append(Outcome(student, name, "failed", message="the submission contains a "
                                    "symlink; nbgrader would copy its target (refused)"))
            Store(course).put(failed_record(student, name, outcomes[-1].message))
            continue
        graded = course / "autograded" / student / name / f"{name}.ipynb"
        current = (manifest.get(key, {}).get("sha256") == digest_ and state.get((student, name))
                   and graded.is_file())
        if current and not force:
            entry = manifest[key]
            outcomes.append(Outcome(student, name, "skipped", entry.get("score", 0.0),
                                    entry.get("max_score", 0.0), digest=digest_))
            if feedback and not _feedback_path(course, student, name).is_file():
                render.append(outcomes[-1])
        else:
            todo.append((student, name, digest_))

    workers = max(1, min(workers or default_workers() + 1, max(len(todo), len(render), 1)))
    grading_seconds = feedback_seconds = 0.0
    if todo or render:
        with kernel_environment():
            context = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(
                    workers, mp_context=context, initializer=_init_worker,
                    initargs=(str(course), use_sandbox, overrides, db_url)) as pool:
                graded_now = _grade_all(pool, course, todo, manifest, outcomes, progress)
                path = export_csv(course, csv, db_url=db_url)
                grading_seconds = time.perf_counter() - start
                if feedback:
                    _render_all(pool, render + graded_now, progress)
                feedback_seconds = time.perf_counter() - start - grading_seconds
    else:
        path = export_csv(course, csv, db_url=db_url)
        grading_seconds = time.perf_counter() - start
    outcomes.sort(key=lambda o: (o.student, o.assignment))
    written = [str(class_report.write(course, name)) for name in names
               if reports and any(o.assignment == name for o in outcomes)]
    return Report(outcomes, str(path), time.perf_counter() - start, grading_seconds, feedback_seconds,
                  workers, written)


def _feedback_path(course, student, name):
    return Path(course) / "feedback" / student / name / f"{name}.html"


def _grade_all(pool, course, todo, manifest, outcomes, progress):
    """Autograde ``todo`` in the pool; each outcome goes into ``outcomes`` and the
    manifest (saved after each one).  Returns the outcomes graded."""
    tracker = Progress([(s, a) for s, a, _ in todo], progress)
    futures = {pool.submit(_grade, s, a, d): (s, a) for s, a, d in todo}
    graded = []
    for future in concurrent.futures.as_completed(futures):
        student, name = futures[future]
        try:
            outcome = future.result()
        except Exception as error:             # a worker died: report, go on
            outcome = Outcome(student, name, "failed", message=f"{type(error).__name__}: {error}")
        outcomes.append(outcome)
        key = f"{student}/{name}"
        if outcome.status == "graded":
            graded.append(outcome)
            manifest[key] = {"sha256": outcome.digest, "score": outcome.score,
                             "max_score": outcome.max_score,
                             "graded_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
        else:
            manifest.pop(key, None)
        save_manifest(course, manifest)
        tracker.update(student)
    return graded


def _render_all(pool, outcomes, progress):
    """The feedback of each outcome, in the pool; an outcome whose feedback fails
    becomes "failed" (its grade stays: a rerun renders the feedback again)."""
    tracker = Progress([(o.student, o.assignment) for o in outcomes], progress, what="feedback")
    futures = {pool.submit(_feedback, o.student, o.assignment): o for o in outcomes}
    for future in concurrent.futures.as_completed(futures):
        outcome = futures[future]
        try:
            why = future.result()
        except Exception as error:
            why = f"generate_feedback: {type(error).__name__}: {error}"
        if why:
            outcome.status, outcome.message = "failed", why
        tracker.update(outcome.student)


def _ensure_generated(course, api, names):
    """Put every assignment's notebooks into the gradebook (nbgrader generate_assignment
    does it) when they are not there yet.  The release is written to a temporary
    directory: the committed course/release/ is not touched."""
    import tempfile
    from nbgrader.api import Gradebook, MissingEntry
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        missing = []
        for name in names:
            try:
                if not gb.find_assignment(name).notebooks:
                    missing.append(name)
            except MissingEntry:
                missing.append(name)
    if not missing:
        return
    release = api.coursedir.release_directory
    with tempfile.TemporaryDirectory(prefix="grade-class-release-") as tmp:
        api.coursedir.release_directory = tmp
        try:
            for name in missing:
                check_result(api.generate_assignment(name, force=True),
                       f"nbgrader generate_assignment {name} (into the gradebook)")
        finally:
            api.coursedir.release_directory = release
