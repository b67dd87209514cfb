"""wp.Volume allocation and writes: Volume.allocate (index and world space), allocate_by_tiles (sparse tiles
at negative coordinates, world-space points, a point mask, vec3/int/float64/vec4 background types),
stores then lookups (typed and generic, stores outside allocated tiles ignored), samples between stored
voxels, two volumes in one launch (one id in a struct), index grids from allocate_by_voxels
(volume_lookup_index, volume_voxel_count, volume_sample_index / _grad_index with gradients with respect
to the voxel data, background and points), tile and voxel listings in NanoVDB order; rebuildable volumes
(capacities, rebuild with a mask resetting values to the background, overflow status flags)."""

import numpy as np

RTOL = 1e-5
ATOL = 1e-5


@wp.struct
class VolRef:
    vol: wp.uint64
    scale: float


@wp.kernel
def store_f(v: wp.uint64, ijk: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    c = ijk[i]
    wp.volume_store(v, c[0], c[1], c[2], float(c[0]) + 100.0 * float(c[1]) + 10000.0 * float(c[2]))


@wp.kernel
def store_typed(vf: wp.uint64, vv: wp.uint64, vi: wp.uint64, ijk: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    c = ijk[i]
    wp.volume_store_f(vf, c[0], c[1], c[2], float(i) * 0.5)
    wp.volume_store_v(vv, c[0], c[1], c[2], wp.vec3(float(i), float(-i), 2.0))
    wp.volume_store_i(vi, c[0], c[1], c[2], i * 3 - 7)
    # a value of another type is not stored (Warp's behaviour)
    wp.volume_store(vi, c[0], c[1], c[2], 1.5)


@wp.kernel
def read_back(vf: wp.uint64, vv: wp.uint64, vi: wp.uint64, ijk: wp.array(dtype=wp.vec3i), f: wp.array(dtype=float),
              v: wp.array(dtype=wp.vec3), n: wp.array(dtype=int)):
    i = wp.tid()
    c = ijk[i]
    f[i] = wp.volume_lookup(vf, c[0], c[1], c[2], dtype=float)
    v[i] = wp.volume_lookup_v(vv, c[0], c[1], c[2])
    n[i] = wp.volume_lookup(vi, c[0], c[1], c[2], dtype=int)


@wp.kernel
def two_volumes(a: wp.uint64, ref: VolRef, uvw: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    x = wp.volume_sample_f(a, uvw[i], wp.Volume.LINEAR)
    y = wp.volume_sample_f(ref.vol, uvw[i], wp.Volume.LINEAR) * ref.scale
    out[i] = wp.vec2(x, y)


@wp.kernel
def lookup_generic(v: wp.uint64, ijk: wp.array(dtype=wp.vec3i), d: wp.array(dtype=wp.float64),
                   q: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    c = ijk[i]
    d[i] = wp.volume_lookup(v, c[0], c[1], c[2], dtype=wp.float64)
    q[i] = wp.volume_lookup(v, c[0], c[1], c[2], dtype=wp.vec4)


@wp.kernel
def store_generic(vd: wp.uint64, vq: wp.uint64, ijk: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    c = ijk[i]
    wp.volume_store(vd, c[0], c[1], c[2], wp.float64(i) * wp.float64(0.25))
    wp.volume_store(vq, c[0], c[1], c[2], wp.vec4(1.0, float(i), 2.0, -1.0))


@wp.kernel
def read_generic(vd: wp.uint64, vq: wp.uint64, uvw: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.float64),
                 q: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    d[i] = wp.volume_sample(vd, uvw[i], wp.Volume.LINEAR, dtype=wp.float64)
    q[i] = wp.volume_sample(vq, uvw[i], wp.Volume.LINEAR, dtype=wp.vec4)


@wp.kernel
def wide_ints(v64: wp.uint64, vu: wp.uint64, ijk: wp.array(dtype=wp.vec3i), a: wp.array(dtype=wp.int64),
              b: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    c = ijk[i]
    wp.volume_store(v64, c[0], c[1], c[2], wp.int64(i) * wp.int64(3000000000))
    wp.volume_store(vu, c[0], c[1], c[2], wp.uint32(i * 7 + 1))
    a[i] = wp.volume_lookup(v64, c[0] + 1, c[1], c[2], dtype=wp.int64)
    b[i] = wp.volume_sample(vu, wp.vec3(float(c[0]), float(c[1]), float(c[2])), wp.Volume.CLOSEST, dtype=wp.uint32)


@wp.kernel
def fill_index(v: wp.uint64, data: wp.array(dtype=float)):
    i, j, k = wp.tid()
    idx = wp.volume_lookup_index(v, i - 2, j - 2, k - 2)
    if idx >= 0:
        data[idx] = float(i) * 10.0 + float(j) - float(k) * 0.5


@wp.kernel
def index_queries(v: wp.uint64, ijk: wp.array(dtype=wp.vec3i), idx: wp.array(dtype=int), count: wp.array(dtype=int)):
    i = wp.tid()
    c = ijk[i]
    idx[i] = wp.volume_lookup_index(v, c[0], c[1], c[2])
    count[i] = wp.volume_voxel_count(v)


@wp.kernel
def sample_index(v: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=float), bg: float,
                 out: wp.array(dtype=float), grads: wp.array(dtype=wp.vec3), total: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.volume_sample_index(v, uvw[i], wp.Volume.LINEAR, data, bg)
    g = wp.vec3()
    s2 = wp.volume_sample_grad_index(v, uvw[i], wp.Volume.LINEAR, data, bg, g)
    c = wp.volume_sample_index(v, uvw[i], wp.Volume.CLOSEST, data, bg)
    out[i] = s + 0.001 * c
    grads[i] = g
    wp.atomic_add(total, 0, s * s + 0.5 * s2 + wp.dot(g, wp.vec3(0.1, 0.2, -0.3)) + c)


def run():
    out = {}
    rng = np.random.default_rng(11)

    # allocate (index space) and stores then lookups, with voxels outside the allocated tiles
    vol = wp.Volume.allocate(min=[-11, -3, 0], max=[5, 3, 9], voxel_size=0.1, bg_value=-123.0)
    out["alloc_tiles"] = vol.get_tiles().numpy()
    out["alloc_counts"] = np.array([vol.get_tile_count(), vol.get_voxel_count()])
    ijk = np.concatenate([rng.integers(-16, 16, (40, 3)), [[-16, -8, 0], [15, 7, 15], [100, 0, 0], [0, 0, -1]]])
    ijk = wp.array(ijk.astype(np.int32), dtype=wp.vec3i)
    wp.launch(store_f, ijk.shape[0], inputs=[vol.id, ijk])
    f, v, n = wp.zeros(ijk.shape[0], dtype=float), wp.zeros(ijk.shape[0], dtype=wp.vec3), wp.zeros(ijk.shape[0], dtype=int)
    vv = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0], [-8, -8, -8], [9, 3, -20]], dtype=wp.vec3i), 0.5,
                                     bg_value=wp.vec3(1.0, 2.0, 3.0))
    vi = wp.Volume.allocate_by_tiles(wp.array(np.int32([[-9, 0, 0], [3, 4, 5], [12, 0, 8], [12, 1, 9]])), 0.5,
                                     bg_value=-1)
    wp.launch(read_back, ijk.shape[0], inputs=[vol.id, vv.id, vi.id, ijk, f, v, n])
    out["stored_f"] = f.numpy().copy()

    # typed stores into three volumes, then lookups
    wp.launch(store_typed, ijk.shape[0], inputs=[vol.id, vv.id, vi.id, ijk])
    wp.launch(read_back, ijk.shape[0], inputs=[vol.id, vv.id, vi.id, ijk, f, v, n])
    out.update(typed_f=f.numpy().copy(), typed_v=v.numpy().copy(), typed_i=n.numpy().copy())
    out["vi_tiles"] = vi.get_tiles().numpy()
    out["vv_tiles"] = vv.get_tiles().numpy()
    out["types"] = np.array([vv.get_grid_info().type_str == "Vec3f", vi.get_grid_info().type_str == "int32"])

    # two volumes in one launch, one passed in a struct
    dense = rng.random((8, 8, 8)).astype(np.float32)
    other = wp.Volume.load_from_numpy(dense, bg_value=0.25)
    ref = VolRef()
    ref.vol = other.id
    ref.scale = 2.0
    uvw = wp.array(rng.uniform(-2.0, 9.0, (30, 3)).astype(np.float32), dtype=wp.vec3)
    pair = wp.zeros(30, dtype=wp.vec2)
    wp.launch(two_volumes, 30, inputs=[vol.id, ref, uvw, pair])
    out["two_volumes"] = pair.numpy()

    # world-space tile points with a point mask, float64 and vec4 volumes
    wpts = wp.array(np.float32([[0.1, 0.2, 0.3], [-3.0, 1.0, 2.0], [5.0, 5.0, -5.0], [0.9, 0.9, 0.9]]), dtype=wp.vec3)
    mask = wp.array(np.int32([1, 1, 0, 1]))
    vd = wp.Volume.allocate_by_tiles(wpts, voxel_size=0.25, bg_value=wp.float64(-0.5), translation=(0.5, 0.0, -1.0),
                                     point_mask=mask)
    vq = wp.Volume.allocate_by_tiles(wpts, voxel_size=(0.25, 0.5, 0.125), bg_value=[0.0, 1.0, 0.0, 2.0])
    out["world_tiles"] = vd.get_tiles().numpy()
    out["world_tiles_q"] = vq.get_tiles().numpy()
    out["gen_types"] = np.array([vd.get_grid_info().type_str == "double", vq.get_grid_info().type_str == "Vec4f"])
    gi = wp.array(rng.integers(-20, 20, (30, 3)).astype(np.int32), dtype=wp.vec3i)
    wp.launch(store_generic, 30, inputs=[vd.id, vq.id, gi])
    d, q = wp.zeros(30, dtype=wp.float64), wp.zeros(30, dtype=wp.vec4)
    wp.launch(lookup_generic, 30, inputs=[vd.id, gi, d, wp.zeros(30, dtype=wp.vec4)])
    wp.launch(lookup_generic, 30, inputs=[vq.id, gi, wp.zeros(30, dtype=wp.float64), q])
    out.update(gen_d=d.numpy().copy(), gen_q=q.numpy().copy())
    wp.launch(read_generic, 30, inputs=[vd.id, vq.id, wp.array(gi.numpy().astype(np.float32) + 0.3, dtype=wp.vec3),
                                        d, q])
    out.update(gen_sd=d.numpy().copy(), gen_sq=q.numpy().copy())

    # int64 and uint32 volumes
    v64 = wp.Volume.allocate(min=[-4, -4, -4], max=[4, 4, 4], voxel_size=1.0, bg_value=wp.int64(-5))
    vu = wp.Volume.allocate(min=[0, 0, 0], max=[7, 7, 7], voxel_size=1.0, bg_value=wp.uint32(9))
    wi = wp.array(rng.integers(-6, 9, (20, 3)).astype(np.int32), dtype=wp.vec3i)
    a64, bu = wp.zeros(20, dtype=wp.int64), wp.zeros(20, dtype=wp.uint32)
    wp.launch(wide_ints, 20, inputs=[v64.id, vu.id, wi, a64, bu])
    out.update(int64_look=a64.numpy().copy(), uint32_sample=bu.numpy().copy(),
               wide_types=np.array([v64.get_grid_info().type_str == "int64", vu.get_grid_info().type_str == "uint32"]))

    # index grid from voxels, including negative coordinates and duplicates
    vox = np.concatenate([rng.integers(-2, 9, (60, 3)), [[-2, -2, -2], [8, 8, 8], [0, 0, 0], [0, 0, 0]]])
    iv = wp.Volume.allocate_by_voxels(wp.array(vox.astype(np.int32), dtype=wp.vec3i), voxel_size=0.5)
    out["index_info"] = np.array([iv.get_voxel_count(), iv.get_tile_count(), iv.is_index,
                                  iv.get_grid_info().type_str == "OnIndex"])
    out["index_voxels"] = iv.get_voxels().numpy()
    data = wp.zeros(iv.get_voxel_count(), dtype=float, requires_grad=True)
    wp.launch(fill_index, (11, 11, 11), inputs=[iv.id, data])
    out["index_data"] = data.numpy().copy()
    qi = wp.array(np.concatenate([vox[:20], rng.integers(-4, 12, (20, 3))]).astype(np.int32), dtype=wp.vec3i)
    idx, cnt = wp.zeros(40, dtype=int), wp.zeros(40, dtype=int)
    wp.launch(index_queries, 40, inputs=[iv.id, qi, idx, cnt])
    out.update(index_lookup=idx.numpy().copy(), index_count=cnt.numpy().copy())
    wp.launch(index_queries, 40, inputs=[vol.id, qi, idx, cnt])  # a value grid: leaf * 512 + offset
    out.update(value_lookup=idx.numpy().copy(), value_count=cnt.numpy().copy())

    # sampling through the index grid, with gradients w.r.t. the data, the background and the points
    pts = wp.array(rng.uniform(-3.0, 9.5, (50, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    so, sg = wp.zeros(50, dtype=float, requires_grad=True), wp.zeros(50, dtype=wp.vec3, requires_grad=True)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sample_index, 50, inputs=[iv.id, pts, data, 0.75, so, sg, total])
    tape.backward(total)
    out.update(sidx=so.numpy().copy(), sidx_grad=sg.numpy().copy(), sidx_total=total.numpy().copy(),
               sidx_pts_grad=pts.grad.numpy().copy(), sidx_data_grad=data.grad.numpy().copy())

    # rebuildable volumes: stores, then a rebuild (values back to the background), overflow flags
    status = wp.zeros(1, dtype=wp.uint32)
    rv = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0]], dtype=wp.vec3i), 0.5, bg_value=2.5, rebuildable=True,
                                     max_tiles=4, status=status)
    out["rb_info"] = np.array([*rv.get_rebuild_info()[1:], rv.get_voxel_count(), *rv.get_active_stats(),
                               int(status.numpy()[0])])
    rijk = wp.array(np.int32([[1, 2, 3], [9, 0, 0], [0, 17, 0], [-3, 0, 1]]), dtype=wp.vec3i)
    wp.launch(store_f, 4, inputs=[rv.id, rijk])
    rf = wp.zeros(4, dtype=float)
    wp.launch(read_back, 4, inputs=[rv.id, vv.id, vi.id, rijk, rf, wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=int)])
    out["rb_before"] = rf.numpy().copy()
    rv.rebuild(wp.array(np.int32([[8, 0, 0], [0, 16, 0], [-8, 0, 0], [0, 0, 0]])), status=status,
               point_mask=wp.array(np.int32([1, 1, 0, 1])))
    wp.launch(store_f, 1, inputs=[rv.id, wp.array(np.int32([[9, 0, 0]]), dtype=wp.vec3i)])
    wp.launch(read_back, 4, inputs=[rv.id, vv.id, vi.id, rijk, rf, wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=int)])
    out["rb_after"] = rf.numpy().copy()
    out["rb_tiles"] = rv.get_tiles().numpy().copy()[: rv.get_active_stats().leaf_node_count]
    out["rb_counts"] = np.array([rv.get_tile_count(), rv.get_voxel_count(), rv.get_tiles().shape[0]])
    out["rb_stats"] = np.array([*rv.get_active_stats(), int(status.numpy()[0])])
    ov = wp.Volume.allocate_by_voxels(wp.array(np.int32([[0, 0, 0]])), 1.0, rebuildable=True, max_active_voxels=2,
                                      max_leaf_nodes=1, max_lower_nodes=1, max_upper_nodes=1)
    ov.rebuild(wp.array(np.int32([[1, 2, 3], [4, 5, 6]])), status=status)
    ok = int(status.numpy()[0])
    ov.rebuild(wp.array(np.int32([[1, 2, 3], [40, 5, 6], [7, 7, 7]])), status=status)
    flags = int(status.numpy()[0])
    out["rb_overflow"] = np.array([ok, flags & int(wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED) != 0,
                                   flags & int(wp.Volume.REBUILD_LEAF_CAPACITY_EXCEEDED) != 0])
    return out
