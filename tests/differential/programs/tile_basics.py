"""Tiles: creation (zeros/ones/full/arange), tile_load/tile_store with offsets and out-of-range
padding (1-D, 2-D, vec3 dtype), tile arithmetic with tiles and scalars, unary minus, tile_map
with builtins and a user function, tile indexing, tile()/untile(), wp.tid()/wp.block_dim() in
tiled launches, and gradients of a load-map-store kernel through wp.Tape."""

TILE = 4


@wp.func
def shifted_square(x: float, y: float):
    return x * x + 0.5 * y


@wp.kernel
def creation(out_i: wp.array2d(dtype=int), out_f: wp.array2d(dtype=float), out_v: wp.array2d(dtype=wp.vec3)):
    i = wp.tid()
    z = wp.tile_zeros(shape=TILE, dtype=int)
    r = wp.tile_arange(TILE, dtype=int)
    wp.tile_store(out_i[i], z + r * 2, offset=0)
    o = wp.tile_ones(shape=(TILE,), dtype=float, storage="shared")
    f = wp.tile_full(shape=TILE, value=float(i) + 0.25, dtype=float)
    wp.tile_store(out_f[i], o + f, offset=0)
    v = wp.tile_full(shape=TILE, value=wp.vec3(1.0, float(i), 3.0), dtype=wp.vec3)
    wp.tile_store(out_v[i], v, offset=0)


@wp.kernel
def load_store_2d(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(TILE, TILE), offset=(i * TILE + 1, j * TILE + 1))
    wp.tile_store(b, t * 2.0 - t / 4.0 + (-t), offset=(i * TILE, j * TILE))


@wp.kernel
def map_and_index(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float),
                  picked: wp.array(dtype=float), lanes: wp.array2d(dtype=int)):
    i, lane = wp.tid()
    x = wp.tile_load(a, shape=TILE, offset=i * TILE)
    y = wp.tile_load(b, shape=TILE, offset=i * TILE)
    s = wp.tile_map(wp.sin, x)
    u = wp.tile_map(shifted_square, x, y)
    m = wp.tile_map(wp.mul, s, u)
    wp.tile_store(out, m, offset=i * TILE)
    picked[i] = m[i % TILE] + x[1]
    t = wp.tile(lane * 10 + i)
    lanes[i, lane] = wp.untile(t) + wp.block_dim()


@wp.kernel
def vec_tiles(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    t = wp.tile_load(a, shape=TILE, offset=i * TILE)
    wp.tile_store(b, t * 3.0 + t, offset=i * TILE + 2)


@wp.kernel
def smooth(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=TILE, offset=i * TILE)
    wp.tile_store(y, wp.tile_map(wp.sin, t) * t, offset=i * TILE)


def run():
    rng = np.random.default_rng(7)
    out = {}
    oi = wp.zeros((3, TILE), dtype=int)
    of = wp.zeros((3, TILE), dtype=float)
    ov = wp.zeros((3, TILE), dtype=wp.vec3)
    wp.launch_tiled(creation, dim=3, inputs=[oi, of, ov], block_dim=8)
    out.update(creation_i=oi.numpy(), creation_f=of.numpy(), creation_v=ov.numpy())

    a = wp.array(rng.standard_normal((8, 10)).astype(np.float32))
    b = wp.full((8, 12), -7.0, dtype=float)
    wp.launch_tiled(load_store_2d, dim=(2, 3), inputs=[a, b], block_dim=4)
    out["load_store_2d"] = b.numpy()

    x = wp.array(rng.standard_normal(12).astype(np.float32))
    y = wp.array(rng.standard_normal(12).astype(np.float32))
    m = wp.zeros(12, dtype=float)
    picked = wp.zeros(3, dtype=float)
    lanes = wp.zeros((3, 1), dtype=int)
    wp.launch_tiled(map_and_index, dim=3, inputs=[x, y, m, picked, lanes], block_dim=1)
    out.update(mapped=m.numpy(), picked=picked.numpy(), lanes=lanes.numpy())

    va = wp.array(rng.standard_normal((8, 3)).astype(np.float32), dtype=wp.vec3)
    vb = wp.zeros(10, dtype=wp.vec3)
    wp.launch_tiled(vec_tiles, dim=2, inputs=[va, vb], block_dim=2)
    out["vec_tiles"] = vb.numpy()

    xs = wp.array(rng.standard_normal(8).astype(np.float32), requires_grad=True)
    ys = wp.zeros(8, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(smooth, dim=2, inputs=[xs, ys], block_dim=4)
    tape.backward(grads={ys: wp.ones(8, dtype=float)})
    out.update(smooth=ys.numpy(), smooth_grad=xs.grad.numpy())
    return out
