"""jwarp kernels inside jax.shard_map on 8 XLA host devices (run in a subprocess so the device
count is set before JAX starts): a halo-exchange stencil with lax.ppermute (values and
gradients), a data-parallel particle update, and Warp-style launches per shard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROGRAM = Path(__file__).with_name("sharded_program.py")


def test_sharded_stencil_and_particles():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, str(PROGRAM)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["devices"] == 8
    assert result["stencil_err"] < 1e-6
    assert result["stencil_grad_err"] < 1e-5
    assert result["out_sharding"] == "P('x',)"
    assert result["particles_err"] < 1e-5
    assert result["particles_sharded"] == 8
    assert result["while_err"] == 0.0
