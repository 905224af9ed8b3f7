"""autograd_course: the course around autograd_lib, and its grader.

``autograd_lib`` is the library students read and extend; it keeps only the
slot points the engine needs (``autograd_lib.exercises``: plug, reference).
Everything that runs the course lives here: what a notebook's test cells use
to grade an exercise, the integrity checks that keep those tests honest, the
nbgrader extensions, the sandbox students' kernels are graded in, grading a
whole class, and the ``autograd-course`` command line.
"""
