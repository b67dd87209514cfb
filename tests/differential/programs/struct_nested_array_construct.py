# Kernel-side construction of nested structs whose inner struct holds an array field
# (each constructor gets every field; the outer ones get the inner struct as an argument).


@wp.struct
class Inner:
    data: wp.array(dtype=int)
    z: wp.vec3


@wp.struct
class Middle:
    inner: Inner
    y: float


@wp.struct
class Outer:
    middle: Middle
    x: int


@wp.kernel
def build_nested(data: wp.array(dtype=int), out_f: wp.array(dtype=float), out_i: wp.array(dtype=int)):
    i = wp.tid()
    inner = Inner(data, wp.vec3(0.0, 0.0, float(i) + 26.0))
    middle = Middle(inner, 25.0)
    outer = Outer(middle, 24)
    out_f[i] = outer.middle.y + outer.middle.inner.z[2]
    out_i[i] = outer.x + outer.middle.inner.data[i]


def run():
    n = 4
    data = wp.array(np.arange(n, dtype=np.int32) * 3, dtype=int)
    out_f = wp.zeros(n, dtype=float)
    out_i = wp.zeros(n, dtype=int)
    wp.launch(build_nested, dim=n, inputs=[data, out_f, out_i])
    return {"out_f": out_f.numpy(), "out_i": out_i.numpy()}
