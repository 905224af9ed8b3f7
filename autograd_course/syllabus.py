"""The syllabus's workload table, measured on the course's own notebooks.

For each assignment it counts what a student meets: the words of prose to read
(markdown cells), the lines of demo code to run and read, the exercises and
the lines of their reference solutions (what the student writes), and the
points.  The hours are an estimate from those counts at stated rates
(``RATES``), so that the table moves when a notebook grows, and the
instructor guide's table is checked against this one
(``tests/test_syllabus.py``)::

    autograd-course syllabus            # prints the markdown table
"""

from dataclasses import dataclass

from .layout import assignments, source_notebook_path
from .notebooks import is_answer_cell, is_test_cell, marked_lines, nbgrader_meta, read_notebook

# Minutes per unit, the assumptions of the estimate.  Reading: technical prose with formulas,
# read once carefully (120 words a minute).  Demo code: read and run (18 s a line).  Writing:
# a line of the solution, thought out, typed and debugged against the visible tests (3 min a
# line), plus 12 minutes per exercise to read its task and what its tests print.
RATES = {"words per minute": 120, "minutes per demo line": 0.3,
         "minutes per solution line": 3, "minutes per exercise": 12}

@dataclass
class Workload:
    assignment: str
    words: int
    demo_lines: int
    exercises: int
    solution_lines: int
    points: int

    @property
    def hours(self):
        minutes = (self.words / RATES["words per minute"]
                   + self.demo_lines * RATES["minutes per demo line"]
                   + self.solution_lines * RATES["minutes per solution line"]
                   + self.exercises * RATES["minutes per exercise"])
        return minutes / 60


def _code_lines(text):
    return [line for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def workload(assignment, course):
    """The counts of one assignment, from its source notebook."""
    nb = read_notebook(source_notebook_path(assignment, course))
    words = demo = exercises = lines = points = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            words += len(cell.source.split())
        elif is_answer_cell(cell):
            exercises += 1
            lines += len(_code_lines("\n".join(marked_lines(cell.source))))
        elif is_test_cell(cell):
            points += int(nbgrader_meta(cell).get("points", 0))
        elif not nbgrader_meta(cell):
            demo += len(_code_lines(cell.source))
    return Workload(assignment, words, demo, exercises, lines, points)


def table(course):
    """The workload table in markdown, one row per assignment and a total."""
    rows = [workload(name, course) for name in assignments(course)]
    out = ["| assignment | prose (words) | demo code (lines) | exercises | lines to write | points | hours (estimated) |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for w in rows:
        out.append(f"| {w.assignment} | {w.words:,} | {w.demo_lines} | {w.exercises} | {w.solution_lines} "
                   f"| {w.points} | {w.hours:.1f} |")
    total = Workload("total", *(sum(getattr(w, f) for w in rows)
                                for f in ("words", "demo_lines", "exercises", "solution_lines", "points")))
    out.append(f"| **total** | {total.words:,} | {total.demo_lines} | {total.exercises} | {total.solution_lines} "
               f"| {total.points} | **{total.hours:.0f}** |")
    return "\n".join(out)
