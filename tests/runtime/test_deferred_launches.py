"""Deferred ``Launch.launch()`` replays (jwarp/runtime/deferred.py): every observable result equals
running each launch at once, in order; long runs of replays go through the loop program."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import deferred, execution


@wp.kernel
def _affine(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * 0.75 + s + float(i)


@wp.kernel
def _vec_step(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    v[i] = v[i] * 0.5 + wp.vec3(1.0, -2.0, float(i)) * dt
    x[i] = x[i] + v[i] * dt


@wp.kernel
def _read_into(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i] * 2.0


@wp.kernel
def _talk(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0
    print(a[i])


def _affine_ref(a: np.ndarray, s: float, n: int) -> np.ndarray:
    idx = np.arange(a.size, dtype=np.float32)
    for _ in range(n):
        a = (a * np.float32(0.75) + np.float32(s) + idx).astype(np.float32)
    return a


@pytest.fixture(autouse=True)
def _restore():
    saved = wp.config.defer_launch_replays
    yield
    wp.config.defer_launch_replays = saved
    deferred.flush()


@pytest.mark.parametrize("count", [1, 2, execution.REPEAT_MIN - 1, execution.REPEAT_MIN, 50])
def test_replays_equal_launches_run_one_by_one(count):
    a = wp.array(np.linspace(-1, 1, 7).astype(np.float32))
    cmd = wp.launch(_affine, 7, inputs=[a, 0.5], record_cmd=True)
    for _ in range(count):
        cmd.launch()
    np.testing.assert_array_equal(a.numpy(), _affine_ref(np.linspace(-1, 1, 7).astype(np.float32), 0.5, count))


def test_long_runs_use_the_loop_program_and_match():
    x = wp.zeros(5, dtype=wp.vec3)
    v = wp.array(np.ones((5, 3), np.float32), dtype=wp.vec3)
    cmd = wp.launch(_vec_step, 5, inputs=[x, v, 0.01], record_cmd=True)
    xr, vr = np.zeros((5, 3), np.float32), np.ones((5, 3), np.float32)
    add = np.stack([np.ones(5), -2 * np.ones(5), np.arange(5)], 1).astype(np.float32)
    total = 0
    for batch in (execution.REPEAT_AFTER, 300, 3):
        for _ in range(batch):
            cmd.launch()
        wp.synchronize()
        total += batch
    for _ in range(total):
        vr = (vr * np.float32(0.5) + add * np.float32(0.01)).astype(np.float32)
        xr = (xr + vr * np.float32(0.01)).astype(np.float32)
    assert cmd._program.repeat not in (None, False)  # the batches of 1024 and 300 ran as one call each
    np.testing.assert_allclose(v.numpy(), vr, rtol=1e-6)
    np.testing.assert_allclose(x.numpy(), xr, rtol=1e-5, atol=1e-6)


def test_every_observation_sees_the_launches_before_it():
    a = wp.zeros(4)
    out = wp.zeros(4)
    cmd = wp.launch(_affine, 4, inputs=[a, 1.0], record_cmd=True)
    for _ in range(3):
        cmd.launch()
    wp.launch(_read_into, 4, inputs=[a, out])  # another launch reads the results
    expected = _affine_ref(np.zeros(4, np.float32), 1.0, 3)
    np.testing.assert_array_equal(out.numpy(), expected * 2)
    cmd.launch()
    a.zero_()  # overwriting runs the pending launch first, so the zeros stay
    np.testing.assert_array_equal(a.numpy(), np.zeros(4, np.float32))
    cmd.launch()
    copy = wp.clone(a)
    np.testing.assert_array_equal(copy.numpy(), _affine_ref(np.zeros(4, np.float32), 1.0, 1))


def test_parameter_changes_apply_from_their_point_on():
    a = wp.zeros(3)
    cmd = wp.launch(_affine, 3, inputs=[a, 1.0], record_cmd=True)
    for _ in range(4):
        cmd.launch()
    cmd.set_param_by_name("s", -2.0)
    for _ in range(5):
        cmd.launch()
    b = wp.zeros(3)
    cmd.set_param_at_index(0, b)  # a new array: a keeps its results, b gets the next launches
    cmd.launch()
    expected = _affine_ref(_affine_ref(np.zeros(3, np.float32), 1.0, 4), -2.0, 5)
    np.testing.assert_array_equal(a.numpy(), expected)
    np.testing.assert_array_equal(b.numpy(), _affine_ref(np.zeros(3, np.float32), -2.0, 1))


def test_a_capture_does_not_take_launches_deferred_before_it():
    a = wp.zeros(2)
    cmd = wp.launch(_affine, 2, inputs=[a, 1.0], record_cmd=True)
    cmd.launch()
    with wp.ScopedCapture() as capture:
        cmd.launch()
    np.testing.assert_array_equal(a.numpy(), _affine_ref(np.zeros(2, np.float32), 1.0, 1))
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), _affine_ref(np.zeros(2, np.float32), 1.0, 2))


def test_kernels_with_host_output_run_at_once(capfd):
    a = wp.zeros(1)
    cmd = wp.launch(_talk, 1, inputs=[a], record_cmd=True)
    cmd.launch()
    assert deferred.pending is None
    wp.synchronize()
    assert capfd.readouterr().out.split() == ["1"]


def test_deferral_can_be_switched_off():
    wp.config.defer_launch_replays = False
    a = wp.zeros(2)
    cmd = wp.launch(_affine, 2, inputs=[a, 1.0], record_cmd=True)
    cmd.launch()
    cmd.launch()
    assert deferred.pending is None
    np.testing.assert_array_equal(a.numpy(), _affine_ref(np.zeros(2, np.float32), 1.0, 2))
