"""Gradients of the matrix decompositions eig3, svd3, svd2 and qr3 (Warp's closed-form adjoints, not
the derivative of the Jacobi/Givens iterations): eigenvalue-only losses at repeated eigenvalues, losses
mixing factors and values on random matrices, in float32 and float64, plus a central finite-difference
check of the float64 gradients on well-separated spectra. At exactly repeated eigenvalues the eigenvector
basis is not unique (it follows last-bit rounding, see jwarp/builtins/linalg.py), so only losses that are
symmetric functions of the eigenvalues are compared there."""

WEIGHTS = np.linspace(-1.0, 1.5, 24)


def _make(dtype):
    mat33 = wp.types.matrix((3, 3), dtype)
    mat22 = wp.types.matrix((2, 2), dtype)
    vec3 = wp.types.vector(3, dtype)

    @wp.kernel
    def eig_values_only(a: wp.array(dtype=mat33), loss: wp.array(dtype=dtype)):
        i = wp.tid()
        Q, d = wp.eig3(a[i])
        # basis-independent at repeated eigenvalues: trace(A^2) + trace(A) + trace(A^3)
        loss[i] = wp.dot(d, d) + d[0] + d[1] + d[2] + d[0] * d[0] * d[0] + d[1] * d[1] * d[1] + d[2] * d[2] * d[2]

    @wp.kernel
    def eig_full(a: wp.array(dtype=mat33), w: wp.array(dtype=dtype), loss: wp.array(dtype=dtype)):
        i = wp.tid()
        S = a[i] + wp.transpose(a[i])
        Q = mat33()
        d = vec3()
        wp.eig3(S, Q, d)
        total = dtype(0.0)
        for r in range(3):
            total += w[9 + r] * d[r]
            for c in range(3):
                total += w[r * 3 + c] * Q[r, c]
        loss[i] = total

    @wp.kernel
    def svd3_full(a: wp.array(dtype=mat33), w: wp.array(dtype=dtype), loss: wp.array(dtype=dtype)):
        i = wp.tid()
        U, s, V = wp.svd3(a[i])
        total = dtype(0.0)
        for r in range(3):
            total += w[18 + r] * s[r]
            for c in range(3):
                total += w[r * 3 + c] * U[r, c] + w[9 + r * 3 + c] * V[r, c]
        loss[i] = total

    @wp.kernel
    def svd2_full(a: wp.array(dtype=mat22), w: wp.array(dtype=dtype), loss: wp.array(dtype=dtype)):
        i = wp.tid()
        U, s, V = wp.svd2(a[i])
        loss[i] = w[0] * U[0, 0] + w[1] * U[1, 0] + w[2] * V[0, 1] + w[3] * V[1, 1] + w[4] * s[0] + w[5] * s[1]

    @wp.kernel
    def qr3_full(a: wp.array(dtype=mat33), w: wp.array(dtype=dtype), loss: wp.array(dtype=dtype)):
        i = wp.tid()
        Q, R = wp.qr3(a[i])
        total = dtype(0.0)
        for r in range(3):
            for c in range(3):
                total += w[r * 3 + c] * Q[r, c] + w[9 + r * 3 + c] * R[r, c]
        loss[i] = total

    return {"eig_full": eig_full, "svd3": svd3_full, "svd2": svd2_full, "qr3": qr3_full}, eig_values_only


KERNELS = {wp.float32: _make(wp.float32), wp.float64: _make(wp.float64)}


def _grad(kernel, mats, dtype, n, weights=True):
    np_dtype = np.float64 if dtype == wp.float64 else np.float32
    a = wp.array(mats.astype(np_dtype), dtype=wp.types.matrix((n, n), dtype), requires_grad=True)
    loss = wp.zeros(len(mats), dtype=dtype, requires_grad=True)
    inputs = [a, wp.array(WEIGHTS.astype(np_dtype), dtype=dtype)] if weights else [a]
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(mats), inputs=inputs, outputs=[loss])
    tape.backward(grads={loss: wp.ones(len(mats), dtype=dtype)})
    return loss.numpy(), a.grad.numpy()


def _loss64(kernel, mats, n):
    return _grad(kernel, mats, wp.float64, n)[0]


def _finite_difference_ok(kernel, mats, n, grad, h=1e-6, tol=1e-5):
    fd = np.zeros_like(mats)
    for r in range(n):
        for c in range(n):
            plus, minus = mats.copy(), mats.copy()
            plus[:, r, c] += h
            minus[:, r, c] -= h
            fd[:, r, c] = (_loss64(kernel, plus, n) - _loss64(kernel, minus, n)) / (2 * h)
    return bool(np.allclose(fd, grad, rtol=tol, atol=tol))


def run():
    rng = np.random.default_rng(7)
    rotation = np.array(((1.0, 2.0, 2.0), (2.0, 1.0, -2.0), (-2.0, 2.0, -1.0))) / 3.0
    repeated = np.array(
        [
            np.diag([2.0, 2.0, 3.0]),
            np.eye(3),
            np.zeros((3, 3)),
            np.diag([-2.0, -2.0, 3.0]),
            np.diag([1.0, 2.0, 3.0]),
            np.diag([2.0, 2.0 + 1e-5, 3.0]),
            rotation @ np.diag([2.0, 2.0, 3.0]) @ rotation.T,
        ]
    )
    m3 = rng.standard_normal((6, 3, 3)) + 2.0 * np.eye(3)
    m2 = rng.standard_normal((6, 2, 2)) + 2.0 * np.eye(2)
    out = {}
    for dtype, name in ((wp.float32, "f32"), (wp.float64, "f64")):
        kernels, values_only = KERNELS[dtype]
        loss, grad = _grad(values_only, repeated, dtype, 3, weights=False)
        out[f"eig_repeated_loss_{name}"] = loss
        out[f"eig_repeated_grad_{name}"] = grad
        for key, kernel in kernels.items():
            n = 2 if key == "svd2" else 3
            loss, grad = _grad(kernel, m2 if n == 2 else m3, dtype, n)
            out[f"{key}_loss_{name}"] = loss
            out[f"{key}_grad_{name}"] = grad
            if dtype == wp.float64:
                out[f"{key}_matches_fd"] = _finite_difference_ok(kernel, m2 if n == 2 else m3, n, grad)
    return out


RTOL = 1e-4
ATOL = 1e-4
