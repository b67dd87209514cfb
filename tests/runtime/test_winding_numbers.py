"""Fast winding numbers (jwarp/runtime/geometry/winding_table.py, jwarp/builtins/winding_number.py)
against the exact sum of the faces' solid angles: the per-node expansion, the signs of
``mesh_query_point_sign_winding_number`` at several accuracies, and the table after ``refit``."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins.winding_number import N1, N2, PAIRS, R2, FLAG, P, S
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
