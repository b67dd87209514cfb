# float16 / bfloat16 math is evaluated in float32 and rounded once (Warp's half math), so each
# result is the half value nearest the float32 one; wp.div_approx divides half values.
TOLERANCE = {"h": (1e-6, 0.0), "b": (1e-6, 0.0)}  # one rounding: the same half value


@wp.kernel
def half_math(x: wp.array(dtype=wp.float16), h: wp.array2d(dtype=wp.float16)):
    i = wp.tid()
    v = x[i]
    h[i, 0] = wp.asin(v)
    h[i, 1] = wp.exp(v)
    h[i, 2] = wp.log(v)
    h[i, 3] = wp.sqrt(v)
    h[i, 4] = wp.tan(v)
    h[i, 5] = wp.div_approx(v, wp.float16(3.0))


@wp.kernel
def bf16_math(x: wp.array(dtype=wp.bfloat16), b: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    v = x[i]
    b[i, 0] = wp.float32(wp.asin(v))
    b[i, 1] = wp.float32(wp.exp(v))
    b[i, 2] = wp.float32(wp.log(v))
    b[i, 3] = wp.float32(wp.div_approx(v, wp.bfloat16(3.0)))


def run():
    data = np.array([0.25, 0.5, 0.75, 0.9], dtype=np.float32)
    x = wp.array(data.astype(np.float16), dtype=wp.float16)
    h = wp.zeros((4, 6), dtype=wp.float16)
    wp.launch(half_math, dim=4, inputs=[x, h])
    xb = wp.array(data, dtype=wp.bfloat16)
    b = wp.zeros((4, 4), dtype=wp.float32)
    wp.launch(bf16_math, dim=4, inputs=[xb, b])
    return {"h": h.numpy().astype(np.float32), "b": b}
