"""Run a snippet in a fresh interpreter with several XLA host devices.

``XLA_FLAGS=--xla_force_host_platform_device_count=N`` only takes effect before jax starts, so
multi-device tests run their code in a subprocess. The snippet prints one JSON line (the last
line of stdout) that the test reads back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_with_host_devices(code: str, count: int = 3, timeout: int = 240) -> object:
    """Run ``code`` with ``count`` host devices; return the JSON value of its last output line."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={count}".strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"
    with tempfile.TemporaryDirectory() as tmp:  # a file, since kernels need readable source
        script = Path(tmp) / "multihost_snippet.py"
        script.write_text(textwrap.dedent(code))
        proc = subprocess.run(
            [sys.executable, str(script)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
        )
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])
