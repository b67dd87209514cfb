"""Warp's shipped examples, step by step: jwarp against real Warp's CPU build.

Each example runs in a fresh process per implementation: construct it, call its step methods
``warm`` times (compiles, and the launch chains that fuse after a few sightings), then time
``repeats`` more calls; every call is followed by ``wp.synchronize()`` (as the examples' frame loops
are, by reading results back for their renderers). Prints the best time per
implementation and the jwarp/Warp ratio (< 1: jwarp is faster). Needs ``warp-lang`` for Warp's side;
some examples need ``usd-core`` (their rows then say so). Usage::

    PYTHONPATH=. python benchmarks/bench_examples.py [name-substring ...]

The SPH and DEM rows time one frame (40 and 64 substeps) and take a minute or more each.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

# (example path under warp/examples, constructor kwargs, methods per step, warm-up steps, timed steps)
EXAMPLES = [
    ("core/example_wave.py", {"stage_path": None}, ["step"], 8, 5),
    ("core/example_fluid.py", {}, ["step"], 8, 5),
    ("core/example_graph_capture.py", {}, ["step"], 8, 5),
    ("core/example_nvdb.py", {"stage_path": None}, ["step"], 8, 5),
    ("core/example_fdtd_3d.py", {}, ["step"], 8, 5),
    ("core/example_raymarch.py", {"height": 240, "width": 320}, ["render"], 3, 3),
    ("core/example_fft_poisson_navier_stokes_2d.py", {}, ["step"], 8, 5),
    ("core/example_mesh.py", {"stage_path": None}, ["step"], 8, 5),
    ("core/example_mesh_intersect.py", {"stage_path": None}, ["step"], 8, 5),
    ("core/example_raycast.py", {"height": 240, "width": 320}, ["render"], 3, 3),
    ("optim/example_particle_repulsion.py", {}, ["step"], 5, 3),
    ("core/example_sph.py", {"stage_path": None}, ["step"], 1, 2),
    ("core/example_dem.py", {"stage_path": None}, ["step"], 1, 2),
]

_CHILD = r"""
import importlib.util, json, os, sys, time
root, impl, path, kwargs, methods, warm, repeats = json.loads(sys.argv[1])
if impl == "jwarp":
    import jwarp.as_warp
    jwarp.as_warp.alias_warp()
import warp as wp
wp.config.quiet = True
wp.init()
spec = importlib.util.spec_from_file_location("example", os.path.join(root, path))
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
example = module.Example(**kwargs)
for _ in range(warm):
    for m in methods:
        getattr(example, m)()
    wp.synchronize()
times = []
for _ in range(repeats):
    start = time.perf_counter()
    for m in methods:
        getattr(example, m)()
    wp.synchronize()
    times.append(time.perf_counter() - start)
print("RESULT", json.dumps(min(times)))
"""


def examples_root() -> str | None:
    """Where real Warp's examples are (``warp/examples`` of the installed warp-lang), or None."""
    spec = importlib.util.find_spec("warp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "examples")


def time_example(root: str, impl: str, case: tuple) -> float | str:
    """Best step time in seconds, or the reason there is none."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([root, impl, *case])], capture_output=True,
                          text=True, timeout=1800)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return float(line.split(" ", 1)[1])
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return f"failed: {last[:80]}"


def _show(t: float | str) -> str:
    return f"{t * 1e3:10.1f} ms" if isinstance(t, float) else t


def main(filters: list[str]) -> None:
    root = examples_root()
    if root is None:
        sys.exit("warp-lang is not installed: its examples are what this script times")
    print(f"{'example':48s} {'Warp':>13s} {'jwarp':>13s}  jwarp/Warp")
    for case in EXAMPLES:
        if filters and not any(f in case[0] for f in filters):
            continue
        theirs, ours = time_example(root, "warp", case), time_example(root, "jwarp", case)
        ratio = f"{ours / theirs:.2f}x" if isinstance(ours, float) and isinstance(theirs, float) else "-"
        print(f"{case[0]:48s} {_show(theirs):>13s} {_show(ours):>13s}  {ratio}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
