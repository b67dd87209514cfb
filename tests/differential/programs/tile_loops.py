"""Tiles created inside loop bodies (issue 13): wp.tile()/tile_load in a dynamic `for` and a
`while` loop, with and without cooperative CPU blocks, a tile variable that lives on after the
loop, and the block-cooperative BVH query iterated in a `while` loop (each result once: per-box
hit counts)."""


@wp.kernel
def loop_tiles(x: wp.array(dtype=float), n: int, out: wp.array(dtype=float), last: wp.array(dtype=float)):
    i, lane = wp.tid()
    acc = float(0.0)
    for j in range(n):
        t = wp.tile(x[lane] * float(j + 1))
        acc += wp.tile_sum(t)[0]
    j = int(0)
    while j < n:
        u = wp.tile_load(x, shape=8, offset=j)
        acc += wp.tile_max(u * 2.0)[0] + float(j)
        j += 1
    out[lane] = acc
    wp.tile_store(last, u)


@wp.kernel
def bvh_hits(bvh: wp.uint64, lo: wp.vec3, hi: wp.vec3, counts: wp.array(dtype=int), steps: wp.array(dtype=int)):
    i, lane = wp.tid()
    q = wp.tile_bvh_query_aabb(bvh, lo, hi)
    k = int(0)
    while wp.tile_query_valid(q):
        r = wp.tile_bvh_query_next(q)
        b = wp.untile(r)
        if b >= 0:
            wp.atomic_add(counts, b, 1)
        k += 1
    if lane == 0:
        steps[0] = wp.min(k, 1)


def run():
    results = {}
    x = wp.array(np.arange(16, dtype=np.float32) * 0.5)
    for enable in (False, True):
        wp.config.enable_cpu_blocks = enable
        try:
            out = wp.zeros(8)
            last = wp.zeros(8)
            wp.launch_tiled(loop_tiles, dim=1, inputs=[x, 3, out, last], block_dim=8)
            results[f"out_{enable}"] = out.numpy()
            results[f"last_{enable}"] = last.numpy()

            rng = np.random.default_rng(2)
            lo = (rng.random((40, 3)) * 4.0).astype(np.float32)
            bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 0.6, dtype=wp.vec3))
            counts = wp.zeros(40, dtype=int)
            steps = wp.zeros(1, dtype=int)
            wp.launch_tiled(bvh_hits, dim=1, inputs=[bvh.id, wp.vec3(1.0, 1.0, 1.0), wp.vec3(3.0, 3.0, 3.0),
                                                     counts, steps], block_dim=8)
            results[f"counts_{enable}"] = counts.numpy()
            results[f"steps_{enable}"] = steps.numpy()
        finally:
            wp.config.enable_cpu_blocks = False
    return results
