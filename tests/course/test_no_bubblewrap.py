"""Grading on a machine without bubblewrap (autograd_course/sandbox.py, autograde.py).

bubblewrap stays installed here: each test hides it with a PATH whose directories
hold every program of the real PATH but ``bwrap`` (links to them), so nothing else
about the machine changes.

* ``nbgrader autograde`` in the course directory stops before it touches a
  submission or starts a kernel, with one line that says how to install bubblewrap
  or how to grade without the sandbox (before, it printed a hint, then a "Kernel died
  before replying to kernel_info" traceback for every submission);
* the setup that ``make test`` and ``make grade-class`` run
  (``python -m autograd_course.sandbox setup``), for a user who cannot install
  packages (not root, no sudo), names the command that installs it; and the two make
  targets run it before anything grades.
"""

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from autograd_course.nbgrader_setup import env_with_kernel_paths
from autograd_course.notebooks import read_notebook, solution_notebook
from autograd_course.layout import source_notebook_path
from autograd_course.pipeline import generate, make_course
from autograd_course.pool import Submission, hand_in
from tests.course import COURSE, FIXTURES, REPO

from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS

FIXTURE = "00_fixture"


@pytest.fixture(scope="module")
def path_without_bwrap(tmp_path_factory):
    """A PATH like this one, but on which bubblewrap cannot be found."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here: nothing to hide")
    farm = tmp_path_factory.mktemp("path-without-bwrap")
    directories = []
    for number, directory in enumerate(p for p in os.environ.get("PATH", "").split(os.pathsep) if p):
        if not os.path.isdir(directory):
            continue
        copy = farm / str(number)
        copy.mkdir()
        for name in os.listdir(directory):
            target = os.path.join(directory, name)
            if name != "bwrap" and os.path.isfile(target) and os.access(target, os.X_OK):
                (copy / name).symlink_to(target)
        directories.append(str(copy))
    path = os.pathsep.join(directories)
    assert shutil.which("bwrap", path=path) is None and shutil.which("nbgrader", path=path) is None
    return path


def test_autograde_stops_before_any_kernel_with_one_line(path_without_bwrap, tmp_path):
    work = make_course(tmp_path / "course", COURSE, FIXTURES)
    generate(work)
    solution = solution_notebook(read_notebook(source_notebook_path(FIXTURE, work)))
    for student in ("alice", "bob"):
        hand_in(work, Submission(FIXTURE, student, solution))
    env = env_with_kernel_paths(os.environ)          # the venv's bin first (nbgrader), then the PATH above
    env["PATH"] = os.pathsep.join([str(os.path.dirname(sys.executable)), path_without_bwrap])
    done = subprocess.run(["nbgrader", "autograde", FIXTURE], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600)
    output = done.stdout + done.stderr
    lines = [line for line in output.splitlines() if line.strip()]
    assert done.returncode != 0, f"nbgrader autograde succeeded without bubblewrap:\n{output}"
    assert "Kernel died" not in output and "Traceback" not in output, output
    assert len(lines) == 1, f"expected one line, saw {len(lines)}:\n{output}"
    line = lines[0]
    assert "bubblewrap" in line and "apt-get install -y bubblewrap" in line \
        and "--GuardedExecute.sandbox=False" in line, line
    assert not (work / "autograded").exists(), "autograde started on a submission"
    db = sqlite3.connect(work / "gradebook.db")
    try:
        submissions = db.execute("SELECT COUNT(*) FROM submitted_assignment").fetchone()[0]
    finally:
        db.close()
    assert submissions == 0, f"the gradebook has {submissions} submissions: a rerun would skip them"


def test_the_setup_names_the_install_command_for_a_user_who_cannot_install(path_without_bwrap):
    """``python -m autograd_course.sandbox setup`` as nobody (not root, no sudo rights):
    the message names the command to run.  The module runs on the standard library alone,
    so the system's Python runs it (the virtual environment may live where nobody cannot read)."""
    setpriv, python = shutil.which("setpriv"), shutil.which("python3", path="/usr/bin:/bin")
    if os.geteuid() != 0 or setpriv is None or python is None:
        pytest.skip("needs root, setpriv and /usr/bin/python3 to run the setup as the user nobody")
    env = {"PATH": path_without_bwrap, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1",
           "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    results = {}
    for flags in ([], ["--required"]):
        results[bool(flags)] = subprocess.run(
            [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-m",
             "autograd_course.sandbox", "setup", *flags],
            cwd="/", env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    for required, done in results.items():
        output = done.stdout + done.stderr
        assert "cannot install it: run `sudo apt-get install -y bubblewrap`, then this command again" in output, output
        assert "make grade-class NO_SANDBOX=1" in output, output
        assert done.returncode == (1 if required else 0), \
            f"setup{' --required' if required else ''} exited {done.returncode}:\n{output}"


@pytest.mark.parametrize("target", ["test", "grade-class"])
def test_make_sets_the_sandbox_up_before_it_grades(target):
    """The README's commands: ``make test`` and ``make grade-class`` run the setup first."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    done = subprocess.run([make, "-n", target], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    commands = done.stdout.splitlines()
    setup = [i for i, c in enumerate(commands) if "autograd_course.sandbox setup" in c]
    work = [i for i, c in enumerate(commands) if ("pytest" in c if target == "test" else "grade-class" in c)
            and "sandbox setup" not in c]
    assert setup and work and setup[0] < work[0], f"make -n {target}:\n{done.stdout}"
    if target == "grade-class":
        assert "--required" in commands[setup[0]], commands[setup[0]]
