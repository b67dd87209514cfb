"""``wp.geometry.swept_volume_field`` on an explicit grid: a tetrahedron swept through translated and
rotated poses, two meshes, the parity and unsigned modes; ``swept_volume_mesh`` checked through its
vertex bounds (bounds and the other sign modes: ``geometry_swept_volume``)."""

import importlib

import numpy as np

RTOL = 1e-4
ATOL = 1e-4
TOLERANCE = {"mesh_bounds": (0.0, 0.11)}  # the default grids differ: bounds agree within a cell


def run():
    geo = importlib.import_module(wp.__name__ + ".geometry")
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    tris = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], np.int32)
    a = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris, dtype=wp.int32), support_winding_number=True)
    b = wp.Mesh(wp.array(pts * 0.5 + 2.0, dtype=wp.vec3), wp.array(tris, dtype=wp.int32), support_winding_number=True)
    poses = np.zeros((2, 3, 7), np.float32)
    poses[:, :, 6] = 1.0
    poses[0, :, 0] = [0.0, 0.4, 0.8]
    angle = 0.6
    poses[1, 1, 5], poses[1, 1, 6] = np.sin(angle / 2), np.cos(angle / 2)
    poses[1, 2, 1] = -0.5
    out = {}
    for mode in (geo.SweptVolumeSignMode.PARITY, geo.SweptVolumeSignMode.NO_SIGN):
        field, lo, hi = geo.swept_volume_field([a, b], poses, resolution=(9, 8, 7), lower=(-0.6, -0.7, -0.5),
                                               upper=(3.1, 2.9, 2.6), sign_mode=mode)
        out[f"field_{int(mode)}"] = field.numpy()
    verts, indices = geo.swept_volume_mesh([a], poses[:1], voxel_size=0.1, threshold=0.05)
    v = verts.numpy()
    out["mesh_bounds"] = np.array([v.min(axis=0), v.max(axis=0)])
    return out
