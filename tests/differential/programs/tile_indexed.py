"""Indexed tile transfers: tile_load_indexed along either axis (negative and past-the-end indices
read zero), tile_store_indexed (out-of-range destinations skipped), tile_atomic_add_indexed with
repeated indices accumulating, per block offsets, and their gradients on the wp.Tape."""

M = 4
N = 3


@wp.kernel
def indexed(x: wp.array2d(dtype=float), rows: wp.array(dtype=int), cols: wp.array(dtype=int),
            y: wp.array2d(dtype=float), z: wp.array2d(dtype=float), s: wp.array2d(dtype=float),
            acc: wp.array2d(dtype=float)):
    i = wp.tid()
    r = wp.tile_load(rows, shape=M)
    c = wp.tile_load(cols, shape=N)
    t0 = wp.tile_load_indexed(x, indices=r, shape=(M, N), offset=(0, i * N), axis=0)
    wp.tile_store(y, t0, offset=(0, i * N))
    t1 = wp.tile_load_indexed(x, indices=c, shape=(M, N), offset=(i * M, 0), axis=1)
    wp.tile_store(z, t1, offset=(i * M, 0))
    wp.tile_store_indexed(s, indices=r, t=t1, offset=(0, i * N), axis=0)
    wp.tile_atomic_add_indexed(acc, indices=wp.tile_ones(M, dtype=int), t=t0, offset=(i, 0), axis=0)


def run():
    rng = np.random.default_rng(5)
    x_np = rng.random((2 * M, 2 * N), dtype=np.float32)
    x = wp.array(x_np, requires_grad=True)
    rows = wp.array(np.array([3, -1, 0, 9], dtype=np.int32))
    cols = wp.array(np.array([2, 0, 2], dtype=np.int32))
    y = wp.zeros((M, 2 * N), dtype=float, requires_grad=True)
    z = wp.zeros((2 * M, N), dtype=float, requires_grad=True)
    s = wp.zeros((M, 2 * N), dtype=float, requires_grad=True)
    acc = wp.zeros((4, N), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(indexed, dim=2, inputs=[x, rows, cols, y, z, s, acc], block_dim=32)
    out = {"y": y.numpy(), "z": z.numpy(), "s": s.numpy(), "acc": acc.numpy()}
    y.grad = wp.array(rng.random((M, 2 * N), dtype=np.float32))
    z.grad = wp.array(rng.random((2 * M, N), dtype=np.float32))
    acc.grad = wp.array(rng.random((4, N), dtype=np.float32))
    tape.backward()
    out["x_grad"] = x.grad.numpy()
    return out
