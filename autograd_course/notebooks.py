"""Notebooks of the course: reading, writing in a normalized form, and their cells.

The one place that says what a cell is for the grader, the pipeline and the
tests alike:

* an **answer cell** carries nbgrader metadata ``solution: true``
  (:func:`is_answer_cell`);
* a **test cell** is a code cell with ``grade: true`` and no ``solution``
  (:func:`is_test_cell`): nbgrader gives it points when it runs without an error;
* a cell's **grade_id** names it (:func:`grade_id`); an exercise ``02_gradient_edge``
  has the answer cell ``02_gradient_edge_answer`` and the test cells whose ids
  start with ``02_gradient_edge_test`` (:func:`exercise_of`, :func:`tests_of`).

Generated notebooks are written normalized (:func:`dumps`): no timings, UI state
or Python version, stable cell ids, so regenerating one changes nothing.
nbformat is imported when a notebook is read or written, not before.
"""

import copy
import hashlib
import re
from pathlib import Path

from .layout import PipelineError

# nbgrader's own rule: a line *containing* the delimiter is a marker line.
MARKER_LINE = re.compile(r"BEGIN SOLUTION|END SOLUTION|BEGIN HIDDEN TESTS|END HIDDEN TESTS")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# Volatile metadata: stripped from every generated notebook, never compared.
VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")
VOLATILE_NOTEBOOK_METADATA = ("widgets",)


# ------------------------------------------------------------------ cells

def nbgrader_meta(cell):
    """The cell's nbgrader metadata ({} for an ordinary cell)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def grade_id(cell):
    return nbgrader_meta(cell).get("grade_id")


def is_answer_cell(cell):
    """A cell the student writes (nbgrader ``solution``)."""
    return bool(nbgrader_meta(cell).get("solution"))


def is_test_cell(cell):
    """A code cell that nbgrader grades by running it (``grade`` and not ``solution``)."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def exercise_of(answer_grade_id):
    """``02_gradient_edge_answer`` -> ``02_gradient_edge``."""
    return re.sub(r"_answer$", "", answer_grade_id)


def tests_of(exercise, grade_ids):
    """The test cells of an exercise: their grade_id starts with ``<exercise>_test``
    (``02_gradient_edge_test``, ``02_gradient_edge_test2``, ``02_gradient_edge_test_hidden``)."""
    return sorted(g for g in grade_ids if g.startswith(exercise + "_test"))


def exercise_id(answer_grade_id):
    """``03_execute_answer`` -> ``03.execute``: the id the rules and the feedback use."""
    number, _, name = exercise_of(answer_grade_id).partition("_")
    return f"{number}.{name}"


# A task's rules: a line that starts "**Rules**", then one item per rule,
# "- `name`: text", whose text may go on over indented lines.
RULES_MARK = re.compile(r"^\*\*Rules\*\*")
RULE_ITEM = re.compile(r"^[-*] `(?P<name>[^`]*)`: (?P<text>\S.*)$")
RULE_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def rules_in(markdown):
    """The rules list of a markdown cell, ``{name: text}`` in order, or None when it has none.
    Raises ``PipelineError`` for a list the checks could not name (a bad or repeated name)."""
    lines = markdown.split("\n")
    starts = [i for i, line in enumerate(lines) if RULES_MARK.match(line)]
    if not starts:
        return None
    if len(starts) > 1:
        raise PipelineError("a task text has two **Rules** lists")
    found, name = {}, None
    for line in lines[starts[0] + 1:]:
        item = RULE_ITEM.match(line)
        if item:
            name = item["name"]
            if not RULE_NAME.match(name):
                raise PipelineError(f"rule name {name!r}: use lowercase letters, digits and hyphens")
            if name in found:
                raise PipelineError(f"rule {name!r} is stated twice")
            found[name] = item["text"].strip()
        elif name is not None and line.startswith("  ") and line.strip():
            found[name] += " " + line.strip()
        elif not line.strip() and not found:
            continue
        else:
            break
    if not found:
        raise PipelineError("a **Rules** line with no rule after it (items look like: - `name`: text)")
    return found


def stated_rules(nb):
    """``{exercise id: {rule name: text}}``: the rules list that each exercise's task text
    states, found in the markdown cells between the previous answer cell and its own."""
    found, pending = {}, None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            try:
                rules = rules_in(cell.source)
            except PipelineError as error:
                raise PipelineError(f"{_where(cell)}: {error}") from None
            if rules is not None:
                if pending is not None:
                    raise PipelineError(f"{_where(cell)}: a second **Rules** list before the answer cell")
                pending = rules
        elif is_answer_cell(cell):
            if pending is not None:
                found[exercise_id(grade_id(cell))] = pending
            pending = None
    return found


PLUGGED = re.compile(r"exercises\.plug\(\s*[\"']([\w.]+)[\"']")


def plugged_slots(nb):
    """``{slot id: exercise id}``: the slots each answer cell plugs (one exercise may fill several)."""
    return {slot: exercise_id(grade_id(cell)) for cell in nb.cells if is_answer_cell(cell)
            for slot in PLUGGED.findall(cell.source)}


def _where(cell):
    first = cell.source.strip().split("\n")[0][:60]
    return f"the markdown cell {first!r}"


def marked_lines(source, begin="BEGIN SOLUTION", end="END SOLUTION"):
    """The lines between the ``### <begin>`` and ``### <end>`` markers of a cell's source
    (by default a solution: what a student writes)."""
    found, inside = [], False
    for line in source.split("\n"):
        if end in line:
            inside = False
        elif begin in line:
            inside = True
        elif inside:
            found.append(line)
    return found


def strip_markers(source):
    """The source without its ``### BEGIN/END SOLUTION`` and ``### BEGIN/END
    HIDDEN TESTS`` lines; the code between them stays."""
    return "\n".join(line for line in source.split("\n") if not MARKER_LINE.search(line))


def output_text(cell):
    """The text a cell printed: streams, results, errors (ANSI colours removed)."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
            parts.append("\n".join(out.get("traceback", [])))
    return ANSI.sub("", "\n".join(parts))


# -------------------------------------------------------------- notebooks

def read_notebook(path):
    import nbformat
    return nbformat.read(str(path), as_version=4)


def normalize(nb):
    """A copy of ``nb`` without volatile metadata (timings, UI state, Python version)."""
    nb = copy.deepcopy(nb)
    for key in VOLATILE_NOTEBOOK_METADATA:
        nb.metadata.pop(key, None)
    if "language_info" in nb.metadata:
        nb.metadata.language_info.pop("version", None)
    for index, cell in enumerate(nb.cells):
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if (nb.nbformat, nb.nbformat_minor) >= (4, 5) and not cell.get("id"):
            cell["id"] = _stable_id(index, cell)
    return nb


def _stable_id(index, cell):
    return grade_id(cell) or f"cell-{index:03d}-" + hashlib.sha1(cell.source.encode()).hexdigest()[:8]


def dumps(nb):
    """The normalized JSON text of a notebook (sorted keys, indent 1, final newline)."""
    import nbformat
    text = nbformat.writes(normalize(nb))
    return text if text.endswith("\n") else text + "\n"


def write_notebook(nb, path):
    """Write normalized JSON; returns True when the file changed."""
    path = Path(path)
    text = dumps(nb)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def solution_notebook(source_nb):
    """The source notebook with the marker lines removed (solutions and hidden
    tests kept), no outputs; the nbgrader metadata stays, so it can also be
    submitted as a perfect answer."""
    nb = copy.deepcopy(source_nb)
    for cell in nb.cells:
        cell.source = strip_markers(cell.source)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def with_answer(nb, answer_grade_id, code):
    """A copy of ``nb`` whose answer cell ``answer_grade_id`` holds ``code``."""
    nb = copy.deepcopy(nb)
    cells = [c for c in nb.cells if grade_id(c) == answer_grade_id and is_answer_cell(c)]
    if len(cells) != 1:
        answers = [grade_id(c) for c in nb.cells if is_answer_cell(c)]
        raise PipelineError(f"no answer cell {answer_grade_id!r} (answer cells: {', '.join(answers)})")
    cells[0].source = code
    return nb
