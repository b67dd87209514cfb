@wp.kernel
def local_array(x: wp.array(dtype=float), out: wp.array(dtype=float), idx: wp.array(dtype=int)):
    i = wp.tid()
    buf = wp.zeros(shape=(4,), dtype=float)
    for k in range(4):
        buf[k] = x[i] * float(k + 1)
    j = idx[i]
    buf[j] = buf[j] + 100.0
    s = float(0.0)
    for k in range(4):
        s += buf[k] * float(k)
    out[i] = s + buf[j]


@wp.kernel
def search(sorted_vals: wp.array(dtype=float), queries: wp.array(dtype=float), out: wp.array(dtype=int), out2: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.lower_bound(sorted_vals, queries[i])
    out2[i] = wp.lower_bound(sorted_vals, 2, 6, queries[i])


@wp.kernel
def reverse_loops(n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    acc = int(0)
    for k in reversed(range(i)):
        acc = acc * 3 + k
    for k in reversed(range(2, 11, 3)):
        acc = acc * 2 + k
    for k in reversed(range(n)):
        acc = acc - k
    out[i] = acc


@wp.kernel
def bits(x: wp.array(dtype=float), out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    out[i] = wp.cast(x[i], wp.uint32)


def run():
    x = wp.array(np.array([1.0, -2.0, 0.5, 3.0], np.float32))
    idx = wp.array(np.array([0, 3, 1, 2], np.int32))
    out = wp.zeros(4, dtype=float)
    wp.launch(local_array, dim=4, inputs=[x, out, idx])
    vals = wp.array(np.array([0.0, 1.0, 1.0, 2.5, 4.0, 4.0, 7.0, 9.0], np.float32))
    q = wp.array(np.array([-1.0, 0.0, 1.0, 3.0, 4.0, 8.0, 10.0], np.float32))
    lb = wp.zeros(7, dtype=int)
    lb2 = wp.zeros(7, dtype=int)
    wp.launch(search, dim=7, inputs=[vals, q, lb, lb2])
    rev = wp.zeros(6, dtype=int)
    wp.launch(reverse_loops, dim=6, inputs=[4, rev])
    b = wp.zeros(4, dtype=wp.uint32)
    wp.launch(bits, dim=4, inputs=[x, b])
    return {"local": out, "lb": lb, "lb2": lb2, "rev": rev, "bits": b}
