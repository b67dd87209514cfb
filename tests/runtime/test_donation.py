"""Buffer donation on repeated launches: the output is written in place only when nothing but the
array holds its buffer; anything that still references the old contents keeps seeing them."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def _saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def _write_only(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i]  # never reads y: its buffer is still passed, so that it can be donated


def _pointer(a):
    return a.root._buffer.unsafe_buffer_pointer()


@pytest.fixture
def donate():
    saved = wp.config.donate_buffers
    yield
    wp.config.donate_buffers = saved


@pytest.mark.parametrize("kernel, expected", [(_saxpy, 6.0), (_write_only, 2.0)], ids=["reads", "write_only"])
@pytest.mark.parametrize("use_command", [False, True])
def test_repeated_launches_write_in_place(donate, use_command, kernel, expected):
    wp.config.donate_buffers = True
    x, y = wp.full(1024, 1.0), wp.zeros(1024)
    cmd = wp.launch(kernel, 1024, [2.0, x, y], record_cmd=True)
    run = cmd.launch if use_command else (lambda: wp.launch(kernel, 1024, [2.0, x, y]))
    run()
    run()
    before = _pointer(y)
    run()
    assert _pointer(y) == before
    np.testing.assert_allclose(y.numpy(), np.full(1024, expected))


def test_fused_chain_of_write_only_launches_writes_in_place(donate):
    wp.config.donate_buffers = True
    x, y, z = wp.full(1024, 1.0), wp.zeros(1024), wp.zeros(1024)
    for step in range(6):  # the recurring pair of launches becomes one fused program
        wp.launch(_write_only, 1024, [2.0, x, y])
        wp.launch(_write_only, 1024, [3.0, y, z])
        wp.synchronize()
        if step == 3:
            before = _pointer(y), _pointer(z)
    assert (_pointer(y), _pointer(z)) == before
    np.testing.assert_allclose(z.numpy(), np.full(1024, 6.0))


def test_switched_off(donate):
    wp.config.donate_buffers = False
    x, y = wp.full(1024, 1.0), wp.zeros(1024)
    for _ in range(2):
        wp.launch(_saxpy, 1024, [2.0, x, y])
    before = _pointer(y)
    wp.launch(_saxpy, 1024, [2.0, x, y])
    assert _pointer(y) != before


def test_held_buffers_keep_their_contents(donate):
    wp.config.donate_buffers = True
    x, y = wp.full(16, 1.0), wp.zeros(16)
    for _ in range(2):
        wp.launch(_saxpy, 16, [2.0, x, y])
    held_jax = wp.to_jax(y)       # zero-copy handle to the current buffer
    wp.launch(_saxpy, 16, [2.0, x, y])
    held_numpy = y.numpy()         # may be a zero-copy view on CPU
    wp.launch(_saxpy, 16, [2.0, x, y])
    wp.launch(_saxpy, 16, [2.0, x, y])
    np.testing.assert_allclose(np.asarray(held_jax), 4.0)
    np.testing.assert_allclose(held_numpy, 6.0)
    np.testing.assert_allclose(y.numpy(), 10.0)


def test_tape_inputs_are_never_donated(donate):
    wp.config.donate_buffers = True
    x = wp.full(8, 1.0, requires_grad=True)
    y = wp.zeros(8, requires_grad=True)
    for _ in range(2):
        wp.launch(_saxpy, 8, [2.0, x, y])  # plans exist for this launch
    tape = wp.Tape()
    with tape:
        wp.launch(_saxpy, 8, [3.0, x, y])
        wp.launch(_saxpy, 8, [3.0, x, y])
    tape.backward(grads={y: wp.ones(8)})
    np.testing.assert_allclose(x.grad.numpy(), 6.0)
    np.testing.assert_allclose(y.numpy(), 10.0)


def _executables(kernel) -> dict:
    (compiled,) = [c for c in kernel._cache.values() if hasattr(c, "_executables")]
    return compiled._executables


def _make_integrate():
    @wp.kernel
    def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
        i = wp.tid()
        v[i] = v[i] + wp.vec3(0.0, -9.8, 0.0) * dt
        x[i] = x[i] + v[i] * dt

    return integrate


@pytest.mark.parametrize("lanes, large", [(256, False), (8192, True)])  # 3 KiB and 96 KiB buffers
def test_donation_is_dropped_where_xla_would_copy_large_buffers_first(donate, lanes, large):
    # interleaved vec3 components are written from strided reads of the same buffer: XLA cannot
    # update it in place and would copy the donated parameter. Above COPY_LIMIT (64 KiB) the plain
    # executable runs; below, the donating one (a small copy costs less than a second compile)
    wp.config.donate_buffers = True
    kernel = _make_integrate()
    x = wp.array(np.zeros((lanes, 3), np.float32), dtype=wp.vec3)
    v = wp.array(np.ones((lanes, 3), np.float32), dtype=wp.vec3)
    for _ in range(3):
        wp.launch(kernel, lanes, [x, v, 0.5])
    exes = _executables(kernel)
    assert (exes[True] is exes.get(False)) == large
    plain_compiled = False in exes and exes[False]._cache_size() > 0
    assert plain_compiled == large  # (a small copy: one compile only)
    expected_v = np.ones(3) + np.array([0.0, -9.8, 0.0]) * 0.5 * 3
    np.testing.assert_allclose(v.numpy(), np.tile(expected_v, (lanes, 1)), rtol=1e-6)


@wp.kernel
def _scale(a: float, y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = y[i] * a


def test_donation_is_kept_where_xla_writes_in_place(donate):
    wp.config.donate_buffers = True
    y = wp.ones(64, dtype=wp.vec3)
    for _ in range(3):
        wp.launch(_scale, 64, [2.0, y])
    np.testing.assert_allclose(y.numpy(), np.full((64, 3), 8.0))
    exes = _executables(_scale)
    assert exes[True] is not exes[False]


def _make_compile_once():
    @wp.kernel
    def compile_once(x: wp.array(dtype=wp.vec3), s: float):
        i = wp.tid()
        x[i] = x[i] * s + wp.vec3(1.0, 2.0, 3.0)

    return compile_once


@pytest.mark.parametrize("use_command", [False, True])
def test_a_kernel_compiles_once(donate, use_command):
    """Later launches reuse the first launch's executable: the first launch already donates when it can
    (a donating executable built on the second launch would be a second XLA compilation)."""
    import jax.monitoring

    wp.config.donate_buffers = True
    kernel = _make_compile_once()
    x = wp.zeros(333, dtype=wp.vec3)
    wp.launch(_saxpy, 4, [2.0, wp.ones(4), wp.zeros(4)])  # jwarp's own one-time jax work
    wp.synchronize()
    builds: list = []  # an XLA compilation, or an executable loaded from the on-disk cache

    def listener(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            builds.append(duration)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        cmd = wp.launch(kernel, 333, [x, 2.0], record_cmd=True) if use_command else None
        for _ in range(4):
            if cmd is not None:
                cmd.launch()
            else:
                wp.launch(kernel, 333, [x, 2.0])
        wp.synchronize()  # deferred Launch replays run here
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    expected = np.zeros((333, 3), np.float32)
    for _ in range(4):
        expected = expected * 2.0 + np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(x.numpy(), expected)
    assert len(builds) == 1, f"{len(builds)} executables built"
