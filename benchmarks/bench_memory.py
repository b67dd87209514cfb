"""Launch memory and repeat-launch cost, each measured in a fresh child process.

Rows:

- ``peak``: peak resident memory (RSS high-water, ``VmHWM``) of a process that launches
  ``wp.atomic_add(h, i % 16, 1)`` over ``2^--log2`` threads (default 2^28), for jwarp (default memory
  budget) and real Warp (CPU, when installed), next to the same process's RSS before the launch.
  Target: jwarp <= 1 GiB.
- ``second launch``: for a few kernels, the first launch (trace + compile + run), the second launch,
  and the steady launch (median of later ones). ``ratio`` = (second - steady) / (first - steady): what
  the second launch pays on top of a steady one, as a share of the first compile. Target: <= 5%.

Usage: ``python benchmarks/bench_memory.py [--log2 28] [--skip-warp] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GIB = 1 << 30


def peak_rss_bytes() -> int:
    """This process's peak resident memory since it started its program: ``VmHWM`` of
    ``/proc/self/status`` where there is one. (``ru_maxrss`` survives ``exec`` on Linux: a child
    spawned by a big parent, e.g. a long pytest run, reports the parent's peak.)"""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def _library(name: str):
    if name == "jwarp":
        sys.path.insert(0, ROOT)
        import jwarp as wp
    else:
        import warp as wp

        wp.config.quiet = True
        wp.init()
    return wp


def child_peak(lib: str, log2: int) -> dict:
    """Peak RSS of one 2^log2-thread histogram launch (and the RSS before it)."""
    import time

    wp = _library(lib)

    @wp.kernel
    def histogram(h: wp.array(dtype=int)):
        i = wp.tid()
        wp.atomic_add(h, i % 16, 1)

    h = wp.zeros(16, dtype=int, device="cpu")
    wp.synchronize()
    before = peak_rss_bytes()
    start = time.perf_counter()
    wp.launch(histogram, dim=1 << log2, inputs=[h], device="cpu")
    values = h.numpy()
    seconds = time.perf_counter() - start
    ok = bool((values == (1 << log2) // 16).all())
    return {"before": before, "peak": peak_rss_bytes(), "seconds": seconds, "correct": ok}


def child_second_launch(lib: str) -> list:
    """First, second and steady launch times of a few kernels (seconds)."""
    import time

    import numpy as np

    wp = _library(lib)

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    @wp.kernel
    def springs(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3), k: float):
        i = wp.tid()
        n = x.shape[0]
        acc = wp.vec3()
        for j in range(8):
            d = x[(i + j + 1) % n] - x[i]
            length = wp.length(d)
            if length > 1.0e-6:
                acc += k * (length - 1.0) * d / length
        wp.atomic_add(f, i, acc)
        v[i] = v[i] + acc * 0.01

    @wp.kernel
    def noise(seed: int, out: wp.array(dtype=float)):
        i = wp.tid()
        state = wp.rand_init(seed, i)
        p = wp.vec3(wp.randf(state), wp.randf(state), wp.randf(state))
        out[i] = wp.noise(state, p) + wp.pnoise(state, wp.vec2(p[0], p[1]), 4, 4)

    n = 1 << 16
    rng = np.random.default_rng(0)
    cases = [
        ("saxpy", saxpy, lambda: [2.0, wp.ones(n), wp.ones(n)]),
        ("springs", springs, lambda: [wp.array(rng.random((n, 3), dtype=np.float32), dtype=wp.vec3),
                                      wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3), 3.0]),
        ("noise", noise, lambda: [7, wp.zeros(n)]),
    ]
    rows = []
    for name, kernel, make in cases:
        args = make()
        times = []
        for _ in range(12):
            start = time.perf_counter()
            wp.launch(kernel, dim=n, inputs=args, device="cpu")
            wp.synchronize()
            times.append(time.perf_counter() - start)
        steady = sorted(times[2:])[len(times[2:]) // 2]
        first, second = times[0], times[1]
        ratio = (second - steady) / max(first - steady, 1e-9)
        rows.append({"kernel": name, "first": first, "second": second, "steady": steady, "ratio": ratio})
    return rows


def _run_child(*argv: str) -> object:
    env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *argv], capture_output=True,
                          text=True, env=env, timeout=1200)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout)[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=28, help="threads of the histogram launch: 2^LOG2")
    parser.add_argument("--skip-warp", action="store_true", help="do not run real Warp")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        what, lib, *rest = args.child
        result = child_peak(lib, int(rest[0])) if what == "peak" else child_second_launch(lib)
        print(json.dumps(result))
        return 0
    libs = ["jwarp"]
    if not args.skip_warp:
        try:
            import importlib.util

            if importlib.util.find_spec("warp") is not None:
                libs.append("warp")
        except Exception:
            pass
    report = {"log2": args.log2, "peak": {lib: _run_child("peak", lib, str(args.log2)) for lib in libs},
              "second_launch": _run_child("second", "jwarp")}
    failed = isinstance(report["second_launch"], dict) or any("error" in row for row in report["peak"].values())
    if args.json:
        print(json.dumps(report, indent=1))
        return 1 if failed else 0
    print(f"peak memory, 2^{args.log2}-thread atomic_add(h, i % 16, 1) launch (target jwarp <= 1 GiB)")
    for lib, row in report["peak"].items():
        if "error" in row:
            print(f"  {lib:6s} ERROR {row['error'][-300:]}")
            continue
        print(f"  {lib:6s} peak {row['peak'] / GIB:6.3f} GiB   before launch {row['before'] / GIB:6.3f} GiB   "
              f"{row['seconds']:7.2f} s   {'correct' if row['correct'] else 'WRONG'}")
    print("second launch vs first compile, jwarp (target ratio <= 5%)")
    rows = report["second_launch"]
    if isinstance(rows, dict):
        print(f"  ERROR {rows['error'][-300:]}")
        return 1
    for row in rows:
        print(f"  {row['kernel']:8s} first {row['first'] * 1e3:8.1f} ms  second {row['second'] * 1e3:8.1f} ms  "
              f"steady {row['steady'] * 1e3:7.2f} ms  ratio {row['ratio'] * 100:6.1f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
