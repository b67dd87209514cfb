"""Volume LINEAR sampling, bit for bit: float and vec3 volumes from random data sampled at random
points with ``volume_sample``, ``volume_sample_grad`` and (on an index grid over the same tiles)
``volume_sample_index`` / ``volume_sample_grad_index`` (Warp's products are rounded before the sums
they feed, so every compilation of a sample gives the same bits); for the float volume inside a
recorded tape whose backward pass replays the samples, with the gradients of the voxel data, the
background and the points."""

from typing import Any

import numpy as np

RTOL = 0.0
ATOL = 0.0
TOLERANCE = {"values_grad_f": (1e-5, 1e-6), "bg_grad_f": (1e-5, 1e-6), "pts_grad_f": (1e-5, 1e-6)}


@wp.kernel
def fill(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), values: wp.array(dtype=Any)):
    i = wp.tid()
    values[i] = wp.volume_lookup(vol, ijk[i, 0], ijk[i, 1], ijk[i, 2], dtype=values.dtype)


@wp.kernel
def sample_f(vol: wp.uint64, index_vol: wp.uint64, pts: wp.array(dtype=wp.vec3), values: wp.array(dtype=float),
             bg: wp.array(dtype=float), direct: wp.array(dtype=float), indexed: wp.array(dtype=float),
             same: wp.array(dtype=wp.int32), total: wp.array(dtype=float)):
    i = wp.tid()
    p = pts[i]
    a = wp.volume_sample(vol, p, wp.Volume.LINEAR, dtype=float)
    b = wp.volume_sample_index(index_vol, p, wp.Volume.LINEAR, values, bg[0])
    g = wp.vec3()
    c = wp.volume_sample_grad_index(index_vol, p, wp.Volume.LINEAR, values, bg[0], g)
    direct[i] = a
    indexed[i] = b
    if a == b and b == c:
        same[i] = 1
    wp.atomic_add(total, 0, b * 2.0 + wp.dot(g, wp.vec3(0.5, -1.0, 0.25)))


@wp.kernel
def sample_v(vol: wp.uint64, index_vol: wp.uint64, pts: wp.array(dtype=wp.vec3), values: wp.array(dtype=wp.vec3),
             bg: wp.array(dtype=wp.vec3), direct: wp.array(dtype=wp.vec3), indexed: wp.array(dtype=wp.vec3),
             same: wp.array(dtype=wp.int32), total: wp.array(dtype=float)):
    i = wp.tid()
    p = pts[i]
    a = wp.volume_sample(vol, p, wp.Volume.LINEAR, dtype=wp.vec3)
    b = wp.volume_sample_index(index_vol, p, wp.Volume.LINEAR, values, bg[0])
    direct[i] = a
    indexed[i] = b
    if a == b:
        same[i] = 1
    wp.atomic_add(total, 0, wp.dot(b, wp.vec3(1.0, 2.0, -0.5)))


def _run(kind, kernel, data, bg, pts, out, backward=True):
    vol = wp.Volume.load_from_numpy(data, min_world=(0.0, 0.0, 0.0), voxel_size=1.0, bg_value=bg)
    tiles = vol.get_tiles()
    index_vol = wp.Volume.allocate_by_tiles(tiles, voxel_size=1.0, bg_value=None)
    dtype = vol.dtype
    ijk = index_vol.get_voxels()
    values = wp.zeros(index_vol.get_voxel_count(), dtype=dtype, requires_grad=True)
    wp.launch(fill, dim=values.shape[0], inputs=[wp.uint64(vol.id), ijk, values])
    bg_arr = wp.array([bg], dtype=dtype, requires_grad=True)
    points = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    n = pts.shape[0]
    direct = wp.zeros(n, dtype=dtype, requires_grad=True)
    indexed = wp.zeros(n, dtype=dtype, requires_grad=True)
    same = wp.zeros(n, dtype=wp.int32)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[vol.id, index_vol.id, points, values, bg_arr, direct, indexed, same, total])
    if backward:
        tape.backward(total)
    out[f"direct_{kind}"], out[f"indexed_{kind}"] = direct.numpy(), indexed.numpy()
    out[f"same_{kind}"] = same.numpy()
    if backward:
        out[f"values_grad_{kind}"], out[f"bg_grad_{kind}"] = values.grad.numpy(), bg_arr.grad.numpy()
        out[f"pts_grad_{kind}"] = points.grad.numpy()


def run():
    rng = np.random.default_rng(11)
    out = {}
    pts = rng.uniform(-2.0, 13.0, size=(400, 3)).astype(np.float32)
    _run("f", sample_f, rng.standard_normal((12, 9, 10)).astype(np.float32), 0.75, pts, out)
    _run("v", sample_v, rng.standard_normal((10, 11, 9, 3)).astype(np.float32), (0.5, -1.25, 2.0), pts, out, backward=False)
    return out
