# Negative array indices wrap as in Warp: a[-1] is the last element (constant, launch-uniform,
# per-lane and tid-relative indices; loads, stores and atomics; 1-D, 2-D and views).


@wp.kernel
def reads(a: wp.array(dtype=float), b: wp.array2d(dtype=float), back: int, out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[i, 0] = a[-1]
    out[i, 1] = a[-2]
    out[i, 2] = b[-1, 0]
    out[i, 3] = b[1, -1]
    out[i, 4] = a[i - 3]              # tid-relative: lanes below 3 read from the end
    out[i, 5] = a[-back]              # launch-uniform
    out[i, 6] = a[(i * 7) % a.shape[0] - a.shape[0]]  # per-lane
    out[i, 7] = b[i % 2 - 2, i - 2]


@wp.kernel
def writes(a: wp.array(dtype=float), counts: wp.array(dtype=int), vs: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if i == 0:
        a[-1] = 100.0
        vs[-2] = wp.vec3(1.0, 2.0, 3.0)
    if i == 1:
        a[i - 3] = 50.0
    wp.atomic_add(counts, -1 - i % 2, 1)
    counts[-3] += 2
    vs[i - 5][1] = float(i)


def run():
    a = wp.array(np.arange(5, dtype=np.float32) * 1.5 + 1.0)
    b = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3) + 10.0)
    out = wp.zeros((5, 8), dtype=float)
    wp.launch(reads, dim=5, inputs=[a, b, 2, out])
    view = a[1:4]
    out_view = wp.zeros((3, 8), dtype=float)
    b2 = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3) - 4.0)
    wp.launch(reads, dim=3, inputs=[view, b2, 1, out_view])
    counts = wp.zeros(6, dtype=int)
    vs = wp.zeros(5, dtype=wp.vec3)
    w = wp.array(np.zeros(5, np.float32))
    wp.launch(writes, dim=4, inputs=[w, counts, vs])
    return {"out": out, "out_view": out_view, "w": w, "counts": counts, "vs": vs}
