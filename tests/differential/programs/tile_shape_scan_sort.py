"""Tiles: tile_view (rows, rectangles at per-block offsets), subscript rows t[i], tile_reshape
(with -1), tile_squeeze, tile_astype, len(tile), element assignment t[i, j] = v and t[i] += v,
tile_assign at an offset, tile_scan_inclusive/exclusive/max/min, tile_sort with a payload, and
gradients through view/reshape/assign/scan kernels on wp.Tape."""

M = 4
N = 6
M1 = 5
N2 = 12


@wp.kernel
def views(a: wp.array2d(dtype=float), rows: wp.array2d(dtype=float), rect: wp.array3d(dtype=float),
          flat: wp.array2d(dtype=float), lens: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(M, N), offset=(i * M, 0))
    r = t[i % M]
    wp.tile_store(rows[i], wp.tile_view(t, offset=(1,)) + r)
    v = wp.tile_view(t, offset=(1, i + 1), shape=(2, 3))
    wp.tile_store(rect[i], v * 2.0)
    f = wp.tile_reshape(t, shape=(-1,))
    wp.tile_store(flat[i], f)
    lens[i] = len(t) * 10 + len(r)


@wp.kernel
def squeeze_astype(a: wp.array3d(dtype=float), out_f: wp.array(dtype=float), out_i: wp.array(dtype=int)):
    t = wp.tile_load(a, shape=(1, N, 1))
    s = wp.tile_squeeze(t)
    wp.tile_store(out_f, wp.tile_squeeze(t, axis=(0, 2)) + s)
    wp.tile_store(out_i, wp.tile_astype(s * 3.0, dtype=int))


@wp.kernel
def element_writes(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(M, N), offset=(i * M, 0))
    t[0, i] = 5.0
    t[1, 2] += t[2, 1] * 2.0
    t[3] = wp.tile_load(b[i], shape=N)
    z = wp.tile_zeros(shape=(M1, N), dtype=float)
    wp.tile_assign(z, t * 0.5, offset=(1, 0))
    wp.tile_store(out, z, offset=(i * M1, 0))


@wp.kernel
def scans(a: wp.array(dtype=float), ai: wp.array(dtype=int), inc: wp.array(dtype=float),
          exc: wp.array(dtype=float), mx: wp.array(dtype=float), mn: wp.array(dtype=float),
          inc_i: wp.array(dtype=int), exc2d: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=8, offset=i * 8)
    wp.tile_store(inc, wp.tile_scan_inclusive(t), offset=i * 8)
    wp.tile_store(exc, wp.tile_scan_exclusive(t), offset=i * 8)
    wp.tile_store(mx, wp.tile_scan_max_inclusive(t), offset=i * 8)
    wp.tile_store(mn, wp.tile_scan_min_inclusive(t), offset=i * 8)
    ti = wp.tile_load(ai, shape=8, offset=i * 8)
    wp.tile_store(inc_i, wp.tile_scan_inclusive(ti), offset=i * 8)
    t2 = wp.tile_reshape(t, shape=(2, 4))
    wp.tile_store(exc2d, wp.tile_scan_exclusive(t2), offset=(i * 2, 0))


@wp.kernel
def sorting(k: wp.array(dtype=float), v: wp.array(dtype=int), ki: wp.array(dtype=int), vv: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    keys = wp.tile_load(k, shape=8, offset=i * 8)
    vals = wp.tile_load(v, shape=8, offset=i * 8)
    wp.tile_sort(keys, vals)
    wp.tile_store(k, keys, offset=i * 8)
    wp.tile_store(v, vals, offset=i * 8)
    ikeys = wp.tile_load(ki, shape=8, offset=i * 8)
    payload = wp.tile_load(vv, shape=8, offset=i * 8)
    wp.tile_sort(ikeys, payload)
    wp.tile_store(ki, ikeys, offset=i * 8)
    wp.tile_store(vv, payload, offset=i * 8)


@wp.kernel
def grad_kernel(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(N2,))
    t2 = wp.tile_reshape(t, shape=(2, N))
    row = wp.tile_view(t2, offset=(1,))
    s = row * t2[0] * 3.0  # (Warp 1.19 scans have no adjoint: MISSINGADJOINT in tile_scan.h)
    z = wp.tile_zeros(shape=(N2,), dtype=float)
    wp.tile_assign(z, s, offset=(N,))
    wp.tile_assign(z, wp.tile_map(wp.sin, wp.tile_view(t, offset=(0,), shape=(N,))), offset=(0,))
    wp.tile_store(out, z)


def run():
    rng = np.random.default_rng(3)
    out = {}
    a = wp.array(rng.standard_normal((3 * M, N)).astype(np.float32))
    rows = wp.zeros((3, N), dtype=float)
    rect = wp.zeros((3, 2, 3), dtype=float)
    flat = wp.zeros((3, M * N), dtype=float)
    lens = wp.zeros(3, dtype=int)
    wp.launch_tiled(views, dim=3, inputs=[a, rows, rect, flat, lens], block_dim=8)
    out.update(rows=rows.numpy(), rect=rect.numpy(), flat=flat.numpy(), lens=lens.numpy())

    a3 = wp.array((rng.standard_normal((1, N, 1)) * 3).astype(np.float32))
    of = wp.zeros(N, dtype=float)
    oi = wp.zeros(N, dtype=int)
    wp.launch_tiled(squeeze_astype, dim=1, inputs=[a3, of, oi], block_dim=8)
    out.update(squeezed=of.numpy(), astype=oi.numpy())

    b = wp.array(rng.standard_normal((3, N)).astype(np.float32))
    ow = wp.zeros((3 * (M + 1), N), dtype=float)
    wp.launch_tiled(element_writes, dim=3, inputs=[a, b, ow], block_dim=8)
    out["element_writes"] = ow.numpy()

    s_np = rng.standard_normal(16).astype(np.float32)
    s_np[[0, 9, 10]] = np.nan  # min/max scans skip NaNs
    s = wp.array(s_np)
    si = wp.array(rng.integers(-5, 6, 16).astype(np.int32))
    arrs = [wp.zeros(16, dtype=float) for _ in range(4)]
    inc_i = wp.zeros(16, dtype=int)
    exc2d = wp.zeros((4, 4), dtype=float)
    wp.launch_tiled(scans, dim=2, inputs=[s, si, *arrs, inc_i, exc2d], block_dim=8)
    for name, arr in zip(("max", "min"), arrs[2:]):
        out["scan_" + name] = arr.numpy().copy()  # Warp CPU arrays share memory with .numpy()
    s = wp.array(np.nan_to_num(s_np, nan=0.5))
    wp.launch_tiled(scans, dim=2, inputs=[s, si, *arrs, inc_i, exc2d], block_dim=8)
    for name, arr in zip(("inc", "exc"), arrs[:2]):
        out["scan_" + name] = arr.numpy().copy()  # Warp CPU arrays share memory with .numpy()
    out.update(scan_int=inc_i.numpy(), scan_exc2d=exc2d.numpy())

    k = wp.array(rng.permutation(16).astype(np.float32) * 0.5 - 3.0)
    v = wp.array(np.arange(16, dtype=np.int32))
    ki = wp.array(rng.permutation(16).astype(np.int32) - 8)
    vv = wp.array(rng.standard_normal((16, 2)).astype(np.float32), dtype=wp.vec2)
    wp.launch_tiled(sorting, dim=2, inputs=[k, v, ki, vv], block_dim=8)
    out.update(sort_k=k.numpy(), sort_v=v.numpy(), sort_ki=ki.numpy(), sort_vv=vv.numpy())

    g = wp.array(rng.standard_normal(2 * N).astype(np.float32), requires_grad=True)
    go = wp.zeros(2 * N, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(grad_kernel, dim=1, inputs=[g, go], block_dim=8)
    go.grad = wp.array(rng.standard_normal(2 * N).astype(np.float32))
    tape.backward()
    out.update(grad_out=go.numpy(), grad_in=g.grad.numpy())
    return out
