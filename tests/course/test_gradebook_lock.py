"""autograd_course.gradebook_lock: each sqlite gradebook has its own lock.

A process that serialized one course's gradebook (grade-class did) and then opens
another's must not reach for the first one's lock: the grading benchmark builds the
term's course after grading a class whose directory is gone by then, and stopped
with FileNotFoundError on the old ``gradebook.db.lock``.
"""

import fcntl
import os
import shutil

from nbgrader.api import Gradebook

from autograd_course.gradebook_lock import serialize_gradebook
from autograd_course.nbgrader_setup import kernel_environment


def _held(lock_path):
    """Whether another open file description cannot take the lock now."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_each_gradebook_has_its_own_lock(tmp_path):
    with kernel_environment():            # nbgrader runs alembic from the venv's bin
        _each_gradebook_has_its_own_lock(tmp_path)


def _each_gradebook_has_its_own_lock(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    url_first, url_second = f"sqlite:///{first}/gradebook.db", f"sqlite:///{second}/gradebook.db"
    serialize_gradebook(url_first)
    with Gradebook(url_first) as gb:
        gb.add_student("s1")
        assert _held(f"{first}/gradebook.db.lock"), "a Gradebook open on the first course does not hold its lock"
    assert not _held(f"{first}/gradebook.db.lock"), "the first course's lock is still held after its Gradebook closed"

    shutil.rmtree(first)                      # graded, copied out, removed
    with Gradebook(url_second) as gb:         # not serialized: opens without any lock
        gb.add_student("s2")
        assert [s.id for s in gb.students] == ["s2"], f"second gradebook holds {[s.id for s in gb.students]}"
    assert not os.path.exists(f"{second}/gradebook.db.lock"), \
        "a Gradebook on a course never serialized took a lock file"

    serialize_gradebook(url_second)
    with Gradebook(url_second) as gb:
        assert _held(f"{second}/gradebook.db.lock"), "the second course, once serialized, is not locked"
        with Gradebook(url_second) as inner:  # re-entrant within the process
            assert [s.id for s in inner.students] == ["s2"]
        assert _held(f"{second}/gradebook.db.lock"), "closing a nested Gradebook released the outer one's lock"
    assert not _held(f"{second}/gradebook.db.lock"), "the second course's lock is still held after close"
