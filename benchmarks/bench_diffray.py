"""Warp's shipped ``optim/example_diffray.py`` training step, jwarp against Warp's CPU build.

Each library runs the unchanged example (jwarp through ``jwarp.as_warp``) in its own interpreter:
a taped forward (ray cast, downsample, loss) and ``tape.backward``, timed per iteration after a
first, compiling one. Usage::

    PYTHONPATH=. python benchmarks/bench_diffray.py [height=512] [iterations=3]

prints the median forward and backward seconds of each library, their ratios, and jwarp's peak
resident memory (``height=1024`` is the example's default: 7.4M rays).
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _child(impl: str, height: int, iterations: int) -> None:
    import importlib.util

    warp_dir = Path(importlib.util.find_spec("warp").submodule_search_locations[0])  # real Warp's files
    if impl == "jwarp":
        import jwarp.as_warp

        jwarp.as_warp.alias_warp()
    import warp as wp

    spec = importlib.util.spec_from_file_location("example_diffray", warp_dir / "examples/optim/example_diffray.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)

    wp.config.quiet = True
    forward, backward = [], []
    with wp.ScopedDevice("cpu"):
        e = example.Example(height=height, train_iters=iterations)
        for _ in range(iterations + 1):
            t0 = time.perf_counter()
            e.tape = wp.Tape()
            with e.tape:
                e.forward()
            wp.synchronize()
            t1 = time.perf_counter()
            e.tape.backward(e.loss)
            e.tape.gradients[e.render_mesh.rot].numpy()
            t2 = time.perf_counter()
            forward.append(t1 - t0)
            backward.append(t2 - t1)
            e.tape.zero()
            e.loss.zero_()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # GiB (Linux reports KiB)
    print(json.dumps({"rays": e.num_rays, "forward": forward[1:], "backward": backward[1:], "first": forward[0] + backward[0],
                      "peak_gib": peak}))


def main(height: int = 512, iterations: int = 3) -> dict:
    results = {}
    for impl in ("warp", "jwarp"):
        out = subprocess.run([sys.executable, __file__, "--child", impl, str(height), str(iterations)],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        results[impl] = json.loads(out.stdout.strip().splitlines()[-1])
    w, j = results["warp"], results["jwarp"]
    print(f"example_diffray, height {height} ({j['rays']} rays), median of {iterations} iterations after the first")
    for phase in ("forward", "backward"):
        mw, mj = statistics.median(w[phase]), statistics.median(j[phase])
        print(f"  {phase:8s}  warp {mw:7.3f} s   jwarp {mj:7.3f} s   ratio {mj / mw:5.2f}x")
    print(f"  first iteration (compiles): warp {w['first']:.1f} s, jwarp {j['first']:.1f} s; "
          f"peak memory warp {w['peak_gib']:.2f} GiB, jwarp {j['peak_gib']:.2f} GiB")
    return results


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main(*(int(a) for a in sys.argv[1:3]))
