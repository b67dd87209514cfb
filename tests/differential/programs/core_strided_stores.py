"""Strided stores and atomics (``a[2 * i + 1] = v``, ``a[3 * i] += v``, 2-D ``a[i, 2 * j]``),
with masks and vector dtypes; lowered without scatters. (Writes past the end crash Warp's CPU
backend; tests/compiler/test_strided_stores.py checks that jwarp drops them.)"""


@wp.kernel
def interleave(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[2 * i] = x[i]
    if x[i] > 0.0:
        out[2 * i + 1] = y[i]


@wp.kernel
def strided_atomics(x: wp.array(dtype=float), acc: wp.array(dtype=float), vacc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(acc, 3 * i + 1, x[i])
    acc[3 * i + 2] += 2.0 * x[i]
    vacc[2 * i] += wp.vec3(x[i], 1.0, -x[i])


@wp.kernel
def columns(x: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, 2 * j + 1] = x[i, j] * 10.0
    if j == 0:
        out[2 * i, 0] = out[2 * i, 0] + 1.0


def run():
    rng = np.random.default_rng(8)
    x = wp.array(rng.standard_normal(16).astype(np.float32))
    y = wp.array(rng.standard_normal(16).astype(np.float32))
    out = wp.zeros(32, dtype=float)
    wp.launch(interleave, dim=16, inputs=[x, y, out])
    acc = wp.ones(48, dtype=float)
    vacc = wp.zeros(40, dtype=wp.vec3)
    wp.launch(strided_atomics, dim=16, inputs=[x, acc, vacc])
    x2 = wp.array(rng.standard_normal((4, 5)).astype(np.float32))
    out2 = wp.zeros((8, 11), dtype=float)
    wp.launch(columns, dim=(4, 5), inputs=[x2, out2])
    return {"out": out, "acc": acc, "vacc": vacc, "out2": out2}
