"""Kernels reading and writing through array views: rows, columns, strided slices, flattened and
transposed views; the writes land in the base array as in Warp."""


@wp.kernel
def bump(v: wp.array(dtype=float)):
    i = wp.tid()
    v[i] = v[i] * 10.0 + 1.0


@wp.kernel
def bump2d(v: wp.array2d(dtype=float)):
    i, j = wp.tid()
    v[i, j] = v[i, j] + float(i * 100 + j)


def run():
    out = {}
    views = {
        "row": lambda a: a[1],
        "column": lambda a: a[:, 2],
        "strided": lambda a: a[::2][:, 1],
        "flat": lambda a: a[1:3].flatten(),
    }
    for name, make in views.items():
        a = wp.array(np.arange(16, dtype=np.float32).reshape(4, 4), dtype=float)
        v = make(a)
        wp.launch(bump, v.shape[0], [v])
        out[name] = a.numpy()
    for name, make in {"transposed": lambda a: a.transpose(), "block": lambda a: a[1:3, 1:4]}.items():
        a = wp.array(np.arange(16, dtype=np.float32).reshape(4, 4), dtype=float)
        v = make(a)
        wp.launch(bump2d, v.shape, [v])
        out[name] = a.numpy()
    return out
