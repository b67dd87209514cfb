"""``wp.Mesh`` construction and ``refit`` cost, jwarp against Warp's CPU build, interleaved.

A UV sphere of ``2 * rows * cols`` triangles (default 512 x 512: 523,264 faces), with and without
``support_winding_number``; a refit after moving every point (Warp's per-frame cost in simulations
that deform a collision mesh). Prints median wall-clock seconds per library and the jwarp/warp ratio,
and checks that rays cast at the refitted meshes hit at the same distances in both libraries. Usage::

    PYTHONPATH=. python benchmarks/bench_mesh_build.py [rows=512] [cols=512] [repeats=3]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np


def _sphere(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    from tests.differential.meshes import uv_sphere

    pts, tris = uv_sphere(rows, cols)
    return np.asarray(pts, np.float32), np.asarray(tris, np.int32).reshape(-1)


def _timed(fn, sync) -> float:
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start


def main(rows: int = 512, cols: int = 512, repeats: int = 3) -> dict:
    import jwarp
    import warp

    warp.config.quiet = True
    warp.init()
    pts, tris = _sphere(rows, cols)
    moved = pts * np.float32(1.5) + np.float32(0.25)
    libs = {"jwarp": jwarp, "warp": warp}
    times: dict = {}
    roots: dict = {}
    for winding in (False, True):
        for name, wp in libs.items():
            points = wp.array(pts, dtype=wp.vec3)
            indices = wp.array(tris, dtype=wp.int32)
            state = {}

            def build(wp=wp, points=points, indices=indices, state=state) -> None:
                state["mesh"] = wp.Mesh(points=points, indices=indices, support_winding_number=winding)

            def refit(points=points, state=state) -> None:
                state["mesh"].refit()

            build()  # warm-up (compiles jwarp's refit program)
            for _ in range(repeats):
                times.setdefault((winding, name, "build"), []).append(_timed(build, wp.synchronize))
                points.assign(moved)
                times.setdefault((winding, name, "refit"), []).append(_timed(refit, wp.synchronize))
                points.assign(pts)
            points.assign(moved)
            refit()
            roots[name] = _root_bounds(wp, state["mesh"], moved)
    print(f"mesh of {tris.size // 3} triangles, median seconds over {repeats} runs")
    summary = {}
    for winding in (False, True):
        for what in ("build", "refit"):
            j = statistics.median(times[(winding, "jwarp", what)])
            w = statistics.median(times[(winding, "warp", what)])
            label = f"{what}{' (winding numbers)' if winding else ''}"
            summary[label] = (j, w, j / w)
            print(f"  {label:28s} jwarp {j:7.3f}  warp {w:7.3f}  jwarp/warp {j / w:6.2f}x")
    assert np.allclose(roots["jwarp"], roots["warp"], rtol=1e-5, atol=1e-5), "ray hits differ after the refit"
    assert (roots["jwarp"] > 0).sum() > 32, "the rays should hit the refitted mesh"
    return summary


def _ray_kernel(wp):
    @wp.kernel
    def cast(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), t_out: wp.array(dtype=float)):
        i = wp.tid()
        q = wp.mesh_query_ray(mesh, origins[i], wp.vec3(-1.0, 0.0, 0.0), 1.0e6)
        t_out[i] = wp.where(q.result, q.t, -1.0)

    return cast


def _root_bounds(wp, mesh, points: np.ndarray) -> np.ndarray:
    """Hit distances of rays cast along -x at the refitted mesh: a refit that left a node box behind
    misses hits. (Both libraries' results are compared.)"""
    ys = np.linspace(points[:, 1].min(), points[:, 1].max(), 64, dtype=np.float32)
    origins = np.stack([np.full(64, points[:, 0].max() + 10.0, np.float32), ys, np.zeros(64, np.float32)], axis=1)
    out = wp.zeros(64, dtype=float)
    wp.launch(_ray_kernel(wp), 64, inputs=[mesh.id, wp.array(origins, dtype=wp.vec3)], outputs=[out])
    return out.numpy()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
