"""jwarp benchmark suite (plain scripts; entry point: benchmarks/run.py)."""
