"""The op table (autograd_lib/op_table.py): every Tensor method and public op is declared
once, a second owner of a name is refused, and moving to the table changed no name.

tests/op_table_names.json was captured from main before the table existed (issue 35):
``sorted(n for n in dir(autograd_lib) if not n.startswith('_'))``, the same for
``autograd_lib.ops``, and the module that set each Tensor attribute.
"""

import json
import pathlib
import re
import subprocess
import sys
import types

import pytest

import autograd_lib as ag
from autograd_lib import op_table
from autograd_lib.op_table import SecondOwner, exports, methods, op

Tensor = ag.Tensor
ROOT = pathlib.Path(__file__).resolve().parents[1]
BEFORE = json.loads((ROOT / "tests" / "op_table_names.json").read_text())
ADDED = {"autograd_lib": {"op_table"},          # the table's module itself
         "autograd_lib.ops": {"slogdet",        # torch.slogdet, public since matrix_functions declares it
                              "aliased_writes",    # inplace.py's helper module (writes reading what they write)
                              "margin_losses"}}    # multi_margin_loss and multilabel_margin_loss (F.*, not torch.*)
# Modules named by history, not concept, that issue 35 dissolved (their ops moved to the family
# each belongs to): the module's name is gone from the namespace, its ops stay, owned by the new file.
DISSOLVED = {"autograd_lib": set(), "autograd_lib.ops": {"compositions_extra"}}
MOVED = {**dict.fromkeys(["heaviside", "heaviside_", "ldexp", "ldexp_"], "autograd_lib/ops/binary_math.py"),
         "aminmax": "autograd_lib/ops/reductions.py", "bincount": "autograd_lib/ops/sorting.py"}


def _public(module):
    return {n for n in dir(module) if not n.startswith("_")}


@pytest.mark.parametrize("module", ["autograd_lib", "autograd_lib.ops"])
def test_no_public_name_was_lost_and_each_new_one_is_declared(module):
    # In a fresh interpreter: other tests load nn, optim, viz, ... which then show in dir().
    code = (f"import importlib, json; m = importlib.import_module({module!r}); "
            "print(json.dumps(sorted(n for n in dir(m) if not n.startswith('_'))))")
    now = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                        check=True, cwd=ROOT).stdout))
    expected = (set(BEFORE[module]) | ADDED[module]) - DISSOLVED[module]
    assert not DISSOLVED[module] & now, f"expected {sorted(DISSOLVED[module] & now)} gone from {module}"
    assert not expected - now, (f"expected {module} to keep every public name it had before the op table; "
                                f"lost {sorted(expected - now)}")
    # A new op adds its name by its declaration alone (nothing to edit here); anything else new is not
    # an op's name and must be looked at.
    undeclared = sorted(n for n in now - expected if f"autograd_lib.{n}" not in op_table.OWNERS)
    assert not undeclared, (f"expected every public name {module} gained since the table to be an op's, "
                            f"declared with op() or exports(); undeclared: {undeclared}")


def test_every_tensor_attribute_has_its_owner_of_before():
    owners = {key.split(".", 1)[1]: where.split(":")[0] for key, where in op_table.OWNERS.items()
              if key.startswith("Tensor.")}
    before = {**BEFORE["Tensor"], **MOVED}
    changed = {name: (was, owners.get(name)) for name, was in before.items() if owners.get(name) != was}
    assert not changed, f"expected each Tensor attribute declared where it was set before; (before, now): {changed}"


def test_every_tensor_attribute_is_declared_in_the_table():
    undeclared = sorted(n for n in vars(Tensor) if f"Tensor.{n}" not in op_table.OWNERS
                        and n not in ("__module__", "__doc__", "__dict__", "__weakref__"))
    assert not undeclared, f"expected every Tensor attribute in op_table.OWNERS (declared once); not: {undeclared}"


def test_no_module_sets_a_tensor_attribute_by_hand():
    pattern = re.compile(r"^\s*(Tensor\.\w+(\s*,\s*Tensor\.\w+)*\s*=[^=]|setattr\(Tensor\b)", re.M)
    found = [f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
             for path in sorted((ROOT / "autograd_lib").rglob("*.py")) if path.name != "op_table.py"
             for text in [path.read_text(encoding="utf-8")] for m in pattern.finditer(text)]
    assert not found, ("expected Tensor methods declared with op_table's op()/methods() only (so a second "
                       f"owner is refused); set by hand at: {found}")


def test_every_public_op_is_the_tables():
    ops_like = {n for n in _public(ag) if not isinstance(getattr(ag, n), types.ModuleType)
                and (getattr(getattr(ag, n), "__module__", "") or "").startswith(("autograd_lib.ops",
                                                                                  "autograd_lib.nn"))}
    missing = sorted(ops_like - set(op_table.PUBLIC))
    other = sorted(n for n, v in op_table.PUBLIC.items() if getattr(ag, n, None) is not v)
    assert not missing, f"expected every public op of autograd_lib declared public in the op table; not: {missing}"
    assert not other, f"expected autograd_lib.<name> to be the object the table declares; differs: {other}"


def test_each_inplace_form_is_a_declared_method():
    absent = {op_name: name for op_name, name in op_table.INPLACE.items() if f"Tensor.{name}" not in op_table.OWNERS}
    assert not absent, f"expected every declared in-place form to be a Tensor method of the table; absent: {absent}"


def test_a_second_owner_of_a_method_is_refused_naming_both_places():
    before = Tensor.add
    with pytest.raises(SecondOwner) as raised:
        @op("add")
        def add(input, other):
            return input
    message = str(raised.value)
    assert "Tensor.add" in message and "autograd_lib/ops/arithmetic.py:" in message \
        and "tests/test_op_table.py" in message, \
        f"expected the error to name Tensor.add, its owner in ops/arithmetic.py and this file; seen: {message}"
    assert Tensor.add is before, "expected a refused declaration to leave Tensor.add as it was"


@pytest.mark.parametrize("declare", [lambda: methods(__radd__=lambda self, other: other),
                                     lambda: exports(cat=lambda tensors: tensors),
                                     lambda: op("_op_table_probe", public="sum")(lambda x: x)],
                         ids=["methods", "exports", "public name"])
def test_every_way_of_declaring_refuses_a_second_owner(declare):
    owners, public, probe = dict(op_table.OWNERS), dict(op_table.PUBLIC), hasattr(Tensor, "_op_table_probe")
    with pytest.raises(SecondOwner, match="already at autograd_lib/"):
        declare()
    assert op_table.OWNERS == owners and op_table.PUBLIC == public and hasattr(Tensor, "_op_table_probe") == probe, \
        "expected a refused declaration to install nothing (not even its other names)"


def test_an_override_must_say_why_and_is_kept():
    try:
        methods(_op_table_probe=lambda self: 1)
        with pytest.raises(SecondOwner):
            methods(_op_table_probe=lambda self: 2)
        methods(_op_table_probe=lambda self: 3, override="the test's own replacement")
        assert Tensor._op_table_probe(None) == 3, "expected the explicit override to replace the method"
        assert op_table.OVERRIDES[-1][0] == "Tensor._op_table_probe" \
            and op_table.OVERRIDES[-1][3] == "the test's own replacement", \
            f"expected OVERRIDES to keep the override and its reason; last: {op_table.OVERRIDES[-1:]}"
    finally:
        del Tensor._op_table_probe
        op_table.OWNERS.pop("Tensor._op_table_probe", None)
        while op_table.OVERRIDES and op_table.OVERRIDES[-1][0] == "Tensor._op_table_probe":
            op_table.OVERRIDES.pop()


def test_the_library_declares_no_override():
    assert not [o for o in op_table.OVERRIDES if o[0] != "Tensor._op_table_probe"], \
        f"expected no name of the library replaced on purpose today; seen: {op_table.OVERRIDES}"


@pytest.mark.parametrize("name, args", [("celu", (2.0,)), ("selu", ()), ("threshold", (0.6, 5.0))])
def test_the_name_that_had_two_owners_is_torchs(name, args):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")
    # autograd_lib.celu/selu/threshold were nn.functional's (with inplace=); torch's have none.
    x = [-1.0, 2.0, 0.5]
    ours, theirs = getattr(ag, name)(ag.tensor(x), *args).tolist(), getattr(torch, name)(torch.tensor(x), *args).tolist()
    assert ours == pytest.approx(theirs), f"expected ag.{name} to be torch.{name}: {theirs}; seen {ours}"
    with pytest.raises(TypeError) as torch_error:
        getattr(torch, name)(torch.tensor(x), *args, True)
    with pytest.raises(TypeError) as our_error:
        getattr(ag, name)(ag.tensor(x), *args, True)
    assert str(our_error.value) == str(torch_error.value), \
        f"expected torch's TypeError for an inplace argument: {torch_error.value}; seen {our_error.value}"

