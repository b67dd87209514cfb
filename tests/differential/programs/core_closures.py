SCALE = wp.constant(3.0)
OFFSET = 2
TABLE = (1.0, 10.0, 100.0)


def make_kernel(power: int):
    @wp.kernel
    def powk(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        v = x[i]
        r = float(1.0)
        for _ in range(power):
            r = r * v
        out[i] = r * SCALE + float(OFFSET) + wp.static(TABLE[1])

    return powk


def run():
    x = wp.array(np.linspace(-1.0, 2.0, 11).astype(np.float32))
    out2 = wp.zeros(11, dtype=float)
    out3 = wp.zeros(11, dtype=float)
    wp.launch(make_kernel(2), dim=11, inputs=[x, out2])
    wp.launch(make_kernel(3), dim=11, inputs=[x, out3])
    return {"p2": out2, "p3": out3}
