"""The course's generated files: the release, the executed solutions, and their drift.

    release(course)           <course>/release/ from <course>/source/ (nbgrader generate_assignment)
    write_solutions(course)   solutions/<a>.ipynb beside the course: markers removed, executed, normalized
    check(course)             every way release/ or solutions/ differ from what source/ gives
    rules_text(course)        the rules every exercise states, as autograd_course/rules.json holds them

Everything that runs nbgrader happens in a temporary copy of the course
(:func:`make_course`, its own gradebook), so these never touch the
instructor's gradebook or submissions.
"""

import difflib
import json
import re
import shutil
import tempfile
import time
from pathlib import Path

from . import course_text
from .layout import (CONFIG_FILE, JUNK, PER_TERM, PipelineError, assignments, assignments_in,
                     solutions_dir, source_checkout, source_notebook_path)
from .nbgrader_setup import check_result, execute, kernel_environment, load_config, nbgrader_api, register
from .notebooks import (ANSI, dumps, grade_id, is_test_cell, normalize, output_text, read_notebook,
                        plugged_slots, solution_notebook, stated_rules, write_notebook)
from .rules import REGISTRY_FILE

ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")


# ------------------------------------------------------ generating a course

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


def make_course(dest, course, source_root=None, names=None):
    """A fresh course directory at ``dest``: the nbgrader_config.py of ``course`` and
    the sources (from ``source_root``, default ``<course>/source``), no per-term data.
    Missing cell ids are filled in deterministically, so generation is reproducible."""
    dest = Path(dest)
    course = Path(course)
    source_root = Path(source_root or course / "source")
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(course / CONFIG_FILE, dest / CONFIG_FILE)
    (dest / "source").mkdir(exist_ok=True)
    for name in (names if names is not None else assignments_in(source_root)):
        target = dest / "source" / name
        shutil.copytree(source_root / name, target, ignore=shutil.ignore_patterns(*JUNK, *PER_TERM))
        notebook = target / f"{name}.ipynb"
        nb = read_notebook(notebook)
        write_notebook(nb, notebook)
    return dest


def generate(course, names=None):
    """``nbgrader generate_assignment`` for every assignment of ``course``."""
    names = assignments(course) if names is None else names
    if not names:
        raise PipelineError(f"{course}/source has no assignments")
    with kernel_environment():
        api = nbgrader_api(course)
        register(api, list(load_config(course).AutogradCourse.get("assignments", names)))
        for name in names:
            check_result(api.generate_assignment(name), f"nbgrader generate_assignment {name}")
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


def render_release(course):
    """{path relative to release/: bytes} that ``release`` would write."""
    with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
        work = make_course(Path(tmp) / "course", course)
        generate(work)
        return _tree(work / "release")


def render_solution(name, course):
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


# ------------------------------------------------------------------ rules

def rules_text(course):
    """The JSON of every exercise's stated rules and of the slots each answer cell plugs
    (``rules.json``), read from the sources."""
    registry, slots = {}, {}
    for name in assignments(course):
        nb = read_notebook(source_notebook_path(name, course))
        try:
            registry.update(stated_rules(nb))
        except PipelineError as error:
            raise PipelineError(f"source/{name}/{name}.ipynb: {error}") from None
        slots.update(plugged_slots(nb))
    return json.dumps({"rules": registry, "slots": slots}, indent=1, ensure_ascii=False) + "\n"


def _rules_file(course):
    """``autograd_course/rules.json`` when ``course`` is the course of this source checkout
    (the package ships it); None for another course (an instructor's copy)."""
    checkout = source_checkout()
    if checkout is not None and Path(course).resolve() == (checkout / "course").resolve():
        return REGISTRY_FILE
    return None


def rules_drift(course):
    path = _rules_file(course)
    if path is None:
        return []
    seen = path.read_text(encoding="utf-8") if path.is_file() else None
    if seen != rules_text(course):
        return [f"autograd_course/{path.name}: not what the task texts in course/source state (run: make release)"]
    return []


# ---------------------------------------------------------------- commands

def release(course):
    """Regenerate ``<course>/release/`` from ``<course>/source/`` (normalized JSON)."""
    expected = render_release(course)
    target = Path(course) / "release"
    current = _tree(target)
    for rel in sorted(set(current) - set(expected)):
        (target / rel).unlink()
        print(f"removed  release/{rel}")
    for rel, data in sorted(expected.items()):
        if current.get(rel) != data or (target / rel).read_bytes() != data:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            (target / rel).write_bytes(data)
            print(f"wrote    release/{rel}")
    for directory in sorted(target.glob("*"), reverse=True):
        if directory.is_dir() and not any(p.is_file() for p in directory.rglob("*")):
            shutil.rmtree(directory)
    path = _rules_file(course)
    if path is not None:
        text = rules_text(course)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote    autograd_course/{path.name}")
    print(f"release: {len(assignments(course))} assignment(s) up to date")
    return 0


def write_solutions(course, out=None, names=None):
    """Write ``solutions/<a>.ipynb`` (``out``: default ``solutions/`` beside the course)
    for every assignment of ``course`` or those ``names``, executed."""
    out = Path(out or solutions_dir(course))
    names = names or assignments(course)
    unknown = sorted(set(names) - set(assignments(course)))
    if unknown:
        raise PipelineError(f"no such assignment in {Path(course) / 'source'}: {', '.join(unknown)} "
                            f"(there are: {', '.join(assignments(course)) or 'none'})")
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


# ------------------------------------------------------------------- drift

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


def source_problems(course):
    """Source notebooks are stored without outputs."""
    problems = []
    for name in assignments(course):
        nb = read_notebook(source_notebook_path(name, course))
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
                problems.append(f"source/{name}/{name}.ipynb cell {index} ({grade_id(cell) or 'code'}): "
                                f"has outputs; clear them before committing")
    return problems


def release_drift(expected, course):
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


def solutions_drift(course, out=None):
    """Committed solutions match the sources (cells and metadata) and were executed."""
    out = Path(out or solutions_dir(course))
    problems = []
    names = assignments(course)
    for name in names:
        path = out / f"{name}.ipynb"
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
    for stale in sorted(set(p.stem for p in out.glob("*.ipynb")) - set(names)):
        problems.append(f"solutions/{stale}.ipynb: no course/source/{stale} (run: make solutions)")
    return problems


def drift(course, out=None, expected_release=None):
    """Every reason why the committed generated files are not what the sources give."""
    if not assignments(course):
        return [f"{Path(course) / 'source'} has no assignments"]
    problems = source_problems(course) + rules_drift(course)
    expected = render_release(course) if expected_release is None else expected_release
    problems += release_drift(expected, course)
    problems += solutions_drift(course, out)
    return problems


def _without_images(nb):
    """The normalized notebook JSON without image data (what nbval compares)."""
    nb = normalize(nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for key in IMAGE_TYPES:
                output.get("data", {}).pop(key, None)
    return dumps(nb)


def check(course, out=None):
    """Print every drift of the generated files (see :func:`drift`) and of the notebooks'
    text forms (:func:`course_text.drift`); 1 when there is one."""
    problems = drift(course, out) + course_text.drift(course)
    if problems:
        print(f"course check: {len(problems)} problem(s)")
        for problem in problems:
            print(problem)
        return 1
    print(f"course check: release/, solutions/ and text/ match course/source/ "
          f"({len(assignments(course))} assignment(s))")
    return 0
