"""Benchmarks for autograd_lib: run ``python -m benchmarks.run`` (see benchmarks/README.md)."""
