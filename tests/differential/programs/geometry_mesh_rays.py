"""Mesh ray queries on a closed torus (non-convex), and the gradients of mesh queries: rays in random
and axis-aligned directions (zero components), ``mesh_query_ray`` in both the in-out and struct
forms, ``mesh_query_ray_count_intersections``, ``mesh_query_ray_anyhit``, and gradients of hit distances
with respect to ray starts and directions, and of a closest-point distance loss with respect to query
points (the closest-point queries themselves: ``geometry_mesh_queries``)."""

from tests.differential.meshes import torus

RTOL = 1e-4
ATOL = 1e-5


@wp.kernel
def distance_loss(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 1.0e6)
    c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    wp.atomic_add(loss, 0, wp.length(c - pts[i]) * float(i % 3 + 1))


@wp.kernel
def ray_queries(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
                tuv: wp.array(dtype=wp.vec3), normals: wp.array(dtype=wp.vec3), faces: wp.array(dtype=int),
                signs: wp.array(dtype=float), counts: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    t = float(0.0)
    u = float(0.0)
    v = float(0.0)
    s = float(0.0)
    n = wp.vec3()
    f = int(-1)
    if wp.mesh_query_ray(mesh, starts[i], dirs[i], 1.0e6, t, u, v, s, n, f):
        tuv[i] = wp.vec3(t, u, v)
        normals[i] = n
        faces[i] = f
        signs[i] = wp.sign(s)
    q = wp.mesh_query_ray(mesh, starts[i], dirs[i], 2.0)
    hits = wp.mesh_query_ray_count_intersections(mesh, starts[i], dirs[i])
    counts[i] = wp.vec3i(int(q.result), hits, int(wp.mesh_query_ray_anyhit(mesh, starts[i], dirs[i], 1.5)))


@wp.kernel
def ray_loss(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
             loss: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[i], dirs[i], 1.0e6)
    if q.result:
        wp.atomic_add(loss, 0, q.t + 0.5 * q.u - q.v)


def run():
    out = {}
    rng = np.random.default_rng(5)
    points, indices = torus()
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32),
                   support_winding_number=True)
    n = 200  # the closest-point program's query points, for the gradient of a distance loss
    pts = (rng.random((n, 3)) * np.array([3.0, 3.0, 1.2]) - np.array([1.5, 1.5, 0.6])).astype(np.float32)
    pts[:8] = [[1.0, 0.1, 0.03], [0.0, 1.0, 0.05], [-1.0, 0.1, 0.04], [0.15, 0.3, 0.02],
               [0.1, 0.3, 2.0], [3.0, 0.2, 0.1], [1.3, 0.1, 0.02], [0.0, -0.9, 0.1]]
    grad_pts = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(distance_loss, dim=n, inputs=[mesh.id, grad_pts, loss])
    tape.backward(loss=loss)
    out["distance_loss"], out["distance_grad"] = loss.numpy(), grad_pts.grad.numpy()

    m = 160
    starts = (rng.random((m, 3)) * 4.0 - 2.0).astype(np.float32)
    dirs = rng.normal(size=(m, 3)).astype(np.float32)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    dirs[:12] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
                 [1, 1, 0], [0, 1, -1], [1, 0, 1], [-1, -1, 0], [0.6, 0.8, 0.0], [0.0, 0.0, -1.0]]
    starts[:12] = [[-2, 0.03, 0.013], [2, 0.1, 0.1], [0.02, -2, 0.011], [1, 2, 0.05], [1.01, 0.02, -1], [0.03, 1, 1],
                   [-2, -1.5, 0.017], [0.1, -1, 1], [-1, 1, -1], [2, 2, 0.1], [-1, -1.5, 0.2], [1.0, 0.03, 1.0]]
    dirs[:12] /= np.linalg.norm(dirs[:12], axis=1, keepdims=True)
    tuv = wp.zeros(m, dtype=wp.vec3)
    normals = wp.zeros(m, dtype=wp.vec3)
    rfaces = wp.full(m, -1, dtype=int)
    rsigns = wp.zeros(m, dtype=float)
    counts = wp.zeros(m, dtype=wp.vec3i)
    wp.launch(ray_queries, dim=m, inputs=[mesh.id, wp.array(starts, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3),
                                          tuv, normals, rfaces, rsigns, counts])
    out.update(ray_tuv=tuv.numpy(), ray_normals=normals.numpy(), ray_faces=rfaces.numpy(),
               ray_signs=rsigns.numpy(), ray_counts=counts.numpy())

    s_arr = wp.array(starts, dtype=wp.vec3, requires_grad=True)
    d_arr = wp.array(dirs, dtype=wp.vec3, requires_grad=True)
    rl = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(ray_loss, dim=m, inputs=[mesh.id, s_arr, d_arr, rl])
    tape.backward(loss=rl)
    out["ray_loss"], out["ray_start_grad"], out["ray_dir_grad"] = rl.numpy(), s_arr.grad.numpy(), d_arr.grad.numpy()

    return out
