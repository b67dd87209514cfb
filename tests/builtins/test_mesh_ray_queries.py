"""``mesh_query_ray`` at a tie between a proper face and a sliver sharing its edge: the proper face is
reported whatever order the walk visits them in (jwarp/builtins/mesh_ray_queries.py, ``_after_ties``),
so the hit point's gradient is the proper face's (Warp's ``test_mesh_query_ray_grad`` meets such a tie
on its torus asset). Checked against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def _hit_point(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), faces: wp.array(dtype=int),
               points: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[i], wp.vec3(0.0, -1.0, 0.0), 100.0)
    p = wp.vec3()
    if q.result:
        p = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        faces[i] = q.face
    points[i] = p
    wp.atomic_add(loss, 0, p[0] + p[2])


_CORNERS = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0], [1.0, 0.0, -1.0e-12]], np.float32)
_PROPER, _SLIVER = [0, 1, 2], [1, 0, 3]  # both counter-clockwise seen from +y; they share the edge z = 0


@pytest.mark.parametrize("sliver_first", [False, True])
def test_the_proper_face_wins_a_tie_with_a_sliver(sliver_first):
    faces = [_SLIVER, _PROPER] if sliver_first else [_PROPER, _SLIVER]
    mesh = wp.Mesh(points=wp.array(_CORNERS, dtype=wp.vec3), indices=wp.array(np.ravel(faces), dtype=int))
    proper = 1 if sliver_first else 0

    def run(start, requires_grad=False):
        starts = wp.array([start], dtype=wp.vec3, requires_grad=requires_grad)
        found, points = wp.zeros(1, dtype=int), wp.zeros(1, dtype=wp.vec3, requires_grad=requires_grad)
        loss = wp.zeros(1, requires_grad=requires_grad)
        tape = wp.Tape()
        with tape:
            wp.launch(_hit_point, 1, inputs=[mesh.id, starts, found, points, loss])
        return tape, starts, found, points, loss

    tape, starts, found, points, loss = run((1.0, 1.0, 0.0), requires_grad=True)  # through the shared edge
    assert found.numpy()[0] == proper
    np.testing.assert_allclose(points.numpy()[0], [1.0, 0.0, 0.0], atol=1e-6)
    tape.backward(loss)
    # the loss is x + z of the hit point; past the edge (z < 0) the ray misses, so d/dz is one-sided,
    # towards the proper face
    eps = 1e-3
    loss_at = lambda x, z: float(run((x, 1.0, z))[4].numpy()[0])  # noqa: E731
    fd = [(loss_at(1.0 + eps, 0.0) - loss_at(1.0 - eps, 0.0)) / (2 * eps),
          (loss_at(1.0, eps) - loss_at(1.0, 0.0)) / eps]
    np.testing.assert_allclose(starts.grad.numpy()[0][[0, 2]], fd, atol=1e-3)


def test_a_sliver_alone_is_still_hit_at_its_distance():
    mesh = wp.Mesh(points=wp.array(_CORNERS, dtype=wp.vec3), indices=wp.array(_SLIVER, dtype=int))
    starts = wp.array([(1.0, 1.5, -5.0e-13)], dtype=wp.vec3)
    found, points, loss = wp.zeros(1, dtype=int), wp.zeros(1, dtype=wp.vec3), wp.zeros(1)
    wp.launch(_hit_point, 1, inputs=[mesh.id, starts, found, points, loss])

    @wp.kernel
    def distance(mesh: wp.uint64, out: wp.array(dtype=float)):
        out[0] = wp.mesh_query_ray(mesh, wp.vec3(1.0, 1.5, -5.0e-13), wp.vec3(0.0, -1.0, 0.0), 100.0).t

    t = wp.zeros(1)
    wp.launch(distance, 1, inputs=[mesh.id, t])
    assert found.numpy()[0] == 0
    assert t.numpy()[0] == np.float32(1.5)  # the float the walk moved a sliver's hit by is taken back
