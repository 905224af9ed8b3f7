"""The students' environment, built from ``binder/`` alone, as Binder builds it.

What Binder runs is repo2docker.  For a repository with ``binder/runtime.txt``,
``binder/requirements.txt`` and ``binder/postBuild`` it builds an image in the
steps that matter here (``test_environment.py`` checks them in the Dockerfile
repo2docker prints): a Python of the version runtime.txt names, ``pip install
-r binder/requirements.txt`` into it, a copy of the repository, then
``binder/postBuild`` run from the repository's root with that Python's
``bin/`` first on PATH.  Docker is not available here, so :func:`binder_env`
repeats those steps in a fresh virtual environment (the ``binder_env`` fixture
builds one per session), and the notebook and browser tests run in it.  Nothing of the test runner's own
environment leaks in: no PYTHONPATH, a home directory of its own (so no user
Jupyter config, kernels or settings).
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"
# What a Binder launch opens (the README badge's urlpath) and what `make lab` opens.
FIRST_ASSIGNMENT = "01_tensors"
FIRST_NOTEBOOK = f"course/release/{FIRST_ASSIGNMENT}/{FIRST_ASSIGNMENT}.ipynb"

# Variables of the caller's environment that would change what the Binder
# environment imports or which Jupyter configuration it reads.
FOREIGN = re.compile(r"^(PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|VIRTUAL_ENV|JUPYTER.*|JPY_.*|IPYTHONDIR|MPL.*|XDG_.*)$")

# Outputs kept for the failure message of a command.
TAIL = 4000


def runtime_version():
    """The Python version ``binder/runtime.txt`` asks for, as "3.11"."""
    text = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", text)
    if not match:
        raise AssertionError(f"binder/runtime.txt: expected 'python-X.Y' (what repo2docker reads), "
                             f"seen {text!r}")
    return match.group(1)


def python_for(version):
    """An interpreter of that version: this one, or pythonX.Y on PATH; None when there is none."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    return shutil.which(f"python{version}")


def run(command, what, timeout=900, **kwargs):
    """Run a command; fail the test with the command and its output when it fails."""
    start = time.perf_counter()
    try:
        done = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                              timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{what}: no answer after {timeout} s\n$ {' '.join(map(str, command))}\n"
                    f"{(error.stdout or '')[-TAIL:]}")
    if done.returncode != 0:
        pytest.fail(f"{what} failed: expected exit status 0, seen {done.returncode}\n"
                    f"$ {' '.join(map(str, command))}\n{(done.stdout + done.stderr)[-TAIL:]}")
    done.seconds = time.perf_counter() - start
    return done


def repository_files():
    """The files Binder would get: git's tracked and untracked-but-not-ignored files
    (so uncommitted work is tested too); every file but the usual build and
    environment directories when this is not a git checkout."""
    if (REPO / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=REPO, capture_output=True, check=True).stdout.decode()
        return [REPO / name for name in listed.split("\0") if name and (REPO / name).is_file()]
    skip = {".git", ".venv", "artifacts", "__pycache__", ".hypothesis", "build", "dist"}
    return [p for p in REPO.rglob("*") if p.is_file() and not skip & set(p.relative_to(REPO).parts)]


def copy_repository(dest):
    for path in repository_files():
        target = dest / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return dest


class BinderEnv:
    """A virtual environment built from binder/ as repo2docker builds its image."""

    def __init__(self, root, python):
        self.root = root
        self.repo = root / "repo"          # the repository, as Binder checks it out
        self.venv = root / "venv"          # the notebook environment
        self.home = root / "home"          # the student's home directory
        self.python = python
        self.bin = self.venv / "bin"
        self.seconds = {}

    def environ(self, home=True):
        """The environment variables of a process in this environment.  ``home=False``
        keeps the caller's home directory (its pip cache: downloads only)."""
        env = {k: v for k, v in os.environ.items() if not FOREIGN.match(k)}
        env["PATH"] = os.pathsep.join([str(self.bin), env.get("PATH", "")])
        if home:
            env["HOME"] = str(self.home)
        return env

    def run(self, command, what, **kwargs):
        kwargs.setdefault("cwd", self.repo)
        kwargs.setdefault("env", self.environ())
        return run(command, what, **kwargs)

    def build(self):
        copy_repository(self.repo)
        self.home.mkdir()
        steps = [
            ("venv", [self.python, "-m", "venv", self.venv], {}),
            # --no-compile: byte-compiling ~100 packages costs 10 s of CPU and changes nothing
            ("requirements", [self.bin / "python", "-m", "pip", "install", "--quiet", "--no-compile",
                              "-r", "binder/requirements.txt"], {"env": self.environ(home=False)}),
            ("postBuild", ["bash", "binder/postBuild"], {}),
        ]
        for name, command, kwargs in steps:
            done = self.run(command, f"building the Binder environment ({name})", **kwargs)
            self.seconds[name] = done.seconds
        return self
