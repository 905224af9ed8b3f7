"""Shared helpers for the tests: PyTorch as the oracle, and converters.

autograd_lib never imports torch; only these tests do, to compare the two
libraries side by side.  Tests that need torch take the ``torch`` fixture or
carry the ``requires_torch`` marker, so without torch they are skipped with
an explanation instead of failing.
"""

import re
import warnings

import numpy as np
import pytest

import autograd_lib

try:
    import torch as _torch
except ImportError:                     # pragma: no cover - depends on the environment
    _torch = None

TORCH_REASON = "PyTorch is the oracle for this test; install it with pip install torch==2.13.0"

requires_torch = pytest.mark.skipif(_torch is None, reason=TORCH_REASON)


@pytest.fixture
def torch():
    """The torch module; the test is skipped when torch is not installed."""
    if _torch is None:
        pytest.skip(TORCH_REASON)
    return _torch


# ----------------------------------------------------------------- converters

def to_torch(t, requires_grad=None):
    """A torch tensor with the values and dtype of autograd_lib tensor ``t`` (a copy)."""
    array = np.array(t.detach()._data if isinstance(t, autograd_lib.Tensor) else t, copy=True)
    out = _torch.from_numpy(array)
    if requires_grad is None:
        requires_grad = isinstance(t, autograd_lib.Tensor) and t.requires_grad
    return out.requires_grad_(requires_grad)


def from_torch(t, requires_grad=None):
    """An autograd_lib tensor with the values and dtype of torch tensor ``t`` (a copy)."""
    out = autograd_lib.tensor(t.detach().numpy().copy())
    if requires_grad is None:
        requires_grad = t.requires_grad
    return out.requires_grad_(requires_grad) if requires_grad else out


def to_numpy(t):
    """The values of a tensor of either library as a NumPy array."""
    if isinstance(t, autograd_lib.Tensor):
        return np.asarray(t.detach()._data)
    return t.detach().numpy()


# ------------------------------------------------------------ assertion helper

def assert_same(expected, seen, what="value"):
    """Fail with both sides printed when ``seen`` (ours) differs from ``expected`` (torch)."""
    if expected != seen:
        raise AssertionError(f"{what} differs\n  expected (torch):        {expected!r}\n"
                             f"  seen (autograd_lib):     {seen!r}")


def assert_close(expected, seen, what="values", rtol=None, atol=None):
    expected, seen = np.asarray(expected), np.asarray(seen)
    if expected.shape != seen.shape:
        assert_same(expected.shape, seen.shape, f"{what}: shape")
    if rtol is None:
        low = expected.dtype in (np.float32, np.float16) or seen.dtype in (np.float32, np.float16)
        rtol, atol = (1e-4, 1e-5) if low else (1e-7, 1e-10)
    if expected.dtype.kind in "biu" and seen.dtype.kind in "biu":
        ok = np.array_equal(expected, seen)
    else:
        ok = np.allclose(seen.astype(np.float64), expected.astype(np.float64), rtol=rtol,
                         atol=atol, equal_nan=True)
    if not ok:
        raise AssertionError(f"{what} differ\n  expected (torch):\n{expected!r}\n"
                             f"  seen (autograd_lib):\n{seen!r}")


def key_sentence(message):
    """The part of an error/warning message both libraries must share: torch's first
    sentence (up to the first '. ' or newline), with "torch." read as "autograd_lib."."""
    message = message.replace("torch.", "autograd_lib.")
    first = re.split(r"\.\s|\n", message, maxsplit=1)[0]
    return first.strip()


def capture(fn, *args):
    """Run ``fn(*args)``; returns (result, exception, [UserWarning messages])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = fn(*args), None
        except Exception as e:          # noqa: BLE001 - compared with torch's
            result, error = None, e
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    return result, error, messages


# ----------------------------------------------------------------- parallel runs

# `make test` runs the suite in parallel workers (pytest-xdist, -n): most of its time is
# kernels, pip and browsers waiting, not CPU.  A group runs whole in one worker, so a
# session fixture it shares (a generated course and its grading pool, an edition's
# virtual environment, a hub, the Binder environment) is built once.  The slow groups go
# first, longest first; every other module is a group of its own (its module fixtures
# too are built once), handed to whichever worker is free.
SLOW_GROUPS = [
    # grading the mistake catalog (the pipeline submits it to the pool, nbval overlaps it)
    ("course-grading", ("tests/course/test_pipeline.py", "tests/course/test_mistakes.py",
                        "tests/course/test_solutions_nbval.py")),
    ("course", ("tests/course/",)),
    ("editions", ("tests/test_editions_stages.py",)),
    # the load test: a hub of its own with a class of 4, in a worker of its own beside the hub test
    ("load", ("tests/hub/test_load.py",)),
    ("hub", ("tests/hub/",)),
    ("binder", ("tests/binder/",)),
]


def group_of(path):
    """(rank, name) of the group of the test file at ``path`` (relative to the repository,
    with forward slashes): a slow group's, or the file's own after them."""
    for rank, (name, prefixes) in enumerate(SLOW_GROUPS):
        if path.startswith(prefixes):
            return rank, name
    return len(SLOW_GROUPS), path


@pytest.hookimpl(trylast=True)          # after tests/course's own ordering, which it keeps
def pytest_collection_modifyitems(config, items):
    rank = {item.nodeid: group_of(item.nodeid.split("::", 1)[0])[0] for item in items}
    items.sort(key=lambda item: rank[item.nodeid])      # stable: the order within a group kept


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:                     # pragma: no cover - xdist is in the test extra
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:
    class GroupScheduling(LoadScopeScheduling):
        """xdist's scheduling by scope, with group_of() as the scope: each group goes
        whole to one worker, in the order collected (slow groups first)."""

        def _split_scope(self, nodeid):
            return group_of(nodeid.split("::", 1)[0])[1]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(config, log):
        config.option.loadscopereorder = False      # keep the collected order
        return GroupScheduling(config, log)
