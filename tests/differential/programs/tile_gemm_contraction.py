"""Tiled-GEMM k loops (jwarp lowers them as one contraction of the stacked tiles) and block-aligned
tile stores (one update instead of a scatter): rectangular tiles, two products into two
accumulators in one loop (``tile_matmul(a, b, acc)`` and ``acc += tile_matmul(a, b)``), a range that starts past 0, loops jwarp keeps as loops (a step of two
tiles, a product of a loop-invariant tile), the loaded tiles and the loop variable used after the
loop, stores at constant window offsets, stores past the array's end, and stores where several
blocks write the same elements (one value, so any winner gives it)."""

RTOL = 1e-4  # one contraction sums in another order than Warp's step-by-step products
ATOL = 1e-5

TM = 8
TK = 4
TN = 16


@wp.kernel
def two_products(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), B2: wp.array2d(dtype=float),
                 C: wp.array2d(dtype=float), D: wp.array2d(dtype=float), last: wp.array2d(dtype=float),
                 kk: wp.array(dtype=int)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(TM, TN), dtype=float)
    acc2 = wp.tile_ones(shape=(TM, TN), dtype=float)
    count = A.shape[1] // TK
    for k in range(1, count):
        a = wp.tile_load(A, shape=(TM, TK), offset=(i * TM, k * TK))
        b = wp.tile_load(B, shape=(TK, TN), offset=(k * TK, j * TN))
        b2 = wp.tile_load(B2, shape=(TK, TN), offset=(k * TK, j * TN))
        wp.tile_matmul(a, b, acc)
        acc2 += wp.tile_matmul(a, b2)
    wp.tile_store(C, acc, offset=(i * TM, j * TN))
    wp.tile_store(D, acc2, offset=(i * TM, j * TN))
    wp.tile_store(last, a, offset=(i * TM, j * TK))
    if i == 0 and j == 0:
        kk[0] = k


@wp.kernel
def kept_loops(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float),
               D: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(TM, TN), dtype=float)
    for k in range(0, A.shape[1] // TK, 2):  # every other window
        a = wp.tile_load(A, shape=(TM, TK), offset=(i * TM, k * TK))
        b = wp.tile_load(B, shape=(TK, TN), offset=(k * TK, j * TN))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc, offset=(i * TM, j * TN))
    acc2 = wp.tile_zeros(shape=(TM, TN), dtype=float)
    b0 = wp.tile_load(B, shape=(TK, TN), offset=(0, j * TN))
    for k in range(A.shape[1] // TK):  # b0 is the same in every step
        a = wp.tile_load(A, shape=(TM, TK), offset=(i * TM, k * TK))
        wp.tile_matmul(a, b0, acc2)
    wp.tile_store(D, acc2, offset=(i * TM, j * TN))


@wp.kernel
def stores(x: wp.array2d(dtype=float), out: wp.array2d(dtype=float), edge: wp.array2d(dtype=float),
           shared: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=(4, 6), offset=(i * 4, 0))
    wp.tile_store(out, t * 2.0, offset=(i * 4, 3))  # a window at column 3
    wp.tile_store(edge, t, offset=(i * 4 + 2, 1))  # the last block runs past the end
    wp.tile_store(shared, wp.tile_load(x, shape=(4, 6), offset=(0, 0)), offset=(1, 2))  # all blocks, one value


def run():
    rng = np.random.default_rng(5)
    a_np = rng.standard_normal((16, 24)).astype(np.float32)
    b_np = rng.standard_normal((24, 32)).astype(np.float32)
    b2_np = rng.standard_normal((24, 32)).astype(np.float32)
    out = {}
    a, b, b2 = wp.array(a_np), wp.array(b_np), wp.array(b2_np)
    c = wp.zeros((16, 32), dtype=float)
    d = wp.zeros((16, 32), dtype=float)
    last = wp.zeros((16, 8), dtype=float)
    kk = wp.zeros(1, dtype=int)
    wp.launch_tiled(two_products, dim=(2, 2), inputs=[a, b, b2, c, d, last, kk], block_dim=32)
    out.update(C=c.numpy(), D=d.numpy(), last=last.numpy(), k=kk.numpy())
    c2 = wp.zeros((16, 32), dtype=float)
    d2 = wp.zeros((16, 32), dtype=float)
    wp.launch_tiled(kept_loops, dim=(2, 2), inputs=[a, b, c2, d2], block_dim=32)
    out.update(C2=c2.numpy(), D2=d2.numpy())
    x = wp.array(rng.standard_normal((12, 6)).astype(np.float32))
    o = wp.zeros((12, 10), dtype=float)
    e = wp.zeros((12, 8), dtype=float)
    s = wp.zeros((6, 9), dtype=float)
    wp.launch_tiled(stores, dim=3, inputs=[x, o, e, s], block_dim=32)
    out.update(out=o.numpy(), edge=e.numpy(), shared=s.numpy())
    return out
