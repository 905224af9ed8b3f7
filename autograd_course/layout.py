"""Where a course directory is, and what is in it.

A course directory is nbgrader's: ``nbgrader_config.py`` at its root, one
``source/<a>/<a>.ipynb`` per assignment, the generated ``release/``, and the
per-term data of a class (the gradebook, ``submitted/``, ``autograded/``,
``feedback/``, ...).  In this repository it is ``course/``, with the executed
solution notebooks beside it in ``solutions/``; a copy of ``course/`` anywhere
else (a JupyterHub instructor's home, a temporary directory) is a course too.

The ``autograd-course`` commands find the course of :func:`course_dir`: the
directory given (``--course DIR``), else ``./course`` or ``.`` when it holds a
``nbgrader_config.py``.  Nothing here imports nbgrader.
"""

from pathlib import Path

CONFIG_FILE = "nbgrader_config.py"

# Per-term data of a course directory: never copied, never committed.
PER_TERM = ["gradebook.db", "gradebook.db.lock", "submitted", "autograded", "feedback", "grades.csv",
            ".nbgrader.log", "source_with_tests", ".exchange", ".grade-class.json", "findings.db", "reports"]
JUNK = [".ipynb_checkpoints", "__pycache__", "*.pyc", ".DS_Store"]


class PipelineError(RuntimeError):
    """A step of the course pipeline failed (the message says which and why)."""


def is_course(directory):
    """Whether ``directory`` is a course directory (it holds ``nbgrader_config.py``)."""
    return (Path(directory) / CONFIG_FILE).is_file()


def course_dir(directory=None, cwd=None):
    """The course directory, resolved: ``directory`` when given (it must be a course),
    else ``<cwd>/course`` or ``<cwd>`` itself, whichever is a course first."""
    cwd = Path(cwd or Path.cwd())
    if directory is not None:
        path = (cwd / directory).resolve()
        if not path.is_dir():
            raise PipelineError(f"{directory}: no such directory (expected a course directory "
                                f"with {CONFIG_FILE} and source/)")
        if not is_course(path):
            raise PipelineError(f"{path} is not a course directory: it has no {CONFIG_FILE}")
        return path
    for candidate in (cwd / "course", cwd):
        if is_course(candidate):
            return candidate.resolve()
    raise PipelineError(f"no course directory here ({cwd}): expected {CONFIG_FILE} in ./course or in "
                        f"the current directory; name one with --course DIR")


def solutions_dir(course):
    """Where the executed solution notebooks of ``course`` go: ``solutions/`` beside it."""
    return Path(course).resolve().parent / "solutions"


def assignments(course):
    """The assignments of a course directory: ``source/<a>/<a>.ipynb`` exists."""
    return assignments_in(Path(course) / "source")


def assignments_in(source):
    """The assignment directories ``<a>/<a>.ipynb`` under ``source``."""
    source = Path(source)
    if not source.is_dir():
        return []
    return sorted(d.name for d in source.iterdir()
                  if d.is_dir() and not d.name.startswith(".") and (d / f"{d.name}.ipynb").is_file())


def source_notebook_path(name, course):
    """``<course>/source/<name>/<name>.ipynb``."""
    return Path(course) / "source" / name / f"{name}.ipynb"


def assignment_for(number, course):
    """The assignment whose name starts with ``<number>_`` ("02" -> "02_graph"), or None."""
    found = [a for a in assignments(course) if a.split("_", 1)[0] == number]
    return found[0] if found else None


def source_checkout():
    """The repository this package is imported from, when it is a source checkout
    (``pyproject.toml`` beside the package: an editable install, or ``python -m``
    from the repository); None for an installed package (a wheel in site-packages)."""
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "autograd_lib").is_dir():
        return root
    return None
