"""The environment variables a fresh virtual environment made by a test may inherit.

The test runner's own environment can carry what would make a fresh environment
import this checkout instead of what was installed into it: a PYTHONPATH that names
the repository (pip then even takes the package as installed already and skips the
wheel), the runner's VIRTUAL_ENV, Python start-up files.  Tests that build and use a
fresh environment (test_portable, test_editions_stages) run their commands with
:func:`clean_environ`.
"""

import os
import re

FOREIGN = re.compile(r"^(PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|PYTHONUSERBASE|VIRTUAL_ENV|PIP_TARGET|PIP_PREFIX)$")


def clean_environ():
    """``os.environ`` without the variables of :data:`FOREIGN`."""
    return {k: v for k, v in os.environ.items() if not FOREIGN.match(k)}
