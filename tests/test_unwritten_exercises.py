"""A right answer passes its visible test while every earlier exercise of the notebook is still
unwritten (each solution notebook runs once, in this process: about 80 s in all); and an
exercise not written yet gets "Not written yet" from each of its visible tests, never a broken
rule or a bare NotImplementedError (a trial student met both in 01).

A student who skipped an exercise has its placeholder plugged (the answer cell raises
``NotImplementedError()`` and plugs it); the tests of the exercises after it must still grade
those exercises alone.  Two trial students met checks that computed their expectation with the
library's function of the exercise but the student's earlier, unwritten ones (03 run_node, 01
detach).  Here the solution notebook runs top to bottom; before each test cell, every slot that
an earlier answer cell plugs (except those of the exercise under test) gets a placeholder, the
cell's visible line runs, and the solution's plugs come back.
"""

import ast
import linecache
import os
import re

import matplotlib
import pytest

from autograd_lib import exercises
from autograd_course.layout import assignments
from autograd_course.notebooks import is_answer_cell, read_notebook, solution_notebook

from tests.course import COURSE

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
PLUG = re.compile(r'exercises\.plug\("([^"]+)"')


def _run(source, name, namespace):
    """``source`` run as IPython runs a cell: its lines known to ``linecache`` (``inspect.getsource``
    of a function it defines works, as the notebooks' demos need)."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


def _not_written(*args, **kwargs):
    raise NotImplementedError()


@pytest.mark.parametrize("assignment", assignments(COURSE))
def test_each_visible_test_passes_its_right_answer_with_the_earlier_exercises_unwritten(assignment):
    nb = solution_notebook(read_notebook(COURSE / "source" / assignment / f"{assignment}.ipynb"))
    namespace, earlier, own, failures, unwritten, answers = {"__name__": "__main__"}, [], [], [], [], {}
    cwd = os.getcwd()
    os.chdir(COURSE / "source" / assignment)
    exercises.unplug_all()
    try:
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            grade = cell.metadata.get("nbgrader", {}).get("grade")
            if is_answer_cell(cell):
                earlier += own
                own = PLUG.findall(cell.source)
                answers[_stem(cell)] = own, [node.name for node in ast.parse(cell.source).body
                                             if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
            if grade:
                visible = cell.source.split("### BEGIN HIDDEN TESTS")[0]
                tested, answer_names = answers.get(_stem(cell), (own, []))   # a test may come after a later answer
                said = _with_own_unwritten(visible, f"<{assignment} cell {index}>", namespace, tested, answer_names)
                if said is not None:
                    unwritten.append(f"{visible.strip().splitlines()[0]} (answer of {tested} unwritten): {said}")
                saved = {eid: exercises.SLOTS[eid].get() for eid in earlier if eid not in own}
                for eid in saved:
                    exercises.plug(eid, _not_written)
                try:
                    _run(visible, f"<{assignment} cell {index}>", namespace)
                except Exception as error:                          # noqa: BLE001 (reported below)
                    failures.append(f"{visible.strip().splitlines()[0]} (answer of {own}; unwritten: "
                                    f"{sorted(saved)}): {type(error).__name__}: {str(error)[:300]}")
                finally:
                    for eid, value in saved.items():
                        exercises.SLOTS[eid].set(value)
            else:
                _run(cell.source, f"<{assignment} cell {index}>", namespace)
    finally:
        os.chdir(cwd)
        exercises.unplug_all()
        plt.close("all")                    # each notebook's figures; the next starts with none
    assert not failures, (f"{assignment}: expected each visible test to pass the solution's answer with every "
                          f"earlier exercise unwritten; failed:\n" + "\n".join(failures))
    assert not unwritten, (f"{assignment}: expected each visible test of an exercise not written yet to fail "
                           f"with 'Not written yet'; seen:\n" + "\n".join(unwritten))


def _stem(cell):
    """The exercise a graded cell belongs to: its grade id without ``_answer`` / ``_test<N>``."""
    return re.sub(r"_(answer|test\w*)$", "", cell.metadata.get("nbgrader", {}).get("grade_id", ""))


def _with_own_unwritten(visible, name, namespace, own, answer_names):
    """Run a test cell's visible line with its exercise's answer unwritten (its slots and the
    answer cell's functions raising ``NotImplementedError()``): None if it said "Not written
    yet", else what it said instead."""
    saved_slots = {eid: exercises.SLOTS[eid].get() for eid in own}
    saved_names = {n: namespace[n] for n in answer_names if n in namespace}
    for eid in own:
        exercises.plug(eid, _not_written)
    namespace.update(dict.fromkeys(saved_names, _not_written))
    try:
        _run(visible, name, namespace)
        return "it passed"
    except Exception as error:                                      # noqa: BLE001 (compared below)
        text = f"{type(error).__name__}: {error}"
        return None if "Not written yet" in text else text[:300]
    finally:
        namespace.update(saved_names)
        for eid, value in saved_slots.items():
            exercises.SLOTS[eid].set(value)
