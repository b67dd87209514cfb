"""Classes made by Warp's type factories (``wp.types.vector(length=4, dtype=wp.float64)``, ``matrix``,
``quaternion``, ``transformation``) and user subclasses of them: distinct objects from the named aliases
(``wp.vec4d``) but equal to them (``types_equal``); arrays, kernel parameters, constructors, ``@wp.func``
parameters, struct fields and values of either kind mix freely; Python-scope arithmetic gives the named
type, and values print with the named type's name."""

import numpy as np

Vec4d = wp.types.vector(length=4, dtype=wp.float64)
Mat43d = wp.types.matrix(shape=(4, 3), dtype=wp.float64)
Quat = wp.types.quaternion(dtype=wp.float32)
Xform = wp.types.transformation(dtype=wp.float32)


class Vec5(wp.types.vector(length=5, dtype=float)):
    pass


class Vec3Sub(wp.vec3):
    pass


@wp.struct
class Holder:
    v: Vec4d
    m: Mat43d


@wp.func
def first_plus_last(v: Vec4d):
    return v[0] + v[3]


@wp.kernel
def mix(a: wp.array(dtype=wp.vec4d), b: wp.array(dtype=Vec4d), c: Vec4d, h: Holder, out: wp.array(dtype=Vec4d),
        s: wp.array(dtype=wp.float64), m: wp.array(dtype=Mat43d)):
    i = wp.tid()
    v = Vec4d(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0))
    w = a[i] + b[i] + v + c + h.v
    out[i] = w
    s[i] = first_plus_last(a[i]) + first_plus_last(w)
    m[i] = h.m * wp.float64(float(i + 1))


@wp.kernel
def five(x: wp.array(dtype=Vec5), y: wp.array(dtype=wp.types.vector(length=5, dtype=wp.float32)), k: float):
    i = wp.tid()
    y[i] = x[i] * k + Vec5(1.0, 2.0, 3.0, 4.0, 5.0)


@wp.kernel
def rigid(q: wp.array(dtype=Quat), t: wp.array(dtype=Xform), p: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p[i] = wp.transform_point(t[i], wp.quat_rotate(q[i], wp.vec3(1.0, 0.0, 0.0)))


@wp.kernel
def sub_kernel(x: wp.array(dtype=Vec3Sub), y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = wp.cross(x[i], wp.vec3(0.0, 0.0, 1.0))


V3 = wp.types.vector(length=3, dtype=wp.float32)
OFFSET = wp.constant(V3(1.0, 2.0, 3.0))
SHIFT = V3(0.5, 0.5, 0.5)


@wp.func
def splat(x: float) -> V3:
    return V3(x, x, x)


@wp.kernel
def locals_and_constants(out: wp.array(dtype=wp.vec3), vol: wp.uint64):
    i = wp.tid()
    x = V3(1.0, 1.0, 1.0)
    x = out[i]  # a vec3 value into a variable first assigned a V3
    x = x + splat(float(i)) + OFFSET + SHIFT
    a = wp.zeros(2, dtype=V3)
    a[0] = V3(1.0, 2.0, 3.0)
    sample = wp.volume_sample(vol, wp.vec3(float(i), 1.0, 1.0), wp.Volume.LINEAR, dtype=V3)
    out[i] = a[0] + a[1] + sample + wp.cross(x, V3(0.0, 0.0, 1.0))


def facts():
    a = Vec4d(1.0, 2.0, 3.0, 4.0)
    return np.array([
        Vec4d is wp.vec4d,
        wp.types.types_equal(Vec4d, wp.vec4d),
        wp.types.types_equal(Mat43d, wp.types.matrix(shape=(4, 3), dtype=wp.float64)),
        wp.types.vector(length=4, dtype=wp.float64) is Vec4d,
        wp.types.matrix(shape=(4, 3), dtype=wp.float64) is Mat43d,
        Quat is wp.quatf,
        Xform is wp.transformf,
        wp.types.types_equal(Quat, wp.quatf),
        isinstance(wp.vec4d(1.0, 2.0, 3.0, 4.0), Vec4d),
        type(a + a) is wp.vec4d,
        type(a * wp.float64(2.0)) is wp.vec4d,
        type(-a) is wp.vec4d,
        a == wp.vec4d(1.0, 2.0, 3.0, 4.0),
    ])


def run():
    n = 3
    a = wp.array(np.arange(4 * n, dtype=np.float64).reshape(n, 4), dtype=wp.vec4d)
    b = wp.array(np.ones((n, 4)), dtype=Vec4d)
    h = Holder()
    h.v = wp.vec4d(0.5, 0.25, 0.125, 0.0625)
    h.m = Mat43d(*[float(k) for k in range(12)])
    out = wp.zeros(n, dtype=wp.vec4d)
    s = wp.zeros(n, dtype=wp.float64)
    m = wp.zeros(n, dtype=wp.types.matrix(shape=(4, 3), dtype=wp.float64))
    wp.launch(mix, dim=n, inputs=[a, b, Vec4d(10.0, 20.0, 30.0, 40.0), h], outputs=[out, s, m])
    out2 = wp.zeros(n, dtype=Vec4d)  # the same kernel with the named/factory roles swapped
    wp.launch(mix, dim=n, inputs=[wp.array(b.numpy(), dtype=Vec4d), wp.array(a.numpy(), dtype=wp.vec4d),
                                  wp.vec4d(1.0, 1.0, 1.0, 1.0), h], outputs=[out2, s, m])

    x = wp.array(np.arange(10, dtype=np.float32).reshape(2, 5), dtype=Vec5)
    y = wp.zeros(2, dtype=wp.types.vector(length=5, dtype=wp.float32))
    wp.launch(five, dim=2, inputs=[x, y, 0.5])

    q = wp.array([wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.5)], dtype=Quat)
    t = wp.array([Xform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())], dtype=wp.transform)
    p = wp.zeros(1, dtype=wp.vec3)
    wp.launch(rigid, dim=1, inputs=[q, t, p])

    xs = wp.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]], dtype=Vec3Sub)
    ys = wp.zeros(2, dtype=wp.vec3)
    wp.launch(sub_kernel, dim=2, inputs=[xs, ys])

    field = np.stack(np.meshgrid(*[np.arange(8, dtype=np.float32)] * 3, indexing="ij"), axis=-1)
    vol = wp.Volume.load_from_numpy(field, bg_value=(0.0, 0.0, 0.0))
    local = wp.ones(2, dtype=V3)
    wp.launch(locals_and_constants, dim=2, inputs=[local, vol.id])

    value = Vec4d(1.0, 2.0, 3.0, 4.0)
    return {
        "local": local,
        "facts": facts(),
        "names": np.array([Vec4d.__name__, Mat43d.__name__, Quat.__name__, Xform.__name__, repr(value),
                           repr(Vec5(1.0, 2.0, 3.0, 4.0, 5.0)), str(value), repr(wp.vec3(1.0, 2.0, 3.0))]),
        "sum": np.asarray(value + value),
        "out": out, "out2": out2, "s": s, "m": m, "y": y, "p": p, "ys": ys,
    }
