"""nbgrader's file-system exchange, with submissions that only the graders can read.

nbgrader 0.9.6 hides a submission in ``<exchange>/<course>/inbound`` behind a
name with 72 random bits, in a directory other students cannot list, but
makes its files world-readable (0644, the directory 0777): anyone who learns
the name reads the notebook.  On the course's hub (deploy/jupyterhub/),
``inbound`` belongs to the instructor and the graders' group, with the
set-group-ID bit, so everything a student submits belongs to that group.
:class:`PrivateSubmit` then takes the world's permissions away: the student
and the graders' group keep theirs, other students have none.  Where
``inbound`` carries no such group (a plain nbgrader exchange), it changes
nothing, since the graders could no longer read the submission.

Selected in the class environment's nbgrader_config.py:

    c.ExchangeFactory.submit = "autograd_course.exchange.PrivateSubmit"
"""

import os

from nbgrader.exchange.default.submit import ExchangeSubmit

FILE_MODE = 0o640          # the student reads and writes, the graders read
DIR_MODE = 0o770           # the graders may also remove a submission


class PrivateSubmit(ExchangeSubmit):
    """``nbgrader submit`` (and the Assignments tab's Submit) into the exchange,
    readable by the student and the graders' group only."""

    def copy_files(self):
        super().copy_files()
        submission = os.path.join(self.inbound_path, self.assignment_filename)
        group = os.stat(submission).st_gid
        if group in (os.getgid(), *os.getgroups()):
            self.log.warning("the exchange's inbound directory carries no graders' group: "
                             "the submission keeps nbgrader's permissions")
            return
        for directory, _, files in os.walk(submission):
            for name in files:
                os.chmod(os.path.join(directory, name), FILE_MODE)
            os.chmod(directory, DIR_MODE)
