# Matrix builtins of the Vector Math group (transpose, trace, diag, get_diag, identity,
# matrix_from_rows/cols, ddot, cw_mul/cw_div, determinant, inverse, inverse_approx) and the matrix
# operators (mat*vec, vec*mat, mat*mat incl. non-square, scalar*mat, mat/scalar, +, -, unary -).

mat23 = wp.types.matrix(shape=(2, 3), dtype=float)
mat32 = wp.types.matrix(shape=(3, 2), dtype=float)
mat34 = wp.types.matrix(shape=(3, 4), dtype=float)
mat24 = wp.types.matrix(shape=(2, 4), dtype=float)


@wp.kernel
def structure(
    m: wp.array(dtype=wp.mat33),
    r: wp.array(dtype=mat23),
    v: wp.array(dtype=wp.vec3),
    sq: wp.array(dtype=wp.mat33, ndim=2),
    rect: wp.array(dtype=mat32, ndim=2),
    rows: wp.array(dtype=mat23),
    vecs: wp.array(dtype=wp.vec3, ndim=2),
    scal: wp.array(dtype=float, ndim=2),
):
    i = wp.tid()
    a = m[i]
    sq[i, 0] = wp.transpose(a)
    sq[i, 1] = wp.diag(v[i])
    sq[i, 2] = wp.identity(n=3, dtype=float) * 2.0 + a
    sq[i, 3] = wp.matrix_from_rows(v[i], a[1], a[2] * 2.0)
    sq[i, 4] = wp.matrix_from_cols(v[i], a[1], a[2] * 2.0)
    sq[i, 5] = wp.cw_mul(a, wp.transpose(a))
    sq[i, 6] = wp.cw_div(a, wp.identity(3, float) + wp.diag(v[i]) * 0.0 + a * a)
    rect[i, 0] = wp.transpose(r[i])
    rect[i, 1] = wp.matrix_from_cols(v[i], a[0])
    rows[i] = wp.matrix_from_rows(v[i], a[2])
    vecs[i, 0] = wp.get_diag(a)
    vecs[i, 1] = wp.get_diag(wp.identity(n=3, dtype=float))
    scal[i, 0] = wp.trace(a)
    scal[i, 1] = wp.ddot(a, wp.transpose(a))
    scal[i, 2] = wp.ddot(r[i], r[i])
    scal[i, 3] = wp.trace(wp.identity(n=4, dtype=float))


@wp.kernel
def algebra(
    m2: wp.array(dtype=wp.mat22),
    m3: wp.array(dtype=wp.mat33),
    m4: wp.array(dtype=wp.mat44),
    inv2: wp.array(dtype=wp.mat22, ndim=2),
    inv3: wp.array(dtype=wp.mat33, ndim=2),
    inv4: wp.array(dtype=wp.mat44, ndim=2),
    dets: wp.array(dtype=float, ndim=2),
):
    i = wp.tid()
    inv2[i, 0] = wp.inverse(m2[i])
    inv2[i, 1] = wp.inverse_approx(m2[i])
    inv2[i, 2] = m2[i] * wp.inverse(m2[i])
    inv3[i, 0] = wp.inverse(m3[i])
    inv3[i, 1] = wp.inverse_approx(m3[i])
    inv3[i, 2] = wp.inverse(m3[i]) * m3[i]
    inv4[i, 0] = wp.inverse(m4[i])
    inv4[i, 1] = wp.inverse_approx(m4[i])
    inv4[i, 2] = m4[i] * wp.inverse(m4[i])
    dets[i, 0] = wp.determinant(m2[i])
    dets[i, 1] = wp.determinant(m3[i])
    dets[i, 2] = wp.determinant(m4[i])
    dets[i, 3] = wp.determinant(wp.transpose(m4[i]))


@wp.kernel
def operators(
    m: wp.array(dtype=wp.mat33),
    r: wp.array(dtype=mat23),
    k: wp.array(dtype=mat34),
    s: wp.array(dtype=wp.spatial_matrix),
    v: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=wp.spatial_vector),
    sq: wp.array(dtype=wp.mat33, ndim=2),
    rk: wp.array(dtype=mat24),
    v3: wp.array(dtype=wp.vec3, ndim=2),
    v2: wp.array(dtype=wp.vec2),
    v4: wp.array(dtype=wp.vec4),
    sv: wp.array(dtype=wp.spatial_vector, ndim=2),
    sm: wp.array(dtype=wp.spatial_matrix),
):
    i = wp.tid()
    a = m[i]
    sq[i, 0] = a * a
    sq[i, 1] = 2.5 * a
    sq[i, 2] = a * 0.5
    sq[i, 3] = a / 4.0
    sq[i, 4] = a + wp.transpose(a) - a * 2.0
    sq[i, 5] = -a
    sq[i, 6] = wp.outer(v[i], v[i]) * a
    rk[i] = r[i] * k[i]
    v3[i, 0] = a * v[i]
    v3[i, 1] = v[i] * a
    v3[i, 2] = wp.transpose(r[i]) * (r[i] * v[i])
    v2[i] = r[i] * v[i]
    v4[i] = v[i] * k[i]
    sv[i, 0] = s[i] * w[i]
    sv[i, 1] = w[i] * s[i]
    sm[i] = s[i] * s[i] - wp.identity(n=6, dtype=float)


def _well_conditioned(rng, n, k):
    return (rng.standard_normal((n, k, k)) * 0.5 + np.eye(k) * 2.0).astype(np.float32)


def run():
    rng = np.random.default_rng(5)
    n = 10
    m = rng.standard_normal((n, 3, 3)).astype(np.float32)
    r = rng.standard_normal((n, 2, 3)).astype(np.float32)
    v = rng.standard_normal((n, 3)).astype(np.float32)
    sq = wp.zeros((n, 7), dtype=wp.mat33)
    rect = wp.zeros((n, 2), dtype=mat32)
    rows = wp.zeros(n, dtype=mat23)
    vecs = wp.zeros((n, 2), dtype=wp.vec3)
    scal = wp.zeros((n, 4), dtype=float)
    wp.launch(
        structure,
        dim=n,
        inputs=[wp.array(m, dtype=wp.mat33), wp.array(r, dtype=mat23), wp.array(v, dtype=wp.vec3)],
        outputs=[sq, rect, rows, vecs, scal],
    )

    m2 = _well_conditioned(rng, n, 2)
    m3 = _well_conditioned(rng, n, 3)
    m4 = _well_conditioned(rng, n, 4)
    m2[0] = [[1.0, 2.0], [2.0, 4.0]]  # singular: inverse is the zero matrix
    m3[0] = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]
    m4[0] = [[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [0.0, 1.0, 1.0, 2.0], [5.0, 0.0, 1.0, 1.0]]
    m2[1] = 0.0
    m3[1] = 0.0
    m4[1] = 0.0
    inv2 = wp.zeros((n, 3), dtype=wp.mat22)
    inv3 = wp.zeros((n, 3), dtype=wp.mat33)
    inv4 = wp.zeros((n, 3), dtype=wp.mat44)
    dets = wp.zeros((n, 4), dtype=float)
    wp.launch(
        algebra,
        dim=n,
        inputs=[wp.array(m2, dtype=wp.mat22), wp.array(m3, dtype=wp.mat33), wp.array(m4, dtype=wp.mat44)],
        outputs=[inv2, inv3, inv4, dets],
    )

    k = rng.standard_normal((n, 3, 4)).astype(np.float32)
    s = rng.standard_normal((n, 6, 6)).astype(np.float32)
    w = rng.standard_normal((n, 6)).astype(np.float32)
    outs = [
        wp.zeros((n, 7), dtype=wp.mat33),
        wp.zeros(n, dtype=mat24),
        wp.zeros((n, 3), dtype=wp.vec3),
        wp.zeros(n, dtype=wp.vec2),
        wp.zeros(n, dtype=wp.vec4),
        wp.zeros((n, 2), dtype=wp.spatial_vector),
        wp.zeros(n, dtype=wp.spatial_matrix),
    ]
    wp.launch(
        operators,
        dim=n,
        inputs=[
            wp.array(m, dtype=wp.mat33),
            wp.array(r, dtype=mat23),
            wp.array(k, dtype=mat34),
            wp.array(s, dtype=wp.spatial_matrix),
            wp.array(v, dtype=wp.vec3),
            wp.array(w, dtype=wp.spatial_vector),
        ],
        outputs=outs,
    )
    return {
        "sq": sq,
        "rect": rect,
        "rows": rows,
        "vecs": vecs,
        "scal": scal,
        "inv2": inv2,
        "inv3": inv3,
        "inv4": inv4,
        "dets": dets,
        "op_sq": outs[0],
        "op_rk": outs[1],
        "op_v3": outs[2],
        "op_v2": outs[3],
        "op_v4": outs[4],
        "op_sv": outs[5],
        "op_sm": outs[6],
    }


TOLERANCE = {"inv4": (1e-5, 1e-5), "op_sm": (1e-5, 1e-5), "op_rk": (1e-5, 1e-5)}
