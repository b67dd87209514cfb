"""The field of ``wp.geometry.sparse_marching_cubes`` / ``lipschitz_octree`` is evaluated on padded
batches (jwarp/geometry/sparse_marching_cubes.py, ``_padded``): a handful of launch sizes however
many octree levels and frames, with the statistics and results of the exact batches."""

from __future__ import annotations

import numpy as np

import jwarp as wp
import jwarp.geometry  # noqa: F401  (wp.geometry)
from jwarp.geometry.sparse_marching_cubes import MIN_BATCH


@wp.kernel
def _sphere(points: wp.array(dtype=wp.vec3), radius: float, values: wp.array(dtype=wp.float32)):
    i = wp.tid()
    values[i] = wp.length(points[i]) - radius


def _field(radius: float, sizes: list):
    def evaluate(points):
        sizes.append(points.shape[0])
        values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device)
        wp.launch(_sphere, points.shape[0], inputs=[points, radius], outputs=[values], device=points.device)
        return values

    return evaluate


def _exact(field_of_numpy):
    def evaluate(points):
        return wp.array(field_of_numpy(points.numpy()), dtype=wp.float32, device=points.device)

    return evaluate


def test_launch_sizes_are_few_powers_of_two_and_results_match_exact_batches():
    sizes: list = []
    box = dict(lower=(-1.0, -1.0, -1.0), upper=(1.0, 1.0, 1.0), return_stats=True)
    for radius in (0.5, 0.55, 0.6, 0.7):  # octree levels of other sizes at every call
        verts, faces, stats = wp.geometry.sparse_marching_cubes(_field(radius, sizes), 33, 33, 33, **box)
        exact = _exact(lambda p, r=radius: (np.linalg.norm(p, axis=1) - r).astype(np.float32))
        want_verts, want_faces, want_stats = wp.geometry.sparse_marching_cubes(exact, 33, 33, 33, **box)
        np.testing.assert_allclose(verts.numpy(), want_verts.numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(faces.numpy(), want_faces.numpy())
        assert stats == want_stats  # field_evaluations counts the points asked for, not the padding
    assert all(s >= MIN_BATCH and s & (s - 1) == 0 for s in sizes), sizes
    assert len(set(sizes)) <= 4, sorted(set(sizes))


def test_padded_values_keep_gradients():
    """A field whose values require gradients: the vertices' gradient reaches its parameter through
    the cut-back view of the padded batch (finite differences of the same extraction)."""
    radius = wp.array([0.45], dtype=wp.float32, requires_grad=True)

    @wp.kernel
    def ball(points: wp.array(dtype=wp.vec3), r: wp.array(dtype=wp.float32), values: wp.array(dtype=wp.float32)):
        i = wp.tid()
        values[i] = wp.length(points[i]) - r[0]

    @wp.kernel
    def spread(verts: wp.array(dtype=wp.vec3), total: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(total, 0, wp.length(verts[i]))

    def field(points):
        values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device, requires_grad=True)
        wp.launch(ball, points.shape[0], inputs=[points, radius], outputs=[values], device=points.device)
        return values

    def total_for(r: float) -> float:
        radius.assign(np.array([r], np.float32))
        verts, _ = wp.geometry.sparse_marching_cubes(field, 13, 13, 13, lower=(-0.7, -0.7, -0.7),
                                                     upper=(0.7, 0.7, 0.7))
        return float(np.linalg.norm(verts.numpy(), axis=1).sum())

    total = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, _ = wp.geometry.sparse_marching_cubes(field, 13, 13, 13, lower=(-0.7, -0.7, -0.7),
                                                     upper=(0.7, 0.7, 0.7))
        wp.launch(spread, verts.shape[0], inputs=[verts, total])
    tape.backward(total)
    grad = float(radius.grad.numpy()[0])
    eps = 1e-3
    fd = (total_for(0.45 + eps) - total_for(0.45 - eps)) / (2 * eps)
    assert grad != 0.0
    np.testing.assert_allclose(grad, fd, rtol=2e-2)
