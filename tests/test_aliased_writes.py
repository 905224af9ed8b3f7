"""In-place writes whose operand reads the memory being written, in a layout PyTorch's overlap
check does not look into (gaps: ``x[::2]``), side by side with PyTorch 2.13: the elements are
written one at a time in memory order, each reading what the writes before it left
(``x[::2].copy_(x[:3])`` on ``arange(6.)`` gives ``[0, 1, 1, 3, 1, 5]``, not NumPy's buffered
``[..., 2, 5]``), through copy_, the arithmetic ops, ``t[key] = v`` and ``+=``, recorded or not."""

import pytest

import autograd_lib as ag

torch = pytest.importorskip("torch", reason="PyTorch is the oracle; pip install torch==2.13.0")


def _setitem(x):
    x[::2] = x[:6]


def _iadd(x):
    v = x[::2]
    v += x[1:7]


WRITES = {
    "x[::2].copy_(x[:6])": lambda x: x[::2].copy_(x[:6]),
    "x[::2].add_(x[:6])": lambda x: x[::2].add_(x[:6]),
    "x[::2].add_(x[:6], alpha=2)": lambda x: x[::2].add_(x[:6], alpha=2),
    "x[::2].sub_(x[:6])": lambda x: x[::2].sub_(x[:6]),
    "x[::2].mul_(x[1:7])": lambda x: x[::2].mul_(x[1:7]),
    "x[::2].div_(x[1:7])": lambda x: x[::2].div_(x[1:7]),
    "x[:6].copy_(x[::2]) (reads ahead only)": lambda x: x[:6].copy_(x[::2]),
    "x[::3].copy_(x[1:5])": lambda x: x[::3].copy_(x[1:5]),
    "x[1::2].copy_(x[:6])": lambda x: x[1::2].copy_(x[:6]),
    "x.view(3, 4)[:, ::2].copy_(x[:6].view(3, 2))": lambda x: x.view(3, 4)[:, ::2].copy_(x[:6].view(3, 2)),
    "x.view(3, 4)[::2].copy_(x[2:10].view(2, 4))": lambda x: x.view(3, 4)[::2].copy_(x[2:10].view(2, 4)),
    "x.view(3, 4).t()[:, ::2].copy_(x[1:9].view(4, 2)) (memory order)":
        lambda x: x.view(3, 4).t()[:, ::2].copy_(x[1:9].view(4, 2)),
    "x.view(3, 4).t()[::2].copy_(x[:6].view(2, 3)) (memory order)":
        lambda x: x.view(3, 4).t()[::2].copy_(x[:6].view(2, 3)),
    "x[::2] = x[:6]": _setitem,
    "v = x[::2]; v += x[1:7]": _iadd,
    "x[2:5].copy_(x[0:3]) (refused: partial overlap)": lambda x: x[2:5].copy_(x[0:3]),
}


def _values(lib, write):
    x = lib.arange(12.)
    try:
        write(x)
    except RuntimeError as error:
        return f"RuntimeError: {error}"
    return x.tolist()


@pytest.mark.parametrize("label", list(WRITES))
def test_aliased_write_matches_pytorch(label):
    expected, seen = _values(torch, WRITES[label]), _values(ag, WRITES[label])
    assert seen == expected, f"{label} on arange(12.): expected PyTorch's {expected}, seen {seen}"


@pytest.mark.parametrize("label", ["b[::2].copy_(b[:6])", "b[::2].mul_(b[1:7])"])
def test_recorded_aliased_write_matches_pytorch(label):
    def story(lib):
        w = lib.arange(12., requires_grad=True)
        b = w * 1
        (b[::2].copy_(b[:6]) if "copy_" in label else b[::2].mul_(b[1:7]))
        try:
            (b * lib.arange(12.)).sum().backward()
        except RuntimeError as error:       # mul_ saved b[1:7], which the write changed
            return b.detach().tolist(), str(error).split(":")[0]
        return b.detach().tolist(), w.grad.tolist()
    expected, seen = story(torch), story(ag)
    assert seen == expected, f"(b, w.grad) after b = w * 1; {label}: expected PyTorch's {expected}, seen {seen}"
