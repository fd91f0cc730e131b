"""The parts of benchmarks/make_large_dump.py, which writes a realistic large XLA dump without JAX."""
