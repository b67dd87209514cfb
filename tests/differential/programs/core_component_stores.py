@wp.kernel
def components(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22), idx: wp.array(dtype=int)):
    i = wp.tid()
    v[i][1] = float(i)
    v[i].z = v[i].x + 1.0
    v[i].x += 2.0
    k = idx[i]
    w = v[i]
    w[k] = 42.0
    v[i] = w + wp.vec3(0.0, 0.0, w[k])
    m[i][0, 1] = float(k)
    m[i][1] = wp.vec2(5.0, 6.0)


@wp.kernel
def local_dynamic(idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.vec4(1.0, 2.0, 3.0, 4.0)
    k = idx[i]
    a[k] = a[k] * 10.0
    mm = wp.mat33()
    mm[k % 3, (k + 1) % 3] = 7.0
    out[i] = a[0] + a[1] * 100.0 + a[2] * 1000.0 + a[3] * 10000.0 + mm[0, 1] + mm[1, 2] * 2.0 + mm[2, 0] * 3.0


def run():
    n = 4
    v = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    m = wp.zeros(n, dtype=wp.mat22)
    idx = wp.array(np.array([0, 1, 2, 1], np.int32))
    wp.launch(components, dim=n, inputs=[v, m, idx])
    idx4 = wp.array(np.array([0, 1, 2, 3], np.int32))
    out = wp.zeros(4, dtype=float)
    wp.launch(local_dynamic, dim=4, inputs=[idx4, out])
    return {"v": v, "m": m, "out": out}
