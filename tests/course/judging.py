"""The test oracle of the mistake catalogs: is a mistake's autograde result right?

A catalogued mistake (``course/mistakes/``) is graded as a submission:
the solution notebook with one answer cell edited (:func:`mistake_submissions`).
:func:`judge` says what is wrong with the result: the exercise must lose
points, every other exercise must keep all of its points, and a failing test
cell's output must name the broken rule.
"""

from autograd_course.layout import source_notebook_path
from autograd_course.mistakes import with_mistake
from autograd_course.notebooks import exercise_of, read_notebook, solution_notebook, tests_of
from autograd_course.pool import Submission


def _squash(text):
    return " ".join(text.split())


def judge(graded, mistake):
    """Why a mistake's autograde result is wrong; [] when the grading is right:
    the exercise loses points, every other exercise keeps all of its points,
    and a failing cell's output names the broken rule."""
    problems = []
    label = f"{mistake.grade_id} / {mistake.name!r}"
    if not graded.success:
        return [f"{label}: autograde failed:\n{graded.log[-2000:]}"]
    exercise = exercise_of(mistake.grade_id)
    own = tests_of(exercise, graded.cells)
    if not own:
        return [f"{label}: no test cell named {exercise}_test[...] among "
                f"{', '.join(sorted(graded.cells))}"]
    failing = [graded.cells[g] for g in own if not graded.cells[g].full]
    if not failing:
        problems.append(f"{label}: the tests of {exercise} ({', '.join(own)}) give full points "
                        f"to this wrong answer")
    elif not any(_squash(mistake.rule) in _squash(cell.output) for cell in failing):
        shown = "\n".join(f"--- {c.grade_id}:\n{c.output.strip()[-1500:]}" for c in failing)
        problems.append(f"{label}: no failing test cell of {exercise} names the rule "
                        f"{mistake.rule!r}; their outputs:\n{shown}")
    for gid, cell in sorted(graded.cells.items()):
        if gid not in own and not cell.full:
            problems.append(f"{label}: {gid} (another exercise) lost points "
                            f"({cell.score:g}/{cell.max_score:g}):\n{cell.output.strip()[-1500:]}")
    return problems


def mistake_submissions(course, mistakes_by_assignment):
    """{assignment: [Mistake, ...]} -> [(Submission, Mistake)], built on the
    solution notebooks of ``course``'s sources."""
    pairs = []
    for assignment, mistakes in sorted(mistakes_by_assignment.items()):
        solution = solution_notebook(read_notebook(source_notebook_path(assignment, course)))
        for index, mistake in enumerate(mistakes):
            student = f"mistake-{index:02d}"
            pairs.append((Submission(assignment, student,
                                     with_mistake(solution, mistake)), mistake))
    return pairs
