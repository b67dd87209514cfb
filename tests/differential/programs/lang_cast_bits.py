"""wp.cast reinterprets bits: scalars of one size, composites into composites of another scalar
size, and structs in C layout (with padding) into scalars or vectors of the same size."""


@wp.struct
class Pun:
    f: wp.float16
    i: wp.int16


@wp.struct
class Padded:
    a: wp.uint8
    b: wp.float32


@wp.kernel
def casts(x: wp.array(dtype=wp.int32), out_f: wp.array(dtype=float), out_i: wp.array(dtype=wp.int32),
          out_v: wp.array(dtype=wp.vec2h), out_u: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    out_f[i] = wp.cast(x[i], wp.float32)
    p = Pun()
    p.f = wp.float16(2.0)
    p.i = wp.int16(123 + i)
    out_i[i] = wp.cast(p, wp.int32)
    out_v[i] = wp.cast(x[i], wp.vec2h)
    q = Padded()
    q.a = wp.uint8(7)
    q.b = float(i) + 0.5
    out_u[i] = wp.cast(q, wp.uint64) >> wp.uint64(32)
    out_i[i + 2] = wp.cast(wp.vec2h(wp.float16(1.0), wp.float16(-2.0)), wp.int32)


def run():
    x = wp.array([0x3FA00000, 0x40490FDB], dtype=wp.int32)
    out_f = wp.zeros(2, dtype=float)
    out_i = wp.zeros(4, dtype=wp.int32)
    out_v = wp.zeros(2, dtype=wp.vec2h)
    out_u = wp.zeros(2, dtype=wp.uint64)
    wp.launch(casts, 2, inputs=[x, out_f, out_i, out_v, out_u])
    return {"f": out_f.numpy(), "i": out_i.numpy(), "v": out_v.numpy(), "u": out_u.numpy()}
