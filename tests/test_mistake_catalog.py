"""The mistake catalogs (course/mistakes/m<NN>.py) fit the current solutions.

Each catalogued mistake is an edit of a solution cell.  These checks need no
nbgrader and run in the fast suite: every mistake applies to the solution it
names and changes its code, and an edit that no longer fits its solution is
an error that names the mistake, not a silently graded old answer.  (Whether
the tests catch each mistake is tests/course/test_mistakes.py, with nbgrader.)
"""

import ast

import pytest

from autograd_course.layout import assignment_for, source_notebook_path
from autograd_course.mistakes import Mistake, StaleMistake, catalog_files, catalogs, with_mistake
from autograd_course.notebooks import grade_id, is_answer_cell, read_notebook, solution_notebook
from tests.course import COURSE

CATALOGS = catalogs(COURSE)


def _solutions(number):
    nb = solution_notebook(read_notebook(source_notebook_path(assignment_for(number, COURSE), COURSE)))
    return nb, {grade_id(c): c.source for c in nb.cells if is_answer_cell(c)}


def test_every_assignment_has_a_catalog():
    numbers = sorted(name.name.split("_", 1)[0] for name in (COURSE / "source").iterdir()
                     if (name / f"{name.name}.ipynb").is_file())
    assert sorted(CATALOGS) == numbers, \
        f"expected one course/mistakes/m<NN>.py per assignment {numbers}, found {sorted(catalog_files(COURSE))}"


@pytest.mark.parametrize("number", sorted(CATALOGS))
def test_every_mistake_applies_to_the_current_solution(number):
    _, solutions = _solutions(number)
    problems = []
    for mistake in CATALOGS[number]:
        if mistake.grade_id not in solutions:
            problems.append(f"{mistake.name!r}: {mistake.grade_id} is not an answer cell "
                            f"(answer cells: {', '.join(sorted(solutions))})")
            continue
        solution = solutions[mistake.grade_id]
        try:
            made = mistake.apply(solution)
        except StaleMistake as error:
            problems.append(str(error).split("\n")[0])
            continue
        try:
            changed = ast.dump(ast.parse(made)) != ast.dump(ast.parse(solution))
        except SyntaxError as error:
            problems.append(f"{mistake.name!r} ({mistake.grade_id}) is not valid Python once made: {error}")
            continue
        if not changed:
            problems.append(f"{mistake.name!r} ({mistake.grade_id}) leaves the solution's code as it was "
                            f"(only comments or layout change)")
    assert not problems, f"expected every mistake of m{number}.py to edit its solution; saw:\n" + "\n".join(problems)


@pytest.mark.parametrize("number", sorted(CATALOGS))
def test_mistakes_of_an_exercise_are_distinct(number):
    made = {}
    _, solutions = _solutions(number)
    for mistake in CATALOGS[number]:
        code = ast.dump(ast.parse(mistake.apply(solutions[mistake.grade_id])))
        made.setdefault((mistake.grade_id, code), []).append(mistake.name)
    same = [names for names in made.values() if len(names) > 1]
    assert not same, f"expected each mistake of m{number}.py to make different code; the same code: {same}"


def test_a_stale_edit_names_the_mistake_and_the_missing_text():
    mistake = Mistake("00_double_answer", "adds two", edits=[("2 * x", "x + 2")], rule="doubling")
    assert mistake.apply("def double(x):\n    return 2 * x") == "def double(x):\n    return x + 2"
    with pytest.raises(StaleMistake) as missing:
        mistake.apply("def double(x):\n    return x * 2")
    message = str(missing.value)
    assert "'adds two'" in message and "00_double_answer" in message and "'2 * x'" in message \
        and "does not occur" in message, f"expected the mistake, its cell and the missing text named, saw {message!r}"
    with pytest.raises(StaleMistake, match="occurs 2 times"):
        mistake.apply("def double(x):\n    y = 2 * x\n    return 2 * x")


def test_with_mistake_edits_a_copy_of_the_notebook():
    number = sorted(CATALOGS)[0]
    nb, solutions = _solutions(number)
    mistake = CATALOGS[number][0]
    wrong = with_mistake(nb, mistake)
    edited = [c.source for c in wrong.cells if is_answer_cell(c) and grade_id(c) == mistake.grade_id]
    assert edited == [mistake.apply(solutions[mistake.grade_id])], "expected the answer cell edited"
    assert {grade_id(c): c.source for c in nb.cells if is_answer_cell(c)} == solutions, \
        "expected the solution notebook itself unchanged"
    stray = Mistake("01_no_such_answer", "x", edits=[("a", "b")], rule="x")
    with pytest.raises(StaleMistake, match="01_no_such_answer"):
        with_mistake(nb, stray)


@pytest.mark.parametrize("bad, needle", [
    (dict(edits=[]), "no edits"),
    (dict(edits=[("", "x")]), "non-empty old"),
    (dict(edits=[("x", "x")]), "changes nothing"),
    (dict(edits=["x"]), "pair"),
    (dict(rule=""), "rule must be a non-empty str"),
])
def test_a_malformed_mistake_is_refused(bad, needle):
    fields = dict(grade_id="01_x_answer", name="n", edits=[("a", "b")], rule="r") | bad
    with pytest.raises(TypeError, match=needle):
        Mistake(**fields)


def test_a_catalog_of_another_assignment_is_refused(tmp_path):
    (tmp_path / "mistakes").mkdir()
    (tmp_path / "mistakes" / "m02.py").write_text(
        "from autograd_course.mistakes import Mistake\n"
        "MISTAKES = [Mistake('03_x_answer', 'n', edits=[('a', 'b')], rule='r')]\n")
    with pytest.raises(ValueError, match="other assignments"):
        catalogs(tmp_path)
