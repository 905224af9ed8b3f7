"""Warm sandboxed kernels (autograd_course/warm.py), with real bubblewrap and real kernels.

The adversarial class (test_adversarial.py) grades every cheat through warm kernels,
since they are the default; these tests check what is particular to them: one kernel
leaves nothing behind for the next (files, processes), the server cannot be traced or
read, each kernel is fresh (its own random numbers, its own limits), a kernel that
kills the server only ends itself, and the launcher starts a cold kernel when a warm
one would differ (another environment, files in the assignment's directory).
"""

import json
import os
import tempfile
import time
from pathlib import Path

import pytest

from autograd_course import autograde, sandbox, warm

from .conftest import COURSE_MARKS

pytestmark = COURSE_MARKS


@pytest.fixture(scope="module")
def values():
    ok, reason = sandbox.ensure(install_packages=True)
    if not ok:
        pytest.skip(f"the kernel sandbox cannot run here: {reason}")
    return sandbox.limits()


def _env(values, **extra):
    return {**os.environ, "MPLBACKEND": "agg", **sandbox.limits_env(values), **extra}


@pytest.fixture(scope="module")
def server(values):
    server = warm.WarmServer(values, _env(values), parent=autograde.socket_parent()).start()
    yield server
    server.close()


def start(server, env, workdir=None):
    """Start a kernel the way nbgrader does (the kernelspec's launcher); its manager and client."""
    from jupyter_client.manager import KernelManager
    runtime = server.new_runtime() if server is not None else tempfile.mkdtemp(dir=autograde.socket_parent())
    km = KernelManager(kernel_name=sandbox.KERNEL_NAME)
    km.transport, km.ip = "ipc", os.path.join(runtime, "kernel-ipc")
    km.connection_file = os.path.join(runtime, "kernel.json")
    if server is not None:
        env = {**env, sandbox.WARM_ENV: server.control}
    km.start_kernel(env=env, cwd=workdir or tempfile.mkdtemp(prefix="assignment-"))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(server, code, env, workdir=None):
    """Run ``code`` in a new kernel, shut it down; the last line it printed, parsed as JSON."""
    km, kc = start(server, env, workdir)
    out = []
    try:
        reply = kc.execute_interactive(code, timeout=60, output_hook=lambda m: out.append(m))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    text = "".join(m["content"].get("text", "") for m in out if m["msg_type"] == "stream")
    assert reply["content"]["status"] == "ok", f"expected the kernel to run the code; it said {reply['content']} {text}"
    return json.loads(text.strip().splitlines()[-1])


LOOK = ("import os, json, sys, random, resource\nimport numpy as np\n"
        "print(json.dumps({'cwd': os.getcwd(), 'cwd_files': sorted(os.listdir('.')), "
        "'tmp': sorted(os.listdir('/tmp')), 'me': os.getpid(), "
        "'mpl': sorted(os.listdir('/tmp/.matplotlib')) if os.path.isdir('/tmp/.matplotlib') else [], "
        "'runtime': os.environ['JUPYTER_RUNTIME_DIR'], "
        "'kernels': sorted(os.listdir(os.path.dirname(os.environ['JUPYTER_RUNTIME_DIR']))), "
        "'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), "
        "'np': float(np.random.rand()), 'py': random.random(), "
        "'as': resource.getrlimit(resource.RLIMIT_AS)[0], 'cpu': resource.getrlimit(resource.RLIMIT_CPU)[0]}))\n")


def test_a_kernel_leaves_no_file_and_no_process_to_the_next(server, values):
    plant = ("import os, subprocess, sys\n"
             "open('/tmp/answers.txt', 'w').write('mine')\nopen('work.txt', 'w').write('mine')\n"
             "open(os.path.join(os.environ['JUPYTER_RUNTIME_DIR'], '..', 'answers.txt'), 'w').write('mine')\n"
             "os.makedirs('/tmp/.matplotlib', exist_ok=True)\n"
             "open('/tmp/.matplotlib/fontlist-v999.json', 'w').write('mine')\n"
             "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], start_new_session=True)\n"
             "subprocess.Popen(['sh', '-c', '(sleep 300 &) ; exit 0'])\n" + LOOK)
    first = run(server, plant, _env(values))
    assert first["cwd"] == sandbox.WARM_WORKDIR, f"expected a warm kernel in {sandbox.WARM_WORKDIR}; saw {first['cwd']}"
    second = run(server, LOOK, _env(values))
    assert second["cwd"] == sandbox.WARM_WORKDIR, \
        f"expected the next kernel from the same server (warm, in {sandbox.WARM_WORKDIR}); saw {second['cwd']}"
    assert "answers.txt" not in second["tmp"] and second["cwd_files"] == [], \
        f"expected the next kernel to find /tmp and its directory empty of the last one's files; saw {second}"
    fonts = sorted(os.path.basename(f) for f in sandbox.font_caches())
    assert second["mpl"] == fonts, \
        f"expected only matplotlib's read-only font lists {fonts} left in its directory; saw {second['mpl']}"
    assert second["kernels"] == [os.path.basename(second["runtime"])], \
        f"expected only the kernel's own directory next to it (no file of the last kernel's, no control " \
        f"socket); saw {second['kernels']}"
    assert second["pids"] == sorted({1, 2, second["me"]}), \
        f"expected only bubblewrap, the server and the kernel itself in the sandbox; saw pids {second['pids']}"
    assert server.alive(), "expected the server to go on serving"


def test_unreadable_directories_a_kernel_leaves_go_too(server, values):
    """A kernel may leave directories it made unreadable (mode 000), nested, in /tmp and in its
    working directory: the server opens each one up before it removes it, and serves on."""
    plant = ("import os\n"
             "for top in ('/tmp', '.'):\n"
             "    os.makedirs(os.path.join(top, 'locked', 'inner', 'deeper'))\n"
             "    open(os.path.join(top, 'locked', 'inner', 'deeper', 'answers.txt'), 'w').write('mine')\n"
             "    for d in ('locked/inner/deeper', 'locked/inner', 'locked'):\n"
             "        os.chmod(os.path.join(top, d), 0)\n" + LOOK)
    first = run(server, plant, _env(values))
    second = run(server, LOOK, _env(values))
    assert first["cwd"] == second["cwd"] == sandbox.WARM_WORKDIR and server.alive(), \
        f"expected one server to serve both kernels; saw {first['cwd']}, {second['cwd']}, alive {server.alive()}"
    assert "locked" not in second["tmp"] and second["cwd_files"] == [], \
        f"expected the unreadable directories gone from /tmp and the working directory; saw {second}"


def test_the_server_has_a_file_size_limit_and_no_core_dumps(server, values):
    """Set by the server itself at its start (the grader runs no Python between fork and exec)."""
    pids, found = [server.process.pid], None
    while pids and found is None:
        pid = pids.pop()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        if os.path.basename(argv[0]) != "bwrap" and "autograd_course.warm" in argv:
            found = pid
        for task in os.listdir(f"/proc/{pid}/task"):
            pids += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    assert found, f"expected the server's process among bwrap's (pid {server.process.pid}) descendants"
    limits = {line[:26].strip(): line[26:].split()[:2] for line in Path(f"/proc/{found}/limits").read_text().splitlines()}
    size = str(values["file_mb"] * 2 ** 20)
    assert limits["Max file size"] == [size, size] and limits["Max core file size"] == ["0", "0"], \
        f"expected a file size limit of {size} bytes and no core dumps; saw {limits}"


def test_binds_under_tmp_stay_and_what_a_kernel_adds_there_goes(values):
    """bwrap binds the Python installation, the packages or the kernels' directory under the
    sandbox's /tmp when they live under /tmp (a checkout in /tmp, a short runtime directory):
    emptying /tmp keeps those binds and the directories bwrap made for them, and only them."""
    parent = tempfile.mkdtemp(prefix="warm-under-tmp-", dir="/tmp")
    server = warm.WarmServer(values, _env(values), parent=parent).start()
    try:
        plant = (f"import os\nopen(os.path.join({parent!r}, 'answers.txt'), 'w').write('mine')\n" + LOOK)
        first = run(server, plant, _env(values))
        second = run(server, f"import os\nprint(os.listdir({parent!r}))\n" + LOOK, _env(values))
        assert first["cwd"] == second["cwd"] == sandbox.WARM_WORKDIR and server.alive(), \
            f"expected one server to serve both kernels; saw {first['cwd']}, {second['cwd']}, alive {server.alive()}"
        seen = run(server, f"import os, json\nprint(json.dumps(sorted(os.listdir({parent!r}))))\n", _env(values))
        assert seen == [os.path.basename(server.dir)], \
            f"expected only the bound kernels' directory in {parent} (no file of an earlier kernel); saw {seen}"
    finally:
        server.close()
        os.rmdir(parent)


def test_a_kernel_cannot_trace_or_read_the_server(server, values):
    probe = ("import json, os\nseen = {}\n"
             "for name in ('mem', 'environ', 'maps'):\n"
             "    try:\n        open(f'/proc/2/{name}', 'rb').read(64)\n        seen[name] = 'read'\n"
             "    except OSError as error:\n        seen[name] = type(error).__name__\n"
             "print(json.dumps(seen))\n")
    seen = run(server, probe, _env(values))
    assert set(seen.values()) == {"PermissionError"}, \
        f"expected the server's memory, environment and maps unreadable (PermissionError); saw {seen}"


def test_each_kernel_is_fresh_random_numbers_and_limits_of_its_own(server, values):
    one, two = run(server, LOOK, _env(values)), run(server, LOOK, _env(values))
    assert one["np"] != two["np"] and one["py"] != two["py"], \
        f"expected each kernel to draw its own random numbers (NumPy and random); saw {one} and {two}"
    assert one["as"] == values["memory_mb"] * 2 ** 20 and one["cpu"] == values["cpu_seconds"], \
        f"expected the kernel's own limits ({values}); saw address space {one['as']}, CPU {one['cpu']}"


def test_a_kernel_that_kills_the_server_ends_only_itself(values):
    env = _env(values)
    first = autograde._warm_server(values, env, _Log())
    km, kc = start(first, env)
    kc.execute("import os, signal\nos.kill(2, signal.SIGKILL)\nimport time; time.sleep(60)\n")
    first.process.wait(timeout=30)
    for _ in range(100):
        if not km.is_alive():
            break
        time.sleep(0.1)
    kc.stop_channels()
    alive = km.is_alive()
    km.shutdown_kernel(now=True)
    assert not alive, "expected the kernel of a server that died to end (its launcher exits)"
    second = autograde._warm_server(values, env, _Log())
    assert second is not first and second.alive(), "expected the grader to start a new server"
    seen = run(second, LOOK, env)
    assert seen["cwd"] == sandbox.WARM_WORKDIR, f"expected the new server's kernel to run; saw {seen}"
    second.close()


@pytest.mark.parametrize("signal_number", [9, 24])
def test_a_kernel_killed_by_a_signal_ends_as_a_cold_one_would(server, values, signal_number):
    """The grader names the limit from the launcher's exit status (128 + the signal, as
    bwrap reports it): SIGKILL for memory, SIGXCPU for CPU time."""
    km, kc = start(server, _env(values))
    kc.execute(f"import os\nos.kill(os.getpid(), {signal_number})\n")
    for _ in range(300):
        if not km.is_alive():
            break
        time.sleep(0.1)
    code = km.provisioner.process.poll()
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    assert code == 128 + signal_number, \
        f"expected the launcher to exit with {128 + signal_number} (signal {signal_number}); saw {code}"


def test_a_collected_submission_gets_a_warm_kernel(server, values, tmp_path):
    """nbgrader collect writes timestamp.txt beside the notebook, and autograde copies it:
    that alone must not make every kernel of a real class cold."""
    workdir = tmp_path / "collected"
    workdir.mkdir()
    (workdir / "01_tensors.ipynb").write_text("{}")
    (workdir / "timestamp.txt").write_text("2026-11-27 10:00:00.000000 UTC")
    seen = run(server, LOOK, _env(values), workdir=str(workdir))
    assert seen["cwd"] == sandbox.WARM_WORKDIR, \
        f"expected a warm kernel for a directory holding the notebook and timestamp.txt; saw {seen['cwd']}"


def test_the_launcher_starts_a_cold_kernel_when_a_warm_one_would_differ(server, values, tmp_path):
    other = run(server, LOOK, _env(values, MPLBACKEND="svg"))
    assert other["cwd"] != sandbox.WARM_WORKDIR, \
        f"expected a cold kernel for another environment (MPLBACKEND); saw one in {other['cwd']}"
    workdir = tmp_path / "assignment"
    workdir.mkdir()
    (workdir / "data.csv").write_text("1,2\n")
    cold = run(server, LOOK, _env(values), workdir=str(workdir))
    assert cold["cwd"] == str(workdir) and cold["cwd_files"] == ["data.csv"], \
        f"expected a cold kernel in the assignment's directory, which holds a file; saw {cold}"


class _Log:
    def warning(self, *args):
        raise AssertionError("expected the warm server to start: " + args[0] % args[1:])
