# Python-scope arithmetic and comparisons on boxed scalars: values, result kinds (a plain
# Python number for float32/int32, a boxed scalar otherwise), integer wrapping, C division.


def _kind(x):
    # 0: Python float, 1: Python int, 2: boxed scalar (compared via its value)
    if isinstance(x, float):
        return 0
    if isinstance(x, int):
        return 1
    return 2


def _num(x):
    return float(x)


def run():
    cases = [
        wp.float32(1.5) + wp.float32(2.25),
        wp.float32(1.0) / 3.0,
        0.5 - wp.float32(1.0),
        wp.float32(-7.5) % wp.float32(2.0),
        wp.float32(2.0) ** 3.0,
        wp.int32(-7) / wp.int32(2),
        wp.int32(-7) % 2,
        7 - wp.int32(2),
        wp.int32(2**31 - 1) + wp.int32(1),
        wp.int8(100) * wp.int8(2),
        wp.uint8(3) - wp.uint8(5),
        wp.uint8(250) + wp.uint8(10),
        wp.int64(2**40) * wp.int64(2**20),
        wp.uint64(2**64 - 1) + wp.uint64(1),
        wp.float16(1.0) / wp.float16(3.0),
        wp.float16(2.0) ** wp.float16(10.0),
        wp.float64(1.0) / wp.float64(3.0),
        wp.float64(7.0) + np.float64(2.0),
        wp.int16(7) + np.int16(2),
        -wp.uint32(1),
        -wp.int8(-128),
        -wp.float64(2.0),
        +wp.int32(2),
        abs(wp.int8(-3)),
        abs(wp.float16(-2.0)),
    ]
    values = [_num(x) for x in cases]
    kinds = [_kind(x) for x in cases]
    compares = [
        wp.int8(3) < 2.5,
        wp.int8(1) == 1.0,
        wp.int8(1) != 1.5,
        wp.int32(1) < np.float16(1.5),
        wp.float32(3.0) < wp.int8(4),
        wp.float32(3.0) == wp.float64(3.0),
        wp.float16(1.0) >= 1,
        wp.int32(3) == wp.int64(3),
        wp.float32(1.0) == None,  # noqa: E711
    ]
    conversions = [
        int(wp.float32(3.7)),
        float(wp.int16(-5)),
        int(wp.bool(2)),
        float(wp.bool(0)),
        bool(wp.float32(0.0)),
        bool(wp.int8(3)),
        wp.int8(300).__index__(),
        [10, 20, 30][wp.int32(1)],
        hash(wp.float32(3.0)) == hash(3),
        hash(wp.int16(5)) == hash(5.0),
        len({wp.int8(1), 1.0}),
    ]
    reprs = [repr(wp.int8(300)) == "int8(44)", repr(wp.uint8(-1)) == "uint8(255)", str(wp.bool(2)) == "True"]
    return {"values": values, "kinds": kinds, "compares": compares, "conversions": conversions, "reprs": reprs}
