"""Tile solver and FFT builtins: typing errors raised at the kernel line (values and gradients are
checked against real Warp in tests/differential/programs/tile_solvers.py), and wp.array's split of
the innermost axis into whole vector/matrix elements used to build vec2 FFT inputs."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def _non_square(a: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(2, 3))
    wp.tile_store(a, wp.tile_cholesky(t))


@wp.kernel
def _bad_fill_mode(a: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(2, 2))
    wp.tile_store(a, wp.tile_cholesky(t, fill_mode="diagonal"))


@wp.kernel
def _rhs_mismatch(a: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(2, 2))
    v = wp.tile_load(y, shape=3)
    wp.tile_store(y, wp.tile_lower_solve(t, v))


@wp.kernel
def _fft_of_floats(a: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(2, 2))
    wp.tile_fft(t)


@pytest.mark.parametrize("kernel, inputs, message", [
    (_non_square, lambda: [wp.zeros((2, 3), dtype=float)], "square 2-D tile"),
    (_bad_fill_mode, lambda: [wp.zeros((2, 2), dtype=float)], "fill_mode must be 'lower' or 'upper'"),
    (_rhs_mismatch, lambda: [wp.zeros((2, 2), dtype=float), wp.zeros(3, dtype=float)], "must have shape"),
    (_fft_of_floats, lambda: [wp.zeros((2, 2), dtype=float)], "vec2f or vec2d"),
])
def test_solver_typing_errors_name_the_builtin(kernel, inputs, message):
    with pytest.raises(wp.errors.WarpCodegenError, match=message):
        wp.launch_tiled(kernel, dim=1, inputs=inputs(), block_dim=1)


@pytest.mark.parametrize("data_shape, dtype, shape", [
    ((4, 8), wp.vec2f, (4, 4)),
    ((4, 2), wp.vec2f, (4,)),
    ((2, 4, 6), wp.vec3f, (2, 4, 2)),
    ((4, 8), wp.mat22f, (4, 2)),
    ((3, 4), wp.mat22f, (3,)),
    ((12,), wp.mat22f, (3,)),
])
def test_array_splits_the_innermost_axis_into_elements(data_shape, dtype, shape):
    data = np.arange(np.prod(data_shape), dtype=np.float32).reshape(data_shape)
    a = wp.array(data, dtype=dtype)
    assert a.shape == shape
    np.testing.assert_array_equal(a.numpy().ravel(), data.ravel())


def test_array_rejects_an_innermost_axis_of_partial_elements():
    with pytest.raises(RuntimeError, match="multiple of 2"):
        wp.array(np.zeros((4, 7), np.float32), dtype=wp.vec2f)
