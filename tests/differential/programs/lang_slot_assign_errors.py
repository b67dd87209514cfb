"""Assigning a value of the wrong type to a vector or matrix slice raises Warp's ValueError with its
message (wrong dtype, wrong length or shape, a scalar or another kind of composite). Each kernel
lives in its own module: Warp builds a module's kernels together."""


@wp.kernel(module="unique")
def vec_dtype():
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    v[1:] = wp.vec3d(5.0, 6.0, 7.0)


@wp.kernel(module="unique")
def vec_scalar():
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    v[1:] = wp.float64(5.0)


@wp.kernel(module="unique")
def vec_length():
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    v[1:] = wp.vec2(5.0, 6.0)


@wp.kernel(module="unique")
def mat_shape():
    m = wp.mat33()
    m[1:, 1:] = wp.mat33()


@wp.kernel(module="unique")
def mat_vector():
    m = wp.mat33()
    m[1:, 1:] = wp.vec2()


@wp.kernel(module="unique")
def mat_row_length():
    m = wp.mat33()
    m[1, :2] = wp.vec3()


def run():
    out = {}
    for kernel in (vec_dtype, vec_scalar, vec_length, mat_shape, mat_vector, mat_row_length):
        try:
            wp.launch(kernel, dim=1)
            out[kernel.key] = np.array("no error")
        except ValueError as exc:
            out[kernel.key] = np.array(str(exc).splitlines()[-1].lstrip(";"))
    return out
