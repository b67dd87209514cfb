# Slices of vectors, matrices, quaternions and transforms in kernels: reads, slice assignment
# and augmented slice assignment (locals and array elements), with gradients.


@wp.kernel
def read_slices(vs: wp.array(dtype=wp.vec4), ms: wp.array(dtype=wp.mat33), qs: wp.array(dtype=wp.quat),
                ts: wp.array(dtype=wp.transform), out: wp.array2d(dtype=float)):
    i = wp.tid()
    v = vs[i]
    m = ms[i]
    a = v[1:3]
    b = m[0, :]
    c = m[:, 1]
    d = m[0:2, 1:3]
    e = qs[i][:3]
    f = m[1:]
    g = v[::-1]
    h = ts[i][3:7]
    k = m[i % 3, 1:]
    vals = wp.vector(a[0], a[1], b[0], b[1], b[2], c[0], c[1], c[2], d[0, 0], d[0, 1], d[1, 0], d[1, 1],
                     e[0], e[2], f[0, 0], f[1, 2], g[0], g[3], h[0], h[3], k[0], k[1], length=22)
    for j in range(22):
        out[i, j] = vals[j]


@wp.kernel
def assign_slices(xs: wp.array(dtype=wp.vec2), ys: wp.array(dtype=wp.vec4), ms: wp.array(dtype=wp.mat33),
                  ts: wp.array(dtype=wp.transform)):
    i = wp.tid()
    x = xs[i]
    y = ys[i]
    y[:2] = x
    y[1:-1] += x[:2]
    y[3:1:-1] -= x[0:]
    ys[i] = y
    m = ms[i]
    m[0:2, 0] = x
    m[2, 1:] = x * 2.0
    m[1:, 1:] += wp.mat22(10.0, 11.0, 12.0, 13.0)
    ms[i] = m
    t = ts[i]
    t[:2] = x
    t[1:-4] += x[:2]
    ts[i] = t


def run():
    rng = np.random.default_rng(3)
    n = 4
    vs = wp.array(rng.standard_normal((n, 4)).astype(np.float32), dtype=wp.vec4)
    ms = wp.array(rng.standard_normal((n, 3, 3)).astype(np.float32), dtype=wp.mat33)
    qs = wp.array(rng.standard_normal((n, 4)).astype(np.float32), dtype=wp.quat)
    ts = wp.array(rng.standard_normal((n, 7)).astype(np.float32), dtype=wp.transform)
    out = wp.zeros((n, 22), dtype=float)
    wp.launch(read_slices, dim=n, inputs=[vs, ms, qs, ts, out])

    xs = wp.array(rng.standard_normal((n, 2)).astype(np.float32), dtype=wp.vec2, requires_grad=True)
    ys = wp.array(rng.standard_normal((n, 4)).astype(np.float32), dtype=wp.vec4, requires_grad=True)
    ms2 = wp.array(rng.standard_normal((n, 3, 3)).astype(np.float32), dtype=wp.mat33, requires_grad=True)
    ts2 = wp.array(rng.standard_normal((n, 7)).astype(np.float32), dtype=wp.transform, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(assign_slices, dim=n, inputs=[xs, ys, ms2, ts2])
    ys.grad = wp.array(rng.standard_normal((n, 4)).astype(np.float32), dtype=wp.vec4)
    ms2.grad = wp.array(rng.standard_normal((n, 3, 3)).astype(np.float32), dtype=wp.mat33)
    ts2.grad = wp.array(rng.standard_normal((n, 7)).astype(np.float32), dtype=wp.transform)
    tape.backward()
    return {"out": out, "ys": ys, "ms": ms2, "ts": ts2, "xs_grad": xs.grad}
