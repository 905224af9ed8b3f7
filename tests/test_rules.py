"""Text and tests cannot disagree (fast): a check grades only rules its task text states.

Every exercise's task text ends with a **Rules** list (``autograd_course.rules``); its rules
are read into ``autograd_course/rules.json``.  A check names a rule with
``R = grading.rules("03.execute")`` and ``rule=R("newest")``, and never writes one: this
module reads every check module and every hidden test (the code, not by running it) and
fails on a ``rule=`` that is a string of its own, or on a name that the exercise does not
state.  It also fails when a stated rule is graded by no check, when an exercise states no
rules, and when a mistake of the catalog names a rule its exercise does not state.
"""

import ast
import re

import pytest

from autograd_course import mistakes, pipeline, rules
from autograd_course.layout import assignments
from autograd_course.notebooks import exercise_id, grade_id, is_answer_cell, read_notebook, stated_rules

from tests.course import COURSE, REPO

CHECKS = REPO / "autograd_course" / "checks"
RULES_CALL = re.compile(r"^(?:grading\.)?rules$")

# Assignments (and their check modules) still being rewritten to name their rules: skipped,
# with the reason, until they are done.  The list must end empty (test_nothing_pending).
PENDING = set()
PENDING_MODULES = set()


def _registry():
    return rules.load()


def _call_name(node):
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return None


def _strings(args):
    return [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


class RuleUses(ast.NodeVisitor):
    """Where a piece of code names rules, and where it writes its own.

    ``exercises``: names bound to ``grading.rules("<id>")``; ``constants``: names bound to
    a call of one of them (``NEWEST = EXECUTE("newest")``), both also given from outside
    (what a hidden test imports from a check module)."""

    def __init__(self, where, exercises=None, constants=None):
        self.where = where
        self.exercises = dict(exercises or {})
        self.constants = dict(constants or {})
        self.named = []                   # (exercise, rule name)
        self.problems = []
        self.parameters = [set()]

    def bind(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                name = _call_name(node.value)
                targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if name and RULES_CALL.match(name) and _strings(node.value.args):
                    for target in targets:
                        self.exercises[target] = _strings(node.value.args)[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                name = _call_name(node.value)
                if name in self.exercises:
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            self.constants[target.id] = (self.exercises[name], tuple(_strings(node.value.args)))

    def visit_FunctionDef(self, node):
        params = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        self.parameters.append(params | self.parameters[-1])
        self.generic_visit(node)
        self.parameters.pop()

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Call(self, node):
        name = _call_name(node)
        if name in self.exercises:
            exercise = self.exercises[name]
            keys = _strings(node.args)
            if len(keys) != len(node.args) or not keys:
                self.problems.append(f"{self.where}:{node.lineno}: {name}(...) must name rules as plain strings")
            self.named += [(exercise, key) for key in keys]
        for keyword in node.keywords:
            if keyword.arg == "rule":
                self._check_rule(keyword.value, node.lineno)
        self.generic_visit(node)

    def _check_rule(self, value, line):
        if isinstance(value, ast.IfExp):
            self._check_rule(value.body, line)
            self._check_rule(value.orelse, line)
            return
        if isinstance(value, ast.Constant) and value.value is None:
            return
        if isinstance(value, ast.Call) and _call_name(value) in self.exercises:
            return
        if isinstance(value, ast.Name) and (value.id in self.constants or value.id in self.parameters[-1]):
            return
        shown = ast.unparse(value)
        self.problems.append(f"{self.where}:{line}: rule={shown[:70]} is not a rule the task text states: "
                             f"name one, as R(\"name\") with R = grading.rules(\"<exercise>\")")


def _relative_imports(tree):
    """(module, name, bound name) for every ``from .<module> import name`` of a check module."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                yield node.module, alias.name, alias.asname or alias.name


def _module_bindings():
    """{module name: RuleUses} for every check module.  A rule a module imports from another
    check module (a notebook's module shows its exercises' checks and rules by name) is bound
    in it too, so that a hidden test may import it from either."""
    paths = {path.stem: path for path in sorted(CHECKS.glob("*.py")) if path.stem != "__init__"}
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in paths.items()}
    modules = {name: RuleUses(path.relative_to(REPO).as_posix()) for name, path in paths.items()}
    for name, tree in trees.items():
        modules[name].bind(tree)
    changed = True
    while changed:                      # re-exports of re-exports
        changed = False
        for name, tree in trees.items():
            uses = modules[name]
            for module, imported, bound in _relative_imports(tree):
                source = modules.get(module)
                for mine, theirs in ((uses.exercises, source and source.exercises),
                                     (uses.constants, source and source.constants)):
                    if theirs and imported in theirs and mine.get(bound) != theirs[imported]:
                        mine[bound] = theirs[imported]
                        changed = True
    for name, tree in trees.items():
        modules[name].visit(tree)
    return modules


def _imports_from_checks(tree):
    """(module, name) for every ``from autograd_course.checks.<module> import name`` of a cell."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograd_course.checks."):
            module = node.module.rsplit(".", 1)[1]
            for alias in node.names:
                yield module, alias.name, alias.asname or alias.name


def scan_notebook(assignment, modules):
    """Every rule the code cells of a source notebook name, and the problems, with the
    names its cells import from check modules resolved."""
    nb = read_notebook(COURSE / "source" / assignment / f"{assignment}.ipynb")
    named, problems = [], []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or is_answer_cell(cell):
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        exercises, constants = {}, {}
        for module, name, bound in _imports_from_checks(tree):
            found = modules.get(module)
            if found is not None and name in found.exercises:
                exercises[bound] = found.exercises[name]
            if found is not None and name in found.constants:
                constants[bound] = found.constants[name]
        uses = RuleUses(f"{assignment} cell {index} ({grade_id(cell) or 'code'})", exercises, constants)
        uses.bind(tree)
        uses.visit(tree)
        named += uses.named
        problems += uses.problems
    return named, problems


@pytest.fixture(scope="module")
def modules():
    return _module_bindings()


def test_the_rules_file_is_what_the_task_texts_state():
    expected = pipeline.rules_text(COURSE)
    seen = rules.REGISTRY_FILE.read_text(encoding="utf-8")
    assert seen == expected, ("expected autograd_course/rules.json to hold the rules the task texts of "
                              "course/source state (run: make release); it differs")


@pytest.mark.parametrize("module", sorted(p.stem for p in CHECKS.glob("*.py") if p.stem != "__init__"))
def test_a_check_module_names_stated_rules(module, modules):
    if module in PENDING_MODULES:
        pytest.skip(f"checks/{module}.py is still being rewritten to name its rules")
    uses = modules[module]
    registry = _registry()
    problems = list(uses.problems)
    for exercise, key in uses.named:
        if key not in registry.get(exercise, {}):
            problems.append(f"{uses.where}: names rule {key!r} of {exercise}, which its task text does not state "
                            f"(it states: {', '.join(registry.get(exercise, {})) or 'no rules'})")
    assert not problems, "expected every check to name a rule its exercise states; found:\n" + "\n".join(problems)


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_every_exercise_states_rules_and_every_rule_is_graded(assignment, modules):
    if assignment in PENDING:
        pytest.skip(f"{assignment} is still being rewritten to state its rules")
    nb = read_notebook(COURSE / "source" / assignment / f"{assignment}.ipynb")
    stated = stated_rules(nb)
    answers = [exercise_id(grade_id(c)) for c in nb.cells if is_answer_cell(c)]
    missing = [a for a in answers if a not in stated]
    named, problems = scan_notebook(assignment, modules)
    for uses in modules.values():
        named += uses.named
        named += [(exercise, key) for exercise, keys in uses.constants.values() for key in keys]
    registry = _registry()
    for exercise, key in named:
        if exercise.startswith(assignment[:2] + ".") and key not in registry.get(exercise, {}):
            problems.append(f"a check names rule {key!r} of {exercise}, which its task text does not state")
    graded = set(named)
    ungraded = [f"{exercise}: {key}" for exercise, keys in stated.items() for key in keys
                if (exercise, key) not in graded]
    assert not missing, f"{assignment}: expected every exercise to state its rules (a **Rules** list); none for {missing}"
    assert not problems, f"{assignment}: expected the tests to name only stated rules; found:\n" + "\n".join(problems)
    assert not ungraded, (f"{assignment}: expected every stated rule to be graded by some check; no check names "
                          + ", ".join(ungraded))


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_a_mistake_names_a_rule_its_exercise_states(assignment):
    if assignment in PENDING:
        pytest.skip(f"{assignment} is still being rewritten to state its rules")
    registry = _registry()
    problems = []
    for mistake in mistakes.catalogs(COURSE).get(assignment[:2], []):
        exercise = exercise_id(mistake.grade_id)
        if mistake.rule not in registry.get(exercise, {}):
            problems.append(f"{mistake.grade_id} {mistake.name!r}: rule {mistake.rule!r} is not a rule "
                            f"{exercise} states ({', '.join(registry.get(exercise, {})) or 'none'})")
    assert not problems, "expected each mistake to name the stated rule it breaks:\n" + "\n".join(problems)


def test_the_scanner_finds_a_rule_a_check_writes_itself():
    """The check can fail: a rule written as a string, and one the exercise does not state."""
    source = ('from autograd_course import grading\nR = grading.rules("03.execute")\n'
              'def f(fn):\n    grading.expect_equal(1, 1, what="x", rule="my own rule")\n'
              '    grading.expect_equal(1, 1, what="x", rule=R("no-such-rule"))\n')
    uses = RuleUses("planted")
    tree = ast.parse(source)
    uses.bind(tree)
    uses.visit(tree)
    assert any("my own rule" in p for p in uses.problems), f"expected the written rule to be found, got {uses.problems}"
    assert ("03.execute", "no-such-rule") in uses.named, f"expected the named rule to be read, got {uses.named}"


def test_a_rule_a_notebooks_module_shows_is_the_one_it_imports(modules):
    """02's hidden tests import DEEP from the notebook's module, which imports it from graph_walks."""
    expected = ("02.graph_nodes", ("deep",))
    assert modules["graph_walks"].constants.get("DEEP") == expected, \
        f"expected graph_walks to bind DEEP to {expected}, seen {modules['graph_walks'].constants.get('DEEP')}"
    assert modules["graph"].constants.get("DEEP") == expected, \
        f"expected graph's DEEP (imported from graph_walks) to be {expected}, seen {modules['graph'].constants.get('DEEP')}"


def test_a_rules_list_is_read_from_a_task_text():
    from autograd_course.notebooks import rules_in
    text = ("Write `f`.\n\n**Rules**\n- `once`: every node runs once,\n  and only once.\n"
            "- `newest`: the newest runs first.\n\nMore prose.")
    assert rules_in(text) == {"once": "every node runs once, and only once.", "newest": "the newest runs first."}
    assert rules_in("no rules here") is None



def test_nothing_pending():
    """Every assignment and check module names its rules: the skips above are for a rewrite
    in progress, never a state of main."""
    assert not PENDING and not PENDING_MODULES, \
        f"expected no assignment or check module still pending, seen {sorted(PENDING)} and {sorted(PENDING_MODULES)}"
