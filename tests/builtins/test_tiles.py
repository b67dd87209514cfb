"""Tile kernels: finite-difference gradients, cooperative blocks (enable_cpu_blocks), launch_tiled
argument errors and tile typing errors."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp

T = 4


@wp.kernel
def _tile_loss(x: wp.array2d(dtype=float), w: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(x, shape=(T, T), offset=(i * T, 0))
    b = wp.tile_load(w, shape=(T, T), offset=(0, 0))
    c = wp.tile_map(wp.tanh, wp.tile_matmul(a, wp.tile_transpose(b)))
    wp.tile_atomic_add(loss, wp.tile_sum(c * c), offset=0)


def _loss(x_np: np.ndarray, w_np: np.ndarray) -> float:
    loss = wp.zeros(1, dtype=float)
    wp.launch_tiled(_tile_loss, dim=2, inputs=[wp.array(x_np), wp.array(w_np), loss], block_dim=8)
    return float(loss.numpy()[0])


def test_tile_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((2 * T, T)).astype(np.float32) * 0.5
    w_np = rng.standard_normal((T, T)).astype(np.float32) * 0.5
    x = wp.array(x_np, requires_grad=True)
    w = wp.array(w_np, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(_tile_loss, dim=2, inputs=[x, w, loss], block_dim=8)
    tape.backward(loss)
    eps = 1e-2
    for arr, grad, which in ((x_np, x.grad.numpy(), 0), (w_np, w.grad.numpy(), 1)):
        for idx in [(0, 0), (1, 2), (arr.shape[0] - 1, 3)]:
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            args_p = (plus, w_np) if which == 0 else (x_np, plus)
            args_m = (minus, w_np) if which == 0 else (x_np, minus)
            fd = (_loss(*args_p) - _loss(*args_m)) / (2 * eps)
            assert grad[idx] == pytest.approx(fd, rel=2e-2, abs=2e-3)


@wp.kernel
def _lanes(out: wp.array2d(dtype=int), sums: wp.array(dtype=int)):
    i, lane = wp.tid()
    t = wp.tile(lane + 10 * i)
    s = wp.tile_sum(t)
    out[i, lane] = wp.untile(t) * 2 + s[0] * 0 + wp.block_dim()
    wp.tile_store(sums, s, offset=i)


def test_cooperative_blocks_with_cpu_blocks_enabled():
    saved = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        out = wp.zeros((3, 8), dtype=int)
        sums = wp.zeros(3, dtype=int)
        wp.launch_tiled(_lanes, dim=3, inputs=[out, sums], block_dim=8)
    finally:
        wp.config.enable_cpu_blocks = saved
    lanes = np.arange(8)
    expected = np.stack([(lanes + 10 * i) * 2 + 8 for i in range(3)])
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(sums.numpy(), [np.sum(lanes + 10 * i) for i in range(3)])


def test_launch_tiled_requires_block_dim_and_small_grid():
    out = wp.zeros((1, 1), dtype=int)
    sums = wp.zeros(1, dtype=int)
    with pytest.raises(RuntimeError, match="block_dim"):
        wp.launch_tiled(_lanes, dim=1, inputs=[out, sums])
    with pytest.raises(RuntimeError, match="fewer than 4"):
        wp.launch_tiled(_lanes, dim=(1, 1, 1, 1), inputs=[out, sums], block_dim=1)


@wp.kernel
def _bad_add(a: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=T, offset=0)
    wp.tile_store(a, t + 1.0, offset=0)


def test_tile_plus_scalar_is_rejected_at_the_kernel_line():
    a = wp.zeros(T, dtype=float)
    with pytest.raises(wp.errors.WarpCodegenError, match="add"):
        wp.launch_tiled(_bad_add, dim=1, inputs=[a], block_dim=1)


@wp.func
def _times(a: float, b: float):
    return a * b


@wp.kernel
def _empty_custom_rows(x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    t = wp.tile_load(x, shape=(8, 4), storage="shared")
    wp.tile_store(out, wp.tile_reduce(_times, t, axis=1))


def test_custom_axis_reduce_over_rows_of_missing_threads_raises():
    """A partial block whose missing threads own whole rows: a user operator has no identity for
    them (Warp asserts); a full block reduces normally."""
    saved = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        x = wp.full((8, 4), 2.0, dtype=float)
        out = wp.zeros(8, dtype=float)
        wp.launch(_empty_custom_rows, dim=16, inputs=[x, out], block_dim=16)
        np.testing.assert_array_equal(out.numpy(), np.full(8, 16.0))
        with pytest.raises(RuntimeError, match="no declared identity"):
            wp.launch(_empty_custom_rows, dim=8, inputs=[x, out], block_dim=16)
    finally:
        wp.config.enable_cpu_blocks = saved


@wp.kernel
def _wide_bound(out: wp.array(dtype=float)):
    values = wp.tile_arange(0, 1180591620717411303424, 18446744073709551616, dtype=wp.float32)
    wp.tile_store(out, values)


def test_tile_arange_integer_bound_wider_than_uint64_is_rejected():
    with pytest.raises(ValueError, match="too wide to use as an integer bound"):
        wp.launch_tiled(_wide_bound, dim=1, inputs=[wp.zeros(64, dtype=float)], block_dim=64)


@wp.kernel
def _huge_shared(out: wp.array(dtype=float)):
    t = wp.tile_zeros(shape=65537, dtype=float, storage="shared")
    out[0] = t[0]


def test_shared_tile_past_the_cpu_arena_is_rejected():
    with pytest.raises(Exception, match="exceeds the 256 KiB arena"):
        wp.launch_tiled(_huge_shared, dim=1, inputs=[wp.zeros(1, dtype=float)], block_dim=1)


@wp.kernel(module="unique", module_options={"mode": "debug"})
def _extract_past_end(out: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_zeros(shape=1, dtype=int, storage="shared")
    out[0] = wp.tile_extract(t, i)


@wp.kernel(module="unique")
def _extract_past_end_release(out: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_zeros(shape=1, dtype=int, storage="shared")
    out[0] = wp.tile_extract(t, i)


def test_debug_mode_reports_tile_index_out_of_bounds():
    out = wp.zeros(1, dtype=int)
    wp.launch(_extract_past_end, dim=1, inputs=[out])  # in range
    with pytest.raises(IndexError, match=r"tile index out of bounds.*shared tile: coordinate dimension 0.*\[0, 1\)"):
        wp.launch(_extract_past_end, dim=2, inputs=[out])
    wp.launch(_extract_past_end_release, dim=2, inputs=[out])  # no check outside debug mode, as Warp
