@wp.struct
class Params:
    scale: float
    offset: wp.vec3
    count: int


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


@wp.func
def combine(a: float, b: float = 2.0):
    return a * b, a + b


@wp.func
def pick(x: int):
    return x * 2


@wp.func
def pick(x: float):
    return x * 3.0


@wp.kernel
def use_funcs(p: Params, x: wp.array(dtype=float), parts: wp.array(dtype=Particle), out: wp.array(dtype=wp.vec3), outi: wp.array(dtype=int)):
    i = wp.tid()
    prod, s = combine(x[i])
    q, r = combine(x[i], p.scale)
    part = parts[i]
    part.mass = part.mass + prod
    parts[i] = part
    out[i] = p.offset * (s + q + r) + part.pos
    outi[i] = pick(i) + int(pick(x[i])) + p.count


def run():
    n = 6
    p = Params()
    p.scale = 0.5
    p.offset = wp.vec3(1.0, -1.0, 2.0)
    p.count = 7
    x = wp.array(np.arange(n, dtype=np.float32))
    parts = []
    for i in range(n):
        q = Particle()
        q.pos = wp.vec3(float(i), 0.0, 1.0)
        q.mass = 1.0 + i
        parts.append(q)
    parts = wp.array(parts, dtype=Particle)
    out = wp.zeros(n, dtype=wp.vec3)
    outi = wp.zeros(n, dtype=int)
    wp.launch(use_funcs, dim=n, inputs=[p, x, parts, out, outi])
    return {"out": out, "outi": outi, "mass": parts.numpy()["mass"], "pos": parts.numpy()["pos"]}
