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


def _pointer(a):
    return a.root._buffer.unsafe_buffer_pointer()


@pytest.fixture
def donate():
    saved = wp.config.donate_buffers
    yield
    wp.config.donate_buffers = saved


@pytest.mark.parametrize("use_command", [False, True])
def test_repeated_launches_write_in_place(donate, use_command):
    wp.config.donate_buffers = True
    x, y = wp.full(1024, 1.0), wp.zeros(1024)
    cmd = wp.launch(_saxpy, 1024, [2.0, x, y], record_cmd=True)
    run = cmd.launch if use_command else (lambda: wp.launch(_saxpy, 1024, [2.0, x, y]))
    run()
    run()
    before = _pointer(y)
    run()
    assert _pointer(y) == before
    np.testing.assert_allclose(y.numpy(), np.full(1024, 6.0))


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
