"""The course pipeline: generated files, grading with real nbgrader, the instructor demo.

    python -m tools.course release     # course/release/<a>/ from course/source/ (nbgrader generate_assignment)
    python -m tools.course solutions   # solutions/<a>.ipynb: markers removed, executed, normalized
    python -m tools.course check       # fail when release/ or solutions/ drift from course/source/
    python -m tools.course demo        # grade example submissions in a temporary course, print the table
    python -m tools.course lab         # JupyterLab on course/release/01_tensors/01_tensors.ipynb
    python -m tools.course register    # register every assignment in course/gradebook.db (a term's start)
    python -m tools.course grade-class # autograde every submission of course/submitted/, feedback, grades.csv

Everything that touches nbgrader happens in a temporary copy of ``course/``
(its own gradebook, its own submitted/ and autograded/), so nothing here
changes the instructor's gradebook, except ``register`` and ``grade-class``
(tools/classgrade.py), which work on the instructor's course.  The course
tests (``tests/course/``) use the same functions.

``nbgrader_config.py`` is loaded explicitly with traitlets'
``PyFileConfigLoader``: ``NbGraderAPI`` does not read it by itself.
"""

import argparse
import concurrent.futures
import contextlib
import copy
import dataclasses
import difflib
import hashlib
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COURSE = REPO / "course"
SOLUTIONS = REPO / "solutions"
CONFIG_FILE = "nbgrader_config.py"
KERNEL = "python3"
CELL_TIMEOUT = 60                     # seconds per cell, as in nbgrader_config.py

# Per-term data of a course directory: never copied, never committed.
PER_TERM = ["gradebook.db", "gradebook.db.lock", "submitted", "autograded", "feedback", "grades.csv",
            ".nbgrader.log", "source_with_tests", ".exchange", ".grade-class.json"]
JUNK = [".ipynb_checkpoints", "__pycache__", "*.pyc", ".DS_Store"]

# nbgrader's own rule: a line *containing* the delimiter is a marker line.
MARKER_LINE = re.compile(r"BEGIN SOLUTION|END SOLUTION|BEGIN HIDDEN TESTS|END HIDDEN TESTS")
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# Volatile metadata: stripped from every generated notebook, never compared.
VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")
VOLATILE_NOTEBOOK_METADATA = ("widgets",)


class PipelineError(RuntimeError):
    """A step of the course pipeline failed (the message says which and why)."""


# ------------------------------------------------------------------ basics

def assignments(course=COURSE):
    """The assignments of a course directory: ``source/<a>/<a>.ipynb`` exists."""
    return assignments_in(Path(course) / "source")


def assignments_in(source):
    """The assignment directories ``<a>/<a>.ipynb`` under ``source``."""
    source = Path(source)
    if not source.is_dir():
        return []
    return sorted(d.name for d in source.iterdir()
                  if d.is_dir() and not d.name.startswith(".") and (d / f"{d.name}.ipynb").is_file())


def source_notebook_path(name, course=COURSE):
    return Path(course) / "source" / name / f"{name}.ipynb"


def read_notebook(path):
    import nbformat
    return nbformat.read(str(path), as_version=4)


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _env_with_kernel_paths(env):
    """``env`` plus: this interpreter's bin directory first on PATH (nbgrader runs
    ``alembic`` from PATH when it creates a gradebook; kernels and jupyter come
    from the same environment), the repository on PYTHONPATH (kernels import
    ``autograd_lib`` even without an installed package), a fixed hash seed, and
    one BLAS thread per kernel, as in the sandbox: the grader and the tests run a
    kernel per core, and OpenBLAS's threads in each of them fight over the cores and
    spin (07's matmul-heavy timing cell took 4x the CPU with the default threads
    while other kernels ran)."""
    env = dict(env)
    bin_dir = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir]
    env["PATH"] = os.pathsep.join([bin_dir] + path)
    pythonpath = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + pythonpath)
    env["PYTHONHASHSEED"] = "0"
    for threads in BLAS_THREADS:
        env[threads] = "1"
    env.pop("JPY_PARENT_PID", None)
    return env


@contextlib.contextmanager
def kernel_environment():
    """Run a block with :func:`_env_with_kernel_paths` applied to ``os.environ``,
    and without nbgrader's SQLAlchemy noise: its "Object of type <...> not in
    session" SAWarning is a RuntimeWarning, which the test suite turns into errors."""
    saved = dict(os.environ)
    os.environ.update(_env_with_kernel_paths(os.environ))
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"Object of type <\w+> not in session")
            yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def load_config(course):
    """``course/nbgrader_config.py`` as a traitlets Config (its root is ``course``)."""
    from traitlets.config.loader import PyFileConfigLoader
    config = PyFileConfigLoader(CONFIG_FILE, path=str(course)).load_config()
    if Path(config.CourseDirectory.root).resolve() != Path(course).resolve():
        raise PipelineError(f"{course}/{CONFIG_FILE}: CourseDirectory.root is "
                            f"{config.CourseDirectory.root}, expected the directory of the file")
    return config


SANDBOX_ENV = "COURSE_SANDBOX"        # auto (default): when bubblewrap works; 1: required; 0: off
_SANDBOX = {}
_EXCHANGE = {}                        # an empty exchange for courses without .exchange/


def sandbox_enabled(setting=None):
    """Whether students' kernels run in the sandbox (tools/sandbox.py).  ``setting``:
    True (required: PipelineError when it cannot run), False, or None for the
    ``COURSE_SANDBOX`` environment variable (``auto`` when unset: the sandbox when
    bubblewrap works here, otherwise a warning and no sandbox)."""
    if setting is None:
        value = os.environ.get(SANDBOX_ENV, "auto").strip().lower()
        setting = {"1": True, "yes": True, "true": True, "0": False, "no": False,
                   "false": False}.get(value, "auto")
    if setting is False:
        return False
    if "status" not in _SANDBOX:
        from tools import sandbox
        _SANDBOX["status"] = sandbox.ensure()
    ok, reason = _SANDBOX["status"]
    if not ok and setting is True:
        raise PipelineError(f"students' kernels cannot be sandboxed: {reason}")
    if not ok and not _SANDBOX.get("warned"):
        _SANDBOX["warned"] = True
        print(f"warning: grading WITHOUT the sandbox ({reason})", file=sys.stderr)
    return ok


def nbgrader_api(course, log_level="WARN", sandbox=None, overrides=None):
    """An ``NbGraderAPI`` on ``course`` configured by its nbgrader_config.py
    (``sandbox``: see :func:`sandbox_enabled`; ``overrides``: a traitlets Config
    merged last).  Use inside :func:`kernel_environment`."""
    from nbgrader.apps.api import NbGraderAPI
    config = load_config(course)
    exchange = Path(course) / ".exchange"                      # hermetic: never the real exchange
    if not exchange.is_dir():                                  # (nor nbgrader's "unwritable" noise)
        _EXCHANGE.setdefault("root", tempfile.mkdtemp(prefix="course-exchange-"))
        exchange = _EXCHANGE["root"]
    config.Exchange.root = str(exchange)
    config.NbGraderAPI.log_level = log_level
    if not sandbox_enabled(sandbox):
        config.GuardedExecute.sandbox = False
    if overrides:
        config.merge(overrides)
    return NbGraderAPI(config=config)


def _check(result, what):
    if not result.get("success"):
        raise PipelineError(f"{what} failed:\n{result.get('error', '')}\n{result.get('log', '')}")
    return result


# -------------------------------------------------------------- notebooks

def normalize(nb):
    """A copy of ``nb`` without volatile metadata (timings, UI state, Python version)."""
    nb = copy.deepcopy(nb)
    for key in VOLATILE_NOTEBOOK_METADATA:
        nb.metadata.pop(key, None)
    if "language_info" in nb.metadata:
        nb.metadata.language_info.pop("version", None)
    for index, cell in enumerate(nb.cells):
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if (nb.nbformat, nb.nbformat_minor) >= (4, 5) and not cell.get("id"):
            cell["id"] = _stable_id(index, cell)
    return nb


def _stable_id(index, cell):
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    return grade_id or f"cell-{index:03d}-" + hashlib.sha1(cell.source.encode()).hexdigest()[:8]


def dumps(nb):
    """The normalized JSON text of a notebook (sorted keys, indent 1, final newline)."""
    import nbformat
    text = nbformat.writes(normalize(nb))
    return text if text.endswith("\n") else text + "\n"


def write_notebook(nb, path):
    """Write normalized JSON; returns True when the file changed."""
    path = Path(path)
    text = dumps(nb)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def strip_markers(source):
    """The source without its ``### BEGIN/END SOLUTION`` and ``### BEGIN/END
    HIDDEN TESTS`` lines; the code between them stays."""
    return "\n".join(line for line in source.split("\n") if not MARKER_LINE.search(line))


def nbgrader_meta(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def grade_id(cell):
    return nbgrader_meta(cell).get("grade_id")


def is_answer_cell(cell):
    return bool(nbgrader_meta(cell).get("solution"))


def is_test_cell(cell):
    return bool(nbgrader_meta(cell).get("grade")) and not nbgrader_meta(cell).get("solution")


def solution_notebook(source_nb):
    """The source notebook with the marker lines removed (solutions and hidden
    tests kept), no outputs; the nbgrader metadata stays, so it can also be
    submitted as a perfect answer."""
    nb = copy.deepcopy(source_nb)
    for cell in nb.cells:
        cell.source = strip_markers(cell.source)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def execute(nb, cwd, timeout=CELL_TIMEOUT):
    """Run ``nb`` in place in a fresh kernel started in ``cwd``.  A cell that raises
    stops the run unless it carries the ``raises-exception`` tag."""
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL, record_timing=False,
                            coalesce_streams=True,       # stdout chunking depends on timing
                            resources={"metadata": {"path": str(cwd)}})
    with kernel_environment():
        client.execute()
    return nb


def output_text(cell):
    """The text a cell printed: streams, results, errors (ANSI colours removed)."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
            parts.append("\n".join(out.get("traceback", [])))
    return ANSI.sub("", "\n".join(parts))


def solution_problems(nb, name):
    """What an executed solution notebook must not contain (AUTHORING.md rules)."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        label = f"{name} cell {index} ({grade_id(cell) or 'no grade_id'})"
        for out in cell.outputs:
            if out.output_type == "stream" and out.name == "stderr" and is_test_cell(cell):
                problems.append(f"{label}: a test cell writes to stderr, which zeroes it "
                                f"when a student runs Validate:\n{out.text.strip()[:300]}")
        text = output_text(cell)
        if ADDRESS.search(text):
            problems.append(f"{label}: output contains a memory address "
                            f"({ADDRESS.search(text).group(0)}); print type(x).__name__ instead")
        for out in cell.outputs:
            value = out.get("data", {}).get("text/plain", "") if out.output_type == "execute_result" else ""
            if is_test_cell(cell) and re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*", value):
                problems.append(f"{label}: a test cell ends with a bare number ({value.strip()}), "
                                f"which nbgrader reads as partial credit")
    return problems


# --------------------------------------------------------- course copies

def make_course(dest, source_root=None, names=None):
    """A fresh course directory at ``dest``: the real nbgrader_config.py and the
    sources (from ``source_root``, default ``course/source``), no per-term data.
    Missing cell ids are filled in deterministically, so generation is reproducible."""
    dest = Path(dest)
    source_root = Path(source_root or COURSE / "source")
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(COURSE / CONFIG_FILE, dest / CONFIG_FILE)
    (dest / "source").mkdir(exist_ok=True)
    for name in (names if names is not None else assignments_in(source_root)):
        target = dest / "source" / name
        shutil.copytree(source_root / name, target, ignore=shutil.ignore_patterns(*JUNK, *PER_TERM))
        notebook = target / f"{name}.ipynb"
        nb = read_notebook(notebook)
        write_notebook(nb, notebook)
    return dest


def register(api, names):
    """Register assignments in the gradebook (nbgrader >= 0.6 has no db_assignments)."""
    with api.gradebook as gb:
        for name in names:
            gb.update_or_create_assignment(name)


def generate(course, names=None):
    """``nbgrader generate_assignment`` for every assignment of ``course``."""
    names = assignments(course) if names is None else names
    if not names:
        raise PipelineError(f"{course}/source has no assignments")
    with kernel_environment():
        api = nbgrader_api(course)
        register(api, list(load_config(course).AutogradCourse.get("assignments", names)))
        for name in names:
            _check(api.generate_assignment(name), f"nbgrader generate_assignment {name}")
    return names


def _tree(directory):
    """{relative path: bytes} of the files under ``directory``, notebooks normalized."""
    directory = Path(directory)
    files = {}
    if not directory.is_dir():
        return files
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if not path.is_file() or any(part in (".ipynb_checkpoints", "__pycache__") for part in rel.parts):
            continue
        if path.suffix == ".ipynb":
            files[rel.as_posix()] = dumps(read_notebook(path)).encode("utf-8")
        else:
            files[rel.as_posix()] = path.read_bytes()
    return files


def render_release(course=COURSE):
    """{path relative to release/: bytes} that ``release`` would write."""
    with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
        work = make_course(Path(tmp) / "course", Path(course) / "source")
        generate(work)
        return _tree(work / "release")


def render_solution(name, course=COURSE):
    """The executed, normalized solution notebook of one assignment."""
    source = read_notebook(source_notebook_path(name, course))
    nb = solution_notebook(source)
    with tempfile.TemporaryDirectory(prefix=f"course-{name}-") as tmp:
        workdir = Path(tmp) / name                  # a copy of the assignment's source dir
        shutil.copytree(Path(course) / "source" / name, workdir,
                        ignore=shutil.ignore_patterns(*JUNK, "*.ipynb"))
        try:
            execute(nb, workdir)
        except Exception as error:
            raise PipelineError(f"solutions/{name}.ipynb: the solution does not run:\n"
                                f"{ANSI.sub('', str(error))[-3000:]}") from None
    problems = solution_problems(nb, name)
    if problems:
        raise PipelineError("\n".join(problems))
    return normalize(nb)


# ------------------------------------------------------------ commands

def cmd_release(course=COURSE):
    """Regenerate ``course/release/`` from ``course/source/`` (normalized JSON)."""
    expected = render_release(course)
    release = Path(course) / "release"
    current = _tree(release)
    for rel in sorted(set(current) - set(expected)):
        (release / rel).unlink()
        print(f"removed  release/{rel}")
    for rel, data in sorted(expected.items()):
        if current.get(rel) != data or (release / rel).read_bytes() != data:
            (release / rel).parent.mkdir(parents=True, exist_ok=True)
            (release / rel).write_bytes(data)
            print(f"wrote    release/{rel}")
    for directory in sorted(release.glob("*"), reverse=True):
        if directory.is_dir() and not any(p.is_file() for p in directory.rglob("*")):
            shutil.rmtree(directory)
    print(f"release: {len(assignments(course))} assignment(s) up to date")
    return 0


def cmd_solutions(course=COURSE, out=SOLUTIONS, names=None):
    """Write ``solutions/<a>.ipynb`` for every assignment (executed)."""
    names = names or assignments(course)
    out.mkdir(exist_ok=True)
    for name in names:
        start = time.perf_counter()
        path = out / f"{name}.ipynb"
        nb = render_solution(name, course)
        if path.is_file() and _without_images(read_notebook(path)) == _without_images(nb):
            changed = False                # only figures differ (nbval ignores them): no churn
        else:
            changed = write_notebook(nb, path)
        print(f"{'wrote' if changed else 'same '}    solutions/{name}.ipynb "
              f"({time.perf_counter() - start:.1f} s)")
    for stale in sorted(set(p.stem for p in out.glob("*.ipynb")) - set(assignments(course))):
        (out / f"{stale}.ipynb").unlink()
        print(f"removed  solutions/{stale}.ipynb")
    return 0


def compare_notebooks(expected, seen, label, compare_metadata=True):
    """Differences in cell sources and metadata (outputs and timings are not compared)."""
    problems = []
    e_cells, s_cells = expected.cells, seen.cells
    if len(e_cells) != len(s_cells):
        problems.append(f"{label}: {len(s_cells)} cells, expected {len(e_cells)}")
    for index, (e, s) in enumerate(zip(e_cells, s_cells)):
        where = f"{label} cell {index} ({grade_id(e) or e.cell_type})"
        if e.cell_type != s.cell_type:
            problems.append(f"{where}: cell type {s.cell_type}, expected {e.cell_type}")
        if e.source != s.source:
            diff = list(difflib.unified_diff(e.source.splitlines(), s.source.splitlines(),
                                             "expected", "committed", lineterm="", n=1))
            problems.append(f"{where}: source differs\n    " + "\n    ".join(diff[2:14]))
        if compare_metadata and dict(e.metadata) != dict(s.metadata):
            keys = sorted(k for k in set(e.metadata) | set(s.metadata)
                          if e.metadata.get(k) != s.metadata.get(k))
            problems.append(f"{where}: metadata differs in {', '.join(keys)}")
    if compare_metadata:
        e_meta = {k: v for k, v in expected.metadata.items() if k != "language_info"}
        s_meta = {k: v for k, v in seen.metadata.items() if k != "language_info"}
        if e_meta != s_meta:
            problems.append(f"{label}: notebook metadata differs")
    if len(problems) > 12:
        problems = problems[:12] + [f"{label}: ... and {len(problems) - 12} more differences"]
    return problems


def source_problems(course=COURSE):
    """Source notebooks are stored without outputs."""
    problems = []
    for name in assignments(course):
        nb = read_notebook(source_notebook_path(name, course))
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
                problems.append(f"source/{name}/{name}.ipynb cell {index} ({grade_id(cell) or 'code'}): "
                                f"has outputs; clear them before committing")
    return problems


def release_drift(expected, course=COURSE):
    """Problems between the release ``expected`` ({rel: bytes}) and ``course/release``."""
    import nbformat
    problems = []
    committed = _raw_tree(Path(course) / "release")
    for rel in sorted(set(expected) - set(committed)):
        problems.append(f"release/{rel}: missing (run: make release)")
    for rel in sorted(set(committed) - set(expected)):
        problems.append(f"release/{rel}: not generated from course/source (run: make release)")
    for rel in sorted(set(expected) & set(committed)):
        if expected[rel] == committed[rel]:
            continue
        if rel.endswith(".ipynb"):
            details = compare_notebooks(nbformat.reads(expected[rel].decode(), as_version=4),
                                        nbformat.reads(committed[rel].decode(), as_version=4),
                                        f"release/{rel}")
            problems.append(f"release/{rel}: differs from the generated release (run: make release)")
            problems.extend("  " + d for d in details)
        else:
            problems.append(f"release/{rel}: differs from course/source (run: make release)")
    return problems


def _raw_tree(directory):
    directory = Path(directory)
    if not directory.is_dir():
        return {}
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and not any(part in (".ipynb_checkpoints", "__pycache__")
                                       for part in p.relative_to(directory).parts)}


def solutions_drift(course=COURSE, out=SOLUTIONS):
    """Committed solutions match the sources (cells and metadata) and were executed."""
    problems = []
    names = assignments(course)
    for name in names:
        path = Path(out) / f"{name}.ipynb"
        label = f"solutions/{name}.ipynb"
        if not path.is_file():
            problems.append(f"{label}: missing (run: make solutions)")
            continue
        expected = normalize(solution_notebook(read_notebook(source_notebook_path(name, course))))
        seen = read_notebook(path)
        details = compare_notebooks(expected, seen, label)
        if details:
            problems.append(f"{label}: differs from course/source (run: make solutions)")
            problems.extend("  " + d for d in details)
            continue
        for index, cell in enumerate(seen.cells):
            if cell.cell_type == "code" and cell.source.strip() and cell.execution_count is None:
                problems.append(f"{label}: cell {index} was not executed (run: make solutions)")
                break
            if cell.cell_type == "code" and any(o.output_type == "error" for o in cell.outputs) \
                    and "raises-exception" not in cell.metadata.get("tags", []):
                problems.append(f"{label}: cell {index} ({grade_id(cell)}) raised an error")
    for stale in sorted(set(p.stem for p in Path(out).glob("*.ipynb")) - set(names)):
        problems.append(f"solutions/{stale}.ipynb: no course/source/{stale} (run: make solutions)")
    return problems


def drift(course=COURSE, out=SOLUTIONS, expected_release=None):
    """Every reason why the committed generated files are not what the sources give."""
    if not assignments(course):
        return [f"{Path(course) / 'source'} has no assignments"]
    problems = source_problems(course)
    expected = render_release(course) if expected_release is None else expected_release
    problems += release_drift(expected, course)
    problems += solutions_drift(course, out)
    return problems


IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")


def _without_images(nb):
    """The normalized notebook JSON without image data (what nbval compares)."""
    nb = normalize(nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for key in IMAGE_TYPES:
                output.get("data", {}).pop(key, None)
    return dumps(nb)


def cmd_check(course=COURSE, out=SOLUTIONS):
    problems = drift(course, out)
    if problems:
        print(f"course check: {len(problems)} problem(s)")
        for problem in problems:
            print(problem)
        return 1
    print(f"course check: release/ and solutions/ match course/source/ "
          f"({len(assignments(course))} assignment(s))")
    return 0


# ---------------------------------------------------------------- grading

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


def _submit(course, submission):
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
            _submit(course, submission)
            start = time.perf_counter()
            result = api.autograde(submission.assignment, submission.student)
            graded = _collect(api, course, submission, result, time.perf_counter() - start)
            if graded.success and (feedback is True or submission.student in feedback):
                _check(api.generate_feedback(submission.assignment, submission.student),
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


def export_csv(course, path=None, db_url=None):
    """``nbgrader export`` (CSV plugin) of the course's gradebook (``db_url``: the
    configured ``CourseDirectory.db_url``, by default ``<course>/gradebook.db``);
    returns the path."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin
    config = load_config(course)
    path = Path(path or Path(course) / "grades.csv")
    db_url = db_url or config.CourseDirectory.get("db_url") or f"sqlite:///{Path(course) / 'gradebook.db'}"
    with kernel_environment(), Gradebook(db_url, config.CourseDirectory.course_id) as gb:
        CsvExportPlugin(config=config, to=str(path)).export(gb)
    return path


# ------------------------------------------------------------ mistakes

def exercise_of(answer_grade_id):
    """``02_gradient_edge_answer`` -> ``02_gradient_edge``."""
    return re.sub(r"_answer$", "", answer_grade_id)


def tests_of(exercise, grade_ids):
    """The test cells of an exercise: their grade_id starts with ``<exercise>_test``
    (``02_gradient_edge_test``, ``02_gradient_edge_test2``, ``02_gradient_edge_test_hidden``)."""
    return sorted(g for g in grade_ids if g.startswith(exercise + "_test"))


def with_answer(nb, answer_grade_id, code):
    """A copy of ``nb`` whose answer cell ``answer_grade_id`` holds ``code``."""
    nb = copy.deepcopy(nb)
    cells = [c for c in nb.cells if grade_id(c) == answer_grade_id and is_answer_cell(c)]
    if len(cells) != 1:
        answers = [grade_id(c) for c in nb.cells if is_answer_cell(c)]
        raise PipelineError(f"no answer cell {answer_grade_id!r} (answer cells: {', '.join(answers)})")
    cells[0].source = code
    return nb


def _squash(text):
    return " ".join(text.split())


def judge(graded, mistake):
    """Why a mistake's autograde result is wrong; [] when the grading is right:
    the exercise loses points, every other exercise keeps all of its points,
    and a failing cell's output names the broken rule."""
    problems = []
    label = f"{mistake.grade_id} / {mistake.name!r}"
    if not graded.success:
        return [f"{label}: autograde failed:\n{graded.log[-2000:]}"]
    exercise = exercise_of(mistake.grade_id)
    own = tests_of(exercise, graded.cells)
    if not own:
        return [f"{label}: no test cell named {exercise}_test[...] among "
                f"{', '.join(sorted(graded.cells))}"]
    failing = [graded.cells[g] for g in own if not graded.cells[g].full]
    if not failing:
        problems.append(f"{label}: the tests of {exercise} ({', '.join(own)}) give full points "
                        f"to this wrong answer")
    elif not any(_squash(mistake.rule) in _squash(cell.output) for cell in failing):
        shown = "\n".join(f"--- {c.grade_id}:\n{c.output.strip()[-1500:]}" for c in failing)
        problems.append(f"{label}: no failing test cell of {exercise} names the rule "
                        f"{mistake.rule!r}; their outputs:\n{shown}")
    for gid, cell in sorted(graded.cells.items()):
        if gid not in own and not cell.full:
            problems.append(f"{label}: {gid} (another exercise) lost points "
                            f"({cell.score:g}/{cell.max_score:g}):\n{cell.output.strip()[-1500:]}")
    return problems


def mistake_submissions(course, mistakes_by_assignment):
    """{assignment: [Mistake, ...]} -> [(Submission, Mistake)], built on the
    solution notebooks of ``course``'s sources."""
    pairs = []
    for assignment, mistakes in sorted(mistakes_by_assignment.items()):
        solution = solution_notebook(read_notebook(source_notebook_path(assignment, course)))
        for index, mistake in enumerate(mistakes):
            student = f"mistake-{index:02d}"
            pairs.append((Submission(assignment, student,
                                     with_answer(solution, mistake.grade_id, mistake.code)), mistake))
    return pairs


def assignment_for(number, course=COURSE):
    """The assignment whose name starts with ``<number>_`` (m02.py -> 02_graph)."""
    found = [a for a in assignments(course) if a.split("_", 1)[0] == number]
    return found[0] if found else None


# ------------------------------------------------------------------- demo

def cmd_demo(keep=None):
    """Generate, autograde example submissions, print the grade table."""
    sys.path.insert(0, str(REPO))
    from tests.course.mistakes import catalogs
    names = assignments()
    if not names:
        print("course/source/ has no assignments yet")
        return 1
    tmp = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="course-demo-"))
    course = tmp / "course"
    if course.exists():
        shutil.rmtree(course)
    try:
        start = time.perf_counter()
        make_course(course)
        generate(course)
        print(f"generated {len(names)} assignment(s) in {course}")
        catalog = catalogs()
        submissions = []
        for name in names:
            solution = solution_notebook(read_notebook(source_notebook_path(name)))
            submissions.append(Submission(name, "perfect", solution))
            careless = solution
            number = name.split("_", 1)[0]
            seen = set()
            for mistake in catalog.get(number, []):
                exercise = exercise_of(mistake.grade_id)
                if exercise not in seen:                 # the first catalogued mistake ...
                    seen.add(exercise)
                    if len(seen) % 2:                    # ... of every second exercise
                        careless = with_answer(careless, mistake.grade_id, mistake.code)
            submissions.append(Submission(name, "careless", careless))
            release = read_notebook(course / "release" / name / f"{name}.ipynb")
            submissions.append(Submission(name, "blank", release))
        print(f"autograding {len(submissions)} submissions (one kernel each) ...", flush=True)
        results = grade_here(course, submissions, feedback=True)
        csv = export_csv(course)
        print(f"autograded {len(results)} submissions in {time.perf_counter() - start:.0f} s "
              f"(perfect: the solutions; careless: catalogued mistakes; blank: the release)\n")
        table = {(r.student, r.assignment): r for r in results}
        students = ["perfect", "careless", "blank"]
        width = max(12, *(len(n) for n in names))
        print("student".ljust(10) + "".join(n.rjust(width + 2) for n in names) + "total".rjust(12))
        for student in students:
            row, total, total_max = student.ljust(10), 0.0, 0.0
            for name in names:
                r = table[(student, name)]
                row += f"{r.score:g}/{r.max_score:g}".rjust(width + 2)
                total, total_max = total + r.score, total_max + r.max_score
            print(row + f"{total:g}/{total_max:g}".rjust(12))
        careless_failures = [(r.assignment, g) for r in results if r.student == "careless"
                             for g, c in sorted(r.cells.items()) if not c.full]
        if careless_failures:
            print("\ncareless lost points in: " + ", ".join(g for _, g in careless_failures))
        if keep:
            print(f"\ngrades.csv: {csv}\nfeedback:   {course / 'feedback'}\n"
                  f"gradebook:  {course / 'gradebook.db'}")
        else:
            print("\n(the demo course was temporary: --keep DIR keeps it, with its "
                  "grades.csv, feedback/ and gradebook.db)")
        return 0
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


# -------------------------------------------------------------------- lab

def cmd_lab(notebook=None, dry_run=False):
    """JupyterLab on the first release notebook, rooted at the repository."""
    names = assignments()
    target = Path(notebook) if notebook else COURSE / "release" / "01_tensors" / "01_tensors.ipynb"
    if not target.is_file():
        released = sorted((COURSE / "release").glob("*/*.ipynb"))
        if not released:
            print(f"{target.relative_to(REPO)} does not exist: run make release "
                  f"(assignments with a source: {', '.join(names) or 'none'})")
            return 1
        target = released[0]
    rel = target.resolve().relative_to(REPO)
    command = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={REPO}", str(rel)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.insert(-1, "--allow-root")                   # containers often run as root
    print("$ " + " ".join(command))
    if dry_run:
        return 0
    return subprocess.call(command, cwd=REPO, env=_env_with_kernel_paths(os.environ))


# --------------------------------------------------------------- register

def cmd_register(course=COURSE):
    """Register every assignment of course/source/ in the course's own gradebook
    (nbgrader >= 0.6 has no NbGrader.db_assignments: this replaces it)."""
    names = load_config(course).AutogradCourse.get("assignments", [])
    if not names:
        print("course/source/ has no assignments")
        return 1
    with kernel_environment():
        register(nbgrader_api(course), names)
    print(f"registered in {Path(course) / 'gradebook.db'}: {', '.join(names)}")
    return 0


# ------------------------------------------------------------------- main

def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.course", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("release", help="regenerate course/release/ from course/source/")
    solutions = sub.add_parser("solutions", help="regenerate and execute solutions/")
    solutions.add_argument("assignments", nargs="*", help="only these (default: all)")
    sub.add_parser("check", help="fail when release/ or solutions/ drift from course/source/")
    demo = sub.add_parser("demo", help="grade example submissions in a temporary course")
    demo.add_argument("--keep", metavar="DIR", help="build the demo course in DIR and keep it")
    lab = sub.add_parser("lab", help="open JupyterLab on the first release notebook")
    lab.add_argument("notebook", nargs="?")
    lab.add_argument("--dry-run", action="store_true", help="print the command only")
    sub.add_parser("register", help="register every assignment in course/gradebook.db")
    klass = sub.add_parser("grade-class", help="autograde every submission in course/submitted/ "
                                               "(parallel, sandboxed, incremental), feedback, grades.csv")
    klass.add_argument("--course", default=str(COURSE), help="the course directory (default: course/)")
    klass.add_argument("--workers", type=int, help="grading processes (default: one per CPU, plus one)")
    klass.add_argument("--assignment", action="append", dest="assignments", metavar="A",
                       help="only this assignment (repeatable; default: all)")
    klass.add_argument("--force", action="store_true", help="regrade submissions already graded")
    klass.add_argument("--no-sandbox", action="store_true",
                       help="run students' code as yourself, without bubblewrap (unsafe)")
    klass.add_argument("--csv", help="where to write the grades (default: <course>/grades.csv)")
    args = parser.parse_args(argv)
    try:
        if args.command == "release":
            return cmd_release()
        if args.command == "solutions":
            return cmd_solutions(names=args.assignments or None)
        if args.command == "check":
            return cmd_check()
        if args.command == "demo":
            return cmd_demo(args.keep)
        if args.command == "register":
            return cmd_register()
        if args.command == "grade-class":
            from tools.classgrade import grade_class
            report = grade_class(args.course, args.workers, args.assignments, args.force,
                                 sandbox=not args.no_sandbox, csv=args.csv)
            print(report.summary())
            return 1 if report.of("failed") else 0
        return cmd_lab(args.notebook, args.dry_run)
    except PipelineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    # Re-import as tools.course, so that worker processes can unpickle its classes.
    from tools import course as _course
    sys.exit(_course.main())
