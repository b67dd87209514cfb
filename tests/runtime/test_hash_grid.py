"""wp.HashGrid's Python side: construction and build validation, ids, and the kernel-side error for
a query whose id does not reach the launch. Query results are checked against Warp in
tests/differential/programs/geometry_hash_grid.py."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import handles


def test_ids_are_distinct_uint64_handles_of_live_grids():
    a, b = wp.HashGrid(2, 2, 2), wp.HashGrid(2, 2, 2)
    assert isinstance(a.id, int) and a.id != b.id and 0 < a.id < 2**64
    assert handles.lookup(a.id) is a
    stale = b.id
    del b
    assert handles.lookup(stale) is None
    assert handles.lookup(5) is None


@pytest.mark.parametrize("dims, error", [((0, 1, 1), RuntimeError), ((2048, 2048, 1024), RuntimeError),
                                         ((1.5, 1, 1), TypeError)])
def test_bad_dimensions_raise(dims, error):
    with pytest.raises(error):
        wp.HashGrid(*dims)


def test_build_validates_points_and_radius():
    grid = wp.HashGrid(4, 4, 4)
    with pytest.raises(TypeError, match="vec3f"):
        grid.build(wp.zeros(3, dtype=wp.vec3d), 1.0)
    with pytest.raises(ValueError, match="positive"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 0.0)
    with pytest.raises(TypeError, match="Unsupported dtype"):
        wp.HashGrid(2, 2, 2, dtype=wp.int32)


def test_cell_ranges_follow_a_stable_sort_of_cells():
    pts = np.array([[0.6, 0, 0], [0.1, 0, 0], [0.7, 0, 0], [-0.4, 0, 0]], np.float32)
    grid = wp.HashGrid(2, 1, 1)
    grid.build(wp.array(pts, dtype=wp.vec3), 0.5)
    # cells: 1, 0, 1, (-1 mod 2) = 1 -> sorted ids [1, 0, 2, 3]
    assert grid._point_ids.numpy()[:4].tolist() == [1, 0, 2, 3]
    assert grid._cell_starts.numpy().tolist() == [0, 1]
    assert grid._cell_ends.numpy().tolist() == [1, 4]


def _cells(pts: np.ndarray, width: float, dims: tuple) -> np.ndarray:
    c = np.floor(pts / np.float32(width)).astype(np.int64) % np.array(dims)
    return (c[:, 2] * dims[1] + c[:, 1]) * dims[0] + c[:, 0]


def test_rebuilds_sort_as_a_first_build_does():
    """A rebuild of as many points sorts them in the last build's order (faster when they moved
    little): the result is a stable sort of the cells whatever that order was."""
    rng = np.random.default_rng(3)
    dims = (6, 5, 4)
    grid = wp.HashGrid(*dims)
    pts = rng.random((700, 3)).astype(np.float32) * 3.0
    for step, count in enumerate([700, 700, 700, 300, 300, 700]):
        if step == 2:
            pts = rng.random((700, 3)).astype(np.float32) * 3.0  # points that all moved
        else:
            pts = pts + rng.normal(0, 0.05, pts.shape).astype(np.float32)  # points that moved a little
        grid.build(wp.array(pts[:count], dtype=wp.vec3), 0.5)
        cells = _cells(pts[:count], 0.5, dims)
        order = np.argsort(cells, kind="stable")
        np.testing.assert_array_equal(grid._point_ids.numpy()[:count], order, err_msg=f"build {step}")
        ends = np.cumsum(np.bincount(cells, minlength=int(np.prod(dims))))
        np.testing.assert_array_equal(grid._cell_ends.numpy(), ends)
        np.testing.assert_array_equal(grid._cell_starts.numpy(), ends - np.bincount(cells, minlength=ends.size))
    assert grid._sorted is not None and grid._sort_hint(700) is grid._point_ids.buffer  # (the hint was used)


@wp.kernel
def _query_without_grid(grid: wp.uint64, out: wp.array(dtype=int)):
    n = int(0)
    for j in wp.hash_grid_query(grid, wp.vec3(0.0), 1.0):
        n += 1
    out[0] = n


def test_query_with_an_id_that_is_no_grid_names_the_builtin():
    with pytest.raises(Exception, match="hash_grid_query.*no HashGrid id"):
        wp.launch(_query_without_grid, dim=1, inputs=[wp.uint64(12345), wp.zeros(1, dtype=int)])


def test_geometry_inputs_accept_factory_vector_types():
    """Arrays of ``wp.types.vector(3, float)`` (Warp's factory class, distinct from ``wp.vec3``) and of
    user subclasses are accepted as points wherever ``wp.vec3`` arrays are (as in Warp)."""
    V = wp.types.vector(length=3, dtype=wp.float32)

    class Sub(wp.vec3):
        pass

    pts = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    for t in (V, Sub):
        grid = wp.HashGrid(4, 4, 4)
        grid.build(wp.array(pts, dtype=t), radius=0.5)
        mesh = wp.Mesh(wp.array(pts, dtype=t), wp.array([0, 1, 2], dtype=wp.int32))
        bvh = wp.Bvh(wp.array(pts, dtype=t), wp.array(pts + 0.1, dtype=t))
        assert mesh.id and bvh.id
    with pytest.raises(TypeError):
        wp.HashGrid(4, 4, 4).build(wp.array(pts, dtype=wp.types.vector(3, wp.float64)), radius=0.5)
