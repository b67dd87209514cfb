"""Random tiles (tile_randi, tile_randf, with and without [min, max)): Warp's element-to-thread
streams, bit for bit, with one-thread CPU blocks and with cooperative blocks of 4 threads."""


@wp.kernel
def rand_tiles(seed: int, x: wp.array2d(dtype=int), y: wp.array2d(dtype=float), z: wp.array2d(dtype=int),
               w: wp.array2d(dtype=float)):
    i, j = wp.tid()
    rng = wp.rand_init(seed, i * 2 + j)
    wp.tile_store(x, wp.tile_randi(shape=(2, 3), rng=rng), offset=(i * 2, j * 3))
    wp.tile_store(y, wp.tile_randf(shape=(2, 3), rng=rng, min=-5.0, max=5.0), offset=(i * 2, j * 3))
    wp.tile_store(z, wp.tile_randi(shape=(2, 3), rng=rng, min=-5, max=5), offset=(i * 2, j * 3))
    wp.tile_store(w, wp.tile_randf(shape=(2, 3), rng=rng), offset=(i * 2, j * 3))


def run():
    out = {}
    for blocks in (False, True):
        wp.config.enable_cpu_blocks = blocks
        try:
            x, z = wp.zeros((4, 6), dtype=int), wp.zeros((4, 6), dtype=int)
            y, w = wp.zeros((4, 6), dtype=float), wp.zeros((4, 6), dtype=float)
            wp.launch_tiled(rand_tiles, dim=[2, 2], inputs=[42, x, y, z, w], block_dim=4)
            out.update({f"{k}{int(blocks)}": v.numpy() for k, v in (("x", x), ("y", y), ("z", z), ("w", w))})
        finally:
            wp.config.enable_cpu_blocks = False
    return out
