"""The sandbox that students' kernels run in while nbgrader autogrades them.

nbgrader runs a student's notebook in a Jupyter kernel that, by default, is an
ordinary process of the grading user: it can read the hidden tests in
``source/`` and the gradebook, rewrite anyone's grade, fill the disk or eat
the memory.  Here the kernel runs in a `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox instead, through a kernelspec named ``autograd-sandbox`` that
``course/nbgrader_config.py`` tells nbgrader to use:

* **its own namespaces**: no network (a new network namespace has only a
  loopback device), its own process tree, and uid ``nobody``;
* **a file system of its own**: the operating system (``/usr``) and the Python
  installation read-only, the packages ``autograd_lib`` and ``autograd_course``
  read-only, the student's own assignment directory read-only on a small
  writable tmpfs, a tmpfs ``/tmp``; nothing else.  The course directory, with ``source/``, the
  gradebook, and other students' submissions, is not there at all;
* **limits**: address space (``memory_mb``: NumPy and Python raise
  ``MemoryError``), CPU time of the whole kernel (``cpu_seconds``), the size of
  any file it writes (``file_mb``) and of its two tmpfs (``scratch_mb``).
  nbgrader's per-cell timeout (``Execute.timeout``) is the limit per cell.

The kernel talks to nbgrader over Unix sockets (transport ``ipc``), because it
has no network.  Each kernel gets a private directory for its connection file
and sockets, so no kernel can reach another one.

    python -m autograd_course.sandbox install   # (re)write the kernelspec of this Python
    python -m autograd_course.sandbox check     # is bubblewrap here and working? (exit 1 if not)
    python -m autograd_course.sandbox setup     # make test / make grade-class: install bubblewrap
                                                # where this user can (root, or sudo), else say how
    python -m autograd_course.sandbox setup --required   # the same, exit 1 when it cannot run

``python -P -m autograd_course.sandbox -f CONNECTION_FILE [ipykernel args]`` is
the launcher that the kernelspec runs; it only uses the standard library.  When the
grader runs a warm kernel server (``autograd_course/warm.py``), the launcher asks it
for the kernel instead of starting one cold.  It
runs outside the sandbox, in the assignment's directory, which holds what the
student handed in: ``-P`` keeps that directory off ``sys.path``, so no file of
the student's is ever imported there.
"""

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile

KERNEL_NAME = "autograd-sandbox"
LAUNCHER = "autograd_course.sandbox"       # the module the kernelspec runs (python -P -m)
NOBODY = 65534

# The limits, and the environment variables (set by the grader, read by the
# launcher) that override them.  autograd_course/autograde.py passes nbgrader_config.py's
# values this way, and quotes the same numbers in students' feedback.
LIMITS = {"memory_mb": 1024, "cpu_seconds": 900, "file_mb": 32, "scratch_mb": 64}
ENV = {name: "AUTOGRAD_SANDBOX_" + name.upper() for name in LIMITS}
# Set by the grader when a warm kernel server runs (autograd_course/warm.py): its control socket.
WARM_ENV = "AUTOGRAD_SANDBOX_WARM"

# What the kernel inherits from the grader's environment; nothing else reaches the sandbox.
PASS_ENV = ("PYTHONHASHSEED", "MPLBACKEND", "LANG", "LC_ALL", "TZ")
# How to install bubblewrap, by the package manager found on PATH (the first one wins).
PACKAGE_MANAGERS = (("apt-get", "apt-get install -y bubblewrap"), ("dnf", "dnf install -y bubblewrap"),
                    ("yum", "yum install -y bubblewrap"), ("zypper", "zypper install -y bubblewrap"),
                    ("pacman", "pacman -S --noconfirm bubblewrap"), ("apk", "apk add bubblewrap"))
WITHOUT_SANDBOX = "autograd-course grade-class --no-sandbox, or make grade-class NO_SANDBOX=1"


def install_command():
    """The command that installs bubblewrap here, as this user would type it
    (``sudo`` in front unless this is root)."""
    found = next((command for tool, command in PACKAGE_MANAGERS if shutil.which(tool)),
                 "apt-get install -y bubblewrap")
    return found if _is_root() else "sudo " + found


def _is_root():
    return hasattr(os, "geteuid") and os.geteuid() == 0


def install_hint(without=WITHOUT_SANDBOX):
    """How to install bubblewrap, or (``without``: the command) to grade without it."""
    return (f"install bubblewrap ({install_command()}), or grade without the sandbox "
            f"({without}: students' code then runs as you)")


def limits(env=None):
    """The limits in force: LIMITS, overridden by AUTOGRAD_SANDBOX_* variables."""
    env = os.environ if env is None else env
    return {name: int(env.get(ENV[name]) or default) for name, default in LIMITS.items()}


def limits_env(values):
    """The environment variables that pass ``values`` (a dict like LIMITS) to the launcher."""
    return {ENV[name]: str(int(value)) for name, value in values.items() if name in ENV}


# ------------------------------------------------------------ kernelspec

def kernelspec(python=None):
    """The kernel.json of the sandboxed kernel for interpreter ``python``."""
    python = python or sys.executable
    return {
        "argv": [python, "-P", "-m", LAUNCHER, "-f", "{connection_file}"],
        "display_name": "Python 3 (autograd-course sandbox)",
        "language": "python",
        # bwrap does not forward SIGINT to the kernel: interrupt with a message.
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }


def kernelspec_dir(prefix=None):
    """Where the kernelspec goes: ``<prefix>/share/jupyter/kernels/autograd-sandbox``
    (``prefix``: this Python's ``sys.prefix``, which Jupyter always searches)."""
    return os.path.join(prefix or sys.prefix, "share", "jupyter", "kernels", KERNEL_NAME)


MPLCONFIGDIR = "/tmp/.matplotlib"          # the kernel's matplotlib directory, in its fresh /tmp


def font_caches():
    """The grader's matplotlib font lists.  Each kernel's MPLCONFIGDIR starts empty, and
    matplotlib would rebuild the list in every kernel (0.2 s of CPU); the sandbox binds
    the grader's copy read-only into it instead."""
    base = os.environ.get("MPLCONFIGDIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "matplotlib")
    if not os.path.isdir(base):
        return []
    return sorted(os.path.join(base, n) for n in os.listdir(base)
                  if n.startswith("fontlist-v") and n.endswith(".json"))


def install(prefix=None, python=None):
    """Write the kernelspec (only when it changed), and build matplotlib's font list
    outside the sandbox if there is none; returns the kernelspec's directory."""
    if not font_caches():
        subprocess.run([python or sys.executable, "-c", "import matplotlib.font_manager"],
                       capture_output=True, timeout=300)
    directory = kernelspec_dir(prefix)
    text = json.dumps(kernelspec(python), indent=1) + "\n"
    path = os.path.join(directory, "kernel.json")
    if not os.path.isfile(path) or open(path, encoding="utf-8").read() != text:
        os.makedirs(directory, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, suffix=".tmp") as fh:
            fh.write(text)
        os.replace(fh.name, path)
    return directory


def check(without=WITHOUT_SANDBOX):
    """(True, "") when bubblewrap can build the sandbox here, else (False, why and what to
    do: one line; ``without`` is the command that grades without the sandbox)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False, "bubblewrap (bwrap) is not installed: " + install_hint(without)
    try:
        probe = subprocess.run(
            [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
             "--proc", "/proc", "--dev", "/dev", "true"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"bwrap does not run: {error}; grade without the sandbox ({without})"
    if probe.returncode != 0:
        error = " ".join(probe.stderr.split())[:300]
        return False, (f"bwrap cannot create namespaces here (exit {probe.returncode}: {error}): "
                       f"unprivileged user namespaces are off (enable them: sysctl "
                       f"kernel.unprivileged_userns_clone=1, on Ubuntu >= 23.10 also "
                       f"kernel.apparmor_restrict_unprivileged_userns=0; in a container, a seccomp "
                       f"profile that allows them), or grade without the sandbox ({without})")
    return True, ""


def ensure(install_packages=False):
    """Make the sandbox usable: bubblewrap present (installed with the system's package
    manager when ``install_packages`` and this user can: root, or passwordless sudo),
    kernelspec written.  Returns (True, "") or (False, the reason)."""
    ok, reason = check()
    if not ok and install_packages and not shutil.which("bwrap"):
        if install_bubblewrap(interactive=False):
            ok, reason = check()
    if ok:
        install()
    return ok, reason


def _privileged(interactive):
    """The prefix that runs a command as root ([] for root), or None when this user cannot:
    ``sudo -n`` when it needs no password, plain ``sudo`` (asking for the password) only when
    ``interactive`` and a terminal is there to answer."""
    if _is_root():
        return []
    sudo = shutil.which("sudo")
    if not sudo:
        return None
    if subprocess.run([sudo, "-n", "true"], capture_output=True, timeout=30).returncode == 0:
        return [sudo, "-n"]
    if interactive and sys.stdin.isatty():
        return [sudo]
    return None


def install_bubblewrap(interactive=True, log=None):
    """Install bubblewrap with the system's package manager (apt-get: updating its lists if
    the first try fails), as root or through sudo.  False when this user cannot, or the
    package manager failed; ``log`` (a function) hears what is run."""
    prefix = _privileged(interactive)
    tool = next((tool for tool, _ in PACKAGE_MANAGERS if shutil.which(tool)), None)
    if prefix is None or tool is None:
        return False
    command = prefix + install_command().removeprefix("sudo ").split()
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if log:
        log("running: " + " ".join(command))
    quiet = {} if prefix == ["sudo"] else {"capture_output": True}     # a password prompt must show
    if subprocess.run(command, timeout=900, env=env, **quiet).returncode and tool == "apt-get":
        subprocess.run(prefix + ["apt-get", "update", "-qq"], timeout=900, env=env, **quiet)
        subprocess.run(command, timeout=900, env=env, **quiet)
    return bool(shutil.which("bwrap"))


def setup(required=False, out=None):
    """What ``make test`` and ``make grade-class`` run first: bubblewrap working (installed
    where this user can), kernelspec written; where it cannot, one message saying exactly
    what to do.  Returns the exit status: 0, or 1 when ``required`` and the sandbox cannot run."""
    out = out or sys.stderr
    ok, reason = check()
    if not ok and not shutil.which("bwrap"):
        print("bubblewrap (bwrap), the sandbox students' notebooks are graded in, is missing: "
              "installing it", file=out, flush=True)
        install_bubblewrap(interactive=True, log=lambda line: print(line, file=out, flush=True))
        ok, reason = check()
        if not ok and not shutil.which("bwrap"):
            reason = (f"bubblewrap (bwrap) is not installed and this user cannot install it: run "
                      f"`{install_command()}`, then this command again; or grade without the sandbox "
                      f"({WITHOUT_SANDBOX}: students' code then runs as you)")
    if ok:
        install()
        return 0
    if required:
        print(f"error: students' kernels cannot be sandboxed: {reason}", file=out, flush=True)
        return 1
    print(f"warning: students' kernels cannot be sandboxed here, so the tests that need the sandbox "
          f"are skipped: {reason}", file=out, flush=True)
    return 0


# -------------------------------------------------------------- launcher

def _python_paths():
    """The directories the kernel's Python needs, read-only."""
    import site
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    paths.update(p for p in site.getsitepackages() if os.path.isdir(p))
    user_site = site.getusersitepackages()
    if isinstance(user_site, str) and os.path.isdir(user_site):
        paths.add(user_site)
    resolved = set()
    for path in paths:
        resolved.update({path, os.path.realpath(path)})
    return _outermost(resolved)


def _outermost(paths):
    """``paths`` without those inside another one (sorted)."""
    kept = []
    for path in sorted(paths, key=len):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return sorted(kept)


def _library():
    """(directories of the packages autograd_lib and autograd_course, the notebooks'
    imports, what to put on PYTHONPATH or None)."""
    import importlib.util
    packages = []
    for name in ("autograd_lib", "autograd_course"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"sandbox: {name} is not importable by " + sys.executable)
        packages.append(os.path.realpath(list(spec.submodule_search_locations)[0]))
    parent = os.path.dirname(packages[0])
    on_path = any(os.path.realpath(p) == parent for p in sys.path if p)
    return packages, (parent if on_path else None)


def _system_binds():
    args = []
    for top in ("/usr", "/bin", "/lib", "/lib32", "/lib64", "/sbin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ("passwd", "group", "ld.so.cache", "localtime", "nsswitch.conf", "hosts", "fonts"):
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _runtime(connection_file):
    """The kernel's private directory: its connection file and its sockets.

    The grader (autograd_course/autograde.py) creates one per kernel; it is the only
    part of the grader's file system that the kernel can write to."""
    with open(connection_file, encoding="utf-8") as fh:
        info = json.load(fh)
    if info.get("transport") != "ipc":
        raise SystemExit("sandbox: the kernel has no network, so it talks over Unix sockets: "
                         "start it with transport 'ipc' (autograd_course/autograde.py does)")
    runtime = os.path.dirname(os.path.abspath(connection_file))
    if os.path.dirname(os.path.abspath(info["ip"])) != runtime:
        raise SystemExit(f"sandbox: the kernel's sockets ({info['ip']}-*) must be next to its "
                         f"connection file ({connection_file})")
    stem = os.path.splitext(os.path.basename(connection_file))[0]
    others = [n for n in os.listdir(runtime) if not n.startswith(stem)]
    if others:
        raise SystemExit(f"sandbox: {runtime} must be this kernel's own directory; it also "
                         f"holds {', '.join(sorted(others)[:5])}")
    return runtime


def _workdir_binds(cwd, size):
    """The assignment directory: a writable tmpfs holding its files read-only.
    Left out: notebooks (autograde's copy holds the hidden tests) and top-level
    symlinks (they would be resolved outside the sandbox)."""
    args = ["--size", str(size), "--tmpfs", cwd]
    for name in sorted(os.listdir(cwd)):
        path = os.path.join(cwd, name)
        if not os.path.islink(path) and not name.endswith(".ipynb"):
            args += ["--ro-bind-try", path, path]
    return args


def command(connection_file, kernel_args, cwd, values):
    """The bwrap command line that runs the kernel, and its whole environment (bwrap
    is pid 1 in the sandbox, so its environment is readable there: it gets only
    what the kernel gets, nothing of the grader's)."""
    runtime = _runtime(connection_file)
    scratch = values["scratch_mb"] * 2 ** 20
    args, env = _sandbox(values, runtime, _workdir_binds(cwd, scratch) + ["--chdir", cwd], cwd)
    args += ["--", sys.executable, "-m", "ipykernel_launcher", "-f", connection_file, *kernel_args]
    return args, env


def warm_command(pool_dir, values, control_fd):
    """The bwrap command line of a warm kernel server (``autograd_course/warm.py``):
    the same sandbox, with the server's directory (where each kernel gets its private
    directory) writable, and no assignment directory: its kernels work in ``WARM_WORKDIR``.
    The server listens on ``control_fd``, a socket whose path is outside the sandbox."""
    scratch = str(values["scratch_mb"] * 2 ** 20)
    args, env = _sandbox(values, pool_dir, ["--size", scratch, "--tmpfs", WARM_WORKDIR,
                                            "--chdir", WARM_WORKDIR], None)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"      # debugpy, imported once, would warn
    args += ["--", sys.executable, "-P", "-m", "autograd_course.warm", "serve", str(control_fd), pool_dir,
             str(values["file_mb"])]
    return args, env


# A warm kernel's working directory: a tmpfs of its own, as the assignment directory is for
# a cold kernel, emptied after each kernel.
WARM_WORKDIR = "/autograde-work"


def _sandbox(values, writable, workdir_args, cwd):
    """bwrap's arguments up to the command, and the environment: the system and Python
    read-only, the course packages read-only, ``writable`` (the kernel's own directory)
    writable, a tmpfs /tmp, and ``workdir_args``."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        raise SystemExit("sandbox: bubblewrap (bwrap) is not installed: " + install_hint())
    packages, pythonpath = _library()
    scratch = values["scratch_mb"] * 2 ** 20
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
            "--uid", str(NOBODY), "--gid", str(NOBODY), "--hostname", "sandbox"]
    args += _system_binds()
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(scratch), "--tmpfs", "/tmp"]
    for cache in font_caches():
        args += ["--ro-bind", cache, os.path.join(MPLCONFIGDIR, os.path.basename(cache))]
    for path in _python_paths() + packages:
        if cwd and os.path.realpath(cwd).startswith(path.rstrip("/") + "/"):
            raise SystemExit(f"sandbox: the kernel needs {path} (Python or the course packages) read-only, "
                             f"and the course is inside it ({cwd}): move the course elsewhere")
        args += ["--ro-bind", path, path]
    args += ["--bind", writable, writable]
    args += workdir_args[:-2]
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]     # only the two tmpfs stay writable
    args += workdir_args[-2:]                                  # --chdir
    env = {"HOME": "/tmp", "TMPDIR": "/tmp", "USER": "nobody", "LOGNAME": "nobody",
           "PATH": os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]),
           "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
           "MPLCONFIGDIR": MPLCONFIGDIR, "IPYTHONDIR": "/tmp/.ipython",
           "JUPYTER_RUNTIME_DIR": writable, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    env.update({k: os.environ[k] for k in PASS_ENV if k in os.environ})
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return args, env


# nbgrader's own record of when a submission came in (``nbgrader collect`` writes it, and
# autograde copies it next to the notebook): not the student's, no kernel needs it.
NBGRADER_FILES = ("timestamp.txt",)


def workdir_files(cwd):
    """What the assignment directory holds besides notebooks and nbgrader's timestamp (the
    sandbox binds these into the kernel's working directory; a warm kernel has none, so
    it is not used then)."""
    return sorted(n for n in os.listdir(cwd) if not n.endswith(".ipynb") and n not in NBGRADER_FILES)


def _set_limits(values):
    memory = values["memory_mb"] * 2 ** 20
    for which, value in ((resource.RLIMIT_AS, memory),
                         (resource.RLIMIT_CPU, values["cpu_seconds"]),
                         (resource.RLIMIT_FSIZE, values["file_mb"] * 2 ** 20),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(which, (value, value))


def launch(argv):
    """Run the kernel of ``-f CONNECTION_FILE [ipykernel args]`` in the sandbox (never returns)."""
    if len(argv) < 2 or argv[0] != "-f":
        raise SystemExit("usage: sandbox.py -f CONNECTION_FILE [ipykernel arguments]")
    values = limits()
    server = os.environ.get(WARM_ENV)
    if server and not workdir_files(os.getcwd()):
        code = run_warm_kernel(server, os.path.abspath(argv[1]), argv[2:], values)
        if code is not None:                 # the warm server ran it (None: it declined)
            os._exit(code)
    args, env = command(os.path.abspath(argv[1]), argv[2:], os.getcwd(), values)
    _set_limits(values)
    devnull = os.open(os.devnull, os.O_WRONLY)     # ipykernel's banner; errors still go to stderr
    os.dup2(devnull, 1)
    os.execve(args[0], args, env)


def run_warm_kernel(control, connection_file, kernel_args, values):
    """Ask the warm kernel server (autograd_course/warm.py) at ``control`` for a kernel
    and wait for it to end.
    Returns the kernel's exit status (128 + N when signal N killed it, as from a cold
    kernel's bwrap), or None when no warm kernel can be had (the
    launcher then starts a cold one).  The launcher dying (jupyter_client killing it)
    closes the connection, and the server kills the kernel."""
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(control)
        message = {"connection_file": connection_file, "args": kernel_args, "limits": values,
                   "env": {k: os.environ[k] for k in PASS_ENV if k in os.environ}}
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        return None
    reply = read_line(conn)
    if reply is None:
        return 1                       # the server went away while the kernel ran
    answer = json.loads(reply)
    if "declined" in answer:
        return None
    code = int(answer["exit"])
    return 128 - code if code < 0 else code      # killed by signal N: 128 + N, as bwrap says it


def read_line(conn):
    """One newline-ended message from the socket ``conn``; None if it closes first."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["-f"]:
        return launch(argv)
    if argv[:1] == ["install"]:
        ok, reason = ensure()
        print(f"kernelspec {KERNEL_NAME}: {kernelspec_dir()}" if ok else f"error: {reason}")
        return 0 if ok else 1
    if argv[:1] == ["setup"] and set(argv[1:]) <= {"--required"}:
        return setup(required="--required" in argv)
    if argv[:1] == ["check"]:
        ok, reason = check()
        print("bubblewrap works: students' kernels can be sandboxed" if ok else f"error: {reason}")
        return 0 if ok else 1
    print(__doc__.split("\n\n")[-2])
    return 2


if __name__ == "__main__":
    sys.exit(main())
