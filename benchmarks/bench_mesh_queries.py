"""In-kernel mesh queries, jwarp against Warp's CPU build, timed in process CPU time (as
``bench_raycast.py``): one launch per query kind on the geometry workload's 16k-triangle sphere.

- ``anyhit``, ``count``: ``mesh_query_ray_anyhit`` / ``mesh_query_ray_count_intersections`` of the
  ray-cast workload's camera rays (``side * side`` of them);
- ``closest``, ``sign_normal``, ``winding``: ``mesh_query_point_no_sign`` / ``mesh_query_point_sign_normal`` /
  ``mesh_query_point_sign_winding_number`` of ``points`` random points in a box around the sphere
  (``max_dist`` 1);
- ``aabb``: a ``for face in wp.mesh_query_aabb(...)`` loop over the faces whose boxes overlap a box
  of half-width 0.05 around each of the ``points`` (counts and sums of face indices).

Usage::

    PYTHONPATH=. taskset -c 0 python benchmarks/bench_mesh_queries.py [side=512] [points=65536] [repeats=3] [kinds, comma-separated]

prints, per kind, the median CPU milliseconds of each library (runs alternate) and their ratio, and
checks that both computed the same results (faces may differ at ties; distances and signs are compared).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from benchmarks.harness import interleaved_ms

KINDS = ("anyhit", "count", "closest", "sign_normal", "winding", "aabb")


def programs(wp, verts: np.ndarray, tris: np.ndarray, side: int, points: np.ndarray) -> dict:
    """``{kind: (step, output)}`` for the library ``wp``."""

    @wp.func
    def camera_ray(tid: int, side: int):
        u = (float(tid % side) + 0.5) / float(side) * 2.0 - 1.0
        v = (float(tid // side) + 0.5) / float(side) * 2.0 - 1.0
        return wp.normalize(wp.vec3(u * 0.5, v * 0.5, -1.0))

    @wp.kernel(module="unique")
    def anyhit(mesh: wp.uint64, side: int, out: wp.array(dtype=int)):
        tid = wp.tid()
        out[tid] = int(wp.mesh_query_ray_anyhit(mesh, wp.vec3(0.0, 0.0, 3.0), camera_ray(tid, side), 2.5))

    @wp.kernel(module="unique")
    def count(mesh: wp.uint64, side: int, out: wp.array(dtype=int)):
        tid = wp.tid()
        out[tid] = wp.mesh_query_ray_count_intersections(mesh, wp.vec3(0.0, 0.0, 3.0), camera_ray(tid, side))

    @wp.kernel(module="unique")
    def closest(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        tid = wp.tid()
        q = wp.mesh_query_point_no_sign(mesh, pts[tid], 1.0)
        d = float(-1.0)
        if q.result:
            d = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - pts[tid])
        out[tid] = d

    @wp.kernel(module="unique")
    def sign_normal(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        tid = wp.tid()
        q = wp.mesh_query_point_sign_normal(mesh, pts[tid], 1.0)
        d = float(-2.0)
        if q.result:
            d = q.sign * wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - pts[tid])
        out[tid] = d

    @wp.kernel(module="unique")
    def winding(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        tid = wp.tid()
        q = wp.mesh_query_point_sign_winding_number(mesh, pts[tid], 1.0)
        d = float(-2.0)
        if q.result:
            d = q.sign * wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - pts[tid])
        out[tid] = d

    @wp.kernel(module="unique")
    def aabb(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec2i)):
        tid = wp.tid()
        h = wp.vec3(0.05, 0.05, 0.05)
        n = int(0)
        total = int(0)
        for face in wp.mesh_query_aabb(mesh, pts[tid] - h, pts[tid] + h):
            n += 1
            total += face
        out[tid] = wp.vec2i(n, total)

    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(tris, dtype=int))
    wound = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(tris, dtype=int),
                    support_winding_number=True)
    pts = wp.array(points, dtype=wp.vec3)
    rays = side * side
    outs = {"anyhit": wp.zeros(rays, dtype=int), "count": wp.zeros(rays, dtype=int),
            "closest": wp.zeros(len(points), dtype=float), "sign_normal": wp.zeros(len(points), dtype=float),
            "winding": wp.zeros(len(points), dtype=float), "aabb": wp.zeros(len(points), dtype=wp.vec2i)}
    launches = {"anyhit": (anyhit, rays, [mesh.id, side]), "count": (count, rays, [mesh.id, side]),
                "closest": (closest, len(points), [mesh.id, pts]),
                "sign_normal": (sign_normal, len(points), [mesh.id, pts]),
                "winding": (winding, len(points), [wound.id, pts]), "aabb": (aabb, len(points), [mesh.id, pts])}

    def make(kind: str):
        kernel, dim, args = launches[kind]

        def step() -> None:
            wp.launch(kernel, dim=dim, inputs=args + [outs[kind]])
            wp.synchronize()
        return step, lambda: outs[kind].numpy()

    programs_ = {k: make(k) for k in KINDS}
    programs_["_keep"] = (mesh, wound, pts)  # keep the mesh alive
    return programs_


def main(side: int = 512, count: int = 65536, repeats: int = 3, kinds: tuple = KINDS) -> dict:
    import jwarp
    import warp

    from benchmarks.workloads.geometry import _sphere

    warp.config.quiet = True
    warp.init()
    verts, tris = _sphere(64, 128)
    rng = np.random.default_rng(0)
    points = (rng.random((count, 3)) * 2.6 - 1.3).astype(np.float32)
    libs = {"jwarp": programs(jwarp, verts, tris, side, points), "warp": programs(warp, verts, tris, side, points)}
    result = {}
    for kind in kinds:
        for lib in libs.values():
            lib[kind][0]()
        a, b = libs["jwarp"][kind][1](), libs["warp"][kind][1]()
        assert np.allclose(a, b, rtol=1e-4, atol=1e-4), f"{kind}: results differ"
        med = interleaved_ms({name: lib[kind][0] for name, lib in libs.items()}, repeats, time.process_time)
        n = side * side if kind in ("anyhit", "count") else count
        print(f"{kind:12s} {n:8d} queries: jwarp {med['jwarp']:8.1f} ms, warp {med['warp']:7.1f} ms CPU, "
              f"ratio {med['jwarp'] / med['warp']:.2f}x", flush=True)
        result[kind] = med
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    nums = [int(x) for x in args[:3]]
    main(*nums, *((tuple(args[3].split(",")),) if len(args) > 3 else ()))
