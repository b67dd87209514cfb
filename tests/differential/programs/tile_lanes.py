"""Per-thread writes into block tiles with cooperative CPU blocks (wp.config.enable_cpu_blocks):
t[lane] = x (each thread its own element), a component write v[lane][1] = x inside a branch
taken by some lanes only, tile_scatter_add (threads meeting at one index all add) and
tile_scatter_masked, tile_from_thread picking one lane's value, compound element updates
t[i] op= x from every thread (atomic add/sub/and/or/xor) and whole-tile bitwise operators."""

BD = 8


@wp.kernel
def lanes(x: wp.array(dtype=float), out: wp.array2d(dtype=float), out2: wp.array2d(dtype=float),
          out3: wp.array2d(dtype=wp.vec3)):
    b, lane = wp.tid()
    t = wp.tile_zeros(shape=BD, dtype=float)
    t[lane] = x[lane] * float(b + 1)
    wp.tile_store(out[b], t)
    u = wp.tile_zeros(shape=4, dtype=float)
    wp.tile_scatter_add(u, lane % 4, x[lane], lane != 3)
    wp.tile_scatter_masked(u, lane % 4, 100.0 + float(lane), lane == 5)
    wp.tile_store(out2[b], u)
    v = wp.tile_zeros(shape=BD, dtype=wp.vec3)
    if lane > 2:
        v[lane][1] = x[lane]
    wp.tile_store(out3[b], v)


@wp.kernel
def element_atomics(bits: wp.array(dtype=wp.uint32), x: wp.array(dtype=float), out: wp.array2d(dtype=wp.uint32),
                    sums: wp.array2d(dtype=float), tw: wp.array2d(dtype=wp.uint32)):
    b, lane = wp.tid()
    s = wp.tile_full(shape=3, value=wp.uint32(0xF0F0), dtype=wp.uint32)
    m = wp.uint32(1) << wp.uint32(lane)
    s[0] |= bits[lane] & m
    s[1] &= ~m
    s[2] ^= m
    wp.tile_store(out[b], s)
    f = wp.tile_zeros(shape=2, dtype=float)
    f[lane % 2] += x[lane]
    f[1] -= 1.0
    wp.tile_store(sums[b], f)
    t1 = wp.tile_load(bits, shape=BD)
    t2 = wp.tile_full(shape=BD, value=wp.uint32(0x0FF0), dtype=wp.uint32)
    t1 &= t2
    wp.tile_store(tw[b], t1 | t2)


@wp.kernel
def from_thread(x: wp.array(dtype=float), out4: wp.array2d(dtype=float)):
    b, lane = wp.tid()
    f = wp.tile_from_thread(shape=(2,), value=x[lane] + float(b), thread_idx=3)
    wp.tile_store(out4[b], f)


def run():
    wp.config.enable_cpu_blocks = True
    try:
        x = wp.array(np.arange(1, BD + 1, dtype=np.float32))
        out = wp.zeros((2, BD), dtype=float)
        out2 = wp.zeros((2, 4), dtype=float)
        out3 = wp.zeros((2, BD), dtype=wp.vec3)
        out4 = wp.zeros((2, 2), dtype=float)
        wp.launch_tiled(lanes, dim=2, inputs=[x, out, out2, out3], block_dim=BD)
        wp.launch_tiled(from_thread, dim=2, inputs=[x, out4], block_dim=BD)
        bits = wp.array(np.array([0x1234, 0xFFFF, 0x0F0F, 0x8001, 0x7777, 0x00FF, 0xAAAA, 0x5555], dtype=np.uint32))
        out5 = wp.zeros((2, 3), dtype=wp.uint32)
        sums = wp.zeros((2, 2), dtype=float)
        tw = wp.zeros((2, BD), dtype=wp.uint32)
        wp.launch_tiled(element_atomics, dim=2, inputs=[bits, x, out5, sums, tw], block_dim=BD)
        return {"out": out.numpy(), "out2": out2.numpy(), "out3": out3.numpy(), "out4": out4.numpy(),
                "out5": out5.numpy(), "sums": sums.numpy(), "tw": tw.numpy()}
    finally:
        wp.config.enable_cpu_blocks = False
