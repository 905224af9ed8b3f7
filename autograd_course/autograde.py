"""nbgrader extensions that make autograding robust (course/nbgrader_config.py installs them).

``GuardedExecute`` replaces nbgrader's ``Execute`` in the autograde pipeline:

* **Sandbox.** Each notebook runs in the ``autograd-sandbox`` kernel
  (``autograd_course/sandbox.py``: bubblewrap, no network, no course files, memory and
  CPU limits), over Unix sockets in a directory private to that kernel.
* **Limits are named.** A cell that times out, runs out of memory, or ends or
  kills the kernel gets an error output saying which limit it hit, so it
  scores 0.  After a kernel death the grader starts a new kernel, runs the
  earlier cells again (except those that killed it) and goes on, so the rest
  of the notebook is still graded.
* **Snapshot before student code.** A fresh kernel first runs
  ``autograd_course.integrity.seal()``: the integrity snapshot (with the
  references) comes from the library before any notebook cell ran.
* **The test cells see the real helpers.** Before each test cell the grader
  runs again the import lines of the assignment's locked setup cells
  (``import numpy as np``, ``from autograd_course import grading``,
  ``from autograd_course.notebook import outcome``, ...), so a student who
  rebinds ``grading``, ``np`` or a shared helper to a fake gains nothing
  (``grading.checking`` also refuses to run when they are rebound), and
  a test cell that earns points must have completed at least one real
  ``grading.checking`` block (its counter ``CHECKS``): a fake
  ``grading`` never does.
* **No partial credit from outputs.** A test cell's ``execute_result`` is
  turned into ``display_data``: nbgrader would read a number there as partial
  credit, and student code (a display hook) can print one.
* **The tests see the notebook's own helpers.** After each locked cell runs, the
  grader remembers the functions, classes and values it defined (and each
  function's code), and puts them back before every later test cell: an answer
  cell that redefines a helper the tests compute expected values with
  (``reference_vjp``, ``reference_rule``, ...) changes nothing.
* **Figures are not rendered.** Kernels draw on matplotlib's Agg backend and
  close the figures after each cell, and IPython's image formatters are off, so an
  object that draws itself (``autograd_lib.viz``'s graph figures) shows its text
  (``figures = False``): rendering and embedding them cost 0.4 s of CPU per
  notebook (a graph drawing 0.1 s), and grades never depend on them.
* **Canary.** Right after a test cell earns points, it runs once more, with
  the student's function of its exercise (the name given to ``exercises.plug``
  in the assignment's answer cell) replaced by a function that always fails;
  then the names and the random generators are put back.  A test that still
  earns points does not depend on the student's code: something (an exception
  swallowed by a patched context manager, an input transformer, a fake output)
  makes it pass regardless.  It gets 0, with a ``GradingIntegrityError``.

``RestoreGradeCells`` runs first when a submission is sanitized: every cell
that carries nbgrader metadata gets the metadata of its cell in the gradebook
(grade, solution, locked, points), so a test cell whose ``grade`` flag, points
or type a student edited is graded as released; cells with unknown or
duplicated ids lose their nbgrader metadata, and ``OverwriteCells`` then
restores the missing test cells.

``SandboxCheckedExporter`` is nbgrader's exporter of autograded notebooks, which
first checks that the sandbox ``GuardedExecute`` asks for can run here.  When it
cannot (no bubblewrap, no user namespaces), ``nbgrader autograde`` stops before it
touches a submission or starts a kernel, with one line that says how to install
bubblewrap or how to grade without the sandbox.

``FeedbackExporter`` is nbconvert's HTML exporter (nbgrader's feedback
template) without its final BeautifulSoup pass, which only adds a missing
``alt`` text to images (done here with a regular expression) and took 70% of
the time of ``generate_feedback``.

"""

import ast
import atexit
import copy
import json
import os
import re
import secrets
import shutil
import tempfile
import textwrap

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbconvert.exporters import HTMLExporter, NotebookExporter
from jinja2 import BytecodeCache, pass_context
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_output
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Bool, Integer

from . import sandbox as bwrap
from . import warm
from .notebooks import exercise_of, grade_id, is_test_cell, tests_of

PLUG = re.compile(r"exercises\.plug\(\s*[\"'][\w.]+[\"']\s*,\s*([A-Za-z_]\w*)\s*\)")
BOOTSTRAP = ("try:\n    import autograd_course.integrity as _autograde_i\n    _autograde_i.seal()\n"
             "    del _autograde_i\nexcept Exception:\n    pass\n")
# Without the inline backend nothing closes pyplot's figures: close them after each cell; and
# objects that render themselves as images (a GraphFigure's _repr_png_) show their text.
CLOSE_FIGURES = ("def _autograde_close_figures(*_):\n"
                 "    pyplot = __import__('sys').modules.get('matplotlib.pyplot')\n"
                 "    if pyplot is not None:\n        pyplot.close('all')\n\n"
                 "get_ipython().events.register('post_run_cell', _autograde_close_figures)\n"
                 "del _autograde_close_figures\n"
                 "for _autograde_mime in ('image/png', 'image/jpeg', 'image/svg+xml', 'application/pdf'):\n"
                 "    get_ipython().display_formatter.formatters[_autograde_mime].enabled = False\n"
                 "del _autograde_mime\n")
GRADER_ERRORS = (DeadKernelError, CellTimeoutError)
CHECKS = "__import__('sys').modules['autograd_course.checking'].CHECKS[0]"


# --------------------------------------------------------- the assignment

class Assignment:
    """What the grader needs to know about one source notebook, from the gradebook."""

    def __init__(self, db_url, notebook, assignment):
        with Gradebook(db_url) as gb:
            nb = gb.find_notebook(notebook, assignment)
            self.grade_ids = {c.name: float(c.max_score) for c in nb.grade_cells}
            self.solution_ids = {c.name for c in nb.solution_cells}
            self.cells = {c.name: (c.source, bool(c.locked), c.cell_type) for c in nb.source_cells}
        self.answer_names = set().union(*(_top_level_names(self.cells[gid][0]) for gid in self.solution_ids))

    def metadata(self, grade_id):
        """The nbgrader metadata the released cell ``grade_id`` has."""
        meta = {"grade": grade_id in self.grade_ids, "solution": grade_id in self.solution_ids,
                "locked": self.cells[grade_id][1], "grade_id": grade_id, "schema_version": 3}
        if meta["grade"]:
            meta["points"] = self.grade_ids[grade_id]
        return meta

    def prologue(self):
        """The import lines of the locked setup cells, as one cell."""
        lines = []
        for gid, (source, locked, cell_type) in self.cells.items():
            if cell_type != "code" or not locked or gid in self.grade_ids or gid in self.solution_ids:
                continue
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            lines += [ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        return "\n".join(lines)

    def kept_names(self, grade_id):
        """The top-level names locked cell ``grade_id`` defines (functions, classes,
        assignments) that no answer cell defines: the helpers and constants the tests
        use, which a student's cell must not replace.  () for other cells."""
        source, locked, cell_type = self.cells.get(grade_id, ("", False, "markdown"))
        if cell_type != "code" or not locked or grade_id in self.solution_ids:
            return ()
        return tuple(sorted(_top_level_names(source) - self.answer_names))

    def names_by_test(self):
        """{test grade id: the names its answer cell plugs (what the test calls)}."""
        found = {}
        for gid in sorted(self.solution_ids):
            names = sorted(set(PLUG.findall(self.cells[gid][0])))
            for test in tests_of(exercise_of(gid), self.grade_ids) if names else ():
                found[test] = names
        return found


def _top_level_names(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return {n for n in names if not n.startswith("_autograde")}


_ASSIGNMENTS = {}


def _assignment(resources):
    """The :class:`Assignment` of the notebook being autograded (None for a plain
    execution).  Sanitizing and executing each read it, for every submission: a grading
    process keeps it while the source notebook it was generated from (nbgrader runs in the
    course directory) keeps its size and modification time, so a regenerated assignment
    is read again."""
    info = (resources or {}).get("nbgrader")
    if not info or "db_url" not in info:
        return None                     # not autograding (e.g. a plain execution)
    try:
        stat = os.stat(os.path.join("source", info["assignment"], info["notebook"] + ".ipynb"))
    except OSError:
        return Assignment(info["db_url"], info["notebook"], info["assignment"])
    key = (info["db_url"], info["notebook"], info["assignment"], stat.st_mtime_ns, stat.st_size)
    if key not in _ASSIGNMENTS:
        if len(_ASSIGNMENTS) >= 64:
            _ASSIGNMENTS.clear()
        _ASSIGNMENTS[key] = Assignment(info["db_url"], info["notebook"], info["assignment"])
    return _ASSIGNMENTS[key]


# ------------------------------------------------------------- sanitizing

class RestoreGradeCells(NbGraderPreprocessor):
    """Give every nbgrader cell the metadata it was released with (see the module doc)."""

    def preprocess(self, nb, resources):
        assignment = _assignment(resources)
        seen = set()
        for cell in reversed(nb.cells):          # like DeduplicateIds: the last copy wins
            meta = cell.get("metadata", {}).get("nbgrader")
            if meta is None:
                continue
            gid = meta.get("grade_id") if isinstance(meta, dict) else None
            if gid in assignment.cells and gid not in seen:
                seen.add(gid)
                if meta != {**meta, **assignment.metadata(gid)}:
                    self.log.warning("Cell %s: nbgrader metadata restored from the gradebook", gid)
                cell.metadata["nbgrader"] = assignment.metadata(gid)
            else:
                self.log.warning("Cell %s: unknown or duplicated nbgrader cell, metadata removed", gid)
                del cell.metadata["nbgrader"]
        return nb, resources


# ------------------------------------------------------ is the sandbox here

NO_SANDBOX_FLAG = "nbgrader autograde ... --GuardedExecute.sandbox=False"


class SandboxCheckedExporter(NotebookExporter):
    """nbgrader's exporter of autograded notebooks (``Autograde.exporter_class``).  nbgrader
    makes it once, before the first submission; when the configuration runs students'
    kernels in the sandbox and bubblewrap cannot build it here, autograde stops there
    (SystemExit: nbgrader catches every Exception per submission, started a kernel for each,
    and printed "Kernel died before replying to kernel_info" for every one)."""

    def __init__(self, config=None, **kw):
        super().__init__(config=config, **kw)
        sandboxed = self.config.GuardedExecute.get("sandbox", True)
        if isinstance(sandboxed, str):                      # given on the command line
            sandboxed = Bool().from_string(sandboxed)
        if sandboxed and _uses_guarded_execute(self.config):
            ok, reason = bwrap.check(without=NO_SANDBOX_FLAG)
            if not ok:
                raise SystemExit(f"nbgrader autograde: stopped before grading anything: students' "
                                 f"kernels cannot be sandboxed: {reason}")


def _uses_guarded_execute(config):
    steps = config.Autograde.get("autograde_preprocessors", [])
    return any(getattr(step, "__name__", str(step)).rsplit(".", 1)[-1] == "GuardedExecute" for step in steps)


# -------------------------------------------------------------- execution

def _guarded(code):
    """Grader ``code`` that runs as if it were a request of its own when it is sent with
    other code: an exception ends it, not what follows (nor the request's status)."""
    if not code:
        return ""
    return "try:\n" + textwrap.indent(code, "    ") + "\nexcept BaseException:\n    pass\n"


def error_output(ename, evalue):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


# A Unix socket's path holds at most 107 bytes (sockaddr_un.sun_path); past that zmq
# fails with "File name too long".  Jupyter's runtime directory under a deep home
# directory can be that long, so the kernel's sockets then go to the temporary directory.
SOCKET_PATH_MAX = 107
_SOCKET = os.path.join("warm-12345678", "autograde-12345678", "kernel-ipc-99")  # what mkdtemp and zmq add


def socket_parent():
    """The directory in which a sandboxed kernel's private directory is made: Jupyter's
    runtime directory, or the temporary directory when a socket path there would be too
    long for a Unix socket."""
    from jupyter_core.paths import jupyter_runtime_dir
    tried = []
    for parent in (jupyter_runtime_dir(), tempfile.gettempdir(), "/tmp"):
        path = os.path.join(os.path.abspath(parent), _SOCKET)
        if len(os.fsencode(path)) <= SOCKET_PATH_MAX:
            os.makedirs(parent, exist_ok=True)
            return parent
        tried.append(f"{path} ({len(os.fsencode(path))} bytes)")
    raise RuntimeError(f"no directory gives the kernel's sockets a path of at most {SOCKET_PATH_MAX} "
                       f"bytes (a Unix socket's limit); tried: {'; '.join(tried)}. Set JUPYTER_RUNTIME_DIR "
                       f"or TMPDIR to a short path")


_WARM_SERVERS = {}            # (limits, variables passed) -> this process's WarmServer


_INSTALLED = []


def _install():
    """The sandboxed kernelspec and matplotlib's font lists, once per grading process."""
    if not _INSTALLED:
        bwrap.install()
        _INSTALLED.append(True)


def _warm_server(values, env, log):
    """This grading process's warm kernel server for these limits, started (again) if
    needed; None, with a warning, when it cannot start (kernels then start cold)."""
    passed = {k: env[k] for k in bwrap.PASS_ENV if k in env}
    key = json.dumps([values, passed], sort_keys=True)
    server = _WARM_SERVERS.get(key)
    if server is not None and server.alive():
        return server
    if server is not None:
        server.close()
    try:
        _install()                     # the font lists the server's sandbox binds read-only
        server = warm.WarmServer(values, env, parent=socket_parent()).start()
    except (OSError, RuntimeError, SystemExit) as error:
        log.warning("autograde: no warm kernel server (%s); kernels start cold", error)
        _WARM_SERVERS.pop(key, None)
        return None
    if not _WARM_SERVERS:
        atexit.register(lambda: [s.close() for s in _WARM_SERVERS.values()])
    _WARM_SERVERS[key] = server
    return server


class GuardedExecute(Execute):
    """nbgrader's Execute, sandboxed, with named limits, recovery, and the canary."""

    sandbox = Bool(True, help="Run students' kernels in the bubblewrap sandbox "
                              "(autograd_course/sandbox.py).").tag(config=True)
    memory_mb = Integer(bwrap.LIMITS["memory_mb"], help="Address-space limit of a kernel (MiB).").tag(config=True)
    cpu_seconds = Integer(bwrap.LIMITS["cpu_seconds"], help="CPU time of a kernel (s).").tag(config=True)
    file_mb = Integer(bwrap.LIMITS["file_mb"], help="Largest file a kernel may write (MiB).").tag(config=True)
    scratch_mb = Integer(bwrap.LIMITS["scratch_mb"], help="Size of each writable tmpfs (MiB).").tag(config=True)
    max_restarts = Integer(5, help="Kernel restarts per notebook before the remaining cells are "
                                   "given up.").tag(config=True)
    canary = Bool(True, help="Re-run passing test cells with the student's function replaced by "
                             "one that always fails.").tag(config=True)
    figures = Bool(False, help="Render the notebooks' matplotlib figures into the graded notebook "
                               "and the feedback (0.4 s of CPU per notebook); off, figures are drawn "
                               "on matplotlib's Agg backend, never rendered, and closed after each "
                               "cell.").tag(config=True)

    warm = Bool(True, help="Fork sandboxed kernels from a warm kernel server (autograd_course/warm.py) "
                           "instead of starting each one cold (AUTOGRAD_WARM=0 also turns it "
                           "off).").tag(config=True)

    _warm = None

    # ----------------------------------------------------------- kernels

    def _limits(self):
        return {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds,
                "file_mb": self.file_mb, "scratch_mb": self.scratch_mb}

    def _kernel_kwargs(self):
        env = {**os.environ, **({} if self.figures else {"MPLBACKEND": "agg"})}
        env.pop(bwrap.WARM_ENV, None)
        self._warm = None
        if self.sandbox:
            env.update(bwrap.limits_env(self._limits()))
            if self.warm and os.environ.get("AUTOGRAD_WARM", "1") != "0":
                self._warm = _warm_server(self._limits(), env, self.log)
            if self._warm is not None:
                env[bwrap.WARM_ENV] = self._warm.control
        return {"env": env}

    def create_kernel_manager(self):
        if self.sandbox:
            self.kernel_name = bwrap.KERNEL_NAME
            _install()
        km = super().create_kernel_manager()
        if self.sandbox:                         # sockets in a directory of its own
            runtime = (self._warm.new_runtime() if self._warm is not None else
                       tempfile.mkdtemp(prefix="autograde-", dir=socket_parent()))
            self._runtimes.append(runtime)
            km.transport = "ipc"
            km.connection_file = os.path.join(runtime, "kernel.json")
            km.ip = os.path.join(runtime, "kernel-ipc")
        return km

    def _started(self):
        info = self.wait_for_reply(self.kc.kernel_info())
        self.nb.metadata["language_info"] = info["content"]["language_info"]
        if self.sandbox:                         # sockets are bound: no more files in there
            os.chmod(os.path.dirname(self.km.connection_file), 0o500)
        self._silent(BOOTSTRAP if self.figures else BOOTSTRAP + CLOSE_FIGURES)

    def _cleanup_kernel(self):
        if self.sandbox and self.km is not None and self.km.connection_file:
            runtime = os.path.dirname(self.km.connection_file)
            if os.path.isdir(runtime):
                os.chmod(runtime, 0o700)
        super()._cleanup_kernel()

    def _restart(self):
        self._deferred = []                      # grader code for the kernel that died
        self._cleanup_kernel()
        kwargs = self._kernel_kwargs()           # first: a warm server that died is replaced
        self.km = self.create_kernel_manager()
        self.start_new_kernel(**kwargs)
        self.start_new_kernel_client()
        self._started()

    def _silent(self, code, expression=None):
        """Run grader code in the kernel, outputs unseen (no IPython cell hooks run);
        returns the value of ``expression`` (as text) evaluated afterwards, or None."""
        msg_id = self.kc.execute(code, silent=True, store_history=False, allow_stdin=False,
                                 stop_on_error=False,
                                 user_expressions={"value": expression} if expression else None)
        reply = self.wait_for_reply(msg_id)
        if reply is None:
            raise CellTimeoutError(f"the grader's own code did not finish within {self.timeout} s")
        value = reply["content"].get("user_expressions", {}).get("value", {})
        return value.get("data", {}).get("text/plain") if value.get("status") == "ok" else None

    def _scratch(self, source, index, metadata=None):
        """Run ``source`` as if it were cell ``index``, without touching that cell."""
        original = self.nb.cells[index] if self.nb.cells else None
        scratch = new_code_cell(source, metadata=copy.deepcopy(metadata or {}))
        if original is None:
            self.nb.cells.append(scratch)
        try:
            self.execute_cell(scratch, index, store_history=False)
        finally:
            if original is None:
                self.nb.cells.pop()
            else:
                self.nb.cells[index] = original
        return scratch

    # ---------------------------------------------------------- notebook

    def preprocess(self, nb, resources=None, km=None):
        from nbclient import NotebookClient
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._runtimes, self._exit_asked, self._restarts = [], False, 0
        self.error_on_timeout = {
            "ename": "CellTimeoutError",
            "evalue": f"the cell ran longer than the per-cell limit of {self.timeout} s and was interrupted",
            "traceback": [f"CellTimeoutError: the cell ran longer than the per-cell limit of "
                          f"{self.timeout} s and was interrupted"]}
        assignment = _assignment(resources)
        try:
            with self.setup_kernel(**self._kernel_kwargs()):
                self._started()
                self._run_cells(resources, assignment)
        finally:
            for runtime in self._runtimes:
                shutil.rmtree(runtime, ignore_errors=True)
        self.set_widgets_metadata()
        return self.nb, self.resources

    def on_cell_executed(self, **kwargs):
        super().on_cell_executed(**kwargs)
        payloads = kwargs["execute_reply"].get("content", {}).get("payload", [])
        self._exit_asked = any(p.get("source") == "ask_exit" and not p.get("keepkernel") for p in payloads)

    def _keep_code(self, cell):
        """Grader code to run after locked ``cell``: remember the objects it defined (and the
        code of its functions), so that they can be put back before each later test cell;
        "" for other cells."""
        gid = grade_id(cell)
        names = self._assignment.kept_names(gid) if self._assignment and gid else ()
        if not names:
            return ""
        return ("def _autograde_keep(names, kept):\n"
                "    for name in names:\n"
                "        if name in globals():\n"
                "            value = globals()[name]\n"
                "            kept[name] = (value, (value.__code__, value.__defaults__, value.__kwdefaults__)\n"
                "                          if isinstance(value, __import__('types').FunctionType) else None)\n\n"
                f"_autograde_keep({names!r}, globals().setdefault({self._kept!r}, {{}}))\n"
                "del _autograde_keep\n")

    # Grader code that must run before the next cell (remembering a locked cell's objects,
    # undoing a canary) waits here, and goes with the grader's next request to the kernel
    # (the prologue of a test cell) or, before any other cell, in a request of its own.
    # Each part runs as if it were a request of its own (_guarded); a request costs the
    # kernel and the grader 3-5 ms of CPU, and a test cell made seven of them.

    def _defer(self, code):
        if code:
            self._deferred.append(code)

    def _pending(self):
        """The deferred grader code, each part guarded, taken out of the queue."""
        code = "".join(_guarded(part) for part in self._deferred)
        self._deferred = []
        return code

    def _flush(self):
        if self._deferred:
            self._silent(self._pending())

    def _restore_kept(self):
        """Grader code that puts back what :meth:`_keep` remembered."""
        return ("def _autograde_restore(kept):\n"
                "    for name, (value, code) in kept.items():\n"
                "        globals()[name] = value\n"
                "        if code is not None:\n"
                "            value.__code__, value.__defaults__, value.__kwdefaults__ = code\n\n"
                f"_autograde_restore(dict(globals().get({self._kept!r}, {{}})))\n"
                "del _autograde_restore\n")

    def _run_cells(self, resources, assignment):
        self._assignment, self._kept = assignment, f"_autograde_{secrets.token_hex(6)}_kept"
        self._deferred = []
        prologue = self._restore_kept() + (assignment.prologue() if assignment else "")
        names_of = assignment.names_by_test() if assignment and self.canary else {}
        done, killers = [], set()
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            if self._restarts > self.max_restarts:
                cell.outputs = [error_output("NotRun", f"the kernel stopped {self._restarts} times in this "
                                             f"notebook; the grader gives up after {self.max_restarts} restarts")]
                continue
            names = names_of.get(grade_id(cell)) if is_test_cell(cell) else None
            try:
                checks = None
                if is_test_cell(cell) and assignment:
                    checks = self._silent(self._pending() + prologue, CHECKS if names else None)
                else:
                    self._flush()
                self._exit_asked = False
                self.preprocess_cell(cell, resources, index)
                died = "it called exit() or quit(), which ends the kernel" if self._exit_asked else None
                if died is None:
                    self._defer(self._keep_code(cell))
            except GRADER_ERRORS as error:
                died = self._why(error)
            self._name_limits(cell)
            if died is not None:
                cell.outputs.append(error_output(
                    "KernelDied", f"{died}. This cell gets no points; the grader started a new kernel and "
                                  f"ran the earlier cells again before going on."))
                killers.add(index)
                self._restarts += 1
                self._recover(done, killers)
                continue
            done.append(index)
            if names and self._earns(cell):
                try:
                    # One request: the test's objects remembered, the canary set up (neither
                    # completes a checking block), then the count of completed blocks read.
                    tag, setup, restore = self._canary_code(names, prologue)
                    after = self._silent(self._pending() + _guarded(setup), CHECKS)
                    self._defer(restore)
                    if not (checks and after and after.isdigit() and checks.isdigit()
                            and int(after) > int(checks)):
                        cell.outputs.append(error_output(
                            "GradingIntegrityError",
                            "this test passed without running the course's grading.checking(...) "
                            "to the end, so it did not check your code: something in your notebook "
                            "replaced what the test uses. This cell gets no points."))
                        continue
                    self._canary(cell, index, names, tag)
                except GRADER_ERRORS as error:
                    cell.outputs.append(error_output(
                        "GradingIntegrityError",
                        f"the grader could not check this test: when it ran the test again with "
                        f"{', '.join(names)} replaced, {self._why(error)}. This cell gets no points."))
                    self._restarts += 1
                    self._recover(done, killers)

    def _recover(self, done, killers):
        """A new kernel with the state of the cells in ``done`` (except ``killers``)."""
        while self._restarts <= self.max_restarts:
            replay = None
            try:
                self._restart()
                for index in done:
                    if index not in killers:
                        replay = index
                        self._silent(self.nb.cells[index].source)
                        keep = self._keep_code(self.nb.cells[index])
                        if keep:
                            self._silent(keep)
                return
            except GRADER_ERRORS:
                if replay is not None:
                    killers.add(replay)
                self._restarts += 1

    def _why(self, error):
        if isinstance(error, CellTimeoutError):
            return (f"the cell ran longer than the per-cell limit of {self.timeout} s and did not "
                    f"stop when interrupted")
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        code = process.poll() if process is not None else None
        signals = {9: "it was killed (SIGKILL); the usual cause is running out of memory "
                      f"(limit {self.memory_mb} MB)",
                   24: f"it used more than the CPU-time limit of {self.cpu_seconds} s",
                   25: f"it wrote a file larger than the limit of {self.file_mb} MB",
                   6: "it aborted (SIGABRT), for example after failing to allocate memory "
                      f"(limit {self.memory_mb} MB)"}
        if code is not None and (code < 0 or code > 128) and abs(code) % 128 in signals:
            return "the kernel died: " + signals[abs(code) % 128]
        if code is not None:
            return (f"the kernel exited with status {code}: os._exit(), exit() and quit() end the "
                    f"kernel, and so does a crash")
        return "the kernel died"

    def _name_limits(self, cell):
        """Say which limit an error hit; test cells get no partial credit from outputs."""
        for output in cell.get("outputs", []):
            if output.output_type != "error":
                continue
            note = None
            if output.ename == "MemoryError":
                note = f"the kernel hit the memory limit of {self.memory_mb} MB"
            elif "[Errno 28]" in output.evalue:
                note = f"the kernel's writable scratch space is {self.scratch_mb} MB (/tmp and the working directory)"
            elif "[Errno 27]" in output.evalue:
                note = f"files the kernel writes are limited to {self.file_mb} MB"
            if note and note not in output.evalue:
                output.evalue = f"{output.evalue} ({note})".strip()
                output.traceback = list(output.traceback) + [f"{output.ename}: {note}"]
        if is_test_cell(cell):
            for output in cell.get("outputs", []):
                if output.output_type == "execute_result":
                    output.output_type = "display_data"
                    output.pop("execution_count", None)

    # ------------------------------------------------------------- canary

    def _earns(self, cell):
        """Whether nbgrader would give ``cell`` points, after IgnorePattern."""
        probe = NotebookNode(copy.deepcopy(dict(cell)))
        pattern = self.config.IgnorePattern.get("pattern", "") \
            if self.config.IgnorePattern.get("enabled", False) else ""
        probe.outputs = [o for o in probe.get("outputs", [])
                         if not (pattern and o.output_type == "stream" and o.name == "stderr"
                                 and re.search(pattern, o.text))]
        self._name_limits(probe)
        score, _ = utils.determine_grade(probe, self.log)
        return bool(score)

    def _canary_code(self, names, prologue):
        """(tag, setup, restore): grader code that binds ``names`` to a function that
        always fails, once the test has run (so in the state it ran in), and code that
        puts back the names, NumPy's and autograd_lib's random generators afterwards."""
        tag = f"_autograde_{secrets.token_hex(6)}"
        setup = (f"class {tag}_Canary(BaseException):\n    pass\n\n"
                 f"def {tag}_canary(*args, **kwargs):\n    raise {tag}_Canary('the grader replaced your function')\n\n"
                 f"{tag}_saved = {{n: globals()[n] for n in {names!r} if n in globals()}}\n"
                 f"try:\n    import numpy as _np, autograd_lib.creation as _c\n"
                 f"    {tag}_rng = (_c, _c._generator, _c._generator.bit_generator.state, _np.random.get_state())\n"
                 f"    del _np, _c\nexcept Exception:\n    {tag}_rng = None\n"
                 f"{tag}_xmode = get_ipython().InteractiveTB.mode\n"      # its traceback is not shown:
                 f"get_ipython().InteractiveTB.set_mode('Minimal')\n"   # no need to format it
                 + prologue)
        restore = (f"globals().update({tag}_saved)\n"
                   f"get_ipython().InteractiveTB.set_mode({tag}_xmode)\n"
                   f"if {tag}_rng:\n    import numpy as _np\n    {tag}_rng[0]._generator = {tag}_rng[1]\n"
                   f"    {tag}_rng[1].bit_generator.state = {tag}_rng[2]\n    _np.random.set_state({tag}_rng[3])\n"
                   f"    del _np\n"
                   f"for _n in [n for n in globals() if n.startswith({tag!r})]:\n    del globals()[_n]\n")
        return tag, setup, restore

    def _canary(self, cell, index, names, tag):
        """Run test ``cell`` again with ``names`` bound to the canary of ``tag`` (set up by
        the code of :meth:`_canary_code`, which also puts everything back afterwards)."""
        source = "".join(f"{name} = {tag}_canary\n" for name in names) + cell.source
        if self._earns(self._scratch(source, index, cell.metadata)):
            cell.outputs.append(error_output(
                "GradingIntegrityError",
                f"this test still passes when {', '.join(names)} is replaced by a function that always "
                f"fails, so it does not measure your code: something in your notebook changes how the "
                f"tests run (it swallows their errors, fakes their output or replaces what they use). "
                f"This cell gets no points."))


# ---------------------------------------------------------------- feedback

IMG_WITHOUT_ALT = re.compile(r"(<img(?![^>]*\balt=)[^>]*?)(\s*/?>)")


class _Memo(dict):
    """A bounded cache for one grading process."""

    def get_or_make(self, key, make):
        if key not in self:
            if len(self) >= 4096:
                self.clear()
            self[key] = make()
        return self[key]


class CachedHighlight:
    """nbconvert's highlight filter, remembered by source: most cells of a notebook are
    the same for every student, and Pygments was 40% of the feedback's time."""
    _memo = _Memo()

    def __init__(self, highlight, lexer):
        self.highlight, self.lexer = highlight, lexer

    def __call__(self, source, language=None, metadata=None):
        magics = (metadata or {}).get("magics_language")
        return self._memo.get_or_make((self.lexer, source, language, magics),
                                      lambda: self.highlight(source, language, metadata))


class _CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates, kept in memory for a grading process: nbgrader makes a
    new exporter, with a new Jinja environment, for each feedback, and compiling its
    templates again took a third of the time of a feedback.  Jinja checks each template's
    source against the checksum stored with its code, so a changed template is compiled."""
    _codes = {}

    def load_bytecode(self, bucket):
        code = self._codes.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket):
        self._codes[bucket.key] = bucket.bytecode_to_string()


class FeedbackExporter(HTMLExporter):
    """HTMLExporter.from_notebook_node of nbconvert 7, with the images' alt text
    added by a regular expression instead of a BeautifulSoup pass over the page
    (the tabindex it also adds concerns the lab template only, not nbgrader's),
    and Markdown and code highlighting remembered across the notebooks a grading
    process renders (the same cells for every student), and its templates compiled
    once per process (:class:`_CompiledTemplates`)."""
    _markdown = _Memo()

    _cleaned = _Memo()

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = _CompiledTemplates()
        return environment

    def default_filters(self):
        """nbconvert's filters, with ``clean_html`` (bleach's sanitizer, run on every code
        cell's highlighted source: 90% of a feedback's time) remembered by its input."""
        from nbconvert.filters import clean_html
        for name, function in super().default_filters():
            if name == "clean_html":
                function = self._clean_html(clean_html)
            yield name, function

    @classmethod
    def _clean_html(cls, clean_html):
        def remembered(html):
            return cls._cleaned.get_or_make(html, lambda: clean_html(html)) if isinstance(html, str) \
                else clean_html(html)
        return remembered

    @pass_context
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        if cell.get("attachments"):
            return super().markdown2html(context, source)
        path = context.get("resources", {}).get("metadata", {}).get("path", "")
        return self._markdown.get_or_make((path, source), lambda: super(FeedbackExporter, self)
                                          .markdown2html(context, source))

    def from_notebook_node(self, nb, resources=None, **kw):
        from nbconvert.exporters.templateexporter import TemplateExporter
        from nbconvert.filters.highlight import Highlight2HTML
        from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight_code = self.filters.get("highlight_code") or CachedHighlight(
            Highlight2HTML(pygments_lexer=lexer, parent=self), lexer)
        resources = self._init_resources(resources)
        filter_data_type = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self,
                                                 resources=resources)
        self.register_filter("highlight_code", highlight_code)
        self.register_filter("filter_data_type", filter_data_type)
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        alt = ' alt="No description has been provided for this image"'
        return IMG_WITHOUT_ALT.sub(lambda m: m.group(1) + alt + m.group(2), html), resources
