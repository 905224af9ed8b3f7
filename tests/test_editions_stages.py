"""Every stage's edition, proven (marker ``editions``: slow, run by make test and CI).

For every stage k from 1 to 9:

* the edition builds and no file of it (sources, notebooks, the strings and names in
  the sealed bytecode, the wheel's metadata) holds a line of a solution of an assignment
  >= k or of any hidden test; a failure names the file and the line;
* its wheel installs with pip into a fresh virtual environment (one environment for
  the session; each stage's wheel replaces the last), and there the release notebooks
  of k and k - 1 (of every assignment at the last stage), their answer cells filled
  with the course's solutions, run with all their visible tests passing, while the
  blank release of k fails its visible tests with the student-facing
  NotImplementedError.  An earlier notebook j < k - 1 is not run again at stage k: the
  stage-k wheel seals the slots of assignments >= k, a subset of what stage j seals,
  where notebook j was run, so it meets nothing sealed that it did not meet there
  (k - 1 is run anyway, and the last stage runs them all);
* the mistakes of assignment k still lose their points against the stage-k wheel: the
  notebook with its hidden tests, one answer cell edited, run in that environment,
  fails exactly the test cells of that exercise, printing the mistake's rule.  The
  first mistake of each exercise by default; ``EDITION_MISTAKES=all`` runs them all.
"""

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from autograd_course import editions
from autograd_course.mistakes import catalogs, with_mistake
from tests.course.judging import names_the_rule
from tests.fresh_env import clean_environ
from autograd_course import notebooks
from autograd_course.notebooks import (dumps, exercise_of, grade_id, is_answer_cell, is_test_cell,
                                       read_notebook, solution_notebook, strip_markers)

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "course"
NAMES = sorted(p.name for p in (COURSE / "source").iterdir() if (p / f"{p.name}.ipynb").is_file())
STAGES = [int(n[:2]) for n in NAMES]
ALL_MISTAKES = os.environ.get("EDITION_MISTAKES") == "all"

pytestmark = [
    pytest.mark.editions,
    pytest.mark.skipif(sys.version_info[:2] != editions.TARGET_PYTHON,
                       reason="editions are bytecode for Python %d.%d" % editions.TARGET_PYTHON),
]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A fresh virtual environment with what runs a notebook (no autograd_course yet)."""
    path = tmp_path_factory.mktemp("edition-venv")
    venv.EnvBuilder(with_pip=True).create(path)
    python = path / "bin" / "python"
    pins = [line.split("#")[0].strip() for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    wanted = [p for p in pins if p.split("==")[0] in ("numpy", "matplotlib", "scikit-learn", "ipykernel")]
    done = subprocess.run([python, "-m", "pip", "install", "--quiet", *wanted, "nbclient", "nbformat"],
                          capture_output=True, text=True, env=clean_environ())
    assert done.returncode == 0, f"could not prepare the environment:\n{done.stderr[-2000:]}"
    return python


def run_notebooks(python, jobs, workdir):
    """Run notebooks in the environment; {name: [[grade_id, error, text], ...]}."""
    jobs_file, results_file = workdir / "jobs.json", workdir / "results.json"
    jobs_file.write_text(json.dumps(jobs))
    done = subprocess.run([python, ROOT / "tests" / "editions_runner.py", jobs_file, results_file],
                          capture_output=True, text=True, cwd=workdir, timeout=3600, env=clean_environ())
    assert done.returncode == 0, f"the runner failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return json.loads(results_file.read_text())


def answered(release_nb, source_nb):
    """The release notebook with the course's solution in every answer cell."""
    answers = {grade_id(c): strip_markers(c.source) for c in source_nb.cells if is_answer_cell(c)}
    for cell in release_nb.cells:
        if is_answer_cell(cell) and grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return release_nb


@pytest.mark.parametrize("stage", STAGES)
def test_stage(stage, env, tmp_path):
    out = tmp_path / f"edition-{stage}"
    editions.build_edition(stage, out, course=COURSE, progress=lambda _: None)
    found = editions.leaks(out, stage, COURSE)
    assert not found, "the edition leaks:\n" + "\n".join(str(leak) for leak in found)
    wheel = next(out.glob("*.whl"))
    # Each stage's wheel has its own version (+stageN), so pip replaces the last one; its
    # dependencies, already installed, are left alone (--force-reinstall would reinstall
    # NumPy and matplotlib at every stage).
    done = subprocess.run([env, "-m", "pip", "install", "--quiet", str(wheel)],
                          capture_output=True, text=True, env=clean_environ())
    assert done.returncode == 0, f"pip install {wheel.name} failed:\n{done.stderr[-2000:]}"
    where = subprocess.run([env, "-c", "import autograd_lib._sealed as s; print(s.STAGE, s.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=clean_environ())
    assert where.stdout.split()[:1] == [str(stage)] and "site-packages" in where.stdout, \
        f"the environment must import the stage-{stage} wheel, saw {where.stdout!r} {where.stderr[-500:]}"

    index = STAGES.index(stage)
    name = NAMES[index]
    jobs = []
    rerun = NAMES[:index + 1] if stage == STAGES[-1] else NAMES[max(0, index - 1):index + 1]
    for earlier in rerun:
        nb = answered(read_notebook(out / "release" / earlier / f"{earlier}.ipynb"),
                      read_notebook(COURSE / "source" / earlier / f"{earlier}.ipynb"))
        path = tmp_path / f"answered-{earlier}.ipynb"
        path.write_text(dumps(nb))
        jobs.append({"name": f"answered {earlier}", "notebook": str(path)})
    jobs.append({"name": "blank", "notebook": str(out / "release" / name / f"{name}.ipynb")})

    solution = solution_notebook(read_notebook(COURSE / "source" / name / f"{name}.ipynb"))
    mistakes = catalogs(COURSE).get(f"{stage:02d}", [])
    if not ALL_MISTAKES:
        first = {}
        for m in mistakes:
            first.setdefault(m.grade_id, m)
        mistakes = list(first.values())
    for i, mistake in enumerate(mistakes):
        path = tmp_path / f"mistake-{i}.ipynb"
        path.write_text(dumps(with_mistake(solution, mistake)))
        jobs.append({"name": f"mistake {i}", "notebook": str(path)})
    results = run_notebooks(env, jobs, tmp_path)

    for earlier in rerun:
        failing = [(gid, error) for gid, error, _ in results[f"answered {earlier}"] if error]
        assert not failing, (f"stage {stage}: the answered release of {earlier} must run with every "
                             f"visible test passing; failing cells: {failing[:5]}")
    blank_tests = [(gid, error, text) for gid, error, text in results["blank"] if gid and "_test" in gid]
    assert blank_tests and all(error for _, error, _ in blank_tests), \
        f"stage {stage}: every visible test of the blank {name} must fail, saw {[(g, e) for g, e, _ in blank_tests]}"
    assert any("NotImplementedError" in text for _, _, text in blank_tests), \
        f"stage {stage}: the blank release must tell the student the answer is not written yet"

    test_ids = [grade_id(c) for c in solution.cells if is_test_cell(c)]
    for i, mistake in enumerate(mistakes):
        cells = {gid: (error, text) for gid, error, text in results[f"mistake {i}"] if gid}
        own = notebooks.tests_of(exercise_of(mistake.grade_id), test_ids)
        failing = [gid for gid in test_ids if cells[gid][0]]
        assert failing and set(failing) <= set(own), \
            (f"stage {stage}, mistake {mistake.name!r} of {mistake.grade_id}: expected some of {own} to "
             f"fail and nothing else, saw failing {failing}")
        assert any(names_the_rule(cells[gid][1], mistake.rule) for gid in failing), \
            f"stage {stage}, mistake {mistake.name!r}: the failing test must print the rule {mistake.rule!r}"
