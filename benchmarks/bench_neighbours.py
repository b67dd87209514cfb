"""Neighbour loops that keep a sum, an extreme or the nearest candidate: jwarp against Warp's CPU build.

Kernels (both libraries in one process, launches alternating; medians of wall-clock milliseconds):

- ``sum``: a hash-grid loop adding a smoothing kernel over the neighbours within the radius;
- ``nearest``: the same loop keeping the nearest other point and its index
  (``if d < best and j != i: best = d; best_j = j``);
- ``max``: the same loop keeping the largest distance within the radius (``m = wp.max(m, d)``);
- ``aabb_nearest``: a ``while wp.mesh_query_aabb_next(query, face)`` loop over a 16k-triangle sphere
  keeping the face whose first corner is nearest to the query point, and the largest face index (the
  distance is compared, not the face: faces sharing the corner tie, and jwarp's tree visits them in
  another order than Warp's).

Usage::

    PYTHONPATH=. python benchmarks/bench_neighbours.py [points=32768] [repeats=15] [kinds, comma-separated]

prints, per kind, both medians and their ratio (< 1: jwarp is faster), after checking that both
computed the same results.
"""

from __future__ import annotations

import sys

import numpy as np

from benchmarks.harness import interleaved_ms

KINDS = ("sum", "nearest", "max", "aabb_nearest")


def programs(wp, points: np.ndarray, verts: np.ndarray, tris: np.ndarray) -> dict:
    """``{kind: (step, output)}`` for the library ``wp``."""

    @wp.kernel(module="unique")
    def summed(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
        tid = wp.tid()
        i = wp.hash_grid_point_id(grid, tid)
        p = x[i]
        s = float(0.0)
        for j in wp.hash_grid_query(grid, p, h):
            d = wp.length(p - x[j])
            if d < h and j != i:
                s += (h - d) * (h - d)
        out[i] = s

    @wp.kernel(module="unique")
    def nearest(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
        tid = wp.tid()
        i = wp.hash_grid_point_id(grid, tid)
        p = x[i]
        best = float(h)
        best_j = int(-1)
        for j in wp.hash_grid_query(grid, p, h):
            d = wp.length(p - x[j])
            if d < best and j != i:
                best = d
                best_j = j
        out[i] = float(best_j)

    @wp.kernel(module="unique")
    def largest(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
        tid = wp.tid()
        i = wp.hash_grid_point_id(grid, tid)
        p = x[i]
        m = float(0.0)
        for j in wp.hash_grid_query(grid, p, h):
            d = wp.length(p - x[j])
            if d < h:
                m = wp.max(m, d)
        out[i] = m

    @wp.kernel(module="unique")
    def aabb_nearest(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec2)):
        tid = wp.tid()
        p = pts[tid]
        h = wp.vec3(0.1, 0.1, 0.1)
        query = wp.mesh_query_aabb(mesh, p - h, p + h)
        face = int(0)
        best = float(1.0e6)
        best_face = int(-1)
        top = int(-1)
        while wp.mesh_query_aabb_next(query, face):
            d = wp.length(wp.mesh_eval_position(mesh, face, 1.0, 0.0) - p)
            if d < best:
                best = d
                best_face = face
            top = wp.max(top, face)
        out[tid] = wp.vec2(best + float(best_face) * 0.0, float(top))

    n = len(points)
    x = wp.array(points, dtype=wp.vec3)
    grid = wp.HashGrid(64, 64, 64)
    grid.build(x, 0.05)
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(tris, dtype=int))
    outs = {k: wp.zeros(n, dtype=wp.vec2 if k == "aabb_nearest" else float) for k in KINDS}
    launches = {"sum": (summed, [grid.id, x, 0.05]), "nearest": (nearest, [grid.id, x, 0.05]),
                "max": (largest, [grid.id, x, 0.05]), "aabb_nearest": (aabb_nearest, [mesh.id, x])}

    def make(kind: str):
        kernel, args = launches[kind]

        def step() -> None:
            wp.launch(kernel, dim=n, inputs=args + [outs[kind]])
            wp.synchronize()
        return step, lambda: outs[kind].numpy()

    made = {k: make(k) for k in KINDS}
    made["_keep"] = (grid, mesh, x)
    return made


def main(count: int = 32768, repeats: int = 15, kinds: tuple = KINDS) -> dict:
    import jwarp
    import warp

    from benchmarks.workloads.geometry import _sphere

    warp.config.quiet = True
    warp.init()
    points = (np.random.default_rng(0).random((count, 3)) * 2.4 - 1.2).astype(np.float32)
    verts, tris = _sphere(64, 128)
    libs = {"jwarp": programs(jwarp, points, verts, tris), "warp": programs(warp, points, verts, tris)}
    result = {}
    for kind in kinds:
        for lib in libs.values():
            lib[kind][0]()
        a, b = libs["jwarp"][kind][1](), libs["warp"][kind][1]()
        assert np.allclose(a, b, rtol=1e-5, atol=1e-6), f"{kind}: results differ"
        med = interleaved_ms({name: lib[kind][0] for name, lib in libs.items()}, repeats)
        print(f"{kind:13s} {count:7d} lanes: jwarp {med['jwarp']:8.2f} ms, warp {med['warp']:8.2f} ms, "
              f"ratio {med['jwarp'] / med['warp']:.2f}x", flush=True)
        result[kind] = med
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    nums = [int(x) for x in args[:2]]
    main(*nums, *((tuple(args[2].split(",")),) if len(args) > 2 else ()))
