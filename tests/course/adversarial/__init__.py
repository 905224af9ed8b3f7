"""The catalog of adversarial submissions (course/README.md, "Cheating").

Each ``Cheat`` is a submission of assignment 01_tensors built from its
solution notebook: ``answers`` replaces answer cells (grade id -> code),
``edit`` changes the notebook further (test cells, metadata).  The other
exercises keep their correct answers, so a cheat that leaks into them, or a
grader that breaks on it, shows up as lost points elsewhere.

``zero`` names what the submission cheats on: the test cells (grade ids, or
an exercise prefix such as ``01_detach`` for all its test cells) that must
score 0.  ``persists``: the cheat stays in the kernel (a patched module, an
IPython hook), so every test cell after its answer cell meets it too and must
score 0 as well.  Every other test cell must get full points.  ``says`` maps a test
cell (or answer cell) to text its output must contain: the feedback names
the limit or the reason.  ``sandbox``: the cheat is stopped by the kernel
sandbox, so it is graded only where bubblewrap works.
"""

import copy
import dataclasses

from autograd_course.notebooks import grade_id

ASSIGNMENT = "01_tensors"
CELL_TIMEOUT = 5                 # seconds per cell in the adversarial class (course default: 60)
SECRET_NAME, SECRET_VALUE = "AUTOGRADE_TEST_SECRET", "s3cr3t-of-the-grader"   # in the grader's environment


@dataclasses.dataclass
class Cheat:
    student: str
    tried: str                   # what the submission tries
    expected: str                # the grade it must get, in words
    zero: tuple                  # test cells (or exercise prefixes) that must score 0
    answers: dict = dataclasses.field(default_factory=dict)
    edit: object = None          # notebook -> notebook
    says: dict = dataclasses.field(default_factory=dict)
    sandbox: bool = False
    persists: bool = False


PLUG = 'exercises.plug("01.detach", detach)\n'
WRONG_DETACH = ("def detach(tensor):\n"
                "    return ag.Tensor._make(tensor._data.copy())   # wrong: a copy, a new version counter\n\n"
                + PLUG)


# A stand-in for a module: every attribute, and every call of one, gives a fake that accepts
# anything, raises nothing, is a context manager that does nothing and iterates over nothing
# (so that the test cells' code, hidden randomized parts included, runs to the end).
FAKE = ("class _Fake:\n"
        "    def __getattr__(self, name):\n"
        "        return _Fake()\n\n"
        "    def __call__(self, *args, **kwargs):\n"
        "        return _Fake()\n\n"
        "    def __enter__(self):\n"
        "        return self\n\n"
        "    def __exit__(self, *exc_info):\n"
        "        return False\n\n"
        "    def __iter__(self):\n"
        "        return iter(())\n\n")


def _detach(body, before=""):
    """A detach answer cell: ``before`` at the top of the cell, then the function."""
    return before + "def detach(tensor):\n" + body + "\n\n" + PLUG


def _edit_tests(nb):
    """Delete, empty, re-flag and rename test cells; add a test cell of one's own."""
    nb = copy.deepcopy(nb)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    nb.cells.remove(cells["01_detach_test"])                                  # deleted
    cells["01_detach_test2"].source = "pass  # nothing to see here"            # emptied
    cells["01_result_requires_grad_test3"].metadata["nbgrader"].update(grade=False, points=100)
    cells["01_result_requires_grad_test4"].cell_type = "markdown"             # not code any more
    cells["01_result_requires_grad_test4"].pop("outputs", None)
    cells["01_result_requires_grad_test4"].pop("execution_count", None)
    cells["01_detach_test3"].metadata["nbgrader"]["solution"] = True          # "manually graded"
    del cells["01_detach_test4"].metadata["nbgrader"]                         # metadata removed
    cells["01_result_requires_grad_test"].metadata["nbgrader"].update(grade_id="free_points", points=50)
    bonus = copy.deepcopy(cells["01_result_requires_grad_test2"])
    bonus.metadata["nbgrader"].update(grade_id="01_bonus_test", points=10)
    bonus.source = "print('bonus')"
    bonus["id"] = "bonus-cell"
    nb.cells.append(bonus)                                                    # a test of one's own
    return nb


CATALOG = [
    Cheat("loop", "an infinite loop in detach, so every detach test runs forever",
          "0 for detach (each test is interrupted at the per-cell limit); full points elsewhere",
          zero=("01_detach",), answers={"01_detach_answer": _detach("    while True:\n        pass")},
          says={"01_detach_test": f"per-cell limit of {CELL_TIMEOUT} s"}),
    Cheat("stubborn_loop", "an infinite loop that swallows KeyboardInterrupt, so interrupting fails",
          "0 for detach (the kernel is replaced, the earlier cells replayed); full points elsewhere",
          zero=("01_detach",),
          answers={"01_detach_answer": _detach(
              "    while True:\n        try:\n            time.sleep(0.05)\n"
              "        except KeyboardInterrupt:\n            pass", before="import time\n\n")},
          says={"01_detach_test": "did not stop when interrupted"}),
    Cheat("memory", "detach allocates a 7 GB array, far beyond the memory limit",
          "0 for detach, and the feedback names the memory limit; full points elsewhere",
          zero=("01_detach",),
          answers={"01_detach_answer": _detach("    hog = np.ones((30000, 30000))\n"
                                               "    return ag.Tensor._make(tensor._data, tensor._version_counter)")},
          says={"01_detach_test": "memory limit of 1024 MB"}, sandbox=True),
    Cheat("sys_exit", "sys.exit() inside detach, to stop the notebook before its failing tests",
          "0 for detach; full points elsewhere", zero=("01_detach",),
          answers={"01_detach_answer": _detach("    sys.exit(0)", before="import sys\n\n")},
          says={"01_detach_test": "SystemExit"}),
    Cheat("os_exit", "os._exit() inside detach: the kernel process ends in every test of it",
          "0 for detach (each death is named, a new kernel grades the rest); full points elsewhere",
          zero=("01_detach",),
          answers={"01_detach_answer": _detach("    os._exit(0)", before="import os\n\n")},
          says={"01_detach_test": "KernelDied", "01_detach_test2": "KernelDied"}),
    Cheat("exit_builtin", "exit() at the end of the detach answer cell ends the kernel",
          "0 for detach (its answer never reaches the new kernel); full points elsewhere",
          zero=("01_detach",), answers={"01_detach_answer": WRONG_DETACH + "exit()\n"},
          says={"01_detach_answer": "exit() or quit()"}),
    Cheat("patch_numpy", "a wrong detach, with numpy.allclose, array_equal, shares_memory and "
          "numpy.testing made to always pass",
          "0 for detach (TamperingError); 0 for every test after it, in the same kernel; full points before", zero=("01_detach",),
          answers={"01_detach_answer": (
              "import numpy.testing\n"
              "np.allclose = np.array_equal = lambda *args, **kwargs: True\n"
              "np.shares_memory = lambda *args, **kwargs: True\n"
              "numpy.testing.assert_allclose = numpy.testing.assert_array_equal = lambda *a, **k: None\n\n"
              + WRONG_DETACH)},
          says={"01_detach_test": "TamperingError"}, persists=True),
    Cheat("patch_helpers", "a wrong detach, with the course's test helpers redefined to always pass "
          "(attributes, and the code of one of them)",
          "0 for detach (TamperingError); 0 for every test after it, in the same kernel; full points before", zero=("01_detach",),
          answers={"01_detach_answer": (
              "def _pass(*args, **kwargs):\n    return None\n\n"
              "grading.expect_equal = grading.expect_true = grading.expect_raises = _pass\n"
              "grading.expect_close.__code__ = _pass.__code__\n\n" + WRONG_DETACH)},
          says={"01_detach_test": "TamperingError"}, persists=True),
    Cheat("patch_shared_helpers", "a wrong detach, with the notebooks' shared helpers patched in their "
          "module, autograd_course.notebook: error_of replaced, and the code of library_version changed to "
          "plug the wrong detach",
          "0 for detach (TamperingError); 0 for every test after it, in the same kernel; full points before", zero=("01_detach",),
          answers={"01_detach_answer": (
              "import contextlib\nfrom autograd_course import notebook\n\n"
              "notebook.error_of = lambda *args, **kwargs: None\n\n\n"
              "@contextlib.contextmanager\n"
              "def _mine(assignment):\n"
              "    with exercises.plugged('01.detach', detach):\n"
              "        yield\n\n\n"
              "notebook.library_version.__wrapped__.__code__ = _mine.__wrapped__.__code__\n\n" + WRONG_DETACH)},
          says={"01_detach_test": "TamperingError"}, persists=True),
    Cheat("fake_modules", "a wrong detach, with the notebook's names grading and exercises rebound "
          "to fakes whose checks pass and whose checking() does nothing",
          "0 for detach (the grader re-imports the real modules before each test); full points elsewhere",
          zero=("01_detach",),
          answers={"01_detach_answer": (
              FAKE + "grading = exercises = _Fake()\n\n" + WRONG_DETACH.replace(PLUG, "") +
              "import autograd_lib.exercises\nautograd_lib.exercises.plug('01.detach', detach)\n")}),
    Cheat("fake_modules_hook", "a wrong detach, and an IPython pre_run_cell hook that rebinds the "
          "notebook's grading and exercises to fakes right before every later cell runs",
          "0 for detach (the visible check, which runs the real grading.checking, sees the notebook's "
          "fake grading: TamperingError); 0 for every test after it, in the same kernel; full points before",
          zero=("01_detach",),
          answers={"01_detach_answer": WRONG_DETACH + "\n" + FAKE + (
              "def _rebind(*args):\n"
              "    get_ipython().user_ns.update(grading=_Fake(), exercises=_Fake())\n\n"
              "get_ipython().events.register('pre_run_cell', _rebind)\n")},
          says={"01_detach_test": "TamperingError"}, persists=True),
    Cheat("swallow_errors", "a wrong detach, and an IPython input transformer that wraps every later "
          "cell in try/except, so no test can fail",
          "0 for detach (GradingIntegrityError: no checking block completed, and the canary re-run "
          "would pass too); 0 for every test after it, in the same kernel; full points before",
          zero=("01_detach",),
          answers={"01_detach_answer": WRONG_DETACH + (
              "\ndef _swallow(lines):\n"
              "    return ['try:\\n'] + ['    ' + line for line in lines] + ['\\nexcept BaseException:\\n    pass\\n']\n\n"
              "get_ipython().input_transformers_post.append(_swallow)\n")},
          says={"01_detach_test": "GradingIntegrityError"}, persists=True),
    Cheat("custom_exc", "a wrong detach, and a custom exception handler that hides every traceback",
          "0 for detach (nbgrader records the error of the execute reply); full points elsewhere",
          zero=("01_detach",),
          answers={"01_detach_answer": WRONG_DETACH +
                   "\nget_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)\n"}),
    Cheat("fake_output", "a wrong detach that prints passing-test text, and a display hook that puts "
          "a number (nbgrader's partial credit) at the top of every later cell",
          "0 for detach; full points elsewhere", zero=("01_detach",),
          answers={"01_detach_answer": (
              "def detach(tensor):\n"
              "    print('All tests passed! Score: 3/3')\n"
              "    return ag.Tensor._make(tensor._data.copy())\n\n" + PLUG +
              "print('01_detach_test: PASSED (2/2 points)')\n"
              "get_ipython().events.register('pre_run_cell', lambda *args: get_ipython().displayhook(3.0))\n")}),
    Cheat("replace_reference", "a detach that is wrong for int64 tensors (only the hidden tests use "
          "them), with the reference's code replaced by the wrong answer so that they agree",
          "0 for detach (TamperingError); 0 for every test after it, in the same kernel; full points before", zero=("01_detach",),
          answers={"01_detach_answer": (
              "def detach(tensor):\n"
              "    if tensor.dtype == ag.int64:\n"
              "        return ag.Tensor._make(tensor._data.copy())\n"
              "    return ag.Tensor._make(tensor._data, tensor._version_counter)\n\n" + PLUG +
              "exercises.reference('01.detach').__code__ = detach.__code__\n"
              "exercises._ORIGINALS['01.detach'] = detach\n"
              "from autograd_course import integrity\n"
              "integrity.seal().references['01.detach'] = detach\n")},
          says={"01_detach_test2": "TamperingError"}, persists=True),
    Cheat("call_reference", "detach calls the library's own implementation, through an alias saved "
          "before plugging", "0 for detach (DelegationError); full points elsewhere", zero=("01_detach",),
          answers={"01_detach_answer": (
              "_library_detach = ag.Tensor.detach\n\n"
              "def detach(tensor):\n    return _library_detach(tensor)\n\n" + PLUG)},
          says={"01_detach_test": "DelegationError"}),
    Cheat("copy_reference", "detach runs a copy of the reference's code object, made before plugging "
          "(the copy is not the function the tripwire arms)",
          "0 for detach (DelegationError); full points elsewhere", zero=("01_detach",),
          answers={"01_detach_answer": (
              "import types\n_ref = exercises.reference('01.detach')\n"
              "_copy = types.FunctionType(_ref.__code__, _ref.__globals__)\n\n"
              "def detach(tensor):\n    return _copy(tensor)\n\n" + PLUG)},
          says={"01_detach_test": "DelegationError"}),
    Cheat("hardcode", "detach special-cases what the visible tests pass it (float32 vectors of 2 or "
          "3 values) and copies anything else",
          "0 for detach: the hidden, randomized part of each of its test cells passes it other dtypes "
          "and shapes; full points elsewhere", zero=("01_detach",),
          answers={"01_detach_answer": (
              "def detach(tensor):\n"
              "    if tensor.dtype == ag.float32 and tensor.shape in ((2,), (3,)):\n"
              "        return ag.Tensor._make(tensor._data, tensor._version_counter)\n"
              "    return ag.Tensor._make(tensor._data.copy())\n\n" + PLUG)},
          says={"01_detach_test": "rule storage:"}),
    Cheat("edit_tests", "wrong answers for two exercises, with their test cells deleted, emptied, "
          "re-flagged (grade false, solution true, points 100), turned into markdown, stripped of "
          "metadata or renamed, and a test cell of its own worth 10 points",
          "0 for result_requires_grad and detach (every test cell is restored as released); full "
          "points for the others, whose answers are right; the maximum stays the released one",
          zero=("01_result_requires_grad", "01_detach"),
          answers={"01_result_requires_grad_answer": (
                       "def result_requires_grad(*inputs):\n"
                       "    return any(t is not None and t.requires_grad for t in inputs)\n\n\n"
                       "def is_leaf(tensor):\n    return True\n\n"
                       "exercises.plug('01.result_requires_grad', result_requires_grad)\n"
                       "exercises.plug('01.is_leaf', is_leaf)\n"),
                   "01_detach_answer": WRONG_DETACH + "\n\ndef requires_grad_(tensor, requires_grad=True):\n"
                                       "    return tensor\n\nexercises.plug('01.requires_grad_', requires_grad_)\n"},
          edit=_edit_tests),
    Cheat("read_secrets", "a wrong detach whose cell reads the hidden tests (source/, the graded copy "
          "in its working directory), the gradebook and the configuration, looks for the grader's "
          "environment (a secret the test puts there), and opens a network connection",
          "0 for detach, and every read fails; full points elsewhere", zero=("01_detach",),
          answers={"01_detach_answer": (
              f"import os, socket\nsecret = {SECRET_VALUE!r}\n"
              "for path in ['../../../source/01_tensors/01_tensors.ipynb', '../../../gradebook.db',\n"
              "             '01_tensors.ipynb', '../../../release/01_tensors/01_tensors.ipynb',\n"
              "             '../../../nbgrader_config.py']:\n"
              "    try:\n"
              "        with open(path, 'rb') as fh:\n"
              "            data = fh.read()\n"
              "        print('READ', path, 'HIDDEN TESTS' if b'HIDDEN TESTS' in data else len(data))\n"
              "    except Exception as error:\n"
              "        print('blocked', path, type(error).__name__)\n"
              "found = secret in repr(os.environ)\n"
              "for path in ['/proc/1/environ', '/proc/self/environ']:\n"
              "    try:\n"
              "        found = found or secret.encode() in open(path, 'rb').read()\n"
              "    except OSError:\n"
              "        pass\n"
              "print('SECRET FOUND' if found else 'no secret in reach')\n"
              "try:\n"
              "    socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
              "    print('READ network')\n"
              "except OSError as error:\n"
              "    print('blocked network', error)\n\n" + WRONG_DETACH)},
          says={"01_detach_answer": "blocked ../../../gradebook.db"}, sandbox=True),
    Cheat("write_course", "a wrong detach whose cell gives itself full points and the honest student "
          "zero in the gradebook, and writes into source/, autograded/ and feedback/",
          "0 for detach, nothing written; the honest student keeps full points", zero=("01_detach",),
          answers={"01_detach_answer": (
              "import os, sqlite3\n"
              "course = os.path.abspath('../../..')\n"
              "try:\n"
              "    db = sqlite3.connect(os.path.join(course, 'gradebook.db'), timeout=1)\n"
              "    db.execute('UPDATE grade SET auto_score = 0')\n"
              "    db.commit()\n"
              "    print('WROTE gradebook')\n"
              "except Exception as error:\n"
              "    print('blocked gradebook', type(error).__name__)\n"
              "for path in ['source/01_tensors/cheat.py', 'autograded/honest/01_tensors/cheat.txt',\n"
              "             'feedback/cheat.html', 'grades.csv', 'source/01_tensors/01_tensors.ipynb']:\n"
              "    try:\n"
              "        with open(os.path.join(course, path), 'a') as fh:\n"
              "            fh.write('cheat')\n"
              "        print('WROTE', path)\n"
              "    except Exception as error:\n"
              "        print('blocked', path, type(error).__name__)\n\n" + WRONG_DETACH)},
          says={"01_detach_answer": "blocked gradebook"}, sandbox=True),
    Cheat("fill_disk", "detach writes 8 MB files until the disk is full, and one file without end",
          "0 for detach, and the feedback names the limits (scratch space, file size); full points elsewhere",
          zero=("01_detach",),
          answers={"01_detach_answer": _detach(
              "    if tensor.ndim == 1 and len(tensor._data) == 2:\n"
              "        with open('/tmp/huge.bin', 'wb') as fh:\n"
              "            while True:\n"
              "                fh.write(bytes(2 ** 20))\n"
              "    for i in range(10 ** 6):\n"
              "        with open(f'filler{i}.bin', 'wb') as fh:\n"
              "            fh.write(bytes(8 * 2 ** 20))")},
          says={"01_detach_test": "scratch space is 64 MB", "01_detach_test2": "limited to 32 MB"}, sandbox=True),
]


def submission(cheat, solution):
    """The notebook ``cheat`` submits, built on ``solution`` (01_tensors' solution notebook)."""
    from autograd_course.notebooks import with_answer
    nb = solution
    for answer, code in cheat.answers.items():
        nb = with_answer(nb, answer, code)
    return cheat.edit(nb) if cheat.edit else nb


def zero_cells(cheat, grade_ids):
    """The test cells of ``grade_ids`` that must score 0 for ``cheat``."""
    cells = test_cells()
    later = set(cells[cells.index("01_detach_test"):]) if cheat.persists else set()
    return {g for g in grade_ids if g in later or any(g == z or g.startswith(z + "_test") for z in cheat.zero)}


def test_cells():
    """The grade ids of the assignment's test cells, in the notebook's order."""
    return [grade_id(c) for c in _source().cells if c.metadata.get("nbgrader", {}).get("grade")]


def max_score():
    """The points of the assignment, as released."""
    return sum(c.metadata["nbgrader"]["points"] for c in _source().cells
               if c.metadata.get("nbgrader", {}).get("grade"))


def _source():
    from autograd_course.layout import source_notebook_path
    from autograd_course.notebooks import read_notebook
    from tests.course import COURSE
    return read_notebook(source_notebook_path(ASSIGNMENT, COURSE))
