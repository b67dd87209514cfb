"""wp.grad(f)(...) in kernels: per-thread gradients of @wp.func functions and builtins (scalar and
vector arguments, several arguments returned as a tuple, inside a branch); the result is a
constant for the tape's backward pass, as in Warp."""


@wp.func
def square(x: float):
    return x * x


@wp.func
def energy(p: wp.vec3, k: float):
    return 0.5 * k * wp.dot(p, p) + wp.sin(p[0])


@wp.kernel
def gradients(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float, ndim=2),
              vo: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i, 0] = wp.grad(square)(x[i])
    db, da = wp.grad(wp.atan2)(x[i], 2.0)
    out[i, 1] = db
    out[i, 2] = da
    gp, gk = wp.grad(energy)(v[i], x[i])
    vo[i] = gp
    out[i, 3] = gk
    if x[i] > 0.5:
        out[i, 4] = wp.grad(wp.sqrt)(x[i])


@wp.kernel
def through_tape(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.grad(square)(x[i]) + 3.0 * x[i]


def run():
    import warnings

    x = wp.array(np.linspace(0.1, 1.0, 6).astype(np.float32))
    v = wp.array(np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32), dtype=wp.vec3)
    out = wp.zeros((6, 5))
    vo = wp.zeros(6, dtype=wp.vec3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wp.launch(gradients, 6, [x, v, out, vo])
        xt = wp.array(np.linspace(0.1, 1.0, 6).astype(np.float32), requires_grad=True)
        yt = wp.zeros(6, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(through_tape, 6, [xt, yt])
        tape.backward(grads={yt: wp.ones(6)})
    return {"out": out.numpy(), "vo": vo.numpy(), "y": yt.numpy(), "x_grad": xt.grad.numpy()}
