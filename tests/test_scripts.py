"""The PyTorch-style scripts of tests/scripts/ print the same under both libraries.

Each script starts with the line ``import torch``; it runs once as it is and once
with that line replaced by ``import autograd_lib as torch`` (in this process,
with its output captured).  The two outputs must have the same text, with
"autograd_lib" read as "torch", and the same numbers within the tolerance the
script states (a ``# tolerance: rtol=... atol=...`` line).  On a difference the
message shows both outputs, with the first differing line marked.

``python -m tests.test_scripts NAME`` prints both outputs side by side.
"""

import contextlib
import io
import math
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))     # python -m tests.test_scripts
from conftest import requires_torch  # noqa: E402

SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.stem.startswith("_"))   # _printing: shared
IMPORT_LINE = "import torch\n"
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def source(name, library):
    text = (SCRIPTS / f"{name}.py").read_text()
    if IMPORT_LINE not in text.splitlines(keepends=True):
        raise AssertionError(f"{name}.py has no line '{IMPORT_LINE.strip()}' to switch")
    if re.search(r"^\s*(from torch\b|import torch\.)", text, re.M):
        raise AssertionError(f"{name}.py imports from torch by name: only 'import torch' is switched")
    if library == "autograd_lib":
        text = text.replace(IMPORT_LINE, "import autograd_lib as torch\n", 1)
    return text


def run_script(name, library):
    """What the script prints when run with ``library`` (its module-level code, here)."""
    out = io.StringIO()
    code = compile(source(name, library), str(SCRIPTS / f"{name}.py"), "exec")
    sys.path.insert(0, str(SCRIPTS))           # as python puts a script's folder first: _printing
    try:
        with contextlib.redirect_stdout(out), _one_torch_thread(library):
            exec(code, {"__name__": "__main__", "__file__": str(SCRIPTS / f"{name}.py")})
    finally:
        sys.path.remove(str(SCRIPTS))
    return out.getvalue()


@contextlib.contextmanager
def _one_torch_thread(library):
    """PyTorch's thread pool on tiny matrices only adds waiting (the scripts are small)."""
    if library != "torch":
        yield
        return
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def tolerance(name):
    match = re.search(r"#\s*tolerance:\s*rtol=(\S+)\s+atol=(\S+)", (SCRIPTS / f"{name}.py").read_text())
    return (float(match.group(1)), float(match.group(2))) if match else (1e-4, 1e-5)


def _close(a, b, rtol, atol):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=rtol, abs_tol=atol)


def first_difference(expected, seen, rtol, atol):
    """The number of the first line where the outputs differ, and why; None when they agree."""
    expected_lines, seen_lines = expected.splitlines(), seen.replace("autograd_lib", "torch").splitlines()
    for i, (e, s) in enumerate(zip(expected_lines, seen_lines)):
        e_numbers, s_numbers = NUMBER.findall(e), NUMBER.findall(s)
        if NUMBER.sub("#", e) != NUMBER.sub("#", s):
            return i, "the text differs"
        if len(e_numbers) != len(s_numbers):
            return i, "a different count of numbers"
        for a, b in zip(e_numbers, s_numbers):
            if not _close(a, b, rtol, atol):
                return i, f"{a} != {b} (rtol={rtol}, atol={atol})"
    if len(expected_lines) != len(seen_lines):
        return min(len(expected_lines), len(seen_lines)), \
            f"{len(expected_lines)} lines against {len(seen_lines)}"
    return None


def _show(text, mark):
    lines = text.splitlines()
    return "\n".join((">> " if i == mark else "   ") + line for i, line in enumerate(lines))


@requires_torch
@pytest.mark.parametrize("name", NAMES)
def test_script_prints_the_same(name):
    expected = run_script(name, "torch")
    seen = run_script(name, "autograd_lib")
    rtol, atol = tolerance(name)
    difference = first_difference(expected, seen, rtol, atol)
    if difference is not None:
        line, why = difference
        raise AssertionError(f"{name}.py: line {line + 1}: {why}\n--- torch:\n{_show(expected, line)}\n"
                             f"--- autograd_lib:\n{_show(seen, line)}")


AS_TORCH_SCRIPT = """
import torch
from torch import nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.utils.data import DataLoader, TensorDataset

layer = nn.Linear(2, 1)
with torch.no_grad():
    layer.weight.copy_(torch.tensor([[0.5, -1.0]]))
    layer.bias.fill_(0.25)
x = torch.arange(6.0).reshape(3, 2)
loader = DataLoader(TensorDataset(x, x.sum(1)), batch_size=2)
for xb, yb in loader:
    loss = F.mse_loss(layer(xb).squeeze(1), yb)
    loss.backward()
    print(f"{loss.item():.6f}", layer.weight.grad.tolist())
print(issubclass(Function, torch.autograd.Function), F.relu(torch.tensor([-1.0, 2.0])))
"""


@requires_torch
def test_as_torch_runs_imports_of_torch_submodules(tmp_path):
    """``python -m autograd_lib.as_torch script.py``: ``from torch import nn`` and kin
    give autograd_lib's modules, and the script prints what it prints under PyTorch."""
    import subprocess
    script = tmp_path / "uses_submodules.py"
    script.write_text(AS_TORCH_SCRIPT)
    runs = [subprocess.run([sys.executable, *prefix, str(script)], capture_output=True, text=True,
                           timeout=120) for prefix in ([], ["-m", "autograd_lib.as_torch"])]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert first_difference(runs[0].stdout, runs[1].stdout, 1e-6, 1e-7) is None, \
        f"torch:\n{runs[0].stdout}\nautograd_lib.as_torch:\n{runs[1].stdout}"
    assert "autograd_lib" not in runs[0].stdout


def test_every_script_is_checked():
    assert len(NAMES) >= 10, NAMES


def test_the_comparison_catches_a_difference():
    """A number beyond the tolerance, and a changed word, are both reported."""
    assert first_difference("loss 1.0000\n", "loss 1.0001\n", 1e-6, 0) == (0, "1.0000 != 1.0001 (rtol=1e-06, atol=0)")
    assert first_difference("a tensor\n", "a Tensor\n", 1e-6, 0) == (0, "the text differs")
    assert first_difference("x\ny\n", "x\n", 1e-6, 0) == (1, "2 lines against 1")
    assert first_difference("dtype=torch.float64\n", "dtype=autograd_lib.float64\n", 0, 0) is None


if __name__ == "__main__":
    for name in sys.argv[1:] or NAMES:
        print(f"=== {name}: torch\n{run_script(name, 'torch')}\n=== {name}: autograd_lib\n"
              f"{run_script(name, 'autograd_lib')}")
