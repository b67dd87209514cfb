"""Quaternion Math builtins on float32 (and float64) quaternions: rotation, matrices, axis-angle,
slerp, Euler/RPY conversions (Tait-Bryan and proper sequences, with per-thread axis indices),
twist decomposition, products, in-out ``quat_to_axis_angle``, identity and default constructors."""

RTOL = 2e-5
ATOL = 2e-6


@wp.kernel
def quat_basics(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float, ndim=2),
                quats: wp.array(dtype=wp.quat, ndim=2), vecs: wp.array(dtype=wp.vec3, ndim=2),
                mats: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    a = wp.normalize(q[i])
    b = wp.normalize(q[(i + 1) % 16])
    vecs[i, 0] = wp.quat_rotate(a, v[i])
    vecs[i, 1] = wp.quat_rotate_inv(a, v[i])
    mats[i] = wp.quat_to_matrix(a)
    quats[i, 0] = wp.quat_from_matrix(wp.quat_to_matrix(a))
    quats[i, 1] = wp.quat_slerp(a, b, 0.3)
    quats[i, 2] = a * b
    quats[i, 3] = wp.quat_inverse(a)
    quats[i, 4] = wp.quat_rpy(v[i][0], v[i][1], v[i][2])
    quats[i, 5] = wp.quat_from_axis_angle(wp.normalize(v[i]), 0.7)
    quats[i, 6] = wp.quat_twist(wp.normalize(v[i]), a)
    quats[i, 7] = wp.quat_identity()
    quats[i, 8] = wp.quat()
    axis, angle = wp.quat_to_axis_angle(a)
    vecs[i, 2] = axis
    out[i, 0] = angle
    axis2 = wp.vec3()
    angle2 = float(0.0)
    wp.quat_to_axis_angle(b, axis2, angle2)
    vecs[i, 3] = axis2
    out[i, 1] = angle2
    out[i, 2] = wp.quat_twist_angle(wp.normalize(v[i]), a)
    out[i, 3] = wp.quat_twist_angle_signed(wp.normalize(v[i]), a)
    vecs[i, 4] = wp.quat_to_rpy(a)


@wp.kernel
def quat_euler(q: wp.array(dtype=wp.quat), seq: wp.array(dtype=int, ndim=2),
               angles: wp.array(dtype=wp.vec3, ndim=2), back: wp.array(dtype=wp.quat, ndim=2)):
    i, s = wp.tid()
    a = wp.normalize(q[i])
    e = wp.quat_to_euler(a, seq[s, 0], seq[s, 1], seq[s, 2])
    angles[i, s] = e
    back[i, s] = wp.quat_from_euler(e, seq[s, 0], seq[s, 1], seq[s, 2])


@wp.kernel
def quat_static_seq(q: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.vec3, ndim=2)):
    i = wp.tid()
    a = wp.normalize(q[i])
    out[i, 0] = wp.quat_to_euler(a, 0, 1, 2)
    out[i, 1] = wp.quat_to_euler(a, 2, 0, 2)
    e = wp.quat_to_euler(a, 1, 2, 0)
    r = wp.quat_from_euler(e, 1, 2, 0)
    out[i, 2] = wp.vec3(r[0], r[1], r[2])


@wp.kernel
def quat_f64(q: wp.array(dtype=wp.quatd), v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d, ndim=2),
             m: wp.array(dtype=wp.mat44d)):
    i = wp.tid()
    a = wp.normalize(q[i])
    out[i, 0] = wp.quat_rotate(a, v[i])
    r = wp.quat_from_matrix(wp.quat_to_matrix(a))
    out[i, 1] = wp.vec3d(r[0], r[1], r[2])
    s = wp.quat_from_matrix(m[i])
    out[i, 2] = wp.vec3d(s[0], s[1], s[3])
    ax, ang = wp.quat_to_axis_angle(a * wp.quat_identity(dtype=wp.float64))
    out[i, 3] = ax * ang


SEQUENCES = [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1), (2, 0, 1), (1, 2, 0),
             (0, 1, 0), (2, 1, 2), (1, 0, 1), (0, 2, 0)]


def run():
    rng = np.random.default_rng(11)
    n = 16
    qs = rng.normal(size=(n, 4))
    qs[3] = [0.0, 0.0, 0.0, 1.0]          # identity
    qs[4] = [0.0, 0.0, 1.0, 0.0]          # 180 degrees about z
    qs[5] = [0.7071068, 0.0, 0.0, -0.7071068]  # negative w
    qs[6] = [0.0, 0.7071068, 0.0, 0.7071068]   # gimbal lock for xyz
    q = wp.array(qs.astype(np.float32), dtype=wp.quat)
    v = wp.array(rng.normal(size=(n, 3)).astype(np.float32), dtype=wp.vec3)
    out = wp.zeros((n, 4), dtype=float)
    quats = wp.zeros((n, 9), dtype=wp.quat)
    vecs = wp.zeros((n, 5), dtype=wp.vec3)
    mats = wp.zeros(n, dtype=wp.mat33)
    wp.launch(quat_basics, n, [q, v, out, quats, vecs, mats])
    seq = wp.array(np.array(SEQUENCES, dtype=np.int32), dtype=int)
    angles = wp.zeros((n, len(SEQUENCES)), dtype=wp.vec3)
    back = wp.zeros((n, len(SEQUENCES)), dtype=wp.quat)
    wp.launch(quat_euler, (n, len(SEQUENCES)), [q, seq, angles, back])
    static_out = wp.zeros((n, 3), dtype=wp.vec3)
    wp.launch(quat_static_seq, n, [q, static_out])
    qd = wp.array(qs, dtype=wp.quatd)
    vd = wp.array(rng.normal(size=(n, 3)), dtype=wp.vec3d)
    m44 = rng.normal(size=(n, 4, 4))
    m44[:4] = np.eye(4)
    m44[1, :3, :3] = np.diag([1.0, -1.0, -1.0])   # trace < 0, x largest
    m44[2, :3, :3] = np.diag([-1.0, 1.0, -1.0])   # y largest
    m44[3, :3, :3] = np.diag([-1.0, -1.0, 1.0])   # z largest
    md = wp.array(m44, dtype=wp.mat44d)
    outd = wp.zeros((n, 4), dtype=wp.vec3d)
    wp.launch(quat_f64, n, [qd, vd, outd, md])
    return {"out": out.numpy(), "quats": quats.numpy(), "vecs": vecs.numpy(), "mats": mats.numpy(),
            "angles": angles.numpy(), "back": back.numpy(), "static": static_out.numpy(), "f64": outd.numpy()}
