"""A struct constructed in a kernel without arguments holds Warp's null array in each array field
(nested structs too): shape 0 and false as a condition. Indexing an array view with more indices
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
    return {"defaults": out.numpy(), "message": np.array(message)}
