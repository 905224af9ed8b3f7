"""A week of the term on a real JupyterHub, end to end (marker ``hub``).

The machine is set up with the project's own installer (deploy/jupyterhub/
install.py, see classroom.py): the class environment with JupyterHub,
configurable-http-proxy from npm, real Unix accounts (an instructor and three
students, logging in through PAM with the installer's passwords), nbgrader's
exchange, the instructor's course directory, and a real PostgreSQL gradebook.
The hub runs as root on 127.0.0.1 and spawns each user's server as that user.

The tests run in order, each one a step of the week:

1. the instructor generates and releases 01_tensors through the exchange;
   every student's server lists it;
2. ada, in real Chromium: the hub's login page, the Assignments tab, Fetch,
   the answers typed into the notebook, Validate (success), Submit;
3. ben and cy through their servers' API (the Assignments tab's calls): ben
   answers with one catalogued mistake, cy hands in the blank notebook;
4. the instructor collects and runs ``make grade-class`` against PostgreSQL:
   the gradebook and grades.csv hold exactly the expected scores;
5. a second collect and grade-class change nothing;
6. the instructor releases feedback; each student fetches exactly their own;
7. ben's server cannot read ada's home, her submission in the exchange,
   the course's source/ or the gradebook;
8. the limits of a student's server are in force;
9. cy resubmits late: only cy is graded again;
10. the instructor's formgrader shows the gradebook, and only the instructor has it;
11. the systemd variant of the configuration names only SystemdSpawner's own settings.

Durations (s) and two memory figures (MB) go to artifacts/hub/measurements.json;
screenshots to artifacts/hub/.
"""

import csv
import json
import os
import pwd
import subprocess
import time
from pathlib import Path

import pytest

from autograd_course import notebooks     # notebooks.tests_of: pytest would collect a bare tests_of
from autograd_course.layout import assignments, source_notebook_path
from autograd_course.mistakes import catalogs
from autograd_course.notebooks import (dumps, exercise_of, grade_id, is_answer_cell, is_test_cell,
                                       nbgrader_meta, read_notebook)
from tests.course import COURSE, SOLUTIONS

from .classroom import COURSE_ID, INSTRUCTOR, REPO, STUDENTS, Classroom, skip_reason

pytestmark = pytest.mark.hub

ASSIGNMENT = "01_tensors"
NOTEBOOK = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
ARTIFACTS = REPO / "artifacts" / "hub"
ADA, BEN, CY = STUDENTS                       # the browser student, the mistake, the blank
MISTAKE = 0                                   # course/mistakes/m01.py: "ignores grad mode"
TABLES = ("student", "submitted_assignment", "submitted_notebook", "grade", "comment")


def _durations(room):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "measurements.json").write_text(json.dumps(room.measured, indent=1) + "\n")
    print("\nhub test measurements (s, MB): " + ", ".join(f"{k} {v}" for k, v in room.measured.items()))


@pytest.fixture(scope="module")
def room(class_environment):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    start = time.perf_counter()
    classroom = Classroom(environment=class_environment)
    try:
        classroom.timed("set-up (total)", classroom.build)
        yield classroom
    finally:
        try:
            classroom.timed("teardown", classroom.close)
        finally:
            classroom.measured["whole test"] = round(time.perf_counter() - start, 1)
            _durations(classroom)


def person(room, name):
    """The account ``name``, logged in and its server started (once per test run)."""
    return room.person(name)


def step(room, name):
    """A context manager timing one step into room.measured."""
    class Timer:
        def __enter__(self):
            self.start = time.perf_counter()

        def __exit__(self, *exc):
            room.measured[name] = round(time.perf_counter() - self.start, 1)
    return Timer()


# --------------------------------------------------------- what we expect

def points(assignment=ASSIGNMENT):
    """{test cell: points} of an assignment's source notebook."""
    nb = read_notebook(source_notebook_path(assignment, COURSE))
    return {grade_id(c): float(nbgrader_meta(c)["points"]) for c in nb.cells if is_test_cell(c)}


def mistake():
    return catalogs(COURSE)[ASSIGNMENT.split("_")[0]][MISTAKE]


def expected_cells():
    """{student: {test cell: score}}: ada full marks; cy nothing.  (Ben's scores depend on
    which rules his mistake breaks: :func:`ben_problems`.)"""
    full = points()
    return {ADA: dict(full), CY: {g: 0.0 for g in full}}


def ben_problems(seen):
    """Why ben's scores ``seen`` ({test cell: score}) are wrong: he hands in the solution with
    one catalogued mistake, so he loses points in some test cells of that mistake's exercise,
    each cell all or nothing, and keeps every other cell's points (as the course's own grading
    does, tests/course/test_mistakes.py)."""
    full = points()
    own = notebooks.tests_of(exercise_of(mistake().grade_id), full)
    problems = [f"{g}: expected {p} (not {exercise_of(mistake().grade_id)}), seen {seen.get(g)}"
                for g, p in full.items() if g not in own and seen.get(g) != p]
    problems += [f"{g}: expected 0 or {full[g]}, seen {seen.get(g)}" for g in own if seen.get(g) not in (0.0, full[g])]
    if all(seen.get(g) == full[g] for g in own):
        problems.append(f"expected some of {own} to lose its points (the mistake {mistake().name!r}), all are full")
    return problems


def solution_sources():
    nb = read_notebook(SOLUTIONS / f"{ASSIGNMENT}.ipynb")
    return {grade_id(c): c.source for c in nb.cells if is_answer_cell(c)}


def answered(nb, answers):
    """The notebook ``nb`` (JSON from the contents API) with these answer cells' sources."""
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell["source"] = answers[gid]
    return nb


# ------------------------------------------------------- the gradebook

def gradebook_cells(room):
    rows = room.postgres.query("agct_gradebook", (
        "SELECT s.student_id, c.name, g.auto_score FROM grade g "
        "JOIN submitted_notebook n ON g.notebook_id = n.id JOIN submitted_assignment s ON n.assignment_id = s.id "
        "JOIN base_cell c ON g.cell_id = c.id"))
    table = {}
    for student, cell, score in rows:
        table.setdefault(student, {})[cell] = float(score) if score else None
    return table


def gradebook_counts(room):
    return {t: int(room.postgres.query("agct_gradebook", f"SELECT COUNT(*) FROM {t}")[0][0]) for t in TABLES}


def grades_csv(room):
    with open(room.course / "grades.csv", newline="") as fh:
        return sorted((r["student_id"], r["assignment"], float(r["score"]), float(r["max_score"]))
                      for r in csv.DictReader(fh))


def graded_files(room):
    """{path: mtime} of the graded notebooks and the feedback."""
    return {p.relative_to(room.course).as_posix(): p.stat().st_mtime_ns
            for d in ("autograded", "feedback") for p in (room.course / d).rglob("*") if p.is_file()}


def summary(done):
    line = [l for l in done.stdout.splitlines() if l.startswith("grade-class:")]
    assert line, f"expected grade-class's summary line on stdout, seen:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return line[-1]


# ------------------------------------------------------------- the week

def test_1_instructor_releases_through_the_exchange(room):
    with step(room, "1 release"):
        room.instructor(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], "nbgrader generate_assignment")
        room.instructor(["nbgrader", "release_assignment", ASSIGNMENT], "nbgrader release_assignment")
    released = room.exchange / COURSE_ID / "outbound" / NOTEBOOK
    assert released.is_file(), f"expected the release in the exchange at {released}"
    assert dumps(read_notebook(released)) == \
        dumps(read_notebook(REPO / "course" / "release" / NOTEBOOK)), \
        "expected the exchange to hold exactly the committed release of 01_tensors"
    with step(room, "1 students' servers start"):
        for name in STUDENTS:
            listed = person(room, name).assignments()
            pid = person(room, name).server_pid()
            owner = pid and Path(f"/proc/{pid}").stat().st_uid
            assert owner == pwd.getpwnam(name).pw_uid, \
                f"expected {name}'s server to run as {name} (uid {pwd.getpwnam(name).pw_uid}), seen pid {pid} uid {owner}"
            assert [(a["assignment_id"], a["status"]) for a in listed] == [(ASSIGNMENT, "released")], \
                f"expected {name}'s Assignments tab to list {ASSIGNMENT} as released, seen {listed}"


def test_2_a_student_in_chromium(room, hub_browser):
    """ada: login page, Assignments tab, Fetch, answers, Validate, Submit (browser.py)."""
    from .browser import student_path
    with step(room, "2 ada in Chromium"):
        student_path(room, hub_browser, ADA, ARTIFACTS)
    submitted = [a for a in person(room, ADA).assignments() if a["status"] == "submitted"]
    assert len(submitted) == 1 and len(submitted[0]["submissions"]) == 1, \
        f"expected ada's one submission in her list after Submit, seen {submitted}"


def test_3_students_fetch_answer_and_submit_through_their_servers(room):
    solutions = solution_sources()
    code = {**solutions, mistake().grade_id: mistake().apply(solutions[mistake().grade_id])}
    with step(room, "3 ben and cy through the API"):
        for name, answers in ((BEN, code), (CY, {})):
            student = person(room, name)
            fetched = [a for a in student.action("fetch", ASSIGNMENT) if a["status"] == "fetched"]
            assert fetched and fetched[0]["path"] == ASSIGNMENT, f"expected {name} to fetch {ASSIGNMENT}, seen {fetched}"
            if answers:
                student.write_notebook(NOTEBOOK, answered(student.read_notebook(NOTEBOOK), answers))
            listed = student.action("submit", ASSIGNMENT)
            submissions = [s for a in listed if a["status"] == "submitted" for s in a["submissions"]]
            assert len(submissions) == 1, f"expected one submission of {name}, seen {submissions}"


def test_4_collect_and_grade_the_class_into_postgresql(room):
    with step(room, "4 collect"):
        room.instructor(["nbgrader", "collect", ASSIGNMENT], "nbgrader collect")
    collected = sorted(p.parent.parent.name for p in (room.course / "submitted").glob(f"*/{NOTEBOOK}"))
    assert collected == sorted(STUDENTS), f"expected the three submissions collected, seen {collected}"
    with step(room, "4 make grade-class"):
        done = room.grade_class()
    assert "3 graded, 0 unchanged (not regraded), 0 failed" in summary(done), done.stdout + done.stderr[-3000:]
    assert not (room.course / "gradebook.db").exists(), "expected no sqlite gradebook: the URL names PostgreSQL"
    expected, seen = expected_cells(), gradebook_cells(room)
    assert {s: seen.get(s) for s in (ADA, CY)} == expected and sorted(seen) == sorted(STUDENTS), \
        f"expected these scores in the PostgreSQL gradebook:\n{expected}\nseen:\n{seen}"
    assert not ben_problems(seen[BEN]), "ben's scores in the PostgreSQL gradebook:\n" + "\n".join(ben_problems(seen[BEN]))
    expected[BEN] = seen[BEN]
    rows = [(s, ASSIGNMENT, sum(expected[s].values()), sum(points().values())) for s in STUDENTS]
    # nbgrader's export has a row per student and assignment of the term: 0 where nothing was submitted.
    rows += [(s, a, 0.0, sum(points(a).values())) for s in STUDENTS for a in assignments(COURSE) if a != ASSIGNMENT]
    assert grades_csv(room) == sorted(rows), f"expected grades.csv rows {sorted(rows)}, seen {grades_csv(room)}"
    room.graded = (gradebook_cells(room), gradebook_counts(room), grades_csv(room), graded_files(room))


def test_5_a_second_collect_and_grade_change_nothing(room):
    with step(room, "5 collect + grade-class again"):
        room.instructor(["nbgrader", "collect", ASSIGNMENT], "nbgrader collect (again)")
        done = room.grade_class()
    assert "0 graded, 3 unchanged (not regraded), 0 failed" in summary(done), done.stdout + done.stderr[-3000:]
    now = (gradebook_cells(room), gradebook_counts(room), grades_csv(room), graded_files(room))
    for what, before, after in zip(("scores", "row counts", "grades.csv", "graded files' times"), room.graded, now):
        assert after == before, f"expected the {what} unchanged by a rerun; before {before}, after {after}"


def test_6_feedback_reaches_each_student_alone(room):
    with step(room, "6 release and fetch feedback"):
        room.instructor(["nbgrader", "release_feedback", ASSIGNMENT], "nbgrader release_feedback")
        for name in STUDENTS:
            person(room, name).action("fetch_feedback", ASSIGNMENT)
    originals = {name: (room.course / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").read_bytes()
                 for name in STUDENTS}
    assert len(set(originals.values())) == 3, "expected three different feedback files"
    for name in STUDENTS:
        home = Path(os.path.expanduser(f"~{name}"))
        fetched = sorted((home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert len(fetched) == 1, f"expected one feedback file in {name}'s home, seen {fetched}"
        owner = next((other for other, data in originals.items() if data == fetched[0].read_bytes()), None)
        assert owner == name, f"expected {name} to receive their own feedback, seen the feedback of {owner}"
        listed = [n for a in person(room, name).assignments() if a["status"] == "submitted"
                  for s in a["submissions"] for n in s["notebooks"]]
        assert [n["has_local_feedback"] for n in listed] == [True], \
            f"expected {name}'s Assignments tab to show the feedback, seen {listed}"


ATTEMPTS = r'''
import json, os, subprocess
results = {}
def attempt(label, action):
    try:
        action()
        results[label] = "allowed"
    except OSError as error:
        results[label] = f"refused: {type(error).__name__}"
def read(path):
    with open(path, "rb") as fh:
        fh.read(1)
def psql(*args):
    done = subprocess.run(["psql", "-X", "-w", "-p", PORT, "-d", "agct_gradebook", "-c", "SELECT 1", *args],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise PermissionError(done.stderr.strip())
attempt("own notebook (control)", lambda: read(OWN))
attempt("another student's home", lambda: os.listdir(OTHER_HOME))
attempt("another student's notebook", lambda: read(OTHER_NOTEBOOK))
attempt("the exchange's inbound (list)", lambda: os.listdir(INBOUND))
attempt("another student's submission in the exchange", lambda: read(OTHER_SUBMISSION))
attempt("the exchange's feedback (list)", lambda: os.listdir(FEEDBACK))
attempt("the course's source/", lambda: read(SOURCE))
attempt("the gradebook over TCP as its role", lambda: psql("-h", "127.0.0.1", "-U", "agct_grader"))
attempt("the gradebook over the socket as oneself", lambda: psql("-h", SOCKETS))
attempt("the gradebook's password (~/.pgpass)", lambda: read(PGPASS))
print(json.dumps(results))
'''


def test_7_a_student_cannot_read_what_is_not_theirs(room):
    inbound = room.exchange / COURSE_ID / "inbound"
    ada_submission = sorted(inbound.glob(f"{ADA}+{ASSIGNMENT}+*/{ASSIGNMENT}.ipynb"))
    assert ada_submission, f"expected ada's submission in {inbound}"
    instructor_home = Path(os.path.expanduser(f"~{INSTRUCTOR}"))
    values = {"PORT": str(room.postgres.port), "SOCKETS": str(room.postgres.sockets),
              "OWN": str(Path(os.path.expanduser(f"~{BEN}")) / NOTEBOOK),
              "OTHER_HOME": os.path.expanduser(f"~{ADA}"), "OTHER_NOTEBOOK": os.path.expanduser(f"~{ADA}/{NOTEBOOK}"),
              "INBOUND": str(inbound), "OTHER_SUBMISSION": str(ada_submission[-1]),
              "FEEDBACK": str(room.exchange / COURSE_ID / "feedback"),
              "SOURCE": str(room.course / "source" / NOTEBOOK), "PGPASS": str(instructor_home / ".pgpass")}
    code = "".join(f"{k} = {v!r}\n" for k, v in values.items()) + ATTEMPTS
    with step(room, "7 isolation (ben's kernel)"):
        results = json.loads(person(room, BEN).execute(code).strip().splitlines()[-1])
    allowed = {k: v for k, v in results.items() if v == "allowed"}
    assert allowed == {"own notebook (control)": "allowed"}, \
        f"expected ben's server to read its own notebook and be refused everything else; seen {results}"


def test_8_the_limits_of_a_students_server_are_in_force(room):
    limits = room.limits()
    pid = person(room, ADA).server_pid()
    assert pid, "expected ada's jupyterhub-singleuser process"
    text = Path(f"/proc/{pid}/limits").read_text()
    seen = {name: int(line.split()[-3]) for line in text.splitlines() for name in limits if line.startswith(name)}
    assert seen == limits, f"expected these limits on ada's server (pid {pid}): {limits}\nseen:\n{text}"
    with step(room, "8 memory of a server with a kernel"):
        kernel_memory = person(room, ADA).execute(
            "import numpy, matplotlib.pyplot, autograd_lib, re\n"
            "print(re.search(r'VmRSS:\\s+(\\d+)', open('/proc/self/status').read()).group(1))")
    room.measured["memory (MB): a student's server"] = sum(
        mb for what, mb in person(room, ADA).memory_mb().items() if "singleuser" in what)
    room.measured["memory (MB): a kernel with autograd_lib, NumPy, matplotlib"] = round(int(kernel_memory) / 1024)
    code = ("import resource\n"
            "try:\n    bytearray(resource.getrlimit(resource.RLIMIT_AS)[0])\n    print('allocated')\n"
            "except MemoryError:\n    print('MemoryError')\n")
    with step(room, "8 limits"):
        seen_memory = person(room, ADA).execute(code).strip()
    assert seen_memory == "MemoryError", \
        f"expected a kernel of ada's to get MemoryError beyond the memory limit, seen {seen_memory!r}"


def test_8b_students_have_the_stage_edition_with_later_answers_sealed(room):
    """The class environment holds the stage-1 edition (hub.env's AUTOGRAD_HUB_PACKAGE): a
    student's kernel reads no reference of a later exercise, and is told who teaches it."""
    code = ("import inspect, autograd_lib, autograd_lib._sealed as sealed\n"
            "from autograd_lib.ops import inplace\n"
            "print(sealed.STAGE, autograd_lib.__file__)\n"
            "try:\n    inspect.getsource(inplace.check_inplace)\n    print('SOURCE')\n"
            "except OSError as error:\n    print(error)\n")
    with step(room, "8b the stage edition in ada's kernel"):
        seen = person(room, ADA).execute(code).strip().splitlines()
    stage, where = seen[0].split(" ", 1)
    assert stage == "1" and str(room.prefix) in where, \
        f"expected the stage-1 edition installed in the class environment {room.prefix}, seen {seen[0]!r}"
    assert "assignment 08 asks you to write it" in seen[-1], \
        f"expected check_inplace sealed, naming assignment 08; seen {seen[-1]!r}"


def test_9_a_late_resubmission_is_graded_alone(room):
    before_cells, before_counts = gradebook_cells(room), gradebook_counts(room)
    before_files = graded_files(room)
    with step(room, "9 late resubmission, collect, grade-class"):
        cy = person(room, CY)
        cy.write_notebook(NOTEBOOK, answered(cy.read_notebook(NOTEBOOK), solution_sources()))
        cy.action("submit", ASSIGNMENT)
        room.instructor(["nbgrader", "collect", "--update", ASSIGNMENT], "nbgrader collect --update")
        done = room.grade_class()
    assert "1 graded, 2 unchanged (not regraded), 0 failed" in summary(done), done.stdout + done.stderr[-3000:]
    after = gradebook_cells(room)
    assert after[CY] == expected_cells()[ADA], f"expected cy's resubmission to get full marks, seen {after[CY]}"
    assert {s: after[s] for s in (ADA, BEN)} == {s: before_cells[s] for s in (ADA, BEN)}, \
        "expected the other students' grades unchanged"
    assert gradebook_counts(room) == before_counts, \
        f"expected no new rows for a resubmission; before {before_counts}, after {gradebook_counts(room)}"
    touched = {p for p, t in graded_files(room).items() if before_files.get(p) != t}
    assert touched and all(f"/{CY}/" in p for p in touched), f"expected only cy's files regraded, seen {sorted(touched)}"


def lab_disabled_extensions(someone):
    """The lab extensions switched off in this account's JupyterLab page."""
    import re
    import requests
    page = requests.get(f"{someone.server}/lab", headers=someone.headers, timeout=60)
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  page.text, re.S).group(1))
    return set(config.get("disabledExtensions", []))


def test_10_the_instructors_formgrader_reads_the_gradebook(room):
    with step(room, "10 formgrader"):
        listed = person(room, INSTRUCTOR).api("GET", "/formgrader/api/assignments")
    seen = {a["name"]: a.get("num_submissions") for a in listed}
    assert seen.get(ASSIGNMENT) == len(STUDENTS), \
        f"expected formgrader (the instructor's server) to show {len(STUDENTS)} submissions of {ASSIGNMENT}, seen {seen}"
    person(room, BEN).api("GET", "/formgrader/api/assignments", expect=404)
    instructor_only = {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"}
    students_page, instructors_page = lab_disabled_extensions(person(room, BEN)), \
        lab_disabled_extensions(person(room, INSTRUCTOR))
    assert instructor_only <= students_page and not instructor_only & instructors_page, \
        (f"expected formgrader and Create Assignment off in a student's JupyterLab and on in the instructor's; "
         f"switched off for the student: {sorted(students_page)}, for the instructor: {sorted(instructors_page)}")
    assert "@jupyter/nbgrader:assignment-list" not in students_page, "expected the Assignments tab on for students"


SYSTEMD_CHECK = r'''
import json, sys
from traitlets.config.loader import PyFileConfigLoader
config = PyFileConfigLoader("jupyterhub_config.py", path=sys.argv[1]).load_config()
from systemdspawner import SystemdSpawner
traits = SystemdSpawner.class_trait_names(config=True)
print(json.dumps({"spawner_class": str(config.JupyterHub.spawner_class),
                  "settings": {k: repr(v) for k, v in config.SystemdSpawner.items()},
                  "unknown": sorted(k for k in config.SystemdSpawner if k not in traits)}))
'''


def test_11_on_a_systemd_machine_the_config_uses_systemdspawners_own_settings(room):
    """This machine has no systemd, so the hub above ran LocalProcessSpawner with rlimits.
    What can be checked of the other branch: it selects SystemdSpawner and every
    setting it writes is one of SystemdSpawner's (jupyterhub-systemdspawner) traits."""
    env = dict(os.environ, AUTOGRAD_HUB_CONFIG_DIR=str(room.etc), AUTOGRAD_HUB_SPAWNER="systemd")
    done = subprocess.run([room.prefix / "env" / "bin" / "python", "-c", SYSTEMD_CHECK, room.etc],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, f"loading jupyterhub_config.py for systemd failed:\n{done.stderr[-3000:]}"
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["spawner_class"] == "systemdspawner.SystemdSpawner" and not seen["unknown"], \
        f"expected SystemdSpawner with settings it knows, seen {seen}"
    assert {"mem_limit", "cpu_limit", "unit_extra_properties"} <= set(seen["settings"]), seen
