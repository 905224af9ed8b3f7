"""JupyterLab on the course, as a student opens it: ``autograd-course lab`` (``make lab``).

The server's root is the directory that holds the course (the repository, as
on Binder), and it opens the first release notebook, or the one named.  Its
kernels get the environment the grader's kernels get (``nbgrader_setup``).
"""

import os
import subprocess
import sys
from pathlib import Path

from .layout import PipelineError, assignments
from .nbgrader_setup import env_with_kernel_paths

FIRST = Path("release") / "01_tensors" / "01_tensors.ipynb"


def command(course, notebook=None):
    """(the command line, the server's root); PipelineError when there is no notebook to open."""
    course = Path(course).resolve()
    root = course.parent
    target = Path(notebook).resolve() if notebook else course / FIRST
    if notebook and not target.is_file():
        raise PipelineError(f"{notebook}: no such notebook")
    if not target.is_file():
        released = sorted((course / "release").glob("*/*.ipynb"))
        if not released:
            raise PipelineError(f"{target.relative_to(root)} does not exist: run make release (assignments "
                                f"with a source: {', '.join(assignments(course)) or 'none'})")
        target = released[0]
    if not target.is_relative_to(root):
        raise PipelineError(f"{target} is outside {root}, the directory JupyterLab serves")
    line = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={root}",
            str(target.relative_to(root))]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        line.insert(-1, "--allow-root")                   # containers often run as root
    return line, root


def run(course, notebook=None, dry_run=False):
    """Print the command, then run it (not with ``dry_run``); its exit status."""
    line, root = command(course, notebook)
    print("$ " + " ".join(line))
    if dry_run:
        return 0
    return subprocess.call(line, cwd=root, env=env_with_kernel_paths(os.environ))
