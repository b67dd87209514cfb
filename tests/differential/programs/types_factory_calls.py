# In kernels, wp.types.vector / wp.types.matrix called with components are the vector/matrix
# builtins (as in Warp), as wp.vector / wp.matrix are.


@wp.kernel
def anonymous(out: wp.array(dtype=wp.vec3), flags: wp.array(dtype=wp.int32)):
    v = wp.types.vector(1.5, 2.0, 3.25, dtype=float)
    out[0] = v
    b = wp.types.vector(True, False, True)
    m = wp.types.matrix(False, True, True, False, shape=(2, 2))
    flags[0] = wp.where(b[0], 1, 0) + wp.where(b[1], 2, 0) + wp.where(m[0, 1], 4, 0) + wp.where(m[1, 1], 8, 0)
    w = wp.types.vector(1, 2, 3)  # integer components: a vec3i
    out[1] = wp.vec3(float(w[0]), float(w[1]), float(w[2]))


def run():
    out = wp.zeros(2, dtype=wp.vec3)
    flags = wp.zeros(1, dtype=wp.int32)
    wp.launch(anonymous, dim=1, inputs=[out, flags])
    return {"out": out, "flags": flags}
