# wp.bit_count: the number of set bits of any integer type, always returned as an int32
# (negative values count their two's-complement bits).


@wp.kernel
def counts(i8: wp.array(dtype=wp.int8), u16: wp.array(dtype=wp.uint16), i32: wp.array(dtype=wp.int32),
           u64: wp.array(dtype=wp.uint64), i64: wp.array(dtype=wp.int64), out: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    out[i, 0] = wp.bit_count(i8[i])
    out[i, 1] = wp.bit_count(u16[i])
    out[i, 2] = wp.bit_count(i32[i])
    out[i, 3] = wp.bit_count(u64[i])
    out[i, 4] = wp.bit_count(i64[i])
    out[i, 5] = wp.bit_count(45) + wp.bit_count(wp.uint8(255))


def run():
    n = 4
    i8 = wp.array(np.array([0, -1, 45, -128], np.int8), dtype=wp.int8)
    u16 = wp.array(np.array([0, 65535, 4660, 1], np.uint16), dtype=wp.uint16)
    i32 = wp.array(np.array([0, -1, 123456, -2], np.int32), dtype=wp.int32)
    u64 = wp.array(np.array([0, 2**64 - 1, 2**63, 12345678901234], np.uint64), dtype=wp.uint64)
    i64 = wp.array(np.array([0, -1, -(2**63), 98765432109], np.int64), dtype=wp.int64)
    out = wp.zeros((n, 6), dtype=wp.int32)
    wp.launch(counts, dim=n, inputs=[i8, u16, i32, u64, i64, out])
    python_scope = np.array([wp.bit_count(wp.int16(-1)), wp.bit_count(wp.uint32(7)), wp.bit_count(-1)], np.int32)
    return {"out": out.numpy(), "python_scope": python_scope}
