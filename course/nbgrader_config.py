"""nbgrader configuration of autograd-course (nbgrader 0.9.6, Python >= 3.11).

nbgrader's command-line apps read this file when they run in ``course/``.
The ``autograd-course`` command (``autograd_course/nbgrader_setup.py``) and the
course tests load it explicitly with traitlets' ``PyFileConfigLoader``, because
``NbGraderAPI`` does not read it by itself.  Every path is relative to this
file, so a copy of ``course/`` anywhere (a temporary directory for the tests
and ``make instructor-demo``, an instructor's home on a JupyterHub) is a
course of its own, with its own gradebook.

Autograding uses the course's nbgrader extensions in ``autograd_course.autograde``
(the installed ``autograd-course`` package: ``pip install autograd-course``,
or ``make venv`` in the repository): students' kernels run in a sandbox,
limits are named in the feedback, test cells are restored with their
released metadata, and a canary re-run catches tests that pass without the
student's code.  ``course/README.md`` explains them.  This file imports
nothing from the repository: the package is found where Python finds it.
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

COURSE_DIR = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------- the course

c.CourseDirectory.course_id = "autograd-course"
c.CourseDirectory.root = COURSE_DIR
# The gradebook: sqlite:///<course>/gradebook.db by default (per-term data, not
# committed).  For a large class, or graders on several machines, use a
# PostgreSQL database instead (pip install psycopg2-binary; see course/README.md):
#   c.CourseDirectory.db_url = "postgresql://grader:PASSWORD@dbhost/autograd_course"
# The environment variable AUTOGRAD_COURSE_DB_URL sets it without editing this file.
if os.environ.get("AUTOGRAD_COURSE_DB_URL"):
    c.CourseDirectory.db_url = os.environ["AUTOGRAD_COURSE_DB_URL"]

# The assignments.  The course plans nine (below); only those whose source
# notebook exists are registered.  nbgrader >= 0.6 has no
# ``NbGrader.db_assignments`` trait any more: an assignment enters the gradebook
# when it is generated (``nbgrader generate_assignment`` creates it), and
# ``autograd-course`` registers every name of this list in the gradebook
# before it generates or grades anything.
PLANNED = ["01_tensors", "02_graph", "03_backward", "04_leaves", "05_ops",
           "06_lifetime", "07_no_grad", "08_inplace", "09_training"]
_SOURCE = os.path.join(COURSE_DIR, "source")
c.AutogradCourse.assignments = sorted(
    name for name in (os.listdir(_SOURCE) if os.path.isdir(_SOURCE) else [])
    if os.path.isfile(os.path.join(_SOURCE, name, name + ".ipynb"))
)

# ------------------------------------------------------ generate_assignment

# Answer cells: the code between ### BEGIN SOLUTION and ### END SOLUTION
# becomes this stub (indented like the markers) in the release.
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.enforce_metadata = True      # markers are only allowed in answer cells

# Test cells: the region between ### BEGIN HIDDEN TESTS and ### END HIDDEN
# TESTS is removed from the release and restored by autograde (nbgrader's defaults).
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
c.ClearHiddenTests.enforce_metadata = True

# The release carries no outputs and none of the volatile per-cell metadata.
c.ClearOutput.enabled = True
c.ClearOutput.remove_metadata_fields = {"collapsed", "scrolled", "execution", "ExecuteTime"}

c.GenerateAssignment.create_assignment = True

# ---------------------------------------------------------------- autograde

# nbgrader's pipelines with the course's extensions (autograd_course/autograde.py):
# RestoreGradeCells gives every nbgrader cell its released metadata (a test
# cell whose grade flag, points or type was edited is graded as released);
# GuardedExecute replaces Execute (sandbox, named limits, recovery from a dead
# kernel, canary).  The other steps are nbgrader's defaults, in its order; then
# RecordFindings keeps, per student, which stated rule each failing check named
# (<course>/findings.db, read by `autograd-course report`).
c.Autograde.sanitize_preprocessors = [
    "autograd_course.autograde.RestoreGradeCells",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "autograd_course.autograde.GuardedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
    "autograd_course.record.RecordFindings",
]

# The autograded notebook is written by nbgrader's exporter, which first checks that the
# sandbox can run (below): without bubblewrap, autograde stops before any kernel, saying what to do.
c.Autograde.exporter_class = "autograd_course.autograde.SandboxCheckedExporter"

# Feedback: nbgrader's HTML, without nbconvert's slow BeautifulSoup pass (autograd_course/autograde.py).
c.GenerateFeedback.exporter_class = "autograd_course.autograde.FeedbackExporter"

# A student who deletes a test cell gets it back: autograde re-inserts every
# grade cell missing from the submission (from the gradebook's copy) and runs it.
c.OverwriteCells.add_missing_cells = True

# Students' kernels run in a bubblewrap sandbox (autograd_course/sandbox.py): no network,
# no access to source/, the gradebook or other submissions, and these limits.
# A cell that hits one scores 0 and its output names the limit.
# `autograd-course grade-class --no-sandbox` turns the sandbox off.
c.GuardedExecute.sandbox = True
c.GuardedExecute.memory_mb = 1024             # address space of a kernel: MemoryError beyond
c.GuardedExecute.cpu_seconds = 900            # CPU time of a whole notebook's kernel
c.GuardedExecute.file_mb = 32                 # largest file a kernel may write
c.GuardedExecute.scratch_mb = 64              # each writable tmpfs (/tmp, the working directory)
c.GuardedExecute.max_restarts = 5             # kernel deaths per notebook before the rest is given up
c.GuardedExecute.canary = True                # passing tests re-run with the student's function failing
c.GuardedExecute.figures = False              # figures drawn on Agg and never rendered (faster feedback)
c.Execute.shutdown_kernel = "immediate"       # a finished kernel is killed, not waited for

# Any stderr output in a test cell zeroes it (nbgrader.utils.determine_grade).
# A harmless warning printed while a test runs (a NumPy or matplotlib warning,
# a warnings.warn in the student's function) must not do that: remove
# stderr outputs that are Python warnings before the cell is graded.  Real
# failures are exceptions, which stay in the cell as "error" outputs.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"(?m)^[^\n]*:\d+: [A-Za-z_.]*Warning: "

# Per-cell limit: a student's infinite loop costs one cell, not the whole run.
# A cell that ignores the interrupt gets a new kernel (GuardedExecute).
c.ExecutePreprocessor.timeout = 60            # seconds per cell (nbgrader's Execute inherits it)
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True         # interrupt the cell, grade the rest of the notebook
c.Execute.raise_on_iopub_timeout = True

# nbconvert validates the whole notebook against its schema after each of the dozen
# preprocessors above; once, after the last one, is enough to catch an invalid notebook.
c.Exporter.optimistic_validation = True

# Output beyond this is cut, so a runaway print cannot bloat the gradebook.
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100
