"""tile_arange with float32 bounds past the integer types (2**70 in steps of 2**64, written as
wp.constant floats) and integer literals between 2**63 and 2**64 (uint64)."""

WIDE_STOP = wp.constant(wp.float32(2.0**70))
WIDE_STEP = wp.constant(wp.float32(2.0**64))


@wp.kernel(enable_backward=False)
def wide_range(out: wp.array(dtype=wp.float32), big: wp.array(dtype=wp.uint64)):
    values = wp.tile_arange(0.0, WIDE_STOP, WIDE_STEP, dtype=wp.float32)
    wp.tile_store(out, values)
    big[0] = wp.uint64(18446744073709551615)
    big[1] = wp.uint64(9223372036854775808)


def run():
    out = wp.full(64, -1.0, dtype=wp.float32)
    big = wp.zeros(2, dtype=wp.uint64)
    wp.launch_tiled(wide_range, dim=[1], inputs=[out, big], block_dim=64)
    return {"out": out.numpy(), "big": big.numpy()}
