# Vector Math builtins on float32 vectors and quaternions: dot, cross, outer, skew, lengths,
# normalize (zero and NaN inputs included), argmax/argmin (ties, NaNs), cw_mul/cw_div.


@wp.kernel
def vec3_ops(
    a: wp.array(dtype=wp.vec3),
    b: wp.array(dtype=wp.vec3),
    scal: wp.array(dtype=float, ndim=2),
    vecs: wp.array(dtype=wp.vec3, ndim=2),
    mats: wp.array(dtype=wp.mat33, ndim=2),
    idx: wp.array(dtype=wp.uint32, ndim=2),
):
    i = wp.tid()
    u = a[i]
    v = b[i]
    scal[i, 0] = wp.dot(u, v)
    scal[i, 1] = wp.length(u)
    scal[i, 2] = wp.length_sq(v)
    scal[i, 3] = wp.norm_l1(u)
    scal[i, 4] = wp.norm_l2(v)
    scal[i, 5] = wp.norm_huber(u)
    scal[i, 6] = wp.norm_huber(v, 0.5)
    scal[i, 7] = wp.norm_pseudo_huber(u, delta=2.0)
    vecs[i, 0] = wp.cross(u, v)
    vecs[i, 1] = wp.normalize(u)
    vecs[i, 2] = wp.cw_mul(u, v)
    vecs[i, 3] = wp.cw_div(u, v)
    vecs[i, 4] = wp.smooth_normalize(u)
    vecs[i, 5] = wp.smooth_normalize(v, 0.25)
    mats[i, 0] = wp.outer(u, v)
    mats[i, 1] = wp.skew(u)
    mats[i, 2] = wp.skew(u) * wp.skew(v)
    idx[i, 0] = wp.argmax(u)
    idx[i, 1] = wp.argmin(u)
    idx[i, 2] = wp.argmax(v) + wp.uint32(10)


@wp.kernel
def other_lengths(
    a2: wp.array(dtype=wp.vec2),
    a4: wp.array(dtype=wp.vec4),
    a6: wp.array(dtype=wp.spatial_vector),
    q: wp.array(dtype=wp.quat),
    scal: wp.array(dtype=float, ndim=2),
    n2: wp.array(dtype=wp.vec2),
    n4: wp.array(dtype=wp.vec4),
    n6: wp.array(dtype=wp.spatial_vector),
    nq: wp.array(dtype=wp.quat),
    m24: wp.array(dtype=wp.types.matrix(shape=(2, 4), dtype=float)),
    idx: wp.array(dtype=wp.uint32, ndim=2),
):
    i = wp.tid()
    scal[i, 0] = wp.dot(a2[i], a2[i])
    scal[i, 1] = wp.length(a4[i])
    scal[i, 2] = wp.length_sq(a6[i])
    scal[i, 3] = wp.dot(q[i], q[i] * 2.0)
    scal[i, 4] = wp.length(q[i])
    scal[i, 5] = wp.length_sq(q[i])
    scal[i, 6] = wp.norm_l1(a6[i])
    scal[i, 7] = wp.norm_l2(q[i])
    scal[i, 8] = wp.norm_l1(q[i])
    n2[i] = wp.normalize(a2[i])
    n4[i] = wp.normalize(a4[i])
    n6[i] = wp.normalize(a6[i])
    nq[i] = wp.normalize(q[i])
    m24[i] = wp.outer(a2[i], a4[i])
    idx[i, 0] = wp.argmax(a6[i])
    idx[i, 1] = wp.argmin(a6[i])
    idx[i, 2] = wp.argmax(a4[i])
    idx[i, 3] = wp.argmin(a2[i])


@wp.kernel
def constant_folding(out: wp.array(dtype=float), outi: wp.array(dtype=wp.uint32)):
    # all-constant arguments
    v = wp.vec3(3.0, 4.0, 12.0)
    out[0] = wp.length(v)
    out[1] = wp.dot(v, wp.vec3(1.0, 0.5, 0.25))
    w = wp.normalize(v)
    out[2] = w[2]
    out[3] = wp.normalize(wp.vec3())[0]
    out[4] = wp.normalize(wp.quat(0.0, 0.0, 0.0, 0.0))[3]
    out[5] = wp.cross(v, wp.vec3(1.0, 0.0, 0.0))[1]
    outi[0] = wp.argmax(v)
    outi[1] = wp.argmin(wp.vec4(2.0, 1.0, 1.0, 3.0))
    for k in range(wp.length_sq(wp.vec2i(1, 1))):
        out[6] = out[6] + float(k)


def _vecs(rng, n, k, dtype):
    return wp.array(rng.standard_normal((n, k)).astype(np.float32), dtype=dtype)


def run():
    rng = np.random.default_rng(11)
    n = 12
    a = rng.standard_normal((n, 3)).astype(np.float32)
    b = rng.standard_normal((n, 3)).astype(np.float32)
    a[0] = 0.0  # zero vector: normalize -> 0, length 0
    a[1] = [np.nan, 1.0, 2.0]  # NaN: normalize -> 0 (length is not > 0), argmax skips it
    a[2] = [np.nan, np.nan, np.nan]  # all NaN: argmax/argmin -> 0
    a[3] = [1.0, 5.0, 5.0]  # ties: first index wins
    a[4] = [0.1, 0.2, 0.05]  # small: Huber quadratic branch
    b[5] = [2.0, -1.0, 0.5]
    scal = wp.zeros((n, 8), dtype=float)
    vecs = wp.zeros((n, 6), dtype=wp.vec3)
    mats = wp.zeros((n, 3), dtype=wp.mat33)
    idx = wp.zeros((n, 3), dtype=wp.uint32)
    wp.launch(
        vec3_ops,
        dim=n,
        inputs=[wp.array(a, dtype=wp.vec3), wp.array(b, dtype=wp.vec3), scal, vecs, mats, idx],
    )

    m = 10
    a2 = rng.standard_normal((m, 2)).astype(np.float32)
    a2[0] = 0.0
    a4 = rng.standard_normal((m, 4)).astype(np.float32)
    a4[1] = [1.0, np.nan, 7.0, 7.0]
    a6 = rng.standard_normal((m, 6)).astype(np.float32)
    a6[2] = 0.0
    q = rng.standard_normal((m, 4)).astype(np.float32)
    q[3] = 0.0
    scal2 = wp.zeros((m, 9), dtype=float)
    n2 = wp.zeros(m, dtype=wp.vec2)
    n4 = wp.zeros(m, dtype=wp.vec4)
    n6 = wp.zeros(m, dtype=wp.spatial_vector)
    nq = wp.zeros(m, dtype=wp.quat)
    m24 = wp.zeros(m, dtype=wp.types.matrix(shape=(2, 4), dtype=float))
    idx2 = wp.zeros((m, 4), dtype=wp.uint32)
    wp.launch(
        other_lengths,
        dim=m,
        inputs=[
            wp.array(a2, dtype=wp.vec2),
            wp.array(a4, dtype=wp.vec4),
            wp.array(a6, dtype=wp.spatial_vector),
            wp.array(q, dtype=wp.quat),
            scal2,
            n2,
            n4,
            n6,
            nq,
            m24,
            idx2,
        ],
    )

    out = wp.zeros(8, dtype=float)
    outi = wp.zeros(2, dtype=wp.uint32)
    wp.launch(constant_folding, dim=1, inputs=[out, outi])
    return {
        "scal": scal,
        "vecs": vecs,
        "mats": mats,
        "idx": idx,
        "scal2": scal2,
        "n2": n2,
        "n4": n4,
        "n6": n6,
        "nq": nq,
        "m24": m24,
        "idx2": idx2,
        "const": out,
        "const_idx": outi,
    }
