"""Mesh closest-point queries on a closed torus (non-convex) and a single triangle:
``mesh_query_point`` with every sign method (rays, normal, winding number, parity) in both the
in-out and struct forms, ``_no_sign`` with a small ``max_dist`` (misses), and the furthest point
(ray queries and the gradients of both kinds of queries: ``geometry_mesh_rays``).

Faces are compared where the closest point lies inside a face (on an edge or a vertex several faces
tie and the winner depends on the traversal order)."""

from tests.differential.meshes import torus

RTOL = 1e-4
ATOL = 1e-5


@wp.kernel
def point_queries(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), max_dist: float,
                  cp: wp.array(dtype=wp.vec3), signs: wp.array(dtype=wp.vec4), faces: wp.array(dtype=int),
                  found: wp.array(dtype=wp.vec3i), far: wp.array(dtype=float)):
    i = wp.tid()
    p = pts[i]
    s = float(0.0)
    f = int(-1)
    u = float(0.0)
    v = float(0.0)
    hit = wp.mesh_query_point(mesh, p, 1.0e6, s, f, u, v)
    q = wp.mesh_eval_position(mesh, f, u, v)
    cp[i] = q
    interior = u > 1.0e-4 and v > 1.0e-4 and (1.0 - u - v) > 1.0e-4
    if interior:
        faces[i] = f
    else:
        faces[i] = -1
    qn = wp.mesh_query_point_sign_normal(mesh, p, 1.0e6)
    qw = wp.mesh_query_point_sign_winding_number(mesh, p, 1.0e6)
    qp = wp.mesh_query_point_sign_parity(mesh, p, 1.0e6)
    signs[i] = wp.vec4(s, qn.sign, qw.sign, qp.sign)
    small = wp.mesh_query_point_no_sign(mesh, p, max_dist)
    r = int(0)
    if hit:
        r = 1
    found[i] = wp.vec3i(r, int(small.result), int(qn.result))
    fq = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.0)
    far[i] = wp.length(wp.mesh_eval_position(mesh, fq.face, fq.u, fq.v) - p)


def run():
    out = {}
    rng = np.random.default_rng(5)
    points, indices = torus()
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32),
                   support_winding_number=True)
    n = 200
    pts = (rng.random((n, 3)) * np.array([3.0, 3.0, 1.2]) - np.array([1.5, 1.5, 0.6])).astype(np.float32)
    pts[:8] = [[1.0, 0.1, 0.03], [0.0, 1.0, 0.05], [-1.0, 0.1, 0.04], [0.15, 0.3, 0.02],
               [0.1, 0.3, 2.0], [3.0, 0.2, 0.1], [1.3, 0.1, 0.02], [0.0, -0.9, 0.1]]
    query = wp.array(pts, dtype=wp.vec3)
    cp = wp.zeros(n, dtype=wp.vec3)
    signs = wp.zeros(n, dtype=wp.vec4)
    faces = wp.zeros(n, dtype=int)
    found = wp.zeros(n, dtype=wp.vec3i)
    far = wp.zeros(n, dtype=float)
    wp.launch(point_queries, dim=n, inputs=[mesh.id, query, 0.2, cp, signs, faces, found, far])
    out.update(closest=cp.numpy(), signs=signs.numpy(), faces=faces.numpy(), found=found.numpy(),
               furthest=far.numpy())

    # a single triangle: points above its interior, edges and corners
    tri = wp.Mesh(points=wp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=wp.vec3),
                  indices=wp.array([0, 1, 2], dtype=wp.int32))
    # (as many points as above, so that jwarp reuses the launch's compiled program: the 5 points of
    # interest, then the first torus query points)
    tri_pts = pts.copy()
    tri_pts[:5] = [[0.2, 0.2, 0.5], [2.0, -1.0, 0.0], [-1.0, -1.0, 1.0], [0.6, 0.6, -0.3], [0.5, -0.5, 0.0]]
    tp = wp.array(tri_pts, dtype=wp.vec3)
    cp1 = wp.zeros(n, dtype=wp.vec3)
    wp.launch(point_queries, dim=n, inputs=[tri.id, tp, 0.6, cp1, wp.zeros(n, dtype=wp.vec4),
                                             wp.zeros(n, dtype=int), (found := wp.zeros(n, dtype=wp.vec3i)),
                                             wp.zeros(n, dtype=float)])
    out["triangle_closest"], out["triangle_found"] = cp1.numpy(), found.numpy()
    return out
