"""Spatial queries, written once in Warp's API and timed for jwarp against real Warp's CPU build:

- ``sph step``: one step of a hash-grid SPH density + pressure-force pass (as Warp's ``example_sph``):
  ``HashGrid.build`` over the particles, then two kernels that walk each particle's neighbours with
  ``wp.hash_grid_query``. The dense case has ``example_sph``'s layout: a jittered lattice at the
  query radius, four times taller than the grid, so each query's cells hold points of four heights
  (about 108 candidates per query, 7 of them neighbours; the sparse case has about 14).
- ``mesh ray cast``: one ``wp.mesh_query_ray`` per ray against a triangulated sphere, rays from a
  pinhole camera (``--quick``: 2^16 rays; else 2^20), writing hit distance and face.

There is no hand-written jnp version (a jnp hash grid or BVH would be a second implementation of the
same structure, not a reference); outputs are compared between jwarp and Warp.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "geometry"


def sph_program(wp, device: str, points_host: np.ndarray, radius: float, dims: int = 64) -> Program:
    """Density and pressure forces over hash-grid neighbours; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.func
    def kernel_weight(r2: float, h: float):
        q = h * h - r2
        return wp.where(q > 0.0, q * q * q, 0.0)

    @wp.kernel(module="unique")
    def density(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, rho: wp.array(dtype=float)):
        i = wp.hash_grid_point_id(grid, wp.tid())
        p = x[i]
        total = float(0.0)
        for j in wp.hash_grid_query(grid, p, h):
            d = x[j] - p
            total += kernel_weight(wp.dot(d, d), h)
        rho[i] = total

    @wp.kernel(module="unique")
    def forces(grid: wp.uint64, x: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float), h: float,
               f: wp.array(dtype=wp.vec3)):
        i = wp.hash_grid_point_id(grid, wp.tid())
        p = x[i]
        acc = wp.vec3()
        for j in wp.hash_grid_query(grid, p, h):
            d = p - x[j]
            r = wp.length(d)
            if r > 1.0e-6 and r < h:
                acc += d * ((rho[i] + rho[j]) * (h - r) * (h - r) / r)
        f[i] = acc

    n = points_host.shape[0]
    x = wp.array(points_host, dtype=wp.vec3, device=device)
    rho = wp.zeros(n, dtype=float, device=device)
    f = wp.zeros(n, dtype=wp.vec3, device=device)
    grid = wp.HashGrid(dims, dims, dims, device=device)

    def step():
        grid.build(x, radius)
        wp.launch(density, dim=n, inputs=[grid.id, x, radius, rho], device=device)
        wp.launch(forces, dim=n, inputs=[grid.id, x, rho, radius, f], device=device)

    return Program(step, wp.synchronize, lambda: {"rho": rho.numpy(), "f": f.numpy()})


def _sphere(rings: int, segments: int) -> tuple[np.ndarray, np.ndarray]:
    theta = np.linspace(0.0, np.pi, rings + 1)
    phi = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    points = np.stack([np.sin(t) * np.cos(p), np.cos(t), np.sin(t) * np.sin(p)], -1).reshape(-1, 3)
    tris = []
    for r in range(rings):
        for s in range(segments):
            a, b = r * segments + s, r * segments + (s + 1) % segments
            c, d = a + segments, b + segments
            tris += [(a, c, b), (b, c, d)]
    return points.astype(np.float32), np.asarray(tris, np.int32).reshape(-1)


def raycast_program(wp, device: str, points: np.ndarray, indices: np.ndarray, side: int) -> Program:
    @wp.kernel(module="unique")
    def cast(mesh: wp.uint64, side: int, t_out: wp.array(dtype=float), face_out: wp.array(dtype=int)):
        tid = wp.tid()
        u = (float(tid % side) + 0.5) / float(side) * 2.0 - 1.0
        v = (float(tid // side) + 0.5) / float(side) * 2.0 - 1.0
        origin = wp.vec3(0.0, 0.0, 3.0)
        direction = wp.normalize(wp.vec3(u * 0.5, v * 0.5, -1.0))
        query = wp.mesh_query_ray(mesh, origin, direction, 10.0)
        if query.result:
            t_out[tid] = query.t
            face_out[tid] = query.face
        else:
            t_out[tid] = -1.0
            face_out[tid] = -1

    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3, device=device),
                   indices=wp.array(indices, dtype=int, device=device))
    n = side * side
    t_out = wp.zeros(n, dtype=float, device=device)
    face_out = wp.zeros(n, dtype=int, device=device)

    def step():
        wp.launch(cast, dim=n, inputs=[mesh.id, side, t_out, face_out], device=device)

    return Program(step, wp.synchronize, lambda: {"t": t_out.numpy()})


def cases(ctx: Context) -> list[Case]:
    rng = np.random.default_rng(0)
    n = 4096 if ctx.quick else 32768
    radius = 0.05 if ctx.quick else 0.025
    points = rng.random((n, 3)).astype(np.float32)
    sph = {name: sph_program(wp, ctx.wp_device(name), points, radius) for name, wp in ctx.libs.items()}
    a = 10 if ctx.quick else 25  # the dense case's grid: a cells a side, the lattice a x 4a x a
    lattice = np.stack(np.meshgrid(np.arange(a), np.arange(4 * a), np.arange(a), indexing="ij"), -1).reshape(-1, 3)
    dense = ((lattice + 0.001 * rng.standard_normal(lattice.shape)) * 0.8).astype(np.float32)
    sph_dense = {name: sph_program(wp, ctx.wp_device(name), dense, 0.8, a) for name, wp in ctx.libs.items()}
    side = 256 if ctx.quick else 1024
    verts, tris = _sphere(64, 128)
    rays = {name: raycast_program(wp, ctx.wp_device(name), verts, tris, side) for name, wp in ctx.libs.items()}
    repeats = 3 if ctx.quick else 10
    return [
        Case(name=f"sph step, {n} particles (hash grid)", programs=sph, repeats=repeats, warmup=1,
             rtol=1e-3, atol=1e-4),
        Case(name=f"sph step, {len(dense)} particles, dense (as example_sph)", programs=sph_dense,
             repeats=repeats, warmup=1, rtol=1e-3, atol=1e-4),
        Case(name=f"mesh ray cast, {side * side} rays, {tris.size // 3} triangles", programs=rays,
             repeats=repeats, warmup=1, rtol=1e-4, atol=1e-4),
    ]
