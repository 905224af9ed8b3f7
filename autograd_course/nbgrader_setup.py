"""nbgrader as the course runs it: its configuration, its API, the kernels' environment.

``nbgrader_config.py`` is loaded explicitly with traitlets'
``PyFileConfigLoader`` (:func:`load_config`): ``NbGraderAPI`` does not read it
by itself.  :func:`nbgrader_api` gives an API on a course directory with that
configuration, a private exchange unless the course has one, and the sandbox
switched off when it cannot run (:func:`sandbox_enabled`).  Everything that
starts kernels runs inside :func:`kernel_environment`.

nbgrader, traitlets and nbformat are imported by the functions that use them:
``autograd-course --help`` does not pay for them (nbgrader takes 2 s to import).
"""

import contextlib
import os
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from . import sandbox as bwrap
from .layout import CONFIG_FILE, PipelineError, source_checkout

KERNEL = "python3"
CELL_TIMEOUT = 60                     # seconds per cell, as in nbgrader_config.py
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
SANDBOX_ENV = "COURSE_SANDBOX"        # auto (default): when bubblewrap works; 1: required; 0: off
_SANDBOX = {}
_EXCHANGE = {}                        # an empty exchange for courses without .exchange/


def env_with_kernel_paths(env):
    """``env`` plus: this interpreter's bin directory first on PATH (nbgrader runs
    ``alembic`` from PATH when it creates a gradebook; kernels and jupyter come
    from the same environment), the source checkout on PYTHONPATH when the
    package runs from one (kernels then import its ``autograd_lib`` even without
    an installed package), a fixed hash seed, and one BLAS thread per kernel, as
    in the sandbox: the grader and the tests run a kernel per core, and
    OpenBLAS's threads in each of them fight over the cores and spin (07's
    matmul-heavy timing cell took 4x the CPU with the default threads while
    other kernels ran)."""
    env = dict(env)
    bin_dir = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir]
    env["PATH"] = os.pathsep.join([bin_dir] + path)
    checkout = source_checkout()
    if checkout is not None:
        pythonpath = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(checkout)]
        env["PYTHONPATH"] = os.pathsep.join([str(checkout)] + pythonpath)
    env["PYTHONHASHSEED"] = "0"
    for threads in BLAS_THREADS:
        env[threads] = "1"
    env.pop("JPY_PARENT_PID", None)
    return env


_ENVIRON = {"lock": threading.Lock(), "depth": 0, "saved": None}


@contextlib.contextmanager
def kernel_environment():
    """Run a block with :func:`env_with_kernel_paths` applied to ``os.environ``,
    and without nbgrader's SQLAlchemy noise: its "Object of type <...> not in
    session" SAWarning is a RuntimeWarning, which the test suite turns into errors.

    Blocks may overlap (threads grading side by side): the first to enter saves
    ``os.environ`` and the last to leave restores it.  Each saving and restoring
    its own copy would let a block that entered second restore, after the first
    has left, the kernels' PYTHONPATH as if it were the process's own."""
    with _ENVIRON["lock"]:
        if _ENVIRON["depth"] == 0:
            _ENVIRON["saved"] = dict(os.environ)
            os.environ.update(env_with_kernel_paths(os.environ))
        _ENVIRON["depth"] += 1
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"Object of type <\w+> not in session")
            yield
    finally:
        with _ENVIRON["lock"]:
            _ENVIRON["depth"] -= 1
            if _ENVIRON["depth"] == 0:
                os.environ.clear()
                os.environ.update(_ENVIRON["saved"])
                _ENVIRON["saved"] = None


def load_config(course):
    """``<course>/nbgrader_config.py`` as a traitlets Config (its root is ``course``)."""
    from traitlets.config.loader import PyFileConfigLoader
    if not (Path(course) / CONFIG_FILE).is_file():
        raise PipelineError(f"{course} is not a course directory: it has no {CONFIG_FILE}")
    config = PyFileConfigLoader(CONFIG_FILE, path=str(course)).load_config()
    if Path(config.CourseDirectory.root).resolve() != Path(course).resolve():
        raise PipelineError(f"{course}/{CONFIG_FILE}: CourseDirectory.root is "
                            f"{config.CourseDirectory.root}, expected the directory of the file")
    return config


def sandbox_enabled(setting=None):
    """Whether students' kernels run in the sandbox (autograd_course/sandbox.py).
    ``setting``: True (required: PipelineError when it cannot run), False, or None
    for the ``COURSE_SANDBOX`` environment variable (``auto`` when unset: the
    sandbox when bubblewrap works here, otherwise a warning and no sandbox)."""
    if setting is None:
        value = os.environ.get(SANDBOX_ENV, "auto").strip().lower()
        setting = {"1": True, "yes": True, "true": True, "0": False, "no": False,
                   "false": False}.get(value, "auto")
    if setting is False:
        return False
    if "status" not in _SANDBOX:
        _SANDBOX["status"] = bwrap.ensure()
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


def check_result(result, what):
    """An NbGraderAPI result, or PipelineError with nbgrader's error and log."""
    if not result.get("success"):
        raise PipelineError(f"{what} failed:\n{result.get('error', '')}\n{result.get('log', '')}")
    return result


def register(api, names):
    """Register assignments in the gradebook (nbgrader >= 0.6 has no db_assignments)."""
    with api.gradebook as gb:
        for name in names:
            gb.update_or_create_assignment(name)


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
