"""numpy arrays as launch arguments on the CPU (reads, and writes landing in the numpy array);
wp.array from a single composite value / 0-d array (one element); wp.zeros(n=...)."""


@wp.kernel
def bump(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec3), c: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    a[i] = a[i] * 2.0 + 1.0
    b[i] = b[i] + wp.vec3(1.0, 2.0, 3.0)
    c[i, 1] = c[i, 0] + 5


@wp.kernel
def read_only(src: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = src[i] + 0.5


def run():
    a = np.arange(4, dtype=np.float32)
    b = np.ones((4, 3), np.float32)
    c = np.arange(8, dtype=np.int32).reshape(4, 2)
    wp.launch(bump, dim=4, inputs=[a, b, c], device="cpu")
    out = wp.zeros(4, dtype=float, device="cpu")
    wp.launch(read_only, dim=4, inputs=[a, out], device="cpu")
    single = {
        "vec3": wp.array(wp.vec3(1.0, 2.0, 3.0), dtype=wp.vec3),
        "quat": wp.array(wp.quat(0.0, 0.0, 0.0, 1.0), dtype=wp.quat),
        "mat22": wp.array(wp.mat22(1.0, 2.0, 3.0, 4.0), dtype=wp.mat22),
        "zero_d": wp.array(np.array(2.5, dtype=np.float32)),
        "vec_no_dtype": wp.array(wp.vec3(4.0, 5.0, 6.0)),
    }
    results = {"a": a.copy(), "b": b.copy(), "c": c.copy(), "out": out.numpy().copy()}
    for name, arr in single.items():
        results[name] = arr.numpy().copy()
        results[name + "_shape"] = np.array(arr.shape)
    results["zeros_n"] = np.array(wp.zeros(n=3, dtype=wp.vec2).shape)
    return results
