"""Ray queries at the edges of the box test, on a cube whose faces lie on exact planes (its leaves' boxes
are flat): rays starting on a face plane, rays with zero direction components (the robust box test),
rays grazing faces and edges, in launches small enough for one pool and large enough to refill it
(pools mixing robust and plain rays).
``mesh_query_ray`` (hit, t), ``mesh_query_ray_count_intersections``, ``mesh_query_ray_anyhit``; faces are
not compared (a ray through an edge may report either face, as documented)."""

RTOL = 1e-5
ATOL = 1e-6


def cube(cells: int = 3) -> tuple:
    """The surface of [-1, 1]^3, each face split into ``cells`` x ``cells`` squares of two triangles
    (outward counter-clockwise winding)."""
    grid = np.linspace(-1.0, 1.0, cells + 1)
    points, tris = [], []
    for axis in range(3):
        for side in (-1.0, 1.0):
            base = len(points)
            for i in range(cells + 1):
                for j in range(cells + 1):
                    p = [0.0, 0.0, 0.0]
                    p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3] = side, grid[i], grid[j]
                    points.append(p)
            for i in range(cells):
                for j in range(cells):
                    a, b = base + i * (cells + 1) + j, base + (i + 1) * (cells + 1) + j
                    c, d = b + 1, a + 1
                    tris += [a, b, c, a, c, d] if side > 0 else [a, c, b, a, d, c]
    return np.array(points, np.float32), np.array(tris, np.int32)


@wp.kernel
def rays(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
         t_out: wp.array(dtype=float), counts: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[i], dirs[i], 1.0e6)
    t = float(-1.0)
    if q.result:
        t = q.t
    t_out[i] = t
    counts[i] = wp.vec3i(int(q.result), wp.mesh_query_ray_count_intersections(mesh, starts[i], dirs[i]),
                         int(wp.mesh_query_ray_anyhit(mesh, starts[i], dirs[i], 2.5)))


@wp.kernel
def shared_rays(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
                t_out: wp.array(dtype=wp.vec2), counts: wp.array(dtype=wp.vec4i)):
    """One start (or one direction) for every lane: the walk keeps it out of the lanes' data."""
    i = wp.tid()
    eye = wp.vec3(0.31, 2.47, 0.23)
    down = wp.vec3(0.0, -1.0, 0.0)  # zero components: the robust box test for every lane
    a = wp.mesh_query_ray(mesh, eye, dirs[i], 1.0e6)
    b = wp.mesh_query_ray(mesh, starts[i], down, 1.0e6)
    ta = float(-1.0)
    tb = float(-1.0)
    if a.result:
        ta = a.t
    if b.result:
        tb = b.t
    t_out[i] = wp.vec2(ta, tb)
    counts[i] = wp.vec4i(wp.mesh_query_ray_count_intersections(mesh, eye, dirs[i]),
                         wp.mesh_query_ray_count_intersections(mesh, starts[i], down),
                         int(wp.mesh_query_ray_anyhit(mesh, eye, dirs[i], 3.0)),
                         int(wp.mesh_query_ray_anyhit(mesh, starts[i], down, 2.0)))


def case_rays(rng: np.random.Generator) -> tuple:
    """Starts with one coordinate on a face plane (outside the face) or beyond it, the others inside or
    outside the cube, directions with zero and non-zero components. (Left out, where Warp's CPU
    build and jwarp part ways in the triangle test itself: starts on a face or edge, a hit at t ~ 0,
    and subnormal components, for which Warp reports no hit at all.)"""
    n = 600
    comps = np.array([0.0, 0.0, 0.3, -0.7, 1.0, -1.0, 0.45], np.float32)
    dirs = comps[rng.integers(0, comps.size, (n, 3))]
    dirs[np.all(dirs == 0, axis=1)] = [0.0, 0.0, -1.0]
    planes = np.array([-1.0, 1.0, 2.0, -2.0, 0.1], np.float32)
    others = np.array([0.5512, -0.3471, 0.1093, 2.0137, -2.0291, 0.8123], np.float32)  # off the grid lines
    starts = others[rng.integers(0, others.size, (n, 3))]
    axis = rng.integers(0, 3, n)
    starts[np.arange(n), axis] = planes[rng.integers(0, planes.size, n)]
    on_face_plane = np.abs(starts[np.arange(n), axis]) == 1.0  # keep them off the face itself
    starts[np.arange(n)[on_face_plane], (axis[on_face_plane] + 1) % 3] = 2.0137
    return starts.astype(np.float32), dirs.astype(np.float32)


def run():
    rng = np.random.default_rng(11)
    points, indices = cube()
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32))
    out = {}
    starts, dirs = case_rays(rng)
    for name, reps in (("small", 1), ("large", 8)):  # 600 lanes: one pool; 4800: refilled pools
        s, d = np.tile(starts, (reps, 1)), np.tile(dirs, (reps, 1))
        m = s.shape[0]
        t_out, counts = wp.zeros(m, dtype=float), wp.zeros(m, dtype=wp.vec3i)
        wp.launch(rays, dim=m, inputs=[mesh.id, wp.array(s, dtype=wp.vec3), wp.array(d, dtype=wp.vec3),
                                       t_out, counts])
        out[f"{name}_t"], out[f"{name}_counts"] = t_out.numpy(), counts.numpy()
        shared_t, shared_counts = wp.zeros(m, dtype=wp.vec2), wp.zeros(m, dtype=wp.vec4i)
        wp.launch(shared_rays, dim=m, inputs=[mesh.id, wp.array(s, dtype=wp.vec3), wp.array(d, dtype=wp.vec3),
                                              shared_t, shared_counts])
        out[f"{name}_shared_t"], out[f"{name}_shared_counts"] = shared_t.numpy(), shared_counts.numpy()
    return out
