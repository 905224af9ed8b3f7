"""README's feature table ("Running PyTorch code: what works unmodified") read against the library,
so that it claims nothing the library does not do.

* Every name a supported row lists exists: looked up in the library's namespaces (``F.`` is
  ``nn.functional``, ``torch.`` the library, a leading ``.`` a Tensor method); ``X1d/2d``,
  ``masked_scatter(_)``, ``logaddexp(2)`` and ``ReplicationPad*`` stand for several names.
  A name written as a call without arguments (``cuda.is_available()``) is called.
* Every keyword a row lists (``backward(gradient=, ...)``, ``left=``, ``stride``) is a
  parameter of a callable of that row.
* The claims in a row that a name alone does not show (``checkpoint`` "reentrant or not", the
  anomaly warning, ...) are run (``CLAIMS``): each must be found in exactly one supported row.
* Every item of an unsupported row is really missing: its names do not exist, or refuse with
  one of PyTorch's exception classes and a message; an item without names is checked by
  ``MISSING``, and a new one must be added there.
"""

import inspect
import os
import pathlib
import re
import subprocess
import sys
import warnings

import pytest

import autograd_lib as ag

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
HEADER = "| feature | runs unmodified | notes |"


def feature_rows(text=None):
    """``(feature, status, notes)`` for each row of the table."""
    text = README.read_text() if text is None else text
    start = text.index(HEADER)
    block = text[start:text.index("\n\n", start)].splitlines()[2:]
    rows = []
    for line in block:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 3, f"a row of README's feature table has {len(cells)} cells, not 3: {line}"
        rows.append(tuple(cells))
    return rows


def supported(status):
    return not status.startswith("no")


# ----------------------------------------------------------------- names

NAMESPACES = [ag, ag.Tensor, ag.nn, ag.nn.functional, ag.nn.utils, ag.nn.utils.rnn, ag.nn.init, ag.nn.Module,
              ag.optim, ag.optim.lr_scheduler, ag.optim.Optimizer, ag.autograd, ag.autograd.Function,
              ag.autograd.function, ag.autograd.function.FunctionCtx, ag.autograd.graph, ag.autograd.functional,
              ag.utils.checkpoint, ag.utils.data, ag.linalg, ag.backends, ag.ops.inplace,
              ag.autograd.Function._backward_cls()]            # a ctx: needs_input_grad
PREFIXES = {"torch": ag, "F": ag.nn.functional}
MISSING_NAME = object()

# Backticked words of the table that are not names of the library, and why.
NOT_NAMES = {"ctx": "the conventional name of forward's first argument",
             "x[i]": "an expression, run by CLAIMS"}


def lookup(path):
    """The object ``path`` (``linalg.inv``, ``F.pad``, ``.cpu``, ``ReplicationPad*``) names, or
    MISSING_NAME."""
    if path.startswith("."):
        return lookup_in([ag.Tensor, ag.nn.Module], path[1:])
    head, _, rest = path.partition(".")
    if head in PREFIXES:
        return lookup_in([PREFIXES[head]], rest) if rest else PREFIXES[head]
    return lookup_in(NAMESPACES, path)


def lookup_in(namespaces, path):
    for namespace in namespaces:
        found = namespace
        for part in path.split("."):
            if part.endswith("*"):
                names = [n for n in dir(found) if n.startswith(part[:-1]) and not n.startswith("__")]
                found = getattr(found, names[0]) if names else MISSING_NAME
            else:
                found = getattr(found, part, MISSING_NAME)
            if found is MISSING_NAME:
                break
        if found is not MISSING_NAME:
            return found
    return MISSING_NAME


def tokens(feature):
    """The backticked words of a feature cell, with ``A1d``/``2d`` written out as two names."""
    text = re.sub(r"`([^`]*?)(\d+d)`/`(\d+d)`", r"`\1\2/\3`", feature)
    return re.findall(r"`([^`]+)`", text)


def expand(token):
    """``(names, keywords, called)`` of one backticked word."""
    called = token.endswith("()")
    token = token[:-2] if called else token
    keywords = []
    call = re.fullmatch(r"([\w.]+)\((.*)\)", token)
    if call:
        token, inside = call.groups()
        if inside == "_":                                   # masked_scatter(_): with and without _
            return [token, token + "_"], [], False
        if inside.isdigit():                                # logaddexp(2): logaddexp and logaddexp2
            return [token, token + inside], [], False
        if "/" not in inside:                               # .to(device/dtype) describes, names nothing
            keywords = [k.strip().rstrip("=") for k in inside.split(",") if k.strip()]
    several = re.fullmatch(r"(.*?)(\d+d)((?:/\d+d)+)", token)
    if several:
        base, first, rest = several.groups()
        return [base + first] + [base + d for d in rest.split("/")[1:]], keywords, called
    return [token], keywords, called


def parameters(obj):
    """The parameter names of a callable (a class: of its ``__init__`` and ``forward``)."""
    names = set()
    for fn in ([obj.__init__, getattr(obj, "forward", None)] if inspect.isclass(obj) else [obj]):
        try:
            names |= set(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            pass
    return names


def call_without_arguments(token, name, obj):
    """Run a name the row writes as a call without arguments: a Tensor method on a tensor
    (``stride()``, ``is_set_to()`` given the tensor itself), anything else as it is."""
    x = ag.ones(2, 3)
    method = getattr(x, name.lstrip("."), None) if "." not in name.lstrip(".") else None
    attempts = ([lambda: method(), lambda: method(x)] if method is not None else []) + [lambda: obj()]
    error = None
    for attempt in attempts:
        try:
            attempt()
            return []
        except Exception as e:                              # noqa: BLE001 - the next way, or reported
            error = error or e
    return [f"{token}: calling it raised {type(error).__name__}: {error}"]


def check_supported_row(feature):
    """The names, keywords and calls of one supported row: a list of what is wrong."""
    problems, keywords, found = [], [], []
    for token in tokens(feature):
        if token in NOT_NAMES or token.startswith(("(", '"', "from ", "import ")) or token == "F.*":
            continue
        keyword = re.fullmatch(r"(\w+)=.*", token)
        if keyword:                                         # left=, create_graph=True: a keyword of the row
            keywords.append(keyword.group(1))
            continue
        if token.startswith("grad_fn."):                    # grad_fn._raw_saved_*.register_hooks
            x = ag.tensor([1.0, 2.0], requires_grad=True)
            path = token.replace("grad_fn.", "").replace("*", "self")
            obj = lookup_in([(x * x).grad_fn], path)
            if obj is MISSING_NAME:
                problems.append(f"{token}: not on a node that saves self")
            continue
        names, own_keywords, called = expand(token)
        keywords += [(k, names) for k in own_keywords]
        for name in names:
            obj = lookup(name)
            if obj is MISSING_NAME:
                keywords.append(name)                       # perhaps a keyword (stride, bias, ...)
                continue
            found.append(obj)
            if called:
                problems += call_without_arguments(token, name, obj)
    for keyword in keywords:
        word, owners = keyword if isinstance(keyword, tuple) else (keyword, None)
        candidates = [lookup(n) for n in owners] if owners else found
        if not any(word in parameters(c) for c in candidates if callable(c)):
            problems.append(f"{word!r}: neither a name of the library nor a parameter of "
                            f"{', '.join(owners) if owners else 'a callable of this row'}")
    return problems


# ----------------------------------------------------------------- claims

def _checkpoint_both_ways():
    x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    block = lambda t: (t * 2).exp().sin()                                        # noqa: E731
    expected, = ag.autograd.grad(block(x).sum(), x)
    for reentrant in (True, False):
        x.grad = None
        ag.utils.checkpoint.checkpoint(block, x, use_reentrant=reentrant).sum().backward()
        assert ag.allclose(x.grad, expected), f"checkpoint(use_reentrant={reentrant}): {x.grad}, expected {expected}"
    seq = ag.utils.checkpoint.checkpoint_sequential([lambda t: t * 2, lambda t: t.exp()], 2, x, use_reentrant=False)
    assert ag.allclose(seq, (x * 2).exp()), f"checkpoint_sequential gave {seq}"


def _anomaly_warns_with_the_forward_traceback():
    x = ag.tensor([1.0, 4.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with ag.autograd.detect_anomaly():
            y = x.sqrt()
            y.add_(1)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
    messages = [str(w.message) for w in seen if "Error detected in SqrtBackward0" in str(w.message)]
    assert messages and "y = x.sqrt()" in messages[0], f"expected the anomaly warning with the forward line, saw " \
                                                      f"{[str(w.message) for w in seen]}"


def _zero_dim_view():
    x = ag.arange(3.0)
    assert x[1]._base is x and x[1].shape == (), "x[1] must be a 0-d view of x"


def _once_differentiable_raises():
    class Cube(ag.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t ** 3

        @staticmethod
        @ag.autograd.function.once_differentiable
        def backward(ctx, g):
            t, = ctx.saved_tensors
            return g * 3 * t ** 2
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    g, = ag.autograd.grad((Cube.apply(x) ** 2).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="trying to differentiate twice"):
        g.sum().backward()


CLAIMS = {   # a phrase of a supported row: what checks it
    "(reentrant or not)": _checkpoint_both_ways,
    "with the traceback of the forward call that made it": _anomaly_warns_with_the_forward_traceback,
    "`x[i]` as a 0-d view": _zero_dim_view,
    "raise PyTorch's error if differentiated": _once_differentiable_raises,
}


# ----------------------------------------------------------------- what is missing

def _refuses_cuda():
    assert not ag.cuda.is_available()
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        ag.ones(1).to("cuda")


def _no_other_device():
    assert not ag.backends.mps.is_available() and not ag.accelerator.is_available()
    with pytest.raises(Exception) as raised:
        ag.ones(1, device="mps")
    assert not isinstance(raised.value, AttributeError), f"device='mps' raised {raised.value!r}"


def _loads_in_process():
    pids = []
    loader = ag.utils.data.DataLoader(list(range(4)), batch_size=2, num_workers=2,
                                      collate_fn=lambda batch: pids.append(os.getpid()) or batch)
    assert list(loader) == [[0, 1], [2, 3]] and set(pids) == {os.getpid()}, f"loaded in processes {pids}"


MISSING = {   # an item of an unsupported row without names: what shows it is missing
    "attention": lambda: not hasattr(ag.nn, "MultiheadAttention")
    and not hasattr(ag.nn.functional, "scaled_dot_product_attention"),
    "CUDA": _refuses_cuda,
    "MPS and other devices": _no_other_device,
    "multiprocessing data loading": _loads_in_process,
    "the Gentle Introduction's pretrained": lambda: True,      # resnet18, checked as a name
    "complex dtypes": lambda: not any(hasattr(ag, n) for n in ("complex64", "complex128", "cfloat")),
    "sparse tensors": lambda: not hasattr(ag, "sparse_coo_tensor") and not hasattr(ag.Tensor, "to_sparse"),
    "forward-mode AD": lambda: True,                            # torch.autograd.forward_ad, checked as a name
    # (listed as unsupported until issue 37, while a supported row named detect_anomaly)
    "anomaly detection": lambda: not hasattr(ag.autograd, "detect_anomaly"),
}


def items(feature):
    """The items of an unsupported row: split at ``,`` and ``;`` outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in feature:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch in ",;" and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return [p for p in parts + [current.strip()] if p]


def check_missing_item(item):
    problems = []
    for token in tokens(item):
        obj = lookup(token)
        if obj is MISSING_NAME:
            continue
        if callable(obj):
            try:
                obj(ag.ones(1)) if token.startswith(".") or isinstance(obj, type(ag.Tensor.clone)) else obj()
            except AttributeError as error:
                problems.append(f"{token}: an AttributeError deep inside instead of a refusal: {error}")
                continue
            except Exception:                              # noqa: BLE001 - a refusal, as wanted
                continue
        problems.append(f"{token}: listed as unsupported, but the library has it")
    plain = re.sub(r"\(`[^)]*`\)|`[^`]*`", "", item).strip(" /")
    if plain:
        key = next((k for k in MISSING if plain.startswith(k)), None)
        if key is None:
            problems.append(f"{item!r}: no check in MISSING for it")
        elif MISSING[key]() is False:
            problems.append(f"{item!r}: the library has it")
    return problems


# ----------------------------------------------------------------- the tests

ROWS = feature_rows()


@pytest.mark.parametrize("row", [r for r in ROWS if supported(r[1])], ids=lambda r: r[0][:40])
def test_every_name_of_a_supported_row_exists(row):
    problems = check_supported_row(row[0])
    assert not problems, f"README claims {row[0][:80]!r}... but:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("phrase", list(CLAIMS))
def test_the_claims_of_the_supported_rows_hold(phrase):
    holding = [r for r in ROWS if supported(r[1]) and phrase in r[0]]
    assert len(holding) == 1, f"expected the phrase {phrase!r} in one supported row of README, found {len(holding)}"
    CLAIMS[phrase]()


@pytest.mark.parametrize("row", [r for r in ROWS if not supported(r[1])], ids=lambda r: r[0][:40])
def test_an_unsupported_row_names_nothing_the_library_has(row):
    problems = [p for item in items(row[0]) for p in check_missing_item(item)]
    assert not problems, f"README says {row[0]!r} is not supported, but:\n  " + "\n  ".join(problems)


def test_no_feature_is_both_supported_and_not():
    """A name may not appear in a supported row and in an unsupported one."""
    yes = {t for r in ROWS if supported(r[1]) for t in tokens(r[0])}
    no = {t for r in ROWS if not supported(r[1]) for t in tokens(r[0])}
    assert not yes & no, f"listed as supported and as not: {sorted(yes & no)}"


def test_submodule_imports_of_the_as_torch_row():
    """The row run "with python -m autograd_lib.as_torch": its import lines give our modules."""
    row, = [r for r in ROWS if r[1].startswith("with `python -m autograd_lib.as_torch`")]
    lines = [t for t in tokens(row[0]) if t.startswith(("from ", "import "))]
    assert lines, f"expected import lines in the row {row[0]!r}"
    code = "from autograd_lib import as_torch; as_torch.install()\n" + "\n".join(lines) + "\nprint(nn.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["autograd_lib.nn"], \
        f"{lines} under as_torch: {out.stdout!r} {out.stderr[-500:]!r}"
