@wp.kernel
def vec_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), out: wp.array(dtype=wp.vec3), outs: wp.array(dtype=float)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    w = u + v * 2.0 - u / 4.0
    w[1] = w[0] + u.z
    w.z = -w.z
    r = m[i] * w
    outs[i] = r[0] + m[i][1, 2] + m[i][2][0] + float(i)
    out[i] = r


def run():
    rng = np.random.default_rng(3)
    n = 9
    a = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    b = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    m = wp.array(rng.standard_normal((n, 3, 3)).astype(np.float32), dtype=wp.mat33)
    out = wp.zeros(n, dtype=wp.vec3)
    outs = wp.zeros(n, dtype=float)
    wp.launch(vec_ops, dim=n, inputs=[a, b, m, out, outs])
    return {"out": out, "outs": outs}
