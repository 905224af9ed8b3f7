"""What the class got wrong: ``autograd-course report ASSIGNMENT`` (and the last step of grade-class).

    autograd-course report 02_graph [--anonymous]   # <course>/reports/02_graph/index.html
    autograd-course report --term [--anonymous]     # <course>/reports/term/index.html

One page per assignment, self-contained (figures embedded as PNG, tables sorted by a few
lines of inline script, nothing fetched from a network), read from the gradebook (scores,
as graded or overridden by hand) and the findings recorded at grading time
(:mod:`autograd_course.findings`: which stated rule each failing check named), never from
students' code or the feedback's HTML:

* the score distribution, and per exercise the mean and the share of students with full,
  partial and no points;
* per exercise, the rules broken, most students first: how many, one typical
  "expected / seen" pair, a link to the section of the release notebook that teaches it
  (and the students, in the instructor's copy); exercises left unwritten are counted
  apart (a blank answer breaks no rule), and failures that name no rule too;
* students who broke a rule of the same name in the previous assignment too (rules are
  stated per exercise; a name the course uses again, such as ``non-leaf`` or ``order``,
  is the same idea met again);
* students whose notebook did not run (autograde failed, a time-out, a dead kernel), with
  the reason.

``--term``: per assignment the mean and median, and the rules that stayed broken (a rule
name broken by the same student in two assignments in a row).  ``--anonymous`` writes the
same pages with students as counts only (``index-anonymous.html``), safe to show the class.

The page is built with the standard library's ``html.escape`` and matplotlib (Agg), the
module is long because the page is one: data (``Assignment``), then figures, then HTML.
"""

import base64
import collections
import dataclasses
import html
import io
import re
import statistics
from pathlib import Path
from urllib.parse import quote

from . import rules as stated
from .findings import Store, exercise_map
from .layout import PipelineError, assignments as course_assignments
from .nbgrader_setup import load_config
from .notebooks import grade_id, is_answer_cell, read_notebook
from .notebooks import exercise_id as exercise_of_answer

REPORTS = "reports"
TERM = "term"


# -------------------------------------------------------------------- data

@dataclasses.dataclass
class Broken:
    """One rule of one exercise, as the class broke it."""
    exercise: str
    name: str            # the rule's name ("" for a sentence of an un-migrated check)
    text: str
    students: set = dataclasses.field(default_factory=set)
    pairs: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def typical(self):
        """The most frequent (expected, seen) pair, or None."""
        return self.pairs.most_common(1)[0][0] if self.pairs else None


@dataclasses.dataclass
class Assignment:
    name: str
    students: dict            # student -> (score, max_score), from the gradebook
    cells: dict               # student -> {test grade id: (score, max_score)}
    exercises: dict           # test grade id -> exercise id
    records: dict             # student -> findings record
    sections: dict            # exercise id -> (heading text, link)

    def exercise_ids(self):
        return list(dict.fromkeys(self.exercises[g] for g in self.exercises))

    def exercise_scores(self, exercise):
        """{student: (score, max score)} on ``exercise``."""
        found = {}
        for student, cells in self.cells.items():
            own = [v for g, v in cells.items() if self.exercises.get(g) == exercise]
            if own:
                found[student] = (sum(s for s, _ in own), sum(m for _, m in own))
        return found

    def broken(self):
        """{exercise: [Broken, ...]} most students first; and {exercise: {"unwritten": set,
        "unnamed": Counter of headlines -> set}}."""
        table, other = {}, {}
        for student, record in self.records.items():
            for test in record.get("tests", []):
                ex = test.get("exercise")
                if test["status"] in ("full", "not-run"):
                    continue
                extra = other.setdefault(ex, {"unwritten": set(), "unnamed": {}})
                if test["status"] == "unwritten":
                    extra["unwritten"].add(student)
                    continue
                if not test.get("rules"):
                    extra["unnamed"].setdefault(test.get("headline") or "an error", set()).add(student)
                    continue
                for rule in test["rules"]:
                    name = rule.get("name") or ""
                    key = (ex, name or rule.get("text", ""))
                    text = stated.load().get(ex, {}).get(name) or rule.get("text", "")
                    entry = table.setdefault(key, Broken(ex, name, text))
                    if student not in entry.students and (test.get("expected") or test.get("seen")):
                        entry.pairs[(test.get("expected") or "", test.get("seen") or "")] += 1
                    entry.students.add(student)
        by_exercise = {}
        for entry in table.values():
            by_exercise.setdefault(entry.exercise, []).append(entry)
        for entries in by_exercise.values():
            entries.sort(key=lambda e: (-len(e.students), e.name))
        return by_exercise, other

    def rule_names(self, student):
        """{rule name: [exercise, ...]} that ``student`` broke (named rules only)."""
        found = {}
        for test in self.records.get(student, {}).get("tests", []):
            if test["status"] == "failed":
                for rule in test.get("rules", []):
                    if rule.get("name"):
                        found.setdefault(rule["name"], [])
                        if test["exercise"] not in found[rule["name"]]:
                            found[rule["name"]].append(test["exercise"])
        return found

    def did_not_run(self):
        """{student: reason} of the notebooks that did not run (or not to the end)."""
        return {s: r.get("reason") or "autograde failed" for s, r in sorted(self.records.items())
                if r.get("status") == "failed" or r.get("not_run")}


def _gradebook(course, name):
    """({student: (score, max)}, {student: {grade id: (score, max)}}) of ``name``, from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry
    config = load_config(course)
    db_url = config.CourseDirectory.get("db_url") or f"sqlite:///{Path(course) / 'gradebook.db'}"
    totals, cells = {}, {}
    with Gradebook(db_url, config.CourseDirectory.course_id) as gb:
        try:
            assignment = gb.find_assignment(name)
        except MissingEntry:
            return totals, cells
        for submission in assignment.submissions:
            student = submission.student.id
            grades = [g for nb in submission.notebooks for g in nb.grades]
            if not grades or any(g.score is None for g in grades):
                continue                          # not graded (yet)
            totals[student] = (float(submission.score), float(submission.max_score))
            cells[student] = {g.name: (float(g.score), float(g.max_score)) for g in grades}
    return totals, cells


_MARKUP = re.compile(r"[`*_]")


def _anchor(heading):
    """JupyterLab's (and nbconvert's) id of a heading: its text, spaces as hyphens."""
    return _MARKUP.sub("", heading).strip().replace(" ", "-")


def sections(course, name):
    """{exercise id: (heading, link)}: the ``##`` section above each exercise's answer cell in
    the release notebook (the text that teaches it), linked from ``reports/<name>/``."""
    path = Path(course) / "release" / name / f"{name}.ipynb"
    if not path.is_file():
        return {}
    found, section = {}, None
    for cell in read_notebook(path).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                match = re.match(r"^(#{1,2})\s+(.*\S)", line)
                if match:
                    section = match.group(2)
        elif is_answer_cell(cell) and grade_id(cell) and section:
            link = f"../../release/{quote(name)}/{quote(name)}.ipynb#{quote(_anchor(section), safe=chr(39))}"
            found[exercise_of_answer(grade_id(cell))] = (_MARKUP.sub("", section), link)
    return found


def load(course, name):
    """The :class:`Assignment` ``name`` of ``course``, from its gradebook and findings."""
    totals, cells = _gradebook(course, name)
    records = {r["student"]: r for r in Store(course).records(name)}
    source = Path(course) / "source" / name / f"{name}.ipynb"
    exercises = exercise_map(read_notebook(source)) if source.is_file() else {}
    for record in records.values():              # tests only the records know (a renamed cell)
        for test in record.get("tests", []):
            exercises.setdefault(test["cell"], test["exercise"])
    return Assignment(name, totals, cells, exercises, records, sections(course, name))


def in_a_row(previous, current):
    """{student: [(rule name, exercises before, exercises now)]}: rules of the same name a
    student broke in ``previous`` and again in ``current``."""
    found = {}
    for student in sorted(set(previous.records) & set(current.records)):
        before, now = previous.rule_names(student), current.rule_names(student)
        again = [(rule, before[rule], now[rule]) for rule in sorted(set(before) & set(now))]
        if again:
            found[student] = again
    return found


# ----------------------------------------------------------------- figures

def _png(figure):
    import matplotlib.pyplot as plt
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return ('<img alt="{alt}" src="data:image/png;base64,'
            + base64.b64encode(buffer.getvalue()).decode("ascii") + '">')


def _pyplot():
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def histogram(percentages, title):
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 3.0))
    axes.hist(percentages, bins=[i * 10 for i in range(11)], color="#4c72b0", edgecolor="white")
    axes.set_xlabel("score (% of the maximum)")
    axes.set_ylabel("students")
    axes.set_xlim(0, 100)
    axes.set_title(title)
    axes.yaxis.get_major_locator().set_params(integer=True)
    return _png(figure).format(alt=html.escape(f"{title}: histogram of {len(percentages)} scores"))


def shares_chart(rows):
    """rows: [(exercise, full, partial, zero)] as shares of the class (0-1)."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 0.45 * len(rows) + 1.0))
    labels = [r[0] for r in rows][::-1]
    left = [0.0] * len(rows)
    for index, (label, colour) in enumerate((("full", "#55a868"), ("partial", "#dd8452"), ("none", "#c44e52"))):
        values = [r[index + 1] * 100 for r in rows][::-1]
        axes.barh(labels, values, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, values)]
    axes.set_xlim(0, 100)
    axes.set_xlabel("students (%)")
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    return _png(figure).format(alt="share of students with full, partial and no points per exercise")


def means_chart(rows):
    """rows: [(assignment, mean percentage)]."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 3.0))
    axes.bar([r[0] for r in rows], [r[1] for r in rows], color="#4c72b0")
    axes.set_ylim(0, 100)
    axes.set_ylabel("mean score (%)")
    axes.tick_params(axis="x", labelrotation=30)
    return _png(figure).format(alt="mean score of each assignment")


# -------------------------------------------------------------------- HTML

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th.sortable { cursor: pointer; background: #f3f3f3; } th.sortable:after { content: " \\2195"; color: #999; }
td.num { text-align: right; } code, .value { font-family: ui-monospace, monospace; font-size: .9em; }
.value { white-space: pre-wrap; max-width: 30em; display: block; }
.muted { color: #666; } .figures img { max-width: 100%; margin-right: 1em; }
"""

SORT_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.classList.add('sortable');
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.from(body.rows), up = th.dataset.order !== 'up';
      var key = function (row) { var c = row.cells[column]; var v = c.dataset.sort || c.textContent.trim();
                                 var n = parseFloat(v); return isNaN(n) ? v.toLowerCase() : n; };
      rows.sort(function (a, b) { var x = key(a), y = key(b);
                                  return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); });
      th.dataset.order = up ? 'up' : 'down';
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def _e(text):
    return html.escape(str(text))


def _table(headers, rows, numeric=()):
    """A sortable table: ``rows`` of cells already escaped (HTML)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _page(title, body):
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f"<style>{STYLE}</style></head><body>\n{body}\n<script>{SORT_SCRIPT}</script></body></html>\n")


def _md(text):
    """Escaped ``text`` with its markdown `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _who(students, anonymous):
    return "" if anonymous else _e(", ".join(sorted(students)))


def _pct(part, whole):
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _scrub(text, names):
    """``text`` with every student id in ``names`` (3 characters or more) replaced."""
    for name in sorted(names, key=len, reverse=True):
        if len(name) >= 3:
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "(a student)", text)
    return text


def assignment_page(data, previous=None, anonymous=False):
    """The HTML of one assignment's report (``previous``: the assignment before it)."""
    out = [f"<h1>What the class got wrong: {_e(data.name)}</h1>"]
    scores = [100 * s / m for s, m in data.students.values() if m]
    total = len(data.students)
    if scores:
        out.append(f'<p>{total} students graded; mean {statistics.mean(scores):.0f}%, median '
                   f'{statistics.median(scores):.0f}%, {sum(1 for s in scores if s >= 100)} with full marks. '
                   f'{"Students are counted, not named (--anonymous)." if anonymous else ""}</p>')
    else:
        out.append("<p>No graded submission of this assignment in the gradebook.</p>")
    exercises = data.exercise_ids()
    shares = []
    rows = []
    for ex in exercises:
        per = data.exercise_scores(ex)
        n = len(per) or 1
        full = sum(1 for s, m in per.values() if s >= m)
        zero = sum(1 for s, m in per.values() if s <= 0 < m)
        mean = statistics.mean([100 * s / m for s, m in per.values() if m]) if per else 0.0
        shares.append((ex, full / n, (len(per) - full - zero) / n, zero / n))
        section = data.sections.get(ex)
        link = f'<a href="{_e(section[1])}">{_e(section[0])}</a>' if section else ""
        rows.append([f"<code>{_e(ex)}</code>", f"{mean:.0f}%", _pct(full, len(per)),
                     _pct(len(per) - full - zero, len(per)), _pct(zero, len(per)), link])
    out.append("<h2>Scores</h2>")
    if scores:
        out.append('<div class="figures">' + histogram(scores, f"{data.name}: scores") +
                   (shares_chart(shares) if shares else "") + "</div>")
    out.append(_table(["exercise", "mean", "full", "partial", "no points", "taught in"], rows, numeric=(1, 2, 3, 4)))

    broken, other = data.broken()
    out.append("<h2>The rules most often broken</h2>")
    out.append('<p class="muted">Per exercise, each stated rule a failing check named, with how many '
               'students broke it and the most frequent expected / seen pair. An exercise left '
               'unwritten breaks no rule: it is counted apart.</p>')
    every = set(data.students) | set(data.records)
    for ex in exercises + sorted(set(broken) - set(exercises)):
        entries, extra = broken.get(ex, []), other.get(ex, {"unwritten": set(), "unnamed": {}})
        if not entries and not extra["unwritten"] and not extra["unnamed"]:
            continue
        section = data.sections.get(ex)
        out.append(f'<h3 id="{_e(ex)}"><code>{_e(ex)}</code>' +
                   (f' <span class="muted">(taught in <a href="{_e(section[1])}">{_e(section[0])}</a>)</span>'
                    if section else "") + "</h3>")
        rows = []
        for entry in entries:
            typical = entry.typical()
            pair = (f'<span class="value">expected: {_e(_scrub(typical[0], every))}</span>'
                    f'<span class="value">seen: {_e(_scrub(typical[1], every))}</span>') if typical else ""
            rows.append([f"<code>{_e(entry.name or '(unnamed)')}</code>", _md(entry.text),
                         str(len(entry.students)),
                         _pct(len(entry.students), total), pair]
                        + ([] if anonymous else [_who(entry.students, False)]))
        if rows:
            out.append(_table(["rule", "what it says", "students", "of the class", "typical expected / seen"]
                              + ([] if anonymous else ["who"]), rows, numeric=(2, 3)))
        notes = []
        if extra["unwritten"]:
            notes.append(f"left unwritten by {len(extra['unwritten'])} student(s)"
                         + ("" if anonymous else f": {_who(extra['unwritten'], False)}"))
        for headline, who in sorted(extra["unnamed"].items(), key=lambda item: -len(item[1])):
            notes.append(f"failed without naming a rule ({_e(_scrub(headline, every)[:200])}): "
                         f"{len(who)} student(s)" + ("" if anonymous else f": {_who(who, False)}"))
        if notes:
            out.append("<ul>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>")

    if previous is not None and previous.records:
        again = in_a_row(previous, data)
        out.append(f"<h2>Broken again: rules also broken in {_e(previous.name)}</h2>")
        if not again:
            out.append(f"<p>No student broke a rule of the same name in {_e(previous.name)} and in "
                       f"{_e(data.name)}.</p>")
        elif anonymous:
            counts = collections.Counter(rule for items in again.values() for rule, _, _ in items)
            out.append(_table(["rule", "students"], [[f"<code>{_e(r)}</code>", str(n)]
                                                      for r, n in counts.most_common()], numeric=(1,)))
        else:
            out.append(_table(["student", "rule", f"in {previous.name}", f"in {data.name}"], [
                [_e(student), f"<code>{_e(rule)}</code>", _e(", ".join(before)), _e(", ".join(now))]
                for student, items in again.items() for rule, before, now in items]))

    stopped = data.did_not_run()
    out.append("<h2>Notebooks that did not run</h2>")
    if not stopped:
        out.append("<p>Every notebook ran to the end.</p>")
    elif anonymous:
        counts = collections.Counter(stopped.values())
        out.append(_table(["reason", "students"], [[_e(_scrub(r, every)), str(n)] for r, n in counts.most_common()],
                          numeric=(1,)))
    else:
        out.append(_table(["student", "reason"], [[_e(s), f'<span class="value">{_e(r)}</span>']
                                                  for s, r in stopped.items()]))
    return _page(f"{data.name}: what the class got wrong", "\n".join(out))


def term_page(course, loaded, anonymous=False):
    """The HTML of the term view: per assignment the mean, and the rules that stayed broken."""
    out = ["<h1>The term: what stayed broken</h1>"]
    means = []
    rows = []
    for data in loaded:
        scores = [100 * s / m for s, m in data.students.values() if m]
        if not scores:
            continue
        means.append((data.name, statistics.mean(scores)))
        broken, _ = data.broken()
        top = sorted((e for entries in broken.values() for e in entries), key=lambda e: -len(e.students))[:3]
        rows.append([f'<a href="../{_e(quote(data.name))}/index{"-anonymous" if anonymous else ""}.html">'
                     f"{_e(data.name)}</a>", str(len(scores)), f"{statistics.mean(scores):.0f}%",
                     f"{statistics.median(scores):.0f}%",
                     "; ".join(f"<code>{_e(e.exercise)}</code> <code>{_e(e.name or '(unnamed)')}</code> "
                               f"({len(e.students)})" for e in top)])
    if means:
        out.append('<div class="figures">' + means_chart(means) + "</div>")
    out.append(_table(["assignment", "students", "mean", "median", "rules most often broken (students)"], rows,
                      numeric=(1, 2, 3)))
    out.append("<h2>Rules that stayed broken</h2>")
    out.append('<p class="muted">A rule name broken by the same student in two assignments in a row '
               '(the course states rules per exercise; a name it uses again is the same idea met again).</p>')
    stayed = {}
    for previous, current in zip(loaded, loaded[1:]):
        for student, items in in_a_row(previous, current).items():
            for rule, _, _ in items:
                stayed.setdefault((rule, previous.name, current.name), set()).add(student)
    if not stayed:
        out.append("<p>No rule stayed broken from one assignment to the next.</p>")
    else:
        out.append(_table(["rule", "from", "to", "students"] + ([] if anonymous else ["who"]), [
            [f"<code>{_e(rule)}</code>", _e(a), _e(b), str(len(who))] + ([] if anonymous else [_who(who, False)])
            for (rule, a, b), who in sorted(stayed.items(), key=lambda item: -len(item[1]))], numeric=(3,)))
    return _page("The term: what stayed broken", "\n".join(out))


# ------------------------------------------------------------------ writing

def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def page_name(anonymous):
    return "index-anonymous.html" if anonymous else "index.html"


def write(course, name, anonymous=False):
    """Write ``<course>/reports/<name>/index.html`` (``index-anonymous.html``); its path."""
    names = course_assignments(course)
    if name not in names:
        raise PipelineError(f"no assignment {name!r} in {course}/source (assignments: {', '.join(names)})")
    data = load(course, name)
    index = names.index(name)
    previous = load(course, names[index - 1]) if index > 0 else None
    return _write(Path(course) / REPORTS / name / page_name(anonymous), assignment_page(data, previous, anonymous))


def write_term(course, anonymous=False):
    """Write ``<course>/reports/term/index.html``; its path."""
    loaded = [load(course, name) for name in course_assignments(course)]
    return _write(Path(course) / REPORTS / TERM / page_name(anonymous), term_page(course, loaded, anonymous))
