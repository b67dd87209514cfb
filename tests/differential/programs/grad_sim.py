"""A 30-step particle simulation under one Tape (new state arrays per step, as in Warp's
examples): gravity, a penalty ground contact with damping and friction, and a loss on the
final positions; `.grad` of the initial state and of a few intermediate states."""

RTOL = 2e-4
ATOL = 1e-5


@wp.kernel
def step(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float,
         x_out: wp.array(dtype=wp.vec3), v_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    vel = v[i]
    f = wp.vec3(0.0, -9.8, 0.0)
    depth = 0.05 - p[1]
    if depth > 0.0:
        f = f + wp.vec3(0.0, 800.0 * depth, 0.0) - vel * 3.0
        f = f - wp.vec3(vel[0], 0.0, vel[2]) * (10.0 * depth)
    vel = vel + f * dt
    v_out[i] = vel
    x_out[i] = p + vel * dt


@wp.kernel
def target_loss(x: wp.array(dtype=wp.vec3), target: wp.vec3, loss: wp.array(dtype=float)):
    i = wp.tid()
    d = x[i] - target
    wp.atomic_add(loss, 0, wp.dot(d, d))


def run():
    n, steps = 8, 30
    rng = np.random.default_rng(7)
    xs = [wp.array(rng.uniform(0.0, 0.3, (n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)]
    vs = [wp.array(rng.uniform(-1.0, 1.0, (n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)]
    for _ in range(steps):
        xs.append(wp.zeros(n, dtype=wp.vec3, requires_grad=True))
        vs.append(wp.zeros(n, dtype=wp.vec3, requires_grad=True))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        for k in range(steps):
            wp.launch(step, dim=n, inputs=[xs[k], vs[k], 0.01], outputs=[xs[k + 1], vs[k + 1]])
        wp.launch(target_loss, dim=n, inputs=[xs[-1], wp.vec3(0.5, 0.0, 0.5), loss])
    tape.backward(loss=loss)
    return {"loss": loss.numpy(), "x0": xs[0].grad.numpy(), "v0": vs[0].grad.numpy(),
            "x10": xs[10].grad.numpy(), "v20": vs[20].grad.numpy(), "x_end": xs[-1].numpy()}
