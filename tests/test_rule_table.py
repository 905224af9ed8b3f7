"""One gradient rule per recorded op, and no rule without an op (fast, no torch).

An op records a node by name (``record("mul.Tensor", ...)``); the rule table
(``autograd_lib.derivatives``) maps that name to its backward node.  Three ways this
pairing can rot, each caught here:

* a second rule for an op that has one (it would silently replace the first):
  ``rule`` refuses it, naming both places;
* an op whose name has no rule (its first backward fails with a ``KeyError``): every op
  name the library's code gives ``record`` must be a key of the table;
* a rule that no op records any more (dead code that still looks maintained): every key
  of the table must be a name the library's code can give ``record``.

The op names are read from the code (not by running it): a string given to ``record``,
``record_outputs`` or a helper that records (``gradient_op``, ``_pointwise``, ...), or
made from a template (``f"{name}.Tensor"``, ``name + "_"``) whose fixed parts a key fits.
"""

import ast
import re
import sys
from pathlib import Path

import pytest

import autograd_lib
from autograd_lib import derivatives
from autograd_lib.recording import RULES

LIBRARY = Path(autograd_lib.__file__).parent
RECORDERS = {"record", "record_outputs"}     # the two entry points of recording.py


def _table_paths():
    """The files of the rule table (the package's modules, whatever their layout)."""
    return {Path(m.__file__).resolve() for name, m in sys.modules.items()
            if (name == "autograd_lib.derivatives" or name.startswith("autograd_lib.derivatives"))
            and getattr(m, "__file__", None)}


def _modules():
    """Every module of the library, with its syntax tree and whether it is the rule table's."""
    table = _table_paths()
    for path in sorted(LIBRARY.rglob("*.py")):
        if "_sealed" not in path.parts:
            yield (path.relative_to(LIBRARY).as_posix(), ast.parse(path.read_text(encoding="utf-8")),
                   path.resolve() in table)


def _called_name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _template(node):
    """A regular expression for the names an f-string or ``a + "b"`` can make, or None."""
    if isinstance(node, ast.JoinedStr):
        parts = node.values
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [node.left, node.right]
    else:
        return None
    fixed = "".join(p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str))
    if not re.search(r"[A-Za-z_]", fixed):        # "{a}.{b}" fits any name with a dot: no template
        return None
    return re.compile("".join(re.escape(p.value) if isinstance(p, ast.Constant) else r"[A-Za-z0-9_]+"
                              for p in parts) + r"\Z")


def _code_names():
    """What the library's code gives ``record``: the literal names (name -> place), the
    templates given to it ((pattern, place)), and the names it can be given otherwise: the
    strings and templates passed to calls or listed in the modules that record, and the
    strings the rule table passes to calls besides ``rule`` (a formula's ``op="..."``)."""
    literals, templates, passed, made = {}, [], set(), []
    for where, tree, is_table in _modules():
        records, strings, patterns = False, set(), []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = _called_name(node)
                arguments = list(node.args) + [k.value for k in node.keywords]
                if called == "rule" and is_table:
                    arguments = arguments[1:]               # the op a rule is declared for
                if called in RECORDERS and node.args:
                    records = True
                    first = node.args[0]
                    if isinstance(first, ast.Constant):
                        literals.setdefault(first.value, f"{where}:{node.lineno}")
                    elif _template(first) is not None:
                        templates.append((_template(first), f"{where}:{node.lineno}"))
                strings.update(a.value for a in arguments if isinstance(a, ast.Constant)
                               and isinstance(a.value, str))
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                strings.update(e.value for e in node.elts if isinstance(e, ast.Constant)
                               and isinstance(e.value, str))
            if _template(node) is not None:
                patterns.append(_template(node))
        if records or is_table:
            passed |= strings
            made += patterns
    return literals, templates, passed, made


LITERALS, TEMPLATES, PASSED, MADE = _code_names()


def test_the_scan_finds_the_recording_code():
    """The scan itself: it must see the ops everyone knows (else the tests below pass on nothing)."""
    for op in ("mul.Tensor", "mm", "sum.dim_IntList", "linalg_cross"):
        assert op in LITERALS, f"expected record({op!r}, ...) to be found in the library's code; it was not"
    assert len(LITERALS) > 100 and TEMPLATES, (
        f"expected over 100 literal op names and some templates; saw {len(LITERALS)} and {len(TEMPLATES)}")


def test_every_recorded_name_has_a_rule():
    missing = {op: where for op, where in LITERALS.items() if op not in RULES}
    assert not missing, f"expected a rule for every op name given to record; none for {missing}"


def test_every_template_makes_a_name_with_a_rule():
    """``record(f"{name}.Tensor", ...)``: some key of the table fits each template."""
    unfit = [(p.pattern, where) for p, where in TEMPLATES if not any(p.match(k) for k in RULES)]
    assert not unfit, f"expected each op-name template given to record to fit a rule's op; these fit none: {unfit}"


def test_every_rule_has_an_op():
    orphans = sorted(op for op in RULES if op not in LITERALS and op not in PASSED
                     and not any(p.match(op) for p in MADE))
    assert not orphans, (f"expected every rule's op to be recorded somewhere in the library; no code "
                         f"gives record these names (dead rules, or an op renamed): {orphans} "
                         f"(declared at {[derivatives.DECLARED_AT[op] for op in orphans]})")


def test_every_rule_says_where_it_is_declared():
    assert set(derivatives.DECLARED_AT) == set(RULES), (
        f"expected a declaring place for every rule; missing for "
        f"{sorted(set(RULES) - set(derivatives.DECLARED_AT))}")
    bad = {op: at for op, at in derivatives.DECLARED_AT.items()
           if not re.fullmatch(r"autograd_lib/derivatives\S*\.py:\d+", at)}
    assert not bad, (f"expected 'autograd_lib/derivatives...py:line' places; saw {len(bad)} others, "
                     f"such as {sorted(bad.items())[:3]}")


def test_a_second_rule_for_an_op_is_refused_naming_both_places():
    before = dict(RULES), dict(derivatives.NODES)
    with pytest.raises(derivatives.DuplicateRule) as caught:
        derivatives.rule("mul.Tensor", "MulBackward0", self=lambda grad: grad)    # line below: this one
    message = str(caught.value)
    first = derivatives.DECLARED_AT["mul.Tensor"]
    assert "'mul.Tensor'" in message and first in message and "tests/test_rule_table.py:" in message, (
        f"expected the error to name the op, its first rule's place ({first}) and this test's line; "
        f"saw {message!r}")
    assert (dict(RULES), dict(derivatives.NODES)) == before, "expected a refused rule to change nothing"
    assert isinstance(caught.value, ValueError), "expected DuplicateRule to be a ValueError"
