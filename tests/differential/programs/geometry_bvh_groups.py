"""Grouped BVH and mesh traversal: ``bvh_get_group_root`` / ``mesh_get_group_root`` (valid roots
for present groups, -1 for absent ones incl. int32 max, a BVH without groups having group 0) and
the ``root`` argument of the box, sphere, ray and capsule BVH queries and of ``mesh_query_ray``
(both forms), ``mesh_query_ray_anyhit`` and ``mesh_query_ray_count_intersections``; results are
compared as order-independent per-lane sets, before and after ``refit`` / ``rebuild``."""

import numpy as np


@wp.kernel
def roots_found(bvh: wp.uint64, groups: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.where(wp.bvh_get_group_root(bvh, groups[i]) >= 0, 1, 0)


@wp.kernel
def grouped_hits(bvh: wp.uint64, groups: wp.array(dtype=int), lower: wp.vec3, upper: wp.vec3, start: wp.vec3,
                 direction: wp.vec3, hits: wp.array2d(dtype=int)):
    i, kind = wp.tid()
    root = wp.bvh_get_group_root(bvh, groups[i])
    index = int(0)
    if kind == 0:
        q = wp.bvh_query_aabb(bvh, lower, upper, root)
        while wp.bvh_query_next(q, index):
            hits[i * 4 + kind, index] += 1
    elif kind == 1:
        q = wp.bvh_query_ray(bvh, start, direction, root)
        while wp.bvh_query_next(q, index):
            hits[i * 4 + kind, index] += 1
    elif kind == 2:
        q = wp.bvh_query_sphere(bvh, lower, 2.0, root)
        while wp.bvh_query_next(q, index):
            hits[i * 4 + kind, index] += 1
    else:
        q = wp.bvh_query_capsule(bvh, start, direction, 0.5, root)
        while wp.bvh_query_next(q, index, 6.0):
            hits[i * 4 + kind, index] += 1


@wp.kernel
def mesh_rays(mesh: wp.uint64, groups: wp.array(dtype=int), starts: wp.array(dtype=wp.vec3), direction: wp.vec3,
              face: wp.array2d(dtype=int), t: wp.array2d(dtype=float), counts: wp.array2d(dtype=int)):
    g, r = wp.tid()
    root = wp.mesh_get_group_root(mesh, groups[g])
    hit = wp.mesh_query_ray(mesh, starts[r], direction, 1.0e6, root)
    face[g, r] = wp.where(hit.result, hit.face, -1)
    t[g, r] = hit.t
    tt = float(0.0)
    u = float(0.0)
    v = float(0.0)
    sign = float(0.0)
    n = wp.vec3()
    f = int(0)
    if wp.mesh_query_ray(mesh, starts[r], direction, 1.0e6, tt, u, v, sign, n, f, root):
        counts[g, r] = 100 * f
    counts[g, r] += 10 * wp.where(wp.mesh_query_ray_anyhit(mesh, starts[r], direction, 1.0e6, root), 1, 0)
    counts[g, r] += wp.mesh_query_ray_count_intersections(mesh, starts[r], direction, root)


def run():
    rng = np.random.default_rng(11)
    out = {}
    n = 60
    lowers = (rng.random((n, 3)) * 6.0).astype(np.float32)
    uppers = lowers + (rng.random((n, 3)) * 2.0).astype(np.float32)
    groups_np = rng.integers(0, 5, n).astype(np.int32)
    groups_np[7] = 9  # a group with one box
    lo, hi = wp.array(lowers, dtype=wp.vec3), wp.array(uppers, dtype=wp.vec3)
    bvh = wp.Bvh(lo, hi, groups=wp.array(groups_np, dtype=int), leaf_size=1)
    plain = wp.Bvh(lo, hi)
    asked = wp.array(np.array([0, 1, 2, 3, 4, 9, 5, -3, np.iinfo(np.int32).max], np.int32), dtype=int)

    def queries(tree, tag):
        found = wp.zeros(asked.shape[0], dtype=int)
        wp.launch(roots_found, dim=asked.shape[0], inputs=[tree.id, asked, found])
        out[tag + "_roots"] = found.numpy()
        hits = wp.zeros((asked.shape[0] * 4, n), dtype=int)
        wp.launch(grouped_hits, dim=(asked.shape[0], 4),
                  inputs=[tree.id, asked, wp.vec3(2.0, 2.0, 2.0), wp.vec3(5.0, 6.0, 4.0), wp.vec3(-1.0, 0.5, 0.2),
                          wp.normalize(wp.vec3(1.0, 0.8, 0.9)), hits])
        out[tag + "_hits"] = hits.numpy()

    queries(bvh, "grouped")
    queries(plain, "plain")
    lo.assign(lowers + 0.5)
    bvh.refit()
    queries(bvh, "refit")
    hi.assign(uppers + 1.0)
    bvh.rebuild()
    queries(bvh, "rebuilt")

    # a mesh of unit squares on the plane z = 0, each square one group
    squares = 6
    points, indices, face_groups = [], [], []
    for s in range(squares):
        x = 2.0 * s
        base = len(points)
        points += [(x, 0.0, 0.0), (x + 1.0, 0.0, 0.0), (x + 1.0, 1.0, 0.0), (x, 1.0, 0.0)]
        indices += [base, base + 1, base + 2, base, base + 2, base + 3]
        face_groups += [s % 3, s % 3]
    for layer in (1.0, 2.0):  # two more layers above, in group 7
        base = len(points)
        points += [(0.0, 0.0, layer), (12.0, 0.0, layer), (12.0, 1.0, layer), (0.0, 1.0, layer)]
        indices += [base, base + 1, base + 2, base, base + 2, base + 3]
        face_groups += [7, 7]
    mesh = wp.Mesh(wp.array(np.array(points, np.float32), dtype=wp.vec3), wp.array(np.array(indices, np.int32),
                   dtype=int), groups=wp.array(np.array(face_groups, np.int32), dtype=int))
    starts = wp.array(np.array([(2.0 * s + 0.3, 0.4, -1.0) for s in range(squares)], np.float32), dtype=wp.vec3)
    mesh_groups = wp.array(np.array([0, 1, 2, 7, 4], np.int32), dtype=int)
    shape = (mesh_groups.shape[0], squares)
    face, t, counts = wp.zeros(shape, dtype=int), wp.zeros(shape, dtype=float), wp.zeros(shape, dtype=int)
    wp.launch(mesh_rays, dim=shape, inputs=[mesh.id, mesh_groups, starts, wp.vec3(0.0, 0.0, 1.0), face, t, counts])
    out["mesh_face"], out["mesh_t"], out["mesh_counts"] = face.numpy(), t.numpy(), counts.numpy()
    return out
