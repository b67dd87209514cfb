"""Struct arguments on a Tape: ``tape.gradients[instance]`` is a struct of the fields' gradients
(instances are keys by identity, as in Warp), gradients accumulate over two backward passes and
``tape.zero()`` clears the fields' gradients; two equal-valued instances are different keys."""


@wp.struct
class Pair:
    x: wp.array(dtype=float)
    y: wp.array(dtype=float)


@wp.kernel
def mul(p: Pair, z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = p.x[i] * p.y[i]


def run():
    p = Pair()
    p.x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    p.y = wp.array(np.array([4.0, 5.0, 6.0], dtype=np.float32), requires_grad=True)
    z = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(mul, 3, inputs=[p], outputs=[z])
    tape.backward(grads={z: wp.ones_like(z)})
    first = [tape.gradients[p].x.numpy().copy(), tape.gradients[p].y.numpy().copy()]
    tape.backward(grads={z: wp.ones_like(z)})
    second = [p.x.grad.numpy().copy(), p.y.grad.numpy().copy()]
    tape.zero()
    q = Pair()
    q.x, q.y = p.x, p.y
    return {"first": first, "second": second, "zeroed": [p.x.grad.numpy(), p.y.grad.numpy()],
            "identity": [p == q, q in tape.gradients, p in tape.gradients]}
