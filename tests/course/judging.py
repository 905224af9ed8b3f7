"""The test oracle of the mistake catalogs: is a mistake's autograde result right?

A catalogued mistake (``course/mistakes/``) is graded as a submission:
the solution notebook with answer cells edited (:func:`mistake_submissions`).
:func:`judge` says what is wrong with the result: the exercise must lose
points, every other exercise must keep all of its points, and a failing test
cell's output must name the broken rule.

Grading is the cost (one kernel runs the whole notebook per submission), so
mistakes share submissions (:func:`mistake_batches`): the first mistake of
every exercise is graded alone, which proves that a wrong answer there costs
points nowhere else; the others are graded in rounds, mistake k of every
exercise in one notebook, each judged on its own cells.  Exercises are
independent stages (a check computes what it expects with the library's own
code), so a round grades each of its mistakes as it would be graded alone; a
mistake that leaked into another exercise of its round would go unseen there,
and is seen in the rounds where that exercise is right.
"""

import re

from autograd_course.layout import source_notebook_path
from autograd_course.mistakes import with_mistake
from autograd_course.notebooks import exercise_of, read_notebook, solution_notebook, tests_of
from autograd_course.pool import Submission


def _squash(text):
    return " ".join(text.split())


RULE_NAME = re.compile(r"[a-z][a-z0-9-]*")


def names_the_rule(output, rule):
    """Whether a failing cell's ``output`` names ``rule``: a stated rule's name (the
    feedback's ``rule <name>:`` line), or, for a catalog not yet written with names, a
    phrase of the message."""
    if RULE_NAME.fullmatch(rule):
        return re.search(rf"(^|\s)rule {re.escape(rule)}:", output, re.M) is not None
    return _squash(rule) in _squash(output)


def judge(graded, mistake, alongside=()):
    """Why a mistake's autograde result is wrong; [] when the grading is right:
    the exercise loses points, every other exercise keeps all of its points,
    and a failing cell's output names the broken rule.  ``alongside``: the other
    mistakes graded in the same notebook, whose exercises are judged on their own."""
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
    elif not any(names_the_rule(cell.output, mistake.rule) for cell in failing):
        shown = "\n".join(f"--- {c.grade_id}:\n{c.output.strip()[-1500:]}" for c in failing)
        problems.append(f"{label}: no failing test cell of {exercise} names the rule "
                        f"{mistake.rule!r}; their outputs:\n{shown}")
    theirs = {g for other in alongside for g in tests_of(exercise_of(other.grade_id), graded.cells)}
    for gid, cell in sorted(graded.cells.items()):
        if gid not in own and gid not in theirs and not cell.full:
            problems.append(f"{label}: {gid} (another exercise) lost points "
                            f"({cell.score:g}/{cell.max_score:g}):\n{cell.output.strip()[-1500:]}")
    return problems


def mistake_batches(mistakes, selected=None):
    """The indexes of a catalog's ``mistakes`` grouped into submissions: ``[[i], ..., [i, j, k], ...]``.

    First every exercise's first mistake alone, then round k (k >= 1): the k-th
    mistake of every exercise that has one, at most one mistake per answer cell.
    ``selected(index)`` says which mistakes are graded at all (default: all)."""
    by_exercise = {}
    for index, mistake in enumerate(mistakes):
        if selected is None or selected(index):
            by_exercise.setdefault(mistake.grade_id, []).append(index)
    batches = [[indexes[0]] for indexes in by_exercise.values()]
    rounds = max((len(indexes) for indexes in by_exercise.values()), default=0)
    for k in range(1, rounds):
        batches.append(sorted(indexes[k] for indexes in by_exercise.values() if len(indexes) > k))
    return batches


def mistake_submissions(course, mistakes_by_assignment, selected=None):
    """{assignment: [Mistake, ...]} -> [(Submission, [(index, Mistake), ...])]: the
    batches of :func:`mistake_batches`, each the solution notebook of ``course``'s
    sources with its mistakes applied.  ``selected(assignment, index)`` filters."""
    pairs = []
    for assignment, mistakes in sorted(mistakes_by_assignment.items()):
        solution = solution_notebook(read_notebook(source_notebook_path(assignment, course)))
        keep = None if selected is None else (lambda index: selected(assignment, index))
        for number, batch in enumerate(mistake_batches(mistakes, keep)):
            notebook = solution
            for index in batch:
                notebook = with_mistake(notebook, mistakes[index])
            pairs.append((Submission(assignment, f"mistakes-{number:02d}", notebook),
                          [(index, mistakes[index]) for index in batch]))
    return pairs
