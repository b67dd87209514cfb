# Gradients through arrays of structs with float fields (the gradient is a struct array of the
# field gradients, seeded by a kernel), and module hashes that see structs by content: an
# identical redefinition keeps the hash, a changed field type changes it.


@wp.struct
class Pair:
    a: wp.float32
    b: wp.float32


@wp.struct
class State:
    position: wp.vec3
    velocity: wp.vec3


@wp.kernel
def seed_pair(g: wp.array(dtype=Pair), a: float, b: float):
    i = wp.tid()
    g[i] = Pair(a, b)


@wp.kernel
def write_field(y: wp.array(dtype=Pair), x: wp.array(dtype=float)):
    i = wp.tid()
    y[i].a = x[i] * 3.0


@wp.kernel
def seed_state(g: wp.array(dtype=State), p: wp.vec3):
    i = wp.tid()
    s = State()
    s.position = p
    g[i] = s


@wp.kernel
def write_position(y: wp.array(dtype=State), p: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i].position = p[i] * 2.0


def _hashes():
    @wp.struct
    class Content:
        i: int

    @wp.kernel
    def dummy(a: wp.array(dtype=Content)):
        i = wp.tid()

    h0 = wp.get_module(dummy.__module__).hash_module()

    @wp.struct
    class Content:
        i: int

    @wp.kernel
    def dummy(a: wp.array(dtype=Content)):
        i = wp.tid()

    h1 = wp.get_module(dummy.__module__).hash_module()

    @wp.struct
    class Content:
        i: float

    @wp.kernel
    def dummy(a: wp.array(dtype=Content)):
        i = wp.tid()

    h2 = wp.get_module(dummy.__module__).hash_module()
    return [h0 == h1, h1 != h2]


def run():
    n = 3
    x = wp.array(np.arange(1.0, 4.0, dtype=np.float32), requires_grad=True)
    y = wp.zeros(n, dtype=Pair, requires_grad=True)
    wp.launch(seed_pair, n, inputs=[y.grad, 1.0, 0.0])
    tape = wp.Tape()
    with tape:
        wp.launch(write_field, n, inputs=[y, x])
    tape.backward()

    p = wp.array(np.ones((2, 3), dtype=np.float32), dtype=wp.vec3, requires_grad=True)
    s = wp.zeros(2, dtype=State, requires_grad=True)
    wp.launch(seed_state, 2, inputs=[s.grad, wp.vec3(1.0, 2.0, 3.0)])
    tape2 = wp.Tape()
    with tape2:
        wp.launch(write_position, 2, inputs=[s, p])
    tape2.backward()
    return {
        "x_grad": x.grad.numpy(),
        "y_a": np.array([e[0] for e in y.numpy()]),
        "p_grad": p.grad.numpy(),
        "hashes": np.array(_hashes()),
    }
