from typing import Any


@wp.func
def double(x: Any):
    return x + x


@wp.kernel
def gen(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    b[i] = double(a[i])


@wp.kernel
def gen_scalar(a: wp.array(dtype=float), s: Any, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * float(s)


def run():
    f = wp.array(np.arange(5, dtype=np.float32))
    fo = wp.zeros(5, dtype=float)
    wp.launch(gen, dim=5, inputs=[f, fo])
    v = wp.array(np.arange(15, dtype=np.float32).reshape(5, 3), dtype=wp.vec3)
    vo = wp.zeros(5, dtype=wp.vec3)
    wp.launch(gen, dim=5, inputs=[v, vo])
    i = wp.array(np.arange(5, dtype=np.int32))
    io = wp.zeros(5, dtype=int)
    wp.launch(gen, dim=5, inputs=[i, io])
    so = wp.zeros(5, dtype=float)
    wp.launch(gen_scalar, dim=5, inputs=[f, 3, so])
    so2 = wp.zeros(5, dtype=float)
    wp.launch(gen_scalar, dim=5, inputs=[f, 2.5, so2])
    return {"f": fo, "v": vo, "i": io, "s_int": so, "s_float": so2}
