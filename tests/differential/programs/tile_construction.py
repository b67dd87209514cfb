"""Tile construction and conversion: tile_arange's counting rules (partial last step, negative
steps, float32 bounds that round onto the step, int64 values past 2**53, integral float bounds
with an integer dtype, a float32 span across the whole range), wp.tile / wp.untile of vectors and
matrices, tile_map with non-tile arguments, and tile<float> * tile<vec3>."""

I64_STOP = wp.constant(wp.int64(9007199254740993))
I64_STEP = wp.constant(wp.int64(9007199254740992))
F32_STOP = wp.constant(wp.float32(3.0000001))
F32_STEP = wp.constant(wp.float32(0.99999999))


@wp.kernel
def aranges(ints: wp.array2d(dtype=int), floats: wp.array2d(dtype=float), f3: wp.array(dtype=float), wide: wp.array(dtype=wp.int64)):
    wp.tile_store(ints[0], wp.tile_arange(0, 10, 3, dtype=int))
    wp.tile_store(ints[1], wp.tile_arange(10, 0, -3, dtype=int))
    wp.tile_store(ints[2], wp.tile_arange(0.0, 5.0, dtype=int))
    wp.tile_store(f3, wp.tile_arange(-1, 3))
    wp.tile_store(ints[3], wp.tile_arange(-1, 3, dtype=int))
    wp.tile_store(floats[0], wp.tile_arange(0.0, 0.3, 0.1, dtype=float))
    wp.tile_store(floats[1], wp.tile_arange(0.0, 2.0, 0.3))
    wp.tile_store(floats[2], wp.tile_arange(0.0, F32_STOP, F32_STEP, dtype=wp.float32))
    wp.tile_store(floats[3], wp.tile_arange(-3.0e38, 3.0e38, 3.0e38, dtype=wp.float32))
    wp.tile_store(wide, wp.tile_arange(0, I64_STOP, I64_STEP, dtype=wp.int64))


@wp.kernel
def untiles(m: wp.array(dtype=wp.mat22), v: wp.array(dtype=wp.vec3), mo: wp.array(dtype=wp.mat22),
            vo: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    x = m[i]
    y = v[i]
    mo[i] = wp.untile(wp.tile(x) * 2.0)
    vo[i] = wp.untile(wp.tile(y))


@wp.kernel
def maps(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
         out2: wp.array(dtype=wp.vec3), out3: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=4)
    wp.tile_store(out, wp.tile_map(wp.mul, t, wp.vec3(1.0, 2.0, 3.0)))
    wp.tile_store(out2, t * wp.tile_load(v, shape=4))
    wp.tile_store(out3, wp.tile_map(wp.add, t, 0.5))


def run():
    ints = wp.full((4, 6), -1, dtype=int)
    floats = wp.full((4, 9), -1.0, dtype=float)
    wide = wp.full(3, -1, dtype=wp.int64)
    f3 = wp.full(6, -1.0, dtype=float)
    wp.launch_tiled(aranges, dim=1, inputs=[ints, floats, f3, wide], block_dim=32)
    rng = np.random.default_rng(9)
    m = wp.array(rng.random((3, 2, 2), dtype=np.float32), dtype=wp.mat22)
    v = wp.array(rng.random((4, 3), dtype=np.float32), dtype=wp.vec3)
    mo = wp.zeros(3, dtype=wp.mat22)
    vo = wp.zeros(3, dtype=wp.vec3)
    wp.launch(untiles, dim=3, inputs=[m, v, mo, vo], block_dim=1)
    a = wp.array(np.arange(1, 5, dtype=np.float32))
    out, out2, out3 = wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=float)
    wp.launch_tiled(maps, dim=1, inputs=[a, v, out, out2, out3], block_dim=32)
    return {"ints": ints.numpy(), "floats": floats.numpy(), "wide": wide.numpy(), "f3": f3.numpy(), "mo": mo.numpy(),
            "vo": vo.numpy(), "out": out.numpy(), "out2": out2.numpy(), "out3": out3.numpy()}
