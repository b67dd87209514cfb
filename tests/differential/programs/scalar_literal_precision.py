# Python float literals and wp.constant floats converted to float64 (scalar casts and float64
# composite constructors) keep their full double value, as Warp emits them; float32 contexts
# round them. Exact comparison.
RTOL = 0.0
ATOL = 0.0

C = wp.constant(0.1)
C64 = wp.constant(wp.float64(1.0 / 3.0))


@wp.kernel
def literals(d: wp.float64, out: wp.array(dtype=wp.float64), out32: wp.array(dtype=wp.float32)):
    x = 0.1
    out[0] = wp.float64(0.1)
    out[1] = wp.float64(x)
    out[2] = wp.float64(C)
    out[3] = C64
    out[4] = wp.float64(-0.1)
    out[5] = wp.float64(wp.PI)
    out[6] = d * wp.float64(1.00000005)
    v = wp.vec3d(1.00000005, x, -2.718281828459045)
    out[7] = v[0]
    out[8] = v[1]
    out[9] = v[2]
    m = wp.mat22d(1.111111111111111, 0.0, 0.0, 1.0)
    out[10] = m[0, 0]
    out[11] = wp.float64(wp.float32(0.1))  # through float32: rounded
    out[12] = wp.float64(16777217)
    out32[0] = wp.float32(0.1)
    out32[1] = wp.vec3(0.1, 0.2, 0.3)[2]


def run():
    out = wp.zeros(13, dtype=wp.float64)
    out32 = wp.zeros(2, dtype=wp.float32)
    wp.launch(literals, dim=1, inputs=[wp.float64(2.0), out, out32])
    return {"out": out, "out32": out32}
