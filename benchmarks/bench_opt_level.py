"""What ``wp.config.optimization_level = 0`` trades: first-launch (compile) time against run time.

At level 0 every CPU kernel compiles with XLA:CPU's older emitters and fewer LLVM passes
(``jwarp/compiler/emitters.py``). Each case runs in a fresh process with an empty kernel cache, so the
first launch includes the whole compile; the default level and level 0 alternate, ``rounds`` times.
Prints medians and the level-0/default ratios. Usage::

    PYTHONPATH=. python benchmarks/bench_opt_level.py [rounds=3]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import jwarp as wp


@wp.kernel
def loop(x: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        s += wp.sin(x[(i + j) % 256]) * float(j)
    out[i] = s


@wp.kernel
def scatter(x: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, idx[i], x[i] * 2.0)


def _timed(launch, out) -> float:
    start = time.perf_counter()
    launch()
    out.numpy()
    return time.perf_counter() - start


def child(level: int | None) -> dict:
    """In a fresh process: first launch and median run (ms) of each case at ``level``."""
    wp.config.optimization_level = level
    results = {}
    rng = np.random.default_rng(0)
    for dim in (256, 4096):
        x = wp.array(rng.random(dim).astype(np.float32))
        idx = wp.array(rng.integers(0, dim, dim).astype(np.int32))
        out = wp.zeros(dim, dtype=float)
        cases = {"loop": lambda: wp.launch(loop, dim=dim, inputs=[x, 2048, out]),
                 "scatter": lambda: wp.launch(scatter, dim=dim, inputs=[x, idx, out])}
        for name, launch in cases.items():
            first = _timed(launch, out)
            runs = sorted(_timed(launch, out) for _ in range(5))
            results[f"{name} dim={dim}"] = (first * 1e3, runs[2] * 1e3)
    return results


def _run(level: int | None) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, JWARP_CACHE_PATH=cache)
        done = subprocess.run([sys.executable, __file__, "--child", json.dumps(level)], env=env, capture_output=True,
                              text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(rounds: int = 3) -> dict:
    samples: dict = {None: [], 0: []}
    for _ in range(rounds):
        for level in (None, 0):
            samples[level].append(_run(level))
    report = {}
    print(f"{'case':<18} {'first launch ms (default / 0)':>30} {'ratio':>6} {'run ms (default / 0)':>24} {'ratio':>6}")
    for case in samples[None][0]:
        (first_d, run_d), (first_0, run_0) = (
            [statistics.median(s[case][k] for s in samples[level]) for k in (0, 1)] for level in (None, 0))
        report[case] = {"first_ratio": first_0 / first_d, "run_ratio": run_0 / run_d}
        print(f"{case:<18} {first_d:>14.1f} / {first_0:<13.1f} {first_0 / first_d:>6.2f} "
              f"{run_d:>11.3f} / {run_0:<10.3f} {run_0 / run_d:>6.2f}")
    return report


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(json.loads(sys.argv[2]))))
    else:
        main(*(int(a) for a in sys.argv[1:2]))
