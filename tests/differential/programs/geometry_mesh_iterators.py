"""Iterating mesh and BVH queries, compared as order-independent sets (count, sum and sum of
squares of the indices found): ``mesh_query_aabb`` with the while and for forms,
``mesh_query_sphere`` with its exact triangle test, ``mesh_get_bvh`` + ``bvh_query_sphere``,
``wp.Bvh`` box, sphere, ray and capsule queries (with ``max_dist``), a query kind chosen at run
time, ``refit`` after moving points in place, the ``points`` and ``velocities`` setters,
``mesh_eval_velocity``, ``mesh_get`` and gradients through ``mesh_get``'s points."""

RTOL = 1e-5
ATOL = 1e-5


@wp.func
def fold(acc: wp.vec3i, index: int) -> wp.vec3i:
    return wp.vec3i(acc[0] + 1, acc[1] + index, acc[2] + (index * index) % 100003)


@wp.kernel
def mesh_boxes(mesh: wp.uint64, centers: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec3i),
               out_for: wp.array(dtype=wp.vec3i), out_sphere: wp.array(dtype=wp.vec3i),
               out_bvh: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    c = centers[i]
    lo = c - wp.vec3(h, h, h)
    hi = c + wp.vec3(h, h, h)
    q = wp.mesh_query_aabb(mesh, lo, hi)
    acc = wp.vec3i()
    f = int(0)
    while wp.mesh_query_aabb_next(q, f):
        acc = fold(acc, f)
    out[i] = acc
    acc2 = wp.vec3i()
    for g in wp.mesh_query_aabb(mesh, lo, hi):
        acc2 = fold(acc2, g)
    out_for[i] = acc2
    acc3 = wp.vec3i()
    s = wp.mesh_query_sphere(mesh, c, h)
    while wp.mesh_query_next(s, f):
        acc3 = fold(acc3, f)
    out_sphere[i] = acc3
    acc4 = wp.vec3i()
    b = wp.bvh_query_sphere(wp.mesh_get_bvh(mesh), c, h)
    while wp.bvh_query_next(b, f):
        acc4 = fold(acc4, f)
    out_bvh[i] = acc4


@wp.kernel
def bvh_queries(bvh: wp.uint64, centers: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), h: float,
                use_ray: bool, out: wp.array(dtype=wp.vec3i, ndim=2)):
    i = wp.tid()
    c = centers[i]
    k = int(0)
    acc = wp.vec3i()
    q = wp.bvh_query_aabb(bvh, c - wp.vec3(h, h, h), c + wp.vec3(h, h, h))
    while wp.bvh_query_next(q, k):
        acc = fold(acc, k)
    out[i, 0] = acc
    acc = wp.vec3i()
    q = wp.bvh_query_sphere(bvh, c, h)
    while wp.bvh_query_next(q, k):
        acc = fold(acc, k)
    out[i, 1] = acc
    acc = wp.vec3i()
    q = wp.bvh_query_ray(bvh, c, dirs[i])
    while wp.bvh_query_next(q, k):
        acc = fold(acc, k)
    out[i, 2] = acc
    acc = wp.vec3i()
    q = wp.bvh_query_ray(bvh, c, dirs[i])
    while wp.bvh_query_next(q, k, 0.5):
        acc = fold(acc, k)
    out[i, 3] = acc
    acc = wp.vec3i()
    q = wp.bvh_query_capsule(bvh, c, dirs[i], 0.05)
    while wp.bvh_query_next(q, k, 1.0):
        acc = fold(acc, k)
    out[i, 4] = acc
    acc = wp.vec3i()
    if use_ray:
        q = wp.bvh_query_ray(bvh, c, dirs[i])
    else:
        q = wp.bvh_query_sphere(bvh, c, h)
    while wp.bvh_query_next(q, k):
        acc = fold(acc, k)
    out[i, 5] = acc


@wp.kernel
def eval_velocity(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
                  corners: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 1.0e6)
    out[i] = wp.mesh_eval_velocity(mesh, q.face, q.u, q.v)
    m = wp.mesh_get(mesh)
    corners[i] = m.points[m.indices[q.face * 3 + 1]]


@wp.kernel
def area(mesh: wp.uint64, total: wp.array(dtype=float)):
    t = wp.tid()
    m = wp.mesh_get(mesh)
    a = m.points[m.indices[t * 3 + 0]]
    b = m.points[m.indices[t * 3 + 1]]
    c = m.points[m.indices[t * 3 + 2]]
    wp.atomic_add(total, 0, wp.length(wp.cross(b - a, c - a)) * 0.5)


def _soup(rng, n):
    centers = rng.random((n, 3)).astype(np.float32) * 4.0
    verts = (centers[:, None, :] + (rng.random((n, 3, 3)) - 0.5).astype(np.float32) * 0.5).reshape(-1, 3)
    return verts.astype(np.float32), np.arange(3 * n, dtype=np.int32)


def run():
    out = {}
    rng = np.random.default_rng(3)
    verts, indices = _soup(rng, 400)
    points = wp.array(verts, dtype=wp.vec3)
    velocities = wp.array(rng.normal(size=verts.shape).astype(np.float32), dtype=wp.vec3)
    mesh = wp.Mesh(points=points, indices=wp.array(indices, dtype=wp.int32), velocities=velocities)
    n = 64
    centers = wp.array((rng.random((n, 3)) * 4.0).astype(np.float32), dtype=wp.vec3)
    results = [wp.zeros(n, dtype=wp.vec3i) for _ in range(4)]
    wp.launch(mesh_boxes, dim=n, inputs=[mesh.id, centers, 0.4, *results])
    for key, r in zip(("aabb", "aabb_for", "sphere", "mesh_bvh_sphere"), results):
        out[key] = r.numpy().copy()

    # move the points in place, refit, query again
    wp.copy(points, wp.array(verts * 1.1 + 0.2, dtype=wp.vec3))
    mesh.refit()
    wp.launch(mesh_boxes, dim=n, inputs=[mesh.id, centers, 0.4, *results])
    out["refit_aabb"], out["refit_sphere"] = results[0].numpy().copy(), results[2].numpy().copy()

    # assign new points (refits) and new velocities
    mesh.points = wp.array(verts[::-1].copy(), dtype=wp.vec3)
    mesh.velocities = wp.array(np.ones_like(verts) * np.arange(len(verts), dtype=np.float32)[:, None],
                               dtype=wp.vec3)
    wp.launch(mesh_boxes, dim=n, inputs=[mesh.id, centers, 0.4, *results])
    out["setter_aabb"] = results[0].numpy()
    vel = wp.zeros(n, dtype=wp.vec3)
    corners = wp.zeros(n, dtype=wp.vec3)
    wp.launch(eval_velocity, dim=n, inputs=[mesh.id, centers, vel, corners])
    out["velocity"], out["corner"] = vel.numpy(), corners.numpy()

    # a Bvh over random boxes
    lo = (rng.random((300, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((300, 3)) * 0.3).astype(np.float32)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers)
    dirs = rng.normal(size=(n, 3)).astype(np.float32)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    dirs[:3] = [[1, 0, 0], [0, -1, 0], [0, 0, 1]]
    bout = wp.zeros((n, 6), dtype=wp.vec3i)
    wp.launch(bvh_queries, dim=n, inputs=[bvh.id, centers, wp.array(dirs, dtype=wp.vec3), 0.3, True, bout])
    out["bvh"] = bout.numpy().copy()
    wp.launch(bvh_queries, dim=n, inputs=[bvh.id, centers, wp.array(dirs, dtype=wp.vec3), 0.3, False, bout])
    out["bvh_sphere_kind"] = bout.numpy()[:, 5].copy()
    wp.copy(lowers, wp.array(lo - 0.5, dtype=wp.vec3))
    bvh.refit()
    wp.launch(bvh_queries, dim=n, inputs=[bvh.id, centers, wp.array(dirs, dtype=wp.vec3), 0.3, True, bout])
    out["bvh_refit"] = bout.numpy()

    # gradients through mesh_get's points
    p = wp.array(verts[:30], dtype=wp.vec3, requires_grad=True)
    small = wp.Mesh(points=p, indices=wp.array(np.arange(30, dtype=np.int32), dtype=wp.int32))
    total = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(area, dim=10, inputs=[small.id, total])
    tape.backward(loss=total)
    out["area"], out["area_grad"] = total.numpy(), p.grad.numpy()
    return out
