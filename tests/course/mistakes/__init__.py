"""The mistake catalogs: realistic wrong answers, autograded with real nbgrader.

One module per assignment, ``m<NN>.py`` (``m02.py`` for ``02_graph``)::

    from . import Mistake

    MISTAKES = [
        Mistake(
            grade_id="02_gradient_edge_answer",        # the answer cell it replaces
            name="forgets the AccumulateGrad cache",   # what the student got wrong
            code='''
    def gradient_edge(tensor):
        ...                                            # the wrong version, complete
    exercises.plug("02.gradient_edge", gradient_edge)
    ''',                                               # the FULL new source of that cell
            rule="a leaf's edge is its cached AccumulateGrad",   # the feedback must contain this
        ),
        ...
    ]

``tests/course/test_mistakes.py`` takes the solution notebook (the source
with the markers removed, as in ``solutions/``), replaces the answer cell
``grade_id`` by ``code``, autogrades it with nbgrader as a submission, and
checks that

* at least one test cell of *that* exercise loses points (the test cells of
  exercise ``02_gradient_edge`` are the grade cells whose grade_id starts
  with ``02_gradient_edge_test``);
* every test cell of every *other* exercise keeps all of its points;
* the output of a failing test cell of the exercise (the traceback text in
  the autograded notebook) contains ``rule`` (whitespace is normalized).

AUTHORING.md asks for at least three mistakes per exercise.
"""

import dataclasses
import importlib
import pkgutil

__all__ = ["Mistake", "catalogs"]


@dataclasses.dataclass(frozen=True)
class Mistake:
    grade_id: str    # the answer cell: "<NN>_<name>_answer"
    name: str        # short description: what the student got wrong
    code: str        # the full replacement source of the answer cell
    rule: str        # a phrase the failing test's feedback must contain

    @property
    def number(self):
        """The assignment number, "02" for "02_gradient_edge_answer"."""
        return self.grade_id.split("_", 1)[0]


def catalogs():
    """{"01": [Mistake, ...], ...} from every ``m<NN>.py`` of this package."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        name = info.name
        if not (len(name) == 3 and name[0] == "m" and name[1:].isdigit()):
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        mistakes = getattr(module, "MISTAKES", None)
        if not isinstance(mistakes, (list, tuple)):
            raise TypeError(f"{module.__file__}: defines no MISTAKES list")
        for mistake in mistakes:
            for field in ("grade_id", "name", "code", "rule"):
                if not isinstance(getattr(mistake, field, None), str) or not getattr(mistake, field):
                    raise TypeError(f"{module.__file__}: {mistake!r} needs a non-empty str {field}")
        found[name[1:]] = list(mistakes)
    return found
