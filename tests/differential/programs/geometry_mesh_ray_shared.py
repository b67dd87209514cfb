"""Ray queries on the cube of ``geometry_mesh_ray_edges`` with one start (or one direction) shared by
every lane (the walk keeps it out of the lanes' data), in launches small enough for one pool and large
enough to refill it: ``mesh_query_ray`` (hit, t), ``mesh_query_ray_count_intersections``,
``mesh_query_ray_anyhit``. (Split from ``geometry_mesh_ray_edges`` to keep each program's compile short.)"""

RTOL = 1e-5
ATOL = 1e-6

from tests.differential.meshes import cube, edge_ray_batches  # noqa: E402


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


def run():
    points, indices = cube()
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32))
    out = {}
    for name, s, d in edge_ray_batches():
        m = s.shape[0]
        shared_t, shared_counts = wp.zeros(m, dtype=wp.vec2), wp.zeros(m, dtype=wp.vec4i)
        wp.launch(shared_rays, dim=m, inputs=[mesh.id, wp.array(s, dtype=wp.vec3), wp.array(d, dtype=wp.vec3),
                                              shared_t, shared_counts])
        out[f"{name}_shared_t"], out[f"{name}_shared_counts"] = shared_t.numpy(), shared_counts.numpy()
    return out
