"""Grading a class: ``autograd-course grade-class`` against stock ``nbgrader autograde``.

Run from the repository root (a benchmark, not a test; ``make bench`` runs it after
``benchmarks.run``)::

    python -m benchmarks.grading                  # 100 students x 05_ops, the term sampled; ~30 min here
    python -m benchmarks.grading --quick          # 12 students x 01_tensors, no term; ~3 min
    python -m benchmarks.grading --term full      # the whole term graded too (900 notebooks)

**The class** is built from the mistake catalog (``course/mistakes/``,
``autograd_course/mistakes.py``): of the students of an assignment, student *i*
hands in the solution notebook with catalogued mistake *i* made (every mistake is
handed in by some student; with fewer students than mistakes, a student makes
several, on different exercises), and the students left are honest (the solution).
So the grading work is a real class's: failing tests, tracebacks, feedback that
names rules, next to full marks.

**One run, the same submissions** (every configuration grades a fresh copy of the
same class):

1. **stock**: ``nbgrader autograde <assignment>``, one process, in the course's
   configuration with nbgrader's own preprocessors and exporters instead of this
   project's (plain ``python3`` kernels started cold, no sandbox, no canary, no
   named limits); nbgrader's other settings (timeouts, IgnorePattern, limits on
   output) are the course's;
2. **grade-class**: ``autograd_course.classgrade.grade_class`` with its defaults
   (workers, sandbox, warm kernels, canary), from a clean gradebook.  Its grades
   are in the gradebook and ``grades.csv`` when its *grading* phase ends; the
   feedback is rendered after that, as nbgrader's own ``generate_feedback`` step
   is, and timed apart;
3. **the term** (``--term sample``, the default): grade-class on a sample of the
   term, every ``100/k``-th student of each assignment's class of 100 (the same
   mix of mistakes and honest notebooks), all assignments in one run; the term's
   900 notebooks are extrapolated from it (its grading time x 100/k).  ``--term
   full`` grades the 900 notebooks instead.

Targets (issue 38), each printed with PASS or FAIL:

* grade-class's grading at least **4x faster** than stock, on the same submissions;
* **100 students x one assignment in under 3 minutes** (grading; run with
  ``--students 100``, the default);
* **the term of 900 notebooks in under 25 minutes**;
* **the same grades**: every student's score from grade-class equals stock
  nbgrader's (a sandbox, the canary or warm kernels must not change an honest
  grade), and every honest student has full marks.

The Markdown report goes to stdout, progress to stderr, every number to
``benchmarks/results/grading.json`` (``--json``).  The load average (``uptime``)
is printed at the start and the end: other programs on the machine slow every
configuration, and stock (one process) and grade-class (one process per CPU, plus
one) do not feel the load alike, so read ratios of runs made under similar load.
Each run's CPU time is measured too, in a cgroup the benchmark joins (``CpuMeter``;
where it cannot make one, n/a): CPU per notebook does not depend on the load, and the
summary gives the speed-up it implies on otherwise idle CPUs.
"""

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from autograd_course import classgrade, sandbox  # noqa: E402 - after the path above
from autograd_course.layout import assignments, source_notebook_path  # noqa: E402
from autograd_course.mistakes import catalogs, with_mistake  # noqa: E402
from autograd_course.nbgrader_setup import env_with_kernel_paths  # noqa: E402
from autograd_course.notebooks import read_notebook, solution_notebook  # noqa: E402
from autograd_course.pipeline import generate, make_course  # noqa: E402
from autograd_course.pool import Submission, hand_in  # noqa: E402

COURSE = ROOT / "course"
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "grading.json"

SPEEDUP_TARGET = 4.0                 # grade-class / stock nbgrader autograde, wall time
CLASS_STUDENTS = 100
CLASS_TARGET_S = 3 * 60              # 100 students x one assignment
TERM_NOTEBOOKS = 900                 # 100 students x 9 assignments
TERM_TARGET_S = 25 * 60

# nbgrader's own preprocessors and exporters (nbgrader 0.9.6's defaults), appended to a
# copy of the course's nbgrader_config.py for the stock run.
STOCK_CONFIG = '''
# ---- benchmarks/grading.py: stock nbgrader, its own preprocessors and exporters
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec", "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata"]
c.Autograde.autograde_preprocessors = [
    "nbgrader.preprocessors.Execute", "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades", "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata"]
c.Autograde.exporter_class = "nbconvert.exporters.NotebookExporter"
c.GenerateFeedback.exporter_class = "nbconvert.exporters.HTMLExporter"
'''


def _log(message):
    print(message, file=sys.stderr, flush=True)


def _load():
    return os.getloadavg()[0]


class CpuMeter:
    """CPU seconds used by this process and everything it starts, whatever else runs on
    the machine: a cgroup of its own (cgroup v1's cpuacct, or v2's cpu.stat) that the
    benchmark joins at the start, so nbgrader, grade-class's workers, their warm kernel
    servers and every kernel (whose parents do not all wait for them: getrusage misses
    them) are counted.  ``None`` readings where this user cannot make a cgroup."""

    def __init__(self):
        self.group = self.usage = self.parent = None
        for root, usage in (("/sys/fs/cgroup/cpuacct", "cpuacct.usage"), ("/sys/fs/cgroup", "cpu.stat")):
            if not os.path.isfile(os.path.join(root, usage)) or not os.access(root, os.W_OK):
                continue
            group = os.path.join(root, f"bench-grading-{os.getpid()}")
            try:
                os.makedirs(group, exist_ok=True)
                with open(os.path.join(group, "cgroup.procs"), "w") as fh:
                    fh.write(str(os.getpid()))
            except OSError:
                try:
                    os.rmdir(group)
                except OSError:
                    pass
                continue
            self.group, self.usage, self.parent = group, os.path.join(group, usage), root
            return

    def seconds(self):
        if self.usage is None:
            return None
        text = Path(self.usage).read_text()
        if self.usage.endswith("cpu.stat"):
            return int(text.split("usage_usec", 1)[1].split()[0]) / 1e6
        return int(text) / 1e9

    def close(self):
        if self.group is None:
            return
        try:
            with open(os.path.join(self.parent, "cgroup.procs"), "w") as fh:
                fh.write(str(os.getpid()))
            os.rmdir(self.group)         # fails while a straggler still runs in it: left for the system
        except OSError:
            pass
        self.group = self.usage = None


CPU = None


def _cpu():
    return CPU.seconds() if CPU is not None else None


def _delta(before, after):
    return None if before is None or after is None else after - before


# ------------------------------------------------------------------ the class

def class_notebooks(name, students, catalog):
    """[(student, notebook, [mistake names])] of a class of ``students`` for assignment
    ``name``: catalogued mistake j goes to student j mod ``students`` (a student who
    already has a mistake in that answer cell passes it on to the next one), the
    students left hand in the solution."""
    solution = solution_notebook(read_notebook(source_notebook_path(name, COURSE)))
    made = [[] for _ in range(students)]
    for j, mistake in enumerate(catalog):
        for step in range(students):
            student = (j + step) % students
            if all(m.grade_id != mistake.grade_id for m in made[student]):
                made[student].append(mistake)
                break
        else:
            raise ValueError(f"{name}: {students} students cannot hand in every mistake of "
                             f"{mistake.grade_id} (one per answer cell each)")
    result = []
    for index, mistakes in enumerate(made):
        notebook = solution
        for mistake in mistakes:
            notebook = with_mistake(notebook, mistake)
        result.append((f"student{index:03d}", notebook, [m.name for m in mistakes]))
    return result


def build_class(root, names, students, every=1):
    """A generated course with the class of each assignment in ``names`` handed in
    (students of the class of ``students``: every ``every``-th one).  Returns the course
    and {(student, assignment): [mistake names]}."""
    work = make_course(Path(root) / "course", COURSE, names=names)
    generate(work, names)
    numbers = catalogs(COURSE)
    handed = {}
    for name in names:
        for index, (student, notebook, mistakes) in enumerate(
                class_notebooks(name, students, numbers.get(name.split("_", 1)[0], []))):
            if index % every == 0:
                hand_in(work, Submission(name, student, notebook))
                handed[(student, name)] = mistakes
    return work, handed


def _copy(template, label):
    work = Path(tempfile.mkdtemp(prefix=f"bench-{label}-")) / "course"
    shutil.copytree(template, work)
    return work


def gradebook_scores(course):
    """{(student, assignment): (score, max_score)} from the gradebook, with sqlite directly."""
    db = sqlite3.connect(Path(course) / "gradebook.db")
    try:
        rows = db.execute(
            "SELECT s.student_id, a.name, SUM(COALESCE(g.manual_score, g.auto_score, 0)), "
            "SUM(c.max_score) FROM grade g "
            "JOIN submitted_notebook n ON g.notebook_id = n.id "
            "JOIN submitted_assignment s ON n.assignment_id = s.id "
            "JOIN assignment a ON s.assignment_id = a.id "
            "JOIN grade_cells c ON g.cell_id = c.id GROUP BY s.student_id, a.name").fetchall()
    finally:
        db.close()
    return {(student, name): (float(score), float(top)) for student, name, score, top in rows}


# ------------------------------------------------------------------ the runs

def run_stock(template, names):
    """``nbgrader autograde A`` for each assignment, one process at a time, in a copy of
    the class whose configuration is nbgrader's own."""
    work = _copy(template, "stock")
    with open(work / "nbgrader_config.py", "a", encoding="utf-8") as fh:
        fh.write(STOCK_CONFIG)
    env = env_with_kernel_paths(os.environ)
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    load = _load()
    _log(f"[stock] nbgrader autograde, one process, in {work} ...")
    cpu, start = _cpu(), time.perf_counter()
    for name in names:
        done = subprocess.run([nbgrader, "autograde", name], cwd=work, env=env, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"stock nbgrader autograde {name} failed:\n{done.stderr[-3000:]}")
    seconds, cpu = time.perf_counter() - start, _delta(cpu, _cpu())
    scores = gradebook_scores(work)
    shutil.rmtree(work.parent, ignore_errors=True)
    return {"label": "stock nbgrader autograde", "seconds": seconds, "cpu_seconds": cpu, "notebooks": len(scores),
            "load_before": load, "load_after": _load(), "scores": scores}


def run_grade_class(template, label, workers=None):
    """grade_class with its defaults on a copy of the class."""
    work = _copy(template, "grade-class")
    load = _load()
    _log(f"[{label}] autograd-course grade-class in {work} ...")
    cpu = _cpu()
    report = classgrade.grade_class(work, workers=workers, progress=sys.stderr)
    cpu = _delta(cpu, _cpu())
    failed = [f"{o.student}/{o.assignment}: {o.message.strip()[-300:]}" for o in report.outcomes
              if o.status != "graded"]
    scores = gradebook_scores(work)
    shutil.rmtree(work.parent, ignore_errors=True)
    return {"label": label, "seconds": report.grading_seconds, "feedback_seconds": report.feedback_seconds,
            "total_seconds": report.seconds, "cpu_seconds": cpu, "workers": report.workers, "notebooks": len(report.outcomes),
            "load_before": load, "load_after": _load(), "scores": scores, "failed": failed}


def _median_run(runs):
    """The run of median time (the lower one of an even number), with every run's time."""
    chosen = dict(sorted(runs, key=lambda r: r["seconds"])[(len(runs) - 1) // 2])
    chosen["all_seconds"] = [r["seconds"] for r in runs]
    return chosen


def compare(stock, ours, handed):
    """Why grade-class's grades are wrong: a score unlike stock nbgrader's, or an honest
    student without full marks."""
    problems = []
    for key in sorted(set(stock) | set(ours)):
        if key not in ours or key not in stock:
            problems.append(f"{key[0]}/{key[1]}: graded by {'stock only' if key in stock else 'grade-class only'}")
        elif ours[key] != stock[key]:
            problems.append(f"{key[0]}/{key[1]}: grade-class {ours[key][0]:g}/{ours[key][1]:g}, "
                            f"stock {stock[key][0]:g}/{stock[key][1]:g} (mistakes: {handed.get(key)})")
    for key, mistakes in handed.items():
        if not mistakes and key in ours and ours[key][0] != ours[key][1]:
            problems.append(f"{key[0]}/{key[1]}: honest, {ours[key][0]:g}/{ours[key][1]:g}")
    return problems


def _per(seconds, notebooks):
    return "n/a" if seconds is None else f"{seconds / notebooks:.2f}"


def verdict(ok):
    return "PASS" if ok else "FAIL"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assignment", help="the assignment of the class (default 05_ops; 01_tensors with --quick)")
    parser.add_argument("--students", type=int, help=f"students of the class (default {CLASS_STUDENTS}; 12 with --quick)")
    parser.add_argument("--term", choices=("sample", "full", "none"),
                        help="the term: a sample of every assignment's class, extrapolated (default), all "
                             "900 notebooks, or not at all (the default with --quick)")
    parser.add_argument("--sample", type=int, default=10, help="students per assignment in the term's sample "
                                                               "(default 10: every 10th of 100)")
    parser.add_argument("--workers", type=int, help="grade-class's workers (default: its own, CPUs + 1)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs of stock and of grade-class, taking turns; the medians count (default 1)")
    parser.add_argument("--quick", action="store_true", help="a small class, no term: a smoke run")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", default=str(DEFAULT_JSON))
    args = parser.parse_args(argv)
    names = assignments(COURSE)
    assignment = args.assignment or ("01_tensors" if args.quick else "05_ops")
    if assignment not in names:
        parser.error(f"{assignment}: not an assignment of {COURSE / 'source'} ({', '.join(names)})")
    students = args.students or (12 if args.quick else CLASS_STUDENTS)
    term = args.term or ("none" if args.quick else "sample")
    ok, reason = sandbox.ensure()
    if not ok:
        _log(f"warning: the sandbox cannot run here ({reason}): grade-class grades without it")
    global CPU
    CPU = CpuMeter()
    try:
        return _main(args, names, assignment, students, term, ok)
    finally:
        CPU.close()


def _main(args, names, assignment, students, term, ok):
    started = time.perf_counter()
    results = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                           "platform": platform.platform(), "load_at_start": os.getloadavg(),
                           "sandbox": ok},
               "assignment": assignment, "students": students}
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        _log(f"building a class of {students} students x {assignment} from the mistake catalog ...")
        template, handed = build_class(Path(tmp) / "class", [assignment], students)
        stocks, ourses = [], []
        for round_ in range(args.rounds):          # taking turns, each first in every other round
            for first in ((run_stock, run_grade_class) if round_ % 2 == 0 else (run_grade_class, run_stock)):
                if first is run_stock:
                    stocks.append(run_stock(template, [assignment]))
                else:
                    ourses.append(run_grade_class(template, "grade-class", args.workers))
        stock, ours = _median_run(stocks), _median_run(ourses)
        runs = [stock, ours]
        if term != "none":
            every = 1 if term == "full" else max(1, CLASS_STUDENTS // args.sample)
            _log(f"building the term's {'class' if every == 1 else 'sample'}: every {every}-th of "
                 f"{CLASS_STUDENTS} students x {len(names)} assignments ...")
            term_template, _ = build_class(Path(tmp) / "term", names, CLASS_STUDENTS, every)
            term_run = run_grade_class(term_template, "grade-class, the term" +
                                       ("" if every == 1 else f" (every {every}-th student)"), args.workers)
            term_run["scale"] = TERM_NOTEBOOKS / term_run["notebooks"]
            runs.append(term_run)
    results["machine"]["load_at_end"] = os.getloadavg()
    problems = sorted({problem for run in ourses for problem in
                       compare(stocks[0]["scores"], run["scores"], handed) + run["failed"]})
    ratios = [s["seconds"] / o["seconds"] for s, o in zip(stocks, ourses)]      # each round's
    speedup = statistics.median(ratios)
    class_s = ours["seconds"] * CLASS_STUDENTS / students
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    results["commit"] = commit.stdout.strip()

    loads = results["machine"]
    print(f"Grading a class at commit {results['commit']}: {students} students x {assignment}, built from "
          f"the mistake catalog ({sum(1 for k, m in handed.items() if m)} with mistakes, "
          f"{sum(1 for m in handed.values() if not m)} honest); {os.cpu_count()} CPUs; sandbox "
          f"{'on' if ok else 'OFF'}; load average {loads['load_at_start'][0]:.1f} at the start, "
          f"{loads['load_at_end'][0]:.1f} at the end.\n")
    print("| run | notebooks | workers | grading (s; each round) | s per notebook (median) | feedback after (s) "
          "| CPU s per notebook | load before / after |\n"
          "|---|---:|---:|---:|---:|---:|---:|---|")
    for run in runs:
        feedback = f"{run['feedback_seconds']:.1f}" if "feedback_seconds" in run else "—"
        rounds = " / ".join(f"{t:.0f}" for t in run.get("all_seconds", [run["seconds"]]))
        print(f"| {run['label']} | {run['notebooks']} | {run.get('workers', 1)} | {rounds} | "
              f"{run['seconds'] / run['notebooks']:.2f} | {feedback} | "
              f"{_per(run.get('cpu_seconds'), run['notebooks'])} | "
              f"{run['load_before']:.1f} / {run['load_after']:.1f} |")
    print("\n(CPU: the CPU time of the run's processes and kernels, measured in a cgroup, whatever else "
          "runs; grade-class's includes its feedback.)")
    lines = [
        (speedup >= SPEEDUP_TARGET, f"grade-class {speedup:.2f}x faster than stock nbgrader autograde "
                                    f"(goal >= {SPEEDUP_TARGET:.0f}x; "
                                    + (f"{stock['seconds']:.0f} s / {ours['seconds']:.0f} s" if len(ratios) == 1 else
                                       "median of the rounds' " + ", ".join(f"{r:.2f}x" for r in ratios)) + ")"),
        (class_s < CLASS_TARGET_S, f"{CLASS_STUDENTS} students x {assignment} graded in {class_s / 60:.2f} min "
                                   f"(goal < {CLASS_TARGET_S // 60} min"
                                   + ("" if students == CLASS_STUDENTS else
                                      f"; scaled from {students} students") + ")"),
    ]
    if term != "none":
        term_s = term_run["seconds"] * term_run["scale"]
        lines.append((term_s < TERM_TARGET_S, f"the term, {TERM_NOTEBOOKS} notebooks, graded in {term_s / 60:.1f} min "
                                              f"(goal < {TERM_TARGET_S // 60} min; "
                                              + (f"extrapolated from {term_run['notebooks']} notebooks graded"
                                                 if term_run["scale"] != 1 else "all graded") + ")"))
    lines.append((not problems, f"grade-class gives every student stock nbgrader's grade, honest students "
                                f"full marks ({len(problems)} differences)"))
    print("\nSummary:")
    for passed, line in lines:
        print(f"  {verdict(passed)} {line}")
    print(f"  INFO feedback rendered after grading: {ours['feedback_seconds']:.0f} s "
          f"({ours['feedback_seconds'] / ours['notebooks']:.2f} s per notebook); the whole command "
          f"{ours['total_seconds']:.0f} s")
    if stock.get("cpu_seconds") and ours.get("cpu_seconds"):
        stock_cpu, ours_cpu = stock["cpu_seconds"] / stock["notebooks"], ours["cpu_seconds"] / ours["notebooks"]
        print(f"  INFO CPU per notebook: stock {stock_cpu:.2f} s, grade-class {ours_cpu:.2f} s with its feedback; "
              f"on {os.cpu_count()} otherwise idle CPUs grade-class would be about "
              f"{stock_cpu * os.cpu_count() / ours_cpu:.1f}x faster (stock's CPU per notebook over grade-class's "
              f"shared by {os.cpu_count()} CPUs)")
    for problem in problems[:20]:
        print(f"    {problem}")
    for run in runs:
        run["scores"] = {f"{s}/{a}": v for (s, a), v in run["scores"].items()}
    results["runs"] = runs
    results["ratios"] = ratios
    results["summary"] = [f"{verdict(p)} {line}" for p, line in lines]
    results["problems"] = problems
    results["wall_time_s"] = time.perf_counter() - started
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    _log(f"results: {args.json} ({results['wall_time_s']:.0f} s)")
    if problems:
        return 1
    return 1 if args.strict and not all(p for p, _ in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
