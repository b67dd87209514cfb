"""Generic composite annotations: vector(Any, ...), matrix((Any, Any), ...), composites over
wp.Float / wp.Int / wp.Scalar, in kernels and functions, specialised at launch/call."""

from typing import Any


@wp.func
def vsum(v: wp.types.vector(length=Any, dtype=wp.Scalar)) -> wp.Scalar:
    s = v[0]
    for k in range(1, wp.static(len(v))):
        s += v[k]
    return s


@wp.func
def trace_any(m: wp.types.matrix(shape=(Any, Any), dtype=wp.Float)) -> wp.Float:
    return wp.trace(m)


@wp.func
def first_int(v: wp.types.vector(3, wp.Int)) -> wp.Int:
    return v[0] * v[2]


@wp.func
def quat_w(q: wp.types.quaternion(dtype=wp.Float)):
    return q[3]


@wp.kernel
def generic_vectors(
    v: wp.types.vector(length=Any, dtype=wp.Float),
    m: wp.types.matrix(shape=(Any, Any), dtype=float),
    xs: wp.array(dtype=wp.types.vector(length=Any, dtype=wp.Float)),
    out: wp.array(dtype=float),
):
    i = wp.tid()
    out[i] = float(vsum(xs[i])) + float(vsum(v)) + float(trace_any(m)) + float(len(v)) * 100.0


@wp.kernel
def int_vectors(a: wp.array(dtype=wp.vec3i), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = first_int(a[i]) + vsum(a[i])


@wp.kernel
def fixed_length(xs: wp.array(dtype=wp.types.vector(length=5, dtype=float)), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = vsum(xs[i]) + float(quat_w(wp.quath(wp.float16(0.0), wp.float16(0.0), wp.float16(0.0), wp.float16(2.0))))


def run():
    out3 = wp.zeros(4, dtype=float)
    xs3 = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    wp.launch(generic_vectors, dim=4, inputs=[wp.vec3(1.0, 2.0, 3.0), wp.mat22(1.0, 2.0, 3.0, 4.0), xs3, out3])
    out4 = wp.zeros(2, dtype=float)
    xs4 = wp.array(np.arange(8, dtype=np.float64).reshape(2, 4), dtype=wp.vec4d)
    wp.launch(generic_vectors, dim=2, inputs=[wp.vec4d(1.0, 1.0, 1.0, 1.0), wp.mat33(1.0), xs4, out4])
    ints = wp.zeros(3, dtype=int)
    a = wp.array(np.arange(9, dtype=np.int32).reshape(3, 3), dtype=wp.vec3i)
    wp.launch(int_vectors, dim=3, inputs=[a, ints])
    v5 = wp.types.vector(length=5, dtype=float)
    xs5 = wp.array(np.arange(10, dtype=np.float32).reshape(2, 5), dtype=v5)
    out5 = wp.zeros(2, dtype=float)
    wp.launch(fixed_length, dim=2, inputs=[xs5, out5])
    return {"vec3": out3, "vec4d": out4, "ints": ints, "vec5": out5}
