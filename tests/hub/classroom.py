"""The machinery of the hub test: a class on a real JupyterHub, built with the
project's own installer (deploy/jupyterhub/install.py), on this machine.

:class:`Classroom` makes a directory of its own under /tmp (mode 0755: the
test's accounts must reach the class environment), writes a hub.env there,
runs the installer's steps (packages, env, proxy, accounts, exchange,
instructor, gradebook, config), starts a private PostgreSQL server for the
gradebook and the hub itself, as root, on 127.0.0.1.  :meth:`Classroom.close`
stops the hub, PostgreSQL, and every process the test's accounts still run
(their servers: a hub that stops leaves them running), then removes the
accounts, their group and the directory.  The class environment (the
installer's prefix) and the students' edition can be shared by several
classrooms of one test process (:class:`ClassEnvironment`): run in one process,
the hub test and the load test (test_load.py) build them once.

:class:`Person` is one account seen from outside: it logs in through the
hub's login form with the password the installer gave it, asks the hub for
an API token, starts its server, and calls that server's REST API (the
Assignments tab's calls, the contents API, and code run in a kernel of its
own).  The instructor's commands (nbgrader, make grade-class) run from the
instructor's own server, as the guide has them typed into a JupyterLab
terminal there: with that server's environment, limits and gradebook URL.
"""

import asyncio
import csv
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "deploy" / "jupyterhub" / "install.py"
COURSE_ID = "autograd-course"                    # course/nbgrader_config.py's course id
PREFIX_ENV = "AUTOGRAD_HUB_TEST_PREFIX"          # reuse a class environment (while developing the test)
INSTRUCTOR = "agct-instr"
GRADERS = "agct-graders"
STUDENTS = ["agct-ada", "agct-ben", "agct-cy"]
STAGE = 1                                        # the students' edition: week 1 of the term
MARKER = "autograd-course hub test"              # the full name of the test's accounts
TIMEOUT = 120
SPAWN_TIMEOUT = 330      # the hub's own Spawner.start_timeout (300 s), and a margin
TAIL = 4000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(command, what, timeout=900, check=True, **kwargs):
    """Run a command; fail the test with its output when it fails (``check``)."""
    start = time.perf_counter()
    try:
        done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{what}: no answer after {timeout} s\n$ {' '.join(map(str, command))}\n"
                    f"{str(error.stdout or '')[-TAIL:]}")
    if check and done.returncode != 0:
        pytest.fail(f"{what} failed: expected exit status 0, seen {done.returncode}\n"
                    f"$ {' '.join(map(str, command))}\n{(done.stdout + done.stderr)[-TAIL:]}")
    done.seconds = time.perf_counter() - start
    return done


def runuser(user, command, what, env=None, cwd=None, **kwargs):
    """``command`` as the Unix account ``user`` in its home, with a plain login-like environment."""
    home = pwd.getpwnam(user).pw_dir
    base = {"HOME": home, "USER": user, "LOGNAME": user, "LANG": "C.UTF-8", "PATH": "/usr/local/bin:/usr/bin:/bin"}
    base.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    base.update(env or {})
    return run([shutil.which("runuser") or "/usr/sbin/runuser", "-u", user, "--", *command], what,
               env=base, cwd=cwd or home, **kwargs)


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def processes_of(uid):
    """The pids of the live processes (zombies left out) that run as ``uid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid and (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    pids.append(int(entry.name))
            except (OSError, IndexError):
                pass
    return pids


def remove_account(name):
    """End the account's processes (each by its id), then remove it with its home."""
    if not user_exists(name):
        return
    uid = pwd.getpwnam(name).pw_uid
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if sig == signal.SIGKILL and processes_of(uid):
            print(f"{name}: still running after SIGTERM: " + "; ".join(
                f"{pid} {Path(f'/proc/{pid}/cmdline').read_bytes()[:200]!r}" for pid in processes_of(uid)))
        for pid in processes_of(uid):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while processes_of(uid) and time.monotonic() < deadline:
            time.sleep(0.2)
    subprocess.run(["userdel", "--remove", name], capture_output=True)


def skip_reason():
    """Why the hub test cannot run here, or None."""
    if not sys.platform.startswith("linux"):
        return "the hub test makes Unix accounts and runs JupyterHub as root: Linux only"
    if os.geteuid() != 0:
        return ("the hub test makes Unix accounts and runs JupyterHub as root, as a hub does; "
                "run it as root (CI does)")
    missing = [tool for tool in ("apt-get", "useradd", "runuser") if not shutil.which(tool)]
    if missing and not all(shutil.which(t) for t in ("useradd", "runuser")):
        return f"the hub test needs Debian's tools ({', '.join(missing)} missing)"
    return None


class Postgres:
    """A private PostgreSQL server (Debian's binaries) on 127.0.0.1 and a socket directory."""

    def __init__(self, root):
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if not found:
            pytest.fail("PostgreSQL's initdb is not in /usr/lib/postgresql/*/bin after install.py packages "
                        "--with-postgresql")
        self.bin = found[-1].parent
        self.root = root
        self.data, self.sockets, self.log = root / "data", root / "sockets", root / "postgres.log"
        self.port = free_port()

    def start(self):
        self.root.mkdir(mode=0o755)
        self.sockets.mkdir()
        shutil.chown(self.root, "postgres", "postgres")
        shutil.chown(self.sockets, "postgres", "postgres")
        runuser("postgres", [self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth-local=peer",
                             "--auth-host=scram-sha-256", "--no-sync"], "initdb", cwd="/")
        self.start_again()
        return self

    def start_again(self):
        """Start the server on its data directory (after :meth:`stop`)."""
        runuser("postgres", [self.bin / "pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o",
                             f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off",
                             "start"], "starting PostgreSQL", cwd="/")

    def query(self, database, sql):
        """Rows (tuples of strings) of ``sql``, as the postgres superuser over the socket."""
        done = runuser("postgres", ["psql", "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h", self.sockets,
                                    "-p", self.port, "-d", database, "-c", sql], f"psql {sql[:60]}", cwd="/")
        return [tuple(line.split("\t")) for line in done.stdout.splitlines() if line]

    def stop(self):
        if (self.data / "postmaster.pid").exists():
            runuser("postgres", [self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"],
                    "stopping PostgreSQL", cwd="/", check=False)


class ClassEnvironment:
    """The installer's prefix (the class environment and the proxy) and the students'
    stage-1 edition, shared by the classrooms of one test session: the first
    classroom's install.py env and proxy fill the prefix, the next ones find it
    there (those steps then only check it).  AUTOGRAD_HUB_TEST_PREFIX keeps the
    prefix across sessions."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="autograd-hub-env-", dir="/tmp"))
        self.root.chmod(0o755)
        self.prefix = Path(os.environ.get(PREFIX_ENV) or self.root / "opt")
        self.wheel = None

    def edition(self):
        """The students' package, as the guide has it for week 1: ``autograd-course edition
        --stage 1`` (built once)."""
        if self.wheel is None:
            from autograd_course.editions import build_edition
            out = build_edition(STAGE, self.root / f"edition-{STAGE}", course=REPO / "course", progress=lambda _: None)
            self.wheel = next(out.glob("*.whl"))
            self.wheel.parent.chmod(0o755)
        return self.wheel

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)     # (a reused AUTOGRAD_HUB_TEST_PREFIX stays)


class Classroom:
    """The whole machine of one class: see the module's docstring.  ``students``,
    ``instructor`` and ``graders`` name its accounts and group (two classrooms on one
    machine must not share them); ``environment``: a :class:`ClassEnvironment` to share
    (by default one of its own); ``settings``: hub.env lines over the test's own."""

    def __init__(self, students=STUDENTS, instructor=INSTRUCTOR, graders=GRADERS, environment=None, settings=None):
        self.measured = {}
        self.students, self.instructor_name, self.graders = list(students), instructor, graders
        self.own_environment = environment is None
        self.environment = environment or ClassEnvironment()
        self.extra_settings = dict(settings or {})
        self.root = Path(tempfile.mkdtemp(prefix="autograd-hub-test-", dir="/tmp"))
        self.root.chmod(0o755)
        self.etc, self.state = self.root / "etc", self.root / "state"
        self.exchange = self.root / "exchange"
        self.prefix = self.environment.prefix
        self.port = free_port()
        self.hub_port, self.proxy_api_port = free_port(), free_port()   # fixed: servers keep the hub's API URL
        self.url = f"http://127.0.0.1:{self.port}"
        self.postgres = Postgres(self.root / "postgres")
        self.db_url = f"postgresql://agct_grader@127.0.0.1:{self.postgres.port}/agct_gradebook"
        self.hub = None
        self.wheel = None
        self.passwords = {}
        self.people = {}

    # ------------------------------------------------------------ set-up

    def timed(self, name, function, *args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            self.measured[name] = round(time.perf_counter() - start, 1)

    def settings(self):
        return {
            "AUTOGRAD_HUB_PREFIX": self.prefix, "AUTOGRAD_HUB_STATE": self.state,
            "AUTOGRAD_HUB_EXCHANGE": self.exchange, "AUTOGRAD_HUB_COURSE_ID": COURSE_ID,
            "AUTOGRAD_HUB_INSTRUCTOR": self.instructor_name, "AUTOGRAD_HUB_GRADERS_GROUP": self.graders,
            "AUTOGRAD_HUB_ROSTER": self.etc / "roster.csv", "AUTOGRAD_COURSE_DB_URL": self.db_url,
            "AUTOGRAD_HUB_PGADMIN_HOST": self.postgres.sockets, "AUTOGRAD_HUB_BIND_URL": self.url,
            "AUTOGRAD_HUB_HUB_PORT": self.hub_port, "AUTOGRAD_HUB_PROXY_API_PORT": self.proxy_api_port,
            "AUTOGRAD_HUB_SPAWNER": "local",        # no systemd in a test machine (the guide says what differs)
            "AUTOGRAD_HUB_PACKAGE": self.wheel,     # week 1 of a term: the stage-1 edition (later answers sealed)
            **self.extra_settings,
        }

    def install(self, *steps, flags=()):
        env = dict(os.environ, AUTOGRAD_HUB_CONFIG_DIR=str(self.etc), DEBIAN_FRONTEND="noninteractive")
        return run([sys.executable, INSTALL, *steps, *flags], f"install.py {' '.join(steps)}", env=env, timeout=1500)

    def build(self):
        for name in self.accounts():                      # what an interrupted run left behind
            remove_account(name)
        subprocess.run(["groupdel", self.graders], capture_output=True)
        self.etc.mkdir()
        self.wheel = self.timed("edition: stage 1", self.environment.edition)
        self.write_settings()
        (self.etc / "roster.csv").write_text("username,full name\n" + "".join(f"{s},{MARKER}\n" for s in self.students))
        self.timed("install: packages", self.install, "packages", flags=("--with-postgresql",))
        self.timed("install: env, proxy", self.install, "env", "proxy")
        self.timed("install: accounts, exchange", self.install, "accounts", "exchange")
        self.timed("install: instructor (course copy, make venv)", self.install, "instructor")
        self.timed("postgres: start", self.postgres.start)
        self.timed("install: gradebook, config", self.install, "gradebook", "config")
        with open(self.state / "initial-passwords.csv", newline="") as fh:
            self.passwords = {row["username"]: row["initial password"] for row in csv.DictReader(fh)}
        self.timed("hub: start", self.start_hub)
        return self

    def accounts(self):
        return [self.instructor_name, *self.students]

    def write_settings(self, **changes):
        """hub.env of this classroom, with ``changes`` over it (the hub reads it when it starts)."""
        self.extra_settings.update({k: v for k, v in changes.items()})
        (self.etc / "hub.env").write_text("".join(f"{k}={v}\n" for k, v in self.settings().items()
                                                  if v is not None))

    def start_hub(self):
        self.hub_log = self.root / "jupyterhub.log"
        command = [self.prefix / "env" / "bin" / "jupyterhub", "-f", self.etc / "jupyterhub_config.py"]
        env = {k: v for k, v in os.environ.items() if not re.match(r"^(PYTHON|VIRTUAL_ENV|JUPYTER|JPY_)", k)}
        env["AUTOGRAD_HUB_CONFIG_DIR"] = str(self.etc)
        with open(self.hub_log, "a") as log:
            self.hub = subprocess.Popen([str(c) for c in command], cwd=self.state, env=env, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        import requests
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            if self.hub.poll() is not None:
                pytest.fail(f"JupyterHub exited with status {self.hub.returncode}:\n{self.hub_tail()}")
            try:
                if requests.get(f"{self.url}/hub/api/", timeout=5).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        pytest.fail(f"JupyterHub did not answer on {self.url} within {TIMEOUT} s:\n{self.hub_tail()}")

    def hub_tail(self, skip=None):
        """The end of the hub's log; ``skip``: leave out the lines that contain it."""
        if not self.hub_log.exists():
            return ""
        text = self.hub_log.read_text(errors="replace")
        if skip:
            text = "\n".join(line for line in text.splitlines() if skip not in line)
        return text[-TAIL:]

    def limits(self):
        """{line of /proc/PID/limits: value} that hub.env sets for a student's server (the
        local spawner's rlimits)."""
        sys.path.insert(0, str(INSTALL.parent))
        import hubsettings
        values = hubsettings.load(self.etc / "hub.env", environ={})
        return {"Max address space": hubsettings.size_bytes(values["AUTOGRAD_HUB_MEM_LIMIT"]),
                "Max processes": int(values["AUTOGRAD_HUB_TASKS_LIMIT"]),
                "Max file size": hubsettings.size_bytes(values["AUTOGRAD_HUB_FILE_LIMIT"])}

    # ------------------------------------------------------------ the people

    def person(self, name):
        """The account ``name``, logged in, its server started (once per test run, and
        again when its server stopped)."""
        if name not in self.people or not self.people[name].running():
            self.people[name] = Person(self, name).start()
        return self.people[name]

    @property
    def checkout(self):
        return Path(pwd.getpwnam(self.instructor_name).pw_dir) / "autograd-course"

    @property
    def course(self):
        return self.checkout / "course"

    def instructor(self, command, what, timeout=900, check=True):
        """A command of the instructor's, run as the guide says: from their own server
        on the hub (a kernel there: the environment, limits and gradebook URL a
        JupyterLab terminal has), in the course directory, the course's .venv first on PATH.
        ``check``: fail the test when the command fails (else return its exit status)."""
        code = (f"import json, os, subprocess\n"
                f"env = dict(os.environ, PATH={str(self.checkout / '.venv' / 'bin')!r} + ':' + os.environ['PATH'])\n"
                f"done = subprocess.run({[str(c) for c in command]!r}, cwd={str(self.course)!r}, env=env,\n"
                f"                      capture_output=True, text=True, timeout={timeout})\n"
                f"print(json.dumps({{'rc': done.returncode, 'stdout': done.stdout[-30000:], 'stderr': done.stderr[-30000:]}}))\n")
        start = time.perf_counter()
        seen = json.loads(self.person(self.instructor_name).execute(code, timeout + 60).strip().splitlines()[-1])
        done = subprocess.CompletedProcess(command, seen["rc"], seen["stdout"], seen["stderr"])
        done.seconds = time.perf_counter() - start
        if done.returncode != 0 and check:
            pytest.fail(f"{what} (as {self.instructor_name}, from their server) failed: expected exit status 0, seen "
                        f"{done.returncode}\n$ {' '.join(map(str, command))}\n{(done.stdout + done.stderr)[-TAIL:]}")
        return done

    def grade_class(self):
        """The one place the test grades: make grade-class in the instructor's checkout
        (the command the guide gives; it is the one to change when the CLI moves)."""
        return self.instructor(["make", "-C", self.checkout, "grade-class"], "make grade-class", timeout=1200)

    # ------------------------------------------------------------ teardown

    def close(self):
        if self.hub is not None and self.hub.poll() is None:
            self.timed("teardown: hub", self.stop_hub)
        self.timed("teardown: postgres", self.postgres.stop)
        self.timed("teardown: accounts", lambda: [remove_account(name) for name in self.accounts()])
        subprocess.run(["groupdel", self.graders], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)
        if self.own_environment:
            self.environment.close()

    def stop_hub(self):
        """SIGTERM to the hub alone: it stops its proxy and leaves the users' servers
        running (jupyterhub_config.py: cleanup_servers off); close() ends them."""
        self.hub.terminate()
        try:
            self.hub.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.hub.pid, signal.SIGKILL)
            self.hub.wait()


class Person:
    """One account on the hub: logged in through the login form, then an API token."""

    def __init__(self, room, name):
        import requests
        self.room, self.name = room, name
        self.session = requests.Session()
        page = self.session.get(f"{room.url}/hub/login", timeout=30)
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text)
        answer = self.session.post(f"{room.url}/hub/login", allow_redirects=False, timeout=60, data={
            "username": name, "password": room.passwords[name], **({"_xsrf": xsrf.group(1)} if xsrf else {})})
        assert answer.status_code == 302 and "jupyterhub-session-id" in self.session.cookies, \
            (f"expected {name} to log in through the hub's login page (302 and a session), seen "
             f"{answer.status_code}: {answer.text[:500]}")
        made = self.session.post(f"{room.url}/hub/api/users/{name}/tokens", json={"note": "hub test"}, timeout=30,
                                 headers={"X-XSRFToken": self.session.cookies.get("_xsrf", "")})
        assert made.status_code == 201, f"expected a token for {name} (201), seen {made.status_code}: {made.text[:300]}"
        self.headers = {"Authorization": f"token {made.json()['token']}"}
        self.server = f"{room.url}/user/{name}"

    def running(self):
        """Whether the hub has this account's server, ready."""
        import requests
        state = requests.get(f"{self.room.url}/hub/api/users/{self.name}", headers=self.headers, timeout=30)
        return state.status_code == 200 and bool(state.json()["servers"].get("", {}).get("ready"))

    def api(self, method, path, expect=200, **kwargs):
        import requests
        answer = requests.request(method, f"{self.server}{path}", headers=self.headers, timeout=300, **kwargs)
        assert answer.status_code == expect, \
            f"{method} /user/{self.name}{path}: expected {expect}, seen {answer.status_code}: {answer.text[:1500]}"
        try:
            return answer.json() if answer.content else None
        except ValueError:                                # an HTML page (an error's)
            return answer.text

    def start(self):
        """Start the server (the hub spawns it as this account) and wait until it answers."""
        import requests
        hub = f"{self.room.url}/hub/api/users/{self.name}"
        started = requests.post(f"{hub}/server", headers=self.headers, timeout=60)
        assert started.status_code in (201, 202, 400), f"starting {self.name}'s server: {started.status_code} {started.text}"
        end = time.monotonic() + SPAWN_TIMEOUT
        while time.monotonic() < end:
            state = requests.get(hub, headers=self.headers, timeout=30).json()["servers"].get("", {})
            if state.get("ready"):
                return self
            time.sleep(0.5)
        pytest.fail(f"{self.name}'s server was not ready within {SPAWN_TIMEOUT} s; the hub's log, "
                    f"without this wait's own requests:\n{self.room.hub_tail(skip=f'GET /hub/api/users/{self.name} ')}")

    def memory_mb(self):
        """Resident memory (MB) of this account's processes: {pid command: MB}."""
        seen = {}
        for pid in processes_of(pwd.getpwnam(self.name).pw_uid):
            try:
                rss = int(re.search(r"^VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M).group(1))
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except (OSError, AttributeError):
                continue
            name = ("kernel" if b"ipykernel_launcher" in command else
                    "singleuser" if any(b"jupyterhub-singleuser" in part for part in command) else
                    Path(command[0].decode()).name)
            seen[f"{pid} {name}"] = round(rss / 1024)
        return seen

    def server_pid(self):
        """The pid of the jupyterhub-singleuser process of this account."""
        uid = pwd.getpwnam(self.name).pw_uid
        for pid in processes_of(uid):
            try:
                if b"jupyterhub-singleuser" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                pass
        return None

    # ---------------------------------------------- the Assignments tab's calls

    def assignments(self):
        listed = self.api("GET", "/assignments", params={"course_id": COURSE_ID})
        assert listed["success"], f"{self.name}'s assignment list failed: {listed.get('value')}"
        return listed["value"]

    def action(self, action, assignment):
        done = self.api("POST", f"/assignments/{action}", data={"course_id": COURSE_ID, "assignment_id": assignment})
        assert done.get("success"), f"{self.name}: {action} {assignment} failed:\n{str(done.get('value'))[-TAIL:]}"
        return done["value"]

    # ---------------------------------------------------------- files, code

    def read_notebook(self, path):
        return self.api("GET", f"/api/contents/{path}", params={"content": 1})["content"]

    def write_notebook(self, path, nb):
        self.api("PUT", f"/api/contents/{path}", json={"type": "notebook", "format": "json", "content": nb})

    def execute(self, code, timeout=TIMEOUT):
        """Run ``code`` in a fresh kernel of this account's server; its stdout (stderr and
        errors fail the test)."""
        kernel = self.api("POST", "/api/kernels", expect=201, json={"name": "python3"})
        try:
            return asyncio.run(self._execute(kernel["id"], code, timeout))
        finally:
            self.api("DELETE", f"/api/kernels/{kernel['id']}", expect=204)

    async def _execute(self, kernel_id, code, timeout):
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect
        url = self.server.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels"
        socket_ = await websocket_connect(HTTPRequest(url, headers=self.headers, connect_timeout=60))
        msg_id = uuid.uuid4().hex
        socket_.write_message(json.dumps({
            "header": {"msg_id": msg_id, "username": self.name, "session": uuid.uuid4().hex, "msg_type": "execute_request",
                       "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        out, problems, replied, idle = [], [], False, False
        end = time.monotonic() + timeout
        while not (replied and idle):
            message = await asyncio.wait_for(socket_.read_message(), max(1, end - time.monotonic()))
            assert message is not None, f"{self.name}'s kernel closed its channels"
            message = json.loads(message)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                (out if content["name"] == "stdout" else problems).append(content["text"])
            elif kind == "error":
                problems.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "execute_reply":
                replied = True
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
        socket_.close()
        assert not problems, f"code run in {self.name}'s kernel failed:\n{''.join(problems)[-TAIL:]}"
        return "".join(out)
