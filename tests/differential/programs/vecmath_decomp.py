# Matrix decompositions: svd3, svd2, qr3, eig3 (tuple-returning and output-argument forms), in float32
# and float64, on random, rank-deficient, reflected, diagonal and zero matrices. Compares Warp's actual
# factors (signs and ordering included), not only reconstructions.


@wp.kernel
def decompose3(
    a: wp.array(dtype=wp.mat33),
    u: wp.array(dtype=wp.mat33, ndim=2),
    s: wp.array(dtype=wp.vec3, ndim=2),
    rec: wp.array(dtype=wp.mat33, ndim=2),
):
    i = wp.tid()
    A = a[i]
    U, sigma, V = wp.svd3(A)
    u[i, 0] = U
    u[i, 1] = V
    s[i, 0] = sigma
    rec[i, 0] = U * wp.diag(sigma) * wp.transpose(V)
    Q, R = wp.qr3(A)
    u[i, 2] = Q
    u[i, 3] = R
    rec[i, 1] = Q * R
    S = A + wp.transpose(A)
    E, d = wp.eig3(S)
    u[i, 4] = E
    s[i, 1] = d
    rec[i, 2] = E * wp.diag(d) * wp.transpose(E)
    # output-argument overloads
    U2 = wp.mat33()
    sigma2 = wp.vec3()
    V2 = wp.mat33()
    wp.svd3(A, U2, sigma2, V2)
    s[i, 2] = sigma2
    u[i, 5] = U2 - U + V2
    Q2 = wp.mat33()
    R2 = wp.mat33()
    wp.qr3(A, Q2, R2)
    u[i, 6] = Q2 * R2
    E2 = wp.mat33()
    d2 = wp.vec3()
    wp.eig3(S, E2, d2)
    s[i, 3] = d2


@wp.kernel
def decompose3d(
    a: wp.array(dtype=wp.mat33d),
    u: wp.array(dtype=wp.mat33d, ndim=2),
    s: wp.array(dtype=wp.vec3d, ndim=2),
):
    i = wp.tid()
    A = a[i]
    U, sigma, V = wp.svd3(A)
    u[i, 0] = U
    u[i, 1] = V
    s[i, 0] = sigma
    Q, R = wp.qr3(A)
    u[i, 2] = Q
    u[i, 3] = R
    E, d = wp.eig3(A * wp.transpose(A))
    u[i, 4] = E
    s[i, 1] = d


@wp.kernel
def decompose2(
    a: wp.array(dtype=wp.mat22),
    u: wp.array(dtype=wp.mat22, ndim=2),
    s: wp.array(dtype=wp.vec2),
):
    i = wp.tid()
    U, sigma, V = wp.svd2(a[i])
    u[i, 0] = U
    u[i, 1] = V
    u[i, 2] = U * wp.diag(sigma) * wp.transpose(V)
    s[i] = sigma
    U2 = wp.mat22()
    sigma2 = wp.vec2()
    V2 = wp.mat22()
    wp.svd2(a[i], U2, sigma2, V2)
    u[i, 3] = U2 * wp.diag(sigma2) + V2


@wp.kernel
def decompose2d(a: wp.array(dtype=wp.mat22d), u: wp.array(dtype=wp.mat22d, ndim=2), s: wp.array(dtype=wp.vec2d)):
    i = wp.tid()
    U, sigma, V = wp.svd2(a[i])
    u[i, 0] = U
    u[i, 1] = V
    s[i] = sigma


@wp.kernel
def invariants3(a: wp.array(dtype=wp.mat33), out: wp.array(dtype=wp.mat33, ndim=2), s: wp.array(dtype=wp.vec3, ndim=2)):
    # Exactly degenerate inputs (repeated singular values / eigenvalues): the factors are not unique
    # and depend on last-bit rounding (FMA contraction), so only basis-independent results are compared.
    i = wp.tid()
    A = a[i]
    U, sigma, V = wp.svd3(A)
    s[i, 0] = sigma
    out[i, 0] = U * wp.diag(sigma) * wp.transpose(V)
    if i != 3:
        out[i, 1] = U * wp.transpose(V)
    out[i, 2] = wp.transpose(U) * U + wp.transpose(V) * V
    Q, R = wp.qr3(A)
    out[i, 3] = Q * R
    E, d = wp.eig3(A + wp.transpose(A))
    out[i, 4] = E * wp.diag(d) * wp.transpose(E)
    s[i, 1] = wp.vec3(wp.determinant(U), wp.determinant(V), wp.determinant(E))
    s[i, 2] = wp.vec3(d[0] + d[1] + d[2], d[0] * d[1] * d[2], wp.max(d))


@wp.kernel
def in_loop(x: wp.array(dtype=float), n: int, out: wp.array(dtype=wp.vec3), out2: wp.array(dtype=wp.vec2)):
    # constant and per-thread entries mixed in one matrix; decompositions inside a runtime loop
    i = wp.tid()
    acc = wp.vec3()
    acc2 = wp.vec2()
    for k in range(n):
        A = wp.mat33(x[i] + float(k), 1.0, 0.0, 0.5, 2.0, 0.0, 0.0, 0.25, 3.5)
        U, sigma, V = wp.svd3(A)
        Q, d = wp.eig3(A + wp.transpose(A))
        acc = acc + sigma + wp.vec3(U[0, 0] * V[0, 0], Q[1, 1] * Q[1, 1], d[0] + d[1] + d[2])
        U2, s2, V2 = wp.svd2(wp.mat22(x[i], float(k), 1.0, 2.0))
        acc2 = acc2 + s2 + wp.vec2(U2[0, 0] * V2[0, 0], U2[1, 0] * V2[1, 0])
    out[i] = acc
    out2[i] = acc2


def _degenerate():
    return np.array(
        [
            np.eye(3),
            np.diag([2.0, 2.0, 1.0]),  # repeated singular values
            np.diag([3.0, -1.0, 2.0]),
            [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],  # reflection (det -1); U V^T not unique
            [[0.0, 0.0, 0.5], [0.0, 0.5, 0.0], [-0.5, 0.0, 0.0]],
            [[0.0, 0.0, 2.0], [0.0, 2.0, 0.0], [-2.0, 0.0, 0.0]],  # scaled rotation
            np.zeros((3, 3)),
        ]
    )


def _matrices(rng, n, k):
    m = rng.standard_normal((n, k, k))
    if k == 3:
        m[0] = np.diag([3.0, -1.0, 2.0])  # distinct diagonal entries, one negative
        m[1] = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]  # rank 2
        m[2] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]]
        m[3] = [[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 3.0]]  # reflection, distinct singular values
    else:
        m[0] = np.diag([2.0, 2.0])  # equal singular values: U = V = I
        m[1] = 0.0
        m[2] = [[1.0, 2.0], [2.0, 4.0]]  # rank 1
        m[3] = [[0.0, 1.0], [1.0, 0.0]]  # reflection
        m[4] = [[3.0, 0.0], [4.0, 5.0]]
        m[5] = np.diag([1.0, 3.0])
    return m


def run():
    rng = np.random.default_rng(21)
    n = 24
    m3 = _matrices(rng, n, 3)
    u = wp.zeros((n, 7), dtype=wp.mat33)
    s = wp.zeros((n, 4), dtype=wp.vec3)
    rec = wp.zeros((n, 3), dtype=wp.mat33)
    wp.launch(decompose3, dim=n, inputs=[wp.array(m3.astype(np.float32), dtype=wp.mat33)], outputs=[u, s, rec])

    ud = wp.zeros((n, 5), dtype=wp.mat33d)
    sd = wp.zeros((n, 2), dtype=wp.vec3d)
    wp.launch(decompose3d, dim=n, inputs=[wp.array(m3, dtype=wp.mat33d)], outputs=[ud, sd])

    m2 = _matrices(rng, n, 2)
    u2 = wp.zeros((n, 4), dtype=wp.mat22)
    s2 = wp.zeros(n, dtype=wp.vec2)
    wp.launch(decompose2, dim=n, inputs=[wp.array(m2.astype(np.float32), dtype=wp.mat22)], outputs=[u2, s2])
    u2d = wp.zeros((n, 2), dtype=wp.mat22d)
    s2d = wp.zeros(n, dtype=wp.vec2d)
    wp.launch(decompose2d, dim=n, inputs=[wp.array(m2, dtype=wp.mat22d)], outputs=[u2d, s2d])
    xs = (rng.standard_normal(8) * 2.0).astype(np.float32)
    loop_out = wp.zeros(8, dtype=wp.vec3)
    loop_out2 = wp.zeros(8, dtype=wp.vec2)
    wp.launch(in_loop, dim=8, inputs=[wp.array(xs, dtype=float), 3], outputs=[loop_out, loop_out2])
    deg = _degenerate()
    inv = wp.zeros((len(deg), 5), dtype=wp.mat33)
    inv_s = wp.zeros((len(deg), 3), dtype=wp.vec3)
    wp.launch(
        invariants3, dim=len(deg), inputs=[wp.array(deg.astype(np.float32), dtype=wp.mat33)], outputs=[inv, inv_s]
    )
    return {
        "in_loop": loop_out,
        "in_loop_svd2": loop_out2,
        "degenerate": inv,
        "degenerate_values": inv_s,
        "factors": u,
        "values": s,
        "reconstructions": rec,
        "factors64": ud,
        "values64": sd,
        "svd2": u2,
        "sigma2": s2,
        "svd2_64": u2d,
        "sigma2_64": s2d,
        "input_recon_err": np.abs(rec.numpy() - np.stack([m3, m3, m3 + m3.transpose(0, 2, 1)], 1)).max(),
    }


RTOL = 1e-4
ATOL = 2e-5
TOLERANCE = {
    "factors64": (1e-9, 1e-11),
    "values64": (1e-9, 1e-11),
    "svd2_64": (1e-9, 1e-11),
    "sigma2_64": (1e-9, 1e-11),
    "input_recon_err": (1.0, 1e-4),
}
