@wp.kernel
def pairs(idx: wp.array(dtype=int), x: wp.array(dtype=float), out: wp.array(dtype=float), out2: wp.array(dtype=float)):
    t = wp.tid()
    i = idx[t * 2]
    j = idx[t * 2 + 1]
    out[t] = x[i] - x[j]
    out2[t] = x[2 * t + 3] + x[(t + 1) * 3]


def run():
    rng = np.random.default_rng(5)
    idx = wp.array(rng.integers(0, 50, 40).astype(np.int32))
    x = wp.array(rng.standard_normal(50).astype(np.float32))
    out = wp.zeros(20, dtype=float)
    out2 = wp.zeros(15, dtype=float)
    wp.launch(pairs, dim=15, inputs=[idx, x, out, out2])
    return {"out": out, "out2": out2}
