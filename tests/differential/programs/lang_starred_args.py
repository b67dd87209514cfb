# Starred call arguments in kernels: vectors, quaternions and matrices (rows) unpack into
# arguments, whole or through compile-time slices, and 1-D arrays through constant slices.


@wp.func
def sum3(a: float, b: float, c: float):
    return a + 2.0 * b + 3.0 * c


@wp.kernel
def unpack_composites(vs: wp.array(dtype=wp.vec3), ms: wp.array(dtype=wp.mat33), qs: wp.array(dtype=wp.quat),
                      out: wp.array2d(dtype=float)):
    i = wp.tid()
    v = vs[i]
    m = ms[i]
    q = qs[i]
    a = wp.vec4(*v, 7.0)
    b = wp.vec4(1.0, *v[1:], 9.0)
    c = wp.vec4(*q)
    d = wp.vec2(*q[-2:])
    e = wp.matrix_from_rows(*m[:2])
    f = wp.matrix_from_cols(*m)
    g = wp.max(*v[:2])
    h = sum3(*v[::-1])
    k = wp.vec3(*m[1][::2], *v[:1])
    vals = wp.vector(a[0], a[3], b[0], b[2], c[1], c[3], d[0], d[1], e[1, 2], f[0, 1], f[2, 0], g, h,
                     k[0], k[1], k[2], length=16)
    for j in range(16):
        out[i, j] = vals[j]


@wp.kernel
def unpack_array_slices(xs: wp.array(dtype=int), out: wp.array(dtype=wp.vec3i)):
    out[0] = wp.vec3i(*xs[:3])
    out[1] = wp.vec3i(*xs[1:7:2])
    out[2] = wp.vec3i(wp.max(*xs[2:4]), *xs[5:7])


def run():
    rng = np.random.default_rng(11)
    n = 3
    vs = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    ms = wp.array(rng.standard_normal((n, 3, 3)).astype(np.float32), dtype=wp.mat33)
    qs = wp.array(rng.standard_normal((n, 4)).astype(np.float32), dtype=wp.quat)
    out = wp.zeros((n, 16), dtype=float)
    wp.launch(unpack_composites, dim=n, inputs=[vs, ms, qs, out])

    xs = wp.array(rng.integers(-50, 50, size=9).astype(np.int32), dtype=int)
    out_i = wp.zeros(3, dtype=wp.vec3i)
    wp.launch(unpack_array_slices, dim=1, inputs=[xs, out_i])
    return {"composites": out.numpy(), "array_slices": out_i.numpy()}
