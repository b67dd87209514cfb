"""Shared zero gradient buffers (jwarp/runtime/zero_buffers.py): ``Tape.zero`` and gradients consumed
by stores share one immutable zero buffer per shape, dtype and device; writing one of those arrays
afterwards (a kernel, possibly donating, ``fill_``, ``assign``) must never change another."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import tape_chain
from jwarp.runtime.zero_buffers import shared_zeros


@wp.kernel
def _add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def _write_double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


@wp.kernel
def _sum_squares(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


def _chain(n: int = 64):
    x = wp.array(np.linspace(-1.0, 1.0, n, dtype=np.float32), requires_grad=True)
    y = wp.zeros(n, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_write_double, n, inputs=[x], outputs=[y])
        wp.launch(_sum_squares, n, inputs=[y, loss])
    return x, y, loss, tape


def test_shared_zeros_is_one_buffer_per_key():
    cpu = wp.get_device("cpu")
    a = shared_zeros((5,), wp.float32, cpu)
    assert a is shared_zeros((5,), wp.float32, cpu)
    assert a is not shared_zeros((6,), wp.float32, cpu)
    assert a is not shared_zeros((5,), wp.float64, cpu)
    assert not np.asarray(a).any()


def test_deleted_shared_zeros_is_replaced():
    cpu = wp.get_device("cpu")
    a = shared_zeros((7,), wp.float32, cpu)
    a.delete()  # e.g. donated by the user's own jax.jit
    b = shared_zeros((7,), wp.float32, cpu)
    assert b is not a and not np.asarray(b).any()


@pytest.mark.parametrize("write", ["kernel", "repeated_kernel", "fill", "assign", "numpy_view"])
def test_writing_one_zeroed_gradient_leaves_the_others_zero(write):
    x, y, loss, tape = _chain()
    tape.backward(loss=loss)
    tape.zero()
    assert x.grad.buffer is y.grad.buffer  # one shared buffer
    if write == "kernel":
        wp.launch(_add_one, x.shape[0], inputs=[x.grad])
    elif write == "repeated_kernel":  # repeated launches may donate their output buffer
        for _ in range(20):
            wp.launch(_add_one, x.shape[0], inputs=[x.grad])
    elif write == "fill":
        x.grad.fill_(3.0)
    elif write == "assign":
        x.grad.assign(np.ones(x.shape[0], dtype=np.float32))
    else:
        x.grad.numpy()[:] = 5.0  # a host array of the contents: the shared buffer must not change
    if write != "numpy_view":
        assert x.grad.numpy().any()
    assert not y.grad.numpy().any()
    assert not np.asarray(shared_zeros(y.shape, y.dtype, y.device)).any()


def test_consumed_gradients_take_the_shared_zero_buffer_and_stay_independent():
    x, y, loss, tape = _chain()
    tape.backward(loss=loss)
    expected = 8.0 * x.numpy()  # d/dx sum((2x)^2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    # y was overwritten by a plain store: its adjoint is consumed (zero), without being computed
    assert not y.grad.numpy().any()
    pruned = [fn for fn, _ in tape_chain._CACHE.values() if isinstance(fn, tape_chain._Backward) and any(fn.zero)]
    assert pruned, "the backward should not compute the consumed gradient"
    wp.launch(_add_one, y.shape[0], inputs=[y.grad])
    np.testing.assert_array_equal(y.grad.numpy(), np.ones(y.shape[0], np.float32))
    # the next backward starts from the same zeros: gradients accumulate as before
    tape.zero()
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * expected, rtol=1e-6)


def test_backward_from_zeroed_gradients_skips_reading_them_and_matches():
    """After ``Tape.zero`` the incoming gradients are the shared zeros: the backward program is
    specialised to constant zeros (a separate program from one reading real gradients), and both
    give the same accumulation."""
    x, y, loss, tape = _chain()
    tape.zero()
    tape.backward(loss=loss)
    first = x.grad.numpy().copy()
    keys_after_zero = {k[-1] for k in tape_chain._CACHE if len(k) == 4}
    assert any(any(z) for z in keys_after_zero)
    tape.backward(loss=loss)  # now x.grad holds real values: they must be read and accumulated into
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * first, rtol=1e-6)
    x.grad.fill_(1.0)
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), 1.0 + first, rtol=1e-6)
