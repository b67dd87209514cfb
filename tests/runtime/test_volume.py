"""wp.Volume's Python side and gradients: finite-difference checks of the LINEAR sample gradient
(builtin ``volume_sample_grad`` and ``.grad`` through ``wp.Tape``), NanoVDB order of tiles, and clear
errors for what jwarp does not support. Values are checked against Warp in
tests/differential/programs/geometry_volume*.py."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import handles
from jwarp.runtime.geometry import volume_topology


@wp.kernel
def _sample(v: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), grad: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    uvw = wp.volume_world_to_index(v, pts[i])
    g = wp.vec3()
    out[i] = wp.volume_sample_grad_f(v, uvw, wp.Volume.LINEAR, g)
    grad[i] = g


def _volume():
    rng = np.random.default_rng(3)
    x, y, z = np.meshgrid(np.arange(12), np.arange(10), np.arange(9), indexing="ij")
    dense = (np.sin(0.5 * x) * np.cos(0.3 * y) + 0.1 * z * z + rng.random(x.shape) * 0.01).astype(np.float32)
    return wp.Volume.load_from_numpy(dense, min_world=(-1.0, 0.5, 0.0), voxel_size=(0.5, 0.25, 1.0), bg_value=3.0)


def _points(n, seed):
    rng = np.random.default_rng(seed)
    # inside the data and away from voxel planes (the trilinear field is not differentiable on them)
    idx = rng.integers(1, 7, (n, 3)) + rng.uniform(0.2, 0.8, (n, 3))
    return (idx * np.array([0.5, 0.25, 1.0]) + np.array([-1.0, 0.5, 0.0])).astype(np.float32)


def _run(vol, pts):
    out, grad = wp.zeros(len(pts), dtype=float), wp.zeros(len(pts), dtype=wp.vec3)
    wp.launch(_sample, len(pts), inputs=[vol.id, wp.array(pts, dtype=wp.vec3), out, grad])
    return out.numpy().astype(np.float64), grad.numpy()


def test_sample_grad_matches_finite_differences_in_index_space():
    vol, pts = _volume(), _points(20, 1)
    _, grad = _run(vol, pts)
    h = 1e-2
    for axis, size in enumerate((0.5, 0.25, 1.0)):
        step = np.zeros(3, np.float32)
        step[axis] = h * size  # h voxels along this axis
        plus, _ = _run(vol, pts + step)
        minus, _ = _run(vol, pts - step)
        np.testing.assert_allclose(grad[:, axis], (plus - minus) / (2 * h), rtol=2e-2, atol=2e-2)


def test_tape_gradient_matches_finite_differences_in_world_space():
    vol, pts = _volume(), _points(15, 2)
    p = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(len(pts), dtype=float, requires_grad=True)
    grad = wp.zeros(len(pts), dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_sample, len(pts), inputs=[vol.id, p, out, grad])
    tape.backward(grads={out: wp.ones(len(pts), dtype=float)})
    h = 1e-3
    for axis in range(3):
        step = np.zeros(3, np.float32)
        step[axis] = h
        fd = (_run(vol, pts + step)[0] - _run(vol, pts - step)[0]) / (2 * h)
        np.testing.assert_allclose(p.grad.numpy()[:, axis], fd, rtol=2e-2, atol=5e-2)


def test_tiles_follow_nanovdb_order_and_ids_are_handles():
    pts = np.array([[0, 0, 0], [20, 0, -9], [-1, 5, 3], [8, 8, 8]], np.int32)
    vol = wp.Volume.allocate_by_tiles(wp.array(pts, dtype=wp.vec3i), 0.5, bg_value=1.0)
    assert vol.get_tiles().numpy().tolist() == [[-8, 0, 0], [16, 0, -16], [0, 0, 0], [8, 8, 8]]
    assert handles.lookup(vol.id) is vol and vol.get_voxel_count() == 4 * 512
    assert volume_topology.order_tiles(np.zeros((0, 3))).shape == (0, 3)


def test_unsupported_inputs_raise_clear_errors():
    with pytest.raises(RuntimeError, match="NanoVDB signature not found"):
        wp.Volume.load_from_nvdb(b"\0" * 64)
    with pytest.raises(RuntimeError, match="Invalid NanoVDB grid structure"):
        wp.Volume(wp.zeros(16, dtype=wp.uint8))
    with pytest.raises(ValueError, match="max_tiles must be positive"):
        wp.Volume.allocate_by_tiles(wp.zeros(1, dtype=wp.vec3i), 1.0, rebuildable=True, max_tiles=0)
    with pytest.raises(RuntimeError, match="not allocated as a rebuildable"):
        wp.Volume.allocate_by_tiles(wp.zeros(1, dtype=wp.vec3i), 1.0).rebuild(wp.zeros(1, dtype=wp.vec3i))
    with pytest.raises(NotImplementedError, match="dense map of tiles"):
        wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0], [2**24, 2**24, 2**24]], dtype=wp.vec3i), 1.0)
    with pytest.raises(TypeError, match="Unsupported bg_value"):
        wp.Volume.allocate(min=[0, 0, 0], max=[1, 1, 1], voxel_size=1.0, bg_value="x")
    with pytest.raises(ValueError, match="finite and positive"):
        wp.Volume.load_from_numpy(np.zeros((2, 2, 2), np.float32), voxel_size=0.0)


@wp.kernel
def _bad_grad(v: wp.uint64, out: wp.array(dtype=float)):
    g = wp.vec3d()
    out[0] = wp.volume_sample_grad(v, wp.vec3(0.0), wp.Volume.LINEAR, g, dtype=float)


def test_wrong_gradient_type_is_rejected():
    vol = _volume()
    with pytest.raises(Exception, match="Incompatible gradient type"):
        wp.launch(_bad_grad, 1, inputs=[vol.id, wp.zeros(1, dtype=float)])


def _warp_asset(name):
    try:
        import importlib.util
        spec = importlib.util.find_spec("warp")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("warp-lang (with its test assets) is not installed")
    import os
    path = os.path.join(list(spec.submodule_search_locations)[0], "tests", "assets", name)
    if not os.path.exists(path):
        pytest.skip(f"{name} not found")
    return path


def test_nvdb_files_load_leaves_transform_and_next_grids():
    with open(_warp_asset("torus.nvdb"), "rb") as f:
        torus = wp.Volume.load_from_nvdb(f)
    info = torus.get_grid_info()
    assert (info.name, info.type_str, info.grid_count) == ("surface", "float", 1)
    assert torus.get_tile_count() == 24 and torus.get_voxel_count() == 24 * 512
    assert np.allclose(np.array(info.translation), [1.0, 2.0, 3.0])
    with open(_warp_asset("test_index_grid.nvdb"), "rb") as f:
        first = wp.Volume.load_from_nvdb(f.read())
    second = first.load_next_grid()
    assert first.is_index and second.get_grid_info().grid_index == 1 and second.load_next_grid() is None
    assert (first.get_voxel_count(), second.get_voxel_count()) == (16, 24)
    # the raw buffer round-trips through wp.Volume(data); feature arrays (blind data) are read
    again = wp.Volume(second.array())
    assert again.get_voxel_count() == 24 and again.get_grid_info().name == "grid-1"
    assert first.get_feature_array_count() == 1
    assert first.feature_array(0, dtype=wp.uint64).numpy()[:4].tolist() == [3, 16, 2, 3]


@wp.kernel
def _store_one(v: wp.uint64):
    wp.volume_store(v, 1, 2, 3, 42.0)


def test_save_to_nvdb_round_trips_stored_values(tmp_path):
    with open(_warp_asset("test_grid.nvdb"), "rb") as f:
        vol = wp.Volume.load_from_nvdb(f)
    wp.launch(_store_one, 1, inputs=[vol.id])
    for codec in ("none", "zip"):
        path = str(tmp_path / f"grid_{codec}.nvdb")
        vol.save_to_nvdb(path, codec=codec)
        with open(path, "rb") as f:
            again = wp.Volume.load_from_nvdb(f)
        assert np.array_equal(again.array().numpy(), vol.array().numpy())
        out = wp.zeros(1, dtype=float)
        wp.launch(_lookup_one, 1, inputs=[again.id, out])
        assert out.numpy()[0] == 42.0
    with pytest.raises(NotImplementedError, match="only volumes loaded from NanoVDB"):
        _volume().save_to_nvdb(str(tmp_path / "x.nvdb"))


@wp.kernel
def _lookup_one(v: wp.uint64, out: wp.array(dtype=float)):
    out[0] = wp.volume_lookup_f(v, 1, 2, 3)


def _nvdb_file(grid: bytes) -> bytes:
    """An uncompressed one-grid ``.nvdb`` file around a grid buffer."""
    import struct

    meta = bytearray(176)
    struct.pack_into("<QQ", meta, 0, len(grid), len(grid))
    struct.pack_into("<I", meta, 136, 1)
    return struct.pack("<QIHH", 0x304244566F6E614E, 32 << 21 | 3 << 10 | 3, 1, 0) + bytes(meta) + b"\0" + grid


def test_nvdb_file_validation_rejects_bad_trees():
    import struct

    with open(_warp_asset("test_grid.nvdb"), "rb") as f:
        grid = bytearray(wp.Volume.load_from_nvdb(f).array().numpy().tobytes())
    size = struct.unpack_from("<Q", grid, 32)[0]
    grid = grid[:size]
    wp.Volume.load_from_nvdb(_nvdb_file(bytes(grid)))  # the untouched grid loads
    misaligned = grid + b"\0"
    struct.pack_into("<Q", misaligned, 32, len(misaligned))
    lower_outside = bytearray(grid)
    struct.pack_into("<Q", lower_outside, 672 + 8, size)  # lower nodes start past the grid
    leaf_offset = struct.unpack_from("<Q", grid, 672)[0]
    overlapping = bytearray(grid)
    struct.pack_into("<Q", overlapping, 672, leaf_offset - 32)  # leaves overlap the lower nodes
    for bad in (misaligned, lower_outside, overlapping):
        with pytest.raises(RuntimeError, match="Invalid NanoVDB grid structure"):
            wp.Volume.load_from_nvdb(_nvdb_file(bytes(bad)))
    wp.Volume(wp.array(np.frombuffer(bytes(misaligned), np.uint8), dtype=wp.uint8))  # raw buffers: no file rules


def _fpn_grid(bits: tuple) -> bytes:
    """A breadth-first FpN grid (NanoVDB type 16) with one upper and one lower node and a leaf per
    entry of ``bits`` (values of that many bits), laid out as PNanoVDB.h describes."""
    import struct

    root, upper = 64, 64 + 64 + 32
    lower = upper + 270400
    leaf = lower + 33856
    sizes = [96 + b * 64 for b in bits]
    size = 672 + leaf + sum(sizes)
    g = bytearray(size)
    struct.pack_into("<QI", g, 0, 0x304244566F6E614E, 32 << 21 | 3 << 10 | 3)
    struct.pack_into("<IIIQ", g, 20, 1 << 5, 0, 1, size)  # breadth-first flag, grid index/count, size
    struct.pack_into("<Iq", g, 636, 16, size)  # grid type FpN, no blind data (offset at the end)
    struct.pack_into("<QQQQIII", g, 672, leaf, lower, upper, root, len(bits), 1, 1)
    struct.pack_into("<I", g, 672 + root + 24, 1)  # one root tile, its child the upper node
    struct.pack_into("<q", g, 672 + root + 64 + 8, upper - root)
    struct.pack_into("<I", g, 672 + upper + 4128, 1)
    struct.pack_into("<q", g, 672 + upper + 8256, lower - upper)
    struct.pack_into("<I", g, 672 + lower + 544, (1 << len(bits)) - 1)
    at = leaf
    for k, (b, n) in enumerate(zip(bits, sizes)):
        struct.pack_into("<q", g, 672 + lower + 1088 + 8 * k, at - lower)
        struct.pack_into("<I", g, 672 + at + 12, (b.bit_length() - 1) << 29)
        at += n
    return bytes(g)


def test_fpn_grids_load_their_topology_and_sample_as_another_type():
    vol = wp.Volume.load_from_nvdb(_nvdb_file(_fpn_grid((1, 4))))
    info = vol.get_grid_info()
    assert (info.type_str, vol.dtype, vol.is_index) == ("FloatN", None, False)
    assert (vol.get_tile_count(), vol.get_voxel_count()) == (2, 1024)
    assert vol.get_tiles().numpy().tolist() == [[0, 0, 0], [0, 0, 8]]
    out = wp.zeros(1, dtype=float)
    wp.launch(_lookup_one, 1, inputs=[vol.id, out])
    assert out.numpy()[0] == 0.0  # Warp reads a volume of another type as 0
    truncated = bytearray(_fpn_grid((16,)))[: 672 + 64 + 64 + 32 + 270400 + 33856 + 96]
    import struct

    struct.pack_into("<Q", truncated, 32, len(truncated))
    struct.pack_into("<q", truncated, 640, len(truncated))
    with pytest.raises(RuntimeError, match="Invalid NanoVDB grid structure"):
        wp.Volume.load_from_nvdb(_nvdb_file(bytes(truncated)))
