"""Gradients through vector and matrix math, struct fields and vector-dtype arrays:
dot/cross/length/normalize, matrix products and transposes, outer products, component access
and component stores."""


@wp.struct
class Body:
    pos: wp.vec3
    axis: wp.vec3
    mass: float


@wp.kernel
def vec_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33),
            out: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    c = wp.cross(u, v)
    n = wp.normalize(u + v)
    w = m[i] * c + wp.transpose(m[i]) * n * wp.length(v)
    out[i] = w
    s[i] = wp.dot(w, u) + wp.length_sq(c) + w[1] * 2.0


@wp.kernel
def body_ops(bodies: wp.array(dtype=Body), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    b = bodies[i]
    r = wp.outer(b.axis, p[i]) * p[i] * b.mass + b.pos
    q = wp.normalize(b.axis)
    out[i] = r + wp.vec3(q[0], q[1], q[2] * b.mass)


@wp.kernel
def components(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i][0] = a[i][2] * 3.0
    out[i][2] = a[i][0] * a[i][1]


@wp.kernel
def loss_vec(w: wp.array(dtype=wp.vec3), s: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    k = float(i + 1)
    wp.atomic_add(loss, 0, wp.dot(w[i], wp.vec3(1.0, -2.0, 0.5)) * k + s[i] * k * k)


def run():
    rng = np.random.default_rng(3)
    a = wp.array(rng.uniform(-1, 1, (4, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    b = wp.array(rng.uniform(-1, 1, (4, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    m = wp.array(rng.uniform(-1, 1, (4, 3, 3)).astype(np.float32), dtype=wp.mat33, requires_grad=True)
    out = wp.zeros(4, dtype=wp.vec3, requires_grad=True)
    s = wp.zeros(4, dtype=float, requires_grad=True)
    p = wp.array(rng.uniform(-1, 1, (4, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    bodies = []
    for k in range(4):
        body = Body()
        body.pos = wp.vec3(0.1 * k, 0.2, -0.3)
        body.axis = wp.vec3(0.1 * k, 0.2, 0.9)
        body.mass = 1.0 + 0.5 * k
        bodies.append(body)
    body_arr = wp.array(bodies, dtype=Body)
    rotated = wp.zeros(4, dtype=wp.vec3, requires_grad=True)
    comp = wp.zeros(4, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(vec_ops, dim=4, inputs=[a, b, m], outputs=[out, s])
        wp.launch(body_ops, dim=4, inputs=[body_arr, p], outputs=[rotated])
        wp.launch(components, dim=4, inputs=[a], outputs=[comp])
        wp.launch(loss_vec, dim=4, inputs=[out, s, loss])
        wp.launch(loss_vec, dim=4, inputs=[rotated, s, loss])
        wp.launch(loss_vec, dim=4, inputs=[comp, s, loss])
    tape.backward(loss=loss)
    return {"loss": loss.numpy(), "a": a.grad.numpy(), "b": b.grad.numpy(), "m": m.grad.numpy(),
            "p": p.grad.numpy(), "out": out.grad.numpy(), "s": s.grad.numpy(), "rotated": rotated.grad.numpy(),
            "comp": comp.grad.numpy()}
