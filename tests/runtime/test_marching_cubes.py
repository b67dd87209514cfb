"""Marching cubes against independent references: analytic planes and spheres, the table's
structure, Warp's errors and deprecated names, and finite differences of the field gradient."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jwarp as wp
import jwarp.geometry  # noqa: F401
from jwarp.runtime.geometry import marching_cubes_tables as tables

MC = wp.geometry.IsoSurfaceMarchingCubes


def _extract(values: np.ndarray, threshold: float = 0.0, **bounds) -> tuple[np.ndarray, np.ndarray]:
    verts, faces = MC.extract(wp.array(values.astype(np.float32), dtype=float), threshold, **bounds)
    return verts.numpy(), faces.numpy().reshape(-1, 3)


def test_tables_are_consistent():
    assert len(tables.CASE_TO_TRI_RANGE) == 257 and len(tables.TRI_LOCAL_INDICES) == 2460
    for case in range(256):
        edges = set(tables.TRI_LOCAL_INDICES[tables.CASE_TO_TRI_RANGE[case]:tables.CASE_TO_TRI_RANGE[case + 1]])
        inside = {c for c in range(8) if case >> c & 1}
        crossing = {e for e, (a, b) in enumerate(tables.EDGE_TO_CORNERS) if (a in inside) != (b in inside)}
        assert edges == crossing, case  # every triangle vertex sits on an edge the surface crosses, and all do
    for e, (a, b) in enumerate(tables.EDGE_TO_CORNERS):
        dx, dy, dz, axis = tables.EDGE_CELL_AXIS[e]
        assert tables.CUBE_CORNER_OFFSETS[a] == (dx, dy, dz)
        assert tables.CUBE_CORNER_OFFSETS[b][axis] == 1


def test_plane_vertices_are_exact():
    x = np.arange(6, dtype=np.float32)[:, None, None] * np.ones((6, 5, 4), np.float32)
    verts, faces = _extract(x - 2.25)
    # one vertex per x-edge crossing the plane x = 2.25, in (j, k) order
    assert verts.shape == (5 * 4, 3)
    np.testing.assert_array_equal(verts[:, 0], 2.25)
    np.testing.assert_array_equal(verts[:, 1:], np.stack(np.meshgrid(range(5), range(4), indexing="ij"), -1)
                                  .reshape(-1, 2))
    assert faces.shape == (4 * 3 * 2, 3)
    normals = np.cross(verts[faces[:, 1]] - verts[faces[:, 0]], verts[faces[:, 2]] - verts[faces[:, 0]])
    assert np.all(normals[:, 0] > 0)  # wound counter-clockwise seen from the positive (outside) side


def test_sphere_is_closed_and_on_the_surface():
    n = 24
    p = np.stack(np.meshgrid(*(np.linspace(-1, 1, n),) * 3, indexing="ij"), -1)
    verts, faces = _extract(np.linalg.norm(p, axis=-1) - 0.6, lower=(-1.0, -1.0, -1.0), upper=(1.0, 1.0, 1.0))
    assert np.abs(np.linalg.norm(verts, axis=1) - 0.6).max() < 0.02
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert np.all(counts == 2)  # watertight: every edge shared by two triangles
    assert len(np.unique(faces)) == len(verts)


def test_errors_and_empty_output():
    with pytest.raises(ValueError, match="at least 2 nodes on each axis"):
        MC.extract(wp.zeros((1, 4, 4), dtype=float))
    with pytest.raises(TypeError, match="wp.float32"):
        MC.extract(wp.zeros((4, 4, 4), dtype=wp.float64))
    iso = MC(4, 4, 4)
    with pytest.raises(ValueError, match="does not match"):
        iso.surface(wp.zeros((4, 4, 5), dtype=float), 0.0)
    iso.surface(wp.zeros((4, 4, 4), dtype=float), 1.0)
    assert iso.verts.shape == (0,) and iso.indices.shape == (0,) and iso.indices.dtype is wp.int32
    with pytest.raises(TypeError, match="Cannot specify both `lower`"):
        MC(4, 4, 4, lower=(0.0, 0.0, 0.0), domain_bounds_lower_corner=(1.0, 1.0, 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert wp.MarchingCubes is MC
        assert MC(4, 4, 4, domain_bounds_upper_corner=(1.0, 2.0, 3.0)).upper == (1.0, 2.0, 3.0)


def test_field_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((5, 4, 6)).astype(np.float32)
    weights = rng.standard_normal(3).astype(np.float32)

    def loss_of(v: np.ndarray) -> float:
        verts, _ = _extract(v, 0.2)
        return float((verts.astype(np.float64) @ weights).sum())

    field = wp.array(values, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, _ = MC.extract(field, 0.2)
    verts.grad = wp.array(np.tile(weights, (verts.shape[0], 1)), dtype=wp.vec3)
    tape.backward()
    grad = field.grad.numpy()
    checked = 0
    for index in [(1, 1, 1), (2, 3, 4), (4, 0, 5), (0, 2, 2)]:
        h = 1e-2
        up, down = values.copy(), values.copy()
        up[index] += h
        down[index] -= h
        if np.any((up >= 0.2) != (values >= 0.2)) or np.any((down >= 0.2) != (values >= 0.2)):
            continue  # the topology would change
        assert grad[index] == pytest.approx((loss_of(up) - loss_of(down)) / (2 * h), rel=1e-2, abs=1e-3)
        checked += grad[index] != 0
    assert checked >= 2
