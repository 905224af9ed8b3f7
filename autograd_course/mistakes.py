"""The mistake catalogs: realistic wrong answers, each a small edit of a solution.

One file per assignment, ``course/mistakes/m<NN>.py`` (``m03.py`` for
``03_backward``), beside the course it belongs to::

    from autograd_course.mistakes import Mistake

    MISTAKES = [
        Mistake("03_square_backward_answer",              # the answer cell it edits
                "forgets the factor 2",                   # what the student got wrong
                edits=[("return 2 * x * grad",            # text of the solution cell ...
                        "return x * grad")],              # ... and what the student wrote
                rule="factor"),                           # the stated rule it breaks
    ]

A mistake is stated as a change to the solution cell (the source with its
``### BEGIN/END SOLUTION`` markers removed, as in ``solutions/``), not as a
copy of it: each ``(old, new)`` replaces text that occurs **exactly once** in
the current solution.  When a solution changes so that an edit no longer
finds its text, :meth:`Mistake.apply` raises :class:`StaleMistake` instead of
grading an answer nobody would write any more.

The course tests (``tests/course/test_mistakes.py``) autograde every mistake
with real nbgrader and check that its exercise loses points, every other
exercise keeps its points, and a failing test's output names ``rule`` (the name of a
rule the exercise's task text states, as the feedback's ``rule <name>:`` line shows it); the
instructor demo (``autograd-course demo``) hands some of them in as a careless
student.  ``course/AUTHORING.md`` asks for at least three per exercise.
"""

import copy
import dataclasses
import importlib.util
import re
from pathlib import Path

from .layout import course_dir as find_course

__all__ = ["Mistake", "StaleMistake", "catalogs", "catalog_files", "with_mistake"]

_CATALOG_FILE = re.compile(r"m(\d\d)\.py")


class StaleMistake(ValueError):
    """A catalogued mistake no longer fits the solution it edits."""


@dataclasses.dataclass(frozen=True)
class Mistake:
    """One wrong answer to one exercise.

    Args:
        grade_id: the answer cell it edits, ``"<NN>_<exercise>_answer"``.
        name: what the student got wrong, in a few words.
        edits: ``[(old, new), ...]``: each ``old`` occurs exactly once in the
            solution cell and is replaced by ``new``, in order.
        rule: the name of the rule of the exercise's task text that the mistake breaks:
            a failing test of the exercise must name it (``rule <name>:``).
    """
    grade_id: str
    name: str
    edits: tuple
    rule: str

    def __post_init__(self):
        for field in ("grade_id", "name", "rule"):
            value = getattr(self, field)
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"Mistake {self.name!r}: {field} must be a non-empty str, got {value!r}")
        edits = tuple(tuple(edit) for edit in self.edits)
        if not edits:
            raise TypeError(f"Mistake {self.name!r} ({self.grade_id}): no edits")
        for edit in edits:
            if len(edit) != 2 or not all(isinstance(part, str) for part in edit) or not edit[0]:
                raise TypeError(f"Mistake {self.name!r} ({self.grade_id}): each edit must be a pair "
                                f"(old, new) of str with a non-empty old, got {edit!r}")
            if edit[0] == edit[1]:
                raise TypeError(f"Mistake {self.name!r} ({self.grade_id}): the edit {edit[0]!r} "
                                f"changes nothing")
        object.__setattr__(self, "edits", edits)

    @property
    def number(self):
        """The assignment number: ``"03"`` for ``"03_mul_backward_answer"``."""
        return self.grade_id.split("_", 1)[0]

    def apply(self, source):
        """The answer cell's source with this mistake made.

        Args:
            source: the solution cell's source, markers removed.

        Returns:
            The edited source.

        Raises:
            StaleMistake: an edit's ``old`` text is missing from the source, or occurs
                more than once (the edit would be ambiguous).
        """
        for old, new in self.edits:
            count = source.count(old)
            if count != 1:
                where = "does not occur in" if count == 0 else f"occurs {count} times in"
                raise StaleMistake(
                    f"mistake {self.name!r} of {self.grade_id} is stale: the text it edits, {old!r}, "
                    f"{where} the solution cell (an edit must match exactly once). Update the "
                    f"mistake to the current solution:\n{source}")
            source = source.replace(old, new, 1)
        return source


def with_mistake(solution_nb, mistake):
    """A copy of the solution notebook whose answer cell ``mistake.grade_id`` has the mistake.

    Raises:
        StaleMistake: the notebook has no such answer cell, or an edit no longer fits.
    """
    nb = copy.deepcopy(solution_nb)
    cells = [cell for cell in nb.cells if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
             == mistake.grade_id and cell.metadata.nbgrader.get("solution")]
    if len(cells) != 1:
        raise StaleMistake(f"mistake {mistake.name!r}: the notebook has {len(cells)} answer cells "
                           f"named {mistake.grade_id!r}, expected exactly one")
    cells[0].source = mistake.apply(cells[0].source)
    return nb


def catalog_files(course_dir):
    """``{"03": Path(".../course/mistakes/m03.py"), ...}`` for every catalog of a course."""
    folder = Path(course_dir) / "mistakes"
    if not folder.is_dir():
        return {}
    return {match.group(1): path for path in sorted(folder.iterdir())
            if (match := _CATALOG_FILE.fullmatch(path.name))}


def _load(path):
    spec = importlib.util.spec_from_file_location(f"autograd_course_mistakes_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    mistakes = getattr(module, "MISTAKES", None)
    if not isinstance(mistakes, (list, tuple)) or not all(isinstance(m, Mistake) for m in mistakes):
        raise TypeError(f"{path}: expected a list MISTAKES of Mistake, found {type(mistakes).__name__}")
    wrong = [m.grade_id for m in mistakes if m.number != path.stem[1:]]
    if wrong:
        raise ValueError(f"{path}: mistakes of other assignments {sorted(set(wrong))}")
    return list(mistakes)


def catalogs(course_dir=None):
    """``{"01": [Mistake, ...], ...}``: every catalog of a course.

    Args:
        course_dir: the course directory (holding ``mistakes/``); by default the
            course found from the current directory or the source checkout.
    """
    if course_dir is None:
        course_dir = find_course()
    return {number: _load(path) for number, path in catalog_files(course_dir).items()}
