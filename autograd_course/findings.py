"""What the checks found in a graded submission, kept beside the gradebook for the class report.

Every failing check names the rule of the task text it grades (``rule <name>: <text>``,
:mod:`autograd_course.feedback`), with what it expected and what it saw.  When autograde
grades a submission (``autograd_course.record.RecordFindings``, the last step of nbgrader's
autograde pipeline), the graded notebook is read once into a **record**::

    {"student": "ada", "assignment": "02_graph", "notebook": "02_graph",
     "recorded_at": "2025-01-31T09:12:00", "status": "graded",   # or "failed": autograde failed
     "reason": None,                                             # why it did not run
     "not_run": [{"cell": "02_graph_nodes_answer", "reason": "the cell ran longer than ..."}],
     "tests": [{"cell": "02_gradient_edge_test", "exercise": "02.gradient_edge",
                "score": 0.0, "max_score": 3.0, "status": "failed",   # full | failed | unwritten | not-run
                "rules": [{"name": "shared", "text": "while a leaf's ..."}],
                "headline": "...", "expected": "True", "seen": "two different AccumulateGrad objects"}]}

and stored in ``<course>/findings.db`` (sqlite, one row per student and assignment,
replaced when the submission is graded again; :class:`Store`).  The report
(:mod:`autograd_course.report`) reads these records, never the HTML and never students' code.

A test is ``unwritten`` when its exercise was never answered (the check saw a
``NotImplementedError``): the student broke no rule, they wrote nothing.  It is
``not-run`` when the grader could not run it (a time-out, a dead kernel); those reasons
are also listed in ``not_run`` with the cells that caused them.  A notebook checked by
un-migrated tests, whose failures print ``rule:     <sentence>``, has rules without a name
(``"name": None``): the report groups them by their sentence.

Nothing here imports nbgrader.
"""

import json
import re
import sqlite3
import time
from pathlib import Path

from .feedback import WIDTH
from .notebooks import exercise_id, exercise_of, grade_id, is_answer_cell, is_test_cell, tests_of

__all__ = ["FILE", "parse_failure", "record_of", "failed_record", "exercise_map", "Store"]

FILE = "findings.db"

# The grader's own errors for cells it could not run (autograd_course.autograde.GuardedExecute).
NOT_RUN = ("KernelDied", "NotRun", "CellTimeoutError")
_FIELD = re.compile(r"^  (expected|seen):\s*(.*)$")
_RULE = re.compile(r"^  rule (?P<name>[a-z][a-z0-9-]*): (?P<text>.*)$")
_SENTENCE = re.compile(r"^  rule:\s+(?P<text>.*)$")
_UNWRITTEN = re.compile(r"\bNotImplementedError\b|is not written yet")


def _unwrap(lines):
    return " ".join(part.strip() for part in lines).strip()


def parse_failure(message):
    """``{"headline", "expected", "seen", "rules": [{"name", "text"}]}`` of a failed check's
    message (:func:`autograd_course.feedback.failure_text`), its wrapped lines joined."""
    found = {"headline": "", "expected": None, "seen": None, "rules": []}
    current = None                       # (kind, key, [lines]) being read
    headline = []

    def close():
        if current is None:
            return
        kind, key, parts = current
        if kind == "field":
            # A value's own lines and the lines a long one was wrapped into have the same
            # indent; a wrapped line was long (textwrap filled it to the width).
            text = parts[0].strip()
            for number, (previous, part) in enumerate(zip(parts, parts[1:])):
                width = len(previous.rstrip()) + (12 if number == 0 else 0)    # "  expected: "
                text += (" " if width > WIDTH - 24 else "\n") + part.strip()
            found[key] = text
        else:
            found["rules"].append({"name": key, "text": _unwrap(parts)})

    for line in str(message).split("\n"):
        field, rule, sentence = _FIELD.match(line), _RULE.match(line), _SENTENCE.match(line)
        if field or rule or sentence:
            close()
            if field:
                current = ("field", field.group(1), [field.group(2)])
            elif rule:
                current = ("rule", rule["name"], [rule["text"]])
            else:
                current = ("rule", None, [sentence["text"]])
        elif current is not None and line.startswith("    ") and line.strip():
            current[2].append(line)                  # a wrapped line of the field or rule
        elif current is None and (not headline or line.startswith("  ")):
            headline.append(line)
        else:
            close()
            current = None
    close()
    found["headline"] = _unwrap(headline)
    return found


def _errors(cell):
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def _stderr(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


def _not_run_reason(cell):
    for error in _errors(cell):
        if error.get("ename") in NOT_RUN:
            return str(error.get("evalue", "")).strip()
    return None


def exercise_map(nb):
    """{test cell grade id: exercise id ("02.gradient_edge")}, in the notebook's order, from
    the answer cells (a test belongs to the longest exercise name it starts with)."""
    answers = [grade_id(c) for c in nb.cells if is_answer_cell(c) and grade_id(c)]
    tests = [grade_id(c) for c in nb.cells if is_test_cell(c) and grade_id(c)]
    owner = {}
    for answer in sorted(answers, key=len):
        for test in tests_of(exercise_of(answer), tests):
            owner[test] = exercise_id(answer)
    return {test: owner[test] for test in tests if test in owner}


def _test(cell, exercise, score, max_score):
    entry = {"cell": grade_id(cell), "exercise": exercise, "score": float(score),
             "max_score": float(max_score), "status": "full" if score >= max_score else "failed",
             "rules": [], "headline": "", "expected": None, "seen": None}
    if entry["status"] == "full":
        return entry
    reason = _not_run_reason(cell)
    if reason is not None:
        entry.update(status="not-run", headline=reason)
        return entry
    errors = [e for e in _errors(cell) if e.get("ename") != "GradingIntegrityError"] or _errors(cell)
    parsed = [(e, parse_failure(e.get("evalue", ""))) for e in errors]
    named = [pair for pair in parsed if pair[1]["rules"]] or parsed[-1:]
    for error, found in named[:1]:                 # the first failure that names a rule
        headline = found["headline"] or str(error.get("evalue", ""))
        if error.get("ename") != "CheckFailure":
            headline = f"{error.get('ename')}: {headline}"
        entry.update(rules=found["rules"], expected=found["expected"], seen=found["seen"], headline=headline)
    if not errors:
        entry["headline"] = _stderr(cell).strip()[:500] or "the cell printed to stderr or showed no points"
    text = " ".join(filter(None, [entry["headline"], entry["seen"] or ""]))
    if _UNWRITTEN.search(text):
        entry["status"] = "unwritten"
    return entry


def record_of(nb, student, assignment, notebook=None, scores=None):
    """The record of a graded notebook ``nb`` (see the module doc).  ``scores``:
    ``{grade id: (score, max score)}`` as nbgrader gave them; by default a test cell with an
    error output scores 0 and any other its points."""
    scores = scores or {}
    exercises = exercise_map(nb)
    tests, not_run = [], []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        reason = _not_run_reason(cell)
        if reason is not None:
            not_run.append({"cell": grade_id(cell) or "", "reason": reason})
        if not is_test_cell(cell):
            continue
        gid = grade_id(cell)
        points = float(cell.metadata.nbgrader.get("points", 0) or 0)
        score, max_score = scores.get(gid, (0.0 if _errors(cell) else points, points))
        tests.append(_test(cell, exercises.get(gid, exercise_id(gid.split("_test")[0])), score, max_score))
    return {"student": student, "assignment": assignment, "notebook": notebook or assignment,
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S"), "status": "graded",
            "reason": "; ".join(dict.fromkeys(n["reason"] for n in not_run)) or None,
            "not_run": not_run, "tests": tests}


def failed_record(student, assignment, reason):
    """The record of a submission autograde could not grade at all (its notebook did not run)."""
    return {"student": student, "assignment": assignment, "notebook": assignment,
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S"), "status": "failed",
            "reason": reason.strip()[-2000:] or "autograde failed", "not_run": [], "tests": []}


class Store:
    """``<course>/findings.db``: one record per (student, assignment).  Every write is one
    sqlite transaction (atomic; grading processes wait for each other's, up to a minute), and
    a submission graded again replaces its row."""

    def __init__(self, course):
        self.path = Path(course) / FILE

    def _connect(self):
        db = sqlite3.connect(self.path, timeout=60)
        db.execute("CREATE TABLE IF NOT EXISTS findings (student TEXT NOT NULL, assignment TEXT NOT NULL, "
                   "recorded_at TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (student, assignment))")
        return db

    def put(self, record):
        db = self._connect()
        try:
            with db:
                db.execute("INSERT OR REPLACE INTO findings VALUES (?, ?, ?, ?)",
                           (record["student"], record["assignment"], record["recorded_at"],
                            json.dumps(record, sort_keys=True)))
        finally:
            db.close()

    def drop(self, student, assignment):
        if not self.path.is_file():
            return
        db = self._connect()
        try:
            with db:
                db.execute("DELETE FROM findings WHERE student = ? AND assignment = ?", (student, assignment))
        finally:
            db.close()

    def records(self, assignment=None):
        """The records, of one assignment or all, sorted by assignment and student."""
        if not self.path.is_file():
            return []
        db = self._connect()
        try:
            query = "SELECT record FROM findings"
            rows = (db.execute(query + " WHERE assignment = ? ORDER BY student", (assignment,)) if assignment
                    else db.execute(query + " ORDER BY assignment, student")).fetchall()
        finally:
            db.close()
        return [json.loads(row[0]) for row in rows]

