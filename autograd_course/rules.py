"""The rules each exercise states, as the checks name them.

Every exercise's task text ends with a list of rules, each with a short name::

    **Rules**
    - `once`: every node the pass reaches runs exactly once.
    - `newest`: among the nodes ready to run, the newest runs first.

A check never writes a rule of its own: it names one of these, and a failure quotes the
text the student read::

    EXECUTE = grading.rules("03.execute")
    grading.expect_equal(order, expected, what="the order the nodes ran in",
                         rule=EXECUTE("newest"))

fails with ``rule newest: among the nodes ready to run, the newest runs first.``.  The
rules of every exercise (and which exercise's answer cell plugs each slot) are read from
the source notebooks into ``rules.json`` beside this module (``autograd-course release`` writes it; ``tests/test_rules.py`` fails when it drifts,
and when a check names a rule in any other way), so the tests and the text cannot disagree.
Naming a rule that the exercise does not state is :class:`UnknownRule`: an error of the
course, raised at once, not a failure of the student's code.
"""

import json
from pathlib import Path

__all__ = ["rules", "Rule", "Rules", "UnknownRule", "REGISTRY_FILE", "load", "exercise_of_slot"]

REGISTRY_FILE = Path(__file__).with_name("rules.json")


class UnknownRule(LookupError):
    """A check names an exercise or a rule that no task text states (a bug of the course)."""


_registry = None


def _read():
    global _registry
    if _registry is None:
        try:
            _registry = json.loads(REGISTRY_FILE.read_text(encoding="utf-8"))
        except FileNotFoundError:
            _registry = {}
    return _registry


def load():
    """{exercise id: {rule name: text}} for every exercise, from ``rules.json``."""
    return _read().get("rules", {})


def exercise_of_slot(slot_id):
    """The exercise whose answer cell plugs slot ``slot_id`` (``"08.check_inplace"`` ->
    ``"08.safe_writes"``), or ``slot_id`` itself when no answer cell is known to plug it."""
    return _read().get("slots", {}).get(slot_id, slot_id)


def slots_of(exercise):
    """The slots the answer cell of ``exercise`` plugs, in order."""
    return [slot for slot, owner in _read().get("slots", {}).items() if owner == exercise]


class Rule:
    """One or more rules of one exercise, as a failing check quotes them."""
    __slots__ = ("exercise", "names", "texts")

    def __init__(self, exercise, names, texts):
        self.exercise, self.names, self.texts = exercise, tuple(names), tuple(texts)

    def lines(self):
        """``rule <name>: <text>`` for each rule."""
        return [f"rule {name}: {text}" for name, text in zip(self.names, self.texts)]

    def __str__(self):
        return "; ".join(self.lines())

    def __repr__(self):
        return f"Rule({self.exercise!r}, {self.names!r})"

    def __eq__(self, other):
        return isinstance(other, Rule) and (self.exercise, self.names) == (other.exercise, other.names)

    def __hash__(self):
        return hash((self.exercise, self.names))


class Rules:
    """The rules of one exercise: ``R = rules("03.execute")``, then ``R("newest")`` or
    ``R("newest", "ties")`` names them for a check."""
    __slots__ = ("exercise", "stated")

    def __init__(self, exercise, stated):
        self.exercise, self.stated = exercise, stated

    def __call__(self, *names):
        if not names:
            raise UnknownRule(f"name at least one rule of {self.exercise}")
        unknown = [n for n in names if n not in self.stated]
        if unknown:
            raise UnknownRule(f"exercise {self.exercise} states no rule {', '.join(map(repr, unknown))} in its "
                              f"task text (it states: {', '.join(self.stated) or 'none'})")
        return Rule(self.exercise, names, [self.stated[n] for n in names])

    def names(self):
        return list(self.stated)


def rules(exercise):
    """The rules that exercise ``exercise`` (``"03.execute"``) states in its task text."""
    registry = load()
    if exercise not in registry:
        raise UnknownRule(f"no exercise {exercise!r} states rules (exercises with rules: "
                          f"{', '.join(sorted(registry)) or 'none'})")
    return Rules(exercise, registry[exercise])
