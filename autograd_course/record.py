"""``RecordFindings``: the last step of autograde keeps what the checks found.

``course/nbgrader_config.py`` puts it after nbgrader's ``SaveAutoGrades``: the graded
notebook's test cells (their outputs as the grader left them, their scores as nbgrader
gives them) become one record of :mod:`autograd_course.findings` in the course's
``findings.db`` (nbgrader's autograde runs in the course's root directory), so the class
report reads which rule each failing check named without reading HTML or running code.
A failure to record is logged and never costs a grade.
"""

import os

from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

from .findings import Store, record_of
from .notebooks import grade_id, is_test_cell


class RecordFindings(NbGraderPreprocessor):
    """Store the findings of the notebook being autograded (see the module doc)."""

    def preprocess(self, nb, resources):
        info = (resources or {}).get("nbgrader") or {}
        if not {"student", "assignment"} <= set(info):
            return nb, resources                  # not autograding
        try:
            scores = {}
            for cell in nb.cells:
                if is_test_cell(cell):
                    score, max_score = utils.determine_grade(cell, self.log)
                    scores[grade_id(cell)] = (score or 0.0, max_score or 0.0)
            record = record_of(nb, info["student"], info["assignment"], info.get("notebook"), scores)
            Store(os.getcwd()).put(record)
        except Exception as error:               # never lose a grade over the report's data
            self.log.warning("RecordFindings: the findings of %s/%s were not recorded: %s: %s",
                             info.get("student"), info.get("assignment"), type(error).__name__, error)
        return nb, resources
