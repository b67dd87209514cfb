"""Tile kernels launched with wp.launch(dim=..., block_dim=B) where the blocks do not follow the
last launch dimension (cooperative CPU blocks): threads are numbered row-major and grouped B at a
time, a partial last block's missing threads contribute zeros to wp.tile, and wp.tid() keeps its
launch coordinates (1-D and 2-D launches)."""


@wp.kernel
def rows1(x: wp.array(dtype=float), out: wp.array(dtype=float), sums: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    t = wp.tile(v)
    s = wp.tile_sum(t)
    out[i] = wp.untile(wp.tile_scan_inclusive(t)) + s[0] * 0.001
    if i % 8 == 0:
        sums[i // 8] = s[0]


@wp.kernel
def rows2(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    t = wp.tile(i * 10 + j)
    out[i, j] = wp.tile_max(t)[0] + wp.block_dim() * 1000


def run():
    wp.config.enable_cpu_blocks = True
    try:
        x = wp.array(np.arange(20, dtype=np.float32))
        out = wp.zeros(20, dtype=float)
        sums = wp.zeros(3, dtype=float)
        wp.launch(rows1, dim=20, inputs=[x, out, sums], block_dim=8)
        o2 = wp.zeros((3, 5), dtype=int)
        wp.launch(rows2, dim=(3, 5), inputs=[o2], block_dim=4)
        return {"out": out.numpy(), "sums": sums.numpy(), "o2": o2.numpy()}
    finally:
        wp.config.enable_cpu_blocks = False
