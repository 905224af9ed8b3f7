"""Classroom editions: the library for week k of a graded class, later answers sealed.

This repository is the self-study edition: ``autograd_lib`` holds the reference of
every exercise, readable by anyone.  A graded class gets, for each stage ``k``, an
edition built by :func:`build_edition` (``autograd-course edition --stage k``, or
``make edition STAGE=k``) into ``dist/edition-k/``:

* a wheel of the project in which the reference of every exercise slot of an
  assignment ``>= k`` is **sealed**: the statement that defines it (a ``def``, or the
  ``rule(...)`` line of a gradient formula, and the helpers that would answer it in one
  call: the slot's ``guards``) is cut out of its module's source and shipped as compiled
  bytecode only, without docstrings, in ``autograd_lib/_sealed/``.  In its place the
  module runs that bytecode in the same namespace, so the library behaves exactly as
  before.  ``inspect.getsource`` of a sealed function raises an ``OSError`` that names
  the assignment that teaches it.  Slots of earlier assignments, and everything that is
  not an exercise, ship as source;
* the release notebooks of the assignments ``<= k``, ``binder/`` for that stage and a
  short README for students; with ``solutions=True`` the executed solutions of the
  assignments ``< k``, without their hidden tests.

Bytecode belongs to one Python minor version, so an edition is built by, and for,
the Python of the students' image (3.11, as Binder's): the wheel's tag says so and
pip refuses it elsewhere.  Every build ends with :func:`leaks`, which reads every file
of the edition (sources, notebooks, the strings and names inside the sealed bytecode,
the wheel's metadata) for the text of a solution of an assignment ``>= k`` or of any
hidden test, and refuses to finish if it finds one.

What sealing stops, and what it does not, is written down for instructors in
course/README.md ("Classroom editions").
"""

import ast
import base64
import csv
import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import marshal
import re
import shutil
import sys
import textwrap
import types
import zipfile
from pathlib import Path

from autograd_lib import exercises

from . import layout
from .layout import PipelineError
from .notebooks import dumps, grade_id, marked_lines, read_notebook, strip_markers

__all__ = ["TARGET_PYTHON", "Sealed", "sealed_statements", "build_edition", "leaks", "Leak",
           "solution_lines", "hidden_test_lines"]

TARGET_PYTHON = (3, 11)         # Binder's Python (binder/runtime.txt): the students' image
PACKAGES = ("autograd_lib", "autograd_course")
SEALED_PACKAGE = "_sealed"      # autograd_lib/_sealed/: the loader and the bytecode
MIN_LEAK_LENGTH = 30            # shorter lines ("return None", "base = t._base") are everyone's
_CHECKS = Path(__file__).parent / "checks"   # the visible tests: students read them


# ----------------------------------------------------------- what is sealed

@dataclasses.dataclass
class Sealed:
    """One statement of the library that an edition ships as bytecode only."""
    exercise_id: str            # the slot it answers ("08.check_inplace")
    path: str                   # the module's file, relative to the packages' root
    start: int                  # first line (its first decorator), 1-based
    end: int                    # last line
    classes: tuple              # the classes it is defined in, outermost first
    rule: str = None            # the node name, for a rule(...) statement of derivatives/

    @property
    def assignment(self):
        return self.exercise_id.split(".", 1)[0]


def _functions_of(slot):
    reference = exercises.reference(slot.exercise_id)
    found = []
    for fn in slot.functions(reference) + slot.guarded():
        fn = getattr(fn, "__func__", fn)
        if isinstance(fn, types.FunctionType):
            found.append(fn)
    return found


def _statements(tree):
    """Every statement of a module that may define a slot, with its enclosing classes."""
    todo = [((), node) for node in tree.body]
    while todo:
        classes, node = todo.pop(0)
        yield classes, node
        if isinstance(node, ast.ClassDef):
            todo.extend((classes + (node.name,), child) for child in node.body)


def _span(node):
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first, node.end_lineno


def sealed_statements(stage):
    """The statements an edition for ``stage`` seals: those defining the reference
    (and the guards) of every slot of an assignment ``>= stage``, in file order."""
    root = Path(exercises.__file__).resolve().parent.parent
    trees, found = {}, {}
    for eid, slot in sorted(exercises.SLOTS.items()):
        if int(slot.assignment) < stage:
            continue
        for fn in _functions_of(slot):
            path = Path(fn.__code__.co_filename).resolve()
            if path not in trees:
                trees[path] = ast.parse(path.read_text(encoding="utf-8"))
            line = fn.__code__.co_firstlineno
            hits = [(classes, node) for classes, node in _statements(trees[path])
                    if isinstance(node, (ast.FunctionDef, ast.Expr)) and _span(node)[0] <= line <= _span(node)[1]]
            if len(hits) != 1:
                raise PipelineError(f"cannot seal {eid}: {fn.__qualname__} ({path}:{line}) is not one "
                                    "def or rule(...) statement at module or class level")
            classes, node = hits[0]
            rule = None
            if isinstance(node, ast.Expr):
                if not (isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "rule"):
                    raise PipelineError(f"cannot seal {eid}: line {line} of {path} is not a def or a rule(...)")
                rule = slot.attribute
            start, end = _span(node)
            key = (str(path), start)
            if key not in found:
                found[key] = Sealed(eid, str(path.relative_to(root)), start, end, classes, rule)
    return sorted(found.values(), key=lambda s: (s.path, s.start))


def _without_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _sealed_code(sealed, lines):
    """The statement compiled alone, without docstrings: a module-level code object, or
    (for a method) the body of its classes, to run in the real class's namespace."""
    text = textwrap.dedent("".join(lines[sealed.start - 1:sealed.end]))
    for depth, name in reversed(list(enumerate(sealed.classes))):
        text = f"class {name}:\n" + textwrap.indent(text, "    ")
    tree = _without_docstrings(ast.parse(text))
    filename = f"<sealed: {sealed.exercise_id}, taught in assignment {sealed.assignment}>"
    code = compile(tree, filename, "exec", dont_inherit=True)
    for name in sealed.classes:                       # down to the innermost class body
        code = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
    return code


def _pyc(code):
    """A .pyc file's bytes for ``code`` (the header of an unchecked, source-less pyc)."""
    return importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + bytes(8) + marshal.dumps(code)


# ------------------------------------------------------------ the loader

_LOADER = '''"""The sealed references of this edition of autograd_lib (stage {stage}).

A graded class gets the library one stage at a time.  The exercises of the assignments
it has not reached yet are answered by the library itself, so their references are
shipped here as compiled bytecode only: ``<exercise>.<n>.pyc`` holds one statement of
the library (a ``def``, or the ``rule(...)`` line of a gradient formula) whose source
was cut out of its module.  The module calls :func:`run` in its place, which runs that
bytecode in the module's (or the class's) namespace: the library behaves exactly as the
full one.  ``inspect.getsource`` of a sealed function raises an ``OSError`` that says
which assignment teaches it.  Write it yourself when you get there.
"""

import inspect
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER

STAGE = {stage}
PYTHON = {python!r}
_HERE = os.path.dirname(os.path.abspath(__file__))


class SealedSource:
    """Stands where ``inspect`` looks for a sealed function's source, and says why
    there is none."""

    def __init__(self, what, assignment):
        self._what, self._assignment = what, assignment

    def __getattr__(self, name):
        raise OSError(f"{{self._what}} is sealed in this edition of autograd_lib (stage {{STAGE}}): "
                      f"its source is not shipped, because assignment {{self._assignment}} asks you "
                      "to write it.")


def _load(key):
    with open(os.path.join(_HERE, key + ".pyc"), "rb") as f:
        data = f.read()
    if data[:4] != MAGIC_NUMBER:
        raise ImportError(f"this edition of autograd_lib was built for Python {{PYTHON}}; this is "
                          f"Python {{sys.version_info[0]}}.{{sys.version_info[1]}}: install the edition "
                          "built for your Python")
    return marshal.loads(data[16:])


def _seal(fn, what, assignment):
    fn.__signature__ = inspect.signature(fn)
    fn.__wrapped__ = SealedSource(what, assignment)


def _functions(value):
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if f is not None]
    return [value] if callable(value) and hasattr(value, "__code__") else []


def run(key, assignment, rule=None):
    """Run sealed statement ``key`` where the call stands (a module or a class body)."""
    frame = sys._getframe(1)
    namespace = frame.f_locals
    before = dict(namespace)
    exec(_load(key), frame.f_globals, namespace)
    for name in ("__module__", "__qualname__"):        # a class body's code sets them again
        if name in before:
            namespace[name] = before[name]
    exercise = key.rsplit(".", 1)[0]
    changed = [v for k, v in namespace.items() if before.get(k, _load) is not v]
    for value in changed:
        for fn in _functions(value):
            if fn.__code__.co_filename.startswith("<sealed"):
                _seal(fn, f"{{fn.__qualname__}} (exercise {{exercise}})", assignment)
    if rule is not None:
        for fn, _ in frame.f_globals["NODES"][rule].formulas.values():
            _seal(fn, f"the gradient formulas of {{rule}} (exercise {{exercise}})", assignment)
'''


# --------------------------------------------------------------- building

def _sources(root):
    """Every file of the packages (path relative to ``root`` -> bytes), no caches."""
    files = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def _import_line(tree):
    """Where the loader's import goes: before the module's first statement after its
    docstring and any ``from __future__`` import."""
    for index, node in enumerate(tree.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            return node.lineno
    raise PipelineError("a module with a sealed statement has no statement")


def _seal_sources(files, stage):
    """Cut the sealed statements out of their modules; add the loader and the bytecode."""
    statements = sealed_statements(stage)
    by_path = {}
    for s in statements:
        by_path.setdefault(s.path, []).append(s)
    counts = {}
    for path, found in by_path.items():
        text = files[path].decode("utf-8")
        lines = text.splitlines(keepends=True)
        keys = []
        for s in found:
            n = counts[s.exercise_id] = counts.get(s.exercise_id, -1) + 1
            key = f"{s.exercise_id}.{n}"
            files[f"autograd_lib/{SEALED_PACKAGE}/{key}.pyc"] = _pyc(_sealed_code(s, lines))
            keys.append(key)
        for s, key in sorted(zip(found, keys), key=lambda p: -p[0].start):
            indent = re.match(r"\s*", lines[s.start - 1]).group(0)
            rule = f", rule={s.rule!r}" if s.rule else ""
            lines[s.start - 1:s.end] = [f'{indent}_run_sealed("{key}", "{s.assignment}"{rule})'
                                        f"    # sealed: assignment {s.assignment} asks you to write this\n"]
        tree = ast.parse(text)
        at = _import_line(tree) - 1
        lines.insert(at, "from autograd_lib._sealed import run as _run_sealed\n")
        _shorten_docstring(tree, lines, sorted({s.assignment for s in found}))
        files[path] = "".join(lines).encode("utf-8")
    files[f"autograd_lib/{SEALED_PACKAGE}/__init__.py"] = _LOADER.format(
        stage=stage, python="%d.%d" % TARGET_PYTHON).encode("utf-8")
    return statements


def _shorten_docstring(tree, lines, assignments):
    """A module that holds a sealed answer keeps only the first line of its docstring: the
    overview of a module (engine.py's says what one node's run does, in order) describes the
    answers it holds.  ``lines`` change only after the docstring, so its place is still known."""
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return
    summary = first.value.value.strip().splitlines()[0].replace("\\", "\\\\").replace('"', "'")
    which = ", ".join(assignments)
    asks = "assignments %s ask" % which if len(assignments) > 1 else "assignment %s asks" % which
    lines[first.lineno - 1:first.end_lineno] = [
        '"""%s\n\nPart of this module is sealed in this edition: %s you to write it.\n"""\n' % (summary, asks)]


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(files, stage, out):
    """Write the wheel of ``files``; returns its path."""
    dist = importlib.metadata.distribution("autograd-course")
    name, version = "autograd_course", f"{dist.version}+stage{stage}"
    tag = "cp%d%d-none-any" % TARGET_PYTHON
    info = f"{name}-{version}.dist-info"
    requires = [r for r in dist.requires or [] if "extra ==" not in r]
    metadata = "\n".join(["Metadata-Version: 2.1", "Name: autograd-course", f"Version: {version}",
                          "Summary: autograd_lib for stage %d of a graded class (later answers sealed)" % stage,
                          "Requires-Python: ==%d.%d.*" % TARGET_PYTHON]
                         + [f"Requires-Dist: {r}" for r in requires]) + "\n"
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: autograd-course edition",
                       "Root-Is-Purelib: false", f"Tag: {tag}"]) + "\n"
    entry = "[console_scripts]\nautograd-course = autograd_course.cli:main\n"
    members = dict(files)
    members[f"{info}/METADATA"] = metadata.encode()
    members[f"{info}/WHEEL"] = wheel.encode()
    members[f"{info}/entry_points.txt"] = entry.encode()
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data in sorted(members.items()):
        writer.writerow([arcname, _record_hash(data), len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    members[f"{info}/RECORD"] = record.getvalue().encode()
    path = Path(out) / f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in sorted(members.items()):
            info_ = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info_.external_attr = 0o644 << 16
            zf.writestr(info_, data, zipfile.ZIP_DEFLATED)
    return path


_STUDENT_README = """# autograd-course, stage {stage}

The notebooks of assignments {first} to {last} of this course, and the library they
build on, `autograd_lib`, as your class uses it this week.

* `release/`: one folder per assignment; open the notebook and follow it.  In JupyterLab
  the **Validate** button runs the visible tests.
* `{wheel}`: the library, for your own machine (Python {python}), with JupyterLab to
  open the notebooks: `pip install {wheel} jupyterlab{extra}`.{why}

The library holds the answers of the assignments you have already done, readable as
source.  The parts that later assignments ask you to write are compiled: asking for their
source says which assignment teaches them.  Write them yourself when you get there; the
grader gives 0 to a copied reference.
"""


# What a notebook imports beyond the wheel's own dependencies (binder/requirements.txt has them too).
NOTEBOOK_NEEDS = {"09_training": ("scikit-learn", "09's handwritten digits come with it")}


def _notebook_needs(names):
    """The README's extra packages for the notebooks ``names`` of an edition, and why."""
    needs = [NOTEBOOK_NEEDS[name] for name in names if name in NOTEBOOK_NEEDS]
    return {"extra": "".join(f" {package}" for package, _ in needs),
            "why": "".join(f" `{package}`: {why}." for package, why in needs)}


def _hidden_removed(source_text):
    """A source cell's text without its hidden tests (and without marker lines)."""
    text = re.sub(r"[^\n]*BEGIN HIDDEN TESTS.*?END HIDDEN TESTS[^\n]*\n?", "", source_text, flags=re.S)
    return strip_markers(text)


def build_edition(stage, out=None, solutions=False, course=None, progress=print):
    """Build the edition for ``stage`` into ``out`` (default ``dist/edition-<stage>/``
    beside the course); returns the directory.  Raises PipelineError when it cannot be
    built here or when :func:`leaks` finds answer text in it."""
    if sys.version_info[:2] != TARGET_PYTHON:
        raise PipelineError("an edition is bytecode for the students' Python %d.%d; this is %d.%d: "
                            "build it with Python %d.%d, for example `make edition STAGE=%d "
                            "PYTHON=python%d.%d VENV=.venv-%d.%d`" % (
                                TARGET_PYTHON + sys.version_info[:2] + TARGET_PYTHON + (stage,)
                                + TARGET_PYTHON + TARGET_PYTHON))
    course = layout.course_dir(course)
    names = layout.assignments(course)
    numbers = [int(a.split("_", 1)[0]) for a in names]
    if stage not in numbers:
        raise PipelineError(f"no assignment {stage:02d} in {course}: a stage is one of "
                            f"{', '.join(str(n) for n in numbers)}")
    root = Path(exercises.__file__).resolve().parent.parent
    out = Path(out) if out else course.parent / "dist" / f"edition-{stage}"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    files = _sources(root)
    sealed = _seal_sources(files, stage)
    wheel = _wheel(files, stage, out)
    progress(f"wheel    {wheel.name}: {len(sealed)} statements sealed "
             f"({len({s.exercise_id for s in sealed})} exercises of assignments >= {stage:02d})")
    included = [a for a, n in zip(names, numbers) if n <= stage]
    for name in included:
        src = course / "release" / name
        if not (src / f"{name}.ipynb").is_file():
            raise PipelineError(f"{src / (name + '.ipynb')} is missing: run `autograd-course release` first")
        shutil.copytree(src, out / "release" / name, ignore=shutil.ignore_patterns(*layout.JUNK))
    progress(f"release  {len(included)} notebook(s): {', '.join(included)}")
    binder = root / "binder"
    if binder.is_dir():
        shutil.copytree(binder, out / "binder", ignore=shutil.ignore_patterns(*layout.JUNK))
        post = out / "binder" / "postBuild"
        text = post.read_text(encoding="utf-8")
        text = text.replace("python -m pip install --no-cache-dir --no-deps -e .",
                            f"python -m pip install --no-cache-dir --no-deps ./{wheel.name}")
        post.write_text(text, encoding="utf-8")
    (out / "README.md").write_text(_STUDENT_README.format(
        stage=stage, first=f"{min(numbers):02d}", last=f"{stage:02d}", wheel=wheel.name,
        python="%d.%d" % TARGET_PYTHON, **_notebook_needs(included)), encoding="utf-8")
    if solutions:
        done = [a for a, n in zip(names, numbers) if n < stage]
        for name in done:
            source = {grade_id(c): c for c in read_notebook(layout.source_notebook_path(name, course)).cells
                      if grade_id(c)}
            nb = read_notebook(layout.solutions_dir(course) / f"{name}.ipynb")
            for cell in nb.cells:
                if grade_id(cell) in source and "HIDDEN TESTS" in source[grade_id(cell)].source:
                    cell.source = _hidden_removed(source[grade_id(cell)].source)
            path = out / "solutions" / f"{name}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dumps(nb), encoding="utf-8")
        progress(f"solutions {len(done)} executed notebook(s), hidden tests removed")
    found = leaks(out, stage, course)
    if found:
        raise PipelineError(f"the edition for stage {stage} leaks answers ({len(found)}):\n"
                            + "\n".join(f"  {leak}" for leak in found[:20]))
    progress(f"checked  no file of {out} holds a solution of assignments >= {stage:02d} "
             "or a hidden test")
    return out


# ------------------------------------------------------------ the leak check

@dataclasses.dataclass
class Leak:
    file: str                   # the edition's file (a wheel member: "<wheel>!<member>")
    what: str                   # "solution of 08_check_inplace_answer" or "hidden test of ..."
    text: str                   # the line found

    def __str__(self):
        return f"{self.file}: {self.what}: {self.text!r}"


def _norm(text):
    """Spaces collapsed and quotes dropped: a message split over two string literals in
    one place and quoted whole in another is the same text."""
    return " ".join(re.sub(r"[\"'\\]", "", text).split())


def _cells(course, name):
    return read_notebook(layout.source_notebook_path(name, course)).cells


def solution_lines(course, name):
    """(grade_id, line) for every line inside ``### BEGIN/END SOLUTION`` of an assignment."""
    return [(grade_id(c), line) for c in _cells(course, name)
            for line in marked_lines(c.source)]


def hidden_test_lines(course, name):
    """(grade_id, line) for every line of an assignment's hidden tests."""
    return [(grade_id(c), line) for c in _cells(course, name)
            for line in marked_lines(c.source, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")]


def _strings_of(code):
    """The strings and names inside a code object and the code objects it holds."""
    found = []
    todo = [code]
    while todo:
        c = todo.pop()
        found += list(c.co_names) + list(c.co_varnames) + list(c.co_freevars) + [c.co_name]
        for const in c.co_consts:
            if isinstance(const, str):
                found.append(const)
            elif isinstance(const, types.CodeType):
                todo.append(const)
    return "\n".join(found)


def _text_of(name, data):
    """What a student could read in one file: text, a notebook's cells, a pyc's strings."""
    if name.endswith(".pyc"):
        return _strings_of(marshal.loads(data[16:]))
    if name.endswith(".ipynb"):
        nb = json.loads(data)
        parts = []
        for cell in nb.get("cells", []):
            parts.append("".join(cell.get("source", "")))
            for o in cell.get("outputs", []):
                parts.append("".join(o.get("text", "")))
                parts.append("".join(o.get("data", {}).get("text/plain", "")))
        return "\n".join(parts)
    return data.decode("utf-8", errors="replace")


def _edition_files(out):
    for path in sorted(Path(out).rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as zf:
                for member in zf.namelist():
                    yield f"{path.name}!{member}", zf.read(member)
        else:
            yield path.relative_to(out).as_posix(), path.read_bytes()


def leaks(out, stage, course=None):
    """Every line of a solution of an assignment ``>= stage``, or of any hidden test,
    found in a file of the edition in ``out``.

    A line counts when it is at least ``MIN_LEAK_LENGTH`` characters long (spaces
    collapsed, quotes dropped), appears in no release notebook and in no visible check
    (``autograd_course/checks``: the students' own text; task statements quote the
    messages to raise, and a hidden test may repeat a visible check's line) and in no solution of an earlier
    assignment (the students wrote it, and its reference ships as source); short lines
    (``return None``) are everyone's.  Sealed bytecode is read for its strings and names."""
    course = layout.course_dir(course)
    visible = sorted((course / "release").rglob("*.ipynb")) + sorted(_CHECKS.glob("*.py"))
    release_text = _norm("\n".join(_text_of(p.name, p.read_bytes()) for p in visible))
    wanted, known = [], set()
    for name in layout.assignments(course):
        number = int(name.split("_", 1)[0])
        if number >= stage:
            wanted += [(f"solution of {gid}", line) for gid, line in solution_lines(course, name)]
        else:                   # the students wrote these, and the edition ships them as source
            known.update(_norm(line) for _, line in solution_lines(course, name))
        wanted += [(f"hidden test of {gid}", line) for gid, line in hidden_test_lines(course, name)]
    known_text = "\n".join(known)
    wanted = [(what, _norm(line)) for what, line in wanted]
    wanted = [(what, line) for what, line in wanted
              if len(line) >= MIN_LEAK_LENGTH and not line.startswith("#") and line not in known_text
              and line not in release_text]
    found = []
    for file, data in _edition_files(out):
        text = _norm(_text_of(file, data))
        for what, line in wanted:
            if line in text:
                found.append(Leak(file, what, line))
    return found
