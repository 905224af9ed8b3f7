"""Warm sandboxed kernels: each notebook still gets a fresh interpreter, without paying
for Python, ipykernel, NumPy, matplotlib and the library each time.

A cold kernel (``autograd_course/sandbox.py``) starts bubblewrap, then Python, then
imports ipykernel, NumPy, matplotlib and ``autograd_lib``: about 1.5 s of CPU per graded
notebook, before the notebook's first cell.  A grading process instead keeps one
**kernel server** running in the same sandbox.  The server imports all of that once and
then, for each kernel asked of it, forks: the child is the kernel, a copy of an
interpreter that has run no notebook code, as a fresh kernel would be.

    grader process                     sandbox (bubblewrap, as for a cold kernel)
    ──────────────                     ──────────────────────────────────────────
    WarmServer.start(): a socket ────> python -m autograd_course.warm serve FD DIR
      outside the sandbox                imports everything once, listens on FD
    jupyter_client starts the
    kernelspec's launcher
      sandbox.launch: "a kernel" ────> clean up; fork ─> the kernel (its limits,
                                                          an empty working tmpfs)
      waits; exits with the kernel <── the kernel's exit status
                                       then: every other process of the sandbox
                                       killed, /tmp emptied

What a kernel can reach is what a cold kernel reaches (no network, no course files,
uid nobody, the same limits, set on the child), with two differences:

* Its working directory is an empty tmpfs, ``/autograde-work``, not the assignment's
  directory.  The launcher uses a warm kernel only when that directory holds nothing
  but notebooks (and nbgrader's ``timestamp.txt``), so nothing is missing.
* The kernels of one server follow each other in one sandbox.  Between two kernels
  the server kills every process left in it (a student's background process
  included: the server is their reaper) and empties ``/tmp`` and the working
  directory, and before a kernel starts, the directory of the kernels' sockets but
  for the new connection file; if a process or a file will not go, the server exits
  and the grader starts a new one.  The server listens on a socket whose path is
  outside the sandbox, so a kernel cannot ask it for anything.  It is not dumpable, so a kernel cannot trace it or read
  its memory.  A kernel that kills the server only ends its own kernel: the grader
  restarts the notebook's kernel on a new server.

``AUTOGRAD_WARM=0`` (or ``GuardedExecute.warm = False``) grades with cold kernels.
"""

import gc
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from . import sandbox

# What a kernel imports anyway (the kernel's own: IPython, its debugger, the history's
# sqlite3, 0.3 s of CPU; then NumPy, matplotlib and the course: 1.2 s).  None of it
# starts a thread, which a fork would not copy.
PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.debugger", "sqlite3",
           "numpy", "matplotlib", "matplotlib.pyplot", "matplotlib.backends.backend_agg", "autograd_lib",
           "autograd_course.grading", "autograd_course.notebook")
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
EXPECT = "AUTOGRAD_WARM_ENV"      # the server's: the variables its kernels' launcher must pass
READY = b"ready\n"
# A server with no kernel to start for this long exits (a formgrader's Jupyter server would
# otherwise keep it, and its memory, for as long as it runs).
IDLE_SECONDS = 600


# ------------------------------------------------------------ the grader's side

class WarmServer:
    """A kernel server in its sandbox, for one grading process (its kernels run one
    at a time).  ``env`` is what a kernel gets from the grader (limits, MPLBACKEND)."""

    def __init__(self, values, env, parent=None):
        self.values, self.env = dict(values), dict(env)
        self.dir = tempfile.mkdtemp(prefix="warm-", dir=parent)        # the kernels' directories
        self._control_dir = tempfile.mkdtemp(prefix="warm-control-", dir=parent)   # not in the sandbox
        self.control = os.path.join(self._control_dir, "control")
        self.process = None

    def start(self, timeout=120):
        listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listening.bind(self.control)
        listening.listen(8)
        args, env = sandbox.warm_command(self.dir, self.values, listening.fileno())
        passed = {k: self.env[k] for k in sandbox.PASS_ENV if k in self.env}
        env.update(passed)
        env[EXPECT] = json.dumps(passed, sort_keys=True)
        try:
            self.process = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            pass_fds=[listening.fileno()])
        finally:
            listening.close()                  # the server has its own copy
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else b""
        if line != READY:
            self.close()
            raise RuntimeError(f"the warm kernel server did not start within {timeout} s "
                               f"(said {line!r})")
        return self

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def new_runtime(self):
        """A private directory for one kernel's connection file and sockets."""
        return tempfile.mkdtemp(prefix="autograde-", dir=self.dir)

    def close(self):
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            self.process.stdout.close()
            self.process = None
        for directory in (self.dir, self._control_dir):
            _remove(directory)


# ------------------------------------------------------------ the server

def _prctl(option, value):
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def serve(fd, kernels, file_mb):
    """Serve kernels on the inherited listening socket ``fd``; ``kernels`` is the
    directory in which the grader makes each kernel's private directory; ``file_mb``
    the largest file the server may write (each kernel then sets its own limits)."""
    _SKELETON.update(_skeleton("/tmp"))        # before anything could write there
    import resource                            # set here, not between the grader's fork and exec
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_mb * 2 ** 20,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name in PRELOAD:
        __import__(name)
    import autograd_course.integrity  # lazy: only the server, inside the sandbox, imports the library
    autograd_course.integrity.seal()           # the library as released, before any notebook
    # What the server imported is every kernel's and lives as long as it: out of the cyclic
    # garbage collector's reach (gc.freeze), a kernel's full collections do not walk it (09's
    # training demos spent 0.2 s of CPU there), and a forked kernel does not copy the pages
    # that the collector would write to.  Objects a notebook creates are collected as always.
    gc.collect()
    gc.freeze()
    import threading
    if threading.active_count() != 1:
        raise SystemExit(f"warm kernel server: {threading.active_count()} threads after the "
                         f"imports; a forked kernel would lack all but one")
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    server = socket.socket(fileno=fd)
    if not _clean():
        raise SystemExit("warm kernel server: /tmp cannot be emptied")
    os.write(1, READY)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    mine = json.loads(os.environ.pop(EXPECT, "{}"))
    server.settimeout(IDLE_SECONDS)
    while True:
        try:
            conn, _ = server.accept()
        except socket.timeout:
            return 0                           # idle: the grader starts a new one when needed
        conn.settimeout(None)
        line = sandbox.read_line(conn)
        message = json.loads(line) if line else None
        runtime = os.path.dirname(str((message or {}).get("connection_file")))
        if message is None or message.get("env") != mine or os.path.dirname(runtime) != kernels:
            _decline(conn, "a different environment")
            continue
        if not _clean(kernels, keep=message["connection_file"]):
            _decline(conn, "the sandbox could not be emptied")   # this kernel starts cold
            sys.exit(3)                                           # the next one on a new server
        pid = os.fork()
        if pid == 0:
            _kernel(message, server, conn)     # never returns
        status = _watch(conn, pid)
        try:
            conn.sendall(json.dumps({"exit": status}).encode() + b"\n")
        except OSError:
            pass
        conn.close()
        if not _clean():
            sys.exit(3)                        # a process would not die: start afresh


def _decline(conn, why):
    """Tell the launcher to start its kernel cold."""
    try:
        conn.sendall(json.dumps({"declined": why}).encode() + b"\n")
    except OSError:
        pass
    conn.close()


def _watch(conn, pid):
    """Wait for the kernel ``pid`` to end; kill it if the launcher goes away first."""
    pidfd = os.pidfd_open(pid)
    try:
        while True:
            ready, _, _ = select.select([conn, pidfd], [], [])
            if pidfd in ready:
                break
            if not conn.recv(4096):                     # the launcher ended
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)
    finally:
        os.close(pidfd)


def _clean(kernels=None, keep=None):
    """Kill every process of the sandbox but bubblewrap (pid 1) and the server, then
    empty /tmp (keeping what bubblewrap put there, ``_SKELETON``) and the working directory;
    before a kernel starts, also the kernels' directory, but for the new kernel's
    connection file ``keep``.  False if something survives."""
    me = os.getpid()
    for _ in range(50):
        others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:                              # reap them: the server is their subreaper
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not others:
            break
        time.sleep(0.01)
    else:
        return False
    tops = ["/tmp", sandbox.WARM_WORKDIR]
    kept = set(_SKELETON)
    if kernels is not None:        # nothing of an earlier kernel, nothing planted next to this one
        kept |= {os.path.dirname(keep), keep}
        tops += [kernels, os.path.dirname(keep)]
    for top in tops:
        _wipe(top, kept)
    return not any(_leftovers(top, kept) for top in tops)


# What bubblewrap put in /tmp before the server started: the read-only binds that land
# there (matplotlib's font lists; the Python installation or the course's packages when
# they live under /tmp) and the directories it made for them.  They stay; everything
# else in /tmp is a kernel's and goes.
_SKELETON = set()


def _skeleton(top):
    found = set()
    for root, dirs, files in os.walk(top):
        found.update(os.path.join(root, name) for name in dirs + files)
        dirs[:] = [d for d in dirs if not os.path.ismount(os.path.join(root, d))]
    return found


def _wipe(top, kept):
    """Remove what is in ``top`` but ``kept`` paths; inside a kept directory that is
    not a mount point, remove what is not kept either."""
    for name in os.listdir(top):
        path = os.path.join(top, name)
        if path not in kept:
            _remove(path)
        elif os.path.isdir(path) and not os.path.islink(path) and not os.path.ismount(path):
            _wipe(path, kept)


def _leftovers(top, kept):
    return [p for p in _skeleton(top) if p not in kept]


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        _writable(path)                            # a kernel may have made its files read-only,
        for inner, dirs, _ in os.walk(path):       # or its directories unreadable (mode 000):
            for name in dirs:                      # each one is opened up before the walk enters it
                if not os.path.islink(os.path.join(inner, name)):
                    _writable(os.path.join(inner, name))
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def _writable(directory):
    try:
        os.chmod(directory, 0o700)
    except OSError:
        pass


def _kernel(message, server, conn):
    """The forked child: becomes the kernel, as ipykernel_launcher would."""
    try:
        server.close()
        conn.close()
        os.setsid()
        _prctl(PR_SET_DUMPABLE, 1)
        os.chdir(sandbox.WARM_WORKDIR)
        runtime = os.path.dirname(message["connection_file"])
        os.environ["JUPYTER_RUNTIME_DIR"] = runtime
        sandbox._set_limits(message["limits"])
        import numpy
        numpy.random.seed()                    # its own entropy, as a fresh interpreter has
        sys.argv = ["ipykernel_launcher", "-f", message["connection_file"], *message["args"]]
        from ipykernel.kernelapp import launch_new_instance
        launch_new_instance()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    os._exit(code)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 4 and argv[0] == "serve":
        return serve(int(argv[1]), argv[2], int(argv[3]))
    print("usage: python -P -m autograd_course.warm serve LISTENING_FD KERNELS_DIRECTORY FILE_MB",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
