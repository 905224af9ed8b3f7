"""gradcheck speed: the extending note's ``LinearFunction`` checked in float64.

Run from the repository root (a benchmark, not a test)::

    python -m benchmarks.gradcheck            # 5 rounds
    python -m benchmarks.gradcheck --quick    # 2 rounds

The function is PyTorch's example of a custom ``autograd.Function`` (a linear
layer ``input @ weight.T + bias`` with a hand-written backward), written here,
checked with ``gradcheck(LinearFunction.apply, (input, weight), eps=1e-6,
atol=1e-4)`` on a (20, 20) input and a (30, 20) weight, both float64.

Every judged number is a **ratio against a floor measured in the same run**:

* **the floor** is the work any slow-mode check must do, run as a bare loop:
  two forward passes per input element (1000 elements here: the numerical
  Jacobian's columns) and one backward pass per output element (600: the
  analytic Jacobian's rows), with nothing compared;
* **slow mode** (``fast_mode=False``, the default): ``gradcheck / floor``,
  target <= 3.0 (autograd_lib also runs your ``numerical_grad`` on a random
  projection: two more forward passes per input element);
* **fast mode** (``fast_mode=True``): ``gradcheck / floor``, target <= 0.05
  (two forward passes and one backward pass per input);
* for context, autograd_lib's time against PyTorch's ``gradcheck`` on the same
  function (if torch is installed), same mode, reported without a target.

Before this version, gradcheck built the numerical Jacobian one *row* at a time
through ``numerical_grad``: two forward passes per input element *per output
element*, 2 x 1000 x 600 of them (25 s on the development machine, 6x PyTorch's
slow mode; now 0.09 s).  The Markdown report goes to stdout, progress to
stderr; ``--strict`` exits 1 when a target is missed.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import autograd_lib  # noqa: E402

try:
    import torch
except ImportError:                     # pragma: no cover
    torch = None

SLOW_TARGET = 3.0
FAST_TARGET = 0.05


def linear_function(lib):
    """``LinearFunction.apply`` for ``lib`` (autograd_lib or torch)."""
    return linear_function_class(lib).apply


def linear_function_class(lib):
    """The extending note's LinearFunction, for ``lib`` (autograd_lib or torch)."""
    class LinearFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias
    return LinearFunction


def inputs(lib):
    import numpy as np
    rng = np.random.default_rng(0)
    return (lib.tensor(rng.standard_normal((20, 20)), dtype=lib.float64, requires_grad=True),
            lib.tensor(rng.standard_normal((30, 20)), dtype=lib.float64, requires_grad=True))


def floor(lib, fn, args):
    """Two forward passes per input element, one backward pass per output element."""
    with lib.no_grad():
        for x in args:
            for _ in range(x.numel()):
                fn(*args)
                fn(*args)
    out = fn(*args)
    seed = lib.zeros(out.shape, dtype=lib.float64)
    for _ in range(out.numel()):
        lib.autograd.grad(out, args, seed, retain_graph=True)


def best(run, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)
    rounds = 2 if args.quick else 5
    fn, x = linear_function(autograd_lib), inputs(autograd_lib)
    results = {}
    print("timing the floor ...", file=sys.stderr)
    results["floor"] = best(lambda: floor(autograd_lib, fn, x), rounds)
    for mode in (False, True):
        print(f"timing gradcheck(fast_mode={mode}) ...", file=sys.stderr)
        check = lambda: autograd_lib.autograd.gradcheck(fn, x, eps=1e-6, atol=1e-4,  # noqa: E731
                                                        fast_mode=mode)
        if not check():
            print("gradcheck returned False", file=sys.stderr)
            return 1
        results[mode] = best(check, rounds)
        if torch is not None:
            tfn, tx = linear_function(torch), inputs(torch)
            results[("torch", mode)] = best(lambda: torch.autograd.gradcheck(
                tfn, tx, eps=1e-6, atol=1e-4, fast_mode=mode), rounds)
    floor_time = results["floor"][0]
    missed = []
    print("| measurement | autograd_lib (best, median) | / floor | target | PyTorch | autograd_lib / PyTorch |")
    print("|---|---|---|---|---|---|")
    print(f"| floor: 2 forwards per input element + 1 backward per output element | "
          f"{floor_time:.4f} s, {results['floor'][1]:.4f} s | 1 | | | |")
    for mode, target in ((False, SLOW_TARGET), (True, FAST_TARGET)):
        ours = results[mode][0]
        ratio = ours / floor_time
        ok = ratio <= target
        if not ok:
            missed.append(f"fast_mode={mode}: {ratio:.3f} > {target}")
        theirs = results.get(("torch", mode))
        torch_cols = (f"{theirs[0]:.4f} s | {ours / theirs[0]:.3f}" if theirs else
                      "not installed | ")
        print(f"| gradcheck(fast_mode={mode}) | {ours:.4f} s, {results[mode][1]:.4f} s | "
              f"{ratio:.3f} | <= {target} {'PASS' if ok else 'MISS'} | {torch_cols} |")
    print("; ".join(missed) if missed else "all targets met", file=sys.stderr)
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
