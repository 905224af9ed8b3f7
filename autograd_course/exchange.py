"""nbgrader's file-system exchange, with submissions that only the graders can read.

nbgrader 0.9.6 hides a submission in ``<exchange>/<course>/inbound`` behind a
name with 72 random bits, in a directory other students cannot list, but
makes it world-readable (its directory 0777, its files 0644): anyone who
learns the name reads the notebook.  On the course's hub (deploy/jupyterhub/),
``inbound`` belongs to the graders' group and carries the set-group-ID bit,
so a submission's directory belongs to that group.  :class:`PrivateSubmit`
then closes that directory to the world (0770): the student and the graders
enter it, other students cannot, whatever the modes of the files inside.
Where ``inbound`` carries no such group (a plain nbgrader exchange), it
changes nothing, since the graders could no longer read the submission.

Selected in the class environment's nbgrader_config.py:

    c.ExchangeFactory.submit = "autograd_course.exchange.PrivateSubmit"
"""

import os

from nbgrader.exchange.default.submit import ExchangeSubmit

DIR_MODE = 0o770           # the student and the graders' group; nobody else enters


class PrivateSubmit(ExchangeSubmit):
    """``nbgrader submit`` (and the Assignments tab's Submit) into the exchange,
    readable by the student and the graders' group only."""

    def copy_files(self):
        super().copy_files()
        submission = os.path.join(self.inbound_path, self.assignment_filename)
        if os.stat(submission).st_gid in (os.getgid(), *os.getgroups()):
            self.log.warning("the exchange's inbound directory carries no graders' group: "
                             "the submission keeps nbgrader's permissions")
            return
        os.chmod(submission, DIR_MODE)
