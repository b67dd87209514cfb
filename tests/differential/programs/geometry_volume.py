"""wp.Volume from dense numpy data: LINEAR and CLOSEST sampling of float, vec3 and int volumes at voxel
centres, between voxels, exactly halfway (rounding away from zero), outside the volume (background) and
at negative coordinates; volume_sample_grad values; index<->world transforms (and their _dir forms,
float32 and float64); .grad of samples with respect to the world-space points; introspection."""

import numpy as np

RTOL = 1e-5
ATOL = 1e-5


@wp.kernel
def sample_f(v: wp.uint64, pts: wp.array(dtype=wp.vec3), lin: wp.array(dtype=float), near: wp.array(dtype=float),
             grad: wp.array(dtype=wp.vec3), gval: wp.array(dtype=float), typed: wp.array(dtype=float)):
    i = wp.tid()
    uvw = wp.volume_world_to_index(v, pts[i])
    lin[i] = wp.volume_sample(v, uvw, wp.Volume.LINEAR, dtype=float)
    near[i] = wp.volume_sample(v, uvw, wp.Volume.CLOSEST, dtype=wp.float32)
    g = wp.vec3()
    gval[i] = wp.volume_sample_grad(v, uvw, wp.Volume.LINEAR, g, dtype=float)
    grad[i] = g
    g2 = wp.vec3()
    typed[i] = wp.volume_sample_f(v, uvw, wp.Volume.LINEAR) + 10.0 * wp.volume_sample_grad_f(
        v, uvw, wp.Volume.CLOSEST, g2) + wp.length(g2)


@wp.kernel
def sample_index_space(v: wp.uint64, uvw: wp.array(dtype=wp.vec3), mode: int, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_sample_f(v, uvw[i], mode)


@wp.kernel
def sample_v(v: wp.uint64, uvw: wp.array(dtype=wp.vec3), lin: wp.array(dtype=wp.vec3),
             near: wp.array(dtype=wp.vec3), jac: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    lin[i] = wp.volume_sample(v, uvw[i], wp.Volume.LINEAR, dtype=wp.vec3)
    near[i] = wp.volume_sample_v(v, uvw[i], wp.Volume.CLOSEST)
    m = wp.mat33()
    wp.volume_sample_grad(v, uvw[i], wp.Volume.LINEAR, m, dtype=wp.vec3)
    jac[i] = m


@wp.kernel
def sample_i(v: wp.uint64, uvw: wp.array(dtype=wp.vec3), near: wp.array(dtype=int), typed: wp.array(dtype=int),
             look: wp.array(dtype=int)):
    i = wp.tid()
    near[i] = wp.volume_sample(v, uvw[i], wp.Volume.CLOSEST, dtype=int)
    # LINEAR on an int volume: Warp truncates the float weights to int (only exact voxels count)
    typed[i] = wp.volume_sample_i(v, uvw[i]) + 1000 * wp.volume_sample(v, uvw[i], wp.Volume.LINEAR, dtype=int)
    p = uvw[i]
    look[i] = wp.volume_lookup_i(v, int(wp.floor(p[0])), int(wp.floor(p[1])), int(wp.floor(p[2])))


@wp.kernel
def lookups(v: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float), typed: wp.array(dtype=float),
            wrong: wp.array(dtype=float)):
    i = wp.tid()
    c = ijk[i]
    out[i] = wp.volume_lookup(v, c[0], c[1], c[2], dtype=float)
    typed[i] = wp.volume_lookup_f(v, c[0], c[1], c[2])
    # a volume of another type reads 0 (Warp's behaviour)
    wrong[i] = float(wp.volume_lookup(v, c[0], c[1], c[2], dtype=int)) + wp.volume_sample_v(
        v, wp.vec3(1.0, 1.0, 1.0), wp.Volume.LINEAR)[0]


@wp.kernel
def transforms(v: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), outd: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    p = pts[i]
    out[4 * i + 0] = wp.volume_index_to_world(v, p)
    out[4 * i + 1] = wp.volume_world_to_index(v, p)
    out[4 * i + 2] = wp.volume_index_to_world_dir(v, p)
    out[4 * i + 3] = wp.volume_world_to_index_dir(v, p)
    pd = wp.vec3d(p)
    outd[2 * i + 0] = wp.volume_index_to_world(v, pd)
    outd[2 * i + 1] = wp.volume_world_to_index(v, wp.volume_index_to_world_dir(v, pd))


@wp.kernel
def loss(v: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    uvw = wp.volume_world_to_index(v, pts[i])
    s = wp.volume_sample_f(v, uvw, wp.Volume.LINEAR)
    g = wp.vec3()
    s2 = wp.volume_sample_grad_f(v, uvw, wp.Volume.LINEAR, g)
    wp.atomic_add(out, 0, s * s + s2 + wp.dot(g, wp.vec3(0.3, -0.2, 0.5)))


@wp.kernel
def store_field(v: wp.uint64):
    i, j, k = wp.tid()
    x = float(i) - 8.0
    y = float(j) - 8.0
    z = float(k) - 8.0
    wp.volume_store(v, i - 8, j - 8, k - 8, 0.1 * x * x - 0.05 * y * z + 0.2 * z + 0.01 * x * y * z)


@wp.kernel
def sheared_loss(v: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), w: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    uvw = wp.volume_world_to_index(v, pts[i])
    s = wp.volume_sample_f(v, uvw, wp.Volume.LINEAR)
    back = wp.volume_index_to_world(v, uvw * 0.5)
    d = wp.volume_world_to_index_dir(v, pts[i]) + wp.volume_index_to_world_dir(v, pts[i])
    w[i] = back + d
    wp.atomic_add(out, 0, s + wp.dot(back, wp.vec3(0.3, -0.7, 0.2)) + wp.dot(d, wp.vec3(-0.1, 0.4, 0.9)))


def _points(rng, n, lo, hi):
    return rng.uniform(lo, hi, (n, 3)).astype(np.float32)


def _world(rng, n, margin):
    """World points over the data of the float volume (x -1..1.5, y 0.5..1.75, z -2..0), widened by margin."""
    lo, hi = np.array([-1.0, 0.5, -2.0]) - margin, np.array([1.5, 1.75, 0.0]) + margin
    return rng.uniform(lo, hi, (n, 3)).astype(np.float32)


def run():
    out = {}
    rng = np.random.default_rng(5)
    dense = (rng.random((11, 6, 9)) * 4.0 - 1.0).astype(np.float32)
    vol = wp.Volume.load_from_numpy(dense, min_world=(-1.0, 0.5, -2.0), voxel_size=0.25, bg_value=-2.5)
    out["info"] = np.array([vol.get_tile_count(), vol.get_voxel_count(), *vol.get_voxel_size()], np.float64)
    out["tiles"] = vol.get_tiles().numpy()
    out["type"] = np.array([vol.get_grid_info().type_str == "float", vol.dtype == wp.float32, vol.is_index])
    out["translation"] = np.array(vol.get_grid_info().translation)

    # world points inside, outside (background), on voxel centres and halfway between voxels
    pts = _world(rng, 40, 0.6)
    centres = (np.stack(np.meshgrid([0, 3, 7, 10], [1, 5], [0, 8], indexing="ij"), -1).reshape(-1, 3)
               * 0.25 + np.array([-1.0, 0.5, -2.0])).astype(np.float32)
    halfway = centres + np.float32(0.125)
    pts = np.concatenate([pts, centres, halfway])
    n = len(pts)
    pa = wp.array(pts, dtype=wp.vec3)
    lin, near, gval, typed = (wp.zeros(n, dtype=float) for _ in range(4))
    grad = wp.zeros(n, dtype=wp.vec3)
    wp.launch(sample_f, n, inputs=[vol.id, pa, lin, near, grad, gval, typed])
    out.update(lin=lin.numpy(), near=near.numpy(), grad=grad.numpy(), gval=gval.numpy(), typed=typed.numpy())

    # index-space points with negative coordinates, halfway cases and a runtime sampling mode
    uvw = np.concatenate([_points(rng, 20, -3.0, 12.0) * np.float32([1.0, 0.6, 1.0]), np.array(
        [[-0.5, 0.5, 1.5], [2.5, -1.5, 0.5], [-1.0, -1.0, -1.0], [0.49999997, 1.5000001, 2.0]], np.float32)])
    ua = wp.array(uvw, dtype=wp.vec3)
    for mode in (0, 1, 2):
        o = wp.zeros(len(uvw), dtype=float)
        wp.launch(sample_index_space, len(uvw), inputs=[vol.id, ua, mode, o])
        out[f"mode{mode}"] = o.numpy()

    # lookups at integer coordinates, in and out of the allocated tiles
    ijk = np.array([[0, 0, 0], [10, 5, 8], [11, 5, 8], [15, 7, 15], [16, 0, 0], [-1, 0, 0], [3, -2, 4], [7, 7, 7]],
                   np.int32)
    o1, o2, o3 = (wp.zeros(len(ijk), dtype=float) for _ in range(3))
    wp.launch(lookups, len(ijk), inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), o1, o2, o3])
    out.update(look=o1.numpy(), look_f=o2.numpy(), look_wrong=o3.numpy())

    # vec3 volume
    dense_v = (rng.random((5, 9, 4, 3)) * 2.0 - 1.0).astype(np.float32)
    vv = wp.Volume.load_from_numpy(dense_v, min_world=(0.0, 0.0, 0.0), voxel_size=1.0, bg_value=(1.0, -2.0, 3.0))
    uv = wp.array(np.concatenate([_points(rng, 30, -2.0, 10.0), np.float32([[0.5, 2.5, 1.5]])]), dtype=wp.vec3)
    lv, nv = wp.zeros(uv.shape[0], dtype=wp.vec3), wp.zeros(uv.shape[0], dtype=wp.vec3)
    jv = wp.zeros(uv.shape[0], dtype=wp.mat33)
    wp.launch(sample_v, uv.shape[0], inputs=[vv.id, uv, lv, nv, jv])
    out.update(vec_lin=lv.numpy(), vec_near=nv.numpy(), vec_jac=jv.numpy(), vec_type=np.array(
        [vv.get_grid_info().type_str == "Vec3f", vv.get_tile_count(), vv.get_voxel_count()]))

    # int volume (a Python int background)
    dense_i = rng.integers(-50, 50, (9, 3, 7)).astype(np.int32)
    vi = wp.Volume.load_from_numpy(dense_i, voxel_size=2.0, bg_value=7)
    ui = wp.array(np.concatenate([_points(rng, 30, -3.0, 18.0) * np.float32([1.0, 0.3, 0.8]), np.float32(
        [[0.5, 1.5, -0.5], [2.0, 1.0, 3.0], [4.0, 0.0, 6.0], [1.0, 2.0, 2.5]])]), dtype=wp.vec3)
    ni, ti, li = (wp.zeros(ui.shape[0], dtype=int) for _ in range(3))
    wp.launch(sample_i, ui.shape[0], inputs=[vi.id, ui, ni, ti, li])
    out.update(int_near=ni.numpy(), int_typed=ti.numpy(), int_look=li.numpy(),
               int_type=np.array([vi.get_grid_info().type_str == "int32", vi.dtype == wp.int32]))

    # transforms of an anisotropic volume (float32 and float64 overloads)
    va = wp.Volume.load_from_numpy(dense, min_world=(0.5, -1.0, 2.0), voxel_size=(0.5, 0.25, 2.0), bg_value=0.0)
    tp = wp.array(_points(rng, 10, -4.0, 4.0), dtype=wp.vec3)
    to, td = wp.zeros(40, dtype=wp.vec3), wp.zeros(20, dtype=wp.vec3d)
    wp.launch(transforms, 10, inputs=[va.id, tp, to, td])
    out.update(xf=to.numpy(), xfd=td.numpy(), aniso_size=np.array(va.get_voxel_size()))

    # gradients of a loss of samples (and of sampled gradients) with respect to the world points
    gp = wp.array(_world(rng, 25, -0.1), dtype=wp.vec3, requires_grad=True)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loss, 25, inputs=[vol.id, gp, total])
    tape.backward(total)
    out["loss"] = total.numpy()
    out["loss_grad"] = gp.grad.numpy()

    # a sheared, non-symmetric transform: float32 transform adjoints as Warp's (the matrix, untransposed)
    shear = wp.mat33(0.5, 0.2, 0.0, 0.0, 0.4, 0.1, 0.3, 0.0, 0.6)
    sv = wp.Volume.allocate_by_tiles(wp.array(np.int32([[x, y, z] for x in (-8, 0) for y in (-8, 0) for z in (-8, 0)]),
                                              dtype=wp.vec3i), transform=shear, translation=(0.5, -1.0, 2.0), bg_value=0.0)
    wp.launch(store_field, (16, 16, 16), inputs=[sv.id])
    sp = wp.array(_points(rng, 30, -1.5, 2.5), dtype=wp.vec3, requires_grad=True)
    st = wp.zeros(1, dtype=float, requires_grad=True)
    sw = wp.zeros(30, dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sheared_loss, 30, inputs=[sv.id, sp, st, sw])
    tape.backward(st)
    out.update(shear_loss=st.numpy(), shear_grad=sp.grad.numpy(), shear_w=sw.numpy(),
               shear_size=np.array(sv.get_voxel_size()))
    return out
