"""Hard-coding submissions, built for every exercise of every assignment.

A student sees only the visible part of each test cell.  The most tempting
cheat is an answer that is right on exactly the inputs the visible tests pass,
and anything else elsewhere.  This module builds that cheat mechanically:

1. **Record.** The student release of an assignment (visible tests only) runs
   with the solution's answers, each wrapped so that it records a fingerprint
   of every call's arguments (``FINGERPRINT``: values, shapes, dtypes, flags,
   graph structure): the inputs a student could read off the visible tests.
2. **Cheat.** For each exercise, an answer cell that keeps both the solution's
   function and the exercise's first catalogued mistake, and dispatches on the
   fingerprint: the solution for a recorded (visible) input, the mistake for
   any other.  An answer cell that plugs several functions does so for each,
   with the first mistake that changes that function.  Run on the release, it
   passes every visible test.

tests/course/test_hardcoding.py grades each cheat with real nbgrader: every
test cell of its exercise must score 0, thanks to the hidden randomized parts.
"""

import ast
import functools
import json
import re
import tempfile
import textwrap
from pathlib import Path

from autograd_course.layout import PipelineError, source_notebook_path
from autograd_course.nbgrader_setup import CELL_TIMEOUT, KERNEL, kernel_environment
from autograd_course.notebooks import (grade_id, is_answer_cell, is_test_cell, read_notebook,
                                       solution_notebook, with_answer)
from tests.course import COURSE

PLUG_LINE = re.compile(r"^exercises\.plug\(\s*[\"']([\w.]+)[\"']\s*,\s*([A-Za-z_]\w*)\s*\)\s*$", re.M)

# Stable across kernels: no ids, no memory addresses, tensors by their bytes.  A
# re-entrant call (the fingerprint reading a tensor's is_leaf runs the exercise
# 01.is_leaf) is not fingerprinted.  The budget bounds the walk of big graphs.
FINGERPRINT = textwrap.dedent('''
    def _hc_fp(obj, budget=None, depth=0):
        import hashlib
        import numpy
        import autograd_lib
        budget = [4000] if budget is None else budget
        budget[0] -= 1
        if budget[0] < 0 or depth > 8:
            return "..."
        try:
            if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
                return type(obj).__name__ + ":" + repr(obj)
            if isinstance(obj, numpy.ndarray):
                data = hashlib.sha1(numpy.ascontiguousarray(obj).tobytes()).hexdigest()[:16]
                return f"array({obj.dtype},{obj.shape},{data})"
            if isinstance(obj, numpy.generic):
                return f"{type(obj).__name__}:{obj!r}"
            if isinstance(obj, autograd_lib.Tensor):
                node = obj.grad_fn
                return (f"tensor({_hc_fp(obj._data, budget, depth + 1)},{obj.requires_grad},"
                        f"{obj._version},{type(node).__name__},"
                        f"{_hc_fp(getattr(node, 'next_functions', None), budget, depth + 1)})")
            if isinstance(obj, (list, tuple)):
                return type(obj).__name__ + "(" + ",".join(_hc_fp(x, budget, depth + 1) for x in obj[:64]) + ")"
            if isinstance(obj, (set, frozenset)):     # in an order that does not depend on addresses
                return type(obj).__name__ + "(" + ",".join(sorted(_hc_fp(x, budget, depth + 1) for x in obj)[:64]) + ")"
            if isinstance(obj, dict):      # keys by fingerprint too: a node's repr holds its address
                items = sorted(((_hc_fp(k, budget, depth + 1), v) for k, v in list(obj.items())[:64]),
                               key=lambda kv: kv[0])
                return "{" + ",".join(f"{k}:{_hc_fp(v, budget, depth + 1)}" for k, v in items) + "}"
            if callable(obj) and hasattr(obj, "__qualname__") and not hasattr(obj, "next_functions"):
                return "function:" + obj.__qualname__
            attrs = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
            for name in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, name):
                    attrs[name] = getattr(obj, name)
            if hasattr(obj, "next_functions"):
                attrs["next_functions"] = obj.next_functions
            # Not what a student reads off a test: global counters (a node's creation number, hook
            # handles) differ from one run of the notebook to the next.
            attrs = {k: v for k, v in attrs.items()
                     if not k.startswith("__") and k != "_sequence_nr" and "hook" not in k}
            return type(obj).__name__ + _hc_fp(attrs, budget, depth + 1)
        except Exception as error:
            return f"{type(obj).__name__}!{type(error).__name__}"
''').strip("\n")

# Shared by every generated answer cell (the same text each time, so defining it
# again is harmless).  While a fingerprint is taken (``_HC_BUSY``), every
# generated function runs the solution: reading a tensor's flags may call one.
HELPERS = FINGERPRINT + textwrap.dedent('''


    _HC_BUSY = globals().setdefault("_HC_BUSY", [False])
    _HC_SEEN = globals().setdefault("_HC_SEEN", {})


    def _hc_fingerprinted(args, kwargs):
        _HC_BUSY[0] = True
        try:
            return _hc_fp((args, kwargs))
        finally:
            _HC_BUSY[0] = False


    def _hc_recorder(exercise_id, right):
        """right, recording the fingerprint of each call's arguments."""
        def call(args, kwargs):
            if not _HC_BUSY[0]:
                _HC_SEEN.setdefault(exercise_id, set()).add(_hc_fingerprinted(args, kwargs))
            return right(*args, **kwargs)
        return call


    def _hc_dispatcher(right, wrong, visible):
        """right on the recorded (visible) inputs, wrong on any other."""
        def call(args, kwargs):
            if _HC_BUSY[0] or _hc_fingerprinted(args, kwargs) in visible:
                return right(*args, **kwargs)
            return wrong(*args, **kwargs)
        return call
''').rstrip("\n")


def _parameters(code, name):
    """For ``def name`` in ``code``: its parameter list (source) and the expression
    that forwards the parameters as ``args, kwargs``."""
    found = [n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(found) != 1:
        raise PipelineError(f"no top-level def {name}(...) in:\n{code}")
    a = found[0].args
    args = "(" + "".join(f"{p.arg}, " for p in a.posonlyargs + a.args) + ")"
    if a.vararg:
        args += f" + tuple({a.vararg.arg})"
    kwargs = "{" + "".join(f"{p.arg!r}: {p.arg}, " for p in a.kwonlyargs)
    kwargs += (f"**{a.kwarg.arg}" if a.kwarg else "") + "}"
    return ast.unparse(a), f"{args}, {kwargs}"


def _answer_cell(setup, right, plugs, calls):
    """HELPERS, ``setup``, then for each plugged ``(exercise id, name)`` a ``def name`` with the
    solution's own parameters (the library reads their names), forwarding every call to the
    expression ``calls[name]``."""
    cell = f"{HELPERS}\n\n\n{setup}\n"
    for exercise_id, name in plugs:
        params, forward = _parameters(right, name)
        cell += (f"_hc_call_{name} = {calls[name]}\n\n\n"
                 f"def {name}({params}):\n    return _hc_call_{name}({forward})\n\n\n")
    return cell + "".join(f"exercises.plug({exercise_id!r}, {name})\n" for exercise_id, name in plugs)


def recording_cell(solution_code):
    """The solution's answer, recording the arguments of every call."""
    right, plugs = split_plugs(solution_code)
    setup = f"_hc_right_ns = dict(globals())\nexec({right!r}, _hc_right_ns)"
    return _answer_cell(setup, right, plugs, {name: f"_hc_recorder({exercise_id!r}, _hc_right_ns[{name!r}])"
                                              for exercise_id, name in plugs})


def cheat_code(solution_code, wrong_codes, seen):
    """The answer cell that is right on the recorded inputs, wrong elsewhere: ``seen`` maps each
    exercise id the cell plugs to the fingerprints of its recorded inputs, ``wrong_codes`` each
    function name to the wrong answer cell it is taken from (one code for all: a string).  A cell
    that plugs several functions (an exercise that fills several slots) dispatches each on its own."""
    right, plugs = split_plugs(solution_code)
    if isinstance(wrong_codes, str):
        wrong_codes = {name: wrong_codes for _, name in plugs}
    setup = (f"_hc_right_ns = dict(globals())\n"
             f"exec({right!r}, _hc_right_ns)      # right, for the inputs the visible tests pass\n")
    for _, name in plugs:
        wrong, wrong_plugs = split_plugs(wrong_codes[name])
        if wrong_plugs != plugs:
            raise PipelineError(f"the mistake plugs {wrong_plugs}, the solution {plugs}")
        setup += (f"_hc_wrong_ns_{name} = dict(globals())\n"
                  f"exec({wrong!r}, _hc_wrong_ns_{name})      # wrong, for any other input\n")
    setup += "".join(f"_HC_VISIBLE_{name} = frozenset({sorted(seen.get(exercise_id, ()))!r})\n"
                     for exercise_id, name in plugs)
    return _answer_cell(setup, right, plugs,
                        {name: f"_hc_dispatcher(_hc_right_ns[{name!r}], _hc_wrong_ns_{name}[{name!r}], "
                               f"_HC_VISIBLE_{name})" for _, name in plugs})


def function_source(code, name):
    """The source of ``def name`` in ``code`` (as ast dumps it: comments and layout aside)."""
    found = [n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef) and n.name == name]
    return ast.dump(found[0]) if found else None


def split_plugs(code):
    """(the code without its plug lines, [(exercise id, function name), ...] in plug order)."""
    found = PLUG_LINE.findall(code)
    if not found:
        raise PipelineError(f"an answer cell must plug at least one function:\n{code}")
    return PLUG_LINE.sub("", code).rstrip() + "\n", found


@functools.cache
def solution(assignment):
    """The solution notebook of an assignment (read once; callers copy before changing it)."""
    return solution_notebook(read_notebook(source_notebook_path(assignment, COURSE)))


def answers(assignment):
    """{answer grade id: solution code} of an assignment's source notebook."""
    return {grade_id(c): c.source for c in solution(assignment).cells if is_answer_cell(c)}


def release_with(assignment, codes, last_cell=None):
    """The student release of ``assignment`` with answer cells replaced by ``codes``
    (grade id -> source), and an optional extra cell at the end."""
    from nbformat.v4 import new_code_cell
    nb = read_notebook(COURSE / "release" / assignment / f"{assignment}.ipynb")
    for gid, code in codes.items():
        nb = with_answer(nb, gid, code)
    if last_cell:
        nb.cells.append(new_code_cell(last_cell))
    return nb


def record_visible_inputs(assignment):
    """{exercise id: sorted fingerprints of the arguments the visible tests pass}."""
    codes = {gid: recording_cell(code) for gid, code in answers(assignment).items()}
    with tempfile.TemporaryDirectory(prefix="hardcoding-") as tmp:
        out = Path(tmp) / "seen.json"
        nb = release_with(assignment, codes, last_cell=(
            f"import json\nwith open({str(out)!r}, 'w') as _f:\n"
            f"    json.dump({{k: sorted(v) for k, v in _HC_SEEN.items()}}, _f)\n"))
        executed = run(nb, tmp)
        tests = {grade_id(c) for c in executed.cells if is_test_cell(c)}
        failing = errors_of(executed, only=tests | {None})
        if failing or not out.is_file():
            raise PipelineError(f"{assignment}: the recording run (the solution, recording "
                                       f"its calls) should pass every visible test; errors:\n{failing}")
        return json.loads(out.read_text())


def run(nb, cwd):
    """Execute ``nb`` in a plain kernel, errors allowed; the executed notebook."""
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=KERNEL,
                            allow_errors=True, resources={"metadata": {"path": str(cwd)}})
    with kernel_environment():
        client.execute()
    return nb


def errors_of(nb, only=None):
    """'grade id: error' lines of the cells that raised (``only``: those grade ids)."""
    lines = []
    for index, cell in enumerate(nb.cells):
        gid = grade_id(cell)
        if only is not None and gid not in only:
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                lines.append(f"{gid or f'cell {index}'}: {out.get('ename')}: {out.get('evalue')}"[:600])
    return "\n".join(lines)
