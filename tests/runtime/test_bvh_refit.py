"""Device refits of halving trees (jwarp/runtime/geometry/bvh_refit.py) against the host refit:
node boxes are mins and maxes, so they must agree exactly, for every tree shape."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime.geometry import bvh_build
from jwarp.runtime.geometry.bvh_refit import DeviceRefit


def _boxes(rng, n):
    lo = rng.uniform(-5.0, 5.0, (n, 3)).astype(np.float32)
    return lo, lo + rng.uniform(0.0, 1.0, (n, 3)).astype(np.float32)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 33, 100, 1000, 1023, 1025])
def test_device_refit_matches_host_refit(n):
    rng = np.random.default_rng(n)
    tree = bvh_build.build(*_boxes(rng, n))
    lo, hi = _boxes(rng, n)  # new boxes for the same tree
    device = DeviceRefit(tree).bounds(lo, hi)
    bvh_build.refit(tree, lo, hi)
    np.testing.assert_array_equal(np.asarray(device), tree.bounds)


def test_bvh_refit_follows_moved_boxes_in_queries():
    rng = np.random.default_rng(3)
    lo, hi = _boxes(rng, 50)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers)
    moved = lo + 100.0
    lowers.assign(moved)
    uppers.assign(hi + 100.0)
    bvh.refit()
    host = bvh_build.build(lo, hi)
    bvh_build.refit(host, moved, hi + 100.0)
    np.testing.assert_array_equal(bvh._node_bounds.numpy(), host.bounds)


def test_mesh_refit_matches_host_refit_and_edge_length():
    rng = np.random.default_rng(5)
    pts = rng.uniform(-1.0, 1.0, (40, 3)).astype(np.float32)
    tris = rng.integers(0, 40, (60, 3)).astype(np.int32)
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points=points, indices=wp.array(tris.reshape(-1), dtype=wp.int32))
    moved = pts * 2.0 + 0.5
    points.assign(moved)
    mesh.refit()
    corners = moved[tris]
    host = bvh_build.build(*_face_boxes(pts, tris))
    bvh_build.refit(host, corners.min(axis=1), corners.max(axis=1))
    np.testing.assert_array_equal(mesh._node_bounds.numpy(), host.bounds)
    edges = sum(np.linalg.norm(corners[:, i] - corners[:, j], axis=1) for i, j in ((0, 1), (0, 2), (2, 1)))
    operands = mesh._launch_operands()
    np.testing.assert_allclose(operands.values["average_edge_length"][1], edges.sum() / (3 * len(tris)), rtol=1e-5)


def _face_boxes(pts, tris):
    corners = pts[tris]
    return corners.min(axis=1), corners.max(axis=1)
