"""The machinery of the load test (test_load.py): a class of N students on the real hub
of classroom.py, driven by locust (locustfile.py), while the instructor collects and
grades; what the machine spent; and the account of every submission afterwards.

:class:`Plan` says what each student of a run does: their answers for each attempt
(honest: the solution; a catalogued mistake of course/mistakes, through
autograd_course.mistakes; or the blank notebook), each attempt made unique by a
comment that names the student and a nonce, so that a saved notebook's sha256 says
whose and which it is.

:class:`LoadRun` is one run: it writes the plan, starts the sampler (CPU and memory
of the machine and of the class's processes, every 2 s), locust (a subprocess: its
gevent stays out of pytest), the instructor's loop (``nbgrader collect --update``
and ``make grade-class``, started from the instructor's own server as a terminal
would, so that a hub restart does not cut them), and the faults it is given; then a
last collect and grade once every student is done.  Its ``figures()`` are what the
guide quotes.

:func:`account_for_everyone` is the check after every run: each student's last
submission in the exchange exactly once, under their own name, owned by them, with
the bytes they saved; in the course's submitted/ the same; its grade in PostgreSQL
the one its answers earn; nothing of one student readable by another; a student who
did not finish is named with the step and the reason.
"""

import hashlib
import json
import os
import pwd
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from autograd_course import notebooks
from autograd_course.layout import source_notebook_path
from autograd_course.mistakes import catalogs
from autograd_course.notebooks import exercise_of, grade_id, is_answer_cell, is_test_cell, nbgrader_meta, read_notebook
from tests.course import COURSE, SOLUTIONS

from .classroom import COURSE_ID, REPO, processes_of, runuser

ASSIGNMENT = "01_tensors"
NOTEBOOK = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
# The load test's own accounts: the hub test's (agct-) may run beside it, and another load
# test too with another AUTOGRAD_LOAD_ACCOUNTS prefix.
PREFIX = os.environ.get("AUTOGRAD_LOAD_ACCOUNTS") or "agcl"
INSTRUCTOR = f"{PREFIX}-instr"
GRADERS = f"{PREFIX}-graders"
KINDS = ("honest", "mistake", "blank")


def student_names(n):
    return [f"{PREFIX}-s{i:02d}" for i in range(1, n + 1)]


def percentile(values, q):
    """The q-th percentile (0-100) of ``values``, by linear interpolation (numpy's default)."""
    values = sorted(values)
    if not values:
        return None
    k = (len(values) - 1) * q / 100
    low, high = int(k), min(int(k) + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (k - low)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ------------------------------------------------------------------ answers

class Answers:
    """The answers a student of 01_tensors hands in, by kind."""

    def __init__(self):
        solved = read_notebook(SOLUTIONS / f"{ASSIGNMENT}.ipynb")
        self.solution = {grade_id(c): c.source for c in solved.cells if is_answer_cell(c)}
        release = read_notebook(COURSE / "release" / NOTEBOOK)
        self.blank = {grade_id(c): c.source for c in release.cells if is_answer_cell(c)}
        self.first = next(g for g in self.blank)
        self.mistakes = catalogs(COURSE)[ASSIGNMENT.split("_")[0]]
        source = read_notebook(source_notebook_path(ASSIGNMENT, COURSE))
        self.points = {grade_id(c): float(nbgrader_meta(c)["points"]) for c in source.cells if is_test_cell(c)}

    def make(self, kind, name, nonce):
        """{answer cell: source} of one attempt; ``kind``: honest, mistake:<index>, blank."""
        tag = f"# {name}, attempt {nonce}\n"
        if kind == "blank":                       # every answer cell as released (a later round starts
            return {**self.blank, self.first: self.blank[self.first] + f"\n{tag}"}   # from their last answers)
        answers = dict(self.solution)
        if kind.startswith("mistake:"):
            mistake = self.mistakes[int(kind.split(":")[1]) % len(self.mistakes)]
            answers[mistake.grade_id] = mistake.apply(answers[mistake.grade_id])
        answers[self.first] = tag + answers[self.first]
        return answers

    def expected(self, kind):
        """(what the gradebook must show, a check of {cell: score}) for an attempt of ``kind``."""
        full = self.points
        if kind == "honest":
            return "full marks", lambda cells: cells == full
        if kind == "blank":
            return "0 on every test cell", lambda cells: cells == {g: 0.0 for g in full}
        mistake = self.mistakes[int(kind.split(":")[1]) % len(self.mistakes)]
        exercise = notebooks.tests_of(exercise_of(mistake.grade_id), full)

        def check(cells):
            return (set(cells) == set(full) and sum(cells[g] for g in exercise) < sum(full[g] for g in exercise)
                    and all(cells[g] == full[g] for g in full if g not in exercise))
        return (f"less than full marks on {exercise_of(mistake.grade_id)} ({mistake.name}), "
                f"full marks elsewhere"), check


def kinds_for(index, round_number, n_mistakes):
    """The attempts of student ``index`` in round ``round_number``: their kinds rotate from
    round to round; every fourth student submits twice (the second counts)."""
    kind = KINDS[(index + round_number) % 3]
    if kind == "mistake":
        kind = f"mistake:{(index // 3 + round_number) % n_mistakes}"
    attempts = [kind]
    if index % 4 == 3:
        attempts.insert(0, "blank" if kind != "blank" else "honest")
    return attempts


# -------------------------------------------------------------------- sampler

def _cpu_times():
    """(busy, total) jiffies of the whole machine (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _meminfo():
    values = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, _, rest = line.partition(":")
        values[key] = int(rest.split()[0]) * 1024
    return values


class Sampler(threading.Thread):
    """Every ``every`` seconds: the machine's busy cores and used memory, and the class's
    processes (the hub and its proxy, PostgreSQL, every process of the class's accounts):
    their proportional memory (Pss) and their CPU time."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, room, every=2.0):
        super().__init__(daemon=True)
        self.room, self.every = room, every
        self.uids = {pwd.getpwnam(name).pw_uid for name in room.accounts()}
        self.samples, self.cpu = [], {}
        self.halt = threading.Event()
        self.baseline = None

    def roots(self):
        pids = set()
        if self.room.hub is not None:
            pids.add(self.room.hub.pid)
        pid_file = self.room.postgres.data / "postmaster.pid"
        try:
            pids.add(int(pid_file.read_text().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
        return pids

    def class_processes(self):
        """{pid: (cpu ticks, Pss bytes)} of the class's processes."""
        table = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                rest = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                table[int(entry.name)] = (entry.stat().st_uid, int(rest[1]), int(rest[11]) + int(rest[12]))
            except (OSError, IndexError, ValueError):
                pass
        roots, chosen = self.roots(), {}
        for pid, (uid, ppid, ticks) in table.items():
            seen, p = 0, pid
            mine = uid in self.uids
            while not mine and p in table and seen < 50:
                mine = p in roots
                p, seen = table[p][1], seen + 1
            if mine:
                chosen[pid] = ticks
        out = {}
        for pid, ticks in chosen.items():
            try:
                text = Path(f"/proc/{pid}/smaps_rollup").read_text()
                pss = int(re.search(r"^Pss:\s+(\d+)", text, re.M).group(1)) * 1024
            except (OSError, AttributeError):
                continue
            out[pid] = (ticks, pss)
        return out

    def sample(self):
        busy, total = _cpu_times()
        memory = _meminfo()
        processes = self.class_processes()
        for pid, (ticks, _) in processes.items():
            self.cpu[pid] = ticks
        return {"t": time.time(), "busy": busy, "total": total,
                "used": memory["MemTotal"] - memory["MemAvailable"],
                "class_pss": sum(pss for _, pss in processes.values()), "class_processes": len(processes),
                "class_cpu_ticks": sum(self.cpu.values())}

    def run(self):
        self.baseline = self.sample()
        self.samples.append(self.baseline)
        while not self.halt.wait(self.every):
            self.samples.append(self.sample())

    def stop(self):
        self.halt.set()
        self.join(30)
        self.samples.append(self.sample())

    def figures(self):
        s = self.samples
        if len(s) < 2:
            return {}
        cores = os.cpu_count() or 1
        busy = [(b["busy"] - a["busy"]) / max(1, b["total"] - a["total"]) * cores for a, b in zip(s, s[1:])]
        wall = s[-1]["t"] - s[0]["t"]
        class_cpu = (s[-1]["class_cpu_ticks"] - s[0]["class_cpu_ticks"]) / self.TICK
        gib = 1024 ** 3
        return {
            "machine busy cores (mean)": round(statistics.fmean(busy), 2),
            "machine busy cores (max of 2 s samples)": round(max(busy), 2),
            "machine memory used (GiB, at the start)": round(s[0]["used"] / gib, 2),
            "machine memory used (GiB, peak)": round(max(x["used"] for x in s) / gib, 2),
            "class memory (GiB, Pss peak)": round(max(x["class_pss"] for x in s) / gib, 2),
            "class processes (peak)": max(x["class_processes"] for x in s),
            "class CPU (core-seconds)": round(class_cpu, 1),
            "class CPU (cores, mean over the run)": round(class_cpu / wall, 2) if wall else None,
            "sampled for (s)": round(wall, 1),
        }


# ------------------------------------------------------------ the instructor

class Instructor:
    """The instructor's commands, started from their own server on the hub (a kernel
    there starts them in a session of their own, as a JupyterLab terminal would run
    them: a hub restart does not cut them), their output and exit status in files."""

    def __init__(self, room):
        self.room = room
        self.jobs = Path(pwd.getpwnam(room.instructor_name).pw_dir) / "load-jobs"
        if not self.jobs.exists():
            self.jobs.mkdir(mode=0o700)
            user = pwd.getpwnam(room.instructor_name)
            os.chown(self.jobs, user.pw_uid, user.pw_gid)

    def run(self, command, timeout=1800):
        """(exit status, output, seconds) of ``command`` in the course directory, with the
        course's .venv first on PATH."""
        tag = uuid.uuid4().hex[:10]
        out, rc = self.jobs / f"{tag}.out", self.jobs / f"{tag}.rc"
        shell = f"{shlex.join(command)} > {shlex.quote(str(out))} 2>&1; echo $? > {rc}.tmp; mv {rc}.tmp {rc}"
        code = ("import os, subprocess\n"
                f"env = dict(os.environ, PATH={str(self.room.checkout / '.venv' / 'bin')!r} + ':' + os.environ['PATH'])\n"
                f"subprocess.Popen(['sh', '-c', {shell!r}], cwd={str(self.room.course)!r}, env=env,\n"
                "                 start_new_session=True, stdin=subprocess.DEVNULL)\n"
                "print('started')\n")
        start = time.perf_counter()
        end = time.monotonic() + 600
        while not out.exists():                       # the hub may be restarting: start it again
            try:
                self.room.person(self.room.instructor_name).execute(code, 120)
            except BaseException as error:            # noqa: BLE001 - pytest.fail's Failed too: retried
                if time.monotonic() > end:
                    raise AssertionError(f"could not start {command} from the instructor's server: {error}")
                time.sleep(3)
        end = time.monotonic() + timeout
        while not rc.exists():
            if time.monotonic() > end:
                raise AssertionError(f"{' '.join(command)}: no exit status after {timeout} s:\n"
                                     f"{out.read_text(errors='replace')[-3000:]}")
            time.sleep(1)
        return int(rc.read_text().strip()), out.read_text(errors="replace"), time.perf_counter() - start

    def collect(self):
        return self.run(["nbgrader", "collect", "--update", ASSIGNMENT])

    def grade(self):
        # autograd-course grade-class is what make grade-class runs, after make venv (a pip install
        # each time, which would be counted as grading)
        return self.run(["autograd-course", "grade-class"])


def grade_summary(output):
    """(graded, unchanged, failed) of grade-class's summary line, or None."""
    found = re.findall(r"grade-class: (\d+) graded, (\d+) unchanged \(not regraded\), (\d+) failed", output)
    return tuple(int(x) for x in found[-1]) if found else None


# --------------------------------------------------------------------- a run

class LoadRun:
    """One run of the class (see the module doc).  ``faults``: callables run in threads
    beside it, each given the run; ``instructor_hook``: called by the instructor's loop
    before each collect (the database fault)."""

    def __init__(self, room, plan_students, name, ramp=30.0, bound=1800, faults=(), instructor_hook=None,
                 think=(0.5, 2.0), retry_after=10):
        self.room, self.name, self.students = room, name, plan_students
        self.ramp, self.bound, self.faults, self.instructor_hook = ramp, bound, faults, instructor_hook
        self.dir = room.root / "load" / name
        self.dir.mkdir(parents=True)
        self.dir.chmod(0o755)
        self.signals = self.dir / "signals"
        self.signals.mkdir()
        self.think, self.retry_after = think, retry_after
        self.results_path = self.dir / "results.jsonl"
        self.facts, self.errors, self.grading = {}, [], []
        self.instructor = Instructor(room)
        self.finished = threading.Event()

    def plan(self):
        return {"hub": self.room.url, "course_id": COURSE_ID, "assignment": ASSIGNMENT, "notebook": NOTEBOOK,
                "signals": str(self.signals), "deadline": time.time() + self.bound - 30, "think": list(self.think),
                "retry_after": self.retry_after, "students": self.students}

    def events(self, what):
        path = self.signals / "events.jsonl"
        if not path.exists():
            return []
        return [e for e in map(json.loads, path.read_text().splitlines()) if e["what"] == what]

    def locust(self):
        n = len(self.students)
        plan = self.dir / "plan.json"
        plan.write_text(json.dumps(self.plan()))
        env = dict(os.environ, AUTOGRAD_LOAD_PLAN=str(plan), AUTOGRAD_LOAD_RESULTS=str(self.results_path))
        command = [str(Path(sys.executable).with_name("locust")), "-f", str(LOCUSTFILE), "--headless",
                   "-u", str(n), "-r", str(max(0.05, n / self.ramp) if self.ramp else n), "-t", f"{self.bound}s",
                   "--stop-timeout", "5", "--only-summary", "--csv", str(self.dir / "locust"),
                   "--host", self.room.url, "--loglevel", "WARNING", "--exit-code-on-error", "0"]
        with open(self.dir / "locust.log", "w") as log:
            return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=self.bound + 120,
                                  cwd=self.dir)

    def instructor_loop(self):
        """Collect and grade, again and again, while the students work."""
        while not self.finished.is_set():
            try:
                if self.instructor_hook:
                    self.instructor_hook(self)
                self.grade_once(during=True)
            except BaseException as error:               # noqa: BLE001 - reported by the test
                self.errors.append(f"instructor's loop: {type(error).__name__}: {error}")
                return
            self.finished.wait(5)

    def grade_once(self, during):
        rc, out, seconds = self.instructor.collect()
        if rc != 0:
            raise AssertionError(f"nbgrader collect --update failed ({rc}):\n{out[-3000:]}")
        rc, out, seconds = self.instructor.grade()
        summary = grade_summary(out)
        self.grading.append({"during load": during, "seconds": round(seconds, 1), "exit": rc,
                             "graded, unchanged, failed": summary, "at": time.time()})
        if rc != 0 or summary is None:
            raise AssertionError(f"make grade-class failed ({rc}):\n{out[-3000:]}")
        return summary

    def run(self):
        self.load_before = os.getloadavg()
        self.sampler = Sampler(self.room)
        self.sampler.start()
        threads = [threading.Thread(target=self.instructor_loop, daemon=True)]
        threads += [threading.Thread(target=self.fault, args=(fault,), daemon=True) for fault in self.faults]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        try:
            self.locust_done = self.locust()
        finally:
            self.wall = time.perf_counter() - start
            self.finished.set()
            for thread in threads:
                thread.join(1800)
            self.sampler.stop()
            self.load_after = os.getloadavg()
        if self.instructor_hook:                     # a hook the loop had no turn for (a long grading)
            self.instructor_hook(self)
        self.final = self.grade_once(during=False)
        return self

    def fault(self, fault):
        try:
            fault(self)
        except BaseException as error:                   # noqa: BLE001 - reported by the test
            self.errors.append(f"{getattr(fault, '__name__', fault)}: {type(error).__name__}: {error}")

    # -------------------------------------------------------------- results

    def results(self):
        """{student: their result}; a student locust never reported is a failure named as such."""
        seen = {}
        if self.results_path.exists():
            for line in self.results_path.read_text().splitlines():
                record = json.loads(line)
                seen[record["name"]] = record
        for student in self.students:
            seen.setdefault(student["name"], {"name": student["name"], "outcome": "failed", "step": "unknown",
                                              "error": "no result: still at work when the run's time bound ended, "
                                                       "or locust stopped first (see locust.log)",
                                              "attempts": [], "refusals": []})
        return seen

    def figures(self):
        results = self.results().values()
        usable = [r["usable_after"] for r in results if "usable_after" in r]
        failed = [r for r in results if r["outcome"] != "done"]
        during = [g for g in self.grading if g["during load"] and g["graded, unchanged, failed"]
                  and g["graded, unchanged, failed"][0]]
        graded = sum(g["graded, unchanged, failed"][0] for g in during)
        final = [g for g in self.grading if not g["during load"]]
        last = final[-1] if final else None
        return {
            "run": self.name, "students": len(self.students), "cores": os.cpu_count(),
            "load average before (1, 5, 15 min)": [round(x, 2) for x in self.load_before],
            "load average after (1, 5, 15 min)": [round(x, 2) for x in self.load_after],
            "wall (s)": round(self.wall, 1), "arrivals spread over (s)": self.ramp,
            "time to a usable server (s)": {
                "median": _round(statistics.median(usable) if usable else None),
                "p95": _round(percentile(usable, 95)), "max": _round(max(usable) if usable else None)},
            "failed or abandoned spawns": sum(1 for r in failed if r.get("step") in ("start the server", "log in")),
            "students who did not finish": {r["name"]: f"{r.get('step')}: {r.get('error', '')[:300]}" for r in failed},
            "refused with 429 (times)": sum(len(r.get("refusals", [])) for r in results),
            "reconnects": sum(r.get("reconnects", 0) for r in results),
            "kernel restarts": sum(r.get("kernel_restarts", 0) for r in results),
            "run every cell (s, median)": _round(statistics.median(
                [a["run_seconds"] for r in results for a in r.get("attempts", [])] or [0])),
            "validate (s, median)": _round(statistics.median(
                [a["validate_seconds"] for r in results for a in r.get("attempts", [])] or [0])),
            "submit (s, median)": _round(statistics.median(
                [a["submit_seconds"] for r in results for a in r.get("attempts", [])] or [0])),
            "grading while students work (grade-class runs that graded)": {
                "runs": len(during), "notebooks graded": graded,
                "seconds": round(sum(g["seconds"] for g in during), 1),
                "s per notebook": round(sum(g["seconds"] for g in during) / graded, 1) if graded else None},
            "last grade-class, once the students are done": {
                "notebooks graded": last and last["graded, unchanged, failed"][0], "seconds": last and last["seconds"],
                "s per notebook": round(last["seconds"] / last["graded, unchanged, failed"][0], 1)
                if last and last["graded, unchanged, failed"][0] else None},
            **self.sampler.figures(),
        }


def _round(x):
    return None if x is None else round(x, 1)


# ------------------------------------------------------------- the account

ATTEMPTS = r'''
import json, os, sys
targets = json.loads(sys.argv[1])
seen = {}
for label, path in targets.items():
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as fh:
                fh.read(1)
        seen[label] = "allowed"
    except OSError as error:
        seen[label] = type(error).__name__
print(json.dumps(seen))
'''


class Ledger:
    """Every attempt of every student across the runs of a classroom: what they saved
    and submitted, in order."""

    def __init__(self):
        self.attempts = {}                        # student -> [{"sha256", "timestamp", "kind"}, ...]

    def add(self, run):
        for name, result in run.results().items():
            self.attempts.setdefault(name, []).extend(result.get("attempts", []))


def inbound(room):
    """[(student in the name, timestamp, owner, sha256 of the notebook, directory)] of the
    exchange's inbound submissions of the assignment."""
    found = []
    root = room.exchange / COURSE_ID / "inbound"
    for directory in sorted(root.iterdir()):
        parts = directory.name.rsplit("+", 3)
        if len(parts) != 4 or parts[1] != ASSIGNMENT:
            continue
        owner = pwd.getpwuid(directory.stat().st_uid).pw_name
        notebook = directory / f"{ASSIGNMENT}.ipynb"
        found.append((parts[0], parts[2], owner, sha256(notebook) if notebook.exists() else None, directory))
    return found


def gradebook_cells(room):
    rows = room.postgres.query("agct_gradebook", (
        "SELECT s.student_id, c.name, g.auto_score FROM grade g "
        "JOIN submitted_notebook n ON g.notebook_id = n.id JOIN submitted_assignment s ON n.assignment_id = s.id "
        "JOIN base_cell c ON g.cell_id = c.id "
        f"JOIN assignment a ON s.assignment_id = a.id WHERE a.name = '{ASSIGNMENT}'"))
    table = {}
    for student, cell, score in rows:
        table.setdefault(student, {})[cell] = float(score) if score else None
    return table


def account_for_everyone(room, run, ledger, answers):
    """The nothing-lost, nothing-crossed check after ``run`` (see the module doc); a list of
    problems, each a sentence naming the student."""
    problems = []
    results = run.results()
    for name, result in sorted(results.items()):
        if result["outcome"] != "done":
            problems.append(f"{name} did not finish (at '{result.get('step')}'): {result.get('error', '')[:800]}")
    submissions = inbound(room)
    by_student = {}
    for student, stamp, owner, digest, directory in submissions:
        if owner != student:
            problems.append(f"{directory.name} is named for {student} but owned by {owner}")
        by_student.setdefault(student, []).append((stamp, digest))
    all_digests = [d for _, _, _, d, _ in submissions]
    cells = gradebook_cells(room)
    for name in room.students:
        attempts = ledger.attempts.get(name, [])
        if not attempts:
            if results.get(name, {}).get("outcome") == "done":
                problems.append(f"{name} finished without an attempt on record")
            continue
        mine = by_student.get(name, [])
        saved = [a["sha256"] for a in attempts]
        if sorted(d for _, d in mine) != sorted(saved):
            problems.append(f"{name}: the exchange holds submissions with sha256 {sorted(d for _, d in mine)}, "
                            f"expected exactly the {len(saved)} they saved: {sorted(saved)}")
        last = attempts[-1]
        if all_digests.count(last["sha256"]) != 1:
            problems.append(f"{name}'s last submission ({last['sha256'][:12]}) is in the exchange "
                            f"{all_digests.count(last['sha256'])} times, expected once")
        newest = max(mine, default=(None, None))
        if newest[1] != last["sha256"]:
            problems.append(f"{name}'s newest submission in the exchange has sha256 {newest[1]}, expected the "
                            f"last one they saved, {last['sha256']}")
        collected = room.course / "submitted" / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        if not collected.exists() or sha256(collected) != last["sha256"]:
            problems.append(f"{name}: the collected notebook {collected} "
                            f"{'has sha256 ' + sha256(collected) if collected.exists() else 'is missing'}, "
                            f"expected their last saved {last['sha256']}")
        said, check = answers.expected(last["kind"])
        if not check(cells.get(name, {})):
            problems.append(f"{name}'s last submission ({last['kind']}) should have {said} in the PostgreSQL "
                            f"gradebook; seen {cells.get(name)}")
    if set(cells) - set(room.students):
        problems.append(f"the gradebook has students who are not in the class: {sorted(set(cells) - set(room.students))}")
    problems += crossed_reads(room, by_student)
    return problems


def crossed_reads(room, by_student):
    """As each student (their own Unix account): their own notebook reads; every other
    student's home, notebook and submissions are refused."""
    problems = []
    homes = {name: Path(pwd.getpwnam(name).pw_dir) for name in room.students}
    directories = {}
    for student, stamp, owner, digest, directory in inbound(room):
        directories.setdefault(student, []).append(directory)
    for name in room.students:
        targets = {"own notebook": str(homes[name] / NOTEBOOK)}
        for other in room.students:
            if other == name:
                continue
            targets[f"{other}'s home"] = str(homes[other])
            targets[f"{other}'s notebook"] = str(homes[other] / NOTEBOOK)
            for number, directory in enumerate(directories.get(other, [])):
                targets[f"{other}'s submission {number}"] = str(directory / f"{ASSIGNMENT}.ipynb")
        done = runuser(name, [str(room.prefix / "env" / "bin" / "python"), "-c", ATTEMPTS, json.dumps(targets)],
                       f"reads as {name}", cwd="/")
        seen = json.loads(done.stdout.strip().splitlines()[-1])
        allowed = sorted(k for k, v in seen.items() if v == "allowed")
        if allowed != ["own notebook"]:
            problems.append(f"as {name}, expected to read only their own notebook; allowed: {allowed}")
    return problems


# ------------------------------------------------------------------- faults

def wait_for_events(run, what, count, timeout=900):
    end = time.monotonic() + timeout
    while len(run.events(what)) < count:
        if time.monotonic() > end or run.finished.is_set():
            raise AssertionError(f"expected {count} '{what}' events within {timeout} s, seen {len(run.events(what))}")
        time.sleep(0.5)


def servers(room):
    """{student: pid of their jupyterhub-singleuser} of the students with a server process."""
    found = {}
    for name in room.students:
        uid = pwd.getpwnam(name).pw_uid
        for pid in processes_of(uid):
            try:
                if b"jupyterhub-singleuser" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.setdefault(name, []).append(pid)
            except OSError:
                pass
    return found


def restart_hub_midway(run):
    """The hub restarted once half the class has a usable server: SIGTERM, then started
    again; the servers that ran before must run after, the same processes."""
    wait_for_events(run, "server usable", max(1, len(run.students) // 2))
    before = servers(run.room)
    start = time.perf_counter()
    run.room.stop_hub()
    stopped = time.perf_counter()
    time.sleep(3)                                    # the hub is away for a moment
    run.room.start_hub()
    after = servers(run.room)
    run.facts["hub restart"] = {"servers before": before, "servers after": after,
                                "hub away (s)": round(time.perf_counter() - start, 1),
                                "stop took (s)": round(stopped - start, 1)}


def kill_a_kernel(victim):
    def kill_kernel(run):
        """SIGKILL to the kernel ``victim`` is running their notebook in, halfway through it."""
        marker = run.signals / f"{victim}.kernel"
        end = time.monotonic() + 900
        while not marker.exists():
            if time.monotonic() > end or run.finished.is_set():
                raise AssertionError(f"{victim} never reached the middle of their notebook")
            time.sleep(0.5)
        kernel = marker.read_text().strip()
        uid = pwd.getpwnam(victim).pw_uid
        pids = [pid for pid in processes_of(uid)
                if f"kernel-{kernel}.json".encode() in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(pids) == 1, f"expected one process of {victim}'s kernel {kernel}, seen {pids}"
        os.kill(pids[0], signal.SIGKILL)
        run.facts["kernel killed"] = {"student": victim, "kernel": kernel, "pid": pids[0]}
        (run.signals / f"{victim}.killed").write_text(str(pids[0]))
    return kill_kernel


def database_away_during_collect(run):
    """Once half the class has submitted (or, when grading kept the loop busy until the class was
    done, before the last collect): PostgreSQL stops, a collect runs and must fail
    loudly (its exit status and the connection named), PostgreSQL starts again a few
    seconds later, and the next collect (the loop's) must complete it.  Once per run."""
    if "database away" in run.facts:
        return
    if not run.finished.is_set() and len(run.events("submitted")) < max(1, len(run.students) // 2):
        return                                       # (once the class is done: the last collect's turn)
    room = run.room
    room.postgres.stop()
    try:
        rc, out, seconds = run.instructor.collect()
        time.sleep(3)
    finally:
        room.postgres.start_again()
    run.facts["database away"] = {"collect exit": rc, "collect said": _last_lines(out, 6), "collect (s)": round(seconds, 1)}


def _last_lines(text, n):
    return "\n".join(text.strip().splitlines()[-n:])
