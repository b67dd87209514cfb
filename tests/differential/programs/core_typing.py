@wp.kernel
def int_ops(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = x / y
    out[i, 1] = x // y
    out[i, 2] = x % y
    out[i, 3] = x * y - x
    out[i, 4] = x << 2
    out[i, 5] = x >> 1
    out[i, 6] = x & y
    out[i, 7] = x | y
    out[i, 8] = x ^ y
    out[i, 9] = ~x
    out[i, 10] = -x
    out[i, 11] = int(x > y) + int(x == y) * 2 + int(x != y) * 4


@wp.kernel
def float_ops(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = x / y
    out[i, 1] = x // y
    out[i, 2] = x % y
    out[i, 3] = x ** 2.0
    out[i, 4] = float(int(x))
    out[i, 5] = wp.round(x)
    out[i, 6] = wp.rint(x)
    out[i, 7] = wp.sign(x)
    out[i, 8] = wp.step(x)
    out[i, 9] = wp.trunc(x)
    out[i, 10] = wp.floor(x)
    out[i, 11] = wp.frac(x)


@wp.kernel
def wide(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.float64), outi: wp.array(dtype=wp.int64)):
    i = wp.tid()
    out[i] = a[i] * wp.float64(2.5) + wp.float64(b[i])
    outi[i] = b[i] * wp.int64(3000000000) // wp.int64(7)


def run():
    a = wp.array(np.array([7, -7, 7, -7, 5, 0, 13, -13], np.int32))
    b = wp.array(np.array([2, 2, -2, -2, 1, 3, 5, 4], np.int32))
    out = wp.zeros((8, 12), dtype=int)
    wp.launch(int_ops, dim=8, inputs=[a, b, out])
    fa = wp.array(np.array([7.5, -7.5, 2.5, -2.5, 0.5, -0.5, 3.25, 1.0], np.float32))
    fb = wp.array(np.array([2.0, 2.0, -2.0, 1.5, 0.25, 3.0, 1.0, 3.0], np.float32))
    fout = wp.zeros((8, 12), dtype=float)
    wp.launch(float_ops, dim=8, inputs=[fa, fb, fout])
    da = wp.array([1.0, 2.0, 3.0])
    db = wp.array([1, 2, 3])
    dout = wp.zeros(3, dtype=wp.float64)
    iout = wp.zeros(3, dtype=wp.int64)
    wp.launch(wide, dim=3, inputs=[da, db, dout, iout])
    return {"int": out, "float": fout, "f64": dout, "i64": iout, "dtypes": [str(da.numpy().dtype), str(db.numpy().dtype)]}
