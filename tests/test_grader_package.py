"""The grader as an installable package, without running nbgrader (fast).

The ``autograd-course`` command keeps every subcommand and option, finds the
course it is given or refuses with a clear error; the cell predicates are one
set for everything; the sandbox binds the installed packages read-only and
nothing else of the repository.  ``tests/course/test_portable.py`` grades a
copied course with a built wheel (slow, marker ``course``).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

import autograd_course
import autograd_lib
from autograd_course import cli, demo, lab, sandbox
from autograd_course.layout import PipelineError, assignment_for, course_dir, solutions_dir, source_notebook_path
from autograd_course.notebooks import grade_id, is_answer_cell, is_test_cell, read_notebook, solution_notebook

from tests.course import COURSE, REPO

COMMANDS = {"release", "solutions", "check", "grade-class", "demo", "lab", "register", "edition", "syllabus", "report", "text"}


def _subcommands():
    actions = [a for a in cli.parser()._actions if a.dest == "command"]
    return actions[0].choices


def test_the_console_script_is_the_cli():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"].get("scripts", {})
    assert scripts.get("autograd-course") == "autograd_course.cli:main", \
        f"expected pyproject.toml to declare autograd-course = autograd_course.cli:main, saw {scripts}"


def test_every_subcommand_is_there():
    assert set(_subcommands()) == COMMANDS, f"expected the subcommands {sorted(COMMANDS)}, saw {sorted(_subcommands())}"


def test_the_command_line_starts_without_nbgrader():
    heavy = ("nbgrader", "nbformat", "nbclient", "traitlets", "jupyter_client")
    done = subprocess.run([sys.executable, "-c", "import sys, autograd_course.cli; "
                           f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", \
        f"expected importing autograd_course.cli to import none of {heavy} (2 s of start-up); saw {done.stdout}{done.stderr}"


def test_grade_class_keeps_every_option():
    args = cli.parser().parse_args(["grade-class", "--course", "c", "--workers", "3", "--assignment", "01_tensors",
                                    "--assignment", "02_graph", "--force", "--no-sandbox", "--csv", "g.csv"])
    seen = (args.course, args.workers, args.assignments, args.force, args.no_sandbox, args.csv)
    assert seen == ("c", 3, ["01_tensors", "02_graph"], True, True, "g.csv"), f"saw {seen}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommand_takes_the_course(command):
    assert "--course" in _subcommands()[command].format_usage(), \
        f"expected autograd-course {command} to take --course DIR; usage: {_subcommands()[command].format_usage()}"


def test_a_directory_that_is_no_course_is_refused(tmp_path, capsys):
    status = cli.main(["check", "--course", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 1 and "is not a course directory" in err and "nbgrader_config.py" in err, \
        f"expected exit 1 and 'not a course directory' naming nbgrader_config.py; saw {status}: {err!r}"
    assert cli.main(["check", "--course", str(tmp_path / "missing")]) == 1
    assert "no such directory" in capsys.readouterr().err


def test_the_course_is_found_in_course_or_here(tmp_path):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    assert course_dir(cwd=tmp_path) == (tmp_path / "course").resolve()
    assert course_dir(cwd=tmp_path / "course") == (tmp_path / "course").resolve()
    assert course_dir("course", cwd=tmp_path) == (tmp_path / "course").resolve()
    assert solutions_dir(tmp_path / "course") == (tmp_path / "solutions").resolve()


def test_no_course_here_says_how_to_name_one(tmp_path):
    with pytest.raises(PipelineError, match="name one with --course DIR"):
        course_dir(cwd=tmp_path)


def test_lab_serves_the_directory_above_the_course():
    line, root = lab.command(COURSE)
    assert root == REPO and f"--ServerApp.root_dir={REPO}" in line, f"expected the root {REPO}; saw {line}"
    assert line[-1] == "course/release/01_tensors/01_tensors.ipynb", f"expected the first release notebook, saw {line}"
    with pytest.raises(PipelineError, match="no such notebook"):
        lab.command(COURSE, "no/such.ipynb")


@pytest.mark.parametrize("cell, test, answer", [
    ({"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "solution": False}}}, True, False),
    ({"cell_type": "code", "metadata": {"nbgrader": {"grade": False, "solution": True}}}, False, True),
    ({"cell_type": "markdown", "metadata": {"nbgrader": {"grade": True, "solution": True}}}, False, True),
    ({"cell_type": "markdown", "metadata": {"nbgrader": {"grade": True, "solution": False}}}, False, False),
    ({"cell_type": "code", "metadata": {}}, False, False),
    ({"cell_type": "code", "metadata": {"nbgrader": "not a dict"}}, False, False),
])
def test_one_definition_of_test_and_answer_cells(cell, test, answer):
    assert (is_test_cell(cell), is_answer_cell(cell)) == (test, answer), \
        f"expected (test, answer) = {(test, answer)} for {cell}, saw {(is_test_cell(cell), is_answer_cell(cell))}"


def test_autograde_uses_the_one_definition():
    source = (REPO / "autograd_course" / "autograde.py").read_text()
    assert "def is_test_cell" not in source and "from .notebooks import" in source, \
        "expected autograde.py to take is_test_cell from autograd_course.notebooks, not define its own"


# ------------------------------------------------------------------ sandbox

def test_the_kernelspec_runs_the_launcher_off_the_student_directory():
    argv = sandbox.kernelspec("/some/python")["argv"]
    assert argv[:4] == ["/some/python", "-P", "-m", "autograd_course.sandbox"], \
        f"expected python -P -m autograd_course.sandbox (no script directory, no cwd on sys.path), saw {argv}"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
def test_the_sandbox_binds_the_packages_and_nothing_else_of_the_repository(tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    connection = runtime / "kernel.json"
    connection.write_text(json.dumps({"transport": "ipc", "ip": str(runtime / "kernel-ipc")}))
    workdir = tmp_path / "autograded" / "ada" / "01_tensors"
    workdir.mkdir(parents=True)
    (workdir / "01_tensors.ipynb").write_text("{}")
    (workdir / "data.txt").write_text("x")
    args, env = sandbox.command(str(connection), [], str(workdir), sandbox.LIMITS)
    bound = {args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind", "--ro-bind-try")}
    packages = {str((REPO / name).resolve()) for name in ("autograd_lib", "autograd_course")}
    installed = {str(Path(m.__file__).resolve().parent) for m in (autograd_lib, autograd_course)}
    assert installed <= bound, f"expected the imported packages {sorted(installed)} bound read-only; bound: {sorted(bound)}"
    repo = str(REPO.resolve())
    inside = sorted(p for p in bound if p == repo or p.startswith(repo + "/"))
    allowed = packages | {p for p in inside if "/.venv/" in p + "/"}
    assert set(inside) <= allowed, (f"expected nothing of the repository bound but the packages "
                                    f"{sorted(packages)} (and its .venv); saw {inside}")
    for secret in (COURSE, COURSE / "source", REPO / "tests", REPO):
        assert str(secret.resolve()) not in bound, f"expected {secret} not bound into the sandbox"
    assert str(workdir / "01_tensors.ipynb") not in bound and str(workdir / "data.txt") in bound, \
        "expected the assignment's files but not its notebook (the hidden tests) in the sandbox"
    assert args[args.index("--") + 1:][:3] == [sys.executable, "-m", "ipykernel_launcher"]
    assert set(env) >= {"HOME", "PATH"} and "AUTOGRAD_COURSE_DB_URL" not in env


# --------------------------------------------------------------------- demo

class _Node(dict):
    """A notebook node as nbformat makes one (keys as attributes), without importing
    nbformat, which costs seconds under pytest."""
    __setattr__ = dict.__setitem__

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


def _notebook(*answers):
    cells = [_Node(cell_type="code", source=f"def {a}(): return 'right'", metadata={"nbgrader": {
        "grade_id": f"01_{a}_answer", "solution": True, "grade": False}}) for a in answers]
    return _Node(cells=cells, metadata={})


def test_the_careless_student_errs_in_every_second_exercise():
    nb = _notebook("one", "two", "three")
    mistakes = [(f"01_{a}_answer", lambda source, a=a, n=n: source.replace("right", f"wrong {n}"))
                for a in ("one", "two", "three") for n in (1, 2)]
    sources = [c.source for c in demo.careless(nb, mistakes).cells]
    assert sources == ["def one(): return 'wrong 1'", "def two(): return 'right'", "def three(): return 'wrong 1'"], \
        f"expected the first mistake of exercises one and three only, saw {sources}"
    assert [c.source for c in nb.cells] == ["def one(): return 'right'", "def two(): return 'right'",
                                            "def three(): return 'right'"], "the solution notebook itself changed"


def test_a_mistake_for_a_missing_answer_cell_is_an_error():
    with pytest.raises(PipelineError, match="01_four_answer"):
        demo.careless(_notebook("one"), [("01_four_answer", lambda source: source)])


def test_the_demo_reads_the_catalog_beside_the_course():
    catalog = demo.mistake_catalog(COURSE)
    assert catalog is not None and "01" in catalog, f"expected the mistake catalogs by assignment number, saw {catalog}"
    answer, wrong = catalog["01"][0]
    nb = solution_notebook(read_notebook(source_notebook_path(assignment_for("01", COURSE), COURSE)))
    solution = next(c.source for c in nb.cells if grade_id(c) == answer and is_answer_cell(c))
    made = wrong(solution)
    assert answer.startswith("01_") and answer.endswith("_answer") and made != solution and "def " in made, \
        f"expected the first mistake of 01 to edit the solution of {answer}, saw:\n{made}"


def test_a_course_without_a_catalog_has_no_careless_student(tmp_path):
    assert demo.mistake_catalog(tmp_path) is None, "expected None for a course without mistakes/"


def test_overlapping_kernel_environments_restore_the_process_environment(monkeypatch):
    """Two graders in threads: A enters, B enters, A leaves, B leaves.  Each
    saving its own copy let B restore the kernels' PYTHONPATH as the process's
    own (seen in the full run: a later test's fresh venv imported the checkout)."""
    import threading

    from autograd_course.nbgrader_setup import kernel_environment
    monkeypatch.setenv("PYTHONPATH", "/only/this")
    before = dict(os.environ)
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def grader_a():
        with kernel_environment():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def grader_b():
        a_in.wait(10)
        with kernel_environment():
            b_in.set()
            a_out.wait(10)
            seen["inside"] = os.environ.get("PYTHONPATH")

    threads = [threading.Thread(target=grader_a), threading.Thread(target=grader_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen.get("inside", "").endswith("/only/this") and seen["inside"] != "/only/this", (
        f"inside the block the kernels' paths should come first on PYTHONPATH; saw {seen.get('inside')!r}")
    changed = {k: (before.get(k), os.environ.get(k)) for k in set(before) | set(os.environ)
               if before.get(k) != os.environ.get(k)}
    assert not changed, f"after both blocks the environment should be as before; changed (before, after): {changed}"


def test_the_notebooks_digits_are_scikit_learns():
    """09's capstone reads the digits without importing scikit-learn; they must be its own."""
    from sklearn.datasets import load_digits as sklearn_digits

    from autograd_course.notebook import load_digits
    images, labels = load_digits()
    expected = sklearn_digits()
    assert images.shape == (1797, 8, 8) and images.dtype == expected.images.dtype, (
        f"expected images of shape (1797, 8, 8) and dtype {expected.images.dtype}, saw {images.shape} {images.dtype}")
    assert (images == expected.images).all() and (labels == expected.target).all() and labels.dtype == expected.target.dtype, \
        "expected the same pixels and labels as sklearn.datasets.load_digits()"


def test_reading_the_digits_does_not_import_scikit_learn():
    code = ("import sys; from autograd_course.notebook import load_digits; load_digits(); "
            "print('sklearn' in sys.modules)")
    seen = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert seen.returncode == 0 and seen.stdout.strip() == "False", (
        f"expected load_digits() to leave scikit-learn unimported; saw {seen.stdout.strip()!r} {seen.stderr[-500:]}")


def test_kernel_sockets_leave_a_runtime_directory_too_deep_for_a_unix_socket(tmp_path, monkeypatch):
    from autograd_course.autograde import SOCKET_PATH_MAX, socket_parent
    deep = tmp_path / ("d" * 120) / "runtime"
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(deep))
    parent = socket_parent()
    socket = os.path.join(parent, "autograde-12345678", "kernel-ipc-99")
    assert parent != str(deep) and len(os.fsencode(socket)) <= SOCKET_PATH_MAX, \
        f"expected a parent shorter than {deep} (its sockets would pass {SOCKET_PATH_MAX} bytes), got {parent}"
    # pytest's tmp_path may itself be deep (in an xdist worker): a short directory of our own.
    short = tempfile.mkdtemp(prefix="rt-", dir="/tmp")
    try:
        monkeypatch.setenv("JUPYTER_RUNTIME_DIR", short)
        assert socket_parent() == short, f"expected Jupyter's runtime directory {short}, got {socket_parent()}"
    finally:
        shutil.rmtree(short, ignore_errors=True)
