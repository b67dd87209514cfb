"""Shared pytest configuration: run jwarp on the CPU, quiet real Warp."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
