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
    moments.  Each gradebook has its own lock: a process that graded one course
    and then opens another course's gradebook (the grading benchmark builds a
    second course after grading the first, whose directory is gone by then) takes
    that one's lock, or none.  PostgreSQL needs no lock: this does nothing for
    other URLs."""
    path = sqlite_path(db_url)
    if path is None:
        return
    locks = getattr(Gradebook, "_autograde_locks", None)
    if locks is not None:
        locks.setdefault(path, _FileLock(path + ".lock"))
        return
    locks = {path: _FileLock(path + ".lock")}
    original_init, original_close = Gradebook.__init__, Gradebook.close

    def __init__(self, db_url, *args, **kwargs):
        lock = locks.get(sqlite_path(db_url))
        if lock is not None:
            lock.acquire()
        try:
            original_init(self, db_url, *args, **kwargs)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        self._autograde_lock = lock

    def close(self):
        try:
            original_close(self)
        finally:
            lock, self._autograde_lock = getattr(self, "_autograde_lock", None), None
            if lock is not None:
                lock.release()

    Gradebook._autograde_locks = locks
    Gradebook.__init__, Gradebook.close = __init__, close
