# Vector Math builtins over float64, float16 and integer components (wrapping int8/uint8 sums,
# integer cw_div, argmax on ints), identity() of several sizes and dtypes.

vec3b = wp.types.vector(length=3, dtype=wp.int8)
vec4ub = wp.types.vector(length=4, dtype=wp.uint8)
mat33i = wp.types.matrix(shape=(3, 3), dtype=wp.int32)
mat23i = wp.types.matrix(shape=(2, 3), dtype=wp.int32)
mat44d = wp.types.matrix(shape=(4, 4), dtype=wp.float64)


@wp.kernel
def doubles(
    a: wp.array(dtype=wp.vec3d),
    b: wp.array(dtype=wp.vec3d),
    q: wp.array(dtype=wp.quatd),
    m2: wp.array(dtype=wp.mat22d),
    m3: wp.array(dtype=wp.mat33d),
    m4: wp.array(dtype=mat44d),
    scal: wp.array(dtype=wp.float64, ndim=2),
    vecs: wp.array(dtype=wp.vec3d, ndim=2),
    quats: wp.array(dtype=wp.quatd),
    i2: wp.array(dtype=wp.mat22d),
    i3: wp.array(dtype=wp.mat33d, ndim=2),
    i4: wp.array(dtype=mat44d),
    idx: wp.array(dtype=wp.uint32),
):
    i = wp.tid()
    u = a[i]
    v = b[i]
    scal[i, 0] = wp.dot(u, v)
    scal[i, 1] = wp.length(u)
    scal[i, 2] = wp.length_sq(u)
    scal[i, 3] = wp.norm_l2(v)
    scal[i, 4] = wp.length(q[i])
    scal[i, 5] = wp.dot(q[i], q[i])
    scal[i, 6] = wp.determinant(m2[i])
    scal[i, 7] = wp.determinant(m3[i])
    scal[i, 8] = wp.determinant(m4[i])
    scal[i, 9] = wp.ddot(m3[i], m3[i])
    scal[i, 10] = wp.trace(m3[i])
    vecs[i, 0] = wp.cross(u, v)
    vecs[i, 1] = wp.normalize(u)
    vecs[i, 2] = wp.cw_div(u, v)
    vecs[i, 3] = wp.get_diag(wp.outer(u, v))
    quats[i] = wp.normalize(q[i])
    i2[i] = wp.inverse(m2[i])
    i3[i, 0] = wp.inverse(m3[i])
    i3[i, 1] = wp.skew(u) + wp.diag(v) + wp.identity(n=3, dtype=wp.float64)
    i4[i] = wp.inverse_approx(m4[i])
    idx[i] = wp.argmax(u) * wp.uint32(3) + wp.argmin(v)


@wp.kernel
def halves(
    a: wp.array(dtype=wp.vec3h),
    b: wp.array(dtype=wp.vec3h),
    m: wp.array(dtype=wp.mat33h),
    scal: wp.array(dtype=wp.float16, ndim=2),
    vecs: wp.array(dtype=wp.vec3h, ndim=2),
    mats: wp.array(dtype=wp.mat33h, ndim=2),
    svd: wp.array(dtype=wp.mat33h),
    qr: wp.array(dtype=wp.mat33h, ndim=2),
    idx: wp.array(dtype=wp.uint32, ndim=2),
):
    i = wp.tid()
    u = a[i]
    v = b[i]
    Q, R = wp.qr3(m[i])
    qr[i, 0] = Q
    qr[i, 1] = wp.transpose(Q) * Q  # Q's departure from orthogonality follows Warp's per-entry rounding
    scal[i, 0] = wp.dot(u, v)
    scal[i, 1] = wp.length(u)
    scal[i, 2] = wp.length_sq(v)
    scal[i, 3] = wp.determinant(m[i])
    scal[i, 4] = wp.trace(m[i])
    vecs[i, 0] = wp.cross(u, v)
    vecs[i, 1] = wp.normalize(v)
    vecs[i, 2] = wp.cw_mul(u, v)
    mats[i, 0] = wp.inverse(m[i])
    mats[i, 1] = wp.outer(u, v)
    mats[i, 2] = wp.transpose(m[i]) + wp.identity(n=3, dtype=wp.float16)
    U, sigma, V = wp.svd3(m[i])
    svd[i] = U * wp.diag(sigma) * wp.transpose(V)
    idx[i, 0] = wp.argmax(u)
    idx[i, 1] = wp.argmin(u)


@wp.kernel
def integers(
    a: wp.array(dtype=wp.vec3i),
    b: wp.array(dtype=wp.vec3i),
    c: wp.array(dtype=vec3b),
    d: wp.array(dtype=vec4ub),
    e: wp.array(dtype=wp.vec2l),
    m: wp.array(dtype=mat33i),
    r: wp.array(dtype=mat23i),
    scal: wp.array(dtype=int, ndim=2),
    small: wp.array(dtype=wp.int8),
    usmall: wp.array(dtype=wp.uint8),
    longs: wp.array(dtype=wp.int64),
    vecs: wp.array(dtype=wp.vec3i, ndim=2),
    mats: wp.array(dtype=mat33i, ndim=2),
    rect: wp.array(dtype=wp.types.matrix(shape=(3, 2), dtype=wp.int32)),
    idx: wp.array(dtype=wp.uint32, ndim=2),
):
    i = wp.tid()
    u = a[i]
    v = b[i]
    scal[i, 0] = wp.dot(u, v)
    scal[i, 1] = wp.length_sq(u)
    scal[i, 2] = wp.trace(m[i])
    scal[i, 3] = wp.ddot(m[i], m[i])
    scal[i, 4] = wp.ddot(r[i], r[i])
    small[i] = wp.dot(c[i], c[i])
    usmall[i] = wp.length_sq(d[i])
    longs[i] = wp.dot(e[i], e[i])
    vecs[i, 0] = wp.cross(u, v)
    vecs[i, 1] = wp.cw_mul(u, v)
    vecs[i, 2] = wp.cw_div(u, v)
    vecs[i, 3] = wp.get_diag(m[i])
    vecs[i, 4] = m[i] * u
    vecs[i, 5] = u * m[i]
    mats[i, 0] = wp.outer(u, v)
    mats[i, 1] = wp.skew(u)
    mats[i, 2] = wp.diag(v) + wp.identity(n=3, dtype=int)
    mats[i, 3] = wp.cw_div(m[i], wp.transpose(m[i]))
    mats[i, 4] = m[i] * wp.transpose(m[i])
    mats[i, 5] = wp.matrix_from_rows(u, v, u) - wp.matrix_from_cols(v, u, v)
    rect[i] = wp.transpose(r[i])
    idx[i, 0] = wp.argmax(u)
    idx[i, 1] = wp.argmin(u)
    idx[i, 2] = wp.argmax(d[i])
    idx[i, 3] = wp.argmin(c[i])


def run():
    rng = np.random.default_rng(8)
    n = 9
    a = rng.standard_normal((n, 3))
    b = rng.standard_normal((n, 3))
    b[0] = 0.0
    a[1] = 0.0
    q = rng.standard_normal((n, 4))
    q[2] = 0.0
    m2 = rng.standard_normal((n, 2, 2)) * 0.5 + np.eye(2) * 2
    m3 = rng.standard_normal((n, 3, 3)) * 0.5 + np.eye(3) * 2
    m4 = rng.standard_normal((n, 4, 4)) * 0.5 + np.eye(4) * 2
    m3[0] = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]
    d_out = {
        "scal": wp.zeros((n, 11), dtype=wp.float64),
        "vecs": wp.zeros((n, 4), dtype=wp.vec3d),
        "quats": wp.zeros(n, dtype=wp.quatd),
        "i2": wp.zeros(n, dtype=wp.mat22d),
        "i3": wp.zeros((n, 2), dtype=wp.mat33d),
        "i4": wp.zeros(n, dtype=mat44d),
        "idx": wp.zeros(n, dtype=wp.uint32),
    }
    wp.launch(
        doubles,
        dim=n,
        inputs=[
            wp.array(a, dtype=wp.vec3d),
            wp.array(b, dtype=wp.vec3d),
            wp.array(q, dtype=wp.quatd),
            wp.array(m2, dtype=wp.mat22d),
            wp.array(m3, dtype=wp.mat33d),
            wp.array(m4, dtype=mat44d),
        ],
        outputs=list(d_out.values()),
    )

    ha = (rng.standard_normal((n, 3)) * 2).astype(np.float16)
    hb = (rng.standard_normal((n, 3)) * 2).astype(np.float16)
    hb[0] = 0.0
    hm = (rng.standard_normal((n, 3, 3)) * 0.5 + np.eye(3) * 2).astype(np.float16)
    hm[-4:] = 0.5 * (rng.uniform(-1.0, 1.0, (4, 3, 3)) + np.eye(3))  # less dominant diagonals
    h_out = {
        "scal": wp.zeros((n, 5), dtype=wp.float16),
        "vecs": wp.zeros((n, 3), dtype=wp.vec3h),
        "mats": wp.zeros((n, 3), dtype=wp.mat33h),
        "svd": wp.zeros(n, dtype=wp.mat33h),
        "qr": wp.zeros((n, 2), dtype=wp.mat33h),
        "idx": wp.zeros((n, 2), dtype=wp.uint32),
    }
    wp.launch(
        halves,
        dim=n,
        inputs=[wp.array(ha, dtype=wp.vec3h), wp.array(hb, dtype=wp.vec3h), wp.array(hm, dtype=wp.mat33h)],
        outputs=list(h_out.values()),
    )

    ia = rng.integers(-50, 50, (n, 3)).astype(np.int32)
    ib = rng.integers(-5, 5, (n, 3)).astype(np.int32)
    ib[ib == 0] = 3  # no integer division by zero (undefined in Warp)
    ia[2] = [7, 7, -1]  # ties: first index wins
    ic = rng.integers(-100, 100, (n, 3)).astype(np.int8)  # dot wraps around in int8
    idd = rng.integers(0, 255, (n, 4)).astype(np.uint8)
    ie = rng.integers(-(2**40), 2**40, (n, 2)).astype(np.int64)
    im = rng.integers(1, 9, (n, 3, 3)).astype(np.int32)
    ir = rng.integers(-9, 9, (n, 2, 3)).astype(np.int32)
    i_out = {
        "scal": wp.zeros((n, 5), dtype=int),
        "small": wp.zeros(n, dtype=wp.int8),
        "usmall": wp.zeros(n, dtype=wp.uint8),
        "longs": wp.zeros(n, dtype=wp.int64),
        "vecs": wp.zeros((n, 6), dtype=wp.vec3i),
        "mats": wp.zeros((n, 6), dtype=mat33i),
        "rect": wp.zeros(n, dtype=wp.types.matrix(shape=(3, 2), dtype=wp.int32)),
        "idx": wp.zeros((n, 4), dtype=wp.uint32),
    }
    wp.launch(
        integers,
        dim=n,
        inputs=[
            wp.array(ia, dtype=wp.vec3i),
            wp.array(ib, dtype=wp.vec3i),
            wp.array(ic, dtype=vec3b),
            wp.array(idd, dtype=vec4ub),
            wp.array(ie, dtype=wp.vec2l),
            wp.array(im, dtype=mat33i),
            wp.array(ir, dtype=mat23i),
        ],
        outputs=list(i_out.values()),
    )
    out = {f"f64_{k}": v for k, v in d_out.items()}
    out.update({f"f16_{k}": v for k, v in h_out.items()})
    out.update({f"int_{k}": v for k, v in i_out.items()})
    return out


RTOL = 1e-12
ATOL = 1e-13
TOLERANCE = {
    "f64_i4": (1e-9, 1e-12),
    "f16_scal": (2e-3, 2e-3),
    "f16_vecs": (2e-3, 2e-3),
    "f16_mats": (5e-3, 1e-2),
    "f16_svd": (0.0, 5e-2),
    "f16_qr": (0.0, 1e-3),  # 4 Jacobi sweeps in half precision: rounding differences compound
}
