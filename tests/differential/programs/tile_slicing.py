"""Tile subscripts and aliasing views: NumPy slices (rows, columns, steps, reverse, clamped and
negative bounds), negative and runtime integer indices, advanced indexing with an index tile
(duplicates accumulate gradients), chained subscripts, slice assignment (also overlapping),
tile_view with slice offsets, writes through a view reaching the parent tile and writes to the
parent showing in the view, component writes t[i][1] = x on vector tiles, and gradients on the
wp.Tape through slices, gathers and slice assignment."""

M = 6
N = 8


@wp.kernel
def slices(a: wp.array2d(dtype=float), idx: wp.array(dtype=int), k: int, rows: wp.array2d(dtype=float),
           cols: wp.array2d(dtype=float), steps: wp.array2d(dtype=float), rev: wp.array2d(dtype=float),
           last: wp.array(dtype=float), picked: wp.array2d(dtype=float), chain: wp.array(dtype=float),
           ex: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(M, N))
    wp.tile_store(rows, t[1:4, :])
    wp.tile_store(cols, t[:, 2:-1])
    wp.tile_store(steps, t[::2, 1::3])
    wp.tile_store(rev, t[100::-1, 5:-100:-2])
    wp.tile_store(last, t[k] + t[-1, :])
    wp.tile_store(picked, t[wp.tile_load(idx, shape=4), :])
    wp.tile_store(chain, t[::-1][1][::2])
    wp.tile_store(ex, wp.tile_view(t[2], offset=(slice(1, -2, 2),)))


@wp.kernel
def writes(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
           seen: wp.array2d(dtype=float), shifted: wp.array(dtype=int)):
    t = wp.tile_load(a, shape=(M, N))
    u = wp.tile_load(b, shape=(2, N))
    t[0:2, :] = u * 2.0
    row = t[3]
    col = wp.tile_view(t, offset=(0, 5), shape=(M, 1))
    t[3, 1] = -7.0  # the view sees the write
    wp.tile_store(seen[0], row)
    wp.tile_assign(col, wp.tile_ones(shape=(M, 1), dtype=float))  # the parent sees it
    part = t[4:6, ::2]
    part[1, 0] = 42.0
    wp.tile_store(seen[1], t[5])
    wp.tile_store(out, t)
    s = wp.tile_arange(N, dtype=int)
    s[1:] = s[:-1]
    wp.tile_store(shifted, s)


@wp.kernel
def components(x: wp.array(dtype=float), out: wp.array(dtype=wp.vec3), outm: wp.array(dtype=wp.mat22)):
    v = wp.tile_zeros(shape=4, dtype=wp.vec3)
    m = wp.tile_ones(shape=4, dtype=wp.mat22)
    for i in range(4):
        v[i][1] = x[i]
        m[i][1, 0] = x[i] * 2.0
    wp.tile_store(out, v)
    wp.tile_store(outm, m)


@wp.kernel
def grads(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), idx: wp.array(dtype=int),
          out: wp.array2d(dtype=float), out2: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(M, N))
    u = wp.tile_load(b, shape=(2, N))
    g = t[wp.tile_load(idx, shape=4), :]
    t[1:3, :] = u
    wp.tile_store(out, t[::-1, 1:] * 3.0)
    wp.tile_store(out2, g)


def run():
    rng = np.random.default_rng(7)
    a_np = rng.random((M, N), dtype=np.float32)
    b_np = rng.random((2, N), dtype=np.float32)
    a = wp.array(a_np, dtype=float)
    idx = wp.array(np.array([0, -1, 3, 3], dtype=np.int32), dtype=int)
    res = {}
    shapes = {"rows": (3, N), "cols": (M, 5), "steps": (3, 3), "rev": (M, 3), "last": (N,), "picked": (4, N),
              "chain": (N // 2,), "ex": (3,)}
    outs = {key: wp.zeros(shape, dtype=float) for key, shape in shapes.items()}
    wp.launch_tiled(slices, dim=1, inputs=[a, idx, 2, *outs.values()], block_dim=32)
    res.update({key: v.numpy() for key, v in outs.items()})

    out = wp.zeros((M, N), dtype=float)
    seen = wp.zeros((2, N), dtype=float)
    shifted = wp.zeros(N, dtype=int)
    wp.launch_tiled(writes, dim=1, inputs=[a, wp.array(b_np, dtype=float), out, seen, shifted], block_dim=32)
    res.update(written=out.numpy(), seen=seen.numpy(), shifted=shifted.numpy())

    vo = wp.zeros(4, dtype=wp.vec3)
    mo = wp.zeros(4, dtype=wp.mat22)
    wp.launch_tiled(components, dim=1, inputs=[wp.array(np.arange(1, 5, dtype=np.float32)), vo, mo], block_dim=32)
    res.update(vec=vo.numpy(), mat=mo.numpy())

    ag = wp.array(a_np, dtype=float, requires_grad=True)
    bg = wp.array(b_np, dtype=float, requires_grad=True)
    o1 = wp.zeros((M, N - 1), dtype=float, requires_grad=True)
    o2 = wp.zeros((4, N), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(grads, dim=1, inputs=[ag, bg, idx, o1, o2], block_dim=32)
    o1.grad = wp.array(rng.random((M, N - 1), dtype=np.float32))
    o2.grad = wp.array(rng.random((4, N), dtype=np.float32))
    tape.backward()
    res.update(g_out=o1.numpy(), g_out2=o2.numpy(), a_grad=ag.grad.numpy(), b_grad=bg.grad.numpy())
    return res
