"""The mesh node table (``jwarp.builtins.mesh_rows``): built at construction and refit, read by query
launches while it matches the points they would read, and built in the kernel otherwise, with the
same results. (Query results against real Warp: tests/differential/programs/geometry_mesh_*.py.)"""

from __future__ import annotations

import numpy as np

import jwarp as wp
from tests.differential.meshes import torus


@wp.kernel
def _queries(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4),
             faces: wp.array(dtype=wp.int32)):
    i = wp.tid()
    p = points[i]
    q = wp.mesh_query_point_sign_normal(mesh, p, 10.0)
    c = wp.mesh_query_point_no_sign(mesh, p, 10.0)
    r = wp.mesh_query_ray(mesh, p, wp.normalize(wp.vec3(0.3, 0.2, 1.0) - p), 10.0)
    n = wp.mesh_query_ray_count_intersections(mesh, p, wp.vec3(1.0, 0.0, 0.0))
    out[i] = wp.vec4(q.sign, q.u, c.v, r.t)
    faces[i] = q.face * 1000000 + c.face * 1000 + r.face + n * 7


def _run(mesh, points):
    out, faces = wp.zeros(len(points), dtype=wp.vec4), wp.zeros(len(points), dtype=wp.int32)
    wp.launch(_queries, len(points), [mesh.id, points, out, faces])
    return out.numpy(), faces.numpy()


def test_the_table_is_read_while_current_and_built_in_the_kernel_otherwise():
    verts, tris = torus(rings=24, sides=12)
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(tris, dtype=wp.int32))
    rng = np.random.default_rng(3)
    points = wp.array(rng.uniform(-1.6, 1.6, (300, 3)).astype(np.float32), dtype=wp.vec3)
    assert mesh._launch_operands().static[-1] == ("trail_rows", True)
    read = _run(mesh, points)
    mesh.points.assign(verts)  # the same positions in a new buffer, no refit: the kernel builds the table
    assert mesh._launch_operands().static[-1] == ("trail_rows", False)
    built = _run(mesh, points)
    for a, b in zip(read, built):
        np.testing.assert_array_equal(a, b)
    mesh.refit()  # launches read the table built at construction: the refit builds it again
    assert mesh._launch_operands().static[-1] == ("trail_rows", True)
    for a, b in zip(read, _run(mesh, points)):
        np.testing.assert_array_equal(a, b)


def test_a_mesh_refit_before_each_query_leaves_the_table_to_the_kernel():
    verts, tris = torus(rings=16, sides=8)
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(tris, dtype=wp.int32))
    points = wp.array(np.array([[0.0, 0.0, 0.2], [1.0, 0.0, 0.6]], np.float32), dtype=wp.vec3)
    for k in range(3):
        mesh.points.assign(verts * np.float32(1.0 + 0.1 * k))
        mesh.refit()
        assert mesh._launch_operands().static[-1] == ("trail_rows", False)
        _run(mesh, points)


def test_a_refit_table_follows_moved_points():
    verts, tris = torus(rings=16, sides=8)
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(tris, dtype=wp.int32))
    points = wp.array(np.array([[0.0, 0.0, 0.2], [1.0, 0.0, 0.6], [0.0, 2.0, 0.0]], np.float32), dtype=wp.vec3)
    before = _run(mesh, points)
    mesh.points = wp.array(verts * np.float32(1.5), dtype=wp.vec3)  # (the setter refits)
    assert mesh._launch_operands().static[-1] == ("trail_rows", True)
    moved = _run(mesh, points)
    assert not np.array_equal(before[0], moved[0])
    mesh.points.assign(mesh.points.numpy())  # the kernel builds the table from the live points
    assert mesh._launch_operands().static[-1] == ("trail_rows", False)
    for a, b in zip(moved, _run(mesh, points)):
        np.testing.assert_array_equal(a, b)
