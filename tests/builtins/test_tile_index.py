"""Tile subscript and view errors: each names the kernel line and says what is wrong, as Warp's do
(messages checked against the wording of Warp 1.19's errors)."""

from __future__ import annotations

import pytest

import jwarp as wp

M = 4
N = 8


def _launch(kernel, *inputs):
    wp.launch_tiled(kernel, dim=1, inputs=list(inputs), block_dim=32)


def _kernel(body):
    return wp.kernel(body, module="unique", enable_backward=False)


def _float_index():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    r = t[1.5, :]


def _float_index_tile():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    r = t[wp.tile_arange(0.0, 2.0, 1.0, dtype=float), :]


def _partial_slice_with_index_tile():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    r = t[wp.tile_arange(0, 2, dtype=int), 1:3]


def _empty_slice():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    r = t[2:2, :]


def _out_of_bounds():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    r = t[M, :]


def _scalar_into_slice():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    t[0:2, :] = 1.0


def _shape_mismatch():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    t[0:2, :] = wp.tile_ones(shape=(3, N), dtype=float)


def _compound_into_row():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    t[0] += wp.tile_ones(shape=N, dtype=float)


def _reshape_strided():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    f = wp.tile_reshape(t[:, ::2], shape=(M * N // 2,))


def _view_shape_and_slice():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    v = wp.tile_view(t, offset=(slice(0, 2, 1), 0), shape=(2, 2))


def _view_negative_offset():
    t = wp.tile_ones(shape=(M, N), dtype=float)
    v = wp.tile_view(t, offset=(-1,))


@pytest.mark.parametrize(
    "body, error, message",
    [
        (_float_index, TypeError, "must be integers or slices"),
        (_float_index_tile, ValueError, "integer index tile"),
        (_partial_slice_with_index_tile, ValueError, "requires ':' on all other axes"),
        (_empty_slice, ValueError, "empty tile"),
        (_out_of_bounds, ValueError, "out of bounds"),
        (_scalar_into_slice, ValueError, "requires a tile of matching shape"),
        (_shape_mismatch, ValueError, "shape mismatch"),
        (_compound_into_row, RuntimeError, "Compound assignment to a tile view"),
        (_reshape_strided, ValueError, "requires a contiguous tile"),
        (_view_shape_and_slice, ValueError, "'shape' together with a slice"),
        (_view_negative_offset, ValueError, "out of bounds"),
    ],
)
def test_tile_subscript_errors_name_the_kernel_line(body, error, message):
    with pytest.raises(error, match=message) as info:
        _launch(_kernel(body))
    assert body.__name__ in str(info.value)


@wp.kernel(module="unique")
def _runtime_bound(n: int):
    t = wp.tile_ones(shape=N, dtype=float)
    v = wp.tile_view(t, offset=(slice(0, n, 1),))


def test_runtime_slice_bound_is_rejected():
    with pytest.raises(ValueError, match="compile-time constant"):
        _launch(_runtime_bound, 3)


def _arange_four_args():
    t = wp.tile_arange(0, 5, 1, 9, dtype=int)


def _arange_zero_step():
    t = wp.tile_arange(0, 10, 0, dtype=int)


def _arange_empty():
    t = wp.tile_arange(5, 5, dtype=int)


def _arange_fractional_int():
    t = wp.tile_arange(0.0, 3.5, dtype=wp.int32)


def _arange_bool():
    t = wp.tile_arange(0, 4, dtype=wp.bool)


def _vec_tile_times_vec():
    t = wp.tile_ones(shape=M, dtype=wp.vec3)
    u = t * wp.vec3(1.0, 2.0, 3.0)


def _vec_tile_times_vec_tile():
    t = wp.tile_ones(shape=M, dtype=wp.vec3)
    u = t * t


def _squeeze_axis():
    t = wp.tile_ones(shape=(M, 1, N), dtype=float)
    u = wp.tile_squeeze(t, axis=(3,))


def _broadcast_rank():
    t = wp.tile_ones(shape=1, dtype=float)
    u = wp.tile_broadcast(t, shape=(1, 1, 1, 1, 1))


@pytest.mark.parametrize(
    "body, error, message",
    [
        (_arange_four_args, TypeError, r"accepts at most 3 positional arguments, got 4"),
        (_arange_zero_step, ValueError, "step cannot be zero"),
        (_arange_empty, ValueError, "non-empty range"),
        (_arange_fractional_int, ValueError, "stop=3.5 has a fractional part"),
        (_arange_bool, TypeError, "requires a numeric scalar dtype"),
        (_vec_tile_times_vec, TypeError, r"Cannot multiply tile<vec3f> by vec3f: at least one operand must be"),
        (_vec_tile_times_vec_tile, TypeError, "element type must be scalar"),
        (_squeeze_axis, ValueError, r"tile_squeeze\(\) axis 3 is out of bounds for tile with 3 dimensions"),
        (_broadcast_rank, ValueError, "between one and four dimensions, got 5"),
    ],
)
def test_tile_construction_and_operator_errors(body, error, message):
    with pytest.raises(error, match=message) as info:
        _launch(_kernel(body))
    assert body.__name__ in str(info.value)


@wp.kernel(module="unique")
def _runtime_arange(n: int):
    t = wp.tile_arange(0, n, 1, dtype=int)


def test_runtime_arange_bound_is_rejected():
    with pytest.raises(RuntimeError, match="compile time constants, but stop is not"):
        _launch(_runtime_arange, 3)


@wp.kernel(module="unique")
def _complex_matmul(a: wp.array2d(dtype=wp.vec2)):
    t = wp.tile_load(a, shape=(2, 2))
    c = wp.tile_matmul(t, t)


@wp.kernel(module="unique")
def _bad_precision(a: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(2, 2))
    c = wp.tile_matmul(t, t, precision="fp8")


def test_tile_matmul_dtype_and_precision_errors():
    with pytest.raises(TypeError, match="does not support complex tiles"):
        _launch(_complex_matmul, wp.zeros((2, 2), dtype=wp.vec2))
    with pytest.raises(ValueError, match="precision must be the string literal 'default' or 'tf32'"):
        _launch(_bad_precision, wp.zeros((2, 2), dtype=float))


@wp.kernel(module="unique")
def _atomic_add_int8(src: wp.array(dtype=wp.int8), dst: wp.array(dtype=wp.int8)):
    wp.tile_atomic_add(dst, wp.tile_load(src, shape=4))


def test_tile_atomic_add_rejects_narrow_integers():
    with pytest.raises(RuntimeError, match=r"tile_atomic_add\(\) only supports"):
        _launch(_atomic_add_int8, wp.zeros(4, dtype=wp.int8), wp.zeros(4, dtype=wp.int8))


@wp.kernel(module="unique", enable_backward=False)
def _print_tiles(x: wp.array(dtype=wp.int32)):
    t = wp.tile_load(x, shape=(4,))
    wp.print(t)
    wp.print(wp.tile_ones(shape=(2, 3), dtype=float))


def test_tile_print_once_per_block_in_warps_format(capfd):
    x = wp.array([1, 2, 3, 4], dtype=wp.int32)
    wp.launch_tiled(_print_tiles, dim=2, inputs=[x], block_dim=1)
    wp.synchronize()
    out = capfd.readouterr().out
    expected = "[1 2 3 4] = tile(shape=(4), storage=register)\n[[1 1 1]\n [1 1 1]] = tile(shape=(2,3), storage=register)\n"
    assert out == expected * 2
