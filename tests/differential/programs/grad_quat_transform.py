"""Gradients through quaternion, transform and spatial math (Warp's hand-written adjoints against
JAX's derivatives of the same formulas): rotations, products, matrices, slerp, axis-angle,
transform composition/inversion and spatial cross products; axis-angle gradients at the zero and
negative-w quaternions (Warp's adjoint gives 0 at the zero quaternion, not NaN); the scalar gradient
of composite / scalar divisions in float16 (Warp's -dot(a, adj) / (s * s) order)."""

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


@wp.kernel
def axis_angle(q: wp.array(dtype=wp.quat), loss: wp.array(dtype=float)):
    i = wp.tid()
    axis = wp.vec3()
    angle = float(0.0)
    wp.quat_to_axis_angle(q[i], axis, angle)
    wp.atomic_add(loss, 0, angle * 2.0 + axis[0] - axis[1] * 0.5 + axis[2] * 0.25)


@wp.kernel
def half_division(q: wp.array(dtype=wp.quath), v: wp.array(dtype=wp.vec3h), s: wp.array(dtype=wp.float16),
                  out: wp.array(dtype=wp.float16)):
    i = wp.tid()
    r = q[i] / s[i]
    w = v[i] / s[i]
    out[i] = wp.float16(2.0) * r[i % 4] + w[i % 3]


def _axis_angle_grads():
    quats = np.array([(0.0, 0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.5, 0.5, 0.5), (0.0, 0.0, 0.0, -1.0),
                      (0.3, 0.0, 0.0, 0.0), (0.2, -0.4, 0.1, -0.8)], dtype=np.float32)
    q = wp.array(quats, dtype=wp.quat, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(axis_angle, len(quats), [q, loss])
    tape.backward(loss=loss)
    return loss.numpy(), q.grad.numpy()


def _half_division_grads(rng):
    n = 8
    q = wp.array(rng.standard_normal((n, 4)).astype(np.float16), dtype=wp.quath, requires_grad=True)
    v = wp.array(rng.standard_normal((n, 3)).astype(np.float16), dtype=wp.vec3h, requires_grad=True)
    s = wp.array((rng.standard_normal(n) + 2.0).astype(np.float16), requires_grad=True)
    out = wp.zeros(n, dtype=wp.float16, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(half_division, n, [q, v, s], [out])
    tape.backward(grads={out: wp.ones(n, dtype=wp.float16)})
    return out.numpy(), s.grad.numpy(), q.grad.numpy(), v.grad.numpy()


def run():
    rng = np.random.default_rng(21)
    half = _half_division_grads(np.random.default_rng(123))
    extra = {"axis_angle": _axis_angle_grads(), "half_div_out": half[0], "half_div_s": half[1],
             "half_div_q": half[2], "half_div_v": half[3]}
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
            "twist": twist.grad.numpy(), **extra}


TOLERANCE = {"half_div_s": (0.0, 0.0), "half_div_out": (0.0, 0.0)}
