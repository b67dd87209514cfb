# Zero-length vectors: wp.types.vector(0, dtype) exists, and a component slice that selects
# nothing (v[2:1], t[123:], t[:-123]) is such an empty vector, equal to any other.

vec0 = wp.types.vector(0, float)
vec2 = wp.types.vector(2, float)


@wp.kernel
def empty_slices(xs: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    v = xs[i]
    t = wp.transform(v, wp.quat(4.0, 5.0, 6.0, 7.0))
    if v[2:1] == vec0():
        out[i, 0] = 1.0
    if t[123:] == vec0():
        out[i, 1] = 1.0
    if t[:-123] == vec0():
        out[i, 2] = 1.0
    if t[-2:] == vec2(6.0, 7.0):
        out[i, 3] = 1.0
    s = t[::123]
    out[i, 4] = s[0]


def run():
    xs = wp.array(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32), dtype=wp.vec3)
    out = wp.zeros((2, 5), dtype=float)
    wp.launch(empty_slices, dim=2, inputs=[xs, out])
    return {"out": out.numpy(), "python_scope_length": np.array(len(vec0()))}
