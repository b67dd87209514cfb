"""Fast winding numbers (jwarp/runtime/geometry/winding_table.py, jwarp/builtins/winding_number.py)
against the exact sum of the faces' solid angles: the per-node expansion, the signs of
``mesh_query_point_sign_winding_number`` at several accuracies, and the table after ``refit``."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins.winding_number import N1, N2, PAIRS, R2, FLAG, P, S
from jwarp.builtins import bvh_trail
from jwarp.runtime.geometry import bvh_build
from jwarp.runtime.geometry.winding_table import winding_rows
from tests.differential.meshes import exact_winding, solid_angles, uv_sphere


def _cap(centre=(0.0, 0.0, 0.0)):
    """A sphere's cap (open: fractional winding numbers), triangles as rows."""
    points, tris = uv_sphere(rows=20, cols=40, keep_rows=12, centre=centre)
    return points, tris.reshape(-1, 3)


def _expansion(row, q):
    """The solid angle of a node's expansion (the formula of the module docstring) in numpy."""
    d = q - row[P:P + 3]
    r = np.linalg.norm(d)
    u = d / r
    n1 = row[N1:N1 + 9].reshape(3, 3)
    n2 = np.zeros((3, 3, 3))
    for i in range(3):
        for k, (a, b) in enumerate(PAIRS):
            n2[i, a, b] = n2[i, b, a] = row[N2 + 6 * i + k]
    eye = np.eye(3)
    lin = np.einsum("ijk,ijk->", n2, eye[:, :, None] * u[None, None, :] + eye[:, None, :] * u[None, :, None]
                    + eye[None, :, :] * u[:, None, None])
    cubic = np.einsum("ijk,i,j,k->", n2, u, u, u)
    return (-(u @ row[S:S + 3]) / r**2 + (np.trace(n1) - 3 * u @ n1 @ u) / r**3
            + (1.5 * lin - 7.5 * cubic) / r**4)


@pytest.mark.parametrize("centre", [(0.0, 0.0, 0.0), (300.0, -200.0, 100.0)])
def test_the_root_expansion_converges_to_the_exact_solid_angle(centre):
    points, tris = _cap(centre=centre)
    corners = points[tris]
    tree = bvh_build.build(corners.min(axis=1), corners.max(axis=1), None)
    root = winding_rows(points, tris, tree)[1].astype(np.float64)
    assert root[FLAG] == 0.0 and root[R2] > 0.0
    rng = np.random.default_rng(3)
    errors = []
    for distance in (4.0, 8.0, 16.0):
        direction = rng.standard_normal(3)
        q = np.asarray(centre) + distance * direction / np.linalg.norm(direction)
        exact = solid_angles(points, tris, q).sum()
        errors.append(abs(_expansion(root, q) - exact))
    # a second-order expansion: the error falls like distance^-5 (~32x per doubling; without the
    # second-order term it falls 2-15x)
    assert errors[1] < errors[0] / 20 and errors[2] < errors[1] / 20
    assert errors[0] < 1e-3


@wp.kernel
def _signs(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), accuracy: float, threshold: float,
           out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.mesh_query_point_sign_winding_number(mesh, pts[i], 1.0e6, accuracy, threshold).sign


@pytest.mark.parametrize("accuracy, margin", [(1.0, 0.2), (2.0, 0.01), (4.0, 0.002)])
def test_signs_agree_with_the_exact_winding_number(accuracy, margin):
    points, tris = _cap()
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(tris.reshape(-1), dtype=wp.int32),
                   support_winding_number=True)
    q = (np.random.default_rng(5).random((300, 3)) * 3.0 - 1.5).astype(np.float32)
    exact = exact_winding(points, tris, q)
    out = wp.zeros(len(q), dtype=float)
    for threshold in (0.2, 0.5, 0.8):
        wp.launch(_signs, len(q), inputs=[mesh.id, wp.array(q, dtype=wp.vec3), accuracy, threshold, out])
        clear = np.abs(exact - threshold) > margin
        assert clear.sum() > 150
        np.testing.assert_array_equal(out.numpy()[clear], np.where(exact > threshold, -1.0, 1.0)[clear])


def test_refit_updates_the_table():
    points, tris = _cap()
    closed = np.concatenate([points, [[0.0, 0.0, 0.0]]]).astype(np.float32)
    mesh = wp.Mesh(points=wp.array(closed, dtype=wp.vec3), indices=wp.array(tris.reshape(-1), dtype=wp.int32),
                   support_winding_number=True)
    q = np.array([[0.0, 0.0, 0.9], [5.0, 0.0, 0.9]], np.float32)
    out = wp.zeros(2, dtype=float)
    wp.launch(_signs, 2, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), 2.0, 0.3, out])
    before = out.numpy().copy()
    mesh.points.assign(closed + np.array([5.0, 0.0, 0.0], np.float32))
    mesh.refit()
    wp.launch(_signs, 2, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), 2.0, 0.3, out])
    expected = [np.where(exact_winding(closed + s, tris, q) > 0.3, -1.0, 1.0) for s in (0.0, np.array([5.0, 0, 0]))]
    np.testing.assert_array_equal(before, expected[0])
    np.testing.assert_array_equal(out.numpy(), expected[1])
    assert not np.array_equal(expected[0], expected[1])


def _direct_row(points: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """A node's row computed from scratch over its triangles (no shifting of children's moments):
    about the area-weighted centre P, ``N1_ij = Σ A n_i d_j`` and ``N2_ijk = Σ A n_i (d_j d_k +
    spread_jk)`` with ``d`` the triangle's centroid minus P and ``spread = Σ_v e_v e_vᵀ / 12``."""
    corners = points.astype(np.float64)[tris]
    normal = 0.5 * np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area = np.linalg.norm(normal, axis=1)
    centroid = corners.mean(axis=1)
    p = (area[:, None] * centroid).sum(axis=0) / area.sum()
    d = centroid - p
    e = corners - centroid[:, None, :]
    second = d[:, :, None] * d[:, None, :] + np.einsum("tvj,tvk->tjk", e, e) / 12.0
    row = np.zeros(FLAG + 1)
    far = np.maximum(p - corners.min(axis=(0, 1)), corners.max(axis=(0, 1)) - p)
    row[P:P + 3], row[R2], row[S:S + 3] = p, far @ far, normal.sum(axis=0)
    row[N1:N1 + 9] = np.einsum("ti,tj->ij", normal, d).reshape(9)
    n2 = np.einsum("ti,tjk->ijk", normal, second)
    row[N2:N2 + 18] = [n2[i, a, b] for i in range(3) for a, b in PAIRS]
    return row


@pytest.mark.parametrize("faces", [1, 2, 5, 64, 300, 1000])
def test_every_row_matches_the_moments_of_its_triangles(faces):
    rng = np.random.default_rng(faces)
    points = rng.normal(size=(faces + 10, 3)).astype(np.float32)
    tris = np.stack([rng.choice(faces + 10, 3, replace=False) for _ in range(faces)]).astype(np.int32)
    corners = points[tris]
    tree = bvh_build.build(corners.min(axis=1), corners.max(axis=1), None)
    table = winding_rows(points, tris, tree).astype(np.float64)
    pre, _ = bvh_trail.heap_order(faces)
    scale = np.abs(table).max(axis=0) + 1e-30
    for slot in np.flatnonzero(pre >= 0):
        node = pre[slot]
        prim = tree.links[node, 1]
        if prim >= 0:  # a leaf: its corners and the flag
            np.testing.assert_array_equal(table[slot, :9], corners[prim].reshape(9))
            assert table[slot, FLAG] == 1.0
            continue
        expected = _direct_row(points, tris[tree.order[tree.first[node]:tree.last[node]]])
        assert table[slot, FLAG] == 0.0
        np.testing.assert_allclose(table[slot, :FLAG], expected[:FLAG], rtol=1e-5, atol=1e-5 * scale[:FLAG].max())
