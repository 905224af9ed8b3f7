"""The findings recorded at grading time and the class report built from them, without
grading anything (tests/course/test_report.py grades a class of 60 with real nbgrader).

A failing check's message is read back into its rules, expected and seen values; a graded
notebook becomes one record per student (unwritten exercises and cells that did not run
told apart from broken rules); the store keeps one record per student and assignment;
the page counts students per rule, finds a rule broken twice in a row, and names nobody
when anonymous.
"""

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograd_course import report
from autograd_course.feedback import failure_text
from autograd_course.findings import Store, failed_record, parse_failure, record_of
from autograd_course.rules import rules

EDGE = rules("02.gradient_edge")


def test_a_failure_message_is_read_back_into_its_parts():
    message = failure_text("`gradient_edge(w)[0]`, called twice: the same node is wrong.",
                           (("expected", "True"), ("seen", "two different AccumulateGrad objects " * 3)),
                           EDGE("shared", "leaf"))
    found = parse_failure(message)
    assert [r["name"] for r in found["rules"]] == ["shared", "leaf"], found
    assert found["rules"][0]["text"] == rules("02.gradient_edge").stated["shared"], \
        f"expected the wrapped rule text joined back, saw {found['rules'][0]['text']!r}"
    assert found["expected"] == "True"
    assert found["seen"] == ("two different AccumulateGrad objects " * 3).strip(), found["seen"]
    assert found["headline"] == "`gradient_edge(w)[0]`, called twice: the same node is wrong."


def test_an_unmigrated_rule_sentence_is_read_without_a_name():
    found = parse_failure(failure_text("x.grad is wrong.", (("expected", "[1.0]"), ("seen", "[2.0]")),
                                       "only a non-leaf that called retain_grad gets a .grad"))
    assert found["rules"] == [{"name": None, "text": "only a non-leaf that called retain_grad gets a .grad"}]
    assert (found["expected"], found["seen"]) == ("[1.0]", "[2.0]")


def _cell(grade_id, source, outputs=(), kind="test", points=3):
    cell = new_code_cell(source)
    meta = {"grade_id": grade_id, "locked": kind == "test", "schema_version": 3,
            "grade": kind == "test", "solution": kind == "answer"}
    if kind == "test":
        meta["points"] = points
    cell.metadata["nbgrader"] = meta
    cell.outputs = list(outputs)
    return cell


def _error(ename, evalue):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _graded(broken=(), unwritten=False, timeout=False):
    """A graded notebook of 02's first exercise: its test cells pass, or fail naming ``broken``."""
    nb = new_notebook(cells=[new_markdown_cell("## 6. Where a gradient enters")])
    answer_outputs = [_error("CellTimeoutError", "the cell ran longer than the per-cell limit of 5 s")] \
        if timeout else []
    nb.cells.append(_cell("02_gradient_edge_answer", "def gradient_edge(t): ...", answer_outputs, kind="answer"))
    for index, rule in enumerate(["shared", "leaf"]):
        outputs = []
        if unwritten:
            outputs = [_error("CheckFailure", failure_text("gradient_edge(w) raised an error.",
                                                           (("seen", "NotImplementedError: no code yet"),),
                                                           EDGE(rule)))]
        elif rule in broken:
            outputs = [_error("CheckFailure", failure_text("the node is wrong.", (("expected", "True"),
                                                                                  ("seen", f"False {index}")),
                                                           EDGE(rule)))]
        nb.cells.append(_cell("02_gradient_edge_test" + ("2" if index else ""), "check()", outputs))
    return nb


def test_a_graded_notebook_becomes_a_record():
    record = record_of(_graded(broken=["leaf"]), "ada", "02_graph")
    tests = {t["cell"]: t for t in record["tests"]}
    assert tests["02_gradient_edge_test"]["status"] == "full"
    failed = tests["02_gradient_edge_test2"]
    assert (failed["status"], failed["exercise"], failed["score"], failed["max_score"]) == \
        ("failed", "02.gradient_edge", 0.0, 3.0), failed
    assert [r["name"] for r in failed["rules"]] == ["leaf"] and failed["seen"] == "False 1", failed
    assert record["reason"] is None and record["not_run"] == []


def test_an_unwritten_exercise_breaks_no_rule_and_a_timeout_is_a_reason():
    blank = record_of(_graded(unwritten=True), "bob", "02_graph")
    assert {t["status"] for t in blank["tests"]} == {"unwritten"}, blank["tests"]
    stuck = record_of(_graded(timeout=True), "cy", "02_graph")
    assert stuck["not_run"] == [{"cell": "02_gradient_edge_answer",
                                 "reason": "the cell ran longer than the per-cell limit of 5 s"}]
    assert "per-cell limit" in stuck["reason"]


def test_the_store_keeps_one_record_per_student_and_assignment(tmp_path):
    store = Store(tmp_path)
    store.put(record_of(_graded(broken=["leaf"]), "ada", "02_graph"))
    store.put(record_of(_graded(), "bob", "02_graph"))
    store.put(record_of(_graded(), "ada", "02_graph"))                 # regraded: replaced
    store.put(failed_record("cy", "02_graph", "Kernel died before replying to kernel_info"))
    records = store.records("02_graph")
    assert [r["student"] for r in records] == ["ada", "bob", "cy"], records
    assert all(t["status"] == "full" for t in records[0]["tests"]), "ada's regrade did not replace her record"
    assert records[2]["status"] == "failed" and "kernel_info" in records[2]["reason"]
    store.drop("cy", "02_graph")
    assert [r["student"] for r in store.records()] == ["ada", "bob"]


def _assignment(name, graded, failed=None):
    """A report.Assignment of ``graded``: {student: notebook}, scored as record_of scores it."""
    records = {s: record_of(nb, s, name) for s, nb in graded.items()}
    cells = {s: {t["cell"]: (t["score"], t["max_score"]) for t in r["tests"]} for s, r in records.items()}
    totals = {s: (sum(v[0] for v in c.values()), sum(v[1] for v in c.values())) for s, c in cells.items()}
    for student, reason in (failed or {}).items():
        records[student] = failed_record(student, name, reason)
    exercises = {t["cell"]: t["exercise"] for r in records.values() for t in r["tests"]}
    return report.Assignment(name, totals, cells, exercises, records,
                             {"02.gradient_edge": ("6. Where a gradient enters", "../../release/x.ipynb#6")})


STUDENTS = {"zq-ada": _graded(broken=["leaf"]), "zq-bob": _graded(broken=["leaf", "shared"]),
            "zq-cy": _graded(), "zq-dee": _graded(unwritten=True), "zq-eve": _graded(timeout=True)}


def _rows(page, exercise):
    """{rule: (students, who)} of an exercise's table of rules in a page."""
    section = page.split(f'<h3 id="{exercise}">', 1)[1].split("<h3", 1)[0].split("<h2", 1)[0]
    found = {}
    for row in re.findall(r"<tr>(.*?)</tr>", section)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        found[re.sub("<[^>]+>", "", cells[0])] = (int(cells[2]), cells[5] if len(cells) > 5 else None)
    return found


def test_the_page_counts_the_students_of_each_rule():
    page = report.assignment_page(_assignment("02_graph", STUDENTS))
    assert _rows(page, "02.gradient_edge") == {"leaf": (2, "zq-ada, zq-bob"), "shared": (1, "zq-bob")}
    assert "left unwritten by 1 student(s): zq-dee" in page
    assert "5 students graded" in page and page.count("data:image/png;base64,") == 2
    assert 'href="../../release/x.ipynb#6"' in page
    stopped = page.split("Notebooks that did not run", 1)[1]
    assert "zq-eve" in stopped and "per-cell limit" in stopped


def test_a_rule_broken_in_two_assignments_in_a_row_is_found():
    before = _assignment("01_tensors", {"zq-ada": _graded(broken=["leaf"]), "zq-bob": _graded()})
    now = _assignment("02_graph", STUDENTS)
    assert report.in_a_row(before, now) == {"zq-ada": [("leaf", ["02.gradient_edge"], ["02.gradient_edge"])]}
    page = report.assignment_page(now, before)
    again = page.split("Broken again", 1)[1].split("<h2>", 1)[0]
    assert "zq-ada" in again and "zq-bob" not in again, again


def test_the_anonymous_page_names_no_student():
    before = _assignment("01_tensors", {"zq-ada": _graded(broken=["leaf"])})
    now = _assignment("02_graph", STUDENTS, failed={"zq-fay": "zq-fay's notebook is not JSON"})
    page = report.assignment_page(now, before, anonymous=True)
    named = [s for s in [*STUDENTS, "zq-fay"] if s in page]
    assert not named, f"expected no student id in the anonymous page, found {named}"
    assert _rows(page, "02.gradient_edge") == {"leaf": (2, None), "shared": (1, None)}
    assert "left unwritten by 1 student(s)" in page
    term = report.term_page(None, [before, now], anonymous=True)
    assert not [s for s in STUDENTS if s in term] and "<code>leaf</code>" in term


def test_the_page_needs_no_network():
    page = report.assignment_page(_assignment("02_graph", STUDENTS))
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "the page loads something from a network"


@pytest.mark.parametrize("argv", [["report"], ["report", "02_graph", "--term"]])
def test_the_command_wants_an_assignment_or_the_term(argv, tmp_path, capsys):
    from autograd_course import cli
    (tmp_path / "nbgrader_config.py").write_text("")
    assert cli.main([*argv, "--course", str(tmp_path)]) == 1
    assert "name an assignment" in capsys.readouterr().err


def test_nbformat_notebooks_are_what_the_grader_reads():
    nb = nbformat.reads(nbformat.writes(_graded(broken=["shared"])), as_version=4)
    assert [t["status"] for t in record_of(nb, "ada", "02_graph")["tests"]] == ["failed", "full"]
