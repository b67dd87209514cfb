@wp.kernel
def histogram(x: wp.array(dtype=int), bins: wp.array(dtype=int), total: wp.array(dtype=float), order: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(bins, x[i], 1)
    total[0] += 0.5
    wp.atomic_max(bins, 9, x[i])
    wp.atomic_min(bins, 8, x[i])
    old = wp.atomic_add(order, 0, 1)
    order[old + 1] = 1


@wp.kernel
def vec_atomics(idx: wp.array(dtype=int), v: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    acc[idx[i]] += v[i]
    wp.atomic_sub(acc, 0, wp.vec3(1.0, 2.0, 3.0))


def run():
    rng = np.random.default_rng(1)
    n = 200
    x = wp.array(rng.integers(0, 8, n).astype(np.int32))
    bins = wp.zeros(10, dtype=int)
    bins_init = np.zeros(10, np.int32)
    bins_init[8] = 1000
    bins.assign(bins_init)
    total = wp.zeros(1, dtype=float)
    order = wp.zeros(n + 1, dtype=int)
    wp.launch(histogram, dim=n, inputs=[x, bins, total, order])
    idx = wp.array(rng.integers(0, 5, n).astype(np.int32))
    v = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    acc = wp.zeros(5, dtype=wp.vec3)
    wp.launch(vec_atomics, dim=n, inputs=[idx, v, acc])
    return {"bins": bins, "total": total, "order": order, "acc": acc}
