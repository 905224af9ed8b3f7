"""The ``autograd-course`` command: the course pipeline, the demo, grading a class.

    autograd-course release       # <course>/release/ from <course>/source/ (nbgrader generate_assignment)
    autograd-course solutions     # solutions/<a>.ipynb beside the course: markers removed, executed
    autograd-course check         # fail when release/, solutions/ or text/ drift from source/
    autograd-course text          # text/NN_x.py from source/ (--to-notebooks: the other way)
    autograd-course demo          # grade example submissions in a temporary course, print the table
    autograd-course lab           # JupyterLab on <course>/release/01_tensors/01_tensors.ipynb
    autograd-course register      # register every assignment in the course's gradebook (a term's start)
    autograd-course grade-class   # autograde every submission of <course>/submitted/, feedback, grades.csv
    autograd-course report A      # <course>/reports/A/index.html: the rules the class broke, who needs help
    autograd-course edition --stage K   # dist/edition-K/: the wheel with later answers sealed, notebooks <= K
    autograd-course syllabus      # the workload table of the syllabus, measured on source/

(``python -m autograd_course ...`` is the same.)  Every command works on the
course directory given with ``--course DIR``, else ``./course``, else the
current directory (it holds ``nbgrader_config.py``).  Only ``register`` and
``grade-class`` change the course's gradebook; the others run nbgrader in a
temporary copy of the course.  nbgrader is imported when a command needs it,
so ``autograd-course --help`` answers at once.
"""

import argparse
import sys

from . import classgrade, course_text, demo, editions, lab, pipeline, report, syllabus
from .layout import PipelineError, course_dir
from .nbgrader_setup import kernel_environment, load_config, nbgrader_api, register

PROG = "autograd-course"


def cmd_register(course):
    """Register every assignment of ``source/`` in the course's own gradebook
    (nbgrader >= 0.6 has no NbGrader.db_assignments: this replaces it)."""
    names = load_config(course).AutogradCourse.get("assignments", [])
    if not names:
        print(f"{course / 'source'} has no assignments")
        return 1
    with kernel_environment():
        register(nbgrader_api(course), names)
    print(f"registered in {course / 'gradebook.db'}: {', '.join(names)}")
    return 0


def cmd_grade_class(args):
    report = classgrade.grade_class(args.course, args.workers, args.assignments, args.force,
                                    sandbox=not args.no_sandbox, csv=args.csv)
    print(report.summary())
    return 1 if report.of("failed") else 0


def cmd_report(course, args):
    """The class report of an assignment (or the term), from the gradebook and the findings."""
    if args.term == bool(args.assignment):
        raise PipelineError("name an assignment (autograd-course report 02_graph) or give --term, not both")
    path = (report.write_term(course, args.anonymous) if args.term
            else report.write(course, args.assignment, args.anonymous))
    print(f"report: {path}")
    return 0


def cmd_text(course, to_notebooks):
    """Pair the source notebooks with their text forms, one way or the other."""
    changed = course_text.write_notebooks(course) if to_notebooks else course_text.write_texts(course)
    for path in changed:
        print(f"wrote {path}")
    print(f"{len(changed)} file(s) changed" + (": run autograd-course release and solutions next"
                                                 if to_notebooks and changed else ""))
    return 0


def parser():
    top = argparse.ArgumentParser(prog=PROG,
                                  description="The course pipeline, the instructor demo, grading a class.",
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  epilog="\n".join(__doc__.split("\n")[2:14]))
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, help):
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("--course", metavar="DIR",
                       help="the course directory (default: ./course, else the current directory)")
        return p

    command("release", "regenerate <course>/release/ from <course>/source/")
    solutions = command("solutions", "regenerate and execute solutions/ (beside the course)")
    solutions.add_argument("assignments", nargs="*", help="only these (default: all)")
    command("check", "fail when release/, solutions/ or text/ drift from source/")
    text = command("text", "write <course>/text/NN_x.py, the source notebooks as text (jupytext's "
                           "percent format) that linters, duplicate finders and diffs read")
    text.add_argument("--to-notebooks", action="store_true",
                      help="the other way: rewrite source/ from the edited text/")
    demo_ = command("demo", "grade example submissions in a temporary course")
    demo_.add_argument("--keep", metavar="DIR", help="build the demo course in DIR and keep it")
    lab_ = command("lab", "open JupyterLab on the first release notebook")
    lab_.add_argument("notebook", nargs="?")
    lab_.add_argument("--dry-run", action="store_true", help="print the command only")
    command("register", "register every assignment in the course's gradebook")
    klass = command("grade-class", "autograde every submission in <course>/submitted/ "
                                   "(parallel, sandboxed, incremental), feedback, grades.csv")
    klass.add_argument("--workers", type=int, help="grading processes (default: one per CPU, plus one)")
    klass.add_argument("--assignment", action="append", dest="assignments", metavar="A",
                       help="only this assignment (repeatable; default: all)")
    klass.add_argument("--force", action="store_true", help="regrade submissions already graded")
    klass.add_argument("--no-sandbox", action="store_true",
                       help="run students' code as yourself, without bubblewrap (unsafe)")
    klass.add_argument("--csv", help="where to write the grades (default: <course>/grades.csv)")
    report_ = command("report", "write <course>/reports/ASSIGNMENT/index.html: the score distribution, "
                                "the rules the class broke most, who needs help (after grade-class)")
    report_.add_argument("assignment", nargs="?", metavar="ASSIGNMENT", help="the assignment (02_graph)")
    report_.add_argument("--term", action="store_true",
                         help="the term instead: per assignment the mean and the rules that stayed broken")
    report_.add_argument("--anonymous", action="store_true",
                         help="students as counts only, safe to show the class (index-anonymous.html)")
    edition = command("edition", "build the classroom edition of one stage: a wheel with the answers "
                                 "of later assignments sealed, the release notebooks up to it, binder/")
    edition.add_argument("--stage", type=int, required=True, metavar="K",
                         help="the assignment the class is at (1-9): assignments >= K are sealed")
    edition.add_argument("--out", metavar="DIR", help="where to build it (default: dist/edition-K beside "
                                                      "the course)")
    edition.add_argument("--solutions", action="store_true",
                         help="also the executed solutions of the assignments before K, without hidden tests")
    command("syllabus", "print the syllabus's workload table (prose, code, exercises, points, "
                        "hours), measured on the source notebooks")
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        course = course_dir(args.course)
        if args.command == "release":
            return pipeline.release(course)
        if args.command == "solutions":
            return pipeline.write_solutions(course, names=args.assignments or None)
        if args.command == "check":
            return pipeline.check(course)
        if args.command == "text":
            return cmd_text(course, args.to_notebooks)
        if args.command == "demo":
            return demo.run(course, args.keep)
        if args.command == "lab":
            return lab.run(course, args.notebook, args.dry_run)
        if args.command == "register":
            return cmd_register(course)
        if args.command == "edition":
            editions.build_edition(args.stage, args.out, args.solutions, course)
            return 0
        if args.command == "report":
            return cmd_report(course, args)
        if args.command == "syllabus":
            print(syllabus.table(course))
            return 0
        args.course = course
        return cmd_grade_class(args)
    except PipelineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
