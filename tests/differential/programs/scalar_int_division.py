# Integer `/` (C truncation), `//` (floor) and `%` (C remainder, sign of the dividend) in kernels, for
# every integer width and sign, with divisors from arrays and literals, extreme values, and the
# 2-D index pattern `tid // width`, `tid % width`; integer vectors divided by a scalar and component-wise.
# Launch-uniform divisors such as 49 (XLA multiplies by a float reciprocal there, and 49 * (1 / 49.0) < 1)
# over every multiple of them in a range, in both signs and unsigned.
# (Zero divisors and INT_MIN / -1 are left out: Warp's CPU build traps on them.)

DIVIDENDS = [0, 1, -1, 7, -7, 13, -13, 100, -100, 2147483647, -2147483648, 2147483646, -2147483647, 1 << 24,
             (1 << 24) + 1, -(1 << 24) - 1, 123456789, -987654321, 65535, 32767]
DIVISORS = [1, -1, 2, -2, 3, -3, 7, -7, 1000, -1000, 2147483647, -2147483648, 65536, 12345, -12345, 5,
            (1 << 24) + 3, 17, -31, 2]


@wp.kernel
def divide32(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), out: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    x, y = a[i], b[i]
    out[i, 0] = x / y
    out[i, 1] = x // y
    out[i, 2] = x % y
    out[i, 3] = x / 7
    out[i, 4] = x // -3
    out[i, 5] = x % 1000


@wp.kernel
def divide_narrow(a8: wp.array(dtype=wp.int8), b8: wp.array(dtype=wp.int8), a16: wp.array(dtype=wp.int16),
                  b16: wp.array(dtype=wp.int16), u8: wp.array(dtype=wp.uint8), v8: wp.array(dtype=wp.uint8),
                  out: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    out[i, 0] = wp.int32(a8[i] / b8[i])
    out[i, 1] = wp.int32(a8[i] // b8[i])
    out[i, 2] = wp.int32(a8[i] % b8[i])
    out[i, 3] = wp.int32(a16[i] / b16[i])
    out[i, 4] = wp.int32(a16[i] // b16[i])
    out[i, 5] = wp.int32(a16[i] % b16[i])
    out[i, 6] = wp.int32(u8[i] / v8[i])
    out[i, 7] = wp.int32(u8[i] % v8[i])


@wp.kernel
def divide_wide(a: wp.array(dtype=wp.int64), b: wp.array(dtype=wp.int64), u: wp.array(dtype=wp.uint32),
                v: wp.array(dtype=wp.uint32), p: wp.array(dtype=wp.uint64), q: wp.array(dtype=wp.uint64),
                wide_s: wp.array2d(dtype=wp.int64), wide_u: wp.array2d(dtype=wp.uint64)):
    i = wp.tid()
    wide_s[i, 0] = a[i] / b[i]
    wide_s[i, 1] = a[i] // b[i]
    wide_s[i, 2] = a[i] % b[i]
    wide_u[i, 0] = wp.uint64(u[i] / v[i])
    wide_u[i, 1] = wp.uint64(u[i] // v[i])
    wide_u[i, 2] = wp.uint64(u[i] % v[i])
    wide_u[i, 3] = p[i] / q[i]
    wide_u[i, 4] = p[i] % q[i]


@wp.kernel
def grid_index(width: int, out: wp.array2d(dtype=wp.int32)):
    tid = wp.tid()
    out[tid, 0] = tid // width
    out[tid, 1] = tid % width
    out[tid, 2] = (tid - 500) / width
    out[tid, 3] = (tid - 500) % width


@wp.kernel
def uniform_divisor(d: int, u: wp.uint32, out: wp.array2d(dtype=wp.int32), out_u: wp.array2d(dtype=wp.uint32)):
    tid = wp.tid()
    x = tid - 2000
    out[tid, 0] = x / d
    out[tid, 1] = x // d
    out[tid, 2] = x % d
    out[tid, 3] = x / (-d)
    out[tid, 4] = x % (-d)
    y = wp.uint32(tid) * wp.uint32(977)
    out_u[tid, 0] = y / u
    out_u[tid, 1] = y % u


@wp.kernel
def divide_vectors(a: wp.array(dtype=wp.vec3i), b: wp.array(dtype=wp.vec3i), s: wp.array(dtype=wp.int32),
                   out: wp.array2d(dtype=wp.vec3i)):
    i = wp.tid()
    out[i, 0] = a[i] / s[i]
    out[i, 1] = wp.cw_div(a[i], b[i])
    out[i, 2] = wp.vec3i(a[i][0] % b[i][0], a[i][1] // b[i][1], a[i][2] % s[i])


def run():
    n = len(DIVIDENDS) * len(DIVISORS)
    a = np.repeat(np.array(DIVIDENDS, np.int64), len(DIVISORS))
    b = np.tile(np.array(DIVISORS, np.int64), len(DIVIDENDS))
    b[(a == -(2**31)) & (b == -1)] = 1
    out32 = wp.zeros((n, 6), dtype=wp.int32)
    wp.launch(divide32, dim=n, inputs=[wp.array(a.astype(np.int32)), wp.array(b.astype(np.int32)), out32])

    rng = np.random.default_rng(5)
    m = 64
    a8 = rng.integers(-128, 128, m).astype(np.int8)
    b8 = rng.integers(1, 128, m).astype(np.int8) * rng.choice([-1, 1], m).astype(np.int8)
    a8[:4], b8[:4] = [-128, -128, 127, -127], [-1, 1, -1, 2]  # -128 / -1 wraps (int arithmetic, narrowed)
    a16 = rng.integers(-32768, 32768, m).astype(np.int16)
    b16 = rng.integers(1, 400, m).astype(np.int16) * rng.choice([-1, 1], m).astype(np.int16)
    u8 = rng.integers(0, 256, m).astype(np.uint8)
    v8 = rng.integers(1, 256, m).astype(np.uint8)
    narrow = wp.zeros((m, 8), dtype=wp.int32)
    wp.launch(divide_narrow, dim=m, inputs=[wp.array(a8), wp.array(b8), wp.array(a16), wp.array(b16), wp.array(u8),
                                            wp.array(v8), narrow])

    a64 = (rng.integers(-(2**62), 2**62, m) * 2).astype(np.int64)
    b64 = rng.integers(1, 2**40, m).astype(np.int64) * rng.choice([-1, 1], m).astype(np.int64)
    u32 = rng.integers(0, 2**32, m, dtype=np.uint64).astype(np.uint32)
    u32[:4] = [2**32 - 1, 2**32 - 2, 2**31, 0]
    v32 = rng.integers(1, 2**32, m, dtype=np.uint64).astype(np.uint32)
    v32[:4] = [1, 3, 2**31 + 1, 7]
    p64 = rng.integers(0, 2**63, m, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    q64 = rng.integers(1, 2**33, m, dtype=np.uint64)
    signed = wp.zeros((m, 3), dtype=wp.int64)
    unsigned = wp.zeros((m, 5), dtype=wp.uint64)
    wp.launch(divide_wide, dim=m, inputs=[wp.array(a64), wp.array(b64), wp.array(u32), wp.array(v32), wp.array(p64),
                                          wp.array(q64), signed, unsigned])

    grid = wp.zeros((1000, 4), dtype=wp.int32)
    wp.launch(grid_index, dim=1000, inputs=[37, grid])

    uniform = {}
    for d in (49, 98, 3, 1000003):
        out_s = wp.zeros((4000, 5), dtype=wp.int32)
        out_u = wp.zeros((4000, 2), dtype=wp.uint32)
        wp.launch(uniform_divisor, dim=4000, inputs=[d, wp.uint32(d), out_s, out_u])
        uniform[f"uniform_{d}"] = out_s.numpy()
        uniform[f"uniform_u_{d}"] = out_u.numpy()

    va = rng.integers(-1000, 1000, (m, 3)).astype(np.int32)
    vb = rng.integers(1, 50, (m, 3)).astype(np.int32) * rng.choice([-1, 1], (m, 3)).astype(np.int32)
    vs = rng.integers(1, 20, m).astype(np.int32) * rng.choice([-1, 1], m).astype(np.int32)
    vec = wp.zeros((m, 3), dtype=wp.vec3i)
    wp.launch(divide_vectors, dim=m, inputs=[wp.array(va, dtype=wp.vec3i), wp.array(vb, dtype=wp.vec3i),
                                             wp.array(vs), vec])
    return {"int32": out32.numpy(), "narrow": narrow.numpy(), "signed64": signed.numpy(),
            "unsigned64": unsigned.numpy(), "grid": grid.numpy(), "vectors": vec.numpy(), **uniform}
