# Python operators on arrays apply the kernel builtin element by element, as Warp's do:
# scalars of the element type, numpy broadcasting between arrays, vectors times scalars,
# integer wrapping and C division/modulo, in-place operators writing back.


def run():
    f = wp.array([1.0, 2.0, 3.0], dtype=wp.float32)
    i8 = wp.array([100, -7, 3], dtype=wp.int8)
    i32 = wp.array([7, -7, 9], dtype=wp.int32)
    v = wp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=wp.vec3)
    grid = wp.array([[1.0, 2.0], [3.0, 4.0]], dtype=wp.float64)
    row = wp.array([10.0, 20.0], dtype=wp.float64)
    acc = wp.array([1.0, 2.0, 3.0], dtype=wp.float32)
    acc += wp.float32(0.5)
    acc *= 2.0
    ints = wp.array([5, 6, 7], dtype=wp.int32)
    ints %= wp.int32(4)
    return {
        "f_plus": f + wp.float32(5.0),
        "f_rsub": 0.5 - f,
        "f_div": f / wp.float32(3.0),
        "f_rdiv": wp.float32(1.0) / f,
        "f_neg": -f,
        "f_pow": f ** wp.float32(2.0),
        "i8_mul": i8 * wp.int8(2),
        "i32_div": i32 / wp.int32(2),
        "i32_mod": i32 % wp.int32(4),
        "i32_rmod": wp.int32(20) % i32,
        "v_scale": v * 2.0,
        "v_sum": v + v,
        "broadcast": grid + row,
        "acc": acc,
        "ints": ints,
    }
