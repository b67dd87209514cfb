"""Perlin noise: noise and pnoise in 1-4 D (negative coordinates, integer lattice points, periods
that wrap) and their gradients with respect to the coordinates through wp.Tape (Warp's analytic
adjoints: noise gradients; the RNG gets none; randf(state, low, high) passes no gradient to
low/high). curlnoise is in noise_curl.py (split off to keep each program's compile time short).

Values, and the gradient of each single noise/pnoise call ("single_grads"), are bit-exact with
Warp's CPU build (RTOL 1e-6 leaves room for nothing but the printing). Where several adjoint
contributions meet in one coordinate ("noise_grad") they are summed in another order than Warp's
reverse pass (RTOL 1e-5).
"""

RTOL = 1e-6
ATOL = 1e-7
TOLERANCE = {"noise_grad": (1e-5, 1e-6)}

N = 256


def points():
    rng = np.random.default_rng(11)
    pts = rng.uniform(-6, 6, (N, 4)).astype(np.float32)
    pts[:8] = np.round(pts[:8])  # lattice points
    pts[8:12] = [[0.5, -0.5, 2.25, -3.75]] * 4
    return rng, pts


@wp.kernel
def noise_values(seed: int, x: wp.array(dtype=wp.vec4), out: wp.array(dtype=float, ndim=2)):
    tid = wp.tid()
    state = wp.rand_init(seed)
    p = x[tid]
    out[tid, 0] = wp.noise(state, p[0])
    out[tid, 1] = wp.noise(state, wp.vec2(p[0], p[1]))
    out[tid, 2] = wp.noise(state, wp.vec3(p[0], p[1], p[2]))
    out[tid, 3] = wp.noise(state, p)
    out[tid, 4] = wp.pnoise(state, p[0], 3)
    out[tid, 5] = wp.pnoise(state, wp.vec2(p[0], p[1]), 4, 5)
    out[tid, 6] = wp.pnoise(state, wp.vec3(p[0], p[1], p[2]), 2, 3, 4)
    out[tid, 7] = wp.pnoise(state, p, 5, 4, 3, 2)
    out[tid, 8] = wp.noise(wp.rand_init(seed, tid), p[2])  # per-thread field
    if tid % 2 == 0:
        out[tid, 9] = wp.noise(state=state, xy=wp.vec2(p[3], p[0]))


@wp.kernel
def noise_loss(seed: int, x: wp.array(dtype=wp.vec4), lo: wp.array(dtype=float), loss: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(seed)
    p = x[tid]
    k = float(tid % 5 + 1)
    v = wp.noise(state, p[0]) * k
    v += wp.noise(state, wp.vec2(p[1], p[0])) * 2.0
    v += wp.noise(state, wp.vec3(p[0], p[1], p[2])) * 3.0
    v += wp.noise(state, p) * 4.0
    v += wp.pnoise(state, wp.vec2(p[2], p[3]), 3, 4) * 5.0
    v += wp.pnoise(state, p, 2, 3, 4, 5) * 6.0
    rng = wp.rand_init(seed, tid)
    v += wp.randf(rng, lo[tid], lo[tid] + 2.0)  # not differentiable in Warp
    wp.atomic_add(loss, 0, v)


@wp.kernel
def noise_single(seed: int, x1: wp.array(dtype=float), x2: wp.array(dtype=wp.vec2), x3: wp.array(dtype=wp.vec3),
                 x4: wp.array(dtype=wp.vec4), p2: wp.array(dtype=wp.vec2), p4: wp.array(dtype=wp.vec4),
                 out: wp.array(dtype=float, ndim=2)):
    # one noise call per coordinate array: its gradient is exactly Warp's adjoint
    tid = wp.tid()
    state = wp.rand_init(seed)
    out[tid, 0] = wp.noise(state, x1[tid])
    out[tid, 1] = wp.noise(state, x2[tid])
    out[tid, 2] = wp.noise(state, x3[tid])
    out[tid, 3] = wp.noise(state, x4[tid])
    out[tid, 4] = wp.pnoise(state, p2[tid], 3, 2)
    out[tid, 5] = wp.pnoise(state, p4[tid], 2, 3, 4, 5)


def run():
    rng, pts = points()
    x = wp.array(pts, dtype=wp.vec4)
    vals = wp.zeros((N, 10), dtype=float)
    wp.launch(noise_values, dim=N, inputs=[21, x], outputs=[vals])

    rng.integers(0, 4, N)  # the draw noise_curl.py uses for octave counts: keeps the later draws unchanged
    xg = wp.array(pts, dtype=wp.vec4, requires_grad=True)
    lo = wp.array(rng.uniform(-1, 1, N).astype(np.float32), requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(noise_loss, dim=N, inputs=[23, xg, lo, loss])
    tape.backward(loss=loss)
    noise_grad, lo_grad = xg.grad.numpy(), lo.grad.numpy()

    singles = [wp.array(pts[:, 0], dtype=float, requires_grad=True),
               wp.array(pts[:, :2], dtype=wp.vec2, requires_grad=True),
               wp.array(pts[:, 1:], dtype=wp.vec3, requires_grad=True),
               wp.array(pts, dtype=wp.vec4, requires_grad=True),
               wp.array(pts[:, 2:], dtype=wp.vec2, requires_grad=True),
               wp.array(pts[:, ::-1].copy(), dtype=wp.vec4, requires_grad=True)]
    single_out = wp.zeros((N, 6), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(noise_single, dim=N, inputs=[25, *singles], outputs=[single_out])
    tape.backward(grads={single_out: wp.array(rng.uniform(-2, 2, (N, 6)).astype(np.float32))})
    single_grads = [a.grad.numpy() for a in singles]

    state = wp.rand_init(42)
    python_scope = [np.float32(wp.noise(state, 1.5)), np.float32(wp.pnoise(state, wp.vec2(1.5, -2.5), 4, 5))]
    return {"values": vals.numpy(), "noise_grad": noise_grad, "lo_grad": lo_grad,
            "single_grads": single_grads, "python_scope": python_scope}
