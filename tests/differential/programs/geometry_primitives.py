"""Geometry builtins without an acceleration structure: ``closest_point_edge_edge`` (every branch:
both edges points, one edge a point with the projection inside and past the end, crossing edges,
exactly parallel edges overlapping, touching and apart, near-parallel edges, t clamped to 0 and to 1)
with gradients of ``dist`` and of ``s + t`` (including the damped near-parallel rule), and
``intersect_tri_tri`` in float32 and float64 (crossing, separated, touching at a vertex, sharing an
edge, coplanar overlapping / contained / apart, random triangles)."""

import numpy as np

RTOL = 1e-4
ATOL = 1e-5
TOLERANCE = {"grad_dist": (1e-3, 1e-4), "grad_st": (1e-3, 1e-4)}


@wp.kernel
def edge_edge(p1: wp.array(dtype=wp.vec3), q1: wp.array(dtype=wp.vec3), p2: wp.array(dtype=wp.vec3),
              q2: wp.array(dtype=wp.vec3), eps: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.closest_point_edge_edge(p1[i], q1[i], p2[i], q2[i], eps)


@wp.kernel
def edge_edge_loss(p1: wp.array(dtype=wp.vec3), q1: wp.array(dtype=wp.vec3), p2: wp.array(dtype=wp.vec3),
                   q2: wp.array(dtype=wp.vec3), w_dist: float, w_st: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.closest_point_edge_edge(p1[i], q1[i], p2[i], q2[i], 1.0e-6)
    wp.atomic_add(loss, 0, w_dist * r[2] + w_st * (r[0] + 2.0 * r[1]))


@wp.kernel
def tri_tri32(v: wp.array(dtype=wp.vec3), u: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.intersect_tri_tri(v[3 * i], v[3 * i + 1], v[3 * i + 2], u[3 * i], u[3 * i + 1], u[3 * i + 2])


@wp.kernel
def tri_tri64(v: wp.array(dtype=wp.vec3d), u: wp.array(dtype=wp.vec3d), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.intersect_tri_tri(v[3 * i], v[3 * i + 1], v[3 * i + 2], u[3 * i], u[3 * i + 1], u[3 * i + 2])


EDGE_CASES = [
    # p1, q1, p2, q2
    ([0, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 0]),  # crossing at the middles
    ([0, 0, 0], [1, 0, 0], [0.5, 1, 1], [0.5, 1, -1]),  # skew, distance 1
    ([0, 0, 0], [0, 0, 0], [1, 1, 1], [1, 1, 1]),  # both points
    ([0, 0, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0]),  # first a point, projection inside
    ([10, 0, 0], [10, 0, 0], [0, 0, 0], [1, 0, 0]),  # first a point, projection past the end
    ([1, 0, 0], [0, 1, 0], [1, 1, 0], [1, 1, 0]),  # second a point
    ([3, 2, 0], [4, 2, 0], [0, 0, 0], [0, 0, 0]),  # second a point, projection before the start
    ([0, 0, 0], [1, 1, 0], [2, 2, 0], [3, 3, 0]),  # collinear, apart after
    ([0, 0, 0], [1, 1, 0], [-2, -2, 0], [-1, -1, 0]),  # collinear, apart before
    ([0, 0, 0], [1, 0, 0], [-0.5, 1, 0], [0.5, 1, 0]),  # parallel, overlapping
    ([0, 0, 0], [1, 0, 0], [1, 0, 0], [2, 0, 0]),  # collinear, touching at an end
    ([0, 0, 0], [2, 0, 0], [3, 1, 0], [1, 1, 0]),  # antiparallel, overlapping
    ([0, 0, 0], [1, 1, 0], [10, 1, 0], [11, 0, 0]),  # t clamped to 0, s clamped to 1
    ([0, 0, 0], [1, 1, 0], [-11, -1, 0], [-5, 0, 0]),  # t clamped to 1, s clamped to 0
    ([0, 0, 0], [4, 0, 0], [1, 1, 0], [2, 3, 0]),  # t clamped to 0, s interior
    ([0, 0, 0], [4, 0, 0], [2, 3, 0], [3, 1, 0]),  # t clamped to 1, s interior
    ([0, 0, 0], [1, 0, 0], [0, -4.9e-4, 0], [1, 4.9e-4, 0]),  # near-parallel, crossing
    ([0, 0, 0], [1, 0, 0], [0.5, 0, 0], [0.5, 0, 0]),  # second a point on the first edge
    ([0, 0, 0], [1, 0, 0], [1, 0, 0], [1, 1, 0]),  # touching at end points
]


def _edge_inputs(rng, n):
    arrays = [np.array([c[k] for c in EDGE_CASES], dtype=np.float32) for k in range(4)]
    extra = [rng.standard_normal((n, 3)).astype(np.float32) for _ in range(4)]
    return [np.concatenate([a, b]) for a, b in zip(arrays, extra)]


def _grad_inputs(rng, n):
    """Well-conditioned random edges plus branch-specific cases away from the kinks."""
    pts = [rng.standard_normal((n, 3)).astype(np.float32) for _ in range(4)]
    d1, d2 = pts[1] - pts[0], pts[3] - pts[2]
    n_ = np.cross(d1, d2)
    keep = (np.einsum("ij,ij->i", n_, n_) > 0.05 * np.einsum("ij,ij->i", d1, d1) * np.einsum("ij,ij->i", d2, d2))
    keep &= (np.einsum("ij,ij->i", d1, d1) > 0.1) & (np.einsum("ij,ij->i", d2, d2) > 0.1)
    pts = [p[keep] for p in pts]
    # near-parallel pairs (damped rule) and a point edge
    extra = [
        np.array([[0, 0, 0], [0, 0, 0], [0.2, 0, 0]], np.float32),
        np.array([[2, 0, 0], [2, 0, 0], [0.2, 0, 0]], np.float32),
        np.array([[0.5, 1, 0.3], [0.5, 1, 0.3], [-1, 1, 0]], np.float32),
        np.array([[2.5, 1, 0.3 + 2e-4], [2.5, 1, 0.3 + 1e-3], [2, 2, 0]], np.float32),
    ]
    return [np.concatenate([a, b]) for a, b in zip(pts, extra)]


def _closest(inputs, eps):
    arrays = [wp.array(a, dtype=wp.vec3) for a in inputs]
    out = wp.zeros(len(inputs[0]), dtype=wp.vec3)
    wp.launch(edge_edge, dim=len(inputs[0]), inputs=[*arrays, eps, out])
    return out.numpy()


def _loss_grads(inputs, w_dist, w_st):
    arrays = [wp.array(a, dtype=wp.vec3, requires_grad=True) for a in inputs]
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(edge_edge_loss, dim=len(inputs[0]), inputs=[*arrays, w_dist, w_st, loss])
    tape.backward(loss=loss)
    return np.stack([a.grad.numpy() for a in arrays])


def _tri_cases(rng, n):
    fixed = [
        ([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.5, -0.5, 0], [0.5, -0.5, 1], [0.5, 0.5, 0]]),  # crossing
        ([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[-0.5, -0.5, 0], [-0.5, -0.5, 1], [-0.5, 0.5, 0]]),  # apart
        ([[0, 0, 0], [2, 0, 0], [0, 2, 0]], [[1, 1, -1], [1, 1, 1], [1, -1, 0]]),  # crossing
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 0], [-1, 0, 1], [0, -1, 1]]),  # touching at a vertex
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 0], [1, 0, 0], [0, 0, 1]]),  # sharing an edge
        ([[0, 0, 0], [2, 0, 0], [0, 2, 0]], [[1, 0.5, 0], [3, 0.5, 0], [1, 2.5, 0]]),  # coplanar overlapping
        ([[0, 0, 0], [4, 0, 0], [0, 4, 0]], [[0.5, 0.5, 0], [1, 0.5, 0], [0.5, 1, 0]]),  # coplanar contained
        ([[0.5, 0.5, 0], [1, 0.5, 0], [0.5, 1, 0]], [[0, 0, 0], [4, 0, 0], [0, 4, 0]]),  # coplanar container
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[2, 2, 0], [3, 2, 0], [2, 3, 0]]),  # coplanar apart
        ([[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 0.5, 0.5], [0, 3, 0.5], [0, 0.5, 3]]),  # coplanar, x normal
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 1], [1, 0, 1], [0, 1, 1]]),  # parallel planes
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0.2, 0.2, 0], [0.2, 0.2, 1], [0.8, 0.8, 1]]),  # edge on the face
    ]
    v = np.array([f[0] for f in fixed], np.float64).reshape(-1, 3)
    u = np.array([f[1] for f in fixed], np.float64).reshape(-1, 3)
    rv = rng.standard_normal((3 * n, 3))
    ru = rng.standard_normal((3 * n, 3)) * 0.7 + 0.3
    return np.concatenate([v, rv]), np.concatenate([u, ru])


def run():
    rng = np.random.default_rng(20)
    inputs = _edge_inputs(rng, 200)
    v, u = _tri_cases(rng, 300)
    count = len(v) // 3
    hits = {}
    for name, kernel, vec in (("f32", tri_tri32, wp.vec3), ("f64", tri_tri64, wp.vec3d)):
        out = wp.zeros(count, dtype=int)
        dtype = np.float32 if name == "f32" else np.float64
        wp.launch(kernel, dim=count, inputs=[wp.array(v.astype(dtype), dtype=vec), wp.array(u.astype(dtype), dtype=vec), out])
        hits[name] = out.numpy()
    grad_in = _grad_inputs(rng, 200)
    return {
        "closest": _closest(inputs, 1.0e-5),
        "closest_big_eps": _closest(inputs, 0.5),
        "grad_dist": _loss_grads(grad_in, 1.0, 0.0),
        "grad_st": _loss_grads(grad_in, 0.0, 1.0),
        "tri_tri_f32": hits["f32"],
        "tri_tri_f64": hits["f64"],
    }
