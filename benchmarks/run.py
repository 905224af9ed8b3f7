"""Benchmarks for autograd_lib: every number is a ratio against a floor measured in the same run.

Run from the repository root::

    python -m benchmarks.run            # full run (a few minutes)
    python benchmarks/run.py --quick    # CI smoke run (< 60 s)

Three measurements (benchmarks/README.md explains each one and its target):

1. ``mlp_step``    one SGD step of a 784-256-10 ReLU MLP, batch 128, float32:
                   autograd_lib vs a hand-written NumPy forward/backward (the
                   floor) and vs PyTorch.
2. ``per_op``      the Python overhead per recorded op: a 100-op elementwise
                   chain on a 10-element tensor, forward (recording) and
                   backward, autograd_lib vs PyTorch and HIPS autograd (NumPy
                   without recording for context).
3. ``long_chains`` backward through 10^5- and 10^6-node chains, each run in a
                   fresh subprocess: time per node (linearity), tracemalloc
                   bytes per node, peak RSS, no RecursionError, ``del`` works.

The Markdown report goes to stdout (paste it into the README); progress goes to
stderr; the full results are written as JSON (``--json``, default
``benchmarks/results/latest.json``).  A missed target is reported but only
changes the exit status with ``--strict``; a failure (wrong gradients, a
RecursionError or a crash) always exits non-zero.
"""

import argparse
import datetime
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import traceback
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:               # `python benchmarks/run.py` puts benchmarks/ first
    sys.path.insert(0, str(ROOT))

# BLAS / OpenMP pools read these variables once, when NumPy (or torch) is
# loaded, so the thread count must be fixed before the imports below.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
_NUMPY_WAS_IMPORTED = "numpy" in sys.modules


def _pin_threads(argv):
    """Apply ``--threads N`` (default 1) to the BLAS/OpenMP environment; 0 keeps the defaults."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--threads", type=int, default=1)
    threads = early.parse_known_args(argv)[0].threads
    if threads > 0:
        for var in THREAD_VARS:
            os.environ[var] = str(threads)


if __name__ == "__main__":
    _pin_threads(sys.argv[1:])

import numpy as np  # noqa: E402  (after the thread pinning above)

DEFAULT_JSON = ROOT / "benchmarks" / "results" / "latest.json"

# Targets (benchmarks/README.md; issue 38 restated them for a graph of Python objects).
MLP_FLOOR_TARGET = 1.30         # autograd_lib step / NumPy floor step
PER_OP_TARGET = 2.0             # autograd_lib / PyTorch, forward and backward, per op
PER_OP_HIPS_TARGET = 1.0        # autograd_lib / HIPS autograd (pure Python), forward and backward
LINEARITY_TARGET = 1.5          # per-node cost at the largest chain / at the smallest
# The share of the largest chain's build and backward spent in the cyclic GC is reported, no
# longer a target (issue 38: as long as every node is a Python object, the collector scans it).

GRAD_RTOL = 1e-5                # MLP: autograd_lib's (and torch's) gradients vs the NumPy floor's

MLP_SIZES = (784, 256, 10)
MLP_BATCH = 128
MLP_LR = 0.01

CHAIN_OPS = 100                 # per-op benchmark: ops per chain
CHAIN_NUMEL = 10                # ... on a tensor of this many float32 elements

# Long chains: the op appended per node.  "add" (y + 0.0) saves nothing for
# backward; "mul" (y * 1.0000001) saves its scalar operand.
LONG_CHAIN_OPS = ("add", "mul")

# Repetitions: (warm-up, rounds, samples per round per implementation).
FULL = {"mlp": (20, 10, 30), "per_op": (50, 20, 50), "chain_sizes": (10 ** 5, 10 ** 6),
        "memory_sizes": (10 ** 5, 10 ** 6), "chain_timeout": 1800}
QUICK = {"mlp": (5, 4, 10), "per_op": (10, 5, 20), "chain_sizes": (10 ** 4, 10 ** 5),
         "memory_sizes": (10 ** 4,), "chain_timeout": 120}


class BenchmarkError(RuntimeError):
    """A benchmark computed something wrong: its timings would be meaningless."""


def log(message):
    """Progress goes to stderr so that stdout stays a clean Markdown report."""
    print(message, file=sys.stderr, flush=True)


# ======================================================================
# Timing helpers
# ======================================================================

def _now():
    return time.perf_counter_ns()


def _seconds(t0, t1):
    return (t1 - t0) * 1e-9


def rotate(samplers, warmup, rounds, per_round):
    """Time several implementations fairly under a changing background load.

    ``samplers`` maps a name to a function that runs once and returns a tuple
    of durations in seconds (it times its own phases).  Each function is
    warmed up, then the implementations take turns in ``rounds`` blocks of
    ``per_round`` calls each, so a slow period of the machine hits all of them.
    (Turns are blocks, not single calls, so that caches stay warm as they
    would in a real loop.)  Returns ``{name: [tuple, ...]}``.
    """
    for fn in samplers.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in samplers}
    for _ in range(rounds):
        for name, fn in samplers.items():
            for _ in range(per_round):
                samples[name].append(fn())
    return samples


def summarize(values, scale=1.0):
    """Median and best (minimum) of ``values`` times ``scale``, with the sample count."""
    return {"median": statistics.median(values) * scale, "best": min(values) * scale,
            "n": len(values)}


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


# ======================================================================
# 1. MLP training step
# ======================================================================

def make_mlp_data(seed=0):
    """Input batch, integer targets and initial parameters ``[W1, b1, W2, b2]`` (float32).

    Weights are stored (in, out) so that every implementation computes
    ``x @ W + b`` with no transpose; initialised like ``nn.Linear``.
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0]), dtype=np.float32)
    target = rng.integers(0, MLP_SIZES[-1], MLP_BATCH).astype(np.int64)
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return x, target, params


class NumpyMLP:
    """The floor: the same network, forward and backward written by hand in NumPy.

    No graph, no bookkeeping: the least work any NumPy-based autograd could do
    for this step (the softmax is fused into the cross-entropy gradient).
    """

    def __init__(self, x, target, params, lr):
        self.x, self.target, self.lr = x, target, lr
        self.params = [p.copy() for p in params]
        self.rows = np.arange(len(target))

    def loss_and_grads(self):
        """Mean cross-entropy and the gradients of ``[W1, b1, W2, b2]``."""
        x, target, rows = self.x, self.target, self.rows
        w1, b1, w2, b2 = self.params
        z1 = x @ w1
        z1 += b1
        h = np.maximum(z1, 0)
        logits = h @ w2
        logits += b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        logp = shifted - np.log(total)
        loss = -logp[rows, target].mean()
        g = exp / total                      # d loss / d logits = (softmax - onehot) / N
        g[rows, target] -= 1
        g /= len(target)
        dw2 = h.T @ g
        db2 = g.sum(axis=0)
        dh = g @ w2.T
        dh *= z1 > 0                         # ReLU: gradient 0 at and below 0, as in PyTorch
        dw1 = x.T @ dh
        db1 = dh.sum(axis=0)
        return loss, [dw1, db1, dw2, db2]

    def step(self):
        _, grads = self.loss_and_grads()
        for w, g in zip(self.params, grads):
            w -= self.lr * g


class AutogradLibMLP:
    """The step written with autograd_lib's tensor API (no nn, no optim)."""

    def __init__(self, ag, x, target, params, lr):
        self.ag, self.lr = ag, lr
        self.x, self.target = ag.tensor(x), ag.tensor(target)
        self.params = [ag.tensor(p, requires_grad=True) for p in params]

    def loss(self):
        w1, b1, w2, b2 = self.params
        h = (self.x @ w1 + b1).relu()
        logits = h @ w2 + b2
        return self.ag.ops.nll_loss(self.ag.log_softmax(logits, 1), self.target)

    def grads(self):
        """Loss and gradients (as NumPy arrays) at the current parameters, then clear ``.grad``."""
        loss = self.loss()
        loss.backward()
        grads = [w.grad.numpy().copy() for w in self.params]
        for w in self.params:
            w.grad = None
        return float(loss.item()), grads

    def step(self):
        self.loss().backward()
        with self.ag.no_grad():
            for w in self.params:
                w -= self.lr * w.grad
                w.grad = None


class TorchMLP:
    """The same step in PyTorch (the oracle), written the same way."""

    def __init__(self, torch, x, target, params, lr):
        self.torch, self.lr = torch, lr
        self.x, self.target = torch.tensor(x), torch.tensor(target)
        self.params = [torch.tensor(p, requires_grad=True) for p in params]

    def loss(self):
        F = self.torch.nn.functional
        w1, b1, w2, b2 = self.params
        h = (self.x @ w1 + b1).relu()
        logits = h @ w2 + b2
        return F.nll_loss(self.torch.log_softmax(logits, 1), self.target)

    def grads(self):
        loss = self.loss()
        loss.backward()
        grads = [w.grad.numpy().copy() for w in self.params]
        for w in self.params:
            w.grad = None
        return float(loss.item()), grads

    def step(self):
        self.loss().backward()
        with self.torch.no_grad():
            for w in self.params:
                w -= self.lr * w.grad
                w.grad = None


def _max_relative_error(grads, reference):
    """Per parameter: max |a - b| / max |b| (relative to the gradient's scale)."""
    return [float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-30))
            for a, b in zip(grads, reference)]


def check_mlp_gradients(name, model, floor):
    """Abort unless ``model``'s loss and gradients match the NumPy floor's to GRAD_RTOL."""
    ref_loss, ref_grads = floor.loss_and_grads()
    loss, grads = model.grads()
    shapes = [g.shape for g in ref_grads]
    if [g.shape for g in grads] != shapes:
        raise BenchmarkError(f"{name}: gradient shapes {[g.shape for g in grads]} != {shapes}")
    errors = _max_relative_error(grads, ref_grads)
    loss_error = abs(loss - float(ref_loss)) / abs(float(ref_loss))
    if not (max(errors) <= GRAD_RTOL and loss_error <= GRAD_RTOL):
        raise BenchmarkError(
            f"{name}'s MLP gradients disagree with the NumPy floor: relative errors "
            f"{['%.2e' % e for e in errors]} (W1, b1, W2, b2), loss {loss_error:.2e}; "
            f"tolerance {GRAD_RTOL:g}.  Timing a wrong computation is meaningless.")
    return {"max_rel_error_per_param": errors, "loss_rel_error": loss_error}


def bench_mlp_step(ag, torch, reps):
    """Median time of one training step for the NumPy floor, autograd_lib and PyTorch."""
    warmup, rounds, per_round = reps
    x, target, params = make_mlp_data()
    floor = NumpyMLP(x, target, params, MLP_LR)
    models = {"numpy_floor": floor,
              "autograd_lib": AutogradLibMLP(ag, x, target, params, MLP_LR)}
    if torch is not None:
        models["torch"] = TorchMLP(torch, x, target, params, MLP_LR)

    checks = {name: check_mlp_gradients(name, model, floor)
              for name, model in models.items() if name != "numpy_floor"}

    def sampler(step):
        def sample():
            t0 = _now()
            step()
            return (_seconds(t0, _now()),)
        return sample

    samples = rotate({name: sampler(m.step) for name, m in models.items()},
                     warmup, rounds, per_round)
    times = {name: summarize([s[0] for s in v], scale=1e3) for name, v in samples.items()}
    times.setdefault("torch", None)
    med = {k: (v["median"] if v else None) for k, v in times.items()}
    return {
        "config": {"sizes": list(MLP_SIZES), "batch": MLP_BATCH, "dtype": "float32",
                   "lr": MLP_LR, "loss": "log_softmax + nll_loss (mean)",
                   "warmup": warmup, "rounds": rounds, "per_round": per_round},
        "gradient_check": checks,
        "step_ms": times,
        "ratio_vs_numpy_floor": _ratio(med["autograd_lib"], med["numpy_floor"]),
        "ratio_vs_torch": _ratio(med["autograd_lib"], med["torch"]),
        "torch_vs_numpy_floor": _ratio(med["torch"], med["numpy_floor"]),
    }


# ======================================================================
# 2. Per-op overhead
# ======================================================================

def tensor_chain(y, n_ops):
    """``n_ops`` elementwise ops on a tensor (autograd_lib or torch): mul, add, tanh, mul, ..."""
    for _ in range(n_ops // 3):
        y = y * 1.0001
        y = y + 0.001
        y = y.tanh()
    if n_ops % 3 >= 1:
        y = y * 1.0001
    if n_ops % 3 == 2:
        y = y + 0.001
    return y


def numpy_chain(y, n_ops):
    """The same ops on a raw NumPy array (no recording): the floor, for context."""
    for _ in range(n_ops // 3):
        y = y * 1.0001
        y = y + 0.001
        y = np.tanh(y)
    if n_ops % 3 >= 1:
        y = y * 1.0001
    if n_ops % 3 == 2:
        y = y + 0.001
    return y


def hips_chain(anp, y, n_ops):
    """The same ops with HIPS autograd's NumPy wrapper (``autograd.numpy``), traced."""
    for _ in range(n_ops // 3):
        y = y * 1.0001
        y = y + 0.001
        y = anp.tanh(y)
    if n_ops % 3 >= 1:
        y = y * 1.0001
    if n_ops % 3 == 2:
        y = y + 0.001
    return y


def import_hips():
    """HIPS autograd (``pip install autograd``), the pure-Python peer, or None."""
    try:
        import autograd.numpy as anp
        from autograd.core import make_vjp
    except ImportError:
        return None
    return anp, make_vjp


def _hips_sampler(hips, data, n_ops):
    """HIPS autograd: forward = tracing the chain (``make_vjp``), backward = the
    vector-Jacobian product with ones, which is the gradient of ``y.sum()`` (HIPS
    records no sum: its backward has one node fewer than the others')."""
    anp, make_vjp = hips
    ones = np.ones_like(data)

    def sample():
        t0 = _now()
        vjp, _ = make_vjp(lambda x: hips_chain(anp, x, n_ops), data)
        t1 = _now()
        vjp(ones)
        t2 = _now()
        return (_seconds(t0, t1) / n_ops, _seconds(t1, t2) / n_ops)
    return sample


def _per_op_sampler(x, n_ops):
    """Time building the chain from leaf ``x`` and ``y.sum().backward()``, per op."""
    def sample():
        x.grad = None
        t0 = _now()
        y = tensor_chain(x, n_ops)
        t1 = _now()
        y.sum().backward()
        t2 = _now()
        return (_seconds(t0, t1) / n_ops, _seconds(t1, t2) / n_ops)
    return sample


def bench_per_op(ag, torch, reps, hips=None):
    """Forward (recording) and backward cost per op of a short elementwise chain, for
    autograd_lib, PyTorch and HIPS autograd (when installed) taking turns."""
    warmup, rounds, per_round = reps
    data = np.random.default_rng(1).standard_normal(CHAIN_NUMEL).astype(np.float32)

    x_ag = ag.tensor(data, requires_grad=True)
    reference = numpy_chain(data, CHAIN_OPS)
    y_ag = tensor_chain(x_ag, CHAIN_OPS)
    if not np.allclose(y_ag.detach().numpy(), reference, rtol=1e-5, atol=1e-6):
        raise BenchmarkError("per-op chain: autograd_lib's forward differs from NumPy's")
    y_ag.sum().backward()
    grad_ag = x_ag.grad.numpy().copy()
    check = {}
    def numpy_sample():
        t0 = _now()
        numpy_chain(data, CHAIN_OPS)
        return (_seconds(t0, _now()) / CHAIN_OPS,)

    samplers = {"numpy": numpy_sample, "autograd_lib": _per_op_sampler(x_ag, CHAIN_OPS)}
    if torch is not None:
        x_t = torch.tensor(data, requires_grad=True)
        tensor_chain(x_t, CHAIN_OPS).sum().backward()
        grad_t = x_t.grad.numpy()
        err = float(np.max(np.abs(grad_ag - grad_t)) / np.max(np.abs(grad_t)))
        check["grad_rel_error_vs_torch"] = err
        if err > 1e-4:
            raise BenchmarkError(f"per-op chain: autograd_lib's gradient differs from torch's "
                                 f"(relative error {err:.2e})")
        samplers["torch"] = _per_op_sampler(x_t, CHAIN_OPS)
    if hips is not None:
        anp, make_vjp = hips
        grad_h = make_vjp(lambda x: hips_chain(anp, x, CHAIN_OPS), data)[0](np.ones_like(data))
        err = float(np.max(np.abs(grad_ag - grad_h)) / np.max(np.abs(grad_h)))
        check["grad_rel_error_vs_hips"] = err
        if err > 1e-4:
            raise BenchmarkError(f"per-op chain: autograd_lib's gradient differs from HIPS autograd's "
                                 f"(relative error {err:.2e})")
        samplers["hips"] = _hips_sampler(hips, data, CHAIN_OPS)

    samples = rotate(samplers, warmup, rounds, per_round)
    us = 1e6
    result = {"numpy": {"forward_us": summarize([s[0] for s in samples["numpy"]], us),
                        "backward_us": None}}
    for name in ("autograd_lib", "torch", "hips"):
        if name in samples:
            result[name] = {"forward_us": summarize([s[0] for s in samples[name]], us),
                            "backward_us": summarize([s[1] for s in samples[name]], us)}
        else:
            result[name] = None
    ratios = {"forward": None, "backward": None}
    hips_ratios = {"forward": None, "backward": None}
    for peer, peer_ratios in (("torch", ratios), ("hips", hips_ratios)):
        if result[peer] is not None:
            for phase in peer_ratios:
                peer_ratios[phase] = _ratio(result["autograd_lib"][f"{phase}_us"]["median"],
                                            result[peer][f"{phase}_us"]["median"])
    return {"config": {"ops": CHAIN_OPS, "numel": CHAIN_NUMEL, "dtype": "float32",
                       "op_mix": "(y * 1.0001, y + 0.001, y.tanh()) repeated, then y * 1.0001",
                       "backward": "y.sum().backward(), divided by the number of ops",
                       "warmup": warmup, "rounds": rounds, "per_round": per_round},
            "check": check, "per_op": result, "ratio_vs_torch": ratios, "ratio_vs_hips": hips_ratios}


# ======================================================================
# 3. Long chains (each size in a fresh subprocess)
# ======================================================================

def _ru_maxrss_bytes():
    """``ru_maxrss`` in bytes (KiB on Linux, bytes on macOS).  On Linux it also counts the
    parent's peak at the time of the fork, because exec keeps it: see ``_peak_rss_bytes``."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def _proc_status_bytes(field):
    """``VmHWM`` (peak RSS) or ``VmRSS`` (current RSS) of this process image, or None."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _peak_rss_bytes():
    """Peak RSS of this process alone: Linux's VmHWM (reset by exec, unlike ru_maxrss,
    which inherits the parent's peak, here the one of the process that imported torch)."""
    peak = _proc_status_bytes("VmHWM")
    return peak if peak is not None else _ru_maxrss_bytes()


def _current_rss_bytes():
    rss = _proc_status_bytes("VmRSS")
    return rss if rss is not None else _ru_maxrss_bytes()


def build_long_chain(x, op, n):
    """``n`` nodes of one op on ``x``: ``y + 0.0`` (saves nothing) or ``y * 1.0000001``."""
    y = x
    if op == "add":
        for _ in range(n):
            y = y + 0.0
    else:
        for _ in range(n):
            y = y * 1.0000001
    return y


def _expected_grad(op, y):
    """d y / d x for the chain from x = 1: 1 for add; for mul, backward multiplies 1 by the
    same float32 constant n times, exactly as the forward did, so it equals the forward value."""
    return 1.0 if op == "add" else float(y.detach().reshape(-1)[0].item())


def _check_chain_grad(x, op, expected):
    grad = float(x.grad.reshape(-1)[0].item())
    if not (abs(grad - expected) <= 1e-6 * abs(expected)):
        raise BenchmarkError(f"wrong gradient at the leaf: {grad!r}, expected {expected!r}")
    return grad


class GcTimer:
    """Time spent in Python's cyclic garbage collector while active (``gc.callbacks``).

    The collector stays enabled in every benchmark, as in real use; this only
    tells how much of a phase it took (its full collections scan every live
    object, so they grow with the graph)."""

    def __init__(self):
        self.seconds, self.collections, self._start = 0.0, 0, None

    def __call__(self, phase, info):
        if phase == "start":
            self._start = _now()
        elif self._start is not None:
            self.seconds += _seconds(self._start, _now())
            self.collections += 1
            self._start = None

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self)


def _clocks():
    """(wall, CPU) nanoseconds.  CPU time is this process's own (user + system) time: a
    single-threaded run is not charged for the time other programs had the core."""
    return time.perf_counter_ns(), time.process_time_ns()


def _elapsed(c0, c1):
    return _seconds(c0[0], c1[0]), _seconds(c0[1], c1[1])


def chain_time(lib, op, n):
    """Build, backward and ``del`` an n-node chain, timing each; then build and ``del``
    a second chain without backward (the graph still holds its saved tensors).
    Build and backward are timed in wall-clock and in CPU time."""
    x = lib.ones(1, requires_grad=True)
    gc.collect()
    rss_start = _current_rss_bytes()
    with GcTimer() as gc_build:
        c0 = _clocks()
        y = build_long_chain(x, op, n)
        c1 = _clocks()
    with GcTimer() as gc_backward:
        y.sum().backward()
        c2 = _clocks()
    grad = _check_chain_grad(x, op, _expected_grad(op, y))
    rss_peak = _peak_rss_bytes()
    t3 = _now()
    del y
    t4 = _now()
    gc.collect()
    with GcTimer() as gc_build2:
        c5 = _clocks()
        y = build_long_chain(x, op, n)
        c6 = _clocks()
    t6 = _now()
    del y
    t7 = _now()
    builds = [_elapsed(c0, c1), _elapsed(c5, c6)]
    backward = _elapsed(c1, c2)
    return {"build_s": [b[0] for b in builds], "build_cpu_s": [b[1] for b in builds],
            "build_gc_s": [gc_build.seconds, gc_build2.seconds],
            "backward_s": backward[0], "backward_cpu_s": backward[1],
            "backward_gc_s": gc_backward.seconds,
            "del_after_backward_s": _seconds(t3, t4), "del_without_backward_s": _seconds(t6, t7),
            "grad": grad, "rss_growth_bytes_per_node": max(rss_peak - rss_start, 0) / n}


def chain_memory(lib, op, n):
    """tracemalloc (Python allocations only, so autograd_lib only): bytes held by the graph,
    peak during backward, what is left after backward, and after ``del``."""
    x = lib.ones(1, requires_grad=True)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    y = build_long_chain(x, op, n)
    after_build = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    y.sum().backward()
    after_backward, peak_backward = tracemalloc.get_traced_memory()
    _check_chain_grad(x, op, _expected_grad(op, y))
    del y
    gc.collect()
    after_del = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return {"graph_bytes_per_node": (after_build - base) / n,
            "backward_peak_bytes_per_node": (peak_backward - base) / n,
            "backward_extra_bytes_per_node": (peak_backward - after_build) / n,
            "after_backward_bytes_per_node": (after_backward - base) / n,
            "left_after_del_bytes": after_del - base}


def chain_child(spec):
    """Entry point of the subprocess: run one (library, op, size, mode), print one JSON line."""
    if spec["lib"] == "torch":
        import torch as lib
        threads = spec.get("torch_threads", 0)
        if threads > 0:
            lib.set_num_threads(threads)
    else:
        import autograd_lib as lib
    result = {}
    try:
        if spec["mode"] == "time":
            result.update(chain_time(lib, spec["op"], spec["n"]))
        else:
            result.update(chain_memory(lib, spec["op"], spec["n"]))
    except RecursionError as exc:
        result["error"] = f"RecursionError: {exc}"
    except Exception as exc:    # reported as a failure by the parent
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["peak_rss_bytes"] = _peak_rss_bytes()
    result["ru_maxrss_bytes"] = _ru_maxrss_bytes()
    print(json.dumps(result), flush=True)


def run_chain_child(spec, args):
    """Run ``chain_child(spec)`` in a fresh interpreter; a crash or timeout becomes an error."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--threads", str(args.threads),
           "--_chain-child", json.dumps(spec)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                              timeout=args.chain_timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {args.chain_timeout} s"}
    wall = time.perf_counter() - t0
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exit status {proc.returncode}")
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        return {"error": f"subprocess crashed ({how}): {tail}"}
    result = json.loads(lines[-1])
    result["subprocess_wall_s"] = wall
    return result


def bench_long_chains(args, sizes, memory_sizes, have_torch):
    """Every (op, size): an autograd_lib timing run, an autograd_lib tracemalloc run (sizes in
    ``memory_sizes``) and a torch timing run, each in its own fresh subprocess."""
    runs = []
    for op in LONG_CHAIN_OPS:
        for n in sizes:
            jobs = [("autograd_lib", "time")]
            if n in memory_sizes:
                jobs.append(("autograd_lib", "memory"))
            if have_torch:
                jobs.append(("torch", "time"))
            for lib, mode in jobs:
                spec = {"lib": lib, "op": op, "n": n, "mode": mode, "torch_threads": args.threads}
                log(f"  long chain: {lib:12s} {op} n={n:.0e} ({mode}) ...")
                result = run_chain_child(spec, args)
                if "error" in result:
                    log(f"    FAILED: {result['error']}")
                runs.append({**spec, **result})

    per_node = {}
    for r in runs:
        if r["mode"] == "time" and "error" not in r:
            per_node[(r["lib"], r["op"], r["n"])] = {"build": min(r["build_cpu_s"]) / r["n"],
                                                     "backward": r["backward_cpu_s"] / r["n"]}
    linearity = []
    small, large = min(sizes), max(sizes)
    for lib in ("autograd_lib", "torch"):
        for op in LONG_CHAIN_OPS:
            a, b = per_node.get((lib, op, small)), per_node.get((lib, op, large))
            for phase in ("build", "backward"):
                linearity.append({"lib": lib, "op": op, "phase": phase,
                                  "ratio": _ratio(b[phase], a[phase]) if a and b else None})
    return {"config": {"sizes": list(sizes), "memory_sizes": list(memory_sizes),
                       "ops": {"add": "y = y + 0.0 (saves nothing)",
                               "mul": "y = y * 1.0000001 (saves its scalar operand)"},
                       "leaf": "ones(1, requires_grad=True), float32",
                       "backward": "y.sum().backward()",
                       "build_s": "two builds per run (the second one is deleted without "
                                  "backward); per-node figures use the faster",
                       "per_node": "process CPU time (wall-clock times are in the runs too)"},
            "runs": runs, "linearity": linearity, "have_torch": have_torch}


# ======================================================================
# Environment, targets, report
# ======================================================================

def _git(*cmd):
    try:
        return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blas_name():
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version', '')}".strip()
    except Exception:
        return "unknown"


def _version_of(distribution):
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


def _loadavg():
    return [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None


def environment(args, torch):
    """The facts needed to compare two runs (no thread-pool introspection: just counts)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(), "numpy": np.__version__, "blas": _blas_name(),
        "torch": torch.__version__ if torch is not None else "not installed",
        "hips_autograd": _version_of("autograd"),
        "cpu": _cpu_model(), "cpu_count": os.cpu_count(), "usable_cpus": usable,
        "threads": args.threads if args.threads > 0 else "library defaults",
        "thread_env": {v: os.environ.get(v) for v in THREAD_VARS},
        "numpy_imported_before_pinning": _NUMPY_WAS_IMPORTED,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "loadavg_start": _loadavg(),
        "git_commit": _git("rev-parse", "--short", "HEAD"),
        "autograd_lib_uncommitted_changes": bool(_git("status", "--porcelain", "--",
                                                      "autograd_lib")),
        "quick": args.quick, "gc": "enabled (as in real use)",
    }


def _target(name, measured, goal, detail="", unit="x"):
    if measured is None:
        status = "SKIP"
    elif goal is None:
        status = "INFO"                               # reported, no target
    else:
        status = "PASS" if measured <= goal else "MISS"
    return {"name": name, "measured": measured, "goal": goal, "status": status,
            "detail": detail, "unit": unit}


def _shown(value, unit):
    """A measured value or goal as the summary and the report print it."""
    if unit == "%":
        return f"{value * 100:.1f}%"
    if unit == "B":
        return f"{value:.0f} B"
    return f"{value:.3f}x"


def _failed(name, error):
    return {"name": name, "measured": None, "goal": None, "status": "FAIL", "detail": error}


def evaluate_targets(results):
    """PASS / MISS per target (SKIP without torch); FAIL for errors, crashes, RecursionErrors."""
    targets = []
    mlp = results["mlp_step"]
    name = "MLP step: autograd_lib / NumPy floor"
    if "error" in mlp:
        targets.append(_failed(name, mlp["error"]))
    else:
        targets.append(_target(name, mlp["ratio_vs_numpy_floor"], MLP_FLOOR_TARGET))

    per_op = results["per_op"]
    for phase in ("forward", "backward"):
        name = f"per-op {phase}: autograd_lib / PyTorch"
        if "error" in per_op:
            targets.append(_failed(name, per_op["error"]))
        else:
            missing = "torch not installed" if per_op["per_op"]["torch"] is None else ""
            targets.append(_target(name, per_op["ratio_vs_torch"][phase], PER_OP_TARGET, missing))
    for phase in ("forward", "backward"):
        name = f"per-op {phase}: autograd_lib / HIPS autograd"
        if "error" in per_op:
            targets.append(_failed(name, per_op["error"]))
        else:
            missing = "autograd (HIPS) not installed" if per_op["per_op"].get("hips") is None else ""
            targets.append(_target(name, per_op.get("ratio_vs_hips", {}).get(phase), PER_OP_HIPS_TARGET,
                                   missing))

    chains = results["long_chains"]
    if "error" in chains:
        targets.append(_failed("long chains", chains["error"]))
        return targets
    sizes = chains["config"]["sizes"]
    # Short chains are small next to the objects the interpreter already holds, so the
    # garbage collector's full collections (which scan everything) are rarer per node
    # than on long ones: a build ratio at --quick sizes overstates the asymptotic one.
    caveat = ("--quick sizes: indicative only, judge linearity on a full run"
              if results["environment"]["quick"] else "")
    for row in chains["linearity"]:
        if row["lib"] == "autograd_lib":
            targets.append(_target(
                f"long chain {row['op']} {row['phase']}: per node at {max(sizes):.0e} / "
                f"at {min(sizes):.0e}", row["ratio"], LINEARITY_TARGET, caveat))
    largest = max(sizes)
    for r in chains["runs"]:
        if r["lib"] != "autograd_lib" or r["n"] != largest or "error" in r:
            continue
        if r["mode"] == "time":
            fastest = min(range(2), key=lambda i: r["build_s"][i])
            for phase, gc_s, total in (("build", r["build_gc_s"][fastest], r["build_s"][fastest]),
                                       ("backward", r["backward_gc_s"], r["backward_s"])):
                targets.append(_target(f"long chain {r['op']} {phase}: share of time in the cyclic GC at "
                                       f"{largest:.0e}", gc_s / total if total else None,
                                       None, unit="%"))
    for r in chains["runs"]:
        if r["lib"] == "autograd_lib" and r["mode"] == "memory" and "error" not in r:
            targets.append(_target(f"long chain {r['op']}: bytes per node held by the graph at "
                                   f"{r['n']:.0e}", r["graph_bytes_per_node"], None, unit="B"))
    errors = [f"{r['lib']} {r['op']} n={r['n']:.0e} ({r['mode']}): {r['error']}"
              for r in chains["runs"] if "error" in r]
    name = "long chains: no RecursionError, crash or wrong gradient; del works"
    targets.append(_failed(name, "; ".join(errors)) if errors else
                   {"name": name, "measured": None, "goal": None, "status": "PASS",
                    "detail": ""})
    return targets


def _f(value, digits=3):
    """A number with ``digits`` significant digits, or a dash."""
    return "—" if value is None else f"{value:.{digits}g}"


def _x(value):
    return "—" if value is None else f"{value:.2f}x"


def report_environment(env):
    dirty = " + uncommitted autograd_lib changes" if env["autograd_lib_uncommitted_changes"] else ""
    load = env["loadavg_start"][0] if env["loadavg_start"] else None
    return [f"Measured {env['date_utc']}{' with --quick' if env['quick'] else ''} at commit "
            f"{env['git_commit'] or '?'}{dirty}: Python {env['python']}, NumPy {env['numpy']} "
            f"({env['blas']}), PyTorch {env['torch']}, HIPS autograd {env.get('hips_autograd', '?')}; {env['cpu']}, {env['usable_cpus']} usable "
            f"core(s), {env['threads']} BLAS/OpenMP/torch thread(s); load average "
            f"{_f(load, 2)} at start, {_f((env.get('loadavg_end') or [None])[0], 2)} at end.", ""]


def report_mlp(mlp):
    title = (f"**1. MLP training step** ({'-'.join(map(str, MLP_SIZES))} ReLU, batch {MLP_BATCH}, "
             f"float32, log_softmax + nll_loss, forward + backward + SGD update)")
    if "error" in mlp:
        return [title, "", f"FAILED: {mlp['error']}", ""]
    steps = mlp["step_ms"]
    out = [title + f"; median and best of {steps['numpy_floor']['n']} steps", "",
           "| implementation | median ms/step | best ms/step | / NumPy floor |",
           "|---|---:|---:|---:|"]
    labels = {"numpy_floor": "NumPy floor (hand-written backward)", "autograd_lib": "autograd_lib",
              "torch": "PyTorch"}
    for key, label in labels.items():
        t = steps[key]
        if t is None:
            out.append(f"| {label} | not installed | not installed | — |")
        else:
            out.append(f"| {label} | {_f(t['median'])} | {_f(t['best'])} | "
                       f"{_x(t['median'] / steps['numpy_floor']['median'])} |")
    vs_torch = "not installed" if steps["torch"] is None else _x(mlp["ratio_vs_torch"])
    out += [f"| **autograd_lib / PyTorch** | {vs_torch} | | |", ""]
    return out


def report_per_op(per_op):
    title = (f"**2. Per-op overhead** ({CHAIN_OPS} elementwise ops on {CHAIN_NUMEL} float32 "
             f"elements, alternating `* 1.0001`, `+ 0.001`, `tanh`; µs per op")
    if "error" in per_op:
        return [title + ")", "", f"FAILED: {per_op['error']}", ""]
    n = per_op["per_op"]["autograd_lib"]["forward_us"]["n"]
    out = [title + f", median (best) of {n} chains)", "",
           "| library | forward (recording) µs/op | backward µs/op |", "|---|---:|---:|"]
    labels = {"numpy": "NumPy, no recording (floor)", "autograd_lib": "autograd_lib",
              "torch": "PyTorch", "hips": "HIPS autograd (pure Python)"}
    for key, label in labels.items():
        r = per_op["per_op"].get(key)
        if r is None:
            out.append(f"| {label} | not installed | not installed |")
            continue
        cells = ["—" if r[p] is None else f"{_f(r[p]['median'])} ({_f(r[p]['best'])})"
                 for p in ("forward_us", "backward_us")]
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    if per_op["per_op"]["torch"] is None:
        out.append("| **autograd_lib / PyTorch** | not installed | not installed |")
    else:
        ratios = per_op["ratio_vs_torch"]
        out.append(f"| **autograd_lib / PyTorch** | {_x(ratios['forward'])} | "
                   f"{_x(ratios['backward'])} |")
    if per_op["per_op"].get("hips") is None:
        out.append("| **autograd_lib / HIPS autograd** | not installed | not installed |")
    else:
        ratios = per_op["ratio_vs_hips"]
        out.append(f"| **autograd_lib / HIPS autograd** | {_x(ratios['forward'])} | "
                   f"{_x(ratios['backward'])} |")
    return out + [""]


def report_long_chains(chains):
    title = ("**3. Long chains** (each row: fresh subprocess; build and backward in CPU µs "
             "per node")
    if "error" in chains:
        return [title + ")", "", f"FAILED: {chains['error']}", ""]
    out = [title + ", with the part spent in Python's garbage collector in parentheses; "
           "`del` of the whole graph in seconds; memory in bytes per node)", "",
           "| library | op | nodes | build CPU µs/node (gc) | backward CPU µs/node (gc) | del after "
           "backward s | del without backward s | graph B/node | backward peak B/node | "
           "peak RSS growth B/node | peak RSS MB | status |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    runs = chains["runs"]
    memory = {(r["lib"], r["op"], r["n"]): r for r in runs if r["mode"] == "memory"}
    for r in runs:
        if r["mode"] != "time":
            continue
        m = memory.get((r["lib"], r["op"], r["n"]))
        errors = [x["error"] for x in (r, m) if x is not None and "error" in x]
        status = "FAIL: " + "; ".join(errors) if errors else "ok"
        if "error" in r:
            timing = ["—"] * 4
        else:
            n, fastest = r["n"], min(range(2), key=lambda i: r["build_cpu_s"][i])
            timing = [f"{_f(r['build_cpu_s'][fastest] / n * 1e6)} "
                      f"({_f(r['build_gc_s'][fastest] / n * 1e6, 2)})",
                      f"{_f(r['backward_cpu_s'] / n * 1e6)} "
                      f"({_f(r['backward_gc_s'] / n * 1e6, 2)})",
                      _f(r["del_after_backward_s"], 2), _f(r["del_without_backward_s"], 2)]
        if r["lib"] != "autograd_lib":
            mem = ["n/a", "n/a"]                      # tracemalloc cannot see torch's C++ heap
        elif m is None or "error" in m:
            mem = ["—", "—"]
        else:
            mem = [f"{m['graph_bytes_per_node']:.0f}", f"{m['backward_peak_bytes_per_node']:.0f}"]
        rss = ["—" if "rss_growth_bytes_per_node" not in r else
               f"{r['rss_growth_bytes_per_node']:.0f}",
               "—" if "peak_rss_bytes" not in r else f"{r['peak_rss_bytes'] / 2 ** 20:.0f}"]
        out.append(f"| {r['lib']} | {r['op']} | {r['n']:.0e} | " + " | ".join(timing + mem + rss)
                   + f" | {status} |")
    if not chains["have_torch"]:
        out.append("| torch | | | not installed | not installed | | | | | | | |")
    sizes = chains["config"]["sizes"]
    lin = {(r["lib"], r["op"], r["phase"]): r["ratio"] for r in chains["linearity"]}
    out += ["", f"Linearity: per-node cost at {max(sizes):.0e} nodes / at {min(sizes):.0e} nodes",
            "", "| library | op | build | backward |", "|---|---|---:|---:|"]
    for lib in ("autograd_lib", "torch"):
        for op in LONG_CHAIN_OPS:
            if lib == "torch" and not chains["have_torch"]:
                out.append(f"| {lib} | {op} | not installed | not installed |")
            else:
                out.append(f"| {lib} | {op} | {_x(lin.get((lib, op, 'build')))} | "
                           f"{_x(lin.get((lib, op, 'backward')))} |")
    return out + [""]


def report_targets(targets):
    out = ["**Targets**", "", "| target | measured | goal | result |", "|---|---:|---:|---|"]
    for t in targets:
        unit = t.get("unit", "x")
        goal = "—" if t["goal"] is None else f"≤ {_shown(t['goal'], unit)}"
        detail = f" ({t['detail']})" if t["detail"] else ""
        measured = "—" if t["measured"] is None else _shown(t["measured"], unit)
        out.append(f"| {t['name']} | {measured} | {goal} | {t['status']}{detail} |")
    return out


def markdown_report(results):
    """The Markdown printed to stdout (for benchmarks/README.md)."""
    lines = (report_environment(results["environment"]) + report_mlp(results["mlp_step"])
             + report_per_op(results["per_op"]) + report_long_chains(results["long_chains"])
             + report_targets(results["targets"]))
    return "\n".join(lines)


# ======================================================================
# Main
# ======================================================================

def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Benchmark autograd_lib against a NumPy floor and PyTorch, in one run.")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions and smaller chains (CI smoke run, < 60 s)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, metavar="PATH",
                        help="where to write the results (default: benchmarks/results/latest.json)")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a target is missed, not only on failures")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP/torch threads for every library (default 1; "
                             "0 = leave the libraries' defaults)")
    parser.add_argument("--no-torch", action="store_true",
                        help="behave as if PyTorch were not installed")
    parser.add_argument("--no-hips", action="store_true",
                        help="behave as if HIPS autograd (autograd on PyPI) were not installed")
    parser.add_argument("--chain-timeout", type=float, default=None, metavar="SECONDS",
                        help="time allowed per long-chain subprocess "
                             f"(default {FULL['chain_timeout']}, {QUICK['chain_timeout']} with --quick)")
    parser.add_argument("--_chain-child", dest="chain_child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def import_torch(args):
    """PyTorch if installed (and not --no-torch), with its thread count set; else None."""
    if args.no_torch:
        return None
    try:
        import torch
    except ImportError:
        return None
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    return torch


def run_measurement(title, fn):
    """Run one measurement; an unexpected exception becomes ``{"error": ...}`` (reported as
    FAIL) so that the others still run.  A BenchmarkError aborts everything."""
    log(title)
    try:
        return fn()
    except BenchmarkError:
        raise
    except Exception as exc:
        log(traceback.format_exc())
        return {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}


def main(argv=None):
    args = parse_args(argv)
    if args.chain_child:
        chain_child(json.loads(args.chain_child))
        return 0
    plan = QUICK if args.quick else FULL
    if args.chain_timeout is None:
        args.chain_timeout = plan["chain_timeout"]
    started = time.perf_counter()

    import autograd_lib as ag
    torch = import_torch(args)
    results = {"environment": environment(args, torch)}
    status = 0
    try:
        results["mlp_step"] = run_measurement(
            "1/3 MLP step ...", lambda: bench_mlp_step(ag, torch, plan["mlp"]))
        results["per_op"] = run_measurement(
            "2/3 per-op overhead ...", lambda: bench_per_op(ag, torch, plan["per_op"],
                                                            None if args.no_hips else import_hips()))
        results["long_chains"] = run_measurement(
            "3/3 long chains (one subprocess each) ...",
            lambda: bench_long_chains(args, plan["chain_sizes"], plan["memory_sizes"],
                                      torch is not None))
        results["targets"] = evaluate_targets(results)
    except BenchmarkError as exc:
        results["aborted"] = str(exc)
        log("\n" + "!" * 78 + f"\nBENCHMARK ABORTED: {exc}\n" + "!" * 78)
        status = 2
    results["environment"]["loadavg_end"] = _loadavg()
    results["wall_time_s"] = time.perf_counter() - started

    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    if status:
        return status

    print(markdown_report(results))
    log(f"\nSummary ({results['wall_time_s']:.1f} s; JSON in {args.json}):")
    for t in results["targets"]:
        unit = t.get("unit", "x")
        goal = "" if t["goal"] is None else f" (goal <= {_shown(t['goal'], unit)})"
        measured = "" if t["measured"] is None else f" {_shown(t['measured'], unit)}{goal}"
        detail = f"  [{t['detail']}]" if t["detail"] else ""
        log(f"  {t['status']:4s} {t['name']}{measured}{detail}")
    statuses = {t["status"] for t in results["targets"]}
    if "FAIL" in statuses or (args.strict and "MISS" in statuses):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
