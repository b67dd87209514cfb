"""wp.Mesh and wp.Bvh on the Python side: validation errors (Warp's exception types), ids, the
points/velocities setters, refit, the host BVH layout, and kernel-side errors. Query results are
checked against Warp in tests/differential/programs/geometry_mesh_*.py."""

import gc

import numpy as np
import pytest

import jwarp as wp
from jwarp.errors import WarpCodegenError
from jwarp.runtime import handles
from jwarp.runtime.geometry import bvh_build

TRI = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)


def _mesh(**kwargs):
    return wp.Mesh(points=wp.array(TRI, dtype=wp.vec3), indices=wp.array([0, 1, 2], dtype=wp.int32), **kwargs)


def test_mesh_ids_and_attributes():
    a, b = _mesh(), _mesh()
    assert a.id != b.id and handles.lookup(a.id) is a
    assert a.points.shape == (3,) and a.indices.size == 3 and a.velocities is None
    held = a.id
    del a
    gc.collect()
    assert handles.lookup(held) is None  # the id dies with the mesh
    for cls in (wp.Mesh, wp.Bvh, wp.HashGrid, wp.Volume):  # Warp's __del__, on objects never initialised
        cls.__new__(cls).__del__()


@pytest.mark.parametrize("make, error", [
    (lambda: wp.Mesh(wp.array(TRI, dtype=wp.vec3d), wp.array([0, 1, 2], dtype=wp.int32)), RuntimeError),
    (lambda: wp.Mesh(wp.array(TRI, dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int64)), RuntimeError),
    (lambda: wp.Mesh(wp.array(TRI, dtype=wp.vec3), wp.array([[0, 1, 2]], dtype=wp.int32)), RuntimeError),
    (lambda: wp.Mesh(wp.array(TRI, dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32),
                     velocities=wp.zeros(3, dtype=wp.vec3d)), RuntimeError),
    (lambda: _mesh(bvh_constructor="cuqbl"), ValueError),
    (lambda: _mesh(bvh_constructor="cubql", support_winding_number=True), RuntimeError),
    (lambda: _mesh(bvh_leaf_size=0), ValueError),
    (lambda: wp.Mesh(wp.array(TRI, dtype=wp.vec3), wp.array([0, 1, 7], dtype=wp.int32)), RuntimeError),
])
def test_mesh_validation(make, error):
    with pytest.raises(error):
        make()


def test_points_setter_checks_shape_and_refits():
    mesh = _mesh()
    with pytest.raises(RuntimeError, match="same shape"):
        mesh.points = wp.zeros(4, dtype=wp.vec3)
    mesh.points = wp.array(TRI + 5.0, dtype=wp.vec3)
    assert np.allclose(mesh._node_bounds.numpy()[0], [5, 5, 5, 6, 6, 5])
    with pytest.raises(RuntimeError, match="without velocities"):
        mesh.velocities = wp.zeros(3, dtype=wp.vec3)


def test_bvh_validation_and_refit():
    lo = wp.array(np.zeros((4, 3), np.float32), dtype=wp.vec3)
    hi = wp.array(np.ones((4, 3), np.float32), dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="same number"):
        wp.Bvh(lo, wp.zeros(3, dtype=wp.vec3))
    with pytest.raises(RuntimeError, match="wp.vec3"):
        wp.Bvh(wp.zeros(4, dtype=wp.vec3d), wp.zeros(4, dtype=wp.vec3d))
    with pytest.raises(ValueError, match="leaf_size"):
        wp.Bvh(lo, hi, leaf_size=0)
    with pytest.raises(RuntimeError, match="cubql"):
        wp.Bvh(lo, hi, constructor="cubql", groups=wp.zeros(4, dtype=wp.int32))
    bvh = wp.Bvh(lo, hi)
    wp.copy(hi, wp.array(np.full((4, 3), 2.0, np.float32), dtype=wp.vec3))
    bvh.refit()
    assert np.allclose(bvh._node_bounds.numpy()[0], [0, 0, 0, 2, 2, 2])
    assert wp.is_cubql_available()  # "cubql" is accepted (jwarp's own tree), as Warp's CPU build with cuBQL
    with pytest.raises(ValueError, match="non-cuBQL"):
        bvh.rebuild(constructor="cubql")
    cubql = wp.Bvh(lo, hi, constructor="cubql")
    cubql.rebuild(constructor="cubql")
    cubql.rebuild()


@pytest.mark.parametrize("n", [1, 2, 3, 5, 64])
def test_flat_tree_skip_links_visit_every_primitive_once(n):
    rng = np.random.default_rng(n)
    lo = rng.random((n, 3)).astype(np.float32)
    tree = bvh_build.build(lo, lo + 0.1)
    assert tree.node_count == 2 * n - 1
    node, seen = 0, []
    while node < tree.node_count:
        skip, prim = tree.links[node]
        if prim >= 0:
            seen.append(int(prim))
            node = skip
        else:
            node += 1
    assert sorted(seen) == list(range(n))
    for i in range(tree.node_count):  # every node's box holds its primitives
        prims = tree.order[tree.first[i]:tree.last[i]]
        assert np.all(tree.bounds[i, :3] <= lo[prims].min(0)) and np.all(tree.bounds[i, 3:] >= (lo + 0.1)[prims].max(0))


@wp.kernel
def _query_without_mesh(mesh: wp.uint64, out: wp.array(dtype=int)):
    q = wp.mesh_query_point_no_sign(mesh, wp.vec3(0.0, 0.0, 0.0), 1.0)
    out[0] = q.face


def test_query_without_a_bound_mesh_names_the_builtin():
    with pytest.raises(WarpCodegenError, match="mesh_query_point_no_sign"):
        wp.launch(_query_without_mesh, dim=1, inputs=[wp.uint64(7), wp.zeros(1, dtype=int)])


@wp.kernel
def _bad_overload(mesh: wp.uint64, out: wp.array(dtype=int)):
    q = wp.mesh_query_point_no_sign(mesh, wp.vec3(0.0, 0.0, 0.0), 1.0, 2)
    out[0] = q.face


def test_wrong_argument_count_is_no_overload():
    with pytest.raises(Exception, match="mesh_query_point_no_sign"):
        wp.launch(_bad_overload, dim=1, inputs=[_mesh().id, wp.zeros(1, dtype=int)])


@wp.kernel
def _tiled_step(bvh: wp.uint64, lo: wp.vec3, hi: wp.vec3, out: wp.array(dtype=int)):
    q = wp.tile_bvh_query_aabb(bvh, lo, hi)
    i = wp.untile(wp.tile_bvh_query_next(q))
    if i >= 0:
        wp.atomic_add(out, i, 1)
    if wp.tile_query_valid(q):
        wp.atomic_add(out, 4, 1)


def test_tiled_bvh_query_hands_each_thread_a_distinct_result():
    # without CPU thread blocks a block is one thread: one result per step
    lo = np.array([[0, 0, 0], [2, 2, 2], [0.1, 0.1, 0.1], [5, 5, 5]], np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 0.5, dtype=wp.vec3))
    out = wp.zeros(5, dtype=int)
    wp.launch_tiled(_tiled_step, dim=1, inputs=[bvh.id, wp.vec3(0.0, 0.0, 0.0), wp.vec3(1.0, 1.0, 1.0), out],
                    block_dim=8)
    hits = out.numpy()
    assert hits[[0, 2]].sum() == 1 and hits[[1, 3]].sum() == 0 and hits[4] == 1
