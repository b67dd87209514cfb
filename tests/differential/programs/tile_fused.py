"""Fused tile builtins: tile_dot (scalar, vec3 and mat22 tiles), tile_axpy (also onto a broadcast
tile, whose one storage row accumulates every row), tile_extract (elements, vector components,
matrix rows and entries), tile_empty (fully overwritten), tile_from_thread, a tile_empty in a
dynamic loop, tile_matmul with a runtime beta of zero (out's NaN/inf not read), and gradients of tile_dot / tile_axpy / tile_extract on the wp.Tape."""

N = 8


@wp.kernel
def fused(a: wp.array(dtype=float), b: wp.array(dtype=float), v: wp.array(dtype=wp.vec3),
          m: wp.array(dtype=wp.mat22), bias: wp.array(dtype=float), src: wp.array2d(dtype=float),
          dots: wp.array(dtype=float), axpy: wp.array(dtype=float), bcast: wp.array2d(dtype=float),
          picks: wp.array(dtype=float), row: wp.array(dtype=wp.vec2)):
    ta = wp.tile_load(a, shape=N)
    tb = wp.tile_load(b, shape=N)
    tv = wp.tile_load(v, shape=4)
    tm = wp.tile_load(m, shape=4)
    dots[0] = wp.tile_dot(ta, tb)[0]
    dots[1] = wp.tile_dot(tv, tv)[0]
    dots[2] = wp.tile_extract(wp.tile_dot(tm, tm), 0)
    wp.tile_axpy(2.5, ta, tb)
    wp.tile_store(axpy, tb)
    d = wp.tile_broadcast(wp.tile_load(bias, shape=4), shape=(3, 4))
    wp.tile_axpy(1.0, wp.tile_load(src, shape=(3, 4)), d)
    wp.tile_store(bcast, d)
    picks[0] = wp.tile_extract(ta, 3)
    picks[1] = wp.tile_extract(tv, 2, 1)
    picks[2] = wp.tile_extract(tm, 1, 1, 0)
    e = wp.tile_empty(shape=N, dtype=float)
    wp.tile_assign(e, ta * 3.0)
    picks[3] = wp.tile_sum(e)[0]
    picks[4] = wp.tile_from_thread(shape=(2, 2), value=a[1] * 2.0, thread_idx=0)[1, 1]
    row[0] = wp.tile_extract(tm, 2, 1)


@wp.kernel
def looped(iters: int, src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    for i in range(iters):
        t = wp.tile_empty(shape=(4,), dtype=float)
        t = wp.tile_load(src, shape=4, offset=i * 4)
        wp.tile_store(dst, t * 2.0, offset=i * 4)


@wp.kernel
def grads(a: wp.array(dtype=float), b: wp.array(dtype=float), alpha: wp.array(dtype=float),
          out: wp.array(dtype=float), d: wp.array(dtype=float)):
    ta = wp.tile_load(a, shape=N)
    tb = wp.tile_load(b, shape=N)
    s = wp.tile_extract(wp.tile_load(alpha, shape=1), 0)
    wp.tile_axpy(s, ta, tb)
    wp.tile_store(out, tb)
    wp.tile_store(d, wp.tile_dot(ta, tb))


@wp.kernel
def matmul_beta(a: wp.array2d(dtype=float), c: wp.array2d(dtype=float), beta: float):
    ta = wp.tile_load(a, shape=(4, 4))
    tc = wp.tile_load(c, shape=(4, 4))
    wp.tile_matmul(ta, ta, tc, beta=beta)
    wp.tile_store(c, tc)


def run():
    rng = np.random.default_rng(3)
    a_np = rng.random(N, dtype=np.float32)
    b_np = rng.random(N, dtype=np.float32)
    a = wp.array(a_np)
    b = wp.array(b_np)
    v = wp.array(rng.random((4, 3), dtype=np.float32), dtype=wp.vec3)
    m = wp.array(rng.random((4, 2, 2), dtype=np.float32), dtype=wp.mat22)
    bias = wp.array(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32))
    src = wp.array(rng.random((3, 4), dtype=np.float32))
    dots = wp.zeros(3, dtype=float)
    axpy = wp.zeros(N, dtype=float)
    bcast = wp.zeros((3, 4), dtype=float)
    picks = wp.zeros(5, dtype=float)
    row = wp.zeros(1, dtype=wp.vec2)
    wp.launch_tiled(fused, dim=1, inputs=[a, b, v, m, bias, src, dots, axpy, bcast, picks, row], block_dim=32)

    lsrc = wp.array(np.arange(12, dtype=np.float32))
    ldst = wp.zeros(12, dtype=float)
    wp.launch_tiled(looped, dim=1, inputs=[3, lsrc, ldst], block_dim=32)

    c_np = np.full((4, 4), np.nan, dtype=np.float32)
    c_np[::2] = np.inf
    c_zero = wp.array(c_np)
    c_half = wp.array(np.ones((4, 4), dtype=np.float32))
    a44 = wp.array(rng.random((4, 4), dtype=np.float32))
    wp.launch_tiled(matmul_beta, dim=1, inputs=[a44, c_zero, 0.0], block_dim=32)
    wp.launch_tiled(matmul_beta, dim=1, inputs=[a44, c_half, 0.5], block_dim=32)

    ag = wp.array(a_np, requires_grad=True)
    bg = wp.array(b_np, requires_grad=True)
    alpha = wp.array(np.array([1.5], dtype=np.float32), requires_grad=True)
    out = wp.zeros(N, dtype=float, requires_grad=True)
    d = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(grads, dim=1, inputs=[ag, bg, alpha, out, d], block_dim=32)
    out.grad = wp.array(rng.random(N, dtype=np.float32))
    d.grad = wp.array(np.array([0.5], dtype=np.float32))
    tape.backward()
    return {"beta0": c_zero.numpy(), "beta_half": c_half.numpy(), "dots": dots.numpy(), "axpy": axpy.numpy(), "bcast": bcast.numpy(), "picks": picks.numpy(),
            "row": row.numpy(), "looped": ldst.numpy(), "out": out.numpy(), "d": d.numpy(),
            "a_grad": ag.grad.numpy(), "b_grad": bg.grad.numpy(), "alpha_grad": alpha.grad.numpy()}
