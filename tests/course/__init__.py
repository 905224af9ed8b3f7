"""The course pipeline tests: real nbgrader on a temporary copy of course/ (marker ``course``).

The repository's places the tests use: the course, its executed solutions,
the harness fixture assignment (``fixtures/00_fixture``).
"""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "course"
SOLUTIONS = REPO / "solutions"
FIXTURES = REPO / "tests" / "course" / "fixtures"
