"""``python -m autograd_course ...``: the ``autograd-course`` command (autograd_course/cli.py)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
