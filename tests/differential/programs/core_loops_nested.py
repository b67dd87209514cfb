@wp.func
def find_first(a: wp.array(dtype=int), value: int) -> int:
    for k in range(a.shape[0]):
        if a[k] == value:
            return k
    return -1


@wp.kernel
def nested(counts: wp.array(dtype=int), data: wp.array(dtype=int), out: wp.array(dtype=int), out2: wp.array(dtype=float)):
    i = wp.tid()
    total = int(0)
    for j in range(counts[i]):
        for k in range(j, -1, -1):
            if k == 3:
                break
            total += k
        if j == 5:
            continue
        total += 1000
    m = int(i)
    while m > 0:
        m -= 2
        if m == 3:
            continue
        total += 7
    out[i] = total + find_first(data, i) * 100000
    acc = wp.vec3(0.0, 0.0, 0.0)
    n = counts[i]
    for j in range(n):
        acc = acc + wp.vec3(float(j), 1.0, -float(i))
    out2[i] = acc[0] + acc[1] * 10.0 + acc[2] * 100.0


@wp.kernel
def uniform_loop(pos: wp.array(dtype=wp.vec3), n: int, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = pos[i]
    f = wp.vec3()
    for j in range(n):
        d = pos[j] - p
        f = f + d * 0.5
    out[i] = f


def run():
    rng = np.random.default_rng(7)
    counts = wp.array(np.array([0, 1, 3, 6, 8, 2, 9, 4], np.int32))
    data = wp.array(np.array([5, 3, 9, 1, 0, 7, 2, 4], np.int32))
    out = wp.zeros(8, dtype=int)
    out2 = wp.zeros(8, dtype=float)
    wp.launch(nested, dim=8, inputs=[counts, data, out, out2])
    pos = wp.array(rng.standard_normal((64, 3)).astype(np.float32), dtype=wp.vec3)
    f = wp.zeros(64, dtype=wp.vec3)
    wp.launch(uniform_loop, dim=64, inputs=[pos, 64, f])
    return {"out": out, "out2": out2, "f": f}
