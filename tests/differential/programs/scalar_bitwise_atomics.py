# Augmented bitwise stores on integer arrays (a[i] &= v, |=, ^=) are atomics as in Warp: many
# threads flipping bits of one word all land. Bitwise operators apply per component on integer
# vectors and matrices. wp.float / wp.int are kernel-only casts to float32 / int32.

mat22ui = wp.types.matrix(shape=(2, 2), dtype=wp.uint32)


@wp.kernel
def bits(a: wp.array(dtype=wp.uint32), b: wp.array(dtype=wp.uint32), op: int):
    i = wp.tid()
    w = i // 8
    mask = wp.uint32(1) << wp.uint32(i % 8)
    if op == 0:
        a[w] &= (b[w] & mask) | ~mask
    elif op == 1:
        a[w] |= b[w] & mask
    else:
        a[w] ^= b[w] & mask


@wp.kernel
def composite_bits(v: wp.array(dtype=wp.vec3ui), m: wp.array(dtype=mat22ui)):
    i = wp.tid()
    s = wp.uint32(i % 4)
    v[i] = (v[i] << wp.vec3ui(s, s, s)) ^ ~wp.vec3ui(wp.uint32(1), wp.uint32(2), wp.uint32(3))
    one = mat22ui(wp.uint32(1), wp.uint32(1), wp.uint32(1), wp.uint32(1))
    m[i] = (m[i] | (one << mat22ui(s, s, s, s))) & ~one


@wp.kernel
def casts(h: wp.array(dtype=wp.float16), f: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    f[i] = wp.float(h[i]) * 2.0
    n[i] = wp.int(wp.float(h[i]) * 3.7)


def run():
    rng = np.random.default_rng(7)
    a0 = rng.integers(0, 256, size=4, dtype=np.uint32)
    b = wp.array(rng.integers(0, 256, size=4, dtype=np.uint32), dtype=wp.uint32)
    results = {}
    for op in range(3):
        a = wp.array(a0, dtype=wp.uint32)
        wp.launch(bits, dim=32, inputs=[a, b, op])
        results[f"op{op}"] = a
    v = wp.array(rng.integers(0, 1000, size=(6, 3), dtype=np.uint32), dtype=wp.vec3ui)
    m = wp.array(rng.integers(0, 1000, size=(6, 2, 2), dtype=np.uint32), dtype=mat22ui)
    wp.launch(composite_bits, dim=6, inputs=[v, m])
    h = wp.array(np.array([1.5, -2.25, 0.125], dtype=np.float16), dtype=wp.float16)
    f = wp.zeros(3, dtype=float)
    n = wp.zeros(3, dtype=int)
    wp.launch(casts, dim=3, inputs=[h, f, n])
    results.update(v=v, m=m, f=f, n=n)
    return results
