vec5 = wp.types.vector(length=5, dtype=wp.float32)
mat23d = wp.types.matrix(shape=(2, 3), dtype=wp.float64)


@wp.kernel
def forms(a: wp.array[float], b: wp.array(dtype=float, ndim=2), v: wp.array(dtype=vec5), m: wp.array(dtype=mat23d),
          out: wp.array(dtype=float)):
    i = wp.tid()
    w = wp.vec3(a[i], 2.0, 3.0)
    q = vec5(1.0)
    s = w[0] + w[2] + q[4] + v[i][3] + float(m[i][1, 2]) + b[i, 1]
    out[i] = s


def run():
    rng = np.random.default_rng(9)
    a = wp.array(rng.standard_normal(4).astype(np.float32))
    b = wp.array(rng.standard_normal((4, 2)).astype(np.float32))
    v = wp.array(rng.standard_normal((4, 5)).astype(np.float32), dtype=vec5)
    m = wp.array(rng.standard_normal((4, 2, 3)), dtype=mat23d)
    out = wp.zeros(4, dtype=float)
    wp.launch(forms, dim=4, inputs=[a, b, v, m, out])
    return {"out": out}
