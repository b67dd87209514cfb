"""Gradients of arrays of structs through wp.Tape — a plain kernel reading struct fields, and a
tile kernel mapping a struct function over a tile of structs and summing (float fields get their
gradients; int fields of the gradient array stay zero) — and through an adjoint launch."""


@wp.struct
class Particle:
    x: wp.float32
    v: wp.vec3
    tag: wp.int32


@wp.func
def energy(p: Particle) -> float:
    return p.x * p.x + wp.dot(p.v, p.v) * 0.5 + float(p.tag)


@wp.kernel
def plain_loss(ps: wp.array(dtype=Particle), loss: wp.array(dtype=float)):
    i = wp.tid()
    p = ps[i]
    wp.atomic_add(loss, 0, energy(p) * float(i + 1))


@wp.kernel
def tile_loss(ps: wp.array(dtype=Particle), loss: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(ps, shape=4, offset=i * 4)
    e = wp.tile_map(energy, t)
    wp.tile_atomic_add(loss, wp.tile_sum(e))


def run():
    items = []
    for j in range(8):
        p = Particle()
        p.x = 0.5 * j - 1.0
        p.v = wp.vec3(float(j), -1.0, 0.25 * j)
        p.tag = j
        items.append(p)
    out = {}
    for name, kernel, launch in (("plain", plain_loss, "launch"), ("tile", tile_loss, "tiled")):
        ps = wp.array(items, dtype=Particle, requires_grad=True)
        loss = wp.zeros(1, requires_grad=True)
        tape = wp.Tape()
        with tape:
            if launch == "launch":
                wp.launch(kernel, dim=8, inputs=[ps, loss])
            else:
                wp.launch_tiled(kernel, dim=2, inputs=[ps, loss], block_dim=4)
        tape.backward(loss)
        g = ps.grad.numpy()
        out[f"{name}.loss"] = loss.numpy()
        out[f"{name}.x"] = np.asarray(g["x"])
        out[f"{name}.v"] = np.asarray(g["v"])
        out[f"{name}.tag"] = np.asarray(g["tag"])
    ps = wp.array(items, dtype=Particle, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    loss.grad.fill_(1.0)
    wp.launch(plain_loss, dim=8, inputs=[ps, loss], adj_inputs=[ps.grad, loss.grad], adjoint=True)
    g = ps.grad.numpy()
    out["adjoint.x"] = np.asarray(g["x"])
    out["adjoint.v"] = np.asarray(g["v"])
    return out
