"""The class report on a real class: 60 students of 02_graph graded by grade-class with real nbgrader.

Each student hands in the solution with 0-3 catalogued mistakes (course/mistakes/m02.py, at
most one per exercise, three mistakes of distinct rules chosen per exercise), three hand in
the blank release notebook and one an answer cell that loops forever.  The page that
grade-class writes must say what was handed in: every injected mistake under its rule,
with the count of students who were given it; per exercise the share of students with
full points; the blank notebooks as unwritten, not as broken rules; the loop as the one
notebook that did not run, with the time-out.  The anonymous page names no student.  The
page opens in headless Chromium without a console error, its tables sort, and a
screenshot is kept (artifacts/report/02_graph.png).

Cost: 60 notebooks of 02 (about 3 CPU-s each) and one 20 s time-out, 2-4 minutes on two cores.
"""

import random
import re
import shutil
from pathlib import Path

import pytest
from traitlets.config import Config

from autograd_course import classgrade, report
from autograd_course.layout import source_notebook_path
from autograd_course.mistakes import catalogs, with_mistake
from autograd_course.notebooks import exercise_id, read_notebook, solution_notebook, with_answer
from autograd_course.pipeline import generate, make_course
from autograd_course.pool import Submission, hand_in
from tests.course import COURSE, REPO

from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS

ASSIGNMENT = "02_graph"
CLASS = 60
BLANK = {"learner-05", "learner-23", "learner-41"}
LOOPS = "learner-50"
LOOP_CELL = "02_graph_nodes_answer"
TIMEOUT = 20                                   # per cell, for the loop (nbgrader_config.py: 60)
# Per exercise, the catalog's mistakes handed in (indexes into m02.py's MISTAKES): rules
# pairwise distinct, and no mistake breaks another's rule, so each rule's count is exact
# (m02.py's 17, num-outputs, also breaks output-nr: not chosen).
CHOSEN = {"02_gradient_edge_answer": (0, 3, 6), "02_record_node_answer": (7, 15, 18),
          "02_graph_nodes_answer": (23, 25, 28)}
ARTIFACTS = REPO / "artifacts" / "report"


def _class(work):
    """{student: [Mistake, ...]} handed in (None: the blank notebook), and the submissions."""
    mistakes = catalogs(COURSE)["02"]
    solution = solution_notebook(read_notebook(source_notebook_path(ASSIGNMENT, work)))
    blank = read_notebook(work / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    rng = random.Random(34)
    handed = {}
    for number in range(1, CLASS + 1):
        student = f"learner-{number:02d}"
        if student in BLANK:
            handed[student], notebook = None, blank
        else:
            cells = rng.sample(sorted(CHOSEN), rng.choice([0, 1, 1, 2, 2, 3]))
            handed[student] = [mistakes[rng.choice(CHOSEN[cell])] for cell in sorted(cells)]
            notebook = solution
            for mistake in handed[student]:
                notebook = with_mistake(notebook, mistake)
            if student == LOOPS:
                handed[student] = [m for m in handed[student] if m.grade_id != LOOP_CELL]
                notebook = with_answer(notebook, LOOP_CELL, "while True:\n    pass\n")
        hand_in(work, Submission(ASSIGNMENT, student, notebook))
    return handed


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    work = make_course(tmp_path_factory.mktemp("report") / "course", COURSE)
    generate(work, [ASSIGNMENT])
    handed = _class(work)
    overrides = Config()
    overrides.Execute.timeout = TIMEOUT
    result = classgrade.grade_class(work, names=[ASSIGNMENT], sandbox=None, overrides=overrides)
    assert [o for o in result.outcomes if o.status != "graded"] == [], result.summary()
    page = work / "reports" / ASSIGNMENT / "index.html"
    assert result.reports == [str(page)], result.summary()
    return work, handed, page.read_text(encoding="utf-8")


def _text(fragment):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fragment)).strip()


def _rows(table):
    """The body rows of an HTML table: [[cell text, ...], ...]."""
    rows = [[_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)] for row in re.findall(r"<tr>(.*?)</tr>", table)]
    return [row for row in rows if row]


def rule_table(page, exercise):
    """{rule: (count, [students])} of an exercise's rules in the page."""
    section = page.split(f'<h3 id="{exercise}">', 1)[1]
    section = re.split(r"<h[23]", section, maxsplit=1)[0]
    table = section.split("<table", 1)[1].split("</table>", 1)[0] if "<table" in section else ""
    return {row[0]: (int(row[2]), sorted(row[5].split(", ")) if len(row) > 5 and row[5] else []) for row in _rows(table) if row}


def _given(handed, exercise, rule=None):
    """The students handed a mistake of ``exercise`` (of ``rule``)."""
    return sorted(s for s, ms in handed.items() if ms and any(
        exercise_id(m.grade_id) == exercise and (rule is None or m.rule == rule) for m in ms))


def test_every_injected_mistake_is_counted_under_its_rule(graded_class):
    _, handed, page = graded_class
    problems = []
    for cell, indexes in CHOSEN.items():
        exercise = exercise_id(cell)
        table = rule_table(page, exercise)
        for rule in sorted({catalogs(COURSE)["02"][i].rule for i in indexes}):
            expected = _given(handed, exercise, rule)
            seen = table.get(rule, (0, []))
            if (seen[0], seen[1]) != (len(expected), expected):
                problems.append(f"{exercise} rule {rule}: expected {len(expected)} students {expected}, "
                                f"the page says {seen[0]}: {seen[1]}")
        blamed = {s for count, who in table.values() for s in who}
        wrongly = sorted(blamed - set(_given(handed, exercise)))
        if wrongly:
            problems.append(f"{exercise}: students listed under a rule without a mistake there: {wrongly}")
    assert not problems, "\n".join(problems)


def test_scores_follow_what_was_handed_in(graded_class):
    _, handed, page = graded_class
    overview = page.split("<h2>Scores</h2>", 1)[1].split("<h2>", 1)[0]
    rows = {row[0]: row for row in _rows(overview.split("<table", 1)[1]) if row}
    for cell in CHOSEN:
        exercise = exercise_id(cell)
        lost = set(_given(handed, exercise)) | BLANK | ({LOOPS} if cell == LOOP_CELL else set())
        full = f"{100 * (CLASS - len(lost)) / CLASS:.0f}%"
        assert rows[exercise][2] == full, \
            f"{exercise}: expected {full} of the class with full points ({len(lost)} lost some), page: {rows[exercise]}"
    perfect = sum(1 for s, ms in handed.items() if ms == [] and s != LOOPS)
    assert f"{CLASS} students graded" in page and f"{perfect} with full marks" in page, _text(page[:2000])
    assert page.count("data:image/png;base64,") == 2, "expected the histogram and the shares, embedded"


def test_blank_notebooks_are_unwritten_and_the_loop_did_not_run(graded_class):
    _, _, page = graded_class
    for cell in CHOSEN:
        section = page.split(f'<h3 id="{exercise_id(cell)}">', 1)[1].split("<h3", 1)[0]
        assert f"left unwritten by {len(BLANK)} student(s): {', '.join(sorted(BLANK))}" in _text(section), \
            f"{exercise_id(cell)}: expected the blank notebooks as unwritten; saw {_text(section)[-400:]}"
    stopped = page.split("<h2>Notebooks that did not run</h2>", 1)[1]
    rows = _rows(stopped.split("</table>", 1)[0])
    assert [r[0] for r in rows] == [LOOPS] and f"per-cell limit of {TIMEOUT} s" in rows[0][1], rows


def test_the_anonymous_report_names_no_student(graded_class):
    work, handed, _ = graded_class
    page = report.write(work, ASSIGNMENT, anonymous=True).read_text(encoding="utf-8")
    named = sorted(s for s in handed if s in page)
    assert not named, f"expected no student id in the anonymous report, found {named}"
    assert rule_table(page, "02.gradient_edge"), "the anonymous report lost its counts"
    term = report.write_term(work, anonymous=True).read_text(encoding="utf-8")
    assert not [s for s in handed if s in term] and ASSIGNMENT in term


# ------------------------------------------------------------------- browser

@pytest.mark.browser
def test_the_page_opens_in_chromium_without_console_errors(graded_class):
    webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[test]' (selenium)")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    browser, driver_path = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
    if not (browser and driver_path):
        pytest.skip("the report's browser check needs Chromium and chromedriver (Debian: apt-get install "
                    "chromium chromium-driver)")
    work, _, _ = graded_class
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1300,2000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get((work / "reports" / ASSIGNMENT / "index.html").as_uri())
        images = driver.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth)")
        assert len(images) == 2 and all(images), f"expected two rendered figures, saw widths {images}"
        table = driver.find_element(By.CSS_SELECTOR, 'h3[id="02.record_node"] + table')
        header = table.find_elements(By.TAG_NAME, "th")[2]                    # students
        counts = lambda: [int(r.find_elements(By.TAG_NAME, "td")[2].text)
                          for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        header.click()
        assert counts() == sorted(counts()), f"a click on 'students' sorts up; saw {counts()}"
        header.click()
        assert counts() == sorted(counts(), reverse=True), f"a second click sorts down; saw {counts()}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(ARTIFACTS / f"{ASSIGNMENT}.png"))
        errors = [entry for entry in driver.get_log("browser") if entry.get("level") in ("SEVERE", "ERROR")]
        assert not errors, f"console errors: {errors}"
    finally:
        driver.quit()
