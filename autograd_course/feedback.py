"""What a student reads when something fails: short, about their code, and never cut off.

* A failing check raises :class:`CheckFailure`, whose message is :func:`failure_text`: what
  was checked, what was expected, what was seen, and the rule of the task text it grades,
  each line at most ``WIDTH`` characters (``nbgrader validate`` cuts longer lines).
* In a notebook's kernel (:func:`install`, called when ``autograd_course.grading`` is
  imported), a failed check shows its message and nothing else: no frames of the
  course's grading code.  An error raised by a student's plugged function, or in a cell
  that ran one, is told in a line that names the exercise and the way out
  (``exercises.unplug``), followed only by the frames of the student's own code; an
  exercise not written yet (``NotImplementedError``) is one line.  Every other error
  keeps IPython's own traceback.  The cell still fails, so grading is unchanged.
* A test cell whose visible check passed says so in one line (:func:`confirmation`): a
  student otherwise sees nothing and cannot tell a pass from a cell that did not run.
"""

import re
import sys
import textwrap

from autograd_lib import exercises

from . import rules as _rules

__all__ = ["CheckFailure", "failure_text", "WIDTH", "install", "explain", "confirmation"]

WIDTH = 80                          # nbgrader validate prints 86 characters of a line, indented 4
_INDENT = " " * 12                  # continuation lines, under the values


class CheckFailure(AssertionError):
    """A check of the course found a rule broken; the message says which, and how."""

    def __init__(self, message, rule=None):
        super().__init__(message)
        self.rule = rule


def _wrapped(line, indent=_INDENT):
    return textwrap.fill(line, WIDTH, subsequent_indent=indent, break_on_hyphens=False,
                         replace_whitespace=False, drop_whitespace=True) if len(line) > WIDTH else line


def failure_text(headline, fields=(), rule=None, extra=""):
    """The message of a failed check: ``headline``, then ``label: value`` for each field
    (``("expected", ...), ("seen", ...)``), the rule's lines, and ``extra``; each line
    wrapped to ``WIDTH`` characters."""
    lines = [_wrapped(headline, "  ")]
    for label, value in fields:
        for number, part in enumerate(str(value).split("\n")):
            head = f"  {label + ':':<9} " if number == 0 else _INDENT
            lines.append(_wrapped(head + part))
    if rule is not None and rule != "":
        rule_lines = rule.lines() if hasattr(rule, "lines") else [f"rule:     {rule}"]
        lines += [_wrapped("  " + line, "      ") for line in rule_lines]
    if extra:
        lines.append(_wrapped("  " + extra, "    "))
    return "\n".join(lines)


def not_written(error):
    """The failure to report for ``error`` when it is an answer cell not written yet: a bare
    ``NotImplementedError()``, nbgrader's placeholder (an error PyTorch raises always has a
    message), naming the exercise when its slot is known.  None for any other error."""
    if not isinstance(error, NotImplementedError) or str(error):
        return None
    slot = _raised_in(error)
    if slot is None:
        return CheckFailure(failure_text(
            "Not written yet: this cell called a function that raised NotImplementedError(), the "
            "placeholder of an answer cell. Write the answer, run its cell, then this cell again."))
    exercise, way_out = _named(slot)
    return CheckFailure(failure_text(
        f"Not written yet: exercise {exercise} still raises NotImplementedError(), the placeholder of "
        f"its answer cell. Write it and run its cell (or {way_out}), then run this cell again."))


# --------------------------------------------------------------- in a kernel

_GRADING_ERRORS = ("CheckFailure", "DelegationError", "TamperingError")


def _is_cell(filename):
    """Whether ``filename`` is a notebook cell's (ipykernel's or IPython's name for one)."""
    return "ipykernel_" in filename or filename.startswith("<ipython-input")


def _raised_in(error):
    """The exercise whose plugged function raised ``error`` (or one it came from), or None."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        exercise = getattr(error, "_raised_in_exercise", None)
        if exercise:
            return exercise
        error = error.__cause__ or error.__context__
    return None


def _frames(tb):
    import traceback
    return traceback.extract_tb(tb) if tb is not None else []


def _own_frames(tb):
    """The frames of ``tb`` in the student's own cells below the cell that ran, formatted."""
    frames = [f for f in _frames(tb) if _is_cell(f.filename)]
    return [_wrapped(f"  in {f.name}, line {f.lineno}: {(f.line or '').strip()}", "      ")
            for f in frames[1:]]


_PACKAGE = __file__.rsplit("/", 1)[0] + "/"


def _named(slot):
    """(the exercise a slot belongs to, how to put the library's version back in all its slots)."""
    exercise = _rules.exercise_of_slot(slot)
    slots = _rules.slots_of(exercise) or [slot]
    calls = "; ".join(f"exercises.unplug({s!r})" for s in slots)
    return exercise, f"run the library's own version with {calls}."


def explain(etype, value, tb):
    """The lines to show for an error in a course notebook, or None for IPython's own."""
    if any(cls.__name__ in _GRADING_ERRORS for cls in etype.__mro__):
        return [str(value)]
    frames = _frames(tb)
    error = _wrapped(f"{etype.__name__}: {value}", "  ")
    slot = _raised_in(value)
    if slot is not None:
        exercise, way_out = _named(slot)
        if isinstance(value, NotImplementedError):
            return [_wrapped(f"Exercise {exercise} is not written yet: write it, or {way_out}", "  ")]
        if frames and _is_cell(frames[-1].filename):     # raised by the student's own line
            return [_wrapped(f"Exercise {exercise} raised {etype.__name__}: {value}", "  "),
                    _wrapped(f"  Fix it, or {way_out}", "    ")] + _own_frames(tb)
        return [error, _wrapped(f"  It came up inside your exercise {exercise}: if that is unfinished or "
                                f"wrong, fix it, or {way_out}", "    ")] + _own_frames(tb)
    ran = list(dict.fromkeys(_rules.exercise_of_slot(slot) for slot in exercises.recent_calls()))
    if ran:
        names = ", ".join(ran)
        _, way_out = _named(exercises.recent_calls()[-1])
        return [error, _wrapped(f"  This cell ran your exercise{'s' if len(ran) > 1 else ''} {names}: if "
                                f"{'one is' if len(ran) > 1 else 'it is'} unfinished or wrong, fix it, or "
                                f"{way_out}", "    ")]
    if any(f.filename.startswith(_PACKAGE) for f in frames):        # out of a test's own code
        return [error] + _own_frames(tb)
    return None


def _handler(shell, etype, value, tb, tb_offset=None):
    if issubclass(etype, SyntaxError):
        shell.showsyntaxerror()
        return None
    try:
        lines = explain(etype, value, tb)
    except Exception:           # never hide an error behind a failure of this module
        lines = None
    if lines is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return None
    shell._showtraceback(etype, value, lines)
    return lines


def install(shell=None):
    """Show errors in this IPython kernel as :func:`explain` says (once per kernel)."""
    if shell is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_autograd_course_feedback", False):
        return False
    shell.set_custom_exc((Exception,), _handler)
    shell.events.register("pre_run_cell", _new_cell)
    shell.events.register("post_run_cell", _confirm)
    shell._autograd_course_feedback = True
    return True


_VISIBLE_CHECK = re.compile(r"\A\s*check\.(\w+)\(")


def confirmation(cell_source):
    """The line a test cell prints when its visible check passed (None for other cells)."""
    found = _VISIBLE_CHECK.match(cell_source or "")
    if found is None:
        return None
    return f"passed: check.{found.group(1)} (this cell's hidden tests run when it is graded)"


def _confirm(result):
    if getattr(result, "success", False):
        line = confirmation(getattr(result.info, "raw_cell", ""))
        if line:
            print(line)


def _new_cell(*_):
    exercises.forget_calls()
