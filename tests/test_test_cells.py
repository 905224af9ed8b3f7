"""Tests off the screen (fast): a visible test cell is a line or two that calls a check.

What a student sees of a test cell is its visible part: it must be at most
``MAX_VISIBLE_LINES`` lines of code (comments and blank lines not counted), each
check it calls a documented function of the notebook's module in
``autograd_course.checks`` (imported by the setup cell as ``check``), and no locked
cell of helpers sits between the exercises: helpers live in modules.  The hidden
part of a cell, stripped from the release, may be as long as it needs.
"""

import ast
import importlib
import re

import pytest

from autograd_course.layout import assignments
from autograd_course.notebooks import grade_id, is_test_cell, read_notebook

from tests.course import COURSE

MAX_VISIBLE_LINES = 3
SETUP_IMPORT = re.compile(r"^from autograd_course\.checks import (\w+) as check$", re.M)
HIDDEN = re.compile(r"^[^\n]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[^\n]*$", re.S | re.M)


def visible_code(source):
    """The lines of a test cell a student sees, without comments and blank lines."""
    lines = HIDDEN.sub("", source).splitlines()
    return [line for line in lines if line.strip() and not line.strip().startswith("#")]


def check_calls(code):
    """The names ``n`` of every ``check.n(...)`` in ``code``."""
    return [node.func.attr for node in ast.walk(ast.parse(code))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "check"]


def _notebook(assignment):
    return read_notebook(COURSE / "source" / assignment / f"{assignment}.ipynb")


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_visible_test_cells_are_a_line_or_two(assignment):
    nb = _notebook(assignment)
    long = {grade_id(c): len(visible_code(c.source)) for c in nb.cells
            if is_test_cell(c) and len(visible_code(c.source)) > MAX_VISIBLE_LINES}
    assert not long, (f"{assignment}: expected every visible test cell to be at most {MAX_VISIBLE_LINES} lines "
                      f"calling autograd_course.checks; seen (cell: visible lines): {long}")


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_visible_tests_call_documented_checks(assignment):
    nb = _notebook(assignment)
    setup = "\n".join(c.source for c in nb.cells if grade_id(c) == f"{assignment[:2]}_setup")
    found = SETUP_IMPORT.search(setup)
    assert found, (f"{assignment}: expected the setup cell to import its checks as "
                   f"`from autograd_course.checks import <module> as check`; seen:\n{setup}")
    module = importlib.import_module(f"autograd_course.checks.{found.group(1)}")
    problems = []
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        names = check_calls("\n".join(visible_code(cell.source)))
        if not names:
            problems.append(f"{grade_id(cell)}: calls no check")
        for name in names:
            fn = getattr(module, name, None)
            if not callable(fn) or not (fn.__doc__ or "").strip():
                problems.append(f"{grade_id(cell)}: check.{name} is not a documented function of {module.__name__}")
    assert not problems, f"{assignment}: " + "; ".join(problems)


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_no_cell_of_test_helpers(assignment):
    helpers = [grade_id(c) for c in _notebook(assignment).cells if (grade_id(c) or "").endswith("_helpers")]
    assert not helpers, (f"{assignment}: expected the tests' helpers in autograd_course.checks, not in the "
                         f"notebook; seen helper cells {helpers}")


def test_the_checks_fail_a_cell_that_is_too_long():
    cell = "check.a(f)\nx = 1\ny = 2\nz = 3\n### BEGIN HIDDEN TESTS\nmany = 1\nmore = 2\n### END HIDDEN TESTS"
    assert len(visible_code(cell)) == 4, f"expected 4 visible lines in {cell!r}, saw {visible_code(cell)}"
    assert check_calls("\n".join(visible_code(cell))) == ["a"], "expected check.a to be found"


def _named_in_table(lines):
    """The ``name`` or ``name`` words written in code quotes on the lines of a table."""
    return set(re.findall(r"``?(\w+)``?", "\n".join(lines)))


def test_the_module_maps_name_every_check_module():
    """The package's docstring and AUTHORING.md's table name every module of the checks (a new
    module is found by a reader, not only by the integrity snapshot)."""
    import autograd_course.checks as checks
    modules = {name.rsplit(".", 1)[1] for name in checks.module_names()}
    docstring = checks.__doc__.splitlines()
    rulers = [i for i, line in enumerate(docstring) if line.startswith("====")]
    in_docstring = _named_in_table(docstring[rulers[0]:rulers[-1]]) if len(rulers) >= 2 else set()
    authoring = (COURSE / "AUTHORING.md").read_text(encoding="utf-8")
    section = authoring.split("## The check modules", 1)[-1].split("\n## ", 1)[0]
    in_authoring = _named_in_table([line for line in section.splitlines() if line.startswith("|")])
    assert modules <= in_docstring, ("expected autograd_course/checks/__init__.py's table to name every check "
                                     f"module; it does not name {sorted(modules - in_docstring)}")
    assert modules <= in_authoring, ("expected course/AUTHORING.md's table of the check modules to name every "
                                     f"check module; it does not name {sorted(modules - in_authoring)}")
