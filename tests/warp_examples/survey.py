"""Survey: which of Warp's shipped examples run unchanged with jwarp as ``warp`` (CPU, headless).

Each example runs twice in fresh interpreters, first with real Warp, then through
``python -m jwarp.as_warp``, with the options it accepts among ``--device cpu``, ``--headless``, a
small frame count and no USD stage. An example counts as running when both exit 0; the first error
line of a failing run is kept. (Numbers are compared by ``test_shipped_examples.py`` for a subset.)

Usage: ``python -m tests.warp_examples.survey [--only REGEX] [--timeout S] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = ("fem", "distributed")  # warp.fem is not provided by jwarp; the distributed ones need MPI/NCCL


def _examples() -> tuple[Path, list[Path]]:
    import warp.examples

    base = Path(warp.examples.get_source_directory())
    found = sorted(p for p in base.rglob("example_*.py") if p.parent.name not in SKIP_DIRS)
    return base, found


def _options(source: str) -> list[str]:
    opts = []
    if '"--device"' in source:
        opts += ["--device", "cpu"]
    if '"--headless"' in source:
        opts.append("--headless")
    for name in ("--num_frames", "--num-frames"):
        if f'"{name}"' in source:
            opts += [name, "2"]
    for name in ("--train_iters", "--train-iters", "--num_iters", "--iterations"):
        if f'"{name}"' in source:
            opts += [name, "2"]
    for name in ("--stage_path", "--stage-path"):
        if f'"{name}"' in source:
            opts += [name, "None"]
    return opts


def _error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_.]*(Error|Exception|Exit)\b", line) or "Error:" in line:
            return line[:200]
    return (lines[-1] if lines else "")[:200]


def run_one(path: Path, impl: str, timeout: float) -> tuple[str, float]:
    """("ok" | "timeout" | error line, seconds) for one run."""
    opts = _options(path.read_text())
    cmd = [sys.executable, str(path), *opts] if impl == "warp" else [sys.executable, "-m", "jwarp.as_warp", str(path), *opts]
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=path.parent, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if done.returncode == 0:
        return "ok", seconds
    line = _error_line(done.stderr or done.stdout)
    if done.returncode < 0 or not done.stderr.strip():  # killed (e.g. by the OOM killer): no traceback
        line = f"exit {done.returncode}: {line}"
    return line, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    base, paths = _examples()
    table = {}
    for path in paths:
        name = str(path.relative_to(base))
        if not re.search(args.only, name):
            continue
        warp_result, warp_s = run_one(path, "warp", args.timeout)
        jwarp_result, jwarp_s = ("not run (fails with Warp)", 0.0) if warp_result != "ok" else run_one(path, "jwarp", args.timeout)
        table[name] = {"warp": warp_result, "jwarp": jwarp_result, "warp_s": round(warp_s, 1), "jwarp_s": round(jwarp_s, 1)}
        print(f"{name:50s} warp {warp_result[:40]:40s} jwarp {jwarp_result[:120]}", flush=True)
    both = [n for n, r in table.items() if r["warp"] == "ok"]
    ours = [n for n in both if table[n]["jwarp"] == "ok"]
    print(f"\nrun unchanged with jwarp: {len(ours)} of the {len(both)} examples that run with Warp on this CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
