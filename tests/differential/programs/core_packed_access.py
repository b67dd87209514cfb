"""Indirect loads, stores and atomics of vector, quaternion and matrix elements with at least
half as many threads as the array has elements: jwarp moves float32 components in complex64 pairs
there (jwarp/compiler/packing.py). Springs-style gathers and atomic_add/atomic_sub scatters with
repeated targets and masked threads, an indirect store, and float64/int vectors (never packed)."""


@wp.kernel
def springs(
    pairs: wp.array(dtype=int),
    x: wp.array(dtype=wp.vec3),
    q: wp.array(dtype=wp.quat),
    f: wp.array(dtype=wp.vec3),
    torque: wp.array(dtype=wp.vec4),
):
    s = wp.tid()
    i = pairs[2 * s]
    j = pairs[2 * s + 1]
    d = x[j] - x[i]
    r = wp.quat_rotate(q[i], d)
    if s % 5 != 3:
        wp.atomic_add(f, i, r)
        wp.atomic_sub(f, j, d * 0.5)
    torque[j] += wp.vec4(d[0], d[1], d[2], wp.length(d))


@wp.kernel
def scatter_store(perm: wp.array(dtype=int), m: wp.array(dtype=wp.mat22), out: wp.array(dtype=wp.mat22)):
    t = wp.tid()
    out[perm[t]] = m[t] * 2.0


@wp.kernel
def other_dtypes(
    idx: wp.array(dtype=int),
    a: wp.array(dtype=wp.vec3d),
    b: wp.array(dtype=wp.vec3i),
    acc: wp.array(dtype=wp.vec3d),
    out: wp.array(dtype=wp.vec3i),
):
    t = wp.tid()
    acc[idx[t]] += a[t]
    out[t] = b[idx[t]] * 3


def run():
    rng = np.random.default_rng(11)
    n, m = 40, 90
    pairs = wp.array(rng.integers(0, n, 2 * m).astype(np.int32))
    x = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    qs = rng.standard_normal((n, 4)).astype(np.float32)
    q = wp.array(qs / np.linalg.norm(qs, axis=1, keepdims=True), dtype=wp.quat)
    f = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    torque = wp.zeros(n, dtype=wp.vec4)
    wp.launch(springs, m, inputs=[pairs, x, q, f, torque])
    perm = wp.array(rng.permutation(30).astype(np.int32))
    mats = wp.array(rng.standard_normal((30, 2, 2)).astype(np.float32), dtype=wp.mat22)
    out = wp.zeros(30, dtype=wp.mat22)
    wp.launch(scatter_store, 30, inputs=[perm, mats, out])
    idx = wp.array(rng.integers(0, 20, 50).astype(np.int32))
    a = wp.array(rng.standard_normal((50, 3)), dtype=wp.vec3d)
    b = wp.array(rng.integers(-9, 9, (20, 3)).astype(np.int32), dtype=wp.vec3i)
    acc = wp.zeros(20, dtype=wp.vec3d)
    outi = wp.zeros(50, dtype=wp.vec3i)
    wp.launch(other_dtypes, 50, inputs=[idx, a, b, acc, outi])
    return {"f": f, "torque": torque, "out": out, "acc": acc, "outi": outi}
