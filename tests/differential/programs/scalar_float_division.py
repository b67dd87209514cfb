# Float `/`, `//` and `wp.cw_div` by a launch-uniform divisor, compared bit for bit: Warp divides (IEEE, one rounding); XLA
# turns `x / c` into `x * (1/c)`, one unit off for about a third of float32 quotients, so jwarp
# divides float32 lanes by a uniform value in float64 and rounds once. Normal-range values only
# (XLA:CPU flushes subnormals).

@wp.kernel
def divide_uniform(x: wp.array(dtype=wp.float32), s: wp.float32, h: wp.array(dtype=wp.float16), hs: wp.float16,
                   out: wp.array2d(dtype=wp.float32), out_h: wp.array(dtype=wp.float16)):
    i = wp.tid()
    out[i, 0] = x[i] / s
    out[i, 1] = (x[i] + 1.0) / s
    v = wp.vec3(x[i], -x[i], 2.0 * x[i]) / s
    out[i, 2] = v[0]
    out[i, 3] = v[2]
    out[i, 4] = x[i] / 3.0
    out_h[i] = h[i] / hs


@wp.kernel
def floor_divide_uniform(k: wp.array(dtype=wp.float32), s: wp.float32, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = k[i] // s  # multiples of s: k * (1/s) can fall just below the integer quotient


@wp.kernel
def cw_divide_uniform(x: wp.array(dtype=wp.float32), s: wp.float32, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.cw_div(wp.vec2(x[i], 1.0), wp.vec2(s, s))[0]


def run():
    rng = np.random.default_rng(11)
    n = 4096
    x = (rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))).astype(np.float32)
    h = rng.uniform(-100, 100, n).astype(np.float16)
    results = {}
    for s in (3.0, 7.0, 0.1, 49.0, 41.0, -1e-3):
        out = wp.zeros((n, 5), dtype=wp.float32)
        out_h = wp.zeros(n, dtype=wp.float16)
        k = (np.arange(n) % 97).astype(np.float32) * np.float32(s)
        wp.launch(divide_uniform, dim=n, inputs=[wp.array(x), s, wp.array(h), wp.float16(s), out, out_h])
        results[f"f32_{s}"] = out.numpy().view(np.int32)  # bit patterns: compared exactly
        results[f"f16_{s}"] = out_h.numpy().view(np.int16)
        quotient = wp.zeros(n, dtype=wp.float32)
        wp.launch(floor_divide_uniform, dim=n, inputs=[wp.array(k), s, quotient])
        results[f"floor_{s}"] = quotient.numpy()
        cw = wp.zeros(n, dtype=wp.float32)
        wp.launch(cw_divide_uniform, dim=n, inputs=[wp.array(x), s, cw])
        results[f"cw_div_{s}"] = cw.numpy().view(np.int32)
    return results
