"""``wp.Tape`` semantics on a chain of kernels: `.grad` of every array after backward
(stored outputs consumed, atomic outputs kept), accumulation across backward calls,
``zero``/``reset``, ``grads=`` seeding (installing the gradient array when missing),
``record_tape=False``, arrays without gradients stopping the chain, and 2-D launches."""


@wp.kernel
def affine(x: wp.array(dtype=float), a: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a[0] * x[i] + wp.sin(x[i])


@wp.kernel
def square(y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = y[i] * y[i]


@wp.kernel
def reduce(z: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, z[i])


@wp.kernel
def grid2d(m: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = m[i, j] * float(i + 2 * j + 1) + m[j, i]


@wp.kernel
def reduce2d(m: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, m[i, j] * m[i, j])


def chain(record_middle=True):
    x = wp.array(np.array([0.1, 0.5, -0.3, 1.2], dtype=np.float32), dtype=float, requires_grad=True)
    a = wp.array(np.array([1.5], dtype=np.float32), dtype=float, requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    z = wp.zeros(4, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(affine, dim=4, inputs=[x, a], outputs=[y])
        wp.launch(square, dim=4, inputs=[y], outputs=[z], record_tape=record_middle)
        wp.launch(reduce, dim=4, inputs=[z, loss])
    return tape, x, a, y, z, loss


def grads(*arrays):
    return [a.grad.numpy().copy() for a in arrays]


def run():
    out = {}
    tape, x, a, y, z, loss = chain()
    tape.backward(loss=loss)
    out["first"] = grads(x, a, y, z, loss)
    tape.backward(loss=loss)
    out["second"] = grads(x, a, y, z, loss)
    tape.zero()
    out["zeroed"] = grads(x, a, y, z, loss)
    tape.backward(grads={z: wp.array(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), dtype=float)})
    out["grads_dict"] = grads(x, a, y, z, loss)
    tape.reset()
    out["reset"] = [len(tape.launches)] + grads(x, a)

    tape, x, a, y, z, loss = chain(record_middle=False)
    tape.backward(loss=loss)
    out["unrecorded"] = grads(x, a, y, z, loss)

    # an intermediate array without gradients stops the chain
    x = wp.array(np.array([0.1, 0.5], dtype=np.float32), dtype=float, requires_grad=True)
    a = wp.array(np.array([2.0], dtype=np.float32), dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float)
    z = wp.zeros(2, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(affine, dim=2, inputs=[x, a], outputs=[y])
        wp.launch(square, dim=2, inputs=[y], outputs=[z])
        wp.launch(reduce, dim=2, inputs=[z, loss])
    tape.backward(loss=loss)
    out["stopped"] = grads(x, a, z)

    # the gradient array is installed from grads= when the array has none
    y2 = wp.zeros(2, dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch(affine, dim=2, inputs=[x, a], outputs=[y2])
    seed = wp.array(np.array([1.0, -2.0], dtype=np.float32), dtype=float)
    x.grad.zero_()
    a.grad.zero_()
    tape.backward(grads={y2: seed})
    out["installed"] = [int(y2.grad is seed), seed.numpy()] + grads(x, a)

    m = wp.array(np.arange(9, dtype=np.float32).reshape(3, 3) * 0.1, dtype=float, requires_grad=True)
    m2 = wp.zeros((3, 3), dtype=float, requires_grad=True)
    l2 = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(grid2d, dim=(3, 3), inputs=[m], outputs=[m2])
        wp.launch(reduce2d, dim=(3, 3), inputs=[m2, l2])
    tape.backward(l2)
    out["grid"] = grads(m, m2, l2)

    # views: a slice of a 1-D array and a row of a 2-D array as kernel arguments
    base = wp.array(np.array([0.5, 1.0, 1.5, 2.0, 2.5], dtype=np.float32), dtype=float, requires_grad=True)
    sq = wp.zeros(3, dtype=float, requires_grad=True)
    l3 = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, dim=3, inputs=[base[1:4]], outputs=[sq])
        wp.launch(reduce, dim=3, inputs=[sq, l3])
        wp.launch(reduce, dim=3, inputs=[m[1], l3])
    tape.backward(l3)
    out["views"] = grads(base, sq, m)
    return out
