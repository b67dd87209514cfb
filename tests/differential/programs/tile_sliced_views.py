"""Tile transfers on array views made in kernel code: tile_load / tile_store / tile_atomic_add on
a row with a strided slice, a 2-d slice with an offset (elements past the slice read as zero),
and a slice at the array's end."""


@wp.kernel
def sliced(a: wp.array2d(dtype=float), out: wp.array(dtype=float), out2: wp.array2d(dtype=float),
           out3: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a[1, 1:8:2], shape=4)
    wp.tile_store(out, t)
    u = wp.tile_load(a[1:3, 2:], shape=(2, 3), offset=(0, 4))  # the slice's last 2 columns, then zeros
    wp.tile_store(out2, u)
    wp.tile_atomic_add(a[0, 6:], t)  # two elements in the slice; the rest dropped
    wp.tile_store(a[2, ::-2], t * 2.0)
    wp.tile_store(out3, wp.tile_load(a[2], shape=4, offset=2))


def run():
    a = wp.array(np.arange(24, dtype=np.float32).reshape(3, 8))
    out = wp.zeros(4, dtype=float)
    out2 = wp.zeros((2, 3), dtype=float)
    out3 = wp.zeros(4, dtype=float)
    wp.launch_tiled(sliced, dim=1, inputs=[a, out, out2, out3], block_dim=4)
    return {"a": a.numpy(), "out": out.numpy(), "out2": out2.numpy(), "out3": out3.numpy()}
