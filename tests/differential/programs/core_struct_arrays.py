@wp.struct
class Model:
    x: wp.array(dtype=wp.vec3)
    v: wp.array(dtype=wp.vec3)
    k: float


@wp.struct
class Inner:
    a: float
    b: wp.vec2


@wp.struct
class Outer:
    inner: Inner
    c: int


@wp.kernel
def integrate(m: Model, dt: float):
    i = wp.tid()
    m.v[i] = m.v[i] - m.x[i] * (m.k * dt)
    m.x[i] = m.x[i] + m.v[i] * dt


@wp.kernel
def nested_struct(o: wp.array(dtype=Outer), out: wp.array(dtype=float)):
    i = wp.tid()
    s = o[i]
    s.inner.a = s.inner.a + 1.0
    s.inner.b[1] = float(s.c)
    o[i] = s
    o[i].inner.b[0] = 5.0
    out[i] = s.inner.a + s.inner.b[1]


@wp.kernel
def make_struct(out: wp.array(dtype=Inner)):
    i = wp.tid()
    s = Inner()
    s.a = float(i)
    s.b = wp.vec2(1.0, 2.0)
    out[i] = s


def run():
    rng = np.random.default_rng(4)
    m = Model()
    m.x = wp.array(rng.standard_normal((16, 3)).astype(np.float32), dtype=wp.vec3)
    m.v = wp.zeros(16, dtype=wp.vec3)
    m.k = 4.0
    for _ in range(5):
        wp.launch(integrate, dim=16, inputs=[m, 0.1])
    outers = []
    for i in range(4):
        o = Outer()
        o.inner.a = float(i)
        o.c = 10 + i
        outers.append(o)
    arr = wp.array(outers, dtype=Outer)
    out = wp.zeros(4, dtype=float)
    wp.launch(nested_struct, dim=4, inputs=[arr, out])
    made = wp.zeros(3, dtype=Inner)
    wp.launch(make_struct, dim=3, inputs=[made])
    n = arr.numpy()
    return {"x": m.x, "v": m.v, "out": out, "a": n["inner"]["a"], "b": n["inner"]["b"], "c": n["c"],
            "made_a": made.numpy()["a"], "made_b": made.numpy()["b"]}
