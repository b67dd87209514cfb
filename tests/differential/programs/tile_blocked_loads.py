"""Block-aligned tile loads (jwarp slices instead of gathering): a tiled GEMM with a rolled k loop
on sizes that are not multiples of the tile (the last blocks and the last k window run past the
arrays and read zeros), windows at run-time offsets past the end, constant offsets, a 3-D array
blocked on two launch axes, and the GEMM's gradients on the wp.Tape."""

T = 8


@wp.kernel
def gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(T, T), dtype=float)
    count = (A.shape[1] + T - 1) // T
    for k in range(count):
        a = wp.tile_load(A, shape=(T, T), offset=(i * T, k * T))
        b = wp.tile_load(B, shape=(T, T), offset=(k * T, j * T))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc, offset=(i * T, j * T))


@wp.kernel
def windows(A: wp.array2d(dtype=float), k: int, out: wp.array3d(dtype=float), x: wp.array3d(dtype=float),
            out3: wp.array3d(dtype=float)):
    i = wp.tid()
    wp.tile_store(out[i], wp.tile_load(A, shape=(T, 4), offset=(i * T + 1, k)))
    t = wp.tile_load(A, shape=(4, T), offset=(2, 3))
    wp.tile_store(out[i], t, offset=(T, 0))
    u = wp.tile_load(x, shape=(2, 3, 4), offset=(i * 2, 0, k - 1))
    wp.tile_store(out3, u, offset=(i * 2, 0, 0))


def run():
    rng = np.random.default_rng(11)
    a_np = rng.standard_normal((20, 19)).astype(np.float32)
    b_np = rng.standard_normal((19, 13)).astype(np.float32)
    a = wp.array(a_np, requires_grad=True)
    b = wp.array(b_np, requires_grad=True)
    c = wp.zeros((20, 13), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(gemm, dim=(3, 2), inputs=[a, b, c], block_dim=32)
    c.grad = wp.array(rng.standard_normal((20, 13)).astype(np.float32))
    tape.backward()
    out = {"C": c.numpy(), "a_grad": a.grad.numpy(), "b_grad": b.grad.numpy()}
    for k in (2, 17):
        w = wp.zeros((3, T + 4, T), dtype=float)
        x = wp.array(rng.standard_normal((6, 3, 9)).astype(np.float32))
        o3 = wp.zeros((6, 3, 4), dtype=float)
        wp.launch_tiled(windows, dim=3, inputs=[wp.array(a_np), k, w, x, o3], block_dim=32)
        out[f"w{k}"] = w.numpy()
        out[f"o3_{k}"] = o3.numpy()
    return out
