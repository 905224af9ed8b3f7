"""solutions/ passes nbval strictly: every stored output is reproduced.

nbval runs in a subprocess because its pytest plugin imports nbformat (about
1.5 s), so pyproject.toml keeps it out of ordinary runs (``-p no:nbval``).
The same command by hand::

    python -m pytest -p nbval --nbval --nbval-current-env \\
        --nbval-sanitize-with tests/course/nbval_sanitize.cfg solutions/
"""

import importlib.util

import pytest

from tests.course import SOLUTIONS

from .conftest import COURSE_MARKS, require_assignments

pytestmark = COURSE_MARKS + [
    pytest.mark.skipif(importlib.util.find_spec("nbval") is None,
                       reason="nbval is not installed: pip install -e '.[course,test]'")]


def test_solutions_pass_nbval_strictly(nbval_run):
    names = require_assignments()
    missing = [f"{name}.ipynb" for name in names if not (SOLUTIONS / f"{name}.ipynb").is_file()]
    assert not missing, f"solutions/ lacks {missing}: run make solutions"
    command, returncode, output = nbval_run.result()
    assert returncode == 0, f"{command}\n{output[-8000:]}"
    assert " passed" in output
