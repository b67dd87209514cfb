# wp.atomic_add on an int16 array is rejected at launch, as Warp's atomics support only
# [u]int32/[u]int64 and float types (augmented a[i] += v stores stay allowed).
EXPECT_ERROR = RuntimeError


@wp.kernel
def add_int16(a: wp.array(dtype=wp.int16)):
    wp.atomic_add(a, 0, wp.int16(1))


def run():
    a = wp.zeros(1, dtype=wp.int16)
    wp.launch(add_int16, dim=1, inputs=[a])
    return {"a": a}
