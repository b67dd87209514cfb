@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a * x[i] + y[i]


def run():
    rng = np.random.default_rng(0)
    n = 1000
    x = wp.array(rng.standard_normal(n).astype(np.float32))
    y = wp.array(rng.standard_normal(n).astype(np.float32))
    out = wp.zeros(n, dtype=float)
    wp.launch(saxpy, dim=n, inputs=[1.5, x, y], outputs=[out])
    return {"out": out.numpy()}
