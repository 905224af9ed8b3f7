"""The students' environment on Binder, built from ``binder/`` alone.

* What repo2docker would build: the Dockerfile that ``repo2docker --no-build
  --debug`` prints must use Python 3.11 (what runtime.txt asks for; repo2docker's
  default is 3.10, where pip silently resolves nbgrader 0.9.5), install
  binder/requirements.txt, then copy the repository and run binder/postBuild
  as the student user.  No Docker needed.
* The pins: exact, inside pyproject.toml's ranges, no torch.
* The environment ``binder_env`` (conftest.py) builds the way repo2docker
  does: nbgrader 0.9.6, only the Validate extension of nbgrader switched on.
* Every release notebook's non-exercise cells and every solution notebook run
  in that environment, and no kernel's peak memory exceeds 1 GB (Binder gives
  a student 1-2 GB).  The measured peaks go to ``artifacts/binder/notebooks.md``.

The rule for a release notebook, as a student receives it.  Answer cells
(nbgrader ``solution`` cells) and graded test cells are not run: a blank answer
plugs a stub raising NotImplementedError into the library, and every test cell
grades an answer.  Every other code cell (prose demos, figures, demos of the
student's function inside the engine) runs, in order, in one kernel, and must
end without an error output.  With no answer plugged, the library runs its
reference implementations, as it does for a student who has not answered yet.
One error is expected: a NameError for a name that an answer cell defines, in
a demo that calls the student's function directly (``count_dependencies(...)``
in 03).  Solution notebooks run every cell and may raise only in cells tagged
``raises-exception`` (the convention of autograd_course/pipeline.py).
"""

import ast
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from .binder_env import BINDER, FIRST_NOTEBOOK, REPO, run, runtime_version
from autograd_course.notebooks import is_answer_cell, is_test_cell, read_notebook
from tests.course import COURSE, SOLUTIONS

pytestmark = [pytest.mark.binder]

REPO2DOCKER = "jupyter-repo2docker==2026.4.0"
MEMORY_LIMIT_MB = 1024
WORKERS = 2                  # notebooks run at once (the CI machine has 2 cores)
RUNNER = Path(__file__).with_name("run_notebook.py")
REPORT = REPO / "artifacts" / "binder" / "notebooks.md"

STUDENT_PLUGINS = {"@jupyter/nbgrader:validate-assignment"}
INSTRUCTOR_PLUGINS = {f"@jupyter/nbgrader:{name}" for name in
                      ("formgrader", "create-assignment", "course-list", "assignment-list", "menu")}
SERVER_EXTENSIONS = {"validate_assignment": "enabled", "formgrader": "disabled",
                     "course_list": "disabled", "assignment_list": "disabled"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def release_names():
    return sorted(p.parent.name for p in (COURSE / "release").glob("*/*.ipynb")
                  if p.stem == p.parent.name)


def solution_names():
    return sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))


# ------------------------------------------------------------- repo2docker

@pytest.fixture(scope="module")
def repo2docker(tmp_path_factory):
    """repo2docker (pinned) in a throwaway virtual environment."""
    venv = tmp_path_factory.mktemp("repo2docker") / "venv"
    run([sys.executable, "-m", "venv", venv], "creating a venv for repo2docker")
    run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", REPO2DOCKER], f"pip install {REPO2DOCKER}")
    return venv / "bin" / "repo2docker"


def test_repo2docker_builds_python_of_runtime_txt_then_requirements_then_postbuild(repo2docker, repo_copy):
    version = runtime_version()
    assert tuple(map(int, version.split("."))) >= (3, 11), \
        f"binder/runtime.txt: nbgrader 0.9.6 needs Python >= 3.11, runtime.txt asks for {version}"
    # Binder runs the image as uid 1000; the default would be this process's uid.
    done = run([repo2docker, "--no-build", "--debug", "--user-id", "1000", "--user-name", "jovyan",
                repo_copy], "repo2docker --no-build --debug")
    output = done.stdout + done.stderr
    assert "Python version unspecified" not in output, f"repo2docker ignored runtime.txt:\n{output[:2000]}"
    assert f"Building conda environment for python={version}" in output, \
        f"expected repo2docker to build Python {version} (binder/runtime.txt); it printed:\n{output[:2000]}"
    lock = "".join(c if c.isalnum() else f"-{ord(c):02x}" for c in f"environment.py-{version}-linux-64.lock")
    assert lock in output, (f"expected the Dockerfile to copy repo2docker's locked Python {version} "
                            f"environment (file name escaped as {lock})")
    assert "ENV PATH=${NB_PYTHON_PREFIX}/bin:" in output, \
        "expected the notebook environment's bin/ first on PATH (postBuild's python and jupyter)"

    lines = output.splitlines()
    steps = {
        "copy requirements.txt": r"COPY --chown=1000:1000 src/binder/requirements\.txt \$\{REPO_DIR\}/binder/requirements\.txt",
        "pip install requirements.txt": r'RUN \$\{KERNEL_PYTHON_PREFIX\}/bin/pip install --no-cache-dir -r "binder/requirements\.txt"',
        "copy the repository": r"COPY --chown=1000:1000 src/ \$\{REPO_DIR\}/",
        "run postBuild": r"RUN \./binder/postBuild",
    }
    found = {}
    for step, pattern in steps.items():
        where = [i for i, line in enumerate(lines) if re.fullmatch(pattern, line.strip())]
        assert len(where) == 1, f"expected the Dockerfile step {step!r} once ({pattern}), seen {len(where)} times"
        found[step] = where[0]
    order = sorted(found, key=found.get)
    assert order == list(steps), f"expected the steps in the order {list(steps)}, seen {order}"
    users = [line.strip() for line in lines[:found["run postBuild"]] if line.startswith("USER ")]
    assert users[-1] == "USER ${NB_USER}", f"expected postBuild to run as the student user, seen {users[-1]}"


# -------------------------------------------------------------------- pins

def test_requirements_are_pinned_inside_pyproject_ranges_without_torch():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    ranges = {}
    for text in pyproject["dependencies"] + pyproject["optional-dependencies"]["course"]:
        requirement = Requirement(text)
        ranges[requirement.name.lower()] = requirement.specifier
    pins = {}
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            specs = list(requirement.specifier)
            assert len(specs) == 1 and specs[0].operator == "==", \
                f"binder/requirements.txt: expected an exact pin (name==version), seen {line!r}"
            pins[requirement.name.lower()] = specs[0].version
    assert "torch" not in pins, "binder/requirements.txt installs torch: the course needs none (it is only quoted)"
    assert pins.get("nbgrader") == "0.9.6", f"expected nbgrader==0.9.6, seen {pins.get('nbgrader')}"
    for name in ("numpy", "matplotlib", "jupyterlab", "notebook", "ipykernel"):
        assert name in pins, f"binder/requirements.txt: {name} is not pinned"
    outside = {name: f"{version} not in {ranges[name]}" for name, version in pins.items()
               if name in ranges and not ranges[name].contains(version)}
    assert not outside, f"pins outside pyproject.toml's ranges: {outside}"


# ----------------------------------------------------------------- launch

def test_binder_badge_and_make_lab_open_the_first_release_notebook():
    readme = (REPO / "README.md").read_text()
    urls = re.findall(r"https://mybinder\.org/v2/gh/[^\s)\]]+", readme)
    assert len(urls) == 1, f"expected the README to define the Binder URL once, seen {urls}"
    match = re.fullmatch(r"https://mybinder\.org/v2/gh/[\w.-]+/[\w.-]+/HEAD\?urlpath=lab/tree/(\S+)", urls[0])
    assert match and match.group(1) == FIRST_NOTEBOOK, \
        f"expected the Binder URL to open JupyterLab on {FIRST_NOTEBOOK}, seen {urls[0]}"
    assert (REPO / FIRST_NOTEBOOK).is_file(), f"the Binder URL opens {FIRST_NOTEBOOK}, which does not exist"
    assert "](https://mybinder.org/badge_logo.svg)][binder]" in readme and f"[binder]: {urls[0]}" in readme, \
        "expected the README's Binder badge to link to [binder], defined as the Binder URL"

    lab = run([sys.executable, "-m", "autograd_course", "lab", "--dry-run"], "python -m autograd_course lab --dry-run",
              cwd=REPO).stdout
    assert f"--ServerApp.root_dir={REPO}" in lab and lab.split()[-1] == FIRST_NOTEBOOK, \
        f"expected make lab to open {FIRST_NOTEBOOK} with the repository as root, as Binder does; seen {lab}"
    if shutil.which("make") is None:
        pytest.skip("make is not installed: `make lab` cannot be checked")
    planned = run(["make", "-n", "-B", "lab"], "make -n -B lab (the commands of make lab)", cwd=REPO).stdout
    assert "binder/student-extensions" in planned, \
        f"expected make lab to give .venv the students' nbgrader extensions (binder/student-extensions):\n{planned}"


# --------------------------------------------------------- the environment

def test_environment_has_runtime_python_and_nbgrader_096(binder_env):
    done = binder_env.run([binder_env.bin / "python", "-c",
                           "import sys, importlib.metadata as m; "
                           "print(f'{sys.version_info[0]}.{sys.version_info[1]}', m.version('nbgrader'), "
                           "'torch' in {d.metadata['Name'] for d in m.distributions()})"],
                          "reading the Binder environment's versions")
    assert done.stdout.split() == [runtime_version(), "0.9.6", "False"], \
        f"expected Python {runtime_version()}, nbgrader 0.9.6 and no torch; seen {done.stdout.strip()}"


def test_students_get_only_nbgraders_validate_extension(binder_env):
    lab = binder_env.run([binder_env.bin / "jupyter", "labextension", "list"], "jupyter labextension list")
    text = ANSI.sub("", lab.stdout + lab.stderr)
    assert re.search(r"@jupyter/nbgrader v0\.9\.6 enabled OK", text), \
        f"expected nbgrader's lab extension 0.9.6 installed and enabled:\n{text}"
    disabled = set(re.findall(r"^\s+(@jupyter/nbgrader:[\w-]+)\s*$",
                              text.split("Disabled extensions:", 1)[-1], re.M))
    assert disabled == INSTRUCTOR_PLUGINS, \
        f"expected disabled nbgrader plugins {sorted(INSTRUCTOR_PLUGINS)}, seen {sorted(disabled)}:\n{text}"
    assert not STUDENT_PLUGINS & disabled
    server = binder_env.run([binder_env.bin / "jupyter", "server", "extension", "list"],
                            "jupyter server extension list")
    text = ANSI.sub("", server.stdout + server.stderr)
    seen = dict(re.findall(r"nbgrader\.server_extensions\.(\w+) (enabled|disabled)", text))
    assert seen == SERVER_EXTENSIONS, f"expected nbgrader's server extensions {SERVER_EXTENSIONS}, seen {seen}"


# --------------------------------------------------------------- notebooks

def answer_names(nb):
    """The names the answer cells of a notebook define (functions, classes, variables)."""
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and is_answer_cell(cell):
            for node in ast.parse(cell.source).body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


class NotebookRuns:
    """Every notebook, run in the Binder environment WORKERS at a time, started together."""

    def __init__(self, env, directory):
        self.env, self.directory = env, directory
        self.pool = concurrent.futures.ThreadPoolExecutor(WORKERS)
        self.futures = {}
        for name in release_names():
            nb = read_notebook(COURSE / "release" / name / f"{name}.ipynb")
            skip = [i for i, cell in enumerate(nb.cells) if is_answer_cell(cell) or is_test_cell(cell)]
            self.submit(("release", name), Path("course", "release", name, f"{name}.ipynb"), skip)
        for name in solution_names():
            self.submit(("solution", name), Path("solutions", f"{name}.ipynb"), [])

    def submit(self, key, notebook, skip):
        report = self.directory / f"{key[0]}-{key[1]}.json"
        command = [self.env.bin / "python", RUNNER, self.env.repo / notebook, report, *skip]
        self.futures[key] = self.pool.submit(self._run, command, report)

    def _run(self, command, report):
        done = subprocess.run([str(c) for c in command], cwd=self.env.repo, env=self.env.environ(),
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            return {"failure": f"exit status {done.returncode}\n{(done.stdout + done.stderr)[-3000:]}"}
        return json.loads(report.read_text())

    def result(self, key):
        result = self.futures[key].result()
        if "failure" in result:
            pytest.fail(f"running {key[0]} notebook {key[1]} in the Binder environment: {result['failure']}")
        return result


@pytest.fixture(scope="module")
def notebook_runs(binder_env, tmp_path_factory):
    runs = NotebookRuns(binder_env, tmp_path_factory.mktemp("notebook-reports"))
    yield runs
    runs.pool.shutdown(cancel_futures=True)


def check_probe(result, env, label):
    probe = result["probe"]
    assert probe is not None, f"{label}: the memory probe cell printed nothing: {result['probe_outputs']}"
    assert Path(probe["prefix"]).resolve() == env.venv.resolve(), \
        f"{label}: expected the kernel to run in the Binder environment {env.venv}, seen {probe['prefix']}"
    assert Path(probe["autograd_lib"]).resolve().is_relative_to(env.repo.resolve()), \
        f"{label}: expected autograd_lib installed by postBuild from {env.repo}, seen {probe['autograd_lib']}"


@pytest.mark.parametrize("name", release_names())
def test_release_notebook_non_exercise_cells_run(notebook_runs, binder_env, name):
    result = notebook_runs.result(("release", name))
    label = f"course/release/{name}/{name}.ipynb"
    check_probe(result, binder_env, label)
    nb = read_notebook(COURSE / "release" / name / f"{name}.ipynb")
    expected = re.compile(r"NameError: name '(%s)' is not defined" % "|".join(map(re.escape, answer_names(nb))))
    problems = [f"cell {cell['index']}: {'; '.join(cell['errors']) or 'stderr: ' + cell['stderr'][:300]}"
                for cell in result["cells"]
                if not (len(cell["errors"]) == 1 and expected.fullmatch(cell["errors"][0]))]
    assert not problems, (f"{label}: expected every cell that is neither an answer nor a test to run "
                          f"without an error or stderr in the Binder environment; seen:\n" + "\n".join(problems))


@pytest.mark.parametrize("name", solution_names())
def test_solution_notebook_runs(notebook_runs, binder_env, name):
    result = notebook_runs.result(("solution", name))
    label = f"solutions/{name}.ipynb"
    check_probe(result, binder_env, label)
    problems = [f"cell {cell['index']}: {'; '.join(cell['errors'])}" for cell in result["cells"]
                if cell["errors"] and "raises-exception" not in cell["tags"]]
    assert not problems, f"{label}: expected every cell to run in the Binder environment; seen:\n" + "\n".join(problems)


def test_every_notebook_fits_in_1_gb(notebook_runs):
    rows, over = [], []
    for (kind, name) in sorted(notebook_runs.futures):
        result = notebook_runs.result((kind, name))
        if result["probe"] is None:
            continue                       # reported by the notebook's own test
        mb = result["probe"]["peak_kib"] / 1024
        rows.append(f"| {kind} | {name} | {result['ran']} | {result['seconds']:.1f} | {mb:.0f} |")
        if mb > MEMORY_LIMIT_MB:
            over.append(f"{kind} notebook {name}: {mb:.0f} MB")
    table = "\n".join(["| notebook | name | code cells run | seconds | kernel peak RSS (MB) |",
                       "|---|---|---:|---:|---:|", *rows])
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(f"# Notebooks in the Binder environment\n\nLimit: {MEMORY_LIMIT_MB} MB per kernel.\n\n{table}\n")
    assert rows, "no notebook reported its peak memory"
    assert not over, (f"expected every notebook's kernel to stay under {MEMORY_LIMIT_MB} MB (Binder gives "
                      f"a student 1-2 GB); over it: {', '.join(over)}\n{table}")
