"""Gradients through quaternion, transform and spatial math (Warp's hand-written adjoints against
JAX's derivatives of the same formulas): rotations, products, matrices, slerp, axis-angle,
transform composition/inversion and spatial cross products."""

RTOL = 1e-4
ATOL = 1e-5


@wp.kernel
def rigid(q: wp.array(dtype=wp.quat), p: wp.array(dtype=wp.vec3), x: wp.array(dtype=wp.vec3),
          twist: wp.array(dtype=wp.spatial_vector), loss: wp.array(dtype=float)):
    i = wp.tid()
    j = (i + 1) % 6
    a = wp.normalize(q[i])
    b = wp.normalize(q[j])
    t = wp.transform(p[i], a)
    u = wp.transform(p[j], b)
    y = wp.transform_point(t * wp.transform_inverse(u), x[i])
    r = wp.quat_rotate_inv(a * b, x[j])
    m = wp.quat_to_matrix(a)
    back = wp.quat_from_matrix(m * wp.quat_to_matrix(b))
    s = wp.quat_slerp(a, b, 0.25)
    axis, angle = wp.quat_to_axis_angle(b)
    w = wp.spatial_cross(twist[i], wp.transform_twist(t, twist[j]))
    value = wp.dot(y, wp.vec3(1.0, 0.5, -0.25)) + wp.length_sq(r) + back[0] * 2.0 - back[3]
    value += wp.dot(s, wp.quat(0.1, 0.2, 0.3, 0.4)) + angle * axis[2] + wp.spatial_dot(w, twist[i])
    value += wp.transform_vector(wp.transform_to_matrix(u), x[i])[1]
    wp.atomic_add(loss, 0, value)


def run():
    rng = np.random.default_rng(21)
    n = 6
    q = wp.array(rng.normal(size=(n, 4)).astype(np.float32), dtype=wp.quat, requires_grad=True)
    p = wp.array(rng.normal(size=(n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    x = wp.array(rng.normal(size=(n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    twist = wp.array(rng.normal(size=(n, 6)).astype(np.float32), dtype=wp.spatial_vector, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(rigid, n, [q, p, x, twist, loss])
    tape.backward(loss=loss)
    return {"loss": loss.numpy(), "q": q.grad.numpy(), "p": p.grad.numpy(), "x": x.grad.numpy(),
            "twist": twist.grad.numpy()}
