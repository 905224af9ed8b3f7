"""The instructor demo: a temporary course, three students, the grade table.

    autograd-course demo [--course DIR] [--keep DIR]     (make instructor-demo)

Every assignment of the course is generated and autograded, with feedback and
``grades.csv``, for three students: ``perfect`` hands in the solutions,
``careless`` the solutions with a catalogued mistake in every second exercise,
``blank`` the untouched release.  It all happens in a temporary copy of the
course; ``--keep DIR`` builds it in ``DIR`` and keeps it.
"""

import shutil
import tempfile
import time
from pathlib import Path

from .layout import PipelineError, assignments, source_notebook_path
from .mistakes import catalogs
from .nbgrader_setup import export_csv
from .notebooks import exercise_of, grade_id, is_answer_cell, read_notebook, solution_notebook, with_answer
from .pipeline import generate, make_course
from .pool import Submission, grade_here

STUDENTS = ("perfect", "careless", "blank")


def mistake_catalog(course):
    """{assignment number: [(answer grade_id, wrong(solution source) -> wrong source)]}:
    the catalogued mistakes of ``course`` (``course/mistakes/m<NN>.py``), or None
    when the course has no catalog."""
    found = catalogs(course)
    if not found:
        return None
    return {number: [(m.grade_id, m.apply) for m in mistakes] for number, mistakes in found.items()}


def careless(solution, mistakes):
    """``solution`` with the first catalogued mistake of every second exercise."""
    nb, seen = solution, set()
    for answer, wrong in mistakes:
        exercise = exercise_of(answer)
        if exercise in seen:
            continue
        seen.add(exercise)
        if len(seen) % 2:
            cells = [c for c in nb.cells if is_answer_cell(c) and grade_id(c) == answer]
            if not cells:
                raise PipelineError(f"the mistake catalog names {answer}, which is not an answer cell "
                                    f"of this assignment")
            nb = with_answer(nb, answer, wrong(cells[0].source))
    return nb


def run(course, keep=None):
    """Generate, autograde the three students, print the grade table; 0, or 1 when
    the course has no assignment."""
    names = assignments(course)
    if not names:
        print(f"{Path(course) / 'source'} has no assignments yet")
        return 1
    tmp = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="course-demo-"))
    work = tmp / "course"
    if work.exists():
        shutil.rmtree(work)
    try:
        start = time.perf_counter()
        make_course(work, course)
        generate(work)
        print(f"generated {len(names)} assignment(s) in {work}")
        catalog = mistake_catalog(course)
        students = STUDENTS if catalog is not None else ("perfect", "blank")
        if catalog is None:
            print(f"no mistake catalog in {Path(course) / 'mistakes'}: no careless student")
        submissions = []
        for name in names:
            solution = solution_notebook(read_notebook(source_notebook_path(name, course)))
            submissions.append(Submission(name, "perfect", solution))
            if catalog is not None:
                number = name.split("_", 1)[0]
                submissions.append(Submission(name, "careless", careless(solution, catalog.get(number, []))))
            release = read_notebook(work / "release" / name / f"{name}.ipynb")
            submissions.append(Submission(name, "blank", release))
        print(f"autograding {len(submissions)} submissions (one kernel each) ...", flush=True)
        results = grade_here(work, submissions, feedback=True)
        csv = export_csv(work)
        print(f"autograded {len(results)} submissions in {time.perf_counter() - start:.0f} s "
              f"(perfect: the solutions; careless: catalogued mistakes; blank: the release)\n")
        print(table(results, names, students))
        failures = [g for r in results if r.student == "careless"
                    for g, c in sorted(r.cells.items()) if not c.full]
        if failures:
            print("\ncareless lost points in: " + ", ".join(failures))
        if keep:
            print(f"\ngrades.csv: {csv}\nfeedback:   {work / 'feedback'}\n"
                  f"gradebook:  {work / 'gradebook.db'}")
        else:
            print("\n(the demo course was temporary: --keep DIR keeps it, with its "
                  "grades.csv, feedback/ and gradebook.db)")
        return 0
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def table(results, names, students):
    """The grade table: a row per student, a column per assignment, and the total."""
    by = {(r.student, r.assignment): r for r in results}
    width = max(12, *(len(n) for n in names))
    lines = ["student".ljust(10) + "".join(n.rjust(width + 2) for n in names) + "total".rjust(12)]
    for student in students:
        row, total, total_max = student.ljust(10), 0.0, 0.0
        for name in names:
            r = by[(student, name)]
            row += f"{r.score:g}/{r.max_score:g}".rjust(width + 2)
            total, total_max = total + r.score, total_max + r.max_score
        lines.append(row + f"{total:g}/{total_max:g}".rjust(12))
    return "\n".join(lines)
