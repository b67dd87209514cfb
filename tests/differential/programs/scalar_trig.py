# sin, cos, tan, atan, atan2, asin and acos of float32 values (jwarp's vector code on XLA:CPU,
# jwarp/builtins/trig.py and inverse_trig.py) against Warp's C library calls: arguments across magnitudes from
# 2^-30 to 3e38 (the 2^20 boundary between the vector code's two argument reductions, in one launch with
# ordinary arguments), signed zeros, subnormals, infinities and NaN; float16 arguments; calls under a branch
# and in a loop; and the gradients of all seven through a Tape.

RTOL = 2.5e-7  # two float32 ulps: the vector code is correctly rounded, the C library to within an ulp
ATOL = 0.0
TOLERANCE = {
    "grads": (2e-6, 1e-6),
    "control": (2.5e-7, 1e-7),  # (the loop sums terms that cancel)
    # (the Pallas run of this program takes XLA's functions: a few ulps, subnormal results flushed)
    "inverse": (1e-6, 1.2e-38),
}


# (one-dimensional float arrays and launches of 2^14+ threads: the kernels jwarp gives the vector code;
# trig_control stores into a 2-D array and takes XLA's functions)
@wp.kernel
def trig_values(x: wp.array(dtype=float), s: wp.array(dtype=float), c: wp.array(dtype=float),
                t: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    s[i] = wp.sin(v)
    c[i] = wp.cos(v)
    t[i] = wp.tan(v)


@wp.kernel
def inverse_values(x: wp.array(dtype=float), y: wp.array(dtype=float), a: wp.array(dtype=float),
                   a2: wp.array(dtype=float), s: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.atan(x[i])
    a2[i] = wp.atan2(y[i], x[i])
    s[i] = wp.asin(x[i])  # (Warp clamps the argument to [-1, 1])
    c[i] = wp.acos(y[i])


@wp.kernel
def trig_half(x: wp.array(dtype=wp.float16), out: wp.array2d(dtype=wp.float16)):
    i = wp.tid()
    out[i, 0] = wp.sin(x[i])
    out[i, 1] = wp.cos(x[i])
    out[i, 2] = wp.tan(x[i])


@wp.kernel
def trig_control(x: wp.array(dtype=float), n: int, out: wp.array2d(dtype=float)):
    i = wp.tid()
    v = x[i]
    acc = float(0.0)
    for k in range(n):
        acc = acc + wp.sin(v * float(k + 1)) * wp.cos(v + float(k))
    out[i, 0] = acc
    if v > 0.0:
        out[i, 1] = wp.tan(v * 0.5)
    else:
        out[i, 1] = wp.sin(v) + 2.0


@wp.kernel
def trig_loss(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    wp.atomic_add(loss, 0, wp.sin(2.0 * v + 1.0) * v + wp.cos(v) * wp.cos(v) + 0.1 * wp.tan(0.5 * v))
    w = 0.2 * v
    wp.atomic_add(loss, 0, wp.atan(v) + wp.atan2(v, 1.5 + w) + wp.asin(w) * 2.0 + wp.acos(w) * v)


def _arguments():
    rng = np.random.default_rng(11)
    parts = [rng.uniform(-10.0**e, 10.0**e, 1100) for e in range(-9, 39, 3)]  # (2^14+ lanes: the vector code)
    parts.append(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-30, 2.0**20, -(2.0**20),
                           2.0**20 * (1 + 2.0**-23), 3.4e38, -3.4e38, np.pi / 2, np.pi, 3 * np.pi / 2, 2 * np.pi,
                           1e5 * np.pi, 710.0, 2.0**-12, -(2.0**-12), 2.0**-13, 8192.0, 1.0e7]))
    return np.concatenate(parts).astype(np.float32)


def run():
    x = _arguments()
    n = len(x)
    values = [wp.zeros(n, dtype=float) for _ in range(3)]
    wp.launch(trig_values, dim=n, inputs=[wp.array(x), *values])

    rng = np.random.default_rng(12)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5], np.float32)
    sy, sx = (v.ravel() for v in np.meshgrid(specials, specials))
    ix = np.concatenate([x, rng.uniform(-1.0, 1.0, 500).astype(np.float32), sx])
    iy = np.concatenate([rng.permutation(x), rng.uniform(-1.0, 1.0, 500).astype(np.float32), sy])
    inverse = [wp.zeros(len(ix), dtype=float) for _ in range(4)]
    wp.launch(inverse_values, dim=len(ix), inputs=[wp.array(ix), wp.array(iy), *inverse])

    small = np.linspace(-6.0, 6.0, 97).astype(np.float16)
    half = wp.zeros((len(small), 3), dtype=wp.float16)
    wp.launch(trig_half, dim=len(small), inputs=[wp.array(small, dtype=wp.float16), half])

    moderate = np.random.default_rng(3).uniform(-4.0, 4.0, 256).astype(np.float32)
    control = wp.zeros((256, 2), dtype=float)
    wp.launch(trig_control, dim=256, inputs=[wp.array(moderate), 5, control])

    spread = np.random.default_rng(4).uniform(-4.0, 4.0, 1 << 14).astype(np.float32)
    xs = wp.array(spread, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(trig_loss, dim=len(spread), inputs=[xs, loss])
    tape.backward(loss=loss)
    return {"values": np.stack([v.numpy() for v in values], axis=1),
            "inverse": np.stack([v.numpy() for v in inverse], axis=1), "half": half.numpy().astype(np.float32),
            "control": control.numpy(),
            "grads": xs.grad.numpy()}
