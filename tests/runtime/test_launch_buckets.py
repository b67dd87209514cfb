"""Launch sizes in buckets (jwarp/runtime/launch_buckets.py): a kernel launched at a new size over
the same arrays runs its bucket's program, with the lanes past the launch's size masked off."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime.launch_buckets import MIN_BUCKET, PROMOTE_AFTER, bucket


@pytest.fixture(autouse=True)
def _buckets_on(monkeypatch):
    monkeypatch.setattr(wp.config, "bucket_launch_sizes", True)


def _scale_kernel():
    @wp.kernel(module="unique")
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float):
        i = wp.tid()
        y[i] = x[i] * s
        wp.atomic_add(y, 0, 0.0)  # (an atomic: the masked lanes must not count in it either)

    scale._forget_compiled()  # (the same source makes the same kernel: start from no program)
    return scale


def _grids(kernel) -> list:
    return sorted(key[0].grid for key in kernel._cache if isinstance(key, tuple) and hasattr(key[0], "grid"))


def test_buckets_cover_every_size_with_at_most_a_quarter_idle():
    sizes = np.arange(1, 5000)
    buckets = np.array([bucket(int(n)) for n in sizes])
    assert np.all(buckets >= sizes)
    assert np.all(np.diff(buckets) >= 0)
    big = sizes > MIN_BUCKET
    assert np.all(buckets[big] < 1.25 * sizes[big] + 1)
    assert len(set(buckets[(sizes > 1024) & (sizes <= 2048)])) == 4  # 4 programs per doubling


def test_new_sizes_in_one_bucket_compile_once_and_touch_only_their_threads():
    scale = _scale_kernel()
    x = wp.array(np.arange(200, dtype=np.float32) + 1.0)
    for n in (200, 90, 91, 95, 96, 90):
        y = wp.full(200, -1.0, dtype=float)
        wp.launch(scale, n, inputs=[x, y, 3.0])
        expected = np.full(200, -1.0, np.float32)
        expected[:n] = (np.arange(n) + 1.0) * 3.0
        np.testing.assert_array_equal(y.numpy(), expected)
    assert _grids(scale) == [(96,), (200,)]  # the first size exact, then one bucket for 90..96


def test_sizes_compiled_exactly_keep_their_program():
    scale = _scale_kernel()
    x = wp.array(np.ones(64, dtype=np.float32))
    y = wp.zeros(64, dtype=float)
    wp.launch(scale, 64, inputs=[x, y, 1.0])
    wp.launch(scale, 50, inputs=[x, y, 1.0])
    wp.launch(scale, 64, inputs=[x, y, 2.0])
    assert _grids(scale) == [(56,), (64,)]
    np.testing.assert_array_equal(y.numpy(), np.full(64, 2.0, np.float32))


def test_a_recurring_size_gets_its_exact_program():
    """A size launched again and again (here through its launch plan) ends with no idle lanes."""
    scale = _scale_kernel()
    x = wp.array(np.arange(128, dtype=np.float32))
    y = wp.zeros(128, dtype=float)
    wp.launch(scale, 128, inputs=[x, y, 1.0])
    for k in range(PROMOTE_AFTER - 1):
        wp.launch(scale, 90, inputs=[x, y, float(k)])
    assert _grids(scale) == [(96,), (128,)]
    for k in range(3):
        wp.launch(scale, 90, inputs=[x, y, 10.0 + k])
    assert _grids(scale) == [(90,), (96,), (128,)]
    expected = np.arange(128, dtype=np.float32)
    expected[:90] *= 12.0
    np.testing.assert_array_equal(y.numpy(), expected)


def test_turned_off_every_size_compiles_exactly(monkeypatch):
    monkeypatch.setattr(wp.config, "bucket_launch_sizes", False)
    scale = _scale_kernel()
    x = wp.array(np.ones(64, dtype=np.float32))
    y = wp.zeros(64, dtype=float)
    for n in (64, 50, 51):
        wp.launch(scale, n, inputs=[x, y, 1.0])
    assert _grids(scale) == [(50,), (51,), (64,)]


def test_masked_lanes_never_read_out_of_bounds_in_debug_mode(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "debug")

    @wp.kernel(module="unique")
    def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * 2.0

    x = wp.array(np.arange(60, dtype=np.float32))  # 57 runs in a bucket of 64 lanes: 60..63 masked
    for n in (60, 55, 57):
        y = wp.zeros(60, dtype=float)
        wp.launch(double, n, inputs=[x, y])
        expected = np.zeros(60, np.float32)
        expected[:n] = np.arange(n) * 2.0
        np.testing.assert_array_equal(y.numpy(), expected)
    assert _grids(double) == [(56,), (60,), (64,)]


def test_replays_of_a_bucketed_size_use_its_lane_count():
    """The second launch at a size runs through its launch plan (and launch chains): the plan keeps
    the run-time lane count of its size."""
    scale = _scale_kernel()

    @wp.kernel(module="unique")
    def add_one(y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = y[i] + 1.0

    x = wp.array(np.ones(128, dtype=np.float32))
    y = wp.zeros(128, dtype=float)
    wp.launch(scale, 128, inputs=[x, y, 0.0])
    wp.launch(add_one, 128, inputs=[y])
    for _ in range(6):  # a recurring sequence: a fused launch chain after a few rounds
        wp.launch(scale, 100, inputs=[x, y, 2.0])
        wp.launch(add_one, 77, inputs=[y])
    expected = np.zeros(128, np.float32)
    expected[:100] = 2.0
    expected[:77] += 1.0
    expected[100:] = 1.0  # from the first add_one over all 128
    np.testing.assert_array_equal(y.numpy(), expected)


def test_tape_gradients_through_a_bucketed_launch():
    @wp.kernel(module="unique")
    def squares(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(loss, 0, x[i] * x[i])

    values = np.linspace(-1.0, 1.0, 64).astype(np.float32)
    x = wp.array(values, requires_grad=True)
    for n in (64, 40, 33):
        loss = wp.zeros(1, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(squares, n, inputs=[x, loss])
        tape.backward(loss)
        expected = np.zeros(64, np.float32)
        expected[:n] = 2.0 * values[:n]
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
        np.testing.assert_allclose(loss.numpy()[0], np.sum(values[:n] ** 2), rtol=1e-5)
        tape.zero()
    assert (40,) in _grids(squares)


def test_multidimensional_launches_stay_exact():
    @wp.kernel(module="unique")
    def fill(y: wp.array2d(dtype=float)):
        i, j = wp.tid()
        y[i, j] = float(i * 10 + j)

    y = wp.zeros((8, 8), dtype=float)
    for dim in ((8, 8), (5, 8), (6, 3)):
        wp.launch(fill, dim, inputs=[y])
    assert _grids(fill) == [(5, 8), (6, 3), (8, 8)]
    expected = np.fromfunction(lambda i, j: i * 10 + j, (8, 8)).astype(np.float32)
    np.testing.assert_array_equal(y.numpy(), expected)
