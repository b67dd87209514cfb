"""A struct constructed in a kernel without arguments holds Warp's null array in each array field
(nested structs too): shape 0 and false as a condition; a @wp.func may set its fields, arrays
included, and return it (gradients flow through its value fields). Indexing an array view with more indices
than it has dimensions raises Warp's codegen error."""


@wp.struct
class Inner:
    f: float
    b: wp.array(dtype=int)


@wp.struct
class WithArrays:
    i: int
    v: wp.vec3
    a: wp.array(dtype=float)
    m: wp.array2d(dtype=wp.vec2)
    s: Inner


@wp.func
def describe(data: WithArrays, out: wp.array(dtype=int)):
    out[0] = data.a.shape[0]
    out[1] = data.m.shape[1]
    out[2] = data.s.b.shape[0]
    out[3] = data.i + int(data.v[2])
    if data.a:
        out[4] = 1
    else:
        out[4] = 2


@wp.kernel
def defaults(out: wp.array(dtype=int)):
    s = WithArrays()
    describe(s, out)


@wp.struct
class VecAndArray:
    v: wp.vec3
    arr: wp.array(dtype=float)


@wp.func
def make(x: wp.vec3, arr: wp.array(dtype=float)) -> VecAndArray:
    s = VecAndArray()
    s.v = 2.0 * x
    s.arr = arr
    return s


@wp.kernel
def use_made(x: wp.array(dtype=wp.vec3), a: wp.array(dtype=float), loss: wp.array(dtype=float)):
    s = make(x[0], a)
    s.arr[0] = s.v[0]
    loss[0] = wp.dot(s.v, s.v) + s.arr[1] * 3.0


@wp.kernel(module="unique")
def too_many_indices(out: wp.array2d(dtype=wp.mat44)):
    out[0][2, 2] = 6.0


def run():
    out = wp.full(5, -1, dtype=int)
    wp.launch(defaults, 1, inputs=[out])
    try:
        wp.launch(too_many_indices, dim=1, inputs=[wp.zeros((1, 1), dtype=wp.mat44)])
        message = "no error"
    except RuntimeError as exc:
        message = str(exc).splitlines()[-1].lstrip(";").split(",")[0]
    x = wp.array([wp.vec3(1.0, 2.0, 3.0)], dtype=wp.vec3, requires_grad=True)
    a = wp.array([1.0, 5.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(use_made, 1, inputs=[x, a, loss])
    tape.backward(loss)
    return {"defaults": out.numpy(), "message": np.array(message), "loss": loss.numpy(), "a": a.numpy(),
            "x_grad": x.grad.numpy(), "a_grad": a.grad.numpy()}
