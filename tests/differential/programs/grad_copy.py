"""``wp.copy``, ``wp.clone`` and ``array.assign`` under a Tape: the destination's adjoint moves
back to the source (and is consumed), offsets and counts, the forward copy of ``.grad`` when
both arrays have gradients, copies into arrays without gradients (not recorded), and
``retain_grad`` arrays keeping their adjoint; a copy between equal dtypes spelled differently
(``vec2`` and ``vector(length=2, dtype=float32)``) moves the adjoint back too."""


@wp.kernel
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i] + x[i] * x[i]


@wp.kernel
def weigh(v: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, v[i] * float(i + 1))


@wp.kernel
def weigh_vec(v: wp.array(dtype=wp.vec2), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, v[i][0] * float(i + 1) - v[i][1])


def run():
    out = {}
    x = wp.array(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), dtype=float, requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    z = wp.zeros(6, dtype=float, requires_grad=True)
    w = wp.zeros(4, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(double, dim=4, inputs=[x], outputs=[y])
        wp.copy(z, y, dest_offset=1, src_offset=1, count=3)
        c = wp.clone(z)
        w.assign(c[2:6])
        wp.launch(weigh, dim=6, inputs=[c, loss])
        wp.launch(weigh, dim=4, inputs=[w, loss])
    tape.backward(loss=loss)
    out["chain"] = [a.grad.numpy() for a in (x, y, z, c, w)] + [loss.numpy(), len(tape.launches)]

    # the forward copy of gradients, and a destination without gradients
    a = wp.array(np.array([1.0, 2.0], dtype=np.float32), dtype=float, requires_grad=True)
    a.grad.fill_(5.0)
    b = wp.zeros(2, dtype=float, requires_grad=True)
    plain = wp.zeros(2, dtype=float)
    l2 = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(b, a)
        forward_copy = b.grad.numpy().copy()
        wp.copy(plain, a)
        wp.launch(weigh, dim=2, inputs=[b, l2])
        wp.launch(weigh, dim=2, inputs=[plain, l2])
    tape.backward(loss=l2)
    out["grad_copy"] = [forward_copy, a.grad.numpy(), b.grad.numpy(), len(tape.launches)]

    # retain_grad keeps the destination's adjoint; vector dtypes
    u = wp.array(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), dtype=wp.vec2, requires_grad=True)
    v = wp.zeros(2, dtype=wp.vec2, requires_grad=True, retain_grad=True)
    l3 = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(v, u)
        wp.launch(weigh_vec, dim=2, inputs=[v, l3])
    tape.backward(loss=l3)
    out["retain"] = [u.grad.numpy(), v.grad.numpy()]

    # equal dtypes, spelled differently: the source also read directly (adjoints add up)
    p = wp.array(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), dtype=wp.vec2, requires_grad=True)
    q = wp.zeros(2, dtype=wp.types.vector(length=2, dtype=wp.float32), requires_grad=True)
    l4 = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(q, p)
        wp.launch(weigh_vec, dim=2, inputs=[p, l4])
        wp.launch(weigh_vec, dim=2, inputs=[q, l4])
    tape.backward(loss=l4)
    out["respelled"] = [p.grad.numpy(), q.grad.numpy(), l4.numpy()]
    return out
