"""A lecture at once: the class hub under the load of a whole class (marker ``load``).

The machine is the hub test's (classroom.py: the project's installer, real Unix
accounts, nbgrader's exchange, PostgreSQL), with N students of its own
(AUTOGRAD_LOAD_STUDENTS, 4 by default; ``make test-load N=25``) and an instructor.
Locust (locustfile.py) plays the students, each with their own answers (honest, a
catalogued mistake, or blank; every fourth submits twice); the instructor collects
and grades from their server all along (load.py).  The runs, in order:

1. a lecture: the class arrives within AUTOGRAD_LOAD_RAMP seconds, logs in through
   the login form, starts its servers, fetches 01_tensors, runs every cell in its
   kernel, saves, validates, submits;
2. the hub is restarted once half the class has a server (half the servers were
   stopped before, so some starts are under way): the servers that ran keep
   running, the same processes, and every student reconnects and finishes;
3. one student's kernel is killed halfway through the notebook: they restart it,
   run the notebook again and submit;
4. PostgreSQL stops while the instructor collects: collect fails loudly (its exit
   status, the refused connection in its output), and the next collect completes;
5. the hub's limits (jupyterhub_config.py): with fewer active servers allowed than
   the class and two starts at a time, a student beyond the limit reads the hub's
   429 page ("Too many users trying to log in right now. Try again in ..." /
   "Active user limit exceeded. Try again in a few minutes."), waits, and gets in on
   retry once others leave (Stop My Server).

After every run, load.account_for_everyone: each student's last submission is in
the exchange exactly once, under their name and owned by them, with the bytes they
saved (sha256), in submitted/ the same, its grade in PostgreSQL the one its answers
earn; no student reads another's files; a student who did not finish is named with
the step and the reason.  The figures of each run (time to a usable server, failed
spawns, the machine's CPU and memory, grading while the students work) go to
artifacts/load/<run>-N<N>.json and are printed.
"""

import json
import os
import shutil
import sys
import time
import uuid

import pytest

from .classroom import REPO, Classroom, skip_reason
from .load import (ASSIGNMENT, GRADERS, INSTRUCTOR, Answers, Ledger, LoadRun, account_for_everyone,
                   database_away_during_collect, kill_a_kernel, kinds_for, restart_hub_midway, servers,
                   student_names)

pytestmark = pytest.mark.load

N = int(os.environ.get("AUTOGRAD_LOAD_STUDENTS") or 4)
RAMP = float(os.environ.get("AUTOGRAD_LOAD_RAMP") or (60 if N > 10 else 10))
ARTIFACTS = REPO / "artifacts" / "load"
# The limits of run 5: two starts at a time; one server fewer than the class (and the instructor's).
SPAWN_LIMIT = 2


@pytest.fixture(scope="module")
def room(class_environment):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    if not shutil.which("locust", path=os.path.dirname(sys.executable)):
        pytest.fail("locust is not installed in this environment: pip install -e '.[test]' (make venv) installs it")
    classroom = Classroom(students=student_names(N), instructor=INSTRUCTOR, graders=GRADERS,
                          environment=class_environment)
    try:
        classroom.build()
        classroom.instructor(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], "nbgrader generate_assignment")
        classroom.instructor(["nbgrader", "release_assignment", ASSIGNMENT], "nbgrader release_assignment")
        # the term's assignments into the gradebook, before any submission (grade-class does it once):
        # the grading measured during the lecture is then grading alone
        classroom.instructor(["autograd-course", "grade-class"], "autograd-course grade-class (nothing submitted yet)")
        yield classroom
    finally:
        classroom.close()


@pytest.fixture(scope="module")
def answers():
    return Answers()


@pytest.fixture(scope="module")
def ledger():
    return Ledger()


def plan(room, answers, round_number, victim=None, leave=False):
    """What each student does in a run (load.kinds_for: their answers, rotating)."""
    students = []
    for index, name in enumerate(room.students):
        attempts = [{"kind": kind, "answers": answers.make(kind, name, f"{round_number}.{j}.{uuid.uuid4().hex[:8]}")}
                    for j, kind in enumerate(kinds_for(index, round_number, len(answers.mistakes)))]
        students.append({"name": name, "password": room.passwords[name], "attempts": attempts,
                         "victim": name == victim, "leave": leave})
    return students


def conclude(room, run, ledger, answers):
    """Record the run, write and print its figures, then the nothing-lost check."""
    ledger.add(run)
    figures = run.figures()
    figures["facts"] = run.facts
    figures["grade-class runs"] = run.grading
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{run.name}-N{len(run.students)}.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    for suffix in ("_stats.csv", "_failures.csv"):
        if (run.dir / f"locust{suffix}").exists():
            shutil.copy(run.dir / f"locust{suffix}", ARTIFACTS / f"{run.name}-N{len(run.students)}-locust{suffix}")
    print(f"\nload run '{run.name}', N={len(run.students)}: " + json.dumps(
        {k: v for k, v in figures.items() if k not in ("grade-class runs", "facts")}, indent=1, default=str))
    assert not run.errors, "the run's own machinery failed:\n" + "\n".join(run.errors)
    assert run.final[2] == 0, f"expected the last grade-class to fail nothing, seen {run.final}"
    problems = account_for_everyone(room, run, ledger, answers)
    assert not problems, f"{len(problems)} problem(s) after the run '{run.name}':\n" + "\n".join(problems)
    return figures


def stop_servers(room, names):
    """Stop these students' servers through the hub's API (as the instructor, the hub's admin)."""
    import requests
    admin = room.person(room.instructor_name)
    for name in names:
        answer = requests.delete(f"{room.url}/hub/api/users/{name}/server", headers=admin.headers, timeout=120)
        assert answer.status_code in (202, 204, 400), f"stopping {name}'s server: {answer.status_code} {answer.text}"
    end = time.monotonic() + 120
    while time.monotonic() < end:
        running = [n for n in names if requests.get(f"{room.url}/hub/api/users/{n}", headers=admin.headers,
                                                    timeout=60).json()["servers"]]
        if not running and not set(servers(room)) & set(names):
            return
        time.sleep(1)
    raise AssertionError(f"servers still running two minutes after they were stopped: {running}, "
                         f"processes {servers(room)}")


def one_server_each(room):
    """Every student with a server has exactly one server process (none left over by a restart)."""
    extra = {name: pids for name, pids in servers(room).items() if len(pids) != 1}
    assert not extra, f"expected one jupyterhub-singleuser per student, seen {extra}"


# ------------------------------------------------------------------- the runs

def test_1_a_lecture(room, answers, ledger):
    run = LoadRun(room, plan(room, answers, 0), "lecture", ramp=RAMP).run()
    figures = conclude(room, run, ledger, answers)
    assert figures["time to a usable server (s)"]["max"] is not None
    one_server_each(room)


def test_2_the_hub_restarts_mid_run(room, answers, ledger):
    stop_servers(room, room.students[::2])          # half the class starts again: spawns under way at the restart
    run = LoadRun(room, plan(room, answers, 1), "hub-restart", ramp=RAMP, faults=[restart_hub_midway]).run()
    restart = run.facts.get("hub restart")
    assert restart, f"expected the hub to be restarted during the run; errors: {run.errors}"
    kept = {name: pids for name, pids in restart["servers before"].items()
            if restart["servers after"].get(name) != pids}
    assert not kept, (f"expected every server that ran before the hub's restart to run after it, the same "
                      f"process; changed: {kept}")
    conclude(room, run, ledger, answers)
    one_server_each(room)


def test_3_a_students_kernel_is_killed(room, answers, ledger):
    victim = room.students[0]
    run = LoadRun(room, plan(room, answers, 2, victim=victim), "kernel-killed", ramp=RAMP,
                  faults=[kill_a_kernel(victim)]).run()
    assert run.facts.get("kernel killed"), f"expected {victim}'s kernel killed during the run; errors: {run.errors}"
    restarts = run.results()[victim].get("kernel_restarts", 0)
    assert restarts >= 1, f"expected {victim} to see their kernel die and restart it, seen {restarts} restarts"
    conclude(room, run, ledger, answers)


def test_4_the_gradebook_database_goes_away_during_collect(room, answers, ledger):
    run = LoadRun(room, plan(room, answers, 3), "database-away", ramp=RAMP,
                  instructor_hook=database_away_during_collect).run()
    away = run.facts.get("database away")
    assert away, f"expected PostgreSQL stopped during a collect; errors: {run.errors}"
    assert away["collect exit"] != 0 and "Connection refused" in away["collect said"], \
        f"expected collect to fail loudly without its database (exit status, the refused connection), seen {away}"
    conclude(room, run, ledger, answers)       # the loop's next collect and the last one completed it


def test_5_beyond_the_limits_the_hub_says_so_and_a_retry_gets_in(room, answers, ledger):
    stop_servers(room, room.students)
    # Places for all but one student, whether or not the instructor's server is up (it counts
    # when it is): the CI run of 4 students saw every retry get in while the instructor's server
    # was down, so no student read the active-limit message. And at most twice the spawn limit:
    # with 10 students and places for 9, the spawn limit let them in two at a time, the first had
    # left before the last came in, and no one read the active-limit message either.
    room.write_settings(AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT=min(len(room.students) - 1, 2 * SPAWN_LIMIT),
                        AUTOGRAD_HUB_CONCURRENT_SPAWN_LIMIT=SPAWN_LIMIT)
    room.stop_hub()
    room.start_hub()
    try:
        run = LoadRun(room, plan(room, answers, 4, leave=True), "limits", ramp=0).run()
    finally:
        room.write_settings(AUTOGRAD_HUB_ACTIVE_SERVER_LIMIT=None, AUTOGRAD_HUB_CONCURRENT_SPAWN_LIMIT=None)
        room.stop_hub()
        room.start_hub()
    said = [r["message"] for result in run.results().values() for r in result.get("refusals", [])]
    assert "Active user limit exceeded. Try again in a few minutes." in said, \
        f"expected a student beyond the active-server limit to read the hub's message, seen {said}"
    if len(room.students) > SPAWN_LIMIT:
        assert any(s.startswith("Too many users trying to log in right now. Try again in") for s in said), \
            f"expected a student beyond the concurrent-spawn limit to read the hub's message, seen {said}"
    conclude(room, run, ledger, answers)          # ... and every student got in on retry and submitted
