"""Mesh queries in launches larger than one lane pool (4096 lanes: the walks refill their pool and
then pack the survivors into smaller pools): nearest ray hits (the trail walk), hit counts and
any-hit (the pre-order walk), closest points (the nearest-first stack walk), on a torus, with a
share of rays parallel to an axis (the robust box test)."""

from tests.differential.meshes import torus

RTOL = 1e-4
ATOL = 1e-5


@wp.kernel
def rays(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
         t_out: wp.array(dtype=float), counts: wp.array(dtype=int), anyhit: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[i], dirs[i], 5.0)
    t_out[i] = wp.where(q.result, q.t, -1.0)
    counts[i] = wp.mesh_query_ray_count_intersections(mesh, starts[i], dirs[i])
    anyhit[i] = wp.where(wp.mesh_query_ray_anyhit(mesh, starts[i], dirs[i], 2.0), 1, 0)


@wp.kernel
def closest(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), dist: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 10.0)
    dist[i] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - pts[i])


def run():
    rng = np.random.default_rng(11)
    points, indices = torus(rings=24, sides=12)
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32))
    m = 9000
    starts = (rng.random((m, 3)) * 4.0 - 2.0).astype(np.float32)
    targets = (rng.random((m, 3)) * np.array([2.6, 2.6, 0.7]) - np.array([1.3, 1.3, 0.35])).astype(np.float32)
    dirs = targets - starts
    dirs[::9, 2] = 0.0  # parallel to the xy plane
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    t_out, counts, anyhit = wp.zeros(m, dtype=float), wp.zeros(m, dtype=int), wp.zeros(m, dtype=int)
    wp.launch(rays, dim=m, inputs=[mesh.id, wp.array(starts, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3),
                                   t_out, counts, anyhit])
    dist = wp.zeros(m, dtype=float)
    wp.launch(closest, dim=m, inputs=[mesh.id, wp.array(targets * 1.5, dtype=wp.vec3), dist])
    return {"t": t_out.numpy(), "counts": counts.numpy(), "anyhit": anyhit.numpy(), "dist": dist.numpy()}
