"""Builtins called in Python scope: the first call and later calls, jwarp against real Warp.

jwarp runs a Python-scope builtin either op by op or as one traced program per argument signature
(``jwarp/compiler/python_scope.py``); this script times both ways (``op by op`` forces the first) and
real Warp's, in one process. The first call of each row is timed in a fresh state (jwarp's programs
and JAX's in-memory caches cleared; the on-disk cache is switched off), later calls are the median of
``--rounds`` rounds of 50 calls with a changing argument.

    PYTHONPATH=. python benchmarks/bench_python_scope.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np


def cases(wp: Any) -> list[tuple[str, Callable[[int], Any]]]:
    state = wp.rand_init(42)
    return [
        ("sin(float)", lambda i: wp.sin(0.3 + i)),
        ("length(vec3)", lambda i: wp.length(wp.vec3(1.5, 2.5, 0.3 + i))),
        ("quat_from_axis_angle", lambda i: wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), 0.5 + i)),
        ("inverse(mat33)", lambda i: wp.inverse(wp.mat33(1.0 + i, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0))),
        ("randf(uint32)", lambda i: wp.randf(wp.uint32(i))),
        ("noise(state, vec3)", lambda i: wp.noise(state, wp.vec3(1.5, 2.5, 0.3 + i))),
        ("curlnoise(state, vec3)", lambda i: wp.curlnoise(state, wp.vec3(1.5, 2.5, 0.3 + i))),
    ]


def time_case(f: Callable[[int], Any], reset: Callable[[], None], rounds: int) -> tuple[float, float]:
    """(first call in ms, later calls in µs: median of ``rounds`` rounds of 50)."""
    reset()
    start = time.perf_counter()
    f(0)
    first = (time.perf_counter() - start) * 1e3
    per_call = []
    for _ in range(rounds):
        start = time.perf_counter()
        for i in range(50):
            f(i)
        per_call.append((time.perf_counter() - start) / 50 * 1e6)
    return first, float(np.median(per_call))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import jax

    import jwarp
    from jwarp.compiler import python_scope

    jwarp.config.cache_kernels = False  # first calls compile, as in a fresh environment

    def fresh() -> None:
        python_scope.forget()
        jax.clear_caches()

    try:
        import warp

        warp.config.quiet = True
        warp.init()
    except ImportError:
        warp = None
    rows = []
    ours = dict(cases(jwarp))
    theirs = dict(cases(warp)) if warp is not None else {}
    default_min_ops = python_scope.MIN_OPS
    for name, f in ours.items():
        python_scope.MIN_OPS = 10**9  # op by op
        eager = time_case(f, fresh, args.rounds)
        python_scope.MIN_OPS = default_min_ops
        chosen = time_case(f, fresh, args.rounds)
        kind = {s[0]: p for s, p in python_scope._PROGRAMS.items()}
        how = "program" if isinstance(kind.get(name.split("(")[0]), python_scope._Program) else "op by op"
        ref = time_case(theirs[name], lambda: None, args.rounds) if name in theirs else (float("nan"),) * 2
        rows.append((name, how, eager, chosen, ref))
    print(f"{'builtin':24s} {'jwarp runs it':13s} {'first call (ms): op by op / jwarp / warp':>44s}"
          f" {'later calls (us): op by op / jwarp / warp':>44s}  jwarp/warp later")
    for name, how, eager, chosen, ref in rows:
        print(f"{name:24s} {how:13s} {eager[0]:14.1f} {chosen[0]:14.1f} {ref[0]:14.2f}"
              f" {eager[1]:14.1f} {chosen[1]:14.1f} {ref[1]:14.1f}  {chosen[1] / ref[1]:8.1f}x")


if __name__ == "__main__":
    main()
