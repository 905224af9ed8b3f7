"""Classroom editions (autograd_course/editions.py): later answers ship sealed.

The fast tests build the edition of one stage and read it; the tests marked
``editions`` build every stage, install each wheel into a fresh virtual environment and
run the release notebooks there (tests/test_editions_stages.py).
"""

import ast
import inspect
import re
import subprocess
import sys
import textwrap
import types
import zipfile
from pathlib import Path

import pytest

from autograd_lib import exercises
from autograd_course import editions
from autograd_course.checking import DelegationError, MIN_COPY_INSTRUCTIONS, _fingerprint, checking
from autograd_course.notebooks import strip_markers

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "course"
STAGE = 5

pytestmark = pytest.mark.skipif(sys.version_info[:2] != editions.TARGET_PYTHON,
                                reason="editions are bytecode for Python %d.%d" % editions.TARGET_PYTHON)


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("edition") / f"edition-{STAGE}"
    lines = []
    editions.build_edition(STAGE, out, solutions=True, course=COURSE, progress=lines.append)
    wheel = next(out.glob("*.whl"))
    unpacked = out.parent / "unpacked"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(unpacked)
    return out, wheel, unpacked, lines


def run_edition(unpacked, code):
    """Run ``code`` in a fresh interpreter that imports the edition's packages."""
    script = f"import sys; sys.path.insert(0, {str(unpacked)!r})\n" + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                          cwd=unpacked, timeout=300)
    assert done.returncode == 0, f"the edition's interpreter failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def later_slots(stage):
    return sorted(eid for eid, slot in exercises.SLOTS.items() if int(slot.assignment) >= stage)


def test_every_slot_of_a_later_assignment_is_sealed():
    sealed = editions.sealed_statements(1)
    covered = {s.exercise_id for s in sealed}
    # a statement shared by two slots is sealed once, under the first
    assert covered <= set(exercises.SLOTS), f"unknown exercises sealed: {covered - set(exercises.SLOTS)}"
    lines = {}
    for s in sealed:
        lines.setdefault(s.path, []).append((s.start, s.end))
    for eid, slot in exercises.SLOTS.items():
        for fn in editions._functions_of(slot):
            path = Path(fn.__code__.co_filename).resolve().relative_to(ROOT).as_posix()
            line = fn.__code__.co_firstlineno
            assert any(a <= line <= b for a, b in lines.get(path, [])), \
                f"{eid}: {fn.__qualname__} ({path}:{line}) is not inside a sealed statement of stage 1"
    five = {s.exercise_id.split(".")[0] for s in editions.sealed_statements(5)}
    assert five == {"05", "06", "07", "08", "09"}, f"stage 5 seals assignments 05-09, saw {sorted(five)}"


def test_the_wheel_holds_no_source_of_a_sealed_statement(edition):
    out, wheel, unpacked, lines = edition
    assert wheel.name.endswith("+stage5-cp311-none-any.whl"), f"wheel tag: {wheel.name}"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith("METADATA"))).decode()
        sources = {n: zf.read(n).decode() for n in names if n.endswith(".py")}
    assert "Requires-Python: ==3.11.*" in metadata, f"the wheel must be for 3.11 only:\n{metadata}"
    sealed = editions.sealed_statements(STAGE)
    pycs = [n for n in names if n.startswith("autograd_lib/_sealed/") and n.endswith(".pyc")]
    assert len(pycs) == len(sealed), f"one .pyc per sealed statement: {len(sealed)} expected, saw {pycs}"
    for s in sealed:
        all_lines = (ROOT / s.path).read_text().splitlines()
        outside = {line.strip() for line in all_lines[:s.start - 1] + all_lines[s.end:]}
        body = [line.strip() for line in all_lines[s.start - 1:s.end]
                if len(line.strip()) > 25 and line.strip() not in outside]   # not a shared message
        shipped = sources[s.path]
        shipped_lines = {line.strip() for line in shipped.splitlines()}
        found = [line for line in body if line in shipped_lines]
        assert not found, f"{s.path} still holds source of sealed {s.exercise_id}: {found[:3]}"
        assert f'_run_sealed("{s.exercise_id}.' in shipped, f"{s.path}: no loader call for {s.exercise_id}"
    earlier = [eid for eid in exercises.SLOTS if int(eid[:2]) < STAGE]
    for eid in earlier:
        fn = exercises.reference(eid)
        fn = getattr(fn, "fget", fn)
        if isinstance(fn, types.FunctionType):
            name = f"def {fn.__name__}("
            path = Path(fn.__code__.co_filename).resolve().relative_to(ROOT).as_posix()
            assert name in sources[path], f"{eid} (assignment < {STAGE}) must ship as source in {path}"
    assert any("statements sealed" in line for line in lines), f"the build says what it sealed: {lines}"


def test_a_module_holding_a_sealed_answer_keeps_only_its_docstrings_first_line(edition):
    """A trial student of 03 read the order of run_node's steps in engine.py's module docstring."""
    out, wheel, unpacked, lines = edition
    with zipfile.ZipFile(wheel) as zf:
        shipped = zf.read("autograd_lib/engine.py").decode()
    full = (ROOT / "autograd_lib" / "engine.py").read_text()
    doc = ast.get_docstring(ast.parse(shipped))
    assert doc.splitlines()[0] == ast.get_docstring(ast.parse(full)).splitlines()[0] and "sealed" in doc \
        and "call_tensor_hooks" not in doc and len(doc.splitlines()) <= 3, \
        f"expected engine.py's docstring cut to its first line and a note on sealing; seen:\n{doc}"
    ast.parse(shipped)                      # the module still parses


def test_sealed_references_say_which_assignment_teaches_them(edition):
    out, wheel, unpacked, _ = edition
    printed = run_edition(unpacked, """
        import inspect
        import autograd_lib, autograd_lib.nn, autograd_lib.optim
        from autograd_lib import exercises
        assert autograd_lib.__file__.startswith(sys.path[0]), autograd_lib.__file__
        for eid, slot in sorted(exercises.SLOTS.items()):
            for fn in slot.functions(exercises.reference(eid)) + slot.guarded():
                fn = getattr(fn, "fget", fn)
                try:
                    inspect.getsource(fn)
                    print(eid, "SOURCE")
                except OSError as error:
                    print(eid, "SEALED", error)
                print(eid, "SIGNATURE", inspect.signature(fn))
    """)
    seen = {}
    for line in printed.splitlines():
        eid, kind, rest = (line.split(" ", 2) + [""])[:3]
        if kind != "SIGNATURE":
            seen.setdefault(eid, set()).add((kind, rest))
    for eid in exercises.SLOTS:
        kinds = {k for k, _ in seen[eid]}
        if int(eid[:2]) >= STAGE:
            assert kinds == {"SEALED"}, f"{eid}: getsource must fail on every sealed function, saw {seen[eid]}"
            for _, message in seen[eid]:
                assert f"assignment {eid[:2]} asks you to write it" in message and "stage 5" in message, \
                    f"{eid}: the error must name assignment {eid[:2]} and the stage, saw {message!r}"
        else:
            assert kinds == {"SOURCE"}, f"{eid} (before stage {STAGE}) must keep its source, saw {seen[eid]}"


def scenario_results(library_root):
    """Every differential scenario of tests/test_oracle.py and tests/test_views.py, run on
    the autograd_lib found first in ``library_root``: one line each, its result or error."""
    script = f"""
import re, sys
sys.path[:0] = [{str(library_root)!r}, {str(ROOT)!r}, {str(ROOT / "tests")!r}]
import autograd_lib
assert autograd_lib.__file__.startswith({str(library_root)!r}), autograd_lib.__file__
from tests import test_oracle, test_views
for name, (fn, _) in sorted({{**test_oracle.SCENARIOS, **test_views.SCENARIOS}}.items()):
    result, error, warnings = test_oracle.capture(fn, autograd_lib)
    seen = repr(result) if error is None else type(error).__name__ + ": " + str(error)
    print(name, re.sub(r" at 0x[0-9a-f]+", "", seen).replace(chr(10), " "))
"""
    done = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                          cwd=library_root, timeout=600)
    assert done.returncode == 0, f"the scenarios did not run on {library_root}:\n{done.stderr[-3000:]}"
    return done.stdout.splitlines()


def test_the_edition_behaves_as_the_full_library(tmp_path):
    """The differential scenarios give the same results, errors included, with the stage-1
    edition (every exercise sealed) as with the full library."""
    out = tmp_path / "edition-1"
    editions.build_edition(1, out, course=COURSE, progress=lambda _: None)
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(next(out.glob("*.whl"))) as zf:
        zf.extractall(unpacked)
    ours, full = scenario_results(unpacked), scenario_results(ROOT)
    assert len(full) > 500, f"expected the oracle's scenarios, saw {len(full)}"
    differ = [(a, b) for a, b in zip(full, ours) if a != b]
    assert not differ and len(ours) == len(full), \
        f"the edition differs from the full library in {len(differ)} scenarios; first: {differ[:2]}"


def test_the_edition_directory_is_what_a_class_needs(edition):
    out, wheel, _, _ = edition
    release = sorted(p.name for p in (out / "release").iterdir())
    assert release == ["01_tensors", "02_graph", "03_backward", "04_leaves", "05_ops"], f"release: {release}"
    solutions = sorted(p.name for p in (out / "solutions").iterdir())
    assert solutions == ["01_tensors.ipynb", "02_graph.ipynb", "03_backward.ipynb", "04_leaves.ipynb"], \
        f"solutions are those before the stage: {solutions}"
    post = (out / "binder" / "postBuild").read_text()
    assert f"./{wheel.name}" in post and "-e ." not in post, f"binder installs the wheel:\n{post}"
    readme = (out / "README.md").read_text()
    assert wheel.name in readme and "assignments 01 to 05" in readme, readme
    install = f"pip install {wheel.name} jupyterlab`"
    assert install in readme, f"expected the install line '{install}' (stage 5 needs no scikit-learn):\n{readme}"
    needs = editions._notebook_needs(["08_inplace", "09_training"])
    assert needs["extra"] == " scikit-learn" and "digits" in needs["why"], (
        f"expected an edition with 09 to ask for scikit-learn, 09's digits; seen {needs}")
    for path in (out / "solutions").iterdir():
        assert "BEGIN HIDDEN TESTS" not in path.read_text(), f"{path.name} holds hidden tests"
    assert editions.leaks(out, STAGE, COURSE) == [], "no hidden test and no later solution in the edition"


def test_the_leak_check_finds_answers_in_an_unsealed_build(tmp_path, monkeypatch):
    """Negative control: without sealing, the same build leaks every later assignment."""
    monkeypatch.setattr(editions, "_seal_sources", lambda files, stage: [])
    with pytest.raises(editions.PipelineError) as caught:
        editions.build_edition(7, tmp_path / "unsealed", course=COURSE, progress=lambda _: None)
    out = tmp_path / "unsealed"
    found = editions.leaks(out, 7, COURSE)
    assert "leaks answers" in str(caught.value), caught.value
    leaked = {leak.what.split()[2][:2] for leak in found if leak.what.startswith("solution")}
    assert leaked == {"07", "08", "09"}, f"expected leaks of 07-09 found, saw {sorted(leaked)}"
    assert all(".whl!autograd_lib/" in leak.file for leak in found), [str(l) for l in found[:3]]


def test_a_stage_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(editions.PipelineError, match="no assignment 12"):
        editions.build_edition(12, tmp_path / "e", course=COURSE, progress=lambda _: None)


# ------------------------------------------------------------------ the copy check

def _rename_locals(source):
    """What a student gets by decompiling a reference and renaming its variables."""
    tree = ast.parse(textwrap.dedent(source))
    fn = tree.body[0]
    fn.decorator_list = []
    if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant):
        fn.body = fn.body[1:]
    names = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    names |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    new = {name: f"v{i}" for i, name in enumerate(sorted(names))}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in new:
            node.id = new[node.id]
        elif isinstance(node, ast.arg) and node.arg in new:
            node.arg = new[node.arg]
        elif isinstance(node, ast.keyword) and node.arg in new and False:
            pass
    fn.name = "my_answer"
    return ast.unparse(tree)


def _long_references():
    found = []
    for eid, slot in sorted(exercises.SLOTS.items()):
        if slot.kind == "rule":
            continue
        fn = exercises.reference(eid)
        fn = getattr(fn, "fget", fn)
        if len(_fingerprint(fn.__code__)[2]) >= MIN_COPY_INSTRUCTIONS:
            found.append(eid)
    return found


def test_long_references_are_compared():
    found = _long_references()
    assert len(found) >= 8, f"expected most long exercises to be protected, saw {found}"


@pytest.mark.parametrize("eid", _long_references())
def test_a_decompiled_reference_earns_nothing(eid):
    """A copy of the reference, with its variables renamed and no docstring (what a
    decompiler plus a little care gives), is refused by checking() before any test runs."""
    reference = exercises.reference(eid)
    reference = getattr(reference, "fget", reference)
    namespace = dict(reference.__globals__)
    exec(compile(_rename_locals(inspect.getsource(reference)), "<answer cell>", "exec"), namespace)
    copy = namespace["my_answer"]
    assert copy.__code__.co_varnames != reference.__code__.co_varnames, "the copy renames its variables"
    with pytest.raises(DelegationError, match="recompiled"):
        with checking(eid, copy):
            pass


def test_the_course_solutions_are_not_taken_for_copies():
    """Every solution cell of the course passes the copy check of its exercise."""
    import json
    import math
    import weakref

    import numpy as np

    import autograd_lib as ag
    checked = 0
    for path in sorted((COURSE / "source").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if not meta.get("solution"):
                continue
            source = strip_markers("".join(cell["source"]))
            plugs = re.findall(r'exercises\.plug\("([^"]+)",\s*(\w+)\)', source)
            namespace = {"ag": ag, "np": np, "exercises": exercises, "math": math, "weakref": weakref}
            exec(compile(source.replace("exercises.plug", "(lambda *a: None)"), "<cell>", "exec"), namespace)
            for eid, name in plugs:
                if exercises.SLOTS[eid].kind == "rule":
                    continue
                with checking(eid, namespace[name]):
                    checked += 1
    assert checked >= 25, f"expected the course's function exercises checked, saw {checked}"


def test_another_python_is_refused_with_the_command_that_works(tmp_path, monkeypatch):
    monkeypatch.setattr(editions, "TARGET_PYTHON", (3, 99))
    with pytest.raises(editions.PipelineError, match=r"make edition STAGE=4 PYTHON=python3\.99 VENV=\.venv-3\.99"):
        editions.build_edition(4, tmp_path / "e", course=COURSE, progress=lambda _: None)
    assert not (tmp_path / "e").exists(), "nothing is built for the wrong Python"
