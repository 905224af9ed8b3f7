"""One gradebook, several grading processes: a file lock around nbgrader's sessions.

``serialize_gradebook(db_url)`` makes this process hold an exclusive file lock
on an sqlite gradebook for as long as an nbgrader ``Gradebook`` is open, so
several grading processes can share one gradebook (autograd_course/classgrade.py).
"""

import fcntl
import os
import re

from nbgrader.api import Gradebook


class _FileLock:
    """An exclusive flock, re-entrant within this process."""

    def __init__(self, path):
        self.path, self.depth, self.fd = path, 0, None

    def acquire(self):
        if self.depth == 0:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self.fd = fd
        self.depth += 1

    def release(self):
        self.depth -= 1
        if self.depth == 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def sqlite_path(db_url):
    """The file of an sqlite URL (``sqlite:////abs/gradebook.db``), else None."""
    match = re.match(r"sqlite:/{3}([^?]+)", db_url or "")
    return match.group(1) if match and match.group(1) != ":memory:" else None


def serialize_gradebook(db_url):
    """From now on, in this process, every nbgrader Gradebook on ``db_url``
    holds ``<gradebook>.lock`` from the moment it opens until it is closed.

    nbgrader opens a Gradebook for a few short reads and writes at a time
    (OverwriteCells, SaveAutoGrades, ...), never while a kernel runs, so
    processes that grade in parallel wait for each other only for those
    moments.  PostgreSQL needs no lock: this does nothing for other URLs."""
    path = sqlite_path(db_url)
    if path is None:
        return
    lock = _FileLock(path + ".lock")
    original_init, original_close = Gradebook.__init__, Gradebook.close
    if getattr(Gradebook, "_autograde_lock", None) is not None:
        Gradebook._autograde_lock.path = lock.path
        return

    def __init__(self, *args, **kwargs):
        Gradebook._autograde_lock.acquire()
        try:
            original_init(self, *args, **kwargs)
        except BaseException:
            Gradebook._autograde_lock.release()
            raise
        self._autograde_locked = True

    def close(self):
        try:
            original_close(self)
        finally:
            if getattr(self, "_autograde_locked", False):
                self._autograde_locked = False
                Gradebook._autograde_lock.release()

    Gradebook._autograde_lock = lock
    Gradebook.__init__, Gradebook.close = __init__, close
