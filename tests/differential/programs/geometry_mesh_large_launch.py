"""Mesh queries in launches larger than one lane pool (rays: 16,384 lanes, counts 1,024, point queries
256: the walks refill their pool and then pack the survivors into smaller pools): nearest ray hits
(the trail walk), hit counts and any-hit (the pre-order walk), closest points (the nearest-first stack
walk), on a torus, with a share of rays parallel to an axis (the robust box test); and a 1,500-lane
launch whose lanes take different queries (sign-normal, closest, winding-number sign, ray count), so
each pool is filled from a queue of the active lanes only."""

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


@wp.kernel
def divergent(mesh: wp.uint64, wound: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    o = wp.vec4(-9.0, -9.0, -9.0, -9.0)
    if i % 3 == 0:
        q = wp.mesh_query_point_sign_normal(mesh, pts[i], 1.0)
        if q.result:
            o[0] = q.sign * wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - pts[i])
    if i % 5 != 1:
        q2 = wp.mesh_query_point_no_sign(mesh, pts[i], 0.5)
        if q2.result:
            o[1] = wp.length(wp.mesh_eval_position(mesh, q2.face, q2.u, q2.v) - pts[i])
        q3 = wp.mesh_query_point_sign_winding_number(wound, pts[i], 1.0)
        if q3.result:
            o[2] = q3.sign
    if i % 2 == 0:
        o[3] = float(wp.mesh_query_ray_count_intersections(mesh, pts[i], wp.normalize(wp.vec3(0.3, 1.0, 0.2))))
    out[i] = o


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
    wound = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32),
                    support_winding_number=True)
    mixed = wp.zeros(1500, dtype=wp.vec4)
    wp.launch(divergent, dim=1500, inputs=[mesh.id, wound.id, wp.array(starts[:1500] * 0.8, dtype=wp.vec3), mixed])
    return {"t": t_out.numpy(), "counts": counts.numpy(), "anyhit": anyhit.numpy(), "dist": dist.numpy(),
            "mixed": mixed.numpy()}
