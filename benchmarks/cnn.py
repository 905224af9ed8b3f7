"""A small CNN's training step, autograd_lib against PyTorch eager in the same run.

    python -m benchmarks.cnn [--rounds 7]

A batch of 64 MNIST-sized images through two convolutions, max-pooling and two linear
layers, forward and backward (the step of assignment 09's digits capstone, scaled up).
Both run on one thread (``torch.set_num_threads(1)``; NumPy's BLAS as the environment
sets it), taking turns so that a background load slows both alike; the ratio of the
medians is the result.  It used to be a timed unit test (under 1 s); a speed target
belongs here, as a ratio measured side by side, not in the test suite.

Target: autograd_lib's step <= ``TARGET`` x PyTorch's (measured 17x on this project's
2-core machine: the convolutions are im2col matmuls in NumPy, PyTorch's are fused
kernels).  A convolution fallen back to Python loops would be 100x or more.
"""

import argparse
import statistics
import sys
import time

import numpy as np

TARGET = 25.0


def build(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 25, 128), nn.ReLU(), nn.Linear(128, 10))


def step_sampler(lib):
    """A function that runs one step of ``lib``'s CNN and returns its seconds."""
    lib.manual_seed(0)
    model = build(lib)
    x = lib.tensor(np.random.default_rng(1).standard_normal((64, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(np.random.default_rng(0).integers(0, 10, 64))

    def sample():
        start = time.perf_counter()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        return time.perf_counter() - start
    return sample


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    import autograd_lib
    try:
        import torch
    except ImportError:
        print("cnn step: PyTorch is not installed (pip install torch==2.13.0): no ratio to measure")
        return 0
    torch.set_num_threads(1)
    samplers = {"autograd_lib": step_sampler(autograd_lib), "torch": step_sampler(torch)}
    times = {name: [] for name in samplers}
    for name, sample in samplers.items():          # warm-up: first calls allocate
        sample()
    for _ in range(args.rounds):
        for name, sample in samplers.items():
            times[name].append(sample())
    medians = {name: statistics.median(values) for name, values in times.items()}
    ratio = medians["autograd_lib"] / medians["torch"]
    print(f"cnn step (64 x 1 x 28 x 28, two convolutions, forward + backward, one thread): "
          f"autograd_lib {medians['autograd_lib'] * 1e3:.0f} ms, torch {medians['torch'] * 1e3:.1f} ms")
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(f"{verdict} cnn step {ratio:.1f}x PyTorch eager (target <= {TARGET:.0f}x)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
