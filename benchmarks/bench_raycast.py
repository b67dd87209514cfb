"""The geometry ray-cast workload, jwarp against Warp's CPU build, timed in process CPU time.

On a shared machine, wall-clock medians move 2x with the load and XLA's thread pool waits on
descheduled threads; pinned to one core (``taskset -c 0``), the CPU time of each launch is the work
done. Usage::

    PYTHONPATH=. taskset -c 0 python benchmarks/bench_raycast.py [side=1024] [repeats=3]

prints the median CPU milliseconds of ``side * side`` rays for each library, interleaved, and checks
that both found the same hit distances.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from benchmarks.harness import interleaved_ms


def main(side: int = 1024, repeats: int = 3) -> dict:
    import jwarp
    import warp

    from benchmarks.workloads.geometry import _sphere, raycast_program

    warp.config.quiet = True
    warp.init()
    verts, tris = _sphere(64, 128)
    programs = {name: raycast_program(lib, "cpu", verts, tris, side) for name, lib in
                (("jwarp", jwarp), ("warp", warp))}
    for p in programs.values():
        p.step()
        p.sync()
    a, b = programs["jwarp"].output()["t"], programs["warp"].output()["t"]
    assert np.allclose(a, b, rtol=1e-4, atol=1e-4), "hit distances differ"
    def timed(p):
        def step() -> None:
            p.step()
            p.sync()
        return step

    med = interleaved_ms({name: timed(p) for name, p in programs.items()}, repeats, time.process_time)
    print(f"{side * side} rays: jwarp {med['jwarp']:.1f} ms, warp {med['warp']:.1f} ms CPU, "
          f"ratio {med['jwarp'] / med['warp']:.2f}x")
    return med


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))
