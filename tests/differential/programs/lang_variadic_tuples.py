# `tuple[T, ...]` parameters of @wp.func: one function accepts tuples of any length whose items
# all have type T (the length is known at compile time: wp.static(len(values))).


@wp.func
def weighted_sum(values: tuple[float, ...]):
    out = float(0.0)
    for i in range(wp.static(len(values))):
        out += float(i + 1) * values[i]
    return out


@wp.func
def count_items(values: tuple[wp.vec2, ...]) -> int:
    return wp.static(len(values))


@wp.kernel
def variadic(xs: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    x = xs[i]
    out[i, 0] = weighted_sum((x,))
    out[i, 1] = weighted_sum((x, 2.0 * x))
    out[i, 2] = weighted_sum((x, 1.0, x * x, -x))
    v = wp.vec2(x, 1.0)
    out[i, 3] = float(count_items((v, v, v)))


def run():
    xs = wp.array(np.array([1.5, -2.0, 0.25], np.float32), dtype=float)
    out = wp.zeros((3, 4), dtype=float)
    wp.launch(variadic, dim=3, inputs=[xs, out])
    return {"out": out.numpy()}
