@wp.kernel
def small(a: wp.array(dtype=wp.uint8), b: wp.array(dtype=wp.int16), h: wp.array(dtype=wp.float16),
          flags: wp.array(dtype=wp.bool), u: wp.array(dtype=wp.uint32), out: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + wp.uint8(200)
    b[i] = b[i] * wp.int16(300)
    h[i] = h[i] * wp.float16(1.5)
    flags[i] = not flags[i]
    u[i] = u[i] * wp.uint32(2654435761) + wp.uint32(1)
    out[i] = float(a[i]) + float(b[i]) + float(h[i]) + float(flags[i])


def run():
    n = 6
    a = wp.array(np.arange(n, dtype=np.uint8) * 20, dtype=wp.uint8)
    b = wp.array(np.arange(n, dtype=np.int16) * 50, dtype=wp.int16)
    h = wp.array(np.linspace(0.5, 3.0, n).astype(np.float16), dtype=wp.float16)
    flags = wp.array(np.array([True, False] * 3), dtype=wp.bool)
    u = wp.array(np.arange(n, dtype=np.uint32) * 12345, dtype=wp.uint32)
    out = wp.zeros(n, dtype=float)
    wp.launch(small, dim=n, inputs=[a, b, h, flags, u, out])
    return {"a": a, "b": b, "h": h, "flags": flags, "u": u, "out": out}
