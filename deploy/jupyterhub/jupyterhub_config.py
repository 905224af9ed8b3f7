"""JupyterHub configuration of one autograd-course class on one machine.

install.py copies this file and hubsettings.py to /etc/autograd-course/ and
the hub runs as root with

    /opt/autograd-course/env/bin/jupyterhub -f /etc/autograd-course/jupyterhub_config.py

Nothing here needs editing: the settings are in hub.env beside this file
(hub.env.example lists them).  Site additions (another authenticator, HTTPS,
an idle culler) go into *.py files in jupyterhub_config.d/ beside this file,
which are read last.

* Accounts: real Unix accounts (install.py accounts makes them from the
  roster), logged in with their passwords through PAM.  Only the roster and
  the instructor may log in; the instructor is the hub's admin.
* Servers: each user's JupyterLab runs as that Unix user, from the class
  environment (<prefix>/env), in their home directory (mode 0700, so no one
  else reads it).  Students have the Assignments tab and Validate; the
  instructor also has formgrader (install.py instructor).
* Limits: with systemd (a normal server), SystemdSpawner puts each server in
  its own unit: memory (MemoryMax), CPU (CPUQuota) and tasks (TasksMax) of the
  whole server, its kernels included, plus a private /tmp.  Without systemd
  (a container), each server and everything it starts gets resource limits
  of the kernel (setrlimit): address space per process, processes of the
  account, file size; CPU is then not limited.
"""

import os
import resource
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import hubsettings  # noqa: E402  (beside this file)

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

S = hubsettings.load(HERE / "hub.env")
PREFIX = Path(S["AUTOGRAD_HUB_PREFIX"])
STATE = Path(S["AUTOGRAD_HUB_STATE"])
ENV_BIN = PREFIX / "env" / "bin"
INSTRUCTOR = S["AUTOGRAD_HUB_INSTRUCTOR"]
STUDENTS = [name for name, _ in hubsettings.roster(S["AUTOGRAD_HUB_ROSTER"])] \
    if Path(S["AUTOGRAD_HUB_ROSTER"]).is_file() else []

# ------------------------------------------------------------- the hub itself

c.JupyterHub.bind_url = S["AUTOGRAD_HUB_BIND_URL"]
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{S['AUTOGRAD_HUB_HUB_PORT']}"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [str(PREFIX / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{S['AUTOGRAD_HUB_PROXY_API_PORT']}"
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
# A hub restart (a new roster, an upgrade, a crash) leaves the users' servers and their
# kernels running: the hub finds them again in its database, and the students' pages
# reconnect once it is back (tests/hub/test_load.py restarts it in the middle of a class).
c.JupyterHub.cleanup_servers = False

# ------------------------------------------------------------ who may log in

c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.open_sessions = False        # no login session per server (no systemd-logind needed)
c.Authenticator.allowed_users = set(STUDENTS) | {INSTRUCTOR}
c.Authenticator.admin_users = {INSTRUCTOR}

# ---------------------------------------------------------- the users' servers

c.Spawner.cmd = [str(ENV_BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
# Generous: when a whole class starts its servers at the beginning of a lecture (or the
# machine is busy grading), a server may take minutes to answer; the hub must not give up
# on it and leave the student with a failed spawn.
c.Spawner.http_timeout = 180
c.Spawner.start_timeout = 300
_PATH = os.pathsep.join([str(ENV_BIN), "/usr/local/bin", "/usr/bin", "/bin"])


def _gradebook_url(spawner):
    """The instructor's server carries the gradebook URL (formgrader, and make
    grade-class in its terminal); its password is in ~/.pgpass, not here."""
    return S["AUTOGRAD_COURSE_DB_URL"] if spawner.user.name == INSTRUCTOR else ""


c.Spawner.environment = {"PATH": _PATH, "MALLOC_ARENA_MAX": "2", "OPENBLAS_NUM_THREADS": "1",
                         "OMP_NUM_THREADS": "1", "AUTOGRAD_COURSE_DB_URL": _gradebook_url}

# ----------------------------------------------------------- how many at once
# Beyond these the hub refuses a start with 429 and a page the student reads, rather
# than letting the machine run out of memory, or every start slow down past the start
# timeout.  "Too many users trying to log in right now. Try again in 30 seconds." (more
# servers starting than CONCURRENT_SPAWN_LIMIT; the page's Retry-After says when);
# "Active user limit exceeded. Try again in a few minutes." (ACTIVE_SERVER_LIMIT servers
# running; auto: as many as the machine's memory holds, hubsettings.active_server_limit).
# The load test measures what this machine holds (course/README.md, "The load test").

c.JupyterHub.concurrent_spawn_limit = int(S["AUTOGRAD_HUB_CONCURRENT_SPAWN_LIMIT"] or 0)
c.JupyterHub.active_server_limit = hubsettings.active_server_limit(S)

# ------------------------------------------------------------------- limits

MEM = hubsettings.size_bytes(S["AUTOGRAD_HUB_MEM_LIMIT"])
FILE = hubsettings.size_bytes(S["AUTOGRAD_HUB_FILE_LIMIT"])
TASKS = int(S["AUTOGRAD_HUB_TASKS_LIMIT"] or 0) or None
CPU = float(S["AUTOGRAD_HUB_CPU_LIMIT"] or 0) or None
_spawner = S["AUTOGRAD_HUB_SPAWNER"]
if _spawner == "auto":
    _spawner = "systemd" if os.path.isdir("/run/systemd/system") else "local"

if _spawner == "systemd":
    # Each server is a transient systemd unit: the kernel's cgroups enforce the
    # limits over the server and all its kernels together.
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.mem_limit = MEM
    c.SystemdSpawner.cpu_limit = CPU
    c.SystemdSpawner.dynamic_users = False
    c.SystemdSpawner.user_workingdir = "/home/{USERNAME}"
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.isolate_devices = True
    c.SystemdSpawner.disable_user_sudo = True
    c.SystemdSpawner.unit_extra_properties = {
        k: v for k, v in {"TasksMax": TASKS and str(TASKS), "LimitFSIZE": FILE and str(FILE)}.items() if v}
else:
    from jupyterhub.spawner import LocalProcessSpawner

    LIMITS = [(resource.RLIMIT_AS, MEM), (resource.RLIMIT_NPROC, TASKS),
              (resource.RLIMIT_FSIZE, FILE), (resource.RLIMIT_CORE, 0)]

    class LimitedLocalProcessSpawner(LocalProcessSpawner):
        """LocalProcessSpawner whose server (and every process it starts: kernels,
        terminals) runs under setrlimit limits, set after it became the user."""

        def make_preexec_fn(self, name):
            become_user = super().make_preexec_fn(name)

            def preexec():
                become_user()
                for which, value in LIMITS:
                    if value is not None:
                        resource.setrlimit(which, (value, value))
            return preexec

    c.JupyterHub.spawner_class = LimitedLocalProcessSpawner
    # JupyterHub passes these to the server as MEM_LIMIT and CPU_LIMIT (shown by
    # resource-usage extensions); LocalProcessSpawner enforces neither: the rlimits do.
    c.Spawner.mem_limit = MEM

# ---------------------------------------------------------- site additions

_extra = HERE / "jupyterhub_config.d"
if _extra.is_dir():
    for _file in sorted(_extra.glob("*.py")):
        load_subconfig(str(_file))  # noqa: F821 - provided by traitlets
