"""Ray queries at the edges of the box test, on a cube whose faces lie on exact planes (its leaves' boxes
are flat): rays starting on a face plane, rays with zero direction components (the robust box test),
rays grazing faces and edges, in launches small enough for one pool and large enough to refill it
(pools mixing robust and plain rays).
``mesh_query_ray`` (hit, t), ``mesh_query_ray_count_intersections``, ``mesh_query_ray_anyhit``; faces are
not compared (a ray through an edge may report either face, as documented)."""

RTOL = 1e-5
ATOL = 1e-6

from tests.differential.meshes import cube, edge_ray_batches  # noqa: E402


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


def run():
    points, indices = cube()
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32))
    out = {}
    for name, s, d in edge_ray_batches():
        m = s.shape[0]
        t_out, counts = wp.zeros(m, dtype=float), wp.zeros(m, dtype=wp.vec3i)
        wp.launch(rays, dim=m, inputs=[mesh.id, wp.array(s, dtype=wp.vec3), wp.array(d, dtype=wp.vec3),
                                       t_out, counts])
        out[f"{name}_t"], out[f"{name}_counts"] = t_out.numpy(), counts.numpy()
    return out
