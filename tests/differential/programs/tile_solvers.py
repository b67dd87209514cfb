"""Tile solvers and FFT: tile_cholesky (lower/upper, in place, a non-positive-definite input),
tile_cholesky_solve, tile_lower_solve/tile_upper_solve (1-D and 2-D right-hand sides, in place),
tile_diag_add, tile_fft/tile_ifft on vec2 tiles (2-D and 3-D tiles, arrays built from flat float
data), each over several blocks; gradients through wp.Tape, including Warp 1.19's missing
adjoints (tile_upper_solve/tile_cholesky_solve: none; in-place solvers: the identity)."""

N = 4
NRHS = 3
BLOCKS = 2
FFT_N = 8


@wp.kernel
def factor(a: wp.array3d(dtype=wp.float64), low: wp.array3d(dtype=wp.float64), up: wp.array3d(dtype=wp.float64),
           inplace: wp.array3d(dtype=wp.float64)):
    i = wp.tid()
    t = wp.tile_load(a[i], shape=(N, N))
    wp.tile_store(low[i], wp.tile_cholesky(t))
    wp.tile_store(up[i], wp.tile_cholesky(t, fill_mode="upper"))
    c = wp.tile_load(a[i], shape=(N, N))
    wp.tile_cholesky_inplace(c)
    wp.tile_store(inplace[i], c)


@wp.kernel
def solves(m: wp.array3d(dtype=wp.float64), y: wp.array2d(dtype=wp.float64), ym: wp.array3d(dtype=wp.float64),
           lo: wp.array2d(dtype=wp.float64), up: wp.array3d(dtype=wp.float64), ch: wp.array2d(dtype=wp.float64),
           chu: wp.array3d(dtype=wp.float64), lo_in: wp.array3d(dtype=wp.float64),
           up_in: wp.array2d(dtype=wp.float64), ch_in: wp.array3d(dtype=wp.float64)):
    i = wp.tid()
    a = wp.tile_load(m[i], shape=(N, N))
    v = wp.tile_load(y[i], shape=N)
    w = wp.tile_load(ym[i], shape=(N, NRHS))
    wp.tile_store(lo[i], wp.tile_lower_solve(a, v))
    wp.tile_store(up[i], wp.tile_upper_solve(a, w))
    wp.tile_store(ch[i], wp.tile_cholesky_solve(a, v))
    wp.tile_store(chu[i], wp.tile_cholesky_solve(a, w, fill_mode="upper"))
    w1 = wp.tile_load(ym[i], shape=(N, NRHS))
    wp.tile_lower_solve_inplace(a, w1)
    wp.tile_store(lo_in[i], w1)
    v1 = wp.tile_load(y[i], shape=N)
    wp.tile_upper_solve_inplace(a, v1)
    wp.tile_store(up_in[i], v1)
    w2 = wp.tile_load(ym[i], shape=(N, NRHS))
    wp.tile_cholesky_solve_inplace(a, w2, fill_mode="lower")
    wp.tile_store(ch_in[i], w2)


@wp.kernel
def diag_add(a: wp.array3d(dtype=float), d: wp.array2d(dtype=float), out: wp.array3d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a[i], shape=(N, N))
    s = wp.tile_load(d[i], shape=N)
    wp.tile_store(out[i], wp.tile_diag_add(t, s) * 2.0)


@wp.kernel
def spd_solve_grad(m: wp.array3d(dtype=wp.float64), y: wp.array2d(dtype=wp.float64), x: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    a = wp.tile_load(m[i], shape=(N, N))
    l = wp.tile_cholesky(a)
    v = wp.tile_load(y[i], shape=N)
    wp.tile_store(x[i], wp.tile_lower_solve(l, v))


@wp.kernel
def triangular_grad(m: wp.array3d(dtype=wp.float64), y: wp.array3d(dtype=wp.float64), x: wp.array3d(dtype=wp.float64)):
    i = wp.tid()
    a = wp.tile_load(m[i], shape=(N, N))
    v = wp.tile_load(y[i], shape=(N, NRHS))
    wp.tile_store(x[i], wp.tile_upper_solve(a, v))


@wp.kernel
def no_adjoint_grad(m: wp.array3d(dtype=wp.float64), y: wp.array2d(dtype=wp.float64), z: wp.array2d(dtype=wp.float64),
                    c: wp.array2d(dtype=wp.float64), d: wp.array3d(dtype=wp.float64)):
    i = wp.tid()
    a = wp.tile_load(m[i], shape=(N, N))
    v = wp.tile_load(y[i], shape=N)
    wp.tile_lower_solve_inplace(a, v)  # no adjoint in Warp: the gradient passes through unchanged
    wp.tile_store(z[i], v)
    wp.tile_store(c[i], wp.tile_cholesky_solve(a, v))  # no adjoint in Warp: no gradient
    wp.tile_store(d[i], wp.tile_diag_add(a, v) * v[1])


@wp.kernel
def spectrum(x: wp.array3d(dtype=wp.vec2f), y: wp.array3d(dtype=wp.vec2f), z: wp.array3d(dtype=wp.vec2f)):
    i = wp.tid()
    t = wp.tile_load(x[i], shape=(2, FFT_N))
    wp.tile_fft(t)
    wp.tile_store(y[i], t)
    wp.tile_ifft(t)
    wp.tile_store(z[i], t)


@wp.kernel
def spectrum_3d(x: wp.array3d(dtype=wp.vec2d), y: wp.array3d(dtype=wp.vec2d)):
    t = wp.tile_load(x, shape=(2, 3, FFT_N))
    wp.tile_ifft(t)
    wp.tile_store(y, t)


def _spd(rng, blocks, n):
    b = rng.standard_normal((blocks, n, n))
    return b @ np.transpose(b, (0, 2, 1)) + n * np.eye(n)


def _f64(x, grad=False):
    return wp.array(x, dtype=wp.float64, requires_grad=grad)


def run():
    rng = np.random.default_rng(7)
    out = {}
    spd = _spd(rng, BLOCKS, N)
    spd[:, 0, 3] = 99.0  # the triangle opposite fill_mode is never read
    bad = spd.copy()
    bad[1] = np.diag([4.0, -1.0, 9.0, 1.0])  # not positive definite: NaN from the bad pivot on
    a = _f64(bad)
    low, up, inplace = (wp.zeros((BLOCKS, N, N), dtype=wp.float64) for _ in range(3))
    wp.launch_tiled(factor, dim=BLOCKS, inputs=[a, low, up, inplace], block_dim=32)
    out.update(low=low.numpy(), up=up.numpy(), inplace=inplace.numpy())

    tri = np.tril(rng.standard_normal((BLOCKS, N, N))) + 3 * np.eye(N)
    mixed = tri + np.transpose(np.tril(rng.standard_normal((BLOCKS, N, N)), -1), (0, 2, 1)) + np.eye(N)
    y = rng.standard_normal((BLOCKS, N))
    ym = rng.standard_normal((BLOCKS, N, NRHS))
    bufs = [wp.zeros((BLOCKS, N), dtype=wp.float64), wp.zeros((BLOCKS, N, NRHS), dtype=wp.float64),
            wp.zeros((BLOCKS, N), dtype=wp.float64), wp.zeros((BLOCKS, N, NRHS), dtype=wp.float64),
            wp.zeros((BLOCKS, N, NRHS), dtype=wp.float64), wp.zeros((BLOCKS, N), dtype=wp.float64),
            wp.zeros((BLOCKS, N, NRHS), dtype=wp.float64)]
    wp.launch_tiled(solves, dim=BLOCKS, inputs=[_f64(mixed), _f64(y), _f64(ym), *bufs], block_dim=32)
    for name, buf in zip(("lo", "up", "ch", "chu", "lo_in", "up_in", "ch_in"), bufs):
        out["solve_" + name] = buf.numpy()

    d_out = wp.zeros((BLOCKS, N, N), dtype=float)
    wp.launch_tiled(diag_add, dim=BLOCKS, inputs=[wp.array(rng.standard_normal((BLOCKS, N, N)), dtype=float),
                                                  wp.array(rng.standard_normal((BLOCKS, N)), dtype=float), d_out],
                    block_dim=32)
    out["diag_add"] = d_out.numpy()

    m, yv = _f64(_spd(rng, BLOCKS, N), True), _f64(rng.standard_normal((BLOCKS, N)), True)
    x = wp.zeros((BLOCKS, N), dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(spd_solve_grad, dim=BLOCKS, inputs=[m, yv, x], block_dim=32)
    tape.backward(grads={x: _f64(rng.standard_normal((BLOCKS, N)))})
    out.update(chol_x=x.numpy(), chol_grad_m=m.grad.numpy(), chol_grad_y=yv.grad.numpy())

    mu, ymu = _f64(mixed, True), _f64(ym, True)
    xu = wp.zeros((BLOCKS, N, NRHS), dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(triangular_grad, dim=BLOCKS, inputs=[mu, ymu, xu], block_dim=32)
    tape.backward(grads={xu: _f64(rng.standard_normal((BLOCKS, N, NRHS)))})
    out.update(upper_x=xu.numpy(), upper_grad_m=mu.grad.numpy(), upper_grad_y=ymu.grad.numpy())

    mn, yn = _f64(mixed, True), _f64(y, True)
    zn, cn = (wp.zeros((BLOCKS, N), dtype=wp.float64, requires_grad=True) for _ in range(2))
    dn = wp.zeros((BLOCKS, N, N), dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(no_adjoint_grad, dim=BLOCKS, inputs=[mn, yn, zn, cn, dn], block_dim=32)
    tape.backward(grads={zn: _f64(rng.standard_normal((BLOCKS, N))), cn: _f64(rng.standard_normal((BLOCKS, N))),
                         dn: _f64(rng.standard_normal((BLOCKS, N, N)))})
    out.update(pass_z=zn.numpy(), pass_d=dn.numpy(), pass_grad_m=mn.grad.numpy(), pass_grad_y=yn.grad.numpy())

    signal = rng.random((BLOCKS, 2, 2 * FFT_N)).astype(np.float32)  # flat floats: (re, im) pairs
    sx = wp.array(signal, dtype=wp.vec2f, requires_grad=True)
    sy = wp.zeros((BLOCKS, 2, FFT_N), dtype=wp.vec2f, requires_grad=True)
    sz = wp.zeros((BLOCKS, 2, FFT_N), dtype=wp.vec2f, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(spectrum, dim=BLOCKS, inputs=[sx, sy, sz], block_dim=32)
    tape.backward(grads={sz: wp.array(rng.random((BLOCKS, 2, FFT_N, 2)).astype(np.float32), dtype=wp.vec2f)})
    out.update(fft=sy.numpy(), fft_roundtrip=sz.numpy(), fft_grad=sx.grad.numpy())

    s3 = wp.array(rng.random((2, 3, FFT_N, 2)), dtype=wp.vec2d)
    s3y = wp.zeros((2, 3, FFT_N), dtype=wp.vec2d)
    wp.launch_tiled(spectrum_3d, dim=1, inputs=[s3, s3y], block_dim=32)
    out["ifft_3d"] = s3y.numpy()
    return out
