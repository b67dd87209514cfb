"""``array.view(dtype)``: same-size reinterpretation (int bits of floats, ``vec4ub`` as ``uint32``,
``float32`` pairs as ``vec2h``), vector → scalar (components become trailing dimensions) and
scalar → vector views of strided arrays (shape, strides, contents), writes through a view landing
in its base, a kernel reading a view, and the errors for incompatible sizes and shapes."""


@wp.kernel
def sum_rows(v: wp.array(dtype=wp.vec2), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = v[i][0] + v[i][1]


def _describe(v):
    return [list(v.shape), list(v.strides), v.numpy()]


def run():
    out = {}
    a = wp.array(np.arange(8, dtype=np.float32).reshape(2, 4))
    out["as_int"] = _describe(a.view(wp.int32))
    out["as_vec4"] = _describe(a.view(wp.vec4))
    out["as_mat22"] = _describe(a.reshape((2, 2, 2)).view(wp.mat22))
    out["strided_as_vec2"] = _describe(a[:, :2].view(wp.vec2))
    out["vec_as_scalar"] = _describe(wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)[::2].view(float))
    out["bytes_as_word"] = _describe(wp.ones(3, dtype=wp.vec4ub).view(wp.uint32))
    out["word_as_halves"] = _describe(wp.array(np.array([1.5, -2.0], dtype=np.float32)).view(wp.vec2h))

    b = wp.zeros(4, dtype=wp.vec4ub)
    b.view(wp.uint32).fill_(0x01020304)
    out["write_through"] = b.numpy()
    c = wp.zeros((3, 2), dtype=float)
    c.view(wp.vec2).assign(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32))
    s = wp.zeros(3, dtype=float)
    wp.launch(sum_rows, 3, inputs=[c.view(wp.vec2), s])
    out["kernel_view"] = [c.numpy(), s.numpy()]

    errors = []
    for make in (lambda: a.view(wp.float64), lambda: a.view(wp.vec3), lambda: a.view(wp.vec2h),
                 lambda: wp.zeros(3, dtype=wp.vec3).view(wp.float16)):
        try:
            make()
            errors.append("none")
        except (TypeError, RuntimeError) as e:
            errors.append(type(e).__name__)
    out["errors"] = errors
    return out
