# tuple[...] annotations of @wp.func arguments and return values.


@wp.func
def split(v: wp.vec2) -> tuple[float, float]:
    return v[0], v[1]


@wp.func
def total(t: tuple[float, int]) -> float:
    return t[0] + float(t[1])


@wp.func
def minmax(a: float, b: float) -> tuple[float, float, wp.vec2]:
    return wp.min(a, b), wp.max(a, b), wp.vec2(a, b)


@wp.kernel
def tuples(xs: wp.array(dtype=wp.vec2), out: wp.array2d(dtype=float)):
    i = wp.tid()
    a, b = split(xs[i])
    out[i, 0] = a
    out[i, 1] = b
    t = (a * 2.0, i)
    out[i, 2] = total(t)
    out[i, 3] = total((b, 4))
    r = split(xs[i] * 3.0)
    out[i, 4] = r[1]
    lo, hi, v = minmax(a, b)
    out[i, 5] = lo + hi * 10.0 + v[1] * 100.0


def run():
    xs = wp.array(np.array([[1.5, 2.5], [-1.0, 0.25], [3.0, -4.0]], np.float32), dtype=wp.vec2)
    out = wp.zeros((3, 6), dtype=float)
    wp.launch(tuples, dim=3, inputs=[xs, out])
    return {"out": out}
