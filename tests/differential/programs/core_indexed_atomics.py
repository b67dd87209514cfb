"""Atomics through a wp.indexedarray whose index entries repeat: every thread's contribution lands
(several kernel elements are one data element), for atomic_add, atomic_sub and `+=`, on 1-d and
2-d (one indexed axis) arrays."""


@wp.kernel
def accumulate(a: wp.indexedarray(dtype=float), b: wp.indexedarray(dtype=float), w: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(a, i, w[i])
    wp.atomic_sub(b, i, 2.0 * w[i])
    a[i] += 1.0


@wp.kernel
def accumulate_rows(m: wp.indexedarray2d(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(m, i, j, float(i * 10 + j))


def run():
    idx = wp.array(np.array([1, 1, 2, 1, 0, 2], dtype=np.int32))
    w = wp.array(np.array([0.5, 1.5, 2.0, 3.0, 4.0, 0.25], dtype=np.float32))
    a = wp.zeros(4, dtype=float)
    b = wp.array(np.full(4, 10.0, dtype=np.float32))
    wp.launch(accumulate, dim=6, inputs=[wp.indexedarray(a, [idx]), wp.indexedarray(b, [idx]), w])
    m = wp.zeros((3, 2), dtype=float)
    rows = wp.array(np.array([2, 0, 2, 2], dtype=np.int32))
    wp.launch(accumulate_rows, dim=(4, 2), inputs=[wp.indexedarray(m, [rows, None])])
    return {"a": a.numpy(), "b": b.numpy(), "m": m.numpy()}
